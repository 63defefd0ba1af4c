// The job a computation runs for (issue 27, docs/jobs.md). The job runner (src/jobs/runner.ts)
// calls an operation exactly as the synchronous path does; what differs travels here, in the
// async context of that call: its time budget, its progress sink, the pool lane it runs in, and
// its id, which the seal path adds to the SealJob so the receipt is sealed exactly once, in the
// transaction that marks the job succeeded (src/services/seal-batch.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobContext {
  jobId: string;
  /** the job's budget of worker time, ms (replaces SVC_SOLVER_TIMEOUT_MS) */
  timeoutMs: number;
  /** the solver's own progress, in [0, 1] */
  progress: (fraction: number, message?: string) => void;
}

const store = new AsyncLocalStorage<JobContext>();

/** Runs `fn` as the job `ctx`. */
export function runAsJob<T>(ctx: JobContext, fn: () => Promise<T>): Promise<T> {
  return store.run(ctx, fn);
}

/** The job the current computation runs for (undefined for a synchronous call). */
export function currentJob(): JobContext | undefined {
  return store.getStore();
}

/** Why a job's run was stopped when its node hands it back (drain): it runs again elsewhere from
 * the start, and the stopped attempt is not charged. */
export class JobHandback extends Error {
  constructor() { super('the node is draining: the job is handed back to the queue'); this.name = 'JobHandback'; }
}
