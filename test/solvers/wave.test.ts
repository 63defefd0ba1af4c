import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/wave.ts';
import { SvcError } from '../../src/core/errors.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

test('wave energy drift below 1e-4 over 1,000 steps: membrane, Maxwell TE, string', () => {
  for (const fields of [
    { steps: 1000 },
    { steps: 1000, nx: 128, ny: 96, kx: 3, ky: 2, courant: 0.95 },
    { steps: 1000, mode: 'maxwell' },
    { steps: 1000, mode: 'maxwell', eps: 2, mu: 1.5, kx: 2, ky: 1, courant: 0.99 },
    { steps: 1000, mode: 'wave1d', mode_k: 3, c: 340 },
    { steps: 1000, dim: 1, nx: 128, courant: 1 },
  ]) {
    const out = solve(fields);
    const r = out.result as any;
    assert.ok(r.maxEnergyDrift < 1e-4, `${JSON.stringify(fields)}: drift ${r.maxEnergyDrift}`);
    assert.ok(rel(out.value, r.initialEnergy) < 1e-4);
    assert.ok(out.precision.withinBound);
    assert.equal(out.precision.referenceValue, r.initialEnergy);
  }
});

test('the conserved discrete energy is the continuum mode energy up to O(dx²)', () => {
  // membrane: ½c²π²(kx²+ky²)/4 ; string: ½c²π²k²/2 ; TE cavity: ½·mu/4
  const m = solve({ nx: 64, ny: 64, c: 2 });
  assert.ok(rel(m.value, 0.5 * 4 * Math.PI ** 2 * 2 / 4) < 1e-3);
  const s = solve({ dim: 1, nx: 64, mode_k: 2 });
  assert.ok(rel(s.value, 0.5 * Math.PI ** 2 * 4 / 2) < 2e-3);
  const e = solve({ mode: 'maxwell', mu: 3, eps: 0.5 });
  assert.ok(rel(e.value, 0.5 * 3 / 4) < 1e-9); // E = 0 at the start, so W⁰ = ½·mu·Σφ²·dxdy exactly
});

test('the measured mode frequency matches c·π·√(kx²+ky²) (and the scheme\'s discrete dispersion)', () => {
  for (const fields of [
    { nx: 64, ny: 64 },
    { nx: 96, ny: 64, kx: 2, ky: 3, c: 1.5 },
    { mode: 'maxwell', eps: 2, mu: 1, kx: 2, ky: 1 },
    { mode: 'wave1d', nx: 100, mode_k: 2, c: 3 },
  ]) {
    const out = solve(fields);
    const f = (out.result as any).frequency;
    assert.ok(f.measured !== null);
    assert.ok(rel(f.measured, f.analytic) < 1e-3, `${JSON.stringify(fields)}: ${f.measured} vs ${f.analytic}`);
    assert.ok(rel(f.measured, f.discrete) < 1e-6, `${JSON.stringify(fields)}: ${f.measured} vs discrete ${f.discrete}`);
  }
  const mx = (solve({ mode: 'maxwell', eps: 4, mu: 1 }).result as any).frequency;
  assert.ok(rel(mx.analytic, Math.PI * Math.SQRT2 / 2) < 1e-12); // c = 1/√(eps·mu) = 1/2
});

test('Courant number above 1 is a schema error; a dt past the limit is refused as UNSTABLE', () => {
  assert.equal(descriptor.input.safeParse({ courant: 1.01 }).success, false);
  assert.equal(descriptor.input.safeParse({ courant: 1 }).success, true);
  const dt = 1.2 / (Math.SQRT2 * 64);
  assert.throws(() => solve({ dt }), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    const st = (e.details as any).stability;
    assert.ok(Math.abs(st.number - 1.2) < 1e-12);
    assert.equal(st.limit, 1);
    return true;
  });
  assert.throws(() => solve({ dim: 1, nx: 50, c: 2, dt: 0.011 }), (e: any) => e.code === 'UNSTABLE');
  const ok = solve({ dim: 1, nx: 50, c: 2, dt: 0.0099, steps: 100 });
  assert.ok(Math.abs(ok.stability!.number - 0.99) < 1e-12);
  assert.equal(ok.stability!.stable, true);
});

test('maxwell with dim 1 and modes the grid cannot hold are refused as INVALID_INPUT', () => {
  assert.throws(() => solve({ mode: 'maxwell', dim: 1 }), (e: any) => e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ nx: 16, kx: 16 }), (e: any) => e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ dim: 1, nx: 20, mode_k: 25 }), (e: any) => e.code === 'INVALID_INPUT');
});

test('same input, same bits', () => {
  assert.deepEqual(solve({ nx: 32, ny: 48, steps: 200 }), solve({ nx: 32, ny: 48, steps: 200 }));
  assert.deepEqual(solve({ mode: 'maxwell', steps: 100 }), solve({ mode: 'maxwell', steps: 100 }));
});

test('limits: nx and ny 16..128, mode names, unknown fields', () => {
  const bad = [{ nx: 15 }, { nx: 129 }, { ny: 15 }, { ny: 129 }, { mode: 'sound' }, { courant: 0 }, { c: 0 },
    { eps: -1 }, { steps: 0 }, { dim: 0 }, { bogus: true }, { nx: 20.5 }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  for (const f of [{ nx: 16, ny: 16 }, { nx: 128, ny: 128 }, { mode: 'maxwell' }, { mode: 'wave1d' }]) {
    assert.equal(descriptor.input.safeParse(f).success, true, JSON.stringify(f));
  }
});

test('series: t first, energy flat', () => {
  const out = solve({});
  const s = out.series!;
  assert.equal(Object.keys(s)[0], 't');
  assert.equal(s.t.length, s.energy.length);
  for (const e of s.energy) assert.ok(rel(e, s.energy[0]) < 1e-10);
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ c: 1e6, steps: 5 }, { c: 1e-6, steps: 5 }, { mode: 'maxwell', eps: 1e-6, mu: 1e-6, steps: 5 }, { mode: 'maxwell', eps: 1e6, mu: 1e6, steps: 5 }, { dt: 1e-300, steps: 3 }, { dim: 1, nx: 128, mode_k: 127, courant: 1, steps: 2000 }, { kx: 63, ky: 63, courant: 1, steps: 50 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'wave');
  assert.equal(descriptor.domain, 'Wave Mechanics');
  assert.deepEqual(descriptor.operators, ['KO42', 'WM1']);
  assert.equal(descriptor.unit, 'E');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
