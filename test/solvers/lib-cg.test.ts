import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pcg, jacobiPreconditioner, dot } from '../../src/solvers/lib/cg.ts';
import { cholesky, choleskySolve, matVec } from '../../src/solvers/lib/dense.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

test('CG solves the 1-D Poisson problem -u" = pi^2 sin(pi x) to the discrete solution', () => {
  const n = 99;
  const h = 1 / (n + 1);
  const apply = (x: Float64Array, out: Float64Array): void => {
    for (let i = 0; i < n; i++) out[i] = (2 * x[i] - (i > 0 ? x[i - 1] : 0) - (i < n - 1 ? x[i + 1] : 0)) / (h * h);
  };
  // right-hand side from the discrete operator applied to sin(pi x): the exact discrete solution is sin(pi x)
  const exact = new Float64Array(n);
  for (let i = 0; i < n; i++) exact[i] = Math.sin(Math.PI * (i + 1) * h);
  const b = new Float64Array(n);
  apply(exact, b);
  const x = new Float64Array(n);
  const res = pcg(apply, b, x, { tol: 1e-12 });
  assert.ok(res.converged);
  // CG on an n×n SPD system terminates in at most n steps in exact arithmetic; symmetric data halves it
  assert.ok(res.iterations <= n, String(res.iterations));
  for (let i = 0; i < n; i++) assert.ok(Math.abs(x[i] - exact[i]) < 1e-9);
});

test('preconditioned CG matches a dense Cholesky solve on a random SPD matrix', () => {
  const rng = createRng(3);
  const n = 40;
  const m = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) m[i] = rng.normal();
  // A = MᵀM + diag(1..n) with a wide diagonal spread, so Jacobi helps
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += m[k * n + i] * m[k * n + j];
    a[i * n + j] = s;
  }
  for (let i = 0; i < n; i++) a[i * n + i] += (i + 1) * 50;
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.normal();
  const l = cholesky(a, n);
  assert.ok(l);
  const ref = choleskySolve(l, n, b);
  const diag = new Float64Array(n);
  for (let i = 0; i < n; i++) diag[i] = a[i * n + i];
  const apply = (x: Float64Array, out: Float64Array): void => { matVec(a, n, x, out); };
  const x1 = new Float64Array(n);
  const plain = pcg(apply, b, x1, { tol: 1e-12 });
  const x2 = new Float64Array(n);
  const pre = pcg(apply, b, x2, { tol: 1e-12, precond: jacobiPreconditioner(diag) });
  assert.ok(plain.converged && pre.converged);
  assert.ok(pre.iterations <= plain.iterations, `${pre.iterations} vs ${plain.iterations}`);
  for (let i = 0; i < n; i++) {
    assert.ok(Math.abs(x1[i] - ref[i]) < 1e-9 * (1 + Math.abs(ref[i])));
    assert.ok(Math.abs(x2[i] - ref[i]) < 1e-9 * (1 + Math.abs(ref[i])));
  }
});

test('zero right-hand side gives zero; non-convergence within maxIter is reported, not hidden', () => {
  const n = 30;
  const apply = (x: Float64Array, out: Float64Array): void => {
    for (let i = 0; i < n; i++) out[i] = 2 * x[i] - (i > 0 ? x[i - 1] : 0) - (i < n - 1 ? x[i + 1] : 0);
  };
  const x = new Float64Array(n).fill(3);
  const zero = pcg(apply, new Float64Array(n), x);
  assert.equal(zero.iterations, 0);
  assert.equal(dot(x, x), 0);
  const b = new Float64Array(n).fill(1);
  const y = new Float64Array(n);
  const short = pcg(apply, b, y, { maxIter: 3, tol: 1e-14 });
  assert.equal(short.iterations, 3);
  assert.equal(short.converged, false);
  assert.ok(short.relativeResidual > 1e-6);
});

test('the fused diagonal option gives the same iterates as the Jacobi preconditioner callback', () => {
  const n = 60;
  const diag = Float64Array.from({ length: n }, (_, i) => 2 + (i % 7));
  const apply = (x: Float64Array, out: Float64Array): void => {
    for (let i = 0; i < n; i++) out[i] = diag[i] * x[i] - (i > 0 ? x[i - 1] : 0) - (i < n - 1 ? x[i + 1] : 0);
  };
  const b = Float64Array.from({ length: n }, (_, i) => Math.cos(i));
  const x1 = new Float64Array(n), x2 = new Float64Array(n);
  const r1 = pcg(apply, b, x1, { tol: 1e-12, precond: jacobiPreconditioner(diag) });
  const r2 = pcg(apply, b, x2, { tol: 1e-12, diagonal: diag });
  assert.equal(r1.iterations, r2.iterations);
  for (let i = 0; i < n; i++) assert.ok(Math.abs(x1[i] - x2[i]) < 1e-13);
});
