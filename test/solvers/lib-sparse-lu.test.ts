// The sparse LU of src/solvers/lib/sparse-lu.ts against dense Gaussian elimination (the
// independent reference), on random unsymmetric matrices that need pivoting (with and without a
// fill-reducing order), a zero diagonal, a singular matrix, and a 2-D Laplacian whose
// minimum-degree fill is compared with the natural order's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cscFromTriplets, cscMatVec, luFactor, luSolve, minimumDegreeOrder } from '../../src/solvers/lib/sparse-lu.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { denseSolve } from './util.ts';

function randomSparse(n: number, perCol: number, seed: number, diag = true) {
  const rng = createRng(seed);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const dense = Array.from({ length: n }, () => new Array(n).fill(0));
  const put = (i: number, j: number, v: number) => { rows.push(i); cols.push(j); vals.push(v); dense[i][j] += v; };
  for (let j = 0; j < n; j++) {
    if (diag) put(j, j, 0.1 * (2 * rng.next() - 1)); // small diagonal: pivoting must leave it
    for (let c = 0; c < perCol; c++) put(rng.int(n), j, 2 * rng.next() - 1);
  }
  return { a: cscFromTriplets(n, rows, cols, vals), dense, pattern: { rows, cols } };
}

function symmetricOrder(n: number, rows: number[], cols: number[]) {
  const lists: number[][] = Array.from({ length: n }, () => []);
  rows.forEach((r, k) => { lists[r].push(cols[k]); lists[cols[k]].push(r); });
  const ptr = [0];
  for (const l of lists) ptr.push(ptr[ptr.length - 1] + l.length);
  return minimumDegreeOrder(n, ptr, lists.flat());
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

test('random unsymmetric matrices: the sparse LU solution equals dense elimination, natural and minimum-degree order', () => {
  for (const [n, perCol, seed] of [[1, 1, 1], [5, 2, 2], [40, 3, 3], [120, 4, 4], [200, 2, 5]]) {
    const { a, dense, pattern } = randomSparse(n, perCol, seed);
    const rng = createRng(seed + 100);
    const b = Float64Array.from({ length: n }, () => rng.next() - 0.5);
    let ref: number[];
    try { ref = denseSolve(dense, b); } catch { continue; }
    if (!ref.every(Number.isFinite)) continue;
    const { order } = symmetricOrder(n, pattern.rows, pattern.cols);
    for (const [q, tol] of [[null, 1], [null, 0.1], [order, 0.1], [order, 1]] as const) {
      const f = luFactor(a, q, tol);
      assert.ok(f, `n=${n}: factorised`);
      const x = luSolve(f, b);
      const scale = Math.max(1, ...ref.map(Math.abs));
      assert.ok(maxDiff(x, ref) <= 1e-9 * scale, `n=${n} tol=${tol} ${q ? 'md' : 'natural'}: ${maxDiff(x, ref)}`);
      const r = cscMatVec(a, x);
      assert.ok(maxDiff(r, b) <= 1e-10 * scale, `residual ${maxDiff(r, b)}`);
    }
  }
});

test('a zero diagonal is pivoted around; a singular matrix is reported as null', () => {
  // [[0 1],[1 0]]
  const a = cscFromTriplets(2, [1, 0], [0, 1], [1, 1]);
  const f = luFactor(a)!;
  assert.deepEqual(Array.from(luSolve(f, [3, 4])), [4, 3]);
  // two equal columns
  const s = cscFromTriplets(3, [0, 1, 0, 1, 2], [0, 0, 1, 1, 2], [1, 2, 1, 2, 5]);
  assert.equal(luFactor(s), null);
  // duplicates are summed
  const d = cscFromTriplets(1, [0, 0], [0, 0], [1.5, 2.5]);
  assert.deepEqual(Array.from(luSolve(luFactor(d)!, [8])), [2]);
});

test('2-D Laplacian 30×30: minimum degree fills far less than the natural order and solves to 1e-10', () => {
  const m = 30, n = m * m;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const id = (i: number, j: number) => i * m + j;
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {
    rows.push(id(i, j)); cols.push(id(i, j)); vals.push(4);
    for (const [di, dj] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const a = i + di, b = j + dj;
      if (a >= 0 && a < m && b >= 0 && b < m) { rows.push(id(a, b)); cols.push(id(i, j)); vals.push(-1); }
    }
  }
  const A = cscFromTriplets(n, rows, cols, vals);
  const { order, fill } = symmetricOrder(n, rows, cols);
  const natural = luFactor(A, null, 1)!;
  const md = luFactor(A, order, 0.1)!;
  const fillNatural = natural.lp[n] - n, fillMd = md.lp[n] - n;
  assert.ok(fillMd < 0.5 * fillNatural, `minimum degree ${fillMd} vs natural ${fillNatural}`);
  assert.equal(fillMd, fill, 'the symbolic fill count is the factor\'s (no pivoting away from the diagonal on an M-matrix)');
  const xTrue = Float64Array.from({ length: n }, (_, k) => Math.sin(k));
  const b = cscMatVec(A, xTrue);
  assert.ok(maxDiff(luSolve(md, b), xTrue) < 1e-10);
  assert.equal(minimumDegreeOrder(n, [0, ...new Array(n).fill(0)], [], 10).order !== null, true, 'no edges: no fill');
  assert.equal(symmetricOrder(n, rows, cols).order!.length, n);
  assert.equal(minimumDegreeOrder(n, A.colPtr, A.rowIdx, 100).order, null, 'stops past maxFill');
});
