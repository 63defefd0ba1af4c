// kalman: the discrete-time Kalman filter (R. E. Kalman, J. Basic Eng. 82, 35, 1960; Simon,
// "Optimal State Estimation", 2006, §5.1 and §7.4; Anderson & Moore, "Optimal Filtering", 1979, ch. 4)
// on the linear Gaussian system
//   x[k+1] = F x[k] + w[k],  w ~ N(0, Q)
//   z[k]   = H x[k] + v[k],  v ~ N(0, R)
// simulated with the seeded RNG. Each step predicts (x⁻ = F x̂, P⁻ = F P F' + Q), then updates with
// the gain K = P⁻ H' (H P⁻ H' + R)^-1 and the Joseph-form covariance
//   P = (I - K H) P⁻ (I - K H)' + K R K'
// (Bucy & Joseph 1968), which stays symmetric positive semidefinite in floating point.
//
// value = trace of the steady-state a-posteriori error covariance P (the scalar itself for a 1-state
// system) after `steps` updates. Reference, computed independently: the stabilizing solution X of the
// discrete algebraic Riccati equation for the a-priori covariance
//   X = F X F' - F X H' (H X H' + R)^-1 H X F' + Q
// by the structure-preserving doubling algorithm (Chu, Fan & Lin, Linear Algebra Appl. 396, 55,
// 2005; Anderson 1978), which squares the Riccati iteration count at each pass, followed by the
// measurement update P∞ = X - X H' (H X H' + R)^-1 H X. The doubling solution is accepted only if
// it is stabilizing: ρ(F (I - K∞ H)) < 1 (lib/smallmat spectralRadius); otherwise (F, H) is not
// detectable or (F, Q^½) not stabilizable, no steady state is reached from every P0 and the run is
// refused. The empirical error variance trace(mean (x - x̂)(x - x̂)') over the second half of the run
// is reported beside them. When the true state grows (unstable F) both the state and the estimate
// are shifted by the same vector (recentred on the estimate): the error process is invariant under
// a common shift, so this only keeps the numbers finite.
//
// Your measurements (the `measurements` field): the same Joseph-form filter runs over a given series
// z[0..N-1] with optional control inputs, x[k+1] = F x[k] + B u[k] + w[k], starting from the prior
// (x0, P0) before z[0]. On request the Rauch-Tung-Striebel fixed-interval smoother (Rauch, Tung &
// Striebel, AIAA J. 3, 1445, 1965; Simon §9.4.2) runs backwards over the stored filter output:
//   C[k] = P[k] F' (P⁻[k+1])^-1,  xs[k] = x[k] + C[k](xs[k+1] - x⁻[k+1]),
//   Ps[k] = P[k] + C[k](Ps[k+1] - P⁻[k+1])C[k]'.
// The check is the normalised innovation squared ε[k] = ν' S^-1 ν of the innovations ν = z - H x⁻,
// S = H P⁻ H' + R (Bar-Shalom, Li & Kirubarajan, "Estimation with Applications to Tracking and
// Navigation", 2001, §5.4.2): for a consistent filter ε[k] ~ χ²(m) independently, so N·mean(ε) ~
// χ²(N·m) and the mean must lie in [χ²₀.₀₂₅(Nm), χ²₀.₉₇₅(Nm)]/N (lib/special.ts quantiles). The DARE
// steady state above is reported beside it for the (time-invariant) model.
import { z } from 'zod';
import { createRng } from './lib/rng.ts';
import * as M from './lib/smallmat.ts';
import type { Mat } from './lib/smallmat.ts';
import type { SolverContext, SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { chiSquareQuantile } from './lib/special.ts';
import { precisionOf } from './lib/precision.ts';

/** largest state, measurement or control dimension */
const MAX_DIM = 8;
/** largest measurement series */
const MAX_POINTS = 100_000;
/** largest number of numbers in `filtered` + `smoothed` (N·(n + n²) each) */
const MAX_OUTPUT_NUMBERS = 4_000_000;

const finite = z.number().min(-1e6).max(1e6);
const matrix = z.union([finite, z.array(z.array(finite).min(1).max(MAX_DIM)).min(1).max(MAX_DIM)]);
const vector = z.union([finite, z.array(finite).min(1).max(MAX_DIM)]);
type MatIn = z.infer<typeof matrix>;
const datum = z.number().min(-1e12).max(1e12);
const series = z.union([
  z.array(datum).min(1).max(MAX_POINTS),
  z.array(z.array(datum).min(1).max(MAX_DIM)).min(1).max(MAX_POINTS),
]);
type SeriesIn = z.infer<typeof series>;

const DEFAULTS = {
  F: [[1, 1], [0, 1]] as MatIn,
  H: [[1, 0]] as MatIn,
  Q: [[0.01 / 3, 0.01 / 2], [0.01 / 2, 0.01]] as MatIn,
  R: [[1]] as MatIn,
  steps: 500,
};

/** the width of every entry of a series (1 for an array of numbers), or the index of the first entry
 * whose width differs */
function seriesWidth(v: SeriesIn): { width: number; bad?: number } {
  if (typeof v[0] === 'number') return { width: 1 };
  const rows = v as number[][];
  const width = rows[0].length;
  for (let i = 1; i < rows.length; i++) if (rows[i].length !== width) return { width, bad: i };
  return { width };
}

function shapeOf(m: MatIn): [number, number] {
  return typeof m === 'number' ? [1, 1] : [m.length, m[0]?.length ?? 0];
}

const identityOf = (n: number, s = 1): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? s : 0)));

/** The simulated system's F, H, Q, R, each the caller's or a default that fits the others (a
 * default is never invalid for a legal value of another field, issue 18): F [[1, 1], [0, 1]]; H
 * observes the first state ([[1, 0]] for the default F); Q is the constant-velocity noise for n = 2
 * and 0.01·I otherwise; R is [[1]] for one measurement and I otherwise. */
function simulatedModel(v: { F?: MatIn; H?: MatIn; Q?: MatIn; R?: MatIn }): { F: MatIn; H: MatIn; Q: MatIn; R: MatIn } {
  const F = v.F ?? DEFAULTS.F;
  const n = shapeOf(F)[0];
  const H = v.H ?? (n === 2 ? DEFAULTS.H : [Array.from({ length: Math.max(n, 1) }, (_, j) => (j === 0 ? 1 : 0))]);
  const Q = v.Q ?? (n === 2 ? DEFAULTS.Q : identityOf(Math.max(n, 1), 0.01));
  const m = shapeOf(H)[0];
  const R = v.R ?? (m === 1 ? DEFAULTS.R : identityOf(Math.max(m, 1)));
  return { F, H, Q, R };
}

const SIMULATED_ONLY = ['steps', 'seed'] as const;
const USER_ONLY = ['controls', 'B', 'smooth'] as const;
const USER_REQUIRED = ['F', 'H', 'Q', 'R', 'x0', 'P0'] as const;

const input = z.strictObject({
  measurements: series.optional().describe('your measurement series z[0..N-1] (N <= 100,000): an array of numbers (one sensor) or of equal-length vectors (m sensors). Given, the filter runs on it (F, H, Q, R, x0, P0 required) instead of a simulated system')
    .meta({ examples: [[0.9, 2.1, 2.8, 4.2, 5.1, 5.8, 7.2], [[0.9, 0.1], [2.1, -0.2], [2.8, 0.3]]] }),
  controls: series.optional().describe('with measurements: control inputs u[k], one per measurement (numbers or equal-length vectors); u[k] drives the step from k to k + 1, x[k+1] = F x[k] + B u[k] + w[k] (the last one gives the forecast)')
    .meta({ examples: [[0, 0, 1, 1, 0, 0, -1]] }),
  B: matrix.optional().describe('with controls: control matrix (n x l)').meta({ examples: [[[0.5], [1]]] }),
  smooth: z.boolean().optional().describe('with measurements: also return the Rauch-Tung-Striebel smoothed states (default false)'),
  F: matrix.optional().describe('state transition matrix (n x n, or a number for n = 1; n <= 8). Simulated system default [[1, 1], [0, 1]]'),
  H: matrix.optional().describe('observation matrix (m x n, or a number). Simulated system default: the first state, [1, 0, …, 0] of width n ([[1, 0]] for the default F)'),
  Q: matrix.optional().describe('process noise covariance (n x n, symmetric PSD). Simulated system default [[0.01/3, 0.01/2], [0.01/2, 0.01]] for n = 2, 0.01·I otherwise'),
  R: matrix.optional().describe('measurement noise covariance (m x m, symmetric positive definite). Simulated system default [[1]] for one measurement, I (m x m) otherwise'),
  P0: matrix.optional().describe('with measurements: the prior covariance before the first measurement (required). Simulated system: initial error covariance (default identity)'),
  x0: vector.optional().describe('with measurements: the prior mean before the first measurement (required). Simulated system: initial true state (default zeros; the filter starts from zero)'),
  steps: z.number().int().min(10).max(100_000).optional().describe('simulated system: filter steps (default 500)'),
  seed: z.number().int().min(0).max(0xffffffff).optional().describe('simulated system: RNG seed (default derived from inputs)'),
}).superRefine((v, ctx) => {
  const rec = v as Record<string, unknown>;
  const user = v.measurements !== undefined;
  if (user) {
    for (const k of SIMULATED_ONLY) {
      if (rec[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} belongs to the simulated system and has no effect on a filter of your measurements; leave it out` });
    }
    for (const k of USER_REQUIRED) {
      if (rec[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} is required with measurements (the model is not guessed)` });
    }
    if (v.controls !== undefined && v.B === undefined) ctx.addIssue({ code: 'custom', path: ['B'], message: 'B (n x l) is required with controls' });
    if (v.B !== undefined && v.controls === undefined) ctx.addIssue({ code: 'custom', path: ['B'], message: 'B has no effect without controls; send controls or leave B out' });
  } else {
    for (const k of USER_ONLY) {
      if (rec[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} applies only to a filter of your measurements; send measurements or leave ${k} out` });
    }
  }
  const ragged = (name: string, m: MatIn | undefined): boolean => {
    if (m === undefined || typeof m === 'number') return false;
    if (m.some((row) => row.length !== m[0].length)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `${name} rows must all have the same length` });
      return true;
    }
    return false;
  };
  // an empty matrix or row is already an issue of the field's own schema (zod runs this check
  // anyway): nothing here may read its shape
  const empty = (x: unknown) => Array.isArray(x) && (x.length === 0 || x.some((r) => !Array.isArray(r) || r.length === 0));
  if (['F', 'H', 'Q', 'R', 'P0', 'B'].some((k) => empty(rec[k]))) return;
  if (['F', 'H', 'Q', 'R', 'P0', 'B'].some((k) => ragged(k, rec[k] as MatIn | undefined))) return;
  if (user && USER_REQUIRED.some((k) => rec[k] === undefined)) return;
  const { F, H, Q, R } = simulatedModel(v);
  const [fr, fc] = shapeOf(F);
  if (fr !== fc) { ctx.addIssue({ code: 'custom', path: ['F'], message: `F must be square (got ${fr}x${fc})` }); return; }
  const n = fr;
  const [hr, hc] = shapeOf(H);
  let m = hr;
  if (user) {
    const w = seriesWidth(v.measurements!);
    if (w.bad !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['measurements', w.bad], message: `measurement ${w.bad} has ${(v.measurements![w.bad] as number[]).length} components, measurement 0 has ${w.width}` });
      return;
    }
    m = w.width;
    if (hr !== m || hc !== n) ctx.addIssue({ code: 'custom', path: ['H'], message: `H must be ${m}x${n} (${m} measurement component${m === 1 ? '' : 's'}, ${n} states from F) (got ${hr}x${hc})` });
  } else if (hc !== n) {
    ctx.addIssue({ code: 'custom', path: ['H'], message: `H must have ${n} columns to match F (got ${hr}x${hc})` });
  }
  const [qr, qc] = shapeOf(Q);
  if (qr !== n || qc !== n) ctx.addIssue({ code: 'custom', path: ['Q'], message: `Q must be ${n}x${n} (got ${qr}x${qc})` });
  const [rr, rc] = shapeOf(R);
  if (rr !== m || rc !== m) ctx.addIssue({ code: 'custom', path: ['R'], message: `R must be ${m}x${m} to match ${user ? 'the measurements' : 'H'} (got ${rr}x${rc})` });
  if (v.P0 !== undefined) {
    const [pr, pc] = shapeOf(v.P0);
    if (pr !== n || pc !== n) ctx.addIssue({ code: 'custom', path: ['P0'], message: `P0 must be ${n}x${n} (got ${pr}x${pc})` });
  }
  if (v.x0 !== undefined) {
    const len = typeof v.x0 === 'number' ? 1 : v.x0.length;
    if (len !== n) ctx.addIssue({ code: 'custom', path: ['x0'], message: `x0 must have ${n} entries (got ${len})` });
  }
  if (user && v.controls !== undefined && v.B !== undefined) {
    const N = v.measurements!.length;
    if (v.controls.length !== N) ctx.addIssue({ code: 'custom', path: ['controls'], message: `controls must have one entry per measurement (${N}; got ${v.controls.length})` });
    const w = seriesWidth(v.controls);
    if (w.bad !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['controls', w.bad], message: `control ${w.bad} has ${(v.controls[w.bad] as number[]).length} components, control 0 has ${w.width}` });
    } else {
      const [br, bc] = shapeOf(v.B);
      if (br !== n || bc !== w.width) ctx.addIssue({ code: 'custom', path: ['B'], message: `B must be ${n}x${w.width} (${n} states, ${w.width} control component${w.width === 1 ? '' : 's'}) (got ${br}x${bc})` });
    }
  }
  if (user) {
    const N = v.measurements!.length;
    const numbers = N * (n + n * n) * (v.smooth ? 2 : 1);
    if (numbers > MAX_OUTPUT_NUMBERS) {
      ctx.addIssue({ code: 'custom', path: ['measurements'], message: `${N} measurements with ${n} states give ${numbers} numbers of output${v.smooth ? ' (filtered and smoothed)' : ''}, more than ${MAX_OUTPUT_NUMBERS}; send a shorter series` });
    }
  }
}).overwrite((v) => (v.measurements !== undefined ? v : {
  // the simulated system's defaults, filled in after the checks (which must see what the caller
  // sent), so the parsed input, the receipt and the derived seed are those of a schema default
  ...v, ...simulatedModel(v), steps: v.steps ?? defaultSteps({ ...v, ...simulatedModel(v) }),
}));

/** The simulated system's steps when the caller left them out (issue 29): 500 where the filter's
 * covariance settles to the bound by then (the same run as always), else the step at which its
 * recursion from P0 (data-independent, so run here alone, exactly) settles, with a tenth to spare
 * (a large R or a slow mode makes F(I − KH) contract slowly). Filled into the parsed input, so the
 * receipt lists the steps run. */
function defaultSteps(v: { F?: MatIn; H?: MatIn; Q?: MatIn; R?: MatIn; P0?: MatIn }): number {
  try {
    const F = M.fromNested(v.F!), H = M.fromNested(v.H!), Q = M.fromNested(v.Q!), R = M.fromNested(v.R!);
    const P0 = v.P0 !== undefined ? M.fromNested(v.P0) : M.identity(F.rows);
    if (!M.isPositiveDefinite(R) || !M.cholesky(Q) || !M.cholesky(P0)) return DEFAULTS.steps;
    const dare = solveDare(F, H, Q, R);
    if (!dare) return DEFAULTS.steps;
    const refTrace = M.trace(measurementUpdate(dare.X, H, R).P);
    if (covarianceErrorAt(F, H, Q, R, P0, refTrace, DEFAULTS.steps) <= 0.1) return DEFAULTS.steps;
    const needed = stepsToSettle(F, H, Q, R, P0, refTrace, 0.25 * 0.1 / 100, 100_000);
    return needed === null ? DEFAULTS.steps : Math.max(DEFAULTS.steps, Math.min(100_000, Math.ceil(1.1 * needed)));
  } catch {
    return DEFAULTS.steps;
  }
}

export type KalmanInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'kalman',
  domain: 'State Estimation',
  method: 'kalman-joseph',
  methodDescription: 'recursive Bayes filter with Riccati fixed point, Joseph-form covariance',
  operators: ['KO42', 'CS47'],
  unit: 'err',
  summary: 'Kalman filter with the Joseph-form update, on a linear Gaussian system simulated with a seeded RNG (steady-state error variance checked against the discrete algebraic Riccati fixed point, doubling algorithm) or on your own measurement series (filtered and Rauch-Tung-Striebel smoothed states, checked by the normalised innovation squared against its chi-square bounds).',
  input,
  examples: [
    'Run a Kalman filter on a constant-velocity target observed through noisy position measurements',
    'Steady-state error covariance of a Kalman filter with F 0.9, H 1, Q 1, R 2',
    'Solve the discrete algebraic Riccati equation for my tracking filter',
    'Estimate the state of a noisy linear system and report the estimation error variance',
    'Track a random walk measured with sensor noise variance 4',
    'Kalman gain and steady-state covariance for a two-state position velocity model',
    'How accurate is a recursive Bayesian filter on a damped oscillator with process noise?',
    'Sensor fusion of a noisy GPS position with a linear motion model',
    'State estimation of a linear Gaussian system with Joseph form covariance update',
    'Filter and smooth my own series of noisy position measurements with a constant velocity model',
    'Rauch-Tung-Striebel smoother for my sensor data, with a normalised innovation squared consistency check',
  ],
  vocabulary: [
    'kalman', 'kalman filter', 'state estimation', 'estimator', 'filter', 'filtering', 'riccati',
    'algebraic riccati', 'dare', 'covariance', 'error covariance', 'kalman gain', 'joseph form',
    'bayes filter', 'recursive bayesian', 'tracking', 'target tracking', 'sensor fusion', 'gps',
    'measurement noise', 'process noise', 'observer', 'linear gaussian', 'innovation', 'steady state',
    'smoother', 'rts smoother', 'rauch tung striebel', 'nis', 'normalised innovation squared', 'measurements',
  ],
  // 100,000 measurements of a few full-precision numbers each (about 20 bytes a number)
  bodyLimit: 9 * 1024 * 1024,
};

interface DareSolution { X: Mat; iterations: number; residual: number }

/**
 * Structure-preserving doubling for X = A'X(I + G X)^-1 A + Hq with A = F', G = H'R^-1 H, Hq = Q,
 * which is the filter DARE above (matrix inversion lemma). Returns null if a doubling step is singular
 * or the iteration does not settle within 80 passes.
 */
export function solveDare(F: Mat, H: Mat, Q: Mat, R: Mat): DareSolution | null {
  const n = F.rows;
  const Rinv = M.inverse(R);
  if (!Rinv) return null;
  let A = M.transpose(F);
  let G = M.mul(M.mul(M.transpose(H), Rinv), H);
  let Hk = M.copy(Q);
  const I = M.identity(n);
  for (let it = 1; it <= 80; it++) {
    const W = M.add(I, M.mul(G, Hk));
    const WinvA = M.solve(W, A);        // W^-1 A
    const WinvG = M.solve(W, G);        // W^-1 G
    if (!WinvA || !WinvG) return null;
    const At = M.transpose(A);
    const Anext = M.mul(A, WinvA);
    const Gnext = M.symmetrize(M.add(G, M.mul(M.mul(A, WinvG), At)));
    const Hnext = M.symmetrize(M.add(Hk, M.mul(M.mul(At, Hk), WinvA)));
    const change = M.maxAbsDiff(Hnext, Hk);
    A = Anext; G = Gnext; Hk = Hnext;
    if (!Number.isFinite(M.maxAbs(Hk)) || M.maxAbs(Hk) > 1e150) return null;
    if (change <= 1e-15 * Math.max(M.maxAbs(Hk), 1e-300) || M.maxAbs(A) === 0) {
      return { X: Hk, iterations: it, residual: dareResidual(Hk, F, H, Q, R) };
    }
  }
  return null;
}

/** one Riccati map X -> F X F' - F X H'(H X H' + R)^-1 H X F' + Q, in the standard (non-Joseph) form */
export function riccatiMap(X: Mat, F: Mat, H: Mat, Q: Mat, R: Mat): Mat {
  const Ht = M.transpose(H);
  const S = M.add(M.mul(M.mul(H, X), Ht), R);
  const HX = M.mul(H, X);
  const SinvHX = M.solve(S, HX)!;
  const Xupd = M.sub(X, M.mul(M.mul(X, Ht), SinvHX));
  return M.symmetrize(M.add(M.congruence(F, Xupd), Q));
}

function dareResidual(X: Mat, F: Mat, H: Mat, Q: Mat, R: Mat): number {
  return M.maxAbsDiff(riccatiMap(X, F, H, Q, R), X) / Math.max(M.maxAbs(X), 1e-300);
}

/** measurement update of a prior covariance, P = X - X H'(H X H' + R)^-1 H X, and the gain. It is
 * evaluated in the Joseph form (I - KH) X (I - KH)' + K R K' like the filter: the short form loses
 * all digits of P when R is tiny against H X H' (K H -> I). */
function measurementUpdate(X: Mat, H: Mat, R: Mat): { P: Mat; K: Mat } {
  const Ht = M.transpose(H);
  const S = M.add(M.mul(M.mul(H, X), Ht), R);
  const KT = M.solve(S, M.mul(H, X))!; // S^-1 H X = K'  (S and X symmetric)
  const K = M.transpose(KT);
  const A = M.sub(M.identity(X.rows), M.mul(K, H));
  return { P: M.symmetrize(M.add(M.congruence(A, X), M.congruence(K, R))), K };
}

export const run: SolverRun<KalmanInput> = (inp, ctx): SolverOutput =>
  inp.measurements !== undefined ? runMeasurements(inp, ctx) : runSimulated(inp, ctx);

function runSimulated(inp: KalmanInput, ctx: SolverContext): SolverOutput {
  const model = simulatedModel(inp);
  const F = M.fromNested(model.F), H = M.fromNested(model.H);
  const Q = M.fromNested(model.Q), R = M.fromNested(model.R);
  const n = F.rows, m = H.rows;
  const P0 = inp.P0 !== undefined ? M.fromNested(inp.P0) : M.identity(n);
  const steps = inp.steps ?? DEFAULTS.steps;

  if (!M.isSymmetric(Q, 1e-10)) throw refuse('INVALID_INPUT', 'Q must be symmetric');
  if (!M.isSymmetric(P0, 1e-10)) throw refuse('INVALID_INPUT', 'P0 must be symmetric');
  if (!M.isPositiveDefinite(R)) throw refuse('INVALID_INPUT', 'R must be symmetric positive definite');
  const LQ = M.cholesky(Q);
  if (!LQ) throw refuse('INVALID_INPUT', 'Q must be positive semidefinite');
  const LR = M.cholesky(R)!;
  if (!M.cholesky(P0)) throw refuse('INVALID_INPUT', 'P0 must be positive semidefinite');

  // independent reference: the stabilizing DARE solution
  const dare = solveDare(F, H, Q, R);
  if (!dare) {
    throw refuse('INVALID_INPUT', 'the Riccati equation has no steady state: (F, H) is not detectable (an unstable mode is unobserved)');
  }
  const ref = measurementUpdate(dare.X, H, R);
  const closedLoop = M.mul(F, M.sub(M.identity(n), M.mul(ref.K, H)));
  const rhoClosed = M.spectralRadius(closedLoop);
  if (!(rhoClosed < 1 - 1e-9)) {
    throw refuse('INVALID_INPUT', `no stabilizing Riccati solution: the steady-state filter's error dynamics F(I - KH) have spectral radius ${rhoClosed.toPrecision(6)} >= 1 ((F, Q) not stabilizable or (F, H) not detectable)`, { spectralRadius: rhoClosed });
  }

  // the filter's covariance does not depend on the data: its recursion from P0, run alone exactly
  // as the filter will run it, gives the step at which its trace meets the bound (issue 29; the
  // default steps follow it, see defaultSteps): steps too few get a refusal naming that count.
  const refTrace = M.trace(ref.P);
  const needed = stepsToSettle(F, H, Q, R, P0, refTrace, 0.25 * 0.1 / 100, 100_000);

  // simulation and filter; every matrix of the loop is allocated once here
  const rng = createRng(ctx.seed);
  const x = M.column(inp.x0 ?? new Array<number>(n).fill(0));
  const xhat = M.zeros(n, 1);
  const P = M.copy(P0);
  const Pprior = M.zeros(n, n);
  const I = M.identity(n);
  const Ht = M.transpose(H);
  const Ft = M.transpose(F);
  const w = M.zeros(n, 1), v = M.zeros(m, 1), e = M.zeros(n, 1), zeta = M.zeros(m, 1);
  const tmpN = M.zeros(n, 1), tmpM = M.zeros(m, 1), xnext = M.zeros(n, 1);
  const FP = M.zeros(n, n), HP = M.zeros(m, n), S = M.zeros(m, m), KT = M.zeros(m, n), K = M.zeros(n, m);
  const Hx = M.zeros(m, 1), innov = M.zeros(m, 1), Kinnov = M.zeros(n, 1), KH = M.zeros(n, n), A = M.zeros(n, n);
  const AP = M.zeros(n, n), APAt = M.zeros(n, n), KR = M.zeros(n, m), KRKt = M.zeros(n, n), Sinnov = M.zeros(m, 1);
  const work = new Float64Array(16);
  const errSum = M.zeros(n, n);
  let errCount = 0;
  const firstAveraged = Math.floor(steps / 2);
  const maxPoints = 1000;
  const stride = Math.max(1, Math.ceil(steps / maxPoints));
  const kS: number[] = [], trS: number[] = [], errS: number[] = [], innovS: number[] = [];
  let recentred = 0;
  let nis = 0; // normalised innovation squared, averaged over the second half
  const progressEvery = Math.max(1, Math.floor(steps / 20));

  for (let k = 1; k <= steps; k++) {
    // truth: x <- F x + w
    for (let i = 0; i < n; i++) tmpN.data[i] = rng.normal();
    M.mul(LQ, tmpN, w);
    M.mul(F, x, xnext);
    M.add(xnext, w, x);
    // measurement z = H x + v
    for (let i = 0; i < m; i++) tmpM.data[i] = rng.normal();
    M.mul(LR, tmpM, v);
    M.mul(H, x, zeta);
    M.add(zeta, v, zeta);
    // predict: x⁻ = F x̂, P⁻ = F P F' + Q
    M.mul(F, xhat, xnext);
    M.copy(xnext, xhat);
    M.mul(F, P, FP);
    M.mul(FP, Ft, Pprior);
    M.add(Pprior, Q, Pprior);
    M.symmetrize(Pprior, Pprior);
    // gain: K' = S^-1 H P⁻ with S = H P⁻ H' + R
    M.mul(H, Pprior, HP);
    M.mul(HP, Ht, S);
    M.add(S, R, S);
    if (!M.solve(S, HP, KT, work)) throw refuse('UNSTABLE', `innovation covariance became singular at step ${k}`);
    M.transpose(KT, K);
    // state update with the innovation z - H x⁻
    M.mul(H, xhat, Hx);
    M.sub(zeta, Hx, innov);
    M.mul(K, innov, Kinnov);
    M.add(xhat, Kinnov, xhat);
    // Joseph form: P = (I - K H) P⁻ (I - K H)' + K R K'
    M.mul(K, H, KH);
    M.sub(I, KH, A);
    M.mul(A, Pprior, AP);
    M.transpose(A, KH); // KH now holds A'
    M.mul(AP, KH, APAt);
    M.mul(K, R, KR);
    M.mul(KR, KT, KRKt);
    M.add(APAt, KRKt, P);
    M.symmetrize(P, P);
    // error statistics
    M.sub(x, xhat, e);
    if (k > firstAveraged) {
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) errSum.data[i * n + j] += e.data[i] * e.data[j];
      errCount++;
      M.solve(S, innov, Sinnov, work);
      let q = 0;
      for (let i = 0; i < m; i++) q += innov.data[i] * Sinnov.data[i];
      nis += q;
    }
    // keep the numbers finite for unstable F: shift truth and estimate together
    if (M.maxAbs(x) > 1e6) {
      for (let i = 0; i < n; i++) { x.data[i] -= xhat.data[i]; xhat.data[i] = 0; }
      recentred++;
    }
    if (!Number.isFinite(M.maxAbs(P)) || !Number.isFinite(M.maxAbs(e))) {
      throw refuse('UNSTABLE', `the filter diverged at step ${k}`);
    }
    if (k % stride === 0 || k === steps) {
      kS.push(k); trS.push(M.trace(P));
      let e2 = 0;
      for (let i = 0; i < n; i++) e2 += e.data[i] * e.data[i];
      errS.push(e2);
      innovS.push(innov.data[0]);
    }
    if (k % progressEvery === 0) ctx.progress(k / steps);
  }

  const value = M.trace(P);
  const refValue = M.trace(ref.P);
  const empirical = M.scale(errSum, 1 / Math.max(errCount, 1));
  const diff = Math.abs(value - refValue);
  // relative to the reference; when the steady state is exactly zero (Q = 0 with a stable F), absolute
  const errorPct = 100 * (refValue > 1e-300 ? diff / refValue : diff);
  const rounded = (a: Mat): number[][] => M.toNested(a);

  return {
    value,
    result: {
      n, m,
      steadyStateCovariance: rounded(P),
      riccatiCovariance: rounded(ref.P),
      riccatiPrior: rounded(dare.X),
      priorTrace: M.trace(Pprior),
      riccatiPriorTrace: M.trace(dare.X),
      gain: rounded(K),
      riccatiGain: rounded(ref.K),
      riccatiIterations: dare.iterations,
      riccatiResidual: dare.residual,
      closedLoopSpectralRadius: rhoClosed,
      empiricalErrorVariance: M.trace(empirical),
      empiricalCovariance: rounded(empirical),
      empiricalSamples: errCount,
      normalizedInnovationSquared: nis / Math.max(errCount, 1),
      recentred,
      steps,
      seed: ctx.seed,
    },
    precision: {
      errorPct,
      boundPct: 0.1,
      reference: 'trace of the discrete algebraic Riccati fixed point (doubling algorithm), measurement-updated',
      withinBound: errorPct <= 0.1,
      referenceValue: refValue,
    },
    series: { k: kS, traceP: trS, squaredError: errS, innovation: innovS },
    stability: { number: rhoClosed, limit: 1, stable: rhoClosed < 1, name: 'spectral radius of the steady-state error dynamics F(I - KH)' },
    ...(errorPct > 0.1 && needed !== null && needed > steps
      ? { retryWith: { inputs: { steps: Math.min(100_000, Math.ceil(1.1 * needed)) }, predictedErrorPct: covarianceErrorAt(F, H, Q, R, P0, refTrace, Math.min(100_000, Math.ceil(1.1 * needed))), predictedCost: { steps: Math.ceil(1.1 * needed), relativeToThisRun: Math.ceil(1.1 * needed) / steps } } }
      : {}),
  };
}

/** One step of the filter's covariance recursion: P⁻ = F P F' + Q, K = P⁻H'S⁻¹, Joseph form. */
function covarianceStep(F: Mat, H: Mat, Q: Mat, R: Mat, P: Mat): Mat | null {
  const n = F.rows;
  const Pp = M.symmetrize(M.add(M.mul(M.mul(F, P), M.transpose(F)), Q));
  const HP = M.mul(H, Pp);
  const S = M.add(M.mul(HP, M.transpose(H)), R);
  const KT = M.solve(S, HP);
  if (!KT) return null;
  const K = M.transpose(KT);
  const A = M.sub(M.identity(n), M.mul(K, H));
  return M.symmetrize(M.add(M.mul(M.mul(A, Pp), M.transpose(A)), M.mul(M.mul(K, R), KT)));
}

/** the first step at which the trace of the covariance recursion from P0 is within `frac` (relative)
 * of the Riccati fixed point's, staying there (null if not within maxSteps) */
function stepsToSettle(F: Mat, H: Mat, Q: Mat, R: Mat, P0: Mat, refTrace: number, frac: number, maxSteps: number): number | null {
  let P: Mat | null = M.copy(P0);
  let last = -1;
  for (let k = 1; k <= maxSteps && P; k++) {
    P = covarianceStep(F, H, Q, R, P);
    if (!P) return null;
    const e = Math.abs(M.trace(P) - refTrace) / Math.max(refTrace, 1e-300);
    if (e <= frac) { if (last < 0) last = k; if (k >= 2 * last + 10) return last; } else last = -1;
  }
  return last > 0 ? last : null;
}

/** the trace error (%) of the covariance recursion after `steps` steps */
function covarianceErrorAt(F: Mat, H: Mat, Q: Mat, R: Mat, P0: Mat, refTrace: number, steps: number): number {
  let P: Mat | null = M.copy(P0);
  for (let k = 0; k < steps && P; k++) P = covarianceStep(F, H, Q, R, P);
  return P ? 100 * Math.abs(M.trace(P) - refTrace) / Math.max(refTrace, 1e-300) : Infinity;
}

/** the rows of a series as a flat row-major array (width 1 for an array of numbers) */
function flatten(v: SeriesIn, width: number): Float64Array {
  const out = new Float64Array(v.length * width);
  if (typeof v[0] === 'number') out.set(v as number[]);
  else (v as number[][]).forEach((row, i) => out.set(row, i * width));
  return out;
}

/** symmetric positive semidefinite (definite when `definite`), else a refusal naming the field */
function checkCovariance(name: string, A: Mat, definite: boolean): void {
  if (!M.isSymmetric(A, 1e-10)) throw refuse('INVALID_INPUT', `${name} must be symmetric`, { field: name });
  if (definite ? !M.isPositiveDefinite(A) : !M.cholesky(A)) {
    throw refuse('INVALID_INPUT', `${name} must be positive ${definite ? 'definite' : 'semidefinite'}`, { field: name });
  }
}

function nested(data: Float64Array, offset: number, rows: number, cols: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < rows; i++) out.push(Array.from(data.subarray(offset + i * cols, offset + (i + 1) * cols)));
  return out;
}

/**
 * The filter (and smoother) over the caller's measurements. Every step's prior and posterior are
 * kept in flat arrays (the smoother needs both); the loop itself allocates nothing.
 */
function runMeasurements(inp: KalmanInput, ctx: SolverContext): SolverOutput {
  const F = M.fromNested(inp.F!), H = M.fromNested(inp.H!), Q = M.fromNested(inp.Q!), R = M.fromNested(inp.R!);
  const P0 = M.fromNested(inp.P0!);
  const n = F.rows, m = H.rows, N = inp.measurements!.length;
  checkCovariance('Q', Q, false);
  checkCovariance('R', R, true);
  checkCovariance('P0', P0, false);
  const zs = flatten(inp.measurements!, m);
  const B = inp.B !== undefined ? M.fromNested(inp.B) : null;
  const l = B ? B.cols : 0;
  const us = inp.controls !== undefined ? flatten(inp.controls, l) : null;
  const smooth = inp.smooth === true;

  const nn = n * n;
  const xPost = new Float64Array(N * n), PPost = new Float64Array(N * nn);
  const xPrior = new Float64Array(N * n), PPrior = new Float64Array(N * nn);
  const nisK = new Float64Array(N), innov0 = new Float64Array(N), traceP = new Float64Array(N);

  const x = M.zeros(n, 1), P = M.zeros(n, n), xp = M.column(inp.x0!), Pp = M.copy(P0);
  const I = M.identity(n), Ht = M.transpose(H), Ft = M.transpose(F);
  const FP = M.zeros(n, n), HP = M.zeros(m, n), S = M.zeros(m, m), KT = M.zeros(m, n), K = M.zeros(n, m);
  const Hx = M.zeros(m, 1), nu = M.zeros(m, 1), Knu = M.zeros(n, 1), KH = M.zeros(n, n), A = M.zeros(n, n), At = M.zeros(n, n);
  const AP = M.zeros(n, n), APAt = M.zeros(n, n), KR = M.zeros(n, m), KRKt = M.zeros(n, n), Snu = M.zeros(m, 1);
  const u = M.zeros(Math.max(l, 1), 1), Bu = M.zeros(n, 1), Fx = M.zeros(n, 1);
  const work = new Float64Array(Math.max(nn, m * m));
  const zk = M.zeros(m, 1);
  let logLik = 0;
  const progressEvery = Math.max(1, Math.floor(N / 20));
  const LOG_2PI = Math.log(2 * Math.PI);

  /** prediction from the posterior (x, P) of step k to the prior of step k + 1 */
  const predict = (k: number): void => {
    M.mul(F, x, Fx);
    if (B && us) {
      u.data.set(us.subarray(k * l, (k + 1) * l));
      M.mul(B, u, Bu);
      M.add(Fx, Bu, xp);
    } else M.copy(Fx, xp);
    M.mul(F, P, FP);
    M.mul(FP, Ft, Pp);
    M.add(Pp, Q, Pp);
    M.symmetrize(Pp, Pp);
  };

  for (let k = 0; k < N; k++) {
    if (k > 0) predict(k - 1);
    xPrior.set(xp.data, k * n);
    PPrior.set(Pp.data, k * nn);
    // innovation ν = z - H x⁻ and its covariance S = H P⁻ H' + R
    zk.data.set(zs.subarray(k * m, (k + 1) * m));
    M.mul(H, xp, Hx);
    M.sub(zk, Hx, nu);
    M.mul(H, Pp, HP);
    M.mul(HP, Ht, S);
    M.add(S, R, S);
    M.symmetrize(S, S);
    // gain K' = S^-1 H P⁻
    if (!M.solve(S, HP, KT, work)) throw refuse('UNSTABLE', `the innovation covariance became singular at measurement ${k}`);
    M.transpose(KT, K);
    M.mul(K, nu, Knu);
    M.add(xp, Knu, x);
    // Joseph form P = (I - K H) P⁻ (I - K H)' + K R K'
    M.mul(K, H, KH);
    M.sub(I, KH, A);
    M.mul(A, Pp, AP);
    M.transpose(A, At);
    M.mul(AP, At, APAt);
    M.mul(K, R, KR);
    M.mul(KR, KT, KRKt);
    M.add(APAt, KRKt, P);
    M.symmetrize(P, P);
    // NIS ε = ν' S^-1 ν; the Gaussian log-likelihood of the innovations needs ln det S
    M.solve(S, nu, Snu, work);
    let eps = 0;
    for (let i = 0; i < m; i++) eps += nu.data[i] * Snu.data[i];
    const LS = M.cholesky(S, 0);
    let logDet = 0;
    for (let i = 0; i < m; i++) logDet += 2 * Math.log(LS ? LS.data[i * m + i] : NaN);
    logLik -= 0.5 * (eps + logDet + m * LOG_2PI); // NaN or infinite if S lost definiteness to rounding: reported as null
    if (!Number.isFinite(eps) || !Number.isFinite(M.maxAbs(P)) || !Number.isFinite(M.maxAbs(x))) {
      throw refuse('UNSTABLE', `the filter left the finite range at measurement ${k}`);
    }
    nisK[k] = eps;
    innov0[k] = nu.data[0];
    traceP[k] = M.trace(P);
    xPost.set(x.data, k * n);
    PPost.set(P.data, k * nn);
    if (k % progressEvery === 0) ctx.progress(0.8 * k / N);
  }
  const gain = M.toNested(K);
  predict(N - 1); // the forecast for the step after the last measurement (uses the last control)
  const forecast = { x: Array.from(xp.data), P: M.toNested(Pp) };

  // Rauch-Tung-Striebel, backwards: C' = (P⁻[k+1])^-1 F P[k]
  let smoothed: Array<{ x: number[]; P: number[][] }> | undefined;
  let smoothedSeries: Float64Array | undefined;
  if (smooth) {
    const xs = new Float64Array(N * n), Ps = new Float64Array(N * nn);
    xs.set(xPost.subarray((N - 1) * n), (N - 1) * n);
    Ps.set(PPost.subarray((N - 1) * nn), (N - 1) * nn);
    const Pk = M.zeros(n, n), PpNext = M.zeros(n, n), CT = M.zeros(n, n), C = M.zeros(n, n);
    const FPk = M.zeros(n, n), dx = M.zeros(n, 1), Cdx = M.zeros(n, 1), dP = M.zeros(n, n), CdP = M.zeros(n, n), CdPCt = M.zeros(n, n);
    for (let k = N - 2; k >= 0; k--) {
      Pk.data.set(PPost.subarray(k * nn, (k + 1) * nn));
      PpNext.data.set(PPrior.subarray((k + 1) * nn, (k + 2) * nn));
      M.mul(F, Pk, FPk);
      if (!M.solve(PpNext, FPk, CT, work)) {
        throw refuse('INVALID_INPUT', `smooth: the predicted covariance at measurement ${k + 1} is singular (Q and P0 leave a direction with no uncertainty), so the Rauch-Tung-Striebel gain is undefined`, { field: 'smooth' });
      }
      M.transpose(CT, C);
      for (let i = 0; i < n; i++) dx.data[i] = xs[(k + 1) * n + i] - xPrior[(k + 1) * n + i];
      M.mul(C, dx, Cdx);
      for (let i = 0; i < n; i++) xs[k * n + i] = xPost[k * n + i] + Cdx.data[i];
      for (let i = 0; i < nn; i++) dP.data[i] = Ps[(k + 1) * nn + i] - PPrior[(k + 1) * nn + i];
      M.mul(C, dP, CdP);
      M.mul(CdP, CT, CdPCt);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        const a = CdPCt.data[i * n + j], b = CdPCt.data[j * n + i];
        Ps[k * nn + i * n + j] = PPost[k * nn + i * n + j] + 0.5 * (a + b);
      }
      if (k % progressEvery === 0) ctx.progress(0.8 + 0.15 * (N - k) / N);
    }
    smoothed = [];
    for (let k = 0; k < N; k++) smoothed.push({ x: Array.from(xs.subarray(k * n, (k + 1) * n)), P: nested(Ps, k * nn, n, n) });
    smoothedSeries = new Float64Array(N);
    for (let k = 0; k < N; k++) { let t = 0; for (let i = 0; i < n; i++) t += Ps[k * nn + i * n + i]; smoothedSeries[k] = t; }
  }

  // NIS statistics: the mean against χ²(N·m)/N, each step against χ²(m)
  let sum = 0, inside = 0;
  const stepLo = chiSquareQuantile(0.025, m), stepHi = chiSquareQuantile(0.975, m);
  for (let k = 0; k < N; k++) { sum += nisK[k]; if (nisK[k] >= stepLo && nisK[k] <= stepHi) inside++; }
  const mean = sum / N;
  const lower95 = chiSquareQuantile(0.025, N * m) / N, upper95 = chiSquareQuantile(0.975, N * m) / N;
  const nis = { mean, lower95, upper95, fractionInside: inside / N, expected: m, stepLower95: stepLo, stepUpper95: stepHi };

  // the steady state of the time-invariant model, beside the check
  const riccati = steadyStateCheck(F, H, Q, R, P);

  const filtered: Array<{ x: number[]; P: number[][] }> = [];
  for (let k = 0; k < N; k++) filtered.push({ x: Array.from(xPost.subarray(k * n, (k + 1) * n)), P: nested(PPost, k * nn, n, n) });

  // withinBound ⇔ lower95 <= mean <= upper95: errorPct is the distance of the mean from m and the
  // bound the distance of the crossed side's 95 % limit
  const errorPct = 100 * Math.abs(mean - m) / m;
  const boundPct = 100 * (mean >= m ? upper95 - m : m - lower95) / m;
  const precision = precisionOf({
    errorPct, boundPct, referenceValue: m, certificate: 'nis',
    reference: `mean normalised innovation squared against its expectation m = ${m}; 95 % bounds [${lower95.toPrecision(6)}, ${upper95.toPrecision(6)}] from chi-square(N·m)/N`,
  });
  ctx.progress(1);
  const kS = Array.from({ length: N }, (_, k) => k);
  const seriesOut: Record<string, number[]> = { k: kS, nis: Array.from(nisK), innovation: Array.from(innov0), traceP: Array.from(traceP) };
  if (smoothedSeries) seriesOut.traceSmoothedP = Array.from(smoothedSeries);
  return {
    value: mean,
    result: {
      mode: 'measurements',
      n, m, l, N,
      filtered,
      ...(smoothed ? { smoothed } : {}),
      forecast,
      nis,
      gain,
      logLikelihood: Number.isFinite(logLik) ? logLik : null,
      riccati,
    },
    precision,
    series: seriesOut,
    ...(riccati.available ? { stability: { number: riccati.closedLoopSpectralRadius as number, limit: 1, stable: true, name: 'spectral radius of the steady-state error dynamics F(I - KH)' } } : {}),
  };
}

/** The DARE fixed point of a time-invariant model and its distance (trace, %) from the last filtered
 * covariance P; `available: false` with the reason when the model has no stabilizing steady state
 * (a filter of real data may legitimately run on such a model, e.g. a constant, F = 1, Q = 0). */
function steadyStateCheck(F: Mat, H: Mat, Q: Mat, R: Mat, P: Mat): Record<string, unknown> {
  const dare = solveDare(F, H, Q, R);
  if (!dare) return { available: false, reason: 'the Riccati doubling did not settle: (F, H) is not detectable or (F, Q) not stabilizable' };
  const ref = measurementUpdate(dare.X, H, R);
  const n = F.rows;
  const rho = M.spectralRadius(M.mul(F, M.sub(M.identity(n), M.mul(ref.K, H))));
  if (!(rho < 1 - 1e-9)) {
    return { available: false, reason: `no stabilizing Riccati solution: F(I - KH) has spectral radius ${rho.toPrecision(6)} >= 1`, closedLoopSpectralRadius: rho };
  }
  const refTrace = M.trace(ref.P), last = M.trace(P);
  const errorPct = 100 * (refTrace > 1e-300 ? Math.abs(last - refTrace) / refTrace : Math.abs(last - refTrace));
  return {
    available: true,
    covariance: M.toNested(ref.P),
    prior: M.toNested(dare.X),
    gain: M.toNested(ref.K),
    trace: refTrace,
    lastFilteredTrace: last,
    errorPct,
    converged: errorPct <= 0.1,
    iterations: dare.iterations,
    residual: dare.residual,
    closedLoopSpectralRadius: rho,
  };
}
