// The job runner (issue 27, DESIGN §14, docs/jobs.md): `Jobs` (src/jobs/types.ts) on the node's
// store, with pg-boss (src/jobs/queue.ts) as the queue. The `jobs` table is what a caller sees;
// pg-boss holds the queue entry of each job (or sweep run) and hands it to a node: claiming with
// SKIP LOCKED, heartbeats (a killed node's job is retried), retries (a draining node's job is
// handed back), a cluster-wide limit per machine (pg-boss `groupConcurrency`, the group being the
// machine) and priorities (round robin across machines, below).
//
// State machine: queued → running → succeeded | failed | cancelled; running → queued when a node
// hands the job back (drain) and running → running (attempts + 1) when another node takes the job
// of a dead one. Sealing is exactly once: the seal transaction marks the job succeeded
// (src/services/seal-batch.ts), and a later attempt that finds it sealed gets the stored response.
//
// The operation itself is run by a callback the app hands in (`JobFace.execute`, built in
// src/ops/jobs.ts from the synchronous path): this layer knows nothing of operations.
import type { Config } from '../config.ts';
import type { PgBoss } from 'pg-boss';
import type { Caller } from '../core/caller.ts';
import { SvcError, secondsToNextUtcMidnight } from '../core/errors.ts';
import { ulid } from '../core/ids.ts';
import type { Db } from '../store/db.ts';
import type { Sealer } from '../services/sealer.ts';
import { tokensLeft } from '../services/seal-batch.ts';
import { runAsJob, JobHandback } from '../services/job-context.ts';
import { QUEUE, SWEEP_TIER, bossSchema, startQueue, txAdapter } from './queue.ts';
import { expandSweep, sweepRoot } from './sweep.ts';
import { TERMINAL_STATUSES, type JobListQuery, type JobStatus, type JobView, type Jobs, type SubmitRequest } from './types.ts';

/** the machine a job runs for, and the key prefix its receipt is signed with */
export interface JobOwner { zid: string; keyPrefix: string }
/** what the synchronous call answered: its HTTP status and body */
export interface JobOutcome { status: number; body: Record<string, unknown> }

/** The operations as the runner needs them (built in src/ops/jobs.ts). */
export interface JobFace {
  /** refuses a call exactly as the synchronous call would before running it (unknown tool,
   * access, invalid arguments: the same 4xx), or a tool that cannot run as a job */
  validate(caller: Caller, tool: string, args: unknown): void;
  /** runs the call for its owner (validation, token check, solver run in the pool, seal) and
   * returns what the synchronous call returns; never throws for the call's own errors */
  execute(owner: JobOwner, tool: string, args: unknown, o: { signal: AbortSignal; jobId: string }): Promise<JobOutcome>;
}

/** The settings the runner reads, as src/config.ts declares and documents them. */
export type JobRunnerConfig = Pick<Config, 'jobSeconds' | 'jobMaxSeconds' | 'jobsPerMachine' | 'jobsQueuedPerMachine'
  | 'sweepConcurrency' | 'jobWorkers' | 'jobHeartbeatSeconds' | 'databaseSchema'>;

/** What the runner tells its listeners (metrics). */
export type JobEvent =
  | { phase: 'queued'; runs: number }
  | { phase: 'started'; waitSeconds: number; attempt: number }
  | { phase: 'ended'; status: JobStatus | 'handed-back'; runSeconds: number };

/** the channel every node listens on: `change:<id>` (status or progress), `cancel:<id>` */
export const JOBS_CHANNEL = 'svc_jobs';
/** how often a running job's progress is written and its cancel flag read */
const FLUSH_MS = 400;
/** how often a node looks for sweeps whose runs all ended but which nobody sealed (a node died) */
const SWEEP_CHECK_MS = 30_000;
/** how long a watcher waits between reads when no notification comes */
const WATCH_POLL_MS = 1000;

interface Row {
  id: string; zid: string; key_prefix: string; tool: string; arguments: string; status: JobStatus; progress: string | null;
  budget_seconds: number; tokens_reserved: number; tokens_charged: number | null; attempts: number;
  created_at: Date | string; started_at: Date | string | null; finished_at: Date | string | null;
  response_status: number | null; response: string | null; receipt_id: string | null; cancel_requested: boolean;
  node: string | null; via: string | null; parent_id: string | null; run_index: number | null; swept: string | null; runs: number | null; runs_done: number;
}

interface LocalRun { ctl: AbortController; reason: 'cancel' | 'handback' | null; progress: { fraction: number; message?: string } | null; dirty: boolean }

const iso = (d: Date | string | null): string | null => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());
const isTerminal = (s: JobStatus) => TERMINAL_STATUSES.includes(s);

export class JobRunner implements Jobs {
  private boss: PgBoss | null = null;
  private workId: string | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private sweepCheck: NodeJS.Timeout | null = null;
  private readonly local = new Map<string, LocalRun>();
  private readonly handlers = new Set<Promise<unknown>>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private unlisten: (() => Promise<void>) | null = null;
  private draining = false;
  readonly onEvent: ((e: JobEvent) => void)[] = [];

  private readonly o: { db: Db; sealer: Sealer; config: JobRunnerConfig; face: JobFace; nodeId: string };
  constructor(o: { db: Db; sealer: Sealer; config: JobRunnerConfig; face: JobFace; nodeId: string }) { this.o = o; }

  /** Starts the queue and this node's workers. */
  async start(): Promise<void> {
    const c = this.o.config;
    this.unlisten = await this.o.db.listen(JOBS_CHANNEL, (p) => this.onNotify(p));
    this.boss = await startQueue({ db: this.o.db, schema: bossSchema(c.databaseSchema), heartbeatSeconds: c.jobHeartbeatSeconds, expireInSeconds: c.jobMaxSeconds + 300 });
    this.sweepCheck = setInterval(() => { this.closeFinishedSweeps().catch(() => { /* next time */ }); }, SWEEP_CHECK_MS);
    this.sweepCheck.unref();
    this.workId = await this.boss.work<{ jobId: string }>(QUEUE, {
      batchSize: 1,
      localConcurrency: c.jobWorkers,
      // at most jobsPerMachine jobs of one machine run at once in the whole cluster, and at most
      // sweepConcurrency runs of its sweeps (pg-boss counts active jobs per group in the store)
      groupConcurrency: { default: c.jobsPerMachine, tiers: { [SWEEP_TIER]: c.sweepConcurrency } },
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 2,
    } as any, async ([job]) => {
      try {
        return await this.track(this.handle(job.data.jobId));
      } finally {
        // a worker that finished looks for the next job at once (pg-boss's NOTIFY wakes workers
        // only when a job is created; a backlog would otherwise wait out the polling interval)
        setImmediate(() => { if (this.boss && this.workId) this.boss.notifyWorker(this.workId); });
      }
    });
  }

  /** Seals sweeps whose runs have all ended but whose sealing node died before it sealed them. */
  private async closeFinishedSweeps(): Promise<void> {
    const rows = await this.o.db.query<{ id: string }>(`SELECT id FROM jobs WHERE runs IS NOT NULL AND status IN ('queued', 'running') AND runs_done >= runs LIMIT 20`);
    for (const r of rows) await this.runEnded(r.id);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.handlers.add(p);
    p.then(() => this.handlers.delete(p), () => this.handlers.delete(p));
    return p;
  }

  private emit(e: JobEvent): void { for (const h of this.onEvent) { try { h(e); } catch { /* metrics never break a job */ } } }

  private onNotify(payload: string): void {
    const i = payload.indexOf(':');
    const kind = payload.slice(0, i), id = payload.slice(i + 1);
    if (kind === 'cancel') {
      const run = this.local.get(id);
      if (run && !run.reason) { run.reason = 'cancel'; run.ctl.abort(new Error('cancelled')); }
    } else if (kind === 'change') {
      this.watchers.get(id)?.forEach((f) => f());
      // a job that changed on any node may have freed its machine's slot: an idle worker here
      // looks for work now rather than at its next poll (at most every 100 ms)
      if (this.local.size < this.o.config.jobWorkers && !this.wakeTimer && this.boss && this.workId) {
        this.wakeTimer = setTimeout(() => { this.wakeTimer = null; if (this.boss && this.workId) this.boss.notifyWorker(this.workId); }, 100);
        this.wakeTimer.unref();
      }
    }
  }

  private changed(id: string): void {
    this.o.db.notify(JOBS_CHANNEL, `change:${id}`).catch(() => { /* watchers also poll */ });
  }

  // --- the faces' side -------------------------------------------------------------------------

  async submit(caller: Caller, req: SubmitRequest): Promise<JobView> {
    const owner = ownerOf(caller);
    const c = this.o.config;
    const seconds = req.budget?.seconds ?? c.jobSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > c.jobMaxSeconds) {
      throw new SvcError('INVALID_INPUT', `budget.seconds: a whole number of seconds from 1 to ${c.jobMaxSeconds}`, { issues: [{ path: 'budget.seconds', message: `must be an integer in [1, ${c.jobMaxSeconds}]` }] });
    }
    const base = (req.arguments ?? {}) as Record<string, unknown>;
    const runs = req.sweep !== undefined ? expandSweep(req.sweep, req.zip === true) : null;
    if (runs && (typeof base !== 'object' || Array.isArray(base))) throw new SvcError('INVALID_INPUT', 'arguments: a JSON object to sweep over');
    // the same refusals as the synchronous call, before anything is queued
    if (runs) runs.forEach((v, i) => { try { this.o.face.validate(caller, req.tool, { ...base, ...v }); } catch (e) { throw atRun(e, i, v); } });
    else this.o.face.validate(caller, req.tool, req.arguments);
    // the worst case: the whole budget of worker time, one token per second (per run of a sweep)
    const reserve = seconds * (runs?.length ?? 1);
    const id = 'job_' + ulid();
    const sealer = this.o.sealer;
    await this.o.db.tx(async (q) => {
      // one machine's submissions one at a time (the count and the reservation below hold)
      await q.query('SELECT zid FROM machines WHERE zid = $1 FOR UPDATE', [owner.zid]);
      const [n] = await q.query<{ queued: number; open: number; held: number }>(
        `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*)::int AS open, coalesce(sum(tokens_reserved), 0)::int AS held
           FROM jobs WHERE zid = $1 AND parent_id IS NULL AND status IN ('queued', 'running')`, [owner.zid]);
      if (n.queued >= c.jobsQueuedPerMachine) {
        throw new SvcError('RATE_LIMITED', `this machine has ${n.queued} jobs waiting, the most it may (SVC_JOBS_QUEUED_PER_MACHINE); submit again when one has started`, { details: { retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil(seconds / 10))) } });
      }
      const left = await tokensLeft(q, owner.zid, sealer.dailyTokens(), sealer.now());
      if (left - n.held < reserve) {
        throw new SvcError('QUOTA_EXCEEDED', `not enough compute tokens: a job reserves its whole budget (${seconds} s of worker time = ${reserve} tokens${runs ? ` for ${runs.length} runs` : ''}) at submission; ${left} left${n.held ? `, ${n.held} of them reserved by this machine's other jobs` : ''}. The allowance renews at 00:00 UTC`, {
          details: { tokens: { cost: reserve, remaining: Math.max(0, left - n.held) }, retryAfterSeconds: secondsToNextUtcMidnight(sealer.now()) },
        });
      }
      // round robin across machines: pg-boss takes the highest priority first, then the oldest;
      // a machine's k-th waiting job gets priority -k, so every machine's next job comes before
      // any machine's second (a flood waits behind everyone's first job)
      const priority = -n.open;
      const args = JSON.stringify(req.arguments ?? {});
      await q.query(
        `INSERT INTO jobs (id, zid, key_prefix, tool, arguments, budget_seconds, tokens_reserved, via, runs, swept)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [id, owner.zid, owner.keyPrefix, req.tool, args, seconds, reserve, req.via ?? 'rest', runs?.length ?? null, runs ? JSON.stringify({ sweep: req.sweep, zip: req.zip === true }) : null],
      );
      // the blobs its arguments name stay while it waits and runs (released by the TTL sweep once
      // the job has ended; a sealed run's receipt then holds them: src/ops/solvers.ts)
      const digests = blobDigestsOf(runs ? [base, ...runs] : [base]);
      if (digests.length) {
        await q.query(`INSERT INTO blob_refs (zid, digest, ref) SELECT zid, digest, $3 FROM blobs WHERE zid = $1 AND digest = ANY($2::text[]) ON CONFLICT DO NOTHING`,
          [owner.zid, digests, `job:${id}`]);
      }
      const boss = this.queue();
      if (!runs) {
        await boss.send(QUEUE, { jobId: id }, { priority, group: { id: owner.zid }, db: txAdapter(q) } as any);
        return;
      }
      const children = runs.map((v, i) => ({ id: `${id}_r${i}`, i, args: JSON.stringify({ ...base, ...v }), swept: JSON.stringify(v) }));
      await q.query(
        `INSERT INTO jobs (id, zid, key_prefix, tool, arguments, budget_seconds, tokens_reserved, via, parent_id, run_index, swept)
         SELECT r->>'id', $2, $3, $4, r->>'args', $5, $5, $6, $1, (r->>'i')::int, r->>'swept' FROM jsonb_array_elements($7::jsonb) AS r`,
        [id, owner.zid, owner.keyPrefix, req.tool, seconds, req.via ?? 'rest', JSON.stringify(children)],
      );
      await boss.insert(QUEUE, children.map((ch) => ({ data: { jobId: ch.id }, priority, group: { id: owner.zid, tier: SWEEP_TIER } })), { db: txAdapter(q) } as any);
    });
    this.emit({ phase: 'queued', runs: runs?.length ?? 1 });
    this.changed(id);
    return this.get(caller, id);
  }

  private queue(): PgBoss {
    if (!this.boss) throw new SvcError('UPSTREAM_UNAVAILABLE', 'the job queue is not running on this node');
    return this.boss;
  }

  private async row(caller: Caller, id: string): Promise<Row> {
    const owner = ownerOf(caller);
    if (typeof id !== 'string' || !/^job_[0-9A-Z]{26}(_r\d{1,5})?$/.test(id)) throw notFound();
    const [r] = await this.o.db.query<Row>('SELECT * FROM jobs WHERE id = $1 AND zid = $2', [id, owner.zid]);
    if (!r) throw notFound();
    return r;
  }

  async get(caller: Caller, id: string): Promise<JobView> {
    return viewOf(await this.row(caller, id));
  }

  async list(caller: Caller, q: JobListQuery): Promise<{ jobs: JobView[]; nextCursor: string | null }> {
    const owner = ownerOf(caller);
    const limit = Math.min(200, Math.max(1, q.limit ?? 50));
    let after: string | null = null;
    if (q.cursor) {
      after = Buffer.from(q.cursor, 'base64url').toString('utf8');
      if (!/^job_[0-9A-Z]{26}$/.test(after)) throw new SvcError('INVALID_INPUT', 'cursor: not a cursor this list gave', { issues: [{ path: 'cursor', message: 'unknown cursor' }] });
    }
    const params: unknown[] = [owner.zid];
    let where = 'zid = $1 AND parent_id IS NULL';
    if (q.status) { params.push(q.status); where += ` AND status = $${params.length}`; }
    if (after) { params.push(after); where += ` AND id < $${params.length}`; }
    params.push(limit + 1);
    const rows = await this.o.db.query<Row>(`SELECT * FROM jobs WHERE ${where} ORDER BY id DESC LIMIT $${params.length}`, params);
    const page = rows.slice(0, limit);
    return { jobs: page.map(viewOf), nextCursor: rows.length > limit ? Buffer.from(page[page.length - 1].id).toString('base64url') : null };
  }

  async cancel(caller: Caller, id: string): Promise<JobView> {
    const r = await this.row(caller, id);
    if (isTerminal(r.status)) return viewOf(r);
    const db = this.o.db;
    // a waiting job (or run) ends now, uncharged; a running one is told to stop, wherever it runs
    const ended = await db.query<{ id: string; parent_id: string | null }>(
      `UPDATE jobs SET status = 'cancelled', finished_at = now(), tokens_charged = 0, node = NULL
        WHERE (id = $1 OR parent_id = $1) AND status = 'queued' RETURNING id, parent_id`, [id]);
    const running = await db.query<{ id: string }>(`UPDATE jobs SET cancel_requested = true WHERE (id = $1 OR parent_id = $1) AND status = 'running' RETURNING id`, [id]);
    if (r.runs !== null) {
      // a sweep ends as cancelled at once; its running runs stop and are charged on their own
      await db.query(`UPDATE jobs SET status = 'cancelled', finished_at = now(), node = NULL, tokens_charged = (SELECT coalesce(sum(tokens_charged), 0) FROM jobs WHERE parent_id = $1) WHERE id = $1 AND status IN ('queued', 'running')`, [id]);
    }
    for (const x of running) await db.notify(JOBS_CHANNEL, `cancel:${x.id}`);
    if (ended.some((x) => x.parent_id)) await db.query('UPDATE jobs SET runs_done = runs_done + $2 WHERE id = $1', [ended[0].parent_id, ended.filter((x) => x.parent_id).length]);
    this.changed(id);
    // the stop reaches the running node within a second: answer with the job as it then is
    return running.length && r.runs === null ? this.wait(caller, id, 1500) : this.get(caller, id);
  }

  async watch(caller: Caller, id: string, onChange: (job: JobView) => void): Promise<() => void> {
    let last = await this.get(caller, id);
    onChange(last);
    if (isTerminal(last.status)) return () => {};
    let stopped = false, reading = false, again = false;
    const read = async () => {
      if (stopped) return;
      if (reading) { again = true; return; }
      reading = true;
      try {
        do {
          again = false;
          const now = await this.get(caller, id).catch(() => null);
          if (!now || stopped) break;
          if (JSON.stringify(now) !== JSON.stringify(last)) { last = now; onChange(now); }
          if (isTerminal(now.status)) { stop(); break; }
        } while (again);
      } finally { reading = false; }
    };
    let set = this.watchers.get(id);
    if (!set) this.watchers.set(id, (set = new Set()));
    const fire = () => { void read(); };
    set.add(fire);
    const timer = setInterval(fire, WATCH_POLL_MS);
    timer.unref();
    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      set!.delete(fire);
      if (!set!.size) this.watchers.delete(id);
    };
    return stop;
  }

  async wait(caller: Caller, id: string, ms: number): Promise<JobView> {
    let last!: JobView;
    let done!: () => void;
    const finished = new Promise<void>((r) => { done = r; });
    const stop = await this.watch(caller, id, (j) => { last = j; if (isTerminal(j.status)) done(); });
    const timer = setTimeout(done, Math.max(0, ms));
    await finished;
    clearTimeout(timer);
    stop();
    return last;
  }

  // --- the worker's side ------------------------------------------------------------------------

  private async handle(id: string): Promise<void> {
    const db = this.o.db;
    if (this.draining) throw new JobHandback();
    const [r] = await db.query<Row>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()), node = $2
        WHERE id = $1 AND status IN ('queued', 'running') AND NOT cancel_requested RETURNING *`, [id, this.o.nodeId]);
    if (!r) {
      // cancelled while it waited, or while a node that died ran it: it ends here, uncharged
      const [gone] = await db.query<{ parent_id: string | null }>(`UPDATE jobs SET status = 'cancelled', finished_at = now(), tokens_charged = coalesce(tokens_charged, 0), node = NULL WHERE id = $1 AND status = 'running' RETURNING parent_id`, [id]);
      if (gone) { this.changed(id); if (gone.parent_id) await this.runEnded(gone.parent_id); }
      return;
    }
    if (r.parent_id) await db.query(`UPDATE jobs SET status = 'running', started_at = coalesce(started_at, now()), attempts = 1 WHERE id = $1 AND status = 'queued'`, [r.parent_id]);
    this.changed(id);
    const t0 = Date.now();
    this.emit({ phase: 'started', waitSeconds: (t0 - new Date(r.created_at).getTime()) / 1000, attempt: r.attempts });
    const run: LocalRun = { ctl: new AbortController(), reason: null, progress: null, dirty: false };
    this.local.set(id, run);
    const flush = async () => {
      const p = run.dirty ? JSON.stringify(run.progress) : null;
      run.dirty = false;
      const [x] = await db.query<{ cancel_requested: boolean }>('UPDATE jobs SET progress = coalesce($2, progress) WHERE id = $1 RETURNING cancel_requested', [id, p]);
      if (p !== null) this.changed(id);
      if (x?.cancel_requested && !run.reason) { run.reason = 'cancel'; run.ctl.abort(new Error('cancelled')); }
    };
    let flushing = false;
    const ticker = setInterval(() => {
      if (flushing) return;
      flushing = true;
      flush().catch(() => {}).finally(() => { flushing = false; });
    }, FLUSH_MS);
    let out: JobOutcome;
    try {
      out = await runAsJob({
        jobId: id,
        timeoutMs: r.budget_seconds * 1000,
        progress: (fraction, message) => { run.progress = { fraction: Math.min(1, Math.max(0, fraction)), ...(message ? { message } : {}) }; run.dirty = true; },
      }, () => this.o.face.execute({ zid: r.zid, keyPrefix: r.key_prefix }, r.tool, JSON.parse(r.arguments), { signal: run.ctl.signal, jobId: id }));
    } finally {
      clearInterval(ticker);
      this.local.delete(id);
    }
    const runSeconds = (Date.now() - t0) / 1000;
    if (run.reason === 'handback') {
      // the node is draining: the job goes back to the queue (pg-boss retries it elsewhere)
      await db.query(`UPDATE jobs SET status = 'queued', node = NULL WHERE id = $1 AND status = 'running'`, [id]);
      this.changed(id);
      this.emit({ phase: 'ended', status: 'handed-back', runSeconds });
      throw new JobHandback();
    }
    const charged = Number((out.body.tokens as { cost?: number } | undefined)?.cost ?? 0);
    let status: JobStatus = 'succeeded';
    if (out.status !== 200) {
      status = run.reason === 'cancel' ? 'cancelled' : 'failed';
      const [ended] = await db.query<{ parent_id: string | null }>(
        `UPDATE jobs SET status = $2, response_status = $3, response = $4, tokens_charged = $5, finished_at = now()
          WHERE id = $1 AND status = 'running' RETURNING parent_id`, [id, status, out.status, JSON.stringify(out.body), charged]);
      if (ended?.parent_id) await db.query('UPDATE jobs SET runs_done = runs_done + 1 WHERE id = $1', [ended.parent_id]);
    }
    this.changed(id);
    this.emit({ phase: 'ended', status, runSeconds });
    if (r.parent_id) await this.runEnded(r.parent_id);
  }

  /** A run of sweep `parentId` ended: the last one seals the sweep. */
  private async runEnded(parentId: string): Promise<void> {
    const db = this.o.db;
    this.changed(parentId);
    const [p] = await db.query<Row>('SELECT * FROM jobs WHERE id = $1', [parentId]);
    if (!p || isTerminal(p.status) || p.runs_done < (p.runs ?? 0)) return;
    const runs = await db.query<{ run_index: number; swept: string; status: JobStatus; response: string | null; receipt_id: string | null; tokens_charged: number | null }>(
      'SELECT run_index, swept, status, response, receipt_id, tokens_charged FROM jobs WHERE parent_id = $1 ORDER BY run_index', [parentId]);
    const table: Record<string, unknown>[] = [];
    const digests: string[] = [];
    for (const x of runs) {
      const body = x.response ? JSON.parse(x.response) as Record<string, any> : null;
      const row: Record<string, unknown> = { run: x.run_index, values: JSON.parse(x.swept), status: x.status };
      if (x.status === 'succeeded' && body) {
        row.value = body.value;
        row.errorPct = body.precision?.errorPct ?? null;
        row.receipt = x.receipt_id;
        row.digest = body.receipt?.digest;
        row.leaf = digests.length;
        digests.push(body.receipt?.digest);
      } else if (body) { row.code = body.code; row.error = body.error; }
      table.push(row);
    }
    const spec = JSON.parse(p.swept ?? '{}');
    const root = sweepRoot(digests);
    try {
      await this.o.sealer.seal({
        zid: p.zid, keyPrefix: p.key_prefix, solver: 'sweep', domain: 'sweep', method: 'rfc6962-merkle-root',
        operators: ['KO42'], version: 2, value: digests.length, unit: 'runs',
        body: { result: {
          tool: p.tool, arguments: JSON.parse(p.arguments), sweep: spec.sweep, zip: spec.zip, runs: runs.length, sealedRuns: digests.length,
          merkleRoot: root.toString('hex'), leaves: digests.length,
          hashing: 'RFC 6962 §2.1: leaf i = SHA-256(0x00 || receipt.digest of the i-th sealed run, 32 bytes), node = SHA-256(0x01 || left || right)',
          table,
        } },
        cost: 1, jobId: parentId,
      });
    } catch (e) {
      const err = e instanceof SvcError ? e : new SvcError('INTERNAL', 'internal error');
      if (err.code !== 'NOT_FOUND') await db.query(`UPDATE jobs SET status = 'failed', response_status = $2, response = $3, finished_at = now() WHERE id = $1 AND status IN ('queued', 'running')`, [parentId, err.status, JSON.stringify(err.toBody())]);
    }
    this.changed(parentId);
  }

  /** Jobs queued and running in the whole cluster (metrics). */
  async counts(): Promise<{ queued: number; running: number }> {
    const rows = await this.o.db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running') GROUP BY status`);
    const get = (s: string) => rows.find((x) => x.status === s)?.n ?? 0;
    return { queued: get('queued'), running: get('running') };
  }

  /** A draining node takes no more jobs and hands its running ones back (each stops at once and
   * is queued again, uncharged, for any node to take from the start). */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    if (this.sweepCheck) clearInterval(this.sweepCheck);
    for (const run of this.local.values()) if (!run.reason) { run.reason = 'handback'; run.ctl.abort(new JobHandback()); }
    await Promise.allSettled([...this.handlers]);
    if (this.boss) await this.boss.stop({ graceful: true, close: false, timeout: 5000 } as any).catch(() => {});
    this.boss = null;
  }

  async close(): Promise<void> {
    await this.drain();
    if (this.unlisten) await this.unlisten();
    this.unlisten = null;
  }
}

function ownerOf(caller: Caller): JobOwner {
  if (!caller?.zid || (caller.kind !== 'machine' && caller.kind !== 'oauth')) throw new SvcError('FORBIDDEN', 'jobs belong to a machine: call with a machine key');
  return { zid: caller.zid, keyPrefix: caller.keyPrefix };
}

/** the same answer for a job that does not exist and another machine's (which it never names) */
function notFound(): SvcError {
  return new SvcError('NOT_FOUND', 'no such job of this machine');
}

/** a refusal of one run of a sweep, naming the run */
function atRun(e: unknown, i: number, values: Record<string, unknown>): unknown {
  if (!(e instanceof SvcError)) return e;
  return new SvcError(e.code, `sweep run ${i} (${JSON.stringify(values).slice(0, 200)}): ${e.message}`, { issues: e.issues, details: e.details });
}

function viewOf(r: Row): JobView {
  const v: JobView = {
    id: r.id,
    tool: r.tool,
    status: r.status,
    progress: r.runs !== null
      ? { fraction: r.runs ? r.runs_done / r.runs : 1, message: `${r.runs_done} of ${r.runs} runs` }
      : r.progress ? JSON.parse(r.progress) : null,
    createdAt: iso(r.created_at)!,
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    attempts: r.attempts,
    budget: { seconds: r.budget_seconds },
    tokens: { reserved: r.tokens_reserved, charged: isTerminal(r.status) ? (r.tokens_charged ?? 0) : null },
  };
  if (r.parent_id) v.parentId = r.parent_id;
  if (r.runs !== null) v.runs = r.runs;
  if (r.response !== null && r.response_status !== null) v.response = { status: r.response_status, body: JSON.parse(r.response) };
  return v;
}

/** The blobs (as stored: 64 hex) that the top-level fields of these argument objects name as
 * `{"blob": "sha256:…"}`. */
function blobDigestsOf(argss: unknown[]): string[] {
  const out = new Set<string>();
  for (const a of argss) {
    if (!a || typeof a !== 'object' || Array.isArray(a)) continue;
    for (const v of Object.values(a as Record<string, unknown>)) {
      const b = v && typeof v === 'object' && !Array.isArray(v) ? (v as { blob?: unknown }).blob : undefined;
      if (typeof b === 'string' && /^sha256:[0-9a-f]{64}$/.test(b)) out.add(b.slice(7));
    }
  }
  return [...out];
}
