import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/heat.ts';
import { SvcError } from '../../src/core/errors.ts';
import { assertFiniteOrRefused } from './util.ts';
import { testNode } from '../helpers.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

test('heat mode decay within 0.1 % at nx = 64 (2-D ADI, the default)', () => {
  const out = solve({ nx: 64, ny: 64 });
  assert.equal(out.method, 'adi-peaceman-rachford');
  const t = 1000 * 5e-5;
  const ref = Math.exp(-1 * Math.PI ** 2 * 2 * t);
  assert.ok(rel(out.value, ref) < 1e-3, `amplitude ${out.value} vs ${ref}`);
  assert.equal(out.precision.referenceValue, ref);
  assert.ok(out.precision.withinBound);
  assert.ok(out.precision.errorPct < 0.1);
});

test('heat mode decay within 0.1 % at nx = 64 for FTCS, Crank-Nicolson and 1-D FTCS', () => {
  for (const [fields, method] of [
    [{ method: 'explicit', nx: 64, ny: 64 }, 'ftcs'],
    [{ dim: 1, nx: 64 }, 'crank-nicolson'],
    [{ dim: 1, nx: 64, method: 'explicit' }, 'ftcs'],
    [{ nx: 64, ny: 64, kx: 2, ky: 3, dt: 1e-5, steps: 500 }, 'adi-peaceman-rachford'],
    [{ dim: 1, nx: 64, mode: 2, alpha: 0.1, dt: 1e-4, steps: 400 }, 'crank-nicolson'],
  ] as const) {
    const out = solve(fields);
    assert.equal(out.method, method);
    const k2 = 'dim' in fields ? ((fields as any).mode ?? 1) ** 2 : ((fields as any).kx ?? 1) ** 2 + ((fields as any).ky ?? 1) ** 2;
    const t = ((fields as any).dt ?? 5e-5) * ((fields as any).steps ?? 1000);
    const ref = Math.exp(-((fields as any).alpha ?? 1) * Math.PI ** 2 * k2 * t);
    assert.ok(rel(out.value, ref) < 1e-3, `${JSON.stringify(fields)}: ${out.value} vs ${ref}`);
  }
});

test('each scheme reproduces its own exact amplification factor (catches a wrong method)', () => {
  // Large steps make the schemes differ strongly from each other and from the continuum:
  // Crank-Nicolson g = (1 − rμ/2)/(1 + rμ/2), not backward Euler 1/(1 + rμ) nor exp(−rμ).
  const nx = 32, alpha = 1, dt = 2e-3, steps = 20;
  const out = solve({ dim: 1, nx, alpha, dt, steps });
  const r = alpha * dt * nx * nx;
  const mu = 4 * Math.sin(Math.PI / (2 * nx)) ** 2;
  const g = (1 - r * mu / 2) / (1 + r * mu / 2);
  assert.ok(rel(out.value, g ** steps) < 1e-10);
  assert.ok(rel(out.value, (1 / (1 + r * mu)) ** steps) > 1e-3);

  const adi = solve({ nx: 16, ny: 32, kx: 3, ky: 5, dt: 1e-3, steps: 30 });
  const mx = 4 * Math.sin(3 * Math.PI / 32) ** 2, my = 4 * Math.sin(5 * Math.PI / 64) ** 2;
  const rx = 1e-3 * 256, ry = 1e-3 * 1024;
  const gAdi = ((1 - rx * mx / 2) * (1 - ry * my / 2)) / ((1 + rx * mx / 2) * (1 + ry * my / 2));
  assert.ok(rel(adi.value, gAdi ** 30) < 1e-9, `${adi.value} vs ${gAdi ** 30}`);

  const ftcs = solve({ method: 'explicit', nx: 20, ny: 20, kx: 2, ky: 1, dt: 5e-4, steps: 40 });
  const gF = 1 - 5e-4 * 400 * (4 * Math.sin(2 * Math.PI / 40) ** 2 + 4 * Math.sin(Math.PI / 40) ** 2);
  assert.ok(rel(ftcs.value, gF ** 40) < 1e-10);
  assert.ok((ftcs.result as any).schemeErrorPct < 1e-8);
});

test('the truncation error shrinks as O(dx²) under refinement', () => {
  const err = (nx: number) => solve({ dim: 1, nx, dt: 1e-5, steps: 2000 }).precision.errorPct;
  const e32 = err(32), e64 = err(64);
  assert.ok(e32 / e64 > 3.5 && e32 / e64 < 4.5, `ratio ${e32 / e64}`);
});

test('explicit FTCS past r = 1/2 is refused as UNSTABLE with r, the implicit method runs', () => {
  const fields = { method: 'explicit', nx: 64, ny: 64, dt: 1e-4 };
  const r = 1e-4 * (64 * 64 + 64 * 64);
  assert.throws(() => solve(fields), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    const st = (e.details as any).stability;
    assert.ok(Math.abs(st.number - r) < 1e-12);
    assert.equal(st.limit, 0.5);
    assert.equal(st.stable, false);
    return true;
  });
  const imp = solve({ ...fields, method: 'implicit' });
  assert.equal(imp.stability?.stable, true);
  assert.ok(Math.abs(imp.stability!.number - r) < 1e-12);
  // 1-D uses 1/dx² alone
  assert.throws(() => solve({ method: 'explicit', dim: 1, nx: 100, dt: 6e-5 }), (e: any) => e.code === 'UNSTABLE'
    && Math.abs(e.details.stability.number - 0.6) < 1e-12);
  assert.doesNotThrow(() => solve({ method: 'explicit', dim: 1, nx: 100, dt: 4e-5, steps: 10 }));
});

test('the stability number is reported on stable explicit runs', () => {
  const out = solve({ method: 'explicit', nx: 32, ny: 16, dt: 1e-4, steps: 10 });
  assert.ok(Math.abs(out.stability!.number - 1e-4 * (1024 + 256)) < 1e-12);
  assert.equal(out.stability!.stable, true);
});

test('a mode the grid cannot represent is refused as INVALID_INPUT', () => {
  assert.throws(() => solve({ nx: 8, kx: 8 }), (e: any) => e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ ny: 10, ky: 12 }), (e: any) => e.code === 'INVALID_INPUT');
  assert.throws(() => solve({ dim: 1, nx: 16, mode: 16 }), (e: any) => e.code === 'INVALID_INPUT');
});

test('same input, same bits', () => {
  const a = solve({ nx: 24, ny: 40, kx: 2, steps: 50 });
  const b = solve({ nx: 24, ny: 40, kx: 2, steps: 50 });
  assert.deepEqual(a, b);
});

test('limits: nx and ny 8..1024, method, dim, unknown fields', () => {
  const bad = [{ nx: 7 }, { nx: 1025 }, { ny: 7 }, { ny: 1025 }, { nx: 10.5 }, { method: 'spectral' }, { dim: 3 },
    { alpha: -1 }, { dt: 0 }, { steps: 0 }, { foo: 1 }, { nx: Number.POSITIVE_INFINITY }, { alpha: Number.NaN }];
  for (const f of bad) assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  for (const f of [{ nx: 8 }, { nx: 128, ny: 128 }, { nx: 1024 }, { method: 'explicit' }, { dim: 1 }]) {
    assert.equal(descriptor.input.safeParse(f).success, true, JSON.stringify(f));
  }
});

test('the series starts at t = 0 with amplitude 1 and tracks the reference', () => {
  const out = solve({});
  const s = out.series!;
  assert.equal(Object.keys(s)[0], 't');
  assert.equal(s.t[0], 0);
  assert.equal(s.amplitude[0], 1);
  assert.equal(s.t.length, s.amplitude.length);
  for (let i = 0; i < s.t.length; i++) assert.ok(Math.abs(s.amplitude[i] - s.reference[i]) < 1e-3);
});


test('corner inputs give finite numbers or a refusal, never a crash', () => {
  for (const fields of [{ alpha: 1000, dt: 10, steps: 50, nx: 128, ny: 128 }, { alpha: 1e-9, dt: 1e-9, steps: 3 }, { dim: 1, nx: 128, mode: 127, alpha: 1000, dt: 10, steps: 20000 }, { method: 'explicit', nx: 8, ny: 8, kx: 7, ky: 7, dt: 1e-3, steps: 500 }]) {
    assertFiniteOrRefused(() => solve(fields), JSON.stringify(fields));
  }
});

test('descriptor: spec metadata, examples and vocabulary', () => {
  assert.equal(descriptor.name, 'heat');
  assert.equal(descriptor.domain, 'Thermal Diffusion');
  assert.deepEqual(descriptor.operators, ['KO42', 'CHE17']);
  assert.equal(descriptor.unit, 'T');
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.length >= 10);
});

test('over REST and MCP: unstable explicit heat, wave, react and climate runs are 422 UNSTABLE with the number, nothing sealed or charged', { timeout: 300_000 }, async () => {
  const t = await testNode();
  try {
    const m = await t.machine('explicit-stability');
    const chainBefore = (await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length;
    const cases: [string, Record<string, unknown>, number, number][] = [
      ['heat', { method: 'explicit', nx: 64, ny: 64, dt: 1e-4, steps: 10 }, 1e-4 * 2 * 64 * 64, 0.5],
      ['heat', { method: 'explicit', dim: 1, nx: 100, dt: 6e-5, steps: 10 }, 0.6, 0.5],
      ['wave', { nx: 64, ny: 64, dt: 1.2 / (Math.SQRT2 * 64), steps: 10 }, 1.2, 1],
      ['react', { N: 128, dt: 10, steps: 10 }, 2e-5 * 10 / (2.5 / 128) ** 2, 0.25],
      ['climate', { N: 200, H: 2, dt: 0.002, steps: 10 }, Math.sqrt(9.81 * 2 * 1.001) * 0.002 * 200, 1],
    ];
    for (const [name, body, number, limit] of cases) {
      const r = await t.call('POST', `/api/svc/${name}`, body, m.apiKey);
      assert.equal(r.status, 422, `${name}: ${r.text.slice(0, 200)}`);
      assert.equal(r.body.ok, false);
      assert.equal(r.body.code, 'UNSTABLE');
      assert.ok(Math.abs(r.body.stability.number - number) < 1e-5 * number, `${name}: ${r.body.stability.number} vs ${number}`);
      assert.equal(r.body.stability.limit, limit);
      assert.equal(r.body.stability.stable, false);
      const tool = await t.tool(`svc_${name}`, body, m.apiKey);
      assert.equal(tool.isError, true);
      assert.equal(tool.body.code, 'UNSTABLE');
      assert.ok(Math.abs(tool.body.stability.number - number) < 1e-5 * number);
    }
    // nothing was sealed or charged: the chain did not grow, the tokens are whole
    const me = await t.call('GET', '/api/machines/me', undefined, m.apiKey);
    assert.equal(me.body.tokens.remaining, t.app.config.tokensPerDay);
    assert.equal((await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length, chainBefore);
    // a stable explicit run seals, carrying its stability number
    const ok = await t.call('POST', '/api/svc/heat', { method: 'explicit', nx: 32, ny: 32, dt: 1e-4, steps: 20 }, m.apiKey);
    assert.equal(ok.status, 200, ok.text.slice(0, 200));
    assert.equal(ok.body.unit, 'T');
    assert.deepEqual(ok.body.svcState.operators.slice(0, 2), ['KO42', 'CHE17']);
    assert.ok(Math.abs(ok.body.stability.number - 1e-4 * 2 * 32 * 32) < 1e-12);
    assert.equal(ok.body.stability.stable, true);
    assert.equal(ok.body.tokens.remaining, t.app.config.tokensPerDay - 1);
    assert.equal((await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length, chainBefore + 1);
  } finally { await t.close(); }
});
