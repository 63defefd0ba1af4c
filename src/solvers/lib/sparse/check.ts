// The certificate of a linear solve, recomputed from the original entries: residual r = b − A·x
// and the normwise backward error (Rigal & Gaches, "On the compatibility of a given solution with
// the data of a linear system", J. ACM 14(3), 1967; Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., SIAM 2002, Thm 7.1)
//     η(x) = ‖b − A·x‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞),
// the smallest ε for which x solves (A + ΔA)·x = b + Δb with ‖ΔA‖∞ ≤ ε‖A‖∞, ‖Δb‖∞ ≤ ε‖b‖∞.
// This file imports nothing of the factorisations or of the sparse storage: it reads the entries as
// triplets (duplicates summed here, by its own sort), and accumulates each row of A·x in doubled
// precision (Dekker's exact product by splitting and Knuth's exact sum: Ogita, Rump & Oishi,
// "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Alg. Dot2), so that the
// residual of an accurate solution is not itself lost in rounding.

export interface LinearSystemCertificate {
  residualInf: number;
  residual2: number;
  normAInf: number;
  normXInf: number;
  normBInf: number;
  backwardError: number;
  entries: number;
}

const SPLIT = 134217729; // 2^27 + 1

/** Residual and backward error of x for A (n×n triplets, 0-based; duplicates are summed) and b. */
export function checkLinearSolve(n: number, rows: ArrayLike<number>, cols: ArrayLike<number>, vals: ArrayLike<number>, x: ArrayLike<number>, b: ArrayLike<number>): LinearSystemCertificate {
  const m = rows.length;
  // counting sort of the entries by row
  const start = new Int32Array(n + 1);
  for (let k = 0; k < m; k++) start[rows[k] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const at = start.slice(0, n);
  const byRow = new Int32Array(m);
  for (let k = 0; k < m; k++) byRow[at[rows[k]]++] = k;
  const sumAt = new Float64Array(n);      // row i: the summed entry of column j (duplicates)
  const seen = new Int32Array(n).fill(-1);
  const touched: number[] = [];
  let normA = 0, rInf = 0, r2 = 0, xInf = 0, bInf = 0;
  for (let i = 0; i < n; i++) { const a = Math.abs(x[i]); if (a > xInf) xInf = a; const c = Math.abs(b[i]); if (c > bInf) bInf = c; }
  for (let i = 0; i < n; i++) {
    // residual b_i − Σ a_ij x_j in doubled precision (s + c)
    let s = b[i], c = 0;
    touched.length = 0;
    for (let p = start[i]; p < start[i + 1]; p++) {
      const k = byRow[p];
      const j = cols[k];
      if (seen[j] !== i) { seen[j] = i; sumAt[j] = 0; touched.push(j); }
      sumAt[j] += vals[k];
      // TwoProduct(−a, x_j) by Dekker's splitting
      const a = -vals[k], xj = x[j];
      const prod = a * xj;
      let t = SPLIT * a; const ah = t - (t - a), al = a - ah;
      t = SPLIT * xj; const xh = t - (t - xj), xl = xj - xh;
      const perr = al * xl - (((prod - ah * xh) - al * xh) - ah * xl);
      // TwoSum(s, prod)
      const sum = s + prod;
      const z = sum - s;
      const serr = (s - (sum - z)) + (prod - z);
      s = sum;
      c += serr + perr;
    }
    const ri = s + c;
    let rowAbs = 0;
    for (const j of touched) rowAbs += Math.abs(sumAt[j]);
    if (rowAbs > normA) normA = rowAbs;
    const ar = Math.abs(ri);
    if (ar > rInf) rInf = ar;
    r2 += ri * ri;
  }
  const denom = normA * xInf + bInf;
  const backwardError = rInf === 0 ? 0 : denom > 0 ? rInf / denom : Infinity;
  return { residualInf: rInf, residual2: Math.sqrt(r2), normAInf: normA, normXInf: xInf, normBInf: bInf, backwardError, entries: m };
}
