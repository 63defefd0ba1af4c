// linsolve: the user's own sparse linear system A·x = b, solved with a certificate.
//
// Input: `matrix` as Matrix Market coordinate text (lib/sparse/mm.ts; real, integer or pattern;
// general, symmetric or skew-symmetric) or as JSON triplets {n, rows, cols, vals} (0-based,
// duplicates summed, as scipy.sparse.coo_matrix); `rhs` as numbers or Matrix Market text (an
// n×1 array or coordinate vector), all ones by default.
// Methods (lib/sparse/, cut like SuiteSparse: reader, storage, orderings, factorisations,
// iterations, estimate, checker; each file cites its source):
//  - direct: approximate minimum degree (Amestoy, Davis & Duff 1996) or a COLAMD-like column order,
//    supernodal sparse Cholesky (elimination tree and postorder, Gilbert-Ng-Peyton column counts,
//    relaxed supernodes, left-looking dense block kernels; Ng & Peyton 1993; Davis, "Direct
//    Methods for Sparse Linear Systems", SIAM 2006) or sparse LU with partial pivoting
//    (Gilbert & Peierls 1988), then iterative refinement;
//  - iterative: CG, MINRES, GMRES(m), BiCGSTAB with Jacobi, ILU(0) or IC(0) preconditioning.
// Certificate (DESIGN §13 "linear-system backward error"): lib/sparse/check.ts, which imports
// nothing of the factorisations, recomputes r = b − A·x from the original entries in doubled
// precision and the normwise backward error η = ‖r‖∞/(‖A‖∞‖x‖∞ + ‖b‖∞). The bound is η ≤ 1e-12 for
// direct methods (a backward stable solve gives η of order n·u) and η ≤ rtol for iterative ones.
// The condition number is estimated by the block 1-norm estimator of Higham & Tisseur (2000);
// `forwardErrorBound` = 2κ∞η/(1 − κ∞η) bounds ‖x̂ − x‖∞/‖x‖∞. A singular or numerically singular
// matrix (no pivot, or κ₁ ≥ 1/u) is 422 SINGULAR naming the pivot. `value` is ‖x‖₂.
// Static linear algebra: no time step, no stability condition.
import { z } from 'zod';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { readMatrixMarket, readMatrixMarketVector } from './lib/sparse/mm.ts';
import { solveSparse, type SparseProblem } from './lib/sparse/driver.ts';
import { norm2Vec } from './lib/sparse/csc.ts';
import { resourceLimits } from 'node:worker_threads';

/** stored entries of a matrix (Matrix Market lines, or triplets) */
export const MAX_ENTRIES = 2_000_000;
export const MAX_N = 1_000_000;
/** Matrix Market text: about 40 bytes a line at most for 2,000,000 entries */
export const MAX_TEXT = 80 * 1024 * 1024;
export const DIRECT_BOUND = 1e-12;

/** This run's memory budget in MiB: its worker's heap limit (the pool sets it to SVC_JOB_MEMORY_MB),
 * else SVC_JOB_MEMORY_MB itself (a run on the calling thread), else the node's default, 512. */
export function runMemoryBudgetMb(): number {
  const w = resourceLimits?.maxOldGenerationSizeMb;
  if (typeof w === 'number' && w > 0) return w;
  const e = Number(process.env.SVC_JOB_MEMORY_MB);
  return Number.isFinite(e) && e >= 48 ? e : 512;
}

/** The bytes a Cholesky factor may hold in a run with this budget: the budget less what the system
 * itself takes (the triplets, A and Aᵀ in compressed columns, the checker's copy, the vectors):
 * 64 bytes per stored entry and 160 per unknown (docs/solvers-linsolve.md "Memory"). */
export function factorBytesFor(budgetMb: number, entries: number, n: number): number {
  return Math.max(0, budgetMb * 2 ** 20 - 64 * entries - 160 * n);
}

export const EXAMPLE_MM = `%%MatrixMarket matrix coordinate real symmetric
% the 1-D Laplacian tridiag(-1, 2, -1) of order 4 (lower triangle)
4 4 7
1 1 2
2 1 -1
2 2 2
3 2 -1
3 3 2
4 3 -1
4 4 2
`;
export const EXAMPLE_COO = { n: 3, rows: [0, 0, 1, 1, 2, 2], cols: [0, 2, 0, 1, 1, 2], vals: [4, 1, -1, 3, 2, 5] };
export const EXAMPLE_RHS_MM = '%%MatrixMarket matrix array real general\n4 1\n1\n0\n0\n1\n';

const coo = z.strictObject({
  n: z.number().int().min(1).max(MAX_N).describe('order of the square matrix'),
  rows: z.array(z.number().int().min(0).max(MAX_N - 1)).max(MAX_ENTRIES).describe('row index of each entry, 0-based'),
  cols: z.array(z.number().int().min(0).max(MAX_N - 1)).max(MAX_ENTRIES).describe('column index of each entry, 0-based'),
  vals: z.array(z.number()).max(MAX_ENTRIES).describe('value of each entry (finite; duplicates are summed)'),
});

const input = z.strictObject({
  matrix: z.union([z.string().max(MAX_TEXT), coo]).optional().meta({ examples: [EXAMPLE_MM, EXAMPLE_COO] }).describe(
    'the square matrix A: Matrix Market coordinate text (`%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>`; up to 2,000,000 stored entries and order 1,000,000; a malformed line is a 400 naming it) or JSON triplets {n, rows, cols, vals} with 0-based indices (duplicates are summed). Default: the documented example, the 1-D Laplacian tridiag(-1, 2, -1) of order 4'),
  rhs: z.union([z.array(z.number()).max(MAX_N), z.string().max(64 * 1024 * 1024)]).optional().meta({ examples: [[1, 0, 0, 1], EXAMPLE_RHS_MM] }).describe(
    'the right-hand side b: n numbers, or Matrix Market text (an n×1 `array`, or an n×1 coordinate vector); default all ones'),
  method: z.enum(['auto', 'cholesky', 'lu', 'cg', 'minres', 'gmres', 'bicgstab']).default('auto').describe(
    "'auto' (sparse Cholesky when A is symmetric with a positive diagonal, falling back to LU at a non-positive pivot; else sparse LU with partial pivoting), 'cholesky', 'lu', or an iterative method: 'cg' (symmetric positive definite), 'minres' (symmetric), 'gmres', 'bicgstab'"),
  precond: z.enum(['none', 'jacobi', 'ilu0', 'ic0']).optional().describe("iterative methods only: preconditioner (default 'none'); 'ic0' needs a symmetric matrix"),
  ordering: z.enum(['amd', 'colamd', 'natural']).optional().describe("direct methods only: fill-reducing order (default 'amd' on the pattern of A + Aᵀ; 'colamd' orders the columns for LU on the pattern of AᵀA)"),
  rtol: z.number().min(1e-15).max(1e-2).optional().describe('iterative methods only: stop when ‖b − Ax‖₂ ≤ rtol·‖b‖₂ (default 1e-10); the backward error must also be ≤ rtol'),
  maxIter: z.number().int().min(1).max(1_000_000).optional().describe('iterative methods only: iteration limit (default max(1000, 10·n))'),
  restart: z.number().int().min(1).max(500).optional().describe('gmres only: restart length m (default 30)'),
}).superRefine((v, ctx) => {
  const direct = v.method === 'auto' || v.method === 'cholesky' || v.method === 'lu';
  if (direct) {
    for (const k of ['precond', 'rtol', 'maxIter', 'restart'] as const) {
      if (v[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} applies to the iterative methods (cg, minres, gmres, bicgstab), not to ${v.method}` });
    }
    if (v.method === 'cholesky' && v.ordering === 'colamd') ctx.addIssue({ code: 'custom', path: ['ordering'], message: "colamd orders columns for LU; Cholesky takes 'amd' or 'natural'" });
  } else {
    if (v.ordering !== undefined) ctx.addIssue({ code: 'custom', path: ['ordering'], message: `ordering applies to the direct methods (auto, cholesky, lu), not to ${v.method}` });
    if (v.restart !== undefined && v.method !== 'gmres') ctx.addIssue({ code: 'custom', path: ['restart'], message: 'restart applies to gmres only' });
  }
  if (typeof v.matrix === 'object') {
    const m = v.matrix;
    if (m.rows.length !== m.cols.length || m.rows.length !== m.vals.length) {
      ctx.addIssue({ code: 'custom', path: ['matrix', 'vals'], message: `rows, cols and vals must have the same length (${m.rows.length}, ${m.cols.length}, ${m.vals.length})` });
      return;
    }
    for (let k = 0; k < m.rows.length; k++) {
      const bad = m.rows[k] >= m.n ? 'rows' : m.cols[k] >= m.n ? 'cols' : !Number.isFinite(m.vals[k]) ? 'vals' : null;
      if (bad) {
        ctx.addIssue({ code: 'custom', path: ['matrix', bad, k], message: bad === 'vals' ? 'each value must be finite' : `index ${(m as any)[bad][k]} is outside 0..${m.n - 1}` });
        return;
      }
    }
  }
  if (Array.isArray(v.rhs)) {
    const k = v.rhs.findIndex((x) => !Number.isFinite(x));
    if (k >= 0) ctx.addIssue({ code: 'custom', path: ['rhs', k], message: 'each value must be finite' });
  }
});

export type LinsolveInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'linsolve',
  domain: 'Numerical Linear Algebra',
  method: 'sparse-direct-iterative',
  methodDescription: 'AMD/COLAMD ordering, sparse Cholesky or LU with partial pivoting (or CG, MINRES, GMRES, BiCGSTAB), backward error certificate',
  operators: ['KO42'],
  unit: '1',
  title: 'Sparse linear system',
  brief: 'Solves your sparse A·x = b (Matrix Market or triplets) with a backward-error certificate; value is ‖x‖₂',
  summary: 'Solves a sparse linear system A·x = b given as Matrix Market text or JSON triplets: sparse Cholesky (symmetric positive definite) or sparse LU with partial pivoting after an approximate minimum degree ordering, or a preconditioned Krylov method (CG, MINRES, GMRES, BiCGSTAB with Jacobi, ILU(0), IC(0)). Returns x with its residual, the normwise backward error recomputed from the original matrix by an independent checker, a Higham-Tisseur 1-norm condition estimate, a forward error bound and the fill of the factors. A singular matrix is 422 SINGULAR naming the pivot.',
  bodyLimit: 100 * 1024 * 1024,
  input,
  examples: [
    'Solve the linear system in this Matrix Market file',
    'Solve Ax = b for a sparse symmetric positive definite matrix and tell me how accurate x is',
    'Sparse LU solve of my unsymmetric matrix with a backward error certificate',
    'Solve the linear system from SuiteSparse bcsstk01 with Cholesky',
    'Conjugate gradient with incomplete Cholesky on my stiffness matrix',
    'What is the condition number estimate and forward error of this sparse system?',
    'GMRES with ILU(0) preconditioning for a nonsymmetric sparse matrix',
    'Solve the linear system given as COO triplets rows, cols, vals',
  ],
  vocabulary: [
    'linear system', 'solve the linear system', 'ax = b', 'ax=b', 'sparse matrix', 'matrix market', 'mtx', 'suitesparse',
    'cholesky', 'lu factorization', 'lu decomposition', 'backward error', 'condition number', 'conjugate gradient', 'gmres',
    'bicgstab', 'minres', 'preconditioner', 'ilu', 'incomplete cholesky', 'amd', 'colamd', 'fill-in', 'triplets', 'coo',
    'right-hand side', 'residual', 'spsolve', 'superlu', 'harwell-boeing',
  ],
};

/** The system as expanded triplets (the checker reads these, the solvers build CSC from them). */
export function systemOf(inp: LinsolveInput): { problem: SparseProblem; b: Float64Array; source: Record<string, unknown> } {
  let problem: SparseProblem;
  let source: Record<string, unknown>;
  const matrix = inp.matrix ?? EXAMPLE_MM;
  if (typeof matrix === 'string') {
    const m = readMatrixMarket(matrix, { field: 'matrix', maxEntries: MAX_ENTRIES, maxDim: MAX_N });
    if (m.rows !== m.cols) throw refuse('INVALID_INPUT', `matrix: a linear system needs a square matrix (this one is ${m.rows}×${m.cols})`);
    problem = { n: m.rows, ri: m.ri, ci: m.ci, vals: m.vals };
    source = { format: inp.matrix === undefined ? 'default example (matrix-market)' : 'matrix-market', field: m.field, symmetry: m.symmetry, storedEntries: m.storedEntries };
  } else {
    const m = matrix;
    problem = { n: m.n, ri: Int32Array.from(m.rows), ci: Int32Array.from(m.cols), vals: Float64Array.from(m.vals) };
    source = { format: 'triplets', storedEntries: m.rows.length };
  }
  const n = problem.n;
  let b: Float64Array;
  if (inp.rhs === undefined) b = new Float64Array(n).fill(1);
  else if (typeof inp.rhs === 'string') b = readMatrixMarketVector(inp.rhs, n, { field: 'rhs' });
  else {
    if (inp.rhs.length !== n) throw refuse('INVALID_INPUT', `rhs has ${inp.rhs.length} values; the matrix has order ${n}`);
    b = Float64Array.from(inp.rhs);
  }
  return { problem, b, source };
}

export const run: SolverRun<LinsolveInput> = (inp, ctx): SolverOutput => {
  const { problem, b, source } = systemOf(inp);
  const direct = inp.method === 'auto' || inp.method === 'cholesky' || inp.method === 'lu';
  const budgetMb = runMemoryBudgetMb();
  const s = solveSparse(problem, b, {
    method: inp.method, precond: inp.precond, ordering: inp.ordering, rtol: inp.rtol, maxIter: inp.maxIter, restart: inp.restart,
    seed: ctx.seed, progress: (f) => ctx.progress(f),
    maxFactorBytes: factorBytesFor(budgetMb, problem.ri.length, problem.n),
    memoryNote: `this run's memory budget of ${budgetMb} MiB, SVC_JOB_MEMORY_MB, less the matrix's own storage`,
  });
  const bound = direct ? DIRECT_BOUND : (inp.rtol ?? 1e-10);
  const value = norm2Vec(s.x);
  ctx.progress(1);
  return {
    value,
    method: s.method,
    result: {
      x: Array.from(s.x),
      n: problem.n,
      entries: s.certificate.entries,
      ...source,
      method: s.method,
      ordering: s.ordering,
      preconditioner: s.preconditioner,
      symmetric: s.symmetric,
      residualNorm: s.residualNorm,
      residualInf: s.certificate.residualInf,
      backwardError: s.backwardError,
      condEst: s.condEst,
      condEstInf: s.condEstInf,
      forwardErrorBound: s.forwardErrorBound,
      fillIn: s.fillIn,
      iterations: s.iterations,
      refinementSteps: s.refinementSteps,
      fallback: s.fallback,
      normAInf: s.certificate.normAInf,
      normXInf: s.certificate.normXInf,
      normBInf: s.certificate.normBInf,
    },
    precision: precisionOf({
      errorPct: 100 * s.backwardError,
      boundPct: 100 * bound,
      reference: `normwise backward error ‖b − Ax‖∞/(‖A‖∞‖x‖∞ + ‖b‖∞), recomputed from the original entries in doubled precision by a checker that shares no code with the solver; bound ${bound}`,
      referenceValue: s.backwardError,
      certificate: 'backward-error',
    }),
  };
};
