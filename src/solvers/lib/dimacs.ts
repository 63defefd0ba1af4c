// DIMACS CNF: the input format of the SAT Competitions ("Satisfiability Suggested Format",
// DIMACS Challenge, 1993; restated in the SAT Competition rules): comment lines starting with `c`,
// one header `p cnf V C`, then C clauses, each a run of nonzero signed variable numbers in 1..V
// ended by 0, free to span lines or share one. SATLIB's files (Hoos & Stützle 2000) end with a
// line `%` followed by `0`; everything from a `%` line on is ignored, as their readers do.
//
// The parser is a single pass over character codes (an 8 MiB text is ~1.6 M tokens; splitting it
// into strings would allocate each one). It refuses anything it cannot read unambiguously with
// INVALID_INPUT naming the 1-based line, comments and blank lines counted, so that the message
// points at the line an editor shows.
import { refuse } from '../../core/errors.ts';

/** Limits of a CNF the node accepts (issue 22). */
export const CNF_LIMITS = { maxVars: 100_000, maxClauses: 1_000_000, maxTextBytes: 8 * 1024 * 1024 } as const;

/** A CNF in flat form: the clauses' DIMACS literals one after another, each clause ended by 0. */
export interface Cnf {
  vars: number;
  clauses: number;
  /** signed DIMACS literals; clause k is the k-th run ended by 0 */
  lits: Int32Array;
}

const fail = (line: number, what: string) => refuse('INVALID_INPUT', `cnf line ${line}: ${what}`, { field: 'cnf', line });

/** Parses DIMACS CNF text; refuses malformed input naming the line (see the file comment). */
export function parseDimacs(text: string, field = 'cnf'): Cnf {
  if (text.length > CNF_LIMITS.maxTextBytes || Buffer.byteLength(text, 'utf8') > CNF_LIMITS.maxTextBytes) {
    throw refuse('INVALID_INPUT', `${field}: the CNF text is ${Buffer.byteLength(text, 'utf8')} bytes, more than the limit of ${CNF_LIMITS.maxTextBytes} (8 MiB)`, { field });
  }
  const len = text.length;
  let pos = 0;
  let line = 1;
  let vars = -1, declared = -1, headerLine = 0;
  let out = new Int32Array(1024);
  let outLen = 0;
  let clauses = 0;
  let open = false; // inside a clause (a literal read, no 0 yet)
  let openLine = 0;

  const push = (x: number) => {
    if (outLen === out.length) { const g = new Int32Array(out.length * 2); g.set(out); out = g; }
    out[outLen++] = x;
  };
  /** skips to the end of the current line (not past the newline) */
  const skipLine = () => { while (pos < len && text.charCodeAt(pos) !== 10) pos++; };
  const isSpace = (ch: number) => ch === 32 || ch === 9 || ch === 13 || ch === 11 || ch === 12;
  /** the token at pos (for messages), at most 24 characters */
  const tokenAt = (p: number) => {
    let e = p;
    while (e < len && !isSpace(text.charCodeAt(e)) && text.charCodeAt(e) !== 10) e++;
    const t = text.slice(p, e);
    return t.length > 24 ? t.slice(0, 24) + '…' : t;
  };

  let atLineStart = true;
  scan: while (pos < len) {
    const ch = text.charCodeAt(pos);
    if (ch === 10) { line++; pos++; atLineStart = true; continue; }
    if (isSpace(ch)) { pos++; continue; }
    if (atLineStart) {
      atLineStart = false;
      if (ch === 99 /* c */) { skipLine(); continue; }
      if (ch === 37 /* % */) break scan; // SATLIB end marker: the rest is not part of the formula
      if (ch === 112 /* p */) {
        const start = pos;
        skipLine();
        const parts = text.slice(start, pos).trim().split(/\s+/);
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
    let neg = false;
    if (ch === 45 /* - */) { neg = true; p++; }
    let digits = 0, v = 0;
    while (p < len) {
      const d = text.charCodeAt(p) - 48;
      if (d < 0 || d > 9) break;
      if (v < 1e9) v = v * 10 + d; // saturates: anything this large is out of range anyway
      digits++; p++;
    }
    const next = p < len ? text.charCodeAt(p) : 10;
    if (digits === 0 || !(isSpace(next) || next === 10)) {
      if (!headerLine && ch !== 45 && (ch < 48 || ch > 57)) throw fail(line, `expected the header 'p cnf <variables> <clauses>' or a comment, found '${tokenAt(pos)}'`);
      throw fail(line, `'${tokenAt(pos)}' is not an integer literal`);
    }
    if (!headerLine) throw fail(line, "a clause before the header 'p cnf <variables> <clauses>'");
    pos = p;
    if (v === 0) {
      if (clauses === declared) throw fail(open ? openLine : line, `more clauses than the ${declared} the header declares (line ${headerLine})`);
      push(0);
      clauses++;
      open = false;
      continue;
    }
    if (v > vars) throw fail(line, `literal ${neg ? '-' : ''}${v >= 1e9 ? tokenAt(pos - digits) : v} is out of range: the header (line ${headerLine}) declares ${vars} variable${vars === 1 ? '' : 's'}`);
    if (!open) {
      if (clauses === declared) throw fail(line, `more clauses than the ${declared} the header declares (line ${headerLine})`);
      open = true; openLine = line;
    }
    push(neg ? -v : v);
  }
  if (!headerLine) throw fail(line, "no header 'p cnf <variables> <clauses>'");
  if (open) throw fail(openLine, `the clause starting on line ${openLine} is not ended by 0`);
  if (clauses !== declared) throw fail(headerLine, `the header declares ${declared} clauses, the file has ${clauses}`);
  return { vars, clauses, lits: out.slice(0, outLen) };
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
