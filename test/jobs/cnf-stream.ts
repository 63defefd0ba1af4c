// A DIMACS CNF of a given size, generated as a stream (never whole in memory or on disk): a
// planted 3-SAT instance, every clause's first literal negative, so the all-false assignment
// satisfies it by construction (and a CDCL solver whose initial phase is false, MiniSat's, finds it
// without a conflict: what it measures is reading and propagating, not search). Lines have a fixed width, so the size is known before the first byte.
import { Readable } from 'node:stream';
import { createHash, type Hash } from 'node:crypto';

/** width of one literal field: a space-padded signed variable number */
const FIELD = 8;
/** a clause line: three literal fields, " 0", newline */
export const CLAUSE_LINE_BYTES = 3 * FIELD + 3;

export interface CnfStream {
  stream: Readable;
  /** clauses and variables in the header */
  clauses: number;
  variables: number;
  /** total bytes */
  bytes: number;
  /** the SHA-256 of what was produced, once it has all been read */
  digest(): string;
}

/** A planted 3-SAT CNF of about `targetBytes` bytes over `variables` variables (xorshift32 from `seed`). */
export function cnfStream(targetBytes: number, variables = 100_000, seed = 12345): CnfStream {
  const header0 = `c planted 3-SAT, generated as a stream\np cnf ${variables} `;
  const clauses = Math.max(1, Math.floor((targetBytes - header0.length - 12) / CLAUSE_LINE_BYTES));
  const header = `${header0}${clauses}\n`;
  const hash: Hash = createHash('sha256');
  let s = seed >>> 0 || 1;
  const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
  // every literal's fixed-width text, once: clauses are then byte copies
  const table = Buffer.alloc(2 * (variables + 1) * FIELD, 0x20);
  for (let v = 1; v <= variables; v++) {
    table.write(String(v).padStart(FIELD, ' '), 2 * v * FIELD, 'latin1');
    table.write(String(-v).padStart(FIELD, ' '), (2 * v + 1) * FIELD, 'latin1');
  }
  const put = (buf: Buffer, at: number, v: number, positive: boolean) => {
    const from = (2 * v + (positive ? 0 : 1)) * FIELD;
    for (let k = 0; k < FIELD; k++) buf[at + k] = table[from + k];
  };
  let done = 0;
  let headerSent = false;
  const perChunk = Math.floor((256 * 1024) / CLAUSE_LINE_BYTES);
  const stream = new Readable({
    read() {
      if (!headerSent) { headerSent = true; const b = Buffer.from(header); hash.update(b); this.push(b); return; }
      if (done >= clauses) { this.push(null); return; }
      const n = Math.min(perChunk, clauses - done);
      const buf = Buffer.allocUnsafe(n * CLAUSE_LINE_BYTES);
      for (let i = 0, at = 0; i < n; i++, at += CLAUSE_LINE_BYTES) {
        const r = next();
        const a = 1 + (next() % variables), b = 1 + (next() % variables), c = 1 + (next() % variables);
        // the first literal agrees with the planted assignment (all false); the others are random
        put(buf, at, a, false);
        put(buf, at + FIELD, b, (r & 1) === 0);
        put(buf, at + 2 * FIELD, c, (r & 2) === 0);
        buf[at + 3 * FIELD] = 0x20; buf[at + 3 * FIELD + 1] = 0x30; buf[at + 3 * FIELD + 2] = 0x0a;
      }
      done += n;
      hash.update(buf);
      this.push(buf);
    },
  });
  return { stream, clauses, variables, bytes: header.length + clauses * CLAUSE_LINE_BYTES, digest: () => `sha256:${hash.digest('hex')}` };
}
