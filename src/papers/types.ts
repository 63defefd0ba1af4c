// Shared shapes of the literature area: the six sources under their neutral names, the record
// every adapter returns, and the adapter contract the search/fetch service drives.
import type { HttpClient } from './http.ts';

export const SOURCES = ['preprint', 'open-catalogue', 'doi-registry', 'biomedical-index', 'semantic-index', 'bio-preprint'] as const;
export type SourceName = (typeof SOURCES)[number];

/** Identifier schemes of canonical ids, in the order that picks a record's canonical id. */
export const SCHEMES = ['doi', 'pmid', 'arxiv', 'biorxiv', 'openalex', 's2'] as const;
export type Scheme = (typeof SCHEMES)[number];

export interface PaperIds {
  doi?: string;
  pmid?: string;
  pmcid?: string;
  arxiv?: string;
  openalex?: string;
  s2?: string;
  biorxiv?: string;
}

export interface PaperRecord {
  /** canonical id 'scheme:local' (doi first, then pmid, arxiv, biorxiv, openalex, s2) */
  id: string;
  title: string;
  /** display names in the order the source gives them */
  authors: string[];
  /** ISO date as precise as the source knows it: 'YYYY-MM-DD', 'YYYY-MM' or 'YYYY' */
  date: string | null;
  year: number | null;
  venue: string | null;
  /** full abstract (fetch) or a snippet (search) */
  abstract: string | null;
  url: string | null;
  /** ids of the same work in every scheme a source reported */
  ids: PaperIds;
  /** which sources had it */
  sources: SourceName[];
}

/** One page of hits from one source, in the source's own relevance order. */
export interface SourcePage {
  records: PaperRecord[];
  /** total hits the source reports for the query, when it says */
  total: number | null;
  /** items on the page before unusable ones were dropped (drives paging) */
  rawCount?: number;
}

export interface AdapterContext {
  http: HttpClient;
  /** origin of the API, without trailing slash; the adapter appends the API's own paths */
  baseUrl: string;
  /** API key for this source, when configured */
  key: string | null;
  /** contact address sent as `mailto`/`email` where the API asks for one */
  mailto: string | null;
  /** aborted at the per-source deadline */
  signal: AbortSignal;
  /** unix seconds (the node's clock), for date windows */
  now: () => number;
  /** results per upstream request; adapters page until `limit` is reached (tests make it small) */
  pageSize?: number;
  /** extra knobs (bio-preprint window) */
  options?: Record<string, number>;
}

export interface Lookup {
  scheme: Scheme;
  value: string;
}

export interface Adapter {
  name: SourceName;
  /** the public origin used when no SVC_PAPERS_<SOURCE>_URL is set */
  defaultBaseUrl: string;
  /** the service behind the neutral name (for docs and svc_science_domains) */
  service: string;
  /** 'search' needs a key (the source is skipped without one); 'optional' works better with one */
  key: 'none' | 'optional' | 'search';
  /** minimum spacing between two requests to this source, in ms (its published politeness rule) */
  minIntervalMs: (hasKey: boolean) => number;
  /** schemes this source can look a single work up by, in order of preference */
  lookupSchemes: Scheme[];
  search(q: string, limit: number, ctx: AdapterContext): Promise<SourcePage>;
  /** null when the source does not know the work */
  lookup(id: Lookup, ctx: AdapterContext): Promise<PaperRecord | null>;
}
