// Deduplication, merging and ranking of the hits several sources return for one query.
// Two hits are the same work when they share a DOI (or a PMID, arXiv id, S2 or OpenAlex id), or
// when their normalised titles and years are equal; they are never merged when both carry a
// DOI (or a PMID) and the two differ (a preprint and its journal version have different DOIs
// and stay two records). Merged fields come from the source most trusted for that field.
// Ranking is reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a work scores
// Σ 1/(k + rank) over the sources that returned it, k = 60, so agreement between sources lifts
// a work above any single source's opinion; ties fall to query-term coverage of the title,
// then the number of sources, then the newer year, then the id.
import { canonicalIdOf, completeIds } from './ids.ts';
import { queryTerms, snippet, titleKey } from './text.ts';
import { SOURCES, type PaperIds, type PaperRecord, type SourceName } from './types.ts';

export const RRF_K = 60;
/** A title must be at least this long (normalised) to merge on title + year alone; short
 * generic titles ("Editorial", "Fire Ecology") are not evidence of the same work. */
export const MIN_TITLE_KEY = 20;

const PREFER: Record<'title' | 'authors' | 'venue' | 'date', SourceName[]> = {
  title: ['doi-registry', 'biomedical-index', 'open-catalogue', 'semantic-index', 'preprint', 'bio-preprint'],
  authors: ['doi-registry', 'open-catalogue', 'semantic-index', 'preprint', 'bio-preprint', 'biomedical-index'],
  venue: ['doi-registry', 'biomedical-index', 'open-catalogue', 'semantic-index', 'preprint', 'bio-preprint'],
  date: ['doi-registry', 'biomedical-index', 'open-catalogue', 'semantic-index', 'bio-preprint', 'preprint'],
};

const ID_PREFER: SourceName[] = ['doi-registry', 'biomedical-index', 'preprint', 'bio-preprint', 'open-catalogue', 'semantic-index'];

function bySource(records: PaperRecord[], order: SourceName[]): PaperRecord[] {
  const rank = (r: PaperRecord) => Math.min(...r.sources.map((s) => { const i = order.indexOf(s); return i === -1 ? 99 : i; }));
  return records.slice().sort((a, b) => rank(a) - rank(b));
}

const precision = (d: string | null) => (d ? d.split('-').length : 0);

/** One record from several records of the same work. */
export function mergeRecords(records: PaperRecord[]): PaperRecord {
  if (records.length === 1) return { ...records[0], ids: { ...records[0].ids }, sources: records[0].sources.slice() };
  const first = <T>(field: keyof typeof PREFER, get: (r: PaperRecord) => T | null, ok: (v: T) => boolean = () => true): T | null => {
    for (const r of bySource(records, PREFER[field])) { const v = get(r); if (v !== null && v !== undefined && ok(v)) return v; }
    return null;
  };
  const ids: PaperIds = {};
  for (const r of bySource(records, ID_PREFER)) {
    for (const [k, v] of Object.entries(r.ids)) if (v && !(ids as any)[k]) (ids as any)[k] = v;
  }
  const full = completeIds(ids);
  // the most precise date that agrees on the year with the most trusted source's date
  const trusted = first('date', (r) => r.date);
  let date = trusted;
  if (trusted) {
    for (const r of bySource(records, PREFER.date)) {
      if (r.date && r.date.slice(0, 4) === trusted.slice(0, 4) && precision(r.date) > precision(date)) date = r.date;
    }
  }
  let abstract: string | null = null;
  for (const r of records) if (r.abstract && r.abstract.length > (abstract?.length ?? 0)) abstract = r.abstract;
  const sources = SOURCES.filter((s) => records.some((r) => r.sources.includes(s)));
  const title = first('title', (r) => r.title) ?? records[0].title;
  return {
    id: canonicalIdOf(full) ?? records[0].id,
    title,
    authors: first('authors', (r) => r.authors, (a) => a.length > 0) ?? [],
    date,
    year: date ? Number(date.slice(0, 4)) : null,
    venue: first('venue', (r) => r.venue),
    abstract,
    url: full.doi ? `https://doi.org/${full.doi}` : records.find((r) => r.url)?.url ?? null,
    ids: full,
    sources,
  };
}

interface Hit { rec: PaperRecord; source: SourceName; rank: number }
interface Cluster { hits: Hit[]; doi: string | null; pmid: string | null; alive: boolean }

function keysOf(r: PaperRecord): string[] {
  const keys: string[] = [];
  for (const s of ['doi', 'pmid', 'arxiv', 's2', 'openalex', 'biorxiv'] as const) { const v = r.ids[s]; if (v) keys.push(`${s}:${v}`); }
  const t = titleKey(r.title);
  if (t.length >= MIN_TITLE_KEY && r.year) keys.push(`t:${t}|${r.year}`);
  return keys;
}

const compatible = (c: Cluster, doi: string | null, pmid: string | null) =>
  !(c.doi && doi && c.doi !== doi) && !(c.pmid && pmid && c.pmid !== pmid);

/** Groups the hits of several sources into works. Each list is in its source's rank order. */
export function clusterHits(lists: { source: SourceName; records: PaperRecord[] }[]): Hit[][] {
  const index = new Map<string, Cluster>();
  const clusters: Cluster[] = [];
  // visit hits rank by rank across sources so that the outcome does not depend on which
  // source answered first
  const depth = Math.max(0, ...lists.map((l) => l.records.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const l of lists) {
      const rec = l.records[rank];
      if (!rec) continue;
      const hit: Hit = { rec, source: l.source, rank };
      const keys = keysOf(rec);
      const doi = rec.ids.doi ?? null;
      const pmid = rec.ids.pmid ?? null;
      const found: Cluster[] = [];
      for (const k of keys) {
        const c = index.get(k);
        if (c && c.alive && !found.includes(c) && compatible(c, doi, pmid)) found.push(c);
      }
      let target: Cluster;
      if (!found.length) {
        target = { hits: [], doi: null, pmid: null, alive: true };
        clusters.push(target);
      } else {
        target = found[0];
        for (const other of found.slice(1)) {
          if (!compatible(target, other.doi, other.pmid)) continue;
          target.hits.push(...other.hits);
          target.doi ??= other.doi;
          target.pmid ??= other.pmid;
          other.alive = false;
          for (const h of other.hits) for (const k of keysOf(h.rec)) index.set(k, target);
        }
      }
      target.hits.push(hit);
      target.doi ??= doi;
      target.pmid ??= pmid;
      for (const k of keys) if (!index.has(k) || !index.get(k)!.alive || index.get(k) === target) index.set(k, target);
    }
  }
  return clusters.filter((c) => c.alive).map((c) => c.hits);
}

export interface RankedRecord extends PaperRecord {
  score: number;
}

/** Deduplicates, merges and ranks; abstracts become snippets when `snippets` is set. */
export function mergeAndRank(q: string, lists: { source: SourceName; records: PaperRecord[] }[], limit: number, snippets = true): RankedRecord[] {
  const terms = queryTerms(q);
  const coverage = (title: string) => {
    if (!terms.length) return 0;
    const t = ` ${titleKey(title)}`;
    return terms.filter((w) => t.includes(` ${w}`)).length / terms.length;
  };
  const ranked = clusterHits(lists).map((hits) => {
    const best = new Map<SourceName, number>();
    for (const h of hits) best.set(h.source, Math.min(best.get(h.source) ?? Infinity, h.rank));
    let score = 0;
    for (const r of best.values()) score += 1 / (RRF_K + r + 1);
    const rec = mergeRecords(hits.map((h) => h.rec));
    return { ...rec, abstract: snippets ? snippet(rec.abstract) : rec.abstract, score: Math.round(score * 1e6) / 1e6, cov: coverage(rec.title) };
  });
  ranked.sort((a, b) => b.score - a.score || b.cov - a.cov || b.sources.length - a.sources.length || (b.year ?? 0) - (a.year ?? 0) || a.id.localeCompare(b.id));
  return ranked.slice(0, limit).map(({ cov: _cov, ...r }) => r);
}
