// Sweeps (issue 27 item 7, docs/jobs.md "Sweeps"): one tool run over a grid of argument values,
// the Cartesian product of the swept lists (or, with `zip`, their i-th elements together), each
// run a job of its own spread over the cluster; the sweep receipt seals the Merkle root of the
// runs' receipt digests, hashed as RFC 6962 §2.1 does (leaf = SHA-256(0x00 ‖ digest), node =
// SHA-256(0x01 ‖ left ‖ right)) with the log's own functions (src/core/tlog.ts), so any run proves
// its membership with an audit path, as a log entry does.
import { SvcError } from '../core/errors.ts';
import { inclusionRanges, leafHash, rootOf } from '../core/tlog.ts';

/** the most runs one sweep may have */
export const MAX_SWEEP_RUNS = 10_000;

/** The swept values of each run, in run order (the first name varies slowest). */
export function expandSweep(sweep: Record<string, unknown[]>, zip: boolean): Record<string, unknown>[] {
  const names = Object.keys(sweep);
  if (!names.length) throw new SvcError('INVALID_INPUT', 'sweep: name at least one argument to sweep', { issues: [{ path: 'sweep', message: 'is empty' }] });
  for (const n of names) {
    const v = sweep[n];
    if (!Array.isArray(v) || !v.length) throw new SvcError('INVALID_INPUT', `sweep.${n}: a non-empty list of values`, { issues: [{ path: `sweep.${n}`, message: 'must be a non-empty array' }] });
  }
  if (zip) {
    const len = sweep[names[0]].length;
    const bad = names.find((n) => sweep[n].length !== len);
    if (bad) throw new SvcError('INVALID_INPUT', `sweep.${bad}: with zip every list has the same length (${len})`, { issues: [{ path: `sweep.${bad}`, message: `has ${sweep[bad].length} values, not ${len}` }] });
    if (len > MAX_SWEEP_RUNS) throw tooMany(len);
    return Array.from({ length: len }, (_, i) => Object.fromEntries(names.map((n) => [n, sweep[n][i]])));
  }
  const total = names.reduce((p, n) => p * sweep[n].length, 1);
  if (total > MAX_SWEEP_RUNS) throw tooMany(total);
  let out: Record<string, unknown>[] = [{}];
  for (const n of names) out = out.flatMap((row) => sweep[n].map((v) => ({ ...row, [n]: v })));
  return out;
}

function tooMany(n: number): SvcError {
  return new SvcError('INVALID_INPUT', `sweep: ${n} runs; at most ${MAX_SWEEP_RUNS}`, { issues: [{ path: 'sweep', message: `makes ${n} runs, more than ${MAX_SWEEP_RUNS}` }] });
}

/** The RFC 6962 Merkle root over receipt digests (hex), in order. */
export function sweepRoot(digestsHex: string[]): Buffer {
  return rootOf(digestsHex.map((d) => leafHash(Buffer.from(d, 'hex'))));
}

/** The audit path of leaf `index` (RFC 6962 §2.1.1 order: from the leaf's sibling up). */
export function sweepInclusionProof(digestsHex: string[], index: number): Buffer[] {
  const leaves = digestsHex.map((d) => leafHash(Buffer.from(d, 'hex')));
  return inclusionRanges(index, leaves.length).map(([a, b]) => rootOf(leaves.slice(a, b)));
}
