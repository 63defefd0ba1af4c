// Issue 19, "Long-lived resources per tenant": stream channels are limited per machine, per
// demo-key family and per opening address (each of the last two at most half the node's limit),
// observer streams per client address and, without a key, to half the node's limit together. One
// actor's attempt to exhaust them fails while another tenant still opens one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { streamsPerAddress, streamsPerFamily } from '../../src/live/channels.ts';
import { observerSubscribers } from '../../src/ops/observer-stream.ts';

let t: TestNode;
before(async () => {
  t = await testNode({ env: { SVC_STREAMS_PER_NODE: '30', SVC_OBSERVER_STREAMS: '10', SVC_OBSERVER_STREAMS_PER_ADDRESS: '4' } });
});
after(async () => { await t.close(); });

const ke = { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 }, ticks: 600 };

/** a demo key minted from `ip`, and up to three machines spun up with it from `ip` */
async function family(ip: string, count: number): Promise<{ apiKey: string; zid: string }[]> {
  const demo = await t.call('POST', '/api/demo-key/mint', {}, undefined, { 'x-test-ip': ip });
  assert.equal(demo.status, 200, demo.text);
  const out: { apiKey: string; zid: string }[] = [];
  for (let i = 0; i < count; i++) {
    const m = await t.call('POST', '/api/machines', { displayName: `actor ${i}` }, demo.body.apiKey, { 'x-test-ip': ip });
    assert.equal(m.status, 200, m.text);
    out.push(m.body);
  }
  return out;
}

test('the family and address limits are never more than half the node\'s', () => {
  assert.equal(streamsPerFamily(t.app), 10);
  assert.equal(streamsPerAddress(t.app), 15);
  const small = { ...t.app, config: { ...t.app.config, streamsPerNode: 8 } };
  assert.equal(streamsPerFamily(small), 4);
  assert.equal(streamsPerAddress(small), 4);
});

test('one actor cannot exhaust stream channels: 5 per machine, 10 per demo-key family, 15 per address; another tenant still opens one', async () => {
  const actorIp = '192.0.2.50';
  const open = (key: string, ip = actorIp) => t.call('POST', '/api/streams', ke, key, { 'x-test-ip': ip });
  const [m1, m2, m3] = await family(actorIp, 3);
  const opened: { id: string; key: string }[] = [];
  // machine 1: 5 channels, the 6th is refused per machine
  for (let i = 0; i < 5; i++) {
    const r = await open(m1.apiKey);
    assert.equal(r.status, 200, r.text);
    opened.push({ id: r.body.channel.id, key: m1.apiKey });
  }
  const sixth = await open(m1.apiKey);
  assert.equal(sixth.status, 429, sixth.text);
  assert.match(sixth.body.error, /per machine/);
  // machine 2 fills the family's 10; machine 3 (same demo key) gets none
  for (let i = 0; i < 5; i++) {
    const r = await open(m2.apiKey);
    assert.equal(r.status, 200, r.text);
    opened.push({ id: r.body.channel.id, key: m2.apiKey });
  }
  const third = await open(m3.apiKey);
  assert.equal(third.status, 429, third.text);
  assert.equal(third.body.code, 'RATE_LIMITED');
  assert.match(third.body.error, /machines of one demo key/);
  assert.ok(Number(third.headers['retry-after']) > 0);
  // a second demo key from the same address: its channels count against the address (15)
  const [m4, m5] = await family(actorIp, 2);
  for (let i = 0; i < 5; i++) {
    const r = await open(m4.apiKey);
    assert.equal(r.status, 200, r.text);
    opened.push({ id: r.body.channel.id, key: m4.apiKey });
  }
  const overAddress = await open(m5.apiKey);
  assert.equal(overAddress.status, 429, overAddress.text);
  assert.match(overAddress.body.error, /one client address/);
  // 15 of the node's 30 are taken; an unrelated tenant opens one
  const other = await t.machine('bystander');
  const theirs = await t.call('POST', '/api/streams', { ...ke, ticks: 2 }, other.apiKey, { 'x-test-ip': '198.51.100.7' });
  assert.equal(theirs.status, 200, theirs.text);
  // a closed channel frees its place in every count
  assert.equal((await t.call('DELETE', `/api/streams/${opened[0].id}`, undefined, opened[0].key)).status, 200);
  assert.equal((await open(m5.apiKey)).status, 200);
  const listed = await t.call('GET', '/api/streams', undefined, m1.apiKey);
  assert.deepEqual(listed.body.limits, { openPerMachine: 5, openPerFamily: 10, openPerAddress: 15, ticks: 600 });
  for (const c of opened.slice(1)) await t.call('DELETE', `/api/streams/${c.id}`, undefined, c.key);
});

/** Opens GET /api/observer/stream in-process from `ip`; a refusal is read whole. */
async function observe(ip: string, key?: string): Promise<{ status: number; body: any; close: () => void }> {
  const res = await t.http.inject({
    method: 'GET', url: '/api/observer/stream', remoteAddress: ip, payloadAsStream: true,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const close = () => { (res.raw.res as unknown as { destroy(): void }).destroy(); };
  if (res.statusCode === 200) return { status: 200, body: null, close };
  const chunks: Buffer[] = [];
  for await (const c of res.stream()) chunks.push(c as Buffer);
  return { status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), close };
}

test('one actor cannot exhaust observer streams: 4 per address, keyless ones at most half the node\'s 10; a key holder still opens one', async () => {
  const held: { close: () => void }[] = [];
  try {
    const base = observerSubscribers(t.app);
    for (let i = 0; i < 4; i++) {
      const s = await observe('203.0.113.1');
      assert.equal(s.status, 200);
      held.push(s);
    }
    const fifth = await observe('203.0.113.1');
    assert.equal(fifth.status, 429);
    assert.equal(fifth.body.code, 'RATE_LIMITED');
    assert.match(fifth.body.error, /per client address/);
    // from a second address: one more keyless stream, then the keyless half (5) is full
    const s = await observe('203.0.113.2');
    assert.equal(s.status, 200);
    held.push(s);
    const keyless = await observe('203.0.113.3');
    assert.equal(keyless.status, 429);
    assert.match(keyless.body.error, /without a key/);
    assert.equal(observerSubscribers(t.app), base + 5);
    // a tenant with a machine key still gets a stream, even from the flooding address
    const m = await t.machine('observer');
    const keyed = await observe('203.0.113.3', m.apiKey);
    assert.equal(keyed.status, 200);
    held.push(keyed);
    // a closed stream frees its place
    held.shift()!.close();
    for (let i = 0; i < 50 && observerSubscribers(t.app) > base + 5; i++) await new Promise((r) => setTimeout(r, 20));
    const again = await observe('203.0.113.1');
    assert.equal(again.status, 200);
    held.push(again);
  } finally {
    for (const h of held) h.close();
  }
});
