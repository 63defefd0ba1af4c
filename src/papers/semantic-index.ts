// Source `semantic-index`: the Semantic Scholar Academic Graph API
// (https://api.semanticscholar.org/api-docs/graph), JSON, base /graph/v1.
// Search: GET /paper/search?query=<q>&offset=&limit=&fields=… → {total, offset, next?, data[]}
// (`next` is omitted on the last page). Lookup: GET /paper/<id>?fields=…, where <id> is a
// paperId (40 hex), CorpusId:<n>, DOI:<doi>, ARXIV:<id> or PMID:<n>; an unknown paper is a
// 404 {"error": "Paper with id … not found"}; bad parameters are a 400 {"error": …}.
// Key: optional. Without one, requests share the public pool and are throttled hard (429);
// with SVC_PAPERS_SEMANTIC_INDEX_KEY it is sent as the x-api-key header (1 request/second).
import { buildUrl, doiPath, jsonErrorMessage } from './http.ts';
import { normalizeArxiv, normalizeDoi, normalizePmid, normalizeS2 } from './ids.ts';
import { makeRecord, parseJsonObject, str } from './record.ts';
import { collapse, isoDate } from './text.ts';
import type { Adapter, AdapterContext, Lookup, PaperRecord, SourcePage } from './types.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const MAX_PAGES = 10;
const FIELDS = 'title,authors,year,publicationDate,externalIds,abstract,venue,journal,publicationVenue,url';

export function s2PaperToRecord(p: any): PaperRecord | null {
  if (!p || typeof p !== 'object') return null;
  const ext = p.externalIds && typeof p.externalIds === 'object' ? p.externalIds : {};
  const pmc = str(ext.PubMedCentral);
  const date = isoDate(str(p.publicationDate)) ?? (Number.isInteger(p.year) ? String(p.year) : null);
  return makeRecord('semantic-index', {
    ids: {
      s2: normalizeS2(str(p.paperId)) ?? undefined,
      doi: normalizeDoi(str(ext.DOI)) ?? undefined,
      arxiv: normalizeArxiv(str(ext.ArXiv)) ?? undefined,
      pmid: normalizePmid(str(ext.PubMed)) ?? undefined,
      pmcid: pmc ? `PMC${pmc.replace(/^PMC/i, '')}` : undefined,
    },
    title: str(p.title),
    authors: (Array.isArray(p.authors) ? p.authors : []).map((a: any) => str(a?.name) ?? '').filter(Boolean),
    date,
    venue: str(p.venue) ?? str(p.journal?.name) ?? str(p.publicationVenue?.name),
    abstract: str(p.abstract),
    url: str(p.url),
  });
}

export interface S2Page extends SourcePage {
  next: number | null;
}

export function parseS2Search(body: string): S2Page {
  const j = parseJsonObject(body, 'Semantic Scholar search');
  if (typeof j.error === 'string') throw new Error(j.error);
  const data = j.data === undefined && Number(j.total) === 0 ? [] : j.data;
  if (!Array.isArray(data)) throw new Error('Semantic Scholar search: no data array');
  return {
    records: data.map(s2PaperToRecord).filter((r: PaperRecord | null): r is PaperRecord => r !== null),
    total: Number.isInteger(j.total) ? j.total : null,
    rawCount: data.length,
    next: Number.isInteger(j.next) ? j.next : null,
  };
}

export function parseS2Paper(body: string): PaperRecord | null {
  const j = parseJsonObject(body, 'Semantic Scholar paper');
  if (typeof j.error === 'string') throw new Error(j.error);
  if (typeof j.paperId !== 'string') throw new Error('Semantic Scholar paper: no paperId');
  return s2PaperToRecord(j);
}

function paperRef(id: Lookup): string | null {
  switch (id.scheme) {
    case 's2': return id.value;
    case 'doi': return `DOI:${doiPath(id.value)}`;
    case 'arxiv': return `ARXIV:${id.value}`;
    case 'pmid': return `PMID:${id.value}`;
    default: return null;
  }
}

const headers = (ctx: AdapterContext) => (ctx.key ? { 'x-api-key': ctx.key } : undefined);

export const semanticIndex: Adapter = {
  name: 'semantic-index',
  service: 'Semantic Scholar Academic Graph API',
  defaultBaseUrl: 'https://api.semanticscholar.org',
  key: 'optional',
  minIntervalMs: () => 1000,
  lookupSchemes: ['s2', 'doi', 'arxiv', 'pmid'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    // the search endpoint treats '-' and '"' as operators; plain words are what we mean
    const text = collapse(q.replace(/[-"+|*()~]/g, ' '));
    if (!text) return { records: [], total: 0 };
    const size = Math.max(1, Math.min(ctx.pageSize ?? limit, 100));
    const out: PaperRecord[] = [];
    let total: number | null = null;
    let offset = 0;
    for (let page = 0; page < MAX_PAGES && out.length < limit; page++) {
      const url = buildUrl(ctx.baseUrl, '/graph/v1/paper/search', { query: text, offset, limit: Math.min(size, limit - out.length), fields: FIELDS });
      const res = await ctx.http.get({
        source: 'semantic-index', url, headers: headers(ctx), signal: ctx.signal,
        minIntervalMs: semanticIndex.minIntervalMs(!!ctx.key), ttlSeconds: SEARCH_TTL,
        errorMessage: jsonErrorMessage, parse: parseS2Search,
      });
      if (!res) break;
      total = res.total;
      out.push(...res.records);
      if (res.next === null || res.next <= offset) break;
      offset = res.next;
    }
    return { records: out.slice(0, limit), total };
  },

  async lookup(id, ctx): Promise<PaperRecord | null> {
    const ref = paperRef(id);
    if (!ref) return null;
    const url = buildUrl(ctx.baseUrl, `/graph/v1/paper/${ref}`, { fields: FIELDS });
    return ctx.http.get({
      source: 'semantic-index', url, headers: headers(ctx), signal: ctx.signal,
      minIntervalMs: semanticIndex.minIntervalMs(!!ctx.key), ttlSeconds: RECORD_TTL,
      notFoundStatuses: [404], errorMessage: jsonErrorMessage, parse: parseS2Paper,
    });
  },
};
