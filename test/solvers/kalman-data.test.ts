// kalman on the caller's measurements: the filter's covariance against an independently iterated
// Riccati recursion, the NIS consistency check, the Rauch-Tung-Striebel smoother against the exact
// joint-Gaussian posterior (dense conditioning, no recursion), the scalar random walk's closed-form
// gain, and the input refusals. Tracks are simulated here with the seeded RNG of lib/rng.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/kalman.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { SvcError } from '../../src/core/errors.ts';
import { assertFiniteOrRefused, denseSolve } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
type Out = { x: number[]; P: number[][] };

// ---- plain 2x2 / small helpers, independent of the solver's matrix library ----
type Mat = number[][];
const mul = (A: Mat, B: Mat): Mat => A.map((r) => B[0].map((_, j) => r.reduce((s, a, k) => s + a * B[k][j], 0)));
const tr = (A: Mat): Mat => A[0].map((_, j) => A.map((r) => r[j]));
const add = (A: Mat, B: Mat): Mat => A.map((r, i) => r.map((a, j) => a + B[i][j]));
const sub = (A: Mat, B: Mat): Mat => A.map((r, i) => r.map((a, j) => a - B[i][j]));
const inv2 = (A: Mat): Mat => { const d = A[0][0] * A[1][1] - A[0][1] * A[1][0]; return [[A[1][1] / d, -A[0][1] / d], [-A[1][0] / d, A[0][0] / d]]; };
const maxAbsDiff = (A: Mat, B: Mat) => Math.max(...A.flatMap((r, i) => r.map((a, j) => Math.abs(a - B[i][j]))));

/** constant-velocity model with white-noise acceleration (Bar-Shalom §6.2.2) */
function cvModel(dt: number, q: number, r: number) {
  return {
    F: [[1, dt], [0, 1]], H: [[1, 0]],
    Q: [[q * dt ** 3 / 3, q * dt ** 2 / 2], [q * dt ** 2 / 2, q * dt]], R: [[r]],
  };
}

/** a track and its measurements, the initial state drawn from the prior N(x0, P0) */
function simulateTrack(model: ReturnType<typeof cvModel>, x0: number[], P0: Mat, N: number, seed: number) {
  const rng = createRng(seed);
  const chol2 = (A: Mat): Mat => { const a = Math.sqrt(A[0][0]); const b = A[1][0] / a; return [[a, 0], [b, Math.sqrt(A[1][1] - b * b)]]; };
  const LQ = chol2(model.Q), LP = chol2(P0), sr = Math.sqrt(model.R[0][0]);
  const draw = (L: Mat) => { const e = [rng.normal(), rng.normal()]; return [L[0][0] * e[0], L[1][0] * e[0] + L[1][1] * e[1]]; };
  let x = x0.map((v, i) => v + draw(LP)[i]);
  const truth: number[][] = [], z: number[] = [];
  for (let k = 0; k < N; k++) {
    if (k > 0) { const w = draw(LQ); x = [x[0] + model.F[0][1] * x[1] + w[0], x[1] + w[1]]; }
    truth.push(x);
    z.push(x[0] + sr * rng.normal());
  }
  return { truth, z };
}

/** the a-posteriori Riccati fixed point by iterating P⁻ → P → F P F' + Q to convergence */
function riccatiFixedPoint(F: Mat, H: Mat, Q: Mat, R: Mat): Mat {
  let Pp: Mat = [[1, 0], [0, 1]], P: Mat = Pp;
  for (let it = 0; it < 100000; it++) {
    const S = mul(mul(H, Pp), tr(H))[0][0] + R[0][0];
    const K = mul(Pp, tr(H)).map((r) => [r[0] / S]);
    P = sub(Pp, mul(K, mul(H, Pp)));
    const next = add(mul(mul(F, P), tr(F)), Q);
    if (maxAbsDiff(next, Pp) < 1e-16 * Math.abs(next[0][0])) break;
    Pp = next;
  }
  return P;
}

test('constant-velocity track: covariance reaches the Riccati fixed point, NIS inside its bounds, smoother beats filter', () => {
  const model = cvModel(1, 0.05, 4);
  const x0 = [0, 1], P0 = [[100, 0], [0, 10]];
  const N = 2000;
  const { truth, z } = simulateTrack(model, x0, P0, N, 11);
  const out = solve({ ...model, measurements: z, x0, P0, smooth: true });
  const filtered = out.result.filtered as Out[], smoothed = out.result.smoothed as Out[];
  assert.equal(filtered.length, N);
  assert.equal(smoothed.length, N);

  const Pinf = riccatiFixedPoint(model.F, model.H, model.Q, model.R);
  const Plast = filtered[N - 1].P;
  assert.ok(maxAbsDiff(Plast, Pinf) < 1e-10 * Pinf[0][0], `P ${JSON.stringify(Plast)} vs ${JSON.stringify(Pinf)}`);
  // it gets there early: after 100 steps within 1e-6
  assert.ok(maxAbsDiff(filtered[100].P, Pinf) < 1e-6 * Pinf[0][0]);
  const ric = out.result.riccati as Record<string, any>;
  assert.equal(ric.available, true);
  assert.ok(maxAbsDiff(ric.covariance, Pinf) < 1e-10 * Pinf[0][0]);
  assert.ok(ric.errorPct < 1e-8 && ric.converged === true);

  // NIS: mean within the χ²(N)/N bounds (≈ 1 ± 1.96·√(2/N) for large N), per-step fraction ≈ 95 %
  const nis = out.result.nis as Record<string, number>;
  const half = 1.96 * Math.sqrt(2 / N);
  assert.ok(Math.abs(nis.lower95 - (1 - half)) < 0.01 && Math.abs(nis.upper95 - (1 + half)) < 0.01, JSON.stringify(nis));
  assert.ok(nis.mean >= nis.lower95 && nis.mean <= nis.upper95, JSON.stringify(nis));
  assert.ok(Math.abs(nis.fractionInside - 0.95) < 0.015, `fraction ${nis.fractionInside}`);
  assert.equal(out.value, nis.mean);
  assert.equal(out.precision.certificate, 'nis');
  assert.equal(out.precision.withinBound, true);
  assert.equal(out.precision.referenceValue, 1);

  // mean squared error against the true states: the smoother uses the future too
  const mse = (est: Out[]) => est.reduce((s, e, k) => s + (e.x[0] - truth[k][0]) ** 2 + (e.x[1] - truth[k][1]) ** 2, 0) / N;
  const mseF = mse(filtered), mseS = mse(smoothed);
  assert.ok(mseS < 0.8 * mseF, `smoother ${mseS} vs filter ${mseF}`);
  // both match their own predicted error: trace P averaged over the run
  const avgTr = (est: Out[]) => est.slice(100).reduce((s, e) => s + e.P[0][0] + e.P[1][1], 0) / (N - 100);
  assert.ok(Math.abs(mseF / avgTr(filtered) - 1) < 0.15, `filter mse ${mseF} vs trace ${avgTr(filtered)}`);
  assert.ok(Math.abs(mseS / avgTr(smoothed) - 1) < 0.15, `smoother mse ${mseS} vs trace ${avgTr(smoothed)}`);
  // the smoothed last step is the filtered last step
  assert.deepEqual(smoothed[N - 1], filtered[N - 1]);
});

test('NIS bounds are 95 % bounds: the mean NIS of 40 simulated tracks falls inside in 34 or more', () => {
  const model = cvModel(0.5, 0.2, 1);
  const x0 = [5, -1], P0 = [[4, 0], [0, 1]];
  let inside = 0, fracSum = 0;
  for (let seed = 100; seed < 140; seed++) {
    const { z } = simulateTrack(model, x0, P0, 300, seed);
    const out = solve({ ...model, measurements: z, x0, P0 });
    if (out.precision.withinBound) inside++;
    fracSum += (out.result.nis as Record<string, number>).fractionInside;
  }
  assert.ok(inside >= 34, `${inside} of 40 inside`); // Binomial(40, 0.95): P(< 34) ≈ 0.2 %
  assert.ok(Math.abs(fracSum / 40 - 0.95) < 0.01, `mean fraction ${fracSum / 40}`);
});

test('a mis-specified model fails the NIS check: R four times too small, or Q far too small', () => {
  const model = cvModel(1, 0.05, 4);
  const x0 = [0, 1], P0 = [[100, 0], [0, 10]];
  const { z } = simulateTrack(model, x0, P0, 1000, 5);
  const small = solve({ ...model, R: [[1]], measurements: z, x0, P0 });
  assert.equal(small.precision.withinBound, false);
  assert.ok(small.value > 2, `mean NIS ${small.value}`);
  const stiff = solve({ ...model, Q: [[1e-8, 0], [0, 1e-8]], measurements: z, x0, P0 });
  assert.equal(stiff.precision.withinBound, false);
});

test('RTS smoother and filter equal the exact Gaussian posterior computed by dense conditioning (with controls)', () => {
  const F = [[1, 0.5], [-0.2, 0.9]], B = [[0.1], [0.5]], H = [[1, 0]], Q = [[0.3, 0.05], [0.05, 0.2]], R = [[0.7]];
  const x0 = [1, -2], P0 = [[2, 0.3], [0.3, 1]];
  const z = [0.5, 1.7, -0.3, 2.2, 1.1, 0.4, -1.0];
  const u = [1, 0, -1, 2, 0.5, 0, 1];
  const N = z.length, n = 2;
  const out = solve({ F, B, H, Q, R, x0, P0, measurements: z, controls: u, smooth: true });

  // prior means and covariances of the stacked states X = (x_0, ..., x_{N-1})
  const mu: number[][] = [x0];
  const V: Mat[] = [P0];
  for (let k = 1; k < N; k++) {
    mu.push(add(mul(F, [[mu[k - 1][0]], [mu[k - 1][1]]]), mul(B, [[u[k - 1]]])).map((r) => r[0]));
    V.push(add(mul(mul(F, V[k - 1]), tr(F)), Q));
  }
  const Fpow = (p: number): Mat => { let A: Mat = [[1, 0], [0, 1]]; for (let i = 0; i < p; i++) A = mul(F, A); return A; };
  // Cov(x_j, x_k) = F^(j-k) V_k for j >= k
  const Sxx: number[][] = Array.from({ length: N * n }, () => new Array(N * n).fill(0));
  for (let j = 0; j < N; j++) for (let k = 0; k <= j; k++) {
    const C = mul(Fpow(j - k), V[k]);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) { Sxx[j * n + a][k * n + b] = C[a][b]; Sxx[k * n + b][j * n + a] = C[a][b]; }
  }
  // z_k = x_k[0] + v: Σ_zz = Σ_xx[first components] + R, Σ_xz = Σ_xx[:, first components]
  const idx = Array.from({ length: N }, (_, k) => k * n);
  const Szz = idx.map((i, r) => idx.map((j, c) => Sxx[i][j] + (r === c ? R[0][0] : 0)));
  const resid = z.map((zk, k) => zk - mu[k][0]);
  const w = denseSolve(Szz, resid);
  const postMean = Sxx.map((row, i) => mu[Math.floor(i / n)][i % n] + idx.reduce((s, j, c) => s + row[j] * w[c], 0));
  const smoothed = out.result.smoothed as Out[];
  for (let k = 0; k < N; k++) for (let a = 0; a < n; a++) {
    assert.ok(Math.abs(smoothed[k].x[a] - postMean[k * n + a]) < 1e-10, `x_s[${k}][${a}] ${smoothed[k].x[a]} vs ${postMean[k * n + a]}`);
  }
  // posterior covariance blocks: Σ_xx − Σ_xz Σ_zz⁻¹ Σ_zx
  for (let k = 0; k < N; k++) for (let a = 0; a < n; a++) {
    const col = denseSolve(Szz, idx.map((j) => Sxx[j][k * n + a]));
    for (let b = 0; b < n; b++) {
      const exact = Sxx[k * n + b][k * n + a] - idx.reduce((s, j, c) => s + Sxx[k * n + b][j] * col[c], 0);
      assert.ok(Math.abs(smoothed[k].P[b][a] - exact) < 1e-10, `P_s[${k}] ${smoothed[k].P[b][a]} vs ${exact}`);
    }
  }
  // the filtered estimate at k is the posterior given z_0..z_k: check at k = 3
  const k3 = 3, idx3 = idx.slice(0, k3 + 1);
  const w3 = denseSolve(idx3.map((i, r) => idx3.map((j, c) => Sxx[i][j] + (r === c ? R[0][0] : 0))), resid.slice(0, k3 + 1));
  const filtered = out.result.filtered as Out[];
  for (let a = 0; a < n; a++) {
    const exact = mu[k3][a] + idx3.reduce((s, j, c) => s + Sxx[k3 * n + a][j] * w3[c], 0);
    assert.ok(Math.abs(filtered[k3].x[a] - exact) < 1e-10, `x_f[3][${a}]`);
  }
  // the forecast uses the last control: x⁻_N = F x_{N-1} + B u_{N-1}
  const last = filtered[N - 1].x;
  const fc = (out.result.forecast as Out).x;
  assert.ok(Math.abs(fc[0] - (F[0][0] * last[0] + F[0][1] * last[1] + B[0][0] * u[N - 1])) < 1e-12);
  assert.ok(Math.abs(fc[1] - (F[1][0] * last[0] + F[1][1] * last[1] + B[1][0] * u[N - 1])) < 1e-12);
  // the Gaussian log-likelihood of the data is the sum of the innovations' (prediction-error decomposition)
  const detAndQuad = (() => {
    // ln det Σ_zz and r' Σ_zz⁻¹ r by an LDLᵀ-free route: Σ_zz = L Lᵀ by hand
    const A = Szz.map((r) => r.slice()); const L = A.map(() => new Array(N).fill(0));
    for (let j = 0; j < N; j++) {
      let s = A[j][j]; for (let k = 0; k < j; k++) s -= L[j][k] ** 2; L[j][j] = Math.sqrt(s);
      for (let i = j + 1; i < N; i++) { let t = A[i][j]; for (let k = 0; k < j; k++) t -= L[i][k] * L[j][k]; L[i][j] = t / L[j][j]; }
    }
    return { logDet: 2 * L.reduce((s, r, i) => s + Math.log(r[i]), 0), quad: resid.reduce((s, r, i) => s + r * w[i], 0) };
  })();
  const ll = -0.5 * (detAndQuad.quad + detAndQuad.logDet + N * Math.log(2 * Math.PI));
  assert.ok(Math.abs((out.result.logLikelihood as number) - ll) < 1e-10 * Math.abs(ll), `${out.result.logLikelihood} vs ${ll}`);
});

test('scalar random walk: the gain converges to the closed form K = X/(X + r), X = (q + √(q² + 4qr))/2', () => {
  for (const [q, r] of [[1, 1], [0.01, 4], [5, 0.1]]) {
    const rng = createRng(3);
    let x = 0;
    const z: number[] = [];
    for (let k = 0; k < 400; k++) { x += Math.sqrt(q) * rng.normal(); z.push(x + Math.sqrt(r) * rng.normal()); }
    const out = solve({ F: 1, H: 1, Q: q, R: r, x0: 0, P0: 10, measurements: z });
    const X = (q + Math.sqrt(q * q + 4 * q * r)) / 2, K = X / (X + r);
    const gain = (out.result.gain as number[][])[0][0];
    assert.ok(Math.abs(gain - K) < 1e-12, `q ${q} r ${r}: ${gain} vs ${K}`);
    const filtered = out.result.filtered as Out[];
    assert.ok(Math.abs(filtered[399].P[0][0] - K * r) < 1e-12 * K * r);
    assert.equal(out.result.m, 1);
    assert.equal(out.result.n, 1);
  }
});

test('a constant (F = 1, Q = 0) has no stabilizing steady state: filtered all the same, with the Riccati check marked unavailable', () => {
  const rng = createRng(9);
  const z = Array.from({ length: 200 }, () => 3 + 0.5 * rng.normal());
  const out = solve({ F: 1, H: 1, Q: 0, R: 0.25, x0: 0, P0: 100, measurements: z });
  const f = out.result.filtered as Out[];
  // the posterior of a constant: precision 1/P0 + k/R, mean the precision-weighted average
  const Pexact = 1 / (1 / 100 + 200 / 0.25);
  assert.ok(Math.abs(f[199].P[0][0] - Pexact) < 1e-12 * Pexact);
  const mean = Pexact * (z.reduce((s, v) => s + v, 0) / 0.25);
  assert.ok(Math.abs(f[199].x[0] - mean) < 1e-10);
  assert.equal((out.result.riccati as Record<string, unknown>).available, false);
  assert.equal(out.stability, undefined);
});

test('vector measurements: two sensors on a 4-state track', () => {
  const dt = 0.1;
  const F = [[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]];
  const H = [[1, 0, 0, 0], [0, 1, 0, 0]];
  const Q = [[1e-4, 0, 0, 0], [0, 1e-4, 0, 0], [0, 0, 1e-2, 0], [0, 0, 0, 1e-2]];
  const R = [[0.25, 0.05], [0.05, 0.25]];
  const rng = createRng(21);
  let s = [0, 0, 1, -1];
  const z: number[][] = [];
  const lr = [[0.5, 0], [0.1, Math.sqrt(0.25 - 0.01)]];
  for (let k = 0; k < 500; k++) {
    if (k > 0) s = [s[0] + dt * s[2] + 0.01 * rng.normal(), s[1] + dt * s[3] + 0.01 * rng.normal(), s[2] + 0.1 * rng.normal(), s[3] + 0.1 * rng.normal()];
    const e = [rng.normal(), rng.normal()];
    z.push([s[0] + lr[0][0] * e[0], s[1] + lr[1][0] * e[0] + lr[1][1] * e[1]]);
  }
  const out = solve({ F, H, Q, R, x0: [0, 0, 1, -1], P0: [[1e-6, 0, 0, 0], [0, 1e-6, 0, 0], [0, 0, 1e-6, 0], [0, 0, 0, 1e-6]], measurements: z, smooth: true });
  assert.equal(out.result.m, 2);
  assert.equal(out.result.n, 4);
  const nis = out.result.nis as Record<string, number>;
  assert.equal(nis.expected, 2);
  assert.ok(out.precision.withinBound, JSON.stringify(nis));
  assert.ok((out.result.riccati as Record<string, number>).errorPct < 1e-6);
});

test('same input gives identical bits', () => {
  const model = cvModel(1, 0.05, 4);
  const { z } = simulateTrack(model, [0, 1], [[1, 0], [0, 1]], 300, 2);
  const f = { ...model, measurements: z, x0: [0, 1], P0: [[1, 0], [0, 1]], smooth: true };
  assert.deepEqual(solve(f), solve(f));
});

test('shape and field errors are 400s naming the field and the expected shape', () => {
  const base = { F: [[1, 1], [0, 1]], H: [[1, 0]], Q: [[0.1, 0], [0, 0.1]], R: 1, x0: [0, 0], P0: [[1, 0], [0, 1]], measurements: [1, 2, 3] };
  const bad: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ ...base, H: [[1, 0, 0]] }, 'H', /H must be 1x2/],
    [{ ...base, measurements: [[1, 2], [3, 4]] }, 'H', /H must be 2x2/],
    [{ ...base, measurements: [[1, 2], [3, 4]], H: [[1, 0], [0, 1]] }, 'R', /R must be 2x2/],
    [{ ...base, measurements: [[1, 2], [3]] }, 'measurements', /measurement 1 has 1 components/],
    [{ ...base, Q: [[1]] }, 'Q', /Q must be 2x2/],
    [{ ...base, P0: 1 }, 'P0', /P0 must be 2x2/],
    [{ ...base, x0: [0] }, 'x0', /x0 must have 2 entries/],
    [{ ...base, F: [[1, 0]] }, 'F', /square/],
    [{ ...base, controls: [1, 2, 3] }, 'B', /B .* is required with controls/],
    [{ ...base, B: [[1], [0]] }, 'B', /no effect without controls/],
    [{ ...base, controls: [1, 2], B: [[1], [0]] }, 'controls', /one entry per measurement \(3/],
    [{ ...base, controls: [[1, 0], [1, 0], [1, 0]], B: [[1], [0]] }, 'B', /B must be 2x2/],
    [{ ...base, steps: 100 }, 'steps', /simulated system/],
    [{ ...base, seed: 4 }, 'seed', /simulated system/],
    [{ F: 1, H: 1, Q: 1, R: 1, smooth: true }, 'smooth', /only to a filter of your measurements/],
    [{ F: 1, H: 1, Q: 1, R: 1, controls: [1] }, 'controls', /only to a filter of your measurements/],
    [{ measurements: [1, 2], F: 1, H: 1, Q: 1, R: 1, x0: 0 }, 'P0', /P0 is required/],
    [{ measurements: [1, 2], H: 1, Q: 1, R: 1, x0: 0, P0: 1 }, 'F', /F is required/],
    [{ ...base, measurements: [1, Infinity] }, 'measurements', /./],
    [{ ...base, measurements: [1, NaN] }, 'measurements', /./],
    [{ ...base, measurements: [] }, 'measurements', /./],
    [{ ...base, measurements: new Array(100_001).fill(0) }, 'measurements', /./],
    [{ ...base, F: [[1, 0, 0, 0, 0, 0, 0, 0, 0]] }, 'F', /./],
    [{ ...base, R: [[NaN]] }, 'R', /./],
  ];
  for (const [b, field, msg] of bad) {
    const r = descriptor.input.safeParse(b);
    assert.equal(r.success, false, `${field}: ${JSON.stringify(b).slice(0, 120)}`);
    const issue = r.error!.issues[0];
    assert.equal(issue.path[0], field, `${field}: got ${issue.path.join('.')} ${issue.message}`);
    assert.match(issue.message, msg, `${field}: ${issue.message}`);
  }
  // the output cap: 100,000 measurements of an 8-state model smoothed is too much output
  const eye8 = Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => (i === j ? 1 : 0)));
  const big = descriptor.input.safeParse({ F: eye8, H: [eye8[0]], Q: eye8, R: 1, x0: new Array(8).fill(0), P0: eye8, measurements: new Array(100_000).fill(0), smooth: true });
  assert.ok(!big.success && big.error.issues[0].path[0] === 'measurements' && /numbers of output/.test(big.error.issues[0].message));
  // the simulated system keeps its defaults
  assert.ok(descriptor.input.safeParse({}).success);
});

test('covariances that are not symmetric positive (semi)definite are refused naming the matrix', () => {
  const base = { F: [[1, 1], [0, 1]], H: [[1, 0]], Q: [[0.1, 0], [0, 0.1]], R: 1, x0: [0, 0], P0: [[1, 0], [0, 1]], measurements: [1, 2, 3] };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ Q: [[0.1, 0.2], [0, 0.1]] }, 'Q'],
    [{ Q: [[1, 2], [2, 1]] }, 'Q'],
    [{ R: 0 }, 'R'],
    [{ R: -1 }, 'R'],
    [{ P0: [[1, 0.5], [0.4, 1]] }, 'P0'],
    [{ P0: [[-1, 0], [0, 1]] }, 'P0'],
  ];
  for (const [patch, field] of cases) {
    assert.throws(() => solve({ ...base, ...patch }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT'
      && new RegExp(`^${field} must be`).test(e.message), JSON.stringify(patch));
  }
  // a semidefinite Q and P0 are fine for the filter; the smoother then needs P⁻ invertible
  const semi = solve({ ...base, Q: [[0, 0], [0, 0.1]], P0: [[0, 0], [0, 1]] });
  assert.ok(Number.isFinite(semi.value));
  assert.throws(() => solve({ ...base, Q: [[0, 0], [0, 0]], P0: [[0, 0], [0, 0]], smooth: true }),
    (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT' && /smooth/.test(e.message));
});

test('odd but valid inputs give finite output or a refusal, never a crash', () => {
  const cv = { F: [[1, 1], [0, 1]], H: [[1, 0]], Q: [[0.1, 0], [0, 0.1]], R: 1, x0: [0, 0], P0: [[1, 0], [0, 1]] };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['one measurement, smoothed', { ...cv, measurements: [3], smooth: true }],
    ['huge measurements', { ...cv, measurements: [1e12, -1e12, 1e12, 0] }],
    ['blind sensor H = 0', { ...cv, H: [[0, 0]], measurements: [1, 2, 3, 4, 5], smooth: true }],
    ['exploding F', { F: 1e6, H: 1, Q: 1e6, R: 1, x0: 0, P0: 1e6, measurements: new Array(200).fill(1), smooth: true }],
    ['nearly exact sensors of different scales', { F: [[1, 0], [0, 1]], H: [[1, 0], [0, 1]], Q: [[1e6, 0], [0, 1e-6]], R: [[1e-6, 0], [0, 1e6]], x0: [0, 0], P0: [[1e6, 0], [0, 1e6]], measurements: [[1, 2], [3, 4], [5, 6]], smooth: true }],
    ['zero covariances', { ...cv, Q: [[0, 0], [0, 0]], P0: [[0, 0], [0, 0]], measurements: [1, 2, 3] }],
    ['controls of width 2', { ...cv, B: [[1, 0], [0, 1]], controls: [[1, 1], [0, 0], [-1, 2]], measurements: [1, 2, 3], smooth: true }],
  ];
  for (const [label, fields] of cases) assertFiniteOrRefused(() => solve(fields), label);
});
