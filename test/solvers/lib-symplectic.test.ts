import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compositionWeights, harmonicPropagatorTrace, harmonicStabilityLimit, splittingScheme, symplecticIntegrate,
  symplecticStep, symplecticWorkspace, type SeparableSystem, type SymplecticOrder,
} from '../../src/solvers/lib/symplectic.ts';

const ORDERS: SymplecticOrder[] = [2, 4, 6, 8];
const pendulum: SeparableSystem = { dim: 1, accel(q, out) { out[0] = -Math.sin(q[0]); } };
const oscillator: SeparableSystem = { dim: 1, accel(q, out) { out[0] = -q[0]; } };

test('composition weights are symmetric and sum to 1 (consistency), Yoshida order 4 is the triple jump', () => {
  for (const order of ORDERS) {
    const w = compositionWeights(order);
    let sum = 0;
    for (let i = 0; i < w.length; i++) { sum += w[i]; assert.equal(w[i], w[w.length - 1 - i]); }
    assert.ok(Math.abs(sum - 1) < 1e-14, `order ${order}: sum ${sum}`);
    assert.equal(w.length, { 2: 1, 4: 3, 6: 7, 8: 15 }[order]);
  }
  const w4 = compositionWeights(4);
  const x1 = 1 / (2 - Math.cbrt(2));
  assert.ok(Math.abs(w4[0] - x1) < 1e-15 && Math.abs(w4[1] - (1 - 2 * x1)) < 1e-15);
  // the fused scheme: kicks and drifts each sum to 1
  for (const order of ORDERS) {
    const s = splittingScheme(order);
    assert.ok(Math.abs(s.kick.reduce((a, b) => a + b, 0) - 1) < 1e-14);
    assert.ok(Math.abs(s.drift.reduce((a, b) => a + b, 0) - 1) < 1e-14);
  }
});

test('leapfrog step on the harmonic oscillator equals the exact Störmer-Verlet matrix', () => {
  const h = 0.3;
  const q = Float64Array.of(0.7), p = Float64Array.of(-0.2);
  symplecticStep(oscillator, q, p, h, splittingScheme(2), symplecticWorkspace(1));
  // KDK: p½ = p − h/2 q; q1 = q + h p½; p1 = p½ − h/2 q1
  const ph = -0.2 - 0.15 * 0.7, q1 = 0.7 + h * ph, p1 = ph - 0.15 * q1;
  assert.ok(Math.abs(q[0] - q1) < 1e-16 && Math.abs(p[0] - p1) < 1e-16);
});

function pendulumEnd(order: SymplecticOrder, h: number, T: number): number {
  const q = Float64Array.of(1), p = Float64Array.of(0);
  symplecticIntegrate(pendulum, q, p, h, Math.round(T / h), order);
  return q[0];
}

test('global error converges at the advertised order 2, 4, 6, 8 on the nonlinear pendulum', () => {
  const T = 10;
  const ref = pendulumEnd(8, 2.5e-3, T);
  for (const order of ORDERS) {
    const h = order === 8 ? 0.2 : 0.1;
    const e1 = Math.abs(pendulumEnd(order, h, T) - ref);
    const e2 = Math.abs(pendulumEnd(order, h / 2, T) - ref);
    const observed = Math.log2(e1 / e2);
    assert.ok(Math.abs(observed - order) < 0.35, `order ${order}: observed ${observed.toFixed(3)} (errors ${e1}, ${e2})`);
  }
});

test('the map is symplectic: the one-step Jacobian of the pendulum map has determinant 1', () => {
  for (const order of ORDERS) {
    const scheme = splittingScheme(order);
    const stepOf = (q0: number, p0: number) => {
      const q = Float64Array.of(q0), p = Float64Array.of(p0);
      symplecticStep(pendulum, q, p, 0.4, scheme, symplecticWorkspace(1));
      return [q[0], p[0]];
    };
    const e = 1e-6, q0 = 0.8, p0 = 0.3;
    const a = stepOf(q0 + e, p0), b = stepOf(q0 - e, p0), c = stepOf(q0, p0 + e), d = stepOf(q0, p0 - e);
    const J = [[(a[0] - b[0]) / (2 * e), (c[0] - d[0]) / (2 * e)], [(a[1] - b[1]) / (2 * e), (c[1] - d[1]) / (2 * e)]];
    const det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    assert.ok(Math.abs(det - 1) < 1e-8, `order ${order}: det ${det}`);
  }
});

test('energy error stays bounded (no secular drift) over 10^5 steps of the pendulum', () => {
  for (const order of ORDERS) {
    const q = Float64Array.of(2), p = Float64Array.of(0);
    const E = () => 0.5 * p[0] * p[0] + (1 - Math.cos(q[0]));
    const E0 = E();
    let maxEarly = 0, maxLate = 0;
    symplecticIntegrate(pendulum, q, p, 0.1, 100_000, order, (k) => {
      const err = Math.abs(E() - E0);
      if (k <= 10_000) maxEarly = Math.max(maxEarly, err); else if (k > 90_000) maxLate = Math.max(maxLate, err);
    });
    // the late error band is no wider than the early one (a secular drift would grow ~9x)
    assert.ok(maxLate <= 1.5 * maxEarly + 1e-15, `order ${order}: early ${maxEarly}, late ${maxLate}`);
  }
});

test('harmonic stability limit: 2 for leapfrog; the propagator trace crosses 2 exactly there', () => {
  assert.ok(Math.abs(harmonicStabilityLimit(2) - 2) < 1e-9);
  for (const order of ORDERS) {
    const lim = harmonicStabilityLimit(order);
    assert.ok(lim > 1 && lim < 3, `order ${order}: ${lim}`);
    assert.ok(Math.abs(harmonicPropagatorTrace(order, lim * 0.999)) < 2);
    assert.ok(Math.abs(harmonicPropagatorTrace(order, lim * 1.001)) >= 2 - 1e-9);
    // beyond the limit an actual run grows like ρ^n, ρ = (|tr| + √(tr² − 4))/2 the spectral radius
    // (the first unstable band can be narrow: take the most unstable point just past the limit)
    let x = lim, tr = 0;
    for (let k = 1; k <= 200; k++) {
      const xi = lim * (1 + 2.5e-4 * k), ti = Math.abs(harmonicPropagatorTrace(order, xi));
      if (ti > tr) { tr = ti; x = xi; }
    }
    const rho = (tr + Math.sqrt(tr * tr - 4)) / 2;
    const steps = Math.ceil(Math.log(1e6) / Math.log(rho));
    assert.ok(steps < 1e5, `order ${order}: growth too slow (rho ${rho})`);
    const q = Float64Array.of(1), p = Float64Array.of(0);
    symplecticIntegrate(oscillator, q, p, x, steps, order);
    assert.ok(Math.abs(q[0]) + Math.abs(p[0]) > 1e3, `order ${order} should blow up past its limit`);
  }
  // leapfrog trace is 2 − h²ω² (exact)
  assert.ok(Math.abs(harmonicPropagatorTrace(2, 0.7) - (2 - 0.49)) < 1e-15);
});

test('integration is deterministic to the bit', () => {
  const run = () => { const q = Float64Array.of(1.1), p = Float64Array.of(0.4); symplecticIntegrate(pendulum, q, p, 0.05, 5000, 6); return [q[0], p[0]]; };
  assert.deepStrictEqual(run(), run());
});
