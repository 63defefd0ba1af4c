// svc_stream lifecycle: closing a channel, or its client going away, stops its work; a hundred
// channels opened and closed leave no timers, subscribers or jobs behind; a slow tick never
// shifts the schedule (the slots it overran are skipped and reported); a machine that runs out
// of tokens ends its channel cleanly; limits and bad input are 4xx; a node shutdown ends channels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testNode, type TestNode } from '../helpers.ts';
import { readSse } from './sse.ts';
import { liveCounts } from '../../src/live/registry.ts';
import { createChannel, shutdownLive } from '../../src/live/channels.ts';
import { bindOperatorInputs, prepareOperator } from '../../src/live/steps.ts';

let t: TestNode;
let base: string;
let m: Awaited<ReturnType<TestNode['machine']>>;
let key: string;
before(async () => {
  t = await testNode();
  base = await t.listen();
  m = await t.machine('lifecycle');
  key = m.apiKey;
});
after(async () => { await t.close(); });

const state = async (id: string, k = key) => (await t.call('GET', `/api/streams/${id}`, undefined, k)).body.channel;
const ke = { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 } };
const idle = { timers: 0, channels: 0, subscribers: 0, jobs: 0 };
const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('DELETE stops a channel: no tick after the close, a final end event with state closed', async () => {
  // warm the worker pool so the first tick does not pay for starting a worker thread
  assert.equal((await t.call('POST', '/api/svc/protect', { health: 'up' }, key)).status, 200);
  const open = await t.call('POST', '/api/streams', { solver: 'protect', body: { health: 'slow' }, ticks: 600 }, key);
  assert.equal(open.status, 200, open.text);
  const id = open.body.channel.id;
  const two = await readSse(`${base}/api/streams/${id}/events`, key, { stopAfter: 2 });
  assert.equal(two.events.length, 2);
  // through svc_http (which buffers whole responses) the events endpoint answers with what is
  // stored so far instead of following the channel
  const snap = await t.tool('svc_http', { method: 'GET', path: `/api/streams/${id}/events` }, key);
  assert.equal(snap.body.status, 200);
  assert.match(snap.body.body, /^id: 0\nevent: (tick|skip)\n/m);
  assert.doesNotMatch(snap.body.body, /event: end/);
  const closed = await t.call('DELETE', `/api/streams/${id}`, undefined, key);
  assert.equal(closed.status, 200);
  assert.equal(closed.body.channel.state, 'closed');
  assert.equal(closed.body.channel.reason, 'closed');
  const sealed = closed.body.channel.counts.sealed;
  assert.deepEqual(liveCounts(), idle);
  await sleep(1700);
  assert.equal((await state(id)).counts.sealed, sealed, 'no tick after the close');
  const all = await readSse(`${base}/api/streams/${id}/events`, key);
  assert.equal(all.events.at(-1)!.event, 'end');
  assert.equal(all.events.at(-1)!.data.state, 'closed');
  assert.deepEqual(all.events.map((e) => e.id), Array.from({ length: sealed + 1 }, (_, i) => i));
  // closing again changes nothing
  const again = await t.call('DELETE', `/api/streams/${id}`, undefined, key);
  assert.deepEqual([again.status, again.body.channel.state, again.body.channel.counts.sealed], [200, 'closed', sealed]);
});

test('a channel that opts into closeOnDisconnect stops when its SSE client goes away', async () => {
  const open = await t.call('POST', '/api/streams', { ...ke, ticks: 600, closeOnDisconnect: true }, key);
  const id = open.body.channel.id;
  const got = await readSse(`${base}/api/streams/${id}/events`, key, { stopAfter: 2 });
  assert.equal(got.events.length, 2);
  let st = await state(id);
  for (let i = 0; i < 40 && st.state === 'open'; i++) { await sleep(100); st = await state(id); }
  assert.equal(st.state, 'closed');
  assert.equal(st.reason, 'client-disconnected');
  await sleep(1000);
  assert.equal((await state(id)).counts.sealed, st.counts.sealed);
  assert.deepEqual(liveCounts(), idle);
  // without the option the channel outlives its client
  const keep = await t.call('POST', '/api/streams', { ...ke, ticks: 3 }, key);
  await readSse(`${base}/api/streams/${keep.body.channel.id}/events`, key, { stopAfter: 1 });
  await sleep(2000);
  const kept = await state(keep.body.channel.id);
  assert.equal(kept.state, 'completed');
  assert.equal(kept.counts.sealed, 3);
});

test('100 channels opened and closed leave no timers, subscribers or jobs behind', async () => {
  const before = timeouts();
  for (let round = 0; round < 20; round++) {
    const opened = await Promise.all(Array.from({ length: 5 }, (_, i) => t.call('POST', '/api/streams',
      i % 2 ? { solver: 'protect', body: { health: 'up' }, ticks: 600 } : { ...ke, ticks: 600 }, key)));
    for (const o of opened) assert.equal(o.status, 200, o.text);
    // a sixth open channel is over the per-machine limit
    if (round === 0) {
      const sixth = await t.call('POST', '/api/streams', { ...ke, ticks: 5 }, key);
      assert.equal(sixth.status, 429);
      assert.equal(sixth.body.code, 'RATE_LIMITED');
    }
    const closed = await Promise.all(opened.map((o) => t.call('DELETE', `/api/streams/${o.body.channel.id}`, undefined, key)));
    for (const c of closed) assert.equal(c.body.channel.state, 'closed');
  }
  assert.deepEqual(liveCounts(), idle);
  assert.equal(t.app.pool.stats.queueSize, 0);
  // process-wide too (on PostgreSQL each idle client of pg's pool, at most 10, holds an idle timer)
  const slack = t.app.db.backend === 'postgres' ? 10 : 0;
  assert.ok(timeouts() <= before + slack, `timers: ${before} before, ${timeouts()} after`);
  const list = await t.call('GET', '/api/streams?state=closed&limit=100', undefined, key);
  assert.ok(list.body.channels.length >= 100);
  assert.equal((await t.call('GET', '/api/streams?state=open', undefined, key)).body.channels.length, 0);
});

test('a tick that overruns its slot never shifts the schedule: the overrun slots are skipped and reported', async () => {
  const source = await prepareOperator('KINETIC_ENERGY');
  const baseNumbers = bindOperatorInputs(source, { m: 2, v: 3 });
  const ch = await createChannel(t.app, {
    zid: m.zid, keyPrefix: m.keyPrefix, source, vary: [], baseNumbers,
    spec: { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 }, ticks: 5, closeOnDisconnect: false },
    // tick 1 takes 1.3 s: slot 2 (at 1.554 s) passes during it, slot 3 (at 2.331 s) does not
    beforeTick: async (k, signal) => { if (k === 1) await sleep(1300, undefined, { signal }); },
  });
  await ch.done;
  const got = await readSse(`${base}/api/streams/${ch.id}/events`, key);
  assert.deepEqual(got.events.map((e) => `${e.id}:${e.event}`), ['0:tick', '1:tick', '2:skip', '3:tick', '4:tick', '5:end']);
  // the ticks after the overrun keep their own instants
  for (const e of got.events.filter((x) => x.event !== 'end')) assert.equal(Math.round(e.data.t * 1000), ch.t0ms + 777 * e.id);
  assert.deepEqual(got.events[5].data.ticks, { scheduled: 5, sealed: 4, skipped: 1, refused: 0 });
});

test('a channel ends cleanly, state exhausted, when its machine runs out of tokens', async () => {
  const poor = await t.machine('poor');
  const today = new Date(t.app.clock.now() * 1000).toISOString().slice(0, 10);
  await t.app.db.query('UPDATE machines SET tokens_day = $2, tokens_left = 2 WHERE zid = $1', [poor.zid, today]);
  const open = await t.call('POST', '/api/streams', { ...ke, ticks: 10 }, poor.apiKey);
  assert.equal(open.status, 200, open.text);
  const got = await readSse(`${base}/api/streams/${open.body.channel.id}/events`, poor.apiKey);
  assert.deepEqual(got.events.map((e) => e.event), ['tick', 'tick', 'end']);
  assert.equal(got.events[2].data.state, 'exhausted');
  assert.equal(got.events[1].data.receipt.tokens.remaining, 0);
  assert.equal((await state(open.body.channel.id, poor.apiKey)).state, 'exhausted');
  const refused = await t.call('POST', '/api/streams', { ...ke, ticks: 1 }, poor.apiKey);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.code, 'QUOTA_EXCEEDED');
});

test('limits and bad input are 4xx, never a 500; channels are private to their machine', async () => {
  const cases: [unknown, number][] = [
    [{ ...ke, ticks: 601 }, 400],
    [{ ...ke, ticks: 0 }, 400],
    [{ ...ke, ticks: 2.5 }, 400],
    [{ inputs: { m: 1 } }, 400],
    [{ ...ke, solver: 'protect' }, 400],
    [{ solver: 'protect', inputs: { m: 1 } }, 400],
    [{ solver: 'nosuch' }, 400],
    [{ solver: 'protect', body: { liveness: 7 } }, 400],
    [{ solver: 'protect', body: { folder: 'x' } }, 400],
    [{ ...ke, vary: { nosuch: 'tick' } }, 400],
    [{ ...ke, vary: { v: 'tick +' } }, 400],
    [{ ...ke, vary: { v: 'secret' } }, 400],
    [{ ...ke, vary: { v: '1/0' } }, 400],
    [{ operator: 'NO_SUCH_OP', inputs: {} }, 400],
    [{ operator: 'KINETIC_ENERGY', inputs: { m: 1 } }, 422],
    [{ operator: 'KINETIC_ENERGY', inputs: { m: '3 s', v: 1 } }, 422],
    [{ ...ke, closeOnDisconnect: 'yes' }, 400],
  ];
  for (const [body, status] of cases) {
    const r = await t.call('POST', '/api/streams', body, key);
    assert.equal(r.status, status, `${JSON.stringify(body)} → ${r.status} ${r.text.slice(0, 200)}`);
    assert.equal(r.body.ok, false);
  }
  assert.equal((await t.call('POST', '/api/streams', ke)).status, 401);
  assert.equal((await t.call('GET', '/api/streams/nope', undefined, key)).status, 400);
  assert.equal((await t.call('GET', '/api/streams/ch_01M81JBBCA63TG8G510XNGNP6W', undefined, key)).status, 404);
  assert.equal((await t.call('GET', '/api/streams/ch_01M81JBBCA63TG8G510XNGNP6W/events', undefined, key)).status, 404);
  assert.equal((await t.call('GET', '/api/streams?limit=101', undefined, key)).status, 400);
  const mine = await t.call('POST', '/api/streams', { ...ke, ticks: 1 }, key);
  const other = await t.machine('other');
  for (const [method, path] of [['GET', ''], ['DELETE', ''], ['GET', '/events']] as const) {
    const r = await t.call(method, `/api/streams/${mine.body.channel.id}${path}`, undefined, other.apiKey);
    assert.equal(r.status, 404, `${method} ${path}`);
  }
  assert.equal((await t.call('GET', '/api/streams', undefined, other.apiKey)).body.channels.length, 0);
  await readSse(`${base}/api/streams/${mine.body.channel.id}/events`, key);
});

test('shutting down live compute closes running channels (reason node-shutdown) and ends SSE responses', async () => {
  const open = await t.call('POST', '/api/streams', { ...ke, ticks: 600 }, key);
  const id = open.body.channel.id;
  const reading = readSse(`${base}/api/streams/${id}/events`, key);
  await sleep(900);
  await shutdownLive(t.app);
  const got = await reading;
  const end = got.events.at(-1)!;
  assert.equal(end.event, 'end');
  assert.deepEqual([end.data.state, end.data.reason], ['closed', 'node-shutdown']);
  assert.deepEqual(liveCounts(), idle);
  const refused = await t.call('POST', '/api/streams', { ...ke, ticks: 1 }, key);
  assert.equal(refused.status, 503);
  assert.equal(refused.body.code, 'UPSTREAM_UNAVAILABLE');
});
