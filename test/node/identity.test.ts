import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  // the answer says so, and it holds: the same equation and salt recover the machine again (issue 29)
  assert.equal(ok.body.recovery, 'unchanged');
  const again = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt });
  assert.equal(again.status, 200);
  assert.notEqual(again.body.apiKey, ok.body.apiKey);
});

test('failed recoveries are limited per (machine, address): an attacker locked out after 5 does not lock out the owner from another address', async () => {
  const m = await t.machine('guessed');
  const guess = (i: number) => ({ zid: m.zid, equation: `${i}*x + 1 = 2 | x = 0 | guess`, salt: m.recovery.salt });
  for (let i = 0; i < 5; i++) {
    const r = await t.call('POST', '/api/machines/recover', guess(i), undefined, { 'x-test-ip': '127.0.0.2' });
    assert.equal(r.status, 401, r.text);
  }
  // the attacker's address is locked out for this machine, even with the right material
  for (const body of [guess(5), { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt }]) {
    const r = await t.call('POST', '/api/machines/recover', body, undefined, { 'x-test-ip': '127.0.0.2' });
    assert.equal(r.status, 429, r.text);
    assert.equal(r.body.code, 'RATE_LIMITED');
    assert.ok(Number(r.headers['retry-after']) > 0);
  }
  // nothing was rotated: the original key still works
  assert.equal((await t.call('GET', '/api/machines/me', undefined, m.apiKey)).status, 200);
  // the owner, from their own address, recovers at once (before issue 19, five failures by anyone
  // locked the owner out for 15 minutes)
  const owner = await t.call('POST', '/api/machines/recover', { zid: m.zid, equation: m.recovery.equation, salt: m.recovery.salt }, undefined, { 'x-test-ip': '127.0.0.1' });
  assert.equal(owner.status, 200, owner.text);
  assert.equal((await t.call('GET', '/api/machines/me', undefined, owner.body.apiKey)).body.zid, m.zid);
  // and per address: 20 failures from one address over several machines, then refused
  const ip = '203.0.113.5';
  const zids: string[] = [];
  for (let i = 0; i < 5; i++) zids.push((await t.machine(`many-${i}`)).zid);
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await t.call('POST', '/api/machines/recover', { zid: zids[i % 5], equation: 'nope', salt: 'nope' }, undefined, { 'x-test-ip': ip })).status);
  assert.deepEqual(statuses.slice(0, 20), new Array(20).fill(401));
  assert.equal(statuses[20], 429);
});

test('a demo key creates at most 3 machines: the 4th is 429 QUOTA_EXCEEDED, also when they are asked for at once', async () => {
  const demo = await t.demoKey();
  const ip = { 'x-test-ip': '198.51.100.10' };
  const made = await Promise.all([1, 2, 3, 4].map((i) => t.call('POST', '/api/machines', { displayName: `family ${i}` }, demo, ip)));
  assert.deepEqual(made.map((r) => r.status).sort(), [200, 200, 200, 429]);
  const fourth = made.find((r) => r.status === 429)!;
  assert.equal(fourth.body.code, 'QUOTA_EXCEEDED');
  assert.match(fourth.body.error, /3 machines/);
  const fifth = await t.tool('svc_spin_up', { displayName: 'fifth' }, demo);
  assert.equal(fifth.isError, true);
  assert.equal(fifth.body.code, 'QUOTA_EXCEEDED');
  // the three machines are one family: the demo key that made them
  const zids = made.filter((r) => r.status === 200).map((r) => r.body.zid);
  const rows = await t.app.db.query<{ family: string }>('SELECT DISTINCT family FROM machines WHERE zid = ANY($1::text[])', [zids]);
  assert.deepEqual(rows.map((r) => r.family), [createHash('sha256').update(demo).digest('hex')]);
});

test('a machine key cannot create machines (403 FORBIDDEN): svc_spin_up takes a demo key', async () => {
  const m = await t.machine('parent');
  const http = await t.call('POST', '/api/machines', { displayName: 'child' }, m.apiKey);
  assert.equal(http.status, 403, http.text);
  assert.equal(http.body.code, 'FORBIDDEN');
  assert.match(http.body.error, /demo key/);
  const mcp = await t.tool('svc_spin_up', { displayName: 'child' }, m.apiKey);
  assert.equal(mcp.isError, true);
  assert.equal(mcp.body.code, 'FORBIDDEN');
  const [{ n }] = await t.app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM machines WHERE display_name = 'child'");
  assert.equal(Number(n), 0);
});

test('spin-ups are limited per client address: 10 an hour, whatever demo keys they use', async () => {
  const ip = { 'x-test-ip': '198.51.100.20' };
  const demos = await Promise.all([0, 1, 2, 3].map(() => t.demoKey()));
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await t.call('POST', '/api/machines', { displayName: `addr ${i}` }, demos[i % 4], ip)).status);
  assert.deepEqual(statuses.slice(0, 10), new Array(10).fill(200));
  const last = await t.call('POST', '/api/machines', { displayName: 'addr 11' }, demos[3], ip);
  assert.equal(last.status, 429);
  assert.equal(last.body.code, 'RATE_LIMITED');
  assert.ok(Number(last.headers['retry-after']) > 0);
  // another address is not affected
  assert.equal((await t.call('POST', '/api/machines', { displayName: 'elsewhere' }, demos[3], { 'x-test-ip': '198.51.100.21' })).status, 200);
});

test('after 10 failed admin attempts from one address it gets 429 RATE_LIMITED, the right key included; the right key from another address still works', async () => {
  const attacker = { 'x-test-ip': '127.0.0.3' };
  const m = await t.machine('not an admin');
  // wrong keys of every kind count: a random bearer, a machine key, on admin routes and elsewhere
  const tries = [
    () => t.call('GET', '/api/admin/machines', undefined, 'not-the-admin-key-0000000000000000', attacker),
    () => t.call('GET', '/api/admin/machines', undefined, m.apiKey, attacker),
    () => t.call('GET', '/api/svc/pulse', undefined, 'a-guess-at-the-admin-key-00000000000', attacker),
  ];
  for (let i = 0; i < 10; i++) {
    const r = await tries[i % 3]();
    assert.ok(r.status === 401 || r.status === 403, `${i}: ${r.status} ${r.text}`);
  }
  for (const key of ['wrong-again-00000000000000000000000', ADMIN_KEY]) {
    const r = await t.call('GET', '/api/admin/machines', undefined, key, attacker);
    assert.equal(r.status, 429, r.text);
    assert.equal(r.body.code, 'RATE_LIMITED');
    assert.ok(Number(r.headers['retry-after']) > 0);
  }
  // a locked-out address learns nothing from a non-admin route either: the right key is 429 as a wrong one
  assert.equal((await t.call('GET', '/api/svc/pulse', undefined, ADMIN_KEY, attacker)).status, 429);
  assert.equal((await t.call('GET', '/api/svc/pulse', undefined, 'yet-another-guess-000000000000000', attacker)).status, 429);
  // machine keys from that address still work where they belong
  assert.equal((await t.call('GET', '/api/machines/me', undefined, m.apiKey, attacker)).status, 200);
  const admin = await t.call('GET', '/api/admin/machines', undefined, ADMIN_KEY, { 'x-test-ip': '127.0.0.1' });
  assert.equal(admin.status, 200, admin.text);
});

test('an SVC_ADMIN_KEY shorter than 32 characters stops start-up with a message naming it', async () => {
  await assert.rejects(testNode({ env: { SVC_ADMIN_KEY: 'x'.repeat(31) } }), (e: any) => {
    assert.equal(e.name, 'ConfigError');
    assert.match(e.message, /SVC_ADMIN_KEY is 31 characters long; it must be at least 32/);
    return true;
  });
  // `npm start` prints that one line and exits 1
  const dir = mkdtempSync(join(tmpdir(), 'svc-short-admin-'));
  const env: Record<string, string | undefined> = { ...process.env, SVC_DATA_DIR: dir, SVC_ADMIN_KEY: 'short', PORT: '0', DATABASE_URL: '' };
  delete env.NODE_TEST_CONTEXT;
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const p = execFile(process.execPath, [new URL('../../src/main.ts', import.meta.url).pathname], { env, timeout: 60_000 }, (_e, _out, stderr) => resolve({ code: p.exitCode, stderr }));
  });
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim(), 'svc: cannot start: SVC_ADMIN_KEY is 5 characters long; it must be at least 32 (generate one with: openssl rand -hex 32), or leave it unset to turn admin routes off');
  // exactly 32 characters starts
  const ok = await testNode({ env: { SVC_ADMIN_KEY: 'k'.repeat(32) } });
  await ok.close();
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

test('rate events older than a day are deleted as new ones are written; those within every window stay', async () => {
  // an address that flooded the node yesterday, and one event an hour old (inside the longest window)
  await t.app.db.query(`INSERT INTO rate_events (bucket, at) SELECT 'demo-mint:203.0.113.9', now() - interval '2 days' FROM generate_series(1, 500)`);
  await t.app.db.query(`INSERT INTO rate_events (bucket, at) VALUES ('demo-mint:203.0.113.10', now() - interval '59 minutes')`);
  const count = async (bucket: string) => Number((await t.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM rate_events WHERE bucket = $1', [bucket]))[0].n);
  assert.equal(await count('demo-mint:203.0.113.9'), 500);
  assert.equal((await t.call('POST', '/api/demo-key/mint', {}, undefined, { 'x-test-ip': '198.51.100.200' })).status, 200);
  assert.equal(await count('demo-mint:203.0.113.9'), 0, 'yesterday\'s flood is gone');
  assert.equal(await count('demo-mint:203.0.113.10'), 1, 'an event inside the hour window is kept');
  assert.equal(await count('demo-mint:198.51.100.200'), 1);
});
