// gauge: 2-D compact U(1) Monte Carlo against the exact plaquette.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, torusPlaquette } from '../../src/solvers/gauge.ts';
import { besselI1OverI0, besselIRatios } from '../../src/solvers/lib/special.ts';
import { SvcError } from '../../src/core/errors.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });

/** Standard error of the mean plaquette if every plaquette of every sweep were independent: in
 *  two dimensions the plaquettes are independent variables (up to (I1/I0)^V on the torus), each
 *  with variance (1 + I2/I0)/2 − (I1/I0)². The binned error may exceed it only by the
 *  autocorrelation between sweeps, √(2·τ_int). */
function iidError(beta: number, V: number, sweeps: number): number {
  const r = besselIRatios(beta, 10);
  return Math.sqrt(((1 + r[2]) / 2 - r[1] * r[1]) / (V * sweeps));
}

test('acceptance: β = 1 and β = 2 on 16×16 are within 3 statistical errors of 0.4464 and 0.6978', () => {
  for (const [beta, exact] of [[1, 0.4464], [2, 0.6978]]) {
    const o = solve({ L: 16, beta });
    const err = o.result.error as number;
    // the error is the binned one, neither inflated nor the naive one of correlated data
    const ratio = err / iidError(beta, 256, 2000);
    assert.ok(ratio > 0.75 && ratio < 1.5, `β=${beta}: binned error ${err} is ${ratio.toFixed(2)}× the independent-plaquette error`);
    assert.ok(err >= 0.8 * (o.result.naiveError as number));
    assert.ok(Math.abs(o.value - exact) <= 3 * err + 5e-5, `β=${beta}: ${o.value} ± ${err} vs ${exact}`);
    assert.ok(Math.abs(besselI1OverI0(beta) - exact) < 5e-5);
    assert.equal(o.precision.withinBound, true);
  }
});

test('Metropolis updates reach the same plaquette as heat-bath', () => {
  const o = solve({ L: 16, beta: 2, method: 'metropolis', sweeps: 3000 }, 11);
  assert.ok(Math.abs(o.value - besselI1OverI0(2)) <= 3 * (o.result.error as number));
  const acc = o.result.acceptance as number;
  assert.ok(acc > 0.2 && acc < 0.9, `acceptance ${acc}`);
});

test('on a 4×4 torus at β = 5 the simulation resolves the finite-volume correction to I1/I0', () => {
  const exactTorus = torusPlaquette(5, 16);
  const infinite = besselI1OverI0(5);
  assert.ok(exactTorus - infinite > 0.005, 'the torus value differs visibly from the infinite-volume one');
  const o = solve({ L: 4, beta: 5, sweeps: 8000 }, 3);
  const err = o.result.error as number;
  assert.ok(Math.abs(o.value - exactTorus) <= 3 * err, `${o.value} ± ${err} vs torus ${exactTorus}`);
  assert.ok(Math.abs(o.value - infinite) > 3 * err, 'the infinite-volume value is excluded');
});

test('the torus formula tends to I1/I0 for large lattices and vanishes at β = 0', () => {
  for (const beta of [0.5, 1, 2, 8]) assert.ok(Math.abs(torusPlaquette(beta, 4096) - besselI1OverI0(beta)) < 1e-14);
  assert.equal(torusPlaquette(0, 16), 0);
  const o = solve({ L: 8, beta: 0, sweeps: 500 });
  assert.ok(Math.abs(o.value) <= 4 * (o.result.error as number));
});

test('weak coupling at β = 20 on 8×8 stays within 3 errors in the Q = 0 sector of the cold start', () => {
  const o = solve({ L: 8, beta: 20, sweeps: 2000 }, 2);
  assert.equal(o.result.topologicalCharge, 0);
  assert.ok(Math.abs(o.value - (o.result.exact as number)) <= 3 * (o.result.error as number));
});

test('the same input and seed give identical bits', () => {
  const a = solve({ L: 8, beta: 1.5, sweeps: 200 }, 9), b = solve({ L: 8, beta: 1.5, sweeps: 200 }, 9);
  assert.equal(a.value, b.value);
  assert.deepEqual(a.series, b.series);
  assert.notEqual(a.value, solve({ L: 8, beta: 1.5, sweeps: 200 }, 10).value);
});

test('bounds: L 4 to 64 by the schema; an oversized run is refused, not timed out', () => {
  for (const bad of [{ L: 3 }, { L: 65 }, { beta: -1 }, { sweeps: 10 }, { method: 'wolff' }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.throws(() => solve({ L: 64, sweeps: 200_000 }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
  // the refusal comes before any work, just above the cap of 1.2e8 link updates
  assert.throws(() => solve({ L: 64, sweeps: 14_500, therm: 200 }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
});

test('the binned error is honest: over 40 independent runs the spread of the means matches it', () => {
  for (const beta of [1, 2]) {
    const means: number[] = [], errs: number[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const o = solve({ L: 16, beta, sweeps: 320, therm: 50 }, 1000 + seed);
      means.push(o.value); errs.push(o.result.error as number);
    }
    const m = means.reduce((s, x) => s + x, 0) / means.length;
    const spread = Math.sqrt(means.reduce((s, x) => s + (x - m) ** 2, 0) / (means.length - 1));
    const meanErr = errs.reduce((s, x) => s + x, 0) / errs.length;
    // 40 runs estimate the spread to about 11 %
    assert.ok(spread / meanErr > 0.7 && spread / meanErr < 1.35, `β=${beta}: spread ${spread} vs reported ${meanErr}`);
    // and the grand mean sits on the exact value within its own error
    assert.ok(Math.abs(m - torusPlaquette(beta, 256)) < 3 * spread / Math.sqrt(40));
  }
});
