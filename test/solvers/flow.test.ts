import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, FLOW_WORK_LIMIT } from '../../src/solvers/flow.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);

test('flow divergence after projection below 1e-6 (defaults)', () => {
  const out = solve({});
  const r = out.result as any;
  assert.ok(r.divergenceMax < 1e-6, `max |div u| = ${r.divergenceMax}`);
  assert.ok(r.divergenceMaxOverRun < 1e-6);
  assert.equal(r.poissonConverged, true);
});

test('flow divergence after projection below 1e-6 with large steps, no viscosity and odd grids', () => {
  for (const fields of [{ N: 32, dt: 0.2, steps: 10 }, { N: 27, visc: 0, steps: 20 }, { N: 48, visc: 0.5, dt: 0.05, steps: 10 }]) {
    const r = solve(fields).result as any;
    assert.ok(r.divergenceMaxOverRun < 1e-6, `${JSON.stringify(fields)}: ${r.divergenceMaxOverRun}`);
  }
});

test('Taylor-Green peak speed decays as exp(−2νt) within the 1 % bound', () => {
  const out = solve({});
  const r = out.result as any;
  const ref = r.initialPeakSpeed * Math.exp(-2 * 0.05 * 50 * 0.02);
  assert.equal(out.precision.referenceValue, ref);
  assert.ok(Math.abs(out.value - ref) / ref < 0.01, `${out.value} vs ${ref}`);
  assert.ok(out.precision.withinBound);
  const strong = solve({ N: 32, visc: 0.2, dt: 0.01, steps: 100 });
  assert.ok(strong.precision.errorPct < 1, `errorPct ${strong.precision.errorPct}`);
  // the decay is physical, not numerical: it is e^{-0.4} here, far from 1
  assert.ok(strong.value < 0.7 * (strong.result as any).initialPeakSpeed);
});

test('the splitting error is first order in dt (halving dt halves it)', () => {
  const e1 = solve({ N: 32, dt: 0.04, steps: 25, visc: 0.05 }).precision.errorPct;
  const e2 = solve({ N: 32, dt: 0.02, steps: 50, visc: 0.05 }).precision.errorPct;
  const ratio = e1 / e2;
  assert.ok(ratio > 1.6 && ratio < 2.5, `ratio ${ratio} (${e1}, ${e2})`);
});

test('the initial Taylor-Green field is discretely divergence-free on the MAC grid', () => {
  const r = solve({ N: 40, steps: 1 }).result as any;
  assert.ok(r.initialDivergence < 1e-12);
});

test('too few Poisson iterations leave divergence behind and say so', () => {
  const r = solve({ N: 32, iters: 3, steps: 10 }).result as any;
  assert.equal(r.poissonConverged, false);
  assert.ok(r.divergenceMax > 1e-6);
  assert.ok(r.poissonItersMax <= 3);
});

test('the work limit N²·steps is refused as INVALID_INPUT', () => {
  assert.throws(() => solve({ N: 160, steps: 400 }), (e: any) => e.code === 'INVALID_INPUT' && e.details.max === Math.floor(FLOW_WORK_LIMIT / 25600));
});

test('same input, same bits', () => {
  assert.deepEqual(solve({ N: 24, steps: 10 }), solve({ N: 24, steps: 10 }));
});

test('limits: N 8..160 and field types', () => {
  const bad = [{ N: 7 }, { N: 161 }, { N: 12.5 }, { dt: 0 }, { visc: -1 }, { iters: 0 }, { steps: 0 }, { extra: 1 }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  for (const f of [{ N: 8 }, { N: 160 }, { visc: 0 }]) assert.equal(descriptor.input.safeParse(f).success, true, JSON.stringify(f));
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ N: 8, dt: 10, visc: 100, steps: 3 }, { N: 8, dt: 1e-9, visc: 0, steps: 3 }, { N: 9, dt: 10, visc: 0, steps: 5, iters: 1 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'flow');
  assert.equal(descriptor.domain, 'Fluid Dynamics');
  assert.deepEqual(descriptor.operators, ['KO42', 'FL3']);
  assert.equal(descriptor.unit, 'm/s');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
