// svc_paper_search and svc_paper_fetch without HTTP: the fan-out to the chosen sources with a
// per-source deadline, the per-source status report, the merge, and the routing of a fetch to
// the sources that can resolve the id (then to those that can resolve the ids the first round
// learned: a DOI found by PubMed is asked of Crossref, OpenAlex and Semantic Scholar).
import { SvcError } from '../core/errors.ts';
import { HttpClient, UpstreamError, type PaperCache, type RateLimiter, type Sleep } from './http.ts';
import { completeIds, parseCanonicalId } from './ids.ts';
import { mergeAndRank, mergeRecords, type RankedRecord } from './merge.ts';
import { ADAPTERS, DEFAULT_SOURCES, envName } from './sources.ts';
import { SOURCES, type Adapter, type AdapterContext, type PaperIds, type PaperRecord, type Scheme, type SourceName } from './types.ts';

export const DEFAULT_TIMEOUT_MS = 8000;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 50;

export interface PapersConfig {
  urls: Record<SourceName, string>;
  keys: Partial<Record<SourceName, string>>;
  mailto: string | null;
  userAgent: string;
  /** per-source deadline of one search or one lookup round */
  timeoutMs: number;
  /** multiplies every source's politeness interval (a private mirror or a test may use 0) */
  intervalScale: number;
  bioPreprint: { days: number; pages: number };
  /** results per upstream page (default: the request's limit) */
  pageSize?: number;
}

function num(v: string | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined || v.trim() === '') return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : dflt;
}

/** Reads the literature settings from the node's configuration (docs/papers.md lists them). */
export function papersConfigFrom(config: { paperSourceUrls: Record<string, string>; env: Record<string, string | undefined>; baseUrl: string }, version = '0'): PapersConfig {
  const env = config.env ?? {};
  const urls = {} as Record<SourceName, string>;
  const keys: Partial<Record<SourceName, string>> = {};
  for (const s of SOURCES) {
    urls[s] = (config.paperSourceUrls?.[s] || ADAPTERS[s].defaultBaseUrl).replace(/\/+$/, '');
    const k = env[envName(s, 'KEY')];
    if (k && ADAPTERS[s].key !== 'none') keys[s] = k.trim();
  }
  // Semantic Scholar's own variable name is accepted too
  if (!keys['semantic-index'] && env.SEMANTIC_SCHOLAR_API_KEY) keys['semantic-index'] = env.SEMANTIC_SCHOLAR_API_KEY.trim();
  const mailto = env.SVC_PAPERS_MAILTO?.trim() || null;
  const contact = mailto ? `mailto:${mailto}` : config.baseUrl;
  return {
    urls,
    keys,
    mailto,
    userAgent: `svc-node/${version} (+${config.baseUrl}; literature search; ${contact})`,
    timeoutMs: num(env.SVC_PAPERS_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, 50, 60000),
    intervalScale: num(env.SVC_PAPERS_INTERVAL_SCALE, 1, 0, 100),
    bioPreprint: {
      days: num(env.SVC_PAPERS_BIO_PREPRINT_DAYS, 7, 1, 90),
      pages: num(env.SVC_PAPERS_BIO_PREPRINT_PAGES, 3, 1, 20),
    },
  };
}

export interface PapersDeps {
  cfg: PapersConfig;
  http: HttpClient;
  /** unix seconds */
  now: () => number;
  /** the caller going away cancels everything */
  signal?: AbortSignal;
  adapters?: Record<SourceName, Adapter>;
}

export function makeHttpClient(cfg: PapersConfig, opts: { cache?: PaperCache | null; limiter?: RateLimiter; sleep?: Sleep; fetchImpl?: typeof fetch; retryAfterCapMs?: number; baseDelayMs?: number } = {}): HttpClient {
  return new HttpClient({ userAgent: cfg.userAgent, intervalScale: cfg.intervalScale, ...opts });
}

export type StatusName = 'ok' | 'not found' | 'timeout' | 'error' | 'skipped: needs key';

export interface SourceStatus {
  status: StatusName;
  /** records this source contributed */
  count?: number;
  /** total hits the source reports */
  total?: number | null;
  error?: string;
  ms?: number;
}

interface Outcome<T> { value: T | null; status: SourceStatus }

/** Runs one source's call under its deadline and turns every failure into a status. */
async function underDeadline<T>(source: SourceName, deps: PapersDeps, fn: (ctx: AdapterContext) => Promise<T>): Promise<Outcome<T>> {
  const adapters = deps.adapters ?? ADAPTERS;
  const { cfg } = deps;
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const signal = deps.signal ? AbortSignal.any([timeout, deps.signal]) : timeout;
  const ctx: AdapterContext = {
    http: deps.http,
    baseUrl: cfg.urls[source] ?? adapters[source].defaultBaseUrl,
    key: cfg.keys[source] ?? null,
    mailto: cfg.mailto,
    signal,
    now: deps.now,
    pageSize: cfg.pageSize,
    options: source === 'bio-preprint' ? cfg.bioPreprint : undefined,
  };
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // belt and braces: even an adapter step that ignored the signal cannot hold the search
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UpstreamError('timeout', 'deadline passed')), cfg.timeoutMs + 100);
    timer.unref?.();
  });
  const ms = () => Math.round(performance.now() - started);
  try {
    const value = await Promise.race([fn(ctx), guard]);
    return { value, status: { status: 'ok', ms: ms() } };
  } catch (e) {
    if (e instanceof UpstreamError && (e.kind === 'timeout' || (e.kind === 'aborted' && timeout.aborted))) {
      return { value: null, status: { status: 'timeout', error: `no answer within ${cfg.timeoutMs} ms (${e.message})`, ms: ms() } };
    }
    if (deps.signal?.aborted) throw new SvcError('UPSTREAM_UNAVAILABLE', 'the request was cancelled');
    const msg = e instanceof UpstreamError ? e.message : e instanceof SvcError ? e.message : `adapter failure: ${(e as Error)?.message ?? String(e)}`;
    return { value: null, status: { status: 'error', error: msg.slice(0, 300), ms: ms() } };
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(what: string, statuses: Record<string, SourceStatus>): SvcError {
  const parts = Object.entries(statuses).map(([s, st]) => `${s}: ${st.status}${st.error ? ` (${st.error})` : ''}`);
  return new SvcError('UPSTREAM_UNAVAILABLE', `${what}: ${parts.join('; ')}`, { details: { sources: statuses, retryAfterSeconds: 30 } });
}

export interface SearchInput {
  q: string;
  sources?: SourceName[];
  limit?: number;
}

export interface SearchResult {
  ok: true;
  q: string;
  limit: number;
  count: number;
  results: RankedRecord[];
  sources: Record<string, SourceStatus>;
}

export async function searchPapers(input: SearchInput, deps: PapersDeps): Promise<SearchResult> {
  const adapters = deps.adapters ?? ADAPTERS;
  const q = input.q.trim();
  if (!q) throw new SvcError('INVALID_INPUT', 'q must not be empty', { issues: [{ path: 'q', message: 'must not be empty' }] });
  const limit = input.limit ?? LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX) {
    throw new SvcError('INVALID_INPUT', `limit must be an integer from 1 to ${LIMIT_MAX}`, { issues: [{ path: 'limit', message: `must be 1 to ${LIMIT_MAX}` }] });
  }
  const chosen = [...new Set(input.sources?.length ? input.sources : DEFAULT_SOURCES)];
  const statuses: Record<string, SourceStatus> = {};
  const lists: { source: SourceName; records: PaperRecord[] }[] = [];
  await Promise.all(chosen.map(async (s) => {
    if (adapters[s].key === 'search' && !deps.cfg.keys[s]) {
      statuses[s] = { status: 'skipped: needs key', error: `set ${envName(s, 'KEY')} to search this source` };
      return;
    }
    const out = await underDeadline(s, deps, (ctx) => adapters[s].search(q, limit, ctx));
    if (out.value) {
      lists.push({ source: s, records: out.value.records });
      statuses[s] = { ...out.status, count: out.value.records.length, total: out.value.total };
    } else statuses[s] = out.status;
  }));
  // report in the order the caller chose, whatever order the answers came in
  const ordered: Record<string, SourceStatus> = {};
  for (const s of chosen) ordered[s] = statuses[s];
  if (!chosen.some((s) => ordered[s].status === 'ok')) throw unavailable('no chosen literature source answered', ordered);
  lists.sort((a, b) => SOURCES.indexOf(a.source) - SOURCES.indexOf(b.source));
  const results = mergeAndRank(q, lists, limit, true);
  return { ok: true, q, limit, count: results.length, results, sources: ordered };
}

export interface FetchResult {
  ok: true;
  id: string;
  requested: string;
  record: PaperRecord;
  sources: Record<string, SourceStatus>;
}

/** Sources that can look the work up with what is known, and the id each would use. */
function lookupPlan(known: PaperIds, asked: Set<SourceName>, adapters: Record<SourceName, Adapter>): [SourceName, Scheme, string][] {
  const plan: [SourceName, Scheme, string][] = [];
  for (const s of SOURCES) {
    if (asked.has(s)) continue;
    for (const scheme of adapters[s].lookupSchemes) {
      const v = known[scheme as keyof PaperIds];
      if (!v) continue;
      // only 10.1101 DOIs can be bioRxiv/medRxiv preprints
      if (s === 'bio-preprint' && scheme === 'doi' && !v.startsWith('10.1101/')) continue;
      plan.push([s, scheme, v]);
      break;
    }
  }
  return plan;
}

export async function fetchPaper(id: string, deps: PapersDeps): Promise<FetchResult> {
  const adapters = deps.adapters ?? ADAPTERS;
  const parsed = parseCanonicalId(id);
  if ('error' in parsed) throw new SvcError('INVALID_INPUT', `invalid id: ${parsed.error}`, { issues: [{ path: 'id', message: parsed.error }] });
  let known: PaperIds = completeIds({ [parsed.scheme]: parsed.value });
  const asked = new Set<SourceName>();
  const statuses: Record<string, SourceStatus> = {};
  const found: PaperRecord[] = [];
  for (let round = 0; round < 2; round++) {
    const plan = lookupPlan(known, asked, adapters);
    if (!plan.length) break;
    await Promise.all(plan.map(async ([s, scheme, value]) => {
      asked.add(s);
      const out = await underDeadline(s, deps, (ctx) => adapters[s].lookup({ scheme, value }, ctx));
      if (out.status.status === 'ok' && !out.value) statuses[s] = { ...out.status, status: 'not found' };
      else statuses[s] = out.value ? { ...out.status, count: 1 } : out.status;
      if (out.value) found.push(out.value);
    }));
    if (!found.length && round === 0) break;
    const ids: PaperIds = { ...known };
    for (const r of found) for (const [k, v] of Object.entries(r.ids)) if (v && !(ids as any)[k]) (ids as any)[k] = v;
    known = completeIds(ids);
  }
  const ordered: Record<string, SourceStatus> = {};
  for (const s of SOURCES) if (statuses[s]) ordered[s] = statuses[s];
  if (!found.length) {
    if (Object.values(ordered).some((st) => st.status === 'timeout' || st.status === 'error')) {
      throw unavailable(`could not resolve ${parsed.canonical}`, ordered);
    }
    throw new SvcError('NOT_FOUND', `no literature source knows ${parsed.canonical}`, { details: { sources: ordered } });
  }
  const record = mergeRecords(found);
  return { ok: true, id: record.id, requested: parsed.canonical, record, sources: ordered };
}
