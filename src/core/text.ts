// The one text toolkit (issue 17 item 6): words, identifier tokens, stop words, a light suffix
// stemmer and a BM25 index. Used by the solver dispatcher (src/ops/dispatch.ts), contract
// generation (src/contracts/generate.ts), operator search (src/operators/search.ts) and domain
// matching (src/operators/match.ts), so that a word means the same thing to all of them.
//
// BM25: Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
// Foundations and Trends in IR 3(4), 2009, eq. 3.15 with the non-negative idf
// log(1 + (N − df + 0.5)/(df + 0.5)) (as Lucene); k1 = 1.2, b = 0.75 by default.

/** English function words: they carry no topic, so no index keys on them. */
export const STOP_WORDS: ReadonlySet<string> = new Set(`
a an the this that these those it its their his her our your my me we they he she you i us them him
is are was were be been being am to of for by with on in at from into onto over per via as up out off
and or nor but so if then than else when once while after before finally first next also too very just
has have had having will shall should must can could may might would do does did done get gets got
all any each every some no not only both either neither such same other another own more most less least
there here where which who whom whose what why how whether
please need needs needed required require requires want wants let lets make sure
someone somebody anyone everything something nothing
`.split(/\s+/).filter(Boolean));

/** Lower-cased words of a text: letters and digits, apostrophes dropped ("it's" → "its"). */
export function words(text: string): string[] {
  return text.toLowerCase().replace(/['’]/g, '').split(/[^a-z0-9]+/).filter(Boolean);
}

/** Lower-cased tokens of identifiers and prose: split on non-alphanumerics; a camelCase word also
 * yields its parts (speedOfLight → speedoflight, speed, of, light), so both spellings find it. */
export function identifierTokens(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    const lower = word.toLowerCase();
    out.push(lower);
    const parts = word.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').toLowerCase().split(' ');
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/** A light suffix stemmer: enough to merge plural and verb forms of one word (minimizes,
 * minimised, minimizing → minimize; running → run; bodies → body). British -ise spellings fold
 * into -ize. Words of three letters or fewer are left alone. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  if (w.endsWith('isation')) w = w.slice(0, -7) + 'ization';
  else if (w.endsWith('ise') && w.length > 5) w = w.slice(0, -3) + 'ize';
  else if (w.endsWith('ised') && w.length > 6) w = w.slice(0, -4) + 'ized';
  else if (w.endsWith('ising') && w.length > 7) w = w.slice(0, -5) + 'izing';
  else if (w.endsWith('iser') && w.length > 6) w = w.slice(0, -4) + 'izer';
  for (const [suf, rep] of STEM_RULES) {
    if (w.endsWith(suf) && w.length - suf.length + rep.length >= 3) {
      const out = w.slice(0, w.length - suf.length) + rep;
      // undouble a final consonant left by -ing/-ed (running → run)
      if ((suf === 'ing' || suf === 'ed') && /([^aeiouls])\1$/.test(out)) return out.slice(0, -1);
      return out;
    }
  }
  return w;
}

const STEM_RULES: [string, string][] = [
  ['izations', 'ize'], ['ization', 'ize'], ['izing', 'ize'], ['ized', 'ize'], ['izer', 'ize'], ['izes', 'ize'],
  ['ational', 'ate'], ['ations', 'ate'], ['ation', 'ate'], ['ators', 'ate'], ['ator', 'ate'],
  ['ically', 'ic'], ['ical', 'ic'], ['ies', 'y'], ['ied', 'y'],
  ['ness', ''], ['ments', 'ment'], ['ings', ''], ['ing', ''], ['edly', ''], ['ed', ''],
  ['sses', 'ss'], ['ss', 'ss'], ['us', 'us'], ['is', 'is'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['es', 'e'], ['s', ''],
];

/** A BM25 index over documents given as term → weight maps (a weight is a term frequency,
 * possibly field-weighted). */
export class Bm25Index {
  readonly size: number;
  private readonly tf: Map<string, number>[];
  private readonly lengths: number[];
  private readonly avgLength: number;
  private readonly df = new Map<string, number>();
  readonly k1: number;
  readonly b: number;

  constructor(docs: Map<string, number>[], opts: { k1?: number; b?: number } = {}) {
    this.k1 = opts.k1 ?? 1.2;
    this.b = opts.b ?? 0.75;
    this.tf = docs;
    this.size = docs.length;
    this.lengths = docs.map((m) => { let s = 0; for (const v of m.values()) s += v; return s; });
    this.avgLength = this.lengths.reduce((s, l) => s + l, 0) / Math.max(1, this.size);
    for (const m of docs) for (const t of m.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** Documents containing the term. */
  docFrequency(term: string): number { return this.df.get(term) ?? 0; }

  /** Inverse document frequency, log(1 + (N − df + 0.5)/(df + 0.5)); 0 for an unknown term. */
  idf(term: string): number {
    const df = this.docFrequency(term);
    return df === 0 ? 0 : Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** BM25 term weight of `term` in document `i` (0 when absent). */
  termScore(term: string, i: number): number {
    const f = this.tf[i].get(term) ?? 0;
    if (!f) return 0;
    const norm = this.k1 * (1 - this.b + (this.b * this.lengths[i]) / this.avgLength);
    return this.idf(term) * ((f * (this.k1 + 1)) / (f + norm));
  }

  /** Whether document `i` contains the term. */
  has(i: number, term: string): boolean { return this.tf[i].has(term); }
}

/** Term → count of a term list. */
export function termCounts(terms: Iterable<string>, weight = 1, into: Map<string, number> = new Map()): Map<string, number> {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + weight);
  return into;
}
