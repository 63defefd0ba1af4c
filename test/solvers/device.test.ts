import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFiniteOrRefused } from './util.ts';
import { descriptor, run, solvePlates, gradedOffsets, K_B, Q_E, EPS_SI } from '../../src/solvers/device.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

// PN junctions: symmetric, one-sided both ways, and a non-default ni, T and mesh
const JUNCTIONS: Record<string, unknown>[] = [
  { dim: 1 },
  { Na: 1e24, Nd: 1e21 },
  { Na: 1e21, Nd: 1e25, T: 350 },
  { Na: 5e22, Nd: 2e23, ni: 2e15, T: 250, nx: 120 },
];

test('PN junction built-in potential is within 1 % of (kT/q)·ln(Na·Nd/ni²)', () => {
  for (const c of JUNCTIONS) {
    const out = solve(c);
    const r = out.result as { Na: number; Nd: number; ni: number; T: number; newtonIterations: number };
    const exact = ((K_B * r.T) / Q_E) * Math.log((r.Na * r.Nd) / (r.ni * r.ni));
    assert.ok(Math.abs(out.value - exact) / exact < 0.01, `${JSON.stringify(c)}: ${out.value} vs ${exact}`);
    assert.ok(r.newtonIterations < 60);
    assert.equal(out.precision.withinBound, true);
  }
});

test('PN junction: the peak field is near the depletion approximation and the profile is monotone', () => {
  const out = solve({ dim: 1 });
  const r = out.result as { peakFieldVm: number; peakFieldDepletionApproxVm: number };
  assert.ok(Math.abs(r.peakFieldVm / r.peakFieldDepletionApproxVm - 1) < 0.1);
  const psi = out.series!.psi;
  for (let i = 1; i < psi.length; i++) assert.ok(psi[i] >= psi[i - 1] - 1e-12);
});

test('PN junction: junction potential and peak field match the first integral of Poisson-Boltzmann, one-sided junctions too', () => {
  // Independent reference (continuum, no depletion approximation): with u = ψ/V_T, λ² = εV_T/(q·ni)
  // and C = (Nd − Na)/ni, λ²u'' = 2 sinh u − C gives on each uniformly doped side, from its neutral
  // bulk, ½λ²u'² = 2cosh u − 2cosh u_b − C(u − u_b). Equal u and u' at the junction fix u_j, and
  // |E| there is the peak field. Without the Newton solve (charge-neutral start) the field is a
  // spike; on a uniform mesh the one-sided cases miss it by 50-80 %.
  const cases = [...JUNCTIONS, { Na: 1e27, Nd: 1e19, nx: 220 }];
  for (const c of cases) {
    const out = solve(c);
    const r = out.result as { Na: number; Nd: number; ni: number; T: number; peakFieldVm: number; lengthM: number };
    const VT = (K_B * r.T) / Q_E;
    const lam2 = (EPS_SI * VT) / (Q_E * r.ni);
    const Cp = -r.Na / r.ni, Cn = r.Nd / r.ni;
    const up = Math.asinh(Cp / 2), un = Math.asinh(Cn / 2);
    const side = (u: number, ub: number, C: number): number => 2 * Math.cosh(u) - 2 * Math.cosh(ub) - C * (u - ub);
    // side(u, up, Cp) − side(u, un, Cn) is linear in u: solve it
    const uj = (2 * Math.cosh(up) - 2 * Math.cosh(un) - Cp * up + Cn * un) / (Cn - Cp);
    assert.ok(Math.abs(side(uj, up, Cp) - side(uj, un, Cn)) < 1e-9 * side(uj, up, Cp));
    const Ej = VT * Math.sqrt((2 * side(uj, up, Cp)) / lam2);
    const { x, psi, E } = out.series!;
    const jn = x.findIndex((xi) => Math.abs(xi - r.lengthM / 2) < 1e-9 * r.lengthM);
    assert.ok(jn > 0, 'the junction is a mesh node');
    const label = JSON.stringify(c);
    assert.ok(Math.abs(psi[jn] - uj * VT) < 1e-3 * out.value, `${label}: ψ_j ${psi[jn]} vs ${uj * VT}`);
    assert.ok(Math.abs(r.peakFieldVm - Ej) / Ej < 0.01, `${label}: peak field ${r.peakFieldVm} vs ${Ej}`);
    assert.ok(Math.abs(Math.abs(E[jn]) - Ej) / Ej < 0.01, `${label}: junction field ${E[jn]} vs ${Ej}`);
  }
});

test('PN mesh: graded by sinh toward the junction, uniform when already fine enough', () => {
  const d = gradedOffsets(1e-6, 100, 1e-9);
  assert.equal(d[0], 0);
  assert.equal(d[100], 1e-6);
  assert.ok(Math.abs(d[1] - 1e-9) / 1e-9 < 0.01, `first spacing ${d[1]}`);
  for (let k = 1; k < 100; k++) assert.ok(d[k + 1] - d[k] > d[k] - d[k - 1]);
  const u = gradedOffsets(1e-6, 100, 2e-8);
  for (let k = 0; k <= 100; k++) assert.ok(Math.abs(u[k] - k * 1e-8) < 1e-20);
});

test('a junction too short for its depletion region is reported outside the bound, not hidden', () => {
  const out = solve({ dim: 1, Lx: 1e-7 });
  assert.equal(out.precision.withinBound, false);
});

test('empty capacitor: CG from zero reproduces the linear field V·y/Ly at the probe', () => {
  for (const precond of ['ssor', 'jacobi']) {
    const out = solve({ V: 5, precond });
    const r = out.result as { probe: { y: number }; grid: { Ly: number } };
    const exact = (5 * r.probe.y) / r.grid.Ly;
    assert.ok(Math.abs(out.value - exact) < 1e-7 * 5, `${precond}: ${out.value} vs ${exact}`);
  }
});

test('space-charge mode: five-point error is O(h²) and both preconditioners give the same field', () => {
  const err = (n: number): number => {
    const s = solvePlates({ nx: n, ny: n, Lx: 1e-6, Ly: 1e-6, V: 1, kx: 2, precond: 'ssor' });
    let e = 0;
    for (let k = 0; k < s.phi.length; k++) e = Math.max(e, Math.abs(s.phi[k] - s.exact[k]));
    return e;
  };
  const e1 = err(33), e2 = err(65);
  assert.ok(e1 / e2 > 3.7 && e1 / e2 < 4.3, `ratio ${e1 / e2}`);
  const a = solvePlates({ nx: 50, ny: 40, Lx: 2e-6, Ly: 1e-6, V: 1, kx: 3, precond: 'ssor' });
  const b = solvePlates({ nx: 50, ny: 40, Lx: 2e-6, Ly: 1e-6, V: 1, kx: 3, precond: 'jacobi' });
  assert.ok(a.iterations < b.iterations);
  for (let k = 0; k < a.phi.length; k++) assert.ok(Math.abs(a.phi[k] - b.phi[k]) < 1e-8);
  const out = solve({ kx: 2, nx: 128, ny: 128 });
  assert.equal(out.precision.withinBound, true);
});

test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const c of [
    { dim: 1, Lx: 5e-324 }, { dim: 1, Lx: 1e-30 }, { dim: 1, Lx: 1, nx: 16 }, { Na: 1e28, Nd: 1e28, T: 1, ni: 1 },
    { Na: 1e12, Nd: 1e28, ni: 1, T: 1 }, { Na: 1e28, Nd: 1e12, ni: 1, T: 1500, nx: 16 }, { nx: 16, ny: 16, V: -1e4, kx: 1 },
    { nx: 220, ny: 16, Lx: 1, Ly: 1e-300 }, { Lx: 1e-300, Ly: 1 },
  ]) {
    assertFiniteOrRefused(() => solve(c), JSON.stringify(c));
  }
});

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ kx: 1 }), solve({ kx: 1 }));
  assert.deepEqual(solve({ dim: 1 }), solve({ dim: 1 }));
});

test('bounds are enforced by the schema', () => {
  for (const b of [
    { nx: 15 }, { nx: 221 }, { ny: 15 }, { ny: 221 }, { dim: 3 }, { kx: 9, nx: 64 }, { kx: 28 }, { kx: -1 },
    { Na: 1e17 }, { dim: 1, Nd: 1e15 }, { T: 0 }, { precond: 'ilu' }, { eps: 1 },
  ]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
  assert.equal(descriptor.input.safeParse({ nx: 220, ny: 220, kx: 27 }).success, true);
});

test('descriptor carries the spec row and enough dispatch material', () => {
  assert.equal(descriptor.domain, 'Semiconductor Devices');
  assert.deepEqual(descriptor.operators, ['KO42', 'CMP11']);
  assert.equal(descriptor.unit, 'V');
  assert.ok(descriptor.examples.length >= 8 && descriptor.vocabulary.length >= 10);
});
