// Primal-dual interior-point method with Mehrotra's predictor-corrector, on the computational
// form of the simplex code (simplex.ts): minimise cᵀx over v = (x, s) with Ā·v = [A | −I]·v = 0
// and lo ≤ v ≤ up, bounds finite or not. Sources: Mehrotra, "On the implementation of a
// primal-dual interior point method", SIAM J. Optim. 2(4), 1992 (predictor-corrector, σ =
// (μ_aff/μ)³, the starting point); Wright, "Primal-Dual Interior-Point Methods", SIAM 1997,
// ch. 10 (the algorithm) and ch. 11 (bounds, free variables, normal equations, singular
// pivots); Lustig, Marsten & Shanno, "Computational experience with a primal-dual interior point
// method for linear programming", Linear Algebra Appl. 152, 1991 (upper bounds as explicit slacks).
//
// Variables: a column with a finite lower bound keeps the slack v − lo implicitly (v stays above
// lo); a finite upper bound gets an explicit slack t with residual up − v − t (so the start need
// not lie inside a box); a fixed column (lo = up, equality rows' logicals) does not move. Dual:
// Āᵀy + zl − zu = c, zl, zu ≥ 0. The Newton system reduces to the normal equations
//   Ā·Θ·Āᵀ·Δy = r_p + Ā·Θ·g,   Θ = (zl/(v − lo) + zu/t)⁻¹,
// factorised by normal.ts (sparse Cholesky, AMD order); a free column gets the regularisation
// Θ⁻¹ = FREE_REG (Wright ch. 11 discusses the options; this is the simplest that is stable).
//
// Stops at relative primal and dual infeasibility and relative gap all ≤ 1e-8 ('optimal'), or
// 'stalled' (no progress, or iterates diverging: the mark of an infeasible or unbounded problem,
// Wright ch. 9; the driver then lets the dual simplex decide and certify), or 'time_limit'.
// The result is an interior point near the optimal face, not a vertex: crossover.ts turns it
// into a basis.
import type { SimplexProblem } from './simplex.ts';
import { NormalFactor } from './normal.ts';

export interface IpmOptions { deadline?: number; maxIterations?: number; tol?: number; maxFill?: number; primalReg?: number }

export interface IpmResult {
  status: 'optimal' | 'stalled' | 'time_limit' | 'too_dense';
  /** the n + m variables */
  v: Float64Array;
  y: Float64Array;
  zl: Float64Array; zu: Float64Array;
  iterations: number;
  primalInfeasibility: number; dualInfeasibility: number; gap: number;
  primalObjective: number; dualObjective: number;
}

const FREE_REG = 1e-8;
/** primal regularisation for the second attempt (see interiorPoint) */
const PRIMAL_REG = 1e-8;
/** the largest Cholesky factor attempted (entries of L: about 100 MB with its indices) */
export const MAX_FILL = 8_000_000;
const STEP = 0.9995;
const REFINE = 3;

/**
 * The IPM, and when it stalls a second attempt with the primal regularisation Θ⁻¹ + 1e-8 (a
 * proximal term: Altman & Gondzio, "Regularized symmetric indefinite systems in interior point
 * methods for linear and quadratic optimization", Optim. Methods Softw. 11, 1999). Without it
 * the iterates run off to 1e12 where the optimal face is unbounded or the equality rows nearly
 * dependent (Netlib BRANDY, SCFXM1-3); with it, problems with badly scaled duals (GROW7-22,
 * TUFF) stop short of 1e-8, so it is the second attempt, not the first.
 */
export function interiorPoint(p: SimplexProblem, opts: IpmOptions = {}): IpmResult {
  const first = ipmAttempt(p, opts);
  if (first.status !== 'stalled' || opts.primalReg !== undefined) return first;
  const second = ipmAttempt(p, { ...opts, primalReg: PRIMAL_REG });
  return { ...second, iterations: first.iterations + second.iterations };
}

function ipmAttempt(p: SimplexProblem, opts: IpmOptions): IpmResult {
  const { m, n } = p;
  const primalReg = opts.primalReg ?? 0;
  const N = n + m;
  const tol = opts.tol ?? 1e-8;
  const maxIter = opts.maxIterations ?? 200;
  const lo = p.lo, up = p.up;
  const cost = new Float64Array(N);
  cost.set(p.cost);
  const hasL = new Uint8Array(N), hasU = new Uint8Array(N), fixed = new Uint8Array(N);
  let nComp = 0;
  for (let j = 0; j < N; j++) {
    if (lo[j] === up[j]) { fixed[j] = 1; continue; }
    if (lo[j] > -Infinity) { hasL[j] = 1; nComp++; }
    if (up[j] < Infinity) { hasU[j] = 1; nComp++; }
  }
  const v = new Float64Array(N), t = new Float64Array(N), zl = new Float64Array(N), zu = new Float64Array(N), y = new Float64Array(m);
  const empty = (status: IpmResult['status'], iterations = 0): IpmResult => ({ status, v, y, zl, zu, iterations, primalInfeasibility: Infinity, dualInfeasibility: Infinity, gap: Infinity, primalObjective: NaN, dualObjective: NaN });
  const nf = NormalFactor.analyse(p, opts.maxFill ?? MAX_FILL);
  if (!nf) return empty('too_dense');

  /** Ā·u (u over N) */
  const abarTimes = (u: Float64Array, out: Float64Array) => {
    out.fill(0);
    for (let j = 0; j < n; j++) { const uj = u[j]; if (uj === 0) continue; for (let q = p.colPtr[j]; q < p.colPtr[j + 1]; q++) out[p.rowIdx[q]] += p.vals[q] * uj; }
    for (let i = 0; i < m; i++) out[i] -= u[n + i];
  };
  /** Āᵀ·w (w over m) */
  const abarT = (w: Float64Array, out: Float64Array) => {
    for (let j = 0; j < n; j++) { let s = 0; for (let q = p.colPtr[j]; q < p.colPtr[j + 1]; q++) s += p.vals[q] * w[p.rowIdx[q]]; out[j] = s; }
    for (let i = 0; i < m; i++) out[n + i] = -w[i];
  };

  // --- starting point (Mehrotra 1992 §6, adapted to bounds): least-squares primal and dual
  // solutions with Θ = I, then shifted into the interior
  const theta = new Float64Array(N);
  for (let j = 0; j < N; j++) theta[j] = fixed[j] ? 0 : 1;
  nf.factor(theta);
  const fixedPart = new Float64Array(N);
  for (let j = 0; j < N; j++) if (fixed[j]) fixedPart[j] = lo[j];
  const rowTmp = new Float64Array(m), colTmp = new Float64Array(N);
  // v = v_F + Θ Āᵀ (Ā Θ Āᵀ)⁻¹ (−Ā v_F): the least-norm point on Ā v = 0 with v_F fixed
  abarTimes(fixedPart, rowTmp);
  for (let i = 0; i < m; i++) rowTmp[i] = -rowTmp[i];
  let w = nf.solve(rowTmp);
  abarT(w, colTmp);
  for (let j = 0; j < N; j++) v[j] = fixed[j] ? lo[j] : colTmp[j];
  // y = (Ā Θ Āᵀ)⁻¹ Ā Θ c, z = c − Āᵀ y
  const thc = new Float64Array(N);
  for (let j = 0; j < N; j++) thc[j] = theta[j] * cost[j];
  abarTimes(thc, rowTmp);
  w = nf.solve(rowTmp);
  y.set(w);
  abarT(y, colTmp);
  let minX = Infinity, minZ = Infinity;
  for (let j = 0; j < N; j++) {
    if (fixed[j]) continue;
    const zj = cost[j] - colTmp[j];
    if (hasL[j] && hasU[j]) { zl[j] = Math.max(zj, 0); zu[j] = Math.max(-zj, 0); }
    else if (hasL[j]) zl[j] = zj;
    else if (hasU[j]) zu[j] = -zj;
    if (hasL[j]) { minX = Math.min(minX, v[j] - lo[j]); minZ = Math.min(minZ, zl[j]); }
    if (hasU[j]) { t[j] = up[j] - v[j]; minX = Math.min(minX, t[j]); minZ = Math.min(minZ, zu[j]); }
  }
  if (nComp > 0) {
    const dx = Math.max(-1.5 * minX, 0), dz = Math.max(-1.5 * minZ, 0);
    let xz = 0, sx = 0, sz = 0;
    for (let j = 0; j < N; j++) {
      if (hasL[j]) { const a = v[j] - lo[j] + dx, b = zl[j] + dz; xz += a * b; sx += a; sz += b; }
      if (hasU[j]) { const a = t[j] + dx, b = zu[j] + dz; xz += a * b; sx += a; sz += b; }
    }
    const dx2 = dx + (sz > 0 ? 0.5 * xz / sz : 0), dz2 = dz + (sx > 0 ? 0.5 * xz / sx : 0);
    // a floor keeps every product positive even when the least-squares point sits on the bounds
    const floorX = Math.max(dx2, 1e-2), floorZ = Math.max(dz2, 1e-2);
    for (let j = 0; j < N; j++) {
      if (hasL[j]) { v[j] = lo[j] + Math.max(v[j] - lo[j] + dx2, floorX); zl[j] = Math.max(zl[j] + dz2, floorZ); }
      if (hasU[j]) { t[j] = Math.max(t[j] + dx2, floorX); zu[j] = Math.max(zu[j] + dz2, floorZ); }
    }
  }

  // --- iterations
  const rp = new Float64Array(m), ru = new Float64Array(N), rd = new Float64Array(N);
  const aty = new Float64Array(N);
  const g = new Float64Array(N), rl = new Float64Array(N), rt = new Float64Array(N);
  const dv = new Float64Array(N), dt = new Float64Array(N), dzl = new Float64Array(N), dzu = new Float64Array(N);
  const dva = new Float64Array(N), dta = new Float64Array(N), dzla = new Float64Array(N), dzua = new Float64Array(N);
  const atdy = new Float64Array(N), tg = new Float64Array(N), rhs = new Float64Array(m), resid = new Float64Array(m);
  let bnorm = 1, cnorm = 1;
  for (let j = 0; j < N; j++) {
    if (Number.isFinite(lo[j])) bnorm = Math.max(bnorm, 1 + Math.abs(lo[j]));
    if (Number.isFinite(up[j])) bnorm = Math.max(bnorm, 1 + Math.abs(up[j]));
    cnorm = Math.max(cnorm, 1 + Math.abs(cost[j]));
  }
  let iterations = 0;
  let pinf = Infinity, dinf = Infinity, gap = Infinity, pobj = NaN, dobj = NaN;
  let best = Infinity, sinceBest = 0;

  /** the direction for the complementarity right-hand sides rl (lower) and rt (upper) */
  const direction = (outV: Float64Array, outT: Float64Array, outZl: Float64Array, outZu: Float64Array) => {
    for (let j = 0; j < N; j++) {
      if (fixed[j]) { g[j] = 0; continue; }
      let gj = rd[j];
      if (hasL[j]) gj -= rl[j] / (v[j] - lo[j]);
      if (hasU[j]) gj += (rt[j] - zu[j] * ru[j]) / t[j];
      g[j] = gj;
      tg[j] = theta[j] * gj;
    }
    abarTimes(tg, rhs);
    for (let i = 0; i < m; i++) rhs[i] += rp[i];
    const dy = nf.solve(rhs);
    // iterative refinement on the normal equations (the factors may be inexact where pivots
    // were dropped or Θ spans many orders of magnitude)
    for (let pass = 0; pass < REFINE; pass++) {
      abarT(dy, atdy);
      for (let j = 0; j < N; j++) tg[j] = theta[j] * atdy[j];
      abarTimes(tg, resid);
      let rmax = 0, bmax = 0;
      for (let i = 0; i < m; i++) { resid[i] = rhs[i] - resid[i]; rmax = Math.max(rmax, Math.abs(resid[i])); bmax = Math.max(bmax, Math.abs(rhs[i])); }
      if (rmax <= 1e-14 * (1 + bmax)) break;
      const corr = nf.solve(resid);
      for (let i = 0; i < m; i++) dy[i] += corr[i];
    }
    abarT(dy, atdy);
    for (let j = 0; j < N; j++) {
      if (fixed[j]) { outV[j] = 0; outT[j] = 0; outZl[j] = 0; outZu[j] = 0; continue; }
      const d = theta[j] * (atdy[j] - g[j]);
      outV[j] = d;
      outZl[j] = hasL[j] ? (rl[j] - zl[j] * d) / (v[j] - lo[j]) : 0;
      if (hasU[j]) { outT[j] = ru[j] - d; outZu[j] = (rt[j] - zu[j] * outT[j]) / t[j]; } else { outT[j] = 0; outZu[j] = 0; }
    }
    return dy;
  };
  const stepLengths = (dV: Float64Array, dT: Float64Array, dZl: Float64Array, dZu: Float64Array) => {
    let ap = 1, ad = 1;
    for (let j = 0; j < N; j++) {
      if (hasL[j]) {
        if (dV[j] < 0) ap = Math.min(ap, -(v[j] - lo[j]) / dV[j]);
        if (dZl[j] < 0) ad = Math.min(ad, -zl[j] / dZl[j]);
      }
      if (hasU[j]) {
        if (dT[j] < 0) ap = Math.min(ap, -t[j] / dT[j]);
        if (dZu[j] < 0) ad = Math.min(ad, -zu[j] / dZu[j]);
      }
    }
    return [ap, ad];
  };

  for (;;) {
    // residuals
    abarTimes(v, rp);
    for (let i = 0; i < m; i++) rp[i] = -rp[i];
    abarT(y, aty);
    let mu = 0;
    pinf = 0; dinf = 0; pobj = 0; dobj = 0;
    let vmax = 0, ymax = 0;
    for (let i = 0; i < m; i++) { pinf = Math.max(pinf, Math.abs(rp[i])); ymax = Math.max(ymax, Math.abs(y[i])); }
    for (let j = 0; j < N; j++) {
      pobj += cost[j] * v[j];
      vmax = Math.max(vmax, Math.abs(v[j]));
      if (fixed[j]) { ru[j] = 0; rd[j] = 0; dobj += lo[j] * (cost[j] - aty[j]); continue; }
      ru[j] = hasU[j] ? up[j] - v[j] - t[j] : 0;
      pinf = Math.max(pinf, Math.abs(ru[j]));
      rd[j] = cost[j] - aty[j] - zl[j] + zu[j];
      dinf = Math.max(dinf, Math.abs(rd[j]));
      if (hasL[j]) { mu += (v[j] - lo[j]) * zl[j]; dobj += lo[j] * zl[j]; }
      if (hasU[j]) { mu += t[j] * zu[j]; dobj -= up[j] * zu[j]; }
    }
    mu = nComp > 0 ? mu / nComp : 0;
    pinf /= bnorm; dinf /= cnorm;
    gap = Math.abs(pobj - dobj) / (1 + Math.abs(pobj));
    if (pinf <= tol && dinf <= tol && gap <= tol) return { status: 'optimal', v, y, zl, zu, iterations, primalInfeasibility: pinf, dualInfeasibility: dinf, gap, primalObjective: pobj, dualObjective: dobj };
    if (iterations >= maxIter) break;
    if (opts.deadline !== undefined && performance.now() > opts.deadline) return { status: 'time_limit', v, y, zl, zu, iterations, primalInfeasibility: pinf, dualInfeasibility: dinf, gap, primalObjective: pobj, dualObjective: dobj };
    // divergence (infeasible or unbounded problems: Wright ch. 9) or no progress
    const merit = Math.max(pinf, dinf, gap);
    if (merit < 0.9 * best) { best = merit; sinceBest = 0; } else if (++sinceBest > 30) break;
    if (vmax > 1e14 * bnorm || ymax > 1e14 * cnorm || !Number.isFinite(merit)) break;
    iterations++;
    // scaling matrix
    for (let j = 0; j < N; j++) {
      if (fixed[j]) { theta[j] = 0; continue; }
      let d = 0;
      if (hasL[j]) d += zl[j] / (v[j] - lo[j]);
      if (hasU[j]) d += zu[j] / t[j];
      if (!hasL[j] && !hasU[j]) d = FREE_REG;
      d += primalReg;
      theta[j] = 1 / d;
    }
    nf.factor(theta);
    // predictor (affine scaling)
    for (let j = 0; j < N; j++) {
      rl[j] = hasL[j] ? -(v[j] - lo[j]) * zl[j] : 0;
      rt[j] = hasU[j] ? -t[j] * zu[j] : 0;
    }
    direction(dva, dta, dzla, dzua);
    const [apa, ada] = stepLengths(dva, dta, dzla, dzua);
    let muAff = 0;
    for (let j = 0; j < N; j++) {
      if (hasL[j]) muAff += (v[j] - lo[j] + apa * dva[j]) * (zl[j] + ada * dzla[j]);
      if (hasU[j]) muAff += (t[j] + apa * dta[j]) * (zu[j] + ada * dzua[j]);
    }
    muAff = nComp > 0 ? muAff / nComp : 0;
    const sigma = mu > 0 ? Math.min(1, (muAff / mu) ** 3) : 0;
    // corrector: centring and the second-order term
    for (let j = 0; j < N; j++) {
      rl[j] = hasL[j] ? sigma * mu - (v[j] - lo[j]) * zl[j] - dva[j] * dzla[j] : 0;
      rt[j] = hasU[j] ? sigma * mu - t[j] * zu[j] - dta[j] * dzua[j] : 0;
    }
    const dy = direction(dv, dt, dzl, dzu);
    const [apm, adm] = stepLengths(dv, dt, dzl, dzu);
    const ap = Math.min(1, STEP * apm), ad = Math.min(1, STEP * adm);
    for (let j = 0; j < N; j++) {
      if (fixed[j]) continue;
      v[j] += ap * dv[j];
      if (hasU[j]) t[j] += ap * dt[j];
      if (hasL[j]) zl[j] += ad * dzl[j];
      if (hasU[j]) zu[j] += ad * dzu[j];
    }
    for (let i = 0; i < m; i++) y[i] += ad * dy[i];
    if (ap < 1e-10 && ad < 1e-10) break;
  }
  return { status: 'stalled', v, y, zl, zu, iterations, primalInfeasibility: pinf, dualInfeasibility: dinf, gap, primalObjective: pobj, dualObjective: dobj };
}
