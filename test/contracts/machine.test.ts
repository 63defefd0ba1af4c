// The pure fire step: ordering rule, guards, assignments, blocked outcomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDefinition, type ContractDefinition } from '../../src/contracts/definition.ts';
import { fireOnce, initialSnapshot, runToEnd, type FireEnv } from '../../src/contracts/machine.ts';
import { SvcError } from '../../src/core/errors.ts';

const env = (t = 1000, extra: Partial<FireEnv> = {}): FireEnv => ({ t, phase: 1, svcond: Math.floor(t / 0.777), ...extra });

const def: ContractDefinition = validateDefinition({
  version: 1,
  name: 'Escrow',
  initial: 'open',
  states: [{ name: 'open' }, { name: 'funded' }, { name: 'released', terminal: true }, { name: 'refunded', terminal: true }, { name: 'expired', terminal: true }],
  transitions: [
    { from: 'open', to: 'funded', name: 'fund', guard: 'deposited >= price', set: { price: 'price * 2', deposited: 'price' } },
    { from: 'open', to: 'expired', name: 'expire', guard: 'elapsed > 3600' },
    { from: 'funded', to: 'released', name: 'release', guard: 'confirmed' },
    { from: 'funded', to: 'refunded', name: 'refund' },
  ],
  variables: { price: 100, deposited: 0, confirmed: false },
});

test('a blocked guard fires nothing and reports the reason, the guard and the values it saw', () => {
  const s = initialSnapshot(def, 1000);
  const out = fireOnce(def, s, env(1000));
  assert.equal(out.fired, false);
  if (out.fired) return;
  assert.match(out.reason, /blocked/);
  assert.equal(out.guard, 'deposited >= price');
  assert.deepEqual(out.values, { deposited: 0, price: 100 });
  assert.equal(out.blocked.length, 2);
  assert.equal(out.blocked[1].transition, 'expire');
  assert.deepEqual(out.blocked[1].values, { elapsed: 0 });
});

test('the first transition in definition order whose guard passes fires', () => {
  const s = initialSnapshot(def, 1000);
  // after an hour the deposit still blocks, the expiry passes
  const out = fireOnce(def, s, env(1000 + 3601));
  assert.ok(out.fired);
  if (!out.fired) return;
  assert.equal(out.transition.name, 'expire');
  assert.equal(out.next.state, 'expired');
  assert.equal(out.next.fireCount, 1);
  assert.equal(out.skipped[0].transition, 'fund');
});

test('variables proposed with a fire apply before the guards; set assignments are simultaneous', () => {
  const s = initialSnapshot(def, 1000);
  const out = fireOnce(def, s, env(1010, { variables: { deposited: 100 } }));
  assert.ok(out.fired);
  if (!out.fired) return;
  assert.equal(out.to, 'funded');
  // price = price*2 and deposited = price both read the old price (100)
  assert.deepEqual(out.next.variables, { price: 200, deposited: 100, confirmed: false });
  assert.equal(out.next.enteredAt, 1010);
  // the input snapshot is untouched
  assert.deepEqual(s.variables, { price: 100, deposited: 0, confirmed: false });
});

test('a blocked fire keeps none of the proposed variables', () => {
  const s = initialSnapshot(def, 1000);
  const out = fireOnce(def, s, env(1000, { variables: { deposited: 5 } }));
  assert.equal(out.fired, false);
  assert.equal(s.variables.deposited, 0);
});

test('an unguarded later transition is the fallback when the guarded one blocks', () => {
  let s = initialSnapshot(def, 0);
  const f = fireOnce(def, s, env(1, { variables: { deposited: 100 } }));
  assert.ok(f.fired);
  if (!f.fired) return;
  s = f.next;
  const out = fireOnce(def, s, env(2));
  assert.ok(out.fired);
  if (!out.fired) return;
  assert.equal(out.transition.name, 'refund');
  const named = fireOnce(def, s, env(2, { transition: 'release', variables: { confirmed: true } }));
  assert.ok(named.fired && named.to === 'released');
});

test('naming a transition restricts the candidates; a name that does not leave the state is a 400', () => {
  const s = initialSnapshot(def, 0);
  const out = fireOnce(def, s, env(1, { transition: 'expire' }));
  assert.equal(out.fired, false);
  assert.throws(() => fireOnce(def, s, env(1, { transition: 'release' })), (e: unknown) => e instanceof SvcError && e.status === 400);
});

test('ill-typed or undeclared variable updates are a 400', () => {
  const s = initialSnapshot(def, 0);
  assert.throws(() => fireOnce(def, s, env(1, { variables: { deposited: 'lots' } })), (e: unknown) => e instanceof SvcError && e.status === 400);
  assert.throws(() => fireOnce(def, s, env(1, { variables: { nope: 1 } })), (e: unknown) => e instanceof SvcError && /nope/.test(e.message));
  assert.throws(() => fireOnce(def, s, env(1, { variables: { deposited: Infinity } })), (e: unknown) => e instanceof SvcError);
});

test('a terminal contract fires nothing', () => {
  const s = { ...initialSnapshot(def, 0), state: 'released' };
  const out = fireOnce(def, s, env(1));
  assert.equal(out.fired, false);
  if (out.fired) return;
  assert.equal(out.terminal, true);
  assert.match(out.reason, /terminal state 'released'/);
});

test('fireCount, pulse and operator outputs are guard symbols', () => {
  const d = validateDefinition({
    version: '2', name: 'Pulse gate', initial: 'a',
    states: [{ name: 'a' }, { name: 'b' }, { name: 'c', terminal: true }],
    transitions: [
      { from: 'a', to: 'b', name: 'on_even_step', guard: 'svcond >= 0 and phase < 7 and t > 0 and fireCount == 0' },
      { from: 'b', to: 'c', name: 'measure', operators: ['KO42'], guard: 'KO42 > 0.99 and fireCount == 1' },
    ],
  });
  let s = initialSnapshot(d, 0);
  const one = fireOnce(d, s, env(5));
  assert.ok(one.fired);
  if (!one.fired) return;
  s = one.next;
  const blockedNoEval = fireOnce(d, s, env(6));
  assert.equal(blockedNoEval.fired, false, 'operators need an evaluator');
  const two = fireOnce(d, s, env(6, { evaluateOperators: (ids) => Object.fromEntries(ids.map((id) => [id, 1.001])) }));
  assert.ok(two.fired);
  if (!two.fired) return;
  assert.deepEqual(two.operatorOutputs, { KO42: 1.001 });
  assert.equal(two.values.KO42, 1.001);
});

test('a guard that fails at run time blocks with the error as reason, never throws', () => {
  const d = validateDefinition({
    version: '1', name: 'Odd', initial: 'a',
    states: [{ name: 'a' }, { name: 'b', terminal: true }],
    transitions: [{ from: 'a', to: 'b', name: 'go', guard: 'label' }],
    variables: { label: 'text' },
  });
  const out = fireOnce(d, initialSnapshot(d, 0), env(1));
  assert.equal(out.fired, false);
  if (out.fired) return;
  assert.match(out.reason, /not true/);
});

test('an assignment that changes a variable\'s type blocks the transition', () => {
  const d = validateDefinition({
    version: '1', name: 'Typed', initial: 'a',
    states: [{ name: 'a' }, { name: 'b', terminal: true }],
    transitions: [{ from: 'a', to: 'b', name: 'go', set: { n: 'n > 0' } }],
    variables: { n: 1 },
  });
  const out = fireOnce(d, initialSnapshot(d, 0), env(1));
  assert.equal(out.fired, false);
  if (out.fired) return;
  assert.match(out.reason, /not a finite number/);
});

test('runToEnd follows counters through self-loops', () => {
  const d = validateDefinition({
    version: '1', name: 'Signatures', initial: 'collecting',
    states: [{ name: 'collecting' }, { name: 'signed', terminal: true }],
    transitions: [
      { from: 'collecting', to: 'signed', name: 'complete', guard: 'signatures >= 3' },
      { from: 'collecting', to: 'collecting', name: 'sign', set: { signatures: 'signatures + 1' } },
    ],
    variables: { signatures: 0 },
  });
  const r = runToEnd(d, initialSnapshot(d, 0), (k) => env(k));
  assert.deepEqual(r.path, ['sign', 'sign', 'sign', 'complete']);
  assert.equal(r.final.fireCount, 4);
  assert.equal(r.final.variables.signatures, 3);
});
