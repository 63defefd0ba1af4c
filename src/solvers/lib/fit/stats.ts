// Student's t distribution for the fit's confidence intervals: the regularized incomplete beta
// I_x(a, b) by its continued fraction (DLMF 8.17.22) evaluated with the modified Lentz algorithm
// (Thompson & Barnett, J. Comput. Phys. 64, 490 (1986)), using the symmetry I_x(a,b) =
// 1 − I_{1−x}(b,a) where x > (a+1)/(a+b+2) for fast convergence; the t CDF
// P(T <= t) = 1 − ½·I_{ν/(ν+t²)}(ν/2, ½) (t >= 0), and its quantile by bisection to rounding.
import { logGamma } from '../special.ts';

function betaContinuedFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  let c = 1, d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let k = 1; k <= 1000; k++) {
    const m2 = 2 * k;
    let num = (k * (b - k) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d; if (Math.abs(d) < TINY) d = TINY; d = 1 / d;
    c = 1 + num / c; if (Math.abs(c) < TINY) c = TINY;
    h *= d * c;
    num = (-(a + k) * (a + b + k) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d; if (Math.abs(d) < TINY) d = TINY; d = 1 / d;
    c = 1 + num / c; if (Math.abs(c) < TINY) c = TINY;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]. */
export function incompleteBeta(a: number, b: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(a, b, x)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T <= t) for Student's t with ν degrees of freedom. */
export function studentTCdf(t: number, nu: number): number {
  const tail = 0.5 * incompleteBeta(nu / 2, 0.5, nu / (nu + t * t));
  return t >= 0 ? 1 - tail : tail;
}

const quantiles = new Map<string, number>();

/** The p-quantile (p in (0.5, 1)) of Student's t with ν degrees of freedom (memoised: a fit
 * asks for the same few). */
export function studentTQuantile(p: number, nu: number): number {
  const key = `${p}:${nu}`;
  let q = quantiles.get(key);
  if (q === undefined) {
    q = tQuantile(p, nu);
    if (quantiles.size > 1024) quantiles.clear();
    quantiles.set(key, q);
  }
  return q;
}

function tQuantile(p: number, nu: number): number {
  let lo = 0, hi = 1;
  while (studentTCdf(hi, nu) < p) { lo = hi; hi *= 2; if (hi > 1e12) break; }
  for (let k = 0; k < 200; k++) {
    const mid = 0.5 * (lo + hi);
    if (mid === lo || mid === hi) break;
    if (studentTCdf(mid, nu) < p) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** Φ⁻¹(0.975), the normal 97.5 % quantile */
export const Z975 = 1.959963984540054;
