import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/tumor.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);

test('tumor front speed within 3 % of 2·√(r·D)', () => {
  for (const fields of [{}, { D: 2, r: 0.3, L: 300, tMax: 150 }, { D: 0.1, r: 0.5, L: 60, N: 3000, tMax: 100 }, { D: 0.01, r: 100, L: 10, tMax: 1 }]) {
    const out = solve(fields);
    const D = (fields as any).D ?? 1, r = (fields as any).r ?? 1;
    const c = 2 * Math.sqrt(r * D);
    assert.equal(out.precision.referenceValue, c);
    assert.ok(Math.abs(out.value - c) / c < 0.03, `${JSON.stringify(fields)}: ${out.value} vs ${c}`);
    assert.ok(out.precision.withinBound);
  }
});

test('the front approaches 2√(rD) from below as Bramson predicts; the corrected speed is within 0.5 %', () => {
  const out = solve({});
  const r = out.result as any;
  assert.ok(out.value < 2, 'finite-time fronts are slower than c*');
  assert.ok(Math.abs(r.bramsonCorrectedSpeed - 2) / 2 < 0.005, `${r.bramsonCorrectedSpeed}`);
  // a longer run gets closer
  const longer = solve({ tMax: 120, L: 400, N: 4000 });
  assert.ok(Math.abs(longer.value - 2) < Math.abs(out.value - 2));
});

test('the speed scales as √(r·D): quadrupling D doubles it', () => {
  const a = solve({ D: 0.5, L: 150, N: 3000 }).value;
  const b = solve({ D: 2, L: 300, N: 3000 }).value;
  assert.ok(Math.abs(b / a - 2) < 0.02, `ratio ${b / a}`);
});

test('a front that reaches the far end before it can be measured is refused, not guessed', () => {
  assert.throws(() => solve({ tMax: 1e6 }), (e: any) => e.code === 'INVALID_INPUT');
});

test('same input, same bits', () => {
  assert.deepEqual(solve({ N: 500, tMax: 40, L: 100 }), solve({ N: 500, tMax: 40, L: 100 }));
});

test('limits and field types', () => {
  const bad = [{ D: 0 }, { r: -1 }, { N: 49 }, { N: 20001 }, { tMax: 0 }, { L: 0 }, { speed: 2 }, { N: 100.5 }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  assert.equal(descriptor.input.safeParse({ D: 1, r: 1, L: 100, N: 1000, tMax: 30 }).success, true);
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ D: 1e6, r: 1e-6, L: 1e9, N: 50, tMax: 1e9 }, { D: 1e-6, r: 1e6, L: 1e-6, N: 20000, tMax: 1e-6 }, { r: 1e6, tMax: 1e9 }, { D: 1e6, r: 1e6, L: 1, N: 50, tMax: 1 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'tumor');
  assert.equal(descriptor.domain, 'Growth-Front Dynamics');
  assert.deepEqual(descriptor.operators, ['KO42', 'CELL_GROWTH']);
  assert.equal(descriptor.unit, 'c');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
