// Sparse LU with partial pivoting, P·A·Q = L·U, for general square matrices: the left-looking
// Gilbert-Peierls factorisation of lib/sparse-lu.ts (Gilbert & Peierls, "Sparse partial pivoting
// in time proportional to arithmetic operations", SIAM J. Sci. Stat. Comput. 9(5), 1988; Davis,
// "Direct Methods for Sparse Linear Systems", SIAM 2006, §6.3), here with the solves the
// linear-system tool needs besides A·x = b: Aᵀ·x = b (for the condition estimate of condest.ts) and
// the smallest pivot (where a numerically singular matrix shows itself).
//
// Column order Q comes from amd.ts on A + Aᵀ (the "symmetric strategy" of UMFPACK, Davis 2004: good
// for matrices with a nearly symmetric pattern, which keeps its order when the diagonal is an
// acceptable pivot, threshold 0.1) or from colamd.ts on AᵀA (unsymmetric patterns; plain partial
// pivoting, threshold 1).
import { luFactor, luSolve, type LuFactors } from '../sparse-lu.ts';
import type { CscMatrix } from './csc.ts';

export type { LuFactors };
export type LuOutcome = { ok: true; factors: LuFactors } | { ok: false; step: number; column: number };

export function luFactorize(a: CscMatrix, q: Int32Array, pivotTol: number): LuOutcome {
  const failure = { step: -1, column: -1 };
  const f = luFactor(a, q, pivotTol, failure);
  return f ? { ok: true, factors: f } : { ok: false, ...failure };
}

export { luSolve };

/** Solves Aᵀ·x = b with the factors of P·A·Q = L·U: Uᵀ·w = Qᵀb, Lᵀ·v = w, x = Pᵀv. */
export function luSolveTranspose(f: LuFactors, b: ArrayLike<number>, out: Float64Array = new Float64Array(f.n)): Float64Array {
  const { n, lp, li, lx, up, ui, ux, pinv, q } = f;
  const w = new Float64Array(n);
  for (let k = 0; k < n; k++) w[k] = b[q[k]];
  for (let j = 0; j < n; j++) { // Uᵀ is lower triangular: row j of Uᵀ is column j of U
    const d = up[j + 1] - 1;
    let s = w[j];
    for (let p = up[j]; p < d; p++) s -= ux[p] * w[ui[p]];
    w[j] = s / ux[d];
  }
  for (let j = n - 1; j >= 0; j--) { // Lᵀ is unit upper triangular
    let s = w[j];
    for (let p = lp[j] + 1; p < lp[j + 1]; p++) s -= lx[p] * w[li[p]];
    w[j] = s;
  }
  for (let i = 0; i < n; i++) out[i] = w[pinv[i]];
  return out;
}

/** The pivot of smallest magnitude, with its elimination step. */
export function smallestPivot(f: LuFactors): { step: number; value: number } {
  let best = { step: -1, value: Infinity };
  for (let j = 0; j < f.n; j++) {
    const v = f.ux[f.up[j + 1] - 1];
    if (Math.abs(v) < Math.abs(best.value)) best = { step: j, value: v };
  }
  return best;
}

/** Entries of L and U (the unit diagonal of L counted once, in L). */
export const luFill = (f: LuFactors): number => f.lp[f.n] + f.up[f.n];
