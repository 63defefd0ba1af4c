// Source `open-catalogue`: OpenAlex (https://developers.openalex.org), JSON.
// Search: GET /works?search=<q>&per_page=&page=&select=… (the list envelope {meta, results[]};
// meta.count is the total; since 2026 meta may also carry x_query and cost_usd). Lookup: the
// singleton GET /works/<W id>, /works/doi:<doi> or /works/pmid:<pmid>; an unknown work is a 404
// with an HTML body. Abstracts come as an inverted index (word → positions) and are rebuilt.
// Keys: since 13 February 2026 the API wants an api_key (free) for real use; without one the daily
// allowance covers only a handful of searches, so search is skipped unless
// SVC_PAPERS_OPEN_CATALOGUE_KEY is set. Singleton lookups are free and run without a key.
// Politeness: at most 10 requests per second from this node (the API allows 100), plus mailto.
import { buildUrl, doiPath, jsonErrorMessage, UpstreamError } from './http.ts';
import { normalizeArxiv, normalizeDoi, normalizeOpenalex, normalizePmid } from './ids.ts';
import { makeRecord, parseJsonObject, str } from './record.ts';
import { dropAbstractLabel, isoDate, collapse } from './text.ts';
import type { Adapter, AdapterContext, Lookup, PaperRecord, SourcePage } from './types.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const MAX_PAGES = 10;
const SELECT = 'id,doi,title,display_name,publication_date,publication_year,ids,primary_location,locations,authorships,abstract_inverted_index,type';

/** Rebuilds an abstract from OpenAlex's abstract_inverted_index. */
export function invertedIndexToText(index: unknown): string | null {
  if (!index || typeof index !== 'object' || Array.isArray(index)) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index as Record<string, unknown>)) {
    if (!Array.isArray(positions)) continue;
    for (const p of positions) if (Number.isInteger(p) && p >= 0 && p < 100000) words[p] = word;
  }
  const text = words.filter((w) => w !== undefined).join(' ');
  return dropAbstractLabel(collapse(text));
}

export function openalexWorkToRecord(w: any): PaperRecord | null {
  if (!w || typeof w !== 'object') return null;
  const ids = w.ids && typeof w.ids === 'object' ? w.ids : {};
  let arxiv: string | null = null;
  for (const loc of Array.isArray(w.locations) ? w.locations : []) {
    const u = str(loc?.landing_page_url) ?? str(loc?.pdf_url);
    if (u && /arxiv\.org\/(abs|pdf)\//i.test(u)) { arxiv = normalizeArxiv(u); if (arxiv) break; }
  }
  const date = isoDate(str(w.publication_date)) ?? (Number.isInteger(w.publication_year) ? String(w.publication_year) : null);
  const source = w.primary_location?.source;
  const authors: string[] = [];
  for (const a of Array.isArray(w.authorships) ? w.authorships : []) {
    const name = str(a?.author?.display_name) ?? str(a?.raw_author_name);
    if (name) authors.push(name);
  }
  const pmcid = str(ids.pmcid)?.replace(/^https?:\/\/www\.ncbi\.nlm\.nih\.gov\/pmc\/articles\//i, '').replace(/\/$/, '');
  return makeRecord('open-catalogue', {
    ids: {
      openalex: normalizeOpenalex(str(w.id) ?? str(ids.openalex)) ?? undefined,
      doi: normalizeDoi(str(w.doi) ?? str(ids.doi)) ?? undefined,
      pmid: normalizePmid(str(ids.pmid)) ?? undefined,
      pmcid: pmcid ?? undefined,
      arxiv: arxiv ?? undefined,
    },
    title: str(w.title) ?? str(w.display_name),
    authors,
    date,
    venue: str(source?.display_name) ?? str(w.primary_location?.raw_source_name),
    abstract: invertedIndexToText(w.abstract_inverted_index),
    url: str(w.primary_location?.landing_page_url) ?? str(w.doi) ?? str(w.id),
  });
}

export function parseOpenalexList(body: string): SourcePage {
  const j = parseJsonObject(body, 'OpenAlex list');
  if (!Array.isArray(j.results)) throw new Error('OpenAlex list: no results array');
  const records = j.results.map(openalexWorkToRecord).filter((r: PaperRecord | null): r is PaperRecord => r !== null);
  const count = j.meta?.count;
  return { records, total: Number.isInteger(count) ? count : null, rawCount: j.results.length };
}

export function parseOpenalexWork(body: string): PaperRecord | null {
  const j = parseJsonObject(body, 'OpenAlex work');
  if (typeof j.id !== 'string') throw new Error('OpenAlex work: no id');
  return openalexWorkToRecord(j);
}

function lookupPath(id: Lookup): string | null {
  switch (id.scheme) {
    case 'openalex': return `/works/${id.value}`;
    case 'doi': return `/works/doi:${doiPath(id.value)}`;
    case 'pmid': return `/works/pmid:${id.value}`;
    default: return null;
  }
}

const secrets = (ctx: AdapterContext) => (ctx.key ? { api_key: ctx.key } : undefined);

export const openCatalogue: Adapter = {
  name: 'open-catalogue',
  service: 'OpenAlex works API',
  defaultBaseUrl: 'https://api.openalex.org',
  key: 'search',
  minIntervalMs: () => 100,
  lookupSchemes: ['openalex', 'doi', 'pmid'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    const text = collapse(q.replace(/[,|:!*"()]/g, ' '));
    if (!text) return { records: [], total: 0 };
    const perPage = Math.max(1, Math.min(ctx.pageSize ?? limit, 200));
    const out: PaperRecord[] = [];
    let total: number | null = null;
    // should the API ever refuse a `select` field (HTTP 400), the page is asked again without it
    let select: string | null = SELECT;
    const ask = (page: number) => ctx.http.get({
      source: 'open-catalogue', url: buildUrl(ctx.baseUrl, '/works', { search: text, per_page: perPage, page, select, mailto: ctx.mailto }),
      secretParams: secrets(ctx), signal: ctx.signal,
      minIntervalMs: openCatalogue.minIntervalMs(!!ctx.key), ttlSeconds: SEARCH_TTL,
      errorMessage: jsonErrorMessage, parse: parseOpenalexList,
    });
    for (let page = 1; page <= MAX_PAGES && out.length < limit; page++) {
      let res: SourcePage | null;
      try { res = await ask(page); } catch (e) {
        if (!(e instanceof UpstreamError && e.status === 400 && select)) throw e;
        select = null;
        res = await ask(page);
      }
      if (!res) break;
      total = res.total;
      out.push(...res.records);
      if ((res.rawCount ?? res.records.length) < perPage || (total !== null && page * perPage >= total)) break;
    }
    return { records: out.slice(0, limit), total };
  },

  async lookup(id, ctx): Promise<PaperRecord | null> {
    const p = lookupPath(id);
    if (!p) return null;
    const url = buildUrl(ctx.baseUrl, p, { mailto: ctx.mailto });
    return ctx.http.get({
      source: 'open-catalogue', url, secretParams: secrets(ctx), signal: ctx.signal,
      minIntervalMs: openCatalogue.minIntervalMs(!!ctx.key), ttlSeconds: RECORD_TTL,
      notFoundStatuses: [404], errorMessage: jsonErrorMessage, parse: parseOpenalexWork,
    });
  },
};
