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
import { z } from 'zod';
import { createRng } from './lib/rng.ts';
import * as M from './lib/smallmat.ts';
import type { Mat } from './lib/smallmat.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';

const finite = z.number().min(-1e6).max(1e6);
const matrix = z.union([finite, z.array(z.array(finite).min(1).max(4)).min(1).max(4)]);
const vector = z.union([finite, z.array(finite).min(1).max(4)]);
type MatIn = z.infer<typeof matrix>;

function shapeOf(m: MatIn): [number, number] {
  return typeof m === 'number' ? [1, 1] : [m.length, m[0].length];
}

const input = z.strictObject({
  F: matrix.default([[1, 1], [0, 1]]).describe('state transition matrix (n x n, or a number for n = 1)'),
  H: matrix.default([[1, 0]]).describe('observation matrix (m x n, or a number)'),
  Q: matrix.default([[0.01 / 3, 0.01 / 2], [0.01 / 2, 0.01]]).describe('process noise covariance (n x n, symmetric PSD)'),
  R: matrix.default([[1]]).describe('measurement noise covariance (m x m, symmetric positive definite)'),
  P0: matrix.optional().describe('initial error covariance (n x n; default identity)'),
  x0: vector.optional().describe('initial true state (default zeros); the filter starts from zero'),
  steps: z.number().int().min(10).max(100_000).default(500).describe('filter steps'),
  seed: z.number().int().min(0).max(0xffffffff).optional().describe('RNG seed (default derived from inputs)'),
}).superRefine((v, ctx) => {
  const ragged = (name: string, m: MatIn | undefined): boolean => {
    if (m === undefined || typeof m === 'number') return false;
    if (m.some((row) => row.length !== m[0].length)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `${name} rows must all have the same length` });
      return true;
    }
    return false;
  };
  if (['F', 'H', 'Q', 'R', 'P0'].some((k) => ragged(k, (v as Record<string, MatIn | undefined>)[k]))) return;
  const [fr, fc] = shapeOf(v.F);
  if (fr !== fc) { ctx.addIssue({ code: 'custom', path: ['F'], message: `F must be square (got ${fr}x${fc})` }); return; }
  const n = fr;
  const [hr, hc] = shapeOf(v.H);
  if (hc !== n) ctx.addIssue({ code: 'custom', path: ['H'], message: `H must have ${n} columns to match F (got ${hr}x${hc})` });
  const [qr, qc] = shapeOf(v.Q);
  if (qr !== n || qc !== n) ctx.addIssue({ code: 'custom', path: ['Q'], message: `Q must be ${n}x${n} (got ${qr}x${qc})` });
  const [rr, rc] = shapeOf(v.R);
  if (rr !== hr || rc !== hr) ctx.addIssue({ code: 'custom', path: ['R'], message: `R must be ${hr}x${hr} to match H (got ${rr}x${rc})` });
  if (v.P0 !== undefined) {
    const [pr, pc] = shapeOf(v.P0);
    if (pr !== n || pc !== n) ctx.addIssue({ code: 'custom', path: ['P0'], message: `P0 must be ${n}x${n} (got ${pr}x${pc})` });
  }
  if (v.x0 !== undefined) {
    const len = typeof v.x0 === 'number' ? 1 : v.x0.length;
    if (len !== n) ctx.addIssue({ code: 'custom', path: ['x0'], message: `x0 must have ${n} entries (got ${len})` });
  }
});

export type KalmanInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'kalman',
  domain: 'State Estimation',
  method: 'kalman-joseph',
  methodDescription: 'recursive Bayes filter with Riccati fixed point, Joseph-form covariance',
  operators: ['KO42', 'CS47'],
  unit: 'err',
  summary: 'Linear Gaussian system simulated with a seeded RNG and tracked by a Kalman filter with the Joseph-form update; the steady-state error variance is checked against the discrete algebraic Riccati fixed point (doubling algorithm).',
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
  ],
  vocabulary: [
    'kalman', 'kalman filter', 'state estimation', 'estimator', 'filter', 'filtering', 'riccati',
    'algebraic riccati', 'dare', 'covariance', 'error covariance', 'kalman gain', 'joseph form',
    'bayes filter', 'recursive bayesian', 'tracking', 'target tracking', 'sensor fusion', 'gps',
    'measurement noise', 'process noise', 'observer', 'linear gaussian', 'innovation', 'steady state',
  ],
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

export const run: SolverRun<KalmanInput> = (inp, ctx): SolverOutput => {
  const F = M.fromNested(inp.F), H = M.fromNested(inp.H), Q = M.fromNested(inp.Q), R = M.fromNested(inp.R);
  const n = F.rows, m = H.rows;
  const P0 = inp.P0 !== undefined ? M.fromNested(inp.P0) : M.identity(n);
  const steps = inp.steps;

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
  };
};
