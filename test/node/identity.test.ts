import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testNode, ADMIN_KEY, type TestNode } from '../helpers.ts';

let t: TestNode;
before(async () => { t = await testNode(); });
after(async () => { await t.close(); });

test('a demo key is minted free and has the demo prefix, expiry and tokens', async () => {
  const r = await t.call('POST', '/api/demo-key/mint', {});
  assert.equal(r.status, 200);
  assert.match(r.body.apiKey, /^svc_ak_demo_[A-Za-z0-9_-]{20,}$/);
  assert.equal(r.body.tokens, 100);
  assert.ok(Date.parse(r.body.expiresAt) > Date.now());
});

test('demo minting is limited to 10 per client address per hour', async () => {
  const ip = '192.0.2.77';
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await t.call('POST', '/api/demo-key/mint', {}, undefined, { 'x-test-ip': ip })).status);
  assert.deepEqual(statuses.slice(0, 10), new Array(10).fill(200));
  const last = await t.call('POST', '/api/demo-key/mint', {}, undefined, { 'x-test-ip': ip });
  assert.equal(last.status, 429);
  assert.equal(last.body.code, 'RATE_LIMITED');
  assert.ok(last.headers['retry-after']);
});

test('svc_spin_up with a demo key provisions a machine with a ZID, slug, key and recovery material', async () => {
  const demo = await t.demoKey();
  const r = await t.tool('svc_spin_up', {}, demo);
  assert.equal(r.isError, false);
  const m = r.body;
  assert.match(m.zid, /^Z[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.match(m.slug, /^mcp-agent-[a-z0-9]{6}$/);
  assert.equal(m.displayName, 'mcp-agent');
  assert.equal(m.tier, 'free');
  assert.match(m.apiKey, /^svc_ak_(?!demo_)/);
  assert.equal(m.keyPrefix, 'svc_ak_' + m.apiKey.slice(7, 15));
  assert.ok(m.recovery.equation && m.recovery.salt);
  // keys are stored only as SHA-256 hashes; the recovery equation only as scrypt
  const rows = await t.app.db.query<any>('SELECT key_hash FROM api_keys WHERE zid = $1', [m.zid]);
  assert.deepEqual(rows.map((x) => x.key_hash), [createHash('sha256').update(m.apiKey).digest('hex')]);
  const dump = JSON.stringify(await t.app.db.query('SELECT * FROM machines WHERE zid = $1', [m.zid])) + JSON.stringify(await t.app.db.query('SELECT * FROM api_keys'));
  assert.ok(!dump.includes(m.apiKey) && !dump.includes(m.recovery.equation));
  // the chain starts with a genesis entry
  const chain = await t.call('GET', '/api/chain/verify', undefined, m.apiKey);
  assert.equal(chain.body.valid, true);
  const obs = await t.call('GET', '/api/observer?limit=50', undefined, m.apiKey);
  assert.equal(obs.body.entries.at(-1).kind, 'genesis');
  assert.equal(obs.body.entries.at(-1).seq, 1);
});

test('a demo key may not compute; a machine key may; unknown and malformed keys are 401', async () => {
  const demo = await t.demoKey();
  const r = await t.call('POST', '/api/svc/protect', {}, demo);
  assert.equal(r.status, 403);
  assert.equal(r.body.code, 'FORBIDDEN');
  assert.equal((await t.call('POST', '/api/svc/protect', {})).status, 401);
  assert.equal((await t.call('POST', '/api/svc/protect', {}, 'svc_ak_nope')).status, 401);
  const bad = await t.call('GET', '/api/svc/pulse', undefined, undefined, { authorization: 'Basic Zm9vOmJhcg==' });
  assert.equal(bad.status, 401);
  assert.equal(bad.body.code, 'UNAUTHORIZED');
  // key-free tools work with no key and with a demo key
  assert.equal((await t.call('GET', '/api/svc/pulse')).status, 200);
  assert.equal((await t.call('GET', '/api/svc/pulse', undefined, demo)).status, 200);
});

test('recovery with the equation revokes every key and returns a new one; a wrong equation is refused', async () => {
  const m = await t.machine('recoverable');
  const wrong = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: 'x = 1', salt: m.recovery.salt });
  assert.equal(wrong.status, 401);
  const badZid = await t.call('POST', '/api/machines/recover', { zid: 'Z123', equation: 'x', salt: 's' });
  assert.equal(badZid.status, 400);
  assert.equal(badZid.body.code, 'INVALID_ZID');
  const ok = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt });
  assert.equal(ok.status, 200);
  assert.notEqual(ok.body.apiKey, m.apiKey);
  assert.equal((await t.call('GET', '/api/machines/me', undefined, m.apiKey)).status, 401);
  const me = await t.call('GET', '/api/machines/me', undefined, ok.body.apiKey);
  assert.equal(me.status, 200);
  assert.equal(me.body.zid, m.zid);
  assert.equal((await t.call('GET', '/api/chain/verify', undefined, ok.body.apiKey)).body.valid, true);
});

test('recovery attempts are limited to 5 per machine per 15 minutes: the 6th is refused even with the right equation', async () => {
  const m = await t.machine('guessed');
  for (let i = 0; i < 5; i++) {
    const r = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: `${i}*x + 1 = 2 | x = 0 | guess`, salt: m.recovery.salt }, undefined, { 'x-test-ip': `198.51.100.${i}` });
    assert.equal(r.status, 401, r.text);
  }
  const sixth = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt }, undefined, { 'x-test-ip': '198.51.100.99' });
  assert.equal(sixth.status, 429);
  assert.equal(sixth.body.code, 'RATE_LIMITED');
  assert.ok(Number(sixth.headers['retry-after']) > 0);
  // nothing was rotated: the original key still works
  assert.equal((await t.call('GET', '/api/machines/me', undefined, m.apiKey)).status, 200);
  // and per address: 20 attempts from one address over several machines, then refused
  const ip = '203.0.113.5';
  const zids: string[] = [];
  for (let i = 0; i < 5; i++) zids.push((await t.machine(`many-${i}`)).zid);
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await t.call('POST', '/api/machines/recover', { zid: zids[i % 5], equation: 'nope', salt: 'nope' }, undefined, { 'x-test-ip': ip })).status);
  assert.deepEqual(statuses.slice(0, 20), new Array(20).fill(401));
  assert.equal(statuses[20], 429);
});

test('admin routes need SVC_ADMIN_KEY: list machines and revoke a machine\'s keys', async () => {
  const m = await t.machine('victim');
  for (const key of [undefined, m.apiKey, await t.demoKey()]) {
    const r = await t.call('GET', '/api/admin/machines', undefined, key);
    assert.ok(r.status === 401 || r.status === 403, String(r.status));
  }
  const list = await t.call('GET', '/api/admin/machines?limit=500', undefined, ADMIN_KEY);
  assert.equal(list.status, 200);
  assert.ok(list.body.machines.some((x: any) => x.zid === m.zid));
  const rv = await t.call('POST', `/api/admin/machines/${m.zid}/revoke-keys`, {}, ADMIN_KEY);
  assert.equal(rv.status, 200);
  assert.equal(rv.body.revoked, 1);
  assert.equal((await t.call('POST', '/api/svc/protect', {}, m.apiKey)).status, 401);
  assert.equal((await t.call('POST', '/api/admin/machines/Zbad/revoke-keys', {}, ADMIN_KEY)).body.code, 'INVALID_ZID');
});

test('with no admin key configured, admin routes refuse everyone', async () => {
  const n = await testNode({ env: { SVC_ADMIN_KEY: '' } });
  try {
    const r = await n.call('GET', '/api/admin/machines', undefined, ADMIN_KEY);
    assert.equal(r.status, 401);
    const m = await n.machine();
    assert.equal((await n.call('GET', '/api/admin/machines', undefined, m.apiKey)).body.code, 'ADMIN_REQUIRED');
  } finally { await n.close(); }
});
