// The LP driver: scaling (scaling.ts), the dual simplex (simplex.ts) on the scaled problem, a
// clean-up pass of the same method on the unscaled problem from the optimal basis (so that the
// reported duals are those of the problem as given, at its own tolerances), and the
// classification of a dual-infeasible outcome (Koberstein 2005, §4.4: dual infeasibility at
// the end of phase 1 means the primal is infeasible or unbounded): a zero-cost solve decides
// feasibility (a Farkas row if not), then the ray problem
//   min cᵀr  s.t.  A·r ∈ rec(row bounds),  r ∈ rec(column bounds) ∩ [−1, 1]ⁿ
// gives a primal ray with cᵀr < 0 (Bertsimas & Tsitsiklis, "Introduction to Linear
// Optimization", 1997, §4.8: an LP with a feasible point is unbounded iff such a ray exists).
// The model is in minimisation form here (lp.ts negates the costs of a maximisation).
import { dualSimplex, slackBasis, type SimplexBasis, type SimplexProblem, type SimplexResult } from './simplex.ts';
import { computeScaling, type Scaling } from './scaling.ts';
import { rowWise, type LpModel } from './model.ts';
import { presolve, type Presolved } from './presolve.ts';
import { interiorPoint, MAX_FILL, type IpmResult } from './ipm.ts';
import { crossoverBasis } from './crossover.ts';

export interface LpSolveOptions { deadline?: number; seed?: number; scale?: boolean }

export interface LpSolution {
  status: 'optimal' | 'infeasible' | 'unbounded' | 'time_limit';
  /** column values */
  x: Float64Array;
  /** row activities A·x */
  rowActivity: Float64Array;
  y: Float64Array;
  /** reduced costs of the columns */
  d: Float64Array;
  objective: number;
  basis: SimplexBasis | null;
  farkas?: Float64Array;
  ray?: Float64Array;
  iterations: number;
}

/** The scaled computational form of a model, kept for repeated solves with other bounds (B&B). */
export interface PreparedLp {
  model: LpModel;
  scaling: Scaling;
  scaled: SimplexProblem;
  plain: SimplexProblem;
}

function simplexProblem(model: LpModel, cost: Float64Array, sc: Scaling | null, colLo: Float64Array, colUp: Float64Array, rowLo: Float64Array, rowUp: Float64Array): SimplexProblem {
  const m = model.nRows, n = model.nCols;
  const vals = Float64Array.from(model.vals);
  const lo = new Float64Array(n + m), up = new Float64Array(n + m), c = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const s = sc ? sc.col[j] : 1;
    for (let t = model.colPtr[j]; t < model.colPtr[j + 1]; t++) vals[t] *= s * (sc ? sc.row[model.rowIdx[t]] : 1);
    lo[j] = colLo[j] / s; up[j] = colUp[j] / s; c[j] = cost[j] * s;
  }
  for (let i = 0; i < m; i++) { const r = sc ? sc.row[i] : 1; lo[n + i] = rowLo[i] * r; up[n + i] = rowUp[i] * r; }
  const csr = rowWise({ nRows: m, nCols: n, colPtr: model.colPtr, rowIdx: model.rowIdx, vals });
  return { m, n, colPtr: model.colPtr, rowIdx: model.rowIdx, vals, rowPtr: csr.rowPtr, colIdx: csr.colIdx, rvals: csr.vals, cost: c, lo, up };
}

export function prepareLp(model: LpModel, opts: { scale?: boolean } = {}): PreparedLp {
  const scaling = opts.scale === false
    ? { row: new Float64Array(model.nRows).fill(1), col: new Float64Array(model.nCols).fill(1) }
    : computeScaling(model.nRows, model.nCols, model.colPtr, model.rowIdx, model.vals);
  return {
    model, scaling,
    scaled: simplexProblem(model, model.c, scaling, model.colLo, model.colUp, model.rowLo, model.rowUp),
    plain: simplexProblem(model, model.c, null, model.colLo, model.colUp, model.rowLo, model.rowUp),
  };
}

/** Solves with the column bounds given (the model's own by default), from a basis if given. */
export function solvePrepared(prep: PreparedLp, opts: LpSolveOptions & { colLo?: Float64Array; colUp?: Float64Array; basis?: SimplexBasis | null; cleanup?: boolean } = {}): LpSolution {
  const { model, scaling } = prep;
  const m = model.nRows, n = model.nCols;
  const scaled: SimplexProblem = { ...prep.scaled, lo: Float64Array.from(prep.scaled.lo), up: Float64Array.from(prep.scaled.up) };
  const plain: SimplexProblem = { ...prep.plain, lo: Float64Array.from(prep.plain.lo), up: Float64Array.from(prep.plain.up) };
  if (opts.colLo || opts.colUp) {
    for (let j = 0; j < n; j++) {
      const lo = opts.colLo ? opts.colLo[j] : model.colLo[j], up = opts.colUp ? opts.colUp[j] : model.colUp[j];
      scaled.lo[j] = lo / scaling.col[j]; scaled.up[j] = up / scaling.col[j];
      plain.lo[j] = lo; plain.up[j] = up;
    }
  }
  // trivially infeasible bounds: a column with lo > up
  for (let j = 0; j < n + m; j++) {
    if (plain.lo[j] > plain.up[j]) return boundConflict(prep, plain, j);
  }
  const r1 = dualSimplex(scaled, opts.basis ?? null, { deadline: opts.deadline, seed: opts.seed });
  let iterations = r1.iterations;
  if (r1.status === 'time_limit' || r1.status === 'iteration_limit') return fromResult(prep, r1, scaling, 'time_limit', iterations);
  if (r1.status === 'infeasible') return withFarkas(prep, r1, scaling, iterations);
  if (r1.status === 'dual-infeasible') return classifyDualInfeasible(prep, scaled, plain, scaling, opts, iterations);
  if (opts.cleanup === false) return fromResult(prep, r1, scaling, 'optimal', iterations);
  // clean-up on the unscaled problem from the optimal basis
  const r2 = dualSimplex(plain, r1.basis, { deadline: opts.deadline, perturb: false, primalTol: 1e-9, dualTol: 1e-9 });
  iterations += r2.iterations;
  if (r2.status === 'optimal') return fromResult(prep, r2, null, 'optimal', iterations);
  if (r2.status === 'infeasible') return withFarkas(prep, r2, null, iterations);
  return fromResult(prep, r1, scaling, 'optimal', iterations);
}

function boundConflict(prep: PreparedLp, plain: SimplexProblem, j: number): LpSolution {
  const { m, n } = plain;
  const farkas = new Float64Array(m);
  // a column j with lo > up: the certificate is a row combination only for a row; for a column
  // the bound conflict itself is the proof (the checker tests it first)
  if (j >= n) farkas[j - n] = 1;
  return { status: 'infeasible', x: new Float64Array(n), rowActivity: new Float64Array(m), y: new Float64Array(m), d: new Float64Array(n), objective: NaN, basis: null, farkas, iterations: 0 };
}

function unscale(prep: PreparedLp, r: SimplexResult, sc: Scaling | null) {
  const { model } = prep;
  const m = model.nRows, n = model.nCols;
  const x = new Float64Array(n), d = new Float64Array(n), y = new Float64Array(m);
  for (let j = 0; j < n; j++) { const s = sc ? sc.col[j] : 1; x[j] = r.x[j] * s; d[j] = r.d[j] / s; }
  for (let i = 0; i < m; i++) y[i] = r.y[i] * (sc ? sc.row[i] : 1);
  const rowActivity = new Float64Array(m);
  for (let j = 0; j < n; j++) for (let t = model.colPtr[j]; t < model.colPtr[j + 1]; t++) rowActivity[model.rowIdx[t]] += model.vals[t] * x[j];
  let objective = 0;
  for (let j = 0; j < n; j++) objective += model.c[j] * x[j];
  return { x, d, y, rowActivity, objective };
}

function fromResult(prep: PreparedLp, r: SimplexResult, sc: Scaling | null, status: LpSolution['status'], iterations: number): LpSolution {
  const u = unscale(prep, r, sc);
  return { status, ...u, basis: r.basis, iterations };
}

function withFarkas(prep: PreparedLp, r: SimplexResult, sc: Scaling | null, iterations: number): LpSolution {
  const u = unscale(prep, r, sc);
  const m = prep.model.nRows;
  const farkas = new Float64Array(m);
  let fmax = 0;
  for (let i = 0; i < m; i++) { farkas[i] = r.farkas![i] * (sc ? sc.row[i] : 1); fmax = Math.max(fmax, Math.abs(farkas[i])); }
  // entries at the rounding level of the BTRAN are zero in exact arithmetic: drop them, so that
  // a multiplier on a row without the matching bound is not reported as part of the proof
  for (let i = 0; i < m; i++) if (Math.abs(farkas[i]) <= 1e-11 * fmax) farkas[i] = 0;
  return { status: 'infeasible', ...u, objective: NaN, basis: r.basis, farkas, iterations };
}

function classifyDualInfeasible(prep: PreparedLp, scaled: SimplexProblem, plain: SimplexProblem, sc: Scaling, opts: LpSolveOptions, iterations: number): LpSolution {
  const n = scaled.n, m = scaled.m;
  // 1. feasibility: zero costs
  const feas = dualSimplex({ ...scaled, cost: new Float64Array(n) }, null, { deadline: opts.deadline, seed: opts.seed });
  iterations += feas.iterations;
  if (feas.status === 'infeasible') return withFarkas(prep, feas, sc, iterations);
  if (feas.status !== 'optimal') return fromResult(prep, feas, sc, 'time_limit', iterations);
  // 2. the ray problem on the unscaled recession cone (boxed to [−1, 1])
  const lo = new Float64Array(n + m), up = new Float64Array(n + m);
  for (let j = 0; j < n; j++) {
    lo[j] = plain.lo[j] > -Infinity ? 0 : -1;
    up[j] = plain.up[j] < Infinity ? 0 : 1;
  }
  for (let i = 0; i < m; i++) {
    lo[n + i] = plain.lo[n + i] > -Infinity ? 0 : -Infinity;
    up[n + i] = plain.up[n + i] < Infinity ? 0 : Infinity;
  }
  const rayRes = dualSimplex({ ...plain, lo, up }, null, { deadline: opts.deadline, seed: opts.seed });
  iterations += rayRes.iterations;
  const point = fromResult(prep, feas, sc, 'unbounded', iterations);
  if (rayRes.status === 'optimal' && rayRes.objective < -1e-9) {
    const ray = Float64Array.from(rayRes.x.subarray(0, n));
    return { ...point, status: 'unbounded', ray, iterations, objective: -Infinity };
  }
  // the phase-1 verdict was not confirmed: solve again without the dual phase 1 shortcut
  return { ...point, status: 'time_limit', iterations };
}

export function solveLp(model: LpModel, opts: LpSolveOptions = {}): LpSolution {
  return solvePrepared(prepareLp(model, opts), opts);
}

export { slackBasis };

/**
 * An LP through presolve (presolve.ts): the reduced problem is scaled and solved, its optimal
 * basis mapped to the original problem, and the dual simplex finishes on the original (unscaled)
 * problem from there. Anything but an optimal reduced problem (or nothing to reduce) falls back
 * to solving the original directly, which also yields its certificate.
 *
 * With `ipm`, presolve also substitutes column singletons, and the reduced problem is solved by
 * the interior-point method (ipm.ts) first; crossover.ts turns its solution into a starting
 * basis for the dual simplex (Bixby & Saltzman 1994). If the IPM does not converge (a stall, the
 * usual sign of an infeasible or unbounded problem, or a normal-equations factor too dense), the
 * dual simplex starts from the slack basis instead and decides, with its certificate.
 */
export function solveWithPresolve(model: LpModel, opts: LpSolveOptions & { ipm?: boolean; ipmMaxFillRatio?: number } = {}): LpSolution & { presolve: Presolved['stats'] | null; ipm?: IpmSummary } {
  const pre = presolve(model, opts.ipm ? { singletonColumns: true } : {});
  const s = pre.stats;
  const reducedSomething = s.emptyRows + s.singletonRows + s.fixedColumns + s.emptyColumns + (s.singletonColumns ?? 0) > 0;
  let ipm: IpmSummary | undefined;
  /** the IPM on a prepared problem: a starting basis for the simplex, or null */
  const ipmStart = (prep: PreparedLp): SimplexBasis | null => {
    // with ipmMaxFillRatio (method 'auto'), a Cholesky factor of more than that many entries per
    // nonzero of A is not attempted: the dual simplex solves the problem (docs: choosing the method)
    const maxFill = opts.ipmMaxFillRatio !== undefined ? Math.min(MAX_FILL, opts.ipmMaxFillRatio * Math.max(prep.model.colPtr[prep.model.nCols], 1)) : MAX_FILL;
    const r = interiorPoint(prep.scaled, { deadline: opts.deadline, maxFill });
    ipm = { status: r.status, iterations: r.iterations, primalInfeasibility: r.primalInfeasibility, dualInfeasibility: r.dualInfeasibility, gap: r.gap, crossoverIterations: 0 };
    const basis = r.status === 'optimal' ? crossoverBasis(prep.scaled, r) : null;
    return basis;
  };
  if (pre.infeasible || !reducedSomething || pre.reduced.nCols === 0) {
    if (!opts.ipm) return { ...solveLp(model, opts), presolve: reducedSomething ? s : null };
    const prep = prepareLp(model, opts);
    const start = pre.infeasible || pre.reduced.nCols === 0 ? null : ipmStart(prep);
    if (ipm?.status === 'time_limit') return { ...timeLimitSolution(model), presolve: reducedSomething ? s : null, ipm };
    const sol = solvePrepared(prep, { ...opts, basis: start });
    if (ipm && start) ipm.crossoverIterations = sol.iterations;
    return { ...sol, presolve: reducedSomething ? s : null, ipm };
  }
  const prepR = prepareLp(pre.reduced, opts);
  const start = opts.ipm ? ipmStart(prepR) : null;
  if (ipm?.status === 'time_limit') return { ...timeLimitSolution(model), presolve: s, ipm };
  const r1 = dualSimplex(prepR.scaled, start, { deadline: opts.deadline, seed: opts.seed });
  if (ipm && start) ipm.crossoverIterations = r1.iterations;
  const prep = prepareLp(model, opts);
  if (r1.status !== 'optimal') return { ...solvePrepared(prep, opts), iterations: r1.iterations + 0, presolve: s, ipm };
  const r2 = dualSimplex(prep.plain, pre.postsolveBasis(r1.basis), { deadline: opts.deadline, perturb: false, primalTol: 1e-9, dualTol: 1e-9 });
  if (r2.status === 'optimal') return { ...fromResult(prep, r2, null, 'optimal', r1.iterations + r2.iterations), presolve: s, ipm };
  const direct = solvePrepared(prep, opts);
  return { ...direct, iterations: direct.iterations + r1.iterations + r2.iterations, presolve: s, ipm };
}

/** What the interior-point stage did (reported in the result). */
export interface IpmSummary {
  status: IpmResult['status'];
  iterations: number;
  primalInfeasibility: number; dualInfeasibility: number; gap: number;
  /** simplex iterations from the crossover basis to the optimal basis of the (reduced) problem */
  crossoverIterations: number;
}

function timeLimitSolution(model: LpModel): LpSolution {
  const m = model.nRows, n = model.nCols;
  return { status: 'time_limit', x: new Float64Array(n), rowActivity: new Float64Array(m), y: new Float64Array(m), d: new Float64Array(n), objective: NaN, basis: null, iterations: 0 };
}
