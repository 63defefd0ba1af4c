// svc_contract_generate: a contract definition from plain English, deterministically (no network,
// no model). The same query always gives the same definition.
//
// 1. Template match: the query's word stems are scored against every built-in template's name,
//    category, state and transition names (sum of inverse document frequencies of the shared
//    stems); the best three are reported in `basedOn`, the best one seeds the draft.
// 2. Clauses: the text is cut into sentences and clauses at ordering words ("then", "after that",
//    "next", "finally", commas, "and then"); "after X, Y" and "Y after X" order X first, "before Y,
//    X" and "X before Y" order X first, "first X" moves X to the front and "finally X" to the end.
// 3. Each clause gives a step: its verb (imperative, inflected or a step noun such as "delivery")
//    and its object or subject name the state reached ("the seller ships the goods" → state
//    goods_shipped, transition ship_goods).
// 4. Conditions ("if", "only if", "only when", "provided that", "as long as", "unless") become
//    guards on the step's incoming transition over a new variable: a boolean (false at deploy, so
//    the guard blocks until the caller fires with the variable set) or, for comparisons ("if the
//    amount is over 5000"), a number starting at 0. A condition whose action is negative ("if the
//    inspection fails, reject the shipment") becomes a branch to a terminal state instead, tried
//    before the step; "otherwise X" becomes the fallback branch after it.
// 5. Deadlines ("within 3 days", "within 48 hours") guard the step's transition with
//    `elapsed <= seconds` and add a transition to a terminal `expired` state for `elapsed > seconds`.
// 6. With fewer than two steps the best template's definition is used as is, with the conditions
//    and deadlines applied to its happy path. A cancel exit borrowed from the template's failure
//    states is added to generated flows.
// 7. The draft is validated and run to a terminal state with the variables listed in `happyPath`;
//    every choice made along the way is listed in `assumptions`.
import { checkDefinition, STATE_NAME_RE, VAR_NAME_RE, BUILTIN_SYMBOLS, type ContractDefinition, type TransitionDef, type VarValue } from './definition.ts';
import { fireOnce, initialSnapshot, isTerminal, runToEnd } from './machine.ts';
import { listTemplates, type Template } from './templates.ts';
import { operatorEvaluatorAt, operatorInputs } from './operators.ts';
import { NEGATIVE_VERBS, NOUN_VERB, NUMBER_WORDS, PARTICIPLE, UNIT_SECONDS, verbBase } from './lexicon.ts';
import { Bm25Index, STOP_WORDS, stem, termCounts } from '../core/text.ts';

export interface GeneratedContract {
  definition: ContractDefinition;
  assumptions: string[];
  basedOn: { templateId: string; name: string; score: number }[];
  recognised: {
    steps: { state: string; transition: string; from: string; text: string }[];
    conditions: { text: string; guard: string; on: string; variable: string; branch: boolean }[];
    deadlines: { text: string; seconds: number; on: string; kind: 'deadline' | 'wait' }[];
  };
  /** variables to pass to svc_contract_fire (all at the first fire is fine) and the transitions
   * the contract then takes to a terminal state */
  happyPath: { variables: Record<string, VarValue>; transitions: string[]; terminal: string; waitSeconds: number[] };
}

// ------------------------------------------------------------------------------------------
// Template matching (term overlap, IDF-weighted)

function terms(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2 && !STOP_WORDS.has(w))
    .map((w) => stem((Object.hasOwn(NOUN_VERB, w) ? NOUN_VERB[w] : undefined) ?? verbBase(w) ?? w));
}

interface TemplateIndex { docs: { t: Template; terms: Set<string> }[]; bm25: Bm25Index }
let index: TemplateIndex | null = null;

function templateIndex(): TemplateIndex {
  if (index) return index;
  const docs = listTemplates().map((t) => {
    const words = [t.name, t.category, t.id.replace(/-/g, ' '),
      ...t.definition.states.map((s) => s.name.replace(/_/g, ' ')),
      ...t.definition.transitions.map((x) => x.name.replace(/_/g, ' '))].join(' ');
    return { t, terms: new Set(terms(words)) };
  });
  index = { docs, bm25: new Bm25Index(docs.map((d) => termCounts(d.terms))) };
  return index;
}

/** Templates ranked by the summed inverse document frequency of the query terms they contain. */
export function matchTemplates(query: string, limit = 3): { t: Template; score: number }[] {
  const { docs, bm25 } = templateIndex();
  const q = new Set(terms(query));
  const scored = docs.map((d) => {
    let score = 0;
    for (const term of q) if (d.terms.has(term)) score += bm25.idf(term);
    return { t: d.t, score: Math.round(score * 1000) / 1000 };
  });
  scored.sort((a, b) => b.score - a.score || a.t.id.localeCompare(b.t.id));
  return scored.filter((s) => s.score > 0).slice(0, limit);
}

// ------------------------------------------------------------------------------------------
// Clause analysis

interface Condition { text: string; negated: boolean; variable: string; guard: string; happy: Record<string, VarValue>; init: Record<string, VarValue> }
interface Deadline { text: string; seconds: number }
interface Clause { text: string; condition?: Condition; deadline?: Deadline; wait?: Deadline; position?: 'first' | 'final'; otherwise?: boolean }

const COND_RE = /\b(only if|only when|only after|only once|if and only if|provided that|providing that|as long as|so long as|on condition that|if|unless|except if|except when)\b/;
const DEADLINE_RE = /\b(?:within|in less than|inside|no later than|at most|before)\s+(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|sixty|ninety)\s+(business days?|working days?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\b/;
const COMPARATORS: [RegExp, string][] = [
  [/\b(?:is |are )?(?:greater than or equal to|at least|no less than|not less than|minimum of)\b/, '>='],
  [/\b(?:is |are )?(?:less than or equal to|at most|no more than|not more than|up to|maximum of)\b/, '<='],
  [/\b(?:is |are )?(?:over|above|more than|greater than|exceeds?|exceeding|higher than)\b/, '>'],
  [/\b(?:is |are )?(?:under|below|less than|lower than|beneath)\b/, '<'],
  [/\b(?:is |are )?(?:equal to|equals?|exactly)\b/, '=='],
];

function camel(words: string[]): string {
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

function contentWords(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z0-9\s-]/g, ' ').split(/[\s-]+/).filter((w) => w && !STOP_WORDS.has(w) && !/^\d/.test(w));
}

function variableName(text: string, taken: Set<string>, fallback: string): string {
  let base = camel(contentWords(text).slice(0, 4)) || fallback;
  if (!/^[a-z_]/i.test(base)) base = 'v' + base;
  base = base.slice(0, 48);
  if (base in BUILTIN_SYMBOLS || ['true', 'false', 'not', 'and', 'or', 'e', 'pi', 'i'].includes(base)) base = base + 'Flag';
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base}${k}`;
  if (!VAR_NAME_RE.test(name)) name = `${fallback}${taken.size + 1}`;
  taken.add(name);
  return name;
}

function parseNumber(s: string): number {
  return Number(s.replace(/[,$€£]/g, ''));
}

function parseCondition(raw: string, negated: boolean, taken: Set<string>): Condition {
  const text = raw.trim().replace(/^(that|the)\s+/, (m) => m);
  for (const [re, op] of COMPARATORS) {
    const m = re.exec(text);
    if (!m) continue;
    const after = text.slice(m.index + m[0].length);
    const num = /^\s*[$€£]?\s*(-?\d[\d,]*(?:\.\d+)?)\s*(k|thousand|m|million|%|percent)?/.exec(after);
    if (!num) continue;
    let value = parseNumber(num[1]);
    const scale = num[2];
    if (scale === 'k' || scale === 'thousand') value *= 1000;
    if (scale === 'm' || scale === 'million') value *= 1e6;
    if (!Number.isFinite(value)) continue;
    let subject = text.slice(0, m.index);
    if (!contentWords(subject).length) subject = after.slice(num[0].length).trim().split(/\s+/).slice(0, 1).join(' ');
    const variable = variableName(subject, taken, 'amount');
    let guard = `${variable} ${op} ${value}`;
    if (negated) guard = `not (${guard})`;
    // a value on the happy side of the comparison
    const pass = (() => {
      const decimals = (String(value).split('.')[1] ?? '').length;
      const step = Number.isInteger(value) ? 1 : Math.pow(10, -decimals);
      const up = Number((value + step).toFixed(decimals));
      const down = Number((value - step).toFixed(decimals));
      const sat = { '>=': value, '<=': value, '>': up, '<': down, '==': value }[op]!;
      const unsat = { '>=': down, '<=': up, '>': value, '<': value, '==': up }[op]!;
      return negated ? unsat : sat;
    })();
    return { text: raw.trim(), negated, variable, guard, happy: { [variable]: pass }, init: { [variable]: 0 } };
  }
  const variable = variableName(text, taken, 'condition');
  const guard = negated ? `not ${variable}` : variable;
  return { text: raw.trim(), negated, variable, guard, happy: { [variable]: !negated }, init: { [variable]: false } };
}

function parseDeadline(text: string): { deadline?: Deadline; rest: string } {
  const m = DEADLINE_RE.exec(text);
  if (!m) return { rest: text };
  const n = /^\d/.test(m[1]) ? Number(m[1]) : NUMBER_WORDS[m[1]];
  const unitWord = m[2].replace(/s$/, '');
  const unit = UNIT_SECONDS[unitWord] ?? UNIT_SECONDS[unitWord.replace(/^(business|working) /, '')] ?? 86400;
  const seconds = Math.round(n * unit);
  return { deadline: { text: m[0], seconds }, rest: (text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length)).trim() };
}

const WAIT_RE = /\b(?:after|wait(?:ing)?(?: for)?|following|at least)\s+(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|sixty|ninety)\s+(business days?|working days?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\b|\b(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fourteen|thirty|sixty|ninety)\s+(business days?|working days?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s+later\b/;

function parseWait(text: string): { wait?: Deadline; rest: string } {
  const m = WAIT_RE.exec(text);
  if (!m) return { rest: text };
  const numText = m[1] ?? m[3];
  const unitText = (m[2] ?? m[4]).replace(/s$/, '');
  const n = /^\d/.test(numText) ? Number(numText) : NUMBER_WORDS[numText];
  const unit = UNIT_SECONDS[unitText] ?? UNIT_SECONDS[unitText.replace(/^(business|working) /, '')] ?? 86400;
  return { wait: { text: m[0], seconds: Math.round(n * unit) }, rest: (text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length)).trim() };
}

/** Splits the query into ordered clauses with their conditions and deadlines. */
function analyse(query: string, taken: Set<string>): Clause[] {
  const out: Clause[] = [];
  const sentences = query
    .replace(/\s+/g, ' ')
    .replace(/(\d),(\d{3})/g, '$1$2')
    .split(/[;!?\n]+|\.(?=\s|$)|\s*(?:->|→|=>)\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const sentence of sentences) {
    // "Title: step, step, step": the part before the colon names the workflow, not a step
    const colon = sentence.indexOf(':');
    const body = colon > 0 && colon < sentence.length - 1 && !/^\s*(?:states?|stages?|steps?|phases?)\s*$/i.test(sentence.slice(0, colon))
      ? sentence.slice(colon + 1) : sentence;
    let s = body.toLowerCase().replace(/^[a-z ]{0,40}?\b(?:workflow|process|contract|pipeline|procedure|protocol)\s*(?:is|:|for [^:,]+:)\s*/, '');
    // explicit lists of states: "states: draft, review, approved"
    const listed = /^(?:the )?(?:states?|stages?|steps?|phases?) (?:are|is|:)\s*(.*)$/.exec(s) ?? /^(?:states?|stages?|steps?|phases?)\s*:\s*(.*)$/.exec(s);
    if (listed) s = listed[1];
    const pieces = s
      .split(/\s*,?\s*\b(?:and then|and after that|after that|afterwards|then|next|subsequently|followed by|and finally|finally|lastly|at the end)\b\s*,?\s*|\s*,\s*(?:and\s+)?/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap(splitAnd);
    const markFinal = /\b(finally|lastly|at the end)\b/.exec(s);
    const finalIdx = markFinal ? pieces.findIndex((p) => s.indexOf(p) > markFinal.index) : -1;
    let pendingCondition: Condition | undefined;
    let pendingDeadline: Deadline | undefined;
    let pendingWait: Deadline | undefined;
    let beforeTarget: Clause | undefined;
    const local: Clause[] = [];
    pieces.forEach((piece, idx) => {
      let text = piece;
      const clause: Clause = { text };
      if (idx === finalIdx) clause.position = 'final';
      const first = /^(?:first(?:ly)?|to start|to begin|initially|start by|begin by|start with|begin with)\b\s*,?\s*/.exec(text);
      if (first) { clause.position = 'first'; text = text.slice(first[0].length); }
      const otherwise = /^(?:otherwise|else|or else|if not)\b\s*,?\s*/.exec(text);
      if (otherwise) { clause.otherwise = true; text = text.slice(otherwise[0].length); }
      const dl = parseDeadline(text);
      text = dl.rest;
      if (dl.deadline) clause.deadline = dl.deadline;
      const wt = parseWait(text);
      text = wt.rest;
      if (wt.wait) {
        if (!contentWords(text).length) { pendingWait = wt.wait; return; }
        clause.wait = wt.wait;
      }
      if (pendingWait && !clause.wait) { clause.wait = pendingWait; pendingWait = undefined; }
      // "before Y" at the start: Y comes after the next clause
      const before = /^before\s+(.*)$/.exec(text);
      if (before) {
        const target: Clause = { text: before[1], deadline: clause.deadline };
        beforeTarget = target;
        return;
      }
      // "after X" / "once X" / "when X" at the start: X is a step of its own, done first
      const after = /^(?:after|once|when|as soon as|upon|following)\s+(.*)$/.exec(text);
      if (after && !COND_RE.test(after[1])) {
        local.push({ text: after[1] });
        return;
      }
      // condition at the start ("if X" / "only when X" / "unless X"): applies to the next clause
      const condStart = /^(only if|only when|only after|only once|if and only if|provided that|providing that|as long as|so long as|on condition that|if|unless|except if|except when)\s+(.*)$/.exec(text);
      if (condStart) {
        // "if X then Y" in one piece
        const thenSplit = /^(.*?)\s+(?:then|,)\s+(.*)$/.exec(condStart[2]);
        const negated = /^(unless|except)/.test(condStart[1]);
        if (thenSplit) {
          clause.condition = parseCondition(thenSplit[1], negated, taken);
          clause.text = thenSplit[2];
          local.push(clause);
        } else {
          pendingCondition = parseCondition(condStart[2], negated, taken);
          pendingDeadline = clause.deadline;
        }
        return;
      }
      // condition in the middle: "release the funds only when the buyer confirms"
      const mid = COND_RE.exec(text);
      if (mid && mid.index > 0) {
        const negated = /^(unless|except)/.test(mid[1]);
        clause.condition = parseCondition(text.slice(mid.index + mid[0].length), negated, taken);
        text = text.slice(0, mid.index).trim();
      }
      // "Y after X" / "X before Y" inside one clause
      const inAfter = /^(.*\S)\s+(?:after|once)\s+(.*)$/.exec(text);
      const inBefore = /^(.*\S)\s+before\s+(.*)$/.exec(text);
      if (inAfter && !clause.condition) {
        local.push({ text: inAfter[2] });
        text = inAfter[1];
      } else if (inBefore && !clause.condition) {
        clause.text = inBefore[1];
        local.push(clause);
        local.push({ text: inBefore[2] });
        return;
      }
      clause.text = text;
      if (pendingCondition && !clause.condition) { clause.condition = pendingCondition; pendingCondition = undefined; }
      if (pendingDeadline && !clause.deadline) { clause.deadline = pendingDeadline; pendingDeadline = undefined; }
      local.push(clause);
      if (beforeTarget) { local.push(beforeTarget); beforeTarget = undefined; }
    });
    if (beforeTarget) local.push(beforeTarget);
    if (pendingCondition && local.length) {
      // a trailing condition ("…, if the budget allows") guards the sentence's last step
      const last = local[local.length - 1];
      if (!last.condition) last.condition = pendingCondition;
    }
    out.push(...local);
  }
  const firsts = out.filter((c) => c.position === 'first');
  const finals = out.filter((c) => c.position === 'final');
  const middle = out.filter((c) => c.position !== 'first' && c.position !== 'final');
  return [...firsts, ...middle, ...finals].filter((c) => contentWords(c.text).length > 0);
}

/** Splits "A and B" when both sides name a step ("the plumber repairs the leak and the tenant
 * confirms the fix"), but not "salt and pepper". */
function splitAnd(piece: string): string[] {
  // only the part before a condition word is split: "pay X and ship Y unless Z" keeps Z with
  // "ship Y", and "only when A and B" keeps "A and B" together
  const cond = COND_RE.exec(piece);
  if (cond && cond.index === 0) return [piece];
  const head = cond ? piece.slice(0, cond.index) : piece;
  const tail = cond ? piece.slice(cond.index) : '';
  const parts = head.trim().split(/\s+and\s+/);
  if (tail) parts[parts.length - 1] = `${parts[parts.length - 1]} ${tail}`;
  if (parts.length === 1) return [piece];
  const out: string[] = [];
  for (const part of parts) {
    const hasVerb = part.split(/\s+/).some((w) => !STOP_WORDS.has(w) && verbBase(w) !== undefined);
    if (out.length && !hasVerb) out[out.length - 1] += ' and ' + part;
    else if (out.length && !out[out.length - 1].split(/\s+/).some((w) => !STOP_WORDS.has(w) && verbBase(w) !== undefined)) out[out.length - 1] += ' and ' + part;
    else out.push(part);
  }
  return out;
}

const PRONOUNS = new Set(['it', 'them', 'this', 'that', 'these', 'those', 'him', 'her', 'us', 'me', 'everything', 'all']);

interface Step { verb: string | null; object: string[]; subject: string[]; text: string }

function stepOf(text: string): Step {
  const words = text.toLowerCase().replace(/[^a-z0-9\s-]/g, ' ').split(/\s+/).filter(Boolean);
  let vi = -1;
  let verb: string | null = null;
  // imperative: the clause opens with a verb ("ship the goods")
  const firstContent = words.findIndex((w) => !STOP_WORDS.has(w));
  if (firstContent >= 0) {
    const w = words[firstContent];
    const b = verbBase(w);
    if (b && (b === w || firstContent === 0)) { vi = firstContent; verb = b; }
  }
  // an inflected verb form ("the seller ships", "funds are released")
  if (vi < 0) {
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (STOP_WORDS.has(w)) continue;
      const b = verbBase(w);
      if (b && b !== w) { vi = i; verb = b; break; }
    }
  }
  if (vi < 0) {
    for (let i = 0; i < words.length; i++) {
      const b = PARTICIPLE.has(words[i]) ? words[i] : undefined;
      if (b && !STOP_WORDS.has(words[i])) { vi = i; verb = b; break; }
    }
  }
  // a step noun ("payment", "delivery")
  if (vi < 0) {
    for (let i = 0; i < words.length; i++) {
      const v = NOUN_VERB[words[i]] ?? NOUN_VERB[words[i].replace(/s$/, '')];
      if (v) { vi = i; verb = v; break; }
    }
  }
  const isContent = (w: string) => !STOP_WORDS.has(w) && !/^\d/.test(w) && w.length > 1;
  const object: string[] = [];
  const subject: string[] = [];
  if (vi >= 0) {
    for (let i = vi + 1; i < words.length && object.length < 2 && !PRONOUNS.has(words[vi + 1] ?? ''); i++) {
      const w = words[i];
      if (!isContent(w)) { if (object.length) break; continue; }
      if (object.length && !w.endsWith('ing') && verbBase(w) && verbBase(w) !== w) break;
      object.push(w);
    }
    for (let i = vi - 1; i >= 0 && subject.length < 2; i--) {
      const w = words[i];
      if (!isContent(w)) { if (subject.length) break; continue; }
      subject.unshift(w);
    }
    // a step noun names the step itself: "payment" → object is what precedes or follows
    if (NOUN_VERB[words[vi]] && !PARTICIPLE.has(words[vi])) {
      // keep as is; the noun became the verb
    }
  } else {
    object.push(...words.filter(isContent).slice(0, 3));
  }
  return { verb, object, subject, text };
}

function ident(parts: string[]): string {
  const s = parts.join('_').replace(/-/g, '_').replace(/[^a-z0-9_]/g, '').replace(/_+/g, '_').replace(/^_|_$/g, '');
  return s.slice(0, 60).replace(/_$/, '');
}

function uniqueName(base: string, taken: Set<string>): string {
  let b = base && /^[a-z]/.test(base) ? base : 's_' + base;
  if (!STATE_NAME_RE.test(b)) b = 'step';
  let name = b;
  for (let k = 2; taken.has(name); k++) name = `${b}_${k}`;
  taken.add(name);
  return name;
}

// ------------------------------------------------------------------------------------------

function happyTerminalNames(def: ContractDefinition): { happy: Set<string>; failures: string[] } {
  const r = runToEnd(def, initialSnapshot(def, 0), () => ({ t: 0, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(0) }));
  const visited = new Set<string>([def.initial]);
  let cur = def.initial;
  for (const name of r.path) {
    const t = def.transitions.find((x) => x.from === cur && x.name === name)!;
    cur = t.to;
    visited.add(cur);
  }
  const failures = def.states.filter((s) => s.terminal && !visited.has(s.name)).map((s) => s.name);
  return { happy: visited, failures };
}

function titleOf(query: string): string {
  const colon = query.indexOf(':');
  if (colon > 3 && colon <= 80) query = query.slice(0, colon);
  const words = query.replace(/[^A-Za-z0-9\s'-]/g, ' ').split(/\s+/).filter(Boolean).slice(0, 8).join(' ');
  const t = words.length > 80 ? words.slice(0, 80).trim() : words;
  return t ? t[0].toUpperCase() + t.slice(1) : 'Generated contract';
}

export function generateDefinition(query: string): GeneratedContract {
  const assumptions: string[] = [];
  const matches = matchTemplates(query);
  const basedOn = matches.map((m) => ({ templateId: m.t.id, name: m.t.name, score: m.score }));
  const seed = matches[0]?.t ?? listTemplates().find((t) => t.id === 'document-sign-off') ?? listTemplates()[0];
  if (matches.length) assumptions.push(`closest built-in template: '${seed.id}' (${seed.name}), term-overlap score ${matches[0].score}`);
  else assumptions.push(`no template shares words with the request; starting from the generic shape of '${seed.id}'`);

  const varNames = new Set<string>();
  const clauses = analyse(query, varNames);
  const steps = clauses.map((c) => ({ clause: c, step: stepOf(c.text) })).filter((x) => x.step.verb || x.step.object.length);
  const negative = (x: { clause: Clause; step: Step }) => !!x.step.verb && NEGATIVE_VERBS.has(x.step.verb);
  const isBranchStep = (x: { clause: Clause; step: Step }) => (!!x.clause.condition || !!x.clause.otherwise) && negative(x);
  const positive = steps.filter((x) => !isBranchStep(x));

  const recognised: GeneratedContract['recognised'] = { steps: [], conditions: [], deadlines: [] };
  const waits = new Map<string, number>();
  const variables: Record<string, VarValue> = {};
  const happyVars: Record<string, VarValue> = {};
  let definition: ContractDefinition;

  if (positive.length >= 2) {
    const stateNames = new Set<string>();
    const seedInfo = happyTerminalNames(seed.definition);
    const initial = uniqueName(seed.definition.initial, stateNames);
    assumptions.push(`the contract starts in '${initial}', the initial state of '${seed.id}'`);
    const states: { name: string; terminal?: boolean }[] = [{ name: initial }];
    const transitions: TransitionDef[] = [];
    const transitionNames = new Map<string, Set<string>>();
    const tname = (from: string, base: string) => {
      const set = transitionNames.get(from) ?? new Set<string>();
      transitionNames.set(from, set);
      return uniqueName(ident([base]) || 'advance', set);
    };
    let expired: string | null = null;
    let prev = initial;
    let lastHappy: TransitionDef | null = null;
    let lastHappyFrom = initial;
    for (const { clause, step } of steps) {
      const verb = step.verb;
      const participle = verb ? PARTICIPLE.get(verb) ?? verb : null;
      const noun = step.object.length ? step.object : step.subject;
      const isBranch = isBranchStep({ clause, step });
      const stateBase = participle ? ident([...noun, participle]) : ident([...noun]);
      const name = uniqueName(stateBase || 'step', stateNames);
      const trBase = verb ? ident([verb, ...step.object.slice(0, 2)]) : ident(['reach', ...noun]);
      if (isBranch) {
        // a branch out of the current state into a terminal state
        const from = clause.otherwise ? lastHappyFrom : prev;
        states.push({ name, terminal: true });
        const tr: TransitionDef = { from, to: name, name: tname(from, trBase) };
        if (clause.condition && !clause.otherwise) {
          tr.guard = clause.condition.guard;
          Object.assign(variables, clause.condition.init);
          recognised.conditions.push({ text: clause.condition.text, guard: tr.guard, on: tr.name, variable: clause.condition.variable, branch: true });
          assumptions.push(`"${clause.condition.text}" leads to terminal state '${name}' from '${from}' (tried before the happy transition); variable '${clause.condition.variable}' starts ${JSON.stringify(clause.condition.init[clause.condition.variable])}`);
          // branches are tried before the happy transition out of the same state
          const at = transitions.findIndex((x) => x.from === from);
          if (at >= 0) transitions.splice(at, 0, tr);
          else transitions.push(tr);
        } else {
          assumptions.push(`"otherwise …" leads to terminal state '${name}' from '${from}' when the guard of '${lastHappy?.name ?? 'the previous step'}' blocks`);
          transitions.push(tr);
        }
        recognised.steps.push({ state: name, transition: tr.name, from, text: clause.text });
        continue;
      }
      states.push({ name });
      const tr: TransitionDef = { from: prev, to: name, name: tname(prev, trBase) };
      const guards: string[] = [];
      if (clause.condition) {
        guards.push(clause.condition.guard);
        Object.assign(variables, clause.condition.init);
        Object.assign(happyVars, clause.condition.happy);
        recognised.conditions.push({ text: clause.condition.text, guard: clause.condition.guard, on: tr.name, variable: clause.condition.variable, branch: false });
        const init = clause.condition.init[clause.condition.variable];
        assumptions.push(`condition "${clause.condition.text}" guards '${tr.name}' as ${clause.condition.guard}; '${clause.condition.variable}' starts ${JSON.stringify(init)}${clause.condition.negated ? '' : ', so the step waits until you fire with it set'}`);
      }
      if (clause.wait) {
        guards.push(`elapsed >= ${clause.wait.seconds}`);
        waits.set(`${prev}|${tr.name}`, clause.wait.seconds);
        recognised.deadlines.push({ text: clause.wait.text, seconds: clause.wait.seconds, on: tr.name, kind: 'wait' });
        assumptions.push(`"${clause.wait.text}" is a waiting period: '${tr.name}' may fire once ${clause.wait.seconds} s have passed in '${prev}'`);
      }
      if (clause.deadline) {
        guards.push(`elapsed <= ${clause.deadline.seconds}`);
        recognised.deadlines.push({ text: clause.deadline.text, seconds: clause.deadline.seconds, on: tr.name, kind: 'deadline' });
      }
      if (guards.length) tr.guard = guards.length === 1 ? guards[0] : guards.map((g) => `(${g})`).join(' and ');
      transitions.push(tr);
      if (clause.deadline) {
        if (!expired) { expired = uniqueName('expired', stateNames); }
        transitions.push({ from: prev, to: expired, name: tname(prev, 'miss_deadline'), guard: `elapsed > ${clause.deadline.seconds}` });
        assumptions.push(`deadline "${clause.deadline.text}" is measured from entering '${prev}' (elapsed seconds in that state); past it '${tr.name}' blocks and 'miss_deadline' moves to terminal '${expired}'`);
      }
      recognised.steps.push({ state: name, transition: tr.name, from: prev, text: clause.text });
      lastHappy = tr;
      lastHappyFrom = prev;
      prev = name;
    }
    if (expired) states.push({ name: expired, terminal: true });
    states.find((s) => s.name === prev)!.terminal = true;
    assumptions.push(`the last step '${prev}' is the terminal state of the happy path`);
    // a cancel exit borrowed from the template's failure states
    const failure = seedInfo.failures.find((f) => /cancel|withdraw|abandon|reject|declin|terminat|void/.test(f)) ?? seedInfo.failures[0];
    if (failure) {
      const exitName = uniqueName(failure, stateNames);
      states.push({ name: exitName, terminal: true });
      transitions.push({ from: initial, to: exitName, name: tname(initial, 'cancel') });
      assumptions.push(`added an exit 'cancel' from '${initial}' to terminal '${exitName}' (as in '${seed.id}'); it fires only when named`);
    }
    definition = {
      version: '1.0.0',
      name: titleOf(query),
      description: query.trim().slice(0, 2000),
      initial,
      states,
      transitions,
      variables,
      metadata: { generatedFrom: seed.id },
    };
  } else {
    // too few steps recognised: the best template, with the request's conditions and deadlines
    const base = structuredClone(seed.definition);
    assumptions.push(`recognised ${positive.length} step${positive.length === 1 ? '' : 's'} in the request; using the states and transitions of '${seed.id}' as they are`);
    const happy = runToEnd(base, initialSnapshot(base, 0), () => ({ t: 0, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(0) })).path;
    let cur = base.initial;
    const happyTransitions: TransitionDef[] = [];
    for (const n of happy) {
      const t = base.transitions.find((x) => x.from === cur && x.name === n)!;
      happyTransitions.push(t);
      cur = t.to;
    }
    for (const v of Object.keys(base.variables ?? {})) varNames.add(v);
    const targetFor = (text: string) => {
      const ws = new Set(terms(text));
      let best = happyTransitions[0];
      let bestScore = -1;
      for (const t of happyTransitions) {
        const s = terms(`${t.name.replace(/_/g, ' ')} ${t.to.replace(/_/g, ' ')}`).filter((x) => ws.has(x)).length;
        if (s > bestScore) { best = t; bestScore = s; }
      }
      return best;
    };
    Object.assign(variables, base.variables ?? {});
    const stateNames = new Set(base.states.map((x) => x.name));
    for (const c of clauses) {
      const st = stepOf(c.text);
      if (c.condition && st.verb && NEGATIVE_VERBS.has(st.verb)) {
        // "if X, reject Y": a branch to a failure state, tried before the happy transition
        const t = targetFor(`${c.condition.text} ${c.text}`);
        const participle = PARTICIPLE.get(st.verb) ?? st.verb;
        const existing = base.states.find((x) => x.terminal && x.name.startsWith(participle.slice(0, 5)));
        const to = existing?.name ?? uniqueName(ident([...st.object, participle]) || participle, stateNames);
        if (!existing) base.states.push({ name: to, terminal: true });
        const names = new Set(base.transitions.filter((x) => x.from === t.from).map((x) => x.name));
        const name = uniqueName(ident([st.verb, ...st.object.slice(0, 2)]) || st.verb, names);
        base.transitions.splice(base.transitions.indexOf(t), 0, { from: t.from, to, name, guard: c.condition.guard });
        Object.assign(variables, c.condition.init);
        recognised.conditions.push({ text: c.condition.text, guard: c.condition.guard, on: name, variable: c.condition.variable, branch: true });
        assumptions.push(`"${c.condition.text}" leads from '${t.from}' to terminal '${to}' (tried before '${t.name}'); '${c.condition.variable}' starts ${JSON.stringify(c.condition.init[c.condition.variable])}`);
        continue;
      }
      if (c.condition) {
        const t = targetFor(c.text);
        t.guard = t.guard ? `(${t.guard}) and (${c.condition.guard})` : c.condition.guard;
        Object.assign(variables, c.condition.init);
        Object.assign(happyVars, c.condition.happy);
        recognised.conditions.push({ text: c.condition.text, guard: c.condition.guard, on: t.name, variable: c.condition.variable, branch: false });
        assumptions.push(`condition "${c.condition.text}" added to the guard of '${t.name}'`);
      }
      if (c.wait) {
        const t = targetFor(c.text);
        t.guard = t.guard ? `(${t.guard}) and (elapsed >= ${c.wait.seconds})` : `elapsed >= ${c.wait.seconds}`;
        waits.set(`${t.from}|${t.name}`, c.wait.seconds);
        recognised.deadlines.push({ text: c.wait.text, seconds: c.wait.seconds, on: t.name, kind: 'wait' });
        assumptions.push(`"${c.wait.text}" is a waiting period before '${t.name}'`);
      }
      if (c.deadline) {
        const t = targetFor(c.text);
        t.guard = t.guard ? `(${t.guard}) and (elapsed <= ${c.deadline.seconds})` : `elapsed <= ${c.deadline.seconds}`;
        recognised.deadlines.push({ text: c.deadline.text, seconds: c.deadline.seconds, on: t.name, kind: 'deadline' });
        let expired = base.states.find((s) => s.name === 'expired');
        if (!expired) { expired = { name: 'expired', terminal: true }; base.states.push(expired); }
        const at = base.transitions.indexOf(t);
        const names = new Set(base.transitions.filter((x) => x.from === t.from).map((x) => x.name));
        let n = 'miss_deadline';
        for (let k = 2; names.has(n); k++) n = `miss_deadline_${k}`;
        base.transitions.splice(at + 1, 0, { from: t.from, to: 'expired', name: n, guard: `elapsed > ${c.deadline.seconds}` });
        assumptions.push(`deadline "${c.deadline.text}" applies to '${t.name}', measured from entering '${t.from}'`);
      }
    }
    for (const t of happyTransitions) recognised.steps.push({ state: t.to, transition: t.name, from: t.from, text: '' });
    definition = {
      ...base,
      version: '1.0.0',
      name: titleOf(query),
      description: query.trim().slice(0, 2000),
      variables,
      metadata: { generatedFrom: seed.id },
    };
  }

  // self-check: valid, and the happy path reaches a terminal state with the listed variables
  const { definition: valid, issues } = checkDefinition(definition, { operatorInputs });
  let final: ContractDefinition = valid ?? seed.definition;
  if (!valid) {
    assumptions.push(`the draft did not validate (${issues[0]?.path}: ${issues[0]?.message}); returning template '${seed.id}' unchanged`);
    for (const k of Object.keys(happyVars)) delete happyVars[k];
  }
  let run = simulate(final, happyVars, waits);
  if (!run.terminal) {
    assumptions.push(`the draft's happy path did not reach a terminal state (${run.blocked ?? 'loop'}); returning template '${seed.id}' unchanged`);
    final = seed.definition;
    for (const k of Object.keys(happyVars)) delete happyVars[k];
    run = simulate(final, {}, new Map());
  }
  return {
    definition: final,
    assumptions,
    basedOn,
    recognised,
    happyPath: { variables: happyVars, transitions: run.path, terminal: run.state, waitSeconds: run.waits },
  };
}

/** Fires from the initial state until terminal, waiting out a waiting period when a step needs
 * one; the first fire carries the happy variables. */
function simulate(def: ContractDefinition, vars: Record<string, VarValue>, waits: Map<string, number>) {
  let snap = initialSnapshot(def, 0);
  let t = 0;
  const path: string[] = [];
  const waited: number[] = [];
  for (let step = 0; step < 200; step++) {
    if (isTerminal(def, snap.state)) return { terminal: true, path, waits: waited, state: snap.state };
    const variables = step === 0 && Object.keys(vars).length ? vars : undefined;
    let out = fireOnce(def, snap, { t, phase: 0, svcond: 0, variables, evaluateOperators: operatorEvaluatorAt(t) });
    let w = 0;
    if (!out.fired) {
      w = Math.max(0, ...def.transitions.filter((x) => x.from === snap.state).map((x) => waits.get(`${x.from}|${x.name}`) ?? 0));
      if (w > 0) out = fireOnce(def, snap, { t: t + w, phase: 0, svcond: 0, variables, evaluateOperators: operatorEvaluatorAt(t + w) });
    }
    if (!out.fired) return { terminal: false, path, waits: waited, state: snap.state, blocked: out.reason };
    t += w;
    waited.push(w);
    path.push(out.transition.name);
    snap = out.next;
  }
  return { terminal: false, path, waits: waited, state: snap.state, blocked: 'no terminal state within 200 fires' };
}
