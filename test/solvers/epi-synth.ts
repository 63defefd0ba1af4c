// Synthetic epidemic case series for the epi fit tests and bench, generated independently of the
// solver: the textbook S, E, I, R equations (not the solver's cumulative-incidence form, no
// sensitivities) by classical RK4 at a fine step (1/200 day), and Poisson counts drawn with the
// seeded xoshiro128** of lib/rng.ts by Knuth's product method (mean < 30) or Hörmann's transformed
// rejection with squeeze, PTRS (W. Hörmann, Insurance: Math. Econ. 12, 39, 1993).
import { createRng, type Rng } from '../../src/solvers/lib/rng.ts';
import { logGamma } from '../../src/solvers/lib/special.ts';

export interface EpiTruth { beta: number; gamma: number; sigma?: number; N: number; I0: number; days: number }

/** expected new infections per day, S(d) − S(d+1), with S(0) = N − I0, E(0) = 0, I(0) = I0 */
export function expectedCases(t: EpiTruth): number[] {
  const seir = t.sigma !== undefined;
  const steps = 200, h = 1 / steps;
  let S = t.N - t.I0, E = 0, I = t.I0;
  const f = (s: number, e: number, i: number): [number, number, number] => {
    const inf = t.beta * s * i / t.N;
    return seir ? [-inf, inf - t.sigma! * e, t.sigma! * e - t.gamma * i] : [-inf, 0, inf - t.gamma * i];
  };
  const out: number[] = [];
  for (let d = 0; d < t.days; d++) {
    const S0 = S;
    for (let k = 0; k < steps; k++) {
      const a = f(S, E, I);
      const b = f(S + 0.5 * h * a[0], E + 0.5 * h * a[1], I + 0.5 * h * a[2]);
      const c = f(S + 0.5 * h * b[0], E + 0.5 * h * b[1], I + 0.5 * h * b[2]);
      const e = f(S + h * c[0], E + h * c[1], I + h * c[2]);
      S += (h / 6) * (a[0] + 2 * b[0] + 2 * c[0] + e[0]);
      E += (h / 6) * (a[1] + 2 * b[1] + 2 * c[1] + e[1]);
      I += (h / 6) * (a[2] + 2 * b[2] + 2 * c[2] + e[2]);
    }
    out.push(S0 - S);
  }
  return out;
}

/** one Poisson(mu) draw */
export function poisson(rng: Rng, mu: number): number {
  if (mu <= 0) return 0;
  if (mu < 30) {
    const L = Math.exp(-mu);
    let k = 0, p = rng.next();
    while (p > L) { k++; p *= rng.next(); }
    return k;
  }
  const smu = Math.sqrt(mu), b = 0.931 + 2.53 * smu, a = -0.059 + 0.02483 * b;
  const invAlpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2), lnMu = Math.log(mu);
  for (;;) {
    const U = rng.next() - 0.5, V = rng.next(), us = 0.5 - Math.abs(U);
    const k = Math.floor((2 * a / us + b) * U + mu + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (Math.log(V) + Math.log(invAlpha) - Math.log(a / (us * us) + b) <= -mu + k * lnMu - logGamma(k + 1)) return k;
  }
}

/** a Poisson-noisy case series for one seed */
export function noisyCases(t: EpiTruth, seed: number, expected = expectedCases(t)): number[] {
  const rng = createRng(seed);
  return expected.map((m) => poisson(rng, m));
}
