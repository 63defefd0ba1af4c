// epi fitted to case counts: coverage of the reported 95 % intervals on synthetic SIR data with
// Poisson noise (100 seeds), noiseless SEIR recovery, the least-squares mode and bad input. The data
// come from test/solvers/epi-synth.ts: the textbook S, E, I, R equations at a step of 1/200 day,
// independent of the solver's cumulative-incidence integration and its sensitivities.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, Simulator } from '../../src/solvers/epi.ts';
import { logGamma } from '../../src/solvers/lib/special.ts';
import { expectedCases, noisyCases, type EpiTruth } from './epi-synth.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
type Fit = { beta: number; gamma: number; sigma?: number; I0: number; R0: number; ci95: Record<string, [number, number] | null>; logLik: number };
const rel = (a: number, b: number) => Math.abs(a / b - 1);
const inside = (ci: [number, number] | null, v: number) => ci !== null && ci[0] <= v && v <= ci[1];

const SIR: EpiTruth = { beta: 0.4, gamma: 0.15, N: 1e5, I0: 10, days: 80 };

test('SIR with Poisson noise: the 95 % intervals hold the true β and γ in at least 90 of 100 seeds (acceptance)', () => {
  const expected = expectedCases(SIR);
  let inBeta = 0, inGamma = 0, inBoth = 0, inR0 = 0, refused = 0;
  const betas: number[] = [], seBeta: number[] = [];
  for (let seed = 1; seed <= 100; seed++) {
    const out = solve({ cases: noisyCases(SIR, seed, expected), population: SIR.N });
    const fit = out.result.fit as Fit;
    const b = inside(fit.ci95.beta, SIR.beta), g = inside(fit.ci95.gamma, SIR.gamma);
    inBeta += +b; inGamma += +g; inBoth += +(b && g);
    inR0 += +inside(fit.ci95.R0, SIR.beta / SIR.gamma);
    if (!out.precision.withinBound) refused++;
    betas.push(fit.beta);
    seBeta.push((Math.log(fit.ci95.beta![1]) - Math.log(fit.ci95.beta![0])) / (2 * 1.959963984540054));
  }
  assert.ok(inBeta >= 90 && inGamma >= 90 && inBoth >= 90, `β ${inBeta}, γ ${inGamma}, both ${inBoth} of 100`);
  assert.ok(inR0 >= 90, `R0 ${inR0}`);
  assert.equal(refused, 0, 'every fit passes its refit check');
  // the intervals are calibrated, not just wide: the reported standard error of ln β matches the
  // spread of ln β̂ over the seeds
  const lb = betas.map(Math.log), m = lb.reduce((s, v) => s + v, 0) / lb.length;
  const sd = Math.sqrt(lb.reduce((s, v) => s + (v - m) ** 2, 0) / (lb.length - 1));
  const meanSe = seBeta.reduce((s, v) => s + v, 0) / seBeta.length;
  assert.ok(meanSe / sd > 0.75 && meanSe / sd < 1.33, `reported se ${meanSe} vs empirical sd ${sd}`);
  assert.ok(Math.abs(m - Math.log(SIR.beta)) < 3 * sd / 10, `mean ln β̂ ${m}`);
});

test('one SIR fit in detail: R0, logLik, series and the refit check', () => {
  const cases = noisyCases(SIR, 7);
  const out = solve({ cases, population: SIR.N });
  const fit = out.result.fit as Fit;
  assert.equal(out.value, fit.R0);
  assert.ok(Math.abs(fit.R0 - fit.beta / fit.gamma) < 1e-15 * fit.R0);
  assert.ok(rel(fit.beta, SIR.beta) < 0.05 && rel(fit.gamma, SIR.gamma) < 0.05 && rel(fit.I0, SIR.I0) < 0.2, JSON.stringify(fit));
  assert.equal(fit.sigma, undefined);
  assert.equal(out.precision.certificate, 'refit');
  assert.ok(out.precision.errorPct < 1e-3, `refit ${out.precision.errorPct} %`);
  assert.ok(out.precision.withinBound);
  // logLik is the Poisson log-likelihood of the cases under the fitted daily counts
  const mu = out.series!.fitted;
  assert.equal(mu.length, cases.length);
  const ll = cases.reduce((s, c, d) => s + c * Math.log(mu[d]) - mu[d] - logGamma(c + 1), 0);
  assert.ok(Math.abs(fit.logLik - ll) < 1e-9 * Math.abs(ll), `${fit.logLik} vs ${ll}`);
  // the fitted counts are close to the truth's expected counts (within a few Poisson sd at the peak)
  const expected = expectedCases(SIR);
  const peak = Math.max(...expected);
  assert.ok(mu.every((m, d) => Math.abs(m - expected[d]) < 0.03 * peak), 'fitted curve near the truth');
  // a Poisson-consistent fit has Pearson dispersion near 1
  const disp = out.result.pearsonDispersion as number;
  assert.ok(disp > 0.6 && disp < 1.5, `dispersion ${disp}`);
  assert.ok(out.stability!.stable);
});

test('SEIR on noiseless data recovers β, γ, σ and I0 to 1e-3 (least squares on exact counts, Poisson on rounded counts)', () => {
  const truth: EpiTruth = { beta: 0.6, gamma: 0.2, sigma: 0.3, N: 1e7, I0: 50, days: 120 };
  const exact = expectedCases(truth);
  const ls = solve({ cases: exact, population: truth.N, model: 'seir', fit: 'least-squares' });
  const f = ls.result.fit as Fit;
  for (const k of ['beta', 'gamma', 'sigma', 'I0'] as const) {
    assert.ok(rel(f[k]!, truth[k]!) < 1e-3, `${k}: ${f[k]} vs ${truth[k]}`);
    assert.ok(inside(f.ci95[k], f[k]!));
  }
  assert.ok(ls.precision.withinBound, JSON.stringify(ls.result.notes));
  // the σ ↔ γ mirror is far out in likelihood on exact data
  const altLs = ls.result.alternative as Record<string, number>;
  assert.ok(altLs.deltaLogLik > 100, `Δ ln L ${altLs.deltaLogLik}`);

  const po = solve({ cases: exact.map(Math.round), population: truth.N, model: 'seir' });
  const g = po.result.fit as Fit;
  for (const k of ['beta', 'gamma', 'sigma', 'I0'] as const) assert.ok(rel(g[k]!, truth[k]!) < 1e-3, `poisson ${k}: ${g[k]} vs ${truth[k]}`);
  // at Poisson noise levels the mirror point (βσ/γ, σ and γ exchanged) is inside the 95 % region:
  // the fit says so and does not claim its intervals
  const alt = po.result.alternative as Record<string, number>;
  assert.ok(rel(alt.beta, truth.beta * truth.sigma! / truth.gamma) < 1e-3 && rel(alt.gamma, truth.sigma!) < 1e-3 && rel(alt.sigma, truth.gamma) < 1e-3, JSON.stringify(alt));
  assert.ok(alt.deltaLogLik > 0 && alt.deltaLogLik < 1.92, `Δ ln L ${alt.deltaLogLik}`);
  assert.equal(po.precision.withinBound, false);
  assert.ok((po.result.notes as string[]).some((n) => /latent period from the infectious period/.test(n)));
  assert.ok(po.precision.errorPct < 1e-3, 'the refit itself recovers');
});

test('least-squares mode: sandwich intervals cover the truth in most seeds; logLik is the Gaussian profile', () => {
  const expected = expectedCases(SIR);
  let covered = 0;
  for (let seed = 201; seed <= 230; seed++) {
    const out = solve({ cases: noisyCases(SIR, seed, expected), population: SIR.N, fit: 'least-squares' });
    const fit = out.result.fit as Fit;
    if (inside(fit.ci95.beta, SIR.beta) && inside(fit.ci95.gamma, SIR.gamma)) covered++;
    assert.equal(out.result.fitMethod, 'least-squares');
    assert.ok(out.precision.withinBound);
    const rss = out.result.residualSumOfSquares as number;
    assert.ok(Math.abs(fit.logLik + 0.5 * 80 * (Math.log(2 * Math.PI * rss / 80) + 1)) < 1e-9 * Math.abs(fit.logLik));
  }
  assert.ok(covered >= 24, `${covered} of 30`); // expected ≈ 28
  // a smoothed (non-integer) series is accepted by least squares
  const smooth = solve({ cases: expected, population: SIR.N, fit: 'least-squares' });
  const f = smooth.result.fit as Fit;
  assert.ok(rel(f.beta, SIR.beta) < 1e-4 && rel(f.gamma, SIR.gamma) < 1e-4 && rel(f.I0, SIR.I0) < 1e-3, JSON.stringify(f));
});

test('a partial series (growth phase only) gives wider but honest intervals', () => {
  const cases = noisyCases(SIR, 5).slice(0, 30);
  const out = solve({ cases, population: SIR.N });
  const fit = out.result.fit as Fit;
  const wide = (ci: [number, number] | null) => ci![1] / ci![0];
  const full = solve({ cases: noisyCases(SIR, 5), population: SIR.N }).result.fit as Fit;
  assert.ok(wide(fit.ci95.gamma) > 3 * wide(full.ci95.gamma), `${fit.ci95.gamma} vs ${full.ci95.gamma}`);
  assert.ok(inside(fit.ci95.beta, SIR.beta) && inside(fit.ci95.gamma, SIR.gamma));
});

test('data no model explains are reported out of bound, never a crash', () => {
  const runs: Array<[string, Record<string, unknown>]> = [
    ['flat', { cases: new Array(50).fill(100), population: 1e6 }],
    ['sparse', { cases: [0, 0, 5, 0, 0, 0, 3, 0, 0, 1, 0, 0], population: 1e5 }],
    ['one spike', { cases: [0, 0, 0, 0, 1000, 0, 0, 0, 0, 0], population: 1e4, model: 'seir' }],
  ];
  for (const [label, fields] of runs) {
    assertFiniteOrRefused(() => solve(fields), label);
    const out = solve(fields);
    assert.equal(out.precision.withinBound, false, label);
    assert.ok((out.result.notes as string[]).length > 0, label);
  }
});

test('same input gives identical bits', () => {
  const f = { cases: noisyCases({ beta: 0.6, gamma: 0.2, sigma: 0.3, N: 1e5, I0: 5, days: 100 }, 3), population: 1e5, model: 'seir' };
  assert.deepEqual(solve(f), solve(f));
});

test('bad input is a 400 naming the field', () => {
  const ok = { cases: [1, 2, 4, 8, 15, 30, 50, 80, 120], population: 1e4 };
  const bad: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ ...ok, cases: [1, 2, -3, 4, 5, 6, 7, 8] }, 'cases', /./],
    [{ ...ok, cases: [1, 2, Infinity, 4, 5, 6, 7, 8] }, 'cases', /./],
    [{ ...ok, cases: [1, 2, NaN, 4, 5, 6, 7, 8] }, 'cases', /./],
    [{ ...ok, cases: [1, 2, 3, 4, 5, 6, 7] }, 'cases', /./],
    [{ ...ok, cases: new Array(100_001).fill(1) }, 'cases', /./],
    [{ ...ok, cases: [1, 2, 3.5, 4, 5, 6, 7, 8] }, 'cases', /cases\[2\] = 3.5 is not a whole number/],
    [{ ...ok, cases: new Array(10).fill(0) }, 'cases', /all zero/],
    [{ ...ok, population: 50 }, 'cases', /add up to 310, which is not below the population 50/],
    [{ cases: ok.cases }, 'population', /population is required/],
    [{ ...ok, population: 0.5 }, 'population', /./],
    [{ population: 1e4 }, 'population', /only to fitting your cases/],
    [{ fit: 'poisson' }, 'fit', /only to fitting your cases/],
    [{ ...ok, fit: 'mle' }, 'fit', /./],
    [{ ...ok, model: 'sis' }, 'model', /./],
    [{ ...ok, beta: 0.3 }, 'beta', /fitted from the cases/],
    [{ ...ok, gamma: 0.1 }, 'gamma', /fitted from the cases/],
    [{ ...ok, sigma: 0.2 }, 'sigma', /fitted from the cases/],
    [{ ...ok, I0: 3 }, 'I0', /fitted from the cases/],
    [{ ...ok, N: 1e4 }, 'N', /population/],
    [{ ...ok, days: 30 }, 'days', /length of cases/],
  ];
  for (const [b, field, msg] of bad) {
    const r = descriptor.input.safeParse(b);
    assert.equal(r.success, false, `${field}: ${JSON.stringify(b).slice(0, 100)}`);
    const issue = r.error!.issues[0];
    assert.equal(issue.path[0], field, `${field}: got ${issue.path.join('.')}: ${issue.message}`);
    assert.match(issue.message, msg);
  }
  assert.ok(descriptor.input.safeParse(ok).success);
  assert.ok(descriptor.input.safeParse({ ...ok, cases: [1.5, 2, 3, 4, 5, 6, 7, 8], fit: 'least-squares' }).success);
});

test('odd but valid series give finite output or a refusal, never a crash', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['population 10', { cases: [1, 1, 1, 1, 1, 0, 0, 0], population: 10 }],
    ['population 10, SEIR', { cases: [1, 1, 1, 1, 1, 0, 0, 0], population: 10, model: 'seir' }],
    ['growth phase in 1e10', { cases: noisyCases({ beta: 0.3, gamma: 0.1, N: 1e10, I0: 100, days: 60 }, 1), population: 1e10 }],
    ['forty days of zeros first', { cases: [...new Array(40).fill(0), ...noisyCases(SIR, 1)], population: SIR.N }],
    ['decline only', { cases: [500, 400, 320, 250, 200, 160, 130, 100, 80, 60, 50, 40], population: 1e5 }],
    ['least squares, huge counts', { cases: Array.from({ length: 20 }, (_, i) => 1e8 * Math.exp(-((i - 10) ** 2) / 8)), population: 1e10, fit: 'least-squares' }],
  ];
  for (const [label, fields] of cases) assertFiniteOrRefused(() => solve(fields), label);
  // forty leading zeros only shift the start: I0 becomes tiny, the rates stay
  const shifted = solve(cases[3][1]).result.fit as Fit;
  assert.ok(inside(shifted.ci95.beta, SIR.beta) && inside(shifted.ci95.gamma, SIR.gamma), JSON.stringify(shifted));
});

test('the forward sensitivities are the derivatives of the daily counts (central differences)', () => {
  for (const seir of [false, true]) {
    const p = seir ? 4 : 3, D = 60;
    const pr = { seir, poisson: true, N: 1e5, c: new Float64Array(D), D, p, lo: new Float64Array(p).fill(-50), hi: new Float64Array(p).fill(50) };
    const sim = new Simulator(pr);
    const theta = Float64Array.from(seir ? [0.5, 0.2, 0.3, 7] : [0.45, 0.15, 7], Math.log); // ln(β, γ, (σ,) I0)
    assert.ok(sim.run(theta, 16));
    const J = Float64Array.from(sim.J);
    const h = 1e-5;
    for (let j = 0; j < p; j++) {
      const t = Float64Array.from(theta);
      t[j] += h; sim.run(t, 16); const up = Float64Array.from(sim.mu);
      t[j] -= 2 * h; sim.run(t, 16); const dn = Float64Array.from(sim.mu);
      let worst = 0, scale = 0;
      for (let d = 0; d < D; d++) {
        const fd = (up[d] - dn[d]) / (2 * h);
        worst = Math.max(worst, Math.abs(fd - J[d * p + j]));
        scale = Math.max(scale, Math.abs(J[d * p + j]));
      }
      assert.ok(worst < 1e-6 * scale, `${seir ? 'SEIR' : 'SIR'} parameter ${j}: ${worst} vs scale ${scale}`);
    }
  }
});
