// The seal queue (DESIGN §5, §7, §8): `Sealer.seal(job)` queues jobs and commits them in groups
// (group commit): each flush hands every waiting job to src/services/seal-batch.ts, which charges,
// proves, signs and chains them in one transaction.
// `sealInTx` does the same for one job inside a transaction the caller already holds (contract
// fires: state change, receipt and chain entry commit together). `assertTokens` is the one early
// token check of every operation.
import { quotaExceeded } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import { deriveProofKey } from '../core/seal.ts';
import type { Db, Queryable } from '../store/db.ts';
import { chargeTokens, type ChargeReason } from './charge.ts';
import type { LogSigner } from './tlog.ts';
import { currentJob } from './job-context.ts';
import { SealSnapshot, sealLocked, sealOptimistic, sealWithin, tokensLeft, utcDay, validateJob, type ReceiptSigner, type SealEnv, type SealJob, type SealedResponse } from './seal-batch.ts';

/** Seal batches under way at once: one written by the store while the next is composed and signed
 * on the event loop (src/services/seal-batch.ts sealOptimistic composes the second from the rows
 * the first will leave; if the first fails, the second's check fails and it is sealed under locks). */
const MAX_IN_FLIGHT = 2;
/** `SVC_SEAL_OPTIMISTIC=0` seals every batch under the locks (the path before issue 28's; for
 * comparison in benchmarks) */
const OPTIMISTIC = process.env.SVC_SEAL_OPTIMISTIC !== '0';

/** An async mutex: `enter` resolves, in call order, to the function that lets the next one in. */
class Gate {
  private tail: Promise<void> = Promise.resolve();
  enter(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => { release = r; });
    const prev = this.tail;
    this.tail = prev.then(() => next);
    return prev.then(() => release);
  }
}

export class Sealer {
  readonly proofKey: Buffer;
  private queue: { job: SealJob; resolve: (r: SealedResponse) => void; reject: (e: unknown) => void }[] = [];
  private flushing = false;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly tokensPerDay: number;
  /** tokens left per machine as of this node's last seal (never below the truth within a day:
   * tokens only fall), used to refuse early without a query; the seal transaction decides */
  private hints = new Map<string, { day: string; left: number }>();
  /** the rows the last seals left (machines, the log's state): a batch is composed from them before
   * its transaction, which checks them (src/services/seal-batch.ts sealOptimistic) */
  private snapshot = new SealSnapshot();
  /** signs every receipt (v3) when set; the app sets it at start-up */
  signer: ReceiptSigner | null = null;
  /** signs the log's checkpoints (one per batch); the app sets it at start-up */
  logSigner: LogSigner | null = null;
  /** the issuer and jwks_uri every receipt names */
  issuer = '';
  jwksUri = '';
  /** hooks run after a commit with the new checkpoint (witness submission) */
  onCheckpoint: ((size: number) => void)[] = [];
  /** hooks run after a commit with the sealed responses (observer fan-out) */
  onSealed: ((zid: string, response: SealedResponse) => void)[] = [];

  constructor(opts: { db: Db; clock: Clock; masterSecret: Buffer; tokensPerDay: number }) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.tokensPerDay = opts.tokensPerDay;
    this.proofKey = deriveProofKey(opts.masterSecret);
  }

  seal(job: SealJob): Promise<SealedResponse> {
    validateJob(job);
    // a job's seal carries its id: sealed once, in the transaction that marks the job succeeded
    const running = currentJob();
    if (running && job.jobId === undefined) job = { ...job, jobId: running.jobId };
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.schedule();
    });
  }

  /** jobs sealed by the optimistic path and under the locks (docs/node.md "The seal path") */
  readonly stats = { optimistic: 0, locked: 0 };
  /** batches under way (at most MAX_IN_FLIGHT) */
  private inFlight = 0;
  private scheduled = false;
  /** one batch at a time composes (or seals under locks): the next is composed from the rows the
   * previous one will leave */
  private gate = new Gate();
  /** the optimistic writes with the store (each settles when the store answers it) */
  private writing = new Set<Promise<void>>();

  /** Starts another batch on the next turn of the event loop when fewer than MAX_IN_FLIGHT are
   * under way: while one batch is written by the store, the next is composed and signed here. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || !this.queue.length) return;
    this.scheduled = true;
    this.flushing = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight++;
    let release: (() => void) | null = await this.gate.enter();
    let mine: Promise<void> | null = null;
    const others = () => Promise.all([...this.writing].filter((p) => p !== mine)).then(() => {});
    const batch = this.queue.splice(0, 512);
    try {
      if (!batch.length) return;
      const env = this.env();
      const jobs = batch.map((b) => b.job);
      // composed and signed before the transaction from the rows this node last wrote, and
      // written with one exchange; when those rows changed meanwhile, sealed under the locks
      let outcomes = !OPTIMISTIC ? null : await sealOptimistic(this.db, this.snapshot, env, jobs, {
        settle: others,
        composed: (written) => {
          const w: Promise<void> = written.then(() => {}, () => {}).finally(() => this.writing.delete(w));
          this.writing.add((mine = w));
          release?.();
          release = null;
          this.schedule();
        },
      });
      if (outcomes) this.stats.optimistic += batch.length;
      if (!outcomes) {
        this.stats.locked += batch.length;
        // alone: no other batch of this node is written meanwhile, so the rows it reads under
        // the locks and writes are what the snapshot learns
        if (!release) release = await this.gate.enter();
        await others();
        const locked = await this.db.tx((q) => sealLocked(q, env, jobs));
        this.snapshot.learn(locked.after);
        outcomes = locked.outcomes;
      }
      const day = utcDay(this.clock.now());
      outcomes.forEach((o, i) => {
        const tokens = o instanceof Error ? (o.details?.tokens as any) : (o as any).tokens;
        if (tokens && typeof tokens.remaining === 'number') this.hints.set(batch[i].job.zid, { day, left: tokens.remaining });
      });
      if (this.hints.size > 100_000) this.hints.clear();
      let size = -1;
      outcomes.forEach((o, i) => {
        if (o instanceof Error) batch[i].reject(o);
        else {
          batch[i].resolve(o);
          this.announce(batch[i].job.zid, o);
          size = Math.max(size, o.receipt.log?.treeSize ?? -1);
        }
      });
      if (size >= 0) this.announceCheckpoint(size);
    } catch (e) {
      this.snapshot.forget();
      for (const b of batch) b.reject(e);
    } finally {
      release?.();
      this.inFlight--;
      if (!this.inFlight && !this.queue.length && !this.scheduled) this.flushing = false;
      this.schedule();
    }
  }

  /** Runs the onSealed hooks for a committed seal. The group-commit path calls it itself; a caller
   * of `sealInTx` calls it once its own transaction has committed. */
  announce(zid: string, response: SealedResponse): void {
    for (const h of this.onSealed) { try { h(zid, response); } catch { /* observers never break a seal */ } }
    if (this.onCheckpoint.length && response.receipt.log && this.flushing === false) this.announceCheckpoint(response.receipt.log.treeSize);
  }

  /** Tells the checkpoint listeners (witness submission) that the log grew to `size`. */
  announceCheckpoint(size: number): void {
    for (const h of this.onCheckpoint) { try { h(size); } catch { /* never breaks a seal */ } }
  }

  /** Seals one job inside a transaction the caller holds (then `announce` it after commit).
   * Throws QUOTA_EXCEEDED if short. */
  async sealInTx(q: Queryable, job: SealJob): Promise<SealedResponse> {
    validateJob(job);
    this.snapshot.forget([job.zid]);
    const [o] = await sealWithin(q, this.env(), [job]);
    if (o instanceof Error) throw o;
    return o;
  }

  /** Charges a machine for work that produced no receipt (a solver run stopped by its budget or
   * cancelled after it started): at most `cost` tokens, never below zero (src/services/charge.ts). */
  async charge(zid: string, cost: number, reason?: ChargeReason): Promise<{ cost: number; remaining: number; chain?: { seq: number; hash: string } }> {
    this.snapshot.forget([zid], false);
    const out = await this.db.tx((q) => chargeTokens(q, zid, cost, this.tokensPerDay, this.clock.now(), reason));
    this.hints.set(zid, { day: utcDay(this.clock.now()), left: out.remaining });
    return out;
  }

  /** Tokens the machine has left today; refuses with 429 QUOTA_EXCEEDED (Retry-After: the next
   * 00:00 UTC) when fewer than `cost` remain. The seal transaction decides in the end: this only
   * refuses early what surely cannot be paid (tokens only fall within a day). */
  async assertTokens(zid: string, cost: number): Promise<number> {
    const left = await this.tokensLeft(zid);
    if (left < cost) throw quotaExceeded(left, cost, this.clock.now());
    return left;
  }

  /** Tokens the machine has left today: this node's hint, else the store's figure. */
  async tokensLeft(zid: string): Promise<number> {
    return this.tokensHint(zid) ?? tokensLeft(this.db, zid, this.tokensPerDay, this.clock.now());
  }

  /** tokens left today if this node knows (an upper bound), else null */
  tokensHint(zid: string): number | null {
    const h = this.hints.get(zid);
    if (!h || h.day !== utcDay(this.clock.now())) return null;
    return h.left;
  }

  /** The batch environment. */
  private env(): SealEnv {
    return { tNow: this.now(), tokensPerDay: this.tokensPerDay, proofKey: this.proofKey, signer: this.signer, log: this.logSigner, issuer: this.issuer, jwksUri: this.jwksUri };
  }

  now(): number { return this.clock.now(); }
  dailyTokens(): number { return this.tokensPerDay; }
}

