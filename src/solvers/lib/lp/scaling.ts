// Scaling of the constraint matrix before the simplex method: geometric-mean passes over rows
// and columns, then column equilibration (Tomlin, "On scaling linear programming problems",
// Math. Prog. Study 4, 1975; Ploskas & Samaras, "The impact of scaling on simplex type
// algorithms", 2013, for the comparison of methods; Koberstein 2005 §6.1 for the practice).
// Each pass sets r_i = 1/√(min_j |a_ij| · max_j |a_ij|) over a row (then the same over each
// column); four passes, stopping early when the spread max|a|/min|a| stops improving by 10 %.
// The factors are rounded to powers of 2 so that scaling and unscaling are exact in floating
// point. The scaled matrix is A' = R·A·S; x = S·x', row activity = R⁻¹·(A'x'), c' = S·c,
// duals y = R·y', reduced costs d = S⁻¹·d'.
export interface Scaling { row: Float64Array; col: Float64Array }

const pow2 = (v: number) => (v > 0 && Number.isFinite(v) ? 2 ** Math.round(Math.log2(v)) : 1);

export function computeScaling(m: number, n: number, colPtr: Int32Array, rowIdx: Int32Array, vals: Float64Array): Scaling {
  const row = new Float64Array(m).fill(1), col = new Float64Array(n).fill(1);
  const spread = () => {
    let lo = Infinity, hi = 0;
    for (let j = 0; j < n; j++) for (let t = colPtr[j]; t < colPtr[j + 1]; t++) {
      const a = Math.abs(vals[t]) * row[rowIdx[t]] * col[j];
      if (a < lo) lo = a; if (a > hi) hi = a;
    }
    return hi > 0 ? hi / lo : 1;
  };
  let prev = spread();
  const rmin = new Float64Array(m), rmax = new Float64Array(m);
  for (let pass = 0; pass < 4; pass++) {
    rmin.fill(Infinity); rmax.fill(0);
    for (let j = 0; j < n; j++) for (let t = colPtr[j]; t < colPtr[j + 1]; t++) {
      const i = rowIdx[t], a = Math.abs(vals[t]) * col[j];
      if (a < rmin[i]) rmin[i] = a; if (a > rmax[i]) rmax[i] = a;
    }
    for (let i = 0; i < m; i++) if (rmax[i] > 0) row[i] = 1 / Math.sqrt(rmin[i] * rmax[i]);
    for (let j = 0; j < n; j++) {
      let lo = Infinity, hi = 0;
      for (let t = colPtr[j]; t < colPtr[j + 1]; t++) { const a = Math.abs(vals[t]) * row[rowIdx[t]]; if (a < lo) lo = a; if (a > hi) hi = a; }
      if (hi > 0) col[j] = 1 / Math.sqrt(lo * hi);
    }
    const s = spread();
    if (s > 0.9 * prev) { prev = s; break; }
    prev = s;
  }
  // column equilibration: largest entry of each column 1
  for (let j = 0; j < n; j++) {
    let hi = 0;
    for (let t = colPtr[j]; t < colPtr[j + 1]; t++) { const a = Math.abs(vals[t]) * row[rowIdx[t]] * col[j]; if (a > hi) hi = a; }
    if (hi > 0) col[j] /= hi;
  }
  for (let i = 0; i < m; i++) row[i] = pow2(row[i]);
  for (let j = 0; j < n; j++) col[j] = pow2(col[j]);
  return { row, col };
}
