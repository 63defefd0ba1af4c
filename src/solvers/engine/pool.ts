// The solver pool: runs solvers in piscina worker threads so the event loop never runs numerics,
// schedules them fairly between machines, and enforces each job's time budget (DESIGN §10).
//
// Fair scheduling (issue 19, docs/node.md "Fair under abuse"): every job belongs to a tenant (the
// machine it runs for). At most `machineConcurrency` jobs of one tenant run at once; the others
// wait in that tenant's own queue, bounded by `machineQueue` (past it: 429 RATE_LIMITED with
// `retryAfterSeconds`). A free worker goes to the next tenant in round-robin order that has a job
// waiting and a free slot, never to whoever queued first, so one machine's flood of jobs takes at
// most its own slots and every other machine's next job runs as soon as a worker frees. Jobs are
// handed to piscina only when a worker is free for them: piscina's own FIFO queue stays empty.
// The pool has at least two worker threads, so one tenant never holds them all.
//
// The time budget counts from the moment the job starts running in its worker (the worker raises
// a shared flag and notifies it; `Atomics.waitAsync` wakes the pool), not from when it was queued.
// How long a job ran in its worker is reported in `usage`, so a run stopped by its budget or
// cancelled by its caller can be charged for the work it did (src/ops/solvers.ts).
import { MessageChannel } from 'node:worker_threads';
import { Piscina, type PiscinaTask } from 'piscina';

/** the worker view piscina gives a load balancer (its type is not exported by name) */
type PiscinaWorker = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer'] & {}>[1][number];
import { SvcError } from '../../core/errors.ts';
import { moduleUrl } from '../../core/modules.ts';
import type { SolverOutput, SolverRun } from '../types.ts';

/** How a pooled job ended: its output (`ok`), a refusal from the solver (`refused`), past its time
 * budget (`timeout`), its caller gone (`cancelled`), or a failure of the pool itself (`error`). */
export type SolverJobOutcome = 'ok' | 'refused' | 'timeout' | 'cancelled' | 'error';

/** What the pool tells its `onJob` listeners: a job accepted by the pool (waiting or running from
 * then on), the same job given a worker after its wait in the fair queue, then settled. `seconds`
 * is queue wait + run; `started` says whether it reached a worker thread, `runSeconds` how long it
 * ran there. A job refused because its machine's queue is full produces no event. */
export type SolverJobEvent =
  | { phase: 'submitted'; solver: string; tenant?: string }
  | { phase: 'dispatched'; solver: string; tenant?: string; waitSeconds: number }
  | { phase: 'settled'; solver: string; tenant?: string; outcome: SolverJobOutcome; seconds: number; started: boolean; runSeconds: number };

/** Filled in by the pool while a job runs: whether it started in a worker, and for how long it
 * ran there (milliseconds from the worker's start flag to the job's end or stop). */
export interface JobUsage { started: boolean; workerMs: number }

export interface PoolRunOptions {
  seed: number;
  now: number;
  /** aborted when the caller goes away: a queued job leaves the queue, a running one is stopped */
  signal?: AbortSignal;
  progress?: (f: number) => void;
  /** the job's time budget, counted from its start in a worker (default: the pool's) */
  timeoutMs?: number;
  /** whose job this is (a machine's ZID): the unit of fair scheduling. Jobs without a tenant
   * share one lane that is limited only by the number of threads (tools, benchmarks). */
  tenant?: string;
  usage?: JobUsage;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** One tenant's place in the scheduler: its running jobs and its waiting ones, in order. */
interface Lane {
  running: number;
  waiting: Waiter[];
  limit: number;
  queueLimit: number;
}

/** what the node's main thread (HTTP, store thread, caches) is taken to need beside the workers */
const MAIN_THREAD_MB = 448;
/** how often the node's RSS is sampled while a job runs */
const MEMORY_WATCH_MS = 50;

export class SolverPool {
  private piscina: Piscina | null = null;
  /** worker threads terminated under a running job (time budget, cancellation) */
  private stopped = 0;
  /** jobs that were given a progress channel (only callers that listen for progress) */
  private progressChannels = 0;
  /** jobs refused because their tenant's queue was full */
  private rejected = 0;
  readonly timeoutMs: number;
  readonly threads: number;
  readonly machineConcurrency: number;
  readonly machineQueue: number;
  private draining = false;
  /** jobs handed to piscina (running, or about to start in a free worker) */
  private active = 0;
  private readonly lanes = new Map<string, Lane>();
  /** tenants with waiting jobs, in round-robin order: the head is served next */
  private ring: string[] = [];
  /** Instrumentation (src/observability subscribes): called synchronously for every job event;
   * a listener that throws is ignored, so observers never break a job. */
  readonly onJob: ((e: SolverJobEvent) => void)[] = [];

  /** each run's memory budget (MiB): its worker's V8 heap limit */
  readonly jobMemoryMb: number;
  /** the node's memory limit (MiB): past it, running jobs are stopped, the newest first */
  readonly memoryLimitMb: number;
  /** stops of running jobs by memory, newest last (each aborts its job with MEMORY_BUDGET_EXCEEDED) */
  private readonly memoryStops: (() => void)[] = [];
  private memoryWatch: ReturnType<typeof setInterval> | null = null;

  /** how long an idle worker thread lives (ms) */
  readonly idleMs: number;

  constructor(opts: { timeoutMs: number; threads?: number; machineConcurrency?: number; machineQueue?: number; jobMemoryMb?: number; memoryLimitMb?: number; idleMs?: number }) {
    this.timeoutMs = opts.timeoutMs;
    this.idleMs = opts.idleMs ?? 60_000;
    this.jobMemoryMb = opts.jobMemoryMb ?? 512;
    this.memoryLimitMb = opts.memoryLimitMb ?? 2048;
    // at least two workers: a tenant limited to one running job never holds them all; and no more
    // than the node's memory holds when each of them reaches its budget (admission by construction,
    // beside the main thread's own ~450 MiB: docs/node.md "Memory is a budget")
    const byMemory = Math.floor((this.memoryLimitMb - MAIN_THREAD_MB) / this.jobMemoryMb);
    this.threads = Math.max(2, Math.min(opts.threads ?? 2, byMemory));
    this.machineConcurrency = Math.max(1, opts.machineConcurrency ?? 1);
    this.machineQueue = Math.max(0, opts.machineQueue ?? 16);
  }

  /** stops every worker once the pool has had no job for `idleMs` */
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  private get pool(): Piscina {
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = null; }
    this.piscina ??= new Piscina({
      filename: moduleUrl('./worker.ts', import.meta.url).href,
      // workers start on first use, one at first (a second starts when a job arrives while the
      // first is busy: that job waits for a thread to start once, ~0.1-0.3 s; one worker fewer
      // saved 7-15 MiB after the five-solver calls) and all stop after SVC_WORKER_IDLE_MS without
      // a job (issue 28: an idle node holds no solver thread; docs/node.md "A lean, fast node")
      minThreads: 1,
      maxThreads: this.threads,
      idleTimeout: this.idleMs,
      // a run past its budget ends its thread with ERR_WORKER_OUT_OF_MEMORY; piscina replaces it
      resourceLimits: { maxOldGenerationSizeMb: this.jobMemoryMb },
      // an idle worker waits for its next task with Atomics.waitAsync, so its event loop runs: with
      // piscina's default ('sync': Atomics.wait blocks the thread) the collection a worker schedules
      // after a run (src/solvers/engine/worker.ts) never ran until the next task arrived. Measured
      // after one ode call: the worker's heap 92 MiB committed → 23 MiB a second later, RSS −37 MiB
      atomics: 'async',
      loadBalancer: (task, workers) => this.pickWorker(task, workers),
    });
    return this.piscina;
  }

  /** solvers each worker thread has loaded (by piscina worker id) */
  private readonly loaded = new Map<number, Set<string>>();

  /** Worker affinity: a job goes to an idle worker that has its solver loaded already, else to a
   * fresh one, and takes a worker warm with other solvers only when no fresh one is starting.
   * When a stopped job's worker is replaced, the next flooding job then waits for the new thread
   * instead of taking the warm worker another tenant's small jobs run on (importing a solver in a
   * cold thread took up to a second on a loaded 2-core host: that was the other tenant's p99). */
  private pickWorker(task: PiscinaTask, workers: PiscinaWorker[]): PiscinaWorker | null {
    const solver = (task as any)[Piscina.queueOptionsSymbol]?.solver as string | undefined;
    const ids = new Set(workers.map((w) => w.id));
    for (const id of this.loaded.keys()) if (!ids.has(id)) this.loaded.delete(id);
    let best: PiscinaWorker | null = null;
    let bestScore = -1;
    for (const w of workers) {
      if (w.currentUsage !== 0 || w.terminating || w.destroyed) continue;
      const mods = this.loaded.get(w.id);
      const score = solver !== undefined && mods?.has(solver) ? 2 : !mods?.size ? 1 : 0;
      if (score > bestScore) { best = w; bestScore = score; }
    }
    if (!best) return null;
    // only workers warm with other solvers are idle, and a fresh thread is on its way: wait for it
    if (bestScore === 0 && (this.piscina?.threads.length ?? 0) > workers.length) return null;
    if (solver !== undefined) {
      let mods = this.loaded.get(best.id);
      if (!mods) { mods = new Set(); this.loaded.set(best.id, mods); }
      mods.add(solver);
    }
    return best;
  }

  get stats() {
    const p = this.piscina;
    let waiting = 0;
    for (const l of this.lanes.values()) waiting += l.waiting.length;
    return {
      threads: p?.threads.length ?? 0, queueSize: waiting + (p?.queueSize ?? 0), completed: p?.completed ?? 0, utilization: p?.utilization ?? 0,
      stoppedJobs: this.stopped, progressChannels: this.progressChannels, running: this.active, rejectedJobs: this.rejected,
    };
  }

  /** Jobs of one tenant running and waiting on this node. */
  tenantLoad(tenant: string): { running: number; waiting: number } {
    const l = this.lanes.get('t:' + tenant);
    return { running: l?.running ?? 0, waiting: l?.waiting.length ?? 0 };
  }

  private laneOf(tenant: string | undefined): [string, Lane] {
    const key = tenant === undefined ? '' : 't:' + tenant;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = tenant === undefined
        ? { running: 0, waiting: [], limit: this.threads, queueLimit: Number.POSITIVE_INFINITY }
        : { running: 0, waiting: [], limit: this.machineConcurrency, queueLimit: this.machineQueue };
      this.lanes.set(key, lane);
    }
    return [key, lane];
  }

  private dropIfIdle(key: string, lane: Lane): void {
    if (!lane.running && !lane.waiting.length && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  /** Waits for a slot of `tenant` and a free worker; resolves with the release function.
   * Throws RATE_LIMITED (synchronously) when the tenant's queue is full; a caller that aborts while
   * waiting leaves the queue (nothing ran, nothing is charged). */
  private acquire(tenant: string | undefined, signal: AbortSignal | undefined, budgetMs: number): Promise<() => void> {
    if (this.draining) throw new SvcError('UPSTREAM_UNAVAILABLE', 'this node is shutting down; try again (on another node)', { details: { retryAfterSeconds: 1 } });
    const [key, lane] = this.laneOf(tenant);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      lane.running--;
      this.active--;
      this.dropIfIdle(key, lane);
      this.pump();
    };
    // straight to a worker when nobody waits ahead of it (no lane is waiting: there is no one
    // to be unfair to) and both its tenant and the pool have room
    if (!this.ring.length && lane.running < lane.limit && this.active < this.threads) {
      lane.running++;
      this.active++;
      return Promise.resolve(release);
    }
    if (lane.waiting.length >= lane.queueLimit) {
      this.rejected++;
      this.dropIfIdle(key, lane);
      const retryAfterSeconds = Math.max(1, Math.ceil(budgetMs / 1000));
      throw new SvcError('RATE_LIMITED', `this machine already has ${lane.running} solver job(s) running and ${lane.waiting.length} waiting on this node (at most ${lane.limit} running and ${lane.queueLimit} waiting); try again when one has finished`, {
        details: { retryAfterSeconds, running: lane.running, waiting: lane.waiting.length },
      });
    }
    if (signal?.aborted) { this.dropIfIdle(key, lane); return Promise.reject(cancelled()); }
    return new Promise<() => void>((resolve, reject) => {
      const onAbort = () => {
        const i = lane.waiting.indexOf(w);
        if (i < 0) return;
        lane.waiting.splice(i, 1);
        if (!lane.waiting.length) this.ring = this.ring.filter((k) => k !== key);
        this.dropIfIdle(key, lane);
        reject(cancelled());
      };
      const w: Waiter = {
        resolve: () => { signal?.removeEventListener('abort', onAbort); resolve(release); },
        reject,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      lane.waiting.push(w);
      if (!this.ring.includes(key)) this.ring.push(key);
      this.pump();
    });
  }

  /** Hands free workers to waiting jobs, round robin over the tenants that can take one. */
  private pump(): void {
    while (this.active < this.threads && this.ring.length) {
      const i = this.ring.findIndex((k) => { const l = this.lanes.get(k); return !!l && l.waiting.length > 0 && l.running < l.limit; });
      if (i < 0) return;
      const key = this.ring[i];
      const lane = this.lanes.get(key)!;
      const w = lane.waiting.shift()!;
      lane.running++;
      this.active++;
      // the lane served goes to the back of the ring (or leaves it when it has nothing waiting)
      this.ring.splice(i, 1);
      if (lane.waiting.length) this.ring.push(key);
      w.resolve();
    }
  }

  /** Called when a job settles: once nothing runs or waits, the workers are stopped after `idleMs`. */
  private armIdle(): void {
    if (this.idleTimer || !this.piscina || this.active > 0 || this.ring.length) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.active > 0 || this.ring.length || !this.piscina) return;
      const p = this.piscina;
      this.piscina = null;
      this.loaded.clear();
      void p.destroy().catch(() => { /* nothing ran: nothing to lose */ });
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** Runs a solver in the pool, fairly scheduled by `tenant`. Rejects with TIME_BUDGET_EXCEEDED
   * past the budget (counted from the job's start in its worker); aborting `signal` (client
   * gone) takes a waiting job out of the queue, or stops a running one by terminating its worker. */
  async run(name: string, input: unknown, opts: PoolRunOptions): Promise<SolverOutput> {
    const budgetMs = opts.timeoutMs ?? this.timeoutMs;
    const usage = opts.usage ?? { started: false, workerMs: 0 };
    const t0 = performance.now();
    const admitted = this.acquire(opts.tenant, opts.signal, budgetMs); // throws at once when the queue is full
    this.emit({ phase: 'submitted', solver: name, tenant: opts.tenant });
    let outcome: SolverJobOutcome = 'error';
    let release: (() => void) | null = null;
    try {
      release = await admitted;
      this.emit({ phase: 'dispatched', solver: name, tenant: opts.tenant, waitSeconds: (performance.now() - t0) / 1000 });
      const r = await this.execute(name, input, opts, budgetMs, usage);
      outcome = 'ok';
      return r;
    } catch (e: any) {
      outcome = e?.code === 'TIME_BUDGET_EXCEEDED' ? 'timeout' : opts.signal?.aborted ? 'cancelled' : e instanceof SvcError ? 'refused' : 'error';
      throw e;
    } finally {
      release?.();
      this.armIdle();
      this.emit({ phase: 'settled', solver: name, tenant: opts.tenant, outcome, seconds: (performance.now() - t0) / 1000, started: usage.started, runSeconds: usage.workerMs / 1000 });
    }
  }

  private async execute(name: string, input: unknown, opts: PoolRunOptions, budgetMs: number, usage: JobUsage): Promise<SolverOutput> {
    // The worker raises a shared flag when it starts the job and notifies it: the budget timer is
    // armed then. Piscina answers an abort of a running job by terminating the worker thread; those
    // stops are counted in `stats.stoppedJobs`, so a test can tell the numerics stopped. Progress
    // comes over a MessageChannel made only when someone listens: a port transferred to a worker
    // costs ~2.8 KB of native memory that is never given back (measured: RSS grew by 2.4 GB over
    // 800k pooled jobs with a port each, and stayed flat without one; docs/benchmarks.md).
    const started = new Int32Array(new SharedArrayBuffer(4));
    const budgetCtl = new AbortController();
    const budget = budgetCtl.signal;
    let budgetTimer: ReturnType<typeof setTimeout> | null = null;
    let startedAt = 0;
    let settled = false;
    const onStart = () => {
      if (settled || usage.started) return;
      usage.started = true;
      startedAt = performance.now();
      // a timer cleared when the job ends (AbortSignal.timeout would stay armed, holding its
      // closure, until the budget ran out even for a job that took a millisecond)
      budgetTimer = setTimeout(() => budgetCtl.abort(), Math.max(0, budgetMs));
      budgetTimer.unref();
    };
    const wait = Atomics.waitAsync(started, 0, 0);
    if (!wait.async) onStart();
    else void wait.value.then(() => { if (Atomics.load(started, 0) === 1) onStart(); });
    const ch = opts.progress ? new MessageChannel() : null;
    if (ch) this.progressChannels++;
    const local: any = ch?.port1;
    local?.on('message', (m: unknown) => { if (typeof m === 'number') opts.progress?.(m); });
    // the node-wide watchdog: memory outside the V8 heap (typed arrays) is not bounded by the
    // worker's heap limit; past the node's limit the newest running job is stopped
    const memoryCtl = new AbortController();
    const stopForMemory = () => memoryCtl.abort();
    this.memoryStops.push(stopForMemory);
    this.watchMemory();
    const signal = AbortSignal.any([opts.signal ?? new AbortController().signal, budget, memoryCtl.signal]);
    const onAbort = () => { if (Atomics.load(started, 0) === 1) this.stopped++; };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // the solver's name rides along for the load balancer (a symbol key: not sent to the worker)
      const task = { name, input, seed: opts.seed, now: opts.now, started, ...(ch ? { port: ch.port2 } : {}), [Piscina.queueOptionsSymbol]: { solver: name } };
      // a large byte input (a blob's bytes) moves to the worker instead of being copied: the node
      // does not hold a second copy while it runs (a 300 MB CNF would otherwise be there twice)
      const transferList: any[] = [...(ch ? [ch.port2] : []), ...movableBuffers(input)];
      const res: any = await this.pool.run(task, transferList.length ? { signal, transferList } : { signal });
      if (!res.ok) throw new SvcError(res.refusal.code, res.refusal.message, { details: res.refusal.details });
      return res.output as SolverOutput;
    } catch (e: any) {
      if (e instanceof SvcError) throw e;
      if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY' || memoryCtl.signal.aborted) {
        throw new SvcError('MEMORY_BUDGET_EXCEEDED', memoryCtl.signal.aborted
          ? `the node ran short of memory (over SVC_MEMORY_LIMIT_MB = ${this.memoryLimitMb} MiB) and this run, the newest, was stopped`
          : `the ${name} solver used more than its memory budget of ${this.jobMemoryMb} MiB (SVC_JOB_MEMORY_MB) and was stopped; its worker was replaced`, {
          details: { memoryBudgetMb: this.jobMemoryMb },
        });
      }
      if (budget.aborted) {
        // the refusal names the asynchronous route (issue 29): a request's budget is the request's; a
        // job runs under the jobs' own budget and is polled, not waited for
        throw new SvcError('TIME_BUDGET_EXCEEDED', `the solver ran past its time budget of ${budgetMs} ms and was stopped; for a longer run, send it as a job: Prefer: respond-async, or POST /api/jobs`, {
          details: { budgetMs, asyncRoute: { header: 'Prefer: respond-async', endpoint: 'POST /api/jobs' } },
        });
      }
      if (opts.signal?.aborted) throw cancelled();
      throw e;
    } finally {
      settled = true;
      // the flag may have risen without the notification reaching us yet
      if (!usage.started && Atomics.load(started, 0) === 1) { usage.started = true; startedAt = performance.now(); }
      if (usage.started) usage.workerMs = performance.now() - startedAt;
      if (budgetTimer) clearTimeout(budgetTimer);
      // wakes a waitAsync still pending (a job that never started), so nothing is left waiting
      Atomics.notify(started, 0);
      signal.removeEventListener('abort', onAbort);
      const k = this.memoryStops.indexOf(stopForMemory);
      if (k >= 0) this.memoryStops.splice(k, 1);
      if (!this.memoryStops.length && this.memoryWatch) { clearInterval(this.memoryWatch); this.memoryWatch = null; }
      local?.close();
    }
  }

  /** Samples the node's RSS while jobs run; past SVC_MEMORY_LIMIT_MB the newest running job is
   * stopped (its worker terminated, its memory returned), then the next, until it is below. */
  private watchMemory(): void {
    if (this.memoryWatch) return;
    this.memoryWatch = setInterval(() => {
      if (process.memoryUsage.rss() > this.memoryLimitMb * 2 ** 20) this.memoryStops.pop()?.();
    }, MEMORY_WATCH_MS);
    this.memoryWatch.unref();
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
      const seconds = (performance.now() - t0) / 1000;
      this.emit({ phase: 'settled', solver: name, outcome, seconds, started: true, runSeconds: seconds });
    }
  }

  private emit(e: SolverJobEvent): void {
    for (const f of this.onJob) { try { f(e); } catch { /* observers never break a job */ } }
  }

  /** The pool is closing: every job still waiting for a worker is refused, and so is every new one. */
  rejectWaiting(): void {
    this.draining = true;
    const err = () => new SvcError('UPSTREAM_UNAVAILABLE', 'this node is shutting down; try again (on another node)', { details: { retryAfterSeconds: 1 } });
    for (const [key, lane] of this.lanes) {
      for (const w of lane.waiting.splice(0)) w.reject(err());
      this.dropIfIdle(key, lane);
    }
    this.ring = [];
  }

  async close(): Promise<void> {
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = null; }
    this.rejectWaiting();
    if (this.piscina) await this.piscina.destroy();
    this.piscina = null;
  }
}

function cancelled(): SvcError {
  return new SvcError('INVALID_INPUT', 'the request was cancelled');
}

/** The buffers of the large byte arrays among an input's top-level fields that can move to a
 * worker (each array owning its whole, unshared buffer); detached here once sent. */
function movableBuffers(input: unknown): ArrayBuffer[] {
  if (!input || typeof input !== 'object') return [];
  const out: ArrayBuffer[] = [];
  for (const v of Object.values(input as Record<string, unknown>)) {
    if (v instanceof Uint8Array && v.byteLength >= 1 << 20 && v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !out.includes(v.buffer)) out.push(v.buffer);
  }
  return out;
}
