// The live observer feed (issue 12): GET /api/observer/stream, Server-Sent Events of chain
// appends as they commit, on whichever node the subscriber is connected to.
//
// How an append reaches a subscriber on another node: the chain_entries insert trigger
// (migration 600) runs pg_notify on `svc_chain_<md5(schema)[0..16]>` inside the appending
// transaction; PostgreSQL delivers it at commit to every node LISTENing on the database (PGlite
// delivers it in-process). Each node keeps one LISTEN per app, opened with the first subscriber,
// and fans the entry out to its SSE subscribers (Fanout and EventStream, src/live/sse.ts, shared
// with the stream channels). No polling, and an append that rolls back is never announced.
//
// Scopes, as GET /api/observer (DESIGN §8):
//   global   (no key, or scope=global) kind, time, short hash, machine slug; no values, no ids
//   machine  (a machine key) the caller's own entries in full; `id:` is the chain seq, and a
//            reconnect with Last-Event-ID (header, or lastEventId) replays the entries after it
//            from the store first, so a client that fails over to another node misses nothing
//            (1000 entries per connection: a longer replay ends with `replay-continue` and the
//            client's reconnect, with the last id it got, picks up the rest). The chain in the
//            store is the truth: a NOTIFY is sent on at once when it is the next seq, otherwise
//            the stream reads the store, so a lost NOTIFY leaves no gap.
// A machine-scope stream ends when the machine's keys change (revocation NOTIFY on svc_keys).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineOp, type Operation, type EventStreamReply } from './types.ts';
import type { App } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { KEYS_CHANNEL } from '../services/key-cache.ts';
import { EventStream, Fanout, notifyPayload, type EventLog } from '../live/sse.ts';

export const MAX_SUBSCRIBERS = 1000;
const REPLAY_LIMIT = 1000;
/** the topic of global-scope subscribers (machine subscribers are under their zid) */
const GLOBAL = '*';

export function chainChannel(schema: string): string {
  return 'svc_chain_' + createHash('md5').update(schema).digest('hex').slice(0, 16);
}

export interface ChainEntryView {
  seq: number; zid: string; kind: string; ref: string; at: string; payloadHash: string; prevHash: string; hash: string;
}

export interface GlobalEntryView { kind: string; at: string; hash: string; machine: string | null }

const ENTRY_SQL = 'SELECT seq, zid, kind, ref, at, payload_hash, prev_hash, hash FROM chain_entries';

/** A machine's chain as the log of its feed: ids are the chain seq (consecutive from 1). */
function chainLog(app: App, zid: string): EventLog {
  return {
    async read(after, limit) {
      const rows = await app.db.query<any>(`${ENTRY_SQL} WHERE zid = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [zid, after, limit]);
      return rows.map((r) => { const e = entryView(r); return { id: e.seq, event: 'entry', data: JSON.stringify(e) }; });
    },
    // without Last-Event-ID the feed starts at the machine's head: only new entries
    async head() {
      const [m] = await app.db.query<{ chain_seq: number }>('SELECT chain_seq FROM machines WHERE zid = $1', [zid]);
      return Number(m?.chain_seq ?? 0);
    },
  };
}

class ObserverHub {
  readonly app: App;
  readonly subs: Fanout<EventStream>;
  private slugs = new Map<string, string | null>();
  /** deliveries in commit order (slug look-ups are async) */
  private delivery: Promise<void> = Promise.resolve();
  closed = false;

  constructor(app: App) {
    this.app = app;
    this.subs = new Fanout(app, async () => {
      const [{ schema }] = await app.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      return { [chainChannel(schema)]: (p: string) => this.onNotify(p), [KEYS_CHANNEL]: (zid: string) => this.onKeysChanged(zid) };
    });
    // endless responses end before the HTTP server drains (graceful shutdown), so clients
    // reconnect elsewhere at once; the LISTENs close with the app (Fanout)
    app.beforeClose.push(() => this.endAll('node-draining'));
    app.onClose.push(() => { this.closed = true; this.endAll('node-shutdown'); });
  }

  /** A subscriber: the global feed (zid null) or a machine's, resumed after `lastSeq` when given. */
  open(zid: string | null, lastSeq: number | null, preamble: string): EventStream {
    if (this.subs.size >= MAX_SUBSCRIBERS) throw new SvcError('RATE_LIMITED', `this node serves at most ${MAX_SUBSCRIBERS} observer streams; try another node or later`, { details: { retryAfterSeconds: 5 } });
    const topic = zid ?? GLOBAL;
    const s: EventStream = new EventStream({
      preamble: { comment: preamble },
      ...(zid !== null ? { log: chainLog(this.app, zid), lastId: lastSeq, replayLimit: REPLAY_LIMIT } : {}),
      onStop: () => { this.subs.remove(topic, s); },
    });
    this.subs.add(topic, s);
    s.start();
    return s;
  }

  private onNotify(payload: string): void {
    if (!this.subs.size) return;
    // one entry (an object), or every entry one statement inserted (an array: migration 710)
    let list: unknown[] = [];
    if (payload.startsWith('[')) { try { const a = JSON.parse(payload); if (Array.isArray(a)) list = a; } catch { /* not ours */ } } else list = [notifyPayload(payload)];
    for (const m of list as (Record<string, any> | null)[]) {
      if (!m || typeof m !== 'object' || typeof m.z !== 'string' || !Number.isInteger(m.s)) continue;
      this.delivery = this.delivery.then(() => this.deliver(m)).catch(() => { /* a failed look-up drops one global event */ });
    }
  }

  private async deliver(m: Record<string, any>): Promise<void> {
    const mine = this.subs.of(m.z);
    const global = this.subs.of(GLOBAL);
    let e: ChainEntryView | null = null;
    if (!m.truncated) {
      e = { seq: Number(m.s), zid: m.z, kind: String(m.k), ref: String(m.r), at: String(m.a), payloadHash: String(m.ph), prevHash: String(m.p), hash: String(m.h) };
    }
    // the machine's own feeds read from the store what the NOTIFY does not carry
    for (const s of mine) {
      if (e) s.offer({ id: e.seq, event: 'entry', data: JSON.stringify(e) });
      else s.hint(Number(m.s));
    }
    if (!global.length) return;
    if (!e) {
      const rows = await this.app.db.query<any>(`${ENTRY_SQL} WHERE zid = $1 AND seq = $2`, [m.z, m.s]);
      if (!rows.length) return;
      e = entryView(rows[0]);
    }
    const view: GlobalEntryView = { kind: e.kind, at: e.at, hash: e.hash.slice(0, 12), machine: await this.slugOf(e.zid) };
    const data = JSON.stringify(view);
    for (const s of this.subs.of(GLOBAL)) s.send({ event: 'entry', data });
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
    const zids = zid === '' ? this.subs.topics().filter((t) => t !== GLOBAL) : [zid];
    for (const z of zids) for (const s of this.subs.of(z)) s.finish('keys-changed');
  }

  /** Ends every stream with an `end` event (the client reconnects, to this node or another). */
  endAll(reason: string): void {
    for (const s of this.subs.all()) s.finish(reason);
  }
}

function entryView(r: any): ChainEntryView {
  return { seq: Number(r.seq), zid: r.zid, kind: r.kind, ref: r.ref, at: r.at, payloadHash: r.payload_hash, prevHash: r.prev_hash, hash: r.hash };
}

declare module './types.ts' {
  interface AppParts {
    /** the observer feed's subscribers and LISTEN (created on first use) */
    observerHub?: ObserverHub;
  }
}

function hubOf(app: App): ObserverHub {
  return (app.parts.observerHub ??= new ObserverHub(app));
}

/** Number of observer streams this node serves now. */
export function observerSubscribers(app: App): number {
  return app.parts.observerHub?.subs.size ?? 0;
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
    async handler(input, ctx): Promise<EventStreamReply> {
      const zid = ctx.caller?.zid ?? null;
      let scope = input.scope;
      if (scope === 'auto') scope = zid ? 'machine' : 'global';
      if (scope === 'machine' && !zid) throw new SvcError('UNAUTHORIZED', 'scope=machine needs a machine key: Authorization: Bearer <API_KEY>');
      const hub = hubOf(ctx.app);
      if (hub.closed) throw new SvcError('UPSTREAM_UNAVAILABLE', 'this node is shutting down; reconnect to another node', { details: { retryAfterSeconds: 1 } });
      let lastSeq = input.lastEventId ?? null;
      const header = ctx.headers['last-event-id'];
      if (typeof header === 'string' && /^\d{1,15}$/.test(header.trim())) lastSeq = Number(header.trim());
      await hub.subs.ensureListening().catch(() => {
        throw new SvcError('UPSTREAM_UNAVAILABLE', 'the store does not answer LISTEN; try again', { details: { retryAfterSeconds: 1 } });
      });
      const events = hub.open(scope === 'machine' ? zid : null, lastSeq, `${scope} observer feed of node ${ctx.app.nodeId}`);
      return { raw: true, events };
    },
  }),
];
