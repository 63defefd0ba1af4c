// The transparency log's formats and Merkle algebra, pure (no store, no I/O):
//
// - Merkle Tree Hash of RFC 6962 §2.1 (SHA-256; leaf hash SHA-256(0x00 ‖ d), node hash
//   SHA-256(0x01 ‖ l ‖ r); the tree of n leaves splits at k, the largest power of two below n).
// - Inclusion proofs PATH(m, D[n]) (RFC 6962 §2.1.1) and consistency proofs PROOF(m, D[n])
//   (§2.1.2), given as the list of subtree ranges whose hashes they are, and their verification
//   (RFC 9162 §2.1.3.2 and §2.1.4.2).
// - Appending a batch of leaves to a log known only by its right edge ("compact range": the hashes
//   of the maximal perfect subtrees of [0, size), one per set bit of size): the new root, the new
//   edge, every new leaf's inclusion proof in the new tree, and the completed tile hashes.
// - C2SP formats: signed notes (c2sp.org/signed-note: Ed25519 type 0x01, vkeys, key ids),
//   checkpoints (c2sp.org/tlog-checkpoint), tile paths (c2sp.org/tlog-tiles), offline proofs
//   (c2sp.org/tlog-proof@v1) and Ed25519 cosignatures v1 (c2sp.org/tlog-cosignature, type 0x04).
import { canonicalJson } from './canonical.ts';
import { createHash, createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';

export const HASH_SIZE = 32;
export const TILE_WIDTH = 256;
/** log2 of the tile width: a tile at level L holds hashes of subtrees of 256^L leaves */
export const TILE_HEIGHT = 8;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const sha256 = (...parts: (Buffer | Uint8Array | string)[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
/** SHA-256 of the empty string: the root of the empty tree (RFC 6962 §2.1) */
export const EMPTY_ROOT = sha256();
export const leafHash = (data: Buffer | Uint8Array): Buffer => sha256(LEAF_PREFIX, data);
export const nodeHash = (left: Buffer | Uint8Array, right: Buffer | Uint8Array): Buffer => sha256(NODE_PREFIX, left, right);

/** Largest power of two strictly smaller than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH over already hashed leaves. */
export function rootOf(hashes: Buffer[]): Buffer {
  if (hashes.length === 0) return EMPTY_ROOT;
  if (hashes.length === 1) return hashes[0];
  const k = splitPoint(hashes.length);
  return nodeHash(rootOf(hashes.slice(0, k)), rootOf(hashes.slice(k)));
}

/** A subtree of the log: leaves [start, end). */
export type Range = readonly [number, number];

/** The subtree ranges whose hashes make PATH(index, D[size]), from the leaf's sibling up. */
export function inclusionRanges(index: number, size: number): Range[] {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is outside a tree of ${size}`);
  const out: Range[] = [];
  const walk = (lo: number, hi: number) => {
    if (hi - lo <= 1) return;
    const k = splitPoint(hi - lo);
    if (index < lo + k) { walk(lo, lo + k); out.push([lo + k, hi]); } else { walk(lo + k, hi); out.push([lo, lo + k]); }
  };
  walk(0, size);
  return out;
}

/** The subtree ranges whose hashes make PROOF(m, D[n]) of RFC 6962 §2.1.2 (0 < m ≤ n). */
export function consistencyRanges(m: number, n: number): Range[] {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 0 || m > n) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  if (m === 0 || m === n) return [];
  const out: Range[] = [];
  // SUBPROOF(m, D[lo:hi], b)
  const sub = (mm: number, lo: number, hi: number, b: boolean) => {
    const n2 = hi - lo;
    if (mm === n2) { if (!b) out.push([lo, hi]); return; }
    const k = splitPoint(n2);
    if (mm <= k) { sub(mm, lo, lo + k, b); out.push([lo + k, hi]); } else { sub(mm - k, lo + k, hi, false); out.push([lo, lo + k]); }
  };
  sub(m, 0, n, true);
  return out;
}

/** Verifies an inclusion proof (RFC 9162 §2.1.3.2). */
export function verifyInclusion(leaf: Buffer, index: number, size: number, proof: Buffer[], root: Buffer): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (leaf.length !== HASH_SIZE || root.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** Verifies a consistency proof between trees of sizes m ≤ n (RFC 9162 §2.1.4.2; m = 0 and m = n
 * take an empty proof and, for m = n, equal roots). */
export function verifyConsistency(m: number, n: number, proof: Buffer[], oldRoot: Buffer, newRoot: Buffer): boolean {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 0 || m > n) return false;
  if (oldRoot.length !== HASH_SIZE || newRoot.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  if (m === n) return proof.length === 0 && oldRoot.equals(newRoot);
  if (m === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  let path = proof;
  // when m is a power of two, the old root is the first node of the proof
  if ((m & (m - 1)) === 0) path = [oldRoot, ...proof];
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(oldRoot) && sr.equals(newRoot);
}

/** The maximal perfect subtrees of [0, size), left to right: one per set bit of size. */
export function edgeRanges(size: number): Range[] {
  const out: Range[] = [];
  let start = 0;
  for (let h = 52; h >= 0; h--) {
    const w = 2 ** h;
    if (size - start >= w) { out.push([start, start + w]); start += w; }
  }
  return out;
}

/** Encodes the right edge (the hashes of edgeRanges(size), in order) as bytes. */
export const packEdge = (hashes: Buffer[]): Buffer => Buffer.concat(hashes);
export function unpackEdge(bytes: Buffer | Uint8Array, size: number): Buffer[] {
  const n = edgeRanges(size).length;
  const b = Buffer.from(bytes);
  if (b.length !== n * HASH_SIZE) throw new Error(`log edge of ${b.length} bytes does not fit a tree of ${size}`);
  return Array.from({ length: n }, (_, i) => b.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
}

export interface AppendResult {
  size: number;
  root: Buffer;
  edge: Buffer[];
  /** inclusion proof of each new leaf (in order) in the tree of the new size */
  proofs: Buffer[][];
  /** hashes of the tiles' entries completed by this append, level ≥ 1: the MTH of leaves
   * [idx·256^level, (idx+1)·256^level) */
  tileHashes: { level: number; idx: number; hash: Buffer }[];
}

/** Appends leaf hashes to a tree of `size` leaves known by its right edge. Every hash the new
 * proofs and root need is either a node of the old edge or built from the new leaves. */
export function appendLeaves(size: number, edge: Buffer[], newLeafHashes: Buffer[]): AppendResult {
  const oldRanges = edgeRanges(size);
  if (edge.length !== oldRanges.length) throw new Error('log edge does not match the tree size');
  const known = new Map<string, Buffer>();
  oldRanges.forEach(([a, b], i) => known.set(`${a}:${b}`, edge[i]));
  const n = size + newLeafHashes.length;
  const hash = (a: number, b: number): Buffer => {
    const key = `${a}:${b}`;
    const k0 = known.get(key);
    if (k0) return k0;
    let h: Buffer;
    if (b - a === 1 && a >= size) h = newLeafHashes[a - size];
    else if (b <= size) throw new Error(`log append: subtree [${a}, ${b}) is not on the edge of the old tree`);
    else { const k = splitPoint(b - a); h = nodeHash(hash(a, a + k), hash(a + k, b)); }
    known.set(key, h);
    return h;
  };
  const proofs = newLeafHashes.map((_, i) => inclusionRanges(size + i, n).map(([a, b]) => hash(a, b)));
  const root = n === 0 ? EMPTY_ROOT : hash(0, n);
  const newEdge = edgeRanges(n).map(([a, b]) => hash(a, b));
  const tileHashes: AppendResult['tileHashes'] = [];
  for (let level = 1; TILE_WIDTH ** level <= n; level++) {
    const w = TILE_WIDTH ** level;
    for (let idx = Math.floor(size / w); (idx + 1) * w <= n; idx++) {
      if ((idx + 1) * w <= size) continue;
      tileHashes.push({ level, idx, hash: hash(idx * w, (idx + 1) * w) });
    }
  }
  return { size: n, root, edge: newEdge, proofs, tileHashes };
}

/** The stored hashes that give the hash of a subtree: for a perfect aligned subtree of 2^h leaves,
 * the 2^(h mod 8) consecutive tile entries at level floor(h/8) it spans; other subtrees split into
 * perfect ones. */
export function storedSpans(range: Range): { level: number; start: number; count: number }[] {
  const [a, b] = range;
  const w = b - a;
  if (w <= 0) throw new RangeError('empty subtree');
  if ((w & (w - 1)) === 0 && a % w === 0) {
    const h = Math.log2(w);
    const level = Math.floor(h / TILE_HEIGHT);
    const unit = TILE_WIDTH ** level;
    return [{ level, start: a / unit, count: w / unit }];
  }
  const k = splitPoint(w);
  return [...storedSpans([a, a + k]), ...storedSpans([a + k, b])];
}

/** The hash of a subtree from stored tile entries: `get(level, idx)` returns one. */
export function subtreeHash(range: Range, get: (level: number, idx: number) => Buffer): Buffer {
  const [a, b] = range;
  const w = b - a;
  if ((w & (w - 1)) === 0 && a % w === 0) {
    const h = Math.log2(w);
    const level = Math.floor(h / TILE_HEIGHT);
    const unit = TILE_WIDTH ** level;
    const hs: Buffer[] = [];
    for (let i = a / unit; i < b / unit; i++) hs.push(get(level, i));
    return rootOf(hs);
  }
  const k = splitPoint(w);
  return nodeHash(subtreeHash([a, a + k], get), subtreeHash([a + k, b], get));
}

// ---------------------------------------------------------------------------------------------
// Tile paths (c2sp.org/tlog-tiles)

/** `<N>` of a tile path: zero-padded 3-digit elements, all but the last prefixed with x. */
export function tileIndexPath(n: number): string {
  const parts: string[] = [];
  let v = n;
  do { parts.unshift(String(v % 1000).padStart(3, '0')); v = Math.floor(v / 1000); } while (v > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? 'x' + p : p)).join('/');
}

export function tilePath(level: number | 'entries', n: number, width?: number): string {
  return `tile/${level}/${tileIndexPath(n)}${width !== undefined && width < TILE_WIDTH ? `.p/${width}` : ''}`;
}

/** Parses what follows `tile/`: `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`; null when malformed. */
export function parseTilePath(rest: string): { level: number | 'entries'; index: number; width: number } | null {
  const m = /^(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(rest);
  if (!m) return null;
  const level = m[1] === 'entries' ? 'entries' as const : Number(m[1]);
  if (level !== 'entries' && level > 63) return null;
  const index = Number(m[2].split('/').map((p) => p.replace(/^x/, '')).join(''));
  if (!Number.isSafeInteger(index)) return null;
  // no superfluous leading zero elements: index 1234 is x001/234, never x000/x001/234
  if (tileIndexPath(index) !== m[2]) return null;
  const width = m[3] === undefined ? TILE_WIDTH : Number(m[3]);
  if (width < 1 || width > TILE_WIDTH - 1 && m[3] !== undefined) return null;
  return { level, index, width };
}

// ---------------------------------------------------------------------------------------------
// Signed notes (c2sp.org/signed-note) and checkpoints (c2sp.org/tlog-checkpoint)

export const SIG_ED25519 = 0x01;
export const SIG_COSIGNATURE_V1 = 0x04;

/** The raw 32-byte Ed25519 public key of a KeyObject. */
export function ed25519Raw(pub: KeyObject): Buffer {
  const jwk = pub.export({ format: 'jwk' }) as { x?: string };
  return Buffer.from(jwk.x ?? '', 'base64url');
}
export function ed25519FromRaw(raw: Buffer): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** key ID = SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4], big-endian uint32 */
export function keyId(name: string, type: number, publicKey: Buffer): number {
  return sha256(Buffer.from(name + '\n'), Buffer.from([type]), publicKey).readUInt32BE(0);
}

/** Key names are non-empty, without Unicode spaces or '+'. */
export function validKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name);
}

export interface NoteVerifier { name: string; id: number; type: number; publicKey: Buffer; vkey: string }

/** `<name>+<hex key id>+base64(type ‖ public key)` */
export function vkeyOf(name: string, type: number, publicKey: Buffer): string {
  if (!validKeyName(name)) throw new Error(`invalid key name ${JSON.stringify(name)}`);
  return `${name}+${keyId(name, type, publicKey).toString(16).padStart(8, '0')}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;
}

/** Parses a vkey; null when malformed or when its key id does not match its key. */
export function parseVkey(vkey: string): NoteVerifier | null {
  // the key material is base64 and may itself contain '+': split at the first two only
  const m = /^([^+]+)\+([^+]*)\+(.*)$/s.exec(vkey.trim());
  if (!m) return null;
  const [, name, idHex, b64] = m;
  if (!validKeyName(name) || !/^[0-9a-f]{8}$/.test(idHex) || !/^[A-Za-z0-9+/]+=*$/.test(b64)) return null;
  const raw = Buffer.from(b64, 'base64');
  if (raw.toString('base64') !== b64 || raw.length < 2) return null;
  const type = raw[0];
  const publicKey = raw.subarray(1);
  // the types this log uses: Ed25519 notes (0x01) and Ed25519 cosignatures (0x04), 32-byte keys
  if ((type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) || publicKey.length !== 32) return null;
  const id = parseInt(idHex, 16);
  if (keyId(name, type, publicKey) !== id) return null;
  return { name, id, type, publicKey, vkey: vkey.trim() };
}

export interface NoteSignature { name: string; id: number; sig: Buffer; line: string }
export interface ParsedNote { text: string; signatures: NoteSignature[] }

const MAX_NOTE_SIGNATURES = 100;

/** Splits a signed note at its last blank line into text and signature lines; null if malformed. */
export function parseNote(note: string): ParsedNote | null {
  if (note.length > 1 << 20 || /[\u0000-\u0009\u000b-\u001f]/.test(note)) return null;
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0) return null;
  const text = note.slice(0, cut + 1);
  const sigPart = note.slice(cut + 2);
  if (!sigPart.endsWith('\n')) return null;
  const lines = sigPart.slice(0, -1).split('\n');
  if (!lines.length || lines.length > MAX_NOTE_SIGNATURES) return null;
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
    if (!m || !validKeyName(m[1])) return null;
    const raw = Buffer.from(m[2], 'base64');
    if (raw.toString('base64') !== m[2] || raw.length < 5) return null;
    signatures.push({ name: m[1], id: raw.readUInt32BE(0), sig: raw.subarray(4), line: line + '\n' });
  }
  return { text, signatures };
}

/** One signature line for `text` by an Ed25519 note key (type 0x01). */
export function signNoteLine(text: string, name: string, privateKey: KeyObject, publicKey: Buffer): string {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(keyId(name, SIG_ED25519, publicKey));
  const sig = cryptoSign(null, Buffer.from(text), privateKey);
  return `\u2014 ${name} ${Buffer.concat([id, sig]).toString('base64')}\n`;
}

export function signNote(text: string, name: string, privateKey: KeyObject, publicKey: Buffer): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends in a newline');
  return `${text}\n${signNoteLine(text, name, privateKey, publicKey)}`;
}

/** Verifies a note against trusted Ed25519 note keys (type 0x01): the signatures from known keys
 * must all verify and at least one must be present (c2sp.org/signed-note, "Signatures"). Lines
 * from unknown keys are ignored. */
export function verifyNote(note: string, verifiers: NoteVerifier[]): { ok: true; text: string; verifiedBy: NoteVerifier[] } | { ok: false; reason: string } {
  const p = parseNote(note);
  if (!p) return { ok: false, reason: 'malformed signed note' };
  const verifiedBy: NoteVerifier[] = [];
  for (const s of p.signatures) {
    const v = verifiers.find((k) => k.name === s.name && k.id === s.id);
    if (!v) continue;
    let ok = false;
    try {
      if (v.type === SIG_ED25519) ok = cryptoVerify(null, Buffer.from(p.text), ed25519FromRaw(v.publicKey), s.sig);
      else if (v.type === SIG_COSIGNATURE_V1) ok = verifyCosignature(p.text, s.sig, v.publicKey) !== null;
    } catch { ok = false; }
    if (!ok) return { ok: false, reason: `the signature by ${v.name}+${v.id.toString(16).padStart(8, '0')} does not verify` };
    if (!verifiedBy.includes(v)) verifiedBy.push(v);
  }
  if (!verifiedBy.length) return { ok: false, reason: 'no signature by a trusted key' };
  return { ok: true, text: p.text, verifiedBy };
}

export interface Checkpoint { origin: string; size: number; root: Buffer; extensions: string[] }

export function checkpointText(origin: string, size: number, root: Buffer): string {
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

/** Parses a checkpoint's note text (c2sp.org/tlog-checkpoint); null when malformed. */
export function parseCheckpointText(text: string): Checkpoint | null {
  if (!text.endsWith('\n')) return null;
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3 || lines.some((l) => l === '')) return null;
  const [origin, sizeLine, rootLine, ...extensions] = lines;
  if (!/^(0|[1-9][0-9]*)$/.test(sizeLine)) return null;
  const size = Number(sizeLine);
  if (!Number.isSafeInteger(size)) return null;
  const root = Buffer.from(rootLine, 'base64');
  if (root.length !== HASH_SIZE || root.toString('base64') !== rootLine) return null;
  return { origin, size, root, extensions };
}

// ---------------------------------------------------------------------------------------------
// Cosignatures (c2sp.org/tlog-cosignature, Ed25519 "cosignature/v1", type 0x04)

export function cosignedMessage(checkpointText: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

export function cosignLine(checkpointText: string, name: string, privateKey: KeyObject, publicKey: Buffer, timestamp: number): string {
  const head = Buffer.alloc(12);
  head.writeUInt32BE(keyId(name, SIG_COSIGNATURE_V1, publicKey), 0);
  head.writeBigUInt64BE(BigInt(timestamp), 4);
  const sig = cryptoSign(null, cosignedMessage(checkpointText, timestamp), privateKey);
  return `\u2014 ${name} ${Buffer.concat([head, sig]).toString('base64')}\n`;
}

/** Verifies a timestamped cosignature (the signature bytes after the key id); returns its timestamp. */
export function verifyCosignature(checkpointText: string, sig: Buffer, publicKey: Buffer): number | null {
  if (sig.length !== 8 + 64) return null;
  const ts = sig.readBigUInt64BE(0);
  if (ts > (1n << 63n) - 1n) return null;
  const t = Number(ts);
  return cryptoVerify(null, cosignedMessage(checkpointText, t), ed25519FromRaw(publicKey), sig.subarray(8)) ? t : null;
}

// ---------------------------------------------------------------------------------------------
// Offline proofs (c2sp.org/tlog-proof@v1)

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

export function formatTlogProof(index: number, proof: Buffer[], checkpointNote: string, extra?: Buffer): string {
  return [TLOG_PROOF_HEADER, ...(extra ? [`extra ${extra.toString('base64')}`] : []), `index ${index}`, ...proof.map((h) => h.toString('base64'))].join('\n') + '\n\n' + checkpointNote;
}

export function parseTlogProof(text: string): { index: number; proof: Buffer[]; checkpoint: string; extra?: Buffer } | null {
  const cut = text.indexOf('\n\n');
  if (cut < 0) return null;
  const lines = text.slice(0, cut).split('\n');
  if (lines.shift() !== TLOG_PROOF_HEADER) return null;
  let extra: Buffer | undefined;
  if (lines[0]?.startsWith('extra ')) extra = Buffer.from(lines.shift()!.slice(6), 'base64');
  const m = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() ?? '');
  if (!m) return null;
  const proof: Buffer[] = [];
  for (const l of lines) {
    const h = Buffer.from(l, 'base64');
    if (h.length !== HASH_SIZE || h.toString('base64') !== l) return null;
    proof.push(h);
  }
  return { index: Number(m[1]), proof, checkpoint: text.slice(cut + 2), ...(extra ? { extra } : {}) };
}

/** The checkpoint origin of a log served under a base URL: `<host[:port]>/log`, no scheme. */
export function logOrigin(baseUrl: string): string {
  const u = new URL(baseUrl);
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.host}${path}/log`;
}

/** A receipt's log entry (DESIGN §13): the SHA-256 of the RFC 8785 canonical JSON of the sealed
 * response without `receipt.log`, `receipt.digest` (which state it), `tokens` (the caller's
 * balance, not part of the computation) and any per-receipt `signature`. */
export function receiptDigest(response: Record<string, any>): Buffer {
  const { tokens: _t, signature: _s, receipt, ...rest } = response;
  const body: Record<string, unknown> = { ...rest };
  if (receipt && typeof receipt === 'object') {
    const { log: _l, digest: _d, ...r } = receipt as Record<string, unknown>;
    body.receipt = r;
  }
  return sha256(canonicalJson(body));
}
