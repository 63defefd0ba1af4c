import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bisection, brent } from '../../src/solvers/lib/roots.ts';

const methods = { bisection, brent } as const;

test('both methods find √2 as the root of x² − 2 on [0, 2] to 1e-14', () => {
  for (const [name, find] of Object.entries(methods)) {
    const r = find((x) => x * x - 2, 0, 2);
    assert.ok(r.converged, name);
    assert.ok(Math.abs(r.root - Math.SQRT2) < 1e-14, `${name}: ${r.root}`);
  }
});

test('the Dottie number: cos x = x at 0.7390851332151607', () => {
  for (const [name, find] of Object.entries(methods)) {
    const r = find((x) => Math.cos(x) - x, 0, 1);
    assert.ok(Math.abs(r.root - 0.7390851332151607) < 1e-14, `${name}: ${r.root}`);
  }
});

test('the root of x·e^x = 1 is the omega constant W(1) = 0.5671432904097838', () => {
  const r = brent((x) => x * Math.exp(x) - 1, -1, 2);
  assert.ok(Math.abs(r.root - 0.5671432904097838) < 1e-14);
});

test('Brent converges superlinearly: far fewer evaluations than bisection for the same tolerance', () => {
  const f = (x: number) => Math.exp(x) - 10; // root ln 10
  const b = brent(f, 0, 10, { xtol: 1e-13 });
  const s = bisection(f, 0, 10, { xtol: 1e-13 });
  assert.ok(Math.abs(b.root - Math.LN10) < 1e-12);
  assert.ok(Math.abs(s.root - Math.LN10) < 1e-12);
  assert.ok(b.evaluations < 15, `brent used ${b.evaluations}`);
  assert.ok(s.evaluations > 40, `bisection used ${s.evaluations}`);
});

test('Brent stays robust on a root of high multiplicity and a near-step function', () => {
  const cubic = brent((x) => (x - 1) ** 3, 0, 3, { xtol: 1e-12 });
  assert.ok(Math.abs(cubic.root - 1) < 1e-4, `triple root ${cubic.root}`);
  // steep tanh: interpolation is poor, bisection safeguards must kick in
  const steep = brent((x) => Math.tanh(1e4 * (x - 0.3)), -1, 1, { xtol: 1e-14 });
  assert.ok(Math.abs(steep.root - 0.3) < 1e-12, `steep ${steep.root}`);
  assert.ok(steep.converged && steep.iterations < 100);
});

test('a root at a bracket end is returned at once; reversed brackets work', () => {
  assert.equal(brent((x) => x - 1, 1, 2).root, 1);
  assert.equal(bisection((x) => x - 2, 1, 2).root, 2);
  const r = brent((x) => x * x - 2, 2, 0);
  assert.ok(Math.abs(r.root - Math.SQRT2) < 1e-14);
});

test('an unbracketed or non-finite bracket is a RangeError', () => {
  assert.throws(() => brent((x) => x * x + 1, -1, 1), RangeError);
  assert.throws(() => bisection((x) => x * x + 1, -1, 1), RangeError);
  assert.throws(() => brent((x) => 1 / x, 0, 1), RangeError);
});

test('maxIter caps the work and reports non-convergence', () => {
  const r = bisection((x) => x - Math.PI, 0, 4, { maxIter: 5 });
  assert.equal(r.converged, false);
  assert.ok(Math.abs(r.root - Math.PI) < 4 / 32);
});
