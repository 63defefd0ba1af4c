// Full-text search over the catalog (svc_find_operator) with MiniSearch: fields id, name,
// equation and description (the domain name is indexed too, with a low weight). Tokens are
// split on anything that is not a letter or digit and at camelCase boundaries, so
// KINETIC_ENERGY, "kinetic energy" and speedOfLight all find what they should. An exact id
// always ranks first. The index is built once, on first use.
import MiniSearch from 'minisearch';
import { loadCatalog, getOperator } from './catalog.ts';
import type { OperatorDef } from './types.ts';
import { STOP_WORDS, identifierTokens } from '../core/text.ts';

export const SEARCH_DEFAULT_LIMIT = 12;
export const SEARCH_MAX_LIMIT = 40;

interface Doc { id: string; name: string; equation: string; description: string; domain: string }

let index: MiniSearch<Doc> | null = null;

function buildIndex(): MiniSearch<Doc> {
  const ms = new MiniSearch<Doc>({
    fields: ['id', 'name', 'equation', 'description', 'domain'],
    storeFields: [],
    idField: 'id',
    tokenize: identifierTokens,
    // single letters (equation variables such as m, v) and stop words carry no meaning to search on
    processTerm: (t) => (t.length > 0 && !STOP_WORDS.has(t) && !/^[a-z]$/.test(t) ? t : null),
    searchOptions: {
      boost: { id: 3, name: 2.5, description: 1, equation: 1, domain: 0.5 },
      // prefix matching for the last word only (the one being typed)
      prefix: (term, i, terms) => i === terms.length - 1 && term.length >= 3,
      fuzzy: false,
      combineWith: 'AND',
    },
  });
  ms.addAll(loadCatalog().operators.map((o) => ({ id: o.id, name: o.name, equation: o.equation, description: o.description, domain: o.domain })));
  return ms;
}

export interface OperatorSummary {
  id: string;
  name: string;
  domain: string;
  prefix: string;
  tier: number;
  equation: string;
  inputs: Record<string, string>;
  inputKeys: string[];
  output: { unit: string };
  description: string;
  source: string;
}

const summaries = new WeakMap<OperatorDef, OperatorSummary>();

export function summarize(o: OperatorDef): OperatorSummary {
  const hit = summaries.get(o);
  if (hit) return hit;
  const s: OperatorSummary = {
    id: o.id, name: o.name, domain: o.domain, prefix: o.prefix, tier: o.tier, equation: o.equation,
    inputs: o.inputs, inputKeys: Object.keys(o.inputs), output: o.output, description: o.description, source: o.source,
  };
  summaries.set(o, s);
  return s;
}

/** Typo tolerance of the fallback pass: one edit for words of 5 to 9 letters, two from 10. */
const FUZZY = (t: string) => (t.length >= 10 ? 0.2 : t.length >= 5 ? 0.2 : false);

/** Operators matching `term`, best first: all words (prefix match); when nothing matches, any
 * word with typo tolerance, ranked by summed score (documents matching more words first). */
export function findOperators(term: string, limit = SEARCH_DEFAULT_LIMIT): (OperatorSummary & { score: number })[] {
  const n = Math.max(1, Math.min(SEARCH_MAX_LIMIT, Math.floor(limit)));
  index ??= buildIndex();
  const q = term.trim();
  const out: (OperatorSummary & { score: number })[] = [];
  const seen = new Set<string>();
  const exact = getOperator(q);
  if (exact) {
    out.push({ ...summarize(exact), score: Number.MAX_SAFE_INTEGER });
    seen.add(exact.id);
  }
  // exact and prefix matches of every word first; typo-tolerant matching only when that finds nothing
  let hits = index.search(q);
  if (!hits.length && !exact) hits = index.search(q, { combineWith: 'OR', prefix: false, fuzzy: FUZZY, maxFuzzy: 2 });
  const cat = loadCatalog();
  for (const h of hits) {
    if (out.length >= n) break;
    if (seen.has(h.id as string)) continue;
    const o = cat.byId.get(String(h.id).toUpperCase());
    if (!o) continue;
    seen.add(o.id);
    out.push({ ...summarize(o), score: Math.round(h.score * 1000) / 1000 });
  }
  return out.slice(0, n);
}

/** Builds the index now (the node calls this at start so the first query is fast). */
export function warmSearch(): void {
  index ??= buildIndex();
}
