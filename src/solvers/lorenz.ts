// lorenz: the Lorenz system (E. N. Lorenz, J. Atmos. Sci. 20, 130, 1963)
//   x' = σ (y - x),  y' = x (ρ - z) - y,  z' = x y - β z
// integrated by classical RK4 (lib/ode.ts) at a fixed step h.
//
// Two independent measurements along one run:
// - value: the phase-volume contraction rate. The tangent (variational) equations δ' = J δ are
//   carried with the trajectory for three vectors; every `RENORM_EVERY` steps they are
//   re-orthonormalised by modified Gram-Schmidt and the logarithms of the stretch factors summed
//   (Benettin, Galgani, Giorgilli & Strelcyn, Meccanica 15, 9 and 21, 1980; Wolf, Swift, Swinney &
//   Vastano, Physica D 16, 285, 1985). The sum of the three exponents is the mean rate of change of
//   ln(volume of a small parallelepiped), which Liouville's formula says equals the divergence of
//   the flow, tr J = -(σ + 1 + β): that is the reference. The full spectrum is reported.
// - result.lyapunov: the largest Lyapunov exponent from twin trajectories. A twin starts `delta`
//   away; every RENORM_EVERY steps the separation d is measured, ln(d/delta) accumulated and the
//   twin pulled back to distance delta along the separation (Benettin et al. 1980, the
//   "two-trajectory" method). The classic parameters σ=10, ρ=28, β=8/3 give λ1 ≈ 0.906
//   (Sprott, "Chaos and Time-Series Analysis", 2003, Table A.1).
// A transient of min(steps/10, 1000) steps is run first so the measurement is on the attractor.
// Stability: RK4's real-axis limit is |h λ| <= 2.78; the reported number is h·||J||∞, the largest
// along the run (an upper bound for h·|λ| of the local linearisation). A run that overflows is
// refused as UNSTABLE.
import { z } from 'zod';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { retryByOrder, optionalRetry } from './lib/retry.ts';

/** steps between renormalisations (of both the tangent vectors and the twin) */
const RENORM_EVERY = 10;

const input = z.strictObject({
  sigma: z.number().gt(0).max(100).default(10).describe('Prandtl number σ'),
  rho: z.number().gt(0).max(500).default(28).describe('Rayleigh number ratio ρ'),
  beta: z.number().gt(0).max(100).default(8 / 3).describe('geometric factor β'),
  dt: z.number().gt(0).max(0.05).optional().describe('RK4 time step (dimensionless); default 0.01 at the classic parameters, divided by the ratio of the flow\'s rate scale σ + 1 + β + √(β·ρ) to its classic value (rounded up to a whole number) when σ, ρ or β make the flow faster: RK4\'s error in the contraction rate goes like (h·rate)^4'),
  steps: z.number().int().min(100).max(2_000_000).default(100_000).describe('measured steps (after a transient)'),
  delta: z.number().min(1e-12).max(1e-3).default(1e-8).describe('initial separation of the twin trajectory'),
});

export type LorenzInput = z.infer<typeof input>;

/** The rate scale of the flow: the divergence σ + 1 + β plus the rotation rate √(β·ρ) near the
 * attractor's wings (|x| ≈ √(β(ρ−1))). RK4's error in the contraction rate goes like (h·scale)^4,
 * measured: σ 100 at h 0.01 is 2 %, at 0.001 1e-4 %; ρ 500 0.2 %; β 100 0.16 %. */
const rateScale = (sigma: number, rho: number, beta: number) => sigma + 1 + beta + Math.sqrt(beta * rho);
const CLASSIC_SCALE = rateScale(10, 28, 8 / 3);
const CLASSIC_DT = 0.01;

/** The step a caller who left dt out gets: 0.01 at the classic parameters (and for any slower
 * flow), 0.01/k for a flow k times faster (k whole), so (h·scale) stays at its classic value,
 * where the error is 7e-4 %. steps stays as given (the contraction rate is tr J, constant along
 * the run: its error is the step's, not the horizon's). */
export function defaultDt(sigma: number, rho: number, beta: number): number {
  const k = Math.ceil(rateScale(sigma, rho, beta) / CLASSIC_SCALE - 1e-12);
  return k <= 1 ? CLASSIC_DT : CLASSIC_DT / k;
}

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'lorenz',
  domain: 'Chaotic Dynamics',
  method: 'rk4',
  methodDescription: 'RK4; phase-volume contraction invariant',
  operators: ['KO42', 'NL10'],
  unit: '1/t',
  summary: 'Lorenz attractor by RK4: phase-volume contraction rate from the tangent dynamics against -(σ+1+β), and the largest Lyapunov exponent from twin trajectories with renormalisation.',
  input,
  examples: [
    'Compute the largest Lyapunov exponent of the Lorenz attractor',
    'Lorenz system with sigma 10, rho 28, beta 8/3: how chaotic is it?',
    'Phase space volume contraction rate of the Lorenz equations',
    'Butterfly effect: how fast do two nearby trajectories of the Lorenz model diverge?',
    'Integrate the Lorenz 63 convection model for 1000 time units',
    'Is the Lorenz system chaotic at rho 14? Give the Lyapunov spectrum',
    'Strange attractor divergence of the flow and sensitivity to initial conditions',
    'Twin trajectory separation in a chaotic convection model with delta 1e-9',
    'Lyapunov exponents of a three dimensional chaotic ODE',
  ],
  vocabulary: [
    'lorenz', 'lorenz 63', 'attractor', 'strange attractor', 'butterfly', 'butterfly effect', 'chaos',
    'chaotic', 'lyapunov', 'lyapunov exponent', 'lyapunov spectrum', 'sensitive dependence',
    'initial conditions', 'phase space', 'phase volume', 'contraction', 'divergence', 'dissipative',
    'convection', 'rayleigh', 'prandtl', 'twin trajectories', 'trajectory separation',
  ],
};

export const run: SolverRun<LorenzInput> = (inp, ctx): SolverOutput => {
  const { sigma, rho, beta, steps, delta } = inp;
  const h = inp.dt ?? defaultDt(sigma, rho, beta);
  const transient = Math.min(Math.floor(steps / 10), 1000);

  // state layout: [x, y, z, v1(3), v2(3), v3(3), twin(3)] = 15 entries; the tangent vectors
  // follow δ' = J(x) δ, the twin follows the full nonlinear flow.
  const deriv = (_t: number, s: Float64Array, out: Float64Array): void => {
    const x = s[0], y = s[1], z = s[2];
    out[0] = sigma * (y - x);
    out[1] = x * (rho - z) - y;
    out[2] = x * y - beta * z;
    const a = rho - z;
    for (let o = 3; o < 12; o += 3) {
      const dx = s[o], dy = s[o + 1], dz = s[o + 2];
      out[o] = sigma * (dy - dx);
      out[o + 1] = a * dx - dy - x * dz;
      out[o + 2] = y * dx + x * dy - beta * dz;
    }
    const tx = s[12], ty = s[13], tz = s[14];
    out[12] = sigma * (ty - tx);
    out[13] = tx * (rho - tz) - ty;
    out[14] = tx * ty - beta * tz;
  };
  const s = new Float64Array(15);
  const ws = rk4Workspace(15);
  s[0] = 1; s[1] = 1; s[2] = 1;
  // transient: the trajectory alone (tangent vectors and twin are set afterwards)
  let t = 0;
  for (let k = 0; k < transient; k++) { rk4Step(deriv, t, s, h, ws); t += h; }
  const resetTangent = (): void => {
    for (let o = 3; o < 12; o++) s[o] = 0;
    s[3] = 1; s[7] = 1; s[11] = 1;
  };
  resetTangent();
  // twin displaced along (1, 1, 1)/√3 by delta
  const d0 = delta / Math.sqrt(3);
  s[12] = s[0] + d0; s[13] = s[1] + d0; s[14] = s[2] + d0;

  let sumLogTwin = 0;
  const sumLog = new Float64Array(3);
  let maxJNorm = 0;
  const maxPoints = 2000;
  const stride = Math.max(1, Math.ceil(steps / maxPoints));
  const tS: number[] = [], xS: number[] = [], yS: number[] = [], zS: number[] = [], lamS: number[] = [];
  const progressEvery = Math.max(RENORM_EVERY, Math.floor(steps / 50));
  let measuredTime = 0;

  for (let k = 1; k <= steps; k++) {
    rk4Step(deriv, t, s, h, ws);
    t += h;
    const x = s[0], y = s[1], z = s[2];
    // ||J||∞ = max row sum of |J|
    const r1 = 2 * sigma, r2 = Math.abs(rho - z) + 1 + Math.abs(x), r3 = Math.abs(y) + Math.abs(x) + beta;
    const jn = r1 > r2 ? (r1 > r3 ? r1 : r3) : (r2 > r3 ? r2 : r3);
    if (jn > maxJNorm) maxJNorm = jn;
    if (k % RENORM_EVERY === 0 || k === steps) {
      if (!Number.isFinite(x + y + z) || Math.abs(x) + Math.abs(y) + Math.abs(z) > 1e8) {
        throw refuse('UNSTABLE', `the trajectory overflowed at step ${k}; reduce dt`, {
          stability: { number: h * maxJNorm, limit: 2.78, stable: false },
        });
      }
      // twin renormalisation
      const ex = s[12] - x, ey = s[13] - y, ez = s[14] - z;
      const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
      sumLogTwin += Math.log(d / delta);
      const f = delta / d;
      s[12] = x + ex * f; s[13] = y + ey * f; s[14] = z + ez * f;
      // modified Gram-Schmidt on the three tangent vectors
      for (let a = 0; a < 3; a++) {
        const oa = 3 + 3 * a;
        for (let b = 0; b < a; b++) {
          const ob = 3 + 3 * b;
          const dot = s[oa] * s[ob] + s[oa + 1] * s[ob + 1] + s[oa + 2] * s[ob + 2];
          s[oa] -= dot * s[ob]; s[oa + 1] -= dot * s[ob + 1]; s[oa + 2] -= dot * s[ob + 2];
        }
        const n = Math.sqrt(s[oa] * s[oa] + s[oa + 1] * s[oa + 1] + s[oa + 2] * s[oa + 2]);
        sumLog[a] += Math.log(n);
        s[oa] /= n; s[oa + 1] /= n; s[oa + 2] /= n;
      }
      measuredTime = k * h;
    }
    if (k % stride === 0 || k === steps) {
      tS.push(t); xS.push(x); yS.push(y); zS.push(z);
      lamS.push(measuredTime > 0 ? sumLogTwin / measuredTime : 0);
    }
    if (k % progressEvery === 0) ctx.progress(k / steps);
  }

  const T = measuredTime;
  const spectrum = [sumLog[0] / T, sumLog[1] / T, sumLog[2] / T];
  const contraction = spectrum[0] + spectrum[1] + spectrum[2];
  const reference = -(sigma + 1 + beta);
  const lyapunov = sumLogTwin / T;
  const errorPct = 100 * Math.abs(contraction - reference) / Math.abs(reference);
  const stabilityNumber = h * maxJNorm;

  return {
    value: contraction,
    result: {
      contractionRate: contraction,
      divergence: reference,
      lyapunov,
      lyapunovSpectrum: spectrum,
      kaplanYorkeDimension: spectrum[0] + spectrum[1] >= 0 && spectrum[2] < 0
        ? 2 + (spectrum[0] + spectrum[1]) / Math.abs(spectrum[2])
        : null,
      chaotic: lyapunov > 0.01,
      final: { x: s[0], y: s[1], z: s[2] },
      measuredTime: T,
      transientSteps: transient,
      steps,
      dt: h,
      delta,
      renormEvery: RENORM_EVERY,
    },
    precision: precisionOf({
      errorPct,
      reference: 'divergence of the Lorenz flow -(σ + 1 + β) (Liouville)',
      referenceValue: reference,
    }),
    series: { t: tS, x: xS, y: yS, z: zS, lyapunov: lamS },
    // a step the caller set that RK4 cannot meet the bound with: the step order 4 predicts
    ...(errorPct > 0.1 && inp.dt !== undefined ? optionalRetry(retryByOrder({ field: 'dt', value: h, errorPct, boundPct: 0.1, order: 4, kind: 'step', costPower: 0 })) : {}),
    stability: { number: stabilityNumber, limit: 2.78, stable: stabilityNumber <= 2.78, name: 'h·max||J||∞ along the run (RK4 real-axis limit 2.78)' },
  };
};
