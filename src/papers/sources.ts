// The six literature sources under their neutral names, which of them a search uses by default,
// and what each covers (shown by GET /api/papers/sources; the per-domain lists of
// svc_science_domains live with the operator catalogue, src/operators/domains.json).
import { bioPreprint } from './bio-preprint.ts';
import { biomedicalIndex } from './biomedical-index.ts';
import { doiRegistry } from './doi-registry.ts';
import { openCatalogue } from './open-catalogue.ts';
import { preprint } from './preprint.ts';
import { semanticIndex } from './semantic-index.ts';
import { SOURCES, type Adapter, type SourceName } from './types.ts';

export { SOURCES, type SourceName };

export const ADAPTERS: Record<SourceName, Adapter> = {
  'preprint': preprint,
  'open-catalogue': openCatalogue,
  'doi-registry': doiRegistry,
  'biomedical-index': biomedicalIndex,
  'semantic-index': semanticIndex,
  'bio-preprint': bioPreprint,
};

/** The four sources that need no key AND have a keyword search endpoint (docs/papers.md):
 * open-catalogue needs an API key since February 2026, and bio-preprint has no search endpoint
 * (its "search" scans recent posts), so both are opt-in. */
export const DEFAULT_SOURCES: SourceName[] = ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index'];

export interface SourceInfo {
  source: SourceName;
  service: string;
  key: 'none' | 'optional' | 'search';
  keyEnv: string | null;
  urlEnv: string;
  defaultUrl: string;
  inDefaultSearch: boolean;
  /** broad fields the source indexes; 'all' for the general catalogues */
  coverage: string[];
}

const COVERAGE: Record<SourceName, string[]> = {
  'preprint': ['physics', 'astronomy', 'mathematics', 'computer science', 'quantitative biology', 'quantitative finance', 'statistics', 'electrical engineering', 'economics'],
  'open-catalogue': ['all'],
  'doi-registry': ['all'],
  'biomedical-index': ['biomedicine', 'life sciences', 'health', 'chemistry'],
  'semantic-index': ['all'],
  'bio-preprint': ['biology', 'medicine', 'health'],
};

export const envName = (source: SourceName, what: 'URL' | 'KEY') => `SVC_PAPERS_${source.toUpperCase().replace(/-/g, '_')}_${what}`;

export const SOURCE_INFO: SourceInfo[] = SOURCES.map((s) => ({
  source: s,
  service: ADAPTERS[s].service,
  key: ADAPTERS[s].key,
  keyEnv: ADAPTERS[s].key === 'none' ? null : envName(s, 'KEY'),
  urlEnv: envName(s, 'URL'),
  defaultUrl: ADAPTERS[s].defaultBaseUrl,
  inDefaultSearch: DEFAULT_SOURCES.includes(s),
  coverage: COVERAGE[s],
}));
