// The banded LU of src/solvers/lib/banded.ts against dense Gaussian elimination (the independent
// reference), on matrices that need pivoting, with every band shape, reused factorisations, the
// tridiagonal Thomas solver, and a pentadiagonal operator with a known discrete solution.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bandMatrix, bandSet, bandGet, bandMatVec, factorBanded, solveFactoredBanded, solveBanded, type BandMatrix,
} from '../../src/solvers/lib/banded.ts';
import { solveTridiagonal } from '../../src/solvers/lib/tridiag.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { denseSolve } from './util.ts';


/** A random band matrix (entries uniform in (−1, 1), so pivoting is needed) and its dense copy. */
function randomBand(n: number, kl: number, ku: number, seed: number): { m: BandMatrix; dense: number[][] } {
  const rng = createRng(seed);
  const m = bandMatrix(n, kl, ku);
  const dense = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = Math.max(0, i - kl); j <= Math.min(n - 1, i + ku); j++) {
      const v = 2 * rng.next() - 1;
      bandSet(m, i, j, v);
      dense[i][j] = v;
    }
  }
  return { m, dense };
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

test('banded LU agrees with dense elimination for every band shape, on matrices that need pivoting', () => {
  const shapes: [number, number, number][] = [[1, 0, 0], [7, 0, 0], [9, 0, 3], [9, 3, 0], [40, 1, 1], [40, 2, 3], [60, 4, 1], [33, 5, 5], [12, 11, 11]];
  let seed = 1;
  for (const [n, kl, ku] of shapes) {
    const { m, dense } = randomBand(n, kl, ku, seed++);
    const rng = createRng(1000 + seed);
    const b = Float64Array.from({ length: n }, () => 2 * rng.next() - 1);
    const x = solveBanded(m, b);
    const ref = denseSolve(dense, b);
    const scale = Math.max(1, ...ref.map(Math.abs));
    assert.ok(maxDiff(x, ref) < 1e-9 * scale, `n=${n} kl=${kl} ku=${ku}: ${maxDiff(x, ref)}`);
    // the residual of the original matrix (solveBanded leaves it untouched)
    const r = bandMatVec(m, x);
    assert.ok(maxDiff(r, b) < 1e-10 * scale, `residual n=${n} kl=${kl} ku=${ku}`);
  }
});

test('a zero on the diagonal is handled by the row interchange; an exactly singular matrix is a RangeError', () => {
  // [[0, 1, 0], [2, 3, 1], [0, 4, 5]]: the first pivot must come from row 1
  const m = bandMatrix(3, 1, 1);
  const entries: [number, number, number][] = [[0, 1, 1], [1, 0, 2], [1, 1, 3], [1, 2, 1], [2, 1, 4], [2, 2, 5]];
  for (const [i, j, v] of entries) bandSet(m, i, j, v);
  const x = solveBanded(m, Float64Array.of(1, 2, 3));
  const ref = denseSolve([[0, 1, 0], [2, 3, 1], [0, 4, 5]], [1, 2, 3]);
  assert.ok(maxDiff(x, ref) < 1e-15, `${[...x]} vs ${ref}`);
  const singular = bandMatrix(3, 1, 1);
  for (const [i, j, v] of [[0, 0, 1], [0, 1, 2], [1, 0, 2], [1, 1, 4], [2, 2, 1]] as const) bandSet(singular, i, j, v);
  assert.throws(() => factorBanded(singular), /singular.*column 1/);
  assert.throws(() => bandSet(m, 0, 2, 1), RangeError);
  assert.equal(bandGet(m, 0, 2), 0);
  assert.throws(() => bandMatrix(0, 1, 1), RangeError);
});

test('one factorisation solves many right-hand sides; the solution may overwrite the right-hand side', () => {
  const n = 50, kl = 3, ku = 2;
  const { m, dense } = randomBand(n, kl, ku, 77);
  const f = factorBanded({ ...m, data: Float64Array.from(m.data) });
  const rng = createRng(5);
  for (let rep = 0; rep < 5; rep++) {
    const b = Float64Array.from({ length: n }, () => rng.normal());
    const ref = denseSolve(dense, b);
    const x = solveFactoredBanded(f, b);
    assert.ok(maxDiff(x, ref) < 1e-9 * Math.max(1, ...ref.map(Math.abs)));
    const inPlace = Float64Array.from(b);
    solveFactoredBanded(f, inPlace, inPlace);
    assert.deepEqual([...inPlace], [...x]);
  }
});

test('tridiagonal case (kl = ku = 1) matches the Thomas algorithm on a diagonally dominant system', () => {
  const n = 200;
  const rng = createRng(9);
  const a = new Float64Array(n), b = new Float64Array(n), c = new Float64Array(n), d = new Float64Array(n);
  const m = bandMatrix(n, 1, 1);
  for (let i = 0; i < n; i++) {
    a[i] = i > 0 ? rng.next() - 0.5 : 0;
    c[i] = i < n - 1 ? rng.next() - 0.5 : 0;
    b[i] = 2 + rng.next();
    d[i] = rng.normal();
    bandSet(m, i, i, b[i]);
    if (i > 0) bandSet(m, i, i - 1, a[i]);
    if (i < n - 1) bandSet(m, i, i + 1, c[i]);
  }
  const thomas = solveTridiagonal(a, b, c, d, new Float64Array(n));
  assert.ok(maxDiff(solveBanded(m, d), thomas) < 1e-14);
});

test('pentadiagonal fourth-difference operator: exact on the discrete solution u_i = i^2 (n+1-i)^2', () => {
  // Δ⁴u_i = u_{i−2} − 4u_{i−1} + 6u_i − 4u_{i+1} + u_{i+2} on i = 1..n. For the quartic
  // u(i) = i²(n+1−i)² (leading coefficient 1) the fourth difference is exactly 4! = 24 everywhere;
  // the values outside the matrix (u_{−1}, u_0 = 0, u_{n+1} = 0, u_{n+2}) go to the right-hand side.
  const n = 30;
  const u = (i: number) => i * i * (n + 1 - i) * (n + 1 - i);
  const m = bandMatrix(n, 2, 2);
  const rhs = new Float64Array(n);
  const exact = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const i = r + 1; // grid index 1..n
    exact[r] = u(i);
    const coeff = [1, -4, 6, -4, 1];
    let s = 0;
    for (let k = -2; k <= 2; k++) {
      const g = i + k;
      if (g >= 1 && g <= n) bandSet(m, r, g - 1, bandGet(m, r, g - 1) + coeff[k + 2]);
      s += coeff[k + 2] * u(g);
    }
    rhs[r] = s;
  }
  rhs[0] -= u(-1); rhs[n - 1] -= u(n + 2);
  for (let r = 2; r < n - 2; r++) assert.equal(rhs[r], 24);
  const x = solveBanded(m, rhs);
  assert.ok(maxDiff(x, exact) < 1e-9 * u((n + 1) / 2), `${maxDiff(x, exact)}`);
});
