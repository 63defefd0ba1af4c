import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  solveTridiagonal, factorTridiagonal, factorConstantTridiagonal, solveFactored, solveFactoredBatch, solveCyclicTridiagonal,
} from '../../src/solvers/lib/tridiag.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { denseSolve } from './util.ts';


function randomSystem(n: number, seed: number) {
  const rng = createRng(seed);
  const a = new Float64Array(n), b = new Float64Array(n), c = new Float64Array(n), d = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = i > 0 ? rng.next() * 2 - 1 : 0;
    c[i] = i < n - 1 ? rng.next() * 2 - 1 : 0;
    b[i] = Math.abs(a[i]) + Math.abs(c[i]) + 0.5 + rng.next(); // diagonally dominant
    d[i] = rng.next() * 10 - 5;
  }
  const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j === i ? b[i] : j === i - 1 ? a[i] : j === i + 1 ? c[i] : 0)));
  return { a, b, c, d, A };
}

function maxDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i] - y[i]));
  return m;
}

test('Thomas algorithm agrees with dense Gaussian elimination', () => {
  for (const n of [1, 2, 3, 10, 57]) {
    const { a, b, c, d, A } = randomSystem(n, 100 + n);
    const x = solveTridiagonal(a, b, c, d, new Float64Array(n));
    assert.ok(maxDiff(x, denseSolve(A, Array.from(d))) < 1e-12, `n = ${n}`);
  }
});

test('the solution may overwrite the right-hand side in place', () => {
  const { a, b, c, d, A } = randomSystem(20, 7);
  const ref = denseSolve(A, Array.from(d));
  solveTridiagonal(a, b, c, d, d);
  assert.ok(maxDiff(d, ref) < 1e-12);
});

test('a factored matrix solves many right-hand sides, with offsets and strides', () => {
  const n = 15;
  const { a, b, c, A } = randomSystem(n, 3);
  const f = factorTridiagonal(a, b, c);
  const rng = createRng(9);
  const stride = 3, offset = 2;
  const data = new Float64Array(offset + n * stride);
  const rhs: number[] = [];
  for (let k = 0; k < n; k++) { const v = rng.next(); rhs.push(v); data[offset + k * stride] = v; }
  solveFactored(f, data, offset, stride);
  const ref = denseSolve(A, rhs);
  for (let k = 0; k < n; k++) assert.ok(Math.abs(data[offset + k * stride] - ref[k]) < 1e-12);
});

test('the batched column solve equals one solve per column', () => {
  const n = 12, m = 7, rowStride = 9, offset = 10;
  const { a, b, c } = randomSystem(n, 5);
  const f = factorTridiagonal(a, b, c);
  const rng = createRng(11);
  const data = new Float64Array(offset + n * rowStride + m);
  for (let k = 0; k < data.length; k++) data[k] = rng.next();
  const copy = Float64Array.from(data);
  solveFactoredBatch(f, data, offset, rowStride, m);
  for (let s = 0; s < m; s++) solveFactored(f, copy, offset + s, rowStride);
  assert.ok(maxDiff(data, copy) < 1e-14);
});

test('the constant-coefficient factor solves the Crank-Nicolson matrix', () => {
  const n = 30, r = 0.8;
  const f = factorConstantTridiagonal(n, -r / 2, 1 + r, -r / 2);
  const x = new Float64Array(n).map((_, i) => Math.sin(i));
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = (1 + r) * x[i] - (r / 2) * ((i > 0 ? x[i - 1] : 0) + (i < n - 1 ? x[i + 1] : 0));
  solveFactored(f, d);
  assert.ok(maxDiff(d, x) < 1e-13);
});

test('the cyclic (periodic) variant agrees with dense elimination', () => {
  for (const n of [3, 4, 25]) {
    const { a, b, c, d, A } = randomSystem(n, 40 + n);
    const alpha = 0.3, beta = -0.45; // A[n-1][0], A[0][n-1]
    b[0] += 1; b[n - 1] += 1; // keep it dominant with the corners
    A[0][0] = b[0]; A[n - 1][n - 1] = b[n - 1];
    A[n - 1][0] += alpha; A[0][n - 1] += beta;
    const x = solveCyclicTridiagonal(a, b, c, alpha, beta, d, new Float64Array(n));
    assert.ok(maxDiff(x, denseSolve(A, Array.from(d))) < 1e-12, `n = ${n}`);
  }
});

test('a zero pivot is reported, not divided through', () => {
  const z = new Float64Array([0, 0]);
  assert.throws(() => solveTridiagonal(z, new Float64Array([0, 1]), z, new Float64Array([1, 1]), new Float64Array(2)), RangeError);
  assert.throws(() => factorTridiagonal(z, new Float64Array([0, 1]), z), RangeError);
});
