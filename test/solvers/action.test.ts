import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/action.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (body: Record<string, unknown>) => run(descriptor.input.parse(body), ctx);

test('Kepler e = 0.6 over 1,000 periods: order-4 energy drift < 1e-6 while RK4 at the same step drifts more', () => {
  // a = 1, mu = 1: period 2π; dt = 0.008 gives 785,398 steps (about a second for both integrators)
  const dt = 0.008;
  const steps = Math.round((1000 * 2 * Math.PI) / dt);
  const out = solve({ system: 'kepler', eccentricity: 0.6, order: 4, dt, steps, compare: true });
  const r = out.result as any;
  assert.ok(Math.abs(r.periods - 1000) < 1e-3, `periods ${r.periods}`);
  assert.ok(r.energyDrift < 1e-6, `order-4 drift ${r.energyDrift}`);
  // the bound holds at every step, not only at the end
  assert.ok(r.maxEnergyError < 1e-6, `order-4 max error ${r.maxEnergyError}`);
  assert.ok(r.rk4Drift > r.energyDrift, `RK4 ${r.rk4Drift} vs symplectic ${r.energyDrift}`);
  assert.ok(r.rk4Drift > 1e-6, `RK4 drift ${r.rk4Drift}`);
  // the exact orbit has E = −mu/(2a) = −0.5
  assert.ok(Math.abs(r.initialEnergy + 0.5) < 1e-15);
  assert.equal(out.value, r.finalEnergy);
  assert.ok(Math.abs(out.value + 0.5) < 1e-6);
  // a central force splitting conserves angular momentum to rounding
  assert.ok(r.angularMomentumDrift < 1e-10, `L drift ${r.angularMomentumDrift}`);
  assert.equal(out.precision.withinBound, true);
  assert.equal(out.precision.referenceValue, r.initialEnergy);
});

test('RK4 drift grows secularly with time while the symplectic error does not', () => {
  const dt = 0.02;
  const short = solve({ dt, steps: Math.round((50 * 2 * Math.PI) / dt) }).result as any;
  const long = solve({ dt, steps: Math.round((400 * 2 * Math.PI) / dt) }).result as any;
  // RK4 energy decays about linearly in time: 8x the periods gives several times the drift
  assert.ok(long.rk4Drift > 5 * short.rk4Drift, `rk4 ${short.rk4Drift} -> ${long.rk4Drift}`);
  // the order-4 maximum error over the run stays in the same band
  assert.ok(long.maxEnergyError < 1.5 * short.maxEnergyError, `sym ${short.maxEnergyError} -> ${long.maxEnergyError}`);
});

test('higher orders reduce the energy error at a fixed step (2 > 4 > 6 > 8)', () => {
  const errs = [2, 4, 6, 8].map((order) => (solve({ order, dt: 0.01, steps: 20_000, compare: false }).result as any).maxEnergyError);
  for (let i = 1; i < errs.length; i++) assert.ok(errs[i] < errs[i - 1], `orders: ${errs.join(', ')}`);
});

test('the Kepler orbit closes: after whole periods the position returns to periapsis', () => {
  const dt = 2 * Math.PI / 4000;
  const out = solve({ order: 6, dt, steps: 4000 * 5, eccentricity: 0.3, sample: 11, compare: false });
  const s = out.series!;
  const n = s.x.length;
  assert.ok(Math.abs(s.x[n - 1] - 0.7) < 1e-9 && Math.abs(s.y[n - 1]) < 1e-8, `end ${s.x[n - 1]}, ${s.y[n - 1]}`);
  assert.equal(n, 11);
  assert.equal(s.t.length, n);
});

test('oscillator: the symplectic solution tracks q = q0 cos(omega t) and the energy omega^2 q0^2 / 2', () => {
  const omega = 2, dt = 0.001, steps = 5000;
  const out = solve({ system: 'oscillator', omega, q0: 0.5, p0: 0, dt, steps, order: 8, sample: 21 });
  const s = out.series!;
  for (let i = 0; i < s.t.length; i++) assert.ok(Math.abs(s.q[i] - 0.5 * Math.cos(omega * s.t[i])) < 1e-12, `t=${s.t[i]}`);
  assert.ok(Math.abs(out.value - 0.5 * omega * omega * 0.25) < 1e-13);
});

test('pendulum: energy lambda(1 - cos q0) conserved and the large-amplitude period matches 4K(sin^2(q0/2))/sqrt(lambda)', async () => {
  const { ellipK } = await import('../../src/solvers/lib/elliptic.ts');
  const lambda = 4, q0 = 2;
  const T = (4 * ellipK(Math.sin(q0 / 2) ** 2)) / Math.sqrt(lambda);
  const steps = 20_000;
  const dt = T / steps; // one exact period
  const out = solve({ system: 'pendulum', lambda, q0, p0: 0, dt, steps, order: 6, sample: 3 });
  const r = out.result as any;
  assert.ok(Math.abs(r.initialEnergy - lambda * (1 - Math.cos(q0))) < 1e-14);
  assert.ok(r.energyDrift < 1e-12, `drift ${r.energyDrift}`);
  const s = out.series!;
  assert.ok(Math.abs(s.q[2] - q0) < 1e-9, `q after one period ${s.q[2]}`);
});

test('unstable step on the oscillator is refused with the stability number', () => {
  assert.throws(() => solve({ system: 'oscillator', omega: 10, dt: 0.2, order: 4 }), (e: unknown) =>
    e instanceof SvcError && e.code === 'UNSTABLE' && (e.details as any).stability.number === 2);
});

test('a Kepler step far too large blows up and is refused', () => {
  assert.throws(() => solve({ eccentricity: 0.98, dt: 0.5, steps: 2000, order: 2 }), (e: unknown) => e instanceof SvcError && e.code === 'UNSTABLE');
});

test('bounds: steps 10..2,000,000, sample 2..500, eccentricity 0..0.98, order in {2,4,6,8}', () => {
  const bad = [{ steps: 9 }, { steps: 2_000_001 }, { sample: 1 }, { sample: 501 }, { eccentricity: 0.99 }, { eccentricity: -0.1 },
    { order: 3 }, { dt: 0 }, { system: 'rigid-body' }, { mu: -1 }, { unknownField: 1 }];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  const ok = descriptor.input.parse({});
  assert.equal(ok.system, 'kepler'); assert.equal(ok.order, 4); assert.equal(ok.steps, 20_000);
  assert.equal(ok.dt, 0.01); assert.equal(ok.eccentricity, 0.6); assert.equal(ok.compare, true); assert.equal(ok.sample, 60);
});

test('q0/p0 shape must match the system', () => {
  assert.throws(() => solve({ system: 'kepler', q0: [1, 0] }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ system: 'oscillator', q0: [1, 0] }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
  const out = solve({ system: 'kepler', q0: [1, 0], p0: [0, 1], steps: 1000, compare: false });
  assert.ok(Math.abs((out.result as any).eccentricity) < 1e-12); // circular orbit
});

test('defaults run (20,000 steps, compare on) and the output is deterministic and finite', () => {
  const a = solve({}), b = solve({});
  assert.deepStrictEqual(a, b);
  assert.equal(a.series!.t.length, 60);
  assert.ok(Number.isFinite(a.value));
  assert.ok(typeof (a.result as any).rk4Drift === 'number');
});

test('runs when the engine has taken `sample` for its own downsampling: records the maximum, 500 points', () => {
  const { sample: _sample, ...rest } = descriptor.input.parse({ steps: 1000, compare: false });
  const out = run(rest as any, ctx);
  assert.equal(out.series!.t.length, 500);
  assert.equal(out.series!.t[499], 1000 * 0.01);
});
