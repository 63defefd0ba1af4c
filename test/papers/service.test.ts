// searchPapers / fetchPaper against six local stand-ins: fan-out, per-source status, merging,
// one slow or failing source never failing the search, no network at all, and fetch routing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { searchPapers, fetchPaper, makeHttpClient } from '../../src/papers/service.ts';
import { RateLimiter } from '../../src/papers/http.ts';
import { SvcError } from '../../src/core/errors.ts';
import { SOURCES, type SourceName } from '../../src/papers/types.ts';
import { closedPort, text } from './replay.ts';
import { deps, world, P1_DOI, type World } from './world.ts';

const worlds: World[] = [];
after(async () => { for (const w of worlds) await w.close(); });
async function mk(override: Parameters<typeof world>[0] = {}) { const w = await world(override); worlds.push(w); return w; }

const ALL: SourceName[] = [...SOURCES];

test('default search asks the four keyless sources with a search endpoint and merges their hits', async () => {
  const w = await mk();
  const r = await searchPapers({ q: 'heat equation' }, deps(w.urls));
  assert.equal(r.ok, true);
  assert.deepEqual(Object.keys(r.sources), ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  for (const s of Object.values(r.sources)) assert.equal(s.status, 'ok');
  assert.equal(r.limit, 20);
  const p1 = r.results.filter((x) => x.ids.doi === P1_DOI);
  assert.equal(p1.length, 1);
  assert.deepEqual(p1[0].sources, ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  assert.equal(r.results[0].id, `doi:${P1_DOI}`);
  assert.equal(w.seen('open-catalogue').length, 0);
  assert.equal(w.seen('bio-preprint').length, 0);
  assert.equal(r.count, r.results.length);
});

test('open-catalogue without a key is "skipped: needs key"; with a key it is searched', async () => {
  const w = await mk();
  const r = await searchPapers({ q: 'heat equation', sources: ['open-catalogue', 'doi-registry'] }, deps(w.urls));
  assert.equal(r.sources['open-catalogue'].status, 'skipped: needs key');
  assert.match(r.sources['open-catalogue'].error!, /SVC_PAPERS_OPEN_CATALOGUE_KEY/);
  assert.equal(w.seen('open-catalogue').length, 0);
  const k = await searchPapers({ q: 'heat equation', sources: ['open-catalogue', 'doi-registry'] }, deps(w.urls, { SVC_PAPERS_OPEN_CATALOGUE_KEY: 'OA' }));
  assert.equal(k.sources['open-catalogue'].status, 'ok');
  assert.equal(w.seen('open-catalogue')[0].query.get('api_key'), 'OA');
  assert.deepEqual(k.results.find((x) => x.ids.doi === P1_DOI)!.sources, ['open-catalogue', 'doi-registry']);
});

test('all six sources: statuses for each, one record per work', async () => {
  const w = await mk();
  const r = await searchPapers({ q: 'heat equation', sources: ALL, limit: 50 }, deps(w.urls, { SVC_PAPERS_OPEN_CATALOGUE_KEY: 'OA' }));
  assert.deepEqual(Object.keys(r.sources), ALL);
  for (const s of ALL) assert.equal(r.sources[s].status, 'ok', s);
  const ids = r.results.map((x) => x.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(new Set(r.results.filter((x) => x.ids.doi).map((x) => x.ids.doi)).size, r.results.filter((x) => x.ids.doi).length);
  assert.deepEqual(r.results[0].sources, ['preprint', 'open-catalogue', 'doi-registry', 'biomedical-index', 'semantic-index']);
  assert.ok(r.results.some((x) => x.sources.includes('bio-preprint')));
});

test('limit caps the merged list', async () => {
  const w = await mk();
  const r = await searchPapers({ q: 'heat equation', limit: 2 }, deps(w.urls));
  assert.equal(r.results.length, 2);
  assert.equal(r.count, 2);
  await assert.rejects(searchPapers({ q: 'x', limit: 51 }, deps(w.urls)), (e: any) => e instanceof SvcError && e.status === 400);
  await assert.rejects(searchPapers({ q: '   ' }, deps(w.urls)), (e: any) => e instanceof SvcError && e.status === 400);
});

test('one source that never answers is a timeout; one that fails is an error; the search still answers', async () => {
  const w = await mk({ 'semantic-index': () => ({ hang: true }), 'biomedical-index': () => text('Service Unavailable', 503) });
  const r = await searchPapers({ q: 'heat equation' }, deps(w.urls, { SVC_PAPERS_TIMEOUT_MS: '300' }));
  assert.equal(r.sources['semantic-index'].status, 'timeout');
  assert.match(r.sources['semantic-index'].error!, /no answer within 300 ms/);
  assert.equal(r.sources['biomedical-index'].status, 'error');
  assert.match(r.sources['biomedical-index'].error!, /HTTP 503/);
  assert.equal(r.sources.preprint.status, 'ok');
  assert.deepEqual(r.results.find((x) => x.ids.doi === P1_DOI)!.sources, ['preprint', 'doi-registry']);
});

test('every chosen source failing is 503 UPSTREAM_UNAVAILABLE with the per-source statuses', async () => {
  const w = await mk({ 'preprint': () => text('down', 500), 'doi-registry': () => ({ hang: true }) });
  await assert.rejects(searchPapers({ q: 'heat', sources: ['preprint', 'doi-registry', 'open-catalogue'] }, deps(w.urls, { SVC_PAPERS_TIMEOUT_MS: '200' })), (e: any) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.status, 503);
    assert.equal(e.code, 'UPSTREAM_UNAVAILABLE');
    const body = e.toBody() as any;
    assert.equal(body.sources.preprint.status, 'error');
    assert.equal(body.sources['doi-registry'].status, 'timeout');
    assert.equal(body.sources['open-catalogue'].status, 'skipped: needs key');
    assert.match(body.error, /preprint: error .*HTTP 500/);
    return true;
  });
});

test('no network at all (closed port): every source fails fast with "connection refused", 503, no hang, long before the deadline', async () => {
  const dead = await closedPort();
  const urls = Object.fromEntries(ALL.map((s) => [s, dead])) as Record<SourceName, string>;
  // the default 8000 ms deadline: a refused connection must not wait for it (nor be retried)
  const t0 = performance.now();
  await assert.rejects(searchPapers({ q: 'heat equation', sources: ALL }, deps(urls, { SVC_PAPERS_TIMEOUT_MS: '8000', SVC_PAPERS_OPEN_CATALOGUE_KEY: 'k' })), (e: any) => {
    assert.equal(e.status, 503);
    assert.equal(e.code, 'UPSTREAM_UNAVAILABLE');
    const body = e.toBody() as any;
    for (const s of ALL) {
      assert.equal(body.sources[s].status, 'error', s);
      assert.match(body.sources[s].error, /connection refused/, s);
    }
    return true;
  });
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `took ${ms} ms`);
});

test('no network at all (unroutable TEST-NET address): each source is marked failed within its deadline', async () => {
  const urls = Object.fromEntries(ALL.map((s) => [s, 'http://192.0.2.1:81'])) as Record<SourceName, string>;
  const t0 = performance.now();
  await assert.rejects(searchPapers({ q: 'heat equation' }, deps(urls, { SVC_PAPERS_TIMEOUT_MS: '400' })), (e: any) => {
    assert.equal(e.status, 503);
    for (const st of Object.values((e.toBody() as any).sources) as any[]) {
      assert.ok(st.status === 'error' || st.status === 'timeout', JSON.stringify(st));
      assert.ok(st.error);
    }
    return true;
  });
  const ms = performance.now() - t0;
  assert.ok(ms < 400 + 1500, `took ${ms} ms with a 400 ms deadline`);
});

test('with the default public origins and no network (DNS fails), a search ends at once with a clear error per source', async () => {
  // no SVC_PAPERS_<SOURCE>_URL: the adapters use export.arxiv.org, api.crossref.org, …; the fetch
  // below fails the way Node's fetch does on a machine without network (getaddrinfo ENOTFOUND),
  // so the test never reaches the real services whatever network the machine has
  const hosts: string[] = [];
  const offline = (async (input: any) => {
    const host = new URL(String(input)).host;
    hosts.push(host);
    throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host }) });
  }) as typeof fetch;
  const d = deps({}, { SVC_PAPERS_TIMEOUT_MS: '8000' });
  const t0 = performance.now();
  await assert.rejects(searchPapers({ q: 'heat equation' }, { ...d, http: makeHttpClient(d.cfg, { fetchImpl: offline, limiter: new RateLimiter(), baseDelayMs: 10 }) }), (e: any) => {
    assert.equal(e.status, 503);
    assert.equal(e.code, 'UPSTREAM_UNAVAILABLE');
    const body = e.toBody() as any;
    assert.deepEqual(Object.keys(body.sources), ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
    for (const st of Object.values(body.sources) as any[]) {
      assert.equal(st.status, 'error', JSON.stringify(st));
      assert.match(st.error, /host not found \(DNS\)/);
    }
    return true;
  });
  assert.ok(performance.now() - t0 < 2000);
  // the public origins were the ones tried, once each (a DNS failure is not retried)
  assert.deepEqual(hosts.sort(), ['api.crossref.org', 'api.semanticscholar.org', 'eutils.ncbi.nlm.nih.gov', 'export.arxiv.org']);
});

test('fetch doi: resolved through doi-registry, enriched by every source that knows it, arXiv reached via the learned id', async () => {
  const w = await mk();
  const r = await fetchPaper(`doi:${P1_DOI.toUpperCase()}`, deps(w.urls));
  assert.equal(r.id, `doi:${P1_DOI}`);
  assert.equal(r.requested, `doi:${P1_DOI}`);
  assert.deepEqual(r.record.sources, ['preprint', 'open-catalogue', 'doi-registry', 'biomedical-index', 'semantic-index']);
  assert.deepEqual(r.record.ids, { doi: P1_DOI, pmid: '37011111', pmcid: 'PMC10111111', arxiv: '2301.04512', openalex: 'W4300000001', s2: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678' });
  assert.deepEqual(r.record.authors, ['Ana María Núñez-García', 'Li Wei', "Jean-Luc O'Brien"]);
  assert.equal(r.record.date, '2023-06-14');
  // the full abstract (the longest any source gave), not a snippet
  assert.ok(r.record.abstract!.includes('mortar coupling & an implicit time step'));
  assert.equal(r.sources['doi-registry'].status, 'ok');
  assert.equal(r.sources.preprint.status, 'ok');
  assert.equal(r.sources['bio-preprint'], undefined); // not a 10.1101 DOI: not asked
  assert.equal(w.seen('preprint')[0].query.get('id_list'), '2301.04512');
});

test('fetch pmid: PubMed first, then the DOI it names goes to Crossref', async () => {
  const w = await mk();
  const r = await fetchPaper('pmid:37011111', deps(w.urls));
  assert.equal(r.id, `doi:${P1_DOI}`);
  assert.equal(r.requested, 'pmid:37011111');
  assert.ok(r.record.sources.includes('doi-registry'));
  assert.ok(r.record.sources.includes('biomedical-index'));
  assert.equal(w.seen('doi-registry')[0].path, `/works/${P1_DOI}`);
});

test('fetch biorxiv: the bioRxiv API and Crossref agree on the preprint', async () => {
  const w = await mk();
  const r = await fetchPaper('biorxiv:2023.05.02.539100', deps(w.urls));
  assert.equal(r.id, 'doi:10.1101/2023.05.02.539100');
  assert.ok(r.record.sources.includes('bio-preprint') && r.record.sources.includes('doi-registry'));
  assert.equal(r.record.date, '2023-05-02');
});

test('fetch arxiv, openalex and s2 ids are routed to their own catalogue first', async () => {
  const w = await mk();
  for (const id of ['arxiv:2301.04512v2', 'openalex:W4300000001', 's2:a1b2c3d4e5f60718293a4b5c6d7e8f9012345678']) {
    const r = await fetchPaper(id, deps(w.urls));
    assert.equal(r.id, `doi:${P1_DOI}`, id);
  }
});

test('fetch: unknown everywhere is 404; unreachable everywhere is 503; bad ids are 400', async () => {
  const w = await mk();
  await assert.rejects(fetchPaper('doi:10.5555/unknown.work', deps(w.urls)), (e: any) => e.status === 404 && e.code === 'NOT_FOUND');
  const dead = await closedPort();
  const urls = Object.fromEntries(ALL.map((s) => [s, dead])) as Record<SourceName, string>;
  await assert.rejects(fetchPaper(`doi:${P1_DOI}`, deps(urls)), (e: any) => e.status === 503 && /connection refused/.test(e.message));
  for (const bad of ['foo', 'doi:', 'pmid:abc', 'doi:' + 'x'.repeat(400), 'isbn:123']) {
    await assert.rejects(fetchPaper(bad, deps(w.urls)), (e: any) => e instanceof SvcError && e.status === 400 && e.code === 'INVALID_INPUT', bad);
  }
});
