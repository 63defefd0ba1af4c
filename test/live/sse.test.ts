// The one live feed (src/live/sse.ts) without a node: an EventStream over an in-memory log sends
// consecutive ids whatever order live events and hints arrive in, never repeats one, reads its log
// only while the client keeps up, ends as told; the Fanout opens one LISTEN per channel and closes
// it with the app; the HTTP layer's wire format is the one the SSE tests expect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { EventStream, Fanout, MAX_BUFFERED_BYTES, type EventLog, type LoggedEvent } from '../../src/live/sse.ts';
import { encodeEventFrame } from '../../src/http/server.ts';
import { liveCounts } from '../../src/live/registry.ts';
import type { App, EventFrame } from '../../src/ops/types.ts';

const ev = (id: number, event = 'tick'): LoggedEvent => ({ id, event, data: JSON.stringify({ n: id }) });

/** A log the test appends to; counts its reads. */
function memoryLog(n = 0, opts: { head?: number; over?: () => boolean } = {}) {
  const events: LoggedEvent[] = Array.from({ length: n }, (_, i) => ev(i));
  let reads = 0;
  const log: EventLog = {
    async read(after, limit) { reads++; await tick(); return events.filter((e) => e.id > after).slice(0, limit); },
    ...(opts.head !== undefined ? { head: async () => opts.head! } : {}),
    ...(opts.over ? { over: async () => opts.over!() } : {}),
  };
  return { log, events, reads: () => reads, append(e: LoggedEvent) { events.push(e); return e; } };
}

/** Reads every frame until the stream ends (or `until` holds). */
async function collect(s: EventStream, until?: (frames: EventFrame[]) => boolean): Promise<EventFrame[]> {
  const out: EventFrame[] = [];
  for await (const f of s) {
    out.push(f as EventFrame);
    if (until?.(out)) break;
  }
  return out;
}

const ids = (frames: EventFrame[]) => frames.filter((f) => f.id !== undefined).map((f) => f.id);
const settle = async () => { for (let i = 0; i < 20; i++) await tick(); };

test('replay after Last-Event-ID, then live events: consecutive ids, gaps filled from the log, no duplicates', async () => {
  const m = memoryLog(5);
  const stops: boolean[] = [];
  const s = new EventStream({ preamble: { comment: 'feed', retry: 2000 }, log: m.log, lastId: 1, finalEvent: 'end', onStop: (g) => stops.push(g) });
  s.start();
  const got = collect(s);
  await settle();
  s.offer(m.append(ev(5))); // the next id: sent at once
  s.offer(ev(5)); // a duplicate: dropped
  m.append(ev(6));
  s.offer(m.append(ev(7))); // 6 never offered: read from the log before 7
  await settle();
  s.hint(8); // another node wrote 8 and 9 (a hint, no data)
  m.append(ev(8));
  m.append(ev(9, 'end'));
  s.hint(9);
  const frames = await got;
  assert.deepEqual(frames[0], { comment: 'feed', retry: 2000 });
  assert.deepEqual(ids(frames), [2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(frames.at(-1)!.event, 'end');
  assert.deepEqual(stops, [false]);
  assert.equal(liveCounts().timers, 0, 'the heartbeat stops with the stream');
});

test('without Last-Event-ID the stream starts at the log head; a snapshot sends what is stored and ends', async () => {
  const m = memoryLog(6, { head: 3 });
  const s = new EventStream({ log: m.log });
  s.start();
  s.offer(ev(4)); // offered before the head is known: read from the log instead
  const first = await collect(s, (f) => ids(f).length >= 2);
  assert.deepEqual(ids(first), [4, 5]);
  s.destroy();
  const snap = new EventStream({ log: memoryLog(3).log, lastId: 0, snapshot: true });
  snap.start();
  const frames = await collect(snap);
  assert.deepEqual(ids(frames), [1, 2]);
  assert.ok(!frames.some((f) => f.event === 'end'), 'a snapshot ends without an end event');
});

test('a log that is over ends the stream; a long replay ends with replay-continue past its limit', async () => {
  const done = new EventStream({ log: memoryLog(3, { over: () => true }).log, lastId: 2 });
  done.start();
  assert.deepEqual(await collect(done), []);
  const m = memoryLog(1000);
  const s = new EventStream({ log: m.log, lastId: -1, replayLimit: 400 });
  s.start();
  const frames = await collect(s);
  assert.deepEqual(ids(frames), Array.from({ length: 400 }, (_, i) => i));
  assert.deepEqual(frames.at(-1), { event: 'end', data: JSON.stringify({ reason: 'replay-continue' }) });
  // a replay shorter than the limit goes on live
  const short = new EventStream({ log: memoryLog(300).log, lastId: -1, replayLimit: 400 });
  short.start();
  const live = collect(short, (f) => f.length >= 301);
  await settle();
  short.offer(ev(300));
  assert.deepEqual(ids(await live), Array.from({ length: 301 }, (_, i) => i));
  short.destroy();
});

test('the log is read only while the client keeps up; everything arrives once it reads', async () => {
  const m = memoryLog(5000);
  const s = new EventStream({ log: m.log, lastId: -1 });
  s.start();
  await settle();
  const readsIdle = m.reads();
  assert.ok(readsIdle <= 2, `${readsIdle} reads before the client read anything`);
  assert.ok(s.readableLength <= 264, `${s.readableLength} frames buffered`);
  s.offer(m.append(ev(5000))); // live while the client lags: not buffered, read later in order
  const frames = await collect(s, (f) => f.length >= 5001); // no preamble: every frame is an event
  assert.deepEqual(ids(frames), Array.from({ length: 5001 }, (_, i) => i));
  s.destroy();
});

test('a feed without a log drops a client that lets 1 MiB pile up; finish(reason) ends with an end event', async () => {
  const stops: boolean[] = [];
  const s = new EventStream({ onStop: (g) => stops.push(g) });
  const data = 'x'.repeat(10_000);
  for (let i = 0; i < 2 * MAX_BUFFERED_BYTES / data.length && !s.destroyed; i++) s.send({ event: 'entry', data });
  assert.equal(s.destroyed, true);
  assert.deepEqual(stops, [true]);
  const t = new EventStream({ preamble: { comment: 'global feed' } });
  t.send({ event: 'entry', data: '{}' });
  t.finish('node-draining');
  t.send({ event: 'entry', data: '{}' }); // after the end: nothing
  assert.deepEqual(await collect(t), [{ comment: 'global feed' }, { event: 'entry', data: '{}' }, { event: 'end', data: '{"reason":"node-draining"}' }]);
  assert.equal(liveCounts().timers, 0);
});

test('the wire format: comment and retry, id, event, data lines, a blank line', () => {
  assert.equal(encodeEventFrame({ comment: 'svc stream ch_1', retry: 2000 }), ': svc stream ch_1\nretry: 2000\n\n');
  assert.equal(encodeEventFrame({ comment: 'keep-alive' }), ': keep-alive\n\n');
  assert.equal(encodeEventFrame({ id: 3, event: 'tick', data: '{"a":1}' }), 'id: 3\nevent: tick\ndata: {"a":1}\n\n');
  assert.equal(encodeEventFrame({ event: 'end', data: 'a\nb' }), 'event: end\ndata: a\ndata: b\n\n');
});

test('Fanout: one LISTEN per channel, opened once for concurrent subscribers, retried after a failure, closed with the app', async () => {
  const listens: string[] = [];
  const unlistened: string[] = [];
  let fail = true;
  const app = {
    onClose: [] as (() => Promise<void> | void)[],
    db: {
      async listen(ch: string) {
        await tick();
        if (ch === 'b' && fail) { fail = false; throw new Error('LISTEN failed'); }
        listens.push(ch);
        return async () => { unlistened.push(ch); };
      },
    },
  } as unknown as App;
  const f = new Fanout<string>(app, () => ({ a: () => {}, b: () => {} }));
  await assert.rejects(f.ensureListening());
  await Promise.all([f.ensureListening(), f.ensureListening()]);
  assert.deepEqual(listens, ['a', 'b']);
  f.add('t1', 'x');
  f.add('t1', 'y');
  f.add('t2', 'z');
  assert.equal(f.size, 3);
  assert.deepEqual(f.of('t1'), ['x', 'y']);
  assert.equal(f.remove('t1', 'x'), true);
  assert.equal(f.remove('t1', 'x'), false);
  assert.deepEqual(f.topics().sort(), ['t1', 't2']);
  for (const fn of app.onClose) await fn();
  assert.deepEqual(unlistened.sort(), ['a', 'b']);
  await assert.rejects(f.ensureListening());
});
