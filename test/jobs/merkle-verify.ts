// The sweep receipt's membership check, written in the tests from RFC 6962 §2.1.1 (the algorithm of
// RFC 9162 §2.1.3.2), apart from the node's prover (src/jobs/sweep.ts): a run's audit path leads
// from SHA-256(0x00 || its receipt digest) to the sealed root.
import { createHash } from 'node:crypto';

const sha = (...b: Buffer[]) => createHash('sha256').update(Buffer.concat(b)).digest();

/** Whether `path` proves leaf `index` (the receipt digest `digestHex`) of `size` leaves under `rootHex`. */
export function verifyMembership(digestHex: string, index: number, size: number, path: Buffer[], rootHex: string): boolean {
  if (index >= size) return false;
  let fn = index, sn = size - 1;
  let r = sha(Buffer.from([0]), Buffer.from(digestHex, 'hex'));
  for (const p of path) {
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      r = sha(Buffer.from([1]), p, r);
      if ((fn & 1) === 0) while ((fn & 1) === 0 && fn !== 0) { fn >>= 1; sn >>= 1; }
    } else r = sha(Buffer.from([1]), r, p);
    fn >>= 1; sn >>= 1;
  }
  return sn === 0 && r.toString('hex') === rootHex;
}
