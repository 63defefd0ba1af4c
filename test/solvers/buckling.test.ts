import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, EFFECTIVE_LENGTH } from '../../src/solvers/buckling.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

const ENDS = ['pinned-pinned', 'fixed-fixed', 'fixed-free', 'fixed-pinned'] as const;
const K = { 'pinned-pinned': 1, 'fixed-fixed': 0.5, 'fixed-free': 2, 'fixed-pinned': 0.6991556 };

test('critical load is within 0.5 % of π²EI/(K·L)² for all four end conditions', () => {
  const EI = 2.5e6, L = 4;
  for (const ends of ENDS) {
    const out = solve({ ends, EI, L });
    const exact = (Math.PI ** 2 * EI) / (K[ends] * L) ** 2;
    const err = Math.abs(out.value - exact) / exact;
    assert.ok(err < 5e-3, `${ends}: ${out.value} vs ${exact}`);
    assert.ok(err < 1e-4, `${ends}: default mesh should be far inside the bound (${err})`);
    assert.equal(out.precision.withinBound, true);
  }
  assert.ok(Math.abs(EFFECTIVE_LENGTH['fixed-pinned'] - 0.6991556) < 1e-6);
});

test('FEM loads converge from above as the mesh is refined (Rayleigh-Ritz upper bound)', () => {
  for (const ends of ENDS) {
    const p2 = solve({ ends, elements: 2 }).value;
    const p4 = solve({ ends, elements: 4 }).value;
    const p16 = solve({ ends, elements: 16 }).value;
    const exact = solve({ ends }).precision.referenceValue as number;
    assert.ok(p2 >= p4 && p4 >= p16 && p16 >= exact * (1 - 1e-9), `${ends}: ${p2} ${p4} ${p16} ${exact}`);
  }
});

test('higher pinned-pinned modes scale as n², the mode shape is a half sine, inverse iteration agrees', () => {
  const out = solve({ ends: 'pinned-pinned', elements: 32 });
  const r = out.result as { higherModeLoadsN: number[]; inverseIterationLoadN: number };
  assert.ok(Math.abs(r.higherModeLoadsN[0] / out.value - 4) < 1e-3);
  assert.ok(Math.abs(r.higherModeLoadsN[1] / out.value - 9) < 1e-2);
  assert.ok(Math.abs(r.inverseIterationLoadN - out.value) / out.value < 1e-8);
  const { x, w } = out.series!;
  const L = x[x.length - 1];
  for (let i = 0; i < x.length; i++) assert.ok(Math.abs(w[i] - Math.sin((Math.PI * x[i]) / L)) < 1e-4);
});

test('EI, or E and I, give the same column; inconsistent EI is refused', () => {
  const a = solve({ EI: 70e9 * 4e-6, L: 2, ends: 'fixed-pinned' });
  const b = solve({ E: 70e9, I: 4e-6, L: 2, ends: 'fixed-pinned' });
  assert.ok(Math.abs(a.value - b.value) / a.value < 1e-12);
  const bad = descriptor.input.safeParse({ EI: 1e6, E: 200e9, I: 1e-6 });
  assert.equal(bad.success, false);
  assert.equal(descriptor.input.safeParse({ EI: 2e5, E: 200e9, I: 1e-6 }).success, true);
});

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ ends: 'fixed-free', elements: 10 }), solve({ ends: 'fixed-free', elements: 10 }));
});

test('bounds are enforced by the schema', () => {
  for (const b of [{ elements: 1 }, { elements: 201 }, { EI: 0 }, { E: -1 }, { I: 0 }, { L: 0 }, { ends: 'free-free' }, { P: 1 }]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
});

test('descriptor carries the spec row and enough dispatch material', () => {
  assert.equal(descriptor.domain, 'Structural Stability');
  assert.deepEqual(descriptor.operators, ['KO42', 'BEAM_DEFLECTION']);
  assert.equal(descriptor.unit, 'N');
  assert.ok(descriptor.examples.length >= 8 && descriptor.vocabulary.length >= 10);
});
