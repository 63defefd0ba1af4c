// lotka: the Lotka-Volterra predator-prey system (Lotka 1925; Volterra 1926; Murray,
// "Mathematical Biology I", 3rd ed., §3.1; Hairer, Lubich & Wanner, "Geometric Numerical
// Integration", 2nd ed., §I.1.1 and §VI.3)
//
//   x' = α x - β x y      (prey)
//   y' = δ x y - γ y      (predators)
//
// with the conserved first integral V(x, y) = δ x - γ ln x + β y - α ln y. Two integrators:
// - 'rk4' (default): classical fourth-order Runge-Kutta on (x, y) (lib/ode.ts). Not symplectic, so
//   V drifts secularly as O(t·h^4); stable while h·ω stays well inside the RK4 region, where
//   ω = √(αγ) is the small-oscillation frequency about the equilibrium (γ/δ, α/β).
// - 'symplectic': in log coordinates u = ln x, v = ln y the system is Hamiltonian with the separable
//   H(u, v) = δ e^u - γ u + β e^v - α v  (u' = -∂H/∂v, v' = ∂H/∂u), so Yoshida's fourth-order
//   composition of Störmer-Verlet (Yoshida, Phys. Lett. A 150, 1990) keeps V = H bounded with no
//   secular drift and keeps x, y > 0 by construction.
// value = V at t = tMax; reference = V(x0, y0); the drift (V_end - V0) is reported.
import { z } from 'zod';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { compositionWeights } from './lib/symplectic.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { retryByOrder, optionalRetry, confirmedRetry } from './lib/retry.ts';
import { precisionOf } from './lib/precision.ts';

const MAX_STEPS = 5_000_000;

const input = z.strictObject({
  alpha: z.number().gt(0).max(1000).default(1.1).describe('prey growth rate α'),
  beta: z.number().gt(0).max(1000).default(0.4).describe('predation rate β'),
  gamma: z.number().gt(0).max(1000).default(0.4).describe('predator death rate γ'),
  delta: z.number().gt(0).max(1000).default(0.1).describe('predator growth per prey eaten δ'),
  x0: z.number().gt(0).max(1e9).default(10).describe('initial prey population'),
  y0: z.number().gt(0).max(1e9).default(10).describe('initial predator population'),
  tMax: z.number().gt(0).max(1e6).default(100).describe('final time (dimensionless)'),
  dt: z.number().gt(0).max(1).default(0.01).describe('time step'),
  method: z.enum(['rk4', 'symplectic']).default('rk4').describe('rk4 (default) or symplectic (Yoshida-4 in log coordinates)'),
}).superRefine((v, ctx) => {
  const steps = Math.ceil(v.tMax / v.dt - 1e-9);
  if (steps > MAX_STEPS) ctx.addIssue({ code: 'custom', path: ['dt'], message: `tMax/dt must be at most ${MAX_STEPS} steps (got ${steps})` });
});

export type LotkaInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'lotka',
  domain: 'Population Ecology',
  method: 'rk4',
  methodDescription: 'ODE integrator, conserved first integral',
  operators: ['KO42', 'CELL_GROWTH'],
  unit: 'T',
  summary: 'Lotka-Volterra predator-prey dynamics by RK4 (or a symplectic Yoshida-4 in log coordinates); value is the conserved first integral V = δx - γ ln x + βy - α ln y at the end, checked against its initial value.',
  input,
  examples: [
    'Simulate foxes and rabbits with the Lotka-Volterra equations',
    'Predator-prey cycles with prey growth 1.1 and predation rate 0.4',
    'How well is the Lotka-Volterra invariant conserved over 1000 time units?',
    'Model lynx and hare population oscillations',
    'Integrate the predator prey model starting from 10 prey and 5 predators',
    'Period of the population cycle of wolves and deer',
    'Compare RK4 and a symplectic integrator on the Volterra system',
    'Population ecology of a two-species consumer-resource model',
    'Conserved quantity drift of the classic predator-prey ODE',
  ],
  vocabulary: [
    'lotka', 'volterra', 'lotka-volterra', 'predator', 'prey', 'predator-prey', 'population',
    'ecology', 'foxes', 'rabbits', 'lynx', 'hare', 'wolves', 'deer', 'predation', 'consumer',
    'resource', 'species', 'population cycle', 'first integral', 'conserved quantity', 'oscillation',
  ],
};

/** V(x, y) = δ x - γ ln x + β y - α ln y */
export function firstIntegral(x: number, y: number, p: { alpha: number; beta: number; gamma: number; delta: number }): number {
  return p.delta * x - p.gamma * Math.log(x) + p.beta * y - p.alpha * Math.log(y);
}

// Yoshida (1990) fourth-order weights [w1, w0, w1], w1 = 1/(2 - 2^(1/3)), w0 = 1 - 2 w1, from the
// shared composition table (lib/symplectic.ts); the Störmer-Verlet stages are this solver's own
// because its Hamiltonian is separable but not of the form |p|²/2 + V(q)
const [Y_W1, Y_W0] = compositionWeights(4);

/** A refused run's advice is confirmed by running it (a run takes milliseconds; dt = 1 is far from
 * the asymptotic regime where the fourth-order model holds). */
export const run: SolverRun<LotkaInput> = (inp, ctx): SolverOutput => {
  const out = runOnce(inp, ctx);
  if (!out.retryWith) return out;
  const quiet = { ...ctx, progress() {} };
  const advice = confirmedRetry(inp, out, (i) => runOnce(i, quiet));
  const { retryWith: _model, ...rest } = out;
  return advice ? { ...rest, retryWith: advice } : rest;
};

const runOnce = (inp: LotkaInput, ctx: Parameters<SolverRun<LotkaInput>>[1]): SolverOutput => {
  const { alpha, beta, gamma, delta, x0, y0, tMax, method } = inp;
  const steps = Math.max(1, Math.ceil(tMax / inp.dt - 1e-9));
  const h = tMax / steps;
  const omega = Math.sqrt(alpha * gamma);
  const stabilityNumber = h * omega;
  const V0 = firstIntegral(x0, y0, inp);
  const xEq = gamma / delta, yEq = alpha / beta;
  const Vmin = firstIntegral(xEq, yEq, inp);

  const maxPoints = 2000;
  const stride = Math.max(1, Math.ceil(steps / maxPoints));
  const tS: number[] = [0], xS: number[] = [x0], yS: number[] = [y0], vS: number[] = [V0];
  // period from upward crossings of x through its equilibrium value
  let firstCross = -1, lastCross = -1, crossings = 0;
  let xPrev = x0;
  let xMin = x0, xMax = x0, yMin = y0, yMax = y0;
  let maxDev = 0;
  const progressEvery = Math.max(1, Math.floor(steps / 20));

  const unstable = (k: number): never => {
    throw refuse('UNSTABLE', `the integration left the positive quadrant or overflowed at step ${k}; reduce dt`, {
      stability: { number: stabilityNumber, limit: 2.78, stable: false },
    });
  };

  let x = x0, y = y0;
  const rkState = Float64Array.of(x0, y0);
  const ws = rk4Workspace(2);
  const deriv = (_t: number, s: Float64Array, out: Float64Array): void => {
    const a = s[0], b = s[1];
    out[0] = alpha * a - beta * a * b;
    out[1] = delta * a * b - gamma * b;
  };
  // log coordinates for the symplectic scheme
  let u = Math.log(x0), v = Math.log(y0);
  const drift = (c: number): void => { u += c * h * (alpha - beta * Math.exp(v)); };
  const kick = (c: number): void => { v += c * h * (delta * Math.exp(u) - gamma); };
  const verlet = (c: number): void => { drift(0.5 * c); kick(c); drift(0.5 * c); };

  for (let k = 1; k <= steps; k++) {
    if (method === 'rk4') {
      rk4Step(deriv, (k - 1) * h, rkState, h, ws);
      x = rkState[0]; y = rkState[1];
    } else {
      verlet(Y_W1); verlet(Y_W0); verlet(Y_W1);
      x = Math.exp(u); y = Math.exp(v);
    }
    if (!(x > 0) || !(y > 0) || !Number.isFinite(x) || !Number.isFinite(y)) unstable(k);
    const V = firstIntegral(x, y, inp);
    const dev = Math.abs(V - V0);
    if (dev > maxDev) maxDev = dev;
    if (xPrev < xEq && x >= xEq) {
      const tc = (k - 1 + (xEq - xPrev) / (x - xPrev)) * h;
      if (firstCross < 0) firstCross = tc;
      lastCross = tc;
      crossings++;
    }
    xPrev = x;
    if (x < xMin) xMin = x; if (x > xMax) xMax = x;
    if (y < yMin) yMin = y; if (y > yMax) yMax = y;
    if (k % stride === 0 || k === steps) { tS.push(k * h); xS.push(x); yS.push(y); vS.push(V); }
    if (k % progressEvery === 0) ctx.progress(k / steps);
  }

  const Vend = firstIntegral(x, y, inp);
  // relative to the larger of |V0| and the orbit's height above the equilibrium value, so a V0
  // near zero does not inflate the figure
  const scaleV = Math.max(Math.abs(V0), V0 - Vmin, 1e-300);
  const driftRel = (Vend - V0) / scaleV;
  const errorPct = 100 * Math.abs(driftRel);
  const period = crossings >= 2 ? (lastCross - firstCross) / (crossings - 1) : null;

  return {
    value: Vend,
    method,
    result: {
      V0,
      Vend,
      drift: Vend - V0,
      driftRelative: driftRel,
      maxDeviation: maxDev / scaleV,
      equilibrium: { x: xEq, y: yEq },
      period,
      smallAmplitudePeriod: 2 * Math.PI / omega,
      x: x, y: y,
      xRange: [xMin, xMax],
      yRange: [yMin, yMax],
      steps,
      dt: h,
      method,
    },
    precision: precisionOf({
      errorPct,
      reference: 'initial value of the first integral V = δx - γ ln x + βy - α ln y',
      referenceValue: V0,
    }),
    series: { t: tS, x: xS, y: yS, V: vS },
    stability: { number: stabilityNumber, limit: 2.78, stable: stabilityNumber <= 2.78, name: 'h·√(αγ) (small-oscillation frequency; RK4 limit 2.78)' },
    // a step too long for the bound: both methods are fourth order
    ...(errorPct > 0.1 ? optionalRetry(retryByOrder({ field: 'dt', value: inp.dt, errorPct, boundPct: 0.1, order: 4, kind: 'step', costPower: 1 })) : {}),
  };
};
