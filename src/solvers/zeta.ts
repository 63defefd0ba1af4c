// zeta: zeros of the Riemann zeta function on the critical line up to height T.
//
// Method: Hardy's Z(t) = e^{iθ(t)}·ζ(1/2 + it) is real, so zeros on the line are sign changes
// of Z. Z is evaluated by the Riemann-Siegel formula with its first five correction terms
// (Edwards, "Riemann's Zeta Function", 1974, §7.2-7.4; Gabcke, "Neue Herleitung und explizite
// Restabschätzung der Riemann-Siegel-Formel", 1979):
//   Z(t) = 2·Σ_{n<=N} n^{-1/2}·cos(θ(t) − t·ln n) + (−1)^{N−1}·(2π/t)^{1/4}·Σ_{k=0..4} C_k(p)·(2π/t)^{k/2},
//   N = ⌊√(t/2π)⌋, p = √(t/2π) − N,
// with C_0 = Ψ(p) = cos(2π(p² − p − 1/16))/cos(2πp) and C_1..C_4 the combinations of Ψ's
// derivatives in Edwards §7.4. Gabcke tabulated the Taylor coefficients of C_k; here they are
// regenerated at load from the definition: Ψ's Taylor coefficients about p = 1/2 by the Cauchy
// integral on the unit circle (trapezoidal rule, exponentially accurate for an entire function),
// then exact differentiation of the polynomial. With five terms the truncation error falls like
// t^{-11/4} (Gabcke): about 2e-5 at t = 10, 4e-8 at t = 100, 3e-11 at t = 1000, far below the
// size of Z between close zeros in this range; test/solvers/zeta.test.ts checks Z against
// tabulated mpmath.siegelz values with that envelope.
//
// Counting: Gram points g_n (θ(g_n) = nπ) by Newton's method. A Gram point is good when
// (−1)^n·Z(g_n) > 0. Between consecutive good Gram points g_j < g_k (a Rosser block) Rosser's
// rule (Rosser, Yohe & Schoenfeld 1969; holds for every block below t ≈ 1.4e7) says there are
// k − j zeros; the scan subdivides each block (doubling the sampling) until it has found that
// many sign changes, so a close pair of zeros inside one Gram interval is never missed. The count
// up to T then comes from the brackets, the bracket holding T decided by the sign of Z(T). Near T
// a single sign decides the count, and the Riemann-Siegel remainder (2e-5 at t = 15) could flip
// it when T lies within ~1e-5 of a zero; so at T and the scan points within 1e-3 of it, a
// Riemann-Siegel value too small for its sign to be certain (|Z| under 100 times the remainder
// envelope) is replaced by ζ from Euler-Maclaurin (hardyZAccurate, within 1e-11).
// Evaluation: the main sum's cosines by Cody-Waite reduction (Cody & Waite, "Software Manual for
// the Elementary Functions", 1980) and a Taylor polynomial; the correction polynomials
// re-expanded about x² = 1/8; Gram points by Chebyshev's third-order iteration (Traub, "Iterative
// Methods for the Solution of Equations", 1964) from a quadratic extrapolation of the last
// three.
// Stability: Z is evaluated pointwise; there is no time step. The scan step `dt` only sets the
// initial sampling (default: the Gram points alone) and the Z(t) series (the scan's points).
//
// Reference (independent of Z and of Gram points): the Riemann-von Mangoldt formula
// N(T) = θ(T)/π + 1 + S(T), with S(T) = arg ζ(1/2 + iT)/π by continuous variation along
// 3 → 3 + iT → 1/2 + iT, ζ from Euler-Maclaurin summation (Edwards §6.4) and the argument
// followed with adaptive steps. N(T) computed this way is an integer to ~1e-9 and must equal the count.
import { z } from 'zod';
import type { SolverDescriptor, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { siegelTheta, siegelThetaPrime, siegelThetaStep } from './lib/special.ts';
import { precisionOf } from './lib/precision.ts';

export const descriptor: SolverDescriptor = {
  name: 'zeta',
  domain: 'Analytic Number Theory',
  method: 'riemann-siegel',
  methodDescription: 'Riemann-Siegel zero count: sign changes of Hardy Z(t) between Gram points, Rosser blocks, checked against the Riemann-von Mangoldt N(T)',
  operators: ['KO42'],
  unit: 'zeros',
  summary: 'Counts the zeros of the Riemann zeta function on the critical line with 0 < Im ρ <= T (T 15 to 2000) and checks the count against N(T) = θ(T)/π + 1 + S(T).',
  input: z.strictObject({
    T: z.number().finite().min(15).max(2000).default(100).describe('height: count zeros with 0 < Im ρ <= T (15 to 2000)'),
    dt: z.number().finite().min(0.005).max(10).default(10).describe('initial scan step in t (0.005 to 10). The default exceeds every Gram interval, so the scan starts from the Gram points alone (the classical Gram/Rosser method) and subdivides only Rosser blocks that lack sign changes; a smaller dt samples Z(t) more finely for the series'),
  }),
  examples: [
    'how many zeros does the Riemann zeta function have up to height 1000',
    'count the nontrivial zeros of zeta on the critical line below T = 500',
    'check the Riemann hypothesis numerically up to 2000',
    'number of zeta zeros with imaginary part less than 100',
    'plot Hardy Z function and find its sign changes',
    'Gram points and Rosser blocks up to t = 300',
    'compare the zero count with the Riemann-von Mangoldt formula N(T)',
    'where is the first zero of the Riemann zeta function',
    'verify 649 zeros of zeta below height 1000',
  ],
  vocabulary: [
    'zeta', 'riemann', 'riemann zeta', 'zero', 'zeros', 'critical line', 'riemann hypothesis', 'hardy', 'hardy z',
    'siegel', 'riemann-siegel', 'gram', 'gram point', 'rosser', 'von mangoldt', 'number theory', 'analytic number theory',
    'prime', 'primes', 'nontrivial', 'dirichlet', 'l-function', 'height',
  ],
};

// ---------------------------------------------------------------------------------------------
// Riemann-Siegel correction polynomials C_0..C_4 in x = p − 1/2.

const PSI_DEGREE = 96;
const CAUCHY_POINTS = 256;

/** Taylor coefficients of Ψ(1/2 + x) = −cos(2πx² − 5π/8)/cos(2πx) about x = 0, by the Cauchy
 *  integral on |x| = 1 (trapezoidal rule; Ψ is entire, the removable zeros of cos(2πx) lie off
 *  the circle). Odd coefficients vanish by symmetry and are set to 0. */
function psiTaylor(): Float64Array {
  const q = new Float64Array(PSI_DEGREE + 1);
  const vr = new Float64Array(CAUCHY_POINTS), vi = new Float64Array(CAUCHY_POINTS);
  for (let j = 0; j < CAUCHY_POINTS; j++) {
    const phi = (2 * Math.PI * j) / CAUCHY_POINTS;
    const xr = Math.cos(phi), xi = Math.sin(phi);
    // numerator cos(w), w = 2πx² − 5π/8
    const wr = 2 * Math.PI * (xr * xr - xi * xi) - (5 * Math.PI) / 8, wi = 2 * Math.PI * (2 * xr * xi);
    const nr = Math.cos(wr) * Math.cosh(wi), ni = -Math.sin(wr) * Math.sinh(wi);
    // denominator cos(2πx)
    const ur = 2 * Math.PI * xr, ui = 2 * Math.PI * xi;
    const dr = Math.cos(ur) * Math.cosh(ui), di = -Math.sin(ur) * Math.sinh(ui);
    const den = dr * dr + di * di;
    vr[j] = -(nr * dr + ni * di) / den;
    vi[j] = -(ni * dr - nr * di) / den;
  }
  for (let k = 0; k <= PSI_DEGREE; k += 2) {
    let s = 0;
    for (let j = 0; j < CAUCHY_POINTS; j++) {
      const a = (-2 * Math.PI * j * k) / CAUCHY_POINTS;
      s += vr[j] * Math.cos(a) - vi[j] * Math.sin(a);
    }
    q[k] = s / CAUCHY_POINTS;
  }
  return q;
}

/** Coefficients of the m-th derivative of the polynomial with coefficients q. */
function derivative(q: Float64Array, m: number): Float64Array {
  const out = new Float64Array(q.length);
  for (let j = 0; j + m < q.length; j++) {
    let f = 1;
    for (let i = j + 1; i <= j + m; i++) f *= i;
    out[j] = q[j + m] * f;
  }
  return out;
}

function combine(terms: [number, Float64Array][]): Float64Array {
  const out = new Float64Array(PSI_DEGREE + 1);
  for (const [c, p] of terms) for (let j = 0; j < out.length; j++) out[j] += c * p[j];
  return out;
}

/** C_k has the parity of k in x (Ψ is even about p = 1/2), so it is stored as a polynomial in
 *  y = x²: C_k(x) = x^{k mod 2}·Σ_j c_j·y^j, dropping coefficients below 1e-19 on |x| <= 1/2. */
function halfPolynomial(full: Float64Array, parity: number): Float64Array {
  const half: number[] = [];
  for (let j = parity; j < full.length; j += 2) half.push(full[j]);
  let last = half.length - 1;
  while (last > 0 && Math.abs(half[last]) * Math.pow(0.25, last) < 1e-19) last--;
  return Float64Array.from(half.slice(0, last + 1));
}

function buildCorrections(): Float64Array[] {
  const q = psiTaylor();
  const d = (m: number) => (m === 0 ? q : derivative(q, m));
  const pi2 = Math.PI * Math.PI, pi4 = pi2 * pi2, pi6 = pi4 * pi2, pi8 = pi4 * pi4;
  const full = [
    combine([[1, d(0)]]),
    combine([[-1 / (96 * pi2), d(3)]]),
    combine([[1 / (64 * pi2), d(2)], [1 / (18432 * pi4), d(6)]]),
    combine([[-1 / (64 * pi2), d(1)], [-1 / (3840 * pi4), d(5)], [-1 / (5308416 * pi6), d(9)]]),
    combine([[1 / (128 * pi2), d(0)], [19 / (24576 * pi4), d(4)], [11 / (5898240 * pi6), d(8)], [1 / (2038431744 * pi8), d(12)]]),
  ];
  return full.map((c, k) => halfPolynomial(c, k % 2));
}

const CORRECTIONS = buildCorrections();

// For evaluation the five polynomials in y = x² in [0, 1/4] are re-expanded about y = 1/8 (u = y − 1/8,
// |u| <= 1/8, so a coefficient counts with weight 8^{-j} instead of 4^{-j} and fewer are needed),
// truncated where the tail falls below 1e-18, and stored interleaved by power of u² (two chains per
// polynomial, even and odd powers of u: ten independent multiply-add chains in one loop).
const CORR_CENTER = 0.125;
const CORR_TAIL = 1e-18;
function buildCorrectionTable(): { table: Float64Array; pairs: number } {
  const shifted = CORRECTIONS.map((c) => {
    const out = Float64Array.from(c); // Taylor shift: coefficients of p(1/8 + u)
    for (let i = 0; i < out.length; i++) for (let j = out.length - 2; j >= i; j--) out[j] += CORR_CENTER * out[j + 1];
    let len = out.length, tail = 0;
    while (len > 1 && tail + Math.abs(out[len - 1]) * CORR_CENTER ** (len - 1) < CORR_TAIL) { tail += Math.abs(out[len - 1]) * CORR_CENTER ** (len - 1); len--; }
    return out.subarray(0, len);
  });
  const pairs = Math.ceil(Math.max(...shifted.map((c) => c.length)) / 2);
  const table = new Float64Array(10 * pairs);
  shifted.forEach((c, k) => c.forEach((v, j) => { table[10 * (j >> 1) + 2 * k + (j & 1)] = v; }));
  return { table, pairs };
}
const { table: CORR_TABLE, pairs: CORR_PAIRS } = buildCorrectionTable();

/** C_k(p) for k = 0..4 from the evaluation table, exported for the tests (C_0 must equal Ψ(p)). */
export function rsCorrection(k: number, p: number): number {
  const x = p - 0.5, u = x * x - CORR_CENTER, u2 = u * u;
  let e = 0, o = 0;
  for (let j = CORR_PAIRS - 1; j >= 0; j--) { e = e * u2 + CORR_TABLE[10 * j + 2 * k]; o = o * u2 + CORR_TABLE[10 * j + 2 * k + 1]; }
  const v = e + u * o;
  return k % 2 === 1 ? x * v : v;
}

/** Σ_k C_k·w^k: the Riemann-Siegel correction at x = p − 1/2 and w = (2π/t)^{1/2}. */
function correctionSum(x: number, w: number): number {
  const u = x * x - CORR_CENTER, u2 = u * u;
  let e0 = 0, o0 = 0, e1 = 0, o1 = 0, e2 = 0, o2 = 0, e3 = 0, o3 = 0, e4 = 0, o4 = 0;
  for (let j = CORR_PAIRS - 1, b = 10 * j; j >= 0; j--, b -= 10) {
    e0 = e0 * u2 + CORR_TABLE[b]; o0 = o0 * u2 + CORR_TABLE[b + 1];
    e1 = e1 * u2 + CORR_TABLE[b + 2]; o1 = o1 * u2 + CORR_TABLE[b + 3];
    e2 = e2 * u2 + CORR_TABLE[b + 4]; o2 = o2 * u2 + CORR_TABLE[b + 5];
    e3 = e3 * u2 + CORR_TABLE[b + 6]; o3 = o3 * u2 + CORR_TABLE[b + 7];
    e4 = e4 * u2 + CORR_TABLE[b + 8]; o4 = o4 * u2 + CORR_TABLE[b + 9];
  }
  const c0 = e0 + u * o0, c1 = x * (e1 + u * o1), c2 = e2 + u * o2, c3 = x * (e3 + u * o3), c4 = e4 + u * o4;
  return c0 + w * (c1 + w * (c2 + w * (c3 + w * c4)));
}

/** ln n for n < limit, cached for the largest limit seen (the Riemann-Siegel sum and
 *  Euler-Maclaurin share it). */
let logCache = new Float64Array(0);
function logTable(limit: number): Float64Array {
  if (logCache.length >= limit) return logCache;
  const ln = new Float64Array(limit);
  for (let n = 1; n < limit; n++) ln[n] = Math.log(n);
  logCache = ln;
  return ln;
}

const MAX_TERMS = 64;
const LOG_N = logTable(MAX_TERMS + 1);
const INV_SQRT_N = new Float64Array(MAX_TERMS + 1);
for (let n = 1; n <= MAX_TERMS; n++) INV_SQRT_N[n] = 1 / Math.sqrt(n);

// cos(x) for the main sum: x = kπ + r with |r| <= π/2 (Cody-Waite reduction, π split in three
// parts so that k·PI_A and k·PI_B are exact for |k| < 2^21), then the Taylor series of cos r to
// r^20 (remainder (π/2)^22/22! < 2e-17), evaluated as two interleaved Horner chains in r^4
// (Estrin). Within 6e-16 of Math.cos for |x| <= 1e6, and about three times faster; the phases of
// the Riemann-Siegel sum are below 1e4 in magnitude for t <= 2000, and larger ones fall back to Math.cos.
const PI_A = Math.round(Math.PI * 2 ** 30) / 2 ** 30;
const PI_B = Math.PI - PI_A;
const PI_C = 1.2246467991473532e-16; // π − Math.PI
const INV_PI = 1 / Math.PI;
const ROUND_MAGIC = 6755399441055744; // 1.5·2^52: (y + M) − M rounds y to the nearest integer
const COS_TAYLOR = Array.from({ length: 11 }, (_, j) => {
  let f = 1;
  for (let i = 2; i <= 2 * j; i++) f *= i;
  return (j % 2 === 1 ? -1 : 1) / f;
});
const [K0, K1, K2, K3, K4, K5, K6, K7, K8, K9, K10] = COS_TAYLOR;

export function cosReduced(x: number): number {
  if (!(Math.abs(x) <= 1e6)) return Math.cos(x);
  const k = (x * INV_PI + ROUND_MAGIC) - ROUND_MAGIC;
  const r = x - k * PI_A - k * PI_B - k * PI_C;
  const y = r * r, y2 = y * y;
  const even = K0 + y2 * (K2 + y2 * (K4 + y2 * (K6 + y2 * (K8 + y2 * K10))));
  const odd = K1 + y2 * (K3 + y2 * (K5 + y2 * (K7 + y2 * K9)));
  return (even + y * odd) * (1 - ((k & 1) << 1));
}

/** Hardy's Z(t) by the Riemann-Siegel formula (t >= 2π; error about 0.02·t^{-11/4} for t >= 9).
 *  `theta` may pass θ(t) when it is known (at a Gram point it is nπ). */
export function hardyZ(t: number, theta?: number): number {
  const a = Math.sqrt(t / (2 * Math.PI));
  const N = Math.floor(a);
  const th = theta ?? siegelTheta(t);
  let sum = 0;
  for (let n = 1; n <= N; n++) sum += INV_SQRT_N[n] * cosReduced(th - t * LOG_N[n]);
  const w = 1 / a; // (2π/t)^{1/2}
  const corr = correctionSum(a - N - 0.5, w);
  const sign = (N - 1) % 2 === 0 ? 1 : -1;
  return 2 * sum + sign * Math.sqrt(w) * corr;
}

/** The n-th Gram point (n >= −1): θ(g_n) = nπ, by Chebyshev's third-order iteration (Newton's
 *  step with θ'' added) from `guess`. A step of size e leaves an error of about 0.02·e³ (t >= 9.6),
 *  so once a step is below 1e-4 the point is within 1e-13 and the iteration stops: one step from
 *  a guess within 1e-4. */
export function gramPoint(n: number, guess?: number): number {
  let t = guess ?? (n < 0 ? 9.67 : 2 * Math.PI * Math.exp(1 + lambertW((8 * n + 1) / (8 * Math.E))));
  const target = n * Math.PI;
  for (let i = 0; i < 60; i++) {
    const step = siegelThetaStep(t, target);
    t -= step;
    if (Math.abs(step) < 1e-4) break;
  }
  return t;
}

/** Principal branch of Lambert W for x >= 0 (initial guesses only). */
function lambertW(x: number): number {
  let w = Math.log(1 + x);
  for (let i = 0; i < 50; i++) {
    const e = Math.exp(w);
    const f = w * e - x;
    const s = f / (e * (w + 1));
    w -= s;
    if (Math.abs(s) < 1e-15) break;
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// The independent reference: ζ(s) by Euler-Maclaurin and S(T) by continuous variation of arg ζ.

// B_{2k}/(2k)! for k = 1..15
const BERNOULLI_2K = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
  -174611 / 330, 854513 / 138, -236364091 / 2730, 8553103 / 6, -23749461029 / 870, 8615841276005 / 14322];
const BERNOULLI_OVER_FACT = BERNOULLI_2K.map((b, i) => {
  let f = 1;
  for (let j = 2; j <= 2 * (i + 1); j++) f *= j;
  return b / f;
});

/** Smallest prime factor of each n < limit (sieve of Eratosthenes), cached for the largest limit seen. */
let spfCache = new Int32Array(0);
function smallestPrimeFactors(limit: number): Int32Array {
  if (spfCache.length >= limit) return spfCache;
  const spf = new Int32Array(limit);
  for (let i = 2; i < limit; i++) {
    if (spf[i] !== 0) continue;
    for (let j = i; j < limit; j += i) if (spf[j] === 0) spf[j] = i;
  }
  spfCache = spf;
  return spf;
}

/** Euler-Maclaurin evaluation of ζ(σ + it) along a horizontal line t = const: the terms
 *  n^{−it} = cos(t·ln n) − i·sin(t·ln n) do not depend on σ and are tabulated once, and both
 *  n^{−it} and n^{−σ} are completely multiplicative: each is computed at the primes (one n in
 *  six) and built by products for the rest. N =
 *  ⌈(|t| + 3)/π⌉ + 10 terms and 15 Bernoulli corrections, each smaller than the one before by
 *  about (|s|/2πN)² < 1/4, so the last is below 1e-9 of the first (|s| <= |t| + 3, σ in [1/2, 3]). */
export function eulerMaclaurinLine(t: number): (sigma: number) => [number, number] {
  const N = Math.ceil((Math.abs(t) + 3) / Math.PI) + 10;
  const spf = smallestPrimeFactors(N);
  const lnN = logTable(N);
  // n^{-it} is completely multiplicative too: cos and sin at the primes, complex products for the rest
  const cs = new Float64Array(N), sn = new Float64Array(N);
  cs[1] = 1;
  for (let n = 2; n < N; n++) {
    const p = spf[n];
    if (p === n) { cs[n] = Math.cos(t * lnN[n]); sn[n] = Math.sin(t * lnN[n]); continue; }
    const q = n / p;
    cs[n] = cs[p] * cs[q] - sn[p] * sn[q];
    sn[n] = sn[p] * cs[q] + cs[p] * sn[q];
  }
  const logN = Math.log(N), cN = Math.cos(t * logN), sN = Math.sin(t * logN);
  const mags = new Float64Array(N);
  return (sigma: number): [number, number] => {
    // n^{-σ} is completely multiplicative: an exponential for each prime, a product for the rest
    mags[1] = 1;
    let re = cs[1], im = -sn[1];
    for (let n = 2; n < N; n++) {
      const p = spf[n];
      const mag = p === n ? Math.exp(-sigma * lnN[n]) : mags[p] * mags[n / p];
      mags[n] = mag;
      re += mag * cs[n];
      im -= mag * sn[n];
    }
    // N^{-s}
    const magN = Math.exp(-sigma * logN);
    const nsRe = magN * cN, nsIm = -magN * sN;
    // N^{1-s}/(s-1) = N·N^{-s}/(s-1)
    const sr = sigma - 1, si = t, d = sr * sr + si * si;
    const aRe = N * nsRe, aIm = N * nsIm;
    re += (aRe * sr + aIm * si) / d;
    im += (aIm * sr - aRe * si) / d;
    re += 0.5 * nsRe; im += 0.5 * nsIm;
    // Σ_k B_{2k}/(2k)! · s(s+1)…(s+2k−2) · N^{−s−2k+1}
    // P_1 = s·N^{−s−1}; P_{k+1} = P_k·(s+2k−1)(s+2k)/N²
    let pRe = (sigma * nsRe - t * nsIm) / N, pIm = (sigma * nsIm + t * nsRe) / N;
    const invN2 = 1 / (N * N);
    for (let k = 1; k <= BERNOULLI_OVER_FACT.length; k++) {
      re += BERNOULLI_OVER_FACT[k - 1] * pRe;
      im += BERNOULLI_OVER_FACT[k - 1] * pIm;
      // multiply by (s + 2k − 1)(s + 2k)/N²
      const ar = sigma + 2 * k - 1, br = sigma + 2 * k;
      const mr = ar * br - t * t, mi = t * (ar + br);
      const nr = (pRe * mr - pIm * mi) * invN2;
      pIm = (pRe * mi + pIm * mr) * invN2;
      pRe = nr;
    }
    return [re, im];
  };
}

/** ζ(σ + it) by Euler-Maclaurin summation (σ <= 3 or so; see eulerMaclaurinLine). */
export function zetaEulerMaclaurin(sigma: number, t: number): [number, number] {
  return eulerMaclaurinLine(t)(sigma);
}

/** S(T) = (1/π)·arg ζ(1/2 + iT), the argument continued from 3 along 3 + iT → 1/2 + iT. */
export function argumentS(T: number): { S: number; evaluations: number } {
  const zeta = eulerMaclaurinLine(T);
  let sigma = 3;
  let [zr, zi] = zeta(sigma);
  // Re ζ(σ + it) > 0 for σ >= 2 (|ζ − 1| <= ζ(2) − 1 < 1), so the principal arg is the continuous one.
  let arg = Math.atan2(zi, zr);
  let h = 0.25, evaluations = 1;
  while (sigma > 0.5) {
    const next = Math.max(0.5, sigma - h);
    const [nr, ni] = zeta(next);
    evaluations++;
    // arg(ζ_new / ζ_old), principal
    const delta = Math.atan2(ni * zr - nr * zi, nr * zr + ni * zi);
    if (Math.abs(delta) > Math.PI / 8 && h > 1e-9) { h /= 2; continue; }
    arg += delta;
    sigma = next; zr = nr; zi = ni;
    // no zeros for σ > 1: long steps there; in the strip at most 0.1 (a step's true change of
    // argument stays below π there, so the principal value cannot alias a full turn)
    if (Math.abs(delta) < Math.PI / 32) h = Math.min(sigma > 1.25 ? 0.25 : 0.1, h * 2);
  }
  return { S: arg / Math.PI, evaluations };
}

/** N(T) = θ(T)/π + 1 + S(T) (Riemann-von Mangoldt, exact form). */
export function riemannVonMangoldt(T: number): { N: number; smooth: number; S: number } {
  const smooth = siegelTheta(T) / Math.PI + 1;
  const { S } = argumentS(T);
  return { N: smooth + S, smooth, S };
}

// ---------------------------------------------------------------------------------------------
// Counting zeros.

const MAX_REFINE = 14; // up to 2^14-fold refinement of a block before giving up on it
const MAX_BLOCK_SAMPLES = 1 << 21;

function signChanges(z: Float64Array, n: number): number {
  let c = 0;
  for (let q = 0; q + 1 < n; q++) if ((z[q] > 0) !== (z[q + 1] > 0) || z[q + 1] === 0) c++;
  return c;
}
const SERIES_MAX = 4000;

function refineZero(a: number, za: number, b: number, zb: number): number {
  // Illinois (modified regula falsi), Dahlquist & Björck §6.2
  let side = 0;
  for (let i = 0; i < 100 && b - a > 1e-12 * b; i++) {
    const c = (a * zb - b * za) / (zb - za);
    const zc = hardyZ(c);
    if (zc === 0) return c;
    if ((zc > 0) === (zb > 0)) { b = c; zb = zc; if (side === -1) za /= 2; side = -1; }
    else { a = c; za = zc; if (side === 1) zb /= 2; side = 1; }
  }
  return (a * zb - b * za) / (zb - za);
}

/** Hardy's Z(t) = Re(e^{iθ(t)}·ζ(1/2 + it)) with ζ by Euler-Maclaurin: within 1e-11 of
 *  mpmath.siegelz for t <= 2000 (2e-14 at t = 100, 3e-12 at t = 1000, limited by θ(t) in double
 *  precision), against the Riemann-Siegel remainder of up to 0.03·t^{-11/4} (2e-5 at t = 15), but
 *  3 to 60 times slower (0.1-0.3 ms at t >= 1000). Used where a single sign decides the count: at
 *  T and at the few scan points within NEAR_T of it. */
export function hardyZAccurate(t: number): number {
  const [zr, zi] = eulerMaclaurinLine(t)(0.5);
  const th = siegelTheta(t);
  return Math.cos(th) * zr - Math.sin(th) * zi;
}

/** Window around T in which signs are taken from hardyZAccurate. The Riemann-Siegel sign of Z can
 *  be wrong only within (remainder)/|Z'| of a zero, at most 2.6e-5 below t = 2000 (at the first
 *  zero; |Z'| >= 0.6 at every zero up to 2000), and the count up to T can only be wrong when T
 *  lies that close to a zero; 1e-3 leaves a margin of 40. */
const NEAR_T = 1e-3;

/** A Riemann-Siegel value whose sign is certain: |Z| above 100 times the remainder envelope
 *  0.03·t^{-11/4} (plus the 1e-10 floor of double-precision evaluation) cannot have the wrong
 *  sign. Only a smaller |Z| (T within about 1e-4 of a zero) costs an Euler-Maclaurin evaluation. */
const signIsSure = (t: number, z: number): boolean => Math.abs(z) > 100 * (0.03 * t ** -2.75 + 1e-10);

export const run: SolverRun = (input, ctx) => {
  const T: number = input.T;
  const dt: number = input.dt;

  // Gram points from g_{-1} until a good one at or beyond T.
  const gram: number[] = [];
  const gramZ: number[] = [];
  let n = -1, g = gramPoint(-1);
  let badGram = 0;
  for (;;) {
    const zg = hardyZ(g, n * Math.PI);
    gram.push(g); gramZ.push(zg);
    const good = (n % 2 === 0 ? zg : -zg) > 0;
    if (!good) badGram++;
    if (good && g >= T) break;
    n++;
    // the next Gram point from the last three by quadratic extrapolation (its error, the third
    // difference of g_n, is about 1e-6 at t = 1000), then gramPoint's iteration
    const m = gram.length;
    g = gramPoint(n, m >= 3 ? 3 * (gram[m - 1] - gram[m - 2]) + gram[m - 3] : g + Math.PI / siegelThetaPrime(g));
  }
  const isGood = (i: number) => ((i - 1) % 2 === 0 ? gramZ[i] : -gramZ[i]) > 0; // index i is Gram n = i − 1

  // Rosser blocks: consecutive good Gram points. A block's samples live in bufT/bufZ; each
  // refinement level inserts the midpoints (only they are new evaluations).
  let count = 0;
  let blocks = 0, longestBlock = 0, refinedBlocks = 0, failedBlocks = 0, extraSignChanges = 0;
  let zCalls = gram.length;
  const seriesT: number[] = [], seriesZ: number[] = [];
  const firstZeros: number[] = [];
  let lastA = 0, lastZA = 0, lastB = 0, lastZB = 0, haveLast = false;
  let bufT = new Float64Array(256), bufZ = new Float64Array(256);
  let tmpT = new Float64Array(256), tmpZ = new Float64Array(256);
  let accurateCalls = 0;
  const accurateZ = (t: number) => { accurateCalls++; return hardyZAccurate(t); };
  // near T a single sign decides the count: the Riemann-Siegel value when its sign is certain,
  // else the accurate Z
  const nearZ = (t: number, zRS: number) => (signIsSure(t, zRS) ? zRS : accurateZ(t));
  let j = 0;
  while (j < gram.length - 1) {
    let k = j + 1;
    while (!isGood(k)) k++;
    const expected = k - j;
    blocks++;
    if (expected > longestBlock) longestBlock = expected;
    // level 0: the Gram points, plus a uniform subdivision of each Gram interval when dt is finer
    let cnt = 0;
    const push = (t: number, zv: number) => {
      if (cnt === bufT.length) { const nt = new Float64Array(2 * cnt), nz = new Float64Array(2 * cnt); nt.set(bufT); nz.set(bufZ); bufT = nt; bufZ = nz; }
      bufT[cnt] = t; bufZ[cnt] = zv; cnt++;
    };
    push(gram[j], gramZ[j]);
    for (let i = j; i < k; i++) {
      const a = gram[i], b = gram[i + 1];
      const m = Math.max(1, Math.ceil((b - a) / dt));
      for (let q = 1; q < m; q++) { const t = a + ((b - a) * q) / m; push(t, hardyZ(t)); zCalls++; }
      push(b, gramZ[i + 1]);
    }
    if (seriesT.length < SERIES_MAX * 8) for (let q = j === 0 ? 0 : 1; q < cnt; q++) { seriesT.push(bufT[q]); seriesZ.push(bufZ[q]); }
    let changes = signChanges(bufZ, cnt);
    let level = 0;
    while (changes < expected && level < MAX_REFINE && cnt < MAX_BLOCK_SAMPLES) {
      const n2 = 2 * cnt - 1;
      if (tmpT.length < n2) { tmpT = new Float64Array(2 * n2); tmpZ = new Float64Array(2 * n2); }
      for (let q = 0; q < cnt - 1; q++) {
        tmpT[2 * q] = bufT[q]; tmpZ[2 * q] = bufZ[q];
        const mid = 0.5 * (bufT[q] + bufT[q + 1]);
        tmpT[2 * q + 1] = mid; tmpZ[2 * q + 1] = hardyZ(mid);
      }
      zCalls += cnt - 1;
      tmpT[n2 - 1] = bufT[cnt - 1]; tmpZ[n2 - 1] = bufZ[cnt - 1];
      let sw = bufT; bufT = tmpT; tmpT = sw;
      sw = bufZ; bufZ = tmpZ; tmpZ = sw;
      cnt = n2;
      level++;
      changes = signChanges(bufZ, cnt);
    }
    if (changes < expected) failedBlocks++;
    else if (level > 0) refinedBlocks++;
    if (changes > expected) extraSignChanges += changes - expected;
    for (let q = 0; q + 1 < cnt; q++) {
      const a = bufT[q];
      if (a >= T) break; // scan points increase
      let b = bufT[q + 1];
      // near T the count hinges on single signs: there they come from the accurate Z
      const za = Math.abs(a - T) <= NEAR_T ? nearZ(a, bufZ[q]) : bufZ[q];
      const zb = Math.abs(b - T) <= NEAR_T ? nearZ(b, bufZ[q + 1]) : bufZ[q + 1];
      let zbb = zb;
      if (b > T) {
        const zT = nearZ(T, hardyZ(T));
        zCalls++;
        if ((zT > 0) === (za > 0) && zT !== 0) continue; // no zero in (a, T]
        b = T; zbb = zT;
      } else if ((za > 0) === (zb > 0) && zb !== 0) continue;
      count++;
      lastA = a; lastZA = za; lastB = b; lastZB = zbb; haveLast = true;
      if (firstZeros.length < 10) firstZeros.push(refineZero(a, za, b, zbb));
    }
    j = k;
    ctx.progress(Math.min(0.9, (gram[j] / T) * 0.9));
  }
  if (failedBlocks > 0) {
    throw refuse('PRECISION_REFUSED', `${failedBlocks} Rosser block(s) below T = ${T} did not show their expected sign changes after ${2 ** MAX_REFINE}-fold refinement`, { failedBlocks });
  }

  const largestZeroBelowT = haveLast ? refineZero(lastA, lastZA, lastB, lastZB) : null;
  const rvm = riemannVonMangoldt(T);
  ctx.progress(1);
  const errorAbs = Math.abs(count - rvm.N);
  const errorPct = (100 * errorAbs) / Math.max(1, rvm.N);

  // The Z(t) series: the level-0 scan points in (0, T], thinned to at most SERIES_MAX points.
  const keep: number[] = [];
  for (let i = 0; i < seriesT.length; i++) if (seriesT[i] <= T) keep.push(i);
  const stride = Math.max(1, Math.ceil(keep.length / SERIES_MAX));
  const sT: number[] = [], sZ: number[] = [];
  for (let i = 0; i < keep.length; i += stride) { sT.push(seriesT[keep[i]]); sZ.push(seriesZ[keep[i]]); }

  const gramBelowT = gram.filter((x) => x <= T).length; // g_{-1}..g_m <= T
  return {
    value: count,
    result: {
      zeros: count,
      T,
      nOfT: rvm.N,
      thetaOverPiPlusOne: rvm.smooth,
      S: rvm.S,
      gramPoints: gramBelowT,
      gramCount: gramBelowT - 1, // Gram's law estimate: N(g_m) = m + 1
      badGramPoints: badGram,
      rosserBlocks: blocks,
      longestRosserBlock: longestBlock,
      refinedBlocks,
      extraSignChanges,
      zEvaluations: zCalls,
      accurateZEvaluations: accurateCalls,
      firstZeros,
      largestZeroBelowT,
    },
    // the count is an integer: it is right when it is the nearest integer to N(T), i.e. within half
    // a zero of the reference, and no extra sign changes hid between Gram points
    precision: precisionOf({
      errorPct,
      boundPct: (100 * 0.5) / Math.max(1, rvm.N),
      reference: 'Riemann-von Mangoldt N(T) = θ(T)/π + 1 + S(T), S(T) from arg ζ by Euler-Maclaurin',
      referenceValue: rvm.N,
      alsoHolds: errorAbs < 0.5 && extraSignChanges === 0,
    }),
    series: { t: sT, Z: sZ },
  };
};
