// Jobs over REST (issue 27, docs/jobs.md): POST /api/jobs, GET /api/jobs, GET/DELETE
// /api/jobs/{id}, GET /api/jobs/{id}/events (SSE), and `Prefer: respond-async` (RFC 7240) on
// every sealed solver operation (src/http/server.ts answers 202 with the job). The job runner is
// src/jobs/runner.ts; what it runs is `jobFace(app)` below: the synchronous call's own path
// (authorise, parse, token check, solver in the pool, seal), run as the job's owner inside the
// job's context (src/services/job-context.ts: its budget, progress and the id its seal carries).
import { z } from 'zod';
import { defineOp, type App, type Operation, type EventStreamReply } from './types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError } from '../core/errors.ts';
import { asSvcError, authorize, invoke } from './invoke.ts';
import { parseInput } from './validate.ts';
import type { JobFace } from '../jobs/runner.ts';
import type { JobView } from '../jobs/types.ts';
import { MAX_SWEEP_RUNS } from '../jobs/sweep.ts';
import { EventStream } from '../live/sse.ts';
import { anyObject } from './outputs.ts';

/** May `op` run as a job? The sealed solver operations: one run, one seal. */
export function jobCapable(op: Operation): boolean {
  return op.id.startsWith('solver.') && !!op.tool && op.method === 'POST';
}

function jobOp(app: App, tool: unknown): Operation {
  const op = typeof tool === 'string' ? app.operations.find((o) => o.tool === tool) : undefined;
  if (!op) throw new SvcError('INVALID_INPUT', `tool: no tool named ${JSON.stringify(String(tool)).slice(0, 80)}`, { issues: [{ path: 'tool', message: 'unknown tool' }] });
  if (!jobCapable(op)) throw new SvcError('INVALID_INPUT', `tool: ${op.tool} does not run as a job; the sealed solver tools (svc_heat, svc_sat, …) do`, { issues: [{ path: 'tool', message: 'not a sealed solver tool' }] });
  return op;
}

/** The runner's view of the operations: validation and execution of the synchronous path. */
export function jobFace(app: App): JobFace {
  return {
    validate(caller: Caller, tool: string, args: unknown) {
      const op = jobOp(app, tool);
      authorize(op, caller);
      if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new SvcError('INVALID_INPUT', 'arguments: the tool\'s JSON body, an object', { issues: [{ path: 'arguments', message: 'must be an object' }] });
      parseInput(op.input, args);
    },
    async execute(owner, tool, args, o) {
      const caller: Caller = { kind: 'machine', zid: owner.zid, keyPrefix: owner.keyPrefix, keyHash: '' };
      try {
        const op = jobOp(app, tool);
        const body = await invoke(app, op, args, {
          caller, bearer: null, signal: o.signal, requestId: o.jobId, ip: 'job', via: 'http', headers: {},
          progress: () => {}, progressWanted: false,
        });
        return { status: 200, body: body as Record<string, unknown> };
      } catch (e) {
        const err = asSvcError(e);
        return { status: err.status, body: err.toBody() as Record<string, unknown> };
      }
    },
  };
}

// --- REST ------------------------------------------------------------------------------------

const jobId = z.string().max(40).describe('job_ followed by a ULID (a sweep run: job_…_r<run>)');
const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

export const JobViewSchema = z.object({
  ok: z.literal(true),
  id: z.string().describe('job_ followed by a ULID'),
  tool: z.string().describe('the tool it runs (svc_heat); its REST path is /api/svc/heat'),
  status: z.enum(STATUSES),
  progress: z.object({ fraction: z.number().describe('0 to 1, from the solver\'s own progress (a sweep: runs finished / runs)'), message: z.string().optional() }).nullable(),
  createdAt: z.string().describe('ISO 8601'),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  attempts: z.number().int().describe('how many times a worker took it (more than 1 after a node died or handed it back)'),
  budget: z.object({ seconds: z.number().int() }),
  tokens: z.object({ reserved: z.number().int().describe('held at submission for the worst case'), charged: z.number().int().nullable().describe('what it cost, once ended') }),
  parentId: z.string().optional().describe('the sweep this run belongs to'),
  runs: z.number().int().optional().describe('a sweep: how many runs'),
  response: z.object({ status: z.number().int().describe('the HTTP status the synchronous call would have had'), body: anyObject().describe('exactly the synchronous call\'s body: a sealed result or an error body') }).optional()
    .describe('once ended: what the synchronous call returns'),
}).meta({ id: 'Job', description: 'A job: a sealed computation that outlives its request (docs/jobs.md).' });

const asBody = (v: JobView) => ({ ok: true as const, ...v });

function jobsOf(app: App) {
  if (!app.jobs) throw new SvcError('UPSTREAM_UNAVAILABLE', 'jobs are not running on this node');
  return app.jobs;
}

export const operations: Operation[] = [
  defineOp({
    id: 'jobs.submit',
    method: 'POST',
    path: '/api/jobs',
    access: 'key',
    scope: 'compute',
    tag: 'jobs',
    successStatus: [202],
    title: 'Submit a job',
    summary: 'Queue a sealed computation as a job: any node of the cluster runs it; poll GET /api/jobs/{id} or follow its events. The answer is 202 with Location: /api/jobs/{id}.',
    description: `The tool's arguments are validated as the synchronous call validates them. budget.seconds of worker time (default SVC_JOB_SECONDS, at most SVC_JOB_MAX_SECONDS) are reserved as tokens at submission (1 per second; 429 QUOTA_EXCEEDED when the machine lacks them) and the unused part is released when the job ends. A sweep runs the tool over the Cartesian product of the swept lists (or their i-th elements together with zip: true), at most ${MAX_SWEEP_RUNS} runs; its result is a table and a sweep receipt sealing the Merkle root of the runs' receipts. At most SVC_JOBS_QUEUED_PER_MACHINE jobs wait per machine (then 429 RATE_LIMITED with Retry-After).`,
    input: z.strictObject({
      tool: z.string().max(64).describe('a sealed solver tool: svc_heat, svc_sat, …'),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("the tool's JSON body"),
      budget: z.strictObject({ seconds: z.number().int().min(1).optional().describe('seconds of worker time (default 600)') }).optional(),
      sweep: z.record(z.string().max(64), z.array(z.unknown()).min(1).max(MAX_SWEEP_RUNS)).optional().describe('argument name → values to sweep'),
      zip: z.boolean().optional().describe('sweep the lists together (same length) instead of their Cartesian product'),
    }),
    output: JobViewSchema,
    example: {
      summary: 'an SIR epidemic swept over three transmission rates, as one job of three sealed runs',
      request: { tool: 'svc_epi', arguments: { model: 'sir', gamma: 0.1, days: 180 }, budget: { seconds: 60 }, sweep: { beta: [0.15, 0.25, 0.35] } },
    },
    async handler(input, ctx) {
      const view = await jobsOf(ctx.app).submit(ctx.caller!, { tool: input.tool, arguments: input.arguments, budget: input.budget, sweep: input.sweep, zip: input.zip, via: 'rest' });
      return accepted(view);
    },
  }),
  defineOp({
    id: 'jobs.list',
    method: 'GET',
    path: '/api/jobs',
    access: 'key',
    scope: 'compute',
    tag: 'jobs',
    title: 'List jobs',
    summary: "The caller's machine's jobs, newest first, a page at a time (sweep runs are listed under their sweep's table).",
    input: z.strictObject({
      status: z.enum(STATUSES).optional(),
      cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
      limit: z.number().int().min(1).max(200).optional().describe('page size (default 50)'),
    }),
    output: z.object({ ok: z.literal(true), jobs: z.array(JobViewSchema), nextCursor: z.string().nullable() }),
    async handler(input, ctx) {
      const page = await jobsOf(ctx.app).list(ctx.caller!, input);
      return { ok: true, jobs: page.jobs.map(asBody), nextCursor: page.nextCursor };
    },
  }),
  defineOp({
    id: 'jobs.get',
    method: 'GET',
    path: '/api/jobs/:id',
    access: 'key',
    scope: 'compute',
    tag: 'jobs',
    title: 'Read a job',
    summary: "A job's status, progress, tokens and, once ended, the synchronous call's answer (response). Another machine's job is 404.",
    input: z.strictObject({ id: jobId, wait: z.number().int().min(0).max(30).optional().describe('wait up to this many seconds for the job to end') }),
    output: JobViewSchema,
    async handler(input, ctx) {
      const jobs = jobsOf(ctx.app);
      return asBody(input.wait ? await jobs.wait(ctx.caller!, input.id, input.wait * 1000) : await jobs.get(ctx.caller!, input.id));
    },
  }),
  defineOp({
    id: 'jobs.cancel',
    method: 'DELETE',
    path: '/api/jobs/:id',
    access: 'key',
    scope: 'compute',
    tag: 'jobs',
    title: 'Cancel a job',
    summary: 'Cancel a job: a waiting one ends uncharged, a running one stops within a second and is charged for the worker time it used (1 token per started second). A finished job is returned unchanged.',
    input: z.strictObject({ id: jobId }),
    output: JobViewSchema,
    async handler(input, ctx) {
      return asBody(await jobsOf(ctx.app).cancel(ctx.caller!, input.id));
    },
  }),
  defineOp({
    id: 'jobs.events',
    produces: ['text/event-stream'],
    method: 'GET',
    path: '/api/jobs/:id/events',
    access: 'key',
    scope: 'compute',
    tag: 'jobs',
    title: 'Follow a job',
    summary: "Server-Sent Events of a job: event 'job' with the job (as GET /api/jobs/{id}) now and at every change of status or progress; the stream ends after the job ends.",
    input: z.strictObject({ id: jobId }),
    async handler(input, ctx): Promise<EventStreamReply> {
      const jobs = jobsOf(ctx.app);
      await jobs.get(ctx.caller!, input.id); // 404 before the stream starts
      let stop: (() => void) | null = null;
      let ended = false;
      const events = new EventStream({ preamble: { comment: `job ${input.id}`, retry: 2000 }, onStop: () => { ended = true; stop?.(); } });
      events.start();
      const snapshot = ctx.headers['x-svc-via'] === 'svc_http';
      stop = await jobs.watch(ctx.caller!, input.id, (job) => {
        events.send({ event: 'job', data: JSON.stringify(asBody(job)) });
        if (snapshot || ['succeeded', 'failed', 'cancelled'].includes(job.status)) setImmediate(() => events.finish());
      });
      if (ended) stop();
      const close = () => events.finish('node-draining');
      ctx.app.beforeClose.push(close);
      events.once('close', () => { const i = ctx.app.beforeClose.indexOf(close); if (i >= 0) ctx.app.beforeClose.splice(i, 1); });
      return { raw: true, events };
    },
  }),
];

/** The 202 answer of a submitted job (RFC 7240 `Preference-Applied` when asked by `Prefer`). */
export function accepted(view: JobView, preferred = false) {
  return {
    raw: true as const,
    status: 202,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      location: `/api/jobs/${view.id}`,
      ...(preferred ? { 'preference-applied': 'respond-async' } : {}),
    },
    body: JSON.stringify(asBody(view)),
  };
}

/** Does the request ask for an asynchronous answer (RFC 7240 `Prefer: respond-async`)? */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const h = Array.isArray(header) ? header.join(',') : header ?? '';
  return h.split(',').some((p) => p.split(';')[0].trim().toLowerCase() === 'respond-async');
}
