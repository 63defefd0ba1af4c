// A COLAMD-like column ordering for sparse LU (the idea of Davis, Gilbert, Larimore & Ng, "A
// column approximate minimum degree ordering algorithm", ACM TOMS 30(3), 2004, 353-376): order the
// columns of A to keep the Cholesky factor of AᵀA sparse (which bounds the fill of LU with any row
// pivoting, George & Ng 1987), without forming AᵀA. Each row of A is an initial element over its
// columns in the approximate-minimum-degree quotient graph of amd.ts, so eliminating a column
// absorbs the rows it touches exactly as the elimination of AᵀA would join them. Rows with more than
// max(16, 10·√n) entries are left out of the graph (COLAMD's dense-row rule: they would make every
// column adjacent to every other and say nothing about fill).
import type { CscMatrix } from './csc.ts';
import { transpose } from './csc.ts';
import { amdOrder } from './amd.ts';

/** Column order q for LU: column k of the factor is column q[k] of A. */
export function colamdOrder(a: CscMatrix): Int32Array {
  const n = a.n;
  const rows = transpose(a); // column i of Aᵀ = row i of A
  const denseRow = Math.max(16, Math.floor(10 * Math.sqrt(n)));
  const elements: Int32Array[] = [];
  for (let i = 0; i < n; i++) {
    const len = rows.colPtr[i + 1] - rows.colPtr[i];
    if (len === 0 || len > denseRow) continue;
    elements.push(rows.rowIdx.subarray(rows.colPtr[i], rows.colPtr[i + 1]));
  }
  return amdOrder({ n, elements });
}
