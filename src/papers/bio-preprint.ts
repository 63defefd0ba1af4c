// Source `bio-preprint`: the bioRxiv/medRxiv API of Cold Spring Harbor Laboratory
// (https://api.biorxiv.org, "details" endpoint), JSON.
// NO real recorded response of this API was available while this adapter was written; it
// follows the public documentation (api.biorxiv.org/details/help):
//   GET /details/[server]/[DOI]/na/json                 one preprint, one collection item per version
//   GET /details/[server]/[from]/[to]/[cursor]/json     posts in a date interval, 100 per page
// with server 'biorxiv' or 'medrxiv'. The body is
//   {"messages": [{"status": "ok", "interval"?, "cursor"?, "count"?, "total"?}],
//    "collection": [{"doi", "title", "authors": "Last, F.; Last, F. M.", "author_corresponding",
//                    "author_corresponding_institution", "date": "YYYY-MM-DD", "version": "1",
//                    "type", "license", "category", "jatsxml", "abstract", "published": "NA"|doi,
//                    "server"}]}
// and a miss is {"messages": [{"status": "no posts found"}], "collection": []}. Counts and the
// cursor may be numbers or strings. The API has NO keyword search: search here looks a bioRxiv
// DOI up directly when the query holds one, and otherwise scans the most recent posts (a window
// of `days` days, at most `pages` pages of 100 per server) and keeps those whose title, abstract,
// authors or category contain every query term. That is why the source is not a default one.
import { buildUrl, doiPath, jsonErrorMessage } from './http.ts';
import { normalizeBiorxiv, normalizeDoi } from './ids.ts';
import { makeRecord, parseJsonObject, str } from './record.ts';
import { collapse, isoDate, queryTerms, titleKey, ymdOf } from './text.ts';
import type { Adapter, AdapterContext, PaperRecord, SourcePage } from './types.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const SERVERS = ['biorxiv', 'medrxiv'] as const;
type Server = (typeof SERVERS)[number];
const DEFAULT_DAYS = 7;
const DEFAULT_PAGES = 3;
const PAGE = 100;

/** "Herger, M.; Kajba, C. M." → ["M. Herger", "C. M. Kajba"]. */
export function splitBiorxivAuthors(s: string | null): string[] {
  if (!s) return [];
  return s.split(';').map((a) => {
    const t = collapse(a);
    if (!t) return null;
    const i = t.indexOf(',');
    return i === -1 ? t : collapse(`${t.slice(i + 1)} ${t.slice(0, i)}`);
  }).filter((a): a is string => !!a);
}

function serverLabel(s: string | null): string {
  return /med/i.test(s ?? '') ? 'medRxiv' : 'bioRxiv';
}

export interface BiorxivPage {
  status: string;
  items: any[];
  cursor: number;
  count: number;
  total: number | null;
}

/** The envelope, unchecked items included (the caller groups versions). */
export function parseBiorxivDetails(body: string): BiorxivPage {
  const j = parseJsonObject(body, 'bioRxiv details');
  if (!Array.isArray(j.messages) || !j.messages.length || typeof j.messages[0] !== 'object') throw new Error('bioRxiv: no messages');
  const m = j.messages[0];
  const status = str(m.status) ?? '';
  const items = Array.isArray(j.collection) ? j.collection : null;
  if (status === 'ok' && !items) throw new Error('bioRxiv: status ok without a collection');
  if (status !== 'ok' && !/no posts found/i.test(status)) throw new Error(`bioRxiv status: ${status.slice(0, 120)}`);
  const n = (v: unknown) => (v === undefined || v === null || v === '' ? null : Number(v));
  const total = n(m.total);
  return {
    status,
    items: items ?? [],
    cursor: n(m.cursor) ?? 0,
    count: n(m.count) ?? (items ?? []).length,
    total: total !== null && Number.isFinite(total) ? total : null,
  };
}

/** One record per DOI: title, authors and abstract from the latest version, the date of the first. */
export function biorxivItemsToRecords(items: any[]): PaperRecord[] {
  const groups = new Map<string, any[]>();
  for (const it of items) {
    const doi = normalizeDoi(str(it?.doi));
    if (!doi) continue;
    const g = groups.get(doi);
    if (g) g.push(it); else groups.set(doi, [it]);
  }
  const out: PaperRecord[] = [];
  for (const [doi, versions] of groups) {
    versions.sort((a, b) => Number(a.version ?? 0) - Number(b.version ?? 0));
    const latest = versions[versions.length - 1];
    const first = versions[0];
    const version = str(latest.version) ?? '1';
    const server = serverLabel(str(latest.server));
    const r = makeRecord('bio-preprint', {
      ids: { doi, biorxiv: normalizeBiorxiv(doi) ?? undefined },
      title: str(latest.title),
      authors: splitBiorxivAuthors(str(latest.authors)),
      date: isoDate(str(first.date)),
      venue: server,
      abstract: str(latest.abstract),
      url: `https://www.${server.toLowerCase()}.org/content/${doi}v${version}`,
    });
    if (r) out.push(r);
  }
  return out;
}

function serverOrder(doi: string): Server[] {
  // medRxiv suffixes end in 8 digits, bioRxiv ones in 6
  return /\.\d{8}$/.test(doi) ? ['medrxiv', 'biorxiv'] : ['biorxiv', 'medrxiv'];
}

async function details(server: Server, doi: string, ctx: AdapterContext): Promise<PaperRecord | null> {
  const url = buildUrl(ctx.baseUrl, `/details/${server}/${doiPath(doi)}/na/json`);
  const page = await ctx.http.get({
    source: 'bio-preprint', url, signal: ctx.signal, minIntervalMs: bioPreprint.minIntervalMs(false),
    ttlSeconds: RECORD_TTL, notFoundStatuses: [404], errorMessage: jsonErrorMessage, parse: parseBiorxivDetails,
  });
  if (!page) return null;
  return biorxivItemsToRecords(page.items).find((r) => r.ids.doi === doi) ?? null;
}

async function lookupDoi(doi: string, ctx: AdapterContext): Promise<PaperRecord | null> {
  for (const server of serverOrder(doi)) {
    const r = await details(server, doi, ctx);
    if (r) return r;
  }
  return null;
}

/** Every term starts a word of the title, abstract, authors or category. */
function matches(item: any, terms: string[]): boolean {
  const hay = ` ${titleKey([item?.title, item?.abstract, item?.authors, item?.category].map((x) => str(x) ?? '').join(' '))}`;
  return terms.every((t) => hay.includes(` ${t}`));
}

function titleHits(r: PaperRecord, terms: string[]): number {
  const t = ` ${titleKey(r.title)} `;
  return terms.filter((w) => t.includes(` ${w}`)).length;
}

export const bioPreprint: Adapter = {
  name: 'bio-preprint',
  service: 'bioRxiv/medRxiv API (details)',
  defaultBaseUrl: 'https://api.biorxiv.org',
  key: 'none',
  minIntervalMs: () => 500,
  lookupSchemes: ['biorxiv', 'doi'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    const doiInQuery = /10\.1101\/[^\s"']+/i.exec(q);
    const direct = doiInQuery ? normalizeDoi(doiInQuery[0]) : normalizeBiorxiv(q.trim()) ? `10.1101/${normalizeBiorxiv(q.trim())}` : null;
    if (direct) {
      const r = await lookupDoi(direct, ctx);
      return { records: r ? [r] : [], total: r ? 1 : 0 };
    }
    const terms = queryTerms(q);
    if (!terms.length) return { records: [], total: 0 };
    const days = Math.max(1, Math.min(ctx.options?.days ?? DEFAULT_DAYS, 90));
    const pages = Math.max(1, Math.min(ctx.options?.pages ?? DEFAULT_PAGES, 20));
    const to = ymdOf(ctx.now());
    const from = ymdOf(ctx.now() - (days - 1) * 86400);
    const hits: any[] = [];
    for (const server of SERVERS) {
      for (let page = 0, cursor = 0; page < pages; page++) {
        const url = buildUrl(ctx.baseUrl, `/details/${server}/${from}/${to}/${cursor}/json`);
        const res = await ctx.http.get({
          source: 'bio-preprint', url, signal: ctx.signal, minIntervalMs: bioPreprint.minIntervalMs(false),
          ttlSeconds: SEARCH_TTL, errorMessage: jsonErrorMessage, parse: parseBiorxivDetails,
        });
        if (!res || !res.items.length) break;
        for (const it of res.items) if (matches(it, terms)) hits.push(it);
        cursor = res.cursor + res.items.length;
        if (res.total !== null ? cursor >= res.total : res.items.length < PAGE) break;
      }
    }
    const records = biorxivItemsToRecords(hits);
    records.sort((a, b) => titleHits(b, terms) - titleHits(a, terms) || (b.date ?? '').localeCompare(a.date ?? '') || a.id.localeCompare(b.id));
    return { records: records.slice(0, limit), total: records.length };
  },

  async lookup(id, ctx): Promise<PaperRecord | null> {
    const doi = id.scheme === 'biorxiv' ? `10.1101/${id.value}` : id.scheme === 'doi' && id.value.startsWith('10.1101/') ? id.value : null;
    return doi ? lookupDoi(doi, ctx) : null;
  },
};
