// gauge: 2-D compact U(1) Monte Carlo against the exact plaquette.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, torusPlaquette } from '../../src/solvers/gauge.ts';
import { besselI1OverI0 } from '../../src/solvers/lib/special.ts';
import { SolverRefusal } from '../../src/solvers/types.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });

test('acceptance: β = 1 and β = 2 on 16×16 are within 3 statistical errors of 0.4464 and 0.6978', () => {
  for (const [beta, exact] of [[1, 0.4464], [2, 0.6978]]) {
    const o = solve({ L: 16, beta });
    const err = o.result.error as number;
    assert.ok(err > 1e-4 && err < 5e-3, `error ${err}`);
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
  assert.throws(() => solve({ L: 64, sweeps: 200_000 }), (e: unknown) => e instanceof SolverRefusal && e.code === 'INVALID_INPUT');
});
