import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/acoustic.ts';

const ctx = { seed: 1, progress() {} };
const solve = (args: Record<string, unknown>) => run(descriptor.input.parse(args), ctx);

test('first three modes of a 1 m open-closed duct are within 0.1 % of (2n−1)·c/4L (default N)', () => {
  for (const mode of [1, 2, 3]) {
    const out = solve({ L: 1, c: 343, ends: 'open-closed', mode });
    const exact = ((2 * mode - 1) * 343) / 4;
    assert.ok(Math.abs(out.value - exact) / exact < 1e-3, `mode ${mode}: ${out.value} vs ${exact}`);
    assert.equal(out.precision.withinBound, true);
    assert.ok(Math.abs((out.precision.referenceValue as number) - exact) < 1e-9);
  }
});

test('open-open and closed-closed ducts follow n·c/2L; the closed-closed zero mode is not counted', () => {
  for (const ends of ['open-open', 'closed-closed'] as const) {
    for (const mode of [1, 2, 5]) {
      const out = solve({ L: 2.5, c: 340, ends, mode, N: 800 });
      const exact = (mode * 340) / (2 * 2.5);
      assert.ok(Math.abs(out.value - exact) / exact < 1e-3, `${ends} mode ${mode}: ${out.value}`);
    }
  }
});

test('the finite-volume error is second order: doubling N quarters it, and the a-posteriori estimate tracks it', () => {
  const e1 = solve({ ends: 'open-closed', mode: 3, N: 100 }).precision.errorPct;
  const e2 = solve({ ends: 'open-closed', mode: 3, N: 200 }).precision.errorPct;
  assert.ok(e1 / e2 > 3.8 && e1 / e2 < 4.2, `ratio ${e1 / e2}`);
  const out = solve({ ends: 'open-closed', mode: 3, N: 200 });
  const est = (out.result as { errorEstimatePct: number }).errorEstimatePct;
  assert.ok(Math.abs(est - out.precision.errorPct) < 0.2 * out.precision.errorPct);
  // a coarse grid is honestly reported outside the 0.1 % bound
  const coarse = solve({ ends: 'open-open', mode: 3, N: 12 });
  assert.equal(coarse.precision.withinBound, false);
});

test('series lists the first modes with their references; result names the inputs', () => {
  const out = solve({ ends: 'open-open', mode: 2 });
  const s = out.series!;
  assert.equal(s.mode.length, s.f.length);
  assert.equal(s.mode[1], 2);
  assert.ok(Math.abs(s.f[1] - out.value) === 0);
  assert.ok(Math.abs(s.fRef[0] - 343 / 2) < 1e-9);
});

test('the same input gives the same bits', () => {
  assert.deepEqual(solve({ mode: 2, N: 333 }), solve({ mode: 2, N: 333 }));
});

test('bounds are enforced by the schema', () => {
  const bad = [
    { N: 7 }, { N: 20001 }, { mode: 0 }, { mode: 2.5 }, { L: 0 }, { c: 0 }, { ends: 'open' },
    { mode: 30, N: 100 }, { extra: 1 },
  ];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  const r = descriptor.input.safeParse({ mode: 30, N: 100 });
  assert.ok(!r.success && /N\/4 = 25/.test(r.error.issues[0].message));
  assert.equal(descriptor.input.safeParse({}).success, true);
});

test('descriptor carries the spec row and enough dispatch material', () => {
  assert.equal(descriptor.name, 'acoustic');
  assert.equal(descriptor.domain, 'Acoustics');
  assert.deepEqual(descriptor.operators, ['KO42', 'WM1']);
  assert.equal(descriptor.unit, 'Hz');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
