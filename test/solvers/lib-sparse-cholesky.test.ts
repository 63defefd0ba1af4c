// The supernodal Cholesky of lib/sparse/supernodal.ts and the flat-array AMD of lib/sparse/amd.ts
// against independent references: the scalar left-looking factorisation of lib/sparse/cholesky.ts
// (row-subtree symbolic, column-by-column numeric: a different algorithm), dense reconstruction
// P·A·Pᵀ = L·Lᵀ entry by entry, and the quotient-graph AMD on JS lists (the previous code) for fill.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cscFromTriplets, symmetricPattern, type CscMatrix } from '../../src/solvers/lib/sparse/csc.ts';
import { amdOrder } from '../../src/solvers/lib/sparse/amd.ts';
import { choleskySymbolic, choleskyNumeric, choleskySolve, type CholeskySymbolic } from '../../src/solvers/lib/sparse/cholesky.ts';
import { supernodalSymbolic, supernodalNumeric, supernodalSolve, supernodalDiagonal, type SupernodalSymbolic, type SupernodalFactor } from '../../src/solvers/lib/sparse/supernodal.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

const U = 2 ** -53;

/** 2-D (5-point) or 3-D (7-point) Laplacian with Dirichlet boundary, as triplets. */
function laplacian(N: number, dim: 2 | 3): { n: number; rows: number[]; cols: number[]; vals: number[] } {
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const nz = dim === 3 ? N : 1;
  const id = (i: number, j: number, k: number) => (i * N + j) * nz + k;
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) for (let k = 0; k < nz; k++) {
    rows.push(id(i, j, k)); cols.push(id(i, j, k)); vals.push(2 * dim);
    const nb = [[i - 1, j, k], [i + 1, j, k], [i, j - 1, k], [i, j + 1, k], ...(dim === 3 ? [[i, j, k - 1], [i, j, k + 1]] : [])];
    for (const [a, b, c] of nb) if (a >= 0 && a < N && b >= 0 && b < N && c >= 0 && c < nz) { rows.push(id(i, j, k)); cols.push(id(a, b, c)); vals.push(-1); }
  }
  return { n: N * N * nz, rows, cols, vals };
}

/** A random sparse SPD matrix: symmetric pattern, diagonally dominant; a few dense-ish rows optional. */
function randomSpd(n: number, perRow: number, seed: number, shift = 1): { a: CscMatrix; rows: number[]; cols: number[]; vals: number[] } {
  const rng = createRng(seed);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const rowSum = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let t = 0; t < perRow; t++) {
    // mostly local couplings (a banded-ish graph), some long-range ones
    const j = rng.next() < 0.8 ? Math.min(n - 1, Math.max(0, i + rng.int(21) - 10)) : rng.int(n);
    if (j === i) continue;
    const v = 2 * rng.next() - 1;
    rows.push(i, j); cols.push(j, i); vals.push(v, v);
    rowSum[i] += Math.abs(v); rowSum[j] += Math.abs(v);
  }
  for (let i = 0; i < n; i++) { rows.push(i); cols.push(i); vals.push(rowSum[i] + shift); }
  return { a: cscFromTriplets(n, rows, cols, vals), rows, cols, vals };
}

const amd = (a: CscMatrix) => { const g = symmetricPattern(a); return amdOrder({ n: a.n, adjPtr: g.adjPtr, adjIdx: g.adjIdx }); };
const amdLists = (a: CscMatrix) => { const g = symmetricPattern(a); return amdOrder({ n: a.n, adjPtr: g.adjPtr, adjIdx: g.adjIdx, elements: [] }); };
const isPermutation = (p: Int32Array, n: number) => p.length === n && new Set(p).size === n && p.every((v) => v >= 0 && v < n);

/** ‖P·A·Pᵀ − L·Lᵀ‖_max / max|A|, from the dense matrices (small n). */
function reconstructionError(a: CscMatrix, f: SupernodalFactor): number {
  const n = a.n;
  const L = Array.from({ length: n }, () => new Float64Array(n));
  for (let s = 0; s < f.nsuper; s++) {
    const c0 = f.superStart[s], nc = f.superStart[s + 1] - c0, rp = f.rowPtr[s], nr = f.rowPtr[s + 1] - rp;
    for (let j = 0; j < nc; j++) for (let r = j; r < nr; r++) L[f.rowIdx[rp + r]][c0 + j] = f.lx[f.valPtr[s] + j * nr + r];
  }
  const pinv = new Int32Array(n);
  for (let k = 0; k < n; k++) pinv[f.perm[k]] = k;
  const PAP = Array.from({ length: n }, () => new Float64Array(n));
  let amax = 0;
  for (let j = 0; j < n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) {
    PAP[pinv[a.rowIdx[p]]][pinv[j]] += a.values[p];
    amax = Math.max(amax, Math.abs(a.values[p]));
  }
  let err = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) {
    let s = 0;
    for (let k = 0; k <= j; k++) s += L[i][k] * L[j][k];
    err = Math.max(err, Math.abs(PAP[i][j] - s));
  }
  return err / amax;
}

function factorBoth(a: CscMatrix, perm: Int32Array) {
  const s1 = choleskySymbolic(a, perm) as CholeskySymbolic;
  const o1 = choleskyNumeric(s1);
  const s2 = supernodalSymbolic(a, perm) as SupernodalSymbolic;
  const o2 = supernodalNumeric(s2);
  assert.ok(o1.ok && o2.ok);
  return { s1, f1: o1.factor, s2, f2: o2.factor };
}

test('Gilbert-Ng-Peyton column counts equal the row-subtree counts; the supernodal partition covers every column once', () => {
  const mats: [string, CscMatrix][] = [];
  for (const [N, dim] of [[12, 2], [40, 2], [7, 3], [12, 3]] as const) { const l = laplacian(N, dim); mats.push([`lap${dim}d-${N}`, cscFromTriplets(l.n, l.rows, l.cols, l.vals)]); }
  for (const seed of [1, 2, 3]) mats.push([`random-${seed}`, randomSpd(300 + 100 * seed, 3, seed).a]);
  for (const [name, a] of mats) for (const order of ['amd', 'natural'] as const) {
    const n = a.n;
    const perm = order === 'amd' ? amd(a) : Int32Array.from({ length: n }, (_, i) => i);
    const { s1, s2 } = factorBoth(a, perm);
    // the supernodal analysis postorders the tree: compare the fill, and the counts under its own order
    assert.equal(s2.nnzL, s1.lp[n], `${name} ${order}: nnz(L)`);
    const s1p = choleskySymbolic(a, s2.perm) as CholeskySymbolic;
    for (let j = 0; j < n; j++) assert.equal(s2.colCount[j], s1p.lp[j + 1] - s1p.lp[j], `${name} ${order}: column ${j}`);
    for (let j = 0; j < n; j++) if (s2.parent[j] !== -1) assert.ok(s2.parent[j] > j, 'postordered tree');
    assert.equal(s2.superStart[0], 0); assert.equal(s2.superStart[s2.nsuper], n);
    for (let s = 0; s < s2.nsuper; s++) {
      assert.ok(s2.superStart[s + 1] > s2.superStart[s]);
      const rows = s2.rowIdx.subarray(s2.rowPtr[s], s2.rowPtr[s + 1]);
      for (let r = 1; r < rows.length; r++) assert.ok(rows[r] > rows[r - 1], 'rows sorted, no duplicates');
      for (let j = s2.superStart[s]; j < s2.superStart[s + 1]; j++) assert.equal(rows[j - s2.superStart[s]], j, 'own columns first');
    }
    assert.ok(s2.stored >= s2.nnzL);
  }
});

test('supernodal and left-looking factorisations agree: P·A·Pᵀ = L·Lᵀ to rounding, and the two solutions within κ·u', () => {
  for (const [name, a] of [
    ['lap2d-20', (() => { const l = laplacian(20, 2); return cscFromTriplets(l.n, l.rows, l.cols, l.vals); })()],
    ['lap3d-8', (() => { const l = laplacian(8, 3); return cscFromTriplets(l.n, l.rows, l.cols, l.vals); })()],
    ['random-400', randomSpd(400, 4, 11).a],
    ['random-ill', randomSpd(300, 3, 12, 1e-6).a],
  ] as [string, CscMatrix][]) {
    const n = a.n;
    const perm = amd(a);
    const { f1, f2 } = factorBoth(a, perm);
    const rec = reconstructionError(a, f2);
    assert.ok(rec <= 50 * n * U, `${name}: ‖PAPᵀ − LLᵀ‖/‖A‖ = ${rec}`);
    const rng = createRng(5);
    const b = Float64Array.from({ length: n }, () => 2 * rng.next() - 1);
    const x1 = choleskySolve(f1, b), x2 = supernodalSolve(f2, b);
    // κ₁ from the dense inverse column sums would be costly: bound it by ‖A‖₁·‖A⁻¹‖₁ through n solves
    let normA = 0, normInv = 0;
    for (let j = 0; j < n; j++) { let s = 0; for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) s += Math.abs(a.values[p]); normA = Math.max(normA, s); }
    for (let j = 0; j < n; j += Math.max(1, n >> 6)) { const e = new Float64Array(n); e[j] = 1; const c = supernodalSolve(f2, e); let s = 0; for (const v of c) s += Math.abs(v); normInv = Math.max(normInv, s); }
    const kappa = normA * normInv;
    let d = 0, xm = 0;
    for (let i = 0; i < n; i++) { d = Math.max(d, Math.abs(x1[i] - x2[i])); xm = Math.max(xm, Math.abs(x1[i])); }
    assert.ok(d / xm <= 100 * n * kappa * U, `${name}: ‖x1 − x2‖/‖x‖ = ${d / xm} (κ ≈ ${kappa.toExponential(2)})`);
    // the diagonals are the pivots of the same matrix under two orders: their products agree (det)
    let logdet1 = 0, logdet2 = 0;
    const d2 = supernodalDiagonal(f2);
    for (let j = 0; j < n; j++) { logdet1 += Math.log(f1.lx[f1.lp[j]]); logdet2 += Math.log(d2[j]); }
    assert.ok(Math.abs(logdet1 - logdet2) <= 1e-9 * Math.max(1, Math.abs(logdet1)), `${name}: log det ${logdet1} vs ${logdet2}`);
  }
});

test('one dense block is one supernode; a larger one goes through the panel-blocked kernel and still reconstructs', () => {
  for (const n of [10, 150]) {
    const rows: number[] = [], cols: number[] = [], vals: number[] = [];
    const rng = createRng(n);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) {
      const v = i === j ? n : 2 * rng.next() - 1;
      rows.push(i); cols.push(j); vals.push(v);
      if (i !== j) { rows.push(j); cols.push(i); vals.push(v); }
    }
    const a = cscFromTriplets(n, rows, cols, vals);
    const s = supernodalSymbolic(a, Int32Array.from({ length: n }, (_, i) => i)) as SupernodalSymbolic;
    assert.equal(s.nsuper, 1);
    const o = supernodalNumeric(s);
    assert.ok(o.ok);
    assert.ok(reconstructionError(a, o.factor) <= 50 * n * U);
  }
});

test('an indefinite matrix stops at a non-positive pivot, naming the step and the column of A', () => {
  const { a } = randomSpd(200, 3, 21);
  // make one diagonal entry very negative: the matrix is indefinite
  const bad = 137;
  for (let p = a.colPtr[bad]; p < a.colPtr[bad + 1]; p++) if (a.rowIdx[p] === bad) a.values[p] = -5;
  const s = supernodalSymbolic(a, amd(a)) as SupernodalSymbolic;
  const o = supernodalNumeric(s);
  assert.ok(!o.ok);
  if (!o.ok) {
    assert.ok(o.pivot <= 0);
    assert.equal(o.column, s.perm[o.step]);
    const old = choleskyNumeric(choleskySymbolic(a, s.perm) as CholeskySymbolic);
    assert.ok(!old.ok && old.step === o.step, 'the left-looking factorisation fails at the same step');
  }
});

test('the flat AMD: a permutation, deterministic, fill no worse than 1.15× the list AMD, dense rows last', () => {
  for (const [name, a] of [
    ['lap2d-60', (() => { const l = laplacian(60, 2); return cscFromTriplets(l.n, l.rows, l.cols, l.vals); })()],
    ['lap3d-14', (() => { const l = laplacian(14, 3); return cscFromTriplets(l.n, l.rows, l.cols, l.vals); })()],
    ['random-2000', randomSpd(2000, 3, 31).a],
  ] as [string, CscMatrix][]) {
    const n = a.n;
    const p1 = amd(a), p2 = amd(a);
    assert.ok(isPermutation(p1, n), `${name}: a permutation`);
    assert.deepEqual(p1, p2, `${name}: deterministic`);
    const fillFlat = (choleskySymbolic(a, p1) as CholeskySymbolic).lp[n];
    const fillLists = (choleskySymbolic(a, amdLists(a)) as CholeskySymbolic).lp[n];
    const fillNatural = (choleskySymbolic(a, Int32Array.from({ length: n }, (_, i) => i)) as CholeskySymbolic).lp[n];
    assert.ok(fillFlat <= 1.15 * fillLists, `${name}: fill ${fillFlat} vs ${fillLists}`);
    assert.ok(fillFlat < fillNatural, `${name}: fill ${fillFlat} below the natural order's ${fillNatural}`);
  }
  // an arrowhead: variable 0 is coupled to everything; it is ordered last, and the factor has no fill
  const n = 1000;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  for (let i = 0; i < n; i++) { rows.push(i); cols.push(i); vals.push(n); if (i > 0) { rows.push(0, i); cols.push(i, 0); vals.push(1, 1); } }
  const a = cscFromTriplets(n, rows, cols, vals);
  const p = amd(a);
  assert.ok(isPermutation(p, n));
  assert.equal(p[n - 1], 0);
  assert.equal((choleskySymbolic(a, p) as CholeskySymbolic).lp[n], 2 * n - 1);
  // isolated variables and an empty graph
  assert.ok(isPermutation(amdOrder({ n: 5, adjPtr: [0, 0, 0, 0, 0, 0], adjIdx: [] }), 5));
});
