// The live observer feed (issue 12): GET /api/observer/stream, Server-Sent Events of chain
// appends as they commit, on whichever node the subscriber is connected to.
//
// How an append reaches a subscriber on another node: the chain_entries insert trigger
// (migration 600) runs pg_notify on `svc_chain_<md5(schema)[0..16]>` inside the appending
// transaction; PostgreSQL delivers it at commit to every node LISTENing on the database (PGlite
// delivers it in-process). Each node keeps one LISTEN per app, opened with the first subscriber,
// and fans the entry out to its SSE subscribers. No polling, and an append that rolls back is
// never announced.
//
// Scopes, as GET /api/observer (DESIGN §8):
//   global   (no key, or scope=global) kind, time, short hash, machine slug; no values, no ids
//   machine  (a machine key) the caller's own entries in full; `id:` is the chain seq, and a
//            reconnect with Last-Event-ID (header, or lastEventId) replays the entries after it
//            from the store first, so a client that fails over to another node misses nothing
//            (1000 entries per connection: a longer replay ends with `replay-continue` and the
//            client's reconnect, with the last id it got, picks up the rest).
// A machine-scope stream ends when the machine's keys change (revocation NOTIFY on svc_keys).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { defineOp, type Operation, type RawReply } from './types.ts';
import type { App } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { KEYS_CHANNEL } from '../services/key-cache.ts';

export const MAX_SUBSCRIBERS = 1000;
const HEARTBEAT_MS = 15_000;
const REPLAY_LIMIT = 1000;
/** a subscriber that lets this much pile up unread is dropped (it reconnects and replays) */
const MAX_BUFFERED_BYTES = 1 << 20;

export function chainChannel(schema: string): string {
  return 'svc_chain_' + createHash('md5').update(schema).digest('hex').slice(0, 16);
}

export interface ChainEntryView {
  seq: number; zid: string; kind: string; ref: string; at: string; payloadHash: string; prevHash: string; hash: string;
}

export interface GlobalEntryView { kind: string; at: string; hash: string; machine: string | null }

class ObserverSse extends Readable {
  readonly hub: ObserverHub;
  readonly zid: string | null;
  lastSeq: number;
  /** live entries that arrive while the replay query runs */
  private pending: ChainEntryView[] | null = null;
  private heartbeat: NodeJS.Timeout;

  constructor(hub: ObserverHub, zid: string | null, lastSeq: number) {
    super();
    this.hub = hub;
    this.zid = zid;
    this.lastSeq = lastSeq;
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  override _read(): void { /* pushed by the hub */ }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    clearInterval(this.heartbeat);
    this.hub.remove(this);
    cb(err);
  }

  write(chunk: string): void {
    if (this.destroyed || this.readableEnded) return;
    if (this.readableLength > MAX_BUFFERED_BYTES) { this.destroy(); return; }
    this.push(chunk);
  }

  startReplay(): void { this.pending = []; }

  /** Sends the replayed entries, then the live ones that arrived meanwhile. A full page means
   * more entries wait in the store: the stream ends there (`end` with reason `replay-continue`)
   * and the client reconnects with the last id it got, so a replay never buffers a whole chain. */
  finishReplay(rows: ChainEntryView[], more: boolean): void {
    for (const e of rows) this.sendMachine(e);
    const pending = this.pending ?? [];
    this.pending = null;
    if (more) { this.finish('replay-continue'); return; }
    for (const e of pending) this.sendMachine(e);
  }

  offerMachine(e: ChainEntryView): void {
    if (this.pending) { this.pending.push(e); return; }
    this.sendMachine(e);
  }

  private sendMachine(e: ChainEntryView): void {
    if (e.seq <= this.lastSeq) return;
    this.lastSeq = e.seq;
    this.write(`id: ${e.seq}\nevent: entry\ndata: ${JSON.stringify(e)}\n\n`);
  }

  offerGlobal(e: GlobalEntryView): void {
    this.write(`event: entry\ndata: ${JSON.stringify(e)}\n\n`);
  }

  finish(reason: string): void {
    if (this.destroyed || this.readableEnded) return;
    clearInterval(this.heartbeat);
    this.push(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
    this.push(null);
    this.hub.remove(this);
  }
}

class ObserverHub {
  readonly app: App;
  readonly subs = new Set<ObserverSse>();
  private listening: Promise<void> | null = null;
  private unlisten: (() => Promise<void>)[] = [];
  private slugs = new Map<string, string | null>();
  /** deliveries in commit order (slug look-ups are async) */
  private delivery: Promise<void> = Promise.resolve();
  closed = false;

  constructor(app: App) {
    this.app = app;
    // endless responses end before the HTTP server drains (graceful shutdown), so clients
    // reconnect elsewhere at once; the LISTEN goes with the store
    app.beforeClose.push(() => this.endAll('node-draining'));
    app.onClose.push(() => this.close('node-shutdown'));
  }

  ensureListening(): Promise<void> {
    this.listening ??= (async () => {
      const [{ schema }] = await this.app.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      this.unlisten.push(await this.app.db.listen(chainChannel(schema), (p) => this.onNotify(p)));
      this.unlisten.push(await this.app.db.listen(KEYS_CHANNEL, (zid) => this.onKeysChanged(zid)));
    })().catch((e) => { this.listening = null; throw e; });
    return this.listening;
  }

  add(s: ObserverSse): void {
    if (this.subs.size >= MAX_SUBSCRIBERS) throw new SvcError('RATE_LIMITED', `this node serves at most ${MAX_SUBSCRIBERS} observer streams; try another node or later`, { details: { retryAfterSeconds: 5 } });
    this.subs.add(s);
  }

  remove(s: ObserverSse): void { this.subs.delete(s); }

  private onNotify(payload: string): void {
    let m: any;
    try { m = JSON.parse(payload); } catch { return; }
    if (!m || typeof m.z !== 'string' || !Number.isInteger(m.s) || !this.subs.size) return;
    this.delivery = this.delivery.then(() => this.deliver(m)).catch(() => { /* a failed look-up drops one event */ });
  }

  private async deliver(m: any): Promise<void> {
    let e: ChainEntryView;
    if (m.truncated) {
      const rows = await this.app.db.query<any>('SELECT seq, zid, kind, ref, at, payload_hash, prev_hash, hash FROM chain_entries WHERE zid = $1 AND seq = $2', [m.z, m.s]);
      if (!rows.length) return;
      e = entryView(rows[0]);
    } else {
      e = { seq: Number(m.s), zid: m.z, kind: String(m.k), ref: String(m.r), at: String(m.a), payloadHash: String(m.ph), prevHash: String(m.p), hash: String(m.h) };
    }
    let global: GlobalEntryView | null = null;
    for (const s of this.subs) {
      if (s.zid === null) {
        global ??= { kind: e.kind, at: e.at, hash: e.hash.slice(0, 12), machine: await this.slugOf(e.zid) };
        s.offerGlobal(global);
      } else if (s.zid === e.zid) {
        s.offerMachine(e);
      }
    }
  }

  private async slugOf(zid: string): Promise<string | null> {
    if (this.slugs.has(zid)) return this.slugs.get(zid)!;
    const rows = await this.app.db.query<{ slug: string }>('SELECT slug FROM machines WHERE zid = $1', [zid]);
    if (this.slugs.size > 10_000) this.slugs.clear();
    const slug = rows[0]?.slug ?? null;
    this.slugs.set(zid, slug);
    return slug;
  }

  private onKeysChanged(zid: string): void {
    for (const s of this.subs) if (s.zid !== null && (zid === '' || s.zid === zid)) s.finish('keys-changed');
  }

  /** Ends every stream with an `end` event (the client reconnects, to this node or another). */
  endAll(reason: string): void {
    for (const s of [...this.subs]) s.finish(reason);
  }

  async close(reason: string): Promise<void> {
    this.closed = true;
    this.endAll(reason);
    for (const u of this.unlisten.splice(0)) await u().catch(() => {});
  }
}

function entryView(r: any): ChainEntryView {
  return { seq: Number(r.seq), zid: r.zid, kind: r.kind, ref: r.ref, at: r.at, payloadHash: r.payload_hash, prevHash: r.prev_hash, hash: r.hash };
}

const hubs = new WeakMap<App, ObserverHub>();

function hubOf(app: App): ObserverHub {
  let h = hubs.get(app);
  if (!h) { h = new ObserverHub(app); hubs.set(app, h); }
  return h;
}

/** Number of observer streams this node serves now. */
export function observerSubscribers(app: App): number {
  return hubs.get(app)?.subs.size ?? 0;
}

export const operations: Operation[] = [
  defineOp({
    id: 'chain.observer-stream',
    produces: ['text/event-stream'],
    upstream: true,
    method: 'GET',
    path: '/api/observer/stream',
    access: 'public',
    tag: 'chain',
    summary: 'Live observer feed as Server-Sent Events: every chain append, from any node sharing the store, as it commits. Without a key the global feed (kind, time, short hash, machine slug); with a machine key the caller\'s entries in full, `id` = chain seq, resumable with Last-Event-ID.',
    description: 'Events: `entry` (one chain entry), `end` (the node is draining or the machine\'s keys changed: reconnect). A comment line every 15 s keeps idle connections open. scope=global gives the global feed to a key holder too.',
    input: z.strictObject({
      scope: z.enum(['auto', 'global', 'machine']).default('auto').describe('auto: machine with a machine key, else global'),
      lastEventId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('machine scope: replay entries after this seq (the Last-Event-ID header takes precedence)'),
    }),
    async handler(input, ctx): Promise<RawReply> {
      const zid = ctx.caller?.zid ?? null;
      let scope = input.scope;
      if (scope === 'auto') scope = zid ? 'machine' : 'global';
      if (scope === 'machine' && !zid) throw new SvcError('UNAUTHORIZED', 'scope=machine needs a machine key: Authorization: Bearer <API_KEY>');
      const hub = hubOf(ctx.app);
      if (hub.closed) throw new SvcError('UPSTREAM_UNAVAILABLE', 'this node is shutting down; reconnect to another node', { details: { retryAfterSeconds: 1 } });
      let lastSeq = input.lastEventId ?? null;
      const header = ctx.headers['last-event-id'];
      if (typeof header === 'string' && /^\d{1,15}$/.test(header.trim())) lastSeq = Number(header.trim());
      await hub.ensureListening().catch(() => {
        throw new SvcError('UPSTREAM_UNAVAILABLE', 'the store does not answer LISTEN; try again', { details: { retryAfterSeconds: 1 } });
      });
      const s = new ObserverSse(hub, scope === 'machine' ? zid : null, 0);
      hub.add(s);
      ctx.signal.addEventListener('abort', () => s.destroy(), { once: true });
      s.write(`: ${scope} observer feed of node ${ctx.app.nodeId}\n\n`);
      if (scope === 'machine') {
        // entries that commit while we read the store wait in the stream and are de-duplicated by seq
        s.startReplay();
        try {
          let rows: ChainEntryView[] = [];
          let more = false;
          if (lastSeq !== null) {
            s.lastSeq = lastSeq;
            rows = (await ctx.app.db.query<any>(
              'SELECT seq, zid, kind, ref, at, payload_hash, prev_hash, hash FROM chain_entries WHERE zid = $1 AND seq > $2 ORDER BY seq LIMIT $3', [zid, lastSeq, REPLAY_LIMIT])).map(entryView);
            more = rows.length === REPLAY_LIMIT;
          } else {
            const [m] = await ctx.app.db.query<{ chain_seq: number }>('SELECT chain_seq FROM machines WHERE zid = $1', [zid]);
            s.lastSeq = Number(m?.chain_seq ?? 0);
          }
          s.finishReplay(rows, more);
        } catch (e) {
          s.destroy();
          throw e;
        }
      }
      return {
        raw: true,
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
        body: s,
      };
    },
  }),
];
