// The pure state-machine step: no database, no clock, no keys. Given a validated definition, a
// snapshot of a contract (state, fireCount, variables, times) and the pulse of the attempt, it
// decides what one fire does. The DB runtime (runtime.ts) calls exactly this inside a locked
// transaction, so the pure tests over all templates test the same rule the node runs.
//
// Rule (documented in docs/contracts.md): the candidates are the transitions leaving the current
// state, in definition order (only the one named, when the caller names one). For each candidate
// the operators it lists are evaluated, then its guard; the first candidate whose guard passes (or
// that has no guard) fires. Its `set` assignments are evaluated against the values before the
// transition (simultaneous assignment), the state moves, fireCount grows by one. When no candidate
// passes nothing changes and the outcome carries the reason, the guard and the values it saw.
import { SvcError } from '../core/errors.ts';
import type { ContractDefinition, TransitionDef, VarValue } from './definition.ts';
import { operatorSymbol } from './definition.ts';
import { compileExpression, guardPasses } from './guard.ts';

export interface ContractSnapshot {
  state: string;
  fireCount: number;
  variables: Record<string, VarValue>;
  /** pulse t at which the current state was entered */
  enteredAt: number;
  /** pulse t of the deploy */
  createdAt: number;
}

export interface FireEnv {
  t: number;
  phase: number;
  svcond: number;
  /** fire only the transition with this name (it must leave the current state) */
  transition?: string;
  /** variable updates proposed with this fire: applied before the guards, kept only if it fires */
  variables?: Record<string, VarValue>;
  /** evaluates a transition's operators on the contract's variables → output by operator id */
  evaluateOperators?: (operatorIds: string[], variables: Record<string, VarValue>) => Record<string, number>;
}

export interface BlockedCandidate {
  transition: string;
  to: string;
  guard: string | null;
  values: Record<string, unknown>;
  reason: string;
}

export type FireOutcome =
  | {
      fired: true;
      transition: TransitionDef;
      /** index of the transition in definition.transitions */
      index: number;
      from: string;
      to: string;
      next: ContractSnapshot;
      /** the symbols the guard saw (empty without a guard) */
      values: Record<string, unknown>;
      operatorOutputs: Record<string, number>;
      /** candidates tried before the one that fired */
      skipped: BlockedCandidate[];
    }
  | {
      fired: false;
      reason: string;
      guard: string | null;
      values: Record<string, unknown>;
      blocked: BlockedCandidate[];
      terminal: boolean;
    };

export function isTerminal(def: ContractDefinition, state: string): boolean {
  return def.states.some((s) => s.name === state && s.terminal === true);
}

export function initialSnapshot(def: ContractDefinition, t: number, overrides?: Record<string, VarValue>): ContractSnapshot {
  return {
    state: def.initial,
    fireCount: 0,
    variables: applyVariableUpdates(def, { ...(def.variables ?? {}) }, overrides, 'variables'),
    enteredAt: t,
    createdAt: t,
  };
}

/** Checks proposed updates against the declared variables (name and type) and returns the merged
 * values. Throws INVALID_INPUT naming the offending variable. */
export function applyVariableUpdates(
  def: ContractDefinition,
  current: Record<string, VarValue>,
  updates: Record<string, VarValue> | undefined,
  path = 'variables',
): Record<string, VarValue> {
  if (!updates) return current;
  const declared = def.variables ?? {};
  const out = { ...current };
  const issues: { path: string; message: string }[] = [];
  for (const [k, v] of Object.entries(updates)) {
    if (!Object.hasOwn(declared, k)) { issues.push({ path: `${path}.${k}`, message: `'${k}' is not a variable of this contract (declared: ${Object.keys(declared).join(', ') || 'none'})` }); continue; }
    const want = typeof declared[k];
    if (typeof v !== want) { issues.push({ path: `${path}.${k}`, message: `'${k}' is a ${want}; got ${v === null ? 'null' : typeof v}` }); continue; }
    if (typeof v === 'number' && !Number.isFinite(v)) { issues.push({ path: `${path}.${k}`, message: 'a number must be finite' }); continue; }
    if (typeof v === 'string' && v.length > 256) { issues.push({ path: `${path}.${k}`, message: 'a string value is at most 256 characters' }); continue; }
    out[k] = v;
  }
  if (issues.length) throw new SvcError('INVALID_INPUT', `invalid variables: ${issues[0].path}: ${issues[0].message}`, { issues });
  return out;
}

function baseScope(snap: ContractSnapshot, variables: Record<string, VarValue>, env: FireEnv): Record<string, unknown> {
  return {
    ...variables,
    fireCount: snap.fireCount,
    t: env.t,
    phase: env.phase,
    svcond: env.svcond,
    enteredAt: snap.enteredAt,
    createdAt: snap.createdAt,
    elapsed: round3(env.t - snap.enteredAt),
    contractAge: round3(env.t - snap.createdAt),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function jsonSafe(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'boolean' || typeof v === 'string' || v === null) return v;
  if (v === undefined) return null;
  return String(v);
}

/** One fire attempt. Pure; never throws for a guard that errs at run time (that blocks with the
 * error as reason). Throws INVALID_INPUT for a named transition that does not leave the state or
 * for ill-typed variable updates. */
export function fireOnce(def: ContractDefinition, snap: ContractSnapshot, env: FireEnv): FireOutcome {
  if (isTerminal(def, snap.state)) {
    if (env.variables) applyVariableUpdates(def, snap.variables, env.variables);
    return { fired: false, reason: `the contract is in terminal state '${snap.state}'; nothing can fire`, guard: null, values: {}, blocked: [], terminal: true };
  }
  const variables = applyVariableUpdates(def, snap.variables, env.variables);
  let candidates = def.transitions.map((t, index) => ({ t, index })).filter((c) => c.t.from === snap.state);
  if (env.transition !== undefined) {
    candidates = candidates.filter((c) => c.t.name === env.transition);
    if (!candidates.length) {
      const names = def.transitions.filter((t) => t.from === snap.state).map((t) => t.name);
      throw new SvcError('INVALID_INPUT', `no transition named '${env.transition}' leaves state '${snap.state}' (available: ${names.join(', ')})`, {
        issues: [{ path: 'transition', message: `available from '${snap.state}': ${names.join(', ')}` }],
      });
    }
  }
  const scope0 = baseScope(snap, variables, env);
  const blocked: BlockedCandidate[] = [];
  for (const { t, index } of candidates) {
    const scope: Record<string, unknown> = { ...scope0 };
    let operatorOutputs: Record<string, number> = {};
    if (t.operators?.length) {
      if (!env.evaluateOperators) {
        blocked.push({ transition: t.name, to: t.to, guard: t.guard ?? null, values: {}, reason: 'operators cannot be evaluated here' });
        continue;
      }
      try {
        operatorOutputs = env.evaluateOperators(t.operators, variables);
      } catch (e) {
        blocked.push({ transition: t.name, to: t.to, guard: t.guard ?? null, values: {}, reason: `operator evaluation failed: ${describe(e)}` });
        continue;
      }
      for (const [id, v] of Object.entries(operatorOutputs)) scope[operatorSymbol(id)] = v;
    }
    const values: Record<string, unknown> = {};
    if (t.guard) {
      let passed = false;
      let why = '';
      try {
        const g = compileExpression(t.guard);
        for (const s of g.symbols) values[s] = jsonSafe(scope[s]);
        const r = g.evaluate(scope);
        passed = guardPasses(r);
        if (!passed) why = `guard of '${t.name}' is ${jsonSafe(r) === false ? 'false' : `not true (${JSON.stringify(jsonSafe(r))})`}: ${t.guard}`;
      } catch (e) {
        why = `guard of '${t.name}' could not be evaluated: ${describe(e)}`;
      }
      if (!passed) {
        blocked.push({ transition: t.name, to: t.to, guard: t.guard, values, reason: why });
        continue;
      }
    }
    // assignments, all against the values before the transition
    let nextVars = variables;
    if (t.set) {
      nextVars = { ...variables };
      let failed: string | null = null;
      for (const [k, expr] of Object.entries(t.set)) {
        try {
          const v = compileExpression(expr).evaluate(scope);
          const want = typeof (def.variables ?? {})[k];
          if (typeof v !== want || (typeof v === 'number' && !Number.isFinite(v))) {
            failed = `assignment ${k} = ${expr} gave ${JSON.stringify(jsonSafe(v))}, not a finite ${want}`;
            break;
          }
          nextVars[k] = v as VarValue;
        } catch (e) {
          failed = `assignment ${k} = ${expr} failed: ${describe(e)}`;
          break;
        }
      }
      if (failed) {
        blocked.push({ transition: t.name, to: t.to, guard: t.guard ?? null, values, reason: failed });
        continue;
      }
    }
    return {
      fired: true,
      transition: t,
      index,
      from: snap.state,
      to: t.to,
      next: {
        state: t.to,
        fireCount: snap.fireCount + 1,
        variables: nextVars,
        enteredAt: env.t,
        createdAt: snap.createdAt,
      },
      values,
      operatorOutputs,
      skipped: blocked,
    };
  }
  const first = blocked[0];
  const reason = blocked.length === 1
    ? `blocked: ${first.reason}`
    : `blocked: none of the ${blocked.length} transitions leaving '${snap.state}' may fire (${blocked.map((b) => b.transition).join(', ')}); first: ${first?.reason}`;
  return { fired: false, reason, guard: first?.guard ?? null, values: first?.values ?? {}, blocked, terminal: false };
}

/** Fires repeatedly from a snapshot until a terminal state (or maxSteps): the path a contract
 * takes when nobody names transitions or changes variables. Used by the template tests and the
 * generator's self-check. */
export function runToEnd(
  def: ContractDefinition,
  snap: ContractSnapshot,
  envAt: (step: number) => FireEnv,
  maxSteps = 200,
): { path: string[]; final: ContractSnapshot; terminal: boolean; blocked?: string } {
  const path: string[] = [];
  let cur = snap;
  for (let step = 0; step < maxSteps; step++) {
    if (isTerminal(def, cur.state)) return { path, final: cur, terminal: true };
    const out = fireOnce(def, cur, envAt(step));
    if (!out.fired) return { path, final: cur, terminal: false, blocked: out.reason };
    path.push(out.transition.name);
    cur = out.next;
  }
  return { path, final: cur, terminal: isTerminal(def, cur.state) };
}
