// svc_stream: hosted ticking solver channels (issue 10; schemas in docs/live-compute.md).
//   POST   /api/streams              open a channel (tool svc_stream)
//   GET    /api/streams              the caller's channels
//   GET    /api/streams/:id          one channel's state
//   DELETE /api/streams/:id          close it
//   GET    /api/streams/:id/events   Server-Sent Events, resumable with Last-Event-ID
import { z } from 'zod';
import { defineOp, type Operation, type OpContext, type EventStreamReply } from './types.ts';
import type { App } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { pulseAt, SVCOND_SECONDS } from '../core/clock.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { folderField } from './schema.ts';
import {
  CHANNEL_ID_RE, MAX_TICKS, parseLastEventId, createChannel, hubFor, reapIfLost, streamsPerMachine, streamsPerFamily, streamsPerAddress,
  type Channel, type ChannelSpec, type LiveEvent,
} from '../live/channels.ts';
import { bindOperatorInputs, prepareOperator, prepareSolver, validateSolverBody, type PreparedSource } from '../live/steps.ts';
import { compileChecked, evalNumber, NAME_RE, type CompiledExpr } from '../live/expr.ts';
import { CREATES } from './tool-hints.ts';
import { okWith } from './outputs.ts';

const channelState = z.object({
  id: z.string().describe('ch_…'),
  state: z.enum(['open', 'completed', 'closed', 'exhausted', 'failed']),
  reason: z.string().nullable(),
  source: z.union([z.object({ solver: z.string() }), z.object({ operator: z.string() })]),
  ticks: z.number().int(),
  t0: z.number().describe('instant of tick 0, unix seconds; tick k is at t0 + k*svcondSeconds'),
  svcondSeconds: z.number(),
  closeOnDisconnect: z.boolean(),
  counts: z.object({ sealed: z.number().int(), skipped: z.number().int(), refused: z.number().int() }),
  nextEventId: z.number().int(),
  node: z.string().describe('the node running the channel'),
  createdAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  events: z.string().describe('the Server-Sent Events URL'),
}).meta({ id: 'StreamChannel', description: 'A hosted ticking channel: its state, schedule and counts.' });

const ENV_NAMES = ['tick', 't', 'phase', 'svcond', 'R_t'];
const channelId = z.string().regex(CHANNEL_ID_RE, 'a channel id: ch_ followed by 26 Crockford base32 characters');

const openInput = z.strictObject({
  solver: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a solver name such as "epi" or "lorenz"').optional()
    .describe('the solver to tick (one of solver/operator)'),
  operator: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'an operator id such as "KINETIC_ENERGY"').optional()
    .describe('a catalog operator to tick (one of solver/operator)'),
  body: z.record(z.string().max(64), z.unknown()).optional()
    .describe('solver only: the request body of POST /api/svc/<solver> (its own fields and the common ones, without folder)'),
  inputs: z.record(z.string().max(64), z.union([z.number().finite(), z.string().max(64)])).optional()
    .describe('operator only: its inputs, numbers in the declared units or quantity strings ("3 km")'),
  vary: z.record(z.string().regex(NAME_RE, 'a field name'), z.string().min(1).max(500)).optional()
    .describe('per-tick numeric overrides: field → sandboxed expression of tick, t, phase, svcond, R_t and the numeric fields of body/inputs'),
  ticks: z.number().int().min(1).max(MAX_TICKS).default(10).describe(`number of ticks, one per svcond (0.777 s); 1 to ${MAX_TICKS}`),
  closeOnDisconnect: z.boolean().default(false)
    .describe('close the channel when its last SSE subscriber disconnects, or when the MCP call that follows it is cancelled'),
  follow: z.boolean().optional()
    .describe('MCP only: keep the call open and send each event as a notifications/message to the session (default true over MCP)'),
  folder: folderField.describe('folder every tick receipt is filed in (default "default")'),
}).refine((v) => (v.solver === undefined) !== (v.operator === undefined), { message: 'give exactly one of solver or operator', path: ['solver'] })
  .refine((v) => v.solver === undefined || v.inputs === undefined, { message: 'inputs is for an operator; a solver takes body (body.inputs for its numeric inputs)', path: ['inputs'] })
  .refine((v) => v.operator === undefined || v.body === undefined, { message: 'body is for a solver; an operator takes inputs', path: ['body'] })
  .refine((v) => !v.vary || Object.keys(v.vary).length <= 16, { message: 'at most 16 vary fields', path: ['vary'] });

type OpenInput = z.infer<typeof openInput>;

interface ChannelRow {
  id: string; zid: string; node_id: string; state: string; reason: string | null; spec: string; ticks: number;
  t0_ms: number | string; close_on_disconnect: boolean; created_at: string | Date; ended_at: string | Date | null;
  sealed?: number | string; skipped?: number | string; refused?: number | string; events?: number | string;
}

const iso = (d: string | Date | null) => (d === null ? null : new Date(d).toISOString());

function stateOf(row: ChannelRow) {
  const spec = JSON.parse(row.spec) as ChannelSpec;
  const t0 = Number(row.t0_ms) / 1000;
  return {
    id: row.id,
    state: row.state,
    reason: row.reason,
    source: spec.solver !== undefined ? { solver: spec.solver } : { operator: spec.operator },
    ticks: row.ticks,
    t0,
    svcondSeconds: SVCOND_SECONDS,
    closeOnDisconnect: row.close_on_disconnect,
    counts: { sealed: Number(row.sealed ?? 0), skipped: Number(row.skipped ?? 0), refused: Number(row.refused ?? 0) },
    nextEventId: Number(row.events ?? 0),
    node: row.node_id,
    createdAt: iso(row.created_at),
    endedAt: iso(row.ended_at),
    events: `/api/streams/${row.id}/events`,
  };
}

const ROW_SQL = `SELECT c.id, c.zid, c.node_id, c.state, c.reason, c.spec, c.ticks, c.t0_ms, c.close_on_disconnect, c.created_at, c.ended_at,
  coalesce(sum(CASE WHEN e.kind = 'tick' THEN 1 ELSE 0 END), 0) AS sealed,
  coalesce(sum(CASE WHEN e.kind = 'skip' THEN 1 ELSE 0 END), 0) AS skipped,
  coalesce(sum(CASE WHEN e.kind = 'refused' THEN 1 ELSE 0 END), 0) AS refused,
  count(e.seq) AS events
  FROM stream_channels c LEFT JOIN stream_events e ON e.channel_id = c.id`;

async function ownedChannel(app: App, zid: string, id: string): Promise<ChannelRow> {
  await reapIfLost(app, id);
  const rows = await app.db.query<ChannelRow>(`${ROW_SQL} WHERE c.id = $1 AND c.zid = $2 GROUP BY c.id`, [id, zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', `stream channel ${id} not found`);
  return rows[0];
}

/** Validates the request once, at open: the source, its body or inputs, the vary expressions,
 * and tick 0's varied body (so a channel that could never tick is a 400, not 600 refusals). */
async function prepareChannel(input: OpenInput, t0: number): Promise<{ source: PreparedSource; vary: [string, CompiledExpr][]; baseNumbers: Record<string, number> }> {
  let source: PreparedSource;
  const baseNumbers: Record<string, number> = {};
  let varyKeys: string[];
  if (input.solver !== undefined) {
    const s = await prepareSolver(input.solver);
    source = s;
    const body = input.body ?? {};
    if ('folder' in body) throw new SvcError('INVALID_INPUT', 'body.folder: give folder at the top level', { issues: [{ path: 'body.folder', message: 'give folder at the top level' }] });
    validateSolverBody(s, body);
    const inner = body.inputs && typeof body.inputs === 'object' && !Array.isArray(body.inputs) ? body.inputs as Record<string, unknown> : {};
    for (const [k, v] of Object.entries({ ...inner, ...body })) if (typeof v === 'number' && Number.isFinite(v) && NAME_RE.test(k)) baseNumbers[k] = v;
    varyKeys = s.ownKeys;
  } else {
    const o = await prepareOperator(input.operator!);
    source = o;
    Object.assign(baseNumbers, bindOperatorInputs(o, input.inputs ?? {}));
    varyKeys = o.inputKeys;
  }
  const names = [...ENV_NAMES, ...Object.keys(baseNumbers)];
  const vary: [string, CompiledExpr][] = [];
  for (const [field, expr] of Object.entries(input.vary ?? {})) {
    if (!varyKeys.includes(field)) {
      throw new SvcError('INVALID_INPUT', `vary.${field}: not a field of ${source.kind} ${source.name}; accepted: ${varyKeys.join(', ')}`, { issues: [{ path: `vary.${field}`, message: 'unknown field' }] });
    }
    vary.push([field, await compileChecked(expr, names, `vary.${field}`)]);
  }
  if (vary.length) {
    const p = pulseAt(t0);
    const scope = { ...baseNumbers, tick: 0, t: t0, phase: p.phase, svcond: p.svcond, R_t: p.R_t };
    const varied: Record<string, number> = {};
    for (const [field, c] of vary) {
      const v = evalNumber(c, scope, `vary.${field}`);
      if (!Number.isFinite(v)) throw new SvcError('INVALID_INPUT', `vary.${field} is not finite at tick 0`, { issues: [{ path: `vary.${field}`, message: 'not finite at tick 0' }] });
      varied[field] = v;
    }
    if (source.kind === 'solver') validateSolverBody(source, { ...(input.body ?? {}), ...varied });
    else bindOperatorInputs(source, { ...(input.inputs ?? {}), ...varied });
  }
  return { source, vary, baseNumbers };
}

async function openChannel(input: OpenInput, ctx: OpContext) {
  const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
  const app = ctx.app;
  const nowT = app.clock.now();
  const { source, vary, baseNumbers } = await prepareChannel(input, nowT);
  await app.sealer.assertTokens(zid, 1);
  const spec: ChannelSpec = {
    ...(input.solver !== undefined ? { solver: input.solver, body: input.body ?? {} } : { operator: source.name, inputs: input.inputs ?? {} }),
    ...(input.vary ? { vary: input.vary } : {}),
    ticks: input.ticks,
    closeOnDisconnect: input.closeOnDisconnect,
    ...(input.folder ? { folder: input.folder } : {}),
  };
  const follow = (input.follow ?? true) && ctx.via === 'mcp' && typeof ctx.notify === 'function';
  if (!follow) {
    const ch = await createChannel(app, { zid, keyPrefix, spec, source, vary, baseNumbers, address: ctx.ip || undefined });
    return { ok: true, channel: stateOf(await ownedChannel(app, zid, ch.id)) };
  }
  return followOverMcp(ctx, zid, (attach) => createChannel(app, { zid, keyPrefix, spec, source, vary, baseNumbers, address: ctx.ip || undefined }, attach));
}

/** MCP: every event becomes a notifications/message (logger 'svc_stream') on the calling
 * request's stream, in order; the call returns with the final state when the channel ends. */
async function followOverMcp(ctx: OpContext, zid: string, open: (attach: (ch: Channel) => void) => Promise<Channel>) {
  let chain: Promise<void> = Promise.resolve();
  let delivered = 0;
  let detached = false;
  let onGone: () => void = () => {};
  const gone = new Promise<void>((resolve) => { onGone = resolve; });
  let ch!: Channel;
  let unobserve: () => void = () => {};
  const detach = () => {
    if (detached) return;
    detached = true;
    unobserve();
    if (ch.spec.closeOnDisconnect) void ch.close('client-disconnected');
    onGone();
  };
  const observer = (ev: LiveEvent) => {
    chain = chain.then(async () => {
      if (detached) return;
      try {
        await ctx.notify!('notifications/message', { level: 'info', logger: 'svc_stream', data: { id: ev.seq, event: ev.kind, ...ev.parsed } });
        delivered++;
        ctx.progress(ev.seq + 1, ch.spec.ticks + 1, `${ev.kind} ${ev.seq}`);
      } catch {
        detach();
      }
    });
  };
  ch = await open((c) => { unobserve = c.observe(observer); });
  const onAbort = () => detach();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) detach();
  try {
    await Promise.race([ch.done, gone]);
    await chain;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    unobserve();
  }
  return { ok: true, channel: stateOf(await ownedChannel(ctx.app, zid, ch.id)), followed: true, delivered };
}

export const operations: Operation[] = [
  defineOp({
    id: 'streams.open',
    upstream: true,
    tool: 'svc_stream',
    title: 'Open a ticking channel',
    brief: 'Run a solver or operator once per 0.777 s tick, up to 600 ticks, each tick sealed; events over SSE or MCP.',
    hints: CREATES,
    toolOutput: z.object({ channel: z.object({ id: z.string(), state: z.string(), events: z.string() }) }),
    method: 'POST',
    path: '/api/streams',
    access: 'key',
    cost: 'ticks (1 per sealed tick)',
    tag: 'live',
    summary: 'Open a hosted ticking channel: a solver or catalog operator run once per svcond (0.777 s) for 1 to 600 ticks, each tick sealed (v2) with the pulse of its own scheduled instant and appended to the chain; one token per tick.',
    description: 'Events arrive as Server-Sent Events at GET /api/streams/{id}/events (resumable with Last-Event-ID) and, over MCP, as notifications/message to the calling session. Tick k is scheduled at t0 + k*0.777 s against the clock; a tick that overruns makes the slots it overran be skipped (event skip), never shifted. At most 5 open channels per machine (429 RATE_LIMITED). The channel ends with an end event: completed, closed, exhausted (no tokens left) or failed.',
    input: openInput,
    output: okWith({
      channel: channelState,
      followed: z.literal(true).optional().describe('MCP: the call followed the channel to its end'),
      delivered: z.number().int().optional().describe('MCP: events sent to the session'),
    }),
    handler: (input, ctx) => openChannel(input, ctx),
  }),
  defineOp({
    id: 'streams.list',
    method: 'GET',
    path: '/api/streams',
    access: 'key',
    tag: 'live',
    summary: "The caller's stream channels, newest first, with their state and event counts.",
    input: z.strictObject({
      state: z.enum(['open', 'completed', 'closed', 'exhausted', 'failed']).optional().describe('only channels in this state'),
      limit: z.number().int().min(1).max(100).default(20),
    }),
    output: okWith({ channels: z.array(channelState), limits: z.object({ openPerMachine: z.number().int(), openPerFamily: z.number().int().describe('open channels of the machines one demo key made'), openPerAddress: z.number().int().describe('open channels opened from one client address'), ticks: z.number().int() }) }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const params: unknown[] = [zid];
      let where = 'c.zid = $1';
      if (input.state) { params.push(input.state); where += ' AND c.state = $2'; }
      params.push(input.limit);
      const rows = await ctx.app.db.query<ChannelRow>(`${ROW_SQL} WHERE ${where} GROUP BY c.id ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`, params);
      return { ok: true, channels: rows.map(stateOf), limits: { openPerMachine: streamsPerMachine(ctx.app), openPerFamily: streamsPerFamily(ctx.app), openPerAddress: streamsPerAddress(ctx.app), ticks: MAX_TICKS } };
    },
  }),
  defineOp({
    id: 'streams.get',
    method: 'GET',
    path: '/api/streams/:id',
    access: 'key',
    tag: 'live',
    summary: 'One stream channel: state, source, schedule (t0, svcondSeconds) and counts of sealed, skipped and refused ticks.',
    input: z.strictObject({ id: channelId }),
    output: okWith({ channel: channelState }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      return { ok: true, channel: stateOf(await ownedChannel(ctx.app, zid, input.id)) };
    },
  }),
  defineOp({
    id: 'streams.close',
    method: 'DELETE',
    path: '/api/streams/:id',
    access: 'key',
    tag: 'live',
    summary: 'Close a stream channel: its pending tick is cancelled and a running solver job aborted; the final end event has state closed. Closing an ended channel changes nothing.',
    input: z.strictObject({ id: channelId }),
    output: okWith({ channel: channelState, closeRequested: z.literal(true).optional().describe('the channel runs on another node: it was asked to close') }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const row = await ownedChannel(ctx.app, zid, input.id);
      let requested = false;
      if (row.state === 'open') requested = (await hubFor(ctx.app).requestClose(input.id, 'closed')) === 'requested';
      return { ok: true, channel: stateOf(await ownedChannel(ctx.app, zid, input.id)), ...(requested ? { closeRequested: true } : {}) };
    },
  }),
  defineOp({
    id: 'streams.events',
    produces: ['text/event-stream'],
    method: 'GET',
    path: '/api/streams/:id/events',
    access: 'key',
    tag: 'live',
    summary: 'Server-Sent Events of a channel: stored events after Last-Event-ID (header, or the lastEventId query parameter), then live ones; id is the tick number, event is tick, skip, refused or end; the stream closes after end.',
    input: z.strictObject({
      id: channelId,
      lastEventId: z.number().int().min(-1).max(1_000_000).optional().describe('resume after this event id (the Last-Event-ID header takes precedence)'),
    }),
    async handler(input, ctx): Promise<EventStreamReply> {
      const { zid } = assertMachineCaller(ctx.caller);
      await ownedChannel(ctx.app, zid, input.id);
      // the Last-Event-ID header takes precedence over the query parameter; requests made through
      // svc_http (which buffers whole responses) get what is stored so far, then the stream closes
      const hdr = ctx.headers['last-event-id'];
      const fromHeader = parseLastEventId(Array.isArray(hdr) ? hdr[0] : hdr);
      const events = hubFor(ctx.app).events(input.id, {
        lastEventId: fromHeader ?? input.lastEventId ?? null,
        snapshot: ctx.headers['x-svc-via'] === 'svc_http',
      });
      return { raw: true, events };
    },
  }),
];
