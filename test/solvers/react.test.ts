import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, REACT_WORK_LIMIT, internals } from '../../src/solvers/react.ts';
import { SvcError } from '../../src/core/errors.ts';
import { assertFiniteOrRefused } from './util.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(fields), { seed, progress() {} });

test('mass balance: the change of total u equals the integrated reaction term (Gray-Scott)', () => {
  const out = solve({ N: 64, steps: 1500 });
  const mb = (out.result as any).massBalance;
  assert.ok(Math.abs(mb.changeOfTotalU) > 1e-3, 'the reaction must actually change u');
  assert.ok(mb.relativeMismatch < 1e-10, `mismatch ${mb.relativeMismatch}`);
  assert.ok(out.precision.withinBound);
  assert.ok(Math.abs(out.value - out.precision.referenceValue!) < 1e-12);
});

test('mass balance holds for FitzHugh-Nagumo, oscillatory and excitable', () => {
  for (const fields of [{ model: 'fitzhugh-nagumo', N: 48, steps: 800 }, { model: 'fitzhugh-nagumo', N: 48, steps: 800, I: 0.5, Dv: 0.2 }]) {
    const mb = (solve(fields).result as any).massBalance;
    assert.ok(mb.relativeMismatch < 1e-10, `${JSON.stringify(fields)}: ${mb.relativeMismatch}`);
  }
});

test('with F = k = 0 Gray-Scott only converts u into v: the total u + v is conserved', () => {
  const out = solve({ N: 48, steps: 600, F: 0, k: 0, Du: 2e-5, Dv: 2e-5 });
  const r = out.result as any;
  assert.ok(r.meanV > r.initialMeanV + 1e-3, 'v must have grown');
  assert.ok(Math.abs(r.meanU + r.meanV - (r.initialMeanU + r.initialMeanV)) < 1e-12);
});

test('where v = 0 and nothing diffuses, Gray-Scott relaxes u to 1 at exactly the explicit-Euler rate of u_t = F·(1 − u)', () => {
  // Du = Dv = 0: every cell is its own ODE. Outside the central square v stays 0, so
  // u_n − 1 = (u_0 − 1)·(1 − F·dt)^n with u_0 − 1 the seeded noise (|noise| < 1 %). The cells of the
  // square carry v > 0 and stay below 1, so max u − 1 = (largest noise)·(1 − F·dt)^n.
  const F = 0.05, dt = 1, steps = 40;
  const r = solve({ N: 20, steps, F, k: 0, Du: 0, Dv: 0, dt }).result as any;
  const factor = (1 - F * dt) ** steps;
  assert.ok(r.maxU - 1 <= 0.01 * factor + 1e-15);
  assert.ok(r.maxU - 1 >= 0.009 * factor, `${r.maxU - 1} vs ${0.01 * factor}`); // 396 noisy cells: the largest is near 1 %
});

test('one step of the periodic 5-point diffusion is exact on a Fourier mode, wrapped rows and columns included', () => {
  // u = 1 + A·cos(2π(p·i + q·j)/N) is an eigenvector of the periodic 5-point Laplacian with
  // eigenvalue −(4sin²(πp/N) + 4sin²(πq/N)); with v = 0 and F = 0 Gray-Scott's reaction vanishes, so
  // one explicit step multiplies the mode by 1 − c·μ exactly. FitzHugh-Nagumo with epsilon = 0 does the
  // same for v. A wrong neighbour or a bad wrap breaks the mode.
  const N = 16, A = 0.1, p = 3, q = 5, cu = 0.2, cv = 0.15, dt = 0.5;
  const mu = 4 * Math.sin((Math.PI * p) / N) ** 2 + 4 * Math.sin((Math.PI * q) / N) ** 2;
  const mode = (i: number, j: number) => Math.cos((2 * Math.PI * (p * i + q * j)) / N);
  const u = new Float64Array(N * N), v = new Float64Array(N * N), un = new Float64Array(N * N), vn = new Float64Array(N * N);
  for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) u[j * N + i] = 1 + A * mode(i, j);
  const acc = new Float64Array(2);
  internals.reactStep(u, v, un, vn, N, cu, cv, dt, { gray: true, F: 0, k: 0.06, eps: 0, a: 0, b: 0, I: 0 }, acc);
  for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
    assert.ok(Math.abs(un[j * N + i] - (1 + A * (1 - cu * mu) * mode(i, j))) < 1e-14, `u at (${i}, ${j})`);
    assert.equal(vn[j * N + i], 0);
  }
  // FitzHugh-Nagumo, epsilon = 0: v diffuses alone
  for (let k = 0; k < N * N; k++) { v[k] = u[k]; u[k] = 0; }
  internals.reactStep(u, v, un, vn, N, cu, cv, dt, { gray: false, F: 0, k: 0, eps: 0, a: 0, b: 0, I: 0 }, acc);
  for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
    assert.ok(Math.abs(vn[j * N + i] - (1 + A * (1 - cv * mu) * mode(i, j))) < 1e-14, `v at (${i}, ${j})`);
    // u_t = u − u³/3 − v + I at u = 0: one Euler step gives −dt·v
    assert.ok(Math.abs(un[j * N + i] + dt * v[j * N + i]) < 1e-15);
  }
});

test('D·dt/dx² > 1/4 is refused as UNSTABLE with the number', () => {
  const N = 128, dx = 2.5 / N, dt = 10;
  const expected = 2e-5 * dt / (dx * dx);
  assert.throws(() => solve({ N, dt }), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    const st = (e.details as any).stability;
    assert.ok(Math.abs(st.number - expected) < 1e-12);
    assert.equal(st.limit, 0.25);
    assert.equal(st.stable, false);
    return true;
  });
  // Dv counts too
  assert.throws(() => solve({ N, Du: 1e-6, Dv: 1e-4, dt: 1 }), (e: any) => e.code === 'UNSTABLE');
  // FitzHugh-Nagumo on its own domain (200, dx = 200/N)
  assert.throws(() => solve({ model: 'fitzhugh-nagumo', N: 200, dt: 0.3 }), (e: any) => e.code === 'UNSTABLE'
    && Math.abs(e.details.stability.number - 0.3) < 1e-12);
  // the default dt adapts to fine grids and stays stable
  const fine = solve({ N: 400, steps: 5 });
  assert.ok(fine.stability!.number <= 0.25);
});

test('kinetics that blow up within the diffusion limit are refused as UNSTABLE, never returned', () => {
  assert.throws(() => solve({ N: 32, dt: 4, F: 0.9, k: 0.9, steps: 200 }), (e: any) => e.code === 'UNSTABLE');
});

test('the work limit N²·steps is refused as INVALID_INPUT', () => {
  assert.throws(() => solve({ N: 400, steps: 100000 }), (e: any) => e.code === 'INVALID_INPUT'
    && e.details.max === Math.floor(REACT_WORK_LIMIT / 160000));
});

test('same seed, same bits; another seed, other noise', () => {
  const a = solve({ N: 32, steps: 100 }, 7), b = solve({ N: 32, steps: 100 }, 7), c = solve({ N: 32, steps: 100 }, 8);
  assert.deepEqual(a, b);
  assert.notEqual(a.value, c.value);
});

test('limits: N 16..400, model names, unknown fields', () => {
  const bad = [{ N: 15 }, { N: 401 }, { model: 'brusselator' }, { dt: 0 }, { Du: -1 }, { steps: 0 }, { zzz: 1 }, { N: 16.5 }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  for (const f of [{ N: 16 }, { N: 400 }, { model: 'fitzhugh-nagumo' }]) assert.equal(descriptor.input.safeParse(f).success, true, JSON.stringify(f));
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ model: 'fitzhugh-nagumo', a: -10, b: 0, I: 10, epsilon: 10, N: 16, steps: 50 }, { Du: 0, Dv: 0, N: 16, steps: 5 }, { F: 1, k: 1, dt: 100, Du: 1e-9, Dv: 1e-9, N: 16, steps: 20 }, { model: 'fitzhugh-nagumo', dt: 100, Du: 0, Dv: 0, N: 16, steps: 20 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'react');
  assert.equal(descriptor.domain, 'Reaction-Diffusion');
  assert.deepEqual(descriptor.operators, ['KO42', 'ICO9']);
  assert.equal(descriptor.unit, 'c');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});
