// Conditions of plain-English contract clauses → guard expressions (used by generate.ts).
//
// A condition ("the buyer confirms delivery", "not delivered within 7 days", "more than 3
// samples fail", "both the landlord and the tenant sign", "30 days pass without a reply") is
// parsed into a small boolean tree over contract variables and the builtin `elapsed` (seconds in
// the current state), put in negation normal form, and rendered as a sandbox expression. The
// rules that keep the meaning:
//
// - Negation: "unless", "except if", "not", "never", "no …", "nobody", "fails to", "does not",
//   "cannot", "without X" and "neither … nor" negate what they govern; negations compose (an
//   "unless" over "is not delivered" is "delivered"). A negated comparison is the inverse
//   comparison ("not more than 3" → `<= 3`), so no `not` ever sits in front of a relation
//   (mathjs binds `not` tighter than `>`).
// - Comparisons: "more than", "over", "exceeds" → `>`; "at least", "no fewer than", "N or more"
//   → `>=`; "less than", "fewer than", "under" → `<`; "at most", "no more than", "up to",
//   "N or fewer" → `<=`; "exactly", "equal to" → `==`; "between A and B" → `>= A and <= B`.
//   The variable is named from the words around the number ("more than 3 samples fail" →
//   `samplesFail`), with the unit when there is one (`delayHours`, `discountPercent`).
// - Time: "within N units" inside a condition is a window on the condition. When the condition
//   is an achievement ("the buyer confirms within 7 days", "at least 100 register within 30
//   days") it must hold while `elapsed <= N`; when it is a failure ("is not delivered within 7
//   days", "fewer than 20 register within 30 days") it can only be judged once the window is
//   over, so it holds when `elapsed > N`. "after N units", "N units pass", "at least N units"
//   give `elapsed >= N`.
// - Roles: a condition's facts are named with the party that performs them ("the buyer approves"
//   → `buyerApproves`, distinct from `sellerApproves`); "both A and B sign" gives one fact per
//   party joined with `and`, "A or B objects" joins them with `or`.
// - One fact, one variable: a boolean condition whose words (stemmed) are a subset of an earlier
//   fact's words is that fact ("not delivered" after "the buyer confirms delivery" reads
//   `buyerConfirmsDelivery`), unless the two name different parties. Numeric facts of the same
//   name are one variable.
import { STOP_WORDS, stem } from '../core/text.ts';
import { BUILTIN_SYMBOLS, VAR_NAME_RE, isReservedVariableName, type VarValue } from './definition.ts';
import {
  BASE_OF, COMPARISONS, CURRENCY_WORDS, NOUN_VERB, NUMBER_WORD_ALT, PARTICIPLE, ROLES, UNIT_ALT, numberValue, unitSeconds, verbBase,
} from './lexicon.ts';

export type Cmp = '>' | '>=' | '<' | '<=' | '==' | '!=';
export type TimeOp = '>' | '>=' | '<' | '<=';

/** A condition tree. `time` is a bound on `elapsed`. */
export type G =
  | { k: 'var'; name: string }
  | { k: 'cmp'; name: string; op: Cmp; n: number }
  | { k: 'is'; name: string; value: string }
  | { k: 'time'; op: TimeOp; s: number }
  | { k: 'not'; a: G }
  | { k: 'and' | 'or'; a: G[] };

/** A fact of a condition: its variable, the stems of its words and of its action words (verbs
 * and step nouns: "delivered", "delivery" → deliver), its parties, and its polarity. */
export interface Atom { variable: string; stems: string[]; actions: string[]; roles: string[]; negated: boolean }

export interface ParsedCondition {
  text: string;
  /** negation normal form */
  tree: G;
  guard: string;
  /** the condition is negative as written (unless, not, never, fails to, without, no …) */
  negated: boolean;
  variables: string[];
  /** initial values of the variables it introduces */
  init: Record<string, VarValue>;
  /** values that make the guard pass (time bounds aside) / block */
  pass: Record<string, VarValue>;
  fail: Record<string, VarValue>;
  /** seconds in the state before the guard can pass (0: none) */
  minWait: number;
  /** seconds in the state after which the guard can no longer pass (null: none) */
  maxTime: number | null;
  /** the time phrase inside the condition, if any */
  window?: { text: string; seconds: number; kind: 'deadline' | 'timeout' | 'wait' };
  roles: string[];
  atoms: Atom[];
}

const INVERSE: Record<Cmp, Cmp> = { '>': '<=', '>=': '<', '<': '>=', '<=': '>', '==': '!=', '!=': '==' };
const TIME_INVERSE: Record<TimeOp, TimeOp> = { '>': '<=', '>=': '<', '<': '>=', '<=': '>' };

// ------------------------------------------------------------------------------------------
// Trees

/** Negation normal form: `not` only in front of a boolean variable or a string test. */
export function nnf(g: G, neg = false): G {
  switch (g.k) {
    case 'not': return nnf(g.a, !neg);
    case 'and': case 'or': {
      const k = neg ? (g.k === 'and' ? 'or' : 'and') : g.k;
      const a: G[] = [];
      for (const x of g.a.map((y) => nnf(y, neg))) { if (x.k === k) a.push(...x.a); else a.push(x); }
      return a.length === 1 ? a[0] : { k, a };
    }
    case 'cmp': return neg ? { ...g, op: INVERSE[g.op] } : g;
    case 'time': return neg ? { ...g, op: TIME_INVERSE[g.op] } : g;
    default: return neg ? { k: 'not', a: g } : g;
  }
}

export function and(...gs: (G | null | undefined)[]): G | null {
  const a = gs.filter((g): g is G => !!g);
  if (!a.length) return null;
  return a.length === 1 ? a[0] : nnf({ k: 'and', a });
}

/** The sandbox expression of a tree in negation normal form. */
export function render(g: G): string {
  switch (g.k) {
    case 'var': return g.name;
    case 'is': return `${g.name} == ${JSON.stringify(g.value)}`;
    case 'cmp': return `${g.name} ${g.op} ${g.n}`;
    case 'time': return `elapsed ${g.op} ${g.s}`;
    case 'not':
      if (g.a.k === 'var') return `not ${g.a.name}`;
      if (g.a.k === 'is') return `${g.a.name} != ${JSON.stringify(g.a.value)}`;
      return `not (${render(g.a)})`;
    case 'and': case 'or':
      return g.a.map((x) => (x.k === 'and' || x.k === 'or' ? `(${render(x)})` : render(x))).join(` ${g.k} `);
  }
}

function variablesOf(g: G, out: string[] = []): string[] {
  if (g.k === 'var' || g.k === 'cmp' || g.k === 'is') { if (!out.includes(g.name)) out.push(g.name); }
  else if (g.k === 'not') variablesOf(g.a, out);
  else if (g.k === 'and' || g.k === 'or') for (const x of g.a) variablesOf(x, out);
  return out;
}

function negatedIn(g: G, name: string): boolean {
  if (g.k === 'not') return (g.a.k === 'var' || g.a.k === 'is') && g.a.name === name;
  if (g.k === 'and' || g.k === 'or') return g.a.some((x) => negatedIn(x, name));
  return false;
}

function decimals(n: number): number { return (String(n).split('.')[1] ?? '').length; }

/** A value on either side of a comparison: the bound itself when it is included, else the next
 * value at the precision the bound was written with. */
function cmpValue(op: Cmp, n: number, want: boolean): number {
  const d = decimals(n);
  const step = Number.isInteger(n) ? 1 : Math.pow(10, -d);
  const up = Number((n + step).toFixed(d));
  const down = Number((n - step).toFixed(d));
  const sat: Record<Cmp, number> = { '>=': n, '<=': n, '>': up, '<': down, '==': n, '!=': up };
  const unsat: Record<Cmp, number> = { '>=': down, '<=': up, '>': n, '<': n, '==': up, '!=': n };
  return want ? sat[op] : unsat[op];
}

function cmpHolds(x: number, op: Cmp, n: number): boolean {
  switch (op) {
    case '>': return x > n;
    case '>=': return x >= n;
    case '<': return x < n;
    case '<=': return x <= n;
    case '==': return x === n;
    case '!=': return x !== n;
  }
}

/** Variable values that make the tree `want` (time bounds are left to the clock). */
export function assignment(g: G, want: boolean, out: Record<string, VarValue> = {}): Record<string, VarValue> {
  switch (g.k) {
    case 'var': out[g.name] = want; break;
    case 'is': out[g.name] = want ? g.value : ''; break;
    case 'cmp': {
      // keep a value already chosen for this variable when it sides right here too ("between")
      const cur = out[g.name];
      if (typeof cur !== 'number' || cmpHolds(cur, g.op, g.n) !== want) out[g.name] = cmpValue(g.op, g.n, want);
      break;
    }
    case 'time': break;
    case 'not': assignment(g.a, !want, out); break;
    case 'and': case 'or': {
      const all = (g.k === 'and') === want;
      const parts = g.a.filter((x) => x.k !== 'time');
      if (all) for (const x of parts) assignment(x, want, out);
      else if (parts.length) {
        assignment(parts[0], want, out);
        // the others on the opposite side, so that the first decides (never overriding it)
        const rest: Record<string, VarValue> = {};
        for (const x of parts.slice(1)) assignment(x, !want, rest);
        for (const [k, v] of Object.entries(rest)) if (!Object.hasOwn(out, k)) out[k] = v;
      }
      break;
    }
  }
  return out;
}

/** Bounds on `elapsed` the tree requires (top-level conjuncts only). */
function timeBounds(g: G): { min: number; max: number | null } {
  const parts = g.k === 'and' ? g.a : [g];
  let min = 0;
  let max: number | null = null;
  for (const x of parts) {
    if (x.k !== 'time') continue;
    if (x.op === '>=') min = Math.max(min, x.s);
    if (x.op === '>') min = Math.max(min, x.s + 1);
    if (x.op === '<=') max = max === null ? x.s : Math.min(max, x.s);
    if (x.op === '<') max = max === null ? x.s - 0.001 : Math.min(max, x.s - 0.001);
  }
  return { min, max };
}

/** True when the condition states a failure (a negated fact, an upper bound on a count): judged
 * only once a window is over. */
function isFailure(g: G): boolean {
  const leaves = (x: G): G[] => (x.k === 'and' || x.k === 'or' ? x.a.flatMap(leaves) : [x]);
  const ls = leaves(g).filter((x) => x.k !== 'time');
  return ls.length > 0 && ls.every((x) => x.k === 'not' || (x.k === 'cmp' && (x.op === '<' || x.op === '<=')));
}

// ------------------------------------------------------------------------------------------
// Words

function camel(words: string[]): string {
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

export function contentWords(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z0-9\s-]/g, ' ').split(/[\s-]+/).filter((w) => w && !STOP_WORDS.has(w) && !/^\d/.test(w));
}

/** Stems of the words, verb forms and step nouns folded ("delivered", "delivery" → deliver). */
export function stemsOf(words: string[]): string[] {
  return [...new Set(words.filter((w) => w.length > 1).map((w) => stem((Object.hasOwn(NOUN_VERB, w) ? NOUN_VERB[w] : undefined) ?? verbBase(w) ?? w)))];
}

/** Stems of the words that name an action (a verb form or a step noun), parties left out. */
export function actionStems(words: string[]): string[] {
  return stemsOf(words.filter((w) => !roleOf(w) && (Object.hasOwn(NOUN_VERB, w) || verbBase(w) !== undefined)));
}

export function roleOf(word: string): string | undefined {
  const w = word.toLowerCase();
  if (ROLES.has(w)) return w;
  if (w.endsWith('ies') && ROLES.has(w.slice(0, -3) + 'y')) return w.slice(0, -3) + 'y';
  if (w.endsWith('s') && ROLES.has(w.slice(0, -1))) return w.slice(0, -1);
  return undefined;
}

function rolesIn(words: string[]): string[] {
  return [...new Set(words.map(roleOf).filter((r): r is string => !!r))];
}

function thirdPerson(v: string): string {
  if (/(s|sh|ch|x|z|o)$/.test(v)) return v + 'es';
  if (/[^aeiou]y$/.test(v)) return v.slice(0, -1) + 'ies';
  return v + 's';
}

// ------------------------------------------------------------------------------------------
// Variables

/** The variables of one generated contract: names are unique and typed; one fact is one
 * variable (see the head comment). */
export class VarRegistry {
  readonly types = new Map<string, 'boolean' | 'number' | 'string'>();
  private readonly facts: { name: string; stems: Set<string>; roles: Set<string> }[] = [];

  readonly taken: Set<string>;

  constructor(taken: Set<string>) { this.taken = taken; }

  private fresh(words: string[], fallback: string): string {
    let base = camel(words.slice(0, 4)) || fallback;
    if (!/^[a-z_]/i.test(base)) base = 'v' + base;
    base = base.slice(0, 48);
    if (base in BUILTIN_SYMBOLS || isReservedVariableName(base) || ['true', 'false', 'not', 'and', 'or', 'e', 'pi', 'i', 'actor'].includes(base)) base = base + 'Flag';
    let name = base;
    for (let k = 2; this.taken.has(name); k++) name = `${base}${k}`;
    if (!VAR_NAME_RE.test(name)) name = `${fallback}${this.taken.size + 1}`;
    this.taken.add(name);
    return name;
  }

  /** The boolean variable of a fact, reusing an earlier fact with the same or a wider set of
   * words (not one named in `exclude`, the other facts of the same condition). */
  bool(words: string[], exclude: Set<string>): { name: string; stems: string[]; roles: string[] } {
    const stems = stemsOf(words);
    const roles = rolesIn(words);
    const s = new Set(stems);
    const r = new Set(roles);
    if (s.size) {
      for (const f of this.facts) {
        if (exclude.has(f.name)) continue;
        const [small, big, smallRoles, bigRoles] = s.size <= f.stems.size ? [s, f.stems, r, f.roles] : [f.stems, s, f.roles, r];
        if (![...small].every((x) => big.has(x))) continue;
        // "the buyer signs" is not "the agent of the buyer signs"; a fact with no party may be
        // the same fact as one that names its party
        const bigRoleStems = new Set([...bigRoles].map(stem));
        if (smallRoles.size && [...big].some((x) => !small.has(x) && bigRoleStems.has(x))) continue;
        return { name: f.name, stems, roles };
      }
    }
    const name = this.fresh(words, 'condition');
    this.types.set(name, 'boolean');
    this.facts.push({ name, stems: s, roles: r });
    return { name, stems, roles };
  }

  num(words: string[]): string {
    const base = camel(words.slice(0, 4));
    if (base && this.types.get(base) === 'number') return base;
    const name = this.fresh(words, 'amount');
    this.types.set(name, 'number');
    return name;
  }

  str(name: string): string {
    if (this.types.get(name) === 'string') return name;
    const n = this.taken.has(name) ? this.fresh([name], name) : (this.taken.add(name), name);
    this.types.set(n, 'string');
    return n;
  }

  initial(name: string): VarValue {
    const t = this.types.get(name);
    return t === 'number' ? 0 : t === 'string' ? '' : false;
  }
}

// ------------------------------------------------------------------------------------------
// Parsing

const NUM = `(?:[$€£]\\s*)?(-?\\b\\d[\\d,]*(?:\\.\\d+)?|\\b(?:${NUMBER_WORD_ALT})\\b)`;
const DEADLINE_IN = new RegExp(`\\b(?:within|in less than|inside(?: of)?|no later than|before)\\s+(?:the next\\s+|the first\\s+)?${NUM}\\s+(${UNIT_ALT})\\b`);
const WAIT_IN = new RegExp(`\\b(?:after|at least)\\s+${NUM}\\s+(${UNIT_ALT})\\b(?!\\s+old\\b)|\\b(?:(?:more than|over|at least)\\s+)?${NUM}\\s+(${UNIT_ALT})\\s+(?:have |has )?(?:passed|passes|pass|elapsed?|elapses|gone by|goes by|go by|later)\\b`);

/** Expands contractions and drops punctuation a condition does not need. */
export function normalise(text: string): string {
  return text.toLowerCase()
    .replace(/[’']/g, "'")
    .replace(/'s\b/g, '')
    .replace(/\bcan't\b/g, 'can not').replace(/\bwon't\b/g, 'will not').replace(/\bcannot\b/g, 'can not')
    .replace(/\b(\w+)n't\b/g, '$1 not')
    .replace(/(\d),(\d{3})\b/g, '$1$2')
    .replace(/[^a-z0-9$€£%.,\s-]/g, ' ')
    .replace(/\.(?!\d)/g, ' ')
    .replace(/,/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Words that add nothing to a fact's name ("still unresolved", "already paid"). */
const FILLER = new Set(['still', 'yet', 'already', 'actually', 'fully', 'duly', 'properly', 'successfully', 'ever']);

/** Verbs of movement of a quantity ("drops below 20", "rises above 5"): not part of its name. */
const MOTION = new Set(['drops', 'drop', 'falls', 'fall', 'rises', 'rise', 'goes', 'go', 'gets', 'get', 'climbs', 'climb', 'reaches', 'reach', 'stays', 'stay', 'remains', 'remain', 'is', 'are', 'becomes', 'become', 'totals', 'amounts', 'comes', 'come', 'runs', 'run']);

interface Ctx { reg: VarRegistry; names: Set<string>; atoms: Atom[]; negated: boolean }

/** Words that make a part of a condition a predicate (not a bare subject such as "the landlord"). */
const AUX = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'has', 'have', 'had', 'does', 'do', 'did', 'will', 'would', 'shall', 'should', 'can', 'could', 'may', 'might', 'must', 'not', 'never', 'fails', 'fail', 'failed']);

function predicateStart(words: string[]): number {
  const role = words.findIndex((w) => !!roleOf(w));
  return words.findIndex((w, i) => AUX.has(w) || (!STOP_WORDS.has(w) && !roleOf(w) && (i > 0 || verbBase(w) !== w) && (verbBase(w) !== undefined || (role >= 0 && i > role)))
    || COMPARISONS.some(([p]) => (words.slice(i).join(' ') + ' ').startsWith(p + ' ')) || /^\d/.test(w));
}

function isBare(part: string): boolean {
  const words = part.split(' ').filter(Boolean);
  return words.length > 0 && words.length <= 4 && predicateStart(words) < 0 && !/^(?:not?|never|without|nobody)\b/.test(part);
}

/** "the landlord and the tenant sign" → ["the landlord sign", "the tenant sign"]; a bare last part
 * ("delivery and quality") stays with the part before it. */
function distribute(parts: string[], joiner: string): string[] {
  const out = [...parts];
  for (let i = out.length - 2; i >= 0; i--) {
    if (!isBare(out[i]) || isBare(out[i + 1])) continue;
    const next = out[i + 1].split(' ');
    const p = predicateStart(next);
    if (p > 0) out[i] = `${out[i]} ${next.slice(p).join(' ')}`;
  }
  const merged: string[] = [];
  for (const p of out) {
    if (merged.length && isBare(p)) { merged[merged.length - 1] += ` ${joiner} ${p}`; continue; }
    // "the client signs the contract and pays the deposit": the second fact has the same party
    const words = p.split(' ');
    const prevWords = merged.at(-1)?.split(' ') ?? [];
    const ps = predicateStart(prevWords);
    const verbFirst = AUX.has(words[0]) || (!STOP_WORDS.has(words[0]) && !roleOf(words[0]) && verbBase(words[0]) !== undefined);
    if (merged.length && verbFirst && ps > 0 && prevWords.slice(0, ps).some((w) => roleOf(w))) {
      merged.push(`${prevWords.slice(0, ps).join(' ')} ${p}`);
      continue;
    }
    merged.push(p);
  }
  return merged;
}

function parseExpr(text: string, ctx: Ctx): G | null {
  let t = text.trim().replace(/^(?:that|whether)\s+/, '');
  if (!t) return null;
  // "N or more" / "N or fewer" / "greater than or equal to" before splitting at "or"
  t = t.replace(/\b(?:greater|more|higher) than or equal to\b/g, 'at least').replace(/\b(?:less|fewer|lower) than or equal to\b/g, 'at most')
    .replace(OR_MORE_RE, (_m, n, w) => `at least ${n}${w ?? ''}`)
    .replace(OR_FEWER_RE, (_m, n, w) => `at most ${n}${w ?? ''}`)
    .replace(BETWEEN_AND_RE, (_m, a, b) => `between ${a} ~ ${b}`);
  // "approved by the manager and the auditor": each agent's own fact
  const passive = /^(.*?)\b(\w+(?:ed|en))\s+by\s+(.+?)\s+(and|or)\s+(.+)$/.exec(t);
  if (passive) {
    const agents = [passive[3], passive[5]].map((x) => x.replace(/^(?:the|a|an)\s+/, ''));
    if (agents.every((x) => x.split(' ').length <= 2 && roleOf(x.split(' ').at(-1)!))) {
      t = agents.map((x) => `${passive[1]}${passive[2]} by the ${x}`.trim()).join(` ${passive[4]} `);
    }
  }
  const neither = /^neither\s+(.+?)\s+nor\s+(.+)$/.exec(t);
  if (neither) {
    ctx.negated = true;
    const parts = distribute([neither[1], neither[2]], 'and');
    const a = parts.map((p) => parseExpr(p, ctx)).filter((x): x is G => !!x);
    return a.length ? nnf({ k: 'and', a: a.map((x) => ({ k: 'not', a: x }) as G) }) : null;
  }
  const ors = distribute(t.replace(/^either\s+/, '').split(/\s+or\s+/), 'or');
  if (ors.length > 1) {
    const a = ors.map((p) => parseExpr(p, ctx)).filter((x): x is G => !!x);
    return a.length ? nnf({ k: 'or', a }) : null;
  }
  const ands = distribute(t.replace(/^both\s+/, '').split(/\s+and\s+/), 'and');
  if (ands.length > 1) {
    const a = ands.map((p) => parseAtom(p, ctx)).filter((x): x is G => !!x);
    return a.length ? nnf({ k: 'and', a }) : null;
  }
  return parseAtom(t, ctx);
}

function parseAtom(raw: string, ctx: Ctx): G | null {
  let text = raw.trim().replace(/^(?:that|whether|if)\s+/, '');
  if (!text) return null;
  // "X without Y": X and not Y
  const without = /^(.*?)\s*\bwithout\s+(.+)$/.exec(text);
  if (without) {
    ctx.negated = true;
    const left = without[1].trim() ? parseAtom(without[1], ctx) : null;
    const right = parseAtom(without[2], ctx);
    return and(left, right ? nnf(right, true) : null);
  }
  const cmp = parseComparison(text, ctx);
  if (cmp) return cmp;

  // negations: count them, strip them, and name the fact from what is left
  let neg = 0;
  let words = text.split(' ').filter(Boolean);
  if (words[0] === 'there' && /^(is|are|was|were)$/.test(words[1] ?? '')) words = words.slice(2);
  const out: string[] = [];
  let inflectNext = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const nx = words[i + 1];
    if (/^(fails?|failed|failing|neglects?|neglected|omits?|omitted|refuses?|refused)$/.test(w) && nx === 'to') { neg++; i++; inflectNext = true; continue; }
    if (w === 'not' || w === 'never') { neg++; inflectNext = true; continue; }
    if (i === 0 && (w === 'no' || w === 'none' || w === 'nobody' || w === 'nothing')) {
      neg++;
      if (w === 'none' && nx === 'of') i++;
      if (w === 'nobody') out.push('anyone');
      continue;
    }
    if (w === 'no' && nx === 'one' && i === 0) { neg++; i++; out.push('anyone'); continue; }
    if (w === 'no') { neg++; continue; }
    if (FILLER.has(w)) continue;
    // "unpaid", "unsigned", "undelivered": not paid, not signed, not delivered
    if (/^un[a-z]{3,}$/.test(w) && BASE_OF.has(w.slice(2)) && !BASE_OF.has(w) && !PARTICIPLE.has(w)) { neg++; out.push(w.slice(2)); continue; }
    if (inflectNext && !STOP_WORDS.has(w)) {
      // "does not ship" names the fact "ships"
      inflectNext = false;
      if (PARTICIPLE.has(w) && !roleOf(w)) { out.push(thirdPerson(w)); continue; }
    }
    out.push(w);
  }
  // passive with an agent: "approved by the manager" → "manager approved"
  let joined = out.join(' ');
  const passive = /^(.*?)\b(\w+(?:ed|en))\s+by\s+(?:the\s+|a\s+|an\s+)?(\w+)(.*)$/.exec(joined);
  if (passive && roleOf(passive[3])) joined = `${passive[1]} ${passive[3]} ${passive[2]} ${passive[4]}`;
  const content = contentWords(joined).filter((w) => !/^(anyone|anybody|someone|somebody)$/.test(w) || contentWords(joined).length === 1);
  if (neg % 2 === 1) ctx.negated = true;
  const v = ctx.reg.bool(content.length ? content : ['condition'], ctx.names);
  ctx.names.add(v.name);
  ctx.atoms.push({ variable: v.name, stems: v.stems, actions: actionStems(content), roles: v.roles, negated: neg % 2 === 1 });
  const g: G = { k: 'var', name: v.name };
  return neg % 2 === 1 ? { k: 'not', a: g } : g;
}

const NUM_AFTER = new RegExp(`^\\s*${NUM}\\s*(k\\b|thousand\\b|m\\b|million\\b|bn\\b|billion\\b|%|percent\\b|per cent\\b|${UNIT_ALT})?`);

const COMPARISON_RES: [RegExp, Cmp][] = COMPARISONS.map(([p, op]) => [new RegExp(`\\b${p}\\b`, 'g'), op]);
const OR_MORE_RE = new RegExp(`${NUM}(\\s+[a-z]+)?\\s+or\\s+(more|greater|higher|above|over)\\b`, 'g');
const OR_FEWER_RE = new RegExp(`${NUM}(\\s+[a-z]+)?\\s+or\\s+(fewer|less|lower|below|under)\\b`, 'g');
const BETWEEN_AND_RE = new RegExp(`\\bbetween\\s+${NUM}\\s+and\\s+${NUM}`, 'g');
const BETWEEN_RE = new RegExp(`\\bbetween\\s+${NUM}\\s+~\\s+${NUM}`);
const UNIT_AFTER_RE = new RegExp(`^\\s*(%|percent\\b|per cent\\b|${UNIT_ALT})`);

function parseComparison(text: string, ctx: Ctx): G | null {
  // the earliest comparison phrase followed by a number
  let best: { at: number; len: number; op: Cmp; num: RegExpExecArray } | null = null;
  for (const [re, op] of COMPARISON_RES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const num = NUM_AFTER.exec(text.slice(m.index + m[0].length));
      if (!num || /^(a|an)$/.test(num[1])) continue;
      if (!best || m.index < best.at) best = { at: m.index, len: m[0].length, op, num };
      break;
    }
  }
  const between = BETWEEN_RE.exec(text);
  if (between && (!best || between.index < best.at)) {
    const lo = numberValue(between[1]);
    const hi = numberValue(between[2]);
    if (Number.isFinite(lo) && Number.isFinite(hi)) {
      const before = text.slice(0, between.index);
      let after = text.slice(between.index + between[0].length);
      const u = UNIT_AFTER_RE.exec(after);
      const unit = u ? (/^(%|percent|per cent)$/.test(u[1]) ? 'percent' : unitWord(u[1])) : '';
      if (u) after = after.slice(u[0].length);
      const name = numericName(before, after, unit, ctx);
      const neg = /\b(?:not|no)\s*$/.test(before);
      if (neg) ctx.negated = true;
      const g: G = { k: 'and', a: [{ k: 'cmp', name, op: '>=', n: Math.min(lo, hi) }, { k: 'cmp', name, op: '<=', n: Math.max(lo, hi) }] };
      return nnf(g, neg);
    }
  }
  if (!best) return null;
  let value = numberValue(best.num[1]);
  const scale = (best.num[2] ?? '').trim();
  if (/^(k|thousand)$/.test(scale)) value *= 1000;
  if (/^(m|million)$/.test(scale)) value *= 1e6;
  if (/^(bn|billion)$/.test(scale)) value *= 1e9;
  if (!Number.isFinite(value)) return null;
  let before = text.slice(0, best.at);
  let op = best.op;
  // "not more than", "no fewer than", "does not exceed": the inverse comparison
  const neg = /\b(?:not|no)\s*$/.exec(before);
  if (neg) { op = INVERSE[op]; before = before.slice(0, neg.index); ctx.negated = true; }
  const after = text.slice(best.at + best.len + best.num[0].length);
  const unit = /^(%|percent|per cent)$/.test(scale) ? 'percent'
    : /^years?$/.test(scale) && /^\s*old\b/.test(after) ? 'age'
    : scale && !/^(k|thousand|m|million|bn|billion)$/.test(scale) ? unitWord(scale) : '';
  const name = numericName(before, after, unit, ctx);
  return { k: 'cmp', name, op, n: value };
}

function unitWord(u: string): string {
  const s = u.replace(/s$/, '').replace(/^(business|working) /, '');
  const map: Record<string, string> = { sec: 'seconds', second: 'seconds', min: 'minutes', minute: 'minutes', hr: 'hours', hour: 'hours', day: 'days', week: 'weeks', month: 'months', year: 'years' };
  return map[s] ?? '';
}

function numericName(before: string, after: string, unit: string, ctx: Ctx): string {
  // the words before the comparison name the quantity ("the order total exceeds"); with none, the
  // words after the number do ("more than 3 samples fail")
  const b = contentWords(before).filter((w) => !MOTION.has(w));
  const a = b.length ? [] : contentWords(after).filter((w) => !CURRENCY_WORDS.has(w) && w !== 'old').slice(0, 2);
  const words = [...b, ...a].slice(0, 4);
  if (unit) words.push(unit);
  const name = ctx.reg.num(words.length ? words : ['amount']);
  ctx.names.add(name);
  return name;
}

/** The time phrase of a condition: a window ("within N units") or a waiting period ("after N
 * units", "N units pass"), removed from the text. */
function timePhrase(text: string): { rest: string; window?: { text: string; seconds: number }; wait?: { text: string; seconds: number } } {
  const d = DEADLINE_IN.exec(text);
  if (d) {
    const seconds = Math.round(numberValue(d[1]) * unitSeconds(d[2]));
    if (Number.isFinite(seconds)) return { rest: (text.slice(0, d.index) + ' ' + text.slice(d.index + d[0].length)).replace(/\s+/g, ' ').trim(), window: { text: d[0], seconds } };
  }
  const w = WAIT_IN.exec(text);
  if (w) {
    const seconds = Math.round(numberValue(w[1] ?? w[3]) * unitSeconds(w[2] ?? w[4]));
    if (Number.isFinite(seconds)) return { rest: (text.slice(0, w.index) + ' ' + text.slice(w.index + w[0].length)).replace(/\s+/g, ' ').trim(), wait: { text: w[0], seconds } };
  }
  return { rest: text };
}

/** Parses a condition. `negatedByMarker` is true for "unless" / "except if". */
export function parseCondition(raw: string, negatedByMarker: boolean, reg: VarRegistry): ParsedCondition {
  const ctx: Ctx = { reg, names: new Set(), atoms: [], negated: negatedByMarker };
  let text = normalise(raw);
  const tp = timePhrase(text);
  text = tp.rest;
  // a second time phrase ("after 5 days … within 10 days")
  const tp2 = timePhrase(text);
  text = tp2.rest;
  const window = tp.window ?? tp2.window;
  const wait = tp.wait ?? tp2.wait;
  let tree = parseExpr(text.replace(/^(?:and|but)\s+/, '').replace(/\s+(?:and|but|or)$/, ''), ctx);
  if (tree && negatedByMarker) tree = nnf(tree, true);
  else if (tree) tree = nnf(tree);
  let kind: 'deadline' | 'timeout' | 'wait' | undefined;
  if (window) {
    const failure = tree ? isFailure(tree) : false;
    kind = failure ? 'timeout' : 'deadline';
    tree = and(tree, { k: 'time', op: failure ? '>' : '<=', s: window.seconds });
  }
  if (wait) {
    if (!window) kind = 'wait';
    tree = and(tree, { k: 'time', op: '>=', s: wait.seconds });
  }
  if (!tree) {
    // nothing but words the parser does not read: one fact named from them
    const v = reg.bool(contentWords(text).length ? contentWords(text) : ['condition'], new Set());
    tree = negatedByMarker ? { k: 'not', a: { k: 'var', name: v.name } } : { k: 'var', name: v.name };
    ctx.atoms.push({ variable: v.name, stems: v.stems, actions: actionStems(contentWords(text)), roles: v.roles, negated: negatedByMarker });
  }
  const variables = variablesOf(tree);
  const { min, max } = timeBounds(tree);
  const shown = window ?? wait;
  // an atom's polarity is the one it has in the final tree (after "unless")
  for (const a of ctx.atoms) a.negated = negatedIn(tree, a.variable);
  return {
    text: raw.trim(),
    tree,
    guard: render(tree),
    negated: ctx.negated,
    variables,
    init: Object.fromEntries(variables.map((v) => [v, reg.initial(v)])),
    pass: assignment(tree, true),
    fail: assignment(tree, false),
    minWait: min,
    maxTime: max,
    ...(shown && kind ? { window: { text: shown.text, seconds: shown.seconds, kind } } : {}),
    roles: [...new Set(ctx.atoms.flatMap((a) => a.roles))],
    atoms: ctx.atoms,
  };
}

/** "only the buyer may …": a guard on who acts, over the string variable `actor`. */
export function actorCondition(role: string, reg: VarRegistry): ParsedCondition {
  const name = reg.str('actor');
  const tree: G = { k: 'is', name, value: role };
  return {
    text: `only the ${role}`, tree, guard: render(tree), negated: false, variables: [name], init: { [name]: '' },
    pass: { [name]: role }, fail: { [name]: '' }, minWait: 0, maxTime: null, roles: [role], atoms: [],
  };
}

/** Both conditions (the first one's text and window are kept first). */
export function combine(a: ParsedCondition | undefined, b: ParsedCondition | undefined): ParsedCondition | undefined {
  if (!a || !b) return a ?? b;
  const tree = and(a.tree, b.tree)!;
  const { min, max } = timeBounds(tree);
  const variables = variablesOf(tree);
  return {
    text: `${a.text}; ${b.text}`, tree, guard: render(tree), negated: a.negated || b.negated, variables,
    init: { ...a.init, ...b.init }, pass: assignment(tree, true), fail: assignment(tree, false), minWait: min, maxTime: max,
    ...(a.window ?? b.window ? { window: a.window ?? b.window } : {}),
    roles: [...new Set([...a.roles, ...b.roles])], atoms: [...a.atoms, ...b.atoms],
  };
}

/** The condition without the atoms on `drop` (a fact the state machine already tracks). */
export function withoutVariables(c: ParsedCondition, drop: Set<string>): ParsedCondition {
  const strip = (g: G): G | null => {
    if ((g.k === 'var' || g.k === 'cmp' || g.k === 'is') && drop.has(g.name)) return null;
    if (g.k === 'not') { const a = strip(g.a); return a ? { k: 'not', a } : null; }
    if (g.k === 'and' || g.k === 'or') {
      const a = g.a.map(strip).filter((x): x is G => !!x);
      return a.length ? (a.length === 1 ? a[0] : { k: g.k, a }) : null;
    }
    return g;
  };
  const tree = strip(c.tree);
  if (!tree) return c;
  const variables = variablesOf(tree);
  const { min, max } = timeBounds(tree);
  return {
    ...c, tree, guard: render(tree), variables, init: Object.fromEntries(Object.entries(c.init).filter(([k]) => variables.includes(k))),
    pass: assignment(tree, true), fail: assignment(tree, false), minWait: min, maxTime: max,
    atoms: c.atoms.filter((a) => !drop.has(a.variable)),
  };
}

/** The opposite of a condition's facts, its time bounds left out: the guard of "otherwise …"
 * ("reject the batch if the moisture is above 14 %; otherwise accept it" accepts when the
 * moisture is at most 14 %, whenever that is). Undefined when the condition has no facts. */
export function oppositeFacts(c: ParsedCondition): ParsedCondition | undefined {
  const strip = (g: G): G | null => {
    if (g.k === 'time') return null;
    if (g.k === 'and' || g.k === 'or') {
      const a = g.a.map(strip).filter((x): x is G => !!x);
      return a.length ? (a.length === 1 ? a[0] : { k: g.k, a }) : null;
    }
    return g;
  };
  const facts = strip(c.tree);
  if (!facts) return undefined;
  const tree = nnf(facts, true);
  const variables = variablesOf(tree);
  return {
    text: `otherwise (${c.text})`, tree, guard: render(tree), negated: !c.negated, variables,
    init: Object.fromEntries(Object.entries(c.init).filter(([k]) => variables.includes(k))),
    pass: assignment(tree, true), fail: assignment(tree, false), minWait: 0, maxTime: null, roles: c.roles,
    atoms: c.atoms.map((a) => ({ ...a, negated: negatedIn(tree, a.variable) })),
  };
}
