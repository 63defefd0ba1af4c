// Sparse Cholesky factorisation P·A·Pᵀ = L·Lᵀ of a symmetric positive definite matrix, in three
// phases (Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, ch. 4; George & Liu,
// "Computer Solution of Large Sparse Positive Definite Systems", Prentice-Hall 1981):
//  1. elimination tree of P·A·Pᵀ by Liu's algorithm with path compression (Liu, "The role of
//     elimination trees in sparse factorization", SIAM J. Matrix Anal. Appl. 11(1), 1990; Davis §4.1);
//  2. symbolic factorisation: the pattern of row k of L is the row subtree of k, reached from the
//     entries of row k of A by walking up the tree until a marked node (Davis §4.2, "ereach"); two
//     passes, one counting the column sizes and one filling the row indices, which arrive sorted;
//  3. numeric factorisation, left-looking by columns (George & Liu §5.3): column j gathers the
//     updates cmod(j, k) of every earlier column k with L(j, k) ≠ 0, found through linked lists that
//     hold each column k under the next row it will update, then cdiv(j) divides by √(pivot).
// A pivot that is not positive (or not finite) stops the factorisation: the matrix is not positive
// definite (numerically), and the caller learns the column where it failed.
import type { CscMatrix } from './csc.ts';
import { symPermUpper } from './csc.ts';

export interface CholeskySymbolic {
  n: number;
  perm: Int32Array;
  parent: Int32Array;
  /** pattern of L by columns, diagonal first, rows sorted */
  lp: Int32Array;
  li: Int32Array;
  /** the permuted upper triangle C = (P·A·Pᵀ) upper, by columns */
  c: CscMatrix;
}

export interface CholeskyFactor extends CholeskySymbolic {
  lx: Float64Array;
}

export type CholeskyOutcome = { ok: true; factor: CholeskyFactor } | { ok: false; column: number; pivot: number; step: number };

/** Elimination tree of the matrix whose upper triangle is `c` (column k holds rows i ≤ k). */
export function eliminationTree(c: CscMatrix): Int32Array {
  const n = c.n;
  const parent = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    for (let p = c.colPtr[k]; p < c.colPtr[k + 1]; p++) {
      let i = c.rowIdx[p];
      while (i !== -1 && i < k) {
        const next = ancestor[i];
        ancestor[i] = k;
        if (next === -1) parent[i] = k;
        i = next;
      }
    }
  }
  return parent;
}

/** Symbolic analysis of A (symmetric, full pattern) under the order `perm`. */
export function choleskySymbolic(a: CscMatrix, perm: Int32Array, maxFill = Infinity): CholeskySymbolic | { tooLarge: number } {
  const n = a.n;
  const c = symPermUpper(a, perm);
  const parent = eliminationTree(c);
  const mark = new Int32Array(n).fill(-1);
  // pass 1: column counts from the row subtrees
  const count = new Float64Array(n).fill(1);
  let total = n;
  for (let k = 0; k < n; k++) {
    mark[k] = k;
    for (let p = c.colPtr[k]; p < c.colPtr[k + 1]; p++) {
      for (let i = c.rowIdx[p]; i < k && mark[i] !== k; i = parent[i]) { mark[i] = k; count[i]++; total++; }
    }
    if (total > maxFill) return { tooLarge: total };
  }
  const lp = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) lp[j + 1] = lp[j] + count[j];
  const li = new Int32Array(lp[n]);
  const next = new Int32Array(n);
  for (let j = 0; j < n; j++) { li[lp[j]] = j; next[j] = lp[j] + 1; }
  // pass 2: row k is appended to each column of its row subtree, so rows arrive in order
  mark.fill(-1);
  for (let k = 0; k < n; k++) {
    mark[k] = k;
    for (let p = c.colPtr[k]; p < c.colPtr[k + 1]; p++) {
      for (let i = c.rowIdx[p]; i < k && mark[i] !== k; i = parent[i]) { mark[i] = k; li[next[i]++] = k; }
    }
  }
  return { n, perm, parent, lp, li, c };
}

/** Numeric left-looking factorisation on a symbolic analysis. */
export function choleskyNumeric(s: CholeskySymbolic, progress?: (fraction: number) => void): CholeskyOutcome {
  const { n, lp, li, c } = s;
  const lx = new Float64Array(li.length);
  const x = new Float64Array(n);          // dense accumulator of the current column
  const head = new Int32Array(n).fill(-1); // columns waiting to update row (column) j
  const link = new Int32Array(n).fill(-1);
  const pos = new Int32Array(n);           // next entry of column k to use in an update
  // column j of the lower triangle of the permuted A = row j of the upper triangle: build by rows
  const rowPtr = new Int32Array(n + 1);
  for (let p = 0; p < c.colPtr[n]; p++) rowPtr[c.rowIdx[p] + 1]++;
  for (let i = 0; i < n; i++) rowPtr[i + 1] += rowPtr[i];
  const rowCol = new Int32Array(c.colPtr[n]), rowVal = new Float64Array(c.colPtr[n]);
  const fillAt = rowPtr.slice(0, n);
  for (let j = 0; j < n; j++) for (let p = c.colPtr[j]; p < c.colPtr[j + 1]; p++) {
    const q = fillAt[c.rowIdx[p]]++;
    rowCol[q] = j; rowVal[q] = c.values[p];
  }
  const tick = Math.max(1, n >> 5);
  for (let j = 0; j < n; j++) {
    // scatter A(j:n, j)
    for (let p = rowPtr[j]; p < rowPtr[j + 1]; p++) x[rowCol[p]] = rowVal[p];
    // cmod(j, k) for every column k with L(j, k) ≠ 0
    let k = head[j];
    while (k !== -1) {
      const nextK = link[k];
      const pk = pos[k];
      const ljk = lx[pk];
      const end = lp[k + 1];
      for (let q = pk; q < end; q++) x[li[q]] -= lx[q] * ljk;
      pos[k] = pk + 1;
      if (pk + 1 < end) { const r = li[pk + 1]; link[k] = head[r]; head[r] = k; }
      k = nextK;
    }
    head[j] = -1;
    // cdiv(j)
    const d = x[j];
    if (!(d > 0) || !Number.isFinite(d)) return { ok: false, column: s.perm[j], pivot: d, step: j };
    const ljj = Math.sqrt(d);
    const start = lp[j], end = lp[j + 1];
    lx[start] = ljj;
    x[j] = 0;
    const inv = 1 / ljj;
    for (let q = start + 1; q < end; q++) { const r = li[q]; lx[q] = x[r] * inv; x[r] = 0; }
    if (start + 1 < end) { pos[j] = start + 1; const r = li[start + 1]; link[j] = head[r]; head[r] = j; }
    if (progress && j % tick === 0) progress(j / n);
  }
  return { ok: true, factor: { ...s, lx } };
}

/** Solves A·x = b with P·A·Pᵀ = L·Lᵀ. */
export function choleskySolve(f: CholeskyFactor, b: ArrayLike<number>, out: Float64Array = new Float64Array(f.n)): Float64Array {
  const { n, lp, li, lx, perm } = f;
  const y = new Float64Array(n);
  for (let k = 0; k < n; k++) y[k] = b[perm[k]];
  for (let j = 0; j < n; j++) { // L·z = y
    const yj = (y[j] /= lx[lp[j]]);
    if (yj === 0) continue;
    for (let q = lp[j] + 1; q < lp[j + 1]; q++) y[li[q]] -= lx[q] * yj;
  }
  for (let j = n - 1; j >= 0; j--) { // Lᵀ·w = z
    let s = y[j];
    for (let q = lp[j] + 1; q < lp[j + 1]; q++) s -= lx[q] * y[li[q]];
    y[j] = s / lx[lp[j]];
  }
  for (let k = 0; k < n; k++) out[perm[k]] = y[k];
  return out;
}
