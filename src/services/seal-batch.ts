// The seal batch (DESIGN §5, §7, §8): charge tokens → pulse → proof → receipt → chain for a batch
// of jobs. It locks the machines involved (in zid order, no deadlocks), charges each job in arrival
// order until a machine's tokens run out (the rest are refused with QUOTA_EXCEEDED and nothing is
// written for them), then writes receipts, chain entries and log leaves with one statement: under
// the locks in the caller's transaction (`sealLocked`), or composed beforehand from the rows the
// node last wrote and written by one checked exchange with the store (`sealOptimistic`). The queue
// that groups jobs into batches is src/services/sealer.ts.
import { SvcError, quotaExceeded } from '../core/errors.ts';
import { pulseAt } from '../core/clock.ts';
import { computeProof } from '../core/seal.ts';
import { sha256Hex, ulid } from '../core/ids.ts';
import type { Db, Queryable, Statement } from '../store/db.ts';
import { buildEntries } from './chain.ts';
import { canonicalJson } from '../core/canonical.ts';
import { createHash, createPrivateKey, sign as ed25519Sign, type KeyObject } from 'node:crypto';
import { appendTo, lockLogState, readLogState, writeLogParts, type LogAppend, type LogSigner, type LogStateRow } from './tlog.ts';

/** The Ed25519 key that signs v3 receipts (DESIGN §7: RFC 8785 canonical JSON of the receipt). */
export interface ReceiptSigner { kid: string; privateKey: KeyObject | Uint8Array }

/** A private key as a KeyObject: as given, or (PKCS#8 DER bytes: what crosses to the embedded
 * store's thread with each batch, cheaper to clone than a KeyObject) made once per key and kept. */
const keyObjects = new Map<string, KeyObject>();
export function privateKeyOf(id: string, k: KeyObject | Uint8Array): KeyObject {
  if (!(k instanceof Uint8Array)) return k;
  let o = keyObjects.get(id);
  if (!o) {
    if (keyObjects.size > 64) keyObjects.clear();
    keyObjects.set(id, (o = createPrivateKey({ key: Buffer.from(k), format: 'der', type: 'pkcs8' })));
  }
  return o;
}

/** Signs a sealed response: an Ed25519 signature over the canonical JSON of everything but
 * `signature` itself. Verify offline with the node's JWKS (see src/services/receipt.ts). */
export function signReceipt(signer: ReceiptSigner, response: Record<string, unknown>): { v: 3; alg: 'EdDSA'; kid: string; sig: string } {
  const { signature: _ignored, ...unsigned } = response;
  const sig = ed25519Sign(null, Buffer.from(canonicalJson(unsigned)), privateKeyOf(signer.kid, signer.privateKey)).toString('base64url');
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
  /** the job this seal finishes (docs/jobs.md): the job is marked succeeded with this response in
   * the same transaction; a job already sealed is not sealed again, its stored response is returned */
  jobId?: string;
}

export type SealedResponse = Record<string, unknown> & {
  ok: true;
  svcProof: string;
  receipt: {
    id: string; version: number; issuedAt: string; folder: string; chain: { seq: number; hash: string };
    /** the node's base URL and its JWKS (the keys that verify checkpoints, attestations, v3 signatures) */
    issuer?: string; jwks_uri?: string;
    /** hex SHA-256 of the canonical sealed body: the receipt's log entry (src/core/tlog.ts receiptDigest) */
    digest?: string;
    /** the receipt's place in the deployment's log, proved against a checkpoint signed in the same batch */
    log?: ReceiptLog;
  };
};

/** `receipt.log` (issue 20): the leaf index, the tree size of the checkpoint, the inclusion proof
 * (base64 hashes, RFC 6962 §2.1.1 order) and the checkpoint as signed-note text. */
export interface ReceiptLog { index: number; treeSize: number; inclusionProof: string[]; checkpoint: string }

export const DEFAULT_FOLDER = 'default';

export function utcDay(tSeconds: number): string {
  return new Date(tSeconds * 1000).toISOString().slice(0, 10);
}

export function validateJob(job: SealJob): void {
  if (job.version === 2 && (typeof job.value !== 'number' || !Number.isFinite(job.value))) {
    throw new SvcError('UNSTABLE', 'a non-finite value is never sealed', { details: { value: null } });
  }
}


/** What sealing a batch needs besides the store: the instant, the allowance and the keys. */
export interface SealEnv {
  tNow: number; tokensPerDay: number; proofKey: Buffer; signer: ReceiptSigner | null;
  /** the log's checkpoint signer: every sealed receipt becomes a leaf (null: no log, unit tests only) */
  log: LogSigner | null;
  issuer: string; jwksUri: string;
}

/** the JSON text of each sealed response's row */
const rowJson = new WeakMap<object, string>();

/** RFC 8785 JSON of each top-level member of an object (undefined members left out). */
function canonicalParts(o: Record<string, unknown>): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of Object.entries(o)) if (v !== undefined) m.set(k, canonicalJson(v));
  return m;
}

/** The RFC 8785 JSON of an object from its members' (keys sorted by UTF-16 code units, as
 * src/core/canonical.ts sorts them). */
function assemble(parts: Map<string, string>): string {
  return '{' + [...parts.keys()].sort().map((k) => JSON.stringify(k) + ':' + parts.get(k)).join(',') + '}';
}

/** What a job's seal is before the store is asked anything: its pulse, proof, receipt id, the
 * response without `receipt`, `tokens` and `signature`, and that object's RFC 8785 JSON by member
 * (for the chain's payload hash, the digest and the signature). Computed on the caller's thread,
 * never in the store's (issue 28, the seal path). */
interface Prepared { id: string; folder: string; svcProof: string; unsigned: Record<string, unknown>; parts: Map<string, string>; payloadHash: string }

function prepare(env: SealEnv, job: SealJob): Prepared {
  const tNow = env.tNow;
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
  // the top-level members' canonical JSON, computed once for the chain's payload hash, the
  // digest and the signature (each is the RFC 8785 JSON of nearly the same object)
  const parts = canonicalParts(unsigned);
  return { id, folder, svcProof, unsigned, parts, payloadHash: sha256Hex(assemble(parts)) };
}

/** Ed25519 in libuv's thread pool: neither the event loop nor the store's thread signs. */
function signAsync(data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => ed25519Sign(null, data, key, (e, sig) => (e ? reject(e) : resolve(sig))));
}

/** A machine's row as the seal path reads it. */
export interface MachineRow { zid: string; tokens_day: string; tokens_left: number; chain_seq: number; chain_head: string }

const MACHINE_COLUMNS = 'zid, tokens_day, tokens_left, chain_seq, chain_head';

/** Seals a batch in the transaction `q` holds. The work that needs no store (pulse, proof, the
 * canonical JSON of each response) is done before the first statement; the store is asked for the
 * machines (locked), the jobs (locked), the log's state (locked), then written with one statement
 * (receipts, chain entries, machine updates, log leaves, tiles and checkpoint), one for the
 * attachments and one for the jobs marked sealed. Digests and signatures are computed between
 * those statements on the caller's side (signatures in libuv's thread pool), never in the
 * store's thread; the log's checkpoint is signed once per batch. `sealOptimistic` is the same
 * batch with the reads done before the transaction (the Sealer's fast path). */
export async function sealWithin(q: Queryable, env: SealEnv, jobs: SealJob[]): Promise<(SealedResponse | SvcError)[]> {
  return (await sealLocked(q, env, jobs)).outcomes;
}

/** `sealWithin`, and the rows as the batch leaves them (what the Sealer's snapshot learns). */
export async function sealLocked(q: Queryable, env: SealEnv, jobs: SealJob[]): Promise<{ outcomes: (SealedResponse | SvcError)[]; after: Composed['after'] }> {
  const prepared = jobs.map((job) => prepare(env, job));
  const zids = [...new Set(jobs.map((j) => j.zid))].sort();
  const rows = await q.query<MachineRow>(`SELECT ${MACHINE_COLUMNS} FROM machines WHERE zid = ANY($1::text[]) ORDER BY zid FOR UPDATE`, [zids]);
  // jobs: each job is sealed once; a later attempt (a node died, the queue handed it out again)
  // gets the stored response (its row is locked until this transaction ends)
  const jobIds = jobs.filter((j) => j.jobId !== undefined).map((j) => j.jobId as string);
  const jobRows = new Map<string, { status: string; response: string | null }>();
  if (jobIds.length) {
    for (const r of await q.query<{ id: string; status: string; response: string | null }>('SELECT id, status, response FROM jobs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [jobIds])) jobRows.set(r.id, r);
  }
  const log = env.log ? await lockLogState(q) : null;
  const c = await compose(env, jobs, prepared, rows, jobRows, log);
  for (const w of c.writes) await q.query(w.sql, w.params);
  if (c.jobSeals.length) await markJobsSealed(q, c.jobSeals);
  return { outcomes: c.outcomes, after: c.after };
}

/** What a batch writes and answers, computed from the rows it read (no store access). */
export interface Composed {
  outcomes: (SealedResponse | SvcError)[];
  writes: Statement[];
  jobSeals: { jobId: string; response: SealedResponse }[];
  /** the rows as they are once the writes commit */
  after: { machines: MachineRow[]; log: LogStateRow | null };
}

async function compose(env: SealEnv, jobs: SealJob[], prepared: Prepared[], rows: MachineRow[], jobRows: Map<string, { status: string; response: string | null }>, log: LogStateRow | null): Promise<Composed> {
  const tNow = env.tNow;
  const today = utcDay(tNow);
  const state = new Map(rows.map((r) => [r.zid, {
    row: r,
    left: r.tokens_day === today ? Number(r.tokens_left) : env.tokensPerDay,
    seq: Number(r.chain_seq),
    head: r.chain_head,
    entries: [] as ReturnType<typeof buildEntries>,
  }]));
  const issuedAt = new Date(tNow * 1000).toISOString();
  const outcomes: (SealedResponse | SvcError)[] = [];
  const jobSeals: { jobId: string; response: SealedResponse }[] = [];
  const receiptRows: unknown[][] = [];
  const sealed: { response: SealedResponse; digest: Buffer; parts: Map<string, string>; row: unknown[] }[] = [];
  const attachmentRows: unknown[][] = [];
  jobs.forEach((job, k) => {
    if (job.jobId !== undefined) {
      const row = jobRows.get(job.jobId);
      if (row?.status === 'succeeded' && row.response) { outcomes.push(JSON.parse(row.response)); return; }
      if (!row || row.status === 'cancelled' || row.status === 'failed') { outcomes.push(new SvcError('NOT_FOUND', `job ${job.jobId} has ended (${row?.status ?? 'gone'}): nothing is sealed for it`)); return; }
      jobRows.set(job.jobId, { status: 'succeeded', response: null }); // the same job twice in a batch seals once
    }
    const m = state.get(job.zid);
    if (!m) { outcomes.push(new SvcError('UNAUTHORIZED', 'the machine of this key no longer exists')); return; }
    if (m.left < job.cost) { outcomes.push(quotaExceeded(m.left, job.cost, tNow)); return; }
    m.left -= job.cost;
    const { id, folder, svcProof, unsigned, parts, payloadHash } = prepared[k];
    const [entry] = buildEntries(job.zid, m.seq, m.head, [{ kind: job.kind ?? 'seal', ref: id, payloadHash, at: issuedAt }]);
    m.seq = entry.seq;
    m.head = entry.hash;
    m.entries.push(entry);
    const response = {
      ...unsigned,
      receipt: { id, version: job.version, issuedAt, folder, chain: { seq: entry.seq, hash: entry.hash }, ...(env.issuer ? { issuer: env.issuer, jwks_uri: env.jwksUri } : {}) },
      tokens: { cost: job.cost, remaining: m.left },
    } as unknown as SealedResponse;
    parts.set('receipt', canonicalJson(response.receipt));
    const digest = createHash('sha256').update(assemble(parts)).digest(); // = receiptDigest(response)
    response.receipt.digest = digest.toString('hex');
    sealed.push({ response, digest, parts, row: [id, job.zid, folder, job.solver, job.version, svcProof, null, entry.seq] });
    for (const [name, text] of Object.entries(job.attachments ?? {})) attachmentRows.push([id, name, sha256Hex(text), Buffer.byteLength(text), text]);
    if (job.jobId !== undefined) jobSeals.push({ jobId: job.jobId, response });
    outcomes.push(response);
  });
  const machinesAfter = [...state.values()].map((m) => (m.entries.length
    ? { zid: m.row.zid, tokens_day: today, tokens_left: m.left, chain_seq: m.seq, chain_head: m.head }
    : m.row));
  if (!sealed.length) return { outcomes, writes: [], jobSeals, after: { machines: machinesAfter, log } };
  // the log: one append and one checkpoint signature for the whole batch
  let append: LogAppend | null = null;
  if (env.log) {
    append = appendTo(log!, env.log, sealed.map((s) => s.digest));
    sealed.forEach((s, i) => {
      s.response.receipt.log = { index: append!.first + i, treeSize: append!.size, inclusionProof: append!.proofs[i].map((h) => h.toString('base64')), checkpoint: append!.checkpoint };
    });
  }
  if (env.signer) {
    // = signReceipt(env.signer, s.response): everything but the signature, reusing the parts
    const key = privateKeyOf(env.signer.kid, env.signer.privateKey);
    const sigs = await Promise.all(sealed.map((s) => {
      s.parts.set('receipt', canonicalJson(s.response.receipt));
      s.parts.set('tokens', canonicalJson((s.response as Record<string, unknown>).tokens));
      return signAsync(Buffer.from(assemble(s.parts)), key);
    }));
    sealed.forEach((s, i) => { (s.response as Record<string, unknown>).signature = { v: 3, alg: 'EdDSA', kid: env.signer!.kid, sig: sigs[i].toString('base64url') }; });
  }
  for (const s of sealed) {
    s.row[6] = JSON.stringify(s.response);
    rowJson.set(s.response, s.row[6] as string);
    receiptRows.push(s.row);
  }
  const writes = [writeSeals(today, state, receiptRows, append)];
  if (attachmentRows.length) {
    const params: unknown[] = [];
    const values = attachmentRows.map((r) => `(${r.map((v) => { params.push(v); return `$${params.length}`; }).join(',')})`);
    writes.push({ sql: `INSERT INTO receipt_attachments (receipt_id, name, sha256, bytes, body) VALUES ${values.join(',')}`, params });
  }
  const logAfter = append ? { size: append.size, edge: append.rows.edge, origin: log!.origin } : log;
  return { outcomes, writes, jobSeals, after: { machines: machinesAfter, log: logAfter } };
}

/** What the optimistic path assumed: the machines' rows and the log's state as one text, made the
 * same way by SQL (under the locks, `checkSql`) and here (from the rows the node last saw). */
export function snapshotText(machines: MachineRow[], log: LogStateRow | null): string {
  const m = [...machines].sort((a, b) => (a.zid < b.zid ? -1 : a.zid > b.zid ? 1 : 0))
    .map((r) => `${r.zid}|${r.tokens_day}|${Number(r.tokens_left)}|${Number(r.chain_seq)}|${r.chain_head}`).join(',');
  return log ? `${m}#${Number(log.size)}|${Buffer.from(log.edge).toString('hex')}|${log.origin ?? ''}` : `${m}#`;
}

/** Locks the machines (zid order), then the log's state, as `sealWithin` does, and returns them as
 * `snapshotText` writes them: one statement. */
function checkSql(withLog: boolean): string {
  return `SELECT coalesce((SELECT string_agg(zid || '|' || tokens_day || '|' || tokens_left::text || '|' || chain_seq::text || '|' || chain_head, ',' ORDER BY zid COLLATE "C")
      FROM (SELECT ${MACHINE_COLUMNS} FROM machines WHERE zid = ANY($1::text[]) ORDER BY zid FOR UPDATE) AS m), '') || '#' ||
    ${withLog ? `(SELECT size::text || '|' || encode(edge, 'hex') || '|' || coalesce(origin, '') FROM (SELECT size, edge, origin FROM log_state WHERE id = 1 FOR UPDATE) AS l)` : `''`} AS s`;
}

/** The node's last view of the rows a seal reads (machines and the log's state), for
 * `sealOptimistic`. A stale view costs a retry, never a wrong seal: the transaction checks it. */
export class SealSnapshot {
  machines = new Map<string, MachineRow>();
  log: LogStateRow | null = null;
  /** forgets machines (all when none named), and the log's state when `log` */
  forget(zids?: Iterable<string>, log = true): void {
    if (zids) for (const z of zids) this.machines.delete(z);
    else this.machines.clear();
    if (log) this.log = null;
  }
  /** the rows a batch left, read under its locks (`sealLocked`) */
  learn(after: { machines: MachineRow[]; log: LogStateRow | null }): void {
    if (this.machines.size > 100_000) this.machines.clear();
    for (const m of after.machines) this.machines.set(m.zid, m);
    if (after.log) this.log = after.log;
  }
}

/** Seals a batch with the reads done before its transaction (issue 28, the seal path): the rows
 * come from `snap` (read without locks when missing, once `settle` says no other batch of this node
 * is being written), the batch is composed and signed with no transaction open, `snap` takes the
 * rows as this batch will leave them (the next batch is composed from them while this one is
 * written), and one `checked` write locks the same rows, compares them with what was assumed and
 * writes everything, or rolls back. `composed` is called with the write once it is sent. Returns null when
 * it could not (a row changed since, a job's seal, an error): the caller seals the batch with
 * `sealLocked` instead, and nothing of this attempt was written. */
export async function sealOptimistic(db: Db, snap: SealSnapshot, env: SealEnv, jobs: SealJob[], hooks: { settle(): Promise<void>; composed(written: Promise<unknown>): void }): Promise<(SealedResponse | SvcError)[] | null> {
  if (jobs.some((j) => j.jobId !== undefined)) return null; // a job's seal locks its row: sealLocked
  const zids = [...new Set(jobs.map((j) => j.zid))].sort();
  let sent = false;
  try {
    const missing = zids.filter((z) => !snap.machines.has(z));
    if (missing.length || (env.log && !snap.log)) {
      await hooks.settle();
      if (missing.length) for (const r of await db.query<MachineRow>(`SELECT ${MACHINE_COLUMNS} FROM machines WHERE zid = ANY($1::text[])`, [missing])) snap.machines.set(r.zid, r);
      if (env.log && !snap.log) snap.log = await readLogState(db);
    }
    const rows = zids.map((z) => snap.machines.get(z));
    if (rows.some((r) => !r)) return null; // a machine gone: sealLocked says so
    const log = env.log ? snap.log : null;
    const expect = snapshotText(rows as MachineRow[], log);
    const c = await compose(env, jobs, jobs.map((job) => prepare(env, job)), rows as MachineRow[], new Map(), log);
    snap.learn(c.after);
    const written = db.checked({ check: { sql: checkSql(!!env.log), params: [zids] }, expect, writes: c.writes });
    sent = true;
    hooks.composed(written);
    const r = await written;
    if (!r.ok) { snap.forget(zids); return null; }
    return c.outcomes;
  } catch {
    // nothing of this attempt was written (the write is one transaction); sealLocked tries again
    // under the locks and reports its own error if there is one
    snap.forget(zids);
    if (!sent) hooks.composed(Promise.resolve());
    return null;
  }
}

/** Writes a batch's chain entries, machine updates and receipts in one statement (data-modifying
 * CTEs): one round trip to the store per batch instead of one per table and machine. */
function writeSeals(today: string, state: Map<string, { left: number; seq: number; head: string; entries: ReturnType<typeof buildEntries> }>, receiptRows: unknown[][], append: LogAppend | null): Statement {
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
  const logParts = append ? writeLogParts(append, p).map((x) => x + ',\n     ') .join('') : '';
  return {
    sql: `WITH ${logParts}e AS (INSERT INTO chain_entries (zid, seq, kind, ref, at, payload_hash, prev_hash, hash) VALUES ${entryValues.join(',')}),
     m AS (UPDATE machines AS x SET tokens_day = v.d, tokens_left = v.l, chain_seq = v.s, chain_head = v.h
           FROM (VALUES ${machineValues.join(',')}) AS v(z, d, l, s, h) WHERE x.zid = v.z)
     INSERT INTO receipts (id, zid, folder, solver, version, proof, body, chain_seq) VALUES ${receiptValues.join(',')}`,
    params,
  };
}

/** Marks jobs succeeded with their sealed responses, in the seal's transaction (one statement);
 * a run of a sweep counts as done in its sweep (one more). A sweep is charged its receipt's cost plus
 * what its runs were charged, in the same statement: nobody sees it succeeded with only the seal's
 * token charged. */
async function markJobsSealed(q: Queryable, seals: { jobId: string; response: SealedResponse }[]): Promise<void> {
  const params: unknown[] = [];
  const p = (v: unknown, cast: string) => { params.push(v); return `$${params.length}${cast}`; };
  const values = seals.map(({ jobId, response }) => {
    const json = rowJson.get(response) ?? JSON.stringify(response);
    const cost = (response as { tokens?: { cost?: number } }).tokens?.cost ?? 0;
    return `(${p(jobId, '::text')},${p(json, '::text')},${p(response.receipt.id, '::text')},${p(cost, '::integer')})`;
  });
  const rows = await q.query<{ parent_id: string | null }>(
    `UPDATE jobs AS j SET status = 'succeeded', response_status = 200, response = v.response, receipt_id = v.receipt_id,
       tokens_charged = v.cost + (SELECT coalesce(sum(r.tokens_charged), 0)::int FROM jobs r WHERE r.parent_id = v.id), finished_at = now(),
       progress = '{"fraction":1}' FROM (VALUES ${values.join(',')}) AS v(id, response, receipt_id, cost) WHERE j.id = v.id RETURNING j.parent_id`,
    params,
  );
  const runs = new Map<string, number>();
  for (const r of rows) if (r.parent_id) runs.set(r.parent_id, (runs.get(r.parent_id) ?? 0) + 1);
  if (runs.size) {
    await q.query('UPDATE jobs AS j SET runs_done = j.runs_done + v.n FROM (SELECT * FROM unnest($1::text[], $2::integer[])) AS v(id, n) WHERE j.id = v.id', [[...runs.keys()], [...runs.values()]]);
  }
}

/** Remaining tokens of a machine today (without charging). */
export async function tokensLeft(q: Queryable, zid: string, tokensPerDay: number, tNow: number): Promise<number> {
  const rows = await q.query<{ tokens_day: string; tokens_left: number }>('SELECT tokens_day, tokens_left FROM machines WHERE zid = $1', [zid]);
  if (!rows.length) return 0;
  return rows[0].tokens_day === utcDay(tNow) ? Number(rows[0].tokens_left) : tokensPerDay;
}
