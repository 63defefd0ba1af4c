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
// 4. Conditions ("if", "only if", "when" inside a clause, "provided that", "as long as",
//    "unless", "except if") are cut off before the time phrases are read, so a time phrase inside
//    a condition belongs to it. conditions.ts turns each into a guard with the right polarity
//    (negations, comparisons, roles, windows; see its head comment) over variables that start
//    false / 0 / "" at deploy. "only the buyer may X" guards X with `actor == "buyer"`.
// 5. A condition whose action is negative ("refund", "cancel", "reject", …) is a branch to a
//    terminal state, tried before the other transitions out of its state. Its state is: the
//    source of the step it is about ("cancel if the seller does not ship within 5 days" with a
//    step "the seller ships": the branch is `elapsed > 432000` and the step gets `elapsed <=
//    432000`), else the source of the step whose guard reads the same fact ("release payment when
//    the buyer confirms delivery, refund if not delivered within 7 days": both leave one state
//    and read one variable with opposite polarity), else the state before the next step; a
//    timeout after the last step makes the awaited fact the step that completes the contract.
//    "otherwise Y" is guarded by the opposite of the condition before it.
// 6. Deadlines of a step ("ship within 3 days") guard it with `elapsed <= seconds` and add
//    `miss_deadline` (`elapsed > seconds`) to a terminal `expired` state; waiting periods ("after
//    30 days", "90 days later", "wait 24 hours") guard it with `elapsed >= seconds`. With fewer
//    than two steps and nothing conditional, the best template is used as is, with the request's
//    conditions and deadlines applied to its happy path. A cancel exit borrowed from the
//    template's failure states is added to generated flows (guarded by `cancelRequested` when the
//    first step is guarded, so that a blocked fire never falls through to it).
// 7. The draft is validated and run to a terminal state with the variables listed in `happyPath`;
//    every choice made along the way is listed in `assumptions`.
import { checkDefinition, STATE_NAME_RE, type ContractDefinition, type TransitionDef, type VarValue } from './definition.ts';
import { fireOnce, initialSnapshot, isTerminal, runToEnd } from './machine.ts';
import { listTemplates, type Template } from './templates.ts';
import { operatorEvaluatorAt, operatorInputs } from './operators.ts';
import { NEGATIVE_VERBS, NOUN_VERB, NUMBER_WORD_ALT, PARTICIPLE, UNIT_ALT, numberValue, unitSeconds, verbBase } from './lexicon.ts';
import { VarRegistry, actorCondition, combine, contentWords, oppositeFacts, parseCondition, roleOf, stemsOf, withoutVariables, type ParsedCondition } from './conditions.ts';
import { Bm25Index, STOP_WORDS, stem, termCounts } from '../core/text.ts';

export interface GeneratedContract {
  definition: ContractDefinition;
  assumptions: string[];
  basedOn: { templateId: string; name: string; score: number }[];
  recognised: {
    steps: { state: string; transition: string; from: string; text: string; role?: string }[];
    conditions: { text: string; guard: string; on: string; variable: string; variables: string[]; negated: boolean; roles: string[]; branch: boolean }[];
    deadlines: { text: string; seconds: number; on: string; kind: 'deadline' | 'wait' | 'timeout' }[];
  };
  /** the variables to pass to svc_contract_fire and the transitions the contract then takes to a
   * terminal state, with the time each step waits in its state */
  happyPath: {
    variables: Record<string, VarValue>;
    /** the variables sent with each fire of the happy path (the first is `variables`, plus any a
     * step needs of its own, e.g. a different `actor`) */
    fireVariables: Record<string, VarValue>[];
    transitions: string[];
    terminal: string;
    waitSeconds: number[];
  };
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

interface Deadline { text: string; seconds: number }
interface Clause { text: string; condition?: ParsedCondition; deadline?: Deadline; wait?: Deadline; position?: 'first' | 'final'; otherwise?: boolean }

const COND_WORDS = 'only if|only when|only after|only once|if and only if|provided that|providing that|as long as|so long as|on condition that|if|unless|except if|except when';
const COND_RE = new RegExp(`\\b(${COND_WORDS})\\b`);
/** in the middle of a clause "when" is a condition too ("release the payment when the buyer
 * confirms"); at its start it names a step of its own ("when a bug is reported, triage it") */
const MID_COND_RE = new RegExp(`\\b(${COND_WORDS}|when|whenever|as soon as)\\b`);
const COND_START_RE = new RegExp(`^(${COND_WORDS})\\s+(.*)$`);
const ONLY_ROLE_RE = /^only (?:the |a |an )?([a-z]+) (?:may|can|is allowed to|is permitted to|is entitled to|shall|will|should|must|is to)\s+(.*)$/;
const TIME_NUM = `(\\d+(?:\\.\\d+)?|${NUMBER_WORD_ALT})`;
const DEADLINE_RE = new RegExp(`\\b(?:within|in less than|inside(?: of)?|no later than|at most|before)\\s+(?:the next\\s+|the first\\s+)?${TIME_NUM}\\s+(${UNIT_ALT})\\b`);
const WAIT_RE = new RegExp(`\\b(?:after|wait(?:ing)?(?: for)?|following|at least)\\s+${TIME_NUM}\\s+(${UNIT_ALT})\\b|\\b${TIME_NUM}\\s+(${UNIT_ALT})\\s+later\\b`);

function parseDeadline(text: string): { deadline?: Deadline; rest: string } {
  const m = DEADLINE_RE.exec(text);
  if (!m) return { rest: text };
  const seconds = Math.round(numberValue(m[1]) * unitSeconds(m[2]));
  if (!Number.isFinite(seconds)) return { rest: text };
  return { deadline: { text: m[0], seconds }, rest: (text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length)).trim() };
}

function parseWait(text: string): { wait?: Deadline; rest: string } {
  const m = WAIT_RE.exec(text);
  if (!m) return { rest: text };
  const seconds = Math.round(numberValue(m[1] ?? m[3]) * unitSeconds(m[2] ?? m[4]));
  if (!Number.isFinite(seconds)) return { rest: text };
  return { wait: { text: m[0], seconds }, rest: (text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length)).trim() };
}

/** Splits the query into ordered clauses with their conditions and deadlines. */
function analyse(query: string, reg: VarRegistry): Clause[] {
  const out: Clause[] = [];
  const sentences = query
    .replace(/\s+/g, ' ')
    .replace(/(\d),(\d{3})/g, '$1$2')
    .replace(/[’]/g, "'")
    .replace(/\b(can)'t\b/gi, '$1 not').replace(/\bwon't\b/gi, 'will not').replace(/\b(\w+)n't\b/gi, '$1 not')
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
      .split(/\s*,?\s*\b(?:and then|and after that|after that|afterwards|then|next|subsequently|followed by|and finally|finally|lastly|at the end)\b\s*,?\s*|\s*,\s*(?:and\s+|but\s+)?/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap(splitAnd);
    const markFinal = /\b(finally|lastly|at the end)\b/.exec(s);
    const finalIdx = markFinal ? pieces.findIndex((p) => s.indexOf(p) > markFinal.index) : -1;
    let pendingCondition: ParsedCondition | undefined;
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
      // "only the buyer may release the funds": a guard on who acts
      let actor: ParsedCondition | undefined;
      const only = ONLY_ROLE_RE.exec(text);
      if (only && roleOf(only[1])) { actor = actorCondition(roleOf(only[1])!, reg); text = only[2]; }
      // conditions before time phrases: a time phrase inside a condition belongs to it
      // ("refund if not delivered within 7 days" is a timeout, not a deadline on the refund)
      const condStart = COND_START_RE.exec(text);
      if (condStart) {
        const negated = /^(unless|except)/.test(condStart[1]);
        const thenSplit = /^(.*?)\s+then\s+(.*)$/.exec(condStart[2]);
        if (!thenSplit) {
          // "if X" alone: applies to the next clause
          pendingCondition = combine(pendingCondition, combine(actor, parseCondition(condStart[2], negated, reg)));
          return;
        }
        clause.condition = combine(actor, parseCondition(thenSplit[1], negated, reg));
        text = thenSplit[2];
      } else {
        const mid = MID_COND_RE.exec(text);
        if (mid && mid.index > 0) {
          const negated = /^(unless|except)/.test(mid[1]);
          clause.condition = parseCondition(text.slice(mid.index + mid[0].length), negated, reg);
          text = text.slice(0, mid.index).trim();
        }
        clause.condition = combine(actor, clause.condition);
      }
      // time phrases of the action itself
      const dl = parseDeadline(text);
      text = dl.rest;
      if (dl.deadline) clause.deadline = dl.deadline;
      const wt = parseWait(text);
      text = wt.rest;
      if (wt.wait) clause.wait = wt.wait;
      // "close the ticket after 3 days without a reply": what must not have happened meanwhile
      if (clause.wait || clause.deadline) {
        const wo = /^(.*?)\s+without\s+(.+)$/.exec(text);
        if (wo) { clause.condition = combine(clause.condition, parseCondition(`without ${wo[2]}`, false, reg)); text = wo[1]; }
      }
      if (!contentWords(text).length && !clause.condition) {
        // only a time phrase ("within 3 days, ship the goods"): applies to the next clause
        if (clause.wait) pendingWait = clause.wait;
        if (clause.deadline) pendingDeadline = clause.deadline;
        return;
      }
      if (pendingWait && !clause.wait) { clause.wait = pendingWait; pendingWait = undefined; }
      // "before Y" at the start: Y comes after the next clause
      const before = /^before\s+(.*)$/.exec(text);
      if (before && !clause.condition) {
        const target: Clause = { text: before[1], deadline: clause.deadline };
        beforeTarget = target;
        return;
      }
      // "after X" / "once X" / "when X" at the start: X is a step of its own, done first
      const after = /^(?:after|once|when|as soon as|upon|following)\s+(.*)$/.exec(text);
      if (after && !clause.condition && !COND_RE.test(after[1])) {
        local.push({ text: after[1] });
        return;
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
      if (pendingCondition) { clause.condition = combine(pendingCondition, clause.condition); pendingCondition = undefined; }
      if (pendingDeadline && !clause.deadline) { clause.deadline = pendingDeadline; pendingDeadline = undefined; }
      local.push(clause);
      if (beforeTarget) { local.push(beforeTarget); beforeTarget = undefined; }
    });
    if (beforeTarget) local.push(beforeTarget);
    if (pendingCondition && local.length) {
      // a trailing condition ("…, if the budget allows") guards the sentence's last step
      const last = local[local.length - 1];
      last.condition = combine(last.condition, pendingCondition);
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
  const cond = MID_COND_RE.exec(piece);
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
  const reg = new VarRegistry(varNames);
  const clauses = analyse(query, reg);
  const steps = clauses.map((c) => ({ clause: c, step: stepOf(c.text) })).filter((x) => x.step.verb || x.step.object.length);
  const negative = (x: { clause: Clause; step: Step }) => !!x.step.verb && NEGATIVE_VERBS.has(x.step.verb);
  const isBranchStep = (x: { clause: Clause; step: Step }) => (!!x.clause.condition || !!x.clause.otherwise) && negative(x);
  const positive = steps.filter((x) => !isBranchStep(x));
  const qualified = steps.some((x) => x.clause.condition || x.clause.deadline || x.clause.wait) || steps.length > positive.length;

  const recognised: GeneratedContract['recognised'] = { steps: [], conditions: [], deadlines: [] };
  const waits = new Map<string, number>();
  const stepVars = new Map<string, Record<string, VarValue>>();
  const variables: Record<string, VarValue> = {};
  const happyVars: Record<string, VarValue> = {};
  const avoidVars: Record<string, VarValue> = {};
  const noteCondition = (c: ParsedCondition, on: string, branch: boolean) => {
    recognised.conditions.push({ text: c.text, guard: c.guard, on, variable: c.variables[0] ?? '', variables: c.variables, negated: c.negated, roles: c.roles, branch });
    if (c.window) recognised.deadlines.push({ text: c.window.text, seconds: c.window.seconds, on, kind: c.window.kind });
  };
  const describeWindow = (c: ParsedCondition, on: string, from: string) => {
    if (!c.window) return;
    const w = c.window;
    if (w.kind === 'timeout') assumptions.push(`"${c.text}" is judged when "${w.text}" is over: '${on}' may fire only after ${w.seconds} s in '${from}' (elapsed > ${w.seconds})${c.variables.length ? ', and only if the fact still does not hold' : ''}`);
    else if (w.kind === 'deadline') assumptions.push(`"${w.text}" bounds "${c.text}": '${on}' may fire only while elapsed <= ${w.seconds} s in '${from}'`);
    else assumptions.push(`"${w.text}" in "${c.text}" is a waiting period: '${on}' may fire once ${w.seconds} s have passed in '${from}'`);
  };
  const and2 = (a: string | undefined, b: string) => (a ? `(${a}) and (${b})` : b);
  let definition: ContractDefinition;

  if (positive.length >= 2 || (positive.length >= 1 && qualified)) {
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
    const expiredState = () => (expired ??= uniqueName('expired', stateNames));
    const names = (step: Step) => {
      const verb = step.verb;
      const participle = verb ? PARTICIPLE.get(verb) ?? verb : null;
      const noun = step.object.length ? step.object : step.subject;
      const stateBase = participle ? ident([...noun, participle]) : ident([...noun]);
      const trBase = verb ? ident([verb, ...step.object.slice(0, 2)]) : ident(['reach', ...noun]);
      return { stateBase, trBase };
    };
    const roleOfStep = (step: Step) => step.subject.map(roleOf).find((r) => !!r);

    // 1. the happy path: the positive steps in order
    interface Built { idx: number; from: string; tr: TransitionDef; stems: Set<string>; role?: string }
    const built: Built[] = [];
    let prev = initial;
    steps.forEach((x, idx) => {
      if (isBranchStep(x)) return;
      const { clause, step } = x;
      const { stateBase, trBase } = names(step);
      const name = uniqueName(stateBase || 'step', stateNames);
      states.push({ name });
      const tr: TransitionDef = { from: prev, to: name, name: tname(prev, trBase) };
      const guards: string[] = [];
      let wait = 0;
      let deadline: number | null = null;
      let c = clause.condition;
      if (!c && clause.otherwise) {
        // "…; otherwise Y": Y when the facts of the condition before it do not hold
        const prevCond = steps.slice(0, idx).reverse().find((y) => y.clause.condition)?.clause.condition;
        c = prevCond ? oppositeFacts(prevCond) : undefined;
      }
      if (c) {
        guards.push(c.guard);
        Object.assign(variables, c.init);
        Object.assign(happyVars, c.pass);
        stepVars.set(`${prev}|${tr.name}`, c.pass);
        noteCondition(c, tr.name, false);
        wait = Math.max(wait, c.minWait);
        if (c.maxTime !== null) deadline = c.maxTime;
        const starts = c.variables.map((v) => `'${v}' starts ${JSON.stringify(c.init[v])}`).join(', ');
        assumptions.push(`condition "${c.text}" guards '${tr.name}' as ${c.guard}${starts ? `; ${starts}` : ''}; it passes with ${JSON.stringify(c.pass)}`);
        describeWindow(c, tr.name, prev);
      }
      if (clause.wait) {
        guards.push(`elapsed >= ${clause.wait.seconds}`);
        wait = Math.max(wait, clause.wait.seconds);
        recognised.deadlines.push({ text: clause.wait.text, seconds: clause.wait.seconds, on: tr.name, kind: 'wait' });
        assumptions.push(`"${clause.wait.text}" is a waiting period: '${tr.name}' may fire once ${clause.wait.seconds} s have passed in '${prev}'`);
      }
      if (clause.deadline) {
        guards.push(`elapsed <= ${clause.deadline.seconds}`);
        deadline = deadline === null ? clause.deadline.seconds : Math.min(deadline, clause.deadline.seconds);
        recognised.deadlines.push({ text: clause.deadline.text, seconds: clause.deadline.seconds, on: tr.name, kind: 'deadline' });
      }
      if (wait > 0) waits.set(`${prev}|${tr.name}`, wait);
      if (guards.length) tr.guard = guards.length === 1 ? guards[0] : guards.map((g) => `(${g})`).join(' and ');
      transitions.push(tr);
      if (deadline !== null) {
        const to = expiredState();
        const secs = Math.floor(deadline);
        transitions.push({ from: prev, to, name: tname(prev, 'miss_deadline'), guard: `elapsed > ${secs}` });
        assumptions.push(`the deadline of '${tr.name}' is measured from entering '${prev}' (elapsed seconds in that state); past ${secs} s '${tr.name}' blocks and 'miss_deadline' moves to terminal '${to}'`);
      }
      const role = roleOfStep(step);
      recognised.steps.push({ state: name, transition: tr.name, from: prev, text: clause.text, ...(role ? { role } : {}) });
      built.push({ idx, from: prev, tr, stems: new Set(stemsOf([...(step.verb ? [step.verb] : []), ...step.object, ...step.subject])), role });
      prev = name;
    });
    let terminalHappy = prev;

    // 2. branches: conditions whose action ends the contract ("refund if …", "cancel unless …")
    steps.forEach((x, idx) => {
      if (!isBranchStep(x)) return;
      const { clause, step } = x;
      const before = built.filter((b) => b.idx < idx);
      const after = built.filter((b) => b.idx > idx);
      let c = clause.condition;
      let from: string;
      let why: string;
      if (clause.otherwise || !c) {
        from = before.at(-1)?.from ?? initial;
        why = `when the guard of '${before.at(-1)?.tr.name ?? 'the previous step'}' blocks`;
      } else {
        // a timeout on a step of the flow ("cancel the order if the seller does not ship within 5
        // days" with a step "the seller ships the goods"): still being in that step's state after
        // the window is the failure itself, so the branch needs no variable, and the window closes
        // for the step too
        const atom = c.window?.kind === 'timeout' && c.atoms.length === 1 && c.atoms[0].negated ? c.atoms[0] : null;
        // the step names the fact's action ("not delivered" and "the buyer confirms delivery"),
        // and no other party than the fact's
        const refers = atom && atom.actions.length ? [...before].reverse().concat(after).find((b) => atom.actions.every((s) => b.stems.has(s))
          && (!atom.roles.length || !b.role || atom.roles.includes(b.role))) : undefined;
        const shared = built.find((b) => c!.variables.some((v) => new RegExp(`\\b${v}\\b`).test(b.tr.guard ?? '')));
        if (refers && atom) {
          from = refers.from;
          c = withoutVariables(c, new Set([atom.variable]));
          if (c.variables.includes(atom.variable)) c = { ...c, guard: `elapsed > ${c.window!.seconds}`, tree: { k: 'time', op: '>', s: c.window!.seconds }, variables: [], init: {}, pass: {}, fail: {} };
          refers.tr.guard = and2(refers.tr.guard, `elapsed <= ${c.window!.seconds}`);
          why = `"${c.text}" is about step '${refers.tr.name}': still being in '${from}' after ${c.window!.seconds} s is the failure, and '${refers.tr.name}' may fire only within the window`;
        } else if (shared) {
          from = shared.from;
          why = `it reads the fact that guards '${shared.tr.name}'`;
        } else if (after.length) {
          from = after[0].from;
          why = `tried before '${after[0].tr.name}'`;
        } else if (atom && before.length) {
          // "send the invoice, then suspend the account unless the customer pays within 30 days":
          // the fact is what the last step waits for; it becomes the step that completes the
          // contract, and the branch its timeout
          const words = atom.variable.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
          const fact = stepOf(words);
          const { stateBase, trBase } = names(fact.verb ? fact : { ...fact, object: words.split(' ') });
          const name = uniqueName(stateBase || 'completed', stateNames);
          states.push({ name });
          const tr: TransitionDef = { from: terminalHappy, to: name, name: tname(terminalHappy, trBase || 'complete'), guard: atom.variable };
          transitions.push(tr);
          variables[atom.variable] = false;
          happyVars[atom.variable] = true;
          stepVars.set(`${terminalHappy}|${tr.name}`, { [atom.variable]: true });
          recognised.steps.push({ state: name, transition: tr.name, from: terminalHappy, text: words });
          assumptions.push(`"${c.text}" waits for a fact after the last step: added step '${tr.name}' from '${terminalHappy}' to '${name}', guarded by ${atom.variable}`);
          from = terminalHappy;
          why = `the timeout of '${tr.name}'`;
          built.push({ idx: Infinity, from, tr, stems: new Set(atom.stems) });
          terminalHappy = name;
        } else {
          from = before.at(-1)?.from ?? initial;
          why = `an alternative to '${before.at(-1)?.tr.name ?? 'the first step'}'`;
        }
      }
      const { stateBase, trBase } = names(step);
      const name = uniqueName(stateBase || 'step', stateNames);
      states.push({ name, terminal: true });
      const tr: TransitionDef = { from, to: name, name: tname(from, trBase) };
      const guards: string[] = [];
      if (c && !clause.otherwise) {
        guards.push(c.guard);
        Object.assign(variables, c.init);
        for (const [k, v] of Object.entries(c.fail)) if (!Object.hasOwn(avoidVars, k)) avoidVars[k] = v;
        noteCondition(c, tr.name, true);
        describeWindow(c, tr.name, from);
      }
      if (clause.wait) {
        guards.push(`elapsed >= ${clause.wait.seconds}`);
        recognised.deadlines.push({ text: clause.wait.text, seconds: clause.wait.seconds, on: tr.name, kind: 'wait' });
      }
      if (clause.deadline) {
        guards.push(`elapsed <= ${clause.deadline.seconds}`);
        recognised.deadlines.push({ text: clause.deadline.text, seconds: clause.deadline.seconds, on: tr.name, kind: 'deadline' });
      }
      if (guards.length) tr.guard = guards.length === 1 ? guards[0] : guards.map((g) => `(${g})`).join(' and ');
      if (clause.otherwise || !tr.guard) {
        transitions.push(tr);
        assumptions.push(`"otherwise …" leads to terminal state '${name}' from '${from}' ${why}`);
      } else {
        // tried before the other transitions out of the same state
        const at = transitions.findIndex((t) => t.from === from);
        if (at >= 0) transitions.splice(at, 0, tr);
        else transitions.push(tr);
        assumptions.push(`"${clause.text}" is a branch from '${from}' to terminal '${name}' (${why}), tried before the other transitions out of '${from}', guarded by ${tr.guard}`);
      }
      const role = roleOfStep(step);
      recognised.steps.push({ state: name, transition: tr.name, from, text: clause.text, ...(role ? { role } : {}) });
    });
    if (expired) states.push({ name: expired, terminal: true });
    states.find((s) => s.name === terminalHappy)!.terminal = true;
    assumptions.push(`the last step '${terminalHappy}' is the terminal state of the happy path`);
    // a cancel exit borrowed from the template's failure states
    const failure = seedInfo.failures.find((f) => /cancel|withdraw|abandon|reject|declin|terminat|void/.test(f)) ?? seedInfo.failures[0];
    if (failure) {
      const exitName = uniqueName(failure, stateNames);
      states.push({ name: exitName, terminal: true });
      const cancel: TransitionDef = { from: initial, to: exitName, name: tname(initial, 'cancel') };
      if (transitions.some((t) => t.from === initial && t.guard)) {
        // an unguarded exit after a guarded step would be the fallback of every blocked fire
        const flag = reg.bool(['cancel', 'requested'], new Set()).name;
        variables[flag] = false;
        avoidVars[flag] ??= false;
        cancel.guard = flag;
        assumptions.push(`added an exit 'cancel' from '${initial}' to terminal '${exitName}' (as in '${seed.id}'); it is guarded by '${flag}' (false at deploy) so that a fire whose step guard blocks never falls through to it`);
      } else assumptions.push(`added an exit 'cancel' from '${initial}' to terminal '${exitName}' (as in '${seed.id}'); it fires only when named`);
      transitions.push(cancel);
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
    const addExpiry = (t: TransitionDef, seconds: number, text: string) => {
      let expired = base.states.find((s) => s.name === 'expired');
      if (!expired) { expired = { name: 'expired', terminal: true }; base.states.push(expired); }
      const at = base.transitions.indexOf(t);
      const names = new Set(base.transitions.filter((x) => x.from === t.from).map((x) => x.name));
      let n = 'miss_deadline';
      for (let k = 2; names.has(n); k++) n = `miss_deadline_${k}`;
      base.transitions.splice(at + 1, 0, { from: t.from, to: 'expired', name: n, guard: `elapsed > ${Math.floor(seconds)}` });
      assumptions.push(`deadline "${text}" applies to '${t.name}', measured from entering '${t.from}'`);
    };
    for (const c of clauses) {
      const st = stepOf(c.text);
      const cond = c.condition;
      if (cond && st.verb && NEGATIVE_VERBS.has(st.verb)) {
        // "if X, reject Y": a branch to a failure state, tried before the happy transition
        const t = targetFor(`${cond.text} ${c.text}`);
        const participle = PARTICIPLE.get(st.verb) ?? st.verb;
        const existing = base.states.find((x) => x.terminal && x.name.startsWith(participle.slice(0, 5)));
        const to = existing?.name ?? uniqueName(ident([...st.object, participle]) || participle, stateNames);
        if (!existing) base.states.push({ name: to, terminal: true });
        const names = new Set(base.transitions.filter((x) => x.from === t.from).map((x) => x.name));
        const name = uniqueName(ident([st.verb, ...st.object.slice(0, 2)]) || st.verb, names);
        let guard = cond.guard;
        if (c.wait) guard = and2(guard, `elapsed >= ${c.wait.seconds}`);
        if (c.deadline) guard = and2(guard, `elapsed <= ${c.deadline.seconds}`);
        base.transitions.splice(base.transitions.indexOf(t), 0, { from: t.from, to, name, guard });
        Object.assign(variables, cond.init);
        for (const [k, v] of Object.entries(cond.fail)) if (!Object.hasOwn(avoidVars, k)) avoidVars[k] = v;
        noteCondition(cond, name, true);
        describeWindow(cond, name, t.from);
        assumptions.push(`"${cond.text}" leads from '${t.from}' to terminal '${to}' (tried before '${t.name}') as ${guard}`);
        continue;
      }
      const t = (cond || c.wait || c.deadline) ? targetFor(c.text) : null;
      if (!t) continue;
      let deadline: number | null = null;
      if (cond) {
        t.guard = t.guard ? and2(t.guard, cond.guard) : cond.guard;
        Object.assign(variables, cond.init);
        Object.assign(happyVars, cond.pass);
        stepVars.set(`${t.from}|${t.name}`, cond.pass);
        if (cond.minWait > 0) waits.set(`${t.from}|${t.name}`, Math.max(waits.get(`${t.from}|${t.name}`) ?? 0, cond.minWait));
        if (cond.maxTime !== null) deadline = cond.maxTime;
        noteCondition(cond, t.name, false);
        describeWindow(cond, t.name, t.from);
        assumptions.push(`condition "${cond.text}" added to the guard of '${t.name}' as ${cond.guard}`);
      }
      if (c.wait) {
        t.guard = t.guard ? and2(t.guard, `elapsed >= ${c.wait.seconds}`) : `elapsed >= ${c.wait.seconds}`;
        waits.set(`${t.from}|${t.name}`, Math.max(waits.get(`${t.from}|${t.name}`) ?? 0, c.wait.seconds));
        recognised.deadlines.push({ text: c.wait.text, seconds: c.wait.seconds, on: t.name, kind: 'wait' });
        assumptions.push(`"${c.wait.text}" is a waiting period before '${t.name}'`);
      }
      if (c.deadline) {
        t.guard = t.guard ? and2(t.guard, `elapsed <= ${c.deadline.seconds}`) : `elapsed <= ${c.deadline.seconds}`;
        recognised.deadlines.push({ text: c.deadline.text, seconds: c.deadline.seconds, on: t.name, kind: 'deadline' });
        deadline = deadline === null ? c.deadline.seconds : Math.min(deadline, c.deadline.seconds);
      }
      if (deadline !== null) addExpiry(t, deadline, c.deadline?.text ?? cond?.window?.text ?? '');
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
  // the happy path sets what its steps need and keeps the branches' facts on their blocking side
  for (const [k, v] of Object.entries(avoidVars)) if (!Object.hasOwn(happyVars, k) && Object.hasOwn(variables, k)) happyVars[k] = v;

  // self-check: valid, and the happy path reaches a terminal state with the listed variables
  const { definition: valid, issues } = checkDefinition(definition, { operatorInputs });
  let final: ContractDefinition = valid ?? seed.definition;
  if (!valid) {
    assumptions.push(`the draft did not validate (${issues[0]?.path}: ${issues[0]?.message}); returning template '${seed.id}' unchanged`);
    for (const k of Object.keys(happyVars)) delete happyVars[k];
  }
  let run = simulate(final, happyVars, waits, stepVars);
  if (!run.terminal) {
    assumptions.push(`the draft's happy path did not reach a terminal state (${run.blocked ?? 'loop'}); returning template '${seed.id}' unchanged`);
    final = seed.definition;
    for (const k of Object.keys(happyVars)) delete happyVars[k];
    run = simulate(final, {}, new Map(), new Map());
  }
  return {
    definition: final,
    assumptions,
    basedOn,
    recognised,
    happyPath: { variables: happyVars, fireVariables: run.fireVariables, transitions: run.path, terminal: run.state, waitSeconds: run.waits },
  };
}

/** Fires from the initial state until terminal, waiting out a waiting period when a step needs
 * one; the first fire carries the happy variables, and a step that needs other values than those
 * in force (two steps for two different actors) gets its own with its fire. */
function simulate(def: ContractDefinition, vars: Record<string, VarValue>, waits: Map<string, number>, stepVars: Map<string, Record<string, VarValue>>) {
  let snap = initialSnapshot(def, 0);
  let t = 0;
  const path: string[] = [];
  const waited: number[] = [];
  const fireVariables: Record<string, VarValue>[] = [];
  for (let step = 0; step < 200; step++) {
    if (isTerminal(def, snap.state)) return { terminal: true, path, waits: waited, fireVariables, state: snap.state };
    let variables: Record<string, VarValue> | undefined = step === 0 && Object.keys(vars).length ? { ...vars } : undefined;
    const candidates = def.transitions.filter((x) => x.from === snap.state);
    const w = Math.max(0, ...candidates.map((x) => waits.get(`${x.from}|${x.name}`) ?? 0));
    const at = (dt: number, v: Record<string, VarValue> | undefined) => fireOnce(def, snap, { t: t + dt, phase: 0, svcond: 0, variables: v, evaluateOperators: operatorEvaluatorAt(t + dt) });
    let out = at(0, variables);
    let dt = 0;
    if (!out.fired && w > 0) { out = at(w, variables); dt = w; }
    if (!out.fired) {
      for (const c of candidates) {
        const own = stepVars.get(`${c.from}|${c.name}`);
        if (!own) continue;
        const v = { ...(variables ?? {}), ...own };
        const wc = waits.get(`${c.from}|${c.name}`) ?? 0;
        const o = at(wc, v);
        if (o.fired) { out = o; dt = wc; variables = v; break; }
      }
    }
    if (!out.fired) return { terminal: false, path, waits: waited, fireVariables, state: snap.state, blocked: out.reason };
    t += dt;
    waited.push(dt);
    fireVariables.push(variables ?? {});
    path.push(out.transition.name);
    snap = out.next;
  }
  return { terminal: false, path, waits: waited, fireVariables, state: snap.state, blocked: 'no terminal state within 200 fires' };
}
