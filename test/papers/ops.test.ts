// svc_paper_search and svc_paper_fetch through the node (HTTP and tool faces), with the
// sources pointed at local stand-ins through SVC_PAPERS_<SOURCE>_URL.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { SOURCES } from '../../src/papers/types.ts';
import { papersEnv, world, P1_DOI, type World } from './world.ts';

let w: World;
let node: TestNode;
before(async () => {
  w = await world();
  // the default 8000 ms per-source deadline, so that "quickly" below means long before it
  node = await testNode({ env: papersEnv(w.urls, { SVC_PAPERS_TIMEOUT_MS: '8000' }) });
});
after(async () => {
  await node?.close();
  await w?.close();
});

const enc = encodeURIComponent;

test('GET /api/papers/search answers merged records with per-source status (public, no key)', async () => {
  const r = await node.call('GET', `/api/papers/search?q=${enc('heat equation')}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.ok, true);
  assert.deepEqual(Object.keys(r.body.sources), ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  const top = r.body.results[0];
  assert.equal(top.id, `doi:${P1_DOI}`);
  assert.deepEqual(top.sources, ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  assert.deepEqual(top.authors, ['Ana María Núñez-García', 'Li Wei', "Jean-Luc O'Brien"]);
  assert.equal(top.date, '2023-06-14');
  assert.ok(top.abstract.length <= 301);
  // polite: a contact in the User-Agent and Crossref's mailto
  assert.match(String(w.seen('doi-registry')[0].headers['user-agent']), /mailto:ops@node\.test/);
  assert.equal(w.seen('doi-registry')[0].query.get('mailto'), 'ops@node.test');
});

test('query-string sources and limit are understood; the same search is then served from the store cache', async () => {
  const before = w.seen('preprint').length;
  const url = `/api/papers/search?q=${enc('lattice gauge')}&sources=preprint,semantic-index&limit=3`;
  const a = await node.call('GET', url);
  assert.equal(a.status, 200, a.text);
  assert.deepEqual(Object.keys(a.body.sources), ['preprint', 'semantic-index']);
  assert.ok(a.body.results.length <= 3);
  assert.equal(w.seen('preprint').length, before + 1);
  const b = await node.call('GET', url);
  assert.deepEqual(b.body.results, a.body.results);
  assert.equal(w.seen('preprint').length, before + 1);
  const rows = await node.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM paper_cache');
  assert.ok(rows[0].n >= 2);
});

test('svc_paper_search as a tool', async () => {
  const r = await node.tool('svc_paper_search', { q: 'heat equation', sources: ['doi-registry'], limit: 2 });
  assert.equal(r.isError, false);
  assert.equal(r.body.results.length, 2);
  assert.equal(r.body.sources['doi-registry'].status, 'ok');
});

test('search input bounds are 400: missing q, limit 0 or 51, an unknown source, an oversize query', async () => {
  for (const qs of ['', `q=x&limit=0`, `q=x&limit=51`, `q=x&limit=2.5`, `q=x&sources=google-scholar`, `q=${'x'.repeat(501)}`]) {
    const r = await node.call('GET', `/api/papers/search?${qs}`);
    assert.equal(r.status, 400, `${qs}: ${r.text}`);
    assert.equal(r.body.code, 'INVALID_INPUT');
  }
  const t = await node.tool('svc_paper_search', { q: 'x', limit: 99 });
  assert.equal(t.isError, true);
  assert.equal(t.body.code, 'INVALID_INPUT');
});

test('GET /api/papers/fetch returns the full record, merged across sources', async () => {
  const r = await node.call('GET', `/api/papers/fetch?id=${enc(`doi:${P1_DOI}`)}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.id, `doi:${P1_DOI}`);
  assert.ok(r.body.record.sources.includes('doi-registry'));
  assert.ok(r.body.record.abstract.includes('mortar coupling'));
  const t = await node.tool('svc_paper_fetch', { id: 'pmid:37011111' });
  assert.equal(t.isError, false);
  assert.equal(t.body.id, `doi:${P1_DOI}`);
});

test('bad ids are 400 (foo, doi:, pmid:abc, oversize), over HTTP and as a tool', async () => {
  for (const id of ['foo', 'doi:', 'pmid:abc', 'doi:10.5555/' + 'x'.repeat(400), 'x'.repeat(5000)]) {
    const r = await node.call('GET', `/api/papers/fetch?id=${enc(id)}`);
    assert.equal(r.status, 400, `${id.slice(0, 20)}: ${r.text}`);
    assert.equal(r.body.code, 'INVALID_INPUT');
    const t = await node.tool('svc_paper_fetch', { id });
    assert.equal(t.isError, true);
    assert.equal(t.body.code, 'INVALID_INPUT');
  }
  const missing = await node.call('GET', '/api/papers/fetch');
  assert.equal(missing.status, 400);
});

test('an unknown work is 404', async () => {
  const r = await node.call('GET', `/api/papers/fetch?id=${enc('doi:10.5555/unknown.work')}`);
  assert.equal(r.status, 404, r.text);
  assert.equal(r.body.code, 'NOT_FOUND');
});

test('GET /api/papers/sources lists the six sources, the default four and which keys are configured', async () => {
  const r = await node.call('GET', '/api/papers/sources');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.sources.map((s: any) => s.source), [...SOURCES]);
  assert.deepEqual(r.body.defaultSources, ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  const oc = r.body.sources.find((s: any) => s.source === 'open-catalogue');
  assert.equal(oc.keyConfigured, false);
  assert.equal(oc.customUrl, true);
  assert.equal(JSON.stringify(r.body).includes('127.0.0.1'), false);
});

// last in this file: the stand-ins go away, so every source refuses connections from here on
test('when every source is unreachable, a search answers quickly with 503 and each source marked failed, never 500', async () => {
  await w.close();
  const t0 = performance.now();
  const r = await node.call('GET', `/api/papers/search?q=${enc('offline quantum criticality')}`);
  const ms = performance.now() - t0;
  assert.equal(r.status, 503, r.text);
  assert.ok(ms < 2000, `the search took ${ms} ms (deadline 8000 ms)`);
  assert.equal(r.body.ok, false);
  assert.equal(r.body.code, 'UPSTREAM_UNAVAILABLE');
  for (const s of ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']) {
    assert.equal(r.body.sources[s].status, 'error');
    assert.match(r.body.sources[s].error, /connection refused/);
  }
  assert.equal(r.headers['retry-after'], '30');
  const f = await node.call('GET', `/api/papers/fetch?id=${enc('doi:10.5555/svc.heat.2020.042')}`);
  assert.equal(f.status, 503, f.text);
  assert.equal(f.body.code, 'UPSTREAM_UNAVAILABLE');
  const t = await node.tool('svc_paper_search', { q: 'offline heat kernels' });
  assert.equal(t.isError, true);
  assert.equal(t.body.code, 'UPSTREAM_UNAVAILABLE');
});
