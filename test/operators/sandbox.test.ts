// compileSafe: the whitelist, the bounds, and every entry of the escape list refused as
// INVALID_INPUT (400) without throwing anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSafe, evaluateNumber, MAX_DEPTH } from '../../src/core/sandbox.ts';
import { ESCAPES } from './escapes.ts';

test('ordinary formulas compile and evaluate with their variables', () => {
  const e = compileSafe('0.5*m*v^2 + sin(pi/2) - max(1, 2, 3)');
  assert.deepEqual(e.symbols, ['m', 'v']);
  assert.equal(e.evaluate({ m: 2, v: 3 }), 9 + 1 - 3);
  assert.equal(evaluateNumber('sum(1:10) / 10', {}), 5.5);
  assert.equal(evaluateNumber('mean([1, 2, 3, 6])', {}), 3);
  assert.equal(evaluateNumber('x > 2 ? 10 : 20', { x: 3 }), 10);
  assert.equal(compileSafe('1 < x < 3').evaluate({ x: 2 }), true);
  assert.equal(compileSafe('e^0 + tau/(2*pi)').evaluate({}), 2);
});

test('guards: booleans and string equality for contract conditions', () => {
  assert.equal(compileSafe('state == "open" and count < 5').evaluate({ state: 'open', count: 3 }), true);
  assert.equal(compileSafe('state != "open"').evaluate({ state: 'closed' }), true);
  assert.equal(compileSafe('not (t > 30) or flag').evaluate({ t: 40, flag: false }), false);
});

test('a scope value shadows a constant; a missing variable is refused by name', () => {
  assert.equal(compileSafe('e * 2').evaluate({ e: 3 }), 6);
  assert.throws(() => compileSafe('a + b').evaluate({ a: 1 }), (err: any) => err.code === 'INVALID_INPUT' && /'b'/.test(err.message));
});

test('scope values must be finite numbers, booleans, short strings or short numeric arrays', () => {
  const e = compileSafe('x');
  for (const bad of [Infinity, NaN, {}, () => 1, 'a'.repeat(1000), new Array(1000).fill(1), [1, 'a']]) {
    assert.throws(() => e.evaluate({ x: bad }), (err: any) => err.code === 'INVALID_INPUT');
  }
  assert.throws(() => e.evaluate({ x: [1, 2] }), (err: any) => err.code === 'INVALID_INPUT', 'an array result is refused');
});

test('bounds: length, node count, nesting depth', () => {
  assert.throws(() => compileSafe('1+'.repeat(600) + '1'), /longer than/);
  assert.throws(() => compileSafe('1+'.repeat(600) + '1', { maxLength: 5000 }), /nodes|nested deeper/);
  assert.throws(() => compileSafe(Array.from({ length: 30 }, () => 'max(' + Array(20).fill('x').join(',') + ')').join('*'), { maxLength: 5000 }), /nodes/);
  assert.equal(compileSafe('1+'.repeat(150) + '1').evaluate({}), 151);
  assert.throws(() => compileSafe('('.repeat(MAX_DEPTH + 1) + '1' + ')'.repeat(MAX_DEPTH + 1)), /nested/);
});

test(`every expression of the escape list (${ESCAPES.length}) is refused with INVALID_INPUT`, () => {
  assert.ok(ESCAPES.length >= 30);
  for (const [label, expr] of ESCAPES) {
    let code: string | null = null;
    try {
      const c = compileSafe(expr);
      evaluateNumber(c, { x: 1 });
    } catch (err: any) {
      code = err?.code ?? `non-SvcError ${err?.name}: ${err?.message}`;
    }
    assert.equal(code, 'INVALID_INPUT', `${label}: ${code ?? 'was accepted'}`);
  }
});
