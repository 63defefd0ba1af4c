// Each of the six adapters against a local server that answers in the source's real format
// (fixtures in test/papers/fixtures, written for this project in those formats): exact parsing
// of authors, dates and DOIs, empty results, pagination, malformed payloads, and the failure
// modes every source shares (429 with Retry-After, 500s, timeouts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient, RateLimiter, UpstreamError } from '../../src/papers/http.ts';
import { ADAPTERS } from '../../src/papers/sources.ts';
import type { Adapter, AdapterContext, SourceName } from '../../src/papers/types.ts';
import { fixture, json, replay, text, xml, type Replay, type Route } from './replay.ts';

const servers: Replay[] = [];
after(async () => { for (const s of servers) await s.close(); });

/** 2026-02-26T12:00:00Z, inside the bioRxiv fixtures' interval */
const NOW = Date.UTC(2026, 1, 26, 12) / 1000;

async function serve(route: Route): Promise<Replay> {
  const s = await replay(route);
  servers.push(s);
  return s;
}

function ctx(baseUrl: string, o: { key?: string; pageSize?: number; timeoutMs?: number; sleeps?: number[]; options?: Record<string, number> } = {}): AdapterContext {
  return {
    http: new HttpClient({
      userAgent: 'svc-node/test (+http://node.test; mailto:ops@node.test)',
      limiter: new RateLimiter(() => 0, async () => {}),
      intervalScale: 0,
      baseDelayMs: 10,
      sleep: async (ms) => { o.sleeps?.push(ms); },
    }),
    baseUrl,
    key: o.key ?? null,
    mailto: 'ops@node.test',
    signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
    now: () => NOW,
    pageSize: o.pageSize,
    options: o.options,
  };
}

const P1_DOI = '10.5555/svc.heat.2023.001';
const P1_AUTHORS = ['Ana María Núñez-García', 'Li Wei', "Jean-Luc O'Brien"];

// ---------------------------------------------------------------- preprint (arXiv Atom)

test('preprint: legacy Atom format (namespaces per element, wrapped summary, link title="doi")', async () => {
  const s = await serve((r) => (r.path === '/api/query' ? xml('arxiv/search-legacy.xml') : undefined));
  const page = await ADAPTERS.preprint.search('heat equation', 10, ctx(s.url));
  assert.equal(page.total, 3);
  assert.equal(page.records.length, 3);
  const [p1, p2, p4] = page.records;
  assert.equal(p1.id, `doi:${P1_DOI}`);
  assert.deepEqual(p1.ids, { arxiv: '2301.04512', doi: P1_DOI });
  assert.equal(p1.title, 'Conservative Spectral Schemes for the Heat Equation on Irregular Domains');
  assert.deepEqual(p1.authors, P1_AUTHORS);
  assert.equal(p1.date, '2023-01-11');
  assert.equal(p1.year, 2023);
  assert.equal(p1.venue, 'J. Comput. Test. 12, 101 (2023)');
  assert.ok(p1.abstract!.startsWith('We construct spectral schemes for the heat equation on irregular domains that conserve'));
  assert.ok(p1.abstract!.includes('mortar coupling & an implicit time step'));
  assert.deepEqual(p1.sources, ['preprint']);
  assert.equal(p2.id, 'arxiv:2104.01234');
  assert.equal(p2.venue, 'arXiv');
  assert.equal(p4.id, 'arxiv:math/0601001');
  assert.equal(p4.date, '2005-12-31'); // the stamp's own date, no time-zone shift
  assert.deepEqual(p4.authors, ['P. Dupont', 'Q. Zhang']);
  const q = s.requests[0].query;
  assert.equal(q.get('search_query'), 'all:heat AND all:equation');
  assert.equal(q.get('sortBy'), 'relevance');
  assert.equal(q.get('start'), '0');
});

test('preprint: current format, paged with start/max_results until the total is reached', async () => {
  const s = await serve((r) => (r.query.get('start') === '0' ? xml('arxiv/search-current-p1.xml') : r.query.get('start') === '2' ? xml('arxiv/search-current-p2.xml') : undefined));
  const page = await ADAPTERS.preprint.search('heat equation', 10, ctx(s.url, { pageSize: 2 }));
  assert.deepEqual(page.records.map((r) => r.id), [`doi:${P1_DOI}`, 'arxiv:2104.01234', 'arxiv:math/0601001']);
  assert.deepEqual(s.requests.map((r) => [r.query.get('start'), r.query.get('max_results')]), [['0', '2'], ['2', '2']]);
  assert.deepEqual(page.records[0].authors, P1_AUTHORS);
  assert.equal(page.records[0].date, '2023-01-11');
});

test('preprint: lookup by id; empty feed is "not found"; a 400 Atom error is "not found" for a lookup', async () => {
  const s = await serve((r) => {
    const id = r.query.get('id_list');
    if (id === '2301.04512') return xml('arxiv/idlist-2301.04512-current.xml');
    if (id === '9912.99999') return xml('arxiv/idlist-empty-current.xml');
    return xml('arxiv/error-400-current.xml', 400);
  });
  const rec = await ADAPTERS.preprint.lookup({ scheme: 'arxiv', value: '2301.04512' }, ctx(s.url));
  assert.equal(rec!.ids.doi, P1_DOI);
  assert.equal(await ADAPTERS.preprint.lookup({ scheme: 'arxiv', value: '9912.99999' }, ctx(s.url)), null);
  assert.equal(await ADAPTERS.preprint.lookup({ scheme: 'arxiv', value: '2301.9' }, ctx(s.url)), null);
  assert.equal(await ADAPTERS.preprint.lookup({ scheme: 'doi', value: P1_DOI }, ctx(s.url)), null);
});

test('preprint: a legacy 200 answer holding only an Error entry is an error, a truncated feed is malformed', async () => {
  const s = await serve((r) => (r.path === '/api/query' && r.query.get('start') === '0' ? xml(r.query.get('search_query')!.includes('broken') ? 'arxiv/truncated.xml' : 'arxiv/error-200-legacy.xml') : undefined));
  await assert.rejects(ADAPTERS.preprint.search('anything', 5, ctx(s.url)), (e: any) => e instanceof UpstreamError && /incorrect id format/.test(e.message));
  await assert.rejects(ADAPTERS.preprint.search('broken', 5, ctx(s.url)), (e: any) => e.kind === 'malformed');
});

test('preprint: the current 400 error body gives its message', async () => {
  const s = await serve(() => xml('arxiv/error-400-current.xml', 400));
  await assert.rejects(ADAPTERS.preprint.search('heat equation', 5, ctx(s.url)), (e: any) => e.kind === 'http' && /HTTP 400 .*incorrect id format for 2301\.9/.test(e.message));
});

test('preprint: a search with no hits (empty feed, totalResults 0) is an empty page in both formats, one request each', async () => {
  for (const file of ['arxiv/search-empty-legacy.xml', 'arxiv/idlist-empty-current.xml']) {
    const s = await serve((r) => (r.path === '/api/query' ? xml(file) : undefined));
    assert.deepEqual(await ADAPTERS.preprint.search('zzqx qqzx', 5, ctx(s.url)), { records: [], total: 0 }, file);
    assert.equal(s.requests.length, 1, file);
  }
});

// ---------------------------------------------------------------- open-catalogue (OpenAlex)

test('open-catalogue: search pages through per_page/page; authors, dates, DOIs, ids and abstracts exact', async () => {
  const s = await serve((r) => (r.path === '/works' ? json(r.query.get('page') === '1' ? 'openalex/search-p1.json' : 'openalex/search-p2.json') : undefined));
  const page = await ADAPTERS['open-catalogue'].search('heat equation', 10, ctx(s.url, { key: 'OA-KEY', pageSize: 2 }));
  assert.equal(page.total, 3);
  assert.deepEqual(page.records.map((r) => r.id), [`doi:${P1_DOI}`, 'openalex:W4300000005', 'doi:10.5555/svc.heat.2020.042']);
  const [p1, p5, p6] = page.records;
  assert.deepEqual(p1.ids, { openalex: 'W4300000001', doi: P1_DOI, pmid: '37011111', pmcid: '10111111', arxiv: '2301.04512' });
  assert.deepEqual(p1.authors, P1_AUTHORS);
  assert.equal(p1.date, '2023-06-14');
  assert.equal(p1.venue, 'Journal of Computational Testing');
  assert.equal(p1.abstract, 'We construct spectral schemes for the heat equation on irregular domains that conserve the total heat to machine precision.');
  assert.deepEqual(p5.authors, []);
  assert.equal(p5.venue, null);
  assert.equal(p5.abstract, null);
  assert.equal(p6.ids.doi, '10.5555/svc.heat.2020.042'); // upper-case DOI normalised
  assert.deepEqual(p6.authors, ['Chen Jing']);
  const q = s.requests[0].query;
  assert.equal(q.get('search'), 'heat equation');
  assert.equal(q.get('api_key'), 'OA-KEY');
  assert.equal(q.get('mailto'), 'ops@node.test');
  assert.deepEqual(s.requests.map((r) => r.query.get('page')), ['1', '2']);
});

test('open-catalogue: empty list; singleton lookups by W id, DOI and PMID; 404 HTML is "not found"', async () => {
  const s = await serve((r) => {
    if (r.path === '/works') return json('openalex/empty.json');
    if (r.path === '/works/W4300000001' || r.path === `/works/doi:${P1_DOI}` || r.path === '/works/pmid:37011111') return json('openalex/work-W4300000001.json');
    return text(fixture('openalex/404.html'), 404, 'text/html; charset=utf-8');
  });
  const a = ADAPTERS['open-catalogue'];
  assert.deepEqual(await a.search('zzqx', 5, ctx(s.url, { key: 'k' })), { records: [], total: 0 });
  for (const id of [{ scheme: 'openalex', value: 'W4300000001' }, { scheme: 'doi', value: P1_DOI }, { scheme: 'pmid', value: '37011111' }] as const) {
    const r = await a.lookup(id, ctx(s.url));
    assert.equal(r!.id, `doi:${P1_DOI}`);
    assert.equal(r!.abstract!.startsWith('We construct'), true);
  }
  assert.equal(await a.lookup({ scheme: 'doi', value: '10.5555/none' }, ctx(s.url)), null);
  // singletons are free: no key is sent when none is configured
  assert.equal(s.requests.at(-1)!.query.get('api_key'), null);
});

test('open-catalogue: a JSON body without results is malformed', async () => {
  const s = await serve(() => text('{"meta":{"count":1}}', 200, 'application/json'));
  await assert.rejects(ADAPTERS['open-catalogue'].search('x', 5, ctx(s.url, { key: 'k' })), (e: any) => e.kind === 'malformed' && /no results array/.test(e.message));
});

// ---------------------------------------------------------------- doi-registry (Crossref)

test('doi-registry: work-list paged by rows/offset; JATS abstracts, partial dates, consortium authors', async () => {
  const s = await serve((r) => (r.path === '/works' ? json(r.query.get('offset') === '0' ? 'crossref/search-p1.json' : 'crossref/search-p2.json') : undefined));
  const page = await ADAPTERS['doi-registry'].search('heat equation', 10, ctx(s.url, { pageSize: 2 }));
  assert.equal(page.total, 3);
  const [p1, rep, p7] = page.records;
  assert.equal(p1.id, `doi:${P1_DOI}`);
  assert.deepEqual(p1.authors, P1_AUTHORS);
  assert.equal(p1.date, '2023-06-14');
  assert.equal(p1.venue, 'Journal of Computational Testing');
  assert.equal(p1.abstract, 'We construct spectral schemes for the heat equation on irregular domains that conserve the total heat to machine precision. The schemes converge exponentially for smooth data & remain stable for any time step.');
  assert.deepEqual(rep.authors, ['Heat Equation Consortium']);
  assert.equal(rep.date, '2019');
  assert.equal(p7.title, 'Heat equation with nonlocal boundary data');
  assert.deepEqual(p7.authors, ['Sven Müller']);
  assert.equal(p7.date, '2021-03');
  assert.deepEqual(s.requests.map((r) => [r.query.get('rows'), r.query.get('offset')]), [['2', '0'], ['2', '2']]);
  assert.equal(s.requests[0].query.get('mailto'), 'ops@node.test');
  assert.equal(s.requests[0].query.get('query'), 'heat equation');
});

test('doi-registry: lookup by DOI (a bioRxiv posted-content too); 404 text/plain is "not found"; empty list', async () => {
  const s = await serve((r) => {
    if (r.path === `/works/${P1_DOI}`) return json('crossref/work-10.5555_svc.heat.2023.001.json');
    if (r.path === '/works/10.1101/2023.05.02.539100') return json('crossref/work-10.1101_2023.05.02.539100.json');
    if (r.path === '/works') return json('crossref/empty.json');
    return text(fixture('crossref/404.txt'), 404);
  });
  const a = ADAPTERS['doi-registry'];
  const p1 = await a.lookup({ scheme: 'doi', value: P1_DOI }, ctx(s.url));
  assert.deepEqual(p1!.authors, P1_AUTHORS);
  const bio = await a.lookup({ scheme: 'doi', value: '10.1101/2023.05.02.539100' }, ctx(s.url));
  assert.deepEqual(bio!.ids, { doi: '10.1101/2023.05.02.539100', biorxiv: '2023.05.02.539100' });
  assert.equal(bio!.venue, 'bioRxiv');
  assert.equal(bio!.date, '2023-05-02');
  assert.equal(await a.lookup({ scheme: 'doi', value: '10.5555/notarealdoi' }, ctx(s.url)), null);
  assert.deepEqual(await a.search('zzqx', 5, ctx(s.url)), { records: [], total: 0 });
});

test('doi-registry and open-catalogue: a refused `select` (HTTP 400) is retried once without it', async () => {
  const cr = await serve((r) => (r.query.get('select') ? text('{"status":"failed","message-type":"validation-failure","message":[{"type":"parameter-not-allowed"}]}', 400, 'application/json') : json('crossref/search-p2.json')));
  assert.equal((await ADAPTERS['doi-registry'].search('heat', 5, ctx(cr.url))).records.length, 1);
  assert.deepEqual(cr.requests.map((r) => r.query.has('select')), [true, false]);
  const oa = await serve((r) => (r.query.get('select') ? text('{"error":"Invalid query parameters error.","message":"select field not found"}', 400, 'application/json') : json('openalex/search-p2.json')));
  assert.equal((await ADAPTERS['open-catalogue'].search('heat', 5, ctx(oa.url, { key: 'k' }))).records.length, 1);
  assert.deepEqual(oa.requests.map((r) => r.query.has('select')), [true, false]);
});

test('doi-registry: a JSON body that is not a work-list is malformed', async () => {
  const s = await serve(() => text('{"status":"ok","message-type":"work","message":{}}', 200, 'application/json'));
  await assert.rejects(ADAPTERS['doi-registry'].search('x', 5, ctx(s.url)), (e: any) => e.kind === 'malformed');
});

// ---------------------------------------------------------------- biomedical-index (E-utilities)

test('biomedical-index: esearch (JSON) then efetch (XML); structured abstract, MedlineDate, collective authors', async () => {
  const s = await serve((r) => {
    if (r.path.endsWith('/esearch.fcgi')) return json('pubmed/esearch-heat-equation.json');
    if (r.path.endsWith('/efetch.fcgi')) return xml('pubmed/efetch-37011111_36022222.xml');
    return undefined;
  });
  const page = await ADAPTERS['biomedical-index'].search('heat equation', 10, ctx(s.url));
  assert.equal(page.total, 2);
  const [a, b] = page.records;
  assert.equal(a.id, `doi:${P1_DOI}`);
  assert.deepEqual(a.ids, { pmid: '37011111', doi: P1_DOI, pmcid: 'PMC10111111' }); // the reference list's DOI is not taken
  assert.equal(a.title, 'Conservative spectral schemes for the heat equation on irregular domains.');
  assert.deepEqual(a.authors, P1_AUTHORS);
  assert.equal(a.date, '2023-06');
  assert.equal(a.venue, 'Journal of computational testing');
  assert.equal(a.abstract, 'BACKGROUND: Heat must be conserved by numerical schemes. RESULTS: Spectral schemes conserve the total heat to machine precision (error < 10-14).');
  assert.equal(b.id, 'pmid:36022222');
  assert.deepEqual(b.authors, ['Thermometry Study Group', 'J Kowalski']);
  assert.equal(b.date, '2022-11');
  assert.equal(b.abstract, null);
  const es = s.requests[0];
  assert.equal(es.path, '/entrez/eutils/esearch.fcgi');
  assert.deepEqual([es.query.get('db'), es.query.get('term'), es.query.get('retmode'), es.query.get('tool'), es.query.get('email')], ['pubmed', 'heat equation', 'json', 'svc-node', 'ops@node.test']);
  assert.equal(s.requests[1].query.get('id'), '37011111,36022222');
});

test('biomedical-index: paged with retstart; the API key travels as api_key', async () => {
  const s = await serve((r) => {
    if (r.path.endsWith('/esearch.fcgi')) return json(r.query.get('retstart') === '0' ? 'pubmed/esearch-heat-equation-p1.json' : 'pubmed/esearch-heat-equation-p2.json');
    if (r.path.endsWith('/efetch.fcgi')) return xml(r.query.get('id') === '37011111' ? 'pubmed/efetch-37011111.xml' : 'pubmed/efetch-37011111_36022222.xml');
    return undefined;
  });
  const page = await ADAPTERS['biomedical-index'].search('heat equation', 10, ctx(s.url, { pageSize: 1, key: 'NCBI-KEY' }));
  assert.deepEqual(page.records.map((r) => r.ids.pmid), ['37011111', '36022222']);
  assert.deepEqual(s.requests.filter((r) => r.path.endsWith('esearch.fcgi')).map((r) => r.query.get('retstart')), ['0', '1']);
  assert.ok(s.requests.every((r) => r.query.get('api_key') === 'NCBI-KEY'));
});

test('biomedical-index: zero hits (errorlist/warninglist) is empty; an esearch ERROR is malformed; efetch failure falls back to esummary', async () => {
  let efetchDown = true;
  const s = await serve((r) => {
    if (r.path.endsWith('/esearch.fcgi')) return json(r.query.get('term') === 'zzqx' ? 'pubmed/esearch-empty.json' : r.query.get('term') === 'bad(' ? 'pubmed/esearch-error.json' : 'pubmed/esearch-heat-equation.json');
    if (r.path.endsWith('/efetch.fcgi')) return efetchDown ? text('Bad Gateway', 502) : xml('pubmed/efetch-37011111_36022222.xml');
    if (r.path.endsWith('/esummary.fcgi')) return json('pubmed/esummary-37011111_36022222.json');
    return undefined;
  });
  const a = ADAPTERS['biomedical-index'];
  assert.deepEqual(await a.search('zzqx', 5, ctx(s.url)), { records: [], total: 0 });
  await assert.rejects(a.search('bad(', 5, ctx(s.url)), (e: any) => e.kind === 'malformed' && /Invalid query/.test(e.message));
  const page = await a.search('heat equation', 5, ctx(s.url));
  assert.deepEqual(page.records.map((r) => r.id), [`doi:${P1_DOI}`, 'pmid:36022222']);
  assert.deepEqual(page.records[0].authors, ['Núñez-García AM', 'Wei L', "O'Brien JL"]);
  assert.equal(page.records[0].date, '2023-06');
  assert.equal(page.records[1].date, '2022-11');
  assert.equal(page.records[0].abstract, null);
  efetchDown = false;
});

test('biomedical-index: lookup by PMID (efetch) and by DOI (esearch [doi] then efetch); empty set is "not found"', async () => {
  const s = await serve((r) => {
    if (r.path.endsWith('/esearch.fcgi')) return json(r.query.get('term') === `"${P1_DOI}"[doi]` ? 'pubmed/esearch-doi.json' : 'pubmed/esearch-empty.json');
    if (r.path.endsWith('/efetch.fcgi')) return xml(r.query.get('id') === '37011111' ? 'pubmed/efetch-37011111.xml' : 'pubmed/efetch-empty.xml');
    return undefined;
  });
  const a = ADAPTERS['biomedical-index'];
  assert.equal((await a.lookup({ scheme: 'pmid', value: '37011111' }, ctx(s.url)))!.ids.doi, P1_DOI);
  assert.equal((await a.lookup({ scheme: 'doi', value: P1_DOI }, ctx(s.url)))!.ids.pmid, '37011111');
  assert.equal(await a.lookup({ scheme: 'pmid', value: '99999999' }, ctx(s.url)), null);
  assert.equal(await a.lookup({ scheme: 'doi', value: '10.5555/none' }, ctx(s.url)), null);
});

// ---------------------------------------------------------------- semantic-index (Semantic Scholar)

test('semantic-index: search follows `next` until it is absent; externalIds mapped; key as x-api-key', async () => {
  const s = await serve((r) => (r.path === '/graph/v1/paper/search' ? json(r.query.get('offset') === '0' ? 'semanticscholar/search-p1.json' : 'semanticscholar/search-p2.json') : undefined));
  const page = await ADAPTERS['semantic-index'].search('heat equation', 10, ctx(s.url, { pageSize: 2, key: 'S2-KEY' }));
  assert.equal(page.total, 3);
  const [p1, p2, p8] = page.records;
  assert.equal(p1.id, `doi:${P1_DOI}`);
  assert.deepEqual(p1.ids, { s2: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', doi: P1_DOI, arxiv: '2301.04512', pmid: '37011111', pmcid: 'PMC10111111' });
  assert.deepEqual(p1.authors, ['A. M. Núñez-García', 'Li Wei', "J.-L. O'Brien"]);
  assert.equal(p1.date, '2023-06-14');
  assert.equal(p2.id, 's2:b2c3d4e5f60718293a4b5c6d7e8f901234567890');
  assert.equal(p2.date, '2021'); // publicationDate null → the year
  assert.equal(p2.venue, null); // venue "" and no journal
  assert.deepEqual(p8.authors, ['Tomáš Novák']);
  assert.equal(p8.venue, 'Parallel Test Letters');
  assert.deepEqual(s.requests.map((r) => r.query.get('offset')), ['0', '2']);
  assert.ok(s.requests.every((r) => r.headers['x-api-key'] === 'S2-KEY'));
  assert.match(s.requests[0].query.get('fields')!, /externalIds/);
});

test('semantic-index: lookups by DOI/ARXIV/PMID/paperId; 404 {"error"} is "not found"; 400 names the error; empty search', async () => {
  const s = await serve((r) => {
    if (r.path === '/graph/v1/paper/search') return json('semanticscholar/empty.json');
    if (r.path.startsWith('/graph/v1/paper/DOI:10.5555/svc.none')) return json('semanticscholar/404.json', 404);
    if (r.path === '/graph/v1/paper/CorpusId:1') return json('semanticscholar/400-bad-fields.json', 400);
    return json('semanticscholar/paper-p1.json');
  });
  const a = ADAPTERS['semantic-index'];
  assert.deepEqual(await a.search('zzqx', 5, ctx(s.url)), { records: [], total: 0 });
  for (const id of [{ scheme: 'doi', value: P1_DOI }, { scheme: 'arxiv', value: '2301.04512' }, { scheme: 'pmid', value: '37011111' }, { scheme: 's2', value: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678' }] as const) {
    assert.equal((await a.lookup(id, ctx(s.url)))!.ids.s2, 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678');
  }
  assert.deepEqual(s.requests.slice(1).map((r) => r.path), [
    `/graph/v1/paper/DOI:${P1_DOI}`, '/graph/v1/paper/ARXIV:2301.04512', '/graph/v1/paper/PMID:37011111', '/graph/v1/paper/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678']);
  assert.equal(await a.lookup({ scheme: 'doi', value: '10.5555/svc.none.0000' }, ctx(s.url)), null);
  await assert.rejects(a.lookup({ scheme: 's2', value: 'CorpusId:1' }, ctx(s.url)), (e: any) => e.kind === 'http' && /Unrecognized or unsupported fields/.test(e.message));
});

// ---------------------------------------------------------------- bio-preprint (bioRxiv/medRxiv)

test('bio-preprint: details by DOI merges versions (latest text, first date); medRxiv tried after bioRxiv; "no posts found" is null', async () => {
  const s = await serve((r) => (r.path === '/details/biorxiv/10.1101/2023.05.02.539100/na/json' ? json('biorxiv/details-10.1101_2023.05.02.539100.json') : json('biorxiv/details-not-found.json')));
  const a = ADAPTERS['bio-preprint'];
  const rec = await a.lookup({ scheme: 'biorxiv', value: '2023.05.02.539100' }, ctx(s.url));
  assert.equal(rec!.id, 'doi:10.1101/2023.05.02.539100');
  assert.deepEqual(rec!.ids, { doi: '10.1101/2023.05.02.539100', biorxiv: '2023.05.02.539100' });
  assert.equal(rec!.title, 'Reaction-diffusion models of the heat shock response');
  assert.deepEqual(rec!.authors, ['K. Mensah', 'I. Larsen', 'C. N. Okafor']);
  assert.equal(rec!.date, '2023-05-02');
  assert.equal(rec!.venue, 'bioRxiv');
  assert.equal(rec!.url, 'https://www.biorxiv.org/content/10.1101/2023.05.02.539100v2');
  assert.equal(await a.lookup({ scheme: 'doi', value: '10.1101/2020.02.25.20021568' }, ctx(s.url)), null);
  // an 8-digit suffix is a medRxiv DOI: medRxiv is asked first
  assert.deepEqual(s.requests.slice(1).map((r) => r.path.split('/')[2]), ['medrxiv', 'biorxiv']);
  assert.equal(await a.lookup({ scheme: 'doi', value: P1_DOI }, ctx(s.url)), null); // not a 10.1101 DOI: nothing asked
  assert.equal(s.requests.length, 3);
});

test('bio-preprint: search scans the recent window page by page (cursor) on both servers and filters by every term', async () => {
  const s = await serve((r) => {
    const m = /^\/details\/(biorxiv|medrxiv)\/(\d{4}-\d{2}-\d{2})\/(\d{4}-\d{2}-\d{2})\/(\d+)\/json$/.exec(r.path);
    if (!m) return undefined;
    if (m[1] === 'medrxiv') return json(m[4] === '0' ? 'biorxiv/interval-medrxiv-c0.json' : 'biorxiv/details-not-found.json');
    return json(m[4] === '0' ? 'biorxiv/interval-biorxiv-c0.json' : m[4] === '2' ? 'biorxiv/interval-biorxiv-c2.json' : 'biorxiv/details-not-found.json');
  });
  const page = await ADAPTERS['bio-preprint'].search('heat equation', 10, ctx(s.url, { options: { days: 7, pages: 3 } }));
  // "Heat stress alters root growth" lacks "equation"; the whisker paper lacks both; the two
  // matches have both terms in the title, so the newer comes first
  assert.deepEqual(page.records.map((r) => r.id), ['doi:10.1101/2026.02.23.26300001', 'doi:10.1101/2026.02.22.640003']);
  assert.equal(page.records[0].venue, 'medRxiv');
  assert.deepEqual(page.records[1].authors, ['L. Berg', 'U. A. Okoro']);
  assert.equal(page.records[1].date, '2026-02-22');
  assert.deepEqual(s.requests.map((r) => r.path), [
    '/details/biorxiv/2026-02-20/2026-02-26/0/json', '/details/biorxiv/2026-02-20/2026-02-26/2/json', '/details/medrxiv/2026-02-20/2026-02-26/0/json']);
});

test('bio-preprint: a query holding a bioRxiv DOI is looked up directly; an unknown status is malformed', async () => {
  const s = await serve((r) => (r.path.includes('2023.05.02.539100') ? json('biorxiv/details-10.1101_2023.05.02.539100.json') : text('{"messages":[{"status":"error: server busy"}]}', 200, 'application/json')));
  const a = ADAPTERS['bio-preprint'];
  const page = await a.search('see https://doi.org/10.1101/2023.05.02.539100', 5, ctx(s.url));
  assert.deepEqual(page.records.map((r) => r.id), ['doi:10.1101/2023.05.02.539100']);
  await assert.rejects(a.search('heat', 5, ctx(s.url)), (e: any) => e.kind === 'malformed' && /server busy/.test(e.message));
});

test('bio-preprint: empty results: "no posts found" on both servers, and a window whose posts match no term', async () => {
  const none = await serve(() => json('biorxiv/details-not-found.json'));
  assert.deepEqual(await ADAPTERS['bio-preprint'].search('heat equation', 5, ctx(none.url, { options: { days: 7, pages: 3 } })), { records: [], total: 0 });
  assert.deepEqual(none.requests.map((r) => r.path.split('/')[2]), ['biorxiv', 'medrxiv']);
  const s = await serve((r) => {
    const m = /^\/details\/(biorxiv|medrxiv)\/[\d-]+\/[\d-]+\/(\d+)\/json$/.exec(r.path);
    if (!m) return undefined;
    if (m[1] === 'medrxiv') return json(m[2] === '0' ? 'biorxiv/interval-medrxiv-c0.json' : 'biorxiv/details-not-found.json');
    return json(m[2] === '0' ? 'biorxiv/interval-biorxiv-c0.json' : m[2] === '2' ? 'biorxiv/interval-biorxiv-c2.json' : 'biorxiv/details-not-found.json');
  });
  assert.deepEqual(await ADAPTERS['bio-preprint'].search('zebrafish regeneration', 5, ctx(s.url, { options: { days: 7, pages: 3 } })), { records: [], total: 0 });
});

// ---------------------------------------------------------------- failure modes shared by all six

const SEARCHES: [SourceName, string][] = [
  ['preprint', 'arxiv/search-current-p2.xml'],
  ['open-catalogue', 'openalex/search-p2.json'],
  ['doi-registry', 'crossref/search-p2.json'],
  ['biomedical-index', 'pubmed/esearch-empty.json'],
  ['semantic-index', 'semanticscholar/search-p2.json'],
  ['bio-preprint', 'biorxiv/details-not-found.json'],
];

function okReply(file: string) {
  return file.endsWith('.xml') ? xml(file) : json(file);
}

for (const [source, file] of SEARCHES) {
  const adapter: Adapter = ADAPTERS[source];
  const run = (url: string, o: Parameters<typeof ctx>[1] = {}) => adapter.search('heat equation', 5, ctx(url, { key: 'k', ...o }));

  test(`${source}: 429 with Retry-After is waited out, then the search succeeds`, async () => {
    const s = await serve((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: fixture('semanticscholar/429.json') } : okReply(file)));
    const sleeps: number[] = [];
    const page = await run(s.url, { sleeps });
    assert.ok(Array.isArray(page.records));
    assert.equal(sleeps[0], 1000);
    assert.ok(s.requests.length >= 2);
  });

  test(`${source}: a 500 is retried; 500s on every attempt are an error`, async () => {
    const flaky = await serve((_r, n) => (n === 1 ? text('Internal Server Error', 500) : okReply(file)));
    assert.ok(Array.isArray((await run(flaky.url)).records));
    const down = await serve(() => text('Internal Server Error', 500));
    await assert.rejects(run(down.url), (e: any) => e instanceof UpstreamError && e.kind === 'http' && e.status === 500);
  });

  test(`${source}: a server that never answers is a timeout`, async () => {
    const s = await serve(() => ({ hang: true }));
    await assert.rejects(run(s.url, { timeoutMs: 150 }), (e: any) => e instanceof UpstreamError && e.kind === 'timeout');
  });

  test(`${source}: a malformed payload (HTML from a proxy) is reported as malformed`, async () => {
    const s = await serve(() => text('<html><body>502 Bad Gateway from proxy</body></html>', 200, 'text/html'));
    await assert.rejects(run(s.url), (e: any) => e instanceof UpstreamError && e.kind === 'malformed');
  });
}
