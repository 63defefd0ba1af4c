// quant: Monte Carlo option prices against the Black-Scholes closed form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, blackScholes } from '../../src/solvers/quant.ts';

const ctx = (seed = 1) => ({ seed, progress() {} });
const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), ctx(seed));

test('the Black-Scholes reference reproduces the textbook values (Hull: 10.4506 and 5.5735)', () => {
  const c = blackScholes('call', 100, 100, 0.05, 0.2, 1), p = blackScholes('put', 100, 100, 0.05, 0.2, 1);
  assert.ok(Math.abs(c.price - 10.4506) < 5e-5);
  assert.ok(Math.abs(p.price - 5.5735) < 5e-5);
  // put-call parity C − P = S0 − K·e^{−rT}
  assert.ok(Math.abs(c.price - p.price - (100 - 100 * Math.exp(-0.05))) < 1e-12);
  assert.ok(Math.abs(c.delta - p.delta - 1) < 1e-15);
});

test('acceptance: 200,000 paths price the call within 3 standard errors of 10.4506 and the put of 5.5735', () => {
  const base = { S0: 100, K: 100, r: 0.05, sigma: 0.2, T: 1, paths: 200_000 };
  const call = solve({ ...base, type: 'call' });
  const put = solve({ ...base, type: 'put' });
  const cs = call.result.stdErr as number, ps = put.result.stdErr as number;
  assert.ok(cs > 0 && cs < 0.05 && ps > 0 && ps < 0.05);
  assert.ok(Math.abs(call.value - 10.4506) <= 3 * cs, `call ${call.value} ± ${cs}`);
  assert.ok(Math.abs(put.value - 5.5735) <= 3 * ps, `put ${put.value} ± ${ps}`);
  assert.equal(call.precision.withinBound, true);
  assert.equal(put.precision.withinBound, true);
  assert.equal(call.result.paths, 200_000);
});

test('pathwise delta agrees with N(d1) within 4 of its standard errors', () => {
  for (const type of ['call', 'put']) {
    const o = solve({ type, S0: 90, K: 100, r: 0.03, sigma: 0.3, T: 0.5, paths: 200_000 }, 5);
    const bs = blackScholes(type as 'call', 90, 100, 0.03, 0.3, 0.5);
    assert.ok(Math.abs((o.result.delta as number) - bs.delta) <= 4 * (o.result.deltaStdErr as number), `${type} delta`);
  }
});

test('deep in- and out-of-the-money options and high volatility stay within 3 standard errors', () => {
  const cases = [
    { type: 'call', S0: 150, K: 100, sigma: 0.25, T: 2 },
    { type: 'put', S0: 60, K: 100, sigma: 0.4, T: 1 },
    { type: 'call', S0: 100, K: 120, sigma: 1.5, T: 3 },
    { type: 'put', S0: 100, K: 100, r: -0.01, sigma: 0.1, T: 0.1 },
  ];
  for (const [i, c] of cases.entries()) {
    const o = solve({ paths: 100_000, ...c }, 100 + i);
    assert.ok(Math.abs(o.value - (o.result.blackScholes as number)) <= 3 * (o.result.stdErr as number), JSON.stringify(c));
  }
});

test('antithetic pairs: call minus put equals the discounted forward up to the sampling error of S_T', () => {
  const b = { S0: 100, K: 95, r: 0.02, sigma: 0.3, T: 1, paths: 50_000 };
  const c = solve({ ...b, type: 'call' }, 9), p = solve({ ...b, type: 'put' }, 9);
  const parity = 100 - 95 * Math.exp(-0.02);
  assert.ok(Math.abs(c.value - p.value - parity) < 0.1);
});

test('the same input and seed give identical bits; another seed differs', () => {
  const a = solve({ paths: 10_000 }, 3), b = solve({ paths: 10_000 }, 3), c = solve({ paths: 10_000 }, 4);
  assert.equal(a.value, b.value);
  assert.deepEqual(a.result, b.result);
  assert.notEqual(a.value, c.value);
  // an explicit seed field wins over the context seed
  assert.equal(solve({ paths: 10_000, seed: 77 }, 1).value, solve({ paths: 10_000, seed: 77 }, 2).value);
});

test('bounds are enforced by the schema (400 naming the field)', () => {
  for (const bad of [{ paths: 1 }, { paths: 2_000_001 }, { sigma: 0 }, { S0: -1 }, { T: 0 }, { type: 'straddle' }, { r: 2 }, { extra: 1 }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
  const odd = solve({ paths: 3 });
  assert.equal(odd.result.paths, 4);
  assert.ok(Number.isFinite(odd.value));
});

test('descriptor carries at least 8 examples and a vocabulary', () => {
  assert.ok(descriptor.examples.length >= 8 && descriptor.vocabulary.length > 10);
});

test('extreme but valid parameters stay finite, and a run Monte Carlo cannot resolve says so', () => {
  const wild = solve({ type: 'put', S0: 1e9, K: 1e-6, r: -1, sigma: 5, T: 100, paths: 10_000 });
  assert.ok(Number.isFinite(wild.value) && Number.isFinite(wild.result.stdErr as number) && Number.isFinite(wild.result.delta as number));
  assert.ok(Math.abs(wild.value / (wild.result.blackScholes as number) - 1) < 1e-12, 'a put that is always exercised');
  const wide = solve({ type: 'call', S0: 50, K: 60, r: 0.1, sigma: 1, T: 4, paths: 200_000 }, 3);
  assert.ok(Math.abs(wide.value - (wide.result.blackScholes as number)) <= 3 * (wide.result.stdErr as number));
  // σ²T = 450: the price lives in paths 20 standard deviations out, where plain sampling cannot see
  // them; importance sampling (the share measure's shift) prices it within the bound (issue 29)
  const hopeless = solve({ type: 'call', S0: 50, K: 60, r: 0.1, sigma: 3, T: 50, paths: 100_000 }, 3);
  assert.ok(Number.isFinite(hopeless.value) && Number.isFinite(hopeless.precision.errorPct));
  assert.ok(hopeless.result.importanceSampling, 'importance sampled');
  assert.equal(hopeless.precision.withinBound, true);
  for (const c of [{ S0: 1e-6, K: 1e9 }, { sigma: 1e-4, T: 1e-4 }, { r: 1, T: 100, sigma: 1e-4 }]) {
    const o = solve({ paths: 1000, ...c });
    assert.ok(Number.isFinite(o.value) && Number.isFinite(o.precision.errorPct) && Number.isFinite(o.precision.boundPct), JSON.stringify(c));
  }
});

test('the standard error is honest: over 200 seeds the spread of the prices matches it, and 3 SE covers the truth', () => {
  for (const type of ['call', 'put'] as const) {
    const prices: number[] = [], errs: number[] = [];
    let covered = 0;
    for (let seed = 1000; seed < 1200; seed++) {
      const o = solve({ type, paths: 20_000 }, seed);
      prices.push(o.value); errs.push(o.result.stdErr as number);
      if (Math.abs(o.value - (o.result.blackScholes as number)) <= 3 * (o.result.stdErr as number)) covered++;
    }
    const m = prices.reduce((s, x) => s + x, 0) / prices.length;
    const spread = Math.sqrt(prices.reduce((s, x) => s + (x - m) ** 2, 0) / (prices.length - 1));
    const meanErr = errs.reduce((s, x) => s + x, 0) / errs.length;
    // 200 runs estimate the spread to 5 %: an error inflated (or deflated) by a fifth fails
    assert.ok(spread / meanErr > 0.85 && spread / meanErr < 1.15, `${type}: spread ${spread} vs reported ${meanErr}`);
    assert.ok(covered >= 194, `${type}: ${covered} of 200 within 3 SE`);
    // unbiased: the grand mean of 4,000,000 paths sits on Black-Scholes
    assert.ok(Math.abs(m - blackScholes(type, 100, 100, 0.05, 0.2, 1).price) < 3 * spread / Math.sqrt(200));
    // antithetic pairs help: the error is below plain Monte Carlo's σ(payoff)/√paths (σ from NumPy, 4e6 draws)
    assert.ok(meanErr < (type === 'call' ? 14.72 : 8.65) / Math.sqrt(20_000));
  }
});
