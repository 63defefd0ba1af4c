// Presolve: the simple reductions of Andersen & Andersen, "Presolving in linear programming",
// Math. Prog. 71, 1995, §3 (empty rows, fixed columns, singleton rows, empty columns), repeated
// until none applies. Postsolve maps the optimal basis of the reduced problem back to a basis of
// the original one (Andersen & Andersen §5; the same idea as HiGHS' basis postsolve): kept
// columns and rows keep their status; a removed row's logical is basic, a fixed column is
// nonbasic at its value; a column sitting at a bound that came from a singleton row becomes
// basic and that row's logical takes the matching bound instead. The driver (solve.ts) then runs
// the dual simplex on the original problem from that basis, so that the reported primal and dual
// values, and any certificate, are those of the problem as given. Infeasibility or
// unboundedness found in the reduced problem is re-established on the original problem (no
// certificate is mapped back through the reductions).
import type { LpModel } from './model.ts';
import { BASIC, AT_LOWER, AT_UPPER, AT_ZERO, type SimplexBasis } from './simplex.ts';

export interface Presolved {
  reduced: LpModel;
  /** original column of each reduced column, original row of each reduced row */
  colMap: Int32Array; rowMap: Int32Array;
  /** a basis of the original problem from an optimal basis of the reduced one */
  postsolveBasis(b: SimplexBasis): SimplexBasis;
  stats: { emptyRows: number; singletonRows: number; fixedColumns: number; emptyColumns: number; singletonColumns?: number };
  /** set when a reduction proves the problem infeasible (an empty row excluding 0, crossed bounds) */
  infeasible: boolean;
}

const TOL = 1e-9;

export interface PresolveOptions {
  /** also substitute out free and implied-free column singletons of equality rows (the IPM path) */
  singletonColumns?: boolean;
}

export function presolve(model: LpModel, opts: PresolveOptions = {}): Presolved {
  const m = model.nRows, n = model.nCols;
  const colLo = Float64Array.from(model.colLo), colUp = Float64Array.from(model.colUp);
  const rowLo = Float64Array.from(model.rowLo), rowUp = Float64Array.from(model.rowUp);
  const rowAlive = new Uint8Array(m).fill(1), colAlive = new Uint8Array(n).fill(1);
  const rowCount = new Int32Array(m), colCount = new Int32Array(n);
  // row-wise index of the entries
  const rowPtr = new Int32Array(m + 1);
  for (let p = 0; p < model.colPtr[n]; p++) rowPtr[model.rowIdx[p] + 1]++;
  for (let i = 0; i < m; i++) rowPtr[i + 1] += rowPtr[i];
  const rowCol = new Int32Array(model.colPtr[n]), rowVal = new Float64Array(model.colPtr[n]);
  const fill = rowPtr.slice(0, m);
  for (let j = 0; j < n; j++) for (let p = model.colPtr[j]; p < model.colPtr[j + 1]; p++) {
    const q = fill[model.rowIdx[p]]++; rowCol[q] = j; rowVal[q] = model.vals[p];
    rowCount[model.rowIdx[p]]++; colCount[j]++;
  }
  // which singleton row set a column bound (for postsolve): -1 none
  const loFrom = new Int32Array(n).fill(-1), upFrom = new Int32Array(n).fill(-1);
  // fixed values of removed columns
  const removedValue = new Float64Array(n);
  let objConst = model.objConst;
  const stats: Presolved['stats'] = { emptyRows: 0, singletonRows: 0, fixedColumns: 0, emptyColumns: 0 };
  if (opts.singletonColumns) stats.singletonColumns = 0;
  // substituted column singletons: column sub[k][0] was the free variable of equality row sub[k][1]
  const subCol: number[] = [], subRow: number[] = [];
  let infeasible = false;
  // crossed bounds as given: the driver's direct solve certifies them (solve.ts, boundConflict)
  for (let j = 0; j < n; j++) if (colLo[j] > colUp[j]) infeasible = true;
  for (let i = 0; i < m; i++) if (rowLo[i] > rowUp[i]) infeasible = true;
  // the costs change when a column singleton is substituted out (a copy: the model is not touched)
  const c = Float64Array.from(model.c);
  let changed = true;
  while (changed && !infeasible) {
    changed = false;
    for (let i = 0; i < m; i++) {
      if (!rowAlive[i]) continue;
      if (rowCount[i] === 0) {
        if (rowLo[i] > TOL * (1 + Math.abs(rowLo[i])) || rowUp[i] < -TOL * (1 + Math.abs(rowUp[i]))) { infeasible = true; break; }
        rowAlive[i] = 0; stats.emptyRows++; changed = true; continue;
      }
      if (rowCount[i] === 1) {
        let j = -1, a = 0;
        for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) if (colAlive[rowCol[q]]) { j = rowCol[q]; a = rowVal[q]; }
        const l = a > 0 ? rowLo[i] / a : rowUp[i] / a, u = a > 0 ? rowUp[i] / a : rowLo[i] / a;
        if (l > colLo[j]) { colLo[j] = l; loFrom[j] = i; }
        if (u < colUp[j]) { colUp[j] = u; upFrom[j] = i; }
        if (colLo[j] > colUp[j] + TOL * (1 + Math.abs(colUp[j]))) { infeasible = true; break; }
        if (colLo[j] > colUp[j]) colUp[j] = colLo[j];
        rowAlive[i] = 0; colCount[j]--; stats.singletonRows++; changed = true;
      }
    }
    for (let j = 0; j < n && !infeasible; j++) {
      if (!colAlive[j]) continue;
      const fixed = colLo[j] === colUp[j];
      const empty = colCount[j] === 0;
      if (!fixed && !empty) continue;
      let v: number;
      if (fixed) v = colLo[j];
      else if (c[j] > 0) { if (colLo[j] === -Infinity) continue; v = colLo[j]; }
      else if (c[j] < 0) { if (colUp[j] === Infinity) continue; v = colUp[j]; }
      else v = colLo[j] > -Infinity ? colLo[j] : colUp[j] < Infinity ? colUp[j] : 0;
      // a fixed column's bounds from singleton rows: keep it (its row's dual needs the basis map)
      if (loFrom[j] >= 0 || upFrom[j] >= 0) continue;
      colAlive[j] = 0; removedValue[j] = v; objConst += c[j] * v;
      for (let p = model.colPtr[j]; p < model.colPtr[j + 1]; p++) {
        const i = model.rowIdx[p];
        if (!rowAlive[i]) continue;
        rowLo[i] -= model.vals[p] * v; rowUp[i] -= model.vals[p] * v; rowCount[i]--;
      }
      if (fixed) stats.fixedColumns++; else stats.emptyColumns++;
      changed = true;
    }
    if (opts.singletonColumns && !infeasible) changed = singletonColumnPass() || changed;
  }

  /**
   * Free and implied-free column singletons (Andersen & Andersen 1995, §3.4; Gondzio,
   * "Presolve analysis of linear programs prior to applying an interior point method", INFORMS
   * J. Computing 9, 1997, §3): a column j whose only live entry a_ij is in an equality row i
   * (rowLo = rowUp = b), and whose bounds cannot bind (none, or implied by the row and the other
   * columns' bounds), is the row's definition: x_j = (b − Σ_{k≠j} a_ik x_k)/a_ij. Row and column
   * leave the problem; the objective gains c_j·b/a_ij and the other columns of the row pay
   * c_k − c_j·a_ik/a_ij. Postsolve: x_j is basic, the row's logical nonbasic (the row dual is
   * c_j/a_ij), so the basis of the original problem is optimal where the reduced one was.
   */
  function singletonColumnPass(): boolean {
    let any = false;
    for (let j = 0; j < n; j++) {
      if (!colAlive[j] || colCount[j] !== 1 || model.integer[j] || loFrom[j] >= 0 || upFrom[j] >= 0) continue;
      let i = -1, a = 0;
      for (let p = model.colPtr[j]; p < model.colPtr[j + 1]; p++) if (rowAlive[model.rowIdx[p]]) { i = model.rowIdx[p]; a = model.vals[p]; }
      if (i < 0 || rowLo[i] !== rowUp[i] || !Number.isFinite(rowLo[i])) continue;
      // numerical safety: the pivot must not be small against the row
      let amax = 0, lo = 0, hi = 0;
      for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) {
        const k = rowCol[q];
        if (!colAlive[k]) continue;
        amax = Math.max(amax, Math.abs(rowVal[q]));
        if (k === j) continue;
        const v = rowVal[q];
        lo += v > 0 ? v * colLo[k] : v * colUp[k];
        hi += v > 0 ? v * colUp[k] : v * colLo[k];
      }
      if (Math.abs(a) < 0.01 * amax) continue;
      const free = colLo[j] === -Infinity && colUp[j] === Infinity;
      if (!free) {
        // implied range of x_j from the row: (b − hi)/a .. (b − lo)/a (swapped when a < 0)
        const b = rowLo[i];
        const l = a > 0 ? (b - hi) / a : (b - lo) / a, u = a > 0 ? (b - lo) / a : (b - hi) / a;
        if (!(Number.isFinite(l) && Number.isFinite(u) && l >= colLo[j] && u <= colUp[j])) continue;
      }
      const cj = c[j] / a;
      objConst += cj * rowLo[i];
      for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) {
        const k = rowCol[q];
        if (!colAlive[k] || k === j) continue;
        c[k] -= cj * rowVal[q];
        colCount[k]--;
      }
      colAlive[j] = 0; rowAlive[i] = 0; colCount[j] = 0; rowCount[i] = 0;
      subCol.push(j); subRow.push(i);
      stats.singletonColumns!++;
      any = true;
    }
    return any;
  }
  // the reduced model
  const colMapArr: number[] = [], rowMapArr: number[] = [];
  const newRow = new Int32Array(m).fill(-1);
  for (let i = 0; i < m; i++) if (rowAlive[i]) { newRow[i] = rowMapArr.length; rowMapArr.push(i); }
  for (let j = 0; j < n; j++) if (colAlive[j]) colMapArr.push(j);
  const colPtr = new Int32Array(colMapArr.length + 1);
  const ri: number[] = [], rv: number[] = [];
  colMapArr.forEach((j, k) => {
    for (let p = model.colPtr[j]; p < model.colPtr[j + 1]; p++) { const i = newRow[model.rowIdx[p]]; if (i >= 0) { ri.push(i); rv.push(model.vals[p]); } }
    colPtr[k + 1] = ri.length;
  });
  const colMap = Int32Array.from(colMapArr), rowMap = Int32Array.from(rowMapArr);
  const reduced: LpModel = {
    name: model.name, sense: model.sense, nRows: rowMap.length, nCols: colMap.length,
    rowNames: rowMapArr.map((i) => model.rowNames[i]), colNames: colMapArr.map((j) => model.colNames[j]),
    colPtr, rowIdx: Int32Array.from(ri), vals: Float64Array.from(rv),
    c: Float64Array.from(colMapArr, (j) => c[j]), objConst,
    rowLo: Float64Array.from(rowMapArr, (i) => rowLo[i]), rowUp: Float64Array.from(rowMapArr, (i) => rowUp[i]),
    colLo: Float64Array.from(colMapArr, (j) => colLo[j]), colUp: Float64Array.from(colMapArr, (j) => colUp[j]),
    integer: Uint8Array.from(colMapArr, (j) => model.integer[j]),
  };
  const postsolveBasis = (b: SimplexBasis): SimplexBasis => {
    const nr = colMap.length;
    const status = new Int8Array(n + m);
    for (let i = 0; i < m; i++) status[n + i] = BASIC;
    for (let j = 0; j < n; j++) if (!colAlive[j]) status[j] = model.colLo[j] === model.colUp[j] ? AT_LOWER : removedValue[j] === model.colLo[j] ? AT_LOWER : removedValue[j] === model.colUp[j] ? AT_UPPER : AT_ZERO;
    for (let k = 0; k < nr; k++) {
      const j = colMap[k];
      let s = b.status[k];
      if (s === AT_LOWER && loFrom[j] >= 0 && colLo[j] > model.colLo[j]) {
        const i = loFrom[j], a = entry(model, i, j);
        status[j] = BASIC; status[n + i] = a > 0 ? AT_LOWER : AT_UPPER; continue;
      }
      if (s === AT_UPPER && upFrom[j] >= 0 && colUp[j] < model.colUp[j]) {
        const i = upFrom[j], a = entry(model, i, j);
        status[j] = BASIC; status[n + i] = a > 0 ? AT_UPPER : AT_LOWER; continue;
      }
      // a bound tightened by a row but the original has none there: keep the nearest legal status
      if (s === AT_LOWER && model.colLo[j] === -Infinity) s = model.colUp[j] < Infinity ? AT_UPPER : AT_ZERO;
      if (s === AT_UPPER && model.colUp[j] === Infinity) s = model.colLo[j] > -Infinity ? AT_LOWER : AT_ZERO;
      status[j] = s;
    }
    for (let k = 0; k < rowMap.length; k++) status[n + rowMap[k]] = b.status[nr + k];
    for (let k = 0; k < subCol.length; k++) { status[subCol[k]] = BASIC; status[n + subRow[k]] = AT_LOWER; }
    const head: number[] = [];
    for (let v = 0; v < n + m; v++) if (status[v] === BASIC) head.push(v);
    // the count is m by construction; guard against an unforeseen case with the slack basis
    if (head.length !== m) {
      for (let j = 0; j < n; j++) if (status[j] === BASIC) status[j] = model.colLo[j] > -Infinity ? AT_LOWER : model.colUp[j] < Infinity ? AT_UPPER : AT_ZERO;
      for (let i = 0; i < m; i++) status[n + i] = BASIC;
      return { head: Int32Array.from({ length: m }, (_, i) => n + i), status };
    }
    return { head: Int32Array.from(head), status };
  };
  return { reduced, colMap, rowMap, postsolveBasis, stats, infeasible };
}

function entry(model: LpModel, i: number, j: number): number {
  for (let p = model.colPtr[j]; p < model.colPtr[j + 1]; p++) if (model.rowIdx[p] === i) return model.vals[p];
  return 0;
}
