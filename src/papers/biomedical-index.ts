// Source `biomedical-index`: NCBI E-utilities over PubMed
// (https://www.ncbi.nlm.nih.gov/books/NBK25500/), base /entrez/eutils/.
// Search: esearch.fcgi?db=pubmed&term=<q>&sort=relevance&retmode=json (ids, paged with
// retstart/retmax), then efetch.fcgi?db=pubmed&id=…&retmode=xml (PubmedArticleSet: titles,
// authors, dates, journal, DOI and the abstract). If efetch fails, esummary.fcgi (retmode=json)
// supplies the records without abstracts. esearch and esummary are also read in their XML
// forms (eSearchResult, eSummaryResult/DocSum v1) because that is what the API answers when
// retmode is ignored by a proxy or mirror.
// Lookup: a PMID goes straight to efetch; a DOI is first resolved with esearch term="<doi>"[doi].
// Politeness: NCBI asks for `tool` and `email` on every request and allows 3 requests per second
// without an API key (10 with one: SVC_PAPERS_BIOMEDICAL_INDEX_KEY, sent as api_key).
import { buildUrl, jsonErrorMessage, UpstreamError } from './http.ts';
import { normalizeDoi, normalizePmid } from './ids.ts';
import { makeRecord, parseJsonObject, str } from './record.ts';
import { collapse, dateFromParts, monthNumber, pubmedDate } from './text.ts';
import type { Adapter, AdapterContext, PaperRecord, SourcePage } from './types.ts';
import { child, childElements, cleanText, parseXml, path, type XmlElement } from './xml.ts';

const SEARCH_TTL = 3600;
const RECORD_TTL = 86400;
const MAX_PAGES = 10;
const EUTILS = '/entrez/eutils';
const TOOL = 'svc-node';

export interface EsearchResult {
  count: number;
  ids: string[];
}

/** esearch in JSON (esearchresult) or XML (eSearchResult). */
export function parseEsearch(body: string): EsearchResult {
  const t = body.trimStart();
  if (t.startsWith('<')) {
    const root = parseXml(t);
    if (root.local !== 'eSearchResult') throw new Error(`expected <eSearchResult>, got <${root.name}>`);
    const err = cleanText(child(root, 'ERROR'));
    if (err) throw new Error(`esearch error: ${err}`);
    const count = Number(cleanText(child(root, 'Count')) ?? 'NaN');
    if (!Number.isInteger(count)) throw new Error('esearch: no Count');
    const ids = childElements(child(root, 'IdList'), 'Id').map((e) => normalizePmid(cleanText(e))).filter((x): x is string => !!x);
    return { count, ids };
  }
  const j = parseJsonObject(t, 'esearch');
  const r = j.esearchresult;
  if (!r || typeof r !== 'object') throw new Error('esearch: no esearchresult');
  if (typeof r.ERROR === 'string') throw new Error(`esearch error: ${r.ERROR}`);
  const count = Number(r.count);
  if (!Number.isInteger(count) || !Array.isArray(r.idlist)) throw new Error('esearch: no count/idlist');
  return { count, ids: r.idlist.map((x: unknown) => normalizePmid(str(x))).filter((x: string | null): x is string => !!x) };
}

function efetchAuthor(a: XmlElement): string | null {
  if (a.attrs.ValidYN === 'N') return null;
  const collective = cleanText(child(a, 'CollectiveName'));
  if (collective) return collective;
  const last = cleanText(child(a, 'LastName'));
  if (!last) return null;
  const fore = cleanText(child(a, 'ForeName')) ?? cleanText(child(a, 'Initials'));
  const suffix = cleanText(child(a, 'Suffix'));
  return [fore, last, suffix].filter(Boolean).join(' ');
}

function efetchDate(pubDate: XmlElement | null): string | null {
  if (!pubDate) return null;
  const medline = cleanText(child(pubDate, 'MedlineDate'));
  if (medline) return pubmedDate(medline);
  const year = cleanText(child(pubDate, 'Year'));
  const month = monthNumber(cleanText(child(pubDate, 'Month')));
  return dateFromParts(year, month, month ? cleanText(child(pubDate, 'Day')) : null);
}

function efetchAbstract(abs: XmlElement | null): string | null {
  if (!abs) return null;
  const parts = childElements(abs, 'AbstractText').map((p) => {
    const text = cleanText(p);
    if (!text) return null;
    const label = p.attrs.Label;
    return label && label.toUpperCase() !== 'UNLABELLED' ? `${label}: ${text}` : text;
  }).filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

function articleIds(list: XmlElement | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of childElements(list, 'ArticleId')) {
    const type = id.attrs.IdType;
    const v = cleanText(id);
    if (type && v && !(type in out)) out[type] = v;
  }
  return out;
}

function pubmedArticleToRecord(pa: XmlElement): PaperRecord | null {
  const mc = child(pa, 'MedlineCitation');
  const art = child(mc, 'Article');
  const pmid = normalizePmid(cleanText(child(mc, 'PMID')));
  if (!pmid || !art) return null;
  // only PubmedData's own ArticleIdList: the reference list below it holds other works' ids
  const ids = articleIds(path(pa, 'PubmedData', 'ArticleIdList'));
  let doi = normalizeDoi(ids.doi);
  if (!doi) {
    for (const e of childElements(art, 'ELocationID')) if (e.attrs.EIdType === 'doi') { doi = normalizeDoi(cleanText(e)); if (doi) break; }
  }
  const journal = child(art, 'Journal');
  return makeRecord('biomedical-index', {
    ids: { pmid, doi: doi ?? undefined, pmcid: ids.pmc ?? undefined },
    title: cleanText(child(art, 'ArticleTitle')) ?? cleanText(child(art, 'VernacularTitle')),
    authors: childElements(child(art, 'AuthorList'), 'Author').map(efetchAuthor).filter((a): a is string => !!a),
    date: efetchDate(path(journal, 'JournalIssue', 'PubDate')),
    venue: cleanText(child(journal, 'Title')) ?? cleanText(child(journal, 'ISOAbbreviation')),
    abstract: efetchAbstract(child(art, 'Abstract')),
    url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
  });
}

function pubmedBookToRecord(pb: XmlElement): PaperRecord | null {
  const bd = child(pb, 'BookDocument');
  const pmid = normalizePmid(cleanText(child(bd, 'PMID')));
  if (!pmid || !bd) return null;
  const book = child(bd, 'Book');
  const ids = articleIds(child(bd, 'ArticleIdList'));
  return makeRecord('biomedical-index', {
    ids: { pmid, doi: normalizeDoi(ids.doi) ?? undefined },
    title: cleanText(child(bd, 'ArticleTitle')) ?? cleanText(child(book, 'BookTitle')),
    authors: childElements(child(bd, 'AuthorList') ?? child(book, 'AuthorList'), 'Author').map(efetchAuthor).filter((a): a is string => !!a),
    date: efetchDate(child(book, 'PubDate')),
    venue: cleanText(child(book, 'BookTitle')),
    abstract: efetchAbstract(child(bd, 'Abstract')),
    url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
  });
}

/** efetch db=pubmed retmode=xml: a PubmedArticleSet. */
export function parseEfetch(body: string): PaperRecord[] {
  const root = parseXml(body);
  if (root.local === 'eFetchResult') {
    const err = cleanText(child(root, 'ERROR'));
    if (err) throw new Error(`efetch error: ${err}`);
  }
  if (root.local !== 'PubmedArticleSet') throw new Error(`expected <PubmedArticleSet>, got <${root.name}>`);
  const out: PaperRecord[] = [];
  for (const el of childElements(root)) {
    const r = el.local === 'PubmedArticle' ? pubmedArticleToRecord(el) : el.local === 'PubmedBookArticle' ? pubmedBookToRecord(el) : null;
    if (r) out.push(r);
  }
  return out;
}

/** esummary db=pubmed in JSON (result.uids + one object per uid) or XML (DocSum v1). */
export function parseEsummary(body: string): PaperRecord[] {
  const t = body.trimStart();
  const out: PaperRecord[] = [];
  if (t.startsWith('<')) {
    const root = parseXml(t);
    if (root.local !== 'eSummaryResult') throw new Error(`expected <eSummaryResult>, got <${root.name}>`);
    const err = cleanText(child(root, 'ERROR'));
    if (err) throw new Error(`esummary error: ${err}`);
    for (const ds of childElements(root, 'DocSum')) {
      const items = new Map<string, XmlElement>();
      for (const it of childElements(ds, 'Item')) if (it.attrs.Name && !items.has(it.attrs.Name)) items.set(it.attrs.Name, it);
      const pmid = normalizePmid(cleanText(child(ds, 'Id')));
      if (!pmid) continue;
      const aids = new Map(childElements(items.get('ArticleIds') ?? null, 'Item').map((i) => [i.attrs.Name, cleanText(i)]));
      const doi = normalizeDoi(aids.get('doi') ?? null) ?? normalizeDoi((cleanText(items.get('ELocationID')) ?? '').replace(/^doi:\s*/i, ''));
      const r = makeRecord('biomedical-index', {
        ids: { pmid, doi: doi ?? undefined, pmcid: aids.get('pmc') ?? undefined },
        title: cleanText(items.get('Title')),
        authors: childElements(items.get('AuthorList') ?? null, 'Item').map((a) => cleanText(a) ?? '').filter(Boolean),
        date: pubmedDate(cleanText(items.get('PubDate'))),
        venue: cleanText(items.get('FullJournalName')) ?? cleanText(items.get('Source')),
        abstract: null,
        url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
      });
      if (r) out.push(r);
    }
    return out;
  }
  const j = parseJsonObject(t, 'esummary');
  const result = j.result;
  if (!result || typeof result !== 'object' || !Array.isArray(result.uids)) {
    if (typeof j.error === 'string') throw new Error(`esummary error: ${j.error}`);
    throw new Error('esummary: no result.uids');
  }
  for (const uid of result.uids) {
    const d = result[uid];
    if (!d || typeof d !== 'object' || d.error) continue;
    const pmid = normalizePmid(str(d.uid) ?? str(uid));
    if (!pmid) continue;
    const aids = new Map<string, string>();
    for (const a of Array.isArray(d.articleids) ? d.articleids : []) if (str(a?.idtype) && str(a?.value)) aids.set(a.idtype, a.value);
    const r = makeRecord('biomedical-index', {
      ids: { pmid, doi: normalizeDoi(aids.get('doi')) ?? undefined, pmcid: aids.get('pmc') ?? undefined },
      title: str(d.title),
      authors: (Array.isArray(d.authors) ? d.authors : []).map((a: any) => str(a?.name) ?? '').filter(Boolean),
      date: pubmedDate(str(d.pubdate)) ?? pubmedDate(str(d.sortpubdate)?.replace(/\//g, ' ').replace(/ (\d\d) (\d\d).*$/, '')),
      venue: str(d.fulljournalname) ?? str(d.source),
      abstract: null,
      url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
    });
    if (r) out.push(r);
  }
  return out;
}

function common(ctx: AdapterContext) {
  return {
    source: 'biomedical-index' as const,
    signal: ctx.signal,
    minIntervalMs: biomedicalIndex.minIntervalMs(!!ctx.key),
    secretParams: ctx.key ? { api_key: ctx.key } : undefined,
    errorMessage: jsonErrorMessage,
  };
}

async function esearch(term: string, retstart: number, retmax: number, ctx: AdapterContext): Promise<EsearchResult> {
  const url = buildUrl(ctx.baseUrl, `${EUTILS}/esearch.fcgi`, {
    db: 'pubmed', term, retmode: 'json', sort: 'relevance', retstart, retmax, tool: TOOL, email: ctx.mailto,
  });
  const r = await ctx.http.get({ ...common(ctx), url, ttlSeconds: SEARCH_TTL, parse: parseEsearch });
  return r ?? { count: 0, ids: [] };
}

/** Records for these PMIDs in the given order: efetch, or esummary if efetch fails. */
async function records(pmids: string[], ctx: AdapterContext): Promise<PaperRecord[]> {
  if (!pmids.length) return [];
  const id = pmids.join(',');
  let recs: PaperRecord[];
  try {
    const url = buildUrl(ctx.baseUrl, `${EUTILS}/efetch.fcgi`, { db: 'pubmed', id, retmode: 'xml', tool: TOOL, email: ctx.mailto });
    recs = (await ctx.http.get({ ...common(ctx), url, ttlSeconds: RECORD_TTL, parse: parseEfetch })) ?? [];
  } catch (e) {
    if (ctx.signal.aborted || !(e instanceof UpstreamError)) throw e;
    const url = buildUrl(ctx.baseUrl, `${EUTILS}/esummary.fcgi`, { db: 'pubmed', id, retmode: 'json', tool: TOOL, email: ctx.mailto });
    try {
      recs = (await ctx.http.get({ ...common(ctx), url, ttlSeconds: RECORD_TTL, parse: parseEsummary })) ?? [];
    } catch { throw e; }
  }
  const byId = new Map(recs.map((r) => [r.ids.pmid!, r]));
  return pmids.map((p) => byId.get(p)).filter((r): r is PaperRecord => !!r);
}

export const biomedicalIndex: Adapter = {
  name: 'biomedical-index',
  service: 'NCBI E-utilities (PubMed esearch, efetch, esummary)',
  defaultBaseUrl: 'https://eutils.ncbi.nlm.nih.gov',
  key: 'optional',
  minIntervalMs: (hasKey) => (hasKey ? 110 : 350),
  lookupSchemes: ['pmid', 'doi'],

  async search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage> {
    const term = collapse(q);
    if (!term) return { records: [], total: 0 };
    const retmax = Math.max(1, Math.min(ctx.pageSize ?? limit, 500));
    const out: PaperRecord[] = [];
    let total: number | null = null;
    for (let page = 0, retstart = 0; page < MAX_PAGES && out.length < limit; page++) {
      const s = await esearch(term, retstart, Math.min(retmax, limit - out.length), ctx);
      total = s.count;
      if (!s.ids.length) break;
      out.push(...(await records(s.ids, ctx)));
      retstart += s.ids.length;
      if (retstart >= s.count) break;
    }
    return { records: out.slice(0, limit), total };
  },

  async lookup(id, ctx): Promise<PaperRecord | null> {
    let pmid: string | null = null;
    if (id.scheme === 'pmid') pmid = id.value;
    else if (id.scheme === 'doi') {
      const s = await esearch(`"${id.value}"[doi]`, 0, 1, ctx);
      pmid = s.count > 0 ? s.ids[0] ?? null : null;
    }
    if (!pmid) return null;
    const [rec] = await records([pmid], ctx);
    if (!rec) return null;
    if (id.scheme === 'doi' && rec.ids.doi && rec.ids.doi !== id.value) return null;
    return rec;
  },
};
