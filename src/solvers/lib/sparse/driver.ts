// One sparse linear solve, as svc_linsolve and the finite element assembly of svc_fea use it:
// ordering (amd.ts, colamd.ts), factorisation (supernodal.ts, lu.ts) or Krylov iteration
// (iterative.ts), iterative refinement, condition estimate (condest.ts), and the certificate
// recomputed by check.ts from the original entries.
//
// Decisions (docs/solvers-linsolve.md):
//  - `auto`: Cholesky when A is exactly symmetric with a positive diagonal; if a pivot turns out
//    non-positive, LU (the matrix was indefinite). Otherwise LU.
//  - direct solves get up to 3 steps of iterative refinement in working precision (Wilkinson; Skeel,
//    Math. Comp. 35, 1980: one step makes LU with partial pivoting backward stable in the normwise
//    sense) while the backward error is above 2⁻⁵² and still falls.
//  - κ₁ is ‖A‖₁ times the Higham-Tisseur estimate of ‖A⁻¹‖₁; the forward error bound
//    ‖x̂ − x‖∞/‖x‖∞ ≤ 2·κ∞·η/(1 − κ∞·η) (Higham, ASNA 2nd ed., Thm 7.2 with both perturbations
//    bounded by η) uses κ∞ = ‖A‖∞·‖A⁻¹‖∞, estimated the same way on Aᵀ (equal to κ₁ when A = Aᵀ).
//  - numerically singular: κ₁ ≥ 1/u (u = 2⁻⁵³) is 422 SINGULAR with the smallest pivot, like an
//    exactly zero pivot column.
import { refuse } from '../../../core/errors.ts';
import { cscFromTriplets, cscMatVec, isSymmetric, norm1, symmetricPattern, transpose, diagonal, type CscMatrix } from './csc.ts';
import { amdOrder } from './amd.ts';
import { colamdOrder } from './colamd.ts';
import { supernodalSymbolic, supernodalNumeric, supernodalSolve, supernodalDiagonal, type SupernodalFactor } from './supernodal.ts';
import { luFactorize, luSolve, luSolveTranspose, smallestPivot, luFill } from './lu.ts';
import { buildPreconditioner, krylov, PreconditionerBreakdown, type KrylovName, type PrecondName } from './iterative.ts';
import { inverseNorm1Estimate } from './condest.ts';
import { checkLinearSolve, type LinearSystemCertificate } from './check.ts';

export type SparseMethod = 'auto' | 'cholesky' | 'lu' | KrylovName;
export type Ordering = 'amd' | 'colamd' | 'natural';

export interface SparseProblem { n: number; ri: Int32Array; ci: Int32Array; vals: Float64Array }

export interface SparseSolveOptions {
  method: SparseMethod;
  precond?: PrecondName;
  ordering?: Ordering;
  rtol?: number;
  maxIter?: number;
  restart?: number;
  seed?: number;
  /** the largest factor (entries of L, or of L and U) a direct solve may build */
  maxFill?: number;
  /** the memory (bytes) a Cholesky factorisation may hold, values, indices and workspace
   * (supernodalSymbolic's `bytes`); when given it replaces maxFill for Cholesky. svc_linsolve
   * derives it from the run's memory budget (SVC_JOB_MEMORY_MB) */
  maxFactorBytes?: number;
  /** the budget named in the refusal when maxFactorBytes is passed */
  memoryNote?: string;
  progress?: (fraction: number) => void;
  /** the clock of `timings`, in ms (default performance.now; the benches pass process CPU time) */
  clock?: () => number;
}

export interface SparseSolveResult {
  x: Float64Array;
  method: 'cholesky' | 'lu' | KrylovName;
  ordering: Ordering | null;
  preconditioner: string | null;
  symmetric: boolean;
  residualNorm: number;
  backwardError: number;
  condEst: number;
  condEstInf: number;
  forwardErrorBound: number;
  fillIn: number | null;
  iterations: number | null;
  refinementSteps: number;
  fallback: string | null;
  certificate: LinearSystemCertificate;
  timings: { setupMs: number; orderMs: number; factorMs: number; solveMs: number; condestMs: number; checkMs: number };
}

export const DEFAULT_MAX_FILL = 40_000_000;
const U = 2 ** -53;
const mib = (bytes: number) => Math.ceil(bytes / 2 ** 20).toLocaleString('en');

/** Backward error in working precision, for the refinement loop only (the certificate is check.ts). */
function quickBackwardError(a: CscMatrix, x: Float64Array, b: Float64Array, r: Float64Array, normAInf: number): number {
  cscMatVec(a, x, r);
  let rmax = 0, xmax = 0, bmax = 0;
  for (let i = 0; i < a.n; i++) { r[i] = b[i] - r[i]; rmax = Math.max(rmax, Math.abs(r[i])); xmax = Math.max(xmax, Math.abs(x[i])); bmax = Math.max(bmax, Math.abs(b[i])); }
  return rmax === 0 ? 0 : rmax / (normAInf * xmax + bmax);
}

export function solveSparse(p: SparseProblem, b: Float64Array, o: SparseSolveOptions): SparseSolveResult {
  const n = p.n;
  const progress = o.progress ?? (() => {});
  const now = o.clock ?? (() => performance.now());
  const tSetup = now();
  const a = cscFromTriplets(n, p.ri, p.ci, p.vals);
  const at = transpose(a);
  const symmetric = isSymmetric(a, at);
  const normA1 = norm1(a), normAInf = norm1(at);
  const timings = { setupMs: now() - tSetup, orderMs: 0, factorMs: 0, solveMs: 0, condestMs: 0, checkMs: 0 };
  let fallback: string | null = null;
  let x: Float64Array;
  let solve: (v: Float64Array) => Float64Array;
  let solveT: (v: Float64Array) => Float64Array;
  let used: SparseSolveResult['method'];
  let fillIn: number | null = null, iterations: number | null = null, refinementSteps = 0;
  let ordering: Ordering | null = null, preconditioner: string | null = null;
  let smallest: { step: number; value: number; column?: number } | null = null;
  const direct = o.method === 'auto' || o.method === 'cholesky' || o.method === 'lu';

  if (direct) {
    ordering = o.ordering ?? 'amd';
    const maxFill = o.maxFill ?? DEFAULT_MAX_FILL;
    const diag = diagonal(a);
    let tryCholesky = o.method === 'cholesky' || (o.method === 'auto' && symmetric && ordering !== 'colamd' && diag.every((d) => d > 0));
    let chol: SupernodalFactor | null = null;
    let t0 = now();
    let symOrder: Int32Array | null = null;
    const symmetricOrder = () => {
      if (symOrder) return symOrder;
      if (ordering === 'natural') symOrder = Int32Array.from({ length: n }, (_, i) => i);
      else { const g = symmetricPattern(a, at, symmetric); symOrder = amdOrder({ n, adjPtr: g.adjPtr, adjIdx: g.adjIdx }); }
      return symOrder;
    };
    if (tryCholesky) {
      const perm = symmetricOrder();
      timings.orderMs = now() - t0; t0 = now();
      progress(0.1);
      const byBytes = o.maxFactorBytes !== undefined;
      // every entry of L is 8 bytes at least: past maxFactorBytes/8 entries the pattern is not built
      const sym = supernodalSymbolic(a, perm, byBytes ? Math.floor(o.maxFactorBytes! / 8) : maxFill);
      const hint = { method: 'cg', precond: 'ic0' };
      if ('tooLarge' in sym) {
        if (!byBytes) throw refuse('SHAPE_REFUSED', `the Cholesky factor would have more than ${maxFill.toLocaleString('en')} entries (this node's memory limit for one solve); try an iterative method`, { fillAtLeast: sym.tooLarge });
        throw refuse('SHAPE_REFUSED', `the Cholesky factor (${sym.tooLarge.toLocaleString('en')} entries of L) would need more than ${mib(o.maxFactorBytes!)} MiB${o.memoryNote ? ` (${o.memoryNote})` : ''}; use method: 'cg' with precond: 'ic0'`, { fillAtLeast: sym.tooLarge, maxFactorBytes: o.maxFactorBytes, use: hint });
      }
      if (byBytes && sym.bytes > o.maxFactorBytes!) {
        throw refuse('SHAPE_REFUSED', `the Cholesky factor needs ${mib(sym.bytes)} MiB (${sym.nnzL.toLocaleString('en')} entries of L, ${sym.stored.toLocaleString('en')} values stored in its supernodes, their indices and the factorisation's workspace), more than ${mib(o.maxFactorBytes!)} MiB${o.memoryNote ? ` (${o.memoryNote})` : ''}; use method: 'cg' with precond: 'ic0'`, {
          fill: sym.nnzL, factorBytes: sym.bytes, maxFactorBytes: o.maxFactorBytes, use: hint,
        });
      }
      const out = supernodalNumeric(sym, (f) => progress(0.1 + 0.6 * f));
      timings.factorMs = now() - t0;
      if (out.ok) chol = out.factor;
      else if (o.method === 'cholesky') {
        throw refuse('SHAPE_REFUSED', `the matrix is not positive definite: Cholesky pivot ${out.pivot} at column ${out.column} (elimination step ${out.step}); use method 'lu' or 'auto'`, { pivot: { column: out.column, step: out.step, value: out.pivot } });
      } else {
        fallback = `Cholesky met a non-positive pivot (${out.pivot}) at column ${out.column}, elimination step ${out.step}: solved by LU`;
        tryCholesky = false;
      }
    }
    if (chol) {
      const f = chol;
      used = 'cholesky';
      fillIn = f.nnzL;
      solve = (v) => supernodalSolve(f, v);
      solveT = solve;
      let minD = Infinity, minStep = 0;
      const diagL = supernodalDiagonal(f);
      for (let j = 0; j < n; j++) { const d = diagL[j] ** 2; if (d < minD) { minD = d; minStep = j; } }
      smallest = { step: minStep, value: minD, column: f.perm[minStep] };
    } else {
      t0 = now();
      const q = ordering === 'colamd' ? colamdOrder(a) : symmetricOrder();
      timings.orderMs += now() - t0; t0 = now();
      progress(0.15);
      const out = luFactorize(a, q, ordering === 'colamd' ? 1 : 0.1);
      timings.factorMs += now() - t0;
      if (!out.ok) {
        throw refuse('SINGULAR', `the matrix is singular: no nonzero pivot for column ${out.column} at elimination step ${out.step} of ${n}`, { pivot: { column: out.column, step: out.step, value: 0 } });
      }
      const f = out.factors;
      if (luFill(f) > 2 * maxFill) throw refuse('SHAPE_REFUSED', `the LU factors have ${luFill(f).toLocaleString('en')} entries, more than this node keeps for one solve`);
      used = 'lu';
      fillIn = luFill(f);
      solve = (v) => luSolve(f, v);
      solveT = (v) => luSolveTranspose(f, v);
      const sp = smallestPivot(f);
      smallest = { step: sp.step, value: sp.value, column: f.q[sp.step] };
    }
    progress(0.75);
    t0 = now();
    x = solve(b);
    // iterative refinement
    const r = new Float64Array(n);
    let eta = quickBackwardError(a, x, b, r, normAInf);
    for (let step = 0; step < 3 && eta > 2 * U && Number.isFinite(eta); step++) {
      const d = solve(r);
      const xNew = new Float64Array(n);
      for (let i = 0; i < n; i++) xNew[i] = x[i] + d[i];
      const r2 = new Float64Array(n);
      const etaNew = quickBackwardError(a, xNew, b, r2, normAInf);
      if (!(etaNew < eta)) break;
      x = xNew; eta = etaNew; r.set(r2); refinementSteps++;
    }
    timings.solveMs = now() - t0;
  } else {
    if (o.ordering) throw refuse('INVALID_INPUT', `ordering applies to the direct methods (auto, cholesky, lu), not to ${o.method}`);
    const method = o.method as KrylovName;
    if ((method === 'cg' || method === 'minres') && !symmetric) throw refuse('INVALID_INPUT', `${method} needs a symmetric matrix; this one is not (use gmres or bicgstab)`);
    const pk = o.precond ?? 'none';
    if (pk === 'ic0' && !symmetric) throw refuse('INVALID_INPUT', 'ic0 needs a symmetric matrix; this one is not (use ilu0)');
    if (method !== 'gmres' && o.restart !== undefined) throw refuse('INVALID_INPUT', 'restart applies to gmres only');
    let pc;
    let t0 = now();
    try { pc = buildPreconditioner(a, pk); } catch (e) {
      if (e instanceof PreconditionerBreakdown) throw refuse('SHAPE_REFUSED', `the ${e.kind} preconditioner breaks down: pivot ${e.pivot} at row ${e.row}; try another preconditioner`, { pivot: { row: e.row, value: e.pivot } });
      throw e;
    }
    timings.factorMs = now() - t0;
    preconditioner = pc.note;
    const rtol = o.rtol ?? 1e-10;
    const maxIter = o.maxIter ?? Math.max(1000, 10 * n);
    t0 = now();
    let res = krylov(a, b, method, pc.apply, { rtol, maxIter, restart: o.restart, onIteration: (it) => { if (it % 50 === 0) progress(Math.min(0.6, 0.6 * it / maxIter)); } });
    iterations = res.iterations;
    // the certificate's measure must meet rtol: tighten and continue from x when it does not
    for (let round = 0; round < 3 && res.converged; round++) {
      const eta = quickBackwardError(a, res.x, b, new Float64Array(n), normAInf);
      if (eta <= rtol) break;
      res = krylov(a, b, method, pc.apply, { rtol: Math.max(U, rtol * Math.min(0.5, (0.5 * rtol) / eta)), maxIter: Math.max(1, maxIter - iterations), restart: o.restart, x0: res.x });
      iterations += res.iterations;
    }
    timings.solveMs = now() - t0;
    x = res.x;
    used = method;
    if (!res.converged) {
      const cert = checkLinearSolve(n, p.ri, p.ci, p.vals, x, b);
      throw refuse('PRECISION_REFUSED', `${method}${pk !== 'none' ? ` with ${pk}` : ''} did not reach rtol ${rtol} in ${iterations} iterations (relative residual ${res.relativeResidual.toPrecision(3)})${res.breakdown ? `: ${res.breakdown}` : ''}`, {
        iterations, relativeResidual: res.relativeResidual, backwardError: cert.backwardError,
      });
    }
    const inner = { rtol: Math.max(1e-8, rtol), maxIter, restart: o.restart };
    solve = (v) => krylov(a, v, method, pc.apply, inner).x;
    const atOp = (v: Float64Array, out: Float64Array) => { cscMatVec(at, v, out); };
    solveT = symmetric ? solve : (v) => krylov(at, v, method === 'bicgstab' ? 'bicgstab' : 'gmres', null, inner, atOp).x;
  }
  progress(0.85);
  let t0 = now();
  const est1 = inverseNorm1Estimate(n, solve, solveT, o.seed ?? 1).estimate;
  const condEst = normA1 * est1;
  const condEstInf = symmetric ? condEst : normAInf * inverseNorm1Estimate(n, solveT, solve, o.seed ?? 1).estimate;
  timings.condestMs = now() - t0;
  if (direct && !(condEst * U < 1)) {
    throw refuse('SINGULAR', `the matrix is numerically singular: condition estimate ${condEst.toPrecision(3)} ≥ 1/u; smallest pivot ${smallest?.value.toPrecision(3)} at elimination step ${smallest?.step} (column ${smallest?.column})`, {
      condEst, pivot: smallest,
    });
  }
  progress(0.95);
  t0 = now();
  const certificate = checkLinearSolve(n, p.ri, p.ci, p.vals, x, b);
  timings.checkMs = now() - t0;
  const ke = condEstInf * certificate.backwardError;
  const forwardErrorBound = ke < 1 ? (2 * ke) / (1 - ke) : Infinity;
  return {
    x, method: used!, ordering, preconditioner, symmetric,
    residualNorm: certificate.residual2, backwardError: certificate.backwardError,
    condEst, condEstInf, forwardErrorBound, fillIn, iterations, refinementSteps, fallback, certificate, timings,
  };
}

