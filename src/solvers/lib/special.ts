// Special functions shared by the solvers (quant, gauge, zeta). Each is computed from a
// convergent series or continued fraction summed to machine precision, not from a fitted
// rational approximation, so the accuracy argument is the textbook one:
//   erf / erfc   Abramowitz & Stegun 7.1.6 (series with positive terms, |x| < 0.5 for erfc and
//                |x| < 2.5 for erf) and 7.1.14 (Laplace continued fraction, evaluated with the
//                modified Lentz method, Press et al., Numerical Recipes 3rd ed. §5.2).
//   I0, I1       the ascending series A&S 9.6.10 (positive terms) for x <= 30 and Hankel's
//                asymptotic expansion A&S 9.7.1 beyond, with exponentially scaled variants.
//   lnΓ          Stirling's series (A&S 6.1.40) after shifting the argument to |z| >= 15 by the
//                recurrence Γ(z+1) = zΓ(z); real and complex (Re z > 0) versions.
//   θ(t)         the Riemann-Siegel theta function: the asymptotic series (Edwards, "Riemann's
//                Zeta Function", §6.5) and, independently, Im lnΓ(1/4 + it/2) − (t/2)·ln π.
//   I_n/I_0      Miller's backward recurrence (the exact 2-D U(1) plaquette on a torus).
//   P(a, x)      the regularised incomplete gamma function and its inverse (Press et al.,
//                Numerical Recipes 3rd ed. §6.2 and §6.2.1): the series (6.2.5) for x < a + 1, the
//                Legendre continued fraction (6.2.7, modified Lentz) beyond, and for a >= 100 the
//                integral ∫ t^(a−1) e^(−t) dt over ±(7.5..11.5)·√(a−1) of the peak by 18-point
//                Gauss-Legendre quadrature (§6.2, gammpapprox). The inverse starts from the
//                Wilson-Hilferty / small-a guesses of §6.2.1 and polishes with Halley's method.
//                chi-square quantiles are 2·P⁻¹(p, k/2).
// Accuracy is checked against tabulated mpmath values in test/solvers/lib-special.test.ts.

const SQRT_PI = Math.sqrt(Math.PI);
const TWO_OVER_SQRT_PI = 2 / SQRT_PI;
const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** erf(x) by A&S 7.1.6: (2/√π)·e^{−x²}·Σ 2ⁿx^{2n+1}/(1·3·…·(2n+1)); all terms positive. */
function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x, sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/** erfc(x) for x >= 0.5 by the continued fraction A&S 7.1.14 (modified Lentz):
 *  erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))). */
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x, c = x, d = 0;
  for (let k = 1; k < 5000; k++) {
    const a = k / 2;
    d = x + a * d;
    if (d === 0) d = tiny;
    c = x + a / c;
    if (c === 0) c = tiny;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  let r: number;
  if (ax < 2.5) r = erfSeries(ax);
  else if (ax > 6) r = 1;
  else r = 1 - erfcContinuedFraction(ax);
  return x < 0 ? -r : r;
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0.5) return 1 - erf(x); // erf(x) <= 0.52 here, so no cancellation worth a digit
  if (x > 27.3) return 0; // below the smallest subnormal
  return erfcContinuedFraction(x);
}

/** Standard normal cumulative distribution Φ(x) = erfc(−x/√2)/2, accurate in both tails. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Standard normal density φ(x). */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

// ---------------------------------------------------------------------------------------------
// Modified Bessel functions of the first kind, orders 0 and 1.

const BESSEL_SERIES_MAX = 30;

/** Σ_k (x/2)^{2k+ν} / (k!·(k+ν)!) for ν = 0 or 1 (A&S 9.6.10); positive terms. */
function besselISeries(nu: 0 | 1, x: number): number {
  const q = 0.25 * x * x;
  let term = nu === 0 ? 1 : 0.5 * x;
  let sum = term;
  for (let k = 1; k < 500; k++) {
    term *= q / (k * (k + nu));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}

/** e^{−x}·I_ν(x) by Hankel's expansion (A&S 9.7.1), x > 30:
 *  Σ_k (−1)^k·a_k(ν)/x^k / √(2πx),  a_k = Π_{j=1..k} (4ν² − (2j−1)²) / (k!·8^k). */
function besselIAsymptoticScaled(nu: 0 | 1, x: number): number {
  const mu = 4 * nu * nu;
  let term = 1, sum = 1;
  for (let k = 1; k < 60; k++) {
    const next = (-term * (mu - (2 * k - 1) * (2 * k - 1))) / (k * 8 * x);
    if (Math.abs(next) >= Math.abs(term)) break; // the asymptotic series starts to diverge
    term = next;
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return sum / Math.sqrt(2 * Math.PI * x);
}

/** I0(x). */
export function besselI0(x: number): number {
  const ax = Math.abs(x);
  return ax <= BESSEL_SERIES_MAX ? besselISeries(0, ax) : Math.exp(ax) * besselIAsymptoticScaled(0, ax);
}

/** I1(x) (odd in x). */
export function besselI1(x: number): number {
  const ax = Math.abs(x);
  const r = ax <= BESSEL_SERIES_MAX ? besselISeries(1, ax) : Math.exp(ax) * besselIAsymptoticScaled(1, ax);
  return x < 0 ? -r : r;
}

/** e^{−|x|}·I0(x), finite for every x. */
export function besselI0e(x: number): number {
  const ax = Math.abs(x);
  return ax <= BESSEL_SERIES_MAX ? Math.exp(-ax) * besselISeries(0, ax) : besselIAsymptoticScaled(0, ax);
}

/** e^{−|x|}·I1(x), finite for every x. */
export function besselI1e(x: number): number {
  const ax = Math.abs(x);
  const r = ax <= BESSEL_SERIES_MAX ? Math.exp(-ax) * besselISeries(1, ax) : besselIAsymptoticScaled(1, ax);
  return x < 0 ? -r : r;
}

/** I1(x)/I0(x) without overflow: the mean plaquette of 2-D compact U(1) at coupling β = x. */
export function besselI1OverI0(x: number): number {
  return besselI1e(x) / besselI0e(x);
}

/** I_n(x)/I_0(x) for n = 0..nMax (x >= 0), by Miller's backward recurrence
 *  I_{n−1} = (2n/x)·I_n + I_{n+1} started far above nMax (Press et al., Numerical Recipes §6.6),
 *  normalised by I_0. All ratios lie in [0, 1]; no overflow for any x. */
export function besselIRatios(x: number, nMax: number): Float64Array {
  const out = new Float64Array(nMax + 1);
  out[0] = 1;
  if (x === 0) return out;
  const start = 2 * (nMax + Math.ceil(Math.sqrt(40 * (nMax + x + 10)))) + Math.ceil(x);
  let ip = 0, i = 1e-300;
  for (let n = start; n > 0; n--) {
    const im = ((2 * n) / x) * i + ip;
    ip = i; i = im;
    if (n - 1 <= nMax) out[n - 1] = i;
    if (i > 1e250) { // rescale
      i *= 1e-250; ip *= 1e-250;
      for (let k = n - 1; k <= nMax; k++) out[k] *= 1e-250;
    }
  }
  const i0 = out[0];
  for (let n = 0; n <= nMax; n++) out[n] /= i0;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Log-gamma.

// Stirling coefficients B_{2k} / (2k(2k−1)), k = 1..8 (A&S 6.1.40).
const STIRLING = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400];
const SHIFT_TO = 15;

/** ln Γ(x) for real x > 0. */
export function logGamma(x: number): number {
  if (!(x > 0)) return NaN;
  let shift = 0;
  while (x < SHIFT_TO) { shift += Math.log(x); x += 1; }
  const inv = 1 / x, inv2 = inv * inv;
  let series = 0, p = inv;
  for (const c of STIRLING) { series += c * p; p *= inv2; }
  return (x - 0.5) * Math.log(x) - x + LN_SQRT_2PI + series - shift;
}

/** ln Γ(z) for complex z = re + i·im with re > 0, on the principal branch continued from the
 *  positive real axis. Returns [Re, Im]. */
export function logGammaComplex(re: number, im: number): [number, number] {
  if (!(re > 0)) return [NaN, NaN];
  // ln Γ(z) = ln Γ(z + n) − Σ_{k<n} ln(z + k): each ln(z + k) has Re(z + k) > 0, so the sum of
  // principal logs is the continuous branch.
  let shRe = 0, shIm = 0;
  while (re * re + im * im < SHIFT_TO * SHIFT_TO) {
    shRe += 0.5 * Math.log(re * re + im * im);
    shIm += Math.atan2(im, re);
    re += 1;
  }
  // (z − 1/2)·ln z − z + ln√(2π) + Σ c_k z^{1−2k}
  const lnRe = 0.5 * Math.log(re * re + im * im), lnIm = Math.atan2(im, re);
  let outRe = (re - 0.5) * lnRe - im * lnIm - re + LN_SQRT_2PI;
  let outIm = (re - 0.5) * lnIm + im * lnRe - im;
  // 1/z and 1/z²
  const d = re * re + im * im;
  const invRe = re / d, invIm = -im / d;
  const inv2Re = invRe * invRe - invIm * invIm, inv2Im = 2 * invRe * invIm;
  let pRe = invRe, pIm = invIm;
  for (const c of STIRLING) {
    outRe += c * pRe; outIm += c * pIm;
    const nRe = pRe * inv2Re - pIm * inv2Im;
    pIm = pRe * inv2Im + pIm * inv2Re;
    pRe = nRe;
  }
  return [outRe - shRe, outIm - shIm];
}

// ---------------------------------------------------------------------------------------------
// Riemann-Siegel theta.

/** The series part of θ(t) beyond the logarithm: 1/(48t) + 7/(5760t³) + 31/(80640t⁵) + … (it = 1/t). */
function thetaTail(it: number, it2: number): number {
  return it * (1 / 48 + it2 * (7 / 5760 + it2 * (31 / 80640 + it2 * (127 / 430080 + it2 * (511 / 1216512)))));
}

/** Its derivative in t (it2 = 1/t²). */
function thetaTailPrime(it2: number): number {
  return -it2 * (1 / 48 + it2 * (3 * 7 / 5760 + it2 * (5 * 31 / 80640 + it2 * (7 * 127 / 430080 + it2 * (9 * 511 / 1216512)))));
}

/** θ(t) by its asymptotic series (Edwards §6.5): (t/2)·ln(t/2π) − t/2 − π/8 + 1/(48t) +
 *  7/(5760t³) + 31/(80640t⁵) + 127/(430080t⁷) + 511/(1216512t⁹). Error < 1e-13 for t >= 9. */
export function siegelTheta(t: number): number {
  const it = 1 / t;
  return 0.5 * t * Math.log(t / (2 * Math.PI)) - 0.5 * t - Math.PI / 8 + thetaTail(it, it * it);
}

/** θ'(t) from the same series. */
export function siegelThetaPrime(t: number): number {
  const it = 1 / t;
  return 0.5 * Math.log(t / (2 * Math.PI)) + thetaTailPrime(it * it);
}

/** One step of Chebyshev's third-order method toward θ(t) = target: with s = (θ(t) − target)/θ'(t)
 *  the step is s + θ''·s²/(2θ'), θ'' ≈ 1/(2t); θ and θ' share one logarithm. From an error e the
 *  next is about 0.02·e³ for t >= 9.6. */
export function siegelThetaStep(t: number, target: number): number {
  const it = 1 / t, it2 = it * it;
  const half = 0.5 * Math.log(t / (2 * Math.PI));
  const slope = half + thetaTailPrime(it2);
  const s = (t * half - 0.5 * t - Math.PI / 8 + thetaTail(it, it2) - target) / slope;
  return s + (s * s * it) / (4 * slope);
}

/** θ(t) = Im ln Γ(1/4 + it/2) − (t/2)·ln π, from the complex log-gamma: an independent path. */
export function siegelThetaExact(t: number): number {
  return logGammaComplex(0.25, 0.5 * t)[1] - 0.5 * t * Math.log(Math.PI);
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Regularised incomplete gamma P(a, x) = γ(a, x)/Γ(a), Q = 1 − P, and chi-square quantiles.

const GAMMA_EPS = 2.220446049250313e-16;
const GAMMA_FPMIN = 1e-300;
/** Above this a, P(a, x) is computed by quadrature (NR3's ASWITCH). */
const GAMMA_QUAD_SWITCH = 100;

/** n-point Gauss-Legendre abscissas and weights on [0, 1] (Newton on P_n from Chebyshev guesses,
 *  Numerical Recipes §4.6 gauleg), computed once: the quadrature of gammaApprox uses n = 18. */
function gaussLegendre01(n: number): { y: Float64Array; w: Float64Array } {
  const y = new Float64Array(n), w = new Float64Array(n);
  const m = (n + 1) >> 1;
  for (let i = 0; i < m; i++) {
    let z = Math.cos(Math.PI * (i + 0.75) / (n + 0.5)), pp = 0;
    for (let it = 0; it < 100; it++) {
      let p1 = 1, p2 = 0;
      for (let j = 0; j < n; j++) { const p3 = p2; p2 = p1; p1 = ((2 * j + 1) * z * p2 - j * p3) / (j + 1); }
      pp = n * (z * p1 - p2) / (z * z - 1);
      const z1 = z;
      z = z1 - p1 / pp;
      if (Math.abs(z - z1) < 1e-15) break;
    }
    // z is the i-th root of P_n on [−1, 1] (descending); map to [0, 1]
    y[i] = 0.5 * (1 - z); y[n - 1 - i] = 0.5 * (1 + z);
    w[i] = w[n - 1 - i] = 1 / ((1 - z * z) * pp * pp);
  }
  return { y, w };
}
const GL18 = gaussLegendre01(18);

/** P(a, x) by its series (NR3 6.2.5), for x < a + 1. */
function gammaSeries(a: number, x: number): number {
  let ap = a, del = 1 / a, sum = del;
  for (let n = 0; n < 100000; n++) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (Math.abs(del) < Math.abs(sum) * GAMMA_EPS) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

/** Q(a, x) by Legendre's continued fraction (NR3 6.2.7, modified Lentz), for x >= a + 1. */
function gammaContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a, c = 1 / GAMMA_FPMIN, d = 1 / b, h = d;
  for (let i = 1; i < 100000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < GAMMA_FPMIN) d = GAMMA_FPMIN;
    c = b + an / c;
    if (Math.abs(c) < GAMMA_FPMIN) c = GAMMA_FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) <= GAMMA_EPS) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

/** P (wantP) or Q for large a by Gauss-Legendre quadrature of the integrand scaled at its peak
 *  t = a − 1 (NR3 §6.2 gammpapprox): the integrand is negligible beyond 11.5 (above) or 7.5
 *  (below) standard deviations √(a − 1). */
function gammaApprox(a: number, x: number, wantP: boolean): number {
  const a1 = a - 1, lna1 = Math.log(a1), sqrta1 = Math.sqrt(a1);
  const xu = x > a1
    ? Math.max(a1 + 11.5 * sqrta1, x + 6 * sqrta1)
    : Math.max(0, Math.min(a1 - 7.5 * sqrta1, x - 5 * sqrta1));
  let sum = 0;
  for (let j = 0; j < 18; j++) {
    const t = x + (xu - x) * GL18.y[j];
    sum += GL18.w[j] * Math.exp(-(t - a1) + a1 * (Math.log(t) - lna1));
  }
  const ans = sum * (xu - x) * Math.exp(a1 * (lna1 - 1) - logGamma(a));
  // ans is Q when x > a − 1 (integral up to xu > x) and −P otherwise
  return wantP ? (ans > 0 ? 1 - ans : -ans) : (ans >= 0 ? ans : 1 + ans);
}

/** The regularised lower incomplete gamma function P(a, x) = γ(a, x)/Γ(a), a > 0, x >= 0. */
export function gammaP(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  if (x === 0) return 0;
  if (x === Infinity) return 1;
  if (a >= GAMMA_QUAD_SWITCH) return gammaApprox(a, x, true);
  return x < a + 1 ? gammaSeries(a, x) : 1 - gammaContinuedFraction(a, x);
}

/** The regularised upper incomplete gamma function Q(a, x) = 1 − P(a, x), accurate in its own tail. */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) return NaN;
  if (x === 0) return 1;
  if (x === Infinity) return 0;
  if (a >= GAMMA_QUAD_SWITCH) return gammaApprox(a, x, false);
  return x < a + 1 ? 1 - gammaSeries(a, x) : gammaContinuedFraction(a, x);
}

/** x with P(a, x) = p, 0 <= p <= 1 (NR3 §6.2.1 invgammp): a starting guess (Wilson-Hilferty for
 *  a > 1, the small-x / large-x asymptotics otherwise), then Halley steps to full precision. */
export function inverseGammaP(p: number, a: number): number {
  if (!(a > 0) || !(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return 0;
  if (p === 1) return Infinity;
  const gln = logGamma(a), a1 = a - 1;
  const lna1 = a > 1 ? Math.log(a1) : 0;
  const afac = a > 1 ? Math.exp(a1 * (lna1 - 1) - gln) : 0;
  let x: number;
  if (a > 1) {
    const pp = p < 0.5 ? p : 1 - p;
    const t = Math.sqrt(-2 * Math.log(pp));
    let z = (2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t;
    if (p < 0.5) z = -z;
    x = Math.max(1e-3, a * Math.pow(1 - 1 / (9 * a) - z / (3 * Math.sqrt(a)), 3));
  } else {
    const t = 1 - a * (0.253 + a * 0.12);
    x = p < t ? Math.pow(p / t, 1 / a) : 1 - Math.log(1 - (p - t) / (1 - t));
  }
  for (let j = 0; j < 40; j++) {
    if (x <= 0) return 0;
    // for p above 1/2 the residual is taken from Q, which keeps its digits in the upper tail
    const err = p < 0.5 ? gammaP(a, x) - p : (1 - p) - gammaQ(a, x);
    // the density x^(a−1) e^(−x) / Γ(a), scaled at the peak for large a
    const dens = a > 1 ? afac * Math.exp(-(x - a1) + a1 * (Math.log(x) - lna1)) : Math.exp(-x + a1 * Math.log(x) - gln);
    if (dens === 0) break;
    const u = err / dens;
    const step = u / (1 - 0.5 * Math.min(1, u * (a1 / x - 1)));
    x -= step;
    if (x <= 0) x = 0.5 * (x + step);
    if (Math.abs(step) <= 4 * GAMMA_EPS * x) break;
  }
  return x;
}

/** The p-quantile of the chi-square distribution with k degrees of freedom (k > 0, real). */
export function chiSquareQuantile(p: number, k: number): number {
  return 2 * inverseGammaP(p, 0.5 * k);
}

/** The chi-square cumulative distribution with k degrees of freedom. */
export function chiSquareCdf(x: number, k: number): number {
  return x <= 0 ? 0 : gammaP(0.5 * k, 0.5 * x);
}
