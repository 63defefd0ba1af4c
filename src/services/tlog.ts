// The deployment's transparency log in the store (issue 20; DESIGN §13; docs/verify.md). The
// Merkle algebra and the C2SP formats are src/core/tlog.ts; this module appends (inside the seal
// batch's transaction: `SELECT … FOR UPDATE` of the one log_state row serialises appends from every
// node sharing the database) and reads tiles, checkpoints and proofs back.
//
// Storage: log_state holds the size, the right edge of the tree (hashes of the maximal perfect
// subtrees: ≤ 53 hashes) and the latest signed checkpoint; log_leaves each leaf's entry (the
// receipt digest) and leaf hash (= the level-0 tiles); log_tiles the entries of the tiles of level
// ≥ 1 as they complete; log_checkpoints every checkpoint signed (one per batch). Any proof is
// computed from at most 128 stored hashes per subtree, as a tlog-tiles client would.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import {
  appendLeaves, checkpointText, consistencyRanges, edgeRanges, inclusionRanges, leafHash, packEdge, signNote, storedSpans, subtreeHash,
  unpackEdge, nodeHash, EMPTY_ROOT, TILE_WIDTH, type Range,
} from '../core/tlog.ts';
import { SvcError } from '../core/errors.ts';

/** What signs the checkpoints: the log's Ed25519 note key under the log's origin. It crosses to
 * the embedded store's thread with each batch (a KeyObject is cloneable). */
export interface LogSigner { origin: string; privateKey: KeyObject | Uint8Array; publicKey: Buffer | Uint8Array }
const logKeys = new Map<string, KeyObject>();
function logKeyOf(s: LogSigner): KeyObject {
  if (!(s.privateKey instanceof Uint8Array)) return s.privateKey;
  const id = Buffer.from(s.publicKey).toString('hex');
  let o = logKeys.get(id);
  if (!o) {
    if (logKeys.size > 64) logKeys.clear();
    logKeys.set(id, (o = createPrivateKey({ key: Buffer.from(s.privateKey), format: 'der', type: 'pkcs8' })));
  }
  return o;
}

export interface LogAppend {
  /** index of the first new leaf */
  first: number;
  size: number;
  proofs: Buffer[][];
  /** the signed checkpoint of the new size */
  checkpoint: string;
  /** the writes, as data-modifying CTE parts for the batch's one statement (see writeLogParts) */
  rows: { leaves: [number, Buffer, Buffer][]; tiles: [number, number, Buffer][]; edge: Buffer; root: Buffer };
}

/** The log's state row as the seal path reads it. */
export interface LogStateRow { size: number | string; edge: Uint8Array; origin: string | null }

/** Locks the log's state row (after the machines: lock order machines → log_state) and reads it. */
export async function lockLogState(q: Queryable): Promise<LogStateRow> {
  const [st] = await q.query<LogStateRow>('SELECT size, edge, origin FROM log_state WHERE id = 1 FOR UPDATE');
  if (!st) throw new Error('log_state is missing (migration 700_log.sql)');
  return st;
}

/** The log's state row without a lock (the seal path's optimistic snapshot; the seal transaction
 * checks it under the lock: src/services/seal-batch.ts). */
export async function readLogState(q: Queryable): Promise<LogStateRow> {
  const [st] = await q.query<LogStateRow>('SELECT size, edge, origin FROM log_state WHERE id = 1');
  if (!st) throw new Error('log_state is missing (migration 700_log.sql)');
  return st;
}

/** An append of `digests` to the log whose state row is `st`: computed, nothing written. */
export function appendTo(st: LogStateRow, signer: LogSigner, digests: Buffer[]): LogAppend {
  if (st.origin !== signer.origin) throw new Error(`the log's origin is ${st.origin}, this node signs as ${signer.origin}`);
  const size = Number(st.size);
  const hashes = digests.map((d) => leafHash(d));
  const r = appendLeaves(size, unpackEdge(st.edge, size), hashes);
  const checkpoint = signNote(checkpointText(signer.origin, r.size, r.root), signer.origin, logKeyOf(signer), Buffer.from(signer.publicKey));
  return {
    first: size, size: r.size, proofs: r.proofs, checkpoint,
    rows: {
      leaves: digests.map((d, i) => [size + i, d, hashes[i]]),
      tiles: r.tileHashes.map((t) => [t.level, t.idx, t.hash]),
      edge: packEdge(r.edge),
      root: r.root,
    },
  };
}

/** The CTE parts that write an append (leaves, completed tiles, checkpoint, state), with `p`
 * adding a parameter and returning its placeholder. */
export function writeLogParts(a: LogAppend, p: (v: unknown, cast?: string) => string): string[] {
  const parts: string[] = [];
  parts.push(`ll AS (INSERT INTO log_leaves (idx, digest, hash) VALUES ${a.rows.leaves.map(([i, d, h]) => `(${p(i, '::bigint')},${p(d, '::bytea')},${p(h, '::bytea')})`).join(',')})`);
  if (a.rows.tiles.length) parts.push(`lt AS (INSERT INTO log_tiles (level, idx, hash) VALUES ${a.rows.tiles.map(([l, i, h]) => `(${p(l, '::smallint')},${p(i, '::bigint')},${p(h, '::bytea')})`).join(',')})`);
  parts.push(`lc AS (INSERT INTO log_checkpoints (size, note) VALUES (${p(a.size, '::bigint')},${p(a.checkpoint)}))`);
  parts.push(`ls AS (UPDATE log_state SET size = ${p(a.size, '::bigint')}, edge = ${p(a.rows.edge, '::bytea')}, root = ${p(a.rows.root, '::bytea')}, checkpoint = ${p(a.checkpoint)} WHERE id = 1)`);
  return parts;
}

/** Fixes the log's origin on first start (the first node's SVC_BASE_URL decides) and signs the
 * empty tree's checkpoint so /log/checkpoint always has one. Returns the origin in force. */
export async function initLog(q: Queryable, origin: string): Promise<string> {
  await q.query('UPDATE log_state SET origin = $1 WHERE id = 1 AND origin IS NULL', [origin]);
  const [st] = await q.query<{ origin: string }>('SELECT origin FROM log_state WHERE id = 1');
  return st.origin;
}

export async function ensureEmptyCheckpoint(q: Queryable, signer: LogSigner): Promise<void> {
  const [st] = await q.query<{ checkpoint: string; size: number | string; root: Uint8Array }>('SELECT checkpoint, size, root FROM log_state WHERE id = 1');
  if (st.checkpoint !== '') return;
  const note = signNote(checkpointText(signer.origin, 0, Buffer.from(st.root)), signer.origin, logKeyOf(signer), Buffer.from(signer.publicKey));
  await q.query(`UPDATE log_state SET checkpoint = $1 WHERE id = 1 AND checkpoint = ''`, [note]);
}

// ---------------------------------------------------------------------------------------------
// Reading

export async function logState(q: Queryable): Promise<{ origin: string; size: number; root: Buffer; checkpoint: string }> {
  const [st] = await q.query<any>('SELECT origin, size, root, checkpoint FROM log_state WHERE id = 1');
  return { origin: st.origin, size: Number(st.size), root: Buffer.from(st.root), checkpoint: st.checkpoint };
}

/** The cosignature lines collected for a checkpoint size ('' when none). */
export async function cosignaturesOf(q: Queryable, size: number): Promise<string> {
  const rows = await q.query<{ lines: string }>('SELECT lines FROM log_cosignatures WHERE size = $1 ORDER BY witness', [size]);
  return rows.map((r) => r.lines).join('');
}

/** The latest checkpoint with the cosignatures it collected. */
export async function currentCheckpoint(q: Queryable): Promise<{ size: number; note: string }> {
  const st = await logState(q);
  return { size: st.size, note: st.checkpoint + await cosignaturesOf(q, st.size) };
}

/** The signed checkpoint of a size (null when the log signed none of that size). */
export async function checkpointAt(q: Queryable, size: number): Promise<string | null> {
  const rows = await q.query<{ note: string }>('SELECT note FROM log_checkpoints WHERE size = $1', [size]);
  return rows.length ? rows[0].note + await cosignaturesOf(q, size) : null;
}

/** Hashes of subtrees of the current tree, from the stored tile entries. */
export async function rangeHashes(q: Queryable, ranges: Range[]): Promise<Buffer[]> {
  const need = new Map<number, Set<number>>();
  for (const r of ranges) for (const s of storedSpans(r)) {
    let set = need.get(s.level);
    if (!set) need.set(s.level, (set = new Set()));
    for (let i = s.start; i < s.start + s.count; i++) set.add(i);
  }
  const have = new Map<string, Buffer>();
  for (const [level, set] of need) {
    const idx = [...set];
    const rows = level === 0
      ? await q.query<{ idx: number | string; hash: Uint8Array }>('SELECT idx, hash FROM log_leaves WHERE idx = ANY($1::bigint[])', [idx])
      : await q.query<{ idx: number | string; hash: Uint8Array }>('SELECT idx, hash FROM log_tiles WHERE level = $1 AND idx = ANY($2::bigint[])', [level, idx]);
    for (const r of rows) have.set(`${level}:${Number(r.idx)}`, Buffer.from(r.hash));
  }
  return ranges.map((r) => subtreeHash(r, (level, idx) => {
    const h = have.get(`${level}:${idx}`);
    if (!h) throw new Error(`log: tile entry ${level}/${idx} is missing`);
    return h;
  }));
}

export async function inclusionProof(q: Queryable, index: number, size: number): Promise<Buffer[]> {
  return rangeHashes(q, inclusionRanges(index, size));
}

export async function consistencyProof(q: Queryable, m: number, n: number): Promise<Buffer[]> {
  return rangeHashes(q, consistencyRanges(m, n));
}

/** The root of the tree at an earlier size (computed from the tiles). */
export async function rootAt(q: Queryable, size: number): Promise<Buffer> {
  if (size === 0) return EMPTY_ROOT;
  const edge = await rangeHashes(q, edgeRanges(size));
  let root = edge[edge.length - 1];
  for (let i = edge.length - 2; i >= 0; i--) root = nodeHash(edge[i], root);
  return root;
}

/** A tile of hashes (level ≥ 0) or an entry bundle, `width` entries from tile `index`; null when
 * the log does not (yet) hold that many. */
export async function readTile(q: Queryable, level: number | 'entries', index: number, width: number): Promise<Buffer | null> {
  const first = index * TILE_WIDTH;
  const rows = level === 'entries' || level === 0
    ? await q.query<{ digest: Uint8Array; hash: Uint8Array }>(`SELECT ${level === 'entries' ? 'digest' : 'hash'} AS v FROM log_leaves WHERE idx >= $1 AND idx < $2 ORDER BY idx`, [first, first + width])
    : await q.query<{ v: Uint8Array }>('SELECT hash AS v FROM log_tiles WHERE level = $1 AND idx >= $2 AND idx < $3 ORDER BY idx', [level, first, first + width]);
  if (rows.length !== width) return null;
  if (level === 'entries') {
    // entry bundle: big-endian uint16 length-prefixed entries (c2sp.org/tlog-tiles)
    return Buffer.concat(rows.flatMap((r: any) => { const v = Buffer.from(r.v); const len = Buffer.alloc(2); len.writeUInt16BE(v.length); return [len, v]; }));
  }
  return Buffer.concat(rows.map((r: any) => Buffer.from(r.v)));
}

/** Refuses a consistency request the log cannot answer. */
export function assertSizes(oldSize: number, newSize: number, size: number): void {
  if (oldSize > newSize) throw new SvcError('INVALID_INPUT', `old (${oldSize}) is larger than new (${newSize})`, { issues: [{ path: 'old', message: 'must be at most new' }] });
  if (newSize > size) throw new SvcError('NOT_FOUND', `the log has ${size} entries; no tree of size ${newSize} yet`);
}
