// opt with a user objective: the acceptance problems against scipy.optimize.minimize (same method,
// run here) and against their known minimisers; the certificate; the L-BFGS-B building blocks
// against dense brute force; automatic gradients against finite differences; bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { descriptor, run, compileObjective } from '../../src/solvers/opt.ts';
import { SvcError } from '../../src/core/errors.ts';
import {
  cauchyPoint, subspaceMinimize, middleMatrix, buildW, kktReport, projectedGradientNorm, lbfgsb, bfgs,
  strongWolfeLineSearch, centralDifferenceGradient, type LbfgsMemory,
} from '../../src/solvers/lib/minimize.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { PROBLEMS, body, scipyCase, type Method } from './opt-problems.ts';

const ctx = { seed: 1, progress() {} };
const solve = (b: Record<string, unknown>) => run(descriptor.input.parse(b), ctx);
const REF = fileURLToPath(new URL('../../bench/opt_ref.py', import.meta.url));

/** Newton's method with the exact Hessian on ∇f = 0 for Himmelblau's function: the minimisers to rounding. */
function himmelblauMinimiser(x0: number[]): number[] {
  let [x, y] = x0;
  for (let k = 0; k < 20; k++) {
    const a = x * x + y - 11, b = x + y * y - 7;
    const g0 = 4 * a * x + 2 * b, g1 = 2 * a + 4 * b * y;
    const h00 = 4 * a + 8 * x * x + 2, h01 = 4 * x + 4 * y, h11 = 2 + 4 * b + 8 * y * y;
    const det = h00 * h11 - h01 * h01;
    x -= (h11 * g0 - h01 * g1) / det;
    y -= (h00 * g1 - h01 * g0) / det;
  }
  return [x, y];
}

function scipyAvailable(): boolean {
  const r = spawnSync('python3', ['-c', 'import scipy.optimize'], { encoding: 'utf8' });
  return r.status === 0;
}

test('acceptance: every problem and method reaches SciPy\'s optimum (same method) and the known minimiser to 1e-6 (Powell singular: in f)', (t) => {
  const runs: { label: string; method: Method; x: number[]; fun: number; xStar: number[]; compareF: boolean; fStar: number; out: any }[] = [];
  const cases: Record<string, unknown>[] = [];
  for (const p of PROBLEMS) {
    const xStar = p.problem === 'himmelblau' ? himmelblauMinimiser(p.xStar!) : p.xStar!;
    for (const m of p.methods) {
      const out = solve(body(p, m));
      runs.push({ label: p.label, method: m, x: p.vars.map((v) => (out.result.x as any)[v]), fun: out.result.fun as number, xStar, compareF: !!p.compareF, fStar: p.fStar, out });
      cases.push(scipyCase(p, m));
    }
  }
  assert.equal(runs.length, 34);
  // against the known minimisers (independent of SciPy), and the certificate holds
  for (const r of runs) {
    const tag = `${r.label} / ${r.method}`;
    assert.equal(r.out.precision.withinBound, true, `${tag}: certificate ${JSON.stringify(r.out.result.certificate)}`);
    assert.equal(r.out.precision.certificate, 'kkt');
    assert.equal(r.out.result.gradient, 'automatic');
    if (r.compareF) {
      assert.ok(r.fun >= 0 && r.fun < 1e-10, `${tag}: f = ${r.fun}`);
    } else {
      const dx = Math.max(...r.x.map((v, k) => Math.abs(v - r.xStar[k])));
      assert.ok(dx < 1e-6, `${tag}: |x − x*|∞ = ${dx}`);
      assert.ok(Math.abs(r.fun - r.fStar) < 1e-10, `${tag}: f = ${r.fun}, f* = ${r.fStar}`);
    }
  }
  if (!scipyAvailable()) {
    if (process.env.CI === 'true') assert.fail('python3 + scipy are required in CI');
    t.skip('SKIPPED: python3 + scipy not installed (the comparison with scipy.optimize.minimize did not run)');
    return;
  }
  // one BLAS thread: SciPy's L-BFGS-B otherwise spins OpenBLAS worker threads on a shared machine
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const py = spawnSync('python3', [REF, JSON.stringify({ reps: 1, cases })], { encoding: 'utf8', maxBuffer: 1 << 24, env });
  assert.equal(py.status, 0, py.stderr);
  const ref = JSON.parse(py.stdout).cases;
  runs.forEach((r, i) => {
    const tag = `${r.label} / ${r.method} vs scipy`;
    if (r.compareF) {
      assert.ok(Math.abs(r.fun - ref[i].fun) < 1e-10, `${tag}: f = ${r.fun} vs ${ref[i].fun}`);
    } else {
      const dx = Math.max(...r.x.map((v, k) => Math.abs(v - ref[i].x[k])));
      assert.ok(dx < 1e-6, `${tag}: |x − x_scipy|∞ = ${dx} (scipy: ${ref[i].message})`);
    }
  });
});

test('the certificate is recomputed at the returned point: hand-written gradient, projected gradient, KKT on the bounds', () => {
  // Rosenbrock with x <= 0.5: x* = (0.5, 0.25) with ∂f/∂x = −2(1 − x) − 400x(y − x²) = −1 (upper bound active, λ_u = 1)
  const p = PROBLEMS.find((q) => q.label.startsWith('Rosenbrock 2-D, x'))!;
  const out = solve(body(p, 'l-bfgs-b'));
  const x = out.result.x as Record<string, number>, c = out.result.certificate as any;
  const [u, v] = [x.x1, x.x2];
  const g = [-2 * (1 - u) - 400 * u * (v - u * u), 200 * (v - u * u)];
  assert.ok(Math.abs(c.gradientAtX.x1 - g[0]) < 1e-12 && Math.abs(c.gradientAtX.x2 - g[1]) < 1e-12);
  assert.equal(u, 0.5);
  assert.ok(Math.abs(g[0] + 1) < 1e-8, `∂f/∂x = ${g[0]}`);
  const pg = Math.max(Math.abs(u - Math.min(0.5, Math.max(-1.5, u - g[0]))), Math.abs(v - Math.min(1.5, Math.max(-0.5, v - g[1]))));
  assert.equal(c.projectedGradientNorm, pg);
  assert.ok(c.kktResidual <= 1e-8 && c.kkt.complementarity === 0 && c.kkt.feasibility === 0);
  assert.equal(out.value, out.result.fun);
  assert.ok(Math.abs((out.result.fun as number) - 0.25) < 1e-15);
  // the separable problem: x1 on its upper bound (∂f = −2, λ_u = 2), x2 on its lower bound (∂f = 4, λ_l = 4)
  const s = PROBLEMS.find((q) => q.problem === 'separable')!;
  const o2 = solve(body(s, 'l-bfgs-b'));
  assert.deepEqual(o2.result.x, { x1: 1, x2: 0, x3: 0.5 });
  assert.deepEqual((o2.result.certificate as any).gradientAtX, { x1: -2, x2: 4, x3: 0 });
  assert.equal((o2.result.certificate as any).kktResidual, 0);
});

test('kktReport: each violated condition is measured; the residual equals the projected gradient at feasible points', () => {
  const lo = Float64Array.of(0, 0, -Infinity), hi = Float64Array.of(1, Infinity, Infinity);
  // a KKT point: x0 at its upper bound pushed up (g < 0), x1 at its lower bound pushed down (g > 0), x2 stationary
  let r = kktReport([1, 0, 3], [-2, 5, 0], lo, hi);
  assert.deepEqual(r, { residual: 0, stationarity: 0, multiplierSign: 0, complementarity: 0, feasibility: 0 });
  // x1 at its lower bound but the gradient points inward (g < 0): only an upper bound could take it, and there is none
  r = kktReport([1, 0, 3], [-2, -0.5, 0], lo, hi);
  assert.equal(r.stationarity, 0.5);
  // x0 inside with g ≠ 0: the multiplier of a bound 0.25 away cannot be 0.3 (complementarity min(0.3, 0.25))
  r = kktReport([0.75, 0, 3], [-0.3, 5, 0], lo, hi);
  assert.equal(r.complementarity, 0.25);
  assert.equal(r.residual, projectedGradientNorm([0.75, 0, 3], [-0.3, 5, 0], lo, hi));
  // infeasible
  r = kktReport([1.5, 0, 3], [0, 0, 0], lo, hi);
  assert.equal(r.feasibility, 0.5);
  // free variables: the residual is the gradient's max-norm
  assert.equal(kktReport([0, 0], [3, -4], [-Infinity, -Infinity], [Infinity, Infinity]).residual, 4);
});

/** Random limited-memory matrices from m pairs with sᵀy > 0. */
function randomMemory(n: number, m: number, seed: number): { mem: LbfgsMemory; B: Float64Array; S: Float64Array[]; Y: Float64Array[] } {
  const rng = createRng(seed);
  // y = A s with A SPD, so the pairs come from a real quadratic and sᵀy > 0
  const A = new Float64Array(n * n);
  const R = Array.from({ length: n * n }, () => rng.next() - 0.5);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) { let s = i === j ? 0.5 : 0; for (let k = 0; k < n; k++) s += R[i * n + k] * R[j * n + k]; A[i * n + j] = s; }
  const S: Float64Array[] = [], Y: Float64Array[] = [];
  for (let q = 0; q < m; q++) {
    const s = Float64Array.from({ length: n }, () => rng.next() - 0.5);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) y[i] += A[i * n + j] * s[j];
    S.push(s); Y.push(y);
  }
  let yy = 0, sy = 0;
  for (let i = 0; i < n; i++) { yy += Y[m - 1][i] ** 2; sy += S[m - 1][i] * Y[m - 1][i]; }
  const theta = yy / sy;
  const M = middleMatrix(S, Y, theta, n)!;
  const W = buildW(S, Y, theta, n);
  const k2 = 2 * m, B = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = i === j ? theta : 0;
    for (let a = 0; a < k2; a++) for (let b = 0; b < k2; b++) s -= W[i * k2 + a] * M[a * k2 + b] * W[j * k2 + b];
    B[i * n + j] = s;
  }
  return { mem: { k: m, theta, W, M }, B, S, Y };
}

const mv = (B: Float64Array, v: ArrayLike<number>, n: number) => Float64Array.from({ length: n }, (_, i) => { let s = 0; for (let j = 0; j < n; j++) s += B[i * n + j] * v[j]; return s; });

test('L-BFGS-B compact form: B = θI − W·M·Wᵀ equals the BFGS updates of θI applied pair by pair, and B·s = y for the latest pair', () => {
  for (const [n, m, seed] of [[7, 4, 11], [5, 1, 12], [9, 8, 13]]) {
    const { B, S, Y, mem } = randomMemory(n, m, seed);
    // the direct recursion B ← B − (B s sᵀ B)/(sᵀ B s) + (y yᵀ)/(yᵀ s) from B0 = θI (N&W (6.19))
    const D = new Float64Array(n * n);
    for (let i = 0; i < n; i++) D[i * n + i] = mem.theta;
    for (let q = 0; q < m; q++) {
      const Bs = mv(D, S[q], n);
      let sBs = 0, ys = 0;
      for (let i = 0; i < n; i++) { sBs += S[q][i] * Bs[i]; ys += Y[q][i] * S[q][i]; }
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) D[i * n + j] += -Bs[i] * Bs[j] / sBs + Y[q][i] * Y[q][j] / ys;
    }
    for (let k = 0; k < n * n; k++) assert.ok(Math.abs(B[k] - D[k]) < 1e-9 * (1 + Math.abs(D[k])), `n = ${n}, m = ${m}, entry ${k}: ${B[k]} vs ${D[k]}`);
    const Bs = mv(B, S[m - 1], n);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(Bs[i] - Y[m - 1][i]) < 1e-9 * (1 + Math.abs(Y[m - 1][i])));
  }
});

test('generalized Cauchy point = first local minimiser of the model along the projected path (dense brute force)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const n = 6, m = seed % 4; // includes k = 0 (B = I)
    const rng = createRng(100 + seed);
    const { mem, B } = m > 0 ? randomMemory(n, m, seed) : { mem: { k: 0, theta: 1, W: new Float64Array(0), M: new Float64Array(0) }, B: Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)) };
    const lower = Float64Array.from({ length: n }, (_, i) => (i === 5 ? -Infinity : -rng.next()));
    const upper = Float64Array.from({ length: n }, (_, i) => (i === 4 ? Infinity : rng.next()));
    // feasible: inside the box, and within 0.3 of the one finite bound of x_4 and x_5
    const x = Float64Array.from({ length: n }, (_, i) => (i === 4 ? lower[i] + 0.3 * rng.next() : i === 5 ? upper[i] - 0.3 * rng.next() : lower[i] + (upper[i] - lower[i]) * rng.next()));
    if (seed % 5 === 0) x[0] = lower[0]; // a variable already at a bound
    const g = Float64Array.from({ length: n }, () => 4 * (rng.next() - 0.5));
    const xcp = cauchyPoint(x, g, lower, upper, mem);
    // brute force: walk the segments of P(x − t·g) with the dense B
    const tb = Array.from({ length: n }, (_, i) => (g[i] < 0 ? (x[i] - upper[i]) / g[i] : g[i] > 0 ? (x[i] - lower[i]) / g[i] : Infinity));
    const breaks = [...new Set(tb.filter((v) => v > 0 && v < Infinity))].sort((a, b) => a - b);
    const at = (t: number) => Float64Array.from({ length: n }, (_, i) => Math.min(upper[i], Math.max(lower[i], x[i] - t * g[i])));
    let tStar = Infinity, t0 = 0;
    for (const t1 of [...breaks, Infinity]) {
      const z = at(t0);
      const d = Float64Array.from({ length: n }, (_, i) => (tb[i] > t0 ? -g[i] : 0));
      const dz = Float64Array.from({ length: n }, (_, i) => z[i] - x[i]);
      const Bd = mv(B, d, n), Bz = mv(B, dz, n);
      let fp = 0, fpp = 0;
      for (let i = 0; i < n; i++) { fp += g[i] * d[i] + Bz[i] * d[i]; fpp += d[i] * Bd[i]; }
      if (fp >= 0) { tStar = t0; break; }
      const dt = -fp / fpp;
      if (fpp > 0 && t0 + dt < t1) { tStar = t0 + dt; break; }
      t0 = t1;
    }
    const ref = at(tStar);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(xcp[i] - ref[i]) < 1e-10, `seed ${seed}, x_${i}: ${xcp[i]} vs ${ref[i]}`);
  }
});

test('subspace minimisation: the model\'s reduced gradient vanishes at x̄ over the variables free at the Cauchy point', () => {
  let checked = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const n = 6;
    const rng = createRng(500 + seed);
    const { mem, B } = randomMemory(n, 3, seed);
    // bounds wide enough that the subspace step stays inside for most seeds
    const lower = Float64Array.from({ length: n }, (_, i) => (i < 2 ? -0.05 : -50));
    const upper = Float64Array.from({ length: n }, () => 50);
    const x = Float64Array.from({ length: n }, (_, i) => (i < 2 ? 0 : rng.next() - 0.5));
    const g = Float64Array.from({ length: n }, () => rng.next() - 0.5);
    const xcp = cauchyPoint(x, g, lower, upper, mem);
    const xbar = subspaceMinimize(x, g, lower, upper, mem, xcp);
    const free = [...Array(n).keys()].filter((i) => xcp[i] > lower[i] && xcp[i] < upper[i]);
    if (free.some((i) => xbar[i] <= lower[i] || xbar[i] >= upper[i])) continue; // projected: the reduced gradient need not vanish
    const r = mv(B, Float64Array.from({ length: n }, (_, i) => xbar[i] - x[i]), n);
    for (const i of free) assert.ok(Math.abs(g[i] + r[i]) < 1e-9, `seed ${seed}: reduced gradient ${g[i] + r[i]}`);
    for (let i = 0; i < n; i++) if (!free.includes(i)) assert.equal(xbar[i], xcp[i]);
    let descent = 0;
    for (let i = 0; i < n; i++) descent += g[i] * (xbar[i] - x[i]);
    assert.ok(descent < 0);
    checked++;
  }
  assert.ok(checked >= 15, `only ${checked} unprojected cases`);
});

test('strong Wolfe line search: the returned step satisfies both conditions; a cap returns the cap', () => {
  // φ(α) = (α − 3)² − 9 + 0.1 sin(5α): φ'(0) < 0
  const phi = (a: number) => (a - 3) ** 2 - 9 + 0.1 * Math.sin(5 * a), dphi = (a: number) => 2 * (a - 3) + 0.5 * Math.cos(5 * a);
  for (const a1 of [0.01, 1, 10, 100]) {
    const r = strongWolfeLineSearch(phi, dphi, phi(0), dphi(0), a1, Infinity, 1e-4, 0.1)!;
    assert.ok(r.phi <= phi(0) + 1e-4 * r.alpha * dphi(0), `α1 = ${a1}: sufficient decrease`);
    assert.ok(Math.abs(r.dphi) <= 0.1 * Math.abs(dphi(0)), `α1 = ${a1}: curvature`);
  }
  const capped = strongWolfeLineSearch(phi, dphi, phi(0), dphi(0), 0.5, 1, 1e-4, 0.9)!;
  assert.equal(capped.alpha, 1);
});

test('BFGS and L-BFGS-B on an ill-conditioned quadratic: converge to gtol; L-BFGS-B with no bounds agrees with BFGS', () => {
  const n = 12, d = Float64Array.from({ length: n }, (_, i) => 10 ** (i / 3)); // condition 1e3.67
  const c = Float64Array.from({ length: n }, (_, i) => (i % 3) - 1);
  const p = { n, f: (x: Float64Array) => { let s = 0; for (let i = 0; i < n; i++) s += 0.5 * d[i] * (x[i] - c[i]) ** 2; return s; }, grad: (x: Float64Array, g: Float64Array) => { for (let i = 0; i < n; i++) g[i] = d[i] * (x[i] - c[i]); } };
  const x0 = new Float64Array(n).fill(2);
  const inf = new Float64Array(n).fill(Infinity), ninf = new Float64Array(n).fill(-Infinity);
  for (const r of [bfgs(p, x0, { gtol: 1e-10, maxIter: 1000 }), lbfgsb(p, x0, ninf, inf, { gtol: 1e-10, maxIter: 1000 })]) {
    assert.equal(r.converged, true, r.message);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(r.x[i] - c[i]) <= 1e-10 / d[i] * 1.0001 + 1e-15);
  }
});

test('automatic gradients agree with central differences on every elementary function', () => {
  const exprs = [
    'sin(x)*cos(y) + tan(x/3) - exp(-x*y) + log(y + 3) + sqrt(x^2 + 2) + cbrt(y + 5)',
    'x^y + y^3 - 2^x + pow(y, x) + log(x + 2, 3) + log10(y + 4) + log2(x + 3) + log1p(y + 1) + expm1(x/2)',
    'atan2(y, x + 2) + hypot(x, y, 1) + tanh(x) + sinh(y/2) + cosh(x/3) + asinh(y) + acosh(x + 3) + atanh(y/3)',
    'asin(x/3) + acos(y/4) + atan(x*y) + sec(x/2) + csc(y + 2) + cot(x + 2) + abs(x - y) + min(x, y, 0.2) + max(x^2, y)',
    '-x + +y - 2*(x - y)/(1 + x^2) + sum(x, y, x*y) + prod(x, y, 2) + mean(x, y) + pi*e*tau',
  ];
  const rng = createRng(3);
  for (const e of exprs) {
    const obj = compileObjective(e, ['x', 'y']);
    assert.equal(obj.differentiable, true, e);
    for (let k = 0; k < 20; k++) {
      const x = Float64Array.of(0.1 + 0.8 * rng.next(), 0.1 + 0.8 * rng.next());
      const g = new Float64Array(2), fd = new Float64Array(2);
      obj.grad(x, g);
      // Richardson-extrapolated central differences (error O(h^4))
      for (let i = 0; i < 2; i++) {
        const c = (h: number) => { const a = Float64Array.from(x), b = Float64Array.from(x); a[i] += h; b[i] -= h; return (obj.f(a) - obj.f(b)) / (2 * h); };
        fd[i] = (4 * c(1e-4) - c(2e-4)) / 3;
      }
      for (let i = 0; i < 2; i++) assert.ok(Math.abs(g[i] - fd[i]) < 1e-7 * (1 + Math.abs(fd[i])), `${e} at (${x[0]}, ${x[1]}) ∂${i}: ${g[i]} vs ${fd[i]}`);
    }
  }
  // an expression without a derivative rule still evaluates to the same values
  const e = exprs[0], obj = compileObjective(e, ['x', 'y']);
  const fallback = compileObjective(`${e} + 1e-300*mod(x, 7)`, ['x', 'y']);
  assert.equal(fallback.differentiable, false);
  assert.ok(Math.abs(obj.f([0.3, 0.7]) - fallback.f([0.3, 0.7])) < 1e-14);
});

test('an objective without a derivative rule is minimised with central differences, stated in the result (one-sided at a bound)', () => {
  // mod(x, 10) is smooth on (0, 10); y >= 0 is active (∂f/∂y = 2 at y = 0)
  const b = { objective: '(mod(x, 10) - 2)^2 + (y + 1)^2', x0: { x: 5, y: 3 }, bounds: { y: [0, null] } };
  const out = solve(b);
  assert.equal(out.result.gradient, 'central-difference');
  assert.equal(out.method, 'l-bfgs-b');
  const x = out.result.x as Record<string, number>;
  assert.ok(Math.abs(x.x - 2) < 1e-6 && x.y === 0, JSON.stringify(x));
  assert.ok(Math.abs((out.result.certificate as any).gradientAtX.y - 2) < 1e-8);
  assert.equal(out.precision.withinBound, true, JSON.stringify(out.result.certificate));
  assert.ok((out.result.nfev as number) > 4 * (out.result.njev as number), 'each gradient costs four or more evaluations');
  // central differences alone, next to a bound: never evaluated outside the box
  const seen: number[] = [];
  const gcd = new Float64Array(1);
  centralDifferenceGradient((z) => { seen.push(z[0]); return z[0] ** 3; }, Float64Array.of(1), gcd, Float64Array.of(0), Float64Array.of(1));
  assert.ok(seen.every((v) => v <= 1) && Math.abs(gcd[0] - 3) < 1e-8, `${gcd[0]} from ${seen}`);
});

test('Nelder-Mead: the certificate tolerance is 1e4·xatol; an unconverged run is reported out of bound', () => {
  const p = PROBLEMS[0];
  const out = solve(body(p, 'nelder-mead'));
  assert.equal((out.result.certificate as any).tolerance, 1e-6);
  assert.ok(Math.abs(out.precision.boundPct - 1e-4) < 1e-18);
  const loose = solve(body(p, 'nelder-mead', { xatol: 1e-4, fatol: 1e-8 }));
  assert.equal((loose.result.certificate as any).tolerance, 1);
  for (const m of ['nelder-mead', 'bfgs', 'l-bfgs-b'] as const) {
    const o = solve(body(p, m, { maxIter: 5 }));
    assert.equal(o.result.converged, false);
    assert.equal(o.precision.withinBound, false, m);
    assert.ok(o.precision.errorPct > o.precision.boundPct);
  }
});

test('deterministic: the same input gives identical bits', () => {
  for (const m of ['nelder-mead', 'bfgs', 'l-bfgs-b'] as const) {
    const p = PROBLEMS[1];
    assert.equal(JSON.stringify(solve(body(p, m))), JSON.stringify(solve(body(p, m))));
  }
});

/** The field a refusal names: from the schema (zod issues) or from run (the SvcError's issues). */
function refusal(b: Record<string, unknown>): { path: string; message: string } {
  const parsed = descriptor.input.safeParse(b);
  if (!parsed.success) return { path: parsed.error.issues[0].path.join('.'), message: parsed.error.issues[0].message };
  try {
    run(parsed.data, ctx);
  } catch (e) {
    assert.ok(e instanceof SvcError && e.code === 'INVALID_INPUT', `not a 400: ${(e as Error).message}`);
    const issues = (e.details as any)?.issues;
    return { path: issues?.[0]?.path ?? '', message: e.message };
  }
  assert.fail(`accepted: ${JSON.stringify(b)}`);
}

test('bad input: each a 400 naming the field', () => {
  const ros = '(1 - x)^2 + 100*(y - x^2)^2', x0 = { x: -1.2, y: 1 };
  const table: [string, Record<string, unknown>, string, RegExp?][] = [
    ['unknown variable in bounds', { objective: ros, x0, bounds: { z: [0, 1] } }, 'bounds.z', /not a variable/],
    ['x0 outside bounds', { objective: ros, x0, bounds: { x: [0, 1] } }, 'x0.x', /outside bounds/],
    ['lower bound above upper', { objective: ros, x0, bounds: { x: [2, 1] } }, 'bounds.x'],
    ['expression too long', { objective: 'x + '.repeat(1100) + 'y', x0 }, 'objective'],
    // implicit products have more nodes than characters: 3,599 characters, 4,799 nodes
    ['too many nodes', { objective: Array(1200).fill('2x').join('+'), x0 }, 'objective', /nodes|deeper/],
    ['non-finite at the start', { objective: 'log(x) + y^2', x0 }, 'objective', /not finite at x0/],
    ['infinite at the start', { objective: '1/(x + 1.2) + y', x0 }, 'objective', /not finite/],
    ['gradient infinite at the start', { objective: 'sqrt(x + 1.2) + y^2', x0 }, 'objective', /gradient/],
    ['syntax error', { objective: '(1 - x)^2 +* y', x0 }, 'objective', /syntax/],
    ['unknown function', { objective: 'foo(x) + y', x0 }, 'objective', /foo/],
    ['unknown variable in the objective', { objective: 'x + z', x0 }, 'objective', /'z'/],
    ['non-finite start value', { objective: ros, x0: { x: Infinity, y: 1 } }, 'x0.x'],
    ['bad variable name', { objective: ros, x0: { '1x': 0, y: 1 } }, 'x0.1x'],
    ['more than 50 variables', { objective: 'x0', x0: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x${i}`, 0])) }, 'x0', /at most 50/],
    ['objective without x0', { objective: ros }, 'x0'],
    ['objective with fn', { objective: ros, x0, fn: 'beale' }, 'fn', /conflicts with objective/],
    ['objective with dim', { objective: ros, x0, dim: 2 }, 'dim'],
    ['objective with start', { objective: ros, x0, start: 1 }, 'start'],
    ['objective with seed', { objective: ros, x0, seed: 3 }, 'seed'],
    ['gtol with nelder-mead', { objective: ros, x0, method: 'nelder-mead', gtol: 1e-6 }, 'gtol'],
    ['xatol with bfgs', { objective: ros, x0, method: 'bfgs', xatol: 1e-6 }, 'xatol'],
    ['fatol with l-bfgs-b', { objective: ros, x0, method: 'l-bfgs-b', fatol: 1e-6 }, 'fatol'],
    ['bfgs with bounds', { objective: ros, x0, method: 'bfgs', bounds: { x: [-2, 2] } }, 'bounds', /l-bfgs-b/],
    ['gradient method with objective', { objective: ros, x0, method: 'gradient' }, 'method'],
    ['x0 without objective', { fn: 'rosenbrock', x0 }, 'x0', /objective/],
    ['gtol without objective', { gtol: 1e-6 }, 'gtol'],
    ['l-bfgs-b without objective', { method: 'l-bfgs-b' }, 'method'],
    ['empty objective', { objective: '', x0 }, 'objective'],
    ['negative gtol', { objective: ros, x0, gtol: -1 }, 'gtol'],
  ];
  for (const [label, b, path, re] of table) {
    const r = refusal(b);
    assert.equal(r.path, path, `${label}: named ${r.path} (${r.message})`);
    if (re) assert.match(r.message, re, label);
  }
});
