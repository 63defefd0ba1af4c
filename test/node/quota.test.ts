import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';

test('100 concurrent sealed calls on a machine with 50 tokens left: exactly 50 sealed, 50 refused, the chain verifies', async () => {
  const t = await testNode({ env: { SVC_TOKENS_PER_DAY: '50' } });
  try {
    const m = await t.machine('quota');
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => t.call('POST', '/api/svc/protect', { liveness: (i % 10) / 10 }, m.apiKey)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 50);
    assert.equal(refused.length, 50);
    for (const r of refused) {
      assert.equal(r.body.code, 'QUOTA_EXCEEDED');
      assert.ok(Number(r.headers['retry-after']) > 0);
    }
    const remaining = ok.map((r) => r.body.tokens.remaining).sort((a, b) => a - b);
    assert.deepEqual(remaining, Array.from({ length: 50 }, (_, i) => i));
    const v = (await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body;
    assert.equal(v.valid, true);
    assert.equal(v.length, 2 + 50);
    const [{ n }] = await t.app.db.query<any>('SELECT count(*)::int AS n FROM receipts WHERE zid = $1', [m.zid]);
    assert.equal(Number(n), 50);
    // nothing more can be sealed today
    assert.equal((await t.call('POST', '/api/svc/protect', {}, m.apiKey)).status, 429);
    assert.equal((await t.call('POST', '/api/svc/shift', { steps: 1 }, m.apiKey)).status, 429);
  } finally { await t.close(); }
});

test('a multi-token call is refused whole when it does not fit, and charges nothing', async () => {
  const t = await testNode({ env: { SVC_TOKENS_PER_DAY: '10' } });
  try {
    const m = await t.machine('quota2');
    const r = await t.call('POST', '/api/svc/shift', { steps: 11 }, m.apiKey);
    assert.equal(r.status, 429);
    assert.equal(r.body.tokens.remaining, 10);
    const ok = await t.call('POST', '/api/svc/shift', { steps: 10 }, m.apiKey);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.tokens.remaining, 0);
  } finally { await t.close(); }
});
