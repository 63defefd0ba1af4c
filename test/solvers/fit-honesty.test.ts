// Are svc_fit's error bars honest? Synthetic data with known Gaussian noise, many seeds: the 95 %
// intervals must cover the true parameters in 95 % of the fits, within the binomial tolerance
// (±3 standard deviations of a Binomial(N, 0.95) proportion), for σ estimated from the residuals
// (Student t Wald intervals), for σ given (absolute, z intervals) and for profile-likelihood
// intervals. The data are drawn with lib/rng.ts (seeded), so the test is deterministic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, fitModel } from '../../src/solvers/fit.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

const TRUE = { A: 4, k: 0.35, c: 0.8 };
const X = Array.from({ length: 16 }, (_, i) => 0.5 * i);
const MODEL = 'A*exp(-k*x) + c';
const truth = (x: number) => TRUE.A * Math.exp(-TRUE.k * x) + TRUE.c;

function gaussian(rng: { next(): number }): number {
  // Box-Muller
  const u = 1 - rng.next(), v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function band(n: number, p = 0.95): [number, number] {
  const sd = Math.sqrt((p * (1 - p)) / n);
  return [p - 3 * sd, p + 3 * sd];
}

test('Wald 95 % intervals cover the true parameters 95 % of the time (σ estimated, and σ given)', (t) => {
  const N = 600, noise = 0.15;
  const covered = { est: { A: 0, k: 0, c: 0 }, abs: { A: 0, k: 0, c: 0 } };
  let z2 = 0;
  for (let seed = 1; seed <= N; seed++) {
    const rng = createRng(1000 + seed);
    const y = X.map((x) => truth(x) + noise * gaussian(rng));
    for (const mode of ['est', 'abs'] as const) {
      const r = fitModel({ model: MODEL, p0: { A: 3, k: 0.5, c: 0 }, data: { x: X, y, ...(mode === 'abs' ? { sigma: X.map(() => noise) } : {}) } });
      r.names.forEach((name, j) => {
        const half = r.tValue * r.stderr[j];
        const p = TRUE[name as keyof typeof TRUE];
        if (Math.abs(r.params[j] - p) <= half) covered[mode][name as keyof typeof TRUE]++;
        if (mode === 'abs') z2 += ((r.params[j] - p) / r.stderr[j]) ** 2;
      });
    }
  }
  const [lo, hi] = band(N);
  for (const mode of ['est', 'abs'] as const) {
    for (const [name, c] of Object.entries(covered[mode])) {
      const rate = c / N;
      t.diagnostic(`Wald (${mode === 'est' ? 'σ estimated, t' : 'σ given, z'}) ${name}: coverage ${rate.toFixed(3)} of ${N}`);
      assert.ok(rate >= lo && rate <= hi, `${mode} ${name}: coverage ${rate.toFixed(3)} outside [${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
    }
  }
  // with σ known the standardised errors are N(0, 1): their mean square is 1 (3 parameters × N draws)
  const ms = z2 / (3 * N);
  t.diagnostic(`σ given: mean square of (p − p_true)/stderr = ${ms.toFixed(3)}`);
  assert.ok(Math.abs(ms - 1) < 3 * Math.sqrt(2 / (3 * N)) * 1.5, `mean square of (p − p_true)/stderr = ${ms}`);
});

test('profile-likelihood 95 % intervals cover the true parameters 95 % of the time', (t) => {
  const N = 300, noise = 0.15;
  const covered: Record<string, number> = { A: 0, k: 0, c: 0 };
  for (let seed = 1; seed <= N; seed++) {
    const rng = createRng(5000 + seed);
    const y = X.map((x) => truth(x) + noise * gaussian(rng));
    const out = run(descriptor.input.parse({ model: MODEL, p0: { A: 3, k: 0.5, c: 0 }, data: { x: X, y }, profile: true }), { seed: 1, progress() {} });
    const prof = (out.result as any).ci95Profile as Record<string, [number | null, number | null]>;
    for (const [name, [lo, hi]] of Object.entries(prof)) {
      const p = TRUE[name as keyof typeof TRUE];
      if ((lo === null || lo <= p) && (hi === null || p <= hi)) covered[name]++;
    }
  }
  const [lo, hi] = band(N);
  for (const [name, c] of Object.entries(covered)) {
    const rate = c / N;
    t.diagnostic(`profile ${name}: coverage ${rate.toFixed(3)} of ${N}`);
    assert.ok(rate >= lo && rate <= hi, `profile ${name}: coverage ${rate.toFixed(3)} outside [${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
  }
});
