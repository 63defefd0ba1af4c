// quant: European option pricing by Monte Carlo under geometric Brownian motion, checked
// against the Black-Scholes closed form.
//
// Method (Glasserman, "Monte Carlo Methods in Financial Engineering", 2003, §3.2 (GBM terminal
// sampling), §4.2 (antithetic variates), §7.2 (pathwise derivative estimates)):
//   S_T = S0·exp((r − σ²/2)·T + σ·√T·Z), Z ~ N(0, 1), sampled exactly at T (no time stepping, so
//   no discretisation bias and no stability condition). Each normal draw Z is paired with −Z; the
//   estimator is the mean over pairs of the discounted pair-average payoff, and the standard error
//   is the sample standard deviation of the pair averages over √pairs (the pairs are i.i.d., the
//   two halves of a pair are not).
//   Pathwise delta: ∂/∂S0 of e^{−rT}·max(S_T − K, 0) is e^{−rT}·1{S_T > K}·S_T/S0 (put:
//   −e^{−rT}·1{S_T < K}·S_T/S0), averaged the same way.
// Reference: Black & Scholes (1973) / Merton (1973): C = S0·Φ(d1) − K·e^{−rT}·Φ(d2),
//   P = K·e^{−rT}·Φ(−d2) − S0·Φ(−d1), d1 = (ln(S0/K) + (r + σ²/2)T)/(σ√T), d2 = d1 − σ√T;
//   delta Φ(d1) (call), Φ(d1) − 1 (put). The Monte Carlo error is statistical, so the promised
//   bound is three standard errors (boundPct = 3·stdErr/price in percent, never below 0.1 %).
import { z } from 'zod';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { normalCdf } from './lib/special.ts';
import { FastRng } from './lib/rng.ts';
import { precisionOf } from './lib/precision.ts';

export const descriptor: SolverDescriptor = {
  name: 'quant',
  domain: 'Quantitative Finance',
  method: 'monte-carlo',
  methodDescription: 'Monte Carlo option pricing with antithetic variates and pathwise delta vs the Black-Scholes closed form',
  operators: ['KO42', 'BLACK_SCHOLES'],
  unit: '$',
  summary: 'Prices a European call or put by Monte Carlo under geometric Brownian motion (antithetic variates), with standard error and pathwise delta, checked against Black-Scholes.',
  input: z.strictObject({
    type: z.enum(['call', 'put']).default('call').describe('option type'),
    S0: z.number().finite().min(1e-6).max(1e9).default(100).describe('spot price (1e-6 to 1e9)'),
    K: z.number().finite().min(1e-6).max(1e9).default(100).describe('strike price (1e-6 to 1e9)'),
    r: z.number().finite().min(-1).max(1).default(0.05).describe('risk-free rate, continuously compounded, per year'),
    sigma: z.number().finite().min(1e-4).max(5).default(0.2).describe('volatility per √year (1e-4 to 5)'),
    T: z.number().finite().min(1e-4).max(100).default(1).describe('maturity in years (1e-4 to 100)'),
    paths: z.number().int().min(2).max(2_000_000).default(100_000).describe('Monte Carlo paths (2 to 2,000,000; antithetic pairs, so odd counts round up)'),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('RNG seed (default: derived from the input)'),
  }),
  examples: [
    'price a European call option with strike 100 and spot 100',
    'what is the fair value of a put option, volatility 20 percent, one year to expiry',
    'monte carlo option pricing with 200000 paths',
    'Black-Scholes price and delta of an at-the-money call',
    'how much should I pay for a call on a stock at 50 with strike 55',
    'estimate the option premium by simulation and compare with the closed form',
    'hedge ratio delta of a put option',
    'simulate geometric brownian motion stock prices to value a derivative',
    'risk-neutral valuation of a european put, interest rate 3%',
  ],
  vocabulary: [
    'option', 'options', 'call', 'put', 'strike', 'spot', 'premium', 'black-scholes', 'black scholes', 'volatility',
    'derivative pricing', 'finance', 'financial', 'stock', 'share', 'price', 'pricing', 'monte carlo', 'delta',
    'hedge', 'hedging', 'expiry', 'maturity', 'interest rate', 'risk-neutral', 'geometric brownian motion',
    'gbm', 'payoff', 'european', 'quant', 'quantitative finance', 'trading', 'portfolio', 'market',
  ],
};

export function blackScholes(type: 'call' | 'put', S0: number, K: number, r: number, sigma: number, T: number): { price: number; delta: number } {
  const sqT = Math.sqrt(T);
  const d1 = (Math.log(S0 / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqT);
  const d2 = d1 - sigma * sqT;
  const disc = Math.exp(-r * T);
  if (type === 'call') return { price: S0 * normalCdf(d1) - K * disc * normalCdf(d2), delta: normalCdf(d1) };
  return { price: K * disc * normalCdf(-d2) - S0 * normalCdf(-d1), delta: normalCdf(d1) - 1 };
}

const BLOCK = 4096;
const ACC_SIZE = 4;

/** Discounted pair-average payoff and pathwise delta for one normal draw (used for the shift). */
function pairValues(zj: number, p: Float64Array, isCall: boolean): [number, number] {
  const [S0, K, drift, vol, mirror, halfDisc, halfDiscOverS0] = p;
  const up = S0 * Math.exp(drift + vol * zj), dn = mirror > 0 ? mirror / up : S0 * Math.exp(drift - vol * zj);
  if (isCall) return [halfDisc * ((up > K ? up - K : 0) + (dn > K ? dn - K : 0)), halfDiscOverS0 * ((up > K ? up : 0) + (dn > K ? dn : 0))];
  return [halfDisc * ((up < K ? K - up : 0) + (dn < K ? K - dn : 0)), -halfDiscOverS0 * ((up < K ? up : 0) + (dn < K ? dn : 0))];
}

// The two hot loops, kept small so V8 optimises them early. p = [S0, K, drift, vol, mirror,
// halfDisc, halfDiscOverS0, shiftX, shiftD] (mirror 0 selects two exps per pair); acc = [Σx, Σx²,
// Σd, Σd²] of the shifted values.
function accumulateCall(z: Float64Array, n: number, p: Float64Array, acc: Float64Array): void {
  const S0 = p[0], K = p[1], drift = p[2], vol = p[3], mirror = p[4], hd = p[5], hds = p[6], shX = p[7], shD = p[8];
  let sx = 0, sxx = 0, sd = 0, sdd = 0;
  for (let j = 0; j < n; j++) {
    const up = S0 * Math.exp(drift + vol * z[j]);
    const dn = mirror > 0 ? mirror / up : S0 * Math.exp(drift - vol * z[j]);
    // branch-free max(a, 0) = (a + |a|)/2 and indicator +(a > 0): exercise is a coin flip near
    // the money, and mispredicted branches cost more than the arithmetic
    const a = up - K, b = dn - K;
    const x = hd * (0.5 * (a + Math.abs(a)) + 0.5 * (b + Math.abs(b))) - shX;
    const d = hds * (+(a > 0) * up + +(b > 0) * dn) - shD;
    sx += x; sxx += x * x; sd += d; sdd += d * d;
  }
  acc[0] += sx; acc[1] += sxx; acc[2] += sd; acc[3] += sdd;
}

function accumulatePut(z: Float64Array, n: number, p: Float64Array, acc: Float64Array): void {
  const S0 = p[0], K = p[1], drift = p[2], vol = p[3], mirror = p[4], hd = p[5], hds = p[6], shX = p[7], shD = p[8];
  let sx = 0, sxx = 0, sd = 0, sdd = 0;
  for (let j = 0; j < n; j++) {
    const up = S0 * Math.exp(drift + vol * z[j]);
    const dn = mirror > 0 ? mirror / up : S0 * Math.exp(drift - vol * z[j]);
    const a = K - up, b = K - dn;
    const x = hd * (0.5 * (a + Math.abs(a)) + 0.5 * (b + Math.abs(b))) - shX;
    const d = -hds * (+(a > 0) * up + +(b > 0) * dn) - shD;
    sx += x; sxx += x * x; sd += d; sdd += d * d;
  }
  acc[0] += sx; acc[1] += sxx; acc[2] += sd; acc[3] += sdd;
}

// Importance sampling where plain sampling cannot be trusted (issue 29: defaults that succeed).
// With z_K the strike's level of Z (S_T > K ⇔ Z > z_K), the plain estimator's relative second
// moment E[payoff²]/E[payoff]² is known in closed form (lognormal moments over a half-line,
// E[e^{n·vol·Z}·1{Z > z_K}] = e^{n²vol²/2}·Φ(n·vol − z_K)). Past RATIO_MAX the sample's standard
// error is itself unreliable: deep out of the money almost no path pays (the estimate and its
// error are both 0), and at a large σ√T the payoff's tail is carried by paths a run rarely draws.
// Such problems draw Z = μ + Y instead, Y ~ N(0, 1) in antithetic pairs, each payoff weighted by
// the likelihood ratio φ(Z)/φ(Z − μ) = exp(−μZ + μ²/2) (Glasserman §4.6): a call takes μ = max(z_K,
// vol) (samples around the strike; at μ = vol the weighted S_T is the constant S0·e^{rT}, the
// share measure), a put μ = min(z_K, 0). Everything else keeps plain sampling, bit for bit.
const RATIO_MAX = 1000;

function plainMomentRatio(isCall: boolean, S0: number, K: number, drift: number, vol: number): number {
  const zK = (Math.log(K / S0) - drift) / vol;
  const A = S0 * Math.exp(drift);
  // E[payoff] and E[payoff²], undiscounted, over the exercise half-line
  const m1 = isCall ? A * Math.exp(vol * vol / 2) * normalCdf(vol - zK) - K * normalCdf(-zK)
    : K * normalCdf(zK) - A * Math.exp(vol * vol / 2) * normalCdf(zK - vol);
  const m2 = isCall ? A * A * Math.exp(2 * vol * vol) * normalCdf(2 * vol - zK) - 2 * K * A * Math.exp(vol * vol / 2) * normalCdf(vol - zK) + K * K * normalCdf(-zK)
    : K * K * normalCdf(zK) - 2 * K * A * Math.exp(vol * vol / 2) * normalCdf(zK - vol) + A * A * Math.exp(2 * vol * vol) * normalCdf(zK - 2 * vol);
  return m1 > 0 ? m2 / (m1 * m1) : Infinity;
}

export const run: SolverRun = (input, ctx) => {
  const type: 'call' | 'put' = input.type;
  const { S0, K, r, sigma, T } = input as { S0: number; K: number; r: number; sigma: number; T: number };
  const pairs = Math.ceil(input.paths / 2);
  const rng = new FastRng(input.seed ?? ctx.seed);
  const drift = (r - 0.5 * sigma * sigma) * T;
  const vol = sigma * Math.sqrt(T);
  const disc = Math.exp(-r * T);
  const isCall = type === 'call';
  const ratio = plainMomentRatio(isCall, S0, K, drift, vol);
  if (!(ratio <= RATIO_MAX)) return importanceSampled(input, ctx, { type, S0, K, r, sigma, T, pairs, rng, drift, vol, disc, isCall, ratio });
  // S0·e^{drift − vol·z} = S0²·e^{2·drift} / (S0·e^{drift + vol·z}): one exp per pair
  const mirror = S0 * S0 * Math.exp(2 * drift);
  const halfDisc = 0.5 * disc, halfDiscOverS0 = (0.5 * disc) / S0;

  // Sums of the pair averages, shifted by the first pair's values (the "shifted data" variance
  // algorithm, Chan, Golub & LeVeque 1983), so the variance does not cancel catastrophically.
  const acc = new Float64Array(ACC_SIZE);
  const z = new Float64Array(BLOCK);
  // the one-exp mirror trick needs S0·e^{drift ± vol·z} to stay normal numbers for |z| < 12;
  // extreme parameters (σ²T in the thousands) fall back to two exps per pair
  const twoExp = !(Math.abs(drift) + 12 * vol + Math.abs(Math.log(S0)) < 600);
  const params = Float64Array.of(S0, K, drift, vol, twoExp ? 0 : mirror, halfDisc, halfDiscOverS0, 0, 0);
  for (let i0 = 0; i0 < pairs; i0 += BLOCK) {
    const n = Math.min(BLOCK, pairs - i0);
    rng.fillNormals(z, n);
    if (i0 === 0) {
      const first = pairValues(z[0], params, isCall);
      params[7] = first[0]; params[8] = first[1];
    }
    if (isCall) accumulateCall(z, n, params, acc); else accumulatePut(z, n, params, acc);
    ctx.progress(Math.min(1, (i0 + n) / pairs));
  }
  const shiftX = params[7], shiftD = params[8];
  const sx = acc[0], sxx = acc[1], sd = acc[2], sdd = acc[3];
  const mean = shiftX + sx / pairs;
  const dMean = shiftD + sd / pairs;
  const variance = pairs > 1 ? Math.max(0, (sxx - (sx * sx) / pairs) / (pairs - 1)) : 0;
  const stdErr = Math.sqrt(variance / pairs);
  const deltaStdErr = pairs > 1 ? Math.sqrt(Math.max(0, (sdd - (sd * sd) / pairs) / (pairs - 1)) / pairs) : 0;

  const bs = blackScholes(type, S0, K, r, sigma, T);
  const diff = Math.abs(mean - bs.price);
  const scale = Math.max(Math.abs(bs.price), 1e-300);
  const errorPct = bs.price === 0 && mean === 0 ? 0 : Math.min(1e6, (100 * diff) / scale);
  const boundPct = Math.min(1e6, Math.max(0.1, (300 * stdErr) / scale));
  const zScore = stdErr > 0 ? (mean - bs.price) / stdErr : 0;
  ctx.progress(1);
  const within = errorPct <= boundPct && diff <= Math.max(3 * stdErr, 1e-12 * scale);
  return {
    ...(within ? {} : retryQuant(2 * pairs, (100 * stdErr) / scale)),
    value: mean,
    result: {
      type,
      price: mean,
      stdErr,
      delta: dMean,
      deltaStdErr,
      paths: 2 * pairs,
      pairs,
      blackScholes: bs.price,
      blackScholesDelta: bs.delta,
      zScore,
      antithetic: true,
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'Black-Scholes closed form (bound: 3 Monte Carlo standard errors)',
      referenceValue: bs.price,
      alsoHolds: diff <= Math.max(3 * stdErr, 1e-12 * scale),
    }),
  };
};

function importanceSampled(input: Record<string, any>, ctx: Parameters<SolverRun>[1], c: {
  type: 'call' | 'put'; S0: number; K: number; r: number; sigma: number; T: number; pairs: number; rng: FastRng; drift: number; vol: number; disc: number; isCall: boolean; ratio: number;
}): SolverOutput {
  const { type, S0, K, r, sigma, T, pairs, rng, drift, vol, disc, isCall } = c;
  const zK = (Math.log(K / S0) - drift) / vol;
  const mu = isCall ? Math.max(zK, vol) : Math.min(zK, 0);
  const z = new Float64Array(BLOCK);
  const one = (zz: number): [number, number] => {
    const w = Math.exp(-mu * zz + 0.5 * mu * mu);
    const ST = S0 * Math.exp(drift + vol * zz);
    const itm = isCall ? ST > K : ST < K;
    if (!itm) return [0, 0];
    return [disc * (isCall ? ST - K : K - ST) * w, (isCall ? 1 : -1) * disc * (ST / S0) * w];
  };
  let shX = 0, shD = 0, sx = 0, sxx = 0, sd = 0, sdd = 0;
  for (let i0 = 0; i0 < pairs; i0 += BLOCK) {
    const n = Math.min(BLOCK, pairs - i0);
    rng.fillNormals(z, n);
    for (let j = 0; j < n; j++) {
      const [xa, da] = one(mu + z[j]);
      const [xb, db] = one(mu - z[j]);
      let x = 0.5 * (xa + xb), d = 0.5 * (da + db);
      if (i0 === 0 && j === 0) { shX = x; shD = d; }
      x -= shX; d -= shD;
      sx += x; sxx += x * x; sd += d; sdd += d * d;
    }
    ctx.progress(Math.min(1, (i0 + n) / pairs));
  }
  const mean = shX + sx / pairs;
  const dMean = shD + sd / pairs;
  const variance = pairs > 1 ? Math.max(0, (sxx - (sx * sx) / pairs) / (pairs - 1)) : 0;
  const stdErr = Math.sqrt(variance / pairs);
  const deltaStdErr = pairs > 1 ? Math.sqrt(Math.max(0, (sdd - (sd * sd) / pairs) / (pairs - 1)) / pairs) : 0;
  const bs = blackScholes(type, S0, K, r, sigma, T);
  const diff = Math.abs(mean - bs.price);
  const scale = Math.max(Math.abs(bs.price), 1e-300);
  const errorPct = bs.price === 0 && mean === 0 ? 0 : Math.min(1e6, (100 * diff) / scale);
  const boundPct = Math.min(1e6, Math.max(0.1, (300 * stdErr) / scale));
  const within = errorPct <= boundPct && diff <= Math.max(3 * stdErr, 1e-12 * scale);
  ctx.progress(1);
  return {
    ...(within ? {} : retryQuant(2 * pairs, (100 * stdErr) / scale)),
    value: mean,
    result: {
      type, price: mean, stdErr, delta: dMean, deltaStdErr, paths: 2 * pairs, pairs,
      blackScholes: bs.price, blackScholesDelta: bs.delta, zScore: stdErr > 0 ? (mean - bs.price) / stdErr : 0, antithetic: true,
      importanceSampling: { shift: mu, plainMomentRatio: Number.isFinite(c.ratio) ? c.ratio : null, why: 'plain sampling\'s relative second moment E[payoff²]/E[payoff]² exceeds ' + RATIO_MAX + ': its standard error would not be reliable' },
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'Black-Scholes closed form (bound: 3 Monte Carlo standard errors; importance sampled, Z shifted by ' + Number(mu.toPrecision(4)) + ')',
      referenceValue: bs.price,
      alsoHolds: diff <= Math.max(3 * stdErr, 1e-12 * scale),
    }),
    method: 'monte-carlo-importance-sampling',
  };
}

// Refusals that say how to succeed (issue 29). The Monte Carlo standard error falls like
// 1/√paths (Glasserman §1.1.3). A refusal is a draw more than three standard errors (and 0.1 %)
// from Black-Scholes; the advice is the paths at which the 0.1 % floor of the bound is four
// standard errors (so a fresh draw passes unless it lands beyond 4σ, odds about 6e-5), at least 4×
// this run's, at most the schema's 2,000,000 (where the bound is again three standard errors).
const MAX_PATHS = 2_000_000;
function retryQuant(paths: number, stdErrPct: number): { retryWith: NonNullable<SolverOutput['retryWith']> } | Record<string, never> {
  if (paths >= MAX_PATHS) return {};
  // no spread to scale from (one pair, or no path paid): the default count
  if (!(stdErrPct > 0)) {
    const next = Math.min(MAX_PATHS, Math.max(4 * paths, 100_000));
    return { retryWith: { inputs: { paths: next }, predictedCost: { paths: next, relativeToThisRun: next / paths } } };
  }
  const wanted = paths * (stdErrPct / (0.1 / 4)) ** 2;
  const next = Math.min(MAX_PATHS, 2 * Math.ceil(Math.max(4 * paths, wanted) / 2));
  const predictedErrorPct = stdErrPct * Math.sqrt(paths / next);
  return { retryWith: { inputs: { paths: next }, predictedErrorPct, predictedCost: { paths: next, relativeToThisRun: next / paths } } };
}
