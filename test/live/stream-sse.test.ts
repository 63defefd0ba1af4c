// svc_stream over real HTTP: a 10-tick channel's events arrive as Server-Sent Events one svcond
// apart, each with a receipt that verifies; a reconnect with Last-Event-ID resumes without loss
// or duplicates; over MCP the opening session receives every event as a notification.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { testNode, type TestNode } from '../helpers.ts';
import { readSse } from './sse.ts';
import { liveCounts } from '../../src/live/registry.ts';

let t: TestNode;
let base: string;
let key: string;
before(async () => {
  t = await testNode();
  base = await t.listen();
  key = (await t.machine('streamer')).apiKey;
});
after(async () => { await t.close(); });

test('a 10-tick channel: SSE events one svcond apart, each receipt verifies, Last-Event-ID resumes exactly', async () => {
  // warm the worker pool so tick 0 does not pay for starting a worker thread
  assert.equal((await t.call('POST', '/api/svc/protect', { health: 'up' }, key)).status, 200);
  const open = await t.call('POST', '/api/streams', { solver: 'protect', body: { health: 'up' }, ticks: 10 }, key);
  assert.equal(open.status, 200, open.text);
  const ch = open.body.channel;
  assert.match(ch.id, /^ch_/);
  assert.equal(ch.state, 'open');
  const url = `${base}${ch.events}`;

  const fullP = readSse(url, key); // C: the whole channel, timed
  const first = await readSse(url, key, { stopAfter: 4 }); // A: four events, then the client goes away
  assert.equal(first.status, 200);
  assert.match(first.contentType ?? '', /^text\/event-stream/);
  const lastSeen = first.events.at(-1)!.id;
  const resumed = await readSse(url, key, { headers: { 'last-event-id': String(lastSeen) } }); // B
  const full = await fullP;

  // C saw ticks 0..9 then the end event, with consecutive ids
  assert.deepEqual(full.events.map((e) => e.id), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(full.events.map((e) => e.event), [...Array(10).fill('tick'), 'end']);
  const end = full.events[10].data;
  assert.equal(end.state, 'completed');
  assert.deepEqual(end.ticks, { scheduled: 10, sealed: 10, skipped: 0, refused: 0 });

  // A then B: no loss, no duplicates, byte-identical to C
  const ids = [...first.events, ...resumed.events].map((e) => e.id);
  assert.deepEqual(ids, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(resumed.events[0].id, lastSeen + 1);
  for (const e of [...first.events, ...resumed.events]) assert.equal(e.raw, full.events[e.id].raw);

  // schedule: tick k is sealed at t0 + k*0.777 s; live events arrive 0.777 s apart on average
  const ticks = full.events.slice(0, 10);
  ticks.forEach((e, k) => {
    assert.equal(Math.round(e.data.t * 1000), Math.round(ch.t0 * 1000) + 777 * k);
    assert.equal(e.data.receipt.t, e.data.t);
  });
  // events already stored when C connected are replayed at once, at the moment C connects (not at
  // their slot), so the spacing is measured from the first event that certainly arrived live: the
  // first one at least 300 ms after its predecessor (a replay sends its events back to back)
  let j = 1;
  while (j < 9 && ticks[j].at - ticks[j - 1].at < 300) j++;
  assert.ok(9 - j >= 6, `too few live events (${9 - j} intervals) to measure the spacing`);
  const meanGap = (ticks[9].at - ticks[j].at) / (9 - j);
  assert.ok(Math.abs(meanGap - 777) <= 50, `mean spacing ${meanGap.toFixed(1)} ms over ticks ${j}..9; arrivals ${ticks.map((e) => Math.round(e.at - ticks[0].at)).join(' ')}`);

  // every tick receipt verifies (v2: value and unit signed) and carries a distinct svcond
  const svconds = new Set<number>();
  for (const e of ticks) {
    const r = e.data.receipt;
    assert.equal(r.solver, 'protect');
    assert.equal(r.value, e.data.value);
    const v = await t.tool('svc_verify', { proof: r.svcProof, operatorIds: r.svcState.operators, R_t: r.svcState.masterSum, zeqond: r.svcState.svcond, value: r.value, unit: r.unit }, key);
    assert.equal(v.body.valid, true, `tick ${e.id}`);
    svconds.add(r.svcState.svcond);
  }
  assert.equal(svconds.size, 10);
  const chain = await t.call('GET', '/api/chain/verify', undefined, key);
  assert.equal(chain.body.valid, true);

  // after the end: a resume replays what is left and closes; the state is final
  const late = await readSse(`${url}?lastEventId=7`, key);
  assert.deepEqual(late.events.map((e) => e.id), [8, 9, 10]);
  const none = await readSse(url, key, { headers: { 'last-event-id': '10' } });
  assert.deepEqual(none.events, []);
  const st = await t.call('GET', `/api/streams/${ch.id}`, undefined, key);
  assert.equal(st.body.channel.state, 'completed');
  assert.deepEqual(st.body.channel.counts, { sealed: 10, skipped: 0, refused: 0 });
  assert.deepEqual(liveCounts(), { timers: 0, channels: 0, subscribers: 0, jobs: 0 });
});

test('over MCP the channel\'s events reach the opening session as notifications, in order', async () => {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', base), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const client = new Client({ name: 'stream-test', version: '1.0.0' });
  const got: any[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { if (n.params.logger === 'svc_stream') got.push(n.params.data); });
  await client.connect(transport);
  try {
    const res: any = await client.callTool({ name: 'svc_stream', arguments: { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 }, vary: { v: '3 + tick' }, ticks: 3 } });
    assert.equal(res.isError, undefined, JSON.stringify(res.structuredContent));
    assert.equal(res.structuredContent.followed, true);
    assert.equal(res.structuredContent.delivered, 4);
    assert.equal(res.structuredContent.channel.state, 'completed');
    assert.deepEqual(got.map((d) => [d.id, d.event]), [[0, 'tick'], [1, 'tick'], [2, 'tick'], [3, 'end']]);
    // kinetic energy m v^2 / 2 with v = 3 + tick
    assert.deepEqual(got.slice(0, 3).map((d) => d.value), [9, 16, 25]);
    assert.equal(got[0].unit, 'J');
    // follow: false returns at once; the events are then read over SSE
    const detached: any = await client.callTool({ name: 'svc_stream', arguments: { operator: 'KINETIC_ENERGY', inputs: { m: 1, v: 1 }, ticks: 1, follow: false } });
    assert.equal(detached.structuredContent.followed, undefined);
    const sse = await readSse(`${base}${detached.structuredContent.channel.events}`, key);
    assert.deepEqual(sse.events.map((e) => e.event), ['tick', 'end']);
    // a followed channel with closeOnDisconnect closes when the client cancels the call
    const ac = new AbortController();
    const firstTick = new Promise<string>((resolve) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { if (n.params.logger === 'svc_stream') resolve((n.params.data as any).channel); });
    });
    const call = client.callTool({ name: 'svc_stream', arguments: { ...{ operator: 'KINETIC_ENERGY', inputs: { m: 1, v: 2 } }, ticks: 600, closeOnDisconnect: true } }, undefined, { signal: ac.signal });
    const chId = await firstTick;
    ac.abort();
    await assert.rejects(call);
    let st: any;
    for (let i = 0; i < 40; i++) {
      st = (await t.call('GET', `/api/streams/${chId}`, undefined, key)).body.channel;
      if (st.state !== 'open') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(st.state, 'closed');
    assert.equal(st.reason, 'client-disconnected');
  } finally {
    await client.close();
  }
});
