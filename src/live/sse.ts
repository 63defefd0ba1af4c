// One live feed (issue 17): the event stream behind both GET /api/observer/stream and
// GET /api/streams/{id}/events, and the LISTEN/NOTIFY fan-out that feeds it on every node.
//
// An EventStream is an object-mode Readable of EventFrames (src/ops/types.ts). Nothing here knows
// HTTP: src/http/server.ts writes the text/event-stream headers and the frames' wire format, and
// destroys the stream when the client goes away.
//
// Replay. A stream with a log (stream_events, chain_entries) sends events whose ids are
// consecutive sequence numbers, and the log in the store is the source of truth: the stream always
// sends lastId + 1 next, read from the log after lastId. A live event that is exactly the next id
// is sent at once (the fast path); any other live event or NOTIFY only says "the log has more",
// and the stream reads it. So a resume with Last-Event-ID, on whichever node, never loses or
// repeats an event, and a NOTIFY that never came is made up for by the next one. The log is read a
// page at a time, and only while the client keeps up (Readable `_read`): a long replay never holds
// more than a page in memory.
// A feed without a log (the observer's global scope) pushes what it is given; a client that lets
// MAX_BUFFERED_BYTES pile up unread is dropped (it reconnects).
//
// Ending. `finish(reason)` sends `event: end` with {reason} and closes (the client reconnects, to
// this node or another: node-draining, keys-changed, replay-continue); `finish()` closes without
// it (a channel's own last event is the stored `end` event, which closes its stream once sent, and
// a shutting-down node closes the streams of channels it does not run: the client resumes
// elsewhere with Last-Event-ID). `onStop(gone)` tells the owner once, gone = the client left first.
import { Readable } from 'node:stream';
import type { App, EventFrame } from '../ops/types.ts';
import { liveInterval } from './registry.ts';

/** a comment frame this often keeps idle connections (and proxies) open */
export const HEARTBEAT_MS = 15_000;
/** a feed without a log drops a client that lets this much pile up unread */
export const MAX_BUFFERED_BYTES = 1 << 20;
/** events read from a log per query */
const PAGE = 200;
/** frames buffered before the stream stops reading its log (Readable highWaterMark) */
const HIGH_WATER_FRAMES = 64;

/** An event as its log stores it: `data` is the exact text of the SSE data line. */
export interface LoggedEvent { id: number; event: string; data: string }

/** Where a replayable stream reads its events. */
export interface EventLog {
  /** up to `limit` events with an id above `after`, in id order */
  read(after: number, limit: number): Promise<LoggedEvent[]>;
  /** the id to start after when the client gave none (default -1: from the first event) */
  head?(): Promise<number>;
  /** asked when a read finds nothing new: true when nothing will ever follow (the stream closes) */
  over?(): Promise<boolean>;
}

export interface EventStreamOptions {
  /** the first frame (a comment naming the feed, `retry`) */
  preamble?: EventFrame;
  /** the store behind the stream; without it the stream sends what `send` is given */
  log?: EventLog;
  /** the last id the client has (Last-Event-ID); null or absent: log.head() */
  lastId?: number | null;
  /** a logged event of this kind is the last one: the stream closes once it is sent */
  finalEvent?: string;
  /** send what the log holds now and close, instead of following (svc_http buffers whole answers) */
  snapshot?: boolean;
  /** at most this many events are replayed before the stream first catches up with its log; past
   * it the stream ends with reason `replay-continue` and the client's reconnect picks up the rest */
  replayLimit?: number;
  /** called once when the stream stops; gone: the client went away (or the stream failed) first */
  onStop?: (gone: boolean) => void;
}

const frameBytes = (f: EventFrame) => (f.comment?.length ?? 0) + (f.data?.length ?? 0) + (f.event?.length ?? 0) + 24;

export class EventStream extends Readable {
  private readonly opts: EventStreamOptions;
  private lastId: number | null;
  private stopped = false;
  private pulling = false;
  /** something arrived while a read was running: read again */
  private dirty = false;
  /** the log has more but the client's buffer is full: `_read` resumes reading */
  private waiting = false;
  private catchingUp = true;
  private replayed = 0;
  private readonly stopHeartbeat: () => void;
  /** byte sizes of the frames pushed; the last `readableLength` of them are still buffered */
  private sizes: number[] = [];
  private sizesFrom = 0;
  private bytes = 0;

  constructor(opts: EventStreamOptions = {}) {
    super({ objectMode: true, highWaterMark: HIGH_WATER_FRAMES });
    this.opts = opts;
    this.lastId = opts.lastId ?? (opts.log?.head ? null : -1);
    if (opts.preamble) this.pushFrame(opts.preamble);
    // a comment keeps an idle connection open; where frames already wait, it is not idle
    this.stopHeartbeat = liveInterval(() => {
      if (!this.stopped && this.readableLength < this.readableHighWaterMark) this.pushFrame({ comment: 'keep-alive' });
    }, HEARTBEAT_MS);
  }

  /** Starts reading the log. Call it once live events reach the stream (subscribed, LISTENing),
   * so nothing committed in between is missed. */
  start(): void {
    if (this.opts.log && !this.stopped) this.schedulePull();
  }

  /** A frame outside the log (the global feed): sent at once, unless the client has let
   * MAX_BUFFERED_BYTES pile up unread, in which case it is dropped (it reconnects). */
  send(frame: EventFrame): void {
    if (this.stopped) return;
    if (this.buffered() > MAX_BUFFERED_BYTES) { this.destroy(); return; }
    this.pushFrame(frame);
  }

  /** A live event of the log: sent at once when it is the next id and nothing is pending, else
   * read from the log in order. */
  offer(ev: LoggedEvent): void {
    if (this.stopped) return;
    if (this.lastId !== null && ev.id <= this.lastId) return;
    if (this.lastId !== null && ev.id === this.lastId + 1 && !this.pulling && !this.waiting && this.readableLength < this.readableHighWaterMark) {
      this.deliver(ev);
      return;
    }
    this.hint();
  }

  /** The log has something after `id` (a NOTIFY from another node): read it. */
  hint(id?: number): void {
    if (this.stopped || !this.opts.log) return;
    if (id !== undefined && this.lastId !== null && id <= this.lastId) return;
    if (!this.pulling && this.readableLength >= this.readableHighWaterMark) { this.waiting = true; return; }
    this.schedulePull();
  }

  /** Ends the stream; with a reason, an `end` event {reason} tells the client to reconnect. */
  finish(reason?: string): void {
    if (this.stopped) return;
    if (reason !== undefined) this.pushFrame({ event: 'end', data: JSON.stringify({ reason }) });
    this.stop(false);
    this.push(null);
  }

  override _read(): void {
    if (this.waiting && !this.stopped) {
      this.waiting = false;
      this.schedulePull();
    }
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (!this.stopped) this.stop(true);
    cb(err);
  }

  private stop(gone: boolean): void {
    this.stopped = true;
    this.stopHeartbeat();
    this.opts.onStop?.(gone);
  }

  private deliver(ev: LoggedEvent): void {
    this.pushFrame({ id: ev.id, event: ev.event, data: ev.data });
    this.lastId = ev.id;
    if (ev.event === this.opts.finalEvent) this.finish();
  }

  private schedulePull(): void {
    if (this.pulling) { this.dirty = true; return; }
    void this.pull();
  }

  private async pull(): Promise<void> {
    const log = this.opts.log!;
    this.pulling = true;
    try {
      if (this.lastId === null) this.lastId = log.head ? await log.head() : -1;
      do {
        this.dirty = false;
        const rows = await log.read(this.lastId, PAGE);
        for (const r of rows) {
          if (this.stopped) return;
          if (r.id !== this.lastId + 1) break; // not committed in order yet: the next read fills it
          this.deliver(r);
          if (this.catchingUp) this.replayed++;
        }
        if (this.stopped) return;
        const full = rows.length === PAGE;
        if (!full) this.catchingUp = false;
        else if (this.opts.replayLimit !== undefined && this.catchingUp && this.replayed >= this.opts.replayLimit) {
          this.finish('replay-continue');
          return;
        }
        if (full) this.dirty = true;
        if (!rows.length && log.over && await log.over()) { this.finish(); return; }
        if (this.dirty && this.readableLength >= this.readableHighWaterMark) {
          // the client has not read what was sent: read on when it asks for more
          this.dirty = false;
          this.waiting = true;
        }
      } while (this.dirty && !this.stopped);
      if (this.opts.snapshot && !this.stopped && !this.waiting) this.finish();
    } catch {
      if (!this.destroyed) this.destroy();
    } finally {
      this.pulling = false;
    }
  }

  private pushFrame(frame: EventFrame): void {
    this.buffered();
    const n = frameBytes(frame);
    this.sizes.push(n);
    this.bytes += n;
    this.push(frame);
  }

  /** Bytes of the frames pushed and not yet read: the newest `readableLength` frames (a Readable's
   * buffer is first in, first out, and only `push` fills it). */
  private buffered(): number {
    while (this.sizes.length - this.sizesFrom > this.readableLength) this.bytes -= this.sizes[this.sizesFrom++];
    if (this.sizesFrom > 1024) { this.sizes = this.sizes.slice(this.sizesFrom); this.sizesFrom = 0; }
    return this.bytes;
  }
}

/** The subscribers of one live feed on one node, by topic (a machine, a channel), fed by
 * LISTEN/NOTIFY: the LISTENs open with the first subscriber (`ensureListening`, one per app and
 * channel), and close when the app closes. Both the observer hub and the live hub use it. */
export class Fanout<S> {
  private readonly app: App;
  private readonly channels: () => Promise<Record<string, (payload: string) => void>> | Record<string, (payload: string) => void>;
  private readonly byTopic = new Map<string, Set<S>>();
  private readonly unlisten = new Map<string, () => Promise<void>>();
  private listening: Promise<void> | null = null;
  private closed = false;
  size = 0;

  /** `channels` names each NOTIFY channel and its handler (asked once, at the first LISTEN). */
  constructor(app: App, channels: () => Promise<Record<string, (payload: string) => void>> | Record<string, (payload: string) => void>) {
    this.app = app;
    this.channels = channels;
    app.onClose.push(() => this.close());
  }

  /** Opens the LISTENs once; a failure is retried by the next call. */
  ensureListening(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the app is closing'));
    this.listening ??= (async () => {
      for (const [name, fn] of Object.entries(await this.channels())) {
        if (!this.unlisten.has(name)) this.unlisten.set(name, await this.app.db.listen(name, fn));
      }
    })().catch((e) => { this.listening = null; throw e; });
    return this.listening;
  }

  add(topic: string, s: S): void {
    let set = this.byTopic.get(topic);
    if (!set) { set = new Set(); this.byTopic.set(topic, set); }
    if (!set.has(s)) { set.add(s); this.size++; }
  }

  /** Removes a subscriber; false when it was not there. */
  remove(topic: string, s: S): boolean {
    const set = this.byTopic.get(topic);
    if (!set?.delete(s)) return false;
    this.size--;
    if (!set.size) this.byTopic.delete(topic);
    return true;
  }

  /** The subscribers of a topic, as a copy (a delivery may remove them). */
  of(topic: string): S[] {
    return [...(this.byTopic.get(topic) ?? [])];
  }

  /** The topics that have subscribers now. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  all(): S[] {
    return [...this.byTopic.values()].flatMap((set) => [...set]);
  }

  private async close(): Promise<void> {
    this.closed = true;
    for (const u of [...this.unlisten.values()]) await u().catch(() => {});
    this.unlisten.clear();
  }
}

/** Parses a NOTIFY payload that should be a JSON object; null when it is not. */
export function notifyPayload(payload: string): Record<string, unknown> | null {
  try {
    const m = JSON.parse(payload);
    return m && typeof m === 'object' && !Array.isArray(m) ? m : null;
  } catch {
    return null;
  }
}
