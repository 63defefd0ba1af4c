// Crossover from an interior-point solution to an optimal basis. The exact procedure of Megiddo
// ("On finding primal- and dual-optimal bases", ORSA J. Computing 3(1), 1991) pushes each
// superbasic variable to a bound with primal and then dual ratio tests; the practical one of
// Bixby & Saltzman ("Recovering an optimal LP basis from an interior point solution",
// Oper. Res. Letters 15, 1994) first guesses a basis from the interior point and lets the
// simplex method finish. This file does the guess and Megiddo's primal push, the dual simplex
// (simplex.ts, with its phase 1 and cost shifting) finishes from the basis it leaves:
//  - each non-fixed variable gets the indicator (distance to its nearest bound) / (its bound's
//    dual): large for a variable that will be basic, small for one that will sit at a bound
//    (Mehrotra & Ye, "Finding an interior point in the optimal face of linear programs",
//    Math. Prog. 62, 1993, use the same ratio to identify the optimal partition); free
//    variables come first;
//  - the m variables with the largest indicator form the basis; a dependent one is replaced by
//    a logical when the simplex code factorises it (factor.ts: slack repair);
//  - primal push (Megiddo §3; Bixby & Saltzman §2): the nonbasic variables keep their interior
//    values at first, the basic ones take B⁻¹·(−N·x_N); each "superbasic" one (a nonbasic
//    variable strictly inside its bounds, of which a dual-degenerate problem has many: the IPM
//    ends near the centre of the optimal face) is then moved to a bound along its column, in
//    the direction that does not raise the objective, with a primal ratio test over the basic
//    variables: it stops at its own bound, or enters the basis in place of the first basic
//    variable to reach a bound. The objective does not rise, and the basis stays primal
//    feasible up to the IPM's residuals, so the dual simplex that follows mostly has dual
//    infeasibilities left to remove (its phase 1) rather than a whole solve;
//  - every nonbasic variable sits at a bound (a free one at zero, or in the basis).
import { BASIC, AT_LOWER, AT_UPPER, AT_ZERO, basisColumnsOf, type SimplexBasis, type SimplexProblem } from './simplex.ts';
import { BasisFactor, REFACTOR_EVERY } from './factor.ts';
import type { IpmResult } from './ipm.ts';

export function crossoverBasis(p: SimplexProblem, r: IpmResult): SimplexBasis {
  const { m, n } = p;
  const N = n + m;
  const { lo, up } = p;
  const score = new Float64Array(N);
  const near = new Int8Array(N);
  for (let j = 0; j < N; j++) {
    const hl = lo[j] > -Infinity, hu = up[j] < Infinity;
    if (lo[j] === up[j]) { score[j] = -Infinity; near[j] = AT_LOWER; continue; }
    if (!hl && !hu) { score[j] = Infinity; near[j] = AT_ZERO; continue; }
    const dl = hl ? r.v[j] - lo[j] : Infinity, du = hu ? up[j] - r.v[j] : Infinity;
    if (dl <= du) { score[j] = Math.max(dl, 0) / Math.max(r.zl[j], 1e-300); near[j] = AT_LOWER; }
    else { score[j] = Math.max(du, 0) / Math.max(r.zu[j], 1e-300); near[j] = AT_UPPER; }
  }
  // deterministic order: score descending, then logicals before structurals, then index
  const order = Array.from({ length: N }, (_, j) => j).sort((a, b) => (score[b] - score[a]) || ((a >= n ? 0 : 1) - (b >= n ? 0 : 1)) || a - b);
  const status = new Int8Array(N);
  const head = new Int32Array(m);
  for (let k = 0; k < N; k++) {
    const j = order[k];
    if (k < m) { head[k] = j; status[j] = BASIC; } else status[j] = near[j];
  }
  primalPush(p, r, head, status);
  return { head, status };
}

const PUSH_PIVOT_TOL = 1e-9;
/** a reduced cost of the wrong sign beyond this enters in the primal simplex (scaled problem) */
const PRICE_TOL = 1e-9;

/** Megiddo's primal push on the guessed basis (in place): see the header. */
function primalPush(p: SimplexProblem, r: IpmResult, head: Int32Array, status: Int8Array): void {
  const { m, n, lo, up } = p;
  const N = n + m;
  const cols = basisColumnsOf(p);
  const factor = new BasisFactor(m);
  const refactor = () => {
    const before = Int32Array.from(head);
    factor.factor(cols, head);
    // a column pushed out by the slack repair goes to its nearest bound (the dual simplex copes)
    for (let k = 0; k < m; k++) if (head[k] !== before[k]) { status[before[k]] = nearestBound(before[k]); status[head[k]] = BASIC; }
  };
  const x = new Float64Array(N);
  const nearestBound = (j: number): number => {
    const hl = lo[j] > -Infinity, hu = up[j] < Infinity;
    if (hl && hu) return x[j] - lo[j] <= up[j] - x[j] ? AT_LOWER : AT_UPPER;
    return hl ? AT_LOWER : hu ? AT_UPPER : AT_ZERO;
  };
  // nonbasic values: the IPM's, clipped to the bounds
  for (let j = 0; j < N; j++) x[j] = Math.min(Math.max(r.v[j], lo[j]), up[j]);
  refactor();
  const work = new Float64Array(m);
  const basicValues = () => {
    work.fill(0);
    for (let j = 0; j < N; j++) {
      if (status[j] === BASIC) continue;
      const v = x[j];
      if (v === 0) continue;
      if (j < n) for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) work[p.rowIdx[t]] -= p.vals[t] * v;
      else work[j - n] += v;
    }
    factor.ftran(work);
    for (let k = 0; k < m; k++) x[head[k]] = work[k];
  };
  basicValues();
  // reduced costs of the current basis decide the direction of each push
  const y = new Float64Array(m);
  const cost = (j: number) => (j < n ? p.cost[j] : 0);
  const dualValues = () => {
    for (let k = 0; k < m; k++) y[k] = cost(head[k]);
    factor.btran(y);
  };
  const reducedCost = (j: number) => {
    if (j >= n) return y[j - n];
    let s = p.cost[j];
    for (let t = p.colPtr[j]; t < p.colPtr[j + 1]; t++) s -= p.vals[t] * y[p.rowIdx[t]];
    return s;
  };
  dualValues();
  const alpha = new Float64Array(m);
  const tolOf = (v: number) => 1e-9 * (1 + Math.abs(v));
  // superbasics, in index order (deterministic)
  for (let j = 0; j < N; j++) {
    if (status[j] === BASIC || lo[j] === up[j]) continue;
    const hl = lo[j] > -Infinity, hu = up[j] < Infinity;
    const atLo = hl && x[j] - lo[j] <= tolOf(lo[j]), atUp = hu && up[j] - x[j] <= tolOf(up[j]);
    if (atLo) { x[j] = lo[j]; status[j] = AT_LOWER; continue; }
    if (atUp) { x[j] = up[j]; status[j] = AT_UPPER; continue; }
    if (!hl && !hu && x[j] === 0) { status[j] = AT_ZERO; continue; }
    if (factor.updates >= REFACTOR_EVERY || factor.etaHeavy) { refactor(); basicValues(); dualValues(); }
    // direction: down (−1) or up (+1), the one that does not raise the objective, towards a finite bound
    const dj = reducedCost(j);
    let dir = dj > 0 ? -1 : dj < 0 ? 1 : (x[j] - (hl ? lo[j] : -Infinity) <= (hu ? up[j] : Infinity) - x[j] ? -1 : 1);
    if (dir < 0 && !hl && hu && Math.abs(dj) <= 1e-9) dir = 1;
    if (dir > 0 && !hu && hl && Math.abs(dj) <= 1e-9) dir = -1;
    if (step(j, dir) === 'unbounded') { status[j] = nearestBound(j); if (status[j] === AT_ZERO) x[j] = 0; }
  }
  // primal simplex on the pushed basis (Dantzig pricing, textbook ratio test with bound flips;
  // in place of Megiddo's dual push): removes the dual infeasibilities the guess left while
  // keeping primal feasibility, so the dual simplex afterwards has (almost) nothing to do.
  // At most m + 200 iterations; the dual simplex finishes whatever is left either way.
  const maxIter = m + 200;
  const pushedHead = Int32Array.from(head), pushedStatus = Int8Array.from(status);
  let converged = false;
  for (let it = 0; it < maxIter; it++) {
    if (factor.updates >= REFACTOR_EVERY || factor.etaHeavy) { refactor(); basicValues(); dualValues(); }
    let q = -1, best = PRICE_TOL;
    for (let j = 0; j < N; j++) {
      const s = status[j];
      if (s === BASIC || lo[j] === up[j]) continue;
      const dj = reducedCost(j);
      const v = s === AT_LOWER ? -dj : s === AT_UPPER ? dj : Math.abs(dj);
      if (v > best) { best = v; q = j; }
    }
    if (q < 0) { converged = true; break; }
    const dq = reducedCost(q);
    if (step(q, dq < 0 ? 1 : -1) === 'unbounded') break;
  }
  // not converged within the cap (a degenerate problem where Dantzig's rule stalls): the basis
  // of the push is the better start for the dual simplex
  if (!converged) { head.set(pushedHead); status.set(pushedStatus); }

  /** moves nonbasic j in direction dir until it reaches its own bound (a flip) or a basic variable reaches one (a pivot) */
  function step(j: number, dir: number): 'flip' | 'pivot' | 'unbounded' {
    const own = dir < 0 ? x[j] - lo[j] : up[j] - x[j];
    alpha.fill(0);
    cols.column(j, (i, v) => { alpha[i] += v; });
    factor.ftran(alpha);
    // x_B changes by −dir·θ·α
    let theta = own, leave = -1, leaveTo = 0;
    for (let k = 0; k < m; k++) {
      const a = alpha[k];
      if (Math.abs(a) <= PUSH_PIVOT_TOL) continue;
      const b = head[k];
      const rate = -dir * a;
      let t: number;
      if (rate < 0) { if (lo[b] === -Infinity) continue; t = Math.max(x[b] - lo[b], 0) / -rate; }
      else { if (up[b] === Infinity) continue; t = Math.max(up[b] - x[b], 0) / rate; }
      if (t < theta || (t === theta && leave >= 0 && Math.abs(a) > Math.abs(alpha[leave]))) { theta = t; leave = k; leaveTo = rate < 0 ? AT_LOWER : AT_UPPER; }
    }
    if (theta === Infinity) return 'unbounded';
    for (let k = 0; k < m; k++) if (alpha[k] !== 0) x[head[k]] -= dir * theta * alpha[k];
    x[j] += dir * theta;
    if (leave < 0) {
      status[j] = dir < 0 ? AT_LOWER : AT_UPPER;
      x[j] = dir < 0 ? lo[j] : up[j];
      return 'flip';
    }
    const b = head[leave];
    status[b] = lo[b] === up[b] ? AT_LOWER : leaveTo;
    x[b] = status[b] === AT_UPPER ? up[b] : lo[b];
    head[leave] = j; status[j] = BASIC;
    factor.update(leave, alpha);
    dualValues();
    return 'pivot';
  }
}
