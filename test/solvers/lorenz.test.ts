import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/lorenz.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
// the acceptance parameters, given explicitly (they are also the defaults)
const classic = solve({ sigma: 10, rho: 28, beta: 8 / 3 });

test('largest Lyapunov exponent at σ=10, ρ=28, β=8/3 is within 0.05 of 0.906 (acceptance)', () => {
  const lam = classic.result.lyapunov as number;
  assert.ok(Math.abs(lam - 0.906) < 0.05, `lambda ${lam}`);
  assert.equal(classic.result.chaotic, true);
});

test('phase-volume contraction rate matches -(σ + 1 + β) within the 0.1 % bound', () => {
  assert.ok(Math.abs(classic.value - -(10 + 1 + 8 / 3)) < 1e-3, `${classic.value}`);
  assert.equal(classic.precision.referenceValue, -(10 + 1 + 8 / 3));
  assert.ok(classic.precision.withinBound);
  const other = solve({ sigma: 16, rho: 45.92, beta: 4, steps: 20000, dt: 0.005 });
  assert.ok(Math.abs(other.value - -21) / 21 < 1e-3, `${other.value}`);
});

test('the Lyapunov spectrum has the Lorenz signature (+, 0, −) and the twin and QR estimates agree', () => {
  const [l1, l2, l3] = classic.result.lyapunovSpectrum as number[];
  assert.ok(Math.abs(l1 - 0.906) < 0.05, `l1 ${l1}`);
  assert.ok(Math.abs(l2) < 0.02, `l2 ${l2}`);
  assert.ok(Math.abs(l3 - -14.572) < 0.05, `l3 ${l3}`);
  assert.ok(Math.abs((classic.result.lyapunov as number) - l1) < 0.03);
  const dky = classic.result.kaplanYorkeDimension as number;
  assert.ok(dky > 2.05 && dky < 2.07, `Kaplan-Yorke dimension ${dky}`);
});

test('below the chaotic threshold (ρ = 14, stable convection) the largest exponent is negative', () => {
  const out = solve({ rho: 14, steps: 20000 });
  assert.ok((out.result.lyapunov as number) < -0.01, `${out.result.lyapunov}`);
  assert.equal(out.result.chaotic, false);
  assert.ok(out.precision.withinBound);
  // the trajectory settles on a convection fixed point (±√(β(ρ−1)), ±√(β(ρ−1)), ρ−1)
  const f = out.result.final as { x: number; y: number; z: number };
  assert.ok(Math.abs(Math.abs(f.x) - Math.sqrt((8 / 3) * 13)) < 1e-6 && Math.abs(f.z - 13) < 1e-6);
});

test('the twin estimate does not depend on the initial separation', () => {
  const a = solve({ delta: 1e-10, steps: 50000 });
  const b = solve({ delta: 1e-5, steps: 50000 });
  assert.ok(Math.abs((a.result.lyapunov as number) - (b.result.lyapunov as number)) < 0.05);
});

test('the series carries the attractor and a running exponent', () => {
  const s = classic.series!;
  assert.deepEqual(Object.keys(s), ['t', 'x', 'y', 'z', 'lyapunov']);
  assert.ok(s.t.length > 100 && s.t.length <= 2001);
  assert.ok(Math.max(...s.z) > 40 && Math.min(...s.x) < -15);
});

test('an over-large step is refused as UNSTABLE, and stability is reported for a good one', () => {
  assert.ok(classic.stability!.stable && classic.stability!.number < 1);
  assert.throws(() => solve({ rho: 400, sigma: 100, dt: 0.05, steps: 2000 }),
    (e: unknown) => e instanceof SvcError && e.code === 'UNSTABLE');
});

test('same input gives identical bits', () => {
  assert.deepEqual(solve({ steps: 5000 }), solve({ steps: 5000 }));
});

test('bounds: out-of-range fields are refused by the schema', () => {
  for (const b of [{ dt: 0.1 }, { dt: 0 }, { steps: 50 }, { steps: 3e6 }, { steps: 1000.5 }, { delta: 0 }, { delta: 0.1 }, { sigma: -1 }, { x0: 1 }]) {
    assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  }
});

test('descriptor carries at least 8 examples and a vocabulary', () => {
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.includes('lyapunov'));
  assert.deepEqual(descriptor.operators, ['KO42', 'NL10']);
  assert.equal(descriptor.unit, '1/t');
});
