// State-contract definitions: the format, its published JSON Schema, and complete validation on
// deploy. A definition is a finite state machine (states, transitions in a fixed order, typed
// variables) whose guards are sandboxed expressions (src/contracts/guard.ts). Validation reports
// every problem it finds, each with the dotted path of the offending field (the same path form
// the node uses for zod issues), so a client can fix a definition in one round trip.
//
// Checks, in order: shape and types of every field; unique state names; the initial state exists;
// transitions name existing states; no transition leaves a terminal state; transition names are
// unique per source state; guards and `set` expressions compile in the sandbox and use only known
// symbols; operator ids exist; at least one terminal state; every state is reachable from the
// initial state; every state has a path to a terminal state (no traps).
import { SvcError, type ErrorIssue } from '../core/errors.ts';
import { compileExpression, type CompiledExpression } from './guard.ts';

export type VarValue = number | boolean | string;

export interface StateDef {
  name: string;
  terminal?: boolean;
  description?: string;
}

export interface TransitionDef {
  from: string;
  to: string;
  name: string;
  /** sandboxed expression; the transition may fire only when it is true */
  guard?: string;
  /** operator ids evaluated when the transition is considered; their outputs are guard symbols
   * and the ids join the fire's seal (after KO42) */
  operators?: string[];
  /** variable assignments applied when the transition fires: name → expression, all evaluated
   * against the values before the transition (simultaneous assignment) */
  set?: Record<string, string>;
  description?: string;
}

export interface ContractDefinition {
  $schema?: string;
  version: string | number;
  name: string;
  description?: string;
  initial: string;
  states: StateDef[];
  transitions: TransitionDef[];
  variables?: Record<string, VarValue>;
  metadata?: Record<string, unknown>;
}

/** 256 KiB: larger definitions are refused with 413 PAYLOAD_TOO_LARGE. */
export const MAX_DEFINITION_BYTES = 256 * 1024;

export const LIMITS = {
  states: 256,
  transitions: 1024,
  variables: 64,
  operatorsPerTransition: 8,
  setsPerTransition: 16,
  nameChars: 120,
  descriptionChars: 2000,
  expressionChars: 1000,
  stringValueChars: 256,
  versionChars: 32,
} as const;

/** Symbols every guard may use besides the contract's variables and its transition's operator outputs. */
export const BUILTIN_SYMBOLS: Record<string, string> = {
  fireCount: 'transitions fired so far on this contract',
  t: 'pulse time: unix seconds (millisecond resolution) of the fire attempt',
  phase: 'pulse phase in [0, 2π) at t',
  svcond: 'pulse time-step counter floor(t / 0.777)',
  enteredAt: 't at which the contract entered its current state',
  createdAt: 't at which the contract was deployed',
  elapsed: 'seconds spent in the current state (t − enteredAt)',
  contractAge: 'seconds since deploy (t − createdAt)',
};

const RESERVED = new Set([
  ...Object.keys(BUILTIN_SYMBOLS),
  'true', 'false', 'null', 'undefined', 'and', 'or', 'not', 'xor', 'mod', 'to', 'in',
  'e', 'E', 'pi', 'PI', 'i', 'Infinity', 'NaN', 'tau', 'phi', 'LN2', 'LN10', 'LOG2E', 'LOG10E', 'SQRT2', 'SQRT1_2',
  // names the sandbox refuses as symbols, and every Object.prototype member: a variable of such a
  // name could never be read by a guard, and `name in obj` would find it on every object
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype', 'eval', 'Function', 'globalThis', 'process', 'require', 'import', 'this',
]);

/** True when a variable name is reserved (builtin symbol, constant, keyword, or a name the
 * sandbox refuses such as `constructor`, `toString` or any name starting with `__`). */
export function isReservedVariableName(name: string): boolean {
  return RESERVED.has(name) || name.startsWith('__');
}

export const STATE_NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
export const VAR_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const OPERATOR_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** The guard symbol under which an operator's output is visible: its id with every character
 * outside [A-Za-z0-9_] replaced by '_' ('SVC-PROTECT-001' → 'SVC_PROTECT_001'). */
export function operatorSymbol(id: string): string {
  const s = id.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(s) ? '_' + s : s;
}

/** The published JSON Schema (draft 2020-12) of a contract definition. The deploy check enforces
 * everything here plus the graph and expression rules a schema cannot state. */
export const DEFINITION_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: '/api/contracts/schema',
  title: 'State contract definition',
  description: 'A finite state machine run by svc_contract_fire. Transitions are tried in array order: a fire takes the first transition leaving the current state whose guard passes. Beyond this schema a deploy also checks: the initial state and every transition endpoint exist; no transition leaves a terminal state; transition names are unique per source state; every state is reachable from the initial state and has a path to a terminal state; guards and set expressions compile in the sandbox and use only known symbols (the variables, the builtins fireCount, t, phase, svcond, enteredAt, createdAt, elapsed, contractAge, and the outputs of the transition\'s operators under their ids with non-word characters as _); no variable uses a reserved name (those builtins, constants such as pi and e, keywords, Object.prototype member names such as constructor, or a name starting with __). A definition is at most 262144 bytes of JSON.',
  type: 'object',
  required: ['version', 'name', 'initial', 'states', 'transitions'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    version: {
      description: 'version of this definition (required)',
      oneOf: [
        { type: 'string', minLength: 1, maxLength: LIMITS.versionChars, pattern: '^[0-9A-Za-z][0-9A-Za-z.+_-]*$' },
        { type: 'integer', minimum: 1 },
      ],
    },
    name: { type: 'string', minLength: 1, maxLength: LIMITS.nameChars },
    description: { type: 'string', maxLength: LIMITS.descriptionChars },
    initial: { type: 'string', pattern: STATE_NAME_RE.source, description: 'name of the state a new contract starts in' },
    states: {
      type: 'array', minItems: 2, maxItems: LIMITS.states,
      items: {
        type: 'object', required: ['name'], additionalProperties: false,
        properties: {
          name: { type: 'string', pattern: STATE_NAME_RE.source },
          terminal: { type: 'boolean', default: false, description: 'a terminal state has no outgoing transitions' },
          description: { type: 'string', maxLength: LIMITS.descriptionChars },
        },
      },
    },
    transitions: {
      type: 'array', minItems: 1, maxItems: LIMITS.transitions,
      items: {
        type: 'object', required: ['from', 'to', 'name'], additionalProperties: false,
        properties: {
          from: { type: 'string', pattern: STATE_NAME_RE.source },
          to: { type: 'string', pattern: STATE_NAME_RE.source },
          name: { type: 'string', pattern: STATE_NAME_RE.source, description: 'unique among the transitions leaving the same state' },
          guard: { type: 'string', minLength: 1, maxLength: LIMITS.expressionChars, description: 'sandboxed boolean expression, e.g. "amount <= limit and not flagged"' },
          operators: {
            type: 'array', maxItems: LIMITS.operatorsPerTransition, uniqueItems: true,
            items: { type: 'string', pattern: OPERATOR_ID_RE.source },
            description: 'catalogued operator ids evaluated on the contract\'s numeric variables; their outputs are guard symbols and the ids join the seal after KO42',
          },
          set: {
            type: 'object', maxProperties: LIMITS.setsPerTransition,
            propertyNames: { pattern: VAR_NAME_RE.source },
            additionalProperties: { type: 'string', minLength: 1, maxLength: LIMITS.expressionChars },
            description: 'assignments applied on firing, variable → expression, evaluated against the values before the transition',
          },
          description: { type: 'string', maxLength: LIMITS.descriptionChars },
        },
      },
    },
    variables: {
      type: 'object', maxProperties: LIMITS.variables,
      propertyNames: { pattern: VAR_NAME_RE.source },
      additionalProperties: {
        oneOf: [{ type: 'number' }, { type: 'boolean' }, { type: 'string', maxLength: LIMITS.stringValueChars }],
      },
      description: 'typed contract variables with their initial values; a variable keeps its type for life',
    },
    metadata: { type: 'object', description: 'free-form, stored and returned as given' },
  },
} as const;

export interface ValidateOptions {
  /** prefix for issue paths, e.g. 'definition' when the definition sits in a request body */
  pathPrefix?: string;
  /** the input keys an operator needs (each must be a numeric variable of the contract), or
   * undefined when the id is not in the catalog; when absent any well-formed id passes */
  operatorInputs?: (id: string) => string[] | undefined;
}

/** Byte size of a definition as JSON; throws PAYLOAD_TOO_LARGE above MAX_DEFINITION_BYTES. */
export function assertDefinitionSize(raw: unknown): void {
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
  } catch {
    throw new SvcError('INVALID_INPUT', 'definition is not serialisable JSON');
  }
  if (size > MAX_DEFINITION_BYTES) {
    throw new SvcError('PAYLOAD_TOO_LARGE', `definition is ${size} bytes; the limit is ${MAX_DEFINITION_BYTES} bytes (256 KiB)`, {
      details: { limit: MAX_DEFINITION_BYTES, size },
    });
  }
}

/** Validates a definition completely and returns a normalised copy, or throws INVALID_INPUT with
 * every issue found (up to 50). */
export function validateDefinition(raw: unknown, opts: ValidateOptions = {}): ContractDefinition {
  assertDefinitionSize(raw);
  const { definition, issues } = checkDefinition(raw, opts);
  if (issues.length || !definition) {
    const shown = issues.slice(0, 50);
    throw new SvcError('INVALID_INPUT', `invalid contract definition: ${shown[0].path}: ${shown[0].message}`, { issues: shown });
  }
  return definition;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every issue of a definition (empty when valid) and, when valid, the normalised definition. */
export function checkDefinition(raw: unknown, opts: ValidateOptions = {}): { definition: ContractDefinition | null; issues: ErrorIssue[] } {
  const issues: ErrorIssue[] = [];
  const p = (...parts: (string | number)[]) => [opts.pathPrefix, ...parts].filter((x) => x !== undefined && x !== '').join('.') || '(body)';
  const add = (path: string, message: string) => { if (issues.length < 200) issues.push({ path, message }); };

  if (!isObj(raw)) {
    add(p(), 'a definition must be a JSON object');
    return { definition: null, issues };
  }
  const allowedTop = new Set(Object.keys(DEFINITION_JSON_SCHEMA.properties));
  for (const k of Object.keys(raw)) if (!allowedTop.has(k)) add(p(k), `unknown field '${k}'`);

  // version (required)
  const version = raw.version;
  if (version === undefined) add(p('version'), 'version is required');
  else if (typeof version === 'number') {
    if (!Number.isInteger(version) || version < 1) add(p('version'), 'a numeric version must be an integer >= 1');
  } else if (typeof version === 'string') {
    if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version) || version.length > LIMITS.versionChars) {
      add(p('version'), `version must be 1 to ${LIMITS.versionChars} characters of [0-9A-Za-z.+_-], e.g. "1.0.0"`);
    }
  } else add(p('version'), 'version must be a string or an integer');

  checkText(raw.name, p('name'), LIMITS.nameChars, true, add);
  checkText(raw.description, p('description'), LIMITS.descriptionChars, false, add);
  if (raw.$schema !== undefined && typeof raw.$schema !== 'string') add(p('$schema'), '$schema must be a string');
  if (raw.metadata !== undefined && !isObj(raw.metadata)) add(p('metadata'), 'metadata must be an object');

  // variables
  const variables: Record<string, VarValue> = {};
  if (raw.variables !== undefined) {
    if (!isObj(raw.variables)) add(p('variables'), 'variables must be an object of name → number | boolean | string');
    else {
      const entries = Object.entries(raw.variables);
      if (entries.length > LIMITS.variables) add(p('variables'), `at most ${LIMITS.variables} variables`);
      for (const [k, v] of entries.slice(0, LIMITS.variables)) {
        if (!VAR_NAME_RE.test(k)) { add(p('variables', k), 'a variable name must match ' + VAR_NAME_RE.source); continue; }
        if (isReservedVariableName(k)) { add(p('variables', k), `'${k}' is reserved (builtin symbol, constant, keyword or a name the sandbox refuses)`); continue; }
        if (typeof v === 'number') {
          if (!Number.isFinite(v)) add(p('variables', k), 'a number must be finite');
          else variables[k] = v;
        } else if (typeof v === 'boolean') variables[k] = v;
        else if (typeof v === 'string') {
          if (v.length > LIMITS.stringValueChars) add(p('variables', k), `a string value is at most ${LIMITS.stringValueChars} characters`);
          else variables[k] = v;
        } else add(p('variables', k), 'a variable must be a number, a boolean or a string');
      }
    }
  }

  // states
  const states: StateDef[] = [];
  const stateIndex = new Map<string, number>();
  if (!Array.isArray(raw.states)) add(p('states'), 'states must be an array');
  else {
    if (raw.states.length < 2) add(p('states'), 'a contract needs at least two states');
    if (raw.states.length > LIMITS.states) add(p('states'), `at most ${LIMITS.states} states`);
    raw.states.slice(0, LIMITS.states).forEach((s, i) => {
      if (!isObj(s)) { add(p('states', i), 'a state must be an object {name, terminal?, description?}'); return; }
      for (const k of Object.keys(s)) if (!['name', 'terminal', 'description'].includes(k)) add(p('states', i, k), `unknown field '${k}'`);
      if (typeof s.name !== 'string' || !STATE_NAME_RE.test(s.name)) { add(p('states', i, 'name'), 'a state name must match ' + STATE_NAME_RE.source); return; }
      if (stateIndex.has(s.name)) { add(p('states', i, 'name'), `duplicate state '${s.name}'`); return; }
      if (s.terminal !== undefined && typeof s.terminal !== 'boolean') add(p('states', i, 'terminal'), 'terminal must be a boolean');
      checkText(s.description, p('states', i, 'description'), LIMITS.descriptionChars, false, add);
      stateIndex.set(s.name, i);
      const st: StateDef = { name: s.name };
      if (s.terminal === true) st.terminal = true;
      if (typeof s.description === 'string') st.description = s.description;
      states.push(st);
    });
  }
  const isTerminal = (name: string) => states[stateIndex.get(name) ?? -1]?.terminal === true;

  // initial
  if (typeof raw.initial !== 'string') add(p('initial'), 'initial must be the name of a state');
  else if (Array.isArray(raw.states) && !stateIndex.has(raw.initial)) add(p('initial'), `unknown state '${raw.initial}'`);
  else if (isTerminal(raw.initial)) add(p('initial'), `the initial state '${raw.initial}' is terminal`);

  // transitions
  const transitions: TransitionDef[] = [];
  const namesByFrom = new Map<string, Set<string>>();
  if (!Array.isArray(raw.transitions)) add(p('transitions'), 'transitions must be an array');
  else {
    if (raw.transitions.length < 1) add(p('transitions'), 'a contract needs at least one transition');
    if (raw.transitions.length > LIMITS.transitions) add(p('transitions'), `at most ${LIMITS.transitions} transitions`);
    raw.transitions.slice(0, LIMITS.transitions).forEach((tr, i) => {
      if (!isObj(tr)) { add(p('transitions', i), 'a transition must be an object {from, to, name, guard?, operators?, set?}'); return; }
      let ok = true;
      for (const k of Object.keys(tr)) if (!['from', 'to', 'name', 'guard', 'operators', 'set', 'description'].includes(k)) { add(p('transitions', i, k), `unknown field '${k}'`); ok = false; }
      for (const f of ['from', 'to'] as const) {
        const v = tr[f];
        if (typeof v !== 'string') { add(p('transitions', i, f), `${f} must be a state name`); ok = false; }
        else if (!stateIndex.has(v)) { add(p('transitions', i, f), `unknown state '${v}'`); ok = false; }
      }
      if (typeof tr.name !== 'string' || !STATE_NAME_RE.test(tr.name)) { add(p('transitions', i, 'name'), 'a transition name must match ' + STATE_NAME_RE.source); ok = false; }
      if (typeof tr.from === 'string' && isTerminal(tr.from)) { add(p('transitions', i, 'from'), `transition leaves terminal state '${tr.from}'`); ok = false; }
      if (ok) {
        const set = namesByFrom.get(tr.from as string) ?? new Set();
        if (set.has(tr.name as string)) { add(p('transitions', i, 'name'), `two transitions named '${tr.name}' leave state '${tr.from}'`); ok = false; }
        set.add(tr.name as string);
        namesByFrom.set(tr.from as string, set);
      }
      checkText(tr.description, p('transitions', i, 'description'), LIMITS.descriptionChars, false, add);

      // operators
      const operators: string[] = [];
      if (tr.operators !== undefined) {
        if (!Array.isArray(tr.operators)) { add(p('transitions', i, 'operators'), 'operators must be an array of operator ids'); ok = false; }
        else {
          if (tr.operators.length > LIMITS.operatorsPerTransition) { add(p('transitions', i, 'operators'), `at most ${LIMITS.operatorsPerTransition} operators per transition`); ok = false; }
          tr.operators.slice(0, LIMITS.operatorsPerTransition).forEach((id, j) => {
            if (typeof id !== 'string' || !OPERATOR_ID_RE.test(id)) { add(p('transitions', i, 'operators', j), 'an operator id must match ' + OPERATOR_ID_RE.source); ok = false; return; }
            if (operators.includes(id)) { add(p('transitions', i, 'operators', j), `operator '${id}' listed twice`); ok = false; return; }
            if (opts.operatorInputs) {
              const needs = opts.operatorInputs(id);
              if (!needs) { add(p('transitions', i, 'operators', j), `unknown operator '${id}'`); ok = false; return; }
              const missing = needs.filter((k) => typeof variables[k] !== 'number');
              if (missing.length) {
                add(p('transitions', i, 'operators', j), `operator '${id}' takes its inputs from numeric variables; declare ${missing.map((k) => `'${k}'`).join(', ')}`);
                ok = false;
                return;
              }
            }
            const sym = operatorSymbol(id);
            if (Object.hasOwn(variables, sym)) { add(p('transitions', i, 'operators', j), `operator output '${sym}' would shadow the variable of the same name`); ok = false; return; }
            operators.push(id);
          });
        }
      }
      const known = new Set([...Object.keys(variables), ...Object.keys(BUILTIN_SYMBOLS), ...operators.map(operatorSymbol)]);

      // guard
      let guard: string | undefined;
      if (tr.guard !== undefined) {
        if (typeof tr.guard !== 'string' || !tr.guard.trim()) { add(p('transitions', i, 'guard'), 'a guard must be a non-empty expression string'); ok = false; }
        else if (tr.guard.length > LIMITS.expressionChars) { add(p('transitions', i, 'guard'), `a guard is at most ${LIMITS.expressionChars} characters`); ok = false; }
        else {
          const msg = checkExpression(tr.guard, known);
          if (msg) { add(p('transitions', i, 'guard'), msg); ok = false; }
          else guard = tr.guard;
        }
      }

      // set
      let setOut: Record<string, string> | undefined;
      if (tr.set !== undefined) {
        if (!isObj(tr.set)) { add(p('transitions', i, 'set'), 'set must be an object of variable → expression'); ok = false; }
        else {
          const entries = Object.entries(tr.set);
          if (entries.length > LIMITS.setsPerTransition) { add(p('transitions', i, 'set'), `at most ${LIMITS.setsPerTransition} assignments per transition`); ok = false; }
          setOut = {};
          for (const [k, expr] of entries.slice(0, LIMITS.setsPerTransition)) {
            if (!Object.hasOwn(variables, k)) { add(p('transitions', i, 'set', k), `'${k}' is not a declared variable`); ok = false; continue; }
            if (typeof expr !== 'string' || !expr.trim() || expr.length > LIMITS.expressionChars) {
              add(p('transitions', i, 'set', k), `an assignment is a non-empty expression string of at most ${LIMITS.expressionChars} characters`); ok = false; continue;
            }
            const msg = checkExpression(expr, known);
            if (msg) { add(p('transitions', i, 'set', k), msg); ok = false; continue; }
            setOut[k] = expr;
          }
        }
      }
      if (!ok) return;
      const out: TransitionDef = { from: tr.from as string, to: tr.to as string, name: tr.name as string };
      if (guard !== undefined) out.guard = guard;
      if (operators.length) out.operators = operators;
      if (setOut && Object.keys(setOut).length) out.set = setOut;
      if (typeof tr.description === 'string') out.description = tr.description;
      transitions.push(out);
    });
  }

  // graph rules, only when the parts above are sound (otherwise they would repeat earlier issues)
  if (!issues.length) {
    if (!states.some((s) => s.terminal)) add(p('states'), 'at least one state must be terminal');
    else {
      const initial = raw.initial as string;
      const out = new Map<string, string[]>();
      const inc = new Map<string, string[]>();
      for (const t of transitions) {
        (out.get(t.from) ?? out.set(t.from, []).get(t.from)!).push(t.to);
        (inc.get(t.to) ?? inc.set(t.to, []).get(t.to)!).push(t.from);
      }
      const reachable = bfs([initial], out);
      const canFinish = bfs(states.filter((s) => s.terminal).map((s) => s.name), inc);
      states.forEach((s, i) => {
        if (!reachable.has(s.name)) add(p('states', i), `state '${s.name}' is unreachable from the initial state '${initial}'`);
        else if (!canFinish.has(s.name)) add(p('states', i), `no path from state '${s.name}' to a terminal state`);
      });
    }
  }

  if (issues.length) return { definition: null, issues };
  const definition: ContractDefinition = {
    version: version as string | number,
    name: raw.name as string,
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    initial: raw.initial as string,
    states,
    transitions,
    variables,
    ...(isObj(raw.metadata) ? { metadata: raw.metadata } : {}),
  };
  return { definition, issues };
}

function checkText(v: unknown, path: string, max: number, required: boolean, add: (p: string, m: string) => void): void {
  if (v === undefined) { if (required) add(path, 'required'); return; }
  if (typeof v !== 'string') { add(path, 'must be a string'); return; }
  if (required && !v.trim()) add(path, 'must not be empty');
  if (v.length > max) add(path, `at most ${max} characters`);
}

function bfs(starts: string[], edges: Map<string, string[]>): Set<string> {
  const seen = new Set(starts);
  const queue = [...starts];
  while (queue.length) {
    const s = queue.shift()!;
    for (const n of edges.get(s) ?? []) if (!seen.has(n)) { seen.add(n); queue.push(n); }
  }
  return seen;
}

/** Compiles an expression in the sandbox; returns a message when it is refused or uses an
 * unknown symbol, else null. Never throws. */
function checkExpression(expr: string, known: Set<string>): string | null {
  let compiled: CompiledExpression;
  try {
    compiled = compileExpression(expr);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return `refused expression: ${msg}`;
  }
  const unknown = compiled.symbols.filter((s) => !known.has(s));
  if (unknown.length) return `unknown symbol${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `'${s}'`).join(', ')} (known: variables, ${Object.keys(BUILTIN_SYMBOLS).join(', ')} and the transition's operator outputs)`;
  return null;
}
