// Natural-language dispatch for svc_auto: a deterministic classifier that picks a solver from a
// plain-English request.
//
// Method: Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
// Beyond", Found. Trends Inf. Retr. 3(4), 2009, eq. 3.15 with the non-negative idf of Lucene)
// over one document per solver, built from its descriptor: name (weight 3), domain (2),
// vocabulary (2), summary (1), methodDescription (1) and examples (1); field weights are applied
// as repeated term frequency, the simple form of BM25F (§3.5.1). k1 = 1.2, b = 0.75.
// Text processing: lower case, split on anything but letters and digits, stop words removed,
// British -ise/-isation folded into -ize/-ization, a light suffix stemmer (plurals, -ing, -ed,
// -ation, -ical…), pure numbers dropped (they are parameter values, not topic words), and adjacent-word
// bigrams added as extra terms so phrases such as "heat bath", "power flow" or "black scholes"
// outweigh their single words.
// A written form only one solver reads (a derivative equation "x' = …": svc_ode) decides before
// the scores (FORM_CUES).
// A query whose best score is below REFUSE_BELOW (or that shares no term with any solver), or a
// weak one whose runner-up is within 10 % of it, is refused with the top candidates rather than
// dispatched at random.
// Input mapping: numeric `inputs` (and `key=value` pairs written in the query) are kept only for
// keys the chosen solver's schema accepts, matched exactly or, failing that, case-insensitively.
import type { SolverDescriptor } from '../solvers/types.ts';
import { Bm25Index, STOP_WORDS, stem, termCounts, words } from '../core/text.ts';

import { loadSolvers } from '../solvers/engine/loader.ts';
import { SvcError } from '../core/errors.ts';

const K1 = 1.2;
const B = 0.75;
/** below this BM25 score the best match is not trusted (one distinctive word scores about 5-6,
 *  a typical request 13 or more) */
export const REFUSE_BELOW = 5.5;
/** below CLEAR_ABOVE, a runner-up within AMBIGUOUS_MARGIN of the best makes the query ambiguous */
export const CLEAR_ABOVE = 10;
export const AMBIGUOUS_MARGIN = 0.1;
/** solvers the dispatcher never picks */
const NEVER = new Set(['auto']);

/** Words of a request that name no problem ("compute", "simulate", "value"): dropped on top of
 * the function words of the text toolkit. */
const REQUEST_WORDS = new Set(('doing like give gives giving show find compute calculate calculation run runs running use using tell ' +
  'about under much many value values result results number numbers s t vs versus again one ' +
  'two three four five six seven eight nine ten simulate simulation model modelling modeling solve solver ' +
  'solution estimate determine what\'s whats it\'s im i\'m').split(/\s+/).filter(Boolean));
/** Whether a lower-case word carries no topic (a function word or a request word). */
export const isDropped = (w: string) => STOP_WORDS.has(w) || REQUEST_WORDS.has(w);

/** Terms of a text: stemmed unigrams plus adjacent bigrams (joined by '_'). */
export function terms(text: string): string[] {
  const uni: string[] = [];
  for (const w of words(text)) {
    if (isDropped(w)) { uni.push(''); continue; }
    if (/^[0-9]+$/.test(w)) { uni.push(''); continue; }
    uni.push(stem(w));
  }
  const out: string[] = [];
  for (let i = 0; i < uni.length; i++) {
    if (!uni[i]) continue;
    out.push(uni[i]);
    if (i + 1 < uni.length && uni[i + 1]) out.push(uni[i] + '_' + uni[i + 1]);
  }
  return out;
}

export interface DispatchIndex {
  names: string[];
  bm25: Bm25Index;
}

const FIELD_WEIGHTS: [keyof SolverDescriptor, number][] = [
  ['name', 3], ['domain', 2], ['vocabulary', 2], ['summary', 1], ['methodDescription', 1], ['examples', 1],
];

/** Builds the BM25 index over the descriptors (the dispatcher itself excluded). */
export function buildIndex(descriptors: SolverDescriptor[]): DispatchIndex {
  const docs = descriptors.filter((d) => !NEVER.has(d.name)).sort((a, b) => a.name.localeCompare(b.name));
  const tf = docs.map((d) => {
    const m = new Map<string, number>();
    for (const [field, weight] of FIELD_WEIGHTS) {
      const v = d[field];
      for (const text of Array.isArray(v) ? v.map(String) : [String(v ?? '')]) termCounts(terms(text), weight, m);
    }
    return m;
  });
  return { names: docs.map((d) => d.name), bm25: new Bm25Index(tf, { k1: K1, b: B }) };
}

export interface Candidate { solver: string; score: number }

export interface Classification {
  ranking: Candidate[];
  /** query terms that occur in at least one solver document */
  matchedTerms: string[];
}

/** Scores every solver against the query; ranking is best first, ties broken by name. */
export function classify(index: DispatchIndex, query: string): Classification {
  const N = index.names.length;
  const matched: string[] = [];
  const scores = new Float64Array(N);
  for (const [t, qtf] of termCounts(terms(query))) {
    if (index.bm25.docFrequency(t) === 0) continue;
    matched.push(t);
    // bigrams count double: a phrase match is stronger evidence than its words apart
    const phrase = t.includes('_') ? 2 : 1;
    for (let i = 0; i < N; i++) scores[i] += phrase * index.bm25.termScore(t, i) * Math.min(qtf, 3);
  }
  const ranking = index.names.map((solver, i) => ({ solver, score: Math.round(scores[i] * 1e6) / 1e6 }))
    .sort((a, b) => b.score - a.score || a.solver.localeCompare(b.solver));
  return { ranking, matchedTerms: matched };
}

/** Written forms that only one solver reads, whatever the words around them: a first-order
 * derivative equation ("x' = v", "dN/dt = -k*N") is a right-hand side for svc_ode; "fit … to the
 * data (points, measurements)" is a model fitted to data, svc_fit (an SIR/SEIR epidemic fitted
 * to case counts stays with svc_epi's words). */
export const FORM_CUES: [RegExp, string][] = [
  [/(?:\bd[A-Za-z_]\w*\s*\/\s*dt|\b[A-Za-z_]\w*\s*')\s*=/, 'ode'],
  // "fit <model> to the data / points / measurements": a model fitted to data is svc_fit's
  [/\bfit(?:ting)?\s+(?!(?:an?\s+|the\s+)?(?:sir|seir|epidemic)\b)[^.;]*?\bto\s+(?:the\s+|my\s+|our\s+|these\s+|this\s+|some\s+)?(?:data|points|data\s+points|measurements|observations)\b/i, 'fit'],
];

/** Classifies and refuses a query that matches nothing well (400 with the top candidates). */
export function chooseSolver(index: DispatchIndex, query: string): { solver: string; ranking: Candidate[]; matchedTerms: string[] } {
  const c = classify(index, query);
  const cue = FORM_CUES.find(([re, name]) => re.test(query) && index.names.includes(name));
  if (cue) return { solver: cue[1], ranking: c.ranking, matchedTerms: c.matchedTerms };
  const top = c.ranking[0], second = c.ranking[1];
  const weak = !top || top.score < REFUSE_BELOW;
  const ambiguous = !weak && top.score < CLEAR_ABOVE && !!second && top.score - second.score < AMBIGUOUS_MARGIN * top.score;
  if (weak || ambiguous) {
    const why = weak
      ? `does not clearly match any solver (best: ${top ? `${top.solver} at ${top.score.toFixed(2)}` : 'none'}, needs ${REFUSE_BELOW})`
      : `is ambiguous between ${top.solver} (${top.score.toFixed(2)}) and ${second.solver} (${second.score.toFixed(2)})`;
    throw new SvcError('INVALID_INPUT', `the request ${why}; name the problem more specifically or call a solver directly`, {
      issues: [{ path: 'query', message: weak ? 'no solver matches this request well enough' : 'the request matches several solvers equally' }],
      details: { candidates: c.ranking.slice(0, 5), matchedTerms: c.matchedTerms, threshold: REFUSE_BELOW },
    });
  }
  return { solver: top.solver, ranking: c.ranking, matchedTerms: c.matchedTerms };
}

/** The keys of a descriptor's input schema. */
export function schemaKeys(d: SolverDescriptor): string[] {
  const s: any = d.input;
  return Object.keys(s.shape ?? s._zod?.def?.shape ?? {});
}

/** `key = number` pairs written in a query ("n=50, alpha = 4.2"). */
export function numbersInQuery(query: string): Record<string, number> {
  const out: Record<string, number> = {};
  const re = /\b([A-Za-z][A-Za-z0-9_]{0,31})\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/g;
  for (const m of query.matchAll(re)) {
    const v = Number(m[2]);
    if (Number.isFinite(v)) out[m[1]] = v;
  }
  return out;
}

/** Maps numeric inputs onto the target's fields: exact key, else a unique case-insensitive
 *  match; everything else is dropped and listed. */
export function mapInputs(inputs: Record<string, number>, d: SolverDescriptor): { mapped: Record<string, number>; dropped: string[] } {
  const keys = schemaKeys(d);
  const mapped: Record<string, number> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(inputs)) {
    let target: string | undefined = keys.includes(k) ? k : undefined;
    if (!target) {
      const ci = keys.filter((x) => x.toLowerCase() === k.toLowerCase());
      if (ci.length === 1) target = ci[0];
    }
    if (target && typeof v === 'number' && Number.isFinite(v)) mapped[target] = v;
    else dropped.push(k);
  }
  return { mapped, dropped };
}

/** Every solver descriptor the engine loads. */
export async function loadDescriptors(): Promise<SolverDescriptor[]> {
  return (await loadSolvers()).map((s) => s.descriptor);
}
