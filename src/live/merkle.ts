// Merkle tree hash of RFC 6962 §2.1 (Certificate Transparency; restated in RFC 9162 §2.1):
//   MTH({})       = SHA-256()
//   MTH({d0})     = SHA-256(0x00 ‖ d0)                       (leaf hash)
//   MTH(D[n])     = SHA-256(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n])) (node hash)
// with k the largest power of two smaller than n. Inclusion paths follow RFC 6962 §2.1.1 and are
// checked with the algorithm of RFC 9162 §2.1.3.2. The distinct 0x00/0x01 prefixes keep a leaf
// from being passed off as an interior node (second-preimage resistance).
// The hashing, the root and the inclusion check are the log's (src/core/tlog.ts, tested against
// the transparency-dev vectors); this module adds the in-memory tree the reactor proves over.
import { leafHash, nodeHash, rootOf, splitPoint, verifyInclusion } from '../core/tlog.ts';

export { leafHash, nodeHash, verifyInclusion };

/** Root over already hashed leaves. */
export const rootOfLeafHashes = rootOf;

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

export const HEX64 = /^[0-9a-f]{64}$/;
export const fromHex = (h: string): Buffer => Buffer.from(h, 'hex');
