// The classical RK4 of src/solvers/lib/ode.ts, on its own: exact on polynomials of degree <= 3 in t
// (the quadrature of y' = f(t) is Simpson's rule), the Taylor series of e^{h} through h^4 for
// y' = y, global order 4 on nonlinear problems with known solutions, the analytic stability
// boundary on the real axis, and in-place use without allocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rk4Step, rk4Workspace, rk4Integrate, type Deriv } from '../../src/solvers/lib/ode.ts';

const ws1 = rk4Workspace(1);

test('y\' = f(t) is integrated by Simpson\'s rule: exact for polynomials up to degree 3, not for t^4', () => {
  // ∫_0^h p(t) dt for p = 1 + 2t - 3t^2 + 4t^3
  const f: Deriv = (t, _y, out) => { out[0] = 1 + 2 * t - 3 * t * t + 4 * t * t * t; };
  for (const h of [0.1, 0.7, 2]) {
    const y = Float64Array.of(0.25);
    rk4Step(f, 0, y, h, ws1);
    const exact = 0.25 + h + h * h - h ** 3 + h ** 4;
    assert.ok(Math.abs(y[0] - exact) < 1e-14 * Math.max(1, Math.abs(exact)), `h=${h}: ${y[0]} vs ${exact}`);
  }
  // t^4 is the first power Simpson's rule misses
  const g: Deriv = (t, _y, out) => { out[0] = t ** 4; };
  const y = Float64Array.of(0);
  rk4Step(g, 0, y, 1, ws1);
  // Simpson on [0, 1]: (0 + 4·(1/2)^4 + 1)/6 = 5/24, exact 1/5
  assert.ok(Math.abs(y[0] - 5 / 24) < 1e-15, `${y[0]}`);
});

test('one step of y\' = y is the Taylor polynomial 1 + h + h^2/2 + h^3/6 + h^4/24', () => {
  const f: Deriv = (_t, y, out) => { out[0] = y[0]; };
  for (const h of [0.01, 0.3, -0.5, 1.5]) {
    const y = Float64Array.of(1);
    rk4Step(f, 0, y, h, ws1);
    const taylor = 1 + h + h * h / 2 + h ** 3 / 6 + h ** 4 / 24;
    assert.ok(Math.abs(y[0] - taylor) < 1e-15 * Math.max(1, taylor), `h=${h}`);
  }
});

test('global error is fourth order on nonlinear problems with closed-form solutions', () => {
  // Riccati y' = 1 + y^2, y(0) = 0: y = tan t, on [0, 0.8]
  const riccati: Deriv = (_t, y, out) => { out[0] = 1 + y[0] * y[0]; };
  // non-autonomous y' = -2 t y^2, y(0) = 1: y = 1/(1 + t^2), on [0, 2]
  const nonAuto: Deriv = (t, y, out) => { out[0] = -2 * t * y[0] * y[0]; };
  // a 2-D system: the harmonic oscillator q' = p, p' = -q, on [0, 10]
  const osc: Deriv = (_t, y, out) => { out[0] = y[1]; out[1] = -y[0]; };
  const cases: { f: Deriv; y0: number[]; T: number; exact: number[] }[] = [
    { f: riccati, y0: [0], T: 0.8, exact: [Math.tan(0.8)] },
    { f: nonAuto, y0: [1], T: 2, exact: [1 / 5] },
    { f: osc, y0: [1, 0], T: 10, exact: [Math.cos(10), -Math.sin(10)] },
  ];
  for (const c of cases) {
    const err = (n: number) => {
      const y = Float64Array.from(c.y0);
      rk4Integrate(c.f, 0, y, c.T / n, n);
      return Math.max(...c.exact.map((e, i) => Math.abs(y[i] - e)));
    };
    const e1 = err(100), e2 = err(200), e3 = err(400);
    const p1 = Math.log2(e1 / e2), p2 = Math.log2(e2 / e3);
    assert.ok(p1 > 3.85 && p1 < 4.15 && p2 > 3.85 && p2 < 4.15, `observed orders ${p1}, ${p2}`);
    assert.ok(e3 < 1e-7, `error ${e3}`);
  }
});

test('linear stability: the amplification factor is the degree-4 Taylor polynomial, |R(z)| = 1 at z = -2.7853', () => {
  const R = (z: number) => 1 + z + z * z / 2 + z ** 3 / 6 + z ** 4 / 24;
  // the real-axis boundary, by bisection on |R(z)| = 1 (R is positive on the real axis)
  let lo = -3, hi = -2;
  for (let i = 0; i < 200; i++) {
    const mid = 0.5 * (lo + hi);
    if (Math.abs(R(mid)) > 1) lo = mid; else hi = mid;
  }
  assert.ok(Math.abs(lo - -2.785293563405282) < 1e-12, `${lo}`);
  const lambda = -1;
  const f: Deriv = (_t, y, out) => { out[0] = lambda * y[0]; };
  const grow = (h: number) => {
    const y = Float64Array.of(1);
    rk4Integrate(f, 0, y, h, 400);
    return Math.abs(y[0]);
  };
  assert.ok(grow(2.7) < 1e-3, 'inside the interval the solution decays');
  assert.ok(grow(2.9) > 1e3, 'past it the numerical solution grows');
  // on the imaginary axis the boundary is 2√2: |R(i·2√2)| = 1 exactly
  const osc: Deriv = (_t, y, out) => { out[0] = y[1]; out[1] = -y[0]; };
  const amp = (h: number) => {
    const y = Float64Array.of(1, 0);
    rk4Integrate(osc, 0, y, h, 2000);
    return Math.hypot(y[0], y[1]);
  };
  assert.ok(amp(2.8) < 1, 'just inside 2√2 the oscillator decays');
  assert.ok(amp(2.86) > 1, 'just outside 2√2 it grows');
});

test('rk4Integrate observes every step at t0 + k·h and leaves the state in place; the step is deterministic', () => {
  const f: Deriv = (t, y, out) => { out[0] = Math.sin(t) * y[1]; out[1] = -y[0]; };
  const y = Float64Array.of(0.3, -0.2);
  const seen: number[] = [];
  const same = rk4Integrate(f, 1, y, 0.125, 8, (t, yy, k) => { seen.push(t); assert.equal(yy, y); assert.equal(t, 1 + k * 0.125); });
  assert.equal(same, y);
  assert.equal(seen.length, 8);
  const again = Float64Array.of(0.3, -0.2);
  const ws = rk4Workspace(2);
  for (let k = 0; k < 8; k++) rk4Step(f, 1 + k * 0.125, again, 0.125, ws);
  assert.ok(Object.is(again[0], y[0]) && Object.is(again[1], y[1]));
});
