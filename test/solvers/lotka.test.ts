import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/lotka.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const V = (x: number, y: number, a: number, b: number, g: number, d: number) => d * x - g * Math.log(x) + b * y - a * Math.log(y);

test('the first integral is conserved: value matches its initial value within the 0.1 % bound', () => {
  const out = solve({});
  const V0 = V(10, 10, 1.1, 0.4, 0.4, 0.1);
  assert.equal(out.precision.referenceValue, V0);
  assert.ok(Math.abs(out.value - V0) / Math.abs(V0) < 1e-5, `${out.value} vs ${V0}`);
  assert.ok(out.precision.withinBound);
  assert.equal(out.result.drift, out.value - V0);
});

test('RK4 drift falls as h^4 (halving dt cuts it about 16x)', () => {
  const a = solve({ dt: 0.02, tMax: 200 });
  const b = solve({ dt: 0.01, tMax: 200 });
  const ratio = Math.abs(a.result.drift as number) / Math.abs(b.result.drift as number);
  assert.ok(ratio > 12 && ratio < 20, `ratio ${ratio}`);
});

test('the symplectic scheme has no secular drift: over 5000 time units it beats RK4 by orders of magnitude', () => {
  const rk = solve({ tMax: 5000, dt: 0.02 });
  const sy = solve({ tMax: 5000, dt: 0.02, method: 'symplectic' });
  assert.equal(sy.method, 'symplectic');
  const dRk = Math.abs(rk.result.driftRelative as number), dSy = Math.abs(sy.result.driftRelative as number);
  assert.ok(dSy < 1e-6, `symplectic ${dSy}`);
  assert.ok(dRk > 100 * dSy, `rk4 ${dRk} vs symplectic ${dSy}`);
  // bounded: the largest excursion of the symplectic error stays small too
  assert.ok((sy.result.maxDeviation as number) < 1e-5);
});

test('small oscillations about the equilibrium have period 2π/√(αγ)', () => {
  const alpha = 1.1, beta = 0.4, gamma = 0.4, delta = 0.1;
  const out = solve({ x0: 1.002 * gamma / delta, y0: alpha / beta, tMax: 200, dt: 0.005 });
  const T = out.result.period as number;
  const ref = 2 * Math.PI / Math.sqrt(alpha * gamma);
  assert.ok(Math.abs(T - ref) / ref < 1e-4, `${T} vs ${ref}`);
  assert.deepEqual(out.result.equilibrium, { x: 4, y: 2.75 });
});

test('large orbits are slower than the linear period and populations stay positive', () => {
  const out = solve({ x0: 40, y0: 1, tMax: 300 });
  assert.ok((out.result.period as number) > (out.result.smallAmplitudePeriod as number) * 1.2);
  const [xmin] = out.result.xRange as number[];
  assert.ok(xmin > 0);
});

test('a step far too large is refused as UNSTABLE', () => {
  assert.throws(() => solve({ alpha: 20, beta: 20, gamma: 20, delta: 20, dt: 0.5, tMax: 50 }),
    (e: unknown) => e instanceof SvcError && e.code === 'UNSTABLE');
});

test('same input gives identical bits', () => {
  assert.deepEqual(solve({ method: 'symplectic' }), solve({ method: 'symplectic' }));
});

test('bounds: out-of-range fields are refused by the schema', () => {
  for (const b of [{ dt: 0 }, { dt: 2 }, { x0: -1 }, { y0: 0 }, { alpha: -1 }, { tMax: 1e5, dt: 1e-3 }, { method: 'euler' }, { steps: 10 }]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
  const r = descriptor.input.safeParse({ tMax: 1e5, dt: 1e-3 });
  assert.ok(!r.success && /at most 5000000 steps/.test(r.error.issues[0].message));
});

test('descriptor carries at least 8 examples and a vocabulary', () => {
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.includes('predator'));
  assert.deepEqual(descriptor.operators, ['KO42', 'CELL_GROWTH']);
  assert.equal(descriptor.unit, 'T');
});
