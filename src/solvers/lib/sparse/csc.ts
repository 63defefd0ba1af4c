// Compressed sparse column storage and the few kernels every sparse technique needs (Davis,
// "Direct Methods for Sparse Linear Systems", SIAM 2006, ch. 2: the CSC form, transpose,
// symmetric permutation, matrix-vector products, norms). Building from triplets (duplicates
// summed) is lib/sparse-lu.ts's `cscFromTriplets`, reused here so that there is one builder.
import { cscFromTriplets, cscMatVec, type CscMatrix } from '../sparse-lu.ts';

export { cscFromTriplets, cscMatVec, type CscMatrix };

/** Aᵀ in CSC (equivalently A in CSR). Row indices of the result are sorted. */
export function transpose(a: CscMatrix): CscMatrix {
  const n = a.n, { colPtr, rowIdx, values } = a;
  const nz = colPtr[n];
  const cp = new Int32Array(n + 1);
  for (let p = 0; p < nz; p++) cp[rowIdx[p] + 1]++;
  for (let i = 0; i < n; i++) cp[i + 1] += cp[i];
  const next = cp.slice(0, n);
  const ri = new Int32Array(nz), rv = new Float64Array(nz);
  for (let j = 0; j < n; j++) {
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const q = next[rowIdx[p]]++;
      ri[q] = j; rv[q] = values[p];
    }
  }
  return { n, colPtr: cp, rowIdx: ri, values: rv };
}

/** y = Aᵀ·x */
export function cscMatVecT(a: CscMatrix, x: ArrayLike<number>, y: Float64Array = new Float64Array(a.n)): Float64Array {
  const { colPtr, rowIdx, values } = a;
  for (let j = 0; j < a.n; j++) {
    let s = 0;
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) s += values[p] * x[rowIdx[p]];
    y[j] = s;
  }
  return y;
}

/** ‖A‖₁: the largest absolute column sum. */
export function norm1(a: CscMatrix): number {
  let m = 0;
  for (let j = 0; j < a.n; j++) {
    let s = 0;
    for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) s += Math.abs(a.values[p]);
    if (s > m) m = s;
  }
  return m;
}

/** True when A equals Aᵀ exactly (pattern and values); `t` may pass Aᵀ when the caller has it. */
export function isSymmetric(a: CscMatrix, t: CscMatrix = transpose(a)): boolean {
  const n = a.n;
  // rows within a column of `a` may be unsorted: compare through a dense stamp per column
  const val = new Float64Array(n);
  const mark = new Int32Array(n).fill(-1);
  for (let j = 0; j < n; j++) {
    if (a.colPtr[j + 1] - a.colPtr[j] !== t.colPtr[j + 1] - t.colPtr[j]) return false;
    for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) { mark[a.rowIdx[p]] = j; val[a.rowIdx[p]] = a.values[p]; }
    for (let p = t.colPtr[j]; p < t.colPtr[j + 1]; p++) {
      const i = t.rowIdx[p];
      if (mark[i] !== j || val[i] !== t.values[p]) return false;
    }
  }
  return true;
}

/** The diagonal of A (zeros where absent). */
export function diagonal(a: CscMatrix): Float64Array {
  const d = new Float64Array(a.n);
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) if (a.rowIdx[p] === j) d[j] += a.values[p];
  return d;
}

/**
 * The pattern of A + Aᵀ without the diagonal, as adjacency lists (CSR-like: neighbours of i in
 * adjIdx[adjPtr[i] .. adjPtr[i+1]), sorted, no duplicates): the graph the symmetric orderings read.
 */
export function symmetricPattern(a: CscMatrix, t: CscMatrix = transpose(a), symmetric = false): { adjPtr: Int32Array; adjIdx: Int32Array } {
  const n = a.n, { colPtr, rowIdx } = a;
  if (symmetric) {
    // A = Aᵀ: the columns of Aᵀ (rows sorted, no duplicates) without the diagonal are the lists
    const adjPtr = new Int32Array(n + 1), adjIdx = new Int32Array(t.colPtr[n]);
    let q = 0;
    for (let i = 0; i < n; i++) {
      for (let p = t.colPtr[i]; p < t.colPtr[i + 1]; p++) { const r = t.rowIdx[p]; if (r !== i) adjIdx[q++] = r; }
      adjPtr[i + 1] = q;
    }
    return { adjPtr, adjIdx: adjIdx.subarray(0, q) };
  }
  const count = new Int32Array(n);
  const mark = new Int32Array(n).fill(-1);
  // degree of i: union of column i of A and column i of Aᵀ (row i of A), without i
  for (let i = 0; i < n; i++) {
    for (let p = colPtr[i]; p < colPtr[i + 1]; p++) { const r = rowIdx[p]; if (r !== i && mark[r] !== i) { mark[r] = i; count[i]++; } }
    for (let p = t.colPtr[i]; p < t.colPtr[i + 1]; p++) { const r = t.rowIdx[p]; if (r !== i && mark[r] !== i) { mark[r] = i; count[i]++; } }
  }
  const adjPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) adjPtr[i + 1] = adjPtr[i] + count[i];
  const adjIdx = new Int32Array(adjPtr[n]);
  mark.fill(-1);
  for (let i = 0; i < n; i++) {
    let q = adjPtr[i];
    for (let p = colPtr[i]; p < colPtr[i + 1]; p++) { const r = rowIdx[p]; if (r !== i && mark[r] !== i) { mark[r] = i; adjIdx[q++] = r; } }
    for (let p = t.colPtr[i]; p < t.colPtr[i + 1]; p++) { const r = t.rowIdx[p]; if (r !== i && mark[r] !== i) { mark[r] = i; adjIdx[q++] = r; } }
    adjIdx.subarray(adjPtr[i], q).sort();
  }
  return { adjPtr, adjIdx };
}

/**
 * C = P·A·Pᵀ keeping only the upper triangle (row ≤ column) of the permuted matrix, for a
 * symmetric A given in full: column k of C is column perm[k] of A. Rows within a column sorted.
 * `pinv` is the inverse permutation (pinv[perm[k]] = k).
 */
export function symPermUpper(a: CscMatrix, perm: Int32Array): CscMatrix {
  const n = a.n, { colPtr, rowIdx, values } = a;
  const pinv = new Int32Array(n);
  for (let k = 0; k < n; k++) pinv[perm[k]] = k;
  const count = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) {
    const j2 = pinv[j];
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i2 = pinv[rowIdx[p]];
      if (i2 <= j2) count[j2 + 1]++;
    }
  }
  for (let k = 0; k < n; k++) count[k + 1] += count[k];
  const next = count.slice(0, n);
  const ri = new Int32Array(count[n]), rv = new Float64Array(count[n]);
  for (let j = 0; j < n; j++) {
    const j2 = pinv[j];
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i2 = pinv[rowIdx[p]];
      if (i2 <= j2) { const q = next[j2]++; ri[q] = i2; rv[q] = values[p]; }
    }
  }
  // sort rows within each column: two transposes (each leaves its rows sorted)
  return transpose(transpose({ n, colPtr: count, rowIdx: ri, values: rv }));
}

/** ‖v‖∞ */
export function normInfVec(v: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) { const a = Math.abs(v[i]); if (a > m) m = a; }
  return m;
}

/** ‖v‖₂, scaled against overflow */
export function norm2Vec(v: ArrayLike<number>): number {
  const s = normInfVec(v);
  if (s === 0 || !Number.isFinite(s)) return s;
  let q = 0;
  for (let i = 0; i < v.length; i++) { const t = v[i] / s; q += t * t; }
  return s * Math.sqrt(q);
}
