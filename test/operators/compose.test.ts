// svc_unified's composition: strategies A (algebraic product), B (sequential RK4 timeline) and C
// (single operator), KO42 prepended and the identity, against values computed by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeUnified, productUnit } from '../../src/operators/compose.ts';

const now = 1_790_000_000.5;

test('C: a single catalogued operator under KO42 keeps its value and unit', () => {
  const r = composeUnified({ operators: ['KINETIC_ENERGY'], inputs: { m: 2, v: 3 } }, now);
  assert.equal(r.strategy, 'C');
  assert.equal(r.value, 9);
  assert.equal(r.unit, 'J');
  assert.deepEqual(r.chain, ['KO42', 'KINETIC_ENERGY']);
  assert.ok(r.consts.R_t > 0.998 && r.consts.R_t < 1.002);
});

test('A: the algebraic product multiplies values and units', () => {
  const r = composeUnified({ operators: ['KO42', 'OHMS_LAW', { id: 'current', equation: 'I', unit: 'A' }], inputs: { I: 2, R: 10 } }, now);
  assert.equal(r.strategy, 'A');
  assert.equal(r.value, 40);
  assert.equal(r.unit, 'W');
  assert.equal(r.intermediates.length, 2);
  assert.equal(r.compiled, 'S * (I*R) * (I)');
  assert.equal(productUnit(['N', 'm']), 'J');
  assert.equal(productUnit(['1', '1']), '1');
});

test('later operators read earlier values by id', () => {
  const r = composeUnified({ operators: ['KINETIC_ENERGY', { id: 'half', equation: 'KINETIC_ENERGY / 2', unit: 'J' }], inputs: { m: 2, v: 3 } }, now);
  assert.deepEqual(r.intermediates.map((i) => i.value), [9, 4.5]);
});

test('B: an ode operator is integrated by RK4 (exponential decay and logistic growth against exact solutions)', () => {
  const r = composeUnified({ operators: [{ id: 'decay', equation: '-k*y', kind: 'ode' }], inputs: { k: 1.5, y0: 2 }, consts: { tMax: 2, steps: 400 } }, now);
  assert.equal(r.strategy, 'B');
  assert.ok(Math.abs(r.value - 2 * Math.exp(-3)) < 1e-10, `${r.value}`);
  assert.ok(r.precision.errorPct < 1e-6);
  const g = composeUnified({ operators: [{ id: 'logistic', equation: 'r*y*(1 - y/K)', kind: 'ode' }], inputs: { r: 1, K: 10, y0: 1 }, consts: { tMax: 5, steps: 500 } }, now);
  const exact = 10 / (1 + 9 * Math.exp(-5));
  assert.ok(Math.abs(g.value - exact) / exact < 1e-8, `${g.value} vs ${exact}`);
});

test('B: a timeline feeds algebraic and ode stages in order', () => {
  const r = composeUnified({
    operators: [{ id: 'start', equation: 'y0 * 3' }, { id: 'grow', equation: 'y', kind: 'ode' }, { id: 'scale', equation: 'y / 2' }],
    inputs: { y0: 1 }, consts: { tMax: 1, steps: 200 },
  }, now);
  assert.ok(Math.abs(r.value - 1.5 * Math.E) < 1e-9);
  assert.deepEqual(r.intermediates.map((i) => i.id), ['start', 'grow', 'scale']);
});

test('consts override t, alpha, f_H, T_Z and are visible to expressions', () => {
  const r = composeUnified({ operators: [{ id: 'p', equation: 'alpha * f_H * T_Z * t' }], consts: { t: 2, alpha: 0.5, f_H: 1, T_Z: 3 } }, now);
  assert.equal(r.value, 3);
  assert.equal(r.consts.R_t, 1 + 0.5 * Math.sin(2 * Math.PI * 0));
});

test('refusals: unknown operator and unit are 400, unknown input key is the gate (422), divergence is UNSTABLE', () => {
  assert.throws(() => composeUnified({ operators: ['NOPE'] }, now), (e: any) => e.status === 400);
  assert.throws(() => composeUnified({ operators: [{ id: 'a', equation: '1', unit: 'furlong' }] }, now), (e: any) => e.status === 400);
  assert.throws(() => composeUnified({ operators: ['KINETIC_ENERGY'], inputs: { m: 2, v: 3, zz: 1 } }, now), (e: any) => e.code === 'DIMENSIONAL_GATE');
  assert.throws(() => composeUnified({ operators: ['KINETIC_ENERGY'], inputs: { m: '2 s', v: 3 } }, now), (e: any) => e.code === 'DIMENSIONAL_GATE');
  assert.throws(() => composeUnified({ operators: [{ id: 'boom', equation: 'y^2', kind: 'ode' }], inputs: { y0: 1 }, consts: { tMax: 10, steps: 100 } }, now), (e: any) => e.code === 'UNSTABLE');
  assert.throws(() => composeUnified({ operators: [{ id: 'a', equation: '1', kind: 'ode' }], consts: { steps: 1e6 } }, now), (e: any) => e.status === 400);
});
