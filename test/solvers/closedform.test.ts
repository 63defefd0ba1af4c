import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as closedform from '../../src/solvers/closedform.ts';
import { SvcError } from '../../src/core/errors.ts';
import { ellipK } from '../../src/solvers/lib/elliptic.ts';

const { descriptor, run } = closedform;
const ctx = { seed: 1, progress() {} };
const solve = (body: Record<string, unknown>) => run(descriptor.input.parse(body), ctx);
const refusedWith = (code: string, re?: RegExp) => (e: unknown) =>
  e instanceof SvcError && e.code === code && (!re || re.test(e.message));

test('Duffing (hardening, mu2 < 0, lambda < 0) matches its RK4 cross-check to 1e-6', () => {
  const out = solve({ mu2_eff: -1, lambda_eff: -1, phi0: 1, dphi0: 0.3, tEnd: 25 });
  const r = out.result as any;
  assert.equal(r.branch, 'duffing');
  assert.equal(r.elliptic.function, 'cn');
  assert.equal(r.elliptic.case, 'hardening');
  const rel = Math.abs(out.value - r.rk4.phi) / r.crossCheckScale;
  assert.ok(rel < 1e-6, `relative difference ${rel}`);
  assert.ok(out.precision.errorPct < 1e-4 && out.precision.withinBound);
  assert.equal(r.t_end, 25);
  assert.equal(out.value, r.phi);
});

test('Duffing closed form conserves the energy v^2/2 - mu2 phi^2/2 - lambda phi^4/4 and has period 4K(m)/omega', () => {
  const mu = -2, lam = -0.5, phi0 = 1.5;
  const E0 = -0.5 * mu * phi0 ** 2 - 0.25 * lam * phi0 ** 4;
  for (const tEnd of [0.3, 1.7, 4.2, 9.9]) {
    const r = solve({ mu2_eff: mu, lambda_eff: lam, phi0, dphi0: 0, tEnd }).result as any;
    const E = 0.5 * r.dphi ** 2 - 0.5 * mu * r.phi ** 2 - 0.25 * lam * r.phi ** 4;
    assert.ok(Math.abs(E - E0) < 1e-12 * E0, `t=${tEnd}: ${E} vs ${E0}`);
  }
  // independent period: released from rest at A, ω² = −mu − lam·A², m = −lam·A²/(2ω²)
  const w2 = -mu - lam * phi0 ** 2, m = (-lam * phi0 ** 2) / (2 * w2);
  const T = (4 * ellipK(m)) / Math.sqrt(w2);
  const r = solve({ mu2_eff: mu, lambda_eff: lam, phi0, tEnd: 3 * T }).result as any;
  assert.ok(Math.abs(r.phi - phi0) < 1e-12, `phi(3T) = ${r.phi}`);
  assert.ok(Math.abs(r.elliptic.period - T) < 1e-12);
});

test('every bounded Duffing case (cn over the hump, dn in a well, sn below the barrier, pure cubic) matches RK4 to 1e-6', () => {
  const cases = [
    { body: { mu2_eff: 1, lambda_eff: -1, phi0: 1.6, dphi0: 0.3, tEnd: 20 }, fn: 'cn' },
    { body: { mu2_eff: 1, lambda_eff: -1, phi0: 0.5, dphi0: 0, tEnd: 20 }, fn: 'dn' },
    { body: { mu2_eff: 1, lambda_eff: -1, phi0: -0.5, dphi0: 0.2, tEnd: 20 }, fn: 'dn' },
    { body: { mu2_eff: 1, lambda_eff: -1, phi0: 0.9, dphi0: -0.4, tEnd: 20 }, fn: 'dn' },
    { body: { mu2_eff: -1, lambda_eff: 0.2, phi0: 1, dphi0: -0.5, tEnd: 30 }, fn: 'sn' },
    { body: { mu2_eff: -1, lambda_eff: 0.2, phi0: -1.2, dphi0: 0.1, tEnd: 30 }, fn: 'sn' },
    { body: { mu2_eff: 0, lambda_eff: -2, phi0: 1, dphi0: 0, tEnd: 20 }, fn: 'cn' },
    { body: { mu2_eff: -3, lambda_eff: -3, phi0: 0, dphi0: 2, tEnd: 15 }, fn: 'cn' },
  ];
  for (const { body, fn } of cases) {
    const out = solve(body);
    const r = out.result as any;
    assert.equal(r.elliptic.function, fn, JSON.stringify(body));
    const rel = Math.abs(out.value - r.rk4.phi) / r.crossCheckScale;
    assert.ok(rel < 1e-6, `${JSON.stringify(body)}: ${rel}`);
    // the closed form's derivative also agrees
    assert.ok(Math.abs(r.dphi - r.rk4.dphi) < 1e-6 * Math.max(1, Math.abs(r.dphi)), `${JSON.stringify(body)}: dphi`);
  }
});

test('unbounded Duffing cases are refused clearly: escape over the barrier, mu2 >= 0 with lambda > 0, and F with lambda', () => {
  assert.throws(() => solve({ mu2_eff: -1, lambda_eff: 1, phi0: 1.2 }), refusedWith('INVALID_INPUT', /barrier/));
  assert.throws(() => solve({ mu2_eff: -1, lambda_eff: 1, phi0: 0, dphi0: 1 }), refusedWith('INVALID_INPUT', /barrier/));
  assert.throws(() => solve({ mu2_eff: 1, lambda_eff: 1, phi0: 0.1 }), refusedWith('INVALID_INPUT', /finite time/));
  assert.throws(() => solve({ mu2_eff: 0, lambda_eff: 1, phi0: 0.1 }), refusedWith('INVALID_INPUT', /finite time/));
  assert.throws(() => solve({ mu2_eff: -1, lambda_eff: -1, F_eff: 1 }), refusedWith('INVALID_INPUT', /F_eff/));
});

test('shapes phi^2, sqrt and exp are refused by name (SHAPE_REFUSED); an unknown shape is invalid input', () => {
  for (const shape of ['phi^2', 'sqrt', 'exp']) {
    assert.throws(() => solve({ operators: [{ id: 'KO42' }, { id: 'X1', shape }] }),
      (e: unknown) => e instanceof SvcError && e.code === 'SHAPE_REFUSED' && e.message.includes(shape) && (e.details as any).shape === shape);
  }
  assert.throws(() => solve({ operators: [{ id: 'X1', shape: 'Phi ^ 2' }] }), refusedWith('SHAPE_REFUSED', /phi\^2/));
  assert.throws(() => solve({ operators: [{ id: 'X1', shape: 'tanh' }] }), refusedWith('INVALID_INPUT', /unknown shape/));
});

test('shaped operators and couplings add to the coefficients; compile.scale multiplies them', () => {
  const a = solve({ mu2_eff: -1, operators: [{ id: 'CUBIC', shape: 'phi^3', weight: -0.5 }], phi0: 1 }).result as any;
  assert.equal(a.branch, 'duffing');
  assert.equal(a.coefficients.lambda, -0.5);
  const b = solve({ mu2_eff: -1, couplings: [{ target: 'mu2', value: -3 }, { target: 'F', value: 2 }] }).result as any;
  assert.equal(b.coefficients.mu2, -4);
  assert.equal(b.coefficients.F, 2);
  assert.equal(b.branch, 'driven');
  const c = solve({ mu2_eff: -1, lambda_eff: -1, compile: { scale: 3 } }).result as any;
  assert.deepEqual([c.coefficients.mu2, c.coefficients.lambda, c.coefficients.scale], [-3, -3, 3]);
});

test('compile.scale s rescales time: phi_s(t) = phi_1(sqrt(s) t) on the unperturbed Duffing branch', () => {
  const base = { mu2_eff: -1, lambda_eff: -2, phi0: 0.7, dphi0: 0.4 };
  const one = solve({ ...base, tEnd: 6 });
  // velocity scales with √s, so give the scaled run dphi0·√s to follow the same path
  const four = solve({ ...base, dphi0: 0.8, compile: { scale: 4 }, tEnd: 3 });
  assert.ok(Math.abs(one.value - four.value) < 1e-12, `${one.value} vs ${four.value}`);
});

test('linear branches: exact without KO42 modulation, first-order KO42 correction leaves only an O(eps^2) difference', () => {
  // KO42 weight 0: pure harmonic closed form
  const off = solve({ mu2_eff: -4, phi0: 1, dphi0: 1, tEnd: 7, operators: [{ id: 'KO42', weight: 0 }] });
  const exact = Math.cos(14) + 0.5 * Math.sin(14);
  assert.ok(Math.abs(off.value - exact) < 1e-14);
  assert.ok(Math.abs((off.result as any).rk4.phi - exact) < 1e-9);
  // with the modulation, the first-order term captures the effect: RK4 of the full equation is far
  // closer to φ⁰ + εφ¹ than to φ⁰, and the residual scales as the square of the KO42 weight
  const w1 = solve({ mu2_eff: -4, phi0: 1, dphi0: 1, tEnd: 7 }).result as any;
  const w2 = solve({ mu2_eff: -4, phi0: 1, dphi0: 1, tEnd: 7, operators: [{ id: 'KO42', weight: 2 }] }).result as any;
  const d1 = Math.abs(w1.phi - w1.rk4.phi), d2 = Math.abs(w2.phi - w2.rk4.phi);
  assert.ok(Math.abs(w1.rk4.phi - w1.unperturbedPhi) > 50 * d1, `first-order: ${Math.abs(w1.rk4.phi - w1.unperturbedPhi)} vs ${d1}`);
  const ratio = d2 / d1;
  assert.ok(ratio > 3.5 && ratio < 4.5, `second-order residual ratio ${ratio}`);
});

test('uniform acceleration: the first-order KO42 term is exact (the force does not depend on phi)', () => {
  const out = solve({ mu2_eff: 0, lambda_eff: 0, F_eff: 9.81, phi0: 0, dphi0: 0, tEnd: 3 });
  const r = out.result as any;
  assert.equal(r.branch, 'uniform-accel');
  // φ = F t²/2 + εF (t/Ω − sin Ωt/Ω²)
  const eps = 1.29e-3, W = 2 * Math.PI * 1.287, t = 3, F = 9.81;
  const exact = 0.5 * F * t * t + eps * F * (t / W - Math.sin(W * t) / (W * W));
  assert.ok(Math.abs(out.value - exact) < 1e-12 * exact, `${out.value} vs ${exact}`);
  assert.ok(Math.abs(out.value - r.rk4.phi) < 1e-9 * exact);
});

test('free, hyperbolic and driven branches agree with the RK4 cross-check within 1e-5 relative', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ mu2_eff: 0, F_eff: 0, phi0: 1, dphi0: 2, tEnd: 10 }, 'free'],
    [{ mu2_eff: 0.5, phi0: 0.1, dphi0: 0.2, tEnd: 5 }, 'hyperbolic'],
    [{ mu2_eff: -1, F_eff: 2, tEnd: 5 }, 'driven'],
    [{ mu2_eff: 2, F_eff: -1, phi0: 0.3, tEnd: 4 }, 'driven'],
    [{}, 'harmonic'],
  ];
  for (const [body, branch] of cases) {
    const out = solve(body);
    assert.equal((out.result as any).branch, branch);
    assert.ok(out.precision.errorPct < 1e-3, `${branch}: ${out.precision.errorPct}`);
  }
  const free = solve({ mu2_eff: 0, F_eff: 0, phi0: 1, dphi0: 2, tEnd: 10 });
  assert.equal(free.value, 21);
  // driven about p = −F/mu2 = 2 (harmonic kind), from φ0 = 1 at rest: φ = 2 − cos t
  const driven = solve({ mu2_eff: -1, F_eff: 2, tEnd: 5, operators: [{ id: 'KO42', weight: 0 }] });
  assert.ok(Math.abs(driven.value - (2 - Math.cos(5))) < 1e-14);
});

test('parametric resonance omega = Omega/2 is handled by the secular term', () => {
  const W = 2 * Math.PI * 1.287;
  const out = solve({ mu2_eff: -((W / 2) ** 2), phi0: 1, tEnd: 20 });
  const r = out.result as any;
  assert.equal(r.ko42.resonance, true);
  // first order in ε: the residual against the full equation is O((ε·Ω·t)²) ≈ 1e-3 at most here
  assert.ok(out.precision.errorPct < 0.1, `${out.precision.errorPct}`);
  assert.ok(Math.abs(r.rk4.phi - r.unperturbedPhi) > 5 * Math.abs(r.phi - r.rk4.phi));
});

test('inputs merge under the top-level fields; an unknown inputs key is refused listing the accepted ones', () => {
  const a = solve({ inputs: { mu2_eff: -4, tEnd: 2 } }).result as any;
  assert.equal(a.coefficients.mu2, -4); assert.equal(a.t_end, 2);
  const b = solve({ mu2_eff: -9, inputs: { mu2_eff: -4 } }).result as any;
  assert.equal(b.coefficients.mu2, -9);
  assert.throws(() => solve({ inputs: { mass: 2 } }), (e: unknown) =>
    e instanceof SvcError && e.code === 'INVALID_INPUT' && /mu2_eff/.test(e.message) && (e.details as any).unknown[0] === 'mass');
  assert.throws(() => solve({ inputs: { tEnd: 5000 } }), refusedWith('INVALID_INPUT', /tEnd/));
});

test('overflow of phi(t_end) is refused, never returned as Infinity', () => {
  assert.throws(() => solve({ mu2_eff: 100, phi0: 1, tEnd: 1000 }), refusedWith('INVALID_INPUT', /overflow/));
});

test('schema: closedform takes its own operators/inputs (noCommonFields) and bounds its fields', () => {
  assert.equal(closedform.noCommonFields, true);
  const bad = [{ tEnd: 0 }, { tEnd: 1001 }, { operators: ['KO42'] }, { operators: [{ shape: 'phi' }] }, { couplings: [{ target: 'x', value: 1 }] },
    { compile: { scale: 0 } }, { compile: { factor: 2 } }, { prompt: 'x' }, { inputs: { mu2_eff: 'a' } }];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  assert.equal(descriptor.input.safeParse({ operators: [{ id: 'KO42', shape: 'phi', weight: 1 }], compile: { scale: 2 } }).success, true);
});

test('same input gives identical bits; the output has no non-finite numbers', () => {
  const body = { mu2_eff: 1, lambda_eff: -1, phi0: 1.6, dphi0: 0.3, tEnd: 20 };
  const a = solve(body), b = solve(body);
  assert.deepStrictEqual(a, b);
  const walk = (x: unknown): void => {
    if (typeof x === 'number') assert.ok(Number.isFinite(x));
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(a);
  // series: t first, closed form and RK4 side by side
  assert.deepEqual(Object.keys(a.series!), ['t', 'phi', 'phiRk4']);
});
