// Merkle tree hash of RFC 6962 §2.1 (Certificate Transparency; restated in RFC 9162 §2.1):
//   MTH({})       = SHA-256()
//   MTH({d0})     = SHA-256(0x00 ‖ d0)                       (leaf hash)
//   MTH(D[n])     = SHA-256(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n])) (node hash)
// with k the largest power of two smaller than n. Inclusion paths follow RFC 6962 §2.1.1 and are
// checked with the algorithm of RFC 9162 §2.1.3.2. The distinct 0x00/0x01 prefixes keep a leaf
// from being passed off as an interior node (second-preimage resistance).
import { createHash } from 'node:crypto';

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const LEAF = Buffer.from([0x00]);
const NODE = Buffer.from([0x01]);

export const leafHash = (data: Buffer): Buffer => sha256(LEAF, data);
export const nodeHash = (left: Buffer, right: Buffer): Buffer => sha256(NODE, left, right);

/** Largest power of two strictly smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Root over already hashed leaves. */
export function rootOfLeafHashes(hashes: Buffer[]): Buffer {
  if (hashes.length === 0) return sha256();
  if (hashes.length === 1) return hashes[0];
  const k = splitPoint(hashes.length);
  return nodeHash(rootOfLeafHashes(hashes.slice(0, k)), rootOfLeafHashes(hashes.slice(k)));
}

/** MTH over raw leaf data. */
export function merkleRoot(leaves: Buffer[]): Buffer {
  return rootOfLeafHashes(leaves.map(leafHash));
}

/** PATH(m, D[n]) of RFC 6962 §2.1.1, over hashed leaves: the siblings from the leaf up. */
export function inclusionPath(hashes: Buffer[], m: number): Buffer[] {
  if (m < 0 || m >= hashes.length) throw new RangeError(`leaf ${m} is outside a tree of ${hashes.length}`);
  if (hashes.length === 1) return [];
  const k = splitPoint(hashes.length);
  if (m < k) return [...inclusionPath(hashes.slice(0, k), m), rootOfLeafHashes(hashes.slice(k))];
  return [...inclusionPath(hashes.slice(k), m - k), rootOfLeafHashes(hashes.slice(0, k))];
}

/** RFC 9162 §2.1.3.2: does `path` prove leaf hash `leaf` at `index` in a tree of `size` with `root`? */
export function verifyInclusion(leaf: Buffer, index: number, size: number, path: Buffer[], root: Buffer): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

export const HEX64 = /^[0-9a-f]{64}$/;
export const fromHex = (h: string): Buffer => Buffer.from(h, 'hex');
