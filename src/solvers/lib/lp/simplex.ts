// Dual simplex method with bounded variables, dual steepest-edge pricing, the bound-flipping
// ratio test and cost shifting, after Koberstein, "The dual simplex method, techniques for a fast
// and stable implementation", PhD thesis, Universität Paderborn 2005 (Algorithm 7 for the
// iteration with bound flips, §3.3.2 for the BFRT with Harris' tolerances, §4.4 / Algorithm 10
// for dual phase 1 by the auxiliary-problem approach, §6.2 for perturbation and shifting), and
// Maros, "Computational Techniques of the Simplex Method", Kluwer 2003, ch. 10 (the dual
// algorithm, "generalised dual phase 2"). Dual steepest edge weights and their update are
// Forrest & Goldfarb, "Steepest-edge simplex algorithms for linear programming", Math. Prog. 57,
// 1992 (the "dual algorithm 1" weights ‖e_rᵀB⁻¹‖²). Harris' two-pass ratio test: Harris,
// "Pivot selection methods of the Devex LP code", Math. Prog. 5, 1973.
//
// Computational form: minimise cᵀx over (x, s) with A·x − s = 0, lo ≤ (x, s) ≤ up; the logical
// column of row i is −e_i, so the slack basis is −I and the dual of row i is the reduced cost of
// its logical. The basis lives in lib/lp/factor.ts (LU + product-form updates).
//
// Outcomes: 'optimal' (primal and dual feasible within tolerances), 'infeasible' with a Farkas
// row (a row of B⁻¹ along which the dual is unbounded), 'dual-infeasible' (phase 1 could not
// reach a dual-feasible basis: the primal is unbounded or infeasible; lp/solve.ts decides which),
// 'time_limit' / 'iteration_limit'.
import { BasisFactor, REFACTOR_EVERY, type BasisColumns } from './factor.ts';

export const BASIC = 0, AT_LOWER = 1, AT_UPPER = 2, AT_ZERO = 3;

/** The columns of [A | −I] (structural columns, then one logical per row) as the basis
 * factorisation reads them; shared by the simplex and the crossover's primal push. */
export function basisColumnsOf(p: SimplexProblem): BasisColumns {
  const { m, n } = p;
  const rowCounts = new Int32Array(m);
  for (let i = 0; i < m; i++) rowCounts[i] = p.rowPtr[i + 1] - p.rowPtr[i];
  return {
    m,
    column(j, visit) {
      if (j < n) for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) visit(p.rowIdx[t], p.vals[t]);
      else visit(j - n, -1);
    },
    count: (j) => (j < n ? p.colPtr[j + 1] - p.colPtr[j] : 1),
    rowCount: (i) => rowCounts[i],
    logical: (i) => n + i,
  };
}

export interface SimplexProblem {
  m: number; n: number;
  colPtr: Int32Array; rowIdx: Int32Array; vals: Float64Array;
  rowPtr: Int32Array; colIdx: Int32Array; rvals: Float64Array;
  /** costs of the n structural columns (logicals cost 0) */
  cost: Float64Array;
  /** bounds of all n + m variables (structurals then the row activities) */
  lo: Float64Array; up: Float64Array;
}

export interface SimplexBasis { head: Int32Array; status: Int8Array }

export interface SimplexOptions {
  deadline?: number;
  maxIterations?: number;
  perturb?: boolean;
  /** random stream for the perturbation (deterministic) */
  seed?: number;
  primalTol?: number;
  dualTol?: number;
}

export interface SimplexResult {
  status: 'optimal' | 'infeasible' | 'dual-infeasible' | 'time_limit' | 'iteration_limit';
  /** values of the n + m variables */
  x: Float64Array;
  /** row duals */
  y: Float64Array;
  /** reduced costs of the n + m variables (logicals: equal to y) */
  d: Float64Array;
  basis: SimplexBasis;
  /** infeasible: a row multiplier vector proving it */
  farkas?: Float64Array;
  iterations: number;
  objective: number;
}

const PIVOT_TOL = 1e-7;

export function slackBasis(p: SimplexProblem): SimplexBasis {
  const head = new Int32Array(p.m), status = new Int8Array(p.n + p.m);
  for (let i = 0; i < p.m; i++) { head[i] = p.n + i; status[p.n + i] = BASIC; }
  for (let j = 0; j < p.n; j++) status[j] = nonbasicStatus(p.lo[j], p.up[j], 0);
  return { head, status };
}

function nonbasicStatus(lo: number, up: number, d: number): number {
  const fl = lo > -Infinity, fu = up < Infinity;
  if (fl && fu) return d >= 0 ? AT_LOWER : AT_UPPER;
  if (fl) return AT_LOWER;
  if (fu) return AT_UPPER;
  return AT_ZERO;
}

/** A seeded stream in [0, 1) (splitmix32): the perturbation must be the same on every run. */
function stream(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

export function dualSimplex(p: SimplexProblem, start: SimplexBasis | null, opts: SimplexOptions = {}): SimplexResult {
  const { m, n } = p;
  const N = n + m;
  const tolP = opts.primalTol ?? 1e-7, tolD = opts.dualTol ?? 1e-7;
  const maxIter = opts.maxIterations ?? Math.max(50_000, 50 * (m + n));
  const basis: SimplexBasis = start ? { head: Int32Array.from(start.head), status: Int8Array.from(start.status) } : slackBasis(p);
  const { head, status } = basis;
  const lo = Float64Array.from(p.lo), up = Float64Array.from(p.up);
  const cost = new Float64Array(N);
  cost.set(p.cost);
  const x = new Float64Array(N), d = new Float64Array(N);
  const posOf = new Int32Array(N).fill(-1);
  const dse = new Float64Array(m).fill(1);
  const factor = new BasisFactor(m);
  const cols = basisColumnsOf(p);
  let iterations = 0;
  const work = new Float64Array(m), rho = new Float64Array(m), alphaQ = new Float64Array(m), tau = new Float64Array(m);
  const alphaRow = new Float64Array(N);
  const rowMark = new Uint8Array(N);
  const rowList = new Int32Array(N);
  let rowLen = 0;

  const refactor = () => {
    for (const j of head) status[j] = BASIC;
    const dropped = factor.factor(cols, head);
    if (dropped.length) {
      // the columns pushed out become nonbasic at a bound; their logical replacements basic
      const inBasis = new Uint8Array(N);
      for (const j of head) inBasis[j] = 1;
      for (let j = 0; j < N; j++) if (status[j] === BASIC && !inBasis[j]) status[j] = nonbasicStatus(lo[j], up[j], d[j]);
      for (const j of head) status[j] = BASIC;
    }
    posOf.fill(-1);
    for (let r = 0; r < m; r++) posOf[head[r]] = r;
  };
  const setNonbasicValues = () => {
    for (let j = 0; j < N; j++) {
      const s = status[j];
      if (s === AT_LOWER) x[j] = lo[j]; else if (s === AT_UPPER) x[j] = up[j]; else if (s === AT_ZERO) x[j] = 0;
    }
  };
  /** x_B from B·x_B = −N·x_N */
  const computePrimal = () => {
    work.fill(0);
    for (let j = 0; j < N; j++) {
      if (status[j] === BASIC) continue;
      const v = x[j];
      if (v === 0) continue;
      if (j < n) for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) work[p.rowIdx[t]] -= p.vals[t] * v;
      else work[j - n] += v;
    }
    factor.ftran(work);
    for (let r = 0; r < m; r++) x[head[r]] = work[r];
  };
  /** y = B⁻ᵀ c_B, d = c − [A −I]ᵀ y */
  const y = new Float64Array(m);
  const computeDual = () => {
    for (let r = 0; r < m; r++) y[r] = cost[head[r]];
    factor.btran(y);
    for (let j = 0; j < n; j++) {
      let s = cost[j];
      for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) s -= p.vals[t] * y[p.rowIdx[t]];
      d[j] = s;
    }
    for (let i = 0; i < m; i++) d[n + i] = cost[n + i] + y[i];
    for (let r = 0; r < m; r++) d[head[r]] = 0;
  };
  /** boxed nonbasics take the bound their reduced cost asks for; returns the count of others that are dual infeasible */
  const flipToDualFeasible = (tol: number): number => {
    let bad = 0;
    for (let j = 0; j < N; j++) {
      const s = status[j];
      if (s === BASIC || lo[j] === up[j]) continue;
      const fl = lo[j] > -Infinity, fu = up[j] < Infinity;
      if (fl && fu) { status[j] = d[j] >= 0 ? AT_LOWER : AT_UPPER; continue; }
      if (s === AT_LOWER && d[j] < -tol) bad++;
      else if (s === AT_UPPER && d[j] > tol) bad++;
      else if (s === AT_ZERO && Math.abs(d[j]) > tol) bad++;
    }
    return bad;
  };
  const deadlineHit = () => opts.deadline !== undefined && (iterations & 31) === 0 && performance.now() > opts.deadline;

  type PhaseOutcome = 'optimal' | 'unbounded-dual' | 'time_limit' | 'iteration_limit';
  let farkasRow: Float64Array | null = null;

  /** Dual phase 2 iterations on the current bounds and costs (the basis must be dual feasible up to shifts). */
  const phase2 = (): PhaseOutcome => {
    for (;;) {
      if (iterations >= maxIter) return 'iteration_limit';
      if (deadlineHit()) return 'time_limit';
      if (factor.updates >= REFACTOR_EVERY || factor.etaHeavy) {
        refactor(); setNonbasicValues(); computePrimal(); computeDual(); shiftDualInfeasibilities();
      }
      // pricing: dual steepest edge
      let r = -1, best = 0;
      for (let i = 0; i < m; i++) {
        const j = head[i], v = x[j];
        let inf = 0;
        if (v < lo[j] - tolP) inf = lo[j] - v; else if (v > up[j] + tolP) inf = v - up[j];
        if (inf > 0) { const score = (inf * inf) / dse[i]; if (score > best) { best = score; r = i; } }
      }
      if (r < 0) return 'optimal';
      const jl = head[r];
      const delta = x[jl] < lo[jl] ? x[jl] - lo[jl] : x[jl] - up[jl];
      // BTRAN: rho = row r of B⁻¹
      rho.fill(0); rho[r] = 1; factor.btran(rho);
      // pivot row alpha_j = rhoᵀ a_j over nonbasic j
      for (let k = 0; k < rowLen; k++) { const j = rowList[k]; alphaRow[j] = 0; rowMark[j] = 0; }
      rowLen = 0;
      // (only nonbasic columns: a basic one's entry is 0 or 1 and never enters)
      for (let i = 0; i < m; i++) {
        const ri = rho[i];
        if (ri === 0) continue;
        for (let t = p.rowPtr[i], e = p.rowPtr[i + 1]; t < e; t++) {
          const j = p.colIdx[t];
          if (status[j] === BASIC) continue;
          if (rowMark[j] === 0) { rowMark[j] = 1; rowList[rowLen++] = j; }
          alphaRow[j] += ri * p.rvals[t];
        }
        const jlog = n + i;
        if (status[jlog] === BASIC) continue;
        if (rowMark[jlog] === 0) { rowMark[jlog] = 1; rowList[rowLen++] = jlog; }
        alphaRow[jlog] -= ri;
      }
      // bound-flipping ratio test with Harris' tolerance
      const sgn = delta > 0 ? 1 : -1;
      const cand: number[] = [];
      for (let k = 0; k < rowLen; k++) {
        const j = rowList[k];
        const s = status[j];
        if (lo[j] === up[j]) continue;
        const a = sgn * alphaRow[j];
        if (s === AT_LOWER ? a > PIVOT_TOL : s === AT_UPPER ? a < -PIVOT_TOL : Math.abs(a) > PIVOT_TOL) cand.push(j);
      }
      let slope = Math.abs(delta);
      const flips: number[] = [];
      let q = -1;
      let remaining = cand;
      while (remaining.length) {
        let tmax = Infinity;
        for (const j of remaining) {
          const a = sgn * alphaRow[j];
          const s = status[j];
          const t = s === AT_ZERO ? tolD / Math.abs(a) : s === AT_LOWER ? (d[j] + tolD) / a : (d[j] - tolD) / a;
          if (t < tmax) tmax = t;
        }
        const group: number[] = [], rest: number[] = [];
        let reduction = 0;
        for (const j of remaining) {
          const a = sgn * alphaRow[j];
          const s = status[j];
          const t = s === AT_ZERO ? 0 : d[j] / a;
          if (t <= tmax) { group.push(j); reduction += Math.abs(a) * (up[j] - lo[j]); } else rest.push(j);
        }
        if (slope - reduction > 0 && rest.length) {
          slope -= reduction; flips.push(...group); remaining = rest; continue;
        }
        if (slope - reduction > tolP && !rest.length && Number.isFinite(reduction)) {
          // every candidate can be flipped and the dual objective still rises: no finite step
          flips.push(...group); remaining = []; break;
        }
        let amax = 0;
        for (const j of group) { const a = Math.abs(alphaRow[j]); if (a > amax) { amax = a; q = j; } }
        break;
      }
      if (q < 0) {
        farkasRow = Float64Array.from(rho);
        return 'unbounded-dual';
      }
      // FTRAN of the entering column
      alphaQ.fill(0);
      cols.column(q, (i, v) => { alphaQ[i] += v; });
      factor.ftran(alphaQ);
      const aRow = alphaRow[q], aCol = alphaQ[r];
      if (Math.abs(aRow - aCol) > 1e-8 * (1 + Math.abs(aCol)) || Math.abs(aCol) < PIVOT_TOL * 0.1) {
        if (factor.updates > 0) { refactor(); setNonbasicValues(); computePrimal(); computeDual(); shiftDualInfeasibilities(); continue; }
      }
      iterations++;
      // dual step: make d_q exactly zero (shifting its cost when it is slightly of the wrong sign)
      const sq = status[q];
      if ((sq === AT_LOWER && d[q] < 0) || (sq === AT_UPPER && d[q] > 0)) { cost[q] -= d[q]; d[q] = 0; }
      const thetaD = d[q] / aCol;
      for (let k = 0; k < rowLen; k++) { const j = rowList[k]; d[j] -= thetaD * alphaRow[j]; }
      d[jl] = -thetaD;
      d[q] = 0;
      // bound flips
      if (flips.length) {
        work.fill(0);
        for (const j of flips) {
          const from = x[j];
          const toUpper = status[j] === AT_LOWER;
          status[j] = toUpper ? AT_UPPER : AT_LOWER;
          x[j] = toUpper ? up[j] : lo[j];
          const dx = x[j] - from;
          if (j < n) for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) work[p.rowIdx[t]] += p.vals[t] * dx;
          else work[j - n] -= dx;
        }
        factor.ftran(work);
        for (let i = 0; i < m; i++) x[head[i]] -= work[i];
      }
      // the entries whose reduced cost now has the wrong sign (Harris' overshoot): shift their cost
      for (let k = 0; k < rowLen; k++) {
        const j = rowList[k];
        const s = status[j];
        if (s === BASIC || j === q) continue;
        if ((s === AT_LOWER && d[j] < 0) || (s === AT_UPPER && d[j] > 0) || (s === AT_ZERO && d[j] !== 0)) {
          if (lo[j] === up[j]) continue;
          cost[j] -= d[j]; d[j] = 0;
        }
      }
      // primal step
      const target = delta < 0 ? lo[jl] : up[jl];
      const thetaP = (x[jl] - target) / aCol;
      for (let i = 0; i < m; i++) { const a = alphaQ[i]; if (a !== 0) x[head[i]] -= thetaP * a; }
      x[q] += thetaP;
      x[jl] = target;
      // dual steepest-edge weights
      let wr = 0;
      for (let i = 0; i < m; i++) wr += rho[i] * rho[i];
      tau.set(rho); factor.ftran(tau);
      for (let i = 0; i < m; i++) {
        if (i === r) continue;
        const a = alphaQ[i];
        if (a === 0) continue;
        const ratio = a / aCol;
        dse[i] = Math.max(dse[i] + ratio * (ratio * wr - 2 * tau[i]), 1e-6);
      }
      dse[r] = Math.max(wr / (aCol * aCol), 1e-6);
      // basis change
      head[r] = q; posOf[q] = r; posOf[jl] = -1;
      status[q] = BASIC;
      status[jl] = delta < 0 ? AT_LOWER : AT_UPPER;
      if (lo[jl] === up[jl]) status[jl] = AT_LOWER;
      factor.update(r, alphaQ);
    }
  };

  /** after a recomputation: boxed nonbasics are flipped, small wrong-sign reduced costs shifted */
  function shiftDualInfeasibilities() {
    let flipped = false;
    for (let j = 0; j < N; j++) {
      const s = status[j];
      if (s === BASIC || lo[j] === up[j]) continue;
      const wrong = (s === AT_LOWER && d[j] < 0) || (s === AT_UPPER && d[j] > 0) || (s === AT_ZERO && d[j] !== 0);
      if (!wrong) continue;
      if (lo[j] > -Infinity && up[j] < Infinity && Math.abs(d[j]) > tolD) { status[j] = d[j] >= 0 ? AT_LOWER : AT_UPPER; flipped = true; continue; }
      cost[j] -= d[j]; d[j] = 0;
    }
    if (flipped) { setNonbasicValues(); computePrimal(); }
  }

  const origLo = Float64Array.from(lo), origUp = Float64Array.from(up);
  const origCost = Float64Array.from(cost);
  const rand = stream(opts.seed ?? 12345);
  let outcome: SimplexResult['status'] | null = null;
  let farkas: Float64Array | undefined;

  for (let attempt = 0; attempt < 6 && outcome === null; attempt++) {
    lo.set(origLo); up.set(origUp); cost.set(origCost);
    refactor();
    computeDual();
    let bad = flipToDualFeasible(tolD);
    setNonbasicValues();
    // dual phase 1: the auxiliary problem with boxed bounds (Koberstein Alg. 10), repeated while
    // it makes progress (its cost shifts are dropped after each run, which can leave a few small
    // dual infeasibilities for another round)
    let phase1Runs = 0;
    while (bad > 0 && outcome === null) {
      for (let j = 0; j < N; j++) {
        const fl = origLo[j] > -Infinity, fu = origUp[j] < Infinity;
        if (fl && fu) { lo[j] = 0; up[j] = 0; }
        else if (fl) { lo[j] = 0; up[j] = 1; }
        else if (fu) { lo[j] = -1; up[j] = 0; }
        else { lo[j] = -1; up[j] = 1; }
      }
      for (let j = 0; j < N; j++) if (status[j] !== BASIC) status[j] = lo[j] === up[j] ? AT_LOWER : (d[j] >= 0 ? AT_LOWER : AT_UPPER);
      setNonbasicValues(); computePrimal();
      const it0 = iterations;
      const o1 = phase2();
      if (o1 === 'time_limit' || o1 === 'iteration_limit') { outcome = o1; break; }
      lo.set(origLo); up.set(origUp);
      cost.set(origCost);
      refactor(); computeDual();
      for (let j = 0; j < N; j++) if (status[j] !== BASIC) status[j] = nonbasicStatus(lo[j], up[j], d[j]);
      bad = flipToDualFeasible(tolD);
      setNonbasicValues();
      if (bad > 0 && (iterations === it0 || ++phase1Runs >= 8)) outcome = 'dual-infeasible';
    }
    if (outcome !== null) break;
    // phase 2, first with perturbed costs (against stalling on dual degeneracy)
    if (opts.perturb !== false && attempt === 0) {
      for (let j = 0; j < n; j++) {
        if (status[j] === BASIC || lo[j] === up[j]) continue;
        const eps = (5e-7 + 1e-7 * rand()) * (1 + Math.abs(cost[j]));
        if (status[j] === AT_LOWER) { cost[j] += eps; d[j] += eps; }
        else if (status[j] === AT_UPPER) { cost[j] -= eps; d[j] -= eps; }
      }
    }
    computePrimal();
    const o2 = phase2();
    if (o2 === 'time_limit' || o2 === 'iteration_limit') { outcome = o2; break; }
    if (o2 === 'unbounded-dual') { outcome = 'infeasible'; farkas = farkasRow!; break; }
    // remove perturbation and shifts; check both feasibilities with the true costs
    cost.set(origCost);
    refactor(); setNonbasicValues(); computePrimal(); computeDual();
    let dualBad = 0;
    for (let j = 0; j < N; j++) {
      const s = status[j];
      if (s === BASIC || lo[j] === up[j]) continue;
      if ((s === AT_LOWER && d[j] < -tolD) || (s === AT_UPPER && d[j] > tolD) || (s === AT_ZERO && Math.abs(d[j]) > tolD)) dualBad++;
    }
    let primalBad = 0;
    for (let r = 0; r < m; r++) { const j = head[r]; if (x[j] < lo[j] - tolP || x[j] > up[j] + tolP) primalBad++; }
    if (!dualBad && !primalBad) { outcome = 'optimal'; break; }
    // otherwise iterate again from this basis without perturbation
    opts = { ...opts, perturb: false };
  }
  if (outcome === null) outcome = 'iteration_limit';
  // final values with the true costs
  cost.set(origCost);
  const yOut = new Float64Array(m);
  for (let r = 0; r < m; r++) yOut[r] = cost[head[r]];
  factor.btran(yOut);
  const dOut = new Float64Array(N);
  for (let j = 0; j < n; j++) {
    let s = cost[j];
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) s -= p.vals[t] * yOut[p.rowIdx[t]];
    dOut[j] = s;
  }
  for (let i = 0; i < m; i++) dOut[n + i] = yOut[i];
  for (let r = 0; r < m; r++) dOut[head[r]] = 0;
  let objective = 0;
  for (let j = 0; j < n; j++) objective += cost[j] * x[j];
  return { status: outcome, x: Float64Array.from(x), y: yOut, d: dOut, basis: { head: Int32Array.from(head), status: Int8Array.from(status) }, farkas, iterations, objective };
}
