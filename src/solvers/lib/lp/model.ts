// The one model type of the lp family (STYLE: HiGHS keeps reader, presolve, simplex, interior
// point and MIP as separate parts around one model type): a linear or mixed-integer program
//   minimise / maximise  cᵀx + objConst
//   subject to           rowLo ≤ A·x ≤ rowUp,   colLo ≤ x ≤ colUp,   x_j integer where integer[j]
// with A in compressed sparse column form (column j holds rowIdx/vals[colPtr[j]..colPtr[j+1])).
// Infinite bounds are ±Infinity. Readers (mps.ts, lpformat.ts, the JSON model in lp.ts) build it;
// the techniques (presolve, scaling, dual simplex, interior point, branch and bound) read it.
export interface LpModel {
  name: string;
  sense: 'min' | 'max';
  nRows: number;
  nCols: number;
  rowNames: string[];
  colNames: string[];
  colPtr: Int32Array;
  rowIdx: Int32Array;
  vals: Float64Array;
  c: Float64Array;
  objConst: number;
  rowLo: Float64Array;
  rowUp: Float64Array;
  colLo: Float64Array;
  colUp: Float64Array;
  integer: Uint8Array;
}

/** Limits of the problems accepted (issue 30: up to 10,000 rows and 100,000 nonzeros). */
export const LP_LIMITS = { maxRows: 10_000, maxCols: 100_000, maxNonzeros: 250_000, maxTextBytes: 16 * 1024 * 1024 } as const;

/** Builds the CSC arrays of a model from triplets (row, col, value); duplicates are summed,
 * explicit zeros dropped, rows sorted within each column. */
export function cscFromEntries(nRows: number, nCols: number, rows: ArrayLike<number>, cols: ArrayLike<number>, vals: ArrayLike<number>, count = rows.length): { colPtr: Int32Array; rowIdx: Int32Array; vals: Float64Array } {
  const colPtr = new Int32Array(nCols + 1);
  for (let k = 0; k < count; k++) colPtr[cols[k] + 1]++;
  for (let j = 0; j < nCols; j++) colPtr[j + 1] += colPtr[j];
  const next = colPtr.slice(0, nCols);
  const ri = new Int32Array(count), rv = new Float64Array(count);
  for (let k = 0; k < count; k++) { const p = next[cols[k]]++; ri[p] = rows[k]; rv[p] = vals[k]; }
  const where = new Int32Array(nRows).fill(-1);
  const outPtr = new Int32Array(nCols + 1);
  const oi: number[] = [], ov: number[] = [];
  for (let j = 0; j < nCols; j++) {
    const start = oi.length;
    for (let p = colPtr[j]; p < colPtr[j + 1]; p++) {
      const i = ri[p];
      if (where[i] >= start) ov[where[i]] += rv[p];
      else { where[i] = oi.length; oi.push(i); ov.push(rv[p]); }
    }
    // sort the column's rows, drop zeros
    const idx: number[] = [];
    for (let p = start; p < oi.length; p++) idx.push(p);
    idx.sort((a, b) => oi[a] - oi[b]);
    const si = idx.map((p) => oi[p]), sv = idx.map((p) => ov[p]);
    oi.length = start; ov.length = start;
    for (let t = 0; t < si.length; t++) if (sv[t] !== 0) { oi.push(si[t]); ov.push(sv[t]); }
    for (let p = start; p < oi.length; p++) where[oi[p]] = p;
    outPtr[j + 1] = oi.length;
  }
  return { colPtr: outPtr, rowIdx: Int32Array.from(oi), vals: Float64Array.from(ov) };
}

/** Row-wise copy (CSR) of a model's matrix. */
export function rowWise(m: Pick<LpModel, 'nRows' | 'nCols' | 'colPtr' | 'rowIdx' | 'vals'>): { rowPtr: Int32Array; colIdx: Int32Array; vals: Float64Array } {
  const rowPtr = new Int32Array(m.nRows + 1);
  const nnz = m.colPtr[m.nCols];
  for (let p = 0; p < nnz; p++) rowPtr[m.rowIdx[p] + 1]++;
  for (let i = 0; i < m.nRows; i++) rowPtr[i + 1] += rowPtr[i];
  const next = rowPtr.slice(0, m.nRows);
  const colIdx = new Int32Array(nnz), vals = new Float64Array(nnz);
  for (let j = 0; j < m.nCols; j++) {
    for (let p = m.colPtr[j]; p < m.colPtr[j + 1]; p++) { const q = next[m.rowIdx[p]]++; colIdx[q] = j; vals[q] = m.vals[p]; }
  }
  return { rowPtr, colIdx, vals };
}

/** Decodes a file input given as text or bytes (blobs arrive as Uint8Array). */
export function fileText(input: string | Uint8Array): string {
  return typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: false }).decode(input);
}
