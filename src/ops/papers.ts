// Literature operations (issue 9): svc_paper_search and svc_paper_fetch over the six sources
// in src/papers/, plus a read-only list of the sources and how this node reaches them.
// Both tools are public (no key). GET keeps them cacheable and lets a browser try them:
//   GET /api/papers/search?q=…&sources=preprint,doi-registry&limit=10
//   GET /api/papers/fetch?id=doi:10.1371/journal.pone.0033693
// (the id travels in the query string because DOIs contain '/').
import { z } from 'zod';
import type { App } from './types.ts';
import { storeCache } from '../papers/cache.ts';
import { fetchPaper, LIMIT_DEFAULT, LIMIT_MAX, makeHttpClient, papersConfigFrom, searchPapers, type PapersConfig, type PapersDeps } from '../papers/service.ts';
import { MAX_ID_LENGTH } from '../papers/ids.ts';
import { DEFAULT_SOURCES, SOURCE_INFO, SOURCES } from '../papers/sources.ts';
import type { HttpClient } from '../papers/http.ts';
import { defineOp, type OpContext, type Operation } from './types.ts';
import { okWith } from './outputs.ts';

const sourceStatus = z.object({
  status: z.enum(['ok', 'not found', 'timeout', 'error', 'skipped: needs key']),
  count: z.number().int().optional().describe('records this source contributed'),
  total: z.number().nullable().optional().describe('total hits the source reports'),
  error: z.string().optional(),
  ms: z.number().optional(),
}).meta({ id: 'PaperSourceStatus', description: 'How one literature source answered.' });
const paperRecord = z.object({
  id: z.string().describe("canonical id 'scheme:local' (doi, pmid, arxiv, biorxiv, openalex, s2)"),
  title: z.string(),
  authors: z.array(z.string()),
  date: z.string().nullable().describe("'YYYY-MM-DD', 'YYYY-MM' or 'YYYY'"),
  year: z.number().int().nullable(),
  venue: z.string().nullable(),
  abstract: z.string().nullable().describe('a snippet (search) or the full abstract (fetch)'),
  url: z.string().nullable(),
  ids: z.record(z.string(), z.string()).describe('the same work in other schemes'),
  sources: z.array(z.string()).describe('the sources that had it'),
}).meta({ id: 'PaperRecord', description: 'One work, merged across the sources that had it.' });

declare module './types.ts' {
  interface AppParts {
    /** the literature sources' configuration and their rate-limited HTTP client (created on first use) */
    papers?: { cfg: PapersConfig; http: HttpClient };
  }
}

function depsFor(ctx: OpContext): PapersDeps {
  const app = ctx.app;
  let d = app.parts.papers;
  if (!d) {
    const cfg = papersConfigFrom(app.config, app.version);
    d = app.parts.papers = { cfg, http: makeHttpClient(cfg, { cache: storeCache(app.db, app.clock) }) };
  }
  return { cfg: d.cfg, http: d.http, now: () => app.clock.now(), signal: ctx.signal };
}

const sourceEnum = z.enum(SOURCES);

export const operations: Operation[] = [
  defineOp({
    id: 'papers.search',
    upstream: true,
    tool: 'svc_paper_search',
    title: 'Search the literature',
    brief: 'Search six literature sources at once: deduplicated, ranked paper records with ids and abstract snippets.',
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
    toolOutput: z.object({ count: z.number(), results: z.array(z.object({ id: z.string(), title: z.string() })), sources: z.record(z.string(), z.object({ status: z.string() })) }),
    method: 'GET',
    path: '/api/papers/search',
    access: 'public',
    tag: 'papers',
    summary: 'Search six literature sources (preprint, open-catalogue, doi-registry, biomedical-index, semantic-index, bio-preprint) and get deduplicated records.',
    description: `Fans out to the chosen sources in parallel (default: ${DEFAULT_SOURCES.join(', ')}), each under its own deadline; merges the same work found by several sources (same DOI, or same normalised title and year) and ranks by reciprocal rank fusion. Each record has a canonical id 'scheme:local' (doi, pmid, arxiv, biorxiv, openalex, s2), title, authors, date, venue, an abstract snippet, its ids in other schemes and the sources that had it. 'sources' in the answer gives each source's status (ok, timeout, error, skipped: needs key); 503 only when no chosen source answered.`,
    input: z.strictObject({
      q: z.string().min(1).max(500).describe('free-text query'),
      sources: z.array(sourceEnum).min(1).max(SOURCES.length).optional().describe(`sources to ask (default ${DEFAULT_SOURCES.join(', ')})`),
      limit: z.number().int().min(1).max(LIMIT_MAX).default(LIMIT_DEFAULT).describe('records to return'),
    }),
    output: okWith({
      q: z.string(), limit: z.number().int(), count: z.number().int(),
      results: z.array(paperRecord.extend({ score: z.number().describe('reciprocal rank fusion score') })),
      sources: z.record(z.string(), sourceStatus),
    }),
    async handler(input, ctx) {
      return searchPapers({ q: input.q, sources: input.sources, limit: input.limit }, depsFor(ctx));
    },
  }),
  defineOp({
    id: 'papers.fetch',
    upstream: true,
    tool: 'svc_paper_fetch',
    title: 'Fetch a paper record',
    brief: 'One paper record by id (doi:, pmid:, arxiv:, biorxiv:, openalex:, s2:) with its full abstract.',
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
    toolOutput: z.object({ id: z.string(), record: z.object({ id: z.string(), title: z.string() }) }),
    method: 'GET',
    path: '/api/papers/fetch',
    access: 'public',
    tag: 'papers',
    summary: "Fetch one literature record by canonical id 'scheme:local' (doi:, pmid:, arxiv:, biorxiv:, openalex:, s2:), with the full abstract.",
    description: 'The id is routed to the sources that can resolve it (a DOI to doi-registry, and to every other source that knows DOIs); ids learned on the way (a PMID, an arXiv id) are asked of the remaining sources, and everything found is merged into one record. 400 for a malformed id, 404 when no source knows it, 503 when none could be reached.',
    input: z.strictObject({
      id: z.string().min(1).max(MAX_ID_LENGTH).describe("canonical id 'scheme:local', for example doi:10.1371/journal.pone.0033693, pmid:30939045, arxiv:1707.08567"),
    }),
    output: okWith({
      id: z.string(), requested: z.string().describe('the id as asked, canonicalised'),
      record: paperRecord,
      sources: z.record(z.string(), sourceStatus),
    }),
    async handler(input, ctx) {
      return fetchPaper(input.id, depsFor(ctx));
    },
  }),
  defineOp({
    id: 'papers.sources',
    method: 'GET',
    path: '/api/papers/sources',
    access: 'public',
    tag: 'papers',
    summary: 'The six literature sources: the service behind each neutral name, whether it needs a key, and whether this node has one configured.',
    input: z.strictObject({}),
    output: okWith({
      defaultSources: z.array(z.string()),
      sources: z.array(z.object({
        source: z.string(), service: z.string(), key: z.enum(['none', 'optional', 'search']).describe('whether the source needs a key: none, optional (higher limits), search (needed to search)'), keyEnv: z.string().nullable(), urlEnv: z.string(),
        defaultUrl: z.string(), inDefaultSearch: z.boolean(), coverage: z.array(z.string()).describe('broad fields the source indexes'), keyConfigured: z.boolean(), customUrl: z.boolean(),
      })),
    }),
    async handler(_input, ctx) {
      const { cfg } = depsFor(ctx);
      return {
        ok: true,
        defaultSources: DEFAULT_SOURCES,
        sources: SOURCE_INFO.map((s) => ({
          ...s,
          keyConfigured: !!cfg.keys[s.source],
          // whether an operator pointed the source elsewhere (the address itself stays private)
          customUrl: cfg.urls[s.source] !== s.defaultUrl,
        })),
      };
    },
  }),
];
