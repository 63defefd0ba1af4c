// ode: the caller's own initial-value problem y' = f(t, y), y(t0) = y0, given as expressions in
// t, the named states and parameters (the sandboxed evaluator), integrated by lib/ivp.ts:
// Dormand-Prince 5(4) (RK45) and 8(5,3) (DOP853) with dense output for non-stiff problems, Radau
// IIA of order 5 and variable-order BDF/NDF (orders 1-5) with the exact symbolic Jacobian for
// stiff ones, and 'auto' (RK45 or DOP853 with Hairer's stiffness detection, switching to Radau
// and back). Events are zero crossings of expressions located on the dense output (Brent).
//
// Precision (no analytic reference): a global error estimate. The problem is solved again with
// the same method at tolerances 100× tighter (rtol/100, atol/100) and the difference of the two
// end states is the estimate for each component (the tighter solution's own error is about
// 100^(p/(p+1)) ≈ 40-50× smaller for the orders used, so the difference is the coarse solution's
// error to within a few per cent; Hairer, Nørsett & Wanner I, §II.4, "global error estimation by
// re-integration"). errorPct = 100·max_i |Δ_i| / max(|y_i(tEnd)|, atol_i/rtol): a component
// smaller than atol_i/rtol (where the absolute tolerance governs) is measured against that
// level instead of its own size. The bound defaults to 0.1 %.
import { z } from 'zod';
import { solveIvp, type IvpEvent, type IvpResult, type IvpSystem } from './lib/ivp.ts';
import { precisionOf } from './lib/precision.ts';
import { compileSystem } from './lib/expr.ts';
import { refuse } from '../core/errors.ts';
import { compileSafe } from '../core/sandbox.ts';
import { noEffectRefusal } from './lib/no-effect.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';

const MAX_STATES = 100;
const MAX_EXPR = 4096;
const MAX_EVENTS = 16;
const MAX_INVARIANTS = 16;
const MAX_PARAMS = 200;
const MAX_TEVAL = 5000;
/** output numbers (output times × states) kept in the result */
const MAX_OUTPUT = 200_000;
const DEFAULT_SAMPLE = 101;
/** evaluations of f allowed per accepted step allowed (the evaluation cap is this × maxSteps) */
const NFEV_PER_STEP = 40;
/** the re-solve may take this many times the solve's step budget */
const RESOLVE_STEP_FACTOR = 10;
/** event occurrences listed (more are counted in eventCount) */
const MAX_EVENT_HITS = 1000;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RESERVED = new Set(['t', 'pi', 'e', 'tau', 'true', 'false', 'Infinity', 'NaN']);

const finite = z.number().finite();
const nameKey = z.string().regex(NAME_RE, 'names are 1-64 characters of A-Z a-z 0-9 _, not starting with a digit');

const input = z.strictObject({
  equations: z.record(nameKey, z.string().min(1).max(MAX_EXPR)).default({ x: 'v', v: '-x' })
    .describe('state name → expression of its derivative in t, the states and params (1 to 100 states, each ≤ 4,096 characters); the order of the keys is the order of the states (default: the harmonic oscillator x\' = v, v\' = −x)')
    .meta({ examples: [{ x: 'y', y: 'mu*(1 - x^2)*y - x' }, { y1: '-0.04*y1 + 1e4*y2*y3', y2: '0.04*y1 - 1e4*y2*y3 - 3e7*y2^2', y3: '3e7*y2^2' }] }),
  y0: z.record(nameKey, finite).default({ x: 1, v: 0 }).describe('state name → initial value at tSpan[0]; the same keys as equations (default {x: 1, v: 0})')
    .meta({ examples: [{ x: 2, y: 0 }, { y1: 1, y2: 0, y3: 0 }] }),
  params: z.record(nameKey, finite).default({}).describe('parameter name → constant value; each must be used by an equation, event or invariant').meta({ examples: [{ mu: 1000 }] }),
  tSpan: z.tuple([finite, finite]).default([0, 10]).describe('[t0, t1], t1 > t0 (default [0, 10])'),
  tEval: z.array(finite).min(1).max(MAX_TEVAL).optional()
    .describe('output times, strictly increasing, inside tSpan (default: `sample` evenly spaced points); not together with sample'),
  events: z.array(z.strictObject({
    name: nameKey.describe('event name'),
    expr: z.string().min(1).max(MAX_EXPR).describe('expression whose zero crossings are the event'),
    terminal: z.boolean().default(false).describe('stop the integration at the first occurrence'),
    direction: z.union([z.literal(-1), z.literal(0), z.literal(1)]).default(0).describe('−1 falling zeros only, +1 rising only, 0 both (as SciPy)'),
  })).max(MAX_EVENTS).default([]).describe('zero crossings located on the dense output (a zero at t0 is not an event)')
    .meta({ examples: [[{ name: 'ground', expr: 'h', terminal: true, direction: -1 }]] }),
  invariants: z.record(nameKey, z.string().min(1).max(MAX_EXPR)).default({})
    .describe('name → expression of a conserved quantity; its largest drift over the output times is reported'),
  method: z.enum(['RK45', 'DOP853', 'Radau', 'BDF', 'auto']).default('auto')
    .describe('RK45 / DOP853 (non-stiff, explicit), Radau / BDF (stiff, implicit), auto (stiffness detection and switching)'),
  rtol: z.number().min(1e-12).max(0.1).optional().describe('relative tolerance (1e-12 to 0.1); default 1e-6, or, for a boundPct below 0.1, 1e-5·boundPct (at least 1e-12): the default follows the bound'),
  atol: z.union([z.number().gt(0).max(1e6), z.record(nameKey, z.number().gt(0).max(1e6))]).optional()
    .describe('absolute tolerance: a number, or state → number (states not named get the default); default 1e-9, or 1e-3·rtol when rtol follows a boundPct below 0.1'),
  maxSteps: z.number().int().min(10).max(1_000_000).default(100_000)
    .describe('cap on accepted steps (evaluations of f are capped at 40× this; the error-estimate re-solve gets 10× both)'),
  boundPct: z.number().gt(0).max(100).default(0.1).describe('largest acceptable estimated relative error at tEnd, in percent'),
  sample: z.number().int().min(2).max(2000).optional().describe('number of evenly spaced output times (default 101); not with tEval, which gives the times itself'),
});

export type OdeInput = z.infer<typeof input>;

/** The default tolerances (issue 29: defaults that succeed). At the default bound (0.1 %) they are
 * rtol 1e-6 and atol 1e-9, as always; a tighter bound takes rtol = 1e-5·boundPct (the estimate of
 * the global error is ∝ rtol^(p/(p+1)), so rtol a few hundred times below the relative bound meets it
 * for the orders used, measured on the default problem down to the 1e-12 floor) and atol scaled with
 * it, so the estimate's scale max(|y|, atol/rtol) stays 1e-3. A tolerance the caller gave is kept. */
export function defaultTolerances(inp: { rtol?: number; atol?: number | Record<string, number>; boundPct: number }): { rtol: number; atol: number | Record<string, number>; atolOthers: number; derived: boolean } {
  const derived = inp.rtol === undefined && inp.boundPct < 0.1;
  const rtol = inp.rtol ?? (derived ? Math.max(1e-12, 1e-5 * inp.boundPct) : 1e-6);
  const atolOthers = derived ? 1e-3 * rtol : 1e-9;
  return { rtol, atol: inp.atol ?? atolOthers, atolOthers, derived };
}

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'ode',
  domain: 'Ordinary Differential Equations',
  method: 'auto',
  methodDescription: 'RK45 / DOP853 / Radau IIA / BDF with dense output, events and stiffness switching; global error by re-solve at 100× tighter tolerances',
  operators: ['KO42'],
  unit: 'y',
  summary: 'Your own system of ODEs y\' = f(t, y) from expressions: explicit Dormand-Prince 5(4) and 8(5,3), implicit Radau IIA (order 5) and variable-order BDF with exact Jacobians, automatic stiffness switching, events, invariants, and an honest global error estimate.',
  input,
  examples: [
    'Solve the Van der Pol oscillator x\'\' = mu (1 - x^2) x\' - x with mu = 1000 from x = 2 to t = 3000',
    'Integrate Robertson\'s chemical kinetics to t = 1e5 and check that the total mass stays 1',
    'Simulate a bouncing ball dropped from 10 m and find when it first hits the ground',
    'Solve dx/dt = -k x, dy/dt = k x - m y with k = 0.5 and m = 0.1 for t from 0 to 50',
    'Integrate the restricted three-body problem (Arenstorf orbit) over one period with DOP853',
    'My predator-prey system with harvesting: give me the populations at t = 100 and an error estimate',
    'Stiff system of reaction rate equations, use Radau, report the global error',
    'Find the times at which the pendulum angle crosses zero going upwards',
  ],
  vocabulary: [
    'ode', 'odes', 'ordinary differential equation', 'differential equations', 'initial value problem', 'ivp',
    'system of equations', 'solve_ivp', 'ode45', 'runge-kutta', 'dormand-prince', 'dopri5', 'dop853', 'radau', 'bdf',
    'stiff', 'stiffness', 'chemical kinetics', 'van der pol', 'robertson', 'events', 'zero crossing', 'trajectory',
    'integrate', 'time evolution', 'rate equations', 'dynamical system', 'my own equations',
  ],
};

export interface Compiled {
  sys: IvpSystem;
  /** true when the right-hand sides have exact symbolic derivatives (lib/expr.ts) */
  exactJacobian: boolean;
  /** evaluates a scalar expression (event, invariant) at (t, y) */
  scalar(idx: number): (t: number, y: Float64Array) => number;
}

/** Compiles the right-hand sides (with their exact Jacobian) and the scalar expressions (events,
 * then invariants) with lib/expr.ts. The names an expression may read are t, the states and the
 * params; anything else is a 400 naming it. */
export function compileProblem(states: string[], exprs: string[], params: Record<string, number>, events: string[], invariants: [string, string][]): Compiled {
  const vars = ['t', ...states];
  const n = states.length, nv = n + 1;
  const rhs = compileSystem(exprs, vars, params, { maxLength: MAX_EXPR, field: 'equations', names: states });
  const evs = events.map((e, i) => compileSystem([e], vars, params, { maxLength: MAX_EXPR, field: 'events', names: [String(i)] }));
  const invs = invariants.map(([k, e]) => compileSystem([e], vars, params, { maxLength: MAX_EXPR, field: 'invariants', names: [k] }));
  const scalars = [...evs, ...invs];
  const x = new Float64Array(nv);
  const jFull = new Float64Array(n * nv);
  const sys: IvpSystem = {
    n,
    f(t, y, dy) {
      x[0] = t;
      x.set(y, 1);
      rhs.evaluate(x, dy);
    },
  };
  if (rhs.differentiable) {
    sys.jac = (t, y, J) => {
      x[0] = t;
      x.set(y, 1);
      rhs.jacobian(x, jFull);
      // drop the column of ∂f/∂t
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) J[i * n + j] = jFull[i * nv + j + 1];
    };
  }
  const out1 = new Float64Array(1);
  return {
    sys,
    exactJacobian: rhs.differentiable,
    scalar: (idx) => (t, y) => {
      x[0] = t;
      x.set(y, 1);
      scalars[idx].evaluate(x, out1);
      return out1[0];
    },
  };
}

export const run: SolverRun<OdeInput> = (given, ctx): SolverOutput => {
  const tol = defaultTolerances(given);
  const inp = { ...given, rtol: tol.rtol, atol: tol.atol };
  const states = Object.keys(inp.equations);
  const n = states.length;
  if (n === 0) throw refuse('INVALID_INPUT', 'equations: at least one state is needed');
  if (n > MAX_STATES) throw refuse('INVALID_INPUT', `equations: ${n} states; at most ${MAX_STATES}`);
  const y0Keys = Object.keys(inp.y0);
  for (const s of states) if (!(s in inp.y0)) throw refuse('INVALID_INPUT', `y0: no initial value for state '${s}'`);
  for (const s of y0Keys) if (!(s in inp.equations)) throw refuse('INVALID_INPUT', `y0: '${s}' is not a state (the states are the keys of equations)`);
  const params = inp.params;
  if (Object.keys(params).length > MAX_PARAMS) throw refuse('INVALID_INPUT', `params: at most ${MAX_PARAMS}`);
  for (const s of states) {
    if (RESERVED.has(s)) throw refuse('INVALID_INPUT', `equations: '${s}' cannot be a state name (reserved)`);
    if (s in params) throw refuse('INVALID_INPUT', `params: '${s}' is also a state`);
  }
  for (const k of Object.keys(params)) if (RESERVED.has(k)) throw refuse('INVALID_INPUT', `params: '${k}' cannot be a parameter name (reserved)`);
  // a parameter no expression reads would be echoed in the receipt without any effect (DESIGN §9)
  const unused = unusedParams(params, [...Object.values(inp.equations), ...inp.events.map((e) => e.expr), ...Object.values(inp.invariants)]);
  if (unused.length) throw noEffectRefusal(`params.${unused[0]}`, `as no equation, event or invariant reads '${unused[0]}'${unused.length > 1 ? ` (nor ${unused.slice(1).map((k) => `'${k}'`).join(', ')})` : ''}`);
  const [t0, t1] = inp.tSpan;
  if (!(t1 > t0)) throw refuse('INVALID_INPUT', `tSpan: t1 (${t1}) must be greater than t0 (${t0})`);
  if (Math.max(Math.abs(t0), Math.abs(t1)) > 1e15) throw refuse('INVALID_INPUT', 'tSpan: |t| must not exceed 1e15');
  if (Object.keys(inp.invariants).length > MAX_INVARIANTS) throw refuse('INVALID_INPUT', `invariants: at most ${MAX_INVARIANTS}`);
  const evNames = new Set<string>();
  for (const ev of inp.events) {
    if (evNames.has(ev.name)) throw refuse('INVALID_INPUT', `events: the name '${ev.name}' is used twice`);
    evNames.add(ev.name);
  }

  // output times
  let tEval: Float64Array;
  if (inp.tEval) {
    if (inp.sample !== undefined) throw noEffectRefusal('sample', 'when tEval is given (send one of them)');
    tEval = Float64Array.from(inp.tEval);
    for (let k = 0; k < tEval.length; k++) {
      if (tEval[k] < t0 || tEval[k] > t1) throw refuse('INVALID_INPUT', `tEval[${k}] = ${tEval[k]} is outside tSpan [${t0}, ${t1}]`);
      if (k > 0 && !(tEval[k] > tEval[k - 1])) throw refuse('INVALID_INPUT', `tEval must be strictly increasing (tEval[${k}] = ${tEval[k]})`);
    }
  } else {
    const m = inp.sample ?? DEFAULT_SAMPLE;
    tEval = new Float64Array(m);
    for (let k = 0; k < m; k++) tEval[k] = k === m - 1 ? t1 : t0 + (t1 - t0) * (k / (m - 1));
  }
  if (tEval.length * n > MAX_OUTPUT) {
    throw refuse('INVALID_INPUT', `${inp.tEval ? 'tEval' : 'sample'}: ${tEval.length} output times × ${n} states exceeds ${MAX_OUTPUT} numbers`);
  }

  // tolerances
  const atol = new Float64Array(n).fill(tol.atolOthers);
  if (typeof inp.atol === 'number') atol.fill(inp.atol);
  else {
    for (const [k, v] of Object.entries(inp.atol)) {
      const i = states.indexOf(k);
      if (i < 0) throw refuse('INVALID_INPUT', `atol: '${k}' is not a state`);
      atol[i] = v;
    }
  }

  const comp = compileProblem(states, states.map((s) => inp.equations[s]), params, inp.events.map((e) => e.expr), Object.entries(inp.invariants));
  const events: IvpEvent[] = inp.events.map((ev, i) => ({ g: comp.scalar(i), terminal: ev.terminal, direction: ev.direction }));
  const invariants = Object.keys(inp.invariants).map((k, j) => ({ name: k, fn: comp.scalar(inp.events.length + j) }));
  const y0 = Float64Array.from(states, (s) => inp.y0[s]);

  // the solve
  const solve = (rtol: number, atolV: Float64Array, steps: number, progress: (f: number) => void): IvpResult =>
    solveIvp(comp.sys, t0, t1, y0, {
      method: inp.method, rtol, atol: atolV, tEval, events, maxSteps: steps, maxNfev: NFEV_PER_STEP * steps,
      maxEvents: MAX_EVENT_HITS, progress,
    });
  const main = solve(inp.rtol, atol, inp.maxSteps, (f) => ctx.progress(0.3 * f));
  if (!main.ok) {
    throw refuse('UNSTABLE', `the integration failed: ${main.message}${hint(main)}`, { tFail: main.tFail, failure: main.failure, method: main.method });
  }
  // the re-solve at 100× tighter tolerances (same method)
  const atolTight = atol.map((a) => a / 100);
  const tight = solve(inp.rtol / 100, atolTight, RESOLVE_STEP_FACTOR * inp.maxSteps, (f) => ctx.progress(0.3 + 0.7 * f));
  if (!tight.ok) {
    throw refuse('PRECISION_REFUSED', `the error estimate failed: the re-solve at tolerances 100× tighter (rtol ${inp.rtol / 100}) stopped: ${tight.message}; loosen rtol/atol or raise maxSteps`, { tFail: tight.tFail, failure: tight.failure });
  }

  const yEnd: Record<string, number> = {};
  const errorEstimate: Record<string, number> = {};
  let worst = 0;
  for (let i = 0; i < n; i++) {
    yEnd[states[i]] = main.yEnd[i];
    const d = Math.abs(main.yEnd[i] - tight.yEnd[i]);
    errorEstimate[states[i]] = d;
    const scale = Math.max(Math.abs(main.yEnd[i]), atol[i] / inp.rtol);
    const r = d / scale;
    if (r > worst || Number.isNaN(r)) worst = r;
  }
  const errorPct = 100 * worst;

  // invariants: largest |I(t_k, y_k) − I(t0, y0)| over the output times and tEnd
  const invariantDrift: Record<string, number> = {};
  const yk = new Float64Array(n);
  for (const inv of invariants) {
    const i0 = inv.fn(t0, y0);
    let drift = 0;
    for (let k = 0; k < main.tOut.length; k++) {
      for (let i = 0; i < n; i++) yk[i] = main.yOut[i][k];
      const d = Math.abs(inv.fn(main.tOut[k], yk) - i0);
      if (d > drift || Number.isNaN(d)) drift = d;
    }
    const dEnd = Math.abs(inv.fn(main.tEnd, main.yEnd) - i0);
    if (dEnd > drift || Number.isNaN(dEnd)) drift = dEnd;
    if (!Number.isFinite(drift)) throw refuse('UNSTABLE', `invariants.${inv.name} is not finite along the solution`, { tFail: main.tEnd });
    invariantDrift[inv.name] = drift;
  }

  const stateObj = (v: Float64Array): Record<string, number> => Object.fromEntries(states.map((s, i) => [s, v[i]]));
  const t = Array.from(main.tOut);
  const y: Record<string, number[]> = Object.fromEntries(states.map((s, i) => [s, Array.from(main.yOut[i])]));
  const statsOf = (r: IvpResult) => ({ nfev: r.stats.nfev, njev: r.stats.njev, nlu: r.stats.nlu, steps: r.stats.steps, rejected: r.stats.rejected });
  const result: Record<string, unknown> = {
    t,
    y,
    tEnd: main.tEnd,
    yEnd,
    events: main.events.map((h) => ({ name: inp.events[h.index].name, t: h.t, y: stateObj(h.y) })),
    eventCount: main.eventCount,
    terminated: main.terminated,
    method: main.method,
    switches: main.switches,
    stats: statsOf(main),
    jacobian: comp.exactJacobian ? 'symbolic' : 'finite differences',
    errorEstimate,
    tEndErrorEstimate: Math.abs(main.tEnd - tight.tEnd),
    invariantDrift,
    resolve: { rtol: inp.rtol / 100, atolFactor: 0.01, method: tight.method, stats: statsOf(tight) },
    states,
    // the tolerances a tighter bound chose (the caller left rtol out)
    ...(tol.derived ? { tolerances: { rtol: tol.rtol, atol: tol.atol, followsBoundPct: inp.boundPct } } : {}),
  };
  return {
    value: main.yEnd[0],
    result,
    precision: precisionOf({
      errorPct,
      boundPct: inp.boundPct,
      reference: 'global error estimate: the same method re-run at rtol/100 and atol/100; largest |Δy_i(tEnd)| / max(|y_i(tEnd)|, atol_i/rtol)',
      referenceValue: tight.yEnd[0],
      certificate: 'error-estimate',
    }),
    series: { t, ...y },
    method: main.method,
    ...(errorPct > inp.boundPct ? retryOde(inp, errorPct, main.method, main.stats.steps) : {}),
  };
};

// ---------------------------------------------------------------------------------------------
// Refusals that say how to succeed (issue 29). For a method of order p with tolerance-proportional
// step control, the global error scales like rtol^(p/(p+1)) (Hairer, Nørsett & Wanner I, §II.4);
// the accepted steps like rtol^(−1/(p+1)). Scaling atol with rtol keeps the estimate's scale
// max(|y_i|, atol_i/rtol) unchanged, so the predicted estimate is errorPct·(rtol'/rtol)^(p/(p+1)).
// The orders are taken low (Radau's stage order, BDF's low orders on a rough start) so the
// prediction errs on the safe side; it aims at a quarter of the bound.

/** the order p of the error model, low side */
const ODE_ORDER: Record<string, number> = { RK45: 4, DOP853: 7, Radau: 3, BDF: 2 };
const ODE_TARGET = 0.25;

function retryOde(inp: OdeInput & { rtol: number; atol: number | Record<string, number> }, errorPct: number, method: string, steps: number): { retryWith: NonNullable<SolverOutput['retryWith']> } | Record<string, never> {
  if (!Number.isFinite(errorPct) || errorPct <= 0) return {};
  const p = ODE_ORDER[method] ?? 2;
  let factor = Math.pow((ODE_TARGET * inp.boundPct) / errorPct, (p + 1) / p);
  let rtol = inp.rtol * factor;
  if (rtol < 1e-12) { rtol = 1e-12; factor = rtol / inp.rtol; }
  const predictedErrorPct = errorPct * Math.pow(factor, p / (p + 1));
  if (!(predictedErrorPct < inp.boundPct) || factor >= 1) return {};
  const atol = typeof inp.atol === 'number' ? inp.atol * factor : Object.fromEntries(Object.entries(inp.atol).map(([k, v]) => [k, v * factor]));
  const inputs: Record<string, unknown> = { rtol: Number(rtol.toPrecision(3)), atol: typeof atol === 'number' ? Number(atol.toPrecision(3)) : atol };
  if (typeof atol !== 'number') for (const k of Object.keys(atol)) (atol as Record<string, number>)[k] = Number((atol as Record<string, number>)[k].toPrecision(3));
  // rounding to 3 digits may only tighten: round down
  if ((inputs.rtol as number) > rtol) inputs.rtol = Number((rtol * 0.999).toPrecision(3));
  const predictedSteps = Math.ceil(Math.max(1, steps) * Math.pow(1 / factor, 1 / (p + 1)));
  if (2 * predictedSteps > inp.maxSteps) inputs.maxSteps = Math.min(1_000_000, 2 * predictedSteps);
  return { retryWith: { inputs, predictedErrorPct, predictedCost: { steps: predictedSteps, relativeToThisRun: predictedSteps / Math.max(1, steps) } } };
}

/** The parameters that none of `exprs` reads (an expression that does not parse is left to the
 * compiler, which names it). */
function unusedParams(params: Record<string, number>, exprs: string[]): string[] {
  const keys = Object.keys(params);
  if (!keys.length) return [];
  const used = new Set<string>();
  for (const e of exprs) {
    try { for (const sym of compileSafe(e, { maxLength: MAX_EXPR, maxNodes: 4096 }).symbols) used.add(sym); } catch { return []; }
  }
  return keys.filter((k) => !used.has(k));
}

function hint(r: IvpResult): string {
  switch (r.failure) {
    case 'maxSteps': case 'maxNfev':
      return r.method === 'RK45' || r.method === 'DOP853' ? '; raise maxSteps, or the problem may be stiff: try method Radau, BDF or auto' : '; raise maxSteps or loosen rtol/atol';
    case 'underflow': return '; the step size fell to rounding level: the solution may blow up or the system be singular there';
    case 'nonfinite': return '; the solution overflowed';
    default: return '';
  }
}

