// Levenberg-Marquardt for nonlinear least squares, as J. J. Moré, "The Levenberg-Marquardt
// algorithm: implementation and theory", in G. A. Watson (ed.), Numerical Analysis, Lecture
// Notes in Mathematics 630, Springer (1978), pp. 105-116, and its implementation in MINPACK-1
// (Moré, Garbow & Hillstrom, Argonne report ANL-80-74 (1980), routines lmder, lmpar, qrfac,
// qrsolv), the routine scipy.optimize.least_squares(method='lm') calls:
//   - the trust region ‖D·p‖ <= Δ in the variables scaled by D = diag of the Jacobian's column
//     norms, D only ever increasing (MINPACK mode 1, SciPy's default x_scale='jac' since 1.16);
//     Δ0 = factor·‖D·x0‖ (factor = 100), or factor when that is 0;
//   - the step from the QR factorisation with column pivoting of J; the Levenberg parameter λ by
//     Moré's safeguarded Newton iteration on φ(λ) = ‖D·p(λ)‖ − Δ (at most 10 iterations, stop at
//     |φ| <= 0.1·Δ), each p(λ) from Givens rotations that eliminate √λ·D against R (qrsolv);
//   - Δ updated from ρ = actual / predicted reduction (ρ <= 1/4: shrink by a factor in
//     [1/10, 1/2] from the quadratic model of the actual reduction; ρ >= 3/4 or λ = 0: Δ = 2‖D·p‖);
//     a step is accepted when ρ >= 1e-4;
//   - tests: ftol on both the actual and predicted relative reductions of ‖f‖², xtol on
//     Δ <= xtol·‖D·x‖, gtol on the largest cosine between f and a column of J, and MINPACK's
//     "tolerance too small" tests at machine precision (info 6, 7, 8).
// The Fortran's arithmetic is followed statement by statement (this is a fresh TypeScript
// transcription of the published algorithm, written against the report's description).
import type { LsqOptions, LsqProblem, LsqResult } from './problem.ts';
import { enorm } from './linalg.ts';

const EPSMCH = 2.220446049250313e-16;
const DWARF = 2.2250738585072014e-308;
const P1 = 0.1, P5 = 0.5, P25 = 0.25, P75 = 0.75, P0001 = 1e-4;

/** QR with column pivoting (MINPACK qrfac, pivot = true) of a (m×n column-major, lda = m). */
function qrfac(m: number, n: number, a: Float64Array, ipvt: Int32Array, rdiag: Float64Array, acnorm: Float64Array, wa: Float64Array): void {
  for (let j = 0; j < n; j++) {
    acnorm[j] = enorm(a, m, j * m);
    rdiag[j] = acnorm[j];
    wa[j] = rdiag[j];
    ipvt[j] = j;
  }
  const minmn = Math.min(m, n);
  for (let j = 0; j < minmn; j++) {
    // bring the column of largest remaining norm into the pivot position
    let kmax = j;
    for (let k = j; k < n; k++) if (rdiag[k] > rdiag[kmax]) kmax = k;
    if (kmax !== j) {
      for (let i = 0; i < m; i++) { const t = a[i + j * m]; a[i + j * m] = a[i + kmax * m]; a[i + kmax * m] = t; }
      rdiag[kmax] = rdiag[j];
      wa[kmax] = wa[j];
      const k = ipvt[j]; ipvt[j] = ipvt[kmax]; ipvt[kmax] = k;
    }
    // the Householder transformation that reduces column j to a multiple of e_j
    let ajnorm = enorm(a, m - j, j + j * m);
    if (ajnorm !== 0) {
      if (a[j + j * m] < 0) ajnorm = -ajnorm;
      for (let i = j; i < m; i++) a[i + j * m] /= ajnorm;
      a[j + j * m] += 1;
      for (let k = j + 1; k < n; k++) {
        let sum = 0;
        for (let i = j; i < m; i++) sum += a[i + j * m] * a[i + k * m];
        const temp = sum / a[j + j * m];
        for (let i = j; i < m; i++) a[i + k * m] -= temp * a[i + j * m];
        if (rdiag[k] !== 0) {
          const t = a[j + k * m] / rdiag[k];
          rdiag[k] *= Math.sqrt(Math.max(0, 1 - t * t));
          const r = rdiag[k] / wa[k];
          if (P5 * r * r <= EPSMCH) {
            rdiag[k] = enorm(a, m - j - 1, j + 1 + k * m);
            wa[k] = rdiag[k];
          }
        }
      }
    }
    rdiag[j] = -ajnorm;
  }
}

/** MINPACK qrsolv: given the QR (with pivoting) of A in r (n×n, column-major, ldr) and a diagonal
 * D, solves [A; D]x ≈ [b; 0] in the least-squares sense from qtb = Qᵀb. Overwrites the strict
 * lower triangle of r with Sᵀ's, sdiag with S's diagonal (PᵀAᵀAP + PᵀDDP = SᵀS... as in MINPACK). */
function qrsolv(n: number, r: Float64Array, ldr: number, ipvt: Int32Array, diag: Float64Array, qtb: Float64Array, x: Float64Array, sdiag: Float64Array, wa: Float64Array): void {
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) r[i + j * ldr] = r[j + i * ldr];
    x[j] = r[j + j * ldr];
    wa[j] = qtb[j];
  }
  for (let j = 0; j < n; j++) {
    const l = ipvt[j];
    if (diag[l] !== 0) {
      for (let k = j; k < n; k++) sdiag[k] = 0;
      sdiag[j] = diag[l];
      let qtbpj = 0;
      for (let k = j; k < n; k++) {
        if (sdiag[k] === 0) continue;
        const rkk = r[k + k * ldr];
        let sin: number, cos: number;
        if (Math.abs(rkk) < Math.abs(sdiag[k])) {
          const cotan = rkk / sdiag[k];
          sin = P5 / Math.sqrt(P25 + P25 * cotan * cotan);
          cos = sin * cotan;
        } else {
          const tan = sdiag[k] / rkk;
          cos = P5 / Math.sqrt(P25 + P25 * tan * tan);
          sin = cos * tan;
        }
        r[k + k * ldr] = cos * rkk + sin * sdiag[k];
        const temp = cos * wa[k] + sin * qtbpj;
        qtbpj = -sin * wa[k] + cos * qtbpj;
        wa[k] = temp;
        for (let i = k + 1; i < n; i++) {
          const t = cos * r[i + k * ldr] + sin * sdiag[i];
          sdiag[i] = -sin * r[i + k * ldr] + cos * sdiag[i];
          r[i + k * ldr] = t;
        }
      }
    }
    sdiag[j] = r[j + j * ldr];
    r[j + j * ldr] = x[j];
  }
  // solve the triangular system; a singular one in the least-squares sense
  let nsing = n;
  for (let j = 0; j < n; j++) {
    if (sdiag[j] === 0 && nsing === n) nsing = j;
    if (nsing < n) wa[j] = 0;
  }
  for (let k = 0; k < nsing; k++) {
    const j = nsing - 1 - k;
    let sum = 0;
    for (let i = j + 1; i < nsing; i++) sum += r[i + j * ldr] * wa[i];
    wa[j] = (wa[j] - sum) / sdiag[j];
  }
  for (let j = 0; j < n; j++) x[ipvt[j]] = wa[j];
}

/** MINPACK lmpar: the Levenberg parameter for the trust region Δ; returns par, fills x (the
 * step with the sign of the solution of J·x ≈ f, i.e. the caller negates it). */
function lmpar(n: number, r: Float64Array, ldr: number, ipvt: Int32Array, diag: Float64Array, qtb: Float64Array, delta: number, parIn: number,
  x: Float64Array, sdiag: Float64Array, wa1: Float64Array, wa2: Float64Array): number {
  let par = parIn;
  // the Gauss-Newton direction (least squares if R is singular)
  let nsing = n;
  for (let j = 0; j < n; j++) {
    wa1[j] = qtb[j];
    if (r[j + j * ldr] === 0 && nsing === n) nsing = j;
    if (nsing < n) wa1[j] = 0;
  }
  for (let k = 0; k < nsing; k++) {
    const j = nsing - 1 - k;
    wa1[j] /= r[j + j * ldr];
    const temp = wa1[j];
    for (let i = 0; i < j; i++) wa1[i] -= r[i + j * ldr] * temp;
  }
  for (let j = 0; j < n; j++) x[ipvt[j]] = wa1[j];
  let iter = 0;
  for (let j = 0; j < n; j++) wa2[j] = diag[j] * x[j];
  let dxnorm = enorm(wa2, n);
  let fp = dxnorm - delta;
  if (fp <= P1 * delta) return 0;
  // lower bound parl of the zero of φ (only when the Jacobian has full rank)
  let parl = 0;
  if (nsing >= n) {
    for (let j = 0; j < n; j++) { const l = ipvt[j]; wa1[j] = diag[l] * (wa2[l] / dxnorm); }
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let i = 0; i < j; i++) sum += r[i + j * ldr] * wa1[i];
      wa1[j] = (wa1[j] - sum) / r[j + j * ldr];
    }
    const temp = enorm(wa1, n);
    parl = fp / delta / temp / temp;
  }
  // upper bound paru
  for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let i = 0; i <= j; i++) sum += r[i + j * ldr] * qtb[i];
    wa1[j] = sum / diag[ipvt[j]];
  }
  const gnorm = enorm(wa1, n);
  let paru = gnorm / delta;
  if (paru === 0) paru = DWARF / Math.min(delta, P1);
  par = Math.max(par, parl);
  par = Math.min(par, paru);
  if (par === 0) par = gnorm / dxnorm;
  for (;;) {
    iter++;
    if (par === 0) par = Math.max(DWARF, 0.001 * paru);
    const sq = Math.sqrt(par);
    for (let j = 0; j < n; j++) wa1[j] = sq * diag[j];
    qrsolv(n, r, ldr, ipvt, wa1, qtb, x, sdiag, wa2);
    for (let j = 0; j < n; j++) wa2[j] = diag[j] * x[j];
    dxnorm = enorm(wa2, n);
    const temp = fp;
    fp = dxnorm - delta;
    if (Math.abs(fp) <= P1 * delta || (parl === 0 && fp <= temp && temp < 0) || iter === 10) break;
    // Newton correction
    for (let j = 0; j < n; j++) { const l = ipvt[j]; wa1[j] = diag[l] * (wa2[l] / dxnorm); }
    for (let j = 0; j < n; j++) {
      wa1[j] /= sdiag[j];
      const t = wa1[j];
      for (let i = j + 1; i < n; i++) wa1[i] -= r[i + j * ldr] * t;
    }
    const tn = enorm(wa1, n);
    const parc = fp / delta / tn / tn;
    if (fp > 0) parl = Math.max(parl, par);
    if (fp < 0) paru = Math.min(paru, par);
    par = Math.max(parl, par + parc);
  }
  return par;
}

const MESSAGES: Record<number, string> = {
  1: 'both actual and predicted relative reductions in the sum of squares are at most ftol',
  2: 'relative error between two consecutive iterates is at most xtol',
  3: 'both actual and predicted relative reductions are at most ftol, and the relative step is at most xtol',
  4: 'the cosine of the angle between the residuals and every column of the Jacobian is at most gtol',
  5: 'the number of function evaluations reached maxNfev',
  6: 'ftol is too small: no further reduction in the sum of squares is possible',
  7: 'xtol is too small: no further improvement in the approximate solution is possible',
  8: 'gtol is too small: the residuals are orthogonal to the columns of the Jacobian to machine precision',
};
/** MINPACK info → SciPy status (least_squares' FROM_MINPACK_TO_COMMON) */
const STATUS: Record<number, number> = { 0: -1, 1: 2, 2: 3, 3: 4, 4: 1, 5: 0, 6: 2, 7: 3, 8: 1 };

export interface LmOptions extends LsqOptions {
  /** initial step bound factor (MINPACK's factor, default 100) */
  factor?: number;
}

/** MINPACK lmder (mode 1). Non-finite residuals at a trial point count as no decrease (the step
 * is rejected and Δ shrinks); at x0 the caller has checked finiteness. */
export function levenbergMarquardt(prob: LsqProblem, x0: Float64Array, opts: LmOptions): LsqResult {
  const { m, n } = prob;
  const { ftol, xtol, gtol, maxNfev } = opts;
  const factor = opts.factor ?? 100;
  const x = Float64Array.from(x0);
  const fvec = new Float64Array(m), fjac = new Float64Array(m * n);
  const diag = new Float64Array(n), qtf = new Float64Array(n), ipvt = new Int32Array(n);
  const wa1 = new Float64Array(n), wa2 = new Float64Array(n), wa3 = new Float64Array(n), wa4 = new Float64Array(m);
  const trial = new Float64Array(n);
  let info = 0, nfev = 0, njev = 0, iter = 1, par = 0, delta = 0, xnorm = 0;
  prob.residuals(x, fvec); nfev = 1;
  let fnorm = enorm(fvec, m);
  outer: for (;;) {
    prob.jacobian(x, fjac); njev++;
    qrfac(m, n, fjac, ipvt, wa1, wa2, wa3);
    // wa1 = rdiag, wa2 = acnorm (column norms of J before the factorisation)
    if (iter === 1) {
      for (let j = 0; j < n; j++) diag[j] = wa2[j] === 0 ? 1 : wa2[j];
      for (let j = 0; j < n; j++) wa3[j] = diag[j] * x[j];
      xnorm = enorm(wa3, n);
      delta = factor * xnorm;
      if (delta === 0) delta = factor;
    }
    // Qᵀf and the first n components into qtf
    wa4.set(fvec);
    for (let j = 0; j < n; j++) {
      const ajj = fjac[j + j * m];
      if (ajj !== 0) {
        let sum = 0;
        for (let i = j; i < m; i++) sum += fjac[i + j * m] * wa4[i];
        const temp = -sum / ajj;
        for (let i = j; i < m; i++) wa4[i] += fjac[i + j * m] * temp;
      }
      fjac[j + j * m] = wa1[j];
      qtf[j] = wa4[j];
    }
    // the scaled gradient norm
    let gnorm = 0;
    if (fnorm !== 0) {
      for (let j = 0; j < n; j++) {
        const l = ipvt[j];
        if (wa2[l] !== 0) {
          let sum = 0;
          for (let i = 0; i <= j; i++) sum += fjac[i + j * m] * (qtf[i] / fnorm);
          gnorm = Math.max(gnorm, Math.abs(sum / wa2[l]));
        }
      }
    }
    if (gnorm <= gtol) { info = 4; break outer; }
    for (let j = 0; j < n; j++) diag[j] = Math.max(diag[j], wa2[j]);
    opts.progress?.(Math.min(0.95, nfev / maxNfev));
    let ratio = 0;
    do {
      par = lmpar(n, fjac, m, ipvt, diag, qtf, delta, par, wa1, wa2, wa3, wa4);
      for (let j = 0; j < n; j++) { wa1[j] = -wa1[j]; trial[j] = x[j] + wa1[j]; wa3[j] = diag[j] * wa1[j]; }
      const pnorm = enorm(wa3, n);
      if (iter === 1) delta = Math.min(delta, pnorm);
      prob.residuals(trial, wa4); nfev++;
      let fnorm1 = enorm(wa4, m);
      if (!Number.isFinite(fnorm1)) fnorm1 = Infinity;
      let actred = -1;
      if (P1 * fnorm1 < fnorm) actred = 1 - (fnorm1 / fnorm) ** 2;
      // the predicted reduction and the directional derivative, from R·Pᵀ·p
      for (let j = 0; j < n; j++) {
        wa3[j] = 0;
        const temp = wa1[ipvt[j]];
        for (let i = 0; i <= j; i++) wa3[i] += fjac[i + j * m] * temp;
      }
      const temp1 = enorm(wa3, n) / fnorm;
      const temp2 = (Math.sqrt(par) * pnorm) / fnorm;
      const prered = temp1 * temp1 + (temp2 * temp2) / P5;
      const dirder = -(temp1 * temp1 + temp2 * temp2);
      ratio = prered !== 0 ? actred / prered : 0;
      if (ratio <= P25) {
        let temp = actred >= 0 ? P5 : (P5 * dirder) / (dirder + P5 * actred);
        if (P1 * fnorm1 >= fnorm || temp < P1) temp = P1;
        delta = temp * Math.min(delta, pnorm / P1);
        par /= temp;
      } else if (par === 0 || ratio >= P75) {
        delta = pnorm / P5;
        par *= P5;
      }
      if (ratio >= P0001) {
        x.set(trial);
        for (let j = 0; j < n; j++) wa2[j] = diag[j] * x[j];
        fvec.set(wa4.subarray(0, m));
        xnorm = enorm(wa2, n);
        fnorm = fnorm1;
        iter++;
      }
      if (Math.abs(actred) <= ftol && prered <= ftol && P5 * ratio <= 1) info = 1;
      if (delta <= xtol * xnorm) info = info === 1 ? 3 : 2;
      if (info !== 0) break outer;
      if (nfev >= maxNfev) info = 5;
      if (Math.abs(actred) <= EPSMCH && prered <= EPSMCH && P5 * ratio <= 1) info = 6;
      if (delta <= EPSMCH * xnorm) info = 7;
      if (gnorm <= EPSMCH) info = 8;
      if (info !== 0) break outer;
    } while (ratio < P0001);
  }
  let cost = 0;
  for (let i = 0; i < m; i++) cost += fvec[i] * fvec[i];
  const status = STATUS[info];
  return {
    x, fun: fvec, cost: 0.5 * cost, nfev, njev, iterations: iter - 1, status,
    success: status > 0, message: MESSAGES[info] ?? `MINPACK info ${info}`, info,
  };
}
