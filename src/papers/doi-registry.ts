// Source `doi-registry`: the Crossref REST API (https://api.crossref.org/swagger-ui), JSON.
// Search: GET /works?query=<q>&rows=&offset=&select=… → {status:'ok', message-type:'work-list',
// message:{total-results, items[]}}. Lookup: GET /works/<doi> → {message-type:'work', message};
// an unknown DOI is a 404 with the text/plain body "Resource not found.". Crossref escapes '/'
// as '\/' in JSON (JSON.parse undoes it). Dates are {date-parts: [[y, m, d]]} with m and d
// optional; abstracts are JATS (<jats:p>) or HTML fragments.
// Politeness: the "polite pool" asks for a mailto parameter and a User-Agent with a contact;
// this node spaces its requests 200 ms apart (the public pool allows 5 per second).
import { buildUrl, doiPath, jsonErrorMessage, UpstreamError } from './http.ts';
import { biorxivFromDoi, normalizeDoi } from './ids.ts';
import { makeRecord, parseJsonObject, str } from './record.ts';
import { collapse, dateFromParts, stripMarkup } from './text.ts';
import type { Adapter, AdapterContext, PaperRecord, SourcePage } from './types.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const MAX_PAGES = 10;
// fields the API's `select` is known to accept; should Crossref ever refuse one (HTTP 400), the
// page is asked again without `select`
const SELECT = 'DOI,title,author,issued,published,published-print,published-online,posted,created,container-title,abstract,type,publisher,URL';

/** {date-parts: [[2012, 3, 21]]} → '2012-03-21' ([[2012]] → '2012'; [[null]] → null). */
export function crossrefDate(d: any): string | null {
  const parts = d?.['date-parts']?.[0];
  if (!Array.isArray(parts) || parts.length === 0) return null;
  return dateFromParts(parts[0], parts[1], parts[2]);
}

export function crossrefAuthor(a: any): string | null {
  if (!a || typeof a !== 'object') return null;
  const given = str(a.given);
  const family = str(a.family);
  if (family) return collapse(given ? `${given} ${family}` : family);
  return collapse(str(a.name));
}

export function crossrefItemToRecord(it: any): PaperRecord | null {
  if (!it || typeof it !== 'object') return null;
  const doi = normalizeDoi(str(it.DOI));
  if (!doi) return null;
  const title = Array.isArray(it.title) ? str(it.title[0]) : str(it.title);
  const date = crossrefDate(it.published) ?? crossrefDate(it.issued) ?? crossrefDate(it['published-print'])
    ?? crossrefDate(it['published-online']) ?? crossrefDate(it.posted) ?? crossrefDate(it.created);
  const container = Array.isArray(it['container-title']) ? str(it['container-title'][0]) : str(it['container-title']);
  const institution = Array.isArray(it.institution) ? str(it.institution[0]?.name) : null;
  return makeRecord('doi-registry', {
    ids: { doi, biorxiv: institution && /^(bio|med)rxiv$/i.test(institution) ? biorxivFromDoi(doi) ?? undefined : undefined },
    // the subtitle is left out: other sources rarely carry it, and the title is the dedup key
    title: stripMarkup(title),
    authors: (Array.isArray(it.author) ? it.author : []).map(crossrefAuthor).filter((a: string | null): a is string => !!a),
    date,
    venue: container ?? institution ?? (it.type === 'posted-content' ? str(it.publisher) : null),
    abstract: stripMarkup(str(it.abstract)),
    url: str(it.URL) ?? `https://doi.org/${doi}`,
  });
}

export function parseCrossrefList(body: string): SourcePage {
  const j = parseJsonObject(body, 'Crossref work-list');
  if (j.status !== 'ok') throw new Error(`Crossref status ${JSON.stringify(j.status)}`);
  if (j['message-type'] !== 'work-list' || !Array.isArray(j.message?.items)) throw new Error('Crossref: expected a work-list with items');
  const items: any[] = j.message.items;
  const total = j.message['total-results'];
  return {
    records: items.map(crossrefItemToRecord).filter((r): r is PaperRecord => r !== null),
    total: Number.isInteger(total) ? total : null,
    rawCount: items.length,
  };
}

export function parseCrossrefWork(body: string): PaperRecord | null {
  const j = parseJsonObject(body, 'Crossref work');
  if (j.status !== 'ok' || j['message-type'] !== 'work' || !j.message || typeof j.message !== 'object') {
    throw new Error('Crossref: expected {status: ok, message-type: work}');
  }
  return crossrefItemToRecord(j.message);
}

export const doiRegistry: Adapter = {
  name: 'doi-registry',
  service: 'Crossref REST API (/works)',
  defaultBaseUrl: 'https://api.crossref.org',
  key: 'none',
  minIntervalMs: () => 200,
  lookupSchemes: ['doi'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    const text = collapse(q);
    if (!text) return { records: [], total: 0 };
    const rows = Math.max(1, Math.min(ctx.pageSize ?? limit, 1000));
    const out: PaperRecord[] = [];
    let total: number | null = null;
    let select: string | null = SELECT;
    const ask = (offset: number) => ctx.http.get({
      source: 'doi-registry', url: buildUrl(ctx.baseUrl, '/works', { query: text, rows, offset, select, mailto: ctx.mailto }),
      signal: ctx.signal, minIntervalMs: doiRegistry.minIntervalMs(false),
      ttlSeconds: SEARCH_TTL, errorMessage: jsonErrorMessage, parse: parseCrossrefList,
    });
    for (let page = 0, offset = 0; page < MAX_PAGES && out.length < limit; page++) {
      let res: SourcePage | null;
      try { res = await ask(offset); } catch (e) {
        if (!(e instanceof UpstreamError && e.status === 400 && select)) throw e;
        select = null;
        res = await ask(offset);
      }
      if (!res) break;
      total = res.total;
      out.push(...res.records);
      offset += res.rawCount ?? res.records.length;
      if ((res.rawCount ?? res.records.length) < rows || (total !== null && offset >= total)) break;
    }
    return { records: out.slice(0, limit), total };
  },

  async lookup(id, ctx: AdapterContext): Promise<PaperRecord | null> {
    if (id.scheme !== 'doi') return null;
    const url = buildUrl(ctx.baseUrl, `/works/${doiPath(id.value)}`, { mailto: ctx.mailto });
    return ctx.http.get({
      source: 'doi-registry', url, signal: ctx.signal, minIntervalMs: doiRegistry.minIntervalMs(false),
      ttlSeconds: RECORD_TTL, notFoundStatuses: [404], errorMessage: jsonErrorMessage, parse: parseCrossrefWork,
    });
  },
};
