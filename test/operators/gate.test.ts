// The dimensional gate: plain numbers are in the declared unit, quantity strings are converted,
// anything else is 422 DIMENSIONAL_GATE with value null and the offending keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindInputs, convertInput } from '../../src/operators/gate.ts';
import { getOperator, evaluateWithUnits } from '../../src/operators/catalog.ts';

const KE = getOperator('KINETIC_ENERGY')!;

test('quantity strings convert to the declared unit', () => {
  const cases: [string, string, number][] = [
    ['3 km', 'm', 3000], ['36 km/h', 'm/s', 10], ['1500 g', 'kg', 1.5], ['25 degC', 'K', 298.15], ['1 h', 's', 3600],
    ['2 mmol/L', 'mol/m^3', 2], ['100 percent', '1', NaN], ['90 deg', 'rad', Math.PI / 2], ['1 rad/s', '1/s', 1],
    ['1 MeV', 'J', 1.602176634e-13], ['0.001 1/USD', '1/USD', 0.001], ['5 (kg m^2)/s^2', 'J', 5],
  ];
  for (const [s, unit, want] of cases) {
    const r = convertInput('k', s, unit);
    if (Number.isNaN(want)) { assert.ok('problem' in r, s); continue; }
    assert.ok('value' in r, `${s}: ${'problem' in r ? r.problem.message : ''}`);
    assert.ok(Math.abs((r as any).value - want) <= 1e-9 * Math.abs(want), `${s} -> ${(r as any).value}`);
  }
});

test('wrong dimensions, junk strings and non-finite numbers are refused', () => {
  assert.equal((convertInput('m', '3 m', 'kg') as any).problem.reason, 'wrong-dimension');
  assert.equal((convertInput('m', 'three', 'kg') as any).problem.reason, 'bad-quantity');
  assert.equal((convertInput('m', '3 furlongs', 'kg') as any).problem.reason, 'bad-quantity');
  assert.equal((convertInput('m', '1e999 kg', 'kg') as any).problem.reason, 'non-finite');
  assert.equal((convertInput('m', Infinity, 'kg') as any).problem.reason, 'non-finite');
  assert.equal((convertInput('m', NaN, 'kg') as any).problem.reason, 'non-finite');
  assert.equal((convertInput('m', {} as any, 'kg') as any).problem.reason, 'bad-quantity');
  assert.equal((convertInput('m', 'x'.repeat(100), 'kg') as any).problem.reason, 'bad-quantity');
});

test('bindInputs refuses unknown and missing keys with 422 DIMENSIONAL_GATE, value null, keys named', () => {
  assert.throws(() => bindInputs([KE], { m: 2, v: 3, w: 1 }), (e: any) => e.status === 422 && e.code === 'DIMENSIONAL_GATE' && e.details.value === null && e.details.keys.includes('w'));
  assert.throws(() => bindInputs([KE], { m: 2 }), (e: any) => e.code === 'DIMENSIONAL_GATE' && e.details.keys.includes('v'));
  assert.throws(() => bindInputs([KE], { m: '2 s', v: 3 }), (e: any) => e.code === 'DIMENSIONAL_GATE' && e.details.keys.join() === 'm');
  const b = bindInputs([KE], { m: '2000 g', v: '10.8 km/h' });
  assert.equal(b.KINETIC_ENERGY.m, 2);
  assert.ok(Math.abs(b.KINETIC_ENERGY.v - 3) < 1e-12);
  assert.ok(Math.abs(evaluateWithUnits(KE, b.KINETIC_ENERGY) - 9) < 1e-12);
});

test('angles: degrees in, radians for a bare number where an angle is declared', () => {
  const op = getOperator('WORK_CONSTANT_FORCE')!; // th in deg
  const r = bindInputs([op], { F: 10, d: 5, th: `${Math.PI / 3} rad` });
  assert.ok(Math.abs(r.WORK_CONSTANT_FORCE.th - 60) < 1e-9);
  assert.ok(Math.abs(evaluateWithUnits(op, r.WORK_CONSTANT_FORCE) - 25) < 1e-9);
});
