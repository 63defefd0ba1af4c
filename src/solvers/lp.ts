// lp: the caller's own linear program or mixed-integer linear program (issue 30), given as MPS
// text (fixed or free), or as JSON in the shape of SciPy's milp (c, A with row bounds lb/ub,
// column bounds, integrality), with a certificate checked before the result is sealed.
//
// Family (src/solvers/lib/lp/, one technique per file): mps.ts and lpformat.ts (readers), model.ts (the model),
// presolve.ts (Andersen & Andersen 1995: empty rows, singleton rows, fixed and empty columns, and on the ipm
// path free and implied-free column singletons, with basis postsolve), ipm.ts (Mehrotra 1992 predictor-corrector
// interior point; Wright 1997), normal.ts (its normal equations: sparse Cholesky, AMD order), crossover.ts
// (Megiddo 1991 primal push, Bixby & Saltzman 1994 basis recovery), scaling.ts (geometric-mean scaling, Tomlin 1975), factor.ts (sparse LU of the basis with
// product-form updates), simplex.ts (dual simplex with bounded variables, dual steepest edge and
// the bound-flipping ratio test, Koberstein 2005; Maros 2003), solve.ts (driver: clean-up on the
// unscaled problem, infeasible/unbounded classification), bnb.ts (branch and bound, Land & Doig
// 1960), check.ts (the certificate checker, which imports nothing of the solver).
//
// Certificates (precision.certificate): 'lp-duality' (optimal LP: primal feasibility, dual
// feasibility and duality gap recomputed from the reported x and row duals), 'farkas'
// (infeasible: the row multipliers), 'primal-ray' (unbounded: a feasible point and a ray), and
// 'milp-incumbent' (MILP: feasibility and integrality of the incumbent, gap from the bound).
// errorPct = 100 × the largest scaled residual; boundPct = 1e-5 (a residual of 1e-7 scaled).
// See docs/solvers-lp.md.
import { z } from 'zod';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { parseMps } from './lib/lp/mps.ts';
import { parseLpFormat } from './lib/lp/lpformat.ts';
import { cscFromEntries, LP_LIMITS, type LpModel } from './lib/lp/model.ts';
import { prepareLp, solveWithPresolve, type LpSolution } from './lib/lp/solve.ts';
import { branchAndBound } from './lib/lp/bnb.ts';
import { BASIC, AT_LOWER, AT_UPPER } from './lib/lp/simplex.ts';
import { checkOptimal, checkFarkas, checkRay, checkIncumbent, primalResidual } from './lib/lp/check.ts';
import { noEffectRefusal } from './lib/no-effect.ts';

const DEFAULT_MIP_GAP = 1e-4;

/** the largest scaled certificate residual accepted (primal, dual, gap) */
export const RESIDUAL_BOUND = 1e-7;
const DEFAULT_TIME_LIMIT_S = 60;
/** 'auto' takes the interior-point method for an LP with more rows than this (docs/solvers-lp.md) */
export const AUTO_IPM_ROWS = 5000;
/** … and only when the normal equations' Cholesky factor has at most this many entries per nonzero of A */
export const AUTO_IPM_FILL_RATIO = 10;

/** A small production-planning LP (the OpenAPI example of `mps`). */
export const EXAMPLE_MPS = `NAME          PLANT
* maximise profit 3 x + 5 y (Hillier & Lieberman's Wyndor Glass example)
OBJSENSE
    MAX
ROWS
 N  PROFIT
 L  PLANT1
 L  PLANT2
 L  PLANT3
COLUMNS
    X         PROFIT         3.0   PLANT1         1.0
    X         PLANT3         3.0
    Y         PROFIT         5.0   PLANT2         2.0
    Y         PLANT3         2.0
RHS
    RHS       PLANT1         4.0   PLANT2        12.0
    RHS       PLANT3        18.0
ENDATA
`;
/** The same problem in CPLEX LP format (the OpenAPI example of `lp`), with one integer variable. */
export const EXAMPLE_LP = `\\ a small mixed-integer program
Maximize
 profit: 3 x + 5 y
Subject To
 plant1: x <= 4
 plant2: 2 y <= 12
 plant3: 3 x + 2 y <= 18.5
Bounds
 0 <= x <= 10
General
 y
End
`;
export const EXAMPLE_MODEL = {
  c: [-1, -2, -3], A: [[1, 1, 1], [1, -1, 0]], lb: [null, 0], ub: [10, null],
  bounds: { lb: [0, 0, 0], ub: [4, null, 3] }, integrality: [1, 1, 0],
};

const bound = z.number().nullable();
const modelSchema = z.strictObject({
  c: z.array(z.number().finite()).min(1).max(LP_LIMITS.maxCols).describe('objective coefficients, one per variable'),
  A: z.union([
    z.array(z.array(z.number().finite())).max(LP_LIMITS.maxRows).describe('dense rows, each of length c.length'),
    z.strictObject({
      rows: z.array(z.number().int().min(0)).max(LP_LIMITS.maxNonzeros),
      cols: z.array(z.number().int().min(0)).max(LP_LIMITS.maxNonzeros),
      vals: z.array(z.number().finite()).max(LP_LIMITS.maxNonzeros),
    }).describe('sparse triplets: row and column indices (0-based) and values, of equal length'),
  ]).optional().describe('constraint matrix (omit for a problem with bounds only)'),
  lb: z.array(bound).optional().describe('row lower bounds (null: −∞; default −∞)'),
  ub: z.array(bound).optional().describe('row upper bounds (null: +∞; default +∞)'),
  bounds: z.strictObject({ lb: z.array(bound).optional(), ub: z.array(bound).optional() }).optional()
    .describe('variable bounds {lb, ub} (null: infinite; default lb 0, ub +∞, as SciPy)'),
  integrality: z.array(z.union([z.literal(0), z.literal(1)])).optional().describe('1 for an integer variable, 0 for a continuous one (default all 0)'),
});

export const descriptor: SolverDescriptor = {
  name: 'lp',
  domain: 'Operations Research',
  method: 'dual-simplex',
  methodDescription: 'dual simplex with bounded variables (steepest edge, bound-flipping ratio test, sparse LU with product-form updates) after presolve and scaling, or (method ipm) Mehrotra predictor-corrector interior point with crossover to an optimal basis; branch and bound for integer variables; certificate checked independently',
  operators: ['KO42'],
  unit: 'objective',
  title: 'Linear and integer programs',
  brief: 'Solves an LP or MILP (MPS, LP file or JSON) with a checked duality, Farkas or ray certificate; value is the objective',
  bodyLimit: 20 * 1024 * 1024,
  summary: 'Solves the caller\'s linear program or mixed-integer linear program, given as MPS text (fixed or free; RANGES, BOUNDS, MARKER integer sections, OBJSENSE), CPLEX LP text, or as JSON in the shape of SciPy\'s milp (c, A, row bounds lb/ub, variable bounds, integrality). Returns the status (optimal, infeasible, unbounded, time_limit), the objective, x by column name, row duals and reduced costs (LP), the basis, and for a MILP the bound, gap and node count. The certificate is recomputed by a checker that shares no code with the solver: primal and dual feasibility and the duality gap for an optimal LP, a Farkas ray for an infeasible one, a primal ray for an unbounded one, feasibility and integrality of the incumbent for a MILP.',
  input: z.strictObject({
    mps: z.string().max(LP_LIMITS.maxTextBytes).optional().meta({ examples: [EXAMPLE_MPS] })
      .describe('the problem as MPS text (fixed or free form: NAME, ROWS, COLUMNS with MARKER INTORG/INTEND, RHS, RANGES, BOUNDS UP/LO/FX/FR/MI/PL/BV/LI/UI, OBJSENSE, ENDATA); up to 10,000 rows, 100,000 columns and 250,000 nonzeros. A malformed line is a 400 naming it (counted from 1). Not with model. With none of mps, lp and model, the documented example (EXAMPLE_MPS, Wyndor Glass) is solved.'),
    lp: z.string().max(LP_LIMITS.maxTextBytes).optional().meta({ examples: [EXAMPLE_LP] })
      .describe('the problem as CPLEX LP text (Minimize/Maximize, Subject To, Bounds, General, Binary, End; \\ comments; ranged rows l <= expression <= u); the same limits as mps. A malformed statement is a 400 naming its line. Not with mps or model.'),
    model: modelSchema.optional().meta({ examples: [EXAMPLE_MODEL] })
      .describe('the problem as JSON, as scipy.optimize.milp takes it: minimise c·x subject to lb ≤ A·x ≤ ub, bounds.lb ≤ x ≤ bounds.ub, x_j integer where integrality[j] = 1. Not with mps.'),
    sense: z.enum(['min', 'max']).optional().describe("'min' or 'max' (default: the MPS file's OBJSENSE, else 'min')"),
    method: z.enum(['simplex', 'ipm', 'auto']).default('auto').describe(`'simplex' (dual simplex with bounded variables), 'ipm' (Mehrotra predictor-corrector interior-point method on the presolved, scaled problem, then crossover to an optimal basis finished by the dual simplex, so duals, basis and certificate are as with 'simplex'; linear programs only) or 'auto' (the dual simplex for every MILP and for an LP of up to ${AUTO_IPM_ROWS} rows, the interior-point method for a larger LP whose normal-equations factor stays sparse (at most ${AUTO_IPM_FILL_RATIO} entries per nonzero of A); see docs/solvers-lp.md)`),
    timeLimit: z.number().positive().max(600).optional().describe('seconds of search before stopping with status time_limit (default 60; a MILP returns its best incumbent)'),
    mipGap: z.number().min(0).max(1).optional().describe('relative gap (incumbent − bound)/max(|incumbent|, 1) at which branch and bound stops (default 1e-4); integer programs only: with no integer column it has no effect and is refused'),
  }).superRefine((v, ctx) => {
    const given = (['mps', 'lp', 'model'] as const).filter((k) => v[k] !== undefined);
    if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]], message: `give the problem once: ${given.join(' and ')} were both given` });
  }),
  examples: [
    'solve this linear program given as an MPS file',
    'integer program: maximise profit subject to capacity constraints',
    'mixed integer linear programming with branch and bound',
    'find the optimal solution of my LP and its dual values',
    'is this linear program infeasible? give a Farkas certificate',
    'production planning linear program with shadow prices',
    'minimise cost of a diet problem as a linear program',
  ],
  vocabulary: [
    'linear program', 'linear programming', 'lp', 'integer program', 'integer programming', 'milp', 'mip', 'mixed integer',
    'mps', 'mps file', 'lp file', 'simplex', 'dual simplex', 'branch and bound', 'shadow price', 'dual values', 'reduced cost',
    'farkas', 'infeasible', 'unbounded', 'objective', 'constraints', 'optimisation', 'optimization', 'netlib', 'miplib',
  ],
};

const inf = (v: number | null | undefined, dflt: number) => (v === null ? dflt : v === undefined ? dflt : v);

/** Builds the model of the JSON form (SciPy milp's shape). */
export function modelFromJson(m: z.infer<typeof modelSchema>): LpModel {
  const n = m.c.length;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  let nRows = 0;
  if (Array.isArray(m.A)) {
    nRows = m.A.length;
    m.A.forEach((row, i) => {
      if (row.length !== n) throw refuse('INVALID_INPUT', `model.A row ${i} has ${row.length} entries, but c has ${n}`, { field: 'model.A' });
      row.forEach((v, j) => { if (v !== 0) { rows.push(i); cols.push(j); vals.push(v); } });
    });
  } else if (m.A) {
    const { rows: r, cols: c, vals: v } = m.A;
    if (r.length !== c.length || r.length !== v.length) throw refuse('INVALID_INPUT', 'model.A: rows, cols and vals must have the same length', { field: 'model.A' });
    for (let k = 0; k < r.length; k++) {
      if (c[k] >= n) throw refuse('INVALID_INPUT', `model.A: column index ${c[k]} is not below c.length = ${n}`, { field: 'model.A.cols' });
      nRows = Math.max(nRows, r[k] + 1);
    }
    nRows = Math.max(nRows, m.lb?.length ?? 0, m.ub?.length ?? 0);
    if (nRows > LP_LIMITS.maxRows) throw refuse('INVALID_INPUT', `model.A has more than ${LP_LIMITS.maxRows} rows`, { field: 'model.A.rows' });
    rows.push(...r); cols.push(...c); vals.push(...v);
  }
  for (const [k, arr, len] of [['lb', m.lb, nRows], ['ub', m.ub, nRows], ['bounds.lb', m.bounds?.lb, n], ['bounds.ub', m.bounds?.ub, n], ['integrality', m.integrality, n]] as const) {
    if (arr && arr.length !== len) throw refuse('INVALID_INPUT', `model.${k} has ${arr.length} entries, expected ${len}`, { field: `model.${k}` });
  }
  const rowLo = Float64Array.from({ length: nRows }, (_, i) => inf(m.lb?.[i], -Infinity));
  const rowUp = Float64Array.from({ length: nRows }, (_, i) => inf(m.ub?.[i], Infinity));
  const colLo = Float64Array.from({ length: n }, (_, j) => inf(m.bounds?.lb?.[j], m.bounds?.lb?.[j] === null ? -Infinity : 0));
  const colUp = Float64Array.from({ length: n }, (_, j) => inf(m.bounds?.ub?.[j], Infinity));
  const A = cscFromEntries(nRows, n, rows, cols, vals);
  return {
    name: 'model', sense: 'min', nRows, nCols: n,
    rowNames: Array.from({ length: nRows }, (_, i) => `r${i}`), colNames: Array.from({ length: n }, (_, j) => `x${j}`),
    colPtr: A.colPtr, rowIdx: A.rowIdx, vals: A.vals, c: Float64Array.from(m.c), objConst: 0,
    rowLo, rowUp, colLo, colUp, integer: Uint8Array.from({ length: n }, (_, j) => m.integrality?.[j] ?? 0),
  };
}

const byName = (names: string[], v: ArrayLike<number>) => Object.fromEntries(names.map((nm, k) => [nm, v[k]]));
const statusName = (s: number) => (s === BASIC ? 'basic' : s === AT_LOWER ? 'lower' : s === AT_UPPER ? 'upper' : 'zero');

export const run: SolverRun = (input, ctx): SolverOutput => {
  // no problem given: the documented example (Wyndor Glass), as the other own-problem solvers do
  const model: LpModel = input.mps !== undefined ? parseMps(input.mps) : input.lp !== undefined ? parseLpFormat(input.lp) : input.model !== undefined ? modelFromJson(input.model) : parseMps(EXAMPLE_MPS);
  const sense: 'min' | 'max' = input.sense ?? model.sense;
  if (model.nCols === 0) throw refuse('SHAPE_REFUSED', 'the problem has no columns (variables)', { field: input.mps !== undefined ? 'mps' : input.lp !== undefined ? 'lp' : 'model' });
  // internal form: minimise
  const minModel: LpModel = sense === 'max' ? { ...model, c: model.c.map((v) => -v) } : model;
  const deadline = performance.now() + 1000 * (input.timeLimit ?? DEFAULT_TIME_LIMIT_S);
  const isMilp = model.integer.some((v) => v === 1);
  if (!isMilp && input.mipGap !== undefined) throw noEffectRefusal('mipGap', 'on a problem without integer columns (a linear program is solved exactly)');
  if (isMilp && input.method === 'ipm') throw refuse('INVALID_INPUT', "method: 'ipm' solves linear programs; this problem has integer columns, whose branch and bound warm-starts the dual simplex at every node (use 'simplex' or 'auto')", { field: 'method' });
  const sgn = sense === 'max' ? -1 : 1;
  ctx.progress(0.05);
  const base = { name: model.name, rows: model.nRows, columns: model.nCols, nonzeros: model.colPtr[model.nCols], sense, integerColumns: model.integer.reduce((a, b) => a + b, 0) };

  if (isMilp) {
    const r = branchAndBound(prepareLp(minModel), { deadline, mipGap: input.mipGap ?? DEFAULT_MIP_GAP, seed: ctx.seed, progress: ctx.progress });
    ctx.progress(0.95);
    if (r.x) {
      const chk = checkIncumbent(model, r.x, sgn * r.bound);
      const objective = sgn * r.objective + model.objConst;
      const boundUser = sgn * r.bound + model.objConst;
      const worst = Math.max(chk.primalResidual, chk.integrality);
      return {
        value: objective, method: 'branch-and-bound',
        result: {
          status: r.status, objective, x: byName(model.colNames, r.x), bound: boundUser, gap: chk.gap, nodes: r.nodes,
          simplexIterations: r.iterations, ...base,
          check: { certificate: 'milp-incumbent', primalResidual: chk.primalResidual, integralityResidual: chk.integrality, gapRecomputed: chk.gap },
        },
        precision: precisionOf({
          errorPct: 100 * worst, boundPct: 100 * RESIDUAL_BOUND,
          reference: `incumbent checked independently: scaled primal residual ${chk.primalResidual.toExponential(2)}, integrality residual ${chk.integrality.toExponential(2)}; gap ${chk.gap.toExponential(2)} recomputed from the bound`,
          certificate: 'milp-incumbent',
        }),
      };
    }
    if (r.status === 'time_limit') throw timeLimitReached(input.timeLimit, `before an integer-feasible solution was found (${r.nodes} nodes)`, { nodes: r.nodes });
    if (r.status === 'unbounded') return certifiedUnbounded(model, sense, r.root, base);
    if (r.root.status === 'infeasible') return certifiedInfeasible(model, r.root, base, 'the LP relaxation is infeasible');
    // integer infeasible with a feasible relaxation: the search tree itself is the proof
    return {
      value: 0, method: 'branch-and-bound',
      result: { status: 'infeasible', nodes: r.nodes, simplexIterations: r.iterations, ...base, check: { certificate: 'milp-incumbent', reason: 'every node of the search tree is infeasible; a tree search is not independently re-checked' } },
      precision: precisionOf({ errorPct: 0, boundPct: 100 * RESIDUAL_BOUND, reference: 'complete branch-and-bound search: every node infeasible (no independent certificate for integer infeasibility)', certificate: 'milp-incumbent' }),
    };
  }

  const useIpm = input.method === 'ipm' || (input.method === 'auto' && model.nRows > AUTO_IPM_ROWS);
  const sol = solveWithPresolve(minModel, { deadline, seed: ctx.seed, ipm: useIpm, ...(input.method === 'auto' ? { ipmMaxFillRatio: AUTO_IPM_FILL_RATIO } : {}) });
  const ipmInfo = sol.ipm ? { ipm: sol.ipm } : {};
  ctx.progress(0.95);
  if (sol.status === 'time_limit') throw timeLimitReached(input.timeLimit, `after ${sol.iterations} simplex iterations without an optimal basis`, { iterations: sol.iterations });
  if (sol.status === 'infeasible') return certifiedInfeasible(model, sol, { ...base, ...ipmInfo }, 'the dual simplex found the dual unbounded along a row of B⁻¹');
  if (sol.status === 'unbounded') return certifiedUnbounded(model, sense, sol, { ...base, ...ipmInfo });
  const y = sol.y.map((v) => sgn * v), d = sol.d.map((v) => sgn * v);
  const chk = checkOptimal(model, sense, sol.x, y);
  const worst = Math.max(chk.primalResidual, chk.dualResidual, chk.gap);
  const objective = sgn * sol.objective + model.objConst;
  const basis = sol.basis!;
  return {
    value: objective, method: sol.ipm?.status === 'optimal' ? 'interior-point' : 'dual-simplex',
    result: {
      status: 'optimal', objective, x: byName(model.colNames, sol.x),
      duals: byName(model.rowNames, y), reducedCosts: byName(model.colNames, d),
      basis: {
        columns: Object.fromEntries(model.colNames.map((nm, j) => [nm, statusName(basis.status[j])])),
        rows: Object.fromEntries(model.rowNames.map((nm, i) => [nm, statusName(basis.status[model.nCols + i])])),
      },
      simplexIterations: sol.iterations, objectiveConstant: model.objConst, presolve: sol.presolve, ...ipmInfo, ...base,
      check: { certificate: 'lp-duality', primalResidual: chk.primalResidual, dualResidual: chk.dualResidual, gap: chk.gap, dualObjective: chk.dualObjective + model.objConst },
    },
    precision: precisionOf({
      errorPct: 100 * worst, boundPct: 100 * RESIDUAL_BOUND,
      reference: `duality certificate recomputed independently: scaled primal residual ${chk.primalResidual.toExponential(2)}, dual residual ${chk.dualResidual.toExponential(2)}, duality gap ${chk.gap.toExponential(2)}`,
      certificate: 'lp-duality',
    }),
  };
};

function certifiedInfeasible(model: LpModel, sol: LpSolution, base: Record<string, unknown>, how: string): SolverOutput {
  const chk = checkFarkas(model, sol.farkas ?? null);
  return {
    value: 0, method: 'dual-simplex',
    result: {
      status: 'infeasible', ...base,
      ...(sol.farkas ? { farkas: byName(model.rowNames, sol.farkas) } : {}),
      check: { certificate: 'farkas', proven: chk.proven, margin: chk.margin, reason: chk.reason },
    },
    precision: precisionOf({
      errorPct: chk.proven ? 0 : 100, boundPct: 100 * RESIDUAL_BOUND,
      reference: chk.proven ? `Farkas certificate verified independently (${how}): ${chk.reason}` : `Farkas certificate rejected: ${chk.reason}`,
      certificate: 'farkas', alsoHolds: chk.proven,
    }),
  };
}

function certifiedUnbounded(model: LpModel, sense: 'min' | 'max', sol: LpSolution, base: Record<string, unknown>): SolverOutput {
  const ray = sol.ray ?? new Float64Array(model.nCols);
  const chk = checkRay(model, sense, sol.x, ray);
  return {
    value: 0, method: 'dual-simplex',
    result: {
      status: 'unbounded', ...base, x: byName(model.colNames, sol.x), ray: byName(model.colNames, ray),
      check: { certificate: 'primal-ray', proven: chk.proven, primalResidual: chk.primalResidual, rayResidual: chk.rayResidual, objectiveSlope: chk.slope },
    },
    precision: precisionOf({
      errorPct: chk.proven ? Math.max(chk.primalResidual, chk.rayResidual) * 100 : 100, boundPct: 100 * RESIDUAL_BOUND,
      reference: chk.proven ? `feasible point and improving ray verified independently: slope cᵀr = ${chk.slope.toExponential(3)}` : 'the ray certificate was rejected',
      certificate: 'primal-ray', alsoHolds: chk.proven,
    }),
  };
}

export { primalResidual };

/** The search stopped at its time limit with nothing to seal: a time refusal (not a precision one:
 * nothing was computed wrongly), naming the limit and how to give it more time. */
function timeLimitReached(timeLimit: number | undefined, what: string, details: Record<string, unknown>) {
  const limit = timeLimit ?? DEFAULT_TIME_LIMIT_S;
  const more = limit < 600 ? `raise timeLimit (now ${limit} s, at most 600)` : 'the limit is already the largest (600 s)';
  return refuse('TIME_BUDGET_EXCEEDED', `the time limit of ${limit} s was reached ${what}: ${more}; a run longer than the synchronous budget goes as a job (POST /api/jobs, or Prefer: respond-async)`, { status: 'time_limit', timeLimit: limit, ...details });
}
