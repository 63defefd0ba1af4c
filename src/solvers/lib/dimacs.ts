// DIMACS CNF: the input format of the SAT Competitions ("Satisfiability Suggested Format",
// DIMACS Challenge, 1993; restated in the SAT Competition rules): comment lines starting with `c`,
// one header `p cnf V C`, then C clauses, each a run of nonzero signed variable numbers in 1..V
// ended by 0, free to span lines or share one. SATLIB's files (Hoos & Stützle 2000) end with a
// line `%` followed by `0`; everything from a `%` line on is ignored, as their readers do.
//
// The parser is a single pass over the bytes (text is encoded once as UTF-8; bytes from a blob are
// read as they are), writing literals straight into one Int32Array: splitting into lines or
// strings would allocate each one. It refuses anything it cannot read unambiguously with
// INVALID_INPUT naming the 1-based line, comments and blank lines counted, so that the message
// points at the line an editor shows.
import { refuse } from '../../core/errors.ts';

/** Limits of a CNF the node accepts (issue 32). `cnf` given inline as text is capped by the request
 * body (8 MiB); a CNF handed over as bytes (from a blob) by `maxBytes`. The variable and clause
 * limits are the same for both: 10,000,000 variables and 50,000,000 clauses (the solver holds the
 * clauses in one Int32Array arena, 4 bytes a literal plus 16 a clause). `clauses` as JSON arrays
 * keeps the small limits of CLAUSES_LIMITS: validating a million JSON arrays is slow. */
export const CNF_LIMITS = { maxVars: 10_000_000, maxClauses: 50_000_000, maxTextBytes: 8 * 1024 * 1024, maxBytes: 2 * 1024 * 1024 * 1024 - 1 } as const;
/** Limits of `clauses` given as JSON arrays (issue 22). */
export const CLAUSES_LIMITS = { maxVars: 100_000, maxClauses: 1_000_000 } as const;

/** A CNF in flat form: the clauses' DIMACS literals one after another, each clause ended by 0. */
export interface Cnf {
  vars: number;
  clauses: number;
  /** signed DIMACS literals; clause k is the k-th run ended by 0 */
  lits: Int32Array;
}

const fail = (line: number, what: string) => refuse('INVALID_INPUT', `cnf line ${line}: ${what}`, { field: 'cnf', line });

const isSpace = (ch: number) => ch === 32 || ch === 9 || ch === 13 || ch === 11 || ch === 12;

/** Parses DIMACS CNF, given as text (inline, up to 8 MiB) or as its bytes (from a blob, up to
 * CNF_LIMITS.maxBytes), in one pass over the bytes straight into a flat Int32Array: no strings are
 * made except for the header line and for error messages. Refuses malformed input naming the line
 * (see the file comment). */
export function parseDimacs(input: string | Uint8Array, field = 'cnf'): Cnf {
  let bytes: Uint8Array;
  if (typeof input === 'string') {
    const size = Buffer.byteLength(input, 'utf8');
    if (size > CNF_LIMITS.maxTextBytes) {
      throw refuse('INVALID_INPUT', `${field}: the CNF text is ${size} bytes, more than the limit of ${CNF_LIMITS.maxTextBytes} (8 MiB)`, { field });
    }
    bytes = Buffer.from(input, 'utf8');
  } else {
    if (input.length > CNF_LIMITS.maxBytes) {
      throw refuse('INVALID_INPUT', `${field}: the CNF is ${input.length} bytes, more than the limit of ${CNF_LIMITS.maxBytes} (2 GiB)`, { field });
    }
    bytes = input;
  }
  const b = bytes;
  const len = b.length;
  let pos = 0;
  let line = 1;
  let vars = -1, declared = -1, headerLine = 0;
  // every literal takes at least two bytes ("1 "), so len/2 + 1 entries always suffice; start at a
  // quarter of that (typical CNFs spend 4-6 bytes a literal) and grow by doubling
  let out = new Int32Array(Math.max(1024, Math.min((len >> 1) + 1, (len >> 3) + 1024)));
  let outLen = 0;
  let clauses = 0;
  let open = false; // inside a clause (a literal read, no 0 yet)
  let openLine = 0;

  /** the token at p (for messages), at most 24 characters */
  const tokenAt = (p: number) => {
    let e = p;
    while (e < len && !isSpace(b[e]) && b[e] !== 10) e++;
    const t = Buffer.from(b.buffer, b.byteOffset + p, e - p).toString('utf8');
    return t.length > 24 ? t.slice(0, 24) + '…' : t;
  };

  let atLineStart = true;
  scan: while (pos < len) {
    let ch = b[pos];
    if (ch === 10) { line++; pos++; atLineStart = true; continue; }
    if (ch === 32 || ch === 9 || ch === 13 || ch === 11 || ch === 12) { pos++; continue; }
    if (atLineStart) {
      atLineStart = false;
      if (ch === 99 /* c */) { while (pos < len && b[pos] !== 10) pos++; continue; }
      if (ch === 37 /* % */) break scan; // SATLIB end marker: the rest is not part of the formula
      if (ch === 112 /* p */) {
        const start = pos;
        while (pos < len && b[pos] !== 10) pos++;
        const parts = Buffer.from(b.buffer, b.byteOffset + start, pos - start).toString('latin1').trim().split(/\s+/);
        if (headerLine) throw fail(line, `a second header (the first is on line ${headerLine})`);
        if (clauses > 0 || open) throw fail(line, 'the header must come before the first clause');
        if (parts.length !== 4 || parts[0] !== 'p' || parts[1] !== 'cnf' || !/^\d+$/.test(parts[2]) || !/^\d+$/.test(parts[3])) {
          throw fail(line, `bad header '${parts.join(' ').slice(0, 40)}': expected 'p cnf <variables> <clauses>'`);
        }
        vars = Number(parts[2]); declared = Number(parts[3]); headerLine = line;
        if (vars > CNF_LIMITS.maxVars) throw fail(line, `${vars} variables, more than the limit of ${CNF_LIMITS.maxVars}`);
        if (declared > CNF_LIMITS.maxClauses) throw fail(line, `${declared} clauses, more than the limit of ${CNF_LIMITS.maxClauses}`);
        continue;
      }
    }
    // a token: an integer literal, or an error
    let p = pos;
    const neg = ch === 45; /* - */
    if (neg) { p++; ch = p < len ? b[p] : 10; }
    let digits = 0, v = 0;
    while (ch >= 48 && ch <= 57) {
      if (v < 1e9) v = v * 10 + (ch - 48); // saturates: anything this large is out of range anyway
      digits++; p++;
      ch = p < len ? b[p] : 10;
    }
    if (digits === 0 || !(ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 11 || ch === 12)) {
      const c0 = b[pos];
      if (!headerLine && c0 !== 45 && (c0 < 48 || c0 > 57)) throw fail(line, `expected the header 'p cnf <variables> <clauses>' or a comment, found '${tokenAt(pos)}'`);
      throw fail(line, `'${tokenAt(pos)}' is not an integer literal`);
    }
    if (!headerLine) throw fail(line, "a clause before the header 'p cnf <variables> <clauses>'");
    pos = p;
    if (v === 0) {
      if (clauses === declared) throw fail(open ? openLine : line, `more clauses than the ${declared} the header declares (line ${headerLine})`);
      if (outLen === out.length) { const g = new Int32Array(out.length * 2); g.set(out); out = g; }
      out[outLen++] = 0;
      clauses++;
      open = false;
      continue;
    }
    if (v > vars) throw fail(line, `literal ${neg ? '-' : ''}${v >= 1e9 ? tokenAt(pos - digits) : v} is out of range: the header (line ${headerLine}) declares ${vars} variable${vars === 1 ? '' : 's'}`);
    if (!open) {
      if (clauses === declared) throw fail(line, `more clauses than the ${declared} the header declares (line ${headerLine})`);
      open = true; openLine = line;
    }
    if (outLen === out.length) { const g = new Int32Array(out.length * 2); g.set(out); out = g; }
    out[outLen++] = neg ? -v : v;
  }
  if (!headerLine) throw fail(line, "no header 'p cnf <variables> <clauses>'");
  if (open) throw fail(openLine, `the clause starting on line ${openLine} is not ended by 0`);
  if (clauses !== declared) throw fail(headerLine, `the header declares ${declared} clauses, the file has ${clauses}`);
  // a copy only when it saves much memory; otherwise a view of the buffer
  return { vars, clauses, lits: outLen < (out.length >> 1) + (out.length >> 2) ? out.slice(0, outLen) : out.subarray(0, outLen) };
}

/** The flat form of clauses given as arrays of signed integers (already range-checked by the caller). */
export function cnfFromClauses(clauses: number[][], vars: number): Cnf {
  let total = 0;
  for (const c of clauses) total += c.length + 1;
  const lits = new Int32Array(total);
  let k = 0;
  for (const c of clauses) { for (const l of c) lits[k++] = l; lits[k++] = 0; }
  return { vars, clauses: clauses.length, lits };
}

/** DIMACS text of a flat CNF (for reference tools and for the proof checker's input). */
export function toDimacs(cnf: Cnf): string {
  const parts: string[] = [`p cnf ${cnf.vars} ${cnf.clauses}`];
  let cur: number[] = [];
  for (let i = 0; i < cnf.lits.length; i++) {
    const l = cnf.lits[i];
    cur.push(l);
    if (l === 0) { parts.push(cur.join(' ')); cur = []; }
  }
  return parts.join('\n') + '\n';
}
