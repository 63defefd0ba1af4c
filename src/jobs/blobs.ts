// Blobs (issue 27 item 6, DESIGN §14; docs/jobs.md "Blobs"): content-addressed bytes, named
// `sha256:<hex>` (FIPS 180-4 SHA-256 of the bytes), streamed into and out of the store without
// ever being held whole in memory, owned by the machine that uploaded them and counted against its
// quota.
//
// Where the bytes live:
//   embedded store (PGlite)  one file per content under SVC_DATA_DIR/blobs/<2 hex>/<64 hex> (a
//                            temporary directory for an in-memory node); the index is in the database
//   PostgreSQL               rows of `blob_chunks` of BLOB_CHUNK_BYTES (1 MiB) each, so every node
//                            of a cluster reads every blob through the database it already shares
//
// A machine's claim on a content (`blobs`) is what ownership, the quota and the TTL count: another
// machine's digest is NOT_FOUND even when the same bytes are stored. A claim that nothing refers to
// (`blob_refs`: a receipt whose result lives in the blob, a queued job) and that was not uploaded or
// read for `ttlSeconds` is removed by `sweep`; a content no claim holds is deleted with it.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGunzip } from 'node:zlib';
import type { Db, Queryable } from '../store/db.ts';
import type { Clock } from '../core/clock.ts';
import { SvcError } from '../core/errors.ts';
import { ulid } from '../core/ids.ts';

/** the size of one PostgreSQL chunk row */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** a blob's name: `sha256:` and 64 lower-case hex characters */
export const DIGEST_RE = /^sha256:([0-9a-f]{64})$/;
/** an upload (or a temporary file) untouched this long is abandoned: a sweep removes it */
export const STALE_UPLOAD_SECONDS = 6 * 3600;

export interface BlobLimits {
  /** largest blob, in bytes after decompression (SVC_BLOB_MAX_BYTES) */
  maxBytes: number;
  /** most bytes one machine may hold in blobs (SVC_BLOB_QUOTA_BYTES) */
  quotaBytes: number;
  /** an unreferenced claim unused this long is removed (SVC_BLOB_TTL_SECONDS) */
  ttlSeconds: number;
}

export interface BlobInfo {
  digest: string;
  bytes: number;
  createdAt: number;
  usedAt: number;
}

export interface PutResult {
  digest: string;
  bytes: number;
  /** false when the machine already held this blob (the upload changed nothing but its last use) */
  created: boolean;
}

/** The hex part of a blob name; a malformed name is 400 naming `field`. */
export function hexOfDigest(digest: unknown, field = 'digest'): string {
  const m = typeof digest === 'string' ? DIGEST_RE.exec(digest) : null;
  if (!m) throw new SvcError('INVALID_INPUT', `${field}: a blob is named sha256: followed by 64 lower-case hex characters`, { issues: [{ path: field, message: 'expected sha256:<64 hex>' }] });
  return m[1];
}

const notFound = (digest: string) => new SvcError('NOT_FOUND', `no blob ${digest} of this machine`);

export class BlobStore {
  readonly db: Db;
  readonly clock: Clock;
  readonly limits: BlobLimits;
  /** the directory of the embedded store's files; null on PostgreSQL */
  readonly dir: string | null;
  #ownDir: boolean;

  /** `dataDir`: SVC_DATA_DIR (':memory:' puts the files in a temporary directory removed by close). */
  constructor(opts: { db: Db; clock: Clock; dataDir: string; limits: BlobLimits }) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.limits = opts.limits;
    this.#ownDir = false;
    if (opts.db.backend === 'postgres') this.dir = null;
    else if (opts.dataDir === ':memory:') { this.dir = mkdtempSync(join(tmpdir(), 'svc-blobs-')); this.#ownDir = true; }
    else { this.dir = join(opts.dataDir, 'blobs'); mkdirSync(join(this.dir, 'tmp'), { recursive: true }); }
    if (this.dir) mkdirSync(join(this.dir, 'tmp'), { recursive: true });
  }

  close(): void {
    if (this.#ownDir && this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  #file(hex: string): string { return join(this.dir!, hex.slice(0, 2), hex); }

  /** Bytes the machine holds in blobs. */
  async usage(zid: string, q: Queryable = this.db): Promise<number> {
    const [r] = await q.query<{ used: number }>('SELECT COALESCE(SUM(bytes), 0)::float8 AS used FROM blobs WHERE zid = $1', [zid]);
    return Number(r?.used ?? 0);
  }

  #tooLarge(): SvcError {
    return new SvcError('PAYLOAD_TOO_LARGE', `a blob holds at most ${this.limits.maxBytes} bytes (SVC_BLOB_MAX_BYTES), counted after decompression`, { details: { maxBytes: this.limits.maxBytes } });
  }

  #overQuota(used: number, adding: number): SvcError {
    return new SvcError('QUOTA_EXCEEDED', `this machine's blobs would take ${used + adding} bytes, more than its quota of ${this.limits.quotaBytes} (SVC_BLOB_QUOTA_BYTES); it holds ${used}. Delete blobs it no longer needs (DELETE /api/blobs/{digest}); unreferenced blobs also expire ${this.limits.ttlSeconds} s after their last use`, {
      details: { quota: { bytes: this.limits.quotaBytes, used } },
    });
  }

  /** Streams `source` into the store for machine `zid`: hashed while it flows, decompressed first
   * when `encoding` is gzip, never held whole. `declaredBytes` (Content-Length of an identity
   * body) refuses an oversized upload before it is read. Outputs the node itself stores (a big
   * result) pass `ignoreQuota`: the work is done and paid for; the bytes still count. */
  async put(zid: string, source: Readable, opts: { encoding?: string; declaredBytes?: number; ignoreQuota?: boolean } = {}): Promise<PutResult> {
    const encoding = (opts.encoding ?? '').trim().toLowerCase();
    const gzip = encoding === 'gzip' || encoding === 'x-gzip';
    if (!gzip && encoding !== '' && encoding !== 'identity') {
      throw new SvcError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${JSON.stringify(encoding)} is not accepted: send the bytes as they are, or gzip them (Content-Encoding: gzip)`);
    }
    const used = opts.ignoreQuota ? 0 : await this.usage(zid);
    const room = opts.ignoreQuota ? Infinity : this.limits.quotaBytes - used;
    const maxBytes = opts.ignoreQuota ? Infinity : this.limits.maxBytes;
    if (!gzip && opts.declaredBytes !== undefined) {
      if (opts.declaredBytes > maxBytes) throw this.#tooLarge();
      if (opts.declaredBytes > room) throw this.#overQuota(used, opts.declaredBytes);
    }
    const uploadId = `up_${ulid()}`;
    await this.db.query('INSERT INTO blob_uploads (id, started_at) VALUES ($1, $2)', [uploadId, this.clock.now()]);
    const hash = createHash('sha256');
    let bytes = 0;
    let sinceCollect = 0;
    const meter = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        bytes += chunk.length;
        if (bytes > maxBytes) return cb(this.#tooLarge());
        if (bytes > room) return cb(this.#overQuota(used, bytes));
        hash.update(chunk);
        // every socket read is a fresh buffer, garbage once written; V8 collects such external
        // memory only past 64 MB of it, so a fast upload would hold that much: a young-generation
        // collection every 16 MB keeps the node's RSS within a few tens of MB of where it was
        sinceCollect += chunk.length;
        if (sinceCollect >= COLLECT_EVERY_BYTES) { sinceCollect = 0; collectYoung(); }
        cb(null, chunk);
      },
    });
    const tmp = this.dir ? join(this.dir, 'tmp', uploadId) : null;
    const sink: Writable = tmp ? createWriteStream(tmp) : new ChunkWriter(this.db, uploadId);
    const stages = gzip ? [createGunzip(), meter, sink] : [meter, sink];
    // the source is piped, not part of the pipeline: a refusal must not destroy it (over HTTP that
    // would reset the connection before the 413/429 is read); the rest of it is read and dropped
    const flowing = pipeline(stages);
    const first = stages[0];
    source.on('error', (e) => first.destroy(e));
    source.on('close', () => { if (!source.readableEnded) first.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })); });
    source.pipe(first);
    try {
      await flowing;
    } catch (e) {
      source.unpipe(first);
      source.resume();
      await this.#abandon(uploadId, tmp);
      throw uploadError(e);
    }
    if (bytes === 0) {
      await this.#abandon(uploadId, tmp);
      throw new SvcError('INVALID_INPUT', 'the body is empty: a blob holds at least one byte');
    }
    const hex = hash.digest('hex');
    if (tmp) {
      mkdirSync(join(this.dir!, hex.slice(0, 2)), { recursive: true });
      await rename(tmp, this.#file(hex)); // content-addressed: the same name holds the same bytes
    }
    const now = this.clock.now();
    let contentNew = false;
    let created = false;
    try {
      await this.db.tx(async (q) => {
        // one machine's uploads finish one at a time, so two cannot both pass the quota
        await q.query('SELECT zid FROM machines WHERE zid = $1 FOR UPDATE', [zid]);
        contentNew = (await q.query('INSERT INTO blob_contents (digest, bytes, upload_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (digest) DO NOTHING RETURNING digest', [hex, bytes, tmp ? null : uploadId, now])).length > 0;
        const held = await q.query('UPDATE blobs SET used_at = $3 WHERE zid = $1 AND digest = $2 RETURNING digest', [zid, hex, now]);
        if (!held.length) {
          if (!opts.ignoreQuota) {
            const usedNow = await this.usage(zid, q);
            if (usedNow + bytes > this.limits.quotaBytes) throw this.#overQuota(usedNow, bytes);
          }
          await q.query('INSERT INTO blobs (zid, digest, bytes, created_at, used_at) VALUES ($1, $2, $3, $4, $4)', [zid, hex, bytes, now]);
          created = true;
        }
        await q.query('DELETE FROM blob_uploads WHERE id = $1', [uploadId]);
      });
    } catch (e) {
      await this.#abandon(uploadId, null);
      await this.#dropUnclaimed([hex]);
      throw e;
    }
    // the same bytes were already stored (by this or another machine): keep one copy
    if (!tmp && !contentNew) await this.db.query('DELETE FROM blob_chunks WHERE upload_id = $1', [uploadId]);
    return { digest: `sha256:${hex}`, bytes, created };
  }

  /** Stores bytes the node produced (a big result) as machine `zid`'s blob. */
  async putBytes(zid: string, data: Uint8Array): Promise<PutResult> {
    return this.put(zid, Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]), { ignoreQuota: true });
  }

  async #abandon(uploadId: string, tmp: string | null): Promise<void> {
    if (tmp) await unlink(tmp).catch(() => {});
    else await this.db.query('DELETE FROM blob_chunks WHERE upload_id = $1', [uploadId]).catch(() => {});
    await this.db.query('DELETE FROM blob_uploads WHERE id = $1', [uploadId]).catch(() => {});
  }

  /** The machine's claim on a blob (null when it holds none: another machine's is null too). */
  async stat(zid: string, digest: string): Promise<BlobInfo | null> {
    const hex = hexOfDigest(digest);
    const [r] = await this.db.query<any>('SELECT bytes, created_at, used_at FROM blobs WHERE zid = $1 AND digest = $2', [zid, hex]);
    return r ? { digest: `sha256:${hex}`, bytes: Number(r.bytes), createdAt: Number(r.created_at), usedAt: Number(r.used_at) } : null;
  }

  /** The machine's blobs, newest first, and the bytes they take. */
  async list(zid: string): Promise<{ blobs: BlobInfo[]; usedBytes: number; quotaBytes: number }> {
    const rows = await this.db.query<any>('SELECT digest, bytes, created_at, used_at FROM blobs WHERE zid = $1 ORDER BY created_at DESC, digest LIMIT 1000', [zid]);
    return {
      blobs: rows.map((r) => ({ digest: `sha256:${r.digest}`, bytes: Number(r.bytes), createdAt: Number(r.created_at), usedAt: Number(r.used_at) })),
      usedBytes: await this.usage(zid),
      quotaBytes: this.limits.quotaBytes,
    };
  }

  /** Marks a use (a read, an input of a run): the TTL counts from the last one. */
  async touch(zid: string, digest: string): Promise<void> {
    await this.db.query('UPDATE blobs SET used_at = $3 WHERE zid = $1 AND digest = $2', [zid, hexOfDigest(digest), this.clock.now()]);
  }

  /** A stream of the machine's blob, bytes `start`..`end` inclusive (the whole blob by default);
   * NOT_FOUND unless the machine holds it. Counts as a use. */
  async open(zid: string, digest: string, range?: { start: number; end: number }): Promise<{ info: BlobInfo; stream: Readable }> {
    const info = await this.stat(zid, digest);
    if (!info) throw notFound(digest);
    await this.touch(zid, digest);
    const start = range?.start ?? 0;
    const end = range?.end ?? info.bytes - 1;
    return { info, stream: this.#read(hexOfDigest(digest), start, end) };
  }

  #read(hex: string, start: number, end: number): Readable {
    if (end < start) return Readable.from([]);
    if (this.dir) return createReadStream(this.#file(hex), { start, end });
    const db = this.db;
    async function* chunks(): AsyncGenerator<Buffer> {
      const [c] = await db.query<{ upload_id: string }>('SELECT upload_id FROM blob_contents WHERE digest = $1', [hex]);
      if (!c) throw new SvcError('NOT_FOUND', `blob sha256:${hex} is gone`);
      for (let seq = Math.floor(start / BLOB_CHUNK_BYTES); seq <= Math.floor(end / BLOB_CHUNK_BYTES); seq++) {
        const base = seq * BLOB_CHUNK_BYTES;
        const from = Math.max(start, base) - base;
        const to = Math.min(end, base + BLOB_CHUNK_BYTES - 1) - base;
        // substring of bytea counts from 1; only the bytes asked for leave the database
        const [r] = await db.query<{ data: Buffer }>('SELECT substring(data FROM $3 FOR $4) AS data FROM blob_chunks WHERE upload_id = $1 AND seq = $2', [c.upload_id, seq, from + 1, to - from + 1]);
        if (!r) throw new Error(`blob sha256:${hex}: chunk ${seq} is missing`);
        yield Buffer.from(r.data);
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  /** The whole blob in memory (an input handed to a solver), its SHA-256 checked. */
  async readBytes(zid: string, digest: string): Promise<Uint8Array> {
    const { info, stream } = await this.open(zid, digest);
    const out = Buffer.allocUnsafe(info.bytes);
    const hash = createHash('sha256');
    let at = 0;
    for await (const c of stream) {
      const b = c as Buffer;
      if (at + b.length > out.length) throw new Error(`blob ${digest} is longer than its record`);
      b.copy(out, at);
      hash.update(b);
      at += b.length;
    }
    if (at !== out.length || `sha256:${hash.digest('hex')}` !== digest) throw new Error(`blob ${digest}: the stored bytes do not match their digest`);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }

  /** Removes the machine's claim (and the bytes when no other machine holds them). */
  async remove(zid: string, digest: string): Promise<boolean> {
    const hex = hexOfDigest(digest);
    const gone = await this.db.query('DELETE FROM blobs WHERE zid = $1 AND digest = $2 RETURNING digest', [zid, hex]);
    if (gone.length) await this.#dropUnclaimed([hex]);
    return gone.length > 0;
  }

  /** Records that `ref` (`receipt:<id>`, `job:<id>`) refers to the machine's blob: the TTL sweep
   * keeps it while the reference lasts. NOT_FOUND unless the machine holds it. */
  async refer(zid: string, digest: string, ref: string): Promise<void> {
    const hex = hexOfDigest(digest);
    const r = await this.db.query(`INSERT INTO blob_refs (zid, digest, ref) SELECT zid, digest, $3 FROM blobs WHERE zid = $1 AND digest = $2
      ON CONFLICT DO NOTHING RETURNING ref`, [zid, hex, ref]);
    if (!r.length && !(await this.stat(zid, digest))) throw notFound(digest);
  }

  /** Drops every reference `ref` holds (a job that ended); the TTL counts from the blobs' last use. */
  async release(ref: string): Promise<void> {
    await this.db.query('DELETE FROM blob_refs WHERE ref = $1', [ref]);
  }

  /** Deletes contents that no claim holds (their files or chunk rows). */
  async #dropUnclaimed(hexes?: string[]): Promise<number> {
    let rows: { digest: string; upload_id: string | null }[];
    try {
      rows = hexes
        ? await this.db.query('DELETE FROM blob_contents c WHERE c.digest = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.digest = c.digest) RETURNING digest, upload_id', [hexes])
        : await this.db.query('DELETE FROM blob_contents c WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.digest = c.digest) RETURNING digest, upload_id');
    } catch (e: any) {
      // a claim taken at the same moment on another connection (foreign key): the next sweep retries
      if (e?.code === '23503') return 0;
      throw e;
    }
    for (const r of rows) {
      if (this.dir) await unlink(this.#file(r.digest)).catch(() => {});
      else if (r.upload_id) await this.db.query('DELETE FROM blob_chunks WHERE upload_id = $1', [r.upload_id]);
    }
    return rows.length;
  }

  /** The TTL sweep: removes unreferenced claims unused for `ttlSeconds`, the contents nobody holds
   * any more, and abandoned uploads. Any node may run it at any time (every step is idempotent). */
  async sweep(): Promise<{ claims: number; contents: number; uploads: number }> {
    const now = this.clock.now();
    // a job's hold on its input blobs ends with the job (whichever node ended it, or none)
    await this.db.query(`DELETE FROM blob_refs r WHERE r.ref LIKE 'job:%'
      AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = substr(r.ref, 5) AND j.status IN ('queued', 'running'))`);
    const claims = await this.db.query(`DELETE FROM blobs b WHERE b.used_at < $1
      AND NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.zid = b.zid AND r.digest = b.digest) RETURNING digest`, [now - this.limits.ttlSeconds]);
    const contents = await this.#dropUnclaimed();
    const stale = await this.db.query<{ id: string }>('DELETE FROM blob_uploads WHERE started_at < $1 RETURNING id', [now - STALE_UPLOAD_SECONDS]);
    for (const u of stale) {
      if (this.dir) await unlink(join(this.dir, 'tmp', u.id)).catch(() => {});
      else await this.db.query('DELETE FROM blob_chunks WHERE upload_id = $1', [u.id]);
    }
    if (this.dir) await this.#sweepFiles(now);
    return { claims: claims.length, contents, uploads: stale.length };
  }

  /** Files no content row names (an upload whose record was refused after its file was in place),
   * once they are older than an upload may take. */
  async #sweepFiles(now: number): Promise<void> {
    const cutoffMs = (now - STALE_UPLOAD_SECONDS) * 1000;
    for (const sub of await readdir(this.dir!).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(sub)) continue;
      const names = (await readdir(join(this.dir!, sub)).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{64}$/.test(n));
      if (!names.length) continue;
      const known = new Set((await this.db.query<{ digest: string }>('SELECT digest FROM blob_contents WHERE digest = ANY($1::text[])', [names])).map((r) => r.digest));
      for (const n of names) {
        if (known.has(n)) continue;
        const p = join(this.dir!, sub, n);
        const st = await stat(p).catch(() => null);
        if (st && st.mtimeMs < cutoffMs) await rm(p, { force: true });
      }
    }
  }
}

/** An error of an upload's pipeline as the caller should see it. */
function uploadError(e: any): SvcError {
  if (e instanceof SvcError) return e;
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) return new SvcError('INVALID_INPUT', `the body is not valid gzip (Content-Encoding: gzip): ${e.message}`);
  if (e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.code === 'ECONNRESET' || e?.message === 'aborted') return new SvcError('INVALID_INPUT', 'the upload was cut short before its end');
  throw e;
}

/** Writes a stream as BLOB_CHUNK_BYTES rows of `blob_chunks`, one INSERT at a time (the stream
 * waits for each). The bytes are gathered in one buffer reused for every chunk: a new buffer per
 * chunk is garbage that V8 reclaims only after tens of MB (its external-memory trigger), which
 * showed as RSS during a 300 MB upload. */
class ChunkWriter extends Writable {
  #db: Db;
  #uploadId: string;
  #chunk = Buffer.allocUnsafe(BLOB_CHUNK_BYTES);
  #fill = 0;
  #seq = 0;
  constructor(db: Db, uploadId: string) {
    super({ highWaterMark: 64 * 1024 });
    this.#db = db;
    this.#uploadId = uploadId;
  }
  override _write(data: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.#take(data).then(() => cb(), cb);
  }
  override _final(cb: (e?: Error | null) => void): void {
    (this.#fill ? this.#insert() : Promise.resolve()).then(() => cb(), cb);
  }
  async #take(data: Buffer): Promise<void> {
    let at = 0;
    while (at < data.length) {
      const n = Math.min(data.length - at, BLOB_CHUNK_BYTES - this.#fill);
      data.copy(this.#chunk, this.#fill, at, at + n);
      this.#fill += n;
      at += n;
      if (this.#fill === BLOB_CHUNK_BYTES) await this.#insert();
    }
  }
  async #insert(): Promise<void> {
    await this.#db.query('INSERT INTO blob_chunks (upload_id, seq, data) VALUES ($1, $2, $3)', [this.#uploadId, this.#seq++, this.#chunk.subarray(0, this.#fill)]);
    this.#fill = 0;
  }
}

/** how many uploaded bytes between two young-generation collections (see `put`) */
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024;
let gcFn: ((o?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void) | null | undefined;
/** A young-generation (minor) collection: V8's own `gc`, obtained once through its flag (nothing
 * else in the node uses it); a no-op where it cannot be had. */
function collectYoung(): void {
  if (gcFn === undefined) {
    try { setFlagsFromString('--expose-gc'); gcFn = runInNewContext('gc') as typeof gcFn; } catch { gcFn = null; }
  }
  try { gcFn?.({ type: 'minor' }); } catch { /* not available */ }
}
