import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sturmCount, squaredOffDiagonal, tridiagonalEigenvalue, tridiagonalEigenvalues, gershgorinBounds,
} from '../../src/solvers/lib/sturm.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { jacobiEigenvalues } from '../../src/solvers/lib/dense.ts';

function laplacian1d(n: number): { d: Float64Array; e: Float64Array } {
  return { d: new Float64Array(n).fill(2), e: new Float64Array(n - 1).fill(-1) };
}

test('Sturm count of the 1-D Laplacian matches its analytic spectrum 2 - 2cos(k*pi/(n+1))', () => {
  const n = 50;
  const { d, e } = laplacian1d(n);
  const e2 = squaredOffDiagonal(e);
  for (const k of [1, 7, 25, 50]) {
    const lam = 2 - 2 * Math.cos((k * Math.PI) / (n + 1));
    assert.equal(sturmCount(d, e2, lam - 1e-9), k - 1);
    assert.equal(sturmCount(d, e2, lam + 1e-9), k);
  }
  assert.equal(sturmCount(d, e2, -1), 0);
  assert.equal(sturmCount(d, e2, 5), n);
});

test('bisection finds every eigenvalue of the 1-D Laplacian to near machine precision', () => {
  const n = 200;
  const { d, e } = laplacian1d(n);
  const all = tridiagonalEigenvalues(d, e, 0, n);
  for (let k = 1; k <= n; k++) {
    const exact = 2 - 2 * Math.cos((k * Math.PI) / (n + 1));
    assert.ok(Math.abs(all[k - 1] - exact) < 1e-13, `k=${k}: ${all[k - 1]} vs ${exact}`);
  }
  assert.ok(Math.abs(tridiagonalEigenvalue(d, e, 0) - (2 - 2 * Math.cos(Math.PI / (n + 1)))) < 1e-14);
});

test('the Wilkinson matrix W21+ has its known close pair of largest eigenvalues resolved', () => {
  // W21+: diag |10 - i|, off-diagonal 1. Its two largest eigenvalues agree to ~1e-14 (Wilkinson 1965).
  const n = 21;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = Math.abs(10 - i);
  const e = new Float64Array(n - 1).fill(1);
  const top = tridiagonalEigenvalues(d, e, n - 2, 2);
  assert.ok(Math.abs(top[1] - 10.746194182903393) < 1e-12, String(top[1]));
  assert.ok(Math.abs(top[0] - 10.746194182903322) < 1e-12, String(top[0]));
});

test('bisection agrees with dense Jacobi rotations on random symmetric tridiagonal matrices', () => {
  const rng = createRng(7);
  for (let trial = 0; trial < 5; trial++) {
    const n = 12 + trial * 5;
    const d = new Float64Array(n);
    const e = new Float64Array(n - 1);
    for (let i = 0; i < n; i++) d[i] = rng.normal() * 3;
    for (let i = 0; i < n - 1; i++) e[i] = rng.normal();
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) a[i * n + i] = d[i];
    for (let i = 0; i < n - 1; i++) { a[i * n + i + 1] = e[i]; a[(i + 1) * n + i] = e[i]; }
    const ref = jacobiEigenvalues(a, n);
    const got = tridiagonalEigenvalues(d, e, 0, n);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(got[i] - ref[i]) < 1e-11, `${got[i]} vs ${ref[i]}`);
    const [lo, hi] = gershgorinBounds(d, e);
    assert.ok(lo <= got[0] && got[n - 1] <= hi);
  }
});

test('a zero off-diagonal (decoupled blocks) and a 1x1 matrix are handled', () => {
  const d = Float64Array.from([3, 1, 2]);
  const e = Float64Array.from([0, 0]);
  assert.deepEqual(Array.from(tridiagonalEigenvalues(d, e, 0, 3)).map((x) => Math.round(x * 1e12) / 1e12), [1, 2, 3]);
  assert.ok(Math.abs(tridiagonalEigenvalue(Float64Array.from([4.5]), new Float64Array(0), 0) - 4.5) < 1e-14);
  assert.throws(() => tridiagonalEigenvalue(d, e, 3), RangeError);
});
