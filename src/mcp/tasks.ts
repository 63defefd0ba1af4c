// MCP tasks (issue 27, DESIGN §14): a long tool call is a job of the job runner (src/jobs/types.ts),
// seen over MCP as a task. A task IS a job: the task id is the job id, the record is the one REST
// serves at /api/jobs/{id}, and any node answers for any task (the record is in the store).
//
// Two protocol generations, one mapping (this file) and one wiring (src/mcp/server.ts):
//   - 2026-07-28: the Tasks extension `io.modelcontextprotocol/tasks` (SEP-2663; specification
//     modelcontextprotocol/ext-tasks, specification/draft/tasks.md). Server-directed: a client that
//     declares the extension in the request's `io.modelcontextprotocol/clientCapabilities` may get
//     a `CreateTaskResult` (`resultType: "task"` + a Task) instead of a CallToolResult; it polls
//     `tasks/get` (a DetailedTask: the result inlined once completed), cancels with `tasks/cancel`,
//     and may listen to `notifications/tasks` through `subscriptions/listen {notifications:
//     {taskIds}}`. There is no `tasks/list` in the extension (by design: no cross-caller leak).
//   - 2025-11-25: the core tasks of that revision (basic/utilities/tasks): client-directed, a
//     `tools/call` with `params.task` on a tool whose `execution.taskSupport` is `optional` answers
//     `{task}`; `tasks/get`, `tasks/result` (waits for the end, then the CallToolResult with the
//     related-task `_meta`), `tasks/list`, `tasks/cancel`; `notifications/tasks/status` and the
//     call's own `notifications/progress` on the session's stream.
//
// Job ↔ task: queued and running are `working` (statusMessage tells which, with the progress);
// succeeded is `completed` with the CallToolResult the synchronous call gives; a job that failed
// with an error body (a refusal, TIME_BUDGET_EXCEEDED, UNSTABLE…) is also `completed`, with that
// body as an `isError` result, exactly as the synchronous call answers it (the spec keeps `failed`
// for JSON-RPC errors: a job that ended without any body); cancelled is `cancelled`.
import { ProtocolError, ProtocolErrorCode, CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { App, Operation } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { TERMINAL_STATUSES, type Jobs, type JobView } from '../jobs/types.ts';
import { renderError, renderResult, type ToolResult } from './tools.ts';
import { jobCapable } from '../ops/jobs.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** `_meta` of a tools/call: `{"svc/budget": {"seconds": N}}` asks for N seconds of worker time; more
 * than the synchronous budget (SVC_SOLVER_TIMEOUT_MS) makes the call a task */
export const BUDGET_META = 'svc/budget';
/** `_meta` of a tools/call on 2026-07-28: `{"svc/task": true}` asks the server to run it as a task */
export const TASK_META = 'svc/task';
/** the poll interval a task suggests while it runs, and while it waits in the queue (a queued job
 * usually starts within a fraction of a second: the first poll comes soon) */
export const POLL_RUNNING_MS = 1000;
export const POLL_QUEUED_MS = 500;

/** The job runner of this node (`app.jobs`; null only on an app built without one). */
export function jobsOf(app: App): Jobs | null {
  return app.jobs ?? null;
}

/** The tools that may run as tasks: exactly those that run as jobs (the sealed solver tools). */
export function isTaskTool(op: Operation): boolean {
  return jobCapable(op);
}

export const isTerminal = (job: JobView) => TERMINAL_STATUSES.includes(job.status);

/** Whether a 2026-07-28 request declares the tasks extension in its per-request capabilities. */
export function declaresTasks(meta: Record<string, unknown> | undefined): boolean {
  const caps = meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const ext = caps?.extensions?.[TASKS_EXTENSION];
  return ext !== undefined && ext !== null && typeof ext === 'object';
}

/** The -32021 error a 2026-07-28 request gets when it needs the extension and did not declare it. */
export function missingTasksCapability(what: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension in io.modelcontextprotocol/clientCapabilities`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** The budget a tools/call asks for in `_meta["svc/budget"]` (seconds), or undefined. */
export function budgetOf(meta: Record<string, unknown> | undefined): number | undefined {
  const b = meta?.[BUDGET_META];
  if (b === undefined) return undefined;
  const seconds = (b as { seconds?: unknown } | null)?.seconds;
  if (!b || typeof b !== 'object' || typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new SvcError('INVALID_INPUT', `_meta.${BUDGET_META}: expected {"seconds": <a positive number>}`, { issues: [{ path: `_meta.${BUDGET_META}.seconds`, message: 'expected a positive number of seconds' }] });
  }
  return seconds;
}

function pollInterval(job: JobView): number | undefined {
  if (isTerminal(job)) return undefined;
  return job.status === 'queued' ? POLL_QUEUED_MS : POLL_RUNNING_MS;
}

const TASK_STATUS = { queued: 'working', running: 'working', succeeded: 'completed', failed: 'completed', cancelled: 'cancelled' } as const;

/** The task status of a job (a failed job without any answer body is a JSON-RPC failure). */
function taskStatus(job: JobView): 'working' | 'completed' | 'failed' | 'cancelled' {
  if (job.status === 'failed' && !job.response) return 'failed';
  return TASK_STATUS[job.status];
}

function pct(f: number): string {
  return `${Math.floor(Math.max(0, Math.min(1, f)) * 100)}%`;
}

/** A person's line for the job's state: "running 42%: heat 42%", "queued", "succeeded", "failed: TIME_BUDGET_EXCEEDED". */
export function statusLine(job: JobView): string {
  const body = job.response?.body;
  switch (job.status) {
    case 'queued': return 'queued';
    case 'running': return job.progress ? `running ${pct(job.progress.fraction)}${job.progress.message ? `: ${job.progress.message}` : ''}` : 'running';
    case 'succeeded': return 'succeeded';
    case 'failed': return `failed${body && typeof body.code === 'string' ? `: ${body.code}` : ''}${body && typeof body.error === 'string' ? ` (${body.error})` : ''}`;
    case 'cancelled': return 'cancelled';
  }
}

function lastUpdatedAt(job: JobView): string {
  return job.finishedAt ?? job.startedAt ?? job.createdAt;
}

/** The CallToolResult of a finished job: what the synchronous call answers (a sealed result, or
 * the refusal as `isError`). Series stay in: a task's answer is the whole sealed body, as over
 * REST and in the receipt. Null while the job has no answer. */
export function jobToolResult(app: App, job: JobView): ToolResult | null {
  if (!job.response) return null;
  const body = job.response.body;
  if (job.response.status >= 400 || body.ok === false) return renderError(body);
  const op = app.operations.find((o) => o.tool === job.tool);
  return op ? renderResult(op, body as Record<string, any>) : { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** The progress a notification carries beside the task (the job's own figures). */
function progressMeta(job: JobView): Record<string, unknown> {
  return { 'svc/job': { status: job.status, progress: job.progress, attempts: job.attempts, tokens: job.tokens } };
}

/** 2026-07-28: the DetailedTask of a job (tasks/get, notifications/tasks, CreateTaskResult). */
export function detailedTask(app: App, job: JobView): Record<string, unknown> {
  const status = taskStatus(job);
  const poll = pollInterval(job);
  const task: Record<string, unknown> = {
    taskId: job.id,
    status,
    statusMessage: statusLine(job),
    createdAt: job.createdAt,
    lastUpdatedAt: lastUpdatedAt(job),
    ttlMs: null,
    ...(poll !== undefined ? { pollIntervalMs: poll } : {}),
    _meta: progressMeta(job),
  };
  // the inlined result is the CallToolResult as the 2026-07-28 wire carries it: with its resultType
  if (status === 'completed') task.result = { resultType: 'complete', ...jobToolResult(app, job) };
  if (status === 'failed') task.error = { code: ProtocolErrorCode.InternalError, message: `the job ended without an answer (${job.tool})` };
  return task;
}

/** 2025-11-25: the Task of a job (tasks/get, tasks/list, tasks/cancel, notifications/tasks/status). */
export function coreTask(job: JobView): Record<string, unknown> {
  const poll = pollInterval(job);
  return {
    taskId: job.id,
    status: taskStatus(job),
    statusMessage: statusLine(job),
    createdAt: job.createdAt,
    lastUpdatedAt: lastUpdatedAt(job),
    ttl: null,
    ...(poll !== undefined ? { pollInterval: poll } : {}),
  };
}

/** A task id that is not the caller's (another machine's, or none) is "not found": -32602, the
 * spec's code for an invalid or nonexistent taskId, never a hint that it exists. */
export function taskNotFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found (${taskId})`, { taskId });
}

/** Runs a job look-up for a task request: the caller must hold a machine key; NOT_FOUND (and a
 * malformed id) is the spec's not-found error; any other refusal is an InvalidRequest naming it. */
export async function forTask<T>(caller: Caller | null, taskId: string, run: (caller: Caller) => Promise<T>): Promise<T> {
  if (!caller) throw taskNotFound(taskId);
  try {
    return await run(caller);
  } catch (e) {
    if (isSvcError(e) && (e.code === 'NOT_FOUND' || e.code === 'INVALID_INPUT')) throw taskNotFound(taskId);
    if (isSvcError(e)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, e.message, e.toBody());
    throw e;
  }
}

/** Waits until the job is terminal (or the signal aborts), in slices the runner bounds. */
export async function waitTerminal(jobs: Jobs, caller: Caller, id: string, signal: AbortSignal): Promise<JobView> {
  let job = await jobs.get(caller, id);
  while (!isTerminal(job)) {
    if (signal.aborted) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'Request cancelled');
    job = await jobs.wait(caller, id, 5_000);
  }
  return job;
}
