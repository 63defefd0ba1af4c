// svc_stream channels: a solver (or catalog operator) run once per svcond for a bounded number
// of ticks, each tick sealed with the pulse of its own scheduled instant.
//
// Schedule: tick k belongs to the slot t0 + k·0.777 s. The instant sealed is exactly that
// (t0 in whole milliseconds, so tick k is (t0_ms + 777·k)/1000); the wall-clock timer for slot k
// is armed against a monotonic start (performance.now() at open + 777·k ms), never as "777 ms
// after the last tick", so a slow tick cannot shift the schedule. Ticks of one channel never
// overlap: when tick k ends, every later slot whose start is more than OVERRUN_GRACE_MS in the
// past is skipped (an event `skip`, no token), and the next tick waits for its own slot.
//
// Delivery: every event is stored (stream_events) before it is published; subscribers (event
// streams, src/live/sse.ts) get it in-process, and a db.notify on 'svc_stream_events' tells
// subscribers on other nodes sharing the database to read it from the store. The streams send
// strictly consecutive ids and fill gaps from the store, so a resume with Last-Event-ID never
// loses or repeats one.
import { performance } from 'node:perf_hooks';
import type { App } from '../ops/types.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { pulseAt, SVCOND_SECONDS } from '../core/clock.ts';
import { ulid } from '../core/ids.ts';
import {
  bindOperatorInputs, computeOperatorStep, computeSolverStep, validateSolverBody,
  type PreparedSource, type StepOutcome,
} from './steps.ts';
import { evalNumber, type CompiledExpr } from './expr.ts';
import { channelEnded, channelStarted, liveTimeout, subscriberAdded, subscriberRemoved } from './registry.ts';
import { EventStream, Fanout, notifyPayload, type EventLog } from './sse.ts';

export const SVCOND_MS = 777;
export const MAX_TICKS = 600;
export const DEFAULT_STREAMS_PER_MACHINE = 5;
export const DEFAULT_STREAMS_PER_NODE = 200;
/** a slot whose start passed by more than this while the previous tick ran is skipped */
export const OVERRUN_GRACE_MS = 388;
export const EVENTS_CHANNEL = 'svc_stream_events';
export const CONTROL_CHANNEL = 'svc_stream_control';
export const CHANNEL_ID_RE = /^ch_[0-9A-HJKMNP-TV-Z]{26}$/;

export type ChannelState = 'open' | 'completed' | 'closed' | 'exhausted' | 'failed';
export type EventKind = 'tick' | 'skip' | 'refused' | 'end';

export interface ChannelSpec {
  solver?: string;
  operator?: string;
  /** solver: the request body (the solver's fields and the common ones, no folder) */
  body?: Record<string, unknown>;
  /** operator: its inputs */
  inputs?: Record<string, unknown>;
  /** per-tick numeric overrides: field → expression */
  vary?: Record<string, string>;
  ticks: number;
  closeOnDisconnect: boolean;
  folder?: string;
}

export interface LiveEvent {
  seq: number;
  kind: EventKind;
  /** the JSON text of the SSE data line (as stored) */
  data: string;
  parsed: Record<string, unknown>;
}

export function newChannelId(): string {
  return 'ch_' + ulid();
}

export function streamsPerMachine(app: App): number {
  const v = Number(app.config.env?.SVC_STREAMS_PER_MACHINE);
  return Number.isInteger(v) && v > 0 ? v : DEFAULT_STREAMS_PER_MACHINE;
}

export function streamsPerNode(app: App): number {
  const v = Number(app.config.env?.SVC_STREAMS_PER_NODE);
  return Number.isInteger(v) && v > 0 ? v : DEFAULT_STREAMS_PER_NODE;
}

/** Seconds after the last slot before an 'open' row is considered lost (its node died). */
export function lostAfterSeconds(app: App): number {
  return app.config.solverTimeoutMs / 1000 + 60;
}

export interface ChannelOptions {
  id: string;
  zid: string;
  keyPrefix: string;
  spec: ChannelSpec;
  /** instant of tick 0, unix milliseconds */
  t0ms: number;
  source: PreparedSource;
  vary: [string, CompiledExpr][];
  baseNumbers: Record<string, number>;
  /** test seam: runs before each tick's compute (a slow tick is simulated with it) */
  beforeTick?: (k: number, signal: AbortSignal) => Promise<void>;
}

/** Registers a channel (its row, within the per-machine limit) and starts it; the returned
 * channel is already ticking. `beforeStart` runs after registration and before tick 0 (an MCP
 * follower attaches its observer there). Throws RATE_LIMITED past the limits. */
export async function createChannel(app: App, opts: Omit<ChannelOptions, 'id' | 't0ms'>, beforeStart?: (ch: Channel) => void): Promise<Channel> {
  const hub = hubFor(app);
  if (hub.shuttingDown) throw new SvcError('UPSTREAM_UNAVAILABLE', 'this node is shutting down');
  if (hub.channels.size >= streamsPerNode(app)) {
    throw new SvcError('RATE_LIMITED', `this node runs its maximum of ${streamsPerNode(app)} stream channels; try again later`, { details: { retryAfterSeconds: 30 } });
  }
  const id = newChannelId();
  const limit = streamsPerMachine(app);
  const nowT = app.clock.now();
  const t0ms = Math.round(nowT * 1000);
  const expiresAt = t0ms / 1000 + opts.spec.ticks * SVCOND_SECONDS + lostAfterSeconds(app);
  await app.db.tx(async (q) => {
    await q.query('SELECT zid FROM machines WHERE zid = $1 FOR UPDATE', [opts.zid]);
    await q.query("DELETE FROM stream_channels WHERE zid = $1 AND state <> 'open' AND ended_at < now() - interval '1 day'", [opts.zid]);
    const [{ n }] = await q.query<{ n: number }>("SELECT count(*) AS n FROM stream_channels WHERE zid = $1 AND state = 'open' AND expires_at > $2", [opts.zid, nowT]);
    if (Number(n) >= limit) {
      throw new SvcError('RATE_LIMITED', `at most ${limit} open stream channels per machine; close one first (DELETE /api/streams/{id})`, { details: { limit, open: Number(n) } });
    }
    await q.query(
      `INSERT INTO stream_channels (id, zid, node_id, state, spec, ticks, t0_ms, expires_at, close_on_disconnect) VALUES ($1, $2, $3, 'open', $4, $5, $6, $7, $8)`,
      [id, opts.zid, app.nodeId, JSON.stringify(opts.spec), opts.spec.ticks, t0ms, expiresAt, opts.spec.closeOnDisconnect],
    );
  });
  await hub.ensureListening();
  const ch = new Channel({ ...opts, id, t0ms, hub });
  beforeStart?.(ch);
  ch.start();
  return ch;
}

export class Channel {
  readonly id: string;
  readonly zid: string;
  readonly keyPrefix: string;
  readonly spec: ChannelSpec;
  readonly t0ms: number;
  readonly done: Promise<void>;
  state: ChannelState = 'open';
  reason: string | null = null;
  nextSeq = 0;
  counts = { sealed: 0, skipped: 0, refused: 0 };
  closing: string | null = null;
  private readonly hub: LiveHub;
  private readonly source: PreparedSource;
  private readonly vary: [string, CompiledExpr][];
  private readonly baseNumbers: Record<string, number>;
  private readonly startWall: number;
  private readonly controller = new AbortController();
  private cancelSleep: (() => void) | null = null;
  private readonly observers = new Set<(e: LiveEvent) => void>();
  private resolveDone!: () => void;

  private readonly beforeTick?: (k: number, signal: AbortSignal) => Promise<void>;

  constructor(opts: ChannelOptions & { hub: LiveHub }) {
    this.hub = opts.hub;
    this.id = opts.id;
    this.zid = opts.zid;
    this.keyPrefix = opts.keyPrefix;
    this.spec = opts.spec;
    this.t0ms = opts.t0ms;
    this.source = opts.source;
    this.vary = opts.vary;
    this.baseNumbers = opts.baseNumbers;
    // the wall-clock schedule is anchored at t0 itself, not at the end of the open request
    this.startWall = performance.now() - Math.max(0, opts.hub.app.clock.now() * 1000 - opts.t0ms);
    this.beforeTick = opts.beforeTick;
    this.done = new Promise((res) => { this.resolveDone = res; });
  }

  get app(): App { return this.hub.app; }

  start(): void {
    channelStarted();
    this.hub.channels.set(this.id, this);
    void this.loop();
  }

  /** In-order local observer of every event (MCP notifications); returns the unsubscribe. */
  observe(fn: (e: LiveEvent) => void): () => void {
    this.observers.add(fn);
    return () => { this.observers.delete(fn); };
  }

  /** Stops the channel: the pending slot timer is cancelled, a running solver job is aborted
   * (its worker is terminated by the pool), a seal already under way is kept and stored.
   * Resolves once the final event is stored. */
  close(reason: string): Promise<void> {
    if (this.state === 'open' && !this.closing) {
      this.closing = reason;
      this.controller.abort();
      this.cancelSleep?.();
    }
    return this.done;
  }

  private slotWall(k: number): number { return this.startWall + k * SVCOND_MS; }
  slotInstant(k: number): number { return (this.t0ms + k * SVCOND_MS) / 1000; }

  private sleepUntilSlot(k: number): Promise<void> {
    const delay = this.slotWall(k) - performance.now();
    if (delay <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const cancel = liveTimeout(() => { this.cancelSleep = null; resolve(); }, delay);
      this.cancelSleep = () => { cancel(); this.cancelSleep = null; resolve(); };
    });
  }

  private async loop(): Promise<void> {
    let k = 0;
    let end: ChannelState = 'completed';
    let reason: string | null = null;
    try {
      while (k < this.spec.ticks && !this.closing) {
        await this.sleepUntilSlot(k);
        if (this.closing) break;
        const r = await this.tick(k);
        if (r === 'aborted') break;
        if (r === 'exhausted') { end = 'exhausted'; reason = 'the machine ran out of compute tokens'; break; }
        k++;
        while (k < this.spec.ticks && !this.closing && performance.now() > this.slotWall(k) + OVERRUN_GRACE_MS) {
          await this.record(k, 'skip', { channel: this.id, tick: k, t: this.slotInstant(k), status: 'skipped', reason: 'the previous tick overran this slot' });
          this.counts.skipped++;
          k++;
        }
      }
    } catch (e) {
      end = 'failed';
      reason = e instanceof Error ? e.message : 'internal error';
    }
    if (end === 'completed' && this.closing && k < this.spec.ticks) { end = 'closed'; reason = this.closing; }
    await this.finish(end, reason);
  }

  private variedFields(k: number, t: number): Record<string, number> {
    if (!this.vary.length) return {};
    const p = pulseAt(t);
    const scope: Record<string, unknown> = { ...this.baseNumbers, tick: k, t, phase: p.phase, svcond: p.svcond, R_t: p.R_t };
    const out: Record<string, number> = {};
    for (const [field, c] of this.vary) {
      const v = evalNumber(c, scope, `vary.${field}`);
      if (!Number.isFinite(v)) throw new SvcError('UNSTABLE', `vary.${field} gave a non-finite number at tick ${k}; nothing was sealed`, { details: { value: null } });
      out[field] = v;
    }
    return out;
  }

  private async tick(k: number): Promise<'ok' | 'refused' | 'exhausted' | 'aborted'> {
    const app = this.app;
    const t = this.slotInstant(k);
    const left = await app.sealer.tokensLeft(this.zid);
    if (this.controller.signal.aborted) return 'aborted';
    if (left < 1) return 'exhausted';
    const tag = { stream: { channel: this.id, tick: k } };
    let outcome: StepOutcome;
    try {
      if (this.beforeTick) await this.beforeTick(k, this.controller.signal);
      const varied = this.variedFields(k, t);
      if (this.source.kind === 'solver') {
        const input = validateSolverBody(this.source, { ...(this.spec.body ?? {}), ...varied });
        outcome = await computeSolverStep(app, this.source, input, { t, signal: this.controller.signal, tag });
      } else {
        const bound = bindOperatorInputs(this.source, { ...(this.spec.inputs ?? {}), ...varied });
        outcome = computeOperatorStep(this.source, bound, { tag });
      }
    } catch (e) {
      if (this.controller.signal.aborted) return 'aborted';
      if (!isSvcError(e)) throw e;
      await this.recordRefusal(k, t, e);
      return 'refused';
    }
    if (this.controller.signal.aborted) return 'aborted';
    let sealed: Record<string, unknown>;
    try {
      sealed = await app.sealer.seal({ ...outcome.job, zid: this.zid, keyPrefix: this.keyPrefix, t, cost: 1, folder: this.spec.folder });
    } catch (e) {
      if (isSvcError(e) && e.code === 'QUOTA_EXCEEDED') return 'exhausted';
      if (!isSvcError(e)) throw e;
      await this.recordRefusal(k, t, e);
      return 'refused';
    }
    const svcState = sealed.svcState as { svcond: number };
    await this.record(k, 'tick', {
      channel: this.id, tick: k, t, svcond: svcState.svcond, phase: sealed.phase, status: 'sealed',
      value: outcome.value, unit: outcome.unit, receipt: sealed,
    });
    this.counts.sealed++;
    return 'ok';
  }

  private async recordRefusal(k: number, t: number, e: SvcError): Promise<void> {
    await this.record(k, 'refused', { channel: this.id, tick: k, t, status: 'refused', error: { code: e.code, error: e.message } });
    this.counts.refused++;
  }

  private async record(seq: number, kind: EventKind, obj: Record<string, unknown>): Promise<void> {
    const data = JSON.stringify(obj);
    await this.app.db.query('INSERT INTO stream_events (channel_id, seq, kind, at, data) VALUES ($1, $2, $3, $4, $5)',
      [this.id, seq, kind, typeof obj.t === 'number' ? obj.t : this.app.clock.now(), data]);
    this.nextSeq = seq + 1;
    this.emit({ seq, kind, data, parsed: obj });
  }

  private emit(ev: LiveEvent): void {
    for (const o of [...this.observers]) { try { o(ev); } catch { /* an observer never breaks the channel */ } }
    this.hub.publish(this.id, ev);
  }

  private async finish(state: ChannelState, reason: string | null): Promise<void> {
    const seq = this.nextSeq;
    const obj = {
      channel: this.id, status: 'end', state, reason,
      ticks: { scheduled: this.spec.ticks, sealed: this.counts.sealed, skipped: this.counts.skipped, refused: this.counts.refused },
    };
    const data = JSON.stringify(obj);
    try {
      await this.app.db.tx(async (q) => {
        await q.query('INSERT INTO stream_events (channel_id, seq, kind, at, data) VALUES ($1, $2, $3, $4, $5)', [this.id, seq, 'end', this.app.clock.now(), data]);
        await q.query('UPDATE stream_channels SET state = $2, reason = $3, ended_at = now() WHERE id = $1', [this.id, state, reason]);
      });
    } catch { /* the store is gone (node shutting down): local subscribers still get the end */ }
    this.state = state;
    this.reason = reason;
    this.nextSeq = seq + 1;
    this.cancelSleep?.();
    this.emit({ seq, kind: 'end', data, parsed: obj });
    this.observers.clear();
    this.hub.channels.delete(this.id);
    channelEnded();
    this.resolveDone();
  }
}

/** One per app: the channels this node runs, the SSE subscribers it serves, and the
 * LISTEN/NOTIFY link to other nodes. */
export class LiveHub {
  readonly app: App;
  readonly channels = new Map<string, Channel>();
  /** event streams by channel id */
  private readonly subs: Fanout<EventStream>;
  shuttingDown = false;

  constructor(app: App) {
    this.app = app;
    this.subs = new Fanout(app, () => ({ [EVENTS_CHANNEL]: (p: string) => this.onNotify(p), [CONTROL_CHANNEL]: (p: string) => this.onControl(p) }));
    app.onClose.push(() => this.shutdown());
    app.beforeClose.push(() => this.shutdown());
  }

  ensureListening(): Promise<void> {
    return this.subs.ensureListening().catch(() => { /* without LISTEN, delivery on this node still works */ });
  }

  publish(channelId: string, ev: LiveEvent): void {
    for (const s of this.subs.of(channelId)) s.offer({ id: ev.seq, event: ev.kind, data: ev.data });
    if (this.shuttingDown && ev.kind !== 'end') return;
    void this.app.db.notify(EVENTS_CHANNEL, JSON.stringify({ c: channelId, s: ev.seq, k: ev.kind, n: this.app.nodeId })).catch(() => {});
  }

  private onNotify(payload: string): void {
    const m = notifyPayload(payload);
    if (!m || typeof m.c !== 'string' || !Number.isInteger(m.s) || m.n === this.app.nodeId) return;
    for (const s of this.subs.of(m.c)) s.hint(m.s as number);
  }

  private onControl(payload: string): void {
    const m = notifyPayload(payload);
    if (m && typeof m.close === 'string') void this.channels.get(m.close)?.close(typeof m.reason === 'string' ? m.reason : 'closed');
  }

  /** The body of GET /api/streams/:id/events: stored events after the resume point, then live
   * ones, each `id: <seq>` / `event: <kind>` / `data: <json>`; it ends after the `end` event. A
   * snapshot sends what is stored and ends (requests made through svc_http). */
  events(channelId: string, opts: { lastEventId: number | null; snapshot: boolean }): EventStream {
    const s: EventStream = new EventStream({
      preamble: { comment: `svc stream ${channelId}`, retry: 2000 },
      log: this.channelLog(channelId),
      lastId: opts.lastEventId ?? -1,
      finalEvent: 'end',
      snapshot: opts.snapshot,
      onStop: (gone) => this.unsubscribe(channelId, s, gone),
    });
    this.subs.add(channelId, s);
    subscriberAdded();
    void this.ensureListening().then(() => s.start());
    return s;
  }

  private channelLog(channelId: string): EventLog {
    const db = this.app.db;
    return {
      async read(after, limit) {
        const rows = await db.query<{ seq: number; kind: EventKind; data: string }>(
          'SELECT seq, kind, data FROM stream_events WHERE channel_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [channelId, after, limit]);
        return rows.map((r) => ({ id: Number(r.seq), event: r.kind, data: r.data }));
      },
      // nothing after the resume point: if the channel has ended (its end event is at or before
      // it), there is nothing more to wait for
      over: async () => {
        if (this.channels.has(channelId)) return false;
        const st = await db.query<{ state: string }>('SELECT state FROM stream_channels WHERE id = $1', [channelId]);
        return !st.length || st[0].state !== 'open';
      },
    };
  }

  /** Removes a subscriber; `gone` = the client went away before the end event. */
  private unsubscribe(channelId: string, s: EventStream, gone: boolean): void {
    if (!this.subs.remove(channelId, s)) return;
    subscriberRemoved();
    if (gone && !this.subs.of(channelId).length && !this.shuttingDown) void this.closeOnDisconnect(channelId);
  }

  private async closeOnDisconnect(channelId: string): Promise<void> {
    const local = this.channels.get(channelId);
    if (local) {
      if (local.spec.closeOnDisconnect) await local.close('client-disconnected');
      return;
    }
    try {
      const rows = await this.app.db.query<{ close_on_disconnect: boolean; state: string }>('SELECT close_on_disconnect, state FROM stream_channels WHERE id = $1', [channelId]);
      if (rows[0]?.close_on_disconnect && rows[0].state === 'open') {
        await this.app.db.notify(CONTROL_CHANNEL, JSON.stringify({ close: channelId, reason: 'client-disconnected' }));
      }
    } catch { /* best effort */ }
  }

  /** Closes a channel wherever it runs. Local: waits for the final event. */
  async requestClose(channelId: string, reason: string): Promise<'closed' | 'requested'> {
    const local = this.channels.get(channelId);
    if (local) { await local.close(reason); return 'closed'; }
    await this.app.db.notify(CONTROL_CHANNEL, JSON.stringify({ close: channelId, reason }));
    return 'requested';
  }

  private shutdownPromise: Promise<void> | null = null;

  /** Closes every local channel (final event 'closed', reason node-shutdown) and ends every SSE
   * response (a client following a channel of another node resumes with Last-Event-ID). Runs from
   * app.close(); the HTTP layer also calls it before it drains in-flight requests
   * (app.beforeClose), or open SSE responses would delay the drain. The LISTENs close with the app. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.doShutdown();
    return this.shutdownPromise;
  }

  private async doShutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.channels.values()].map((c) => c.close('node-shutdown')));
    for (const s of this.subs.all()) s.finish();
  }
}

declare module '../ops/types.ts' {
  interface AppParts {
    /** live compute of this app: its channels and their fan-out (created on first use) */
    liveHub?: LiveHub;
  }
}

/** Stops live compute of an app (idempotent): for a preClose hook of the HTTP server. */
export function shutdownLive(app: App): Promise<void> {
  return app.parts.liveHub?.shutdown() ?? Promise.resolve();
}

export function hubFor(app: App): LiveHub {
  return (app.parts.liveHub ??= new LiveHub(app));
}

/** Marks an 'open' channel whose node stopped ticking long ago as failed, with a final event. */
export async function reapIfLost(app: App, channelId: string): Promise<void> {
  if (hubFor(app).channels.has(channelId)) return;
  const now = app.clock.now();
  await app.db.tx(async (q) => {
    const rows = await q.query<{ id: string }>("UPDATE stream_channels SET state = 'failed', reason = 'node-lost', ended_at = now() WHERE id = $1 AND state = 'open' AND expires_at < $2 RETURNING id", [channelId, now]);
    if (!rows.length) return;
    const [{ next }] = await q.query<{ next: number }>('SELECT coalesce(max(seq), -1) + 1 AS next FROM stream_events WHERE channel_id = $1', [channelId]);
    const data = JSON.stringify({ channel: channelId, status: 'end', state: 'failed', reason: 'node-lost' });
    await q.query('INSERT INTO stream_events (channel_id, seq, kind, at, data) VALUES ($1, $2, $3, $4, $5)', [channelId, Number(next), 'end', now, data]);
  });
}

export function parseLastEventId(v: unknown): number | null {
  if (typeof v !== 'string' || !/^-?\d{1,9}$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return n >= -1 ? n : null;
}

export { SVCOND_SECONDS };
