// svc_unified: composition of catalogued and caller-supplied operators under KO42.
//   Operators are ids (catalogued, evaluated with units through the dimensional gate) or
//   objects {id, equation, unit?, kind?} (sandboxed with compileSafe; equations see the inputs,
//   the consts t, alpha, f_H, T_Z, and the values of earlier operators by id).
//   KO42 is prepended; as a formula it is the identity S (= 1 when normalised), so it leaves
//   values unchanged and contributes R_t (DESIGN §6).
// Strategy (chosen automatically):
//   B  sequential timeline, when any operator has kind 'ode': a state y flows through the
//      operators in order; an algebraic operator maps y -> f(y, ...), an 'ode' operator
//      integrates dy/dt = f(t, y, ...) over [0, tMax] with classical RK4 (src/solvers/lib/ode.ts;
//      steps from consts.steps). y starts at the initial state given as inputs.y0 or inputs.y
//      (default 0); the unit is the last operator's.
//   A  algebraic product, when two or more operators follow KO42: value = S x prod(v_i), unit =
//      the product of the declared units, symbol by symbol (units.ts productOfUnits): the unit
//      of the value in the scale it is in, never a name picked from the dimension alone.
//   C  single-operator fallback: value = S x v_1, in the operator's declared unit (as svc_compute).
import { SvcError } from '../core/errors.ts';
import { ALPHA, PULSE_HZ, SVCOND_SECONDS, pulseAt } from '../core/clock.ts';
import { rk4Integrate } from '../solvers/lib/ode.ts';
import { evaluateSI, evaluateWithUnits, getOperator, relativeDiffPct, unitLabel } from './catalog.ts';
import { bindInputs } from './gate.ts';
import { compileSafe, type SafeExpression } from '../core/sandbox.ts';
import { umath, productOfUnits } from './units.ts';
import type { OperatorDef } from './types.ts';

export const MAX_UNIFIED_OPERATORS = 8;
export const MAX_RK4_STEPS = 5000;
export const DEFAULT_RK4_STEPS = 200;

export interface CustomOperator { id: string; equation?: string; unit?: string; kind?: 'algebraic' | 'ode' }
export type UnifiedOperator = string | CustomOperator;

export interface UnifiedRequest {
  operators: UnifiedOperator[];
  inputs?: Record<string, unknown>;
  consts?: Record<string, number>;
}

export interface Intermediate {
  id: string;
  source: 'catalog' | 'custom';
  kind: 'algebraic' | 'ode';
  equation: string;
  value: number;
  unit: string;
}

export interface UnifiedOutcome {
  strategy: 'A' | 'B' | 'C';
  method: string;
  value: number;
  unit: string;
  intermediates: Intermediate[];
  compiled: string;
  chain: string[];
  consts: { t: number; alpha: number; f_H: number; T_Z: number; S: number; phase: number; R_t: number };
  precision: { errorPct: number; boundPct: number; reference: string; withinBound: boolean };
}

const ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const UNIT_RE = /^[A-Za-z0-9 ^*/().\-]{1,64}$/;
const identifier = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');

function invalid(message: string, path = 'operators'): SvcError {
  return new SvcError('INVALID_INPUT', message, { issues: [{ path, message }] });
}

interface Resolved { id: string; def?: OperatorDef; custom?: CustomOperator; safe?: SafeExpression; kind: 'algebraic' | 'ode'; unit: string }

function checkedUnit(u: string | undefined, id: string): string {
  if (u === undefined || u.trim() === '' || u.trim() === '1') return '1';
  if (!UNIT_RE.test(u)) throw invalid(`${id}: unit '${u}' is not a unit string`, 'operators.unit');
  try {
    const x = umath().unit(1, u) as any;
    if (x.units.some((p: any) => p.unit.offset)) throw new Error('offset unit');
  } catch {
    throw invalid(`${id}: unit '${u}' is not a unit mathjs knows`, 'operators.unit');
  }
  return u.trim();
}

/** The unit of a product of values in these declared units (see productOfUnits in units.ts). */
export function productUnit(units: string[]): string {
  return productOfUnits(units);
}

/** consts the composition reads; anything else is refused rather than ignored. */
const CONST_KEYS = ['t', 'alpha', 'f_H', 'T_Z', 'tMax', 'steps'];
const TIMELINE_CONSTS = ['tMax', 'steps'];

export function resolveOperators(list: UnifiedOperator[]): Resolved[] {
  if (!Array.isArray(list)) throw invalid('operators must be an array');
  if (list.length > MAX_UNIFIED_OPERATORS) throw invalid(`at most ${MAX_UNIFIED_OPERATORS} operators`);
  const out: Resolved[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    if (typeof item === 'string') {
      const def = getOperator(item);
      if (!def) throw invalid(`unknown operator '${item}'`);
      if (def.id === 'KO42' || seen.has(def.id)) continue;
      seen.add(def.id);
      out.push({ id: def.id, def, kind: 'algebraic', unit: def.output.unit });
      continue;
    }
    if (!item || typeof item !== 'object' || typeof item.id !== 'string' || !ID_RE.test(item.id)) throw invalid('each operator is an id or an object {id, equation, unit?, kind?}');
    if (item.equation === undefined || item.equation === null) {
      const def = getOperator(item.id);
      if (!def) throw invalid(`unknown operator '${item.id}' (give an equation for a custom operator)`);
      if (item.kind === 'ode') throw invalid(`${def.id} is a catalogued (algebraic) operator; kind 'ode' needs an equation dy/dt = f(t, y, ...)`, 'operators.kind');
      if (item.unit !== undefined && item.unit.trim() !== def.output.unit.trim()) {
        throw invalid(`${def.id} gives its value in its declared unit '${def.output.unit}'; unit '${item.unit}' applies only to custom operators`, 'operators.unit');
      }
      if (def.id === 'KO42' || seen.has(def.id)) continue;
      seen.add(def.id);
      out.push({ id: def.id, def, kind: 'algebraic', unit: def.output.unit });
      continue;
    }
    if (typeof item.equation !== 'string') throw invalid(`${item.id}: equation must be a string`);
    const kind = item.kind ?? 'algebraic';
    if (kind !== 'algebraic' && kind !== 'ode') throw invalid(`${item.id}: kind must be 'algebraic' or 'ode'`);
    if (item.id.toUpperCase() === 'KO42') continue;
    if (seen.has(item.id)) throw invalid(`operator id '${item.id}' appears twice`);
    seen.add(item.id);
    const safe = compileSafe(item.equation);
    out.push({ id: item.id, custom: item, safe, kind, unit: checkedUnit(item.unit, item.id) });
  }
  return out;
}

/** Composes the operators. `now` is the clock instant used when consts.t is not given. */
export function composeUnified(req: UnifiedRequest, now: number): UnifiedOutcome {
  const consts = req.consts ?? {};
  for (const [k, v] of Object.entries(consts)) {
    if (!CONST_KEYS.includes(k)) throw invalid(`consts.${k} is not read by the composition (consts: ${CONST_KEYS.join(', ')})`, `consts.${k}`);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`consts.${k} must be a finite number`, `consts.${k}`);
  }
  const t = consts.t ?? now;
  const alpha = consts.alpha ?? ALPHA;
  const f_H = consts.f_H ?? PULSE_HZ;
  const T_Z = consts.T_Z ?? SVCOND_SECONDS;
  const S = 1;
  // the clock's exact phase when f_H is the pulse frequency; otherwise 2 pi frac(f_H t)
  const phase = f_H === PULSE_HZ ? pulseAt(t).phase : 2 * Math.PI * (((f_H * t) % 1 + 1) % 1);
  const R_t = S * (1 + alpha * Math.sin(phase));
  const resolved = resolveOperators(req.operators ?? []);
  const rawInputs = req.inputs ?? {};
  const hasOde = resolved.some((r) => r.kind === 'ode');
  if (!hasOde) {
    for (const k of TIMELINE_CONSTS) {
      if (k in consts) throw invalid(`consts.${k} applies only to a timeline with an operator of kind 'ode'; none is given`, `consts.${k}`);
    }
  }

  // Catalogued operators go through the dimensional gate; custom ones read raw numbers.
  const catalogDefs = resolved.filter((r) => r.def).map((r) => r.def!);
  const customSymbols = new Set(resolved.flatMap((r) => r.safe?.symbols ?? []));
  const catalogKeys = new Set(catalogDefs.flatMap((d) => Object.keys(d.inputs)));
  // The timeline's initial state (strategy B): inputs.y0, or inputs.y (the state's own name) when
  // no catalogued operator declares an input y. Giving both is ambiguous and refused.
  const stateKeys = hasOde ? ['y0', ...(catalogKeys.has('y') ? [] : ['y'])].filter((k) => Object.prototype.hasOwnProperty.call(rawInputs, k)) : [];
  if (stateKeys.length > 1) throw invalid('the initial state is given twice (inputs.y0 and inputs.y); give one', 'inputs.y0');
  const forCatalog: Record<string, unknown> = {};
  const numeric: Record<string, number> = {};
  for (const [k, v] of Object.entries(rawInputs)) {
    if (catalogKeys.has(k)) forCatalog[k] = v;
    if (typeof v === 'number' && Number.isFinite(v)) numeric[k] = v;
    else if (!catalogKeys.has(k)) throw invalid(`inputs.${k} must be a finite number`, `inputs.${k}`);
    if (!catalogKeys.has(k) && !customSymbols.has(k) && !stateKeys.includes(k)) {
      throw new SvcError('DIMENSIONAL_GATE', `unknown input key '${k}': no operator reads it`, { details: { value: null, keys: [k] } });
    }
  }
  const bound = catalogDefs.length ? bindInputs(catalogDefs, forCatalog) : {};

  const base: Record<string, unknown> = { ...numeric, t, alpha, f_H, T_Z, S, R_t, phase };
  const intermediates: Intermediate[] = [];
  const strategy: UnifiedOutcome['strategy'] = hasOde ? 'B' : resolved.length >= 2 ? 'A' : 'C';

  let worstGap = 0;
  const evalAlgebraic = (r: Resolved, scope: Record<string, unknown>): number => {
    if (r.def) {
      const v = evaluateWithUnits(r.def, bound[r.def.id]);
      worstGap = Math.max(worstGap, relativeDiffPct(v, evaluateSI(r.def, bound[r.def.id])));
      return v;
    }
    const v = r.safe!.evaluate(scope);
    const n = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(`${r.id} did not evaluate to a finite number (got ${String(n)})`);
    return n;
  };
  const record = (r: Resolved, value: number) => {
    intermediates.push({ id: r.id, source: r.def ? 'catalog' : 'custom', kind: r.kind, equation: r.def ? r.def.equation : r.safe!.expression, value, unit: unitLabel(r.unit) });
    base[identifier(r.id)] = value;
  };

  let value: number;
  let unit: string;
  let compiled: string;
  if (strategy === 'B') {
    const tMax = consts.tMax ?? 1;
    const steps = Math.round(consts.steps ?? DEFAULT_RK4_STEPS);
    if (!(tMax > 0) || tMax > 1e6) throw invalid('consts.tMax must be in (0, 1e6]', 'consts.tMax');
    if (!(steps >= 1 && steps <= MAX_RK4_STEPS)) throw invalid(`consts.steps must be 1..${MAX_RK4_STEPS}`, 'consts.steps');
    const stateKey = stateKeys[0];
    let y = stateKey ? numeric[stateKey] : 0;
    const first = resolved[0];
    // the state enters the first operator; when that one is algebraic and reads neither y nor the
    // key (and, for y0, no operator reads y0 as a parameter), the given state would be ignored
    const firstReads = first.kind === 'ode' || !!first.safe?.symbols.some((n) => n === 'y' || n === stateKey);
    if (stateKey && !firstReads && !(stateKey === 'y0' && customSymbols.has('y0'))) {
      throw invalid(`inputs.${stateKey} is the timeline's initial state, but the first operator ${first.id} does not read it (it reads neither y nor ${stateKey})`, `inputs.${stateKey}`);
    }
    const parts: string[] = [];
    const integrate = (r: Resolved, y0: number, n: number): number => {
      const state = new Float64Array([y0]);
      const scope: Record<string, unknown> = { ...base };
      rk4Integrate((tt, yy, out) => {
        scope.t = tt;
        scope.y = yy[0];
        const d = r.safe!.evaluate(scope);
        const dv = typeof d === 'boolean' ? (d ? 1 : 0) : d;
        if (typeof dv !== 'number' || !Number.isFinite(dv)) throw new SvcError('UNSTABLE', `${r.id}: dy/dt is not finite at t = ${tt}; the timeline diverged`, { details: { value: null } });
        out[0] = dv;
      }, 0, state, tMax / n, n);
      if (!Number.isFinite(state[0])) throw new SvcError('UNSTABLE', `${r.id}: the timeline diverged`, { details: { value: null } });
      return state[0];
    };
    for (const r of resolved) {
      if (r.kind === 'ode') {
        const full = integrate(r, y, steps);
        // step-doubling estimate: RK4 error at h is about (y_h - y_2h) / 15
        if (steps >= 2) {
          const coarse = integrate(r, y, Math.max(1, Math.floor(steps / 2)));
          worstGap = Math.max(worstGap, relativeDiffPct(full, full + (full - coarse) / 15));
        }
        y = full;
        parts.push(`RK4[dy/dt = ${r.safe!.expression}; t in [0, ${tMax}], ${steps} steps]`);
      } else {
        y = evalAlgebraic(r, { ...base, y });
        parts.push(`y = ${r.def ? r.def.equation : r.safe!.expression}`);
      }
      record(r, y);
    }
    value = S * y;
    unit = unitLabel(resolved[resolved.length - 1].unit);
    compiled = `S * (${parts.join(' -> ')})`;
  } else if (resolved.length === 0) {
    value = S;
    unit = '1';
    compiled = 'S';
  } else {
    let prod = 1;
    for (const r of resolved) {
      const v = evalAlgebraic(r, { ...base });
      record(r, v);
      prod *= v;
    }
    if (!Number.isFinite(prod)) throw invalid('the composed product is not finite');
    value = S * prod;
    unit = productUnit(resolved.map((r) => r.unit));
    compiled = ['S', ...resolved.map((r) => `(${r.def ? r.def.equation : r.safe!.expression})`)].join(' * ');
  }
  const method = strategy === 'A' ? 'algebraic-product' : strategy === 'B' ? 'sequential-rk4' : 'single-operator';
  const reference = strategy === 'B'
    ? 'per-operator intermediates; RK4 step-doubling error estimate; catalogued operators recomputed in SI floats'
    : 'per-operator intermediates; catalogued operators recomputed in SI floats';
  return {
    strategy, method, value, unit, intermediates, compiled,
    chain: ['KO42', ...resolved.map((r) => r.id)],
    consts: { t, alpha, f_H, T_Z, S, phase, R_t },
    precision: { errorPct: worstGap, boundPct: 0.1, reference, withinBound: worstGap <= 0.1 },
  };
}
