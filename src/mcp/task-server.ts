// MCP tasks, the wiring (issue 27): how src/mcp/server.ts offers the tasks of both protocol
// generations (the mapping job ↔ task is src/mcp/tasks.ts; the specifications are cited there).
//   - capabilities: `extensions["io.modelcontextprotocol/tasks"]` on 2026-07-28 (server/discover);
//     `tasks: {list, cancel, requests: {tools: {call}}}` on a 2025-11-25 session;
//   - tools/list on a 2025-11-25 session: `execution.taskSupport: "optional"` on the solver tools;
//   - tools/call: `taskCall` decides whether the call becomes a job, submits it and answers the
//     task; otherwise the synchronous path runs as before;
//   - tasks/get, tasks/cancel (and tasks/update, which has nothing to update: no task of this node
//     ever asks for input) on 2026-07-28; tasks/get, tasks/result, tasks/list, tasks/cancel on
//     2025-11-25;
//   - notifications: on 2026-07-28 `subscriptions/listen {notifications: {taskIds}}` is answered
//     here (the SDK's listen router knows only list-changed and resource events): an SSE stream of
//     `notifications/tasks`, each the DetailedTask `tasks/get` would give, ending gracefully when
//     every listened task is terminal; on a 2025-11-25 session `notifications/tasks/status` and the
//     call's `notifications/progress` (its progressToken stays valid for the task's life) go on the
//     session's stream while the session lives.
// The caller is the bearer of each HTTP request (resolved by server.ts); another machine's task is
// not found, on every method.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, SUBSCRIPTION_ID_META_KEY, Server } from '@modelcontextprotocol/server';
import type { App, Operation } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import type { JobView } from '../jobs/types.ts';
import type { ToolDefinition } from './tools.ts';
import { renderError } from './tools.ts';
import {
  TASKS_EXTENSION, TASK_META, RELATED_TASK_META, jobsOf, isTaskTool, isTerminal, declaresTasks, missingTasksCapability,
  budgetOf, detailedTask, coreTask, jobToolResult, forTask, waitTerminal,
} from './tasks.ts';

/** The protocol generation an MCP server instance serves: modern (2026-07-28, one instance per
 * request) or a legacy session with the revision its initialize negotiated. */
export type Era = { modern: true } | { modern: false; version: string };

/** the revision that brought the core tasks (and the only legacy one that has them) */
const CORE_TASKS_VERSION = '2025-11-25';
const coreTasks = (era: Era) => !era.modern && era.version === CORE_TASKS_VERSION;

/** The capabilities that declare tasks, in each generation's words (none without a job runner). */
export function tasksCapabilities(app: App, era: Era): Record<string, unknown> {
  if (!jobsOf(app)) return {};
  if (era.modern) return { extensions: { [TASKS_EXTENSION]: {} } };
  if (coreTasks(era)) return { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  return {};
}

/** tools/list: on a 2025-11-25 session the solver tools say they may run as tasks. */
export function withTaskSupport(app: App, era: Era, defs: ToolDefinition[]): ToolDefinition[] {
  if (!jobsOf(app) || !coreTasks(era)) return defs;
  const taskTools = new Set(app.operations.filter(isTaskTool).map((o) => o.tool));
  return defs.map((d) => (taskTools.has(d.name) ? { ...d, execution: { taskSupport: 'optional' } } : d));
}

interface CallCtx {
  mcpReq: { _meta?: Record<string, unknown>; envelope?: Record<string, unknown>; signal: AbortSignal };
}

/** A request's `_meta` as the client sent it: the SDK lifts the 2026-07-28 envelope keys
 * (protocol version, client info and capabilities) out of `_meta` into `envelope`. */
export function metaOf(ctx: CallCtx): Record<string, unknown> {
  return { ...(ctx.mcpReq._meta ?? {}), ...(ctx.mcpReq.envelope ?? {}) };
}

/** What a tools/call handler throws to answer a task: the SDK validates a tools/call result as a
 * CallToolResult, which a task is not, so the task goes around that check (`TaskAwareServer`). */
export class TaskCreated extends Error {
  readonly result: Record<string, unknown>;
  constructor(result: Record<string, unknown>) { super('task created'); this.result = result; }
}

/** The SDK's Server, whose tools/call may answer a task (CreateTaskResult on 2026-07-28, `{task}`
 * on 2025-11-25) through `TaskCreated`; every other answer is validated as before. */
export class TaskAwareServer extends Server {
  protected override _wrapHandler(method: string, handler: Parameters<Server['_wrapHandler']>[1]): ReturnType<Server['_wrapHandler']> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => {
      try { return await wrapped(request, ctx); } catch (e) { if (e instanceof TaskCreated) return e.result as any; throw e; }
    };
  }
}

/** tools/call as a task. Null: the call runs synchronously. A task throws `TaskCreated` with it
 * (`resultType: "task"` on 2026-07-28, `{task}` on 2025-11-25); a refusal of the submission is
 * returned as the synchronous call would give it (`isError` with the DESIGN §9 body: 400, 429…). */
export async function taskCall(app: App, era: Era, server: Server, op: Operation, params: Record<string, unknown>, args: Record<string, unknown>, ctx: CallCtx, caller: Caller | null): Promise<Record<string, unknown> | null> {
  const meta = metaOf(ctx);
  let budget: number | undefined;
  try { budget = budgetOf(meta); } catch (e) { return renderError((e as SvcError).toBody()); }
  const overSync = budget !== undefined && budget * 1000 > app.config.solverTimeoutMs;
  const jobs = jobsOf(app);
  if (era.modern) {
    // server-directed: a task when the call asks for one or needs more than the synchronous budget
    const asked = meta?.[TASK_META] === true || overSync;
    if (!asked) return null;
    if (!declaresTasks(meta)) throw missingTasksCapability(`${op.tool} with ${meta?.[TASK_META] === true ? `_meta["${TASK_META}"]` : `a budget of ${budget} s (the synchronous one is ${app.config.solverTimeoutMs / 1000} s)`}`);
    if (!isTaskTool(op) || !jobs) return renderError(new SvcError('INVALID_INPUT', `${op.tool} runs synchronously only: tasks are the sealed solver tools' (svc_<solver>, svc_auto)`).toBody());
  } else {
    // client-directed (2025-11-25): params.task asks for a task
    if (params.task === undefined) {
      if (overSync) return renderError(new SvcError('INVALID_INPUT', `_meta["svc/budget"]: ${budget} s is more than a synchronous call's ${app.config.solverTimeoutMs / 1000} s; ask for a task (params.task) to run this long`).toBody());
      return null;
    }
    if (!isTaskTool(op) || !jobs || !coreTasks(era)) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `${op.tool} does not run as a task (its execution.taskSupport is forbidden)`);
  }
  if (!caller) return renderError(new SvcError('UNAUTHORIZED', `${op.tool} needs a key: Authorization: Bearer <API key or OAuth access token>`).toBody());
  let job: JobView;
  try {
    job = await jobs.submit(caller, { tool: op.tool!, arguments: args, ...(budget !== undefined ? { budget: { seconds: budget } } : {}), via: 'mcp' });
  } catch (e) {
    if (isSvcError(e)) return renderError(e.toBody());
    throw e;
  }
  if (era.modern) throw new TaskCreated({ resultType: 'task', ...detailedTask(app, job) });
  await followOnSession(app, server, caller, job, meta?.progressToken as string | number | undefined);
  throw new TaskCreated({ task: coreTask(job) });
}

/** the watches of each legacy session's tasks, stopped when the session closes */
const sessionWatches = new WeakMap<Server, Set<() => void>>();

/** 2025-11-25: notifications/tasks/status (and the call's notifications/progress) on the session's
 * stream at every change of the job, until it is terminal or the session closes. */
async function followOnSession(app: App, server: Server, caller: Caller, job: JobView, progressToken: string | number | undefined): Promise<void> {
  const jobs = jobsOf(app)!;
  let watches = sessionWatches.get(server);
  if (!watches) {
    const set = new Set<() => void>();
    watches = set;
    sessionWatches.set(server, set);
    const prev = server.onclose;
    server.onclose = () => { prev?.(); for (const stop of set) stop(); set.clear(); };
  }
  let lastStatus = '';
  let lastProgress = -1;
  const send = (method: string, params: Record<string, unknown>) => { void server.notification({ method, params } as any).catch(() => {}); };
  let stop: (() => void) | null = null;
  let ended = false;
  const onChange = (j: JobView) => {
    const task = coreTask(j);
    const key = `${task.status}|${task.statusMessage}`;
    if (key !== lastStatus) { lastStatus = key; send('notifications/tasks/status', task); }
    const f = j.progress?.fraction;
    if (progressToken !== undefined && typeof f === 'number' && f > lastProgress) {
      lastProgress = f;
      send('notifications/progress', { progressToken, progress: f, total: 1, ...(j.progress?.message ? { message: j.progress.message } : {}) });
    }
    if (isTerminal(j)) { ended = true; if (stop) { stop(); watches.delete(stop); } }
  };
  const s = await jobs.watch(caller, job.id, onChange);
  if (ended) { s(); return; }
  stop = s;
  watches.add(s);
}

const TaskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });

type CallerOf = (ctx: any) => Caller | null;

/** The tasks/* methods of each generation on one server instance. */
export function registerTasks(app: App, era: Era, server: Server, callerOf: CallerOf): void {
  const jobs = jobsOf(app);
  if (!jobs) return;
  const s = server as any;
  if (era.modern) {
    const needExtension = (ctx: any, method: string) => { if (!declaresTasks(metaOf(ctx))) throw missingTasksCapability(method); };
    s.setRequestHandler('tasks/get', { params: TaskIdParams }, async (p: { taskId: string }, ctx: any) => {
      needExtension(ctx, 'tasks/get');
      return detailedTask(app, await forTask(callerOf(ctx), p.taskId, (c) => jobs.get(c, p.taskId)));
    });
    s.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (p: { taskId: string }, ctx: any) => {
      needExtension(ctx, 'tasks/cancel');
      await forTask(callerOf(ctx), p.taskId, (c) => jobs.cancel(c, p.taskId));
      return {};
    });
    s.setRequestHandler('tasks/update', { params: TaskIdParams }, async (p: { taskId: string }, ctx: any) => {
      needExtension(ctx, 'tasks/update');
      // no task of this node asks for input: every response is for a key never issued (ignored)
      await forTask(callerOf(ctx), p.taskId, (c) => jobs.get(c, p.taskId));
      return {};
    });
    return;
  }
  if (!coreTasks(era)) return;
  s.setRequestHandler('tasks/get', async (r: any, ctx: any) => coreTask(await forTask(callerOf(ctx), r.params.taskId, (c) => jobs.get(c, r.params.taskId))));
  s.setRequestHandler('tasks/list', async (r: any, ctx: any) => {
    const caller = callerOf(ctx);
    if (!caller) return { tasks: [] };
    try {
      const page = await jobs.list(caller, { ...(r.params?.cursor ? { cursor: r.params.cursor } : {}) });
      return { tasks: page.jobs.map(coreTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    } catch (e) {
      if (isSvcError(e)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${e.message}`);
      throw e;
    }
  });
  s.setRequestHandler('tasks/cancel', async (r: any, ctx: any) => {
    const id = r.params.taskId;
    return forTask(callerOf(ctx), id, async (c) => {
      const before = await jobs.get(c, id);
      if (isTerminal(before)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${coreTask(before).status}'`);
      return coreTask(await jobs.cancel(c, id));
    });
  });
  s.setRequestHandler('tasks/result', async (r: any, ctx: any) => {
    const id = r.params.taskId;
    const job = await forTask(callerOf(ctx), id, (c) => waitTerminal(jobs, c, id, ctx.mcpReq.signal));
    const related = { _meta: { [RELATED_TASK_META]: { taskId: id } } };
    const result = jobToolResult(app, job);
    if (result) return { ...result, ...related };
    if (job.status === 'cancelled') throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Task ${id} was cancelled before it had a result`, related._meta);
    throw new ProtocolError(ProtocolErrorCode.InternalError, `the job ended without an answer (${job.tool})`, related._meta);
  });
}

/** 2026-07-28 `subscriptions/listen` asking for task ids: served here, on this request's SSE
 * stream. False when the request is something else (the SDK serves it). */
export async function taskListen(app: App, req: FastifyRequest, reply: FastifyReply, body: unknown, caller: Caller | null): Promise<boolean> {
  const jobs = jobsOf(app);
  const m = body as { id?: string | number; method?: unknown; params?: { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown } } } | null;
  if (!jobs || !m || typeof m !== 'object' || m.method !== 'subscriptions/listen') return false;
  const ids = m.params?.notifications?.taskIds;
  if (!Array.isArray(ids) || !ids.length) return false;
  const id = m.id ?? null;
  if (!declaresTasks(m.params?._meta)) {
    const e = missingTasksCapability('task status notifications');
    reply.code(200).type('application/json').send({ jsonrpc: '2.0', id, error: { code: e.code, message: e.message, data: e.data } });
    return true;
  }
  if (ids.length > 100 || !ids.every((t) => typeof t === 'string' && t.length <= 200)) {
    reply.code(200).type('application/json').send({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidParams, message: 'Invalid params: notifications.taskIds: at most 100 task ids (strings)' } });
    return true;
  }
  // the caller's own tasks are honored; another machine's (or an unknown id) are left out of the ack
  const honored: string[] = [];
  for (const t of new Set(ids as string[])) {
    if (!caller) break;
    try { await jobs.get(caller, t); honored.push(t); } catch (e) { if (!isSvcError(e)) throw e; }
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const sub = { [SUBSCRIPTION_ID_META_KEY]: id };
  const write = (message: Record<string, unknown>) => { if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`); };
  write({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: honored }, _meta: sub } });
  const stops: (() => void)[] = [];
  const open = new Set(honored);
  let closed = false;
  const keepAlive = setInterval(() => { if (!res.writableEnded) res.write(': keepalive\n\n'); }, 15_000);
  keepAlive.unref();
  const finish = (graceful: boolean) => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    for (const s of stops) s();
    if (graceful) write({ id, result: { resultType: 'complete', _meta: sub } });
    res.end();
  };
  res.on('close', () => finish(false));
  if (!open.size) { finish(true); return true; }
  for (const t of honored) {
    let last = '';
    const stop = await jobs.watch(caller!, t, (job) => {
      if (closed) return;
      const task = detailedTask(app, job);
      const key = JSON.stringify([task.status, task.statusMessage]);
      if (key !== last) { last = key; write({ method: 'notifications/tasks', params: { ...task, _meta: { ...(task._meta as object), ...sub } } }); }
      if (isTerminal(job)) { open.delete(t); if (!open.size) setImmediate(() => finish(true)); }
    }).catch((e) => { if (isSvcError(e)) { open.delete(t); return () => {}; } throw e; });
    if (closed) { stop(); break; }
    stops.push(stop);
  }
  if (!open.size) finish(true);
  return true;
}


