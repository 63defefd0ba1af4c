// Local minimisation of a smooth function of a few dozen variables, with optional box bounds.
//
// - nelderMead: the downhill simplex of Nelder & Mead (Computer J. 7, 308 (1965)) with the
//   conventions of Lagarias, Reeds, Wright & Wright, SIAM J. Optim. 9(1), 112 (1998): ρ = 1,
//   χ = 2, γ = 1/2, σ = 1/2; expansion accepted only if f_e < f_r; ties broken so that a new vertex
//   ranks after old vertices of equal value. Initial simplex as MATLAB's fminsearch and SciPy:
//   x0 plus 5 % of each coordinate (0.00025 where it is zero). Bounds are handled as in
//   scipy.optimize.minimize(method='Nelder-Mead') since SciPy 1.7: every trial point (reflection,
//   expansion, contractions, shrunk vertices) is clipped into the box, and an initial-simplex
//   vertex beyond an upper bound is first reflected into the interior, then clipped. With
//   `xatol`/`fatol` it stops, as SciPy does, when max|x_i − x_best| <= xatol and
//   max|f_i − f_best| <= fatol over the simplex; without them it keeps the named-function rule
//   (diameter <= 1e-12·(1 + |x_best|) and f spread <= 1e-16·(1 + |f_best|)).
// - strongWolfeLineSearch: Nocedal & Wright, "Numerical Optimization", 2nd ed. (2006), Alg. 3.5
//   (bracketing) and Alg. 3.6 (zoom), with the safeguarded cubic, then quadratic, interpolation
//   of §3.5 as in SciPy's scalar_search_wolfe2 (interpolant rejected within 20 % resp. 10 % of the
//   interval's ends, then bisection). It returns a step satisfying the strong Wolfe conditions
//   φ(α) <= φ(0) + c1·α·φ'(0) and |φ'(α)| <= c2·|φ'(0)|, or, when the step is capped at `amax`
//   (a bound in L-BFGS-B) with φ still decreasing there, `amax` itself (sufficient decrease holds).
// - bfgs: Nocedal & Wright Alg. 6.1 (inverse-Hessian BFGS update (6.17), H0 = I as in SciPy), the
//   line search above with c1 = 1e-4, c2 = 0.9 and SciPy's first trial step
//   α1 = min(1, 1.01·2·(f_k − f_{k−1})/φ'(0)) (N&W (3.60)), f_{−1} = f_0 + ‖g_0‖/2. Stops when
//   ‖∇f‖∞ <= gtol. On a line-search failure H is reset to I once before giving up.
// - lbfgsb: Byrd, Lu, Nocedal & Zhu, "A limited memory algorithm for bound constrained
//   optimization", SIAM J. Sci. Comput. 16(5), 1190 (1995): compact representation
//   B = θI − W·M·Wᵀ, W = [Y, θS], M = [[−D, Lᵀ], [L, θSᵀS]]⁻¹ (Byrd, Nocedal & Schnabel, Math.
//   Prog. 63, 129 (1994), Thm 2.3), memory m = 10 as SciPy; generalized Cauchy point along the
//   projected steepest-descent path (§4, Algorithm CP, breakpoints in increasing order); subspace
//   minimisation over the variables free at the Cauchy point (§5.1, direct primal method), with
//   the projection rule of Morales & Nocedal, "Remark on Algorithm 778", ACM TOMS 38(1) 7 (2011)
//   (project the subspace minimiser; fall back to the paper's truncated step if the projected
//   point is not a descent direction), as in L-BFGS-B 3.0 which SciPy wraps; line search on the
//   feasible segment x + α·d, α <= α_max (the largest feasible step; 1 at the first iteration), first
//   trial 1 (min(1/‖d‖, α_max) at the first iteration of a problem that is not fully boxed), with
//   c1 = 1e-3, c2 = 0.9 (the paper's parameters; the paper's Moré-Thuente search is replaced by
//   Alg. 3.5/3.6, which also returns a strong Wolfe step). Correction pairs are kept only when
//   sᵀy > eps·yᵀy, θ = yᵀy/sᵀy. Because n <= 50 here, the reduced Hessian
//   B̂ = θI − ZᵀW·M·WᵀZ of §5.1 is formed explicitly and Cholesky-factored (the same minimiser as
//   the paper's Sherman-Morrison-Woodbury form, without its ill-conditioned middle matrix), and M
//   is formed by block elimination through the Cholesky factor of θSᵀS + L·D⁻¹·Lᵀ. Stops when the
//   projected gradient ‖x − P(x − ∇f)‖∞ <= gtol, or when a step reduces f by no more than rounding
//   (f_k − f_{k+1} <= eps·max(|f_k|, |f_{k+1}|)); a failed line search discards the memory once
//   and restarts from steepest descent, as L-BFGS-B does.
// - certificate: the projected-gradient norm ‖x − P(x − ∇f(x))‖∞ and the KKT report for box
//   bounds (stationarity ∇f − λ_l + λ_u = 0, multiplier signs λ >= 0, complementarity, feasibility),
//   with the multipliers read off the gradient (see kktReport).
// - centralDifferenceGradient: ∂f/∂x_i ≈ (f(x + h e_i) − f(x − h e_i))/(2h), h = eps^(1/3)·max(1, |x_i|)
//   (truncation and rounding errors balanced, N&W §8.1); where x ± h would leave the box, the
//   one-sided second-order formula (−3f(x) + 4f(x ± h) − f(x ± 2h))/(±2h) into the box, so the
//   objective is never evaluated outside the bounds.
// There is no stability condition: every method only accepts steps that decrease f.
import { cholesky, choleskySolve, forwardSubstitute, backSubstituteTransposed } from './dense.ts';

const EPS = 2.220446049250313e-16;

/** A smooth objective: value and gradient evaluated separately (each call counted by the caller). */
export interface SmoothProblem {
  n: number;
  /** f(x); NaN or ±Infinity where f is undefined (treated as +Infinity) */
  f(x: Float64Array): number;
  /** ∇f(x) written into g */
  grad(x: Float64Array, g: Float64Array): void;
}

export interface MinimizeResult {
  x: Float64Array;
  f: number;
  iterations: number;
  evaluations: number;
  converged: boolean;
  history: number[];
  /** counts of each Nelder-Mead step kind, or line-search backtracks */
  steps: Record<string, number>;
  /** why the method stopped */
  message?: string;
}

export interface NelderMeadOptions {
  /** SciPy's absolute stopping rule (both must be given to use it) */
  xatol?: number;
  fatol?: number;
  /** box, ±Infinity for an open side */
  lower?: Float64Array;
  upper?: Float64Array;
}

const clip = (v: Float64Array, lo?: Float64Array, hi?: Float64Array) => {
  if (!lo || !hi) return;
  for (let k = 0; k < v.length; k++) v[k] = Math.min(hi[k], Math.max(lo[k], v[k]));
};

/** Nelder-Mead with the Lagarias et al. (1998) conventions; bounds by clipping (SciPy >= 1.7). */
export function nelderMead(f: (x: Float64Array) => number, x0: Float64Array, maxIter: number, progress?: (fr: number) => void, opts: NelderMeadOptions = {}): MinimizeResult {
  const n = x0.length;
  const rho = 1, chi = 2, gamma = 0.5, sigma = 0.5;
  const { lower, upper } = opts;
  const scipyStop = opts.xatol !== undefined && opts.fatol !== undefined;
  const simplex: Float64Array[] = [];
  const fv = new Float64Array(n + 1);
  // age breaks ties: among equal f, older vertices rank first (Lagarias et al. §2)
  const age = new Float64Array(n + 1);
  let evaluations = 0;
  // an undefined value (NaN, a domain error) ranks as +Infinity, so the simplex moves away from it
  const ev = (x: Float64Array) => { evaluations++; const v = f(x); return Number.isNaN(v) ? Infinity : v; };
  simplex.push(Float64Array.from(x0));
  for (let i = 0; i < n; i++) {
    const v = Float64Array.from(x0);
    v[i] = v[i] !== 0 ? 1.05 * v[i] : 0.00025;
    // SciPy: a vertex beyond the upper bound is reflected into the interior, then clipped
    if (upper && v[i] > upper[i]) v[i] = 2 * upper[i] - v[i];
    clip(v, lower, upper);
    simplex.push(v);
  }
  for (let i = 0; i <= n; i++) { fv[i] = ev(simplex[i]); age[i] = i; }
  let stamp = n + 1;
  const idx = Array.from({ length: n + 1 }, (_, i) => i);
  const centroid = new Float64Array(n), xr = new Float64Array(n), xe = new Float64Array(n), xc = new Float64Array(n);
  const steps = { reflect: 0, expand: 0, contractOutside: 0, contractInside: 0, shrink: 0 };
  const history: number[] = [];
  let iter = 0, converged = false;
  const sortIdx = () => idx.sort((a, b) => (fv[a] < fv[b] ? -1 : fv[a] > fv[b] ? 1 : age[a] - age[b]));
  sortIdx();
  while (iter < maxIter) {
    const best = idx[0], worst = idx[n], second = idx[n - 1];
    // convergence: simplex diameter (max distance to the best vertex) and spread of f
    let diam = 0, norm = 0, spread = 0;
    for (let k = 0; k < n; k++) norm = Math.max(norm, Math.abs(simplex[best][k]));
    for (let i = 1; i <= n; i++) {
      const v = simplex[idx[i]];
      for (let k = 0; k < n; k++) diam = Math.max(diam, Math.abs(v[k] - simplex[best][k]));
      spread = Math.max(spread, Math.abs(fv[idx[i]] - fv[best]));
    }
    if (scipyStop) {
      if (diam <= opts.xatol! && spread <= opts.fatol!) { converged = true; break; }
    } else if (diam <= 1e-12 * (1 + norm) && fv[worst] - fv[best] <= 1e-16 * (1 + Math.abs(fv[best]))) { converged = true; break; }
    iter++;
    centroid.fill(0);
    for (let i = 0; i < n; i++) { const v = simplex[idx[i]]; for (let k = 0; k < n; k++) centroid[k] += v[k] / n; }
    const w = simplex[worst];
    for (let k = 0; k < n; k++) xr[k] = centroid[k] + rho * (centroid[k] - w[k]);
    clip(xr, lower, upper);
    const fr = ev(xr);
    let replaceWith: Float64Array | null = null, fNew = 0;
    if (fr < fv[best]) {
      for (let k = 0; k < n; k++) xe[k] = centroid[k] + chi * rho * (centroid[k] - w[k]);
      clip(xe, lower, upper);
      const fe = ev(xe);
      if (fe < fr) { replaceWith = xe; fNew = fe; steps.expand++; } else { replaceWith = xr; fNew = fr; steps.reflect++; }
    } else if (fr < fv[second]) {
      replaceWith = xr; fNew = fr; steps.reflect++;
    } else if (fr < fv[worst]) {
      for (let k = 0; k < n; k++) xc[k] = centroid[k] + gamma * rho * (centroid[k] - w[k]);
      clip(xc, lower, upper);
      const fc = ev(xc);
      if (fc <= fr) { replaceWith = xc; fNew = fc; steps.contractOutside++; }
    } else {
      for (let k = 0; k < n; k++) xc[k] = centroid[k] - gamma * (centroid[k] - w[k]);
      clip(xc, lower, upper);
      const fc = ev(xc);
      if (fc < fv[worst]) { replaceWith = xc; fNew = fc; steps.contractInside++; }
    }
    if (replaceWith) {
      w.set(replaceWith);
      fv[worst] = fNew;
      age[worst] = stamp++;
    } else {
      steps.shrink++;
      const b = simplex[best];
      for (let i = 1; i <= n; i++) {
        const v = simplex[idx[i]];
        for (let k = 0; k < n; k++) v[k] = b[k] + sigma * (v[k] - b[k]);
        clip(v, lower, upper);
        fv[idx[i]] = ev(v);
        age[idx[i]] = stamp++;
      }
    }
    sortIdx();
    if (iter % 64 === 0 || iter === 1) history.push(fv[idx[0]]);
    if ((iter & 1023) === 0) progress?.(iter / maxIter);
  }
  history.push(fv[idx[0]]);
  return {
    x: Float64Array.from(simplex[idx[0]]), f: fv[idx[0]], iterations: iter, evaluations, converged, history, steps,
    message: converged ? 'simplex converged' : 'iteration limit reached',
  };
}

// ---------------------------------------------------------------------------------------------
// Line search (N&W Alg. 3.5 and 3.6)

export interface LineSearchResult {
  alpha: number;
  phi: number;
  dphi: number;
}

/** Minimiser of the cubic through (a, fa) with slope fpa and through (b, fb), (c, fc); null if none. */
function cubicmin(a: number, fa: number, fpa: number, b: number, fb: number, c: number, fc: number): number | null {
  const C = fpa, db = b - a, dc = c - a;
  const denom = (db * dc) ** 2 * (db - dc);
  if (denom === 0) return null;
  const r1 = fb - fa - C * db, r2 = fc - fa - C * dc;
  const A = (dc * dc * r1 - db * db * r2) / denom;
  const B = (-dc * dc * dc * r1 + db * db * db * r2) / denom;
  const radical = B * B - 3 * A * C;
  const x = a + (-B + Math.sqrt(radical)) / (3 * A);
  return Number.isFinite(x) ? x : null;
}

/** Minimiser of the quadratic through (a, fa) with slope fpa and through (b, fb); null if none. */
function quadmin(a: number, fa: number, fpa: number, b: number, fb: number): number | null {
  const db = b - a;
  const B = (fb - fa - fpa * db) / (db * db);
  const x = a - fpa / (2 * B);
  return Number.isFinite(x) ? x : null;
}

/**
 * A step α in (0, amax] satisfying the strong Wolfe conditions for φ(α) = f(x + α·p), or null.
 * `phi(α)` and `dphi(α)` evaluate the objective and the directional derivative at x + α·p (the
 * caller caches the point); `dphi` is only called at points that passed the sufficient-decrease test.
 */
export function strongWolfeLineSearch(
  phi: (a: number) => number, dphi: (a: number) => number,
  phi0: number, dphi0: number, alpha1: number, amax: number, c1: number, c2: number, maxIter = 20,
): LineSearchResult | null {
  const armijo = (a: number, pa: number) => pa <= phi0 + c1 * a * dphi0; // false for NaN
  const zoom = (aLo: number, aHi: number, phiLo: number, phiHi: number, dphiLo: number): LineSearchResult | null => {
    let aRec = 0, phiRec = phi0;
    for (let i = 0; i < 30; i++) {
      const dalpha = aHi - aLo;
      const a = Math.min(aLo, aHi), b = Math.max(aLo, aHi);
      if (b - a <= EPS * b) return null;
      let aj: number | null = null;
      if (i > 0) {
        const cchk = 0.2 * dalpha;
        aj = Number.isFinite(phiHi) && Number.isFinite(phiRec) ? cubicmin(aLo, phiLo, dphiLo, aHi, phiHi, aRec, phiRec) : null;
        if (aj !== null && (aj > b - Math.abs(cchk) || aj < a + Math.abs(cchk))) aj = null;
      }
      if (aj === null) {
        const qchk = 0.1 * dalpha;
        aj = Number.isFinite(phiHi) ? quadmin(aLo, phiLo, dphiLo, aHi, phiHi) : null;
        if (aj === null || aj > b - Math.abs(qchk) || aj < a + Math.abs(qchk)) aj = aLo + 0.5 * dalpha;
      }
      const pj = phi(aj);
      if (!armijo(aj, pj) || pj >= phiLo) {
        aRec = aHi; phiRec = phiHi; aHi = aj; phiHi = pj;
      } else {
        const dj = dphi(aj);
        if (!Number.isFinite(dj)) return null;
        if (Math.abs(dj) <= -c2 * dphi0) return { alpha: aj, phi: pj, dphi: dj };
        if (dj * (aHi - aLo) >= 0) { aRec = aHi; phiRec = phiHi; aHi = aLo; phiHi = phiLo; } else { aRec = aLo; phiRec = phiLo; }
        aLo = aj; phiLo = pj; dphiLo = dj;
      }
    }
    return null;
  };
  let a0 = 0, phiA0 = phi0, dphiA0 = dphi0;
  let a1 = Math.min(alpha1, amax);
  if (!(a1 > 0)) return null;
  let phiA1 = phi(a1);
  for (let i = 0; i < maxIter; i++) {
    if (!armijo(a1, phiA1) || (i > 0 && phiA1 >= phiA0)) return zoom(a0, a1, phiA0, phiA1, dphiA0);
    const d1 = dphi(a1);
    if (!Number.isFinite(d1)) return null;
    if (Math.abs(d1) <= -c2 * dphi0) return { alpha: a1, phi: phiA1, dphi: d1 };
    if (d1 >= 0) return zoom(a1, a0, phiA1, phiA0, d1);
    // still descending at the cap: the bound stops the step (sufficient decrease holds)
    if (a1 >= amax) return { alpha: a1, phi: phiA1, dphi: d1 };
    const a2 = Math.min(2 * a1, amax);
    a0 = a1; phiA0 = phiA1; dphiA0 = d1;
    a1 = a2; phiA1 = phi(a1);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Certificates

/** ‖x − P(x − g)‖∞, P the projection onto [lower, upper] (no bounds: ‖g‖∞). */
export function projectedGradientNorm(x: ArrayLike<number>, g: ArrayLike<number>, lower?: ArrayLike<number>, upper?: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) {
    let t = x[i] - g[i];
    if (lower && t < lower[i]) t = lower[i];
    if (upper && t > upper[i]) t = upper[i];
    const v = Math.abs(x[i] - t);
    if (!(v <= m)) m = v; // NaN propagates
  }
  return m;
}

export interface KktReport {
  /** the largest of the four violations below */
  residual: number;
  /** max |∂f_i − λ_l,i + λ_u,i| */
  stationarity: number;
  /** max(0, −λ) over the multipliers (0 by construction of the estimates) */
  multiplierSign: number;
  /** max min(λ_l,i, x_i − l_i), min(λ_u,i, u_i − x_i) */
  complementarity: number;
  /** max(l_i − x_i, x_i − u_i, 0) */
  feasibility: number;
}

/**
 * The KKT conditions of min f on the box at x with gradient g: stationarity g − λ_l + λ_u = 0,
 * signs λ_l, λ_u >= 0, complementarity λ_l·(x − l) = λ_u·(u − x) = 0, feasibility l <= x <= u.
 * The multipliers are the sign-feasible estimates read off the gradient (λ_l = max(g, 0) where a
 * lower bound exists, λ_u = max(−g, 0) where an upper bound exists); a gradient component no bound
 * can take is a stationarity violation. Complementarity is measured by the min-function
 * min(λ, slack) (zero exactly when λ = 0 or the bound is active), which, unlike the product,
 * does not grow with the distance to an inactive bound; at a feasible point the residual then
 * equals ‖x − P(x − g)‖∞ component by component.
 */
export function kktReport(x: ArrayLike<number>, g: ArrayLike<number>, lower: ArrayLike<number>, upper: ArrayLike<number>): KktReport {
  let st = 0, sg = 0, cp = 0, fe = 0;
  const mx = (a: number, v: number) => (v <= a ? a : v); // NaN propagates
  for (let i = 0; i < x.length; i++) {
    const gi = g[i], lo = lower[i], hi = upper[i];
    const hasLo = lo > -Infinity, hasHi = hi < Infinity;
    const lamL = hasLo ? Math.max(gi, 0) : 0;
    const lamU = hasHi ? Math.max(-gi, 0) : 0;
    st = mx(st, Number.isNaN(gi) ? NaN : Math.abs(gi - lamL + lamU));
    sg = mx(sg, Math.max(0, -lamL, -lamU));
    if (hasLo) { cp = mx(cp, Math.min(lamL, Math.abs(x[i] - lo))); fe = mx(fe, lo - x[i]); }
    if (hasHi) { cp = mx(cp, Math.min(lamU, Math.abs(hi - x[i]))); fe = mx(fe, x[i] - hi); }
    if (Number.isNaN(x[i])) fe = NaN;
  }
  return { residual: mx(mx(mx(st, sg), cp), fe), stationarity: st, multiplierSign: sg, complementarity: cp, feasibility: fe };
}

/** Central differences (one-sided second-order next to a bound), into g; returns the evaluations used. */
export function centralDifferenceGradient(f: (x: Float64Array) => number, x: Float64Array, g: Float64Array, lower?: Float64Array, upper?: Float64Array, f0?: number): number {
  const h0 = Math.cbrt(EPS);
  const xt = Float64Array.from(x);
  let evals = 0;
  let fx = f0;
  const fAt = () => { evals++; return f(xt); };
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const h = h0 * Math.max(1, Math.abs(xi));
    const lo = lower ? lower[i] : -Infinity, hi = upper ? upper[i] : Infinity;
    if (xi + h <= hi && xi - h >= lo) {
      xt[i] = xi + h; const fp = fAt();
      xt[i] = xi - h; const fm = fAt();
      g[i] = (fp - fm) / (2 * h);
    } else {
      // one-sided into the box (the side with room for two steps)
      const s = xi + 2 * h <= hi ? 1 : xi - 2 * h >= lo ? -1 : 0;
      if (s === 0) { g[i] = 0; xt[i] = xi; continue; } // the box is narrower than 2h: the variable is pinned
      if (fx === undefined) { xt[i] = xi; fx = fAt(); }
      xt[i] = xi + s * h; const f1 = fAt();
      xt[i] = xi + 2 * s * h; const f2 = fAt();
      g[i] = (-3 * fx + 4 * f1 - f2) / (2 * s * h);
    }
    xt[i] = xi;
  }
  return evals;
}

// ---------------------------------------------------------------------------------------------
// BFGS

export interface GradientMethodOptions {
  gtol: number;
  maxIter: number;
  progress?: (fr: number) => void;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>, n: number) => { let s = 0; for (let i = 0; i < n; i++) s += a[i] * b[i]; return s; };
const maxAbs = (a: ArrayLike<number>) => { let m = 0; for (let i = 0; i < a.length; i++) { const v = Math.abs(a[i]); if (!(v <= m)) m = v; } return m; };

/** A line-search evaluator for φ(α) = f(x + α·d): caches the last trial point, its value and gradient. */
function lineFunctions(p: SmoothProblem, x: Float64Array, d: Float64Array, xt: Float64Array, gt: Float64Array, lower?: Float64Array, upper?: Float64Array, xAtOne?: Float64Array) {
  const n = p.n;
  const state = { alphaX: NaN, alphaG: NaN, fAt: NaN };
  const place = (a: number) => {
    if (state.alphaX === a) return;
    if (a === 1 && xAtOne) xt.set(xAtOne);
    else for (let i = 0; i < n; i++) xt[i] = x[i] + a * d[i];
    // rounding may put x + α·d a hair outside a bound that the exact step only reaches
    clip(xt, lower, upper);
    state.alphaX = a; state.alphaG = NaN;
    const v = p.f(xt);
    state.fAt = Number.isNaN(v) ? Infinity : v;
  };
  return {
    state,
    phi: (a: number) => { place(a); return state.fAt; },
    dphi: (a: number) => { place(a); p.grad(xt, gt); state.alphaG = a; return dot(gt, d, n); },
    /** makes xt/gt the accepted point */
    settle: (a: number) => { place(a); if (state.alphaG !== a) { p.grad(xt, gt); state.alphaG = a; } },
  };
}

export interface GradientResult {
  x: Float64Array;
  f: number;
  g: Float64Array;
  iterations: number;
  converged: boolean;
  message: string;
  history: number[];
  /** line-search failures that led to a restart (memory or H discarded) */
  restarts: number;
}

/** BFGS, N&W Alg. 6.1, with a strong Wolfe line search (Alg. 3.5/3.6). */
export function bfgs(p: SmoothProblem, x0: Float64Array, opts: GradientMethodOptions): GradientResult {
  const n = p.n;
  const x = Float64Array.from(x0), g = new Float64Array(n);
  let f = p.f(x);
  p.grad(x, g);
  const H = new Float64Array(n * n);
  const resetH = () => { H.fill(0); for (let i = 0; i < n; i++) H[i * n + i] = 1; };
  resetH();
  let fOld = f + Math.sqrt(dot(g, g, n)) / 2; // SciPy's old_old_fval for the first trial step
  const d = new Float64Array(n), xt = new Float64Array(n), gt = new Float64Array(n), s = new Float64Array(n), y = new Float64Array(n), Hy = new Float64Array(n);
  const history: number[] = [f];
  let iter = 0, converged = false, message = 'iteration limit reached', freshH = true, restarts = 0;
  for (;;) {
    if (maxAbs(g) <= opts.gtol) { converged = true; message = 'gradient norm below gtol'; break; }
    if (!Number.isFinite(f) || maxAbs(g) !== maxAbs(g)) { message = 'objective or gradient not finite'; break; }
    if (iter >= opts.maxIter) break;
    for (let i = 0; i < n; i++) { let t = 0; for (let j = 0; j < n; j++) t -= H[i * n + j] * g[j]; d[i] = t; }
    let dphi0 = dot(g, d, n);
    if (!(dphi0 < 0)) { resetH(); freshH = true; for (let i = 0; i < n; i++) d[i] = -g[i]; dphi0 = dot(g, d, n); }
    let a1 = 1.01 * 2 * (f - fOld) / dphi0;
    a1 = Number.isFinite(a1) && a1 > 0 ? Math.min(1, a1) : 1;
    const lf = lineFunctions(p, x, d, xt, gt);
    const ls = strongWolfeLineSearch(lf.phi, lf.dphi, f, dphi0, a1, Infinity, 1e-4, 0.9);
    if (!ls) {
      if (freshH) { message = 'line search failed: no step satisfies the Wolfe conditions (rounding level reached)'; break; }
      resetH(); freshH = true; restarts++;
      continue;
    }
    lf.settle(ls.alpha);
    for (let i = 0; i < n; i++) { s[i] = xt[i] - x[i]; y[i] = gt[i] - g[i]; }
    x.set(xt); g.set(gt); fOld = f; f = ls.phi;
    iter++;
    freshH = false;
    // H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, ρ = 1/yᵀs (skipped if yᵀs <= 0: not positive definite)
    const ys = dot(y, s, n);
    if (ys > 0 && Number.isFinite(ys)) {
      const rho = 1 / ys;
      for (let i = 0; i < n; i++) { let t = 0; for (let j = 0; j < n; j++) t += H[i * n + j] * y[j]; Hy[i] = t; }
      const yHy = dot(y, Hy, n);
      const c = rho * rho * yHy + rho;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) H[i * n + j] += c * s[i] * s[j] - rho * (Hy[i] * s[j] + s[i] * Hy[j]);
    }
    history.push(f);
    if ((iter & 255) === 0) opts.progress?.(iter / opts.maxIter);
  }
  return { x, f, g, iterations: iter, converged, message, history, restarts };
}

// ---------------------------------------------------------------------------------------------
// L-BFGS-B

/** The limited-memory matrices: W (n×2k, row-major), M (2k×2k), θ. */
export interface LbfgsMemory {
  k: number;
  theta: number;
  W: Float64Array;
  M: Float64Array;
}

/**
 * M = [[−D, Lᵀ], [L, θSᵀS]]⁻¹ by block elimination: with T = θSᵀS + L·D⁻¹·Lᵀ (SPD),
 * M·[v1; v2] = [−D⁻¹v1 + D⁻¹Lᵀb; b], b = T⁻¹(L·D⁻¹v1 + v2). Null when T is not numerically SPD.
 */
export function middleMatrix(S: Float64Array[], Y: Float64Array[], theta: number, n: number): Float64Array | null {
  const k = S.length, k2 = 2 * k;
  const Dg = new Float64Array(k), L = new Float64Array(k * k), T = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    Dg[i] = dot(S[i], Y[i], n);
    for (let j = 0; j < i; j++) L[i * k + j] = dot(S[i], Y[j], n);
  }
  // T_ij = θ s_iᵀs_j + Σ_{q < j} L_iq·L_jq/D_q (j <= i; L strictly lower triangular)
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let t = theta * dot(S[i], S[j], n);
      for (let q = 0; q < j; q++) t += L[i * k + q] * L[j * k + q] / Dg[q];
      T[i * k + j] = t; T[j * k + i] = t;
    }
  }
  const cT = cholesky(T, k);
  if (!cT) return null;
  // T⁻¹ column by column (in place), then the blocks M22 = T⁻¹, M21 = T⁻¹·L·D⁻¹, M12 = M21ᵀ,
  // M11 = −D⁻¹ + D⁻¹·Lᵀ·M21
  const Ti = new Float64Array(k * k), col = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    col.fill(0); col[c] = 1;
    forwardSubstitute(cT, k, col);
    backSubstituteTransposed(cT, k, col);
    for (let i = 0; i < k; i++) Ti[i * k + c] = col[i];
  }
  const M = new Float64Array(k2 * k2);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) {
    let t = 0;
    for (let q = j + 1; q < k; q++) t += Ti[i * k + q] * L[q * k + j]; // L is strictly lower triangular
    t /= Dg[j];
    M[(k + i) * k2 + j] = t; // M21
    M[j * k2 + k + i] = t; // M12
    M[(k + i) * k2 + k + j] = Ti[i * k + j]; // M22
  }
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) {
    let t = 0;
    for (let q = i + 1; q < k; q++) t += L[q * k + i] * M[(k + q) * k2 + j];
    M[i * k2 + j] = t / Dg[i] - (i === j ? 1 / Dg[i] : 0);
  }
  return M;
}

/** W = [Y, θS] as an n×2k row-major array. */
export function buildW(S: Float64Array[], Y: Float64Array[], theta: number, n: number): Float64Array {
  const k = S.length, k2 = 2 * k;
  const W = new Float64Array(n * k2);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) { W[i * k2 + j] = Y[j][i]; W[i * k2 + k + j] = theta * S[j][i]; }
  return W;
}

/**
 * The generalized Cauchy point (Byrd et al. 1995, Algorithm CP): the first local minimiser of the
 * quadratic model m(x) = gᵀ(x − x_k) + ½(x − x_k)ᵀB(x − x_k) along the projected path
 * P(x_k − t·g), t >= 0, examining the segments between breakpoints in increasing order.
 */
export function cauchyPoint(x: Float64Array, g: Float64Array, lower: Float64Array, upper: Float64Array, mem: LbfgsMemory): Float64Array {
  const n = x.length, k2 = 2 * mem.k, { theta, W, M } = mem;
  const t = new Float64Array(n), d = new Float64Array(n);
  const xcp = Float64Array.from(x);
  const F: number[] = [];
  let active = 0; // variables still moving along the path
  for (let i = 0; i < n; i++) {
    const gi = g[i];
    if (gi < 0) t[i] = upper[i] < Infinity ? (x[i] - upper[i]) / gi : Infinity;
    else if (gi > 0) t[i] = lower[i] > -Infinity ? (x[i] - lower[i]) / gi : Infinity;
    else t[i] = Infinity;
    d[i] = t[i] === 0 ? 0 : -gi;
    if (d[i] !== 0) active++;
    if (t[i] > 0 && t[i] < Infinity) F.push(i);
  }
  if (active === 0) return xcp;
  F.sort((a, b) => t[a] - t[b] || a - b);
  const p = new Float64Array(k2), c = new Float64Array(k2), Mv = new Float64Array(k2);
  for (let i = 0; i < n; i++) if (d[i] !== 0) for (let j = 0; j < k2; j++) p[j] += W[i * k2 + j] * d[i];
  const mulM = (v: Float64Array) => { for (let r = 0; r < k2; r++) { let s = 0; for (let q = 0; q < k2; q++) s += M[r * k2 + q] * v[q]; Mv[r] = s; } return Mv; };
  const wDot = (b: number, v: Float64Array) => { let s = 0; for (let j = 0; j < k2; j++) s += W[b * k2 + j] * v[j]; return s; };
  let fp = 0;
  for (let i = 0; i < n; i++) fp -= d[i] * d[i];
  let fpp = -theta * fp - dot(p, mulM(p), k2);
  const fppOrig = fpp;
  let dtMin = -fp / fpp;
  let tOld = 0, idx = 0;
  while (idx < F.length) {
    const b = F[idx], dt = t[b] - tOld;
    if (dtMin < dt) break;
    // the path reaches variable b's bound: fix it there and update the slope and curvature
    xcp[b] = d[b] > 0 ? upper[b] : lower[b];
    const zb = xcp[b] - x[b], gb = g[b];
    for (let j = 0; j < k2; j++) c[j] += dt * p[j];
    const wMc = wDot(b, mulM(c)), wMp = wDot(b, mulM(p));
    const wb = W.subarray(b * k2, b * k2 + k2);
    const wMw = dot(wb, mulM(wb as Float64Array), k2);
    fp = fp + dt * fpp + gb * gb + theta * gb * zb - gb * wMc;
    fpp = fpp - theta * gb * gb - 2 * gb * wMp - gb * gb * wMw;
    fpp = Math.max(EPS * fppOrig, fpp);
    for (let j = 0; j < k2; j++) p[j] += gb * wb[j];
    d[b] = 0; active--;
    tOld = t[b]; idx++;
    if (active === 0) return xcp; // every variable is at a bound: the path ends here
    dtMin = -fp / fpp;
  }
  dtMin = Math.max(dtMin, 0);
  tOld += dtMin;
  for (let i = 0; i < n; i++) if (d[i] !== 0) xcp[i] = x[i] + tOld * d[i];
  return xcp;
}

/**
 * Subspace minimisation (§5.1) from the Cauchy point: minimises the model over the variables free
 * at x^c (strictly inside their bounds), then projects (Morales & Nocedal 2011) or, if the projected
 * point is not a descent direction, truncates the step to the box. Returns x̄ (feasible).
 */
export function subspaceMinimize(x: Float64Array, g: Float64Array, lower: Float64Array, upper: Float64Array, mem: LbfgsMemory, xcp: Float64Array): Float64Array {
  const n = x.length, k2 = 2 * mem.k, { theta, W, M } = mem;
  const free: number[] = [];
  for (let i = 0; i < n; i++) if (xcp[i] > lower[i] && xcp[i] < upper[i]) free.push(i);
  const nf = free.length;
  if (nf === 0) return Float64Array.from(xcp);
  // reduced gradient r = Zᵀ(g + B(x^c − x)), B·z = θz − W·M·Wᵀz
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) z[i] = xcp[i] - x[i];
  const c = new Float64Array(k2), Mc = new Float64Array(k2);
  for (let i = 0; i < n; i++) if (z[i] !== 0) for (let j = 0; j < k2; j++) c[j] += W[i * k2 + j] * z[i];
  for (let r = 0; r < k2; r++) { let s = 0; for (let q = 0; q < k2; q++) s += M[r * k2 + q] * c[q]; Mc[r] = s; }
  const rhs = new Float64Array(nf);
  for (let a = 0; a < nf; a++) {
    const i = free[a];
    rhs[a] = -(g[i] + theta * z[i] - dot(W.subarray(i * k2, i * k2 + k2), Mc, k2));
  }
  // reduced Hessian B̂ = θI − (ZᵀW)·M·(WᵀZ)
  const MWz = new Float64Array(k2 * nf); // M·WᵀZ, k2 × nf
  for (let r = 0; r < k2; r++) for (let a = 0; a < nf; a++) {
    let s = 0; const i = free[a];
    for (let q = 0; q < k2; q++) s += M[r * k2 + q] * W[i * k2 + q];
    MWz[r * nf + a] = s;
  }
  const Bh = new Float64Array(nf * nf);
  for (let a = 0; a < nf; a++) for (let b = 0; b <= a; b++) {
    let s = 0; const i = free[a];
    for (let r = 0; r < k2; r++) s += W[i * k2 + r] * MWz[r * nf + b];
    const v = (a === b ? theta : 0) - s;
    Bh[a * nf + b] = v; Bh[b * nf + a] = v;
  }
  const ch = cholesky(Bh, nf);
  const du = ch ? choleskySolve(ch, nf, rhs) : rhs.map((v) => v / theta); // B̂ not SPD to rounding: a scaled gradient step
  const xbar = Float64Array.from(xcp);
  for (let a = 0; a < nf; a++) { const i = free[a]; xbar[i] = Math.min(upper[i], Math.max(lower[i], xcp[i] + du[a])); }
  // Morales-Nocedal: keep the projected point if it is a descent direction from x
  let dd = 0;
  for (let i = 0; i < n; i++) dd += (xbar[i] - x[i]) * g[i];
  if (dd < 0) return xbar;
  // otherwise the paper's truncation: the largest α <= 1 keeping x^c + α·Z·du feasible
  let alpha = 1;
  for (let a = 0; a < nf; a++) {
    const i = free[a], v = du[a];
    if (v > 0 && upper[i] < Infinity) alpha = Math.min(alpha, (upper[i] - xcp[i]) / v);
    else if (v < 0 && lower[i] > -Infinity) alpha = Math.min(alpha, (lower[i] - xcp[i]) / v);
  }
  xbar.set(xcp);
  for (let a = 0; a < nf; a++) { const i = free[a]; xbar[i] = Math.min(upper[i], Math.max(lower[i], xcp[i] + alpha * du[a])); }
  return xbar;
}

/** L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995). `lower`/`upper` use ±Infinity for an open side. */
export function lbfgsb(p: SmoothProblem, x0: Float64Array, lower: Float64Array, upper: Float64Array, opts: GradientMethodOptions & { m?: number }): GradientResult {
  const n = p.n, m = opts.m ?? 10;
  const x = Float64Array.from(x0);
  clip(x, lower, upper);
  const g = new Float64Array(n);
  let f = p.f(x);
  p.grad(x, g);
  let constrained = false, boxed = true;
  for (let i = 0; i < n; i++) {
    const hasLo = lower[i] > -Infinity, hasHi = upper[i] < Infinity;
    if (hasLo || hasHi) constrained = true;
    if (!(hasLo && hasHi)) boxed = false;
  }
  let S: Float64Array[] = [], Y: Float64Array[] = [];
  let mem: LbfgsMemory = { k: 0, theta: 1, W: new Float64Array(0), M: new Float64Array(0) };
  const refresh = () => { S = []; Y = []; mem = { k: 0, theta: 1, W: new Float64Array(0), M: new Float64Array(0) }; };
  const d = new Float64Array(n), xt = new Float64Array(n), gt = new Float64Array(n);
  const history: number[] = [f];
  let iter = 0, converged = false, message = 'iteration limit reached', restarts = 0, firstStep = true;
  for (;;) {
    if (projectedGradientNorm(x, g, lower, upper) <= opts.gtol) { converged = true; message = 'projected gradient norm below gtol'; break; }
    if (!Number.isFinite(f) || maxAbs(g) !== maxAbs(g)) { message = 'objective or gradient not finite'; break; }
    if (iter >= opts.maxIter) break;
    const xcp = cauchyPoint(x, g, lower, upper, mem);
    const xbar = subspaceMinimize(x, g, lower, upper, mem, xcp);
    let dnorm2 = 0;
    for (let i = 0; i < n; i++) { d[i] = xbar[i] - x[i]; dnorm2 += d[i] * d[i]; }
    const dphi0 = dot(g, d, n);
    // the largest feasible step along d (L-BFGS-B's lnsrlb): 1 at the first iteration of a constrained problem
    let amax = 1e10;
    if (constrained) {
      if (firstStep) amax = 1;
      else for (let i = 0; i < n; i++) {
        if (d[i] < 0 && lower[i] > -Infinity) { const r = lower[i] - x[i]; amax = r >= 0 ? 0 : Math.min(amax, r / d[i]); }
        else if (d[i] > 0 && upper[i] < Infinity) { const r = upper[i] - x[i]; amax = r <= 0 ? 0 : Math.min(amax, r / d[i]); }
      }
    }
    const a1 = firstStep && !boxed ? Math.min(1 / Math.sqrt(dnorm2), amax) : 1;
    let ls: LineSearchResult | null = null;
    const lf = lineFunctions(p, x, d, xt, gt, lower, upper, xbar);
    if (dphi0 < 0 && amax > 0) ls = strongWolfeLineSearch(lf.phi, lf.dphi, f, dphi0, a1, Math.max(amax, a1), 1e-3, 0.9);
    if (!ls) {
      // not a descent direction or no acceptable step: discard the memory and retry once from steepest descent
      if (mem.k === 0) { message = 'line search failed: no step satisfies the Wolfe conditions (rounding level reached)'; break; }
      refresh(); restarts++;
      continue;
    }
    lf.settle(ls.alpha);
    const s = new Float64Array(n), y = new Float64Array(n);
    for (let i = 0; i < n; i++) { s[i] = xt[i] - x[i]; y[i] = gt[i] - g[i]; }
    const fNew = ls.phi;
    const reduction = f - fNew, scale = Math.max(Math.abs(f), Math.abs(fNew));
    x.set(xt); g.set(gt); f = fNew;
    iter++; firstStep = false;
    history.push(f);
    if ((iter & 255) === 0) opts.progress?.(iter / opts.maxIter);
    if (projectedGradientNorm(x, g, lower, upper) <= opts.gtol) { converged = true; message = 'projected gradient norm below gtol'; break; }
    if (reduction <= EPS * scale) { message = 'no reduction of f beyond rounding'; break; }
    // keep the pair only when the curvature sᵀy is safely positive
    const sy = dot(s, y, n), yy = dot(y, y, n);
    if (sy > EPS * yy) {
      if (S.length === m) { S.shift(); Y.shift(); }
      S.push(s); Y.push(y);
      const theta = yy / sy;
      const M = middleMatrix(S, Y, theta, n);
      if (M) mem = { k: S.length, theta, W: buildW(S, Y, theta, n), M };
      else { refresh(); restarts++; }
    }
  }
  return { x, f, g, iterations: iter, converged, message, history, restarts };
}
