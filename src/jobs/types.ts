// Jobs (DESIGN §14, issue 27): the one record behind a REST job (`POST /api/jobs`, `Prefer:
// respond-async`) and an MCP task (the `io.modelcontextprotocol/tasks` extension of 2026-07-28 and
// the core tasks of 2025-11-25). This file is the contract between the job runner (src/jobs/) and
// its two faces (src/ops/jobs.ts for REST, src/mcp/ for tasks): both see only `Jobs`.
//
// Execution is at least once, sealing exactly once: a job's id is the idempotency key of its seal,
// sealed in the same transaction that marks it finished, however many attempts ran.
import type { Caller } from '../core/caller.ts';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** the statuses from which a job never moves again */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export interface JobProgress {
  /** in [0, 1], from the solver's own progress (a sweep: runs finished / runs) */
  fraction: number;
  message?: string;
}

/** What a job's owner sees of it (REST body of GET /api/jobs/{id}; an MCP task wraps the same). */
export interface JobView {
  /** `job_` + ULID */
  id: string;
  /** the tool it runs (`svc_heat`); the REST path of the same operation is `/api/svc/heat` */
  tool: string;
  status: JobStatus;
  progress: JobProgress | null;
  /** ISO 8601 instants */
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** how many times a worker took it (more than 1 after a node died or handed it back) */
  attempts: number;
  budget: { seconds: number };
  /** reserved at submission for the worst case; charged when it ended (null while not ended) */
  tokens: { reserved: number; charged: number | null };
  /** the parent sweep, for a run of a sweep */
  parentId?: string;
  /** a sweep: how many runs it has */
  runs?: number;
  /** when finished: exactly the body the synchronous call returns (a sealed result, or an error
   * body `{ok: false, error, code, …}`), with the HTTP status that call would have had */
  response?: { status: number; body: Record<string, unknown> };
}

export interface SubmitRequest {
  /** a tool name of a sealed operation (`svc_heat`, …) */
  tool: string;
  /** the tool's arguments (= the operation's JSON body) */
  arguments: unknown;
  /** seconds of worker time; default SVC_JOB_SECONDS (600), at most SVC_JOB_MAX_SECONDS (3600) */
  budget?: { seconds?: number };
  /** a sweep over argument values: the Cartesian product (or `zip: true`), up to 10,000 runs */
  sweep?: Record<string, unknown[]>;
  zip?: boolean;
  /** which face submitted it (REST or MCP), for the record */
  via?: 'rest' | 'mcp';
}

export interface JobListQuery {
  status?: JobStatus;
  /** opaque cursor from the previous page */
  cursor?: string;
  /** page size, default 50, at most 200 */
  limit?: number;
}

/** The job runner as its faces see it. Every method takes the caller: another machine's job is
 * `NOT_FOUND` (never `FORBIDDEN`); every refusal is a SvcError with a DESIGN §9 code. */
export interface Jobs {
  /** validates the tool and its arguments exactly as the synchronous call does (400s are the same),
   * reserves the worst case's tokens (429 QUOTA_EXCEEDED), checks the machine's queue
   * (429 RATE_LIMITED with retryAfterSeconds) and queues it. */
  submit(caller: Caller, req: SubmitRequest): Promise<JobView>;
  get(caller: Caller, id: string): Promise<JobView>;
  list(caller: Caller, q: JobListQuery): Promise<{ jobs: JobView[]; nextCursor: string | null }>;
  /** cancels a queued or running job (a running one stops within 1 s and is charged for the
   * worker time it used); cancelling a finished job returns it unchanged */
  cancel(caller: Caller, id: string): Promise<JobView>;
  /** calls `onChange` with the job now and at every change of status or progress, on any node of the
   * cluster, until it is terminal or the returned function is called */
  watch(caller: Caller, id: string, onChange: (job: JobView) => void): Promise<() => void>;
  /** resolves when the job is terminal or `ms` have passed, with the job as it then is */
  wait(caller: Caller, id: string, ms: number): Promise<JobView>;
}
