// epi: compartmental epidemic models SIR and SEIR (Kermack & McKendrick, Proc. R. Soc. A 115,
// 1927; Anderson & May, "Infectious Diseases of Humans", 1991, ch. 2; Keeling & Rohani,
// "Modeling Infectious Diseases", 2008, §2.1 and §2.5), integrated with classical RK4
// (src/solvers/lib/ode.ts) at a fixed step.
//
//   SIR:  S' = -β S I / N,  I' = β S I / N - γ I,            R' = γ I
//   SEIR: S' = -β S I / N,  E' = β S I / N - σ E,  I' = σ E - γ I,  R' = γ I
//
// value = R0 = β/γ. Reference: the final-size relation. Along any SIR or SEIR trajectory
// d ln S / dR = -R0 / N, so with S(0) = N - I0, R(0) = 0 and I, E -> 0 at the end,
//   s∞ = s0 · exp(-R0 (1 - s∞)),  s0 = S(0)/N,
// which reduces to the textbook s∞ = exp(-R0 (1 - s∞)) as I0/N -> 0 (both are reported). The
// final size 1 - s∞ is found with Brent's method (lib/roots.ts) and compared with 1 - S(end)/N.
// For SIR the peak also has a closed form from the invariant I + S - (N/R0) ln S:
//   I_max = I0 + S0 - N/R0 - (N/R0) ln(S0 R0 / N)   when R0 S0 / N > 1.
// Stability: RK4 is stable for h·λ inside its region (|h λ| <= 2.78 on the real axis); the step
// is chosen as h = min(0.05 day, 0.5 / max(β, γ, σ)), so the number h·max(β, γ, σ) <= 0.5.
import { z } from 'zod';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { brent } from './lib/roots.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';

const input = z.strictObject({
  model: z.enum(['sir', 'seir']).default('sir').describe('sir (default) or seir'),
  beta: z.number().gt(0).max(100).default(0.3).describe('transmission rate per day'),
  gamma: z.number().gt(0).max(100).default(0.1).describe('recovery rate per day (1 / infectious period)'),
  sigma: z.number().gt(0).max(100).default(0.2).describe('SEIR only: incubation rate per day (1 / latent period)'),
  N: z.number().min(1).max(1e10).default(1e6).describe('population size'),
  I0: z.number().gt(0).default(10).describe('initially infected (0 < I0 < N)'),
  days: z.number().gt(0).max(10000).default(365).describe('simulated days (up to 10,000)'),
}).superRefine((v, ctx) => {
  if (!(v.I0 < v.N)) ctx.addIssue({ code: 'custom', path: ['I0'], message: `I0 must be less than N (${v.N})` });
});

export type EpiInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'epi',
  domain: 'Epidemiology',
  method: 'rk4-compartmental',
  methodDescription: 'compartmental ODE (SIR/SEIR), R0 and peak',
  operators: ['KO42', 'CELL_GROWTH'],
  unit: 'R0',
  summary: 'SIR or SEIR epidemic by RK4: basic reproduction number, peak infected, peak day and final size, checked against the final-size relation s∞ = exp(-R0 (1 - s∞)).',
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
  ],
  vocabulary: [
    'epidemic', 'epidemiology', 'sir', 'seir', 'susceptible', 'infected', 'infectious', 'recovered',
    'exposed', 'incubation', 'latent period', 'r0', 'reproduction number', 'basic reproduction number',
    'outbreak', 'pandemic', 'disease', 'infection', 'contagion', 'transmission', 'attack rate',
    'final size', 'peak infected', 'herd immunity', 'kermack', 'mckendrick', 'compartmental', 'flu',
    'influenza', 'measles', 'covid', 'virus', 'spread',
  ],
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

export const run: SolverRun<EpiInput> = (inp, ctx): SolverOutput => {
  const { model, beta, gamma, sigma, N, I0, days } = inp;
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
  const errorPct = 100 * Math.abs(finalSize - finalSizeRef) / finalSizeRef;

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
    precision: {
      errorPct,
      boundPct: 0.1,
      reference: 'final-size relation s∞ = s0·exp(-R0(1 - s∞)) solved by Brent (→ s∞ = exp(-R0(1 - s∞)) as I0/N → 0)',
      withinBound: errorPct <= 0.1,
      referenceValue: finalSizeRef,
    },
    series,
    stability: { number: stabilityNumber, limit: 2.78, stable: stabilityNumber <= 2.78, name: 'h·max(beta, gamma, sigma) (RK4 real-axis limit 2.78)' },
  };
};
