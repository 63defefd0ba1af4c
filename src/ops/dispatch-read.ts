// Reading a plain-English request into the chosen solver's inputs (svc_auto, issue 18 item 4).
//
// The classifier (src/ops/dispatch.ts) says WHICH solver; this module reads WHAT the request asks of
// it: the quantities, options and settings the text names ("strike 110", "volatility 25 %", "put",
// "64 × 64 grid", "β = 2", "up to height 1000"), and refuses a request that names something the
// solver cannot take instead of silently answering a different question.
//
// A deterministic, rule-based reader (no statistics): the text is normalised (Greek letters to their
// names, Unicode minus, superscripts, x(0) → x0) and cut into words, numbers and signs. Numbers are
// read with their form — sign, thousands separators, 1e-8, 2 × 10^5, 8/3, number words ("six",
// "a million"), a k suffix ("200k"), a unit ("60 cm", "6 months", "25 %", "1e22 m^-3") — and then
// claimed by passes in a fixed order, each consuming the tokens it uses:
//   1. solver-specific readers (the ODE solver's equations "y' = -0.5*y, y(0) = 2 … to t = 4",
//      the optimiser's objective "minimise (x-1)^2 + (y+2)^2 from x = 0, y = 0", a DIMACS CNF
//      written inline "p cnf 3 2 1 -2 0 2 3 0");
//   2. refusals the lexicon names, on the rest: the user's own problem that text cannot carry
//      ("this CNF" with no CNF, "my network"), an option the solver lacks ("American", "4-SAT");
//   3. option words: the values of its enum fields and the lexicon's phrases ("closed at one end"
//      → ends open-closed, "Crank-Nicolson" → method implicit, "ground state" → n = 0);
//   4. dimensions ("2-D", "one-dimensional") and grid sizes ("64 × 64 grid" → nx, ny or N);
//   5. "200 steps of 1e-4" (steps and dt), ordinals before a name ("third harmonic" → mode 3);
//   6. a name then a number ("strike 110", "β = 2", "volatility of 25 %", "up to height 1000");
//   7. a number then a name ("500 steps", "a 100-bus system", "30 % volatility", "4 km deep");
//   8. a measured quantity alone, for the one field of its dimension ("a 60 cm tube" → L = 0.6);
//   9. the lexicon's finishing rules (R0 → beta = R0·gamma, "at the money" → K = S0);
//  10. words the solver always implies ("European", "DC", "U(1)", "Re(s) = 1/2"), consumed.
// Names of a field come from the field name (exact, and case-sensitive where two fields differ
// only by case), the leading phrase of its describe() text, a few generic names (steps, dt, seed)
// and the solver's lexicon (src/ops/dispatch-lexicon.ts). A number with a unit is converted to the
// field's unit exactly (dispatch-units.ts); a percentage goes only to a field that is a fraction.
// Anything left is checked: a number that no pass claimed (not a label such as "3-SAT", "U(1)",
// "COVID-19") is refused, as is a named numerical method the solver does not offer; the content
// words no pass used and the solver's own descriptor does not contain are reported as unusedWords.
import type { SolverDescriptor } from '../solvers/types.ts';
import { SvcError } from '../core/errors.ts';
import { stem } from '../core/text.ts';
import { toJsonSchema } from './schema.ts';
import { isDropped } from './dispatch.ts';
import { convert, MULTIPLIERS, ORDINALS, SMALL_NUMBERS, unitAt, unitNamed, type Unit } from './dispatch-units.ts';
import { LEXICON, GENERIC_ALIASES, METHOD_WORDS, type AliasDef, type FieldInfo, type RefusalReason, type SolverLex, type ReadContext } from './dispatch-lexicon.ts';

export type { FieldInfo, RefusalReason };

// ---- text → tokens ----------------------------------------------------------------------------

export interface Tok {
  k: 'w' | 'n' | 'p';
  /** span in the normalised text */
  i: number; j: number;
  /** whitespace (or the start) right before */
  sp: boolean;
  raw: string;
  /** word: lower case and stem */
  w: string; s: string;
  /** number: value; unit read after it; written in words; glued into a label (3-SAT, U(1)) */
  v: number;
  unit?: { unit: Unit; name: string; j: number };
  numWord?: boolean;
  glued?: boolean;
  ordinal?: boolean;
  dim?: boolean;
  used: boolean;
}

const GREEK: Record<string, string> = {
  'α': 'alpha', 'β': 'beta', 'γ': 'gamma', 'δ': 'delta', 'ε': 'epsilon', 'ϵ': 'epsilon', 'ζ': 'zeta', 'η': 'eta', 'θ': 'theta',
  'κ': 'kappa', 'λ': 'lambda', 'μ': 'mu', 'ν': 'nu', 'ξ': 'xi', 'π': 'pi', 'ρ': 'rho', 'σ': 'sigma', 'τ': 'tau', 'φ': 'phi',
  'ϕ': 'phi', 'χ': 'chi', 'ψ': 'psi', 'ω': 'omega', 'Ω': 'Omega', 'Σ': 'Sigma', 'Φ': 'Phi',
};

/** The request in a canonical spelling; every span the reader reports refers to this text. */
export function normalize(q: string): string {
  let s = q.replace(/[’‘`´]/g, "'").replace(/[“”]/g, '"').replace(/[−–—]/g, '-').replace(/[\u00a0\u2009\u202f]/g, ' ');
  s = s.replace(/²/g, '^2').replace(/³/g, '^3').replace(/⁴/g, '^4').replace(/⁻¹/g, '^-1').replace(/⁻²/g, '^-2').replace(/⁻³/g, '^-3');
  s = s.replace(/[µμ](?=(?:m|s|g)\b)/g, 'u');
  s = s.replace(/°\s?C\b/g, ' degC').replace(/℃/g, ' degC');
  s = s.replace(/Δ\s?t\b/g, 'dt').replace(/Δ\s?x\b/g, 'dx').replace(/≤/g, '<=').replace(/≥/g, '>=');
  s = s.replace(/[α-ωΑ-Ωϵϕ]/g, (c) => (GREEK[c] ? ` ${GREEK[c]} ` : c));
  s = s.replace(/\bmu\s*\^\s*2(?![\d.])/g, 'mu2').replace(/\bmu squared\b/gi, 'mu2');
  s = s.replace(/(\w)'s\b/g, '$1');
  s = s.replace(/\b([A-Za-z]\w*)'\(\s*0\s*\)/g, 'd$10').replace(/\b([A-Za-z]\w*)\(\s*0\s*\)/g, '$10');
  s = s.replace(/(\d)\s*[x×X]\s*(?=\d)/g, '$1 × ');
  return s;
}

const TOKEN_RE = /(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?|[A-Za-z_][A-Za-z0-9_]*|\S/g;

export function tokenize(text: string): Tok[] {
  const raw: Tok[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    const t = m[0], i = m.index!;
    const k: Tok['k'] = /^[\d.]/.test(t) && t !== '.' ? 'n' : /^[A-Za-z_]/.test(t) ? 'w' : 'p';
    const w = k === 'w' ? t.toLowerCase() : '';
    raw.push({ k, i, j: i + t.length, sp: i === 0 || /\s/.test(text[i - 1]), raw: t, w, s: k === 'w' ? stem(w) : '', v: k === 'n' ? Number(t.replace(/,/g, '')) : NaN, used: false });
  }
  return combineNumbers(text, raw);
}

const isP = (t: Tok | undefined, c: string) => !!t && t.k === 'p' && t.raw === c;

function merge(toks: Tok[], from: number, to: number, v: number, extra: Partial<Tok> = {}): void {
  const first = toks[from], last = toks[to];
  toks.splice(from, to - from + 1, { ...first, k: 'n', j: last.j, raw: '', v, w: '', s: '', ...extra });
}

function combineNumbers(text: string, toks: Tok[]): Tok[] {
  // a sign: "-1.2" after a space, an opening bracket or an equals sign (not "10-20")
  for (let a = 0; a < toks.length - 1; a++) {
    const t = toks[a], n = toks[a + 1];
    if (isP(t, '-') && n.k === 'n' && !n.sp) {
      const prev = toks[a - 1];
      if (!prev || t.sp || (prev.k === 'p' && '(=,:[<>'.includes(prev.raw))) merge(toks, a, a + 1, -n.v);
    }
  }
  // scientific forms: a × 10^b, 10^b
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n') continue;
    const expAt = (b: number): [number, number] | null => {
      if (!isP(toks[b], '^')) return null;
      const n = toks[b + 1];
      if (n?.k === 'n' && Number.isInteger(n.v)) return [n.v, b + 1];
      if (isP(n, '-') && toks[b + 2]?.k === 'n' && Number.isInteger(toks[b + 2].v)) return [-toks[b + 2].v, b + 2];
      return null;
    };
    if (isP(toks[a + 1], '×') && toks[a + 2]?.k === 'n' && toks[a + 2].v === 10) {
      const e = expAt(a + 3);
      if (e) { merge(toks, a, e[1], Number(`${t.v}e${e[0]}`)); continue; }
    }
    if (t.v === 10) {
      const e = expAt(a + 1);
      if (e) merge(toks, a, e[1], Number(`1e${e[0]}`));
    }
  }
  // fractions written without spaces: 8/3, 1/2
  for (let a = 0; a + 2 < toks.length; a++) {
    const t = toks[a], sl = toks[a + 1], n = toks[a + 2];
    if (t.k === 'n' && isP(sl, '/') && !sl.sp && n.k === 'n' && !n.sp && !(toks[a + 3] && isP(toks[a + 3], '/'))) merge(toks, a, a + 2, t.v / n.v);
  }
  // number words ("six", "twenty-five", "a million", "two hundred"); a multiplier after digits ("2.5 million")
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    const isSmall = (x: Tok | undefined) => !!x && x.k === 'w' && x.w in SMALL_NUMBERS;
    const isMul = (x: Tok | undefined) => !!x && x.k === 'w' && x.w in MULTIPLIERS;
    let b = a, total = 0, cur = 0, any = false, digits = false;
    if (t.k === 'n' && isMul(toks[a + 1])) { cur = t.v; digits = true; b = a + 1; }
    else if (t.k === 'w' && (t.w === 'a' || t.w === 'an') && isMul(toks[a + 1])) { cur = 1; b = a + 1; }
    else if (!isSmall(t)) continue;
    else b = a;
    for (; b < toks.length; b++) {
      const x = toks[b];
      if (isSmall(x)) { cur += SMALL_NUMBERS[x.w]; any = true; }
      else if (isMul(x)) { cur = (cur || 1) * MULTIPLIERS[x.w]; any = true; if (MULTIPLIERS[x.w] >= 1000) { total += cur; cur = 0; } }
      else if (isP(x, '-') && !x.sp && (isSmall(toks[b + 1]) || isMul(toks[b + 1])) && any) continue;
      else break;
      if (digits && b === a) any = true;
    }
    if (!any) continue;
    merge(toks, a, b - 1, total + cur, { numWord: !digits });
  }
  // suffixes glued to digits: 200k, 2M (thousands, millions), 3rd (ordinal), 2D / 2-D (dimension)
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n') continue;
    const n = toks[a + 1];
    if (n?.k === 'w' && !n.sp) {
      if (n.raw === 'k' && !isP(toks[a + 2], '=')) { merge(toks, a, a + 1, t.v * 1000); continue; }
      if (n.raw === 'M') { merge(toks, a, a + 1, t.v * 1e6); continue; }
      if (/^(st|nd|rd|th)$/.test(n.w) && Number.isInteger(t.v)) { merge(toks, a, a + 1, t.v, { ordinal: true }); continue; }
      if (n.w === 'd' && Number.isInteger(t.v)) { merge(toks, a, a + 1, t.v, { dim: true }); continue; }
    }
    if (isP(n, '-') && !n.sp && toks[a + 2]?.k === 'w' && !toks[a + 2].sp && toks[a + 2].w === 'd' && Number.isInteger(t.v)) { merge(toks, a, a + 2, t.v, { dim: true }); continue; }
  }
  // units after numbers, and labels: a number glued into a word (COVID-19, U(1), 3-SAT)
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n' || t.ordinal || t.dim) continue;
    const u = unitAt(text.slice(t.j));
    if (u) t.unit = { unit: u.unit, name: u.name, j: t.j + u.length };
    const prev = toks[a - 1], prev2 = toks[a - 2], next = toks[a + 1];
    if (!t.sp && prev && (prev.k === 'w' || (isP(prev, '-') && !prev.sp && prev2?.k === 'w') || (isP(prev, '(') && !prev.sp && prev2?.k === 'w'))) t.glued = true;
    if (!u && next && !next.sp && (next.k === 'w' || (isP(next, '-') && toks[a + 2]?.k === 'w' && !toks[a + 2].sp))) t.glued = true;
  }
  return toks;
}

// ---- the schema of a solver, as the reader sees it ----------------------------------------------


interface AliasEntry { target: string; words: string[]; stems: string[]; cs: boolean; strict: boolean; post: boolean; ordinal?: number }
interface OptionEntry { words: string[]; stems: string[]; set: Record<string, unknown> }

export interface SolverReader {
  name: string;
  fields: Map<string, FieldInfo>;
  aliases: AliasEntry[];
  options: OptionEntry[];
  lex: SolverLex;
  docStems: Set<string>;
}

const readers = new Map<string, SolverReader>();

function describeUnit(describe: string): Unit | undefined {
  // "(K; default 300)": the unit is what comes before a ';'
  const par = /\(([^()]*)\)/.exec(normalize(describe))?.[1]?.split(';')[0].trim();
  if (par) { try { return unitNamed(par); } catch { /* not a unit */ } }
  if (/\bper day\b/.test(describe)) return unitNamed('/day');
  if (/\bin years\b/.test(describe)) return unitNamed('year');
  return undefined;
}

/** Lower-case words (and stems) of a phrase, as the tokenizer cuts them ('-' and quotes dropped). */
function phraseWords(p: string): { words: string[]; stems: string[] } {
  const toks = tokenize(normalize(p)).filter((t) => t.k !== 'p');
  const words = toks.map((t) => (t.k === 'w' ? t.w : String(t.v)));
  return { words, stems: toks.map((t) => (t.k === 'w' ? t.s : String(t.v))) };
}

/** The reader of a solver: its fields, their names and its option words. */
export function readerFor(d: SolverDescriptor): SolverReader {
  const cached = readers.get(d.name);
  if (cached) return cached;
  const lex: SolverLex = LEXICON[d.name] ?? {};
  const js = toJsonSchema(d.input) as { properties?: Record<string, any> };
  const fields = new Map<string, FieldInfo>();
  for (const [name, p] of Object.entries(js.properties ?? {})) {
    const fl = lex.fields?.[name] ?? {};
    const anyOf: any[] = p.anyOf ?? [];
    let type: FieldInfo['type'] = 'other';
    let values: string[] | undefined;
    if (p.enum && p.enum.every((v: unknown) => typeof v === 'string')) { type = 'enum'; values = p.enum; }
    else if (p.type === 'integer' || (anyOf.length && anyOf.every((a) => a.type === 'integer' || a.const !== undefined && Number.isInteger(a.const)))) type = 'integer';
    else if (p.type === 'number' || (anyOf.length && anyOf.some((a) => a.type === 'number'))) type = 'number';
    else if (p.type === 'boolean') type = 'boolean';
    const describe = String(p.description ?? '');
    // a default the schema leaves to the solver is stated in describe(): "(default 0.1)"
    const stated = /\bdefault (-?\d+(?:\.\d+)?(?:e-?\d+)?)\b/i.exec(describe)?.[1];
    fields.set(name, {
      name, type, values, describe, default: p.default ?? (stated !== undefined && (type === 'number' || type === 'integer') ? Number(stated) : undefined),
      unit: fl.unit ? unitNamed(fl.unit) : type === 'number' ? describeUnit(describe) : undefined,
      percent: !!fl.percent,
      count: fl.count ?? (type === 'integer' && name !== 'seed'),
      byUnit: fl.byUnit,
      implies: fl.implies,
    });
  }
  const aliases: AliasEntry[] = [];
  const lowerNames = [...fields.keys()].map((k) => k.toLowerCase());
  const add = (target: string, def: AliasDef, cs = false) => {
    const o = typeof def === 'string' ? { p: def } : def;
    const { words, stems } = phraseWords(o.p);
    if (!words.length) return;
    aliases.push({ target, words, stems, cs, strict: o.strict ?? (words.length === 1 && words[0].length === 1), post: !!o.post, ordinal: o.ordinal });
  };
  for (const [name, f] of fields) {
    const fl = lex.fields?.[name] ?? {};
    if (f.type === 'other' || f.type === 'boolean') { for (const a of fl.aliases ?? []) add(name, a); continue; }
    if (!fl.noNameAlias && f.type !== 'enum') {
      const clash = lowerNames.filter((x) => x === name.toLowerCase()).length > 1;
      add(name, { p: name, strict: name.length === 1 }, clash);
    }
    if (f.type !== 'enum' && !fl.noDescribe) {
      // "forward run: transmission rate per day (default 0.3)": a mode qualifier before ':' is skipped
      let text = normalize(f.describe);
      const colon = /^([^:(]{1,60}):\s/.exec(text);
      if (colon && /\b(?:run|mode|only|with|system|built-in|given|preset|named|user|synthetic|analytic|network|problem)\b/i.test(colon[1])) text = text.slice(colon[0].length);
      const head = text.split(/[(;:,[]|\s[-—]\s|\s=\s|\s(?:per|in|along|on|at|with|from|for|when|if)\s/)[0].trim().replace(/^(?:the |a |number of |preset only |user mode )/i, '');
      if (head && head.split(/\s+/).length <= 4 && !/^\d/.test(head) && head.toLowerCase() !== name.toLowerCase()) add(name, head);
    }
    for (const a of GENERIC_ALIASES[name] ?? []) add(name, a);
    for (const a of fl.aliases ?? []) add(name, a);
  }
  for (const [pseudo, def] of Object.entries(lex.pseudo ?? {})) for (const a of def.aliases) add(pseudo, a);
  const options: OptionEntry[] = [];
  for (const [name, f] of fields) {
    if (f.type !== 'enum' || lex.fields?.[name]?.noOptions) continue;
    for (const v of f.values!) options.push({ ...phraseWords(v), set: { [name]: v } });
  }
  for (const [p, set] of lex.options ?? []) options.push({ ...phraseWords(p), set });
  const docText = [d.name, d.domain, d.method, d.methodDescription, d.summary, ...d.vocabulary, ...d.examples,
    ...[...fields.values()].flatMap((f) => [f.describe, ...(f.values ?? [])])].join(' ');
  const docStems = new Set(tokenize(normalize(docText)).filter((t) => t.k === 'w').map((t) => t.s));
  const r: SolverReader = { name: d.name, fields, aliases, options, lex, docStems };
  readers.set(d.name, r);
  return r;
}

// ---- reading ------------------------------------------------------------------------------------

export interface Applied { value: unknown; words: string }

export interface ReadResult {
  /** field → value read from the text, with the words that gave it */
  applied: Record<string, Applied>;
  /** content words no pass used and the solver's descriptor does not contain */
  unusedWords: string[];
}


export function refuseRead(reason: RefusalReason, solver: string, message: string, words: string[], extra: Record<string, unknown> = {}): SvcError {
  return new SvcError('INVALID_INPUT', `svc_auto cannot answer this with ${solver}: ${message}`, {
    issues: [{ path: 'query', message }],
    details: { reason, solver, words, ...extra },
  });
}

const CONNECTORS = new Set(['=', ':', '≈', '~', 'of', 'is', 'at', 'to', 'equal', 'equals', 'be', 'set', 'about', 'around', 'approximately', 'roughly', 'a', 'an', 'the', 'its', 'value', 'exactly']);
const STRICT_CONNECTORS = new Set(['=', ':', '≈', '~', 'is', 'of']);
const FILLERS_MAX = 2;

const pluralOf = (a: string, b: string) => a === b + 's' || b === a + 's' || a === b + 'es' || b === a + 'es'
  || (a.endsWith('ies') && b === a.slice(0, -3) + 'y') || (b.endsWith('ies') && a === b.slice(0, -3) + 'y');

class Reading {
  readonly applied: Record<string, Applied & { i: number; j: number }> = {};
  readonly pseudo: Record<string, Applied & { value: number | boolean }> = {};
  readonly r: SolverReader;
  readonly text: string;
  readonly toks: Tok[];
  constructor(r: SolverReader, text: string, toks: Tok[]) { this.r = r; this.text = text; this.toks = toks; }

  span(a: number, b: number): string { return this.text.slice(a, b).trim(); }

  /** Records field = value (refusing a different value for a field already set). */
  set(field: string, value: unknown, words: string, i: number, j: number): void {
    if (field.startsWith('@')) {
      const prev = this.pseudo[field];
      if (prev && prev.value !== value) throw refuseRead('CONFLICTING_VALUES', this.r.name, `the request gives two values for ${field.slice(1)}: ${prev.value} ('${prev.words}') and ${value} ('${words}')`, [prev.words, words]);
      this.pseudo[field] = { value: value as number, words };
      return;
    }
    const f = this.r.fields.get(field);
    if (!f) throw new Error(`dispatch lexicon of ${this.r.name} names no field '${field}'`);
    const prev = this.applied[field];
    if (prev && !Object.is(prev.value, value) && JSON.stringify(prev.value) !== JSON.stringify(value)) {
      throw refuseRead('CONFLICTING_VALUES', this.r.name, `the request gives two values for ${field}: ${JSON.stringify(prev.value)} ('${prev.words}') and ${JSON.stringify(value)} ('${words}')`, [prev.words, words]);
    }
    if (prev) { if (!prev.words.includes(words)) prev.words += `; ${words}`; }
    else this.applied[field] = { value, words, i, j };
    for (const [k, v] of Object.entries(f.implies ?? {})) if (this.applied[k] === undefined) this.set(k, v, words, i, j);
  }

  use(a: number, b: number): void { for (let x = a; x <= b; x++) this.toks[x].used = true; }

  /** Marks the tokens inside the character span [i, j) used. */
  useSpan(i: number, j: number): void { for (const t of this.toks) if (t.i >= i && t.j <= j) t.used = true; }

  /** Index of the token after a number's unit. */
  afterUnit(a: number): number {
    const t = this.toks[a];
    if (!t.unit) return a + 1;
    let b = a + 1;
    while (b < this.toks.length && this.toks[b].i < t.unit.j) b++;
    return b;
  }

  /** The phrase `words` matched at token a, skipping '-' between words: [end index, exact words] or null. */
  match(a: number, e: { words: string[]; stems: string[]; cs?: boolean }, raw?: string): [number, number] | null {
    let t = a, exact = 0;
    for (let k = 0; k < e.words.length; k++) {
      if (k > 0) while (isP(this.toks[t], '-') || isP(this.toks[t], "'") || isP(this.toks[t], '/')) t++;
      const tok = this.toks[t];
      if (!tok || tok.used) return null;
      if (tok.k === 'w') {
        if (e.cs) { if (tok.raw !== raw) return null; exact++; }
        else if (tok.w === e.words[k]) exact++;
        // stems merge word forms inside a phrase ("measurement sweeps"); a one-word name takes
        // only its plural or singular ("sweep"/"sweeps"), not other forms ("infects" is not "infected")
        else if (!(tok.s === e.stems[k] && tok.s.length > 2 && (e.words.length > 1 || pluralOf(tok.w, e.words[k])))) return null;
      } else if (tok.k === 'n' && !tok.unit && String(tok.v) === e.words[k]) exact++;
      else return null;
      t++;
    }
    return [t, exact];
  }

  /** The value of number token t for field f, converted to its unit; refuses a unit of the wrong kind. */
  valueFor(t: Tok, f: FieldInfo, words: string): number {
    if (t.unit) {
      const u = t.unit.unit;
      if (u.dim === 'fraction') {
        if (!f.percent) throw refuseRead('UNIT_MISMATCH', this.r.name, `'${words}' is a percentage, but ${f.name} (${f.describe || f.name}) is not a fraction`, [words]);
        return t.v / 100;
      }
      if (!f.unit || f.unit.dim !== u.dim) {
        throw refuseRead('UNIT_MISMATCH', this.r.name, `'${words}' is in ${t.unit.name}, but ${f.name} (${f.describe || f.name}) ${f.unit ? `is a ${f.unit.dim}` : 'takes no unit'}`, [words]);
      }
      return convert(t.v, u, f.unit);
    }
    return t.v;
  }

  fieldOrPseudo(target: string): FieldInfo {
    if (target.startsWith('@')) {
      const p = this.r.lex.pseudo![target];
      return { name: target.slice(1), type: 'number', describe: p.describe ?? target.slice(1), percent: !!p.percent, count: false, unit: p.unit ? unitNamed(p.unit) : undefined };
    }
    return this.r.fields.get(target)!;
  }

  isSet(target: string): boolean { return target.startsWith('@') ? this.pseudo[target] !== undefined : this.applied[target] !== undefined; }
}

/** Reads `query` for solver `d`: the inputs it names (throws a 400 SvcError for what cannot be mapped). */
export function readQuery(query: string, d: SolverDescriptor): ReadResult {
  const r = readerFor(d);
  const text = normalize(query);
  const toks = tokenize(text);
  const R = new Reading(r, text, toks);
  const lower = text.toLowerCase();
  const ctx: ReadContext = {
    text, lower, solver: r.name,
    set: (field, value, words, i, j) => R.set(field, value, words, i, j),
    useSpan: (i, j) => R.useSpan(i, j),
    refuse: (reason, message, words) => refuseRead(reason, r.name, message, words),
    fields: r.fields,
  };

  // 1. solver-specific readers (equations, objectives, inline DIMACS) take their spans first
  r.lex.parse?.(ctx);
  // 2. refusals the lexicon names, on what the readers left
  const rest = blankUsed(lower, toks);
  for (const [pat, why] of r.lex.structured ?? []) {
    const m = find(rest, pat);
    if (m) throw refuseRead('NEEDS_STRUCTURED_INPUT', r.name, why, [m]);
  }
  for (const [pat, why] of r.lex.unsupported ?? []) {
    const m = find(rest, pat);
    if (m) throw refuseRead('UNSUPPORTED_OPTION', r.name, `'${m}': ${why}`, [m]);
  }
  if (r.lex.requires && !r.lex.requires.fields.some((f) => R.applied[f] !== undefined)) {
    throw refuseRead('NEEDS_STRUCTURED_INPUT', r.name, r.lex.requires.message, []);
  }
  // 3. option words, longest first
  const opts = [...r.options].sort((x, y) => y.words.length - x.words.length);
  for (let a = 0; a < toks.length; a++) {
    let best: { e: OptionEntry; end: number; exact: number } | null = null;
    for (const e of opts) {
      const m = R.match(a, e);
      if (m && (!best || m[0] > best.end || (m[0] === best.end && m[1] > best.exact))) best = { e, end: m[0], exact: m[1] };
    }
    if (!best) continue;
    const words = R.span(toks[a].i, toks[best.end - 1].j);
    for (const [k, v] of Object.entries(best.e.set)) R.set(k, v, words, toks[a].i, toks[best.end - 1].j);
    R.use(a, best.end - 1);
    a = best.end - 1;
  }
  // 4. dimensions and grid sizes
  readDims(R);
  readGrid(R);
  // 5.-7. names with numbers
  readStepsOf(R);
  readOrdinals(R);
  readNameThenNumber(R);
  readNumberThenName(R);
  // 8. a measured quantity alone
  readByUnit(R);
  // 9. finishing rules
  if (r.lex.finish) {
    const defaults = Object.fromEntries([...r.fields.values()].map((f) => [f.name, f.default]));
    for (const [k, v] of Object.entries(r.lex.finish(Object.fromEntries(Object.entries(R.applied).map(([k, a]) => [k, a.value])), R.pseudo, defaults))) {
      if (v.value === undefined) delete R.applied[k];
      else R.set(k, v.value, v.words, 0, 0);
    }
  } else if (Object.keys(R.pseudo).length) throw new Error(`dispatch lexicon of ${r.name} reads ${Object.keys(R.pseudo)} but has no finish rule`);
  // 10. words the solver always implies ("European", "3-SAT", "U(1)"): used, no input
  for (const pat of r.lex.inherent ?? []) {
    if (pat instanceof RegExp) {
      for (const m of lower.matchAll(new RegExp(pat.source, pat.flags.includes('g') ? pat.flags : pat.flags + 'g'))) R.useSpan(m.index!, m.index! + m[0].length);
    } else {
      const ph = phraseWords(pat);
      for (let a = 0; a < toks.length; a++) { const m = R.match(a, ph); if (m) R.use(a, m[0] - 1); }
    }
  }

  for (const [pat, why] of r.lex.ownProblem?.patterns ?? []) {
    const m = pat.exec(rest);
    if (m && !r.lex.ownProblem!.unless.some((f) => R.applied[f] !== undefined)) throw refuseRead('NEEDS_STRUCTURED_INPUT', r.name, why, [m[0]]);
  }
  // what is left: numbers nobody claimed, methods the solver lacks
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n' || t.used || t.glued || t.numWord || t.ordinal) continue;
    if (t.dim) {
      continue; // a dimension the solver has no setting for describes the request, it does not change it
    }
    const before = toks.slice(Math.max(0, a - 3), a).filter((x) => x.k === 'w' && !isDropped(x.w)).map((x) => x.raw);
    const words = R.span(toks[Math.max(0, a - 2)].i, t.unit ? t.unit.j : t.j);
    const named = before.length ? `after '${before.join(' ')}'` : 'with no name before it';
    throw refuseRead('UNMAPPED_QUANTITY', r.name, `the request gives ${R.span(t.i, t.unit ? t.unit.j : t.j)} (${named}), and no input of ${r.name} takes it; its inputs are ${acceptedList(r)}`, [words]);
  }
  for (const m of METHOD_WORDS) {
    const ph = phraseWords(m);
    for (let a = 0; a < toks.length; a++) {
      const hit = R.match(a, ph);
      if (!hit) continue;
      if (ph.stems.every((s) => r.docStems.has(s))) continue;
      const w = R.span(toks[a].i, toks[hit[0] - 1].j);
      throw refuseRead('UNSUPPORTED_OPTION', r.name, `the request asks for '${w}', which ${r.name} does not offer (it uses ${d.method}: ${d.methodDescription})`, [w]);
    }
  }
  const unused: string[] = [];
  for (const t of toks) {
    if (t.k !== 'w' || t.used || isDropped(t.w) || r.docStems.has(t.s) || /^\d/.test(t.w)) continue;
    if (CONNECTORS.has(t.w) || t.w.length < 2 || unused.includes(t.w)) continue;
    unused.push(t.w);
  }
  const applied: Record<string, Applied> = {};
  for (const [k, a] of Object.entries(R.applied)) applied[k] = { value: a.value, words: a.words };
  return { applied, unusedWords: unused };
}

/** The text with the spans of used tokens blanked (same length, so positions still agree). */
function blankUsed(text: string, toks: Tok[]): string {
  let out = text;
  for (const t of toks) if (t.used) out = out.slice(0, t.i) + ' '.repeat(t.j - t.i) + out.slice(t.j);
  return out;
}

function acceptedList(r: SolverReader): string {
  return [...r.fields.values()].filter((f) => f.type === 'number' || f.type === 'integer' || f.type === 'enum')
    .map((f) => (f.describe ? `${f.name} (${f.describe.split(/[;(]/)[0].trim()})` : f.name)).join(', ');
}

function find(lower: string, pat: string | RegExp): string | null {
  if (pat instanceof RegExp) { const m = pat.exec(lower); return m ? m[0] : null; }
  const re = new RegExp(`(?<![a-z0-9])${pat.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s-]+')}(?![a-z0-9])`);
  const m = re.exec(lower);
  return m ? m[0] : null;
}

// ---- the passes ---------------------------------------------------------------------------------

function readDims(R: Reading): void {
  const { toks, r } = R;
  const dims = r.lex.dims;
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    let n: number | null = null, end = a;
    if (t.k === 'n' && t.dim && !t.used) n = t.v;
    else if (t.k === 'n' && !t.used && !t.unit && (toks[a + 1]?.w === 'dimensional' || (isP(toks[a + 1], '-') && toks[a + 2]?.w === 'dimensional'))) { n = t.v; end = isP(toks[a + 1], '-') ? a + 2 : a + 1; }
    if (n === null) continue;
    const words = R.span(t.i, toks[end].j);
    if (!dims) continue;
    if (Array.isArray(dims)) {
      if (!dims.includes(n)) throw refuseRead('UNSUPPORTED_OPTION', r.name, `'${words}': ${r.name} solves ${dims.map((x) => `${x}-D`).join(' or ')} problems only`, [words]);
    } else if ('field' in dims) {
      R.set(dims.field as string, n, words, t.i, toks[end].j);
    } else {
      const set = (dims as Record<number, Record<string, unknown>>)[n];
      if (!set) throw refuseRead('UNSUPPORTED_OPTION', r.name, `'${words}': ${r.name} solves ${Object.keys(dims).map((x) => `${x}-D`).join(' or ')} problems only`, [words]);
      for (const [k, v] of Object.entries(set)) R.set(k, v, words, t.i, toks[end].j);
    }
    R.use(a, end);
  }
}

function readGrid(R: Reading): void {
  const { toks, r } = R;
  const grid = r.lex.grid;
  for (let a = 0; a + 2 < toks.length; a++) {
    const x = toks[a], sep = toks[a + 1], y = toks[a + 2];
    if (x.k !== 'n' || y.k !== 'n' || x.used || y.used || !(isP(sep, '×') || sep.w === 'by')) continue;
    if (!grid) continue;
    let end = a + 2;
    const next = toks[a + 3];
    const gridWord = next && next.k === 'w' && /^(grid|lattice|mesh|cells?|sites?|points?|nodes?|elements?|intervals?|domain|box|plate|membrane|square)$/.test(next.w);
    if (gridWord) end = a + 3;
    const words = R.span(x.i, toks[end].j);
    if (grid.length === 2) { R.set(grid[0], x.v, words, x.i, toks[end].j); R.set(grid[1], y.v, words, x.i, toks[end].j); }
    else if (x.v === y.v) R.set(grid[0], x.v, words, x.i, toks[end].j);
    else throw refuseRead('UNSUPPORTED_OPTION', r.name, `'${words}': ${r.name} takes a square grid (${grid[0]} per side)`, [words]);
    R.use(a, end);
  }
}

/** The best alias starting at token a: [entry, end, exact] (longest, then most exact words). */
function aliasAt(R: Reading, a: number, accept: (e: AliasEntry) => boolean): [AliasEntry, number, number] | null {
  let best: [AliasEntry, number, number] | null = null;
  for (const e of R.r.aliases) {
    if (!accept(e)) continue;
    const m = R.match(a, e, e.cs ? e.words.length === 1 ? R.r.fields.get(e.target)?.name : undefined : undefined);
    if (!m) continue;
    if (!best || m[0] > best[1] || (m[0] === best[1] && m[1] > best[2])) best = [e, m[0], m[1]];
  }
  return best;
}

/** "200 steps of 1e-4 s": the step count and the time step together. */
function readStepsOf(R: Reading): void {
  const { toks, r } = R;
  const dt = r.fields.has('dt') ? 'dt' : r.fields.has('dtSim') ? 'dtSim' : null;
  if (!dt || !r.fields.has('steps')) return;
  for (let a = 0; a + 3 < toks.length; a++) {
    const n = toks[a], w = toks[a + 1], of = toks[a + 2], h = toks[a + 3];
    if (n.k !== 'n' || n.used || n.unit || !Number.isInteger(n.v) || !(w.w === 'steps' || w.w === 'timesteps') || !(of.w === 'of' || of.w === 'at') || h.k !== 'n' || h.used) continue;
    const stop = R.afterUnit(a + 3) - 1;
    const words = R.span(n.i, toks[stop].j);
    R.set('steps', n.v, words, n.i, toks[stop].j);
    R.set(dt, R.valueFor(h, r.fields.get(dt)!, words), words, n.i, toks[stop].j);
    R.use(a, stop);
  }
}

function readOrdinals(R: Reading): void {
  const { toks } = R;
  for (let a = 0; a < toks.length - 1; a++) {
    const t = toks[a];
    let n: number | undefined;
    if (t.k === 'n' && t.ordinal && !t.used) n = t.v;
    else if (t.k === 'w' && !t.used && t.w in ORDINALS) n = ORDINALS[t.w];
    if (n === undefined) continue;
    let b = a + 1;
    if (isP(toks[b], '-')) b++;
    const hit = aliasAt(R, b, (e) => e.ordinal !== undefined);
    if (!hit) continue;
    const [e, end] = hit;
    const words = R.span(t.i, toks[end - 1].j);
    R.set(e.target, n + e.ordinal!, words, t.i, toks[end - 1].j);
    R.use(a, end - 1);
  }
}

function readNameThenNumber(R: Reading): void {
  const { toks } = R;
  for (let a = 0; a < toks.length; a++) {
    if (toks[a].used) continue;
    const hit = aliasAt(R, a, () => true);
    if (!hit) continue;
    const [e, end] = hit;
    const f = R.fieldOrPseudo(e.target);
    if (f.type !== 'number' && f.type !== 'integer') continue;
    // connectors, then the number
    let b = end, strictOk = false, equals = false;
    for (let c = 0; c < 3 && toks[b] && !toks[b].used && (toks[b].k !== 'n') && CONNECTORS.has(toks[b].k === 'w' ? toks[b].w : toks[b].raw); c++, b++) {
      if (STRICT_CONNECTORS.has(toks[b].k === 'w' ? toks[b].w : toks[b].raw)) strictOk = true;
      if (isP(toks[b], '=') || isP(toks[b], ':')) equals = true;
    }
    const t = toks[b];
    if (!t || t.k !== 'n' || t.used || t.ordinal || t.dim || (t.glued && !t.unit)) continue;
    // a one-letter name is read with a connector ("n = 3"), or alone with its number in
    // parentheses ("the fourth level (n 3)"), where nothing else can claim the letter
    const parenthesised = b === end && a > 0 && isP(toks[a - 1], '(') && isP(toks[R.afterUnit(b)], ')');
    if (e.strict && !strictOk && !parenthesised) continue;
    const stop = R.afterUnit(b) - 1;
    // "… with 100 nodes": a number right before another field's name belongs to that name
    if (b > end && countNameAt(R, b, stop + 1)) continue;
    const words = R.span(toks[a].i, toks[stop].j);
    // a measured number of another kind after a name ("resonance of a 1 m tube") is not that
    // field's value, unless it is written as one ("mode = 1 m"), which is refused
    if (t.unit && !unitFits(t, f) && !equals) continue;
    R.set(e.target, R.valueFor(t, f, words), words, toks[a].i, toks[stop].j);
    R.use(a, stop);
    a = stop;
  }
}

/** Whether the unit written with number t is one field f can take. */
function unitFits(t: Tok, f: FieldInfo): boolean {
  if (!t.unit) return true;
  return t.unit.unit.dim === 'fraction' ? f.percent : !!f.unit && f.unit.dim === t.unit.unit.dim;
}

/** Whether number token a (its unit ending before token `after`) is directly followed by a name that takes it. */
function countNameAt(R: Reading, a: number, after: number): boolean {
  const t = R.toks[a];
  let b = after;
  if (isP(R.toks[b], '-')) b++;
  return !!aliasAt(R, b, (e) => acceptsBefore(R, e, t));
}

/** Whether the name `e` takes the number t written before it ("500 steps", "30 % volatility", "4 km deep"). */
function acceptsBefore(R: Reading, e: AliasEntry, t: Tok): boolean {
  const f = R.fieldOrPseudo(e.target);
  if (f.type !== 'number' && f.type !== 'integer') return false;
  if (e.ordinal !== undefined && !f.count) return false;
  if (t.unit) return unitFits(t, f);
  return (f.count && Number.isInteger(t.v)) || e.post;
}

function readNumberThenName(R: Reading): void {
  const { toks } = R;
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n' || t.used || t.ordinal || t.dim) continue;
    let b = R.afterUnit(a);
    if (isP(toks[b], '-')) b++;
    // up to FILLERS_MAX words between the number and the name ("2000 Monte Carlo paths")
    let found: [AliasEntry, number, number] | null = null, fillers = 0;
    for (; fillers <= FILLERS_MAX && b < toks.length; fillers++, b++) {
      const hit = aliasAt(R, b, (e) => acceptsBefore(R, e, t));
      if (hit) { found = hit; break; }
      const x = toks[b];
      if (!x || x.used || x.k !== 'w' || (fillers === FILLERS_MAX)) break;
      if (aliasAt(R, b, () => true)) break; // another field's name: not a filler
    }
    if (!found) continue;
    const [e, end] = found;
    if (R.isSet(e.target)) continue;
    if (t.glued && !t.unit && !isP(toks[a + 1], '-')) continue;
    const f = R.fieldOrPseudo(e.target);
    const words = R.span(t.i, toks[end - 1].j);
    R.set(e.target, R.valueFor(t, f, words), words, t.i, toks[end - 1].j);
    R.use(a, R.afterUnit(a) - 1);
    for (let x = b; x < end; x++) toks[x].used = true;
  }
}

function readByUnit(R: Reading): void {
  const { toks, r } = R;
  for (let a = 0; a < toks.length; a++) {
    const t = toks[a];
    if (t.k !== 'n' || t.used || !t.unit || t.unit.unit.dim === 'fraction') continue;
    const dim = t.unit.unit.dim;
    // a time step is never the span of a run: "for 2 s" does not set dt
    const all = [...r.fields.values()].filter((f) => f.unit?.dim === dim && f.byUnit !== false && !/^dt/.test(f.name));
    const pool = all.some((f) => f.byUnit) ? all.filter((f) => f.byUnit) : all;
    const free = pool.filter((f) => !R.isSet(f.name));
    const words = R.span(t.i, t.unit.j);
    if (free.length === 1) {
      R.set(free[0].name, R.valueFor(t, free[0], words), words, t.i, t.unit.j);
      R.use(a, R.afterUnit(a) - 1);
    } else if (free.length > 1) {
      throw refuseRead('UNMAPPED_QUANTITY', r.name, `'${words}' could be ${free.map((f) => `${f.name} (${f.describe.split(/[;(]/)[0].trim()})`).join(' or ')}; name the one you mean`, [words]);
    }
  }
}

/** A request that names another solver among the close runners-up, with that name unused by the
 * chosen one ("heat equation with initial condition" scored lorenz first), is refused as ambiguous
 * rather than answered by the wrong solver. */
export function checkNamedRival(read: ReadResult, chosen: string, ranking: { solver: string; score: number }[]): void {
  // a rival is close: among the top three and at least half the best score
  const close = ranking.slice(0, 3).filter((c) => c.solver !== chosen && c.score >= 0.5 * ranking[0].score);
  for (const w of read.unusedWords) {
    const rival = close.find((c) => c.solver === w || stem(c.solver) === stem(w));
    if (rival) {
      throw refuseRead('AMBIGUOUS_SOLVER', chosen, `the request names '${w}' but its words score ${chosen} first (${ranking[0].score.toFixed(1)} against ${rival.solver} ${rival.score.toFixed(1)}); name the problem more specifically or call svc_${rival.solver} directly`, [w], { candidates: ranking.slice(0, 5) });
    }
  }
}
