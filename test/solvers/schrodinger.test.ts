import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, finiteWellLevel } from '../../src/solvers/schrodinger.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

test('harmonic oscillator levels n = 0..4 are within 0.1 % of n + 1/2', () => {
  for (let n = 0; n <= 4; n++) {
    const out = solve({ potential: 'harmonic', n });
    assert.ok(Math.abs(out.value - (n + 0.5)) / (n + 0.5) < 1e-3, `n=${n}: ${out.value}`);
    assert.equal(out.precision.withinBound, true);
  }
});

test('the finite-difference error is O(h²) and the level order is exact (no missed states)', () => {
  const a = solve({ n: 3, N: 500 }).value - 3.5;
  const b = solve({ n: 3, N: 1001 }).value - 3.5;
  // N+1 intervals: h halves from 500 to 1001 nodes
  assert.ok(Math.abs(a / b - 4) < 0.1, `ratio ${a / b}`);
  const s = solve({ n: 0, N: 2000 }).series!;
  for (let k = 0; k < s.n.length; k++) assert.ok(Math.abs(s.E[k] - (k + 0.5)) < 1e-3);
});

test('infinite box levels match (n+1)²π²/(2L²)', () => {
  for (const [n, L] of [[0, 1], [2, 1], [4, 3]]) {
    const out = solve({ potential: 'box', n, L });
    const exact = ((n + 1) ** 2 * Math.PI ** 2) / (2 * L * L);
    assert.ok(Math.abs(out.value - exact) / exact < 1e-4, `${out.value} vs ${exact}`);
  }
});

test('finite-well reference solves the transcendental equations, and the grid agrees with it', () => {
  const L = 2, V0 = 10;
  const a = L / 2, z0 = a * Math.sqrt(2 * V0);
  for (let n = 0; n < 3; n++) {
    const E = finiteWellLevel(L, V0, n);
    const z = a * Math.sqrt(2 * E);
    const rhs = Math.sqrt(z0 * z0 - z * z);
    const lhs = n % 2 === 0 ? z * Math.tan(z) : -z / Math.tan(z);
    assert.ok(Math.abs(lhs - rhs) < 1e-8 * Math.max(1, rhs), `n=${n}`);
    assert.ok(E > 0 && E < V0);
    const out = solve({ potential: 'finite-well', n, L, V0 });
    assert.ok(Math.abs(out.value - E) / E < 1e-3, `n=${n}: ${out.value} vs ${E}`);
  }
  // deep-well limit approaches the infinite box
  const deep = finiteWellLevel(1, 1e6, 0);
  assert.ok(Math.abs(deep - Math.PI ** 2 / 2) / (Math.PI ** 2 / 2) < 5e-3);
});

test('a level above the well is refused by the schema with the bound-state count', () => {
  const r = descriptor.input.safeParse({ potential: 'finite-well', n: 3, L: 2, V0: 10 });
  assert.equal(r.success, false);
  assert.ok(!r.success && /holds 3 bound state/.test(r.error.issues[0].message));
});

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ potential: 'finite-well', n: 1 }), solve({ potential: 'finite-well', n: 1 }));
});

test('bounds are enforced by the schema', () => {
  for (const b of [{ N: 15 }, { N: 50001 }, { n: -1 }, { n: 201 }, { n: 60, N: 1000 }, { potential: 'coulomb' }, { L: 0 }, { V0: 0 }, { omega: 2 }]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
});

test('descriptor carries the spec row and enough dispatch material', () => {
  assert.equal(descriptor.domain, 'Quantum Mechanics');
  assert.deepEqual(descriptor.operators, ['KO42', 'QM5']);
  assert.equal(descriptor.unit, 'E');
  assert.ok(descriptor.examples.length >= 8 && descriptor.vocabulary.length >= 10);
});
