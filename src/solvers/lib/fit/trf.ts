// Trust-region reflective least squares: M. A. Branch, T. F. Coleman & Y. Li, "A subspace,
// interior, and conjugate gradient method for large-scale bound-constrained minimization
// problems", SIAM J. Sci. Comput. 21(1), 1-23 (1999), in the variant of
// scipy.optimize.least_squares(method='trf', tr_solver='exact'), whose steps are:
//   - Coleman-Li scaling v_i (distance to the bound the anti-gradient points at, 1 when that
//     bound is infinite), the scaled variables x̂ = x / √v and the diagonal term
//     diag(g·dv) added to the Gauss-Newton model (Coleman & Li, SIAM J. Optim. 6(2), 418 (1996));
//   - the trust-region subproblem ‖p̂‖ <= Δ in the scaled variables solved exactly with one SVD of
//     the augmented Jacobian [J·D; diag(√(g·dv))] and Moré's Newton iteration on
//     φ(α) = ‖p̂(α)‖ − Δ (Moré 1978; at most 10 iterations, |φ| < 0.01·Δ);
//   - a step that would leave the box is the best (by the quadratic model) of: the step to the
//     boundary shortened by θ = max(0.995, 1 − ‖g·v‖∞), its reflection off that boundary, and the
//     scaled anti-gradient direction, each within the region;
//   - Δ ← Δ/4·‖step‖ at ratio < 1/4, ×2 at ratio > 3/4 with the step on the region's boundary;
//     a trial point with a non-finite residual shrinks Δ to ‖step‖/4 and is retried;
//   - termination (SciPy's check_termination): gtol on ‖g·v‖∞ (‖g‖∞ without bounds), ftol on
//     dF < ftol·F with ratio > 1/4, xtol on ‖dx‖ < xtol·(xtol + ‖x‖).
// Without bounds it is the same iteration with v ≡ 1 (SciPy's trf_no_bounds). The SVD here is
// computed as a Householder QR followed by the one-sided Jacobi SVD of R (linalg.ts), and
// x_scale is 1 (SciPy's default for trf). Robust losses scale J and f each iteration (loss.ts).
import type { LsqOptions, LsqProblem, LsqResult } from './problem.ts';
import { enorm, householderQr, applyQt, rOf, jacobiSvd } from './linalg.ts';
import { lossCost, scaleForLoss, type LossName } from './loss.ts';

const EPS = 2.220446049250313e-16;

export interface TrfOptions extends LsqOptions {
  lower?: Float64Array;
  upper?: Float64Array;
  loss?: LossName;
  fScale?: number;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>, n: number) => { let s = 0; for (let i = 0; i < n; i++) s += a[i] * b[i]; return s; };

/** J·s for column-major J (m×n) */
function jmul(jac: Float64Array, m: number, n: number, s: ArrayLike<number>, out: Float64Array): Float64Array {
  out.fill(0);
  for (let j = 0; j < n; j++) { const sj = s[j]; if (sj === 0) continue; const c = j * m; for (let i = 0; i < m; i++) out[i] += jac[c + i] * sj; }
  return out;
}

/** ½‖J s‖² + ½ sᵀdiag(h)s + gᵀs */
function quadratic(jh: Float64Array, m: number, n: number, g: Float64Array, s: Float64Array, diagH: Float64Array | null, work: Float64Array): number {
  jmul(jh, m, n, s, work);
  let q = dot(work, work, m);
  if (diagH) for (let j = 0; j < n; j++) q += diagH[j] * s[j] * s[j];
  return 0.5 * q + dot(g, s, n);
}

/** coefficients of q(t) = a t² + b t + c along s0 + t·s */
function quadratic1d(jh: Float64Array, m: number, n: number, g: Float64Array, s: Float64Array, diagH: Float64Array | null, s0: Float64Array | null, w1: Float64Array, w2: Float64Array): [number, number, number] {
  jmul(jh, m, n, s, w1);
  let a = dot(w1, w1, m);
  if (diagH) for (let j = 0; j < n; j++) a += diagH[j] * s[j] * s[j];
  a *= 0.5;
  let b = dot(g, s, n), c = 0;
  if (s0) {
    jmul(jh, m, n, s0, w2);
    b += dot(w2, w1, m);
    c = 0.5 * dot(w2, w2, m) + dot(g, s0, n);
    if (diagH) for (let j = 0; j < n; j++) { b += diagH[j] * s0[j] * s[j]; c += 0.5 * diagH[j] * s0[j] * s0[j]; }
  }
  return [a, b, c];
}

/** the minimiser of a t² + b t + c on [lo, hi] and its value */
function minimize1d(a: number, b: number, lo: number, hi: number, c = 0): [number, number] {
  const ts = [lo, hi];
  if (a !== 0) { const e = (-0.5 * b) / a; if (lo < e && e < hi) ts.push(e); }
  let bt = ts[0], bv = Infinity;
  for (const t of ts) { const v = t * (a * t + b) + c; if (v < bv) { bv = v; bt = t; } }
  return [bt, bv];
}

/** the largest t with x + t·s in the box, and which components hit (−1 lower, +1 upper) */
function stepToBound(x: Float64Array, s: Float64Array, lb: Float64Array, ub: Float64Array, n: number, hits: Int8Array | null): number {
  let min = Infinity;
  const steps = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (s[i] === 0) { steps[i] = Infinity; continue; }
    const t = Math.max((lb[i] - x[i]) / s[i], (ub[i] - x[i]) / s[i]);
    steps[i] = t;
    if (t < min) min = t;
  }
  if (hits) for (let i = 0; i < n; i++) hits[i] = steps[i] === min ? (s[i] > 0 ? 1 : s[i] < 0 ? -1 : 0) : 0;
  return min;
}

/** the two t with ‖x + t·s‖ = Δ, ordered */
function intersectTrustRegion(x: Float64Array, s: Float64Array, delta: number, n: number): [number, number] {
  const a = dot(s, s, n), b = dot(x, s, n), c = dot(x, x, n) - delta * delta;
  const d = Math.sqrt(Math.max(0, b * b - a * c));
  const q = -(b + (b >= 0 ? d : -d));
  const t1 = q / a, t2 = c / q;
  return t1 < t2 ? [t1, t2] : [t2, t1];
}

interface TrSolution { alpha: number }

/** Moré's trust-region solution from an SVD: p = −V (s·uf/(s² + α)), ‖p‖ = Δ (or the Gauss-Newton
 * step when it is inside). `m` is the number of residuals (the rank test's scale). */
function solveTrustRegion(n: number, m: number, uf: Float64Array, s: Float64Array, v: Float64Array, delta: number, initialAlpha: number | null, p: Float64Array): TrSolution {
  const suf = new Float64Array(n);
  for (let k = 0; k < n; k++) suf[k] = s[k] * uf[k];
  const fullRank = m >= n && s[n - 1] > EPS * m * s[0];
  const combine = (coef: Float64Array) => { p.fill(0); for (let k = 0; k < n; k++) { const c = coef[k]; if (c === 0) continue; for (let j = 0; j < n; j++) p[j] -= v[j + k * n] * c; } };
  const coef = new Float64Array(n);
  if (fullRank) {
    for (let k = 0; k < n; k++) coef[k] = uf[k] / s[k];
    combine(coef);
    if (enorm(p, n) <= delta) return { alpha: 0 };
  }
  const phi = (alpha: number): [number, number] => {
    let pn2 = 0, d3 = 0;
    for (let k = 0; k < n; k++) { const den = s[k] * s[k] + alpha; pn2 += (suf[k] / den) ** 2; d3 += (suf[k] * suf[k]) / (den * den * den); }
    const pn = Math.sqrt(pn2);
    return [pn - delta, -d3 / pn];
  };
  let alphaUpper = enorm(suf, n) / delta;
  let alphaLower = 0;
  if (fullRank) { const [f0, fp0] = phi(0); alphaLower = -f0 / fp0; }
  let alpha = initialAlpha === null || (!fullRank && initialAlpha === 0) ? Math.max(0.001 * alphaUpper, Math.sqrt(alphaLower * alphaUpper)) : initialAlpha;
  for (let it = 0; it < 10; it++) {
    if (alpha < alphaLower || alpha > alphaUpper) alpha = Math.max(0.001 * alphaUpper, Math.sqrt(alphaLower * alphaUpper));
    const [ph, php] = phi(alpha);
    if (ph < 0) alphaUpper = alpha;
    const ratio = ph / php;
    alphaLower = Math.max(alphaLower, alpha - ratio);
    alpha -= ((ph + delta) * ratio) / delta;
    if (Math.abs(ph) < 0.01 * delta) break;
  }
  for (let k = 0; k < n; k++) coef[k] = suf[k] / (s[k] * s[k] + alpha);
  combine(coef);
  const pn = enorm(p, n);
  if (pn > 0) for (let j = 0; j < n; j++) p[j] *= delta / pn;
  return { alpha };
}

/** SVD of a column-major mm×n matrix (mm >= n) with uf = Uᵀf: QR, then Jacobi on R */
function svdWithUf(a: Float64Array, mm: number, n: number, f: Float64Array): { s: Float64Array; v: Float64Array; uf: Float64Array } {
  const qr = householderQr(a, mm, n);
  const qtf = Float64Array.from(f);
  applyQt(qr, qtf);
  const svd = jacobiSvd(rOf(qr), n);
  const uf = new Float64Array(n);
  for (let k = 0; k < n; k++) { let s = 0; for (let i = 0; i < n; i++) s += svd.u[i + k * n] * qtf[i]; uf[k] = s; }
  return { s: svd.s, v: svd.v, uf };
}

function updateRadius(delta: number, actual: number, predicted: number, stepNorm: number, boundHit: boolean): [number, number] {
  let ratio: number;
  if (predicted > 0) ratio = actual / predicted;
  else if (predicted === actual) ratio = 1;
  else ratio = 0;
  if (ratio < 0.25) delta = 0.25 * stepNorm;
  else if (ratio > 0.75 && boundHit) delta *= 2;
  return [delta, ratio];
}

function checkTermination(dF: number, F: number, dxNorm: number, xNorm: number, ratio: number, ftol: number, xtol: number): number | null {
  const fOk = dF < ftol * F && ratio > 0.25;
  const xOk = dxNorm < xtol * (xtol + xNorm);
  if (fOk && xOk) return 4;
  if (fOk) return 2;
  if (xOk) return 3;
  return null;
}

/** x moved strictly inside the box by rstep (SciPy make_strictly_feasible) */
export function strictlyFeasible(x: Float64Array, lb: Float64Array, ub: Float64Array, rstep: number): Float64Array {
  const out = Float64Array.from(x);
  for (let i = 0; i < x.length; i++) {
    if (x[i] <= lb[i]) out[i] = rstep === 0 ? nextAfter(lb[i], ub[i]) : lb[i] + rstep * Math.max(1, Math.abs(lb[i]));
    else if (x[i] >= ub[i]) out[i] = rstep === 0 ? nextAfter(ub[i], lb[i]) : ub[i] - rstep * Math.max(1, Math.abs(ub[i]));
    if (out[i] < lb[i] || out[i] > ub[i]) out[i] = 0.5 * (lb[i] + ub[i]);
  }
  return out;
}

const F64 = new Float64Array(1), U64 = new BigInt64Array(F64.buffer);
/** the next double after x toward y */
function nextAfter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? 5e-324 : -5e-324;
  F64[0] = x;
  if ((y > x) === (x > 0)) U64[0] += 1n; else U64[0] -= 1n;
  return F64[0];
}

const MESSAGES: Record<number, string> = {
  0: 'the number of function evaluations reached maxNfev',
  1: 'gtol termination condition is satisfied',
  2: 'ftol termination condition is satisfied',
  3: 'xtol termination condition is satisfied',
  4: 'both ftol and xtol termination conditions are satisfied',
};

/** Trust-region reflective least squares from x0 (inside the box when bounds are given). */
export function trustRegionReflective(prob: LsqProblem, x0In: Float64Array, opts: TrfOptions): LsqResult {
  const { m, n } = prob;
  const { ftol, xtol, gtol, maxNfev } = opts;
  const loss = opts.loss ?? 'linear', fScale = opts.fScale ?? 1;
  const bounded = !!(opts.lower && opts.upper && (opts.lower.some((v) => v > -Infinity) || opts.upper.some((v) => v < Infinity)));
  const lb = opts.lower ?? new Float64Array(n).fill(-Infinity), ub = opts.upper ?? new Float64Array(n).fill(Infinity);
  let x = bounded ? strictlyFeasible(x0In, lb, ub, 1e-10) : Float64Array.from(x0In);
  let fTrue = new Float64Array(m);
  prob.residuals(x, fTrue);
  let nfev = 1, njev = 0;
  let cost = lossCost(loss, fScale, fTrue);
  const jac = new Float64Array(m * n);
  const f = new Float64Array(m);
  const g = new Float64Array(n);
  const evalJac = () => {
    prob.jacobian(x, jac); njev++;
    f.set(fTrue);
    scaleForLoss(loss, fScale, f, jac, m, n);
    for (let j = 0; j < n; j++) { let s = 0; const c = j * m; for (let i = 0; i < m; i++) s += jac[c + i] * f[i]; g[j] = s; }
  };
  evalJac();
  const v = new Float64Array(n).fill(1), dv = new Float64Array(n);
  const clScaling = () => {
    for (let i = 0; i < n; i++) {
      v[i] = 1; dv[i] = 0;
      if (!bounded) continue;
      if (g[i] < 0 && Number.isFinite(ub[i])) { v[i] = ub[i] - x[i]; dv[i] = -1; }
      else if (g[i] > 0 && Number.isFinite(lb[i])) { v[i] = x[i] - lb[i]; dv[i] = 1; }
    }
  };
  clScaling();
  let delta = 0;
  for (let i = 0; i < n; i++) delta += (x[i] / Math.sqrt(v[i])) ** 2;
  delta = Math.sqrt(delta);
  if (delta === 0 || !Number.isFinite(delta)) delta = 1;
  const mm = bounded ? m + n : m;
  const jAug = new Float64Array(mm * n);
  const fAug = new Float64Array(mm);
  const d = new Float64Array(n), diagH = new Float64Array(n), gH = new Float64Array(n);
  const pH = new Float64Array(n), p = new Float64Array(n);
  const w1 = new Float64Array(m), w2 = new Float64Array(m);
  let alpha = 0, status: number | null = null, iteration = 0;
  let gNorm = 0;
  const xNew = new Float64Array(n), fNew = new Float64Array(m);
  for (;;) {
    clScaling();
    gNorm = 0;
    for (let i = 0; i < n; i++) gNorm = Math.max(gNorm, Math.abs(g[i] * v[i]));
    if (gNorm < gtol) status = 1;
    if (status !== null || nfev >= maxNfev) break;
    opts.progress?.(Math.min(0.95, nfev / maxNfev));
    for (let i = 0; i < n; i++) { d[i] = Math.sqrt(v[i]); diagH[i] = g[i] * dv[i]; gH[i] = d[i] * g[i]; }
    // J_h = J·D (the first m rows of the augmented matrix), then √diag_h below it
    jAug.fill(0);
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < m; i++) jAug[i + j * mm] = jac[i + j * m] * d[j];
      if (bounded) jAug[m + j + j * mm] = Math.sqrt(diagH[j]);
    }
    const jH = new Float64Array(m * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) jH[i + j * m] = jAug[i + j * mm];
    fAug.fill(0); fAug.set(f);
    const { s, v: V, uf } = svdWithUf(jAug, mm, n, fAug);
    const theta = Math.max(0.995, 1 - gNorm);
    let actual = -1, stepNorm = 0, costNew = cost;
    while (actual <= 0 && nfev < maxNfev) {
      alpha = solveTrustRegion(n, m, uf, s, V, delta, alpha, pH).alpha;
      for (let i = 0; i < n; i++) p[i] = d[i] * pH[i];
      let step: Float64Array, stepH: Float64Array, predicted: number;
      if (!bounded) {
        step = Float64Array.from(p); stepH = Float64Array.from(pH);
        predicted = -quadratic(jH, m, n, gH, stepH, null, w1);
      } else {
        [step, stepH, predicted] = selectStep(x, jH, m, n, diagH, gH, Float64Array.from(p), Float64Array.from(pH), d, delta, lb, ub, theta, w1, w2);
      }
      for (let i = 0; i < n; i++) xNew[i] = x[i] + step[i];
      const xTry = bounded ? strictlyFeasible(xNew, lb, ub, 0) : xNew;
      prob.residuals(xTry, fNew); nfev++;
      const stepHNorm = enorm(stepH, n);
      let finite = true;
      for (let i = 0; i < m; i++) if (!Number.isFinite(fNew[i])) { finite = false; break; }
      if (!finite) { delta = 0.25 * stepHNorm; continue; }
      costNew = lossCost(loss, fScale, fNew);
      actual = cost - costNew;
      const [deltaNew, ratio] = updateRadius(delta, actual, predicted, stepHNorm, stepHNorm > 0.95 * delta);
      stepNorm = enorm(step, n);
      status = checkTermination(actual, cost, stepNorm, enorm(x, n), ratio, ftol, xtol);
      if (status !== null) { if (xTry !== xNew) xNew.set(xTry); break; }
      alpha *= delta / deltaNew;
      delta = deltaNew;
      if (xTry !== xNew) xNew.set(xTry);
    }
    if (actual > 0) {
      x = Float64Array.from(xNew);
      fTrue = Float64Array.from(fNew);
      cost = costNew;
      evalJac();
    }
    iteration++;
  }
  if (status === null) status = 0;
  const activeMask = new Int8Array(n);
  if (bounded) {
    for (let i = 0; i < n; i++) {
      const lt = xtol * Math.max(1, Math.abs(lb[i])), ut = xtol * Math.max(1, Math.abs(ub[i]));
      if (Number.isFinite(lb[i]) && x[i] - lb[i] <= lt) activeMask[i] = -1;
      else if (Number.isFinite(ub[i]) && ub[i] - x[i] <= ut) activeMask[i] = 1;
    }
  }
  return {
    x, fun: fTrue, cost, nfev, njev, iterations: iteration, status, success: status > 0,
    message: MESSAGES[status], activeMask,
  };
}

/** Branch-Coleman-Li step selection inside the box (SciPy trf.select_step). */
function selectStep(x: Float64Array, jH: Float64Array, m: number, n: number, diagH: Float64Array, gH: Float64Array, p: Float64Array, pH: Float64Array,
  d: Float64Array, delta: number, lb: Float64Array, ub: Float64Array, theta: number, w1: Float64Array, w2: Float64Array): [Float64Array, Float64Array, number] {
  const xp = new Float64Array(n);
  for (let i = 0; i < n; i++) xp[i] = x[i] + p[i];
  let inside = true;
  for (let i = 0; i < n; i++) if (!(xp[i] >= lb[i] && xp[i] <= ub[i])) { inside = false; break; }
  if (inside) return [p, pH, -quadratic(jH, m, n, gH, pH, diagH, w1)];
  const hits = new Int8Array(n);
  const pStride = stepToBound(x, p, lb, ub, n, hits);
  // the reflected direction
  const rH = Float64Array.from(pH);
  for (let i = 0; i < n; i++) if (hits[i] !== 0) rH[i] *= -1;
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) r[i] = d[i] * rH[i];
  for (let i = 0; i < n; i++) { p[i] *= pStride; pH[i] *= pStride; }
  const xOnBound = new Float64Array(n);
  for (let i = 0; i < n; i++) xOnBound[i] = x[i] + p[i];
  const [, toTr] = intersectTrustRegion(pH, rH, delta, n);
  const toBound = stepToBound(xOnBound, r, lb, ub, n, null);
  let rStride = Math.min(toBound, toTr);
  let rStrideL: number, rStrideU: number;
  if (rStride > 0) {
    rStrideL = ((1 - theta) * pStride) / rStride;
    rStrideU = rStride === toBound ? theta * rStride : rStride;
  } else { rStrideL = 0; rStrideU = -1; }
  let rValue = Infinity;
  if (rStrideL <= rStrideU) {
    const [a, b, c] = quadratic1d(jH, m, n, gH, rH, diagH, pH, w1, w2);
    [rStride, rValue] = minimize1d(a, b, rStrideL, rStrideU, c);
    for (let i = 0; i < n; i++) { rH[i] = rH[i] * rStride + pH[i]; r[i] = rH[i] * d[i]; }
  }
  for (let i = 0; i < n; i++) { p[i] *= theta; pH[i] *= theta; }
  const pValue = quadratic(jH, m, n, gH, pH, diagH, w1);
  // the scaled anti-gradient
  const agH = new Float64Array(n), ag = new Float64Array(n);
  for (let i = 0; i < n; i++) { agH[i] = -gH[i]; ag[i] = d[i] * agH[i]; }
  const toTrAg = delta / enorm(agH, n);
  const toBoundAg = stepToBound(x, ag, lb, ub, n, null);
  const agMax = toBoundAg < toTrAg ? theta * toBoundAg : toTrAg;
  const [a2, b2] = quadratic1d(jH, m, n, gH, agH, diagH, null, w1, w2);
  const [agStride, agValue] = minimize1d(a2, b2, 0, agMax);
  for (let i = 0; i < n; i++) { agH[i] *= agStride; ag[i] *= agStride; }
  if (pValue < rValue && pValue < agValue) return [p, pH, -pValue];
  if (rValue < pValue && rValue < agValue) return [r, rH, -rValue];
  return [ag, agH, -agValue];
}
