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
import { trackResources, osThreads, threadCpu, describe, type TrackedResource } from './resources.ts';

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

test('100 channels opened and closed leave no timers, workers, subscribers or jobs behind', async () => {
  // one round first, so the worker pool and the store's connections exist before the count starts
  const round = async (check6th: boolean) => {
    const opened = await Promise.all(Array.from({ length: 5 }, (_, i) => t.call('POST', '/api/streams',
      i % 2 ? { solver: 'protect', body: { health: 'up' }, ticks: 600 } : { ...ke, ticks: 600 }, key)));
    for (const o of opened) assert.equal(o.status, 200, o.text);
    // a sixth open channel is over the per-machine limit
    if (check6th) {
      const sixth = await t.call('POST', '/api/streams', { ...ke, ticks: 5 }, key);
      assert.equal(sixth.status, 429);
      assert.equal(sixth.body.code, 'RATE_LIMITED');
    }
    const closed = await Promise.all(opened.map((o) => t.call('DELETE', `/api/streams/${o.body.channel.id}`, undefined, key)));
    for (const c of closed) assert.equal(c.body.channel.state, 'closed');
  };
  await round(true);
  const threadsBefore = osThreads();
  const poolBefore = t.app.pool.stats.threads;
  // from here on every timer and worker thread the process creates is tracked by async_hooks,
  // independently of the code's own bookkeeping
  const tracker = trackResources();
  try {
    for (let r = 0; r < 20; r++) await round(false);
    await tracker.settle(300);
    const alive = tracker.alive();
    // what may outlive the channels, all of it outside live compute and none of it keeping the
    // process alive: piscina's idle-worker timeout, Node's 1-second Date-header cache timer, and
    // the PostgreSQL pool's idle-connection timers, and the metrics' event-loop delay sampler, which
    // lives as long as the app (the worker pool's per-job budget timer is cleared when its job
    // ends, so none may be left)
    const allowed = (r: TrackedResource) => r.type === 'Timeout' && (
      (r.hasRef() === false && /node_modules[\\/]piscina[\\/]/.test(r.stack)) ||
      (r.hasRef() === false && /src[\\/]observability[\\/]metrics\.ts/.test(r.stack)) ||
      (r.hasRef() === false && /_http_outgoing/.test(r.stack)) ||
      /node_modules[\\/]pg-pool[\\/]/.test(r.stack));
    const timers = alive.filter((r) => r.type === 'Timeout' && !allowed(r));
    assert.deepEqual(timers, [], `timers left behind:\n${describe(timers)}`);
    // a worker thread that is still alive must be one of the pool's (a job the close aborted
    // terminates its worker; the pool may start a fresh idle one in its place)
    const workers = alive.filter((r) => r.type === 'WORKER');
    assert.ok(workers.length <= t.app.pool.stats.threads, `${workers.length} new worker threads alive, the pool holds ${t.app.pool.stats.threads}:\n${describe(workers)}`);
    // and the kernel agrees: no more OS threads than before, bar the pool's own growth
    const threadsAfter = osThreads();
    if (threadsBefore !== null && threadsAfter !== null) {
      assert.ok(threadsAfter <= threadsBefore + Math.max(0, t.app.pool.stats.threads - poolBefore),
        `OS threads ${threadsBefore} before, ${threadsAfter} after; pool threads ${poolBefore} before, ${t.app.pool.stats.threads} after`);
    }
  } finally {
    tracker.stop();
  }
  assert.deepEqual(liveCounts(), idle);
  assert.equal(t.app.pool.stats.queueSize, 0);
  const list = await t.call('GET', '/api/streams?state=closed&limit=100', undefined, key);
  assert.equal(list.body.channels.length, 100);
  assert.equal((await t.call('GET', '/api/streams?state=open', undefined, key)).body.channels.length, 0);
});

test('closing a channel whose tick is computing aborts the job: its worker thread exits, nothing is sealed', async () => {
  // one lattice-gauge tick of 2·64²·14,000 = 1.1e8 link updates (under the solver's cap of 1.2e8)
  // runs far longer than this test
  const open = await t.call('POST', '/api/streams', { solver: 'gauge', body: { L: 64, sweeps: 14_000, therm: 0 }, ticks: 3 }, key);
  assert.equal(open.status, 200, open.text);
  await sleep(500);
  // the kernel's per-thread CPU counters find the thread that computes the tick
  const cpu0 = threadCpu();
  await sleep(1000);
  const cpu1 = threadCpu();
  let busy: [number, number] | null = null;
  if (cpu0 && cpu1) {
    for (const [tid, ticks] of cpu1) {
      const d = ticks - (cpu0.get(tid) ?? ticks);
      if (!busy || d > busy[1]) busy = [tid, d];
    }
    assert.ok(busy && busy[1] > 0, 'no thread is computing the tick');
  }
  const t0 = performance.now();
  const closed = await t.call('DELETE', `/api/streams/${open.body.channel.id}`, undefined, key);
  const closeMs = performance.now() - t0;
  assert.equal(closed.body.channel.state, 'closed');
  assert.equal(closed.body.channel.reason, 'closed');
  assert.deepEqual(closed.body.channel.counts, { sealed: 0, skipped: 0, refused: 0 });
  assert.ok(closeMs < 5000, `the close took ${closeMs.toFixed(0)} ms`);
  if (busy) {
    // the worker that ran the job is terminated: its thread is gone (or at least idle)
    let after: Map<number, number> | null = null;
    for (let i = 0; i < 50; i++) {
      after = threadCpu();
      if (!after?.has(busy[0])) break;
      await sleep(100);
    }
    if (after?.has(busy[0])) {
      const c0 = after.get(busy[0])!;
      await sleep(1000);
      const c1 = threadCpu()?.get(busy[0]) ?? c0;
      assert.ok(c1 - c0 <= Math.max(1, busy[1] / 10), `thread ${busy[0]} still computes after the close: ${c1 - c0} ticks in 1 s (was ${busy[1]})`);
    }
  }
  await sleep(800);
  assert.equal((await state(open.body.channel.id)).counts.sealed, 0);
  assert.deepEqual(liveCounts(), idle);
});

test('at most SVC_STREAMS_PER_NODE channels run on one node (429), whoever opens them', async () => {
  const n = await testNode({ env: { SVC_STREAMS_PER_NODE: '2' } });
  try {
    const a = await n.machine('node-limit a');
    const b = await n.machine('node-limit b');
    const one = await n.call('POST', '/api/streams', { ...ke, ticks: 600 }, a.apiKey);
    const two = await n.call('POST', '/api/streams', { ...ke, ticks: 600 }, b.apiKey);
    assert.deepEqual([one.status, two.status], [200, 200]);
    const three = await n.call('POST', '/api/streams', { ...ke, ticks: 600 }, a.apiKey);
    assert.equal(three.status, 429, three.text);
    assert.equal(three.body.code, 'RATE_LIMITED');
    assert.match(three.body.error, /this node runs its maximum of 2/);
    await n.call('DELETE', `/api/streams/${one.body.channel.id}`, undefined, a.apiKey);
    const four = await n.call('POST', '/api/streams', { ...ke, ticks: 1 }, a.apiKey);
    assert.equal(four.status, 200, four.text);
    await n.call('DELETE', `/api/streams/${two.body.channel.id}`, undefined, b.apiKey);
  } finally {
    await n.close();
  }
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
