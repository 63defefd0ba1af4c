import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';

test('ids with NUL bytes and prototype names are 4xx error bodies, never 500', async () => {
  const t = await testNode();
  try {
    const m = await t.machine('nul');
    for (const [method, path] of [
      ['GET', '/api/contracts/abc%00def'], ['POST', '/api/contracts/abc%00def/fire'],
      ['GET', '/console/vendor/__proto__'], ['GET', '/console/vendor/toString'], ['GET', '/console/vendor/constructor'],
    ] as const) {
      const r = await t.call(method, path, method === 'POST' ? {} : undefined, m.apiKey);
      assert.ok(r.status >= 400 && r.status < 500, `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.body.ok, false);
    }
  } finally { await t.close(); }
});

test('prototype words in a contract request and denormal closed-form inputs are answered, never 500', async () => {
  const t = await testNode();
  try {
    const m = await t.machine('proto');
    for (const query of ['constructor', 'toString then __proto__ then hasOwnProperty', 'valueOf within three constructor days']) {
      const r = await t.call('POST', '/api/contracts/generate', { query: query.padEnd(8, '.') }, m.apiKey);
      assert.ok(r.status < 500, `${query}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    const body = { mu2_eff: 2.884724801406179e-221, lambda_eff: -8.56253981961111e-24, F_eff: -8e-323, couplings: [{ target: 'mu2', value: 8.926150360686846e-20 }], compile: { scale: 1.7827534037026067e-84 }, phi0: -3e-323, dphi0: -1.905011627766765e-257, tEnd: 7.847690768535458e-79 };
    const r = await t.call('POST', '/api/svc/closedform', body, m.apiKey);
    assert.ok(r.status >= 400 && r.status < 500, `closedform: ${r.status} ${r.text.slice(0, 200)}`);
  } finally { await t.close(); }
});

test('a solver that throws on an extreme input is refused 422 UNSTABLE, nothing sealed', async () => {
  const t = await testNode();
  try {
    const m = await t.machine('extreme');
    const body = { mu2_eff: 3.5e-323, lambda_eff: -999999.9999999986, F_eff: 1.4084395299949628e-105, couplings: [], inputs: {}, compile: { scale: 8.4e-323 }, phi0: -5e-324, dphi0: -5.168139704679136e-56, tEnd: 3.9273277672368374e-54 };
    const r = await t.call('POST', '/api/svc/closedform', body, m.apiKey);
    assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.text.slice(0, 200)}`);
    const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
    assert.equal(Number(n), 0);
  } finally { await t.close(); }
});
