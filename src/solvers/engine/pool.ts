// The solver pool: runs solvers in piscina worker threads so the event loop never runs numerics,
// and enforces each job's time budget (DESIGN §10).
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { SvcError } from '../../core/errors.ts';
import type { SolverOutput, SolverRun } from '../types.ts';

/** How a pooled job ended: its output (`ok`), a refusal from the solver (`refused`), past its time
 * budget (`timeout`), its caller gone (`cancelled`), or a failure of the pool itself (`error`). */
export type SolverJobOutcome = 'ok' | 'refused' | 'timeout' | 'cancelled' | 'error';

/** What the pool tells its `onJob` listeners: a job handed to the pool (queued or running from
 * then on), then the same job settled. `seconds` is queue wait + run; `started` says whether it
 * reached a worker thread. (The worker does not report when it starts, so the two are not split.) */
export type SolverJobEvent =
  | { phase: 'submitted'; solver: string }
  | { phase: 'settled'; solver: string; outcome: SolverJobOutcome; seconds: number; started: boolean };

export class SolverPool {
  private piscina: Piscina | null = null;
  /** worker threads terminated under a running job (time budget, cancellation) */
  private stopped = 0;
  /** jobs that were given a progress channel (only callers that listen for progress) */
  private progressChannels = 0;
  readonly timeoutMs: number;
  readonly threads: number;
  /** Instrumentation (src/observability subscribes): called synchronously for every job event;
   * a listener that throws is ignored, so observers never break a job. */
  readonly onJob: ((e: SolverJobEvent) => void)[] = [];

  constructor(opts: { timeoutMs: number; threads?: number }) {
    this.timeoutMs = opts.timeoutMs;
    this.threads = opts.threads ?? Math.max(1, availableParallelism());
  }

  private get pool(): Piscina {
    this.piscina ??= new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      minThreads: 1,
      maxThreads: this.threads,
      idleTimeout: 30_000,
    });
    return this.piscina;
  }

  get stats() {
    const p = this.piscina;
    return {
      threads: p?.threads.length ?? 0, queueSize: p?.queueSize ?? 0, completed: p?.completed ?? 0, utilization: p?.utilization ?? 0,
      stoppedJobs: this.stopped, progressChannels: this.progressChannels,
    };
  }

  /** Runs a solver in the pool. Rejects with TIME_BUDGET_EXCEEDED past the budget; aborting
   * `signal` (client gone) cancels the job and terminates its worker. */
  async run(name: string, input: unknown, opts: { seed: number; now: number; signal?: AbortSignal; progress?: (f: number) => void; timeoutMs?: number }): Promise<SolverOutput> {
    // the time budget: a timer cleared when the job ends (AbortSignal.timeout would stay armed,
    // holding its closure, until the budget ran out even for a job that took a millisecond)
    const budgetCtl = new AbortController();
    const budget = budgetCtl.signal;
    const budgetTimer = setTimeout(() => budgetCtl.abort(), opts.timeoutMs ?? this.timeoutMs);
    budgetTimer.unref();
    const signal = opts.signal ? AbortSignal.any([opts.signal, budget]) : budget;
    // The worker raises a shared flag when it starts the job. Piscina answers an abort of a
    // running job by terminating the worker thread (a queued job is only dequeued); those stops
    // are counted in `stats.stoppedJobs`, so a test can tell the numerics stopped. Progress comes
    // over a MessageChannel made only when someone listens: a port transferred to a worker costs
    // ~2.8 KB of native memory that is never given back (measured: RSS grew by 2.4 GB over 800k
    // pooled jobs with a port each, and stayed flat without one; docs/benchmarks.md).
    const started = new Int32Array(new SharedArrayBuffer(4));
    const ch = opts.progress ? new MessageChannel() : null;
    if (ch) this.progressChannels++;
    const local: any = ch?.port1;
    local?.on('message', (m: unknown) => { if (typeof m === 'number') opts.progress?.(m); });
    const onAbort = () => { if (Atomics.load(started, 0) === 1) this.stopped++; };
    signal.addEventListener('abort', onAbort, { once: true });
    const t0 = performance.now();
    let outcome: SolverJobOutcome = 'error';
    this.emit({ phase: 'submitted', solver: name });
    try {
      const task = { name, input, seed: opts.seed, now: opts.now, started, ...(ch ? { port: ch.port2 } : {}) };
      const res: any = await this.pool.run(task, ch ? { signal, transferList: [ch.port2 as any] } : { signal });
      if (!res.ok) {
        outcome = 'refused';
        throw new SvcError(res.refusal.code, res.refusal.message, { details: res.refusal.details });
      }
      outcome = 'ok';
      return res.output as SolverOutput;
    } catch (e: any) {
      if (e instanceof SvcError) throw e;
      if (budget.aborted) {
        outcome = 'timeout';
        throw new SvcError('TIME_BUDGET_EXCEEDED', `the solver ran past its time budget of ${opts.timeoutMs ?? this.timeoutMs} ms and was stopped`);
      }
      if (opts.signal?.aborted) {
        outcome = 'cancelled';
        throw new SvcError('INVALID_INPUT', 'the request was cancelled');
      }
      throw e;
    } finally {
      clearTimeout(budgetTimer);
      signal.removeEventListener('abort', onAbort);
      local?.close();
      this.emit({ phase: 'settled', solver: name, outcome, seconds: (performance.now() - t0) / 1000, started: Atomics.load(started, 0) === 1 });
    }
  }

  /** Runs a closed-form solver on the calling thread: its work takes microseconds, less than a
   * worker round trip (issue 20, the seal path). The same refusal mapping as the worker
   * (src/solvers/engine/worker.ts) and the same job events. */
  runInline(name: string, run: SolverRun, input: unknown, ctx: { seed: number; now: number }): SolverOutput {
    this.emit({ phase: 'submitted', solver: name });
    const t0 = performance.now();
    let outcome: SolverJobOutcome = 'ok';
    try {
      return run(input as any, { seed: ctx.seed, now: ctx.now, progress() {} });
    } catch (e: any) {
      outcome = 'refused';
      if (e && e.name === 'SvcError') throw new SvcError(e.code, e.message, { details: e.details });
      throw new SvcError('UNSTABLE', `the ${name} solver could not compute this input: ${e?.message ?? String(e)}`, { details: { value: null, failure: e?.name ?? 'Error' } });
    } finally {
      this.emit({ phase: 'settled', solver: name, outcome, seconds: (performance.now() - t0) / 1000, started: true });
    }
  }

  private emit(e: SolverJobEvent): void {
    for (const f of this.onJob) { try { f(e); } catch { /* observers never break a job */ } }
  }

  async close(): Promise<void> {
    if (this.piscina) await this.piscina.destroy();
    this.piscina = null;
  }
}
