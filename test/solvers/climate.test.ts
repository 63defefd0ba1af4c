import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, CLIMATE_WORK_LIMIT } from '../../src/solvers/climate.ts';
import { SvcError } from '../../src/core/errors.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);

test('climate total mass conserved to 1e-10 relative', () => {
  for (const fields of [{}, { N: 1000, steps: 4000 }, { N: 64, steps: 2000, H: 4000 }, { N: 300, steps: 500, g: 3.71, H: 10 }]) {
    const r = solve(fields).result as any;
    assert.ok(r.massRelativeError < 1e-10, `${JSON.stringify(fields)}: ${r.massRelativeError}`);
    assert.equal(r.massConserved, true);
  }
});

test('the measured front speed matches sqrt(g·H) within 1 %', () => {
  for (const [g, H] of [[9.81, 1], [9.81, 4000], [3.71, 10], [1, 0.01]]) {
    const out = solve({ g, H, N: 400, steps: 300 });
    const c = Math.sqrt(g * H);
    const r = out.result as any;
    assert.equal(out.precision.referenceValue, c);
    assert.ok(Math.abs(r.frontSpeed - c) / c < 0.01, `g=${g} H=${H}: ${r.frontSpeed} vs ${c}`);
    assert.ok(out.precision.withinBound);
  }
});

test('the wave speed is √(gH), not g·H or √g: doubling H raises it by √2', () => {
  const a = (solve({ H: 2 }).result as any).frontSpeed;
  const b = (solve({ H: 8 }).result as any).frontSpeed;
  assert.ok(Math.abs(b / a - 2) < 0.005, `ratio ${b / a}`);
});

test('value is the peak surface height: the hump spreads, so it drops below the start but stays above H', () => {
  const out = solve({});
  const r = out.result as any;
  assert.equal(out.value, r.peakHeight);
  assert.ok(out.value > 1 && out.value < r.initialPeakHeight);
  // the hump splits in two: each half carries about half the initial elevation (less LF diffusion)
  assert.ok(r.peakElevation < 0.6 * (r.initialPeakHeight - 1) && r.peakElevation > 0.3 * (r.initialPeakHeight - 1));
});

test('sqrt(g·H)·dt/dx > 1 is refused as UNSTABLE with the number', () => {
  const N = 200, g = 9.81, H = 2, dt = 0.002;
  const hmax = H * 1.001;
  const expected = Math.sqrt(g * hmax) * dt * N;
  assert.throws(() => solve({ N, g, H, dt }), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    const st = (e.details as any).stability;
    // the hump peak sits between two cell centres, so h_max is a hair under 1.001·H
    assert.ok(Math.abs(st.number - expected) / expected < 1e-5, `${st.number} vs ${expected}`);
    assert.equal(st.limit, 1);
    assert.equal(st.stable, false);
    return true;
  });
  const ok = solve({ N, g, H, dt: 0.9 / (N * Math.sqrt(g * hmax)), steps: 50 });
  assert.ok(ok.stability!.number <= 1 && ok.stability!.number > 0.89);
});

test('the work limit N·steps is refused as INVALID_INPUT', () => {
  assert.throws(() => solve({ N: 20000, steps: 100000 }), (e: any) => e.code === 'INVALID_INPUT' && e.details.max === CLIMATE_WORK_LIMIT / 20000);
});

test('same input, same bits', () => {
  assert.deepEqual(solve({ N: 100, steps: 50 }), solve({ N: 100, steps: 50 }));
});

test('limits and field types', () => {
  const bad = [{ N: 15 }, { N: 20001 }, { g: 0 }, { H: -1 }, { dt: 0 }, { steps: 0 }, { N: 1.5 }, { L: 3 }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  assert.equal(descriptor.input.safeParse({ N: 16, steps: 1, g: 1, H: 1, dt: 1e-3 }).success, true);
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ g: 1000, H: 100000, N: 16, steps: 20 }, { g: 1e-9, H: 1e-9, N: 16, steps: 20 }, { N: 20000, steps: 1 }, { dt: 1e-12, steps: 10 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'climate');
  assert.equal(descriptor.domain, 'Geophysical Fluid Dynamics');
  assert.deepEqual(descriptor.operators, ['KO42', 'OC1']);
  assert.equal(descriptor.unit, 'h');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
