// The per-machine append-only hash chain (DESIGN §8).
//   entry = {seq, zid, kind, ref, at, payloadHash, prevHash, hash}
//   hash  = SHA-256(prevHash ‖ canonical entry), canonical entry = RFC 8785 JSON of
//           {seq, zid, kind, ref, at, payloadHash}; the genesis entry has prevHash = 64 zeros.
// Appends lock the machine row (SELECT … FOR UPDATE) so they are serialised by the database,
// never by process memory: several nodes can share one chain.
import { canonicalJson } from '../core/canonical.ts';
import { sha256Hex } from '../core/ids.ts';
import type { Queryable } from '../store/db.ts';
import { SvcError } from '../core/errors.ts';

export const GENESIS_PREV = '0'.repeat(64);

export interface ChainEntry {
  seq: number;
  zid: string;
  kind: string;
  ref: string;
  at: string;
  payloadHash: string;
  prevHash: string;
  hash: string;
}

export function entryHash(prevHash: string, e: Omit<ChainEntry, 'prevHash' | 'hash'>): string {
  return sha256Hex(prevHash + canonicalJson({ seq: e.seq, zid: e.zid, kind: e.kind, ref: e.ref, at: e.at, payloadHash: e.payloadHash }));
}

export const payloadHash = (payload: unknown): string => sha256Hex(canonicalJson(payload));

/** Builds consecutive entries after (seq, head) without touching the store. */
export function buildEntries(zid: string, seq: number, head: string, items: { kind: string; ref: string; payloadHash: string; at: string }[]): ChainEntry[] {
  const out: ChainEntry[] = [];
  let prev = head;
  let s = seq;
  for (const it of items) {
    s += 1;
    const base = { seq: s, zid, kind: it.kind, ref: it.ref, at: it.at, payloadHash: it.payloadHash };
    const hash = entryHash(prev, base);
    out.push({ ...base, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

export async function insertEntries(q: Queryable, entries: ChainEntry[]): Promise<void> {
  if (!entries.length) return;
  const params: unknown[] = [];
  const rows = entries.map((e) => {
    const b = params.length;
    params.push(e.zid, e.seq, e.kind, e.ref, e.at, e.payloadHash, e.prevHash, e.hash);
    return `($${b + 1},$${b + 2},$${b + 3},$${b + 4},$${b + 5},$${b + 6},$${b + 7},$${b + 8})`;
  });
  await q.query(`INSERT INTO chain_entries (zid, seq, kind, ref, at, payload_hash, prev_hash, hash) VALUES ${rows.join(',')}`, params);
}

/** Appends entries to a machine's chain inside a transaction the caller holds. */
export async function appendToChain(q: Queryable, zid: string, items: { kind: string; ref: string; payload: unknown; at?: string }[]): Promise<ChainEntry[]> {
  const rows = await q.query<{ chain_seq: number; chain_head: string }>('SELECT chain_seq, chain_head FROM machines WHERE zid = $1 FOR UPDATE', [zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'machine not found');
  const now = new Date().toISOString();
  const entries = buildEntries(zid, Number(rows[0].chain_seq), rows[0].chain_head,
    items.map((i) => ({ kind: i.kind, ref: i.ref, payloadHash: payloadHash(i.payload), at: i.at ?? now })));
  await insertEntries(q, entries);
  const last = entries[entries.length - 1];
  await q.query('UPDATE machines SET chain_seq = $2, chain_head = $3 WHERE zid = $1', [zid, last.seq, last.hash]);
  return entries;
}

export interface ChainVerification {
  valid: boolean;
  length: number;
  head: string;
  firstBadSeq?: number;
  /** stored receipts whose bodies were checked against their entries */
  receiptsChecked?: number;
  reason?: string;
}

/** Receipts read per query while their bodies are checked (bounded memory for long chains). */
const RECEIPT_PAGE = 200;

/** Recomputes a machine's whole chain from genesis, then checks every stored receipt against its
 * entry: the entry at the receipt's seq names the receipt, and the stored body without `receipt`,
 * `tokens` and `signature` (what the seal hashed) hashes to the entry's payloadHash. An edit to a
 * stored result, input or precision therefore breaks the chain's verification, not only the
 * receipt's signature. */
export async function verifyChain(q: Queryable, zid: string): Promise<ChainVerification> {
  const m = await q.query<{ chain_seq: number; chain_head: string }>('SELECT chain_seq, chain_head FROM machines WHERE zid = $1', [zid]);
  if (!m.length) throw new SvcError('NOT_FOUND', 'machine not found');
  // entries up to the head just read: appends commit the entries and the head together, so later
  // appends by other requests or nodes cannot make a sound chain look broken mid-verification
  const headSeq = Number(m[0].chain_seq);
  const rows = await q.query<any>('SELECT seq, zid, kind, ref, at, payload_hash, prev_hash, hash FROM chain_entries WHERE zid = $1 AND seq <= $2 ORDER BY seq', [zid, headSeq]);
  let prev = GENESIS_PREV;
  let expectSeq = 1;
  for (const r of rows) {
    const seq = Number(r.seq);
    if (seq !== expectSeq) return { valid: false, length: rows.length, head: prev, firstBadSeq: expectSeq, reason: 'gap in sequence' };
    if (r.prev_hash !== prev) return { valid: false, length: rows.length, head: prev, firstBadSeq: seq, reason: 'prevHash does not link' };
    const h = entryHash(prev, { seq, zid: r.zid, kind: r.kind, ref: r.ref, at: r.at, payloadHash: r.payload_hash });
    if (h !== r.hash) return { valid: false, length: rows.length, head: prev, firstBadSeq: seq, reason: 'hash mismatch' };
    prev = h;
    expectSeq++;
  }
  if (headSeq !== rows.length || m[0].chain_head !== prev) {
    return { valid: false, length: rows.length, head: prev, reason: 'machine head does not match the last entry' };
  }
  let receiptsChecked = 0;
  for (let after = 0; ;) {
    const page = await q.query<{ id: string; chain_seq: number; body: string }>(
      'SELECT id, chain_seq, body FROM receipts WHERE zid = $1 AND chain_seq > $2 AND chain_seq <= $3 ORDER BY chain_seq LIMIT $4', [zid, after, headSeq, RECEIPT_PAGE]);
    for (const rc of page) {
      const seq = Number(rc.chain_seq);
      const entry = rows[seq - 1];
      if (!entry || entry.ref !== rc.id) return { valid: false, length: rows.length, head: prev, firstBadSeq: seq, receiptsChecked, reason: `receipt ${rc.id} is not the entry at its seq ${seq}` };
      let sealed: Record<string, unknown>;
      try { sealed = JSON.parse(rc.body); } catch { sealed = {}; }
      delete sealed.receipt; delete sealed.tokens; delete sealed.signature;
      if (payloadHash(sealed) !== entry.payload_hash) {
        return { valid: false, length: rows.length, head: prev, firstBadSeq: seq, receiptsChecked, reason: `receipt ${rc.id}: the stored body does not hash to its entry's payloadHash (edited after sealing)` };
      }
      receiptsChecked++;
    }
    if (page.length < RECEIPT_PAGE) break;
    after = Number(page[page.length - 1].chain_seq);
  }
  return { valid: true, length: rows.length, head: prev, receiptsChecked };
}
