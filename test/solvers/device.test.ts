import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, solvePlates, K_B, Q_E } from '../../src/solvers/device.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

test('PN junction built-in potential is within 1 % of (kT/q)·ln(Na·Nd/ni²)', () => {
  const cases = [
    { dim: 1 },
    { Na: 1e24, Nd: 1e21 },
    { Na: 1e21, Nd: 1e25, T: 350 },
    { Na: 5e22, Nd: 2e23, ni: 2e15, T: 250, nx: 120 },
  ];
  for (const c of cases) {
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

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ kx: 1 }), solve({ kx: 1 }));
  assert.deepEqual(solve({ dim: 1 }), solve({ dim: 1 }));
});

test('bounds are enforced by the schema', () => {
  for (const b of [
    { nx: 15 }, { nx: 221 }, { ny: 15 }, { ny: 221 }, { dim: 3 }, { kx: 9 }, { kx: -1 },
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
