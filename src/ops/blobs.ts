// The blob operations (issue 27 item 6; docs/jobs.md "Blobs"): upload a file once, name it by its
// digest in any file-like solver input (src/ops/files.ts), read it and big results back.
//
//   POST   /api/blobs            the body streamed into the store (gzip accepted): 201 {digest, bytes}
//   GET    /api/blobs            the machine's blobs and its quota
//   GET    /api/blobs/{digest}   the bytes (Range: 206; a range outside: 416); HEAD: the headers
//   DELETE /api/blobs/{digest}   the machine gives the blob up
//
// The store side is src/jobs/blobs.ts; this file turns HTTP into its calls and keeps the one
// BlobStore of the app (AppParts) with its TTL sweep.
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { App, Operation, OpContext } from './types.ts';
import { defineOp } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { BlobStore, hexOfDigest } from '../jobs/blobs.ts';
import { assertMachineCaller } from '../services/identity.ts';

declare module './types.ts' {
  interface AppParts {
    /** the blob store (src/jobs/blobs.ts), created on first use */
    blobs?: BlobStore;
  }
}

/** how often each node runs the TTL sweep (it is idempotent: nodes of a cluster may overlap) */
export const BLOB_SWEEP_SECONDS = 600;

/** The app's blob store. */
export function blobStore(app: App): BlobStore {
  if (!app.parts.blobs) {
    const store = new BlobStore({
      db: app.db, clock: app.clock, dataDir: app.config.dataDir,
      limits: { maxBytes: app.config.blobMaxBytes, quotaBytes: app.config.blobQuotaBytes, ttlSeconds: app.config.blobTtlSeconds },
    });
    app.parts.blobs = store;
    app.onClose.push(() => store.close());
  }
  return app.parts.blobs;
}

const digestField = z.string().max(200).describe('the blob\'s name, sha256:<64 hex>');
const BLOB_INFO = z.object({ digest: z.string(), bytes: z.number().int(), createdAt: z.number(), usedAt: z.number() });

/** Range (RFC 9110 §14.2) of one byte range over a blob of `size` bytes: null to send it all (no
 * Range, another unit, several ranges, a malformed one: all ignored, as the RFC allows),
 * 'unsatisfiable' for a range that starts past the end. */
export function parseRange(header: string | string[] | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const h = Array.isArray(header) ? header[0] : header;
  if (!h) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(h);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? Infinity : Number(m[2]);
  if (end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

const etagOf = (digest: string) => `"${digest}"`;

async function upload(ctx: OpContext): Promise<unknown> {
  const { zid } = assertMachineCaller(ctx.caller);
  const len = ctx.headers['content-length'];
  const declared = typeof len === 'string' && /^\d+$/.test(len) ? Number(len) : undefined;
  const enc = ctx.headers['content-encoding'];
  const r = await blobStore(ctx.app).put(zid, ctx.body ?? Readable.from([]), { encoding: Array.isArray(enc) ? enc.join(',') : enc, declaredBytes: declared });
  const body = { ok: true, digest: r.digest, bytes: r.bytes, created: r.created };
  return {
    raw: true,
    status: r.created ? 201 : 200,
    headers: { 'content-type': 'application/json; charset=utf-8', location: `/api/blobs/${r.digest}`, etag: etagOf(r.digest), 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

async function download(input: { digest: string }, ctx: OpContext): Promise<unknown> {
  const { zid } = assertMachineCaller(ctx.caller);
  hexOfDigest(input.digest);
  const store = blobStore(ctx.app);
  const info = await store.stat(zid, input.digest);
  if (!info) throw new SvcError('NOT_FOUND', `no blob ${input.digest} of this machine`);
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    etag: etagOf(info.digest),
    'accept-ranges': 'bytes',
    // content-addressed: the bytes behind a name never change; only its owner may read them
    'cache-control': 'private, max-age=31536000, immutable',
  };
  const inm = ctx.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === headers.etag || t.trim() === '*')) {
    return { raw: true, status: 304, headers, body: '' };
  }
  const range = parseRange(ctx.headers.range, info.bytes);
  if (range === 'unsatisfiable') {
    const err = new SvcError('RANGE_NOT_SATISFIABLE', `the range ${String(ctx.headers.range)} starts past the end of the blob (${info.bytes} bytes)`, { details: { bytes: info.bytes } });
    return { raw: true, status: 416, headers: { 'content-type': 'application/json; charset=utf-8', 'content-range': `bytes */${info.bytes}`, 'cache-control': 'no-store' }, body: JSON.stringify(err.toBody()) };
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : info.bytes - 1;
  headers['content-length'] = String(end - start + 1);
  if (range) headers['content-range'] = `bytes ${start}-${end}/${info.bytes}`;
  const status = range ? 206 : 200;
  if (ctx.method === 'HEAD') return { raw: true, status, headers, body: Readable.from([]) };
  const { stream } = await store.open(zid, input.digest, { start, end });
  return { raw: true, status, headers, body: stream };
}

export async function operations(app: App): Promise<Operation[]> {
  // the TTL sweep: soon after start, then every BLOB_SWEEP_SECONDS, on every node
  const sweep = () => { blobStore(app).sweep().catch(() => { /* the next sweep retries */ }); };
  const first = setTimeout(sweep, 30_000);
  const timer = setInterval(sweep, BLOB_SWEEP_SECONDS * 1000);
  first.unref();
  timer.unref();
  app.onClose.push(() => { clearTimeout(first); clearInterval(timer); });
  return [
    defineOp({
      id: 'blob.upload', method: 'POST', path: '/api/blobs', access: 'key', scope: 'compute', tag: 'blobs',
      streamBody: true,
      input: z.strictObject({}),
      title: 'Upload a blob',
      summary: 'Stores the request body (any bytes, up to SVC_BLOB_MAX_BYTES = 1 GiB after decompression; `Content-Encoding: gzip` is decompressed on the way in) as one of the machine\'s blobs and answers its name `sha256:<hex>` (201; the same bytes again: 200, nothing changes).',
      description: 'The body is streamed and hashed as it arrives, never held in memory. Name the blob in any file-like solver input as `{"blob": "sha256:…"}`. A machine holds at most SVC_BLOB_QUOTA_BYTES (2 GiB) of blobs: past it, 429 QUOTA_EXCEEDED; a body past the size limit is 413 PAYLOAD_TOO_LARGE. An unreferenced blob is deleted SVC_BLOB_TTL_SECONDS (24 h) after its last upload or use.',
      output: z.object({ ok: z.literal(true), digest: z.string(), bytes: z.number().int(), created: z.boolean() }),
      successStatus: [201, 200],
      handler: (_input, ctx) => upload(ctx),
    }),
    defineOp({
      id: 'blob.list', method: 'GET', path: '/api/blobs', access: 'key', scope: 'compute', tag: 'blobs',
      input: z.strictObject({}),
      title: 'List blobs',
      summary: 'The machine\'s blobs (newest first, at most 1,000), the bytes they take and its quota.',
      output: z.object({ ok: z.literal(true), blobs: z.array(BLOB_INFO), usedBytes: z.number(), quotaBytes: z.number(), ttlSeconds: z.number() }),
      handler: async (_input, ctx) => {
        const { zid } = assertMachineCaller(ctx.caller);
        return { ok: true, ...(await blobStore(ctx.app).list(zid)), ttlSeconds: ctx.app.config.blobTtlSeconds };
      },
    }),
    defineOp({
      id: 'blob.get', method: 'GET', path: '/api/blobs/:digest', access: 'key', scope: 'compute', tag: 'blobs',
      input: z.strictObject({ digest: digestField }),
      title: 'Read a blob',
      summary: 'The bytes of one of the machine\'s blobs (another machine\'s is 404). `Range: bytes=a-b` answers 206 with that part; a range past the end is 416. `HEAD` gives the headers (Content-Length, ETag = the digest).',
      produces: ['application/octet-stream'],
      successStatus: [200, 206],
      handler: (input, ctx) => download(input, ctx),
    }),
    defineOp({
      id: 'blob.delete', method: 'DELETE', path: '/api/blobs/:digest', access: 'key', scope: 'compute', tag: 'blobs',
      input: z.strictObject({ digest: digestField }),
      title: 'Delete a blob',
      summary: 'Gives up one of the machine\'s blobs (its bytes go when no other machine holds them); receipts that sealed its digest keep the digest.',
      output: z.object({ ok: z.literal(true), digest: z.string(), deleted: z.literal(true) }),
      handler: async (input, ctx) => {
        const { zid } = assertMachineCaller(ctx.caller);
        hexOfDigest(input.digest);
        if (!(await blobStore(ctx.app).remove(zid, input.digest))) throw new SvcError('NOT_FOUND', `no blob ${input.digest} of this machine`);
        return { ok: true, digest: input.digest, deleted: true };
      },
    }),
  ];
}
