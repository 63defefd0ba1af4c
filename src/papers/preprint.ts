// Source `preprint`: the arXiv API (https://info.arxiv.org/help/api/user-manual.html), an
// Atom 1.0 feed from GET /api/query. Search uses search_query=all:<term> AND …, sorted by
// relevance, paged with start/max_results; a work is looked up with id_list=<id>.
// Two formats are in the wild and both are read:
//  - legacy (until about 2025): title "ArXiv Query: …", namespaces declared on each element,
//    hard-wrapped <summary> starting with two spaces, http://arxiv.org/abs/… ids, a
//    <link title="doi"> next to <arxiv:doi>; an unknown id comes back as an "Error" entry;
//  - current (2026): namespaces on the root, title "arXiv Query: …", one-line <summary>,
//    <published> after <category>, <arxiv:primary_category> without scheme; a bad id is
//    HTTP 400 with an Atom body holding an Error entry (id …/api/errors#…).
// Politeness: the API's terms ask for no more than one request every three seconds.
import { buildUrl, UpstreamError } from './http.ts';
import { normalizeArxiv, normalizeDoi } from './ids.ts';
import { makeRecord } from './record.ts';
import { isoDate, queryTerms } from './text.ts';
import type { Adapter, AdapterContext, PaperRecord, SourcePage } from './types.ts';
import { child, childElements, cleanText, parseXml, type XmlElement } from './xml.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const MAX_PAGES = 10;

export interface AtomFeed {
  total: number | null;
  records: PaperRecord[];
  /** messages of Error entries (legacy 200 answers and current 400 answers carry them) */
  errors: string[];
}

function arxivIdFromEntryId(idText: string | null): string | null {
  if (!idText) return null;
  const m = /arxiv\.org\/abs\/(.+)$/i.exec(idText);
  return normalizeArxiv(m ? m[1] : idText);
}

function entryDoi(entry: XmlElement): string | null {
  const raw = cleanText(child(entry, 'doi'));
  if (raw) {
    for (const tok of raw.split(/\s+/)) { const d = normalizeDoi(tok); if (d) return d; }
  }
  for (const l of childElements(entry, 'link')) {
    if (l.attrs.title === 'doi' && l.attrs.href) { const d = normalizeDoi(l.attrs.href); if (d) return d; }
  }
  return null;
}

function isErrorEntry(entry: XmlElement): boolean {
  const id = cleanText(child(entry, 'id')) ?? '';
  return /\/api\/errors/.test(id) || (cleanText(child(entry, 'title')) === 'Error' && !/arxiv\.org\/abs\//.test(id));
}

/** Parses an arXiv Atom feed (either format). Throws on anything that is not such a feed. */
export function parseArxivFeed(body: string): AtomFeed {
  const root = parseXml(body);
  if (root.local !== 'feed') throw new Error(`expected an Atom <feed>, got <${root.name}>`);
  const totalText = cleanText(child(root, 'totalResults'));
  const total = totalText !== null && /^\d+$/.test(totalText) ? Number(totalText) : null;
  const records: PaperRecord[] = [];
  const errors: string[] = [];
  for (const entry of childElements(root, 'entry')) {
    if (isErrorEntry(entry)) { errors.push(cleanText(child(entry, 'summary')) ?? 'arXiv API error'); continue; }
    const arxiv = arxivIdFromEntryId(cleanText(child(entry, 'id')));
    if (!arxiv) continue;
    const alt = childElements(entry, 'link').find((l) => l.attrs.rel === 'alternate' && l.attrs.href);
    const rec = makeRecord('preprint', {
      ids: { arxiv, doi: entryDoi(entry) ?? undefined },
      title: cleanText(child(entry, 'title')),
      authors: childElements(entry, 'author').map((a) => cleanText(child(a, 'name')) ?? '').filter(Boolean),
      date: isoDate(cleanText(child(entry, 'published'))),
      venue: cleanText(child(entry, 'journal_ref')) ?? 'arXiv',
      abstract: cleanText(child(entry, 'summary')),
      url: alt?.attrs.href ?? `https://arxiv.org/abs/${arxiv}`,
    });
    if (rec) records.push(rec);
  }
  return { total, records, errors };
}

/** The message of an Atom error body (HTTP 400 from the current API). */
export function arxivErrorMessage(body: string): string | null {
  try {
    const f = parseArxivFeed(body);
    return f.errors[0] ?? null;
  } catch { return null; }
}

/** all:<t1> AND all:<t2> … (terms reduced to letters and digits, so no query syntax leaks in). */
export function arxivSearchQuery(q: string): string | null {
  const terms = queryTerms(q).slice(0, 12);
  return terms.length ? terms.map((t) => `all:${t}`).join(' AND ') : null;
}

export const preprint: Adapter = {
  name: 'preprint',
  service: 'arXiv API (Atom 1.0)',
  defaultBaseUrl: 'https://export.arxiv.org',
  key: 'none',
  minIntervalMs: () => 3000,
  lookupSchemes: ['arxiv'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    const query = arxivSearchQuery(q);
    if (!query) return { records: [], total: 0 };
    const pageSize = Math.max(1, Math.min(ctx.pageSize ?? limit, 200));
    const out: PaperRecord[] = [];
    let total: number | null = null;
    for (let page = 0, start = 0; page < MAX_PAGES && out.length < limit; page++) {
      const url = buildUrl(ctx.baseUrl, '/api/query', {
        search_query: query, sortBy: 'relevance', sortOrder: 'descending', start, max_results: Math.min(pageSize, limit - out.length),
      });
      const feed = await ctx.http.get({
        source: 'preprint', url, signal: ctx.signal, minIntervalMs: preprint.minIntervalMs(false), ttlSeconds: SEARCH_TTL,
        errorMessage: arxivErrorMessage, parse: parseArxivFeed,
      });
      if (!feed) break;
      if (feed.errors.length && !feed.records.length) throw new UpstreamError('http', `arXiv API error: ${feed.errors[0]}`);
      total = feed.total;
      out.push(...feed.records);
      start += feed.records.length;
      if (!feed.records.length || (total !== null && start >= total)) break;
    }
    return { records: out.slice(0, limit), total };
  },

  async lookup(id, ctx): Promise<PaperRecord | null> {
    if (id.scheme !== 'arxiv') return null;
    const url = buildUrl(ctx.baseUrl, '/api/query', { id_list: id.value, start: 0, max_results: 1 });
    let feed: AtomFeed | null;
    try {
      feed = await ctx.http.get({
        source: 'preprint', url, signal: ctx.signal, minIntervalMs: preprint.minIntervalMs(false), ttlSeconds: RECORD_TTL,
        notFoundStatuses: [404], errorMessage: arxivErrorMessage, parse: parseArxivFeed,
      });
    } catch (e) {
      // the id passed our syntax check; arXiv refusing it means it has no such paper
      if (e instanceof UpstreamError && e.status === 400) return null;
      throw e;
    }
    return feed?.records.find((r) => r.ids.arxiv === id.value) ?? null;
  },
};
