import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, G_NEWTON } from '../../src/solvers/multibody.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (body: Record<string, unknown>) => run(descriptor.input.parse({ prompt: 'test', ...body }), ctx);

/** two bodies on an ellipse of semi-major axis a and eccentricity e, starting at periapsis, centre of mass at rest */
function binary(m1: number, m2: number, a: number, e: number, dim: 2 | 3 = 2) {
  const mu = G_NEWTON * (m1 + m2);
  const rp = a * (1 - e), vp = Math.sqrt((mu * (1 + e)) / rp);
  const f1 = m2 / (m1 + m2), f2 = m1 / (m1 + m2);
  const v = (x: number, y: number) => (dim === 3 ? [x, y, 0] : [x, y]);
  return {
    bodies: [
      { mass: m1, position: v(-rp * f1, 0), velocity: v(0, -vp * f1) },
      { mass: m2, position: v(rp * f2, 0), velocity: v(0, vp * f2) },
    ],
    period: 2 * Math.PI * Math.sqrt(a ** 3 / mu),
  };
}

test('two-body orbit: the measured period matches Kepler\'s third law (Earth-Moon, circular)', () => {
  const { bodies, period } = binary(5.972e24, 7.342e22, 3.844e8, 0);
  const out = solve({ bodies, tMax: 1.25 * period, dt: period / 2000 });
  const k = (out.result as any).kepler;
  assert.ok(Math.abs(period - 27.28 * 86400) / period < 0.01, 'the test orbit is the sidereal month');
  assert.ok(Math.abs(k.periodMeasured - period) / period < 1e-7, `measured ${k.periodMeasured} vs Kepler ${period}`);
  assert.ok(Math.abs(k.semiMajorAxis - 3.844e8) / 3.844e8 < 1e-9);
  assert.ok(k.periodErrorPct < 1e-5);
});

test('eccentric 3-D binary (e = 0.7): Kepler period, energy drift and momentum drift', () => {
  const { bodies, period } = binary(2e30, 6e29, 1.5e11, 0.7, 3);
  const out = solve({ bodies, tMax: 1.1 * period, dt: period / 8000 });
  const r = out.result as any;
  assert.equal(r.mode, 'gravity');
  assert.ok(Math.abs(r.kepler.periodMeasured - period) / period < 1e-6, `${r.kepler.periodMeasured} vs ${period}`);
  assert.ok(Math.abs(r.kepler.eccentricity - 0.7) < 1e-9);
  assert.ok(r.energyDrift < 1e-7, `energy drift ${r.energyDrift}`);
  assert.ok(r.momentumDrift < 1e-12, `momentum drift ${r.momentumDrift}`);
  // value is the total energy, −G m1 m2 / (2a)
  const E = -(G_NEWTON * 2e30 * 6e29) / (2 * 1.5e11);
  assert.ok(Math.abs(out.value - E) / Math.abs(E) < 1e-7);
  assert.equal(out.precision.withinBound, true);
  assert.equal(r.positions[0].length, 3);
});

test('period scales as a^(3/2): doubling the orbit multiplies the measured period by 2^(3/2)', () => {
  const a = binary(1e24, 1e22, 1e7, 0.3), b = binary(1e24, 1e22, 2e7, 0.3);
  const pa = (solve({ bodies: a.bodies, tMax: 1.1 * a.period, dt: a.period / 3000 }).result as any).kepler.periodMeasured;
  const pb = (solve({ bodies: b.bodies, tMax: 1.1 * b.period, dt: b.period / 3000 }).result as any).kepler.periodMeasured;
  assert.ok(Math.abs(pb / pa - 2 ** 1.5) < 1e-7, `${pb / pa}`);
});

test('a gravitational 5-body system conserves energy and momentum; defaults pick one tight-pair period', () => {
  const bodies = [
    { mass: 1e25, position: [0, 0], velocity: [0, 0] },
    { mass: 1e22, position: [2e7, 0], velocity: [0, 5000] },
    { mass: 2e22, position: [0, -3e7], velocity: [4000, 0] },
    { mass: 5e21, position: [-4e7, 1e6], velocity: [0, -3500] },
    { mass: 1e21, position: [0, 5e7, 1e6], velocity: [-3000, 0, 10] },
  ];
  const out = solve({ bodies });
  const r = out.result as any;
  assert.ok(r.steps >= 2000 && r.steps <= 2001, `steps ${r.steps}`);
  assert.ok(r.energyDrift < 1e-8, `energy drift ${r.energyDrift}`);
  assert.ok(r.momentumDrift < 1e-12, `momentum drift ${r.momentumDrift}`);
  assert.equal(r.kepler, null);
  assert.equal(out.series!.t.length, out.series!.energy.length);
  assert.ok('z4' in out.series!);
});

test('softening: the potential uses sqrt(r^2 + eps^2), so two bodies at rest 1 m apart with eps = 1 m have U = -G m1 m2 / sqrt(2)', () => {
  const out = solve({ bodies: [{ mass: 1000, position: [0, 0] }, { mass: 2000, position: [1, 0] }], pairwiseSoftening: 1, tMax: 1, dt: 0.01 });
  const r = out.result as any;
  assert.ok(Math.abs(r.initialEnergy + (G_NEWTON * 2e6) / Math.SQRT2) < 1e-20);
  assert.ok(r.energyDrift < 1e-10);
});

test('coincident bodies without softening are refused; too many steps are refused naming the limit', () => {
  assert.throws(() => solve({ bodies: [{ mass: 1, position: [0, 0] }, { mass: 1, position: [0, 0] }], pairwiseSoftening: 0 }),
    (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ bodies: [{ mass: 1 }, { mass: 1 }], tMax: 1e5, dt: 0.01 }),
    (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT' && /1000000/.test(e.message));
});

test('oscillators: two equal coupled pendulums without modulation follow the exact normal-mode solution', () => {
  const out = solve({ bodies: [{ mass: 2 }, { mass: 2 }], alpha: 0, beta: 0, pairwiseCoupling: 0.1, tMax: 20, dt: 0.005 });
  const r = out.result as any;
  assert.equal(r.mode, 'oscillators');
  const W = Math.sqrt(9.80665 * (1 - 1.225 / 7850)); // 1 m pendulum, buoyant gravity in air
  const Kc = 0.1 * 2 * W * W; // K = c·(mΩ² + mΩ²)/2
  const w1 = W, w2 = Math.sqrt(W * W + (2 * Kc) / 2);
  const s = out.series!;
  // (RK4 phase error at dt = 0.005 over 20 s is ~2e-8)
  for (let i = 0; i < s.t.length; i += 25) {
    const t = s.t[i];
    assert.ok(Math.abs(s.phi0[i] - 0.5 * (Math.cos(w1 * t) + Math.cos(w2 * t))) < 1e-7, `phi0 at ${t}`);
    assert.ok(Math.abs(s.phi1[i] - 0.5 * (Math.cos(w1 * t) - Math.cos(w2 * t))) < 1e-7, `phi1 at ${t}`);
  }
  // energy E = ½mΩ²φ0² + ½K(φ0 − φ1)² with φ0(0) = 1, φ1(0) = 0, conserved
  assert.ok(Math.abs(r.initialEnergy - (0.5 * 2 * W * W + 0.5 * Kc)) < 1e-12);
  assert.ok(r.energyDrift < 1e-8, `${r.energyDrift}`);
});

test('oscillators with the KO42 modulation: H - W and P - J stay invariant although H itself changes', () => {
  const out = solve({
    bodies: [{ mass: 1, location: 'mars' }, { mass: 2, phi0: -0.5 }, { mass: 3, location: 'jupiter', medium: 'water' }, { mass: 1, dphi0: 1 }],
    alpha: 2000, beta: 0.1, koSettings: { A: 1, B: 0.5 }, tMax: 20,
  });
  const r = out.result as any;
  assert.ok(Math.abs(r.finalEnergy - r.initialEnergy) / r.initialEnergy > 1e-3, 'the modulation does work on the system');
  assert.ok(Math.abs(r.modulationWork) > 0);
  assert.ok(r.energyDrift < 1e-6, `invariant drift ${r.energyDrift}`);
  assert.ok(r.momentumDrift < 1e-9, `momentum balance ${r.momentumDrift}`);
  assert.equal(out.value, r.finalEnergy);
  assert.deepEqual(Object.keys(r.modulation.weights), ['KO42-tensioned', 'A', 'B']);
});

test('bounds: 2..16 bodies, mass required and positive, positions of 2 or 3 numbers, prompt required', () => {
  const body = { mass: 1 };
  const bad = [
    { prompt: 'x', bodies: [body] },
    { prompt: 'x', bodies: Array(17).fill(body) },
    { prompt: 'x', bodies: [{}, body] },
    { prompt: 'x', bodies: [{ mass: 0 }, body] },
    { prompt: 'x', bodies: [{ mass: 1, position: [1] }, body] },
    { prompt: 'x', bodies: [{ mass: 1, position: [1, 2, 3, 4] }, body] },
    { bodies: [body, body] },
    { prompt: 'x'.repeat(501), bodies: [body, body] },
    { prompt: 'x', bodies: [body, body], pairwiseCoupling: -1 },
    { prompt: 'x', bodies: [body, body], dt: 0 },
    { prompt: 'x', bodies: [{ mass: 1, spin: 2 }, body] },
  ];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b).slice(0, 80));
  const ok = descriptor.input.parse({ prompt: 'x', bodies: Array(16).fill(body) });
  assert.equal(ok.pairwiseCoupling, 0.05);
  // the softening is a gravity-mode default: filled in where every body has a position (issue 18)
  assert.equal(ok.pairwiseSoftening, undefined);
  assert.equal(descriptor.input.parse({ prompt: 'x', bodies: Array(16).fill({ ...body, position: [0, 0] }) }).pairwiseSoftening, 1e-6);
});

test('same input gives identical bits', () => {
  const { bodies, period } = binary(1e24, 3e23, 1e7, 0.4);
  const body = { bodies, tMax: period, dt: period / 1000 };
  assert.deepStrictEqual(solve(body), solve(body));
  const osc = { bodies: [{ mass: 1 }, { mass: 2 }, { mass: 3 }], koSettings: { X: 2 } };
  assert.deepStrictEqual(solve(osc), solve(osc));
});
