import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cholesky, choleskySolve, matVec, householderTridiagonal, symmetricEigenvalues, jacobiEigenvalues,
  generalizedSmallestEigenvalues,
} from '../../src/solvers/lib/dense.ts';
import { solveTridiagonal } from '../../src/solvers/lib/tridiag.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

function randomSymmetric(n: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) { const v = rng.normal(); a[i * n + j] = v; a[j * n + i] = v; }
  return a;
}

test('Cholesky factor reproduces A = L·Lᵀ and solves the Hilbert-like SPD system', () => {
  const n = 6;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = 1 / (i + j + 1) + (i === j ? 1 : 0);
  const l = cholesky(a, n);
  assert.ok(l);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += l[i * n + k] * l[j * n + k];
    assert.ok(Math.abs(s - a[i * n + j]) < 1e-14);
  }
  const x = Float64Array.from({ length: n }, (_, i) => i - 2.5);
  const b = matVec(a, n, x);
  const y = choleskySolve(l, n, b);
  for (let i = 0; i < n; i++) assert.ok(Math.abs(y[i] - x[i]) < 1e-12);
});

test('Cholesky refuses an indefinite matrix', () => {
  assert.equal(cholesky(Float64Array.from([1, 2, 2, 1]), 2), null);
});

test('Jacobi rotations give the analytic spectrum of the 1-D Laplacian', () => {
  const n = 16;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) { a[i * n + i] = 2; if (i > 0) { a[i * n + i - 1] = -1; a[(i - 1) * n + i] = -1; } }
  const ev = jacobiEigenvalues(a, n);
  for (let k = 1; k <= n; k++) assert.ok(Math.abs(ev[k - 1] - (2 - 2 * Math.cos((k * Math.PI) / (n + 1)))) < 1e-13);
});

test('Householder + Sturm agrees with Jacobi on random symmetric matrices; trace and Frobenius norm preserved', () => {
  for (const [n, seed] of [[5, 1], [17, 2], [40, 3]]) {
    const a = randomSymmetric(n, seed);
    const { d, e } = householderTridiagonal(a, n);
    let tr = 0, trT = 0, fro = 0, froT = 0;
    for (let i = 0; i < n; i++) { tr += a[i * n + i]; trT += d[i]; }
    for (let i = 0; i < n * n; i++) fro += a[i] * a[i];
    for (let i = 0; i < n; i++) froT += d[i] * d[i];
    for (let i = 0; i < n - 1; i++) froT += 2 * e[i] * e[i];
    assert.ok(Math.abs(tr - trT) < 1e-12 * n);
    assert.ok(Math.abs(fro - froT) < 1e-11 * fro);
    const h = symmetricEigenvalues(a, n);
    const j = jacobiEigenvalues(a, n);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(h[i] - j[i]) < 1e-11, `n=${n} i=${i}: ${h[i]} vs ${j[i]}`);
  }
});

test('generalized problem K·v = λ·G·v: diagonal pencil and the 1-D vibrating string', () => {
  // diagonal: λ = k_i / g_i
  const k = Float64Array.from([4, 0, 0, 0, 9, 0, 0, 0, 1]);
  const g = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 2]);
  const lam = generalizedSmallestEigenvalues(k, g, 3, 3);
  assert.ok(lam);
  assert.deepEqual(Array.from(lam).map((x) => Math.round(x * 1e10) / 1e10), [0.5, 4, 9]);
  // linear FEM string: K = (1/h)tridiag(-1,2,-1), consistent mass M = (h/6)tridiag(1,4,1);
  // λ₁ → π² with O(h²) error from above
  const n = 39;
  const h = 1 / (n + 1);
  const K = new Float64Array(n * n);
  const M = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    K[i * n + i] = 2 / h; M[i * n + i] = (4 * h) / 6;
    if (i > 0) { K[i * n + i - 1] = K[(i - 1) * n + i] = -1 / h; M[i * n + i - 1] = M[(i - 1) * n + i] = h / 6; }
  }
  const ev = generalizedSmallestEigenvalues(K, M, n, 2);
  assert.ok(ev);
  // exact discrete: λ_k = (6/h²)(1 − cos kπh)/(2 + cos kπh)
  for (let kk = 1; kk <= 2; kk++) {
    const c = Math.cos(kk * Math.PI * h);
    const exact = (6 / (h * h)) * (1 - c) / (2 + c);
    assert.ok(Math.abs(ev[kk - 1] - exact) < 1e-9 * exact, `${ev[kk - 1]} vs ${exact}`);
  }
  assert.ok(ev[0] > Math.PI ** 2 && ev[0] < Math.PI ** 2 * 1.001);
});

test('Thomas algorithm solves a diagonally dominant tridiagonal system', () => {
  const n = 50;
  const rng = createRng(11);
  const a = new Float64Array(n), b = new Float64Array(n), c = new Float64Array(n), x = new Float64Array(n);
  for (let i = 0; i < n; i++) { a[i] = i > 0 ? rng.normal() : 0; c[i] = i < n - 1 ? rng.normal() : 0; b[i] = 5 + rng.next(); x[i] = rng.normal(); }
  const rhs = new Float64Array(n);
  for (let i = 0; i < n; i++) rhs[i] = b[i] * x[i] + (i > 0 ? a[i] * x[i - 1] : 0) + (i < n - 1 ? c[i] * x[i + 1] : 0);
  const y = new Float64Array(n);
  solveTridiagonal(a, b, c, rhs, y);
  for (let i = 0; i < n; i++) assert.ok(Math.abs(y[i] - x[i]) < 1e-12);
});
