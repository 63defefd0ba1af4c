// The seal queue (DESIGN §5, §7, §8): `Sealer.seal(job)` queues jobs and commits them in groups
// (group commit): each flush hands every waiting job to the store procedure 'seal'
// (src/services/seal-batch.ts), which charges, proves, signs and chains them in one transaction.
// `sealInTx` does the same for one job inside a transaction the caller already holds (contract
// fires: state change, receipt and chain entry commit together). `assertTokens` is the one early
// token check of every operation.
import type { KeyObject } from 'node:crypto';
import { quotaExceeded } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import { deriveProofKey } from '../core/seal.ts';
import type { Db, Queryable } from '../store/db.ts';
import { chargeTokens, type ChargeReason } from './charge.ts';
import type { LogSigner } from './tlog.ts';
import { currentJob } from './job-context.ts';
import { sealWithin, tokensLeft, utcDay, validateJob, type ReceiptSigner, type SealEnv, type SealJob, type SealedResponse } from './seal-batch.ts';

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
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, 512);
      try {
        // the batch is computed here (canonical JSON, digests, signatures in libuv's pool) and
        // written with a few multi-row statements; the store's thread only runs PostgreSQL
        const env = this.env();
        const jobs = batch.map((b) => b.job);
        const outcomes = await this.db.tx((q) => sealWithin(q, env, jobs));
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
        for (const b of batch) b.reject(e);
      }
    }
    this.flushing = false;
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
    const [o] = await sealWithin(q, this.env(), [job]);
    if (o instanceof Error) throw o;
    return o;
  }

  /** Charges a machine for work that produced no receipt (a solver run stopped by its budget or
   * cancelled after it started): at most `cost` tokens, never below zero (src/services/charge.ts). */
  async charge(zid: string, cost: number, reason?: ChargeReason): Promise<{ cost: number; remaining: number; chain?: { seq: number; hash: string } }> {
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

  /** The batch environment; `portable` gives the keys as PKCS#8 bytes (what crosses to the
   * embedded store's thread with each batch, cheaper to clone than KeyObjects). */
  private env(portable = false): SealEnv {
    const signer = this.signer && portable ? { kid: this.signer.kid, privateKey: this.pkcs8(this.signer.privateKey) } : this.signer;
    const log = this.logSigner && portable ? { ...this.logSigner, privateKey: this.pkcs8(this.logSigner.privateKey) } : this.logSigner;
    return { tNow: this.now(), tokensPerDay: this.tokensPerDay, proofKey: this.proofKey, signer, log, issuer: this.issuer, jwksUri: this.jwksUri };
  }

  private der = new WeakMap<object, Uint8Array>();
  private pkcs8(k: KeyObject | Uint8Array): Uint8Array {
    if (k instanceof Uint8Array) return k;
    let d = this.der.get(k);
    if (!d) this.der.set(k, (d = k.export({ format: 'der', type: 'pkcs8' }) as Buffer));
    return d;
  }

  now(): number { return this.clock.now(); }
  dailyTokens(): number { return this.tokensPerDay; }
}

