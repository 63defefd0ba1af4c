// epi: compartmental epidemic models SIR and SEIR (Kermack & McKendrick, Proc. R. Soc. A 115,
// 1927; Anderson & May, "Infectious Diseases of Humans", 1991, ch. 2; Keeling & Rohani,
// "Modeling Infectious Diseases", 2008, §2.1 and §2.5), integrated with classical RK4
// (src/solvers/lib/ode.ts) at a fixed step.
//
//   SIR:  S' = -β S I / N,  I' = β S I / N - γ I,            R' = γ I
//   SEIR: S' = -β S I / N,  E' = β S I / N - σ E,  I' = σ E - γ I,  R' = γ I
//
// value = R0 = β/γ. Reference: the invariant of the flow. Along any SIR or SEIR trajectory
// d ln S / dR = -R0 / N, so S(t) = S(0)·exp(-R0·R(t)/N) at every instant (checked at the last
// day); with S(0) = N - I0, R(0) = 0 and I, E -> 0 at the end it is the final-size relation
//   s∞ = s0 · exp(-R0 (1 - s∞)),  s0 = S(0)/N,
// which reduces to the textbook s∞ = exp(-R0 (1 - s∞)) as I0/N -> 0 (both are reported). The
// final size 1 - s∞ is found with Brent's method (lib/roots.ts) and compared with 1 - S(end)/N.
// For SIR the peak also has a closed form from the invariant I + S - (N/R0) ln S:
//   I_max = I0 + S0 - N/R0 - (N/R0) ln(S0 R0 / N)   when R0 S0 / N > 1.
// Stability: RK4 is stable for h·λ inside its region (|h λ| <= 2.78 on the real axis); the step
// is chosen as h = min(0.05 day, 0.5 / max(β, γ, σ)), so the number h·max(β, γ, σ) <= 0.5.
//
// Your case counts (the `cases` field): β, γ (σ for SEIR) and I0 are fitted to the daily new
// infections c[d] = S(d) − S(d+1), d = 0..D−1, with S(0) = N − I0, E(0) = 0, I(0) = I0, R(0) = 0.
// The model is integrated in the cumulative incidence C = S(0) − S (so that c[d] = C(d+1) − C(d)
// loses no digits to N) together with its forward sensitivities ∂(C, E, I)/∂ln p (Hairer, Nørsett
// & Wanner I, §I.14), by fixed-step RK4 with k steps per day, k doubled until the expected counts
// change by less than 1e-9 of their maximum. Objective: the Poisson negative log-likelihood
// Σ μ − c ln μ, or half the residual sum of squares. Optimiser: Levenberg-Marquardt in the
// log-parameters (Marquardt, SIAM J. Appl. Math. 11, 431, 1963; Nocedal & Wright §10.3) with the
// Fisher-scoring / Gauss-Newton matrix Σ w J J' (w = 1/μ for Poisson, 1 for least squares; McCullagh
// & Nelder, "Generalized Linear Models", 2nd ed., §2.5), from a fixed grid of starts, the best few
// continued to convergence. Confidence intervals: Wald intervals on the log-parameters from the
// observed information, the Hessian of the objective by central differences of the analytic
// gradient (Pawitan, "In All Likelihood", 2001, §2.9 and §9.4); for least squares the sandwich
// (Huber-White) covariance H⁻¹(Σ r² J J')H⁻¹·D/(D − p) (White, Econometrica 48, 817, 1980),
// which stays honest when the noise is not homoscedastic (case counts are not).
// The check (refit recovery): the fitted model's own expected counts are refitted from the same
// starts; errorPct is the largest relative difference of the refitted β, γ, (σ,) I0 from the fit.
import { z } from 'zod';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { brent } from './lib/roots.ts';
import { logGamma } from './lib/special.ts';
import * as M from './lib/smallmat.ts';
import { precisionOf } from './lib/precision.ts';
import type { SolverContext, SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';

const DEFAULTS = { beta: 0.3, gamma: 0.1, sigma: 0.2, N: 1e6, I0: 10, days: 365 };
/** the default I0: 10, or N/10 in a population of 10 or fewer (where 10 would not be below N) */
const defaultI0 = (N: number): number => (N > DEFAULTS.I0 ? DEFAULTS.I0 : N / 10);
const FORWARD_ONLY = ['beta', 'gamma', 'sigma', 'N', 'I0', 'days'] as const;
const MIN_DAYS = 8;
const MAX_DAYS = 100_000;

const input = z.strictObject({
  cases: z.array(z.number().min(0).max(1e10)).min(MIN_DAYS).max(MAX_DAYS).optional().describe('your daily case series: new infections per day, c[d] = S(d) − S(d+1), d = 0, 1, … (8 to 100,000 days; whole numbers for the Poisson fit). Given, β, γ (σ) and I0 are fitted instead of a forward run')
    .meta({ examples: [[3, 4, 6, 9, 12, 17, 25, 34, 47, 63, 80, 98, 112, 118, 114, 101, 83, 64, 47, 33, 23, 15, 10, 7]] }),
  population: z.number().min(1).max(1e10).optional().describe('with cases: the population N (required)'),
  fit: z.enum(['poisson', 'least-squares']).optional().describe('with cases: poisson maximum likelihood (default) or least-squares'),
  model: z.enum(['sir', 'seir']).default('sir').describe('sir (default) or seir'),
  beta: z.number().gt(0).max(100).optional().describe('forward run: transmission rate per day (default 0.3)'),
  gamma: z.number().gt(0).max(100).optional().describe('forward run: recovery rate per day, 1 / infectious period (default 0.1)'),
  sigma: z.number().gt(0).max(100).optional().describe('forward run, model seir only (a 400 with sir): incubation rate per day, 1 / latent period (default 0.2)'),
  N: z.number().min(1).max(1e10).optional().describe('forward run: population size (default 1e6)'),
  I0: z.number().gt(0).optional().describe('forward run: initially infected, 0 < I0 < N (default 10, or N/10 when N <= 10)'),
  days: z.number().gt(0).max(10000).optional().describe('forward run: simulated days, up to 10,000 (default 365)'),
}).superRefine((v, ctx) => {
  const rec = v as Record<string, unknown>;
  if (v.cases === undefined) {
    for (const k of ['population', 'fit'] as const) {
      if (rec[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} applies only to fitting your cases; send cases or leave ${k} out` });
    }
    if (v.sigma !== undefined && v.model !== 'seir') ctx.addIssue({ code: 'custom', path: ['sigma'], message: 'has no effect when model is \'sir\': sigma is the SEIR incubation rate; send model \'seir\' or leave sigma out' });
    const N = v.N ?? DEFAULTS.N, I0 = v.I0 ?? defaultI0(N);
    if (!(I0 < N)) ctx.addIssue({ code: 'custom', path: ['I0'], message: `I0 must be less than N (${N})` });
    return;
  }
  for (const k of FORWARD_ONLY) {
    if (rec[k] === undefined) continue;
    const why = k === 'N' ? 'with cases the population is given as population'
      : k === 'days' ? 'with cases the number of days is the length of cases'
      : `${k} is fitted from the cases`;
    ctx.addIssue({ code: 'custom', path: [k], message: `${k} belongs to a forward run: ${why}; leave it out` });
  }
  if (v.population === undefined) { ctx.addIssue({ code: 'custom', path: ['population'], message: 'population is required with cases' }); return; }
  const c = v.cases;
  // a blob reference is checked the same way once read (src/ops/files.ts)
  if (!Array.isArray(c)) return;
  let total = 0;
  for (let d = 0; d < c.length; d++) {
    total += c[d];
    if ((v.fit ?? 'poisson') === 'poisson' && !Number.isInteger(c[d])) {
      ctx.addIssue({ code: 'custom', path: ['cases', d], message: `cases[${d}] = ${c[d]} is not a whole number: the Poisson fit needs counts (use fit 'least-squares' for a smoothed series)` });
      return;
    }
  }
  if (total === 0) ctx.addIssue({ code: 'custom', path: ['cases'], message: 'cases are all zero: there is nothing to fit' });
  else if (!(total < v.population)) ctx.addIssue({ code: 'custom', path: ['cases'], message: `the cases add up to ${total}, which is not below the population ${v.population}` });
}).overwrite((v) => (v.cases !== undefined ? v : {
  // the forward run's defaults, filled in after the checks (which must see what the caller sent),
  // so the parsed input, the receipt and the derived seed are those of a schema default
  ...v,
  beta: v.beta ?? DEFAULTS.beta, gamma: v.gamma ?? DEFAULTS.gamma, ...(v.model === 'seir' ? { sigma: v.sigma ?? DEFAULTS.sigma } : {}),
  N: v.N ?? DEFAULTS.N, I0: v.I0 ?? defaultI0(v.N ?? DEFAULTS.N), days: v.days ?? DEFAULTS.days,
}));

export type EpiInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'epi',
  domain: 'Epidemiology',
  method: 'rk4-compartmental',
  methodDescription: 'compartmental ODE (SIR/SEIR), R0 and peak',
  operators: ['KO42', 'CELL_GROWTH'],
  unit: 'R0',
  summary: 'SIR or SEIR epidemic by RK4: a forward run from given rates (basic reproduction number, peak infected, peak day and final size, checked against the final-size relation s∞ = exp(-R0 (1 - s∞))), or β, γ, σ and I0 fitted to your daily case counts by Poisson maximum likelihood or least squares, with 95 % confidence intervals, checked by refit recovery.',
  input,
  examples: [
    'Simulate an SIR epidemic with beta 0.3 and gamma 0.1 in a city of a million people',
    'What fraction of the population eventually gets infected if R0 is 2?',
    'SEIR model of a flu outbreak with a two day incubation period',
    'When does the epidemic peak and how many people are infected at the peak?',
    'Compute the basic reproduction number and final attack rate of an outbreak',
    'Model measles spread with transmission rate 1.5 per day and recovery rate 0.125',
    'How many people catch the disease in a town of 50000 starting from 5 cases?',
    'Kermack-McKendrick susceptible infected recovered curve over 200 days',
    'Plot the infection curve of a pandemic with a latent exposed compartment',
    'Herd immunity and final size of an epidemic with recovery time 10 days',
    'Fit an SIR model to my daily case counts and give confidence intervals for the rates',
    'Estimate the transmission rate and R0 from an outbreak case series by maximum likelihood',
  ],
  vocabulary: [
    'epidemic', 'epidemiology', 'sir', 'seir', 'susceptible', 'infected', 'infectious', 'recovered',
    'exposed', 'incubation', 'latent period', 'r0', 'reproduction number', 'basic reproduction number',
    'outbreak', 'pandemic', 'disease', 'infection', 'contagion', 'transmission', 'attack rate',
    'final size', 'peak infected', 'herd immunity', 'kermack', 'mckendrick', 'compartmental', 'flu',
    'influenza', 'measles', 'covid', 'virus', 'spread', 'case counts', 'daily cases', 'fit',
    'maximum likelihood', 'confidence interval', 'incidence',
  ],
  // 100,000 daily counts, up to about 20 bytes each for a smoothed (least-squares) series
  bodyLimit: 4 * 1024 * 1024,
};

/** The nontrivial root s∞ of s = s0 · exp(-R0 (1 - s)) in (0, s0]. */
export function finalSusceptibleFraction(R0: number, s0 = 1): number {
  const g = (s: number): number => s - s0 * Math.exp(-R0 * (1 - s));
  // g(0) < 0. For s0 < 1, g(s0) > 0. For s0 = 1 the trivial root s = 1 exists; when R0 > 1 the
  // epidemic root lies strictly below it, where g changes sign: search down from 1.
  let hi = s0;
  if (!(g(hi) > 0)) {
    if (R0 <= 1) return s0;
    hi = 1 - 1e-9;
    while (!(g(hi) > 0) && hi > 1e-300) hi = 1 - 2 * (1 - hi);
  }
  return brent(g, 0, hi, { xtol: 1e-15 }).root;
}

export const run: SolverRun<EpiInput> = (inp, ctx): SolverOutput =>
  inp.cases !== undefined ? runFit(inp, ctx) : runForward(inp, ctx);

function runForward(inp: EpiInput, ctx: SolverContext): SolverOutput {
  const { model } = inp;
  const beta = inp.beta ?? DEFAULTS.beta, gamma = inp.gamma ?? DEFAULTS.gamma, sigma = inp.sigma ?? DEFAULTS.sigma;
  const N = inp.N ?? DEFAULTS.N, I0 = inp.I0 ?? defaultI0(N), days = inp.days ?? DEFAULTS.days;
  const seir = model === 'seir';
  const R0 = beta / gamma;
  const maxRate = Math.max(beta, gamma, seir ? sigma : 0);
  // fixed step that divides `days` exactly
  const hTarget = Math.min(0.05, 0.5 / maxRate);
  const steps = Math.ceil(days / hTarget);
  const h = days / steps;
  const stabilityNumber = h * maxRate;

  // state: [S, E, I, R] (E stays 0 for SIR)
  const y = Float64Array.of(N - I0, 0, I0, 0);
  const invN = 1 / N;
  const deriv = seir
    ? (_t: number, s: Float64Array, out: Float64Array): void => {
      const inf = beta * s[0] * s[2] * invN;
      out[0] = -inf;
      out[1] = inf - sigma * s[1];
      out[2] = sigma * s[1] - gamma * s[2];
      out[3] = gamma * s[2];
    }
    : (_t: number, s: Float64Array, out: Float64Array): void => {
      const inf = beta * s[0] * s[2] * invN;
      out[0] = -inf;
      out[1] = 0;
      out[2] = inf - gamma * s[2];
      out[3] = gamma * s[2];
    };
  const ws = rk4Workspace(4);

  const maxPoints = 2000;
  const stride = Math.max(1, Math.ceil(steps / maxPoints));
  const tS: number[] = [0], sS: number[] = [y[0]], eS: number[] = [y[1]], iS: number[] = [y[2]], rS: number[] = [y[3]];
  let peakI = y[2], peakStep = 0;
  let prevI = y[2], prev2I = y[2];
  let peakRefined = 0, peakValueRefined = peakI;
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  for (let k = 1; k <= steps; k++) {
    rk4Step(deriv, (k - 1) * h, y, h, ws);
    const I = y[2];
    if (!Number.isFinite(I) || y[0] < -1e-9 * N) {
      throw refuse('UNSTABLE', 'the RK4 integration left the physical range', { stability: { number: stabilityNumber, limit: 2.78, stable: false } });
    }
    if (I > peakI) { peakI = I; peakStep = k; }
    // a local maximum at k-1 refined by a parabola through k-2, k-1, k
    if (k >= 2 && prevI >= prev2I && prevI > I && peakStep === k - 1) {
      const denom = prev2I - 2 * prevI + I;
      peakRefined = denom !== 0 ? 0.5 * (prev2I - I) / denom : 0;
      peakValueRefined = denom !== 0 ? prevI - (prev2I - I) * (prev2I - I) / (8 * denom) : prevI;
    }
    prev2I = prevI; prevI = I;
    if (k % stride === 0 || k === steps) {
      tS.push(k * h); sS.push(y[0]); eS.push(y[1]); iS.push(I); rS.push(y[3]);
    }
    if (k % progressEvery === 0) ctx.progress(k / steps);
  }
  // the parabola through the three samples around the largest one locates the peak between steps
  const interior = peakStep > 0 && peakStep < steps;
  const peakDay = interior ? (peakStep + peakRefined) * h : peakStep * h;
  if (interior) peakI = Math.max(peakI, peakValueRefined);

  const s0 = (N - I0) / N;
  const sInf = finalSusceptibleFraction(R0, s0);
  const sInfClassic = finalSusceptibleFraction(R0, 1);
  const finalSizeRef = 1 - sInf;
  const finalSize = 1 - y[0] / N;
  const stillInfectious = (y[1] + y[2]) / N;
  // The invariant d ln S / dR = −R0/N holds at every instant, not only at the end: S(t) =
  // S(0)·exp(−R0·R(t)/N). Checked at the last day, it is the final-size relation once the epidemic
  // is over, and stays a valid check when `days` ends it early. The error is measured against the
  // number infected so far (1 − S/N, the final size when the epidemic is over).
  const sInvariant = s0 * Math.exp(-R0 * y[3] / N);
  const infectedRef = 1 - sInvariant;
  const errorPct = infectedRef > 0 ? 100 * Math.abs(y[0] / N - sInvariant) / infectedRef : (Math.abs(y[0] / N - sInvariant) === 0 ? 0 : 100);

  const result: Record<string, unknown> = {
    model,
    R0,
    peakInfected: peakI,
    peakInfectedFraction: peakI / N,
    peakDay,
    finalSize,
    finalSizeReference: finalSizeRef,
    finalSizeClassic: 1 - sInfClassic,
    finalInfected: finalSize * N,
    stillInfectiousFraction: stillInfectious,
    epidemicOver: stillInfectious < 1e-6,
    days,
    dtDays: h,
    steps,
    S: y[0], E: y[1], I: y[2], R: y[3],
  };
  if (!seir && R0 * s0 > 1) {
    result.peakInfectedExact = I0 + (N - I0) - N / R0 - (N / R0) * Math.log((N - I0) * R0 / N);
  }
  const series: Record<string, number[]> = seir
    ? { t: tS, S: sS, E: eS, I: iS, R: rS }
    : { t: tS, S: sS, I: iS, R: rS };

  return {
    value: R0,
    result,
    precision: precisionOf({
      errorPct,
      reference: 'SIR/SEIR invariant S(t) = S(0)·exp(−R0·R(t)/N) at the last day (the final-size relation s∞ = s0·exp(−R0(1 − s∞)) once the epidemic is over), error relative to the fraction infected',
      referenceValue: infectedRef,
    }),
    series,
    stability: { number: stabilityNumber, limit: 2.78, stable: stabilityNumber <= 2.78, name: 'h·max(beta, gamma, sigma) (RK4 real-axis limit 2.78)' },
  };
}

// ---------------------------------------------------------------------------------------------
// Fitting the caller's case counts.

const LN_RATE_MIN = Math.log(1e-4), LN_RATE_MAX = Math.log(10);
/** the first substep count per day; doubled until the expected counts settle to INTEGRATION_TOL */
const K0 = 4;
const K_MAX = 1024;
const INTEGRATION_TOL = 1e-9;
const Z95 = 1.959963984540054; // the 97.5 % standard normal quantile
const HALF_CHI2_95 = 1.920729410347062; // χ²₁(0.95)/2, the 95 % likelihood-ratio drop
/** tolerance on the log-parameters at which Levenberg-Marquardt stops */
const STEP_TOL = 1e-10;
/** the predicted gain in ln L below which Levenberg-Marquardt stops */
const DECREMENT_TOL = 1e-14;
/** the largest change of a log-parameter in one step */
const MAX_STEP = 1;

interface FitProblem {
  seir: boolean;
  poisson: boolean;
  N: number;
  c: Float64Array;
  D: number;
  /** number of parameters: (β, γ, I0) or (β, γ, σ, I0), fitted as logarithms */
  p: number;
  lo: Float64Array;
  hi: Float64Array;
}

/** The model's expected daily counts μ[d] = C(d+1) − C(d) and their Jacobian J[d·p + j] = ∂μ[d]/∂θ_j
 * (θ = ln p) at one parameter point, by RK4 on the state and its forward sensitivities. Exported
 * for the test that checks the sensitivities against differences of μ. */
export class Simulator {
  readonly mu: Float64Array;
  readonly J: Float64Array;
  private readonly y: Float64Array;
  private readonly ws: ReturnType<typeof rk4Workspace>;
  private readonly sCprev: Float64Array;
  private beta = 0; private gamma = 0; private sigma = 0; private I0 = 0;
  private readonly deriv: (t: number, y: Float64Array, out: Float64Array) => void;
  private readonly pr: FitProblem;

  constructor(pr: FitProblem) {
    this.pr = pr;
    const { D, p, seir, N } = pr;
    this.mu = new Float64Array(D);
    this.J = new Float64Array(D * p);
    const comps = seir ? 3 : 2;
    this.y = new Float64Array(comps * (1 + p));
    this.ws = rk4Workspace(this.y.length);
    this.sCprev = new Float64Array(p);
    const invN = 1 / N;
    // state layout: [C, (E,) I, ∂C/∂θ (p), (∂E/∂θ (p),) ∂I/∂θ (p)]; θ = (ln β, ln γ, (ln σ,) ln I0)
    this.deriv = seir
      ? (_t, y, out) => {
        const C = y[0], E = y[1], I = y[2], beta = this.beta, gamma = this.gamma, sigma = this.sigma, I0 = this.I0;
        const S = N - I0 - C, bN = beta * invN, inf = bN * S * I;
        out[0] = inf; out[1] = inf - sigma * E; out[2] = sigma * E - gamma * I;
        for (let j = 0; j < 4; j++) {
          const sC = y[3 + j], sE = y[7 + j], sI = y[11 + j];
          const dinf = bN * (S * sI - I * sC) + (j === 0 ? inf : j === 3 ? -bN * I0 * I : 0);
          const sigE = j === 2 ? sigma * E : 0;
          out[3 + j] = dinf;
          out[7 + j] = dinf - sigma * sE - sigE;
          out[11 + j] = sigma * sE + sigE - gamma * sI - (j === 1 ? gamma * I : 0);
        }
      }
      : (_t, y, out) => {
        const C = y[0], I = y[1], beta = this.beta, gamma = this.gamma, I0 = this.I0;
        const S = N - I0 - C, bN = beta * invN, inf = bN * S * I;
        out[0] = inf; out[1] = inf - gamma * I;
        for (let j = 0; j < 3; j++) {
          const sC = y[2 + j], sI = y[5 + j];
          const dinf = bN * (S * sI - I * sC) + (j === 0 ? inf : j === 2 ? -bN * I0 * I : 0);
          out[2 + j] = dinf;
          out[5 + j] = dinf - gamma * sI - (j === 1 ? gamma * I : 0);
        }
      };
  }

  /** fills mu and J at θ with at least k RK4 steps per day (more when a rate exceeds k/2 per day, so
   * that h·max(β, γ, σ) <= 0.5, well inside RK4's stability interval); false when the solution
   * leaves the finite range or S increases (a daily count below −1e-12·N) */
  run(theta: Float64Array, kMin: number): boolean {
    const { D, p, seir } = this.pr;
    this.beta = Math.exp(theta[0]); this.gamma = Math.exp(theta[1]);
    this.sigma = seir ? Math.exp(theta[2]) : 0;
    this.I0 = Math.exp(theta[p - 1]);
    const k = stepsPerDay(kMin, Math.max(this.beta, this.gamma, this.sigma));
    const y = this.y, comps = seir ? 3 : 2;
    y.fill(0);
    y[comps - 1] = this.I0;                      // I(0) = I0
    y[comps + (comps - 1) * p + (p - 1)] = this.I0; // ∂I(0)/∂ln I0 = I0
    this.sCprev.fill(0);
    let Cprev = 0;
    const h = 1 / k;
    for (let d = 0; d < D; d++) {
      for (let s = 0; s < k; s++) rk4Step(this.deriv, d + s * h, y, h, this.ws);
      this.mu[d] = y[0] - Cprev;
      Cprev = y[0];
      for (let j = 0; j < p; j++) {
        this.J[d * p + j] = y[comps + j] - this.sCprev[j];
        this.sCprev[j] = y[comps + j];
      }
    }
    if (!Number.isFinite(Cprev) || !Number.isFinite(y[comps - 1])) return false;
    const floor = -1e-12 * this.pr.N;
    for (let d = 0; d < D; d++) if (this.mu[d] < floor) return false;
    return true;
  }
}

/** RK4 steps per day: at least kMin, and h·maxRate <= 0.5 */
function stepsPerDay(kMin: number, maxRate: number): number {
  return Math.max(kMin, Math.ceil(2 * maxRate));
}

const TINY = 1e-300;

/** The smallest daily count the Poisson terms trust: μ[d] is a difference of the cumulative
 * incidence C, which carries rounding of about 1e-16·N, so below 1e-12·N (where an epidemic has
 * died out) μ and its Jacobian are noise; there the likelihood keeps the linear term μ only and the
 * scoring weight 1/μ is capped at 1/floor, so the noise cannot swamp the scoring matrix. */
function countFloor(pr: FitProblem): number {
  return 1e-12 * pr.N;
}

/** the objective: Poisson Σ μ − c ln max(μ, floor), or ½ Σ (c − μ)² */
function objective(pr: FitProblem, mu: Float64Array): number {
  const { c, D } = pr;
  let f = 0;
  if (pr.poisson) {
    const floor = countFloor(pr);
    for (let d = 0; d < D; d++) f += mu[d] - (c[d] > 0 ? c[d] * Math.log(Math.max(mu[d], floor)) : 0);
  } else for (let d = 0; d < D; d++) { const r = c[d] - mu[d]; f += 0.5 * r * r; }
  return Number.isFinite(f) ? f : Infinity;
}

/** gradient g of the objective and the scoring matrix A = Σ w J J' (w = 1/μ for Poisson, the expected
 * information; 1 for least squares, Gauss-Newton) */
function gradientAndScoring(pr: FitProblem, mu: Float64Array, J: Float64Array, g: Float64Array, A: M.Mat | null): void {
  const { c, D, p } = pr;
  const floor = countFloor(pr);
  g.fill(0);
  if (A) A.data.fill(0);
  for (let d = 0; d < D; d++) {
    let w: number, r: number;
    if (pr.poisson) {
      const trusted = mu[d] >= floor;
      w = 1 / Math.max(mu[d], floor);
      r = trusted ? 1 - c[d] / mu[d] : 1;
    } else {
      w = 1;
      r = mu[d] - c[d];
    }
    for (let i = 0; i < p; i++) {
      const Ji = J[d * p + i];
      g[i] += r * Ji;
      if (A) { const wJi = w * Ji; for (let j = 0; j <= i; j++) A.data[i * p + j] += wJi * J[d * p + j]; }
    }
  }
  if (A) for (let i = 0; i < p; i++) for (let j = 0; j < i; j++) A.data[j * p + i] = A.data[i * p + j];
}

function clampInto(pr: FitProblem, theta: Float64Array): void {
  for (let j = 0; j < pr.p; j++) theta[j] = Math.min(pr.hi[j], Math.max(pr.lo[j], theta[j]));
}

interface LmResult { theta: Float64Array; f: number; iterations: number; converged: boolean; evaluations: number }

/** Levenberg-Marquardt on θ from theta0 with k steps per day, at most maxIter accepted steps. */
function levenbergMarquardt(pr: FitProblem, sim: Simulator, theta0: Float64Array, k: number, maxIter: number): LmResult {
  const p = pr.p;
  const theta = Float64Array.from(theta0);
  clampInto(pr, theta);
  let evaluations = 1;
  let f = sim.run(theta, k) ? objective(pr, sim.mu) : Infinity;
  if (!Number.isFinite(f)) return { theta, f, iterations: 0, converged: false, evaluations };
  const g = new Float64Array(p), A = M.zeros(p, p), Al = M.zeros(p, p), rhs = M.zeros(p, 1), delta = M.zeros(p, 1);
  const trial = new Float64Array(p);
  let lambda = 1e-3;
  let iterations = 0, converged = false;
  while (iterations < maxIter) {
    gradientAndScoring(pr, sim.mu, sim.J, g, A);
    // converged when the scoring (Gauss-Newton) step would raise ln L by less than DECREMENT_TOL:
    // g'A⁻¹g/2 in log-likelihood units (least squares: divided by σ̂² = RSS/D)
    for (let i = 0; i < p; i++) rhs.data[i] = -g[i];
    if (M.solve(A, rhs, delta)) {
      let dec = 0;
      for (let i = 0; i < p; i++) dec -= 0.5 * g[i] * delta.data[i];
      const scale = pr.poisson ? 1 : Math.max(2 * f / pr.D, TINY);
      if (dec / scale < DECREMENT_TOL) { converged = true; break; }
    }
    let maxDiag = 0;
    for (let i = 0; i < p; i++) maxDiag = Math.max(maxDiag, A.data[i * p + i]);
    let accepted = false;
    let fTrial = Infinity, stepSize = 0;
    while (lambda < 1e16) {
      Al.data.set(A.data);
      for (let i = 0; i < p; i++) Al.data[i * p + i] += lambda * Math.max(A.data[i * p + i], 1e-12 * maxDiag, TINY);
      for (let i = 0; i < p; i++) rhs.data[i] = -g[i];
      if (M.solve(Al, rhs, delta)) {
        // a step changes no parameter by more than a factor e^MAX_STEP: far trial points cost
        // model solves at large rates (many RK4 steps) and are rarely accepted
        let big = 0;
        for (let i = 0; i < p; i++) big = Math.max(big, Math.abs(delta.data[i]));
        const shrink = big > MAX_STEP ? MAX_STEP / big : 1;
        for (let i = 0; i < p; i++) trial[i] = theta[i] + shrink * delta.data[i];
        clampInto(pr, trial);
        evaluations++;
        fTrial = sim.run(trial, k) ? objective(pr, sim.mu) : Infinity;
        if (fTrial < f) {
          stepSize = 0;
          for (let i = 0; i < p; i++) stepSize = Math.max(stepSize, Math.abs(trial[i] - theta[i]));
          accepted = true;
          break;
        }
      }
      lambda *= 4;
    }
    if (!accepted) { converged = true; break; } // no descent left at the rounding level: a minimum
    theta.set(trial);
    const decrease = f - fTrial;
    f = fTrial;
    iterations++;
    lambda = Math.max(lambda / 5, 1e-12);
    if (stepSize < STEP_TOL || decrease === 0) { converged = true; break; }
  }
  // the simulator's buffers must describe theta (a rejected trial may have been the last run)
  sim.run(theta, k);
  return { theta, f, iterations, converged, evaluations };
}

/** the fixed grid of starting points (log-parameters) */
function startingPoints(pr: FitProblem): Float64Array[] {
  const { c, D, p, seir } = pr;
  let early = 0;
  const w = Math.min(7, D);
  for (let d = 0; d < w; d++) early += c[d];
  early = Math.max(early / w, 0.5);
  const starts: Float64Array[] = [];
  for (const gamma of [0.07, 0.2, 0.5]) for (const R0 of [1.3, 2.5, 5]) for (const sigma of seir ? [0.15, 0.5] : [0]) {
    const beta = R0 * gamma;
    const th = new Float64Array(p);
    th[0] = Math.log(beta); th[1] = Math.log(gamma);
    if (seir) th[2] = Math.log(sigma);
    // early incidence ≈ β·I0 while S ≈ N (E(0) = 0 in SEIR: the first infections come from I0)
    th[p - 1] = Math.log(early / beta);
    clampInto(pr, th);
    starts.push(th);
  }
  return starts;
}

interface FitOutcome {
  theta: Float64Array;
  f: number;
  k: number;
  integrationError: number;
  iterations: number;
  evaluations: number;
  converged: boolean;
  /** SEIR: the other local optimum, with σ and γ exchanged */
  alternative: { theta: Float64Array; f: number } | null;
}

/** the whole deterministic fit: every start a few steps, the best three to convergence, then the
 * step count per day doubled until the counts settle and the best point refined at that count */
function fitCases(pr: FitProblem, sim: Simulator, progress: (f: number) => void): FitOutcome {
  const starts = startingPoints(pr);
  let evaluations = 0, iterations = 0;
  const scouts = starts.map((s, i) => {
    const r = levenbergMarquardt(pr, sim, s, K0, 15);
    evaluations += r.evaluations; iterations += r.iterations;
    progress(0.5 * (i + 1) / starts.length);
    return r;
  }).filter((r) => Number.isFinite(r.f)).sort((a, b) => a.f - b.f);
  if (!scouts.length) throw refuse('UNSTABLE', 'no starting point gives a finite model solution for these cases');
  let best: LmResult | null = null;
  for (const s of scouts.slice(0, 3)) {
    const r = levenbergMarquardt(pr, sim, s.theta, K0, 500);
    evaluations += r.evaluations; iterations += r.iterations;
    if (!best || r.f < best.f) best = r;
  }
  progress(0.6);
  // integration error: the counts at k against 2k steps per day
  let k = K0, err = Infinity;
  const muK = new Float64Array(pr.D);
  for (;;) {
    sim.run(best!.theta, k); muK.set(sim.mu);
    sim.run(best!.theta, 2 * k);
    let diff = 0, scale = 0;
    for (let d = 0; d < pr.D; d++) { diff = Math.max(diff, Math.abs(muK[d] - sim.mu[d])); scale = Math.max(scale, Math.abs(sim.mu[d])); }
    err = diff / Math.max(scale, TINY);
    if (err <= INTEGRATION_TOL || 2 * k > K_MAX) break;
    k *= 2;
  }
  let refined = levenbergMarquardt(pr, sim, best!.theta, k, 500);
  evaluations += refined.evaluations; iterations += refined.iterations;
  // SEIR: the case curve depends on β, σ, γ only through βσ and the pair {σ, γ} apart from the
  // initial condition (the transfer function from incidence to incidence is βσ/((s + σ)(s + γ))),
  // so the mirror point (βσ/γ, σ ↔ γ) is a second optimum that only the first days separate
  let alternative: LmResult | null = null;
  if (pr.seir) {
    const t = refined.theta;
    const mirror = Float64Array.of(t[0] + t[2] - t[1], t[2], t[1], t[3]);
    const r = levenbergMarquardt(pr, sim, mirror, k, 500);
    evaluations += r.evaluations; iterations += r.iterations;
    let dist = 0;
    for (let j = 0; j < pr.p; j++) dist = Math.max(dist, Math.abs(r.theta[j] - t[j]));
    if (Number.isFinite(r.f) && dist > 1e-4) {
      if (r.f < refined.f) { alternative = refined; refined = r; } else alternative = r;
    }
    sim.run(refined.theta, k);
  }
  return {
    theta: refined.theta, f: refined.f, k, integrationError: err, iterations, evaluations, converged: refined.converged,
    alternative: alternative ? { theta: alternative.theta, f: alternative.f } : null,
  };
}

/** the Hessian of the objective at θ by central differences of the analytic gradient (2p solves) */
function numericalHessian(pr: FitProblem, sim: Simulator, theta: Float64Array, k: number): M.Mat {
  const p = pr.p, h = 1e-4;
  const H = M.zeros(p, p), gp = new Float64Array(p), gm = new Float64Array(p), t = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    t.set(theta); t[j] += h; sim.run(t, k); gradientAndScoring(pr, sim.mu, sim.J, gp, null);
    t.set(theta); t[j] -= h; sim.run(t, k); gradientAndScoring(pr, sim.mu, sim.J, gm, null);
    for (let i = 0; i < p; i++) H.data[i * p + j] = (gp[i] - gm[i]) / (2 * h);
  }
  sim.run(theta, k);
  return M.symmetrize(H);
}

function runFit(inp: EpiInput, ctx: SolverContext): SolverOutput {
  const seir = inp.model === 'seir';
  const poisson = (inp.fit ?? 'poisson') === 'poisson';
  const N = inp.population!;
  const c = Float64Array.from(inp.cases!);
  const D = c.length, p = seir ? 4 : 3;
  const lo = new Float64Array(p).fill(LN_RATE_MIN), hi = new Float64Array(p).fill(LN_RATE_MAX);
  lo[p - 1] = Math.log(N * 1e-12); hi[p - 1] = Math.log(N / 2);
  const pr: FitProblem = { seir, poisson, N, c, D, p, lo, hi };
  const names = seir ? ['beta', 'gamma', 'sigma', 'I0'] : ['beta', 'gamma', 'I0'];
  const sim = new Simulator(pr);

  const fitted = fitCases(pr, sim, (f) => ctx.progress(0.45 * f));
  const theta = fitted.theta;
  const mu = Float64Array.from(sim.mu);
  const J = Float64Array.from(sim.J);
  const est = Array.from(theta, Math.exp);

  // log-likelihood: Poisson Σ c ln μ − μ − ln c!; least squares the Gaussian with σ̂² = RSS/D
  let logLik: number, rss = 0, pearson = 0;
  for (let d = 0; d < D; d++) { const r = c[d] - mu[d]; rss += r * r; pearson += r * r / Math.max(mu[d], countFloor(pr)); }
  if (poisson) {
    logLik = -fitted.f;
    for (let d = 0; d < D; d++) logLik -= logGamma(c[d] + 1);
  } else {
    logLik = -0.5 * D * (Math.log(2 * Math.PI * Math.max(rss, TINY) / D) + 1);
  }

  // covariance of θ: the inverse observed information (Poisson), the sandwich (least squares)
  const H = numericalHessian(pr, sim, theta, fitted.k);
  let cov: M.Mat | null = M.isPositiveDefinite(H) ? M.inverse(H) : null;
  if (cov && !poisson) {
    const meat = M.zeros(p, p);
    for (let d = 0; d < D; d++) {
      const r2 = (c[d] - mu[d]) ** 2;
      for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) meat.data[i * p + j] += r2 * J[d * p + i] * J[d * p + j];
    }
    cov = M.scale(M.mul(M.mul(cov, meat), cov), D / Math.max(D - p, 1));
  }
  const atBound = names.filter((_, j) => theta[j] - lo[j] < 1e-6 || hi[j] - theta[j] < 1e-6);
  const ci95: Record<string, [number, number] | null> = {};
  const se = (j: number): number => (cov ? Math.sqrt(Math.max(cov.data[j * p + j], 0)) : NaN);
  // exp of ln p ± 1.96·se, kept finite (an interval wider than e^±700 is reported as that)
  const interval = (lnP: number, s: number): [number, number] =>
    [Math.exp(Math.max(lnP - Z95 * s, -700)), Math.exp(Math.min(lnP + Z95 * s, 700))];
  names.forEach((name, j) => { ci95[name] = cov ? interval(theta[j], se(j)) : null; });
  const R0 = est[0] / est[1];
  if (cov) {
    const varLnR0 = cov.data[0] + cov.data[p + 1] - 2 * cov.data[1];
    ci95.R0 = interval(Math.log(R0), Math.sqrt(Math.max(varLnR0, 0)));
  } else ci95.R0 = null;
  // SEIR's mirror optimum: the likelihood-ratio distance (Gaussian profile likelihood for least
  // squares); inside the 95 % region (Δ ln L < χ²₁(0.95)/2 = 1.92) the data do not tell the latent
  // from the infectious period and the Wald intervals around one optimum are not honest
  let alternative: Record<string, number> | null = null;
  let mirrorInside = false;
  if (fitted.alternative) {
    const a = fitted.alternative;
    const dLogLik = poisson ? a.f - fitted.f : 0.5 * D * Math.log(Math.max(a.f, TINY) / Math.max(fitted.f, TINY));
    const ae = Array.from(a.theta, Math.exp);
    alternative = { beta: ae[0], gamma: ae[1], sigma: ae[2], I0: ae[3], R0: ae[0] / ae[1], logLik: logLik - dLogLik, deltaLogLik: dLogLik };
    mirrorInside = dLogLik < HALF_CHI2_95;
  }
  ctx.progress(0.5);

  // refit recovery: the fitted model's expected counts, fitted again from the same starts
  const synth: FitProblem = { ...pr, c: Float64Array.from(mu) };
  const simSynth = new Simulator(synth);
  const refit = fitCases(synth, simSynth, (f) => ctx.progress(0.5 + 0.45 * f));
  const refitEst = Array.from(refit.theta, Math.exp);
  let errorPct = 0;
  for (let j = 0; j < p; j++) errorPct = Math.max(errorPct, 100 * Math.abs(refitEst[j] / est[j] - 1));

  const fit: Record<string, unknown> = { beta: est[0], gamma: est[1] };
  if (seir) fit.sigma = est[2];
  fit.I0 = est[p - 1];
  fit.R0 = R0;
  fit.ci95 = ci95;
  fit.logLik = logLik;
  const refitOut: Record<string, number> = { beta: refitEst[0], gamma: refitEst[1] };
  if (seir) refitOut.sigma = refitEst[2];
  refitOut.I0 = refitEst[p - 1];
  refitOut.R0 = refitEst[0] / refitEst[1];

  const maxRate = Math.max(est[0], est[1], seir ? est[2] : 0);
  const kUsed = stepsPerDay(fitted.k, maxRate);
  const stabilityNumber = maxRate / kUsed;
  const notes: string[] = [];
  if (!cov) notes.push('the information matrix is not positive definite: the parameters are not all identifiable from these cases, so there are no confidence intervals');
  if (atBound.length) notes.push(`estimate at the edge of the search box: ${atBound.join(', ')} (rates 1e-4..50 per day, I0 up to N/2)`);
  if (fitted.integrationError > INTEGRATION_TOL) notes.push(`the expected counts changed by ${fitted.integrationError.toExponential(2)} (relative) between ${fitted.k} and ${2 * fitted.k} steps per day`);
  if (!fitted.converged) notes.push('Levenberg-Marquardt stopped at its iteration limit');
  if (errorPct > 0.1) notes.push(`refitting the fitted model's own counts moved the parameters by ${errorPct.toPrecision(3)} %: they are weakly determined by these cases (for example only the growth phase, where β − γ is known but not β and γ apart)`);
  if (mirrorInside) notes.push(`the mirror optimum with σ and γ exchanged (result.alternative) lies within the 95 % likelihood region (Δ ln L = ${alternative!.deltaLogLik.toPrecision(3)} < 1.92): these cases do not tell the latent period from the infectious period`);
  const precision = precisionOf({
    errorPct,
    referenceValue: refitOut.R0,
    certificate: 'refit',
    reference: 'refit recovery: the fitted model\'s expected daily counts, refitted from the same starting grid, give back the fitted β, γ' + (seir ? ', σ' : '') + ' and I0 (errorPct = largest relative difference); the fit must also have an invertible information matrix, an interior estimate and settled integration' + (seir ? ', and the σ ↔ γ mirror optimum must lie outside the 95 % likelihood region' : ''),
    alsoHolds: cov !== null && atBound.length === 0 && fitted.integrationError <= INTEGRATION_TOL && !mirrorInside,
  });
  ctx.progress(1);
  const days = Array.from({ length: D }, (_, d) => d);
  return {
    value: R0,
    result: {
      mode: 'fit',
      model: inp.model,
      fitMethod: poisson ? 'poisson' : 'least-squares',
      fit,
      refit: refitOut,
      ...(seir ? { alternative } : {}),
      population: N,
      days: D,
      totalCases: c.reduce((s, v) => s + v, 0),
      fittedTotal: mu.reduce((s, v) => s + v, 0),
      initialConditions: seir ? { S: N - est[p - 1], E: 0, I: est[p - 1], R: 0 } : { S: N - est[p - 1], I: est[p - 1], R: 0 },
      ciMethod: cov ? (poisson ? 'wald-log-observed-information' : 'wald-log-sandwich') : null,
      covarianceLog: cov ? M.toNested(cov) : null,
      residualSumOfSquares: rss,
      pearsonDispersion: pearson / Math.max(D - p, 1),
      substepsPerDay: kUsed,
      integrationErrorRelative: fitted.integrationError,
      iterations: fitted.iterations,
      modelSolves: fitted.evaluations + refit.evaluations + 2 * p,
      converged: fitted.converged,
      notes,
    },
    precision,
    series: { t: days, cases: Array.from(c), fitted: Array.from(mu) },
    stability: { number: stabilityNumber, limit: 2.78, stable: stabilityNumber <= 2.78, name: 'h·max(beta, gamma, sigma) at the fitted rates (RK4 real-axis limit 2.78)' },
  };
}
