// Certificate checker for linear and mixed-integer programs. It imports nothing of the solver
// (STYLE, DESIGN §13): it reads the problem as given (its own structural type below, which the
// reader's model satisfies) and the numbers the solver reports, and recomputes every residual.
//
// - optimal LP ('lp-duality'): primal feasibility of x (rows A·x and columns against their
//   bounds), dual feasibility of the row duals y with the reduced costs z = c − Aᵀy recomputed
//   here (a positive multiplier needs a finite lower bound, a negative one a finite upper bound),
//   and the duality gap between cᵀx and the dual objective
//     Σ_i (y_i > 0 ? y_i·rowLo_i : y_i·rowUp_i) + Σ_j (z_j > 0 ? z_j·colLo_j : z_j·colUp_j)
//   (weak duality: Bertsimas & Tsitsiklis, "Introduction to Linear Optimization", 1997, §4.3;
//   the bounded-variable form as in Koberstein 2005, §2.2). Residuals are scaled: primal by
//   1 + |bound|, dual by 1 + ‖c‖∞, gap by 1 + |cᵀx| + |dual objective|.
// - infeasible ('farkas'): a column or row whose lower bound exceeds its upper bound (an integer
//   column's bounds rounded inward first), or else for any feasible x, g(x) = (Aᵀy)ᵀx − yᵀ(A·x) = 0; the certificate y
//   proves infeasibility when the range of (Aᵀy)ᵀx over the column box and of yᵀs over the row
//   box cannot meet (Farkas' lemma in the bounded form; Andersen & Andersen, "Certificates of
//   infeasibility", and the MOSEK modelling cookbook §8.3).
// - unbounded ('primal-ray'): a feasible point x and a ray r with cᵀr < 0, A·r in the recession
//   cone of the row bounds and r in that of the column bounds.
// - MILP ('milp-incumbent'): x feasible, integral where required, and the gap recomputed from the
//   incumbent's objective and the reported bound.
// All for minimisation; a maximisation is checked as the minimisation of −c with the reported
// duals negated.

export interface CheckProblem {
  nRows: number; nCols: number;
  colPtr: ArrayLike<number>; rowIdx: ArrayLike<number>; vals: ArrayLike<number>;
  c: ArrayLike<number>;
  rowLo: ArrayLike<number>; rowUp: ArrayLike<number>;
  colLo: ArrayLike<number>; colUp: ArrayLike<number>;
  integer?: ArrayLike<number>;
}

export interface PrimalCheck { primalResidual: number; objective: number }

/** Largest scaled bound violation of x and of A·x. */
export function primalResidual(p: CheckProblem, x: ArrayLike<number>): PrimalCheck {
  const act = new Float64Array(p.nRows);
  let worst = 0, objective = 0;
  for (let j = 0; j < p.nCols; j++) {
    const xj = x[j];
    if (!Number.isFinite(xj)) return { primalResidual: Infinity, objective: NaN };
    objective += p.c[j] * xj;
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) act[p.rowIdx[t]] += p.vals[t] * xj;
    const v = Math.max(p.colLo[j] - xj, xj - p.colUp[j], 0);
    if (v > 0) worst = Math.max(worst, v / (1 + Math.abs(v === p.colLo[j] - xj ? p.colLo[j] : p.colUp[j])));
  }
  for (let i = 0; i < p.nRows; i++) {
    const a = act[i];
    const below = p.rowLo[i] - a, above = a - p.rowUp[i];
    if (below > 0) worst = Math.max(worst, below / (1 + Math.abs(p.rowLo[i])));
    if (above > 0) worst = Math.max(worst, above / (1 + Math.abs(p.rowUp[i])));
  }
  return { primalResidual: worst, objective };
}

export interface DualityCheck extends PrimalCheck { dualResidual: number; gap: number; dualObjective: number }

/** The optimality certificate of an LP: x primal, y row duals (of the problem in its own sense). */
export function checkOptimal(p: CheckProblem, sense: 'min' | 'max', x: ArrayLike<number>, yReported: ArrayLike<number>): DualityCheck {
  const sgn = sense === 'max' ? -1 : 1;
  const pr = primalResidual(p, x);
  let cmax = 0;
  for (let j = 0; j < p.nCols; j++) cmax = Math.max(cmax, Math.abs(p.c[j]));
  const dscale = 1 + cmax;
  let dualRes = 0, dualObj = 0;
  for (let i = 0; i < p.nRows; i++) {
    const yi = sgn * yReported[i];
    if (!Number.isFinite(yi)) return { ...pr, dualResidual: Infinity, gap: Infinity, dualObjective: NaN };
    if (yi > 0) { if (p.rowLo[i] === -Infinity) dualRes = Math.max(dualRes, yi / dscale); else dualObj += yi * p.rowLo[i]; }
    else if (yi < 0) { if (p.rowUp[i] === Infinity) dualRes = Math.max(dualRes, -yi / dscale); else dualObj += yi * p.rowUp[i]; }
  }
  for (let j = 0; j < p.nCols; j++) {
    let z = sgn * p.c[j];
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) z -= p.vals[t] * sgn * yReported[p.rowIdx[t]];
    if (z > 0) { if (p.colLo[j] === -Infinity) dualRes = Math.max(dualRes, z / dscale); else dualObj += z * p.colLo[j]; }
    else if (z < 0) { if (p.colUp[j] === Infinity) dualRes = Math.max(dualRes, -z / dscale); else dualObj += z * p.colUp[j]; }
  }
  const primalObj = sgn * pr.objective;
  const gap = Math.abs(primalObj - dualObj) / (1 + Math.abs(primalObj) + Math.abs(dualObj));
  return { ...pr, dualResidual: dualRes, gap, dualObjective: sgn * dualObj };
}

export interface FarkasCheck { proven: boolean; margin: number; reason: string }

/** Checks a Farkas certificate y (row multipliers), or a bound conflict when y is null. */
export function checkFarkas(p0: CheckProblem, y: ArrayLike<number> | null): FarkasCheck {
  // an integer column's bounds may be rounded inward (integrality is part of the problem)
  let p = p0;
  if (p0.integer && Array.prototype.some.call(p0.integer, (v: number) => v === 1)) {
    const colLo = Float64Array.from(p0.colLo), colUp = Float64Array.from(p0.colUp);
    for (let j = 0; j < p0.nCols; j++) if (p0.integer[j]) { colLo[j] = Math.ceil(colLo[j] - 1e-9); colUp[j] = Math.floor(colUp[j] + 1e-9); }
    p = { ...p0, colLo, colUp };
  }
  for (let j = 0; j < p.nCols; j++) if (p.colLo[j] > p.colUp[j]) return { proven: true, margin: p.colLo[j] - p.colUp[j], reason: `column ${j + 1} has lower bound > upper bound${p0.colLo[j] > p0.colUp[j] ? '' : ' once rounded to integers'}` };
  for (let i = 0; i < p.nRows; i++) if (p.rowLo[i] > p.rowUp[i]) return { proven: true, margin: p.rowLo[i] - p.rowUp[i], reason: `row ${i + 1} has lower bound > upper bound` };
  if (!y) return { proven: false, margin: 0, reason: 'no certificate' };
  let ymax = 0;
  for (let i = 0; i < p.nRows; i++) ymax = Math.max(ymax, Math.abs(y[i]));
  if (!(ymax > 0)) return { proven: false, margin: 0, reason: 'the certificate is zero' };
  // w = Aᵀy; ranges of wᵀx over the column box and of yᵀs over the row box
  let wLo = 0, wHi = 0, sLo = 0, sHi = 0, amax = 0;
  const w = new Float64Array(p.nCols);
  for (let j = 0; j < p.nCols; j++) {
    let s = 0;
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) { s += p.vals[t] * y[p.rowIdx[t]]; amax = Math.max(amax, Math.abs(p.vals[t])); }
    w[j] = s;
  }
  // entries of w below the rounding level of the product are zero (the multiplier cancels)
  const zeroTol = 1e-11 * ymax * Math.max(1, amax);
  for (let j = 0; j < p.nCols; j++) {
    const wj = Math.abs(w[j]) <= zeroTol ? 0 : w[j];
    if (wj > 0) { wLo += wj * p.colLo[j]; wHi += wj * p.colUp[j]; }
    else if (wj < 0) { wLo += wj * p.colUp[j]; wHi += wj * p.colLo[j]; }
  }
  for (let i = 0; i < p.nRows; i++) {
    const yi = y[i];
    if (yi > 0) { sLo += yi * p.rowLo[i]; sHi += yi * p.rowUp[i]; }
    else if (yi < 0) { sLo += yi * p.rowUp[i]; sHi += yi * p.rowLo[i]; }
  }
  // the two ranges [wLo, wHi] and [sLo, sHi] must be disjoint for no x to exist
  const scale = 1 + ymax;
  const margin = Math.max(wLo - sHi, sLo - wHi);
  if (Number.isNaN(margin)) return { proven: false, margin: NaN, reason: 'the certificate meets an infinite bound on both sides' };
  const rel = margin / scale;
  return rel > 1e-9
    ? { proven: true, margin: rel, reason: `yᵀA·x ranges over [${wLo}, ${wHi}] but yᵀ(row activity) over [${sLo}, ${sHi}]: no x satisfies both` }
    : { proven: false, margin: rel, reason: `the ranges [${wLo}, ${wHi}] and [${sLo}, ${sHi}] meet: the certificate proves nothing` };
}

export interface RayCheck { proven: boolean; primalResidual: number; rayResidual: number; slope: number }

/** Checks a feasible point x and a ray r proving unboundedness (in the problem's own sense). */
export function checkRay(p: CheckProblem, sense: 'min' | 'max', x: ArrayLike<number>, r: ArrayLike<number>): RayCheck {
  const sgn = sense === 'max' ? -1 : 1;
  const pr = primalResidual(p, x);
  let rmax = 0, slope = 0, viol = 0;
  for (let j = 0; j < p.nCols; j++) rmax = Math.max(rmax, Math.abs(r[j]));
  if (!(rmax > 0)) return { proven: false, primalResidual: pr.primalResidual, rayResidual: Infinity, slope: 0 };
  const ar = new Float64Array(p.nRows);
  for (let j = 0; j < p.nCols; j++) {
    const rj = r[j] / rmax;
    slope += sgn * p.c[j] * rj;
    if (p.colLo[j] > -Infinity) viol = Math.max(viol, -rj);
    if (p.colUp[j] < Infinity) viol = Math.max(viol, rj);
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) ar[p.rowIdx[t]] += p.vals[t] * rj;
  }
  for (let i = 0; i < p.nRows; i++) {
    if (p.rowLo[i] > -Infinity) viol = Math.max(viol, -ar[i]);
    if (p.rowUp[i] < Infinity) viol = Math.max(viol, ar[i]);
  }
  let cmax = 0;
  for (let j = 0; j < p.nCols; j++) cmax = Math.max(cmax, Math.abs(p.c[j]));
  return { proven: slope < -1e-9 * (1 + cmax) && viol <= 1e-9 && pr.primalResidual <= 1e-7, primalResidual: pr.primalResidual, rayResidual: viol, slope };
}

export interface MilpCheck { primalResidual: number; integrality: number; objective: number; gap: number }

/** Checks a MILP incumbent and recomputes the gap |objective − bound| / max(|objective|, 1). */
export function checkIncumbent(p: CheckProblem, x: ArrayLike<number>, bound: number): MilpCheck {
  const pr = primalResidual(p, x);
  let integ = 0;
  if (p.integer) for (let j = 0; j < p.nCols; j++) if (p.integer[j]) integ = Math.max(integ, Math.abs(x[j] - Math.round(x[j])));
  const gap = Math.abs(pr.objective - bound) / Math.max(Math.abs(pr.objective), 1);
  return { primalResidual: pr.primalResidual, integrality: integ, objective: pr.objective, gap };
}
