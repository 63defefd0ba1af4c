// Two nodes sharing one PostgreSQL database (runs only when DATABASE_URL is set): a channel
// ticking on node A is served over SSE by node B (stored events, then NOTIFY-driven live ones),
// and node B can close it (a control NOTIFY reaches node A).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testNode, type TestNode } from '../helpers.ts';
import { readSse } from './sse.ts';

const shared = !!process.env.DATABASE_URL;
let a: TestNode;
let b: TestNode;
let baseB: string;
let key: string;
before(async () => {
  if (!shared) return;
  a = await testNode();
  b = await testNode({ env: { SVC_DATABASE_SCHEMA: a.app.config.databaseSchema! } });
  baseB = await b.listen();
  key = (await a.machine('mesh')).apiKey;
});
after(async () => {
  if (!shared) return;
  await b.close();
  await a.close();
});

const ke = { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 } };

test('a channel running on node A is streamed by node B, live, without loss', { skip: !shared && 'needs DATABASE_URL' }, async () => {
  const open = await a.call('POST', '/api/streams', { ...ke, vary: { v: 'tick' }, ticks: 4 }, key);
  assert.equal(open.status, 200, open.text);
  assert.equal(open.body.channel.node, a.app.nodeId);
  const got = await readSse(`${baseB}/api/streams/${open.body.channel.id}/events`, key);
  assert.deepEqual(got.events.map((e) => `${e.id}:${e.event}`), ['0:tick', '1:tick', '2:tick', '3:tick', '4:end']);
  assert.deepEqual(got.events.slice(0, 4).map((e) => e.data.value), [0, 1, 4, 9]);
  // at least the last ticks arrived live (one svcond apart), not as one replay at the end
  assert.ok(got.events[3].at - got.events[1].at > 1000);
});

test('node B closes a channel that runs on node A', { skip: !shared && 'needs DATABASE_URL' }, async () => {
  const open = await a.call('POST', '/api/streams', { ...ke, ticks: 600 }, key);
  const id = open.body.channel.id;
  await sleep(800);
  const del = await b.call('DELETE', `/api/streams/${id}`, undefined, key);
  assert.equal(del.status, 200);
  assert.equal(del.body.closeRequested, true);
  let st: any;
  for (let i = 0; i < 40; i++) {
    st = (await b.call('GET', `/api/streams/${id}`, undefined, key)).body.channel;
    if (st.state !== 'open') break;
    await sleep(100);
  }
  assert.equal(st.state, 'closed');
  assert.equal(st.reason, 'closed');
  // a subscriber on B that goes away closes an A channel that opted into closeOnDisconnect
  const o2 = await a.call('POST', '/api/streams', { ...ke, ticks: 600, closeOnDisconnect: true }, key);
  await readSse(`${baseB}/api/streams/${o2.body.channel.id}/events`, key, { stopAfter: 1 });
  for (let i = 0; i < 40; i++) {
    st = (await a.call('GET', `/api/streams/${o2.body.channel.id}`, undefined, key)).body.channel;
    if (st.state !== 'open') break;
    await sleep(100);
  }
  assert.deepEqual([st.state, st.reason], ['closed', 'client-disconnected']);
});
