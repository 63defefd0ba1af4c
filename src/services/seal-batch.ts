// The seal batch (DESIGN §5, §7, §8): charge tokens → pulse → proof → receipt → chain for a batch
// of jobs, in the one transaction the caller holds. It locks the machines involved (in zid order,
// no deadlocks), charges each job in arrival order until a machine's tokens run out (the rest are
// refused with QUOTA_EXCEEDED and nothing is written for them), then writes receipts and chain
// entries with one statement. It is the store procedure 'seal': on the embedded store it runs in
// the store's own thread (src/store/pglite-thread.ts), so it takes and returns plain data. The
// queue that groups jobs into batches is src/services/sealer.ts.
import { SvcError, quotaExceeded } from '../core/errors.ts';
import { pulseAt } from '../core/clock.ts';
import { computeProof } from '../core/seal.ts';
import { sha256Hex, ulid } from '../core/ids.ts';
import type { Queryable } from '../store/db.ts';
import { buildEntries, payloadHash } from './chain.ts';
import { canonicalJson } from '../core/canonical.ts';
import { sign as ed25519Sign, type KeyObject } from 'node:crypto';

/** The Ed25519 key that signs v3 receipts (DESIGN §7: RFC 8785 canonical JSON of the receipt). */
export interface ReceiptSigner { kid: string; privateKey: KeyObject }

/** Signs a sealed response: an Ed25519 signature over the canonical JSON of everything but
 * `signature` itself. Verify offline with the node's JWKS (see src/services/receipt.ts). */
export function signReceipt(signer: ReceiptSigner, response: Record<string, unknown>): { v: 3; alg: 'EdDSA'; kid: string; sig: string } {
  const { signature: _ignored, ...unsigned } = response;
  const sig = ed25519Sign(null, Buffer.from(canonicalJson(unsigned)), signer.privateKey).toString('base64url');
  return { v: 3, alg: 'EdDSA', kid: signer.kid, sig };
}

export interface SealJob {
  zid: string;
  keyPrefix: string;
  solver: string;
  domain: string;
  method: string;
  /** operator ids of the chain, KO42 first */
  operators: string[];
  /** sum of operator weights S (1 when normalised) */
  S?: number;
  version: 1 | 2;
  /** physics value (v2 signs it with the unit) */
  value?: number | null;
  unit?: string;
  /** extra response fields, in order: result, series, precision, stability, clamped, seed, … */
  body?: Record<string, unknown>;
  /** large certificates kept beside the receipt, not in it (name → text; the body seals their digest) */
  attachments?: Record<string, string>;
  folder?: string;
  cost: number;
  /** chain entry kind (default 'seal') */
  kind?: string;
  /** fixed instant (lattice nodes share one; stream ticks use their own) */
  t?: number;
  phaseOffset?: number;
}

export type SealedResponse = Record<string, unknown> & {
  ok: true;
  svcProof: string;
  receipt: { id: string; version: number; issuedAt: string; folder: string; chain: { seq: number; hash: string } };
};

export const DEFAULT_FOLDER = 'default';

export function utcDay(tSeconds: number): string {
  return new Date(tSeconds * 1000).toISOString().slice(0, 10);
}

export function validateJob(job: SealJob): void {
  if (job.version === 2 && (typeof job.value !== 'number' || !Number.isFinite(job.value))) {
    throw new SvcError('UNSTABLE', 'a non-finite value is never sealed', { details: { value: null } });
  }
}


/** What sealing a batch needs besides the store: the instant, the allowance and the keys. It
 * crosses to the embedded store's thread with the jobs (the store procedure 'seal', registered by src/app.ts). */
export interface SealEnv { tNow: number; tokensPerDay: number; proofKey: Buffer; signer: ReceiptSigner | null }

/** A batch outcome as data (it crosses threads): the sealed response, or the refusal. */
export type SealOutcome = { ok: true; response: SealedResponse } | { ok: false; error: { code: SvcError['code']; message: string; details?: Record<string, unknown> } };

/** Seals a batch in the transaction `q` holds (the store procedure 'seal'). */
export async function sealBatch(q: Queryable, args: { env: SealEnv; jobs: SealJob[] }): Promise<SealOutcome[]> {
  return (await sealWithin(q, args.env, args.jobs)).map((o) => (o instanceof SvcError
    ? { ok: false as const, error: { code: o.code, message: o.message, details: o.details } }
    : { ok: true as const, response: o }));
}

export function fromOutcome(o: SealOutcome): SealedResponse | SvcError {
  return o.ok ? o.response : new SvcError(o.error.code, o.error.message, { details: o.error.details });
}

export async function sealWithin(q: Queryable, env: SealEnv, jobs: SealJob[]): Promise<(SealedResponse | SvcError)[]> {
  const tNow = env.tNow;
  const today = utcDay(tNow);
  const zids = [...new Set(jobs.map((j) => j.zid))].sort();
  const rows = await q.query<{ zid: string; tokens_day: string; tokens_left: number; chain_seq: number; chain_head: string }>(
    'SELECT zid, tokens_day, tokens_left, chain_seq, chain_head FROM machines WHERE zid = ANY($1::text[]) ORDER BY zid FOR UPDATE',
    [zids],
  );
  const state = new Map(rows.map((r) => [r.zid, {
    left: r.tokens_day === today ? Number(r.tokens_left) : env.tokensPerDay,
    seq: Number(r.chain_seq),
    head: r.chain_head,
    entries: [] as ReturnType<typeof buildEntries>,
  }]));
  const issuedAt = new Date(tNow * 1000).toISOString();
  const outcomes: (SealedResponse | SvcError)[] = [];
  const receiptRows: unknown[][] = [];
  const attachmentRows: unknown[][] = [];
  for (const job of jobs) {
    const m = state.get(job.zid);
    if (!m) { outcomes.push(new SvcError('UNAUTHORIZED', 'the machine of this key no longer exists')); continue; }
    if (m.left < job.cost) { outcomes.push(quotaExceeded(m.left, job.cost, tNow)); continue; }
    m.left -= job.cost;
    const t = job.t ?? tNow;
    const pulse = pulseAt(t, job.S ?? 1, job.phaseOffset ?? 0);
    const proofFields = {
      operatorIds: job.operators, R_t: pulse.R_t, svcond: pulse.svcond, keyPrefix: job.keyPrefix,
      ...(job.version === 2 ? { value: job.value as number, unit: job.unit ?? '' } : {}),
    };
    const svcProof = computeProof(env.proofKey, proofFields);
    const id = 'rcpt_' + ulid(Math.floor(tNow * 1000));
    const folder = job.folder ?? DEFAULT_FOLDER;
    const unsigned: Record<string, unknown> = {
      ok: true,
      solver: job.solver,
      domain: job.domain,
      method: job.method,
      value: job.value ?? null,
      unit: job.unit ?? null,
      ...(job.body ?? {}),
      svcState: { masterSum: pulse.R_t, operators: job.operators, svcond: pulse.svcond },
      phase: pulse.phase,
      t,
      svcProof,
      keyPrefix: job.keyPrefix,
    };
    const [entry] = buildEntries(job.zid, m.seq, m.head, [{ kind: job.kind ?? 'seal', ref: id, payloadHash: payloadHash(unsigned), at: issuedAt }]);
    m.seq = entry.seq;
    m.head = entry.hash;
    m.entries.push(entry);
    const response = {
      ...unsigned,
      receipt: { id, version: job.version, issuedAt, folder, chain: { seq: entry.seq, hash: entry.hash } },
      tokens: { cost: job.cost, remaining: m.left },
    } as unknown as SealedResponse;
    if (env.signer) (response as Record<string, unknown>).signature = signReceipt(env.signer, response);
    receiptRows.push([id, job.zid, folder, job.solver, job.version, svcProof, JSON.stringify(response), entry.seq]);
    for (const [name, text] of Object.entries(job.attachments ?? {})) attachmentRows.push([id, name, sha256Hex(text), Buffer.byteLength(text), text]);
    outcomes.push(response);
  }
  if (receiptRows.length) await writeSeals(q, today, state, receiptRows);
  for (const row of attachmentRows) {
    await q.query('INSERT INTO receipt_attachments (receipt_id, name, sha256, bytes, body) VALUES ($1, $2, $3, $4, $5)', row);
  }
  return outcomes;
}

/** Writes a batch's chain entries, machine updates and receipts in one statement (data-modifying
 * CTEs): one round trip to the store per batch instead of one per table and machine. */
async function writeSeals(q: Queryable, today: string, state: Map<string, { left: number; seq: number; head: string; entries: ReturnType<typeof buildEntries> }>, receiptRows: unknown[][]): Promise<void> {
  const params: unknown[] = [];
  const p = (v: unknown, cast = '') => { params.push(v); return `$${params.length}${cast}`; };
  const entryValues: string[] = [];
  const machineValues: string[] = [];
  for (const [zid, m] of state) {
    if (!m.entries.length) continue;
    for (const e of m.entries) entryValues.push(`(${p(e.zid)},${p(e.seq)},${p(e.kind)},${p(e.ref)},${p(e.at)},${p(e.payloadHash)},${p(e.prevHash)},${p(e.hash)})`);
    machineValues.push(`(${p(zid, '::text')},${p(today, '::text')},${p(m.left, '::integer')},${p(m.seq, '::bigint')},${p(m.head, '::text')})`);
  }
  const receiptValues = receiptRows.map((r) => `(${r.map((v) => p(v)).join(',')})`);
  await q.query(
    `WITH e AS (INSERT INTO chain_entries (zid, seq, kind, ref, at, payload_hash, prev_hash, hash) VALUES ${entryValues.join(',')}),
     m AS (UPDATE machines AS x SET tokens_day = v.d, tokens_left = v.l, chain_seq = v.s, chain_head = v.h
           FROM (VALUES ${machineValues.join(',')}) AS v(z, d, l, s, h) WHERE x.zid = v.z)
     INSERT INTO receipts (id, zid, folder, solver, version, proof, body, chain_seq) VALUES ${receiptValues.join(',')}`,
    params,
  );
}

/** Remaining tokens of a machine today (without charging). */
export async function tokensLeft(q: Queryable, zid: string, tokensPerDay: number, tNow: number): Promise<number> {
  const rows = await q.query<{ tokens_day: string; tokens_left: number }>('SELECT tokens_day, tokens_left FROM machines WHERE zid = $1', [zid]);
  if (!rows.length) return 0;
  return rows[0].tokens_day === utcDay(tNow) ? Number(rows[0].tokens_left) : tokensPerDay;
}

/** The store procedure's entry point (src/store/db.ts imports a procedure module by URL). */
export { sealBatch as procedure };
