import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, internals } from '../../src/solvers/fracture.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

test('bar below the critical stretch: no bond breaks and the stress is the bulk stress E·strain', () => {
  for (const horizonM of [2, 2.5, 3, 4]) {
    const out = solve({ mode: 'bar', E: 200e9, strain: 8e-4, s0: 1e-3, horizonM });
    const r = out.result as { brokenBondFraction: number };
    assert.equal(r.brokenBondFraction, 0);
    assert.ok(Math.abs(out.value - 200e9 * 8e-4) / (200e9 * 8e-4) < 1e-3, `m=${horizonM}: ${out.value}`);
    assert.equal(out.precision.withinBound, true);
  }
});

test('bar past the critical stretch: peak stress E·ε* (last step not past s0), then every bond breaks', () => {
  const out = solve({ N: 150, E: 70e9, strain: 1.5e-3, s0: 1e-3, loadSteps: 10 });
  assert.ok(Math.abs(out.value - 70e9 * 9e-4) / (70e9 * 9e-4) < 1e-3, String(out.value));
  const r = out.result as { brokenBondFraction: number; peakStrain: number };
  assert.ok(r.brokenBondFraction > 0.99);
  assert.ok(Math.abs(r.peakStrain - 9e-4) < 1e-12);
  const stress = out.series!.stress;
  assert.ok(Math.abs(stress[stress.length - 1]) < 1e-6 * out.value);
});

test('bar with softening (sf > s0) follows the bilinear bond law through the peak', () => {
  const out = solve({ mode: 'bar', E: 70e9, strain: 1.5e-3, s0: 1e-3, sf: 2e-3, loadSteps: 10 });
  const law = (e: number): number => (e <= 1e-3 ? 70e9 * e : (70e9 * 1e-3 * (2e-3 - e)) / 1e-3);
  const { strain, stress } = out.series!;
  for (let k = 0; k < strain.length; k++) assert.ok(Math.abs(stress[k] - law(strain[k])) < 1e-6 * 70e9 * 1e-3, `step ${k}`);
  assert.ok(Math.abs(out.value - law(1.05e-3)) / law(1.05e-3) < 1e-6);
  assert.equal(out.precision.withinBound, true);
});

test('dynamic relaxation brings a disturbed bar back to the uniform-strain equilibrium', () => {
  const m = internals.buildModel(1, 80, 1, 3, 1e9, null);
  const u = new Float64Array(m.nodes);
  const eps = 1e-4;
  for (let q = 0; q < m.nodes; q++) u[q] = eps * (m.x[q] - m.lengthM / 2) + 2e-8 * Math.sin(q * 1.7);
  internals.setGrips(m, u, eps);
  const work = { F: new Float64Array(m.nodes), Fold: new Float64Array(m.nodes), v: new Float64Array(m.nodes) };
  const st = internals.relax(m, u, 1, 1, 20000, work);
  assert.ok(st.iterations > 10 && st.iterations < 20000, `iterations ${st.iterations}`);
  for (let q = 0; q < m.nodes; q++) assert.ok(Math.abs(u[q] - eps * (m.x[q] - m.lengthM / 2)) < 1e-3 * eps * m.lengthM);
  assert.ok(Math.abs(st.gripForce / m.area - 1e9 * eps) / (1e9 * eps) < 1e-3);
});

test('notched plate: uncracked calibration within 2 % of E·strain; the crack grows and lowers the peak below E·s0', () => {
  const out = solve({});
  assert.ok(out.precision.errorPct < 2, String(out.precision.errorPct));
  const r = out.result as {
    brokenBondFraction: number; newlyBrokenFraction: number; criticalStretchStress: number;
    crackExtensionM: number; uncrackedBrokenFraction: number;
  };
  assert.equal(r.uncrackedBrokenFraction, 0);
  assert.ok(r.newlyBrokenFraction > 0);
  assert.ok(r.crackExtensionM > 0);
  assert.ok(out.value < r.criticalStretchStress);
  // same order as the Griffith/Irwin edge-crack strength from the PD fracture energy
  const g = (out.result as { griffithEdgeCrackStress: number }).griffithEdgeCrackStress;
  assert.ok(out.value > 0.5 * g && out.value < 2 * g, `${out.value} vs Griffith ${g}`);
});

test('a deeper notch gives a lower peak stress; a low strain breaks nothing beyond the notch', () => {
  const shallow = solve({ nx: 32, ny: 16, notchFrac: 0.2 });
  const deep = solve({ nx: 32, ny: 16, notchFrac: 0.5 });
  assert.ok(deep.value < shallow.value, `${deep.value} vs ${shallow.value}`);
  const elastic = solve({ nx: 32, ny: 16, strain: 2e-4, loadSteps: 2 });
  assert.equal((elastic.result as { newlyBrokenFraction: number }).newlyBrokenFraction, 0);
});

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ nx: 20, ny: 10, loadSteps: 4 }), solve({ nx: 20, ny: 10, loadSteps: 4 }));
});

test('bounds are enforced by the schema', () => {
  for (const b of [
    { nx: 15 }, { nx: 65 }, { ny: 7 }, { ny: 41 }, { notchFrac: 0.05 }, { notchFrac: 0.7 },
    { horizonM: 1.5 }, { horizonM: 4.5 }, { s0: 1e-3, sf: 5e-4 }, { mode: '3d' }, { N: 5 },
    { nx: 64, ny: 40, horizonM: 4, loadSteps: 200, relaxIters: 5000 }, { extra: 1 },
  ]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
});

test('descriptor carries the spec row and enough dispatch material', () => {
  assert.equal(descriptor.domain, 'Fracture Mechanics');
  assert.deepEqual(descriptor.operators, ['KO42', 'STRESS_ANALYSIS']);
  assert.equal(descriptor.unit, 'sigma');
  assert.ok(descriptor.examples.length >= 8 && descriptor.vocabulary.length >= 10);
});
