// Profile-likelihood confidence intervals of least-squares parameters (Bates & Watts,
// "Nonlinear Regression Analysis and Its Applications", Wiley (1988), §6.1; Venzon & Moolgavkar,
// Appl. Statist. 37(1), 87 (1988)). For parameter j the profile S_j(b) = min over the others of
// Σr² with p_j = b held fixed; the interval is {b : S_j(b) <= S_min + Δ}, with
//   Δ = S_min·t²(0.975, ν)/ν   (σ estimated from the residuals: the F(1, ν) likelihood-ratio rule)
//   Δ = χ²(0.95, 1) = z²(0.975) (σ known, absolute).
// Each end is bracketed by stepping out from the estimate in multiples of the Wald half-width
// (at most 2^8 of them), then located by bisection to 1e-6 of the half-width. Each S_j(b) is a
// Levenberg-Marquardt fit of the other parameters (lm.ts), warm-started from the previous point.
// An end that cannot be bracketed (the profile stays below the threshold, hits a bound, or the
// model leaves its domain) is null: that side of the interval is open.
import type { LsqProblem } from './problem.ts';
import { levenbergMarquardt } from './lm.ts';

export interface ProfileOptions {
  /** S_min + delta is the threshold */
  delta: number;
  sMin: number;
  lower?: Float64Array;
  upper?: Float64Array;
  ftol: number;
  xtol: number;
  gtol: number;
  maxNfev: number;
}

export interface ProfileInterval { lo: number | null; hi: number | null; fits: number }

/** The reduced problem with parameter j fixed at `value`. */
function fixed(prob: LsqProblem, j: number, value: () => number): LsqProblem {
  const { m, n } = prob;
  const full = new Float64Array(n), jf = new Float64Array(m * n);
  const expand = (q: Float64Array) => { for (let k = 0, l = 0; k < n; k++) full[k] = k === j ? value() : q[l++]; };
  return {
    m, n: n - 1,
    residuals(q, out) { expand(q); prob.residuals(full, out); },
    jacobian(q, jac) {
      expand(q); prob.jacobian(full, jf);
      for (let k = 0, l = 0; k < n; k++) { if (k === j) continue; jac.set(jf.subarray(k * m, k * m + m), l * m); l++; }
    },
  };
}

/** The profile-likelihood interval of parameter j around the best fit xHat. */
export function profileInterval(prob: LsqProblem, xHat: Float64Array, j: number, waldHalf: number, o: ProfileOptions): ProfileInterval {
  const n = prob.n;
  let fits = 0;
  const threshold = o.sMin + o.delta;
  const others = (x: Float64Array) => Float64Array.from([...x].filter((_, k) => k !== j));
  const side = (dir: 1 | -1): number | null => {
    let b = 0;
    const red = fixed(prob, j, () => b);
    let start: Float64Array = others(xHat);
    // S_j(value) − threshold, warm-started; NaN when the fit leaves the model's domain
    const excess = (value: number): number => {
      b = value;
      const r0 = new Float64Array(prob.m);
      red.residuals(start, r0);
      if (!r0.every(Number.isFinite)) return NaN;
      const res = levenbergMarquardt(red, start, { ftol: o.ftol, xtol: o.xtol, gtol: o.gtol, maxNfev: o.maxNfev });
      fits++;
      let s = 0;
      for (let i = 0; i < prob.m; i++) s += res.fun[i] * res.fun[i];
      if (!Number.isFinite(s)) return NaN;
      start = res.x;
      return s - threshold;
    };
    const limit = dir > 0 ? (o.upper ? o.upper[j] : Infinity) : (o.lower ? o.lower[j] : -Infinity);
    let inside = xHat[j], outside = NaN;
    let stepK = 1;
    for (let k = 0; k < 9; k++) {
      const trial = xHat[j] + dir * stepK * waldHalf;
      if ((dir > 0 && trial > limit) || (dir < 0 && trial < limit)) return null;
      const e = excess(trial);
      if (Number.isNaN(e)) return null;
      if (e > 0) { outside = trial; break; }
      inside = trial;
      stepK *= 2;
    }
    if (Number.isNaN(outside)) return null;
    const insideStart = start;
    let lo = inside, hi = outside;
    for (let k = 0; k < 60 && Math.abs(hi - lo) > 1e-6 * waldHalf; k++) {
      const mid = 0.5 * (lo + hi);
      start = insideStart;
      const e = excess(mid);
      if (Number.isNaN(e)) return null;
      if (e > 0) hi = mid; else lo = mid;
    }
    return 0.5 * (lo + hi);
  };
  if (n < 2) {
    // one parameter: S(b) itself
    const r = new Float64Array(prob.m);
    const solve1 = (dir: 1 | -1): number | null => {
      const S = (b: number) => { prob.residuals(Float64Array.of(b), r); fits++; let s = 0; for (const v of r) s += v * v; return Number.isFinite(s) ? s - threshold : NaN; };
      const limit = dir > 0 ? (o.upper ? o.upper[0] : Infinity) : (o.lower ? o.lower[0] : -Infinity);
      let inside = xHat[0], outside = NaN, stepK = 1;
      for (let k = 0; k < 9; k++) {
        const t = xHat[0] + dir * stepK * waldHalf;
        if ((dir > 0 && t > limit) || (dir < 0 && t < limit)) return null;
        const e = S(t);
        if (Number.isNaN(e)) return null;
        if (e > 0) { outside = t; break; }
        inside = t; stepK *= 2;
      }
      if (Number.isNaN(outside)) return null;
      let lo = inside, hi = outside;
      for (let k = 0; k < 80 && Math.abs(hi - lo) > 1e-9 * waldHalf; k++) { const mid = 0.5 * (lo + hi); if (S(mid) > 0) hi = mid; else lo = mid; }
      return 0.5 * (lo + hi);
    };
    return { lo: solve1(-1), hi: solve1(1), fits };
  }
  const lo = side(-1), hi = side(1);
  return { lo, hi, fits };
}
