// Six local stand-ins for the six literature APIs, answering the project's fixtures, and the
// dependencies a search or fetch needs to reach them. Shared by the service and op tests.
import { HttpClient, RateLimiter } from '../../src/papers/http.ts';
import { papersConfigFrom, type PapersDeps } from '../../src/papers/service.ts';
import { SOURCES, type SourceName } from '../../src/papers/types.ts';
import { json, replay, text, xml, fixture, type Replay, type Reply, type Route, type SeenRequest } from './replay.ts';

export const P1_DOI = '10.5555/svc.heat.2023.001';
export const NOW = Date.UTC(2026, 1, 26, 12) / 1000;

const notFoundHtml = () => text(fixture('openalex/404.html'), 404, 'text/html; charset=utf-8');

/** The normal behaviour of each API for the fixture corpus. */
export const ROUTES: Record<SourceName, Route> = {
  'preprint': (r) => {
    if (r.path !== '/api/query') return undefined;
    const id = r.query.get('id_list');
    if (id) return xml(id === '2301.04512' ? 'arxiv/idlist-2301.04512-current.xml' : 'arxiv/idlist-empty-current.xml');
    return xml('arxiv/search-legacy.xml');
  },
  'open-catalogue': (r) => {
    if (r.path === '/works') return json('openalex/search-p1.json');
    if (r.path === '/works/W4300000001' || r.path === `/works/doi:${P1_DOI}` || r.path === '/works/pmid:37011111') return json('openalex/work-W4300000001.json');
    return notFoundHtml();
  },
  'doi-registry': (r) => {
    if (r.path === '/works') return json('crossref/search-p1.json');
    if (r.path === `/works/${P1_DOI}`) return json('crossref/work-10.5555_svc.heat.2023.001.json');
    if (r.path === '/works/10.1101/2023.05.02.539100') return json('crossref/work-10.1101_2023.05.02.539100.json');
    return text('Resource not found.', 404);
  },
  'biomedical-index': (r) => {
    if (r.path.endsWith('/esearch.fcgi')) {
      const term = r.query.get('term') ?? '';
      if (term === `"${P1_DOI}"[doi]`) return json('pubmed/esearch-doi.json');
      if (term.endsWith('[doi]')) return json('pubmed/esearch-empty.json');
      return json('pubmed/esearch-heat-equation.json');
    }
    if (r.path.endsWith('/efetch.fcgi')) {
      const id = r.query.get('id');
      return xml(id === '37011111' ? 'pubmed/efetch-37011111.xml' : id === '37011111,36022222' ? 'pubmed/efetch-37011111_36022222.xml' : 'pubmed/efetch-empty.xml');
    }
    return undefined;
  },
  'semantic-index': (r) => {
    if (r.path === '/graph/v1/paper/search') return json('semanticscholar/search-p1.json');
    const ref = r.path.replace('/graph/v1/paper/', '');
    if ([`DOI:${P1_DOI}`, 'ARXIV:2301.04512', 'PMID:37011111', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'].includes(ref)) return json('semanticscholar/paper-p1.json');
    return json('semanticscholar/404.json', 404);
  },
  'bio-preprint': (r) => {
    if (r.path === '/details/biorxiv/10.1101/2023.05.02.539100/na/json') return json('biorxiv/details-10.1101_2023.05.02.539100.json');
    const m = /^\/details\/(biorxiv|medrxiv)\/\d{4}-\d{2}-\d{2}\/\d{4}-\d{2}-\d{2}\/(\d+)\/json$/.exec(r.path);
    if (m) return json(m[1] === 'medrxiv' ? (m[2] === '0' ? 'biorxiv/interval-medrxiv-c0.json' : 'biorxiv/details-not-found.json') : m[2] === '0' ? 'biorxiv/interval-biorxiv-c0.json' : m[2] === '2' ? 'biorxiv/interval-biorxiv-c2.json' : 'biorxiv/details-not-found.json');
    return json('biorxiv/details-not-found.json');
  },
};

export interface World {
  urls: Record<SourceName, string>;
  servers: Record<SourceName, Replay>;
  /** requests each source received */
  seen(source: SourceName): SeenRequest[];
  close(): Promise<void>;
}

/** Starts the six servers; `override` replaces a source's behaviour (a hang, a 500, …). */
export async function world(override: Partial<Record<SourceName, (r: SeenRequest, n: number) => Reply | undefined>> = {}): Promise<World> {
  const servers = {} as Record<SourceName, Replay>;
  for (const s of SOURCES) servers[s] = await replay(override[s] ?? ROUTES[s]);
  const urls = {} as Record<SourceName, string>;
  for (const s of SOURCES) urls[s] = servers[s].url;
  return {
    urls,
    servers,
    seen: (s) => servers[s].requests,
    async close() { for (const s of SOURCES) await servers[s].close(); },
  };
}

/** Environment for a node whose literature sources are the given URLs. */
export function papersEnv(urls: Partial<Record<SourceName, string>>, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { SVC_PAPERS_INTERVAL_SCALE: '0', SVC_PAPERS_TIMEOUT_MS: '2000', SVC_PAPERS_MAILTO: 'ops@node.test', ...extra };
  for (const [s, u] of Object.entries(urls)) env[`SVC_PAPERS_${s.toUpperCase().replace(/-/g, '_')}_URL`] = u!;
  return env;
}

export function deps(urls: Partial<Record<SourceName, string>>, extra: Record<string, string> = {}): PapersDeps {
  const env = papersEnv(urls, extra);
  const paperSourceUrls: Record<string, string> = {};
  for (const [s, u] of Object.entries(urls)) paperSourceUrls[s] = u!;
  const cfg = papersConfigFrom({ paperSourceUrls, env, baseUrl: 'http://node.test' }, 'test');
  const http = new HttpClient({ userAgent: cfg.userAgent, intervalScale: 0, limiter: new RateLimiter(), baseDelayMs: 10 });
  return { cfg, http, now: () => NOW };
}
