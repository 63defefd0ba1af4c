// MATPOWER case data: a reader for the literal subset of the case-file format and the validation
// that turns the bus, gen and branch tables into a power-flow network.
//
// Format: MATPOWER User's Manual (R. D. Zimmerman, C. E. Murillo-Sánchez, MATPOWER 8), Appendix B
// "Data File Format", version 2 of the case struct: `mpc.baseMVA`, `mpc.bus` (13 columns, up to 17
// with results), `mpc.gen` (21 columns, 10 in version 1, up to 25 with results), `mpc.branch` (13
// columns, 11 in version 1, up to 21 with results). A case file is MATLAB code; this reader runs
// none of it. It accepts the literal subset the MATPOWER case files are written in:
//   function mpc = NAME            (optional, first statement; `end`/`endfunction` may close it)
//   mpc.FIELD = LITERAL;           (number, 'string', [numeric matrix] or {cell of strings/numbers})
// with `%` comments (and `%{ … %}` blocks), `...` continuations, matrix rows separated by `;` or
// newlines, elements by spaces or commas, and numbers in MATLAB's literal forms (123, -1.5, .5,
// 5., 1e-3, 1E+3, 1d-3, 0x1F, 0b101 with optional integer-type suffix u8…s64, Inf, NaN).
// Everything else — function calls, indexing, operators, transposes, loops, assignments to other
// variables — is MATLAB code and refused with the line it is on, never evaluated.
//
// Fields: baseMVA, bus, gen, branch are read; version must be '2' when given. gencost (OPF cost
// curves), areas (version-1 area data), bus_name, gentype, genfuel (labels) are accepted and
// ignored: none of them enters MATPOWER's power flow (runpf reads only baseMVA, bus, gen and
// branch). Any other field (dcline, user OPF constraints, …) is refused: it might.
//
// Validation follows MATPOWER's own conventions (ext2int, bustypes, runpf):
//   - exactly one slack bus (type 3) with an in-service generator — none or several is refused,
//     never repaired (MATPOWER would silently promote the first PV bus);
//   - buses of type 4 (isolated) are left out with their generators and branches; out-of-service
//     generators and branches (status 0) are left out; statuses must be 0 or 1;
//   - a PV bus (type 2) with no in-service generator is solved as PQ, as MATPOWER's bustypes does
//     (the list is reported);
//   - every other bus must be connected to the slack bus through in-service branches (islands
//     would need their own slack).
import { refuse } from '../../core/errors.ts';
import { textOf } from './text.ts';

export const LIMITS = { buses: 10_000, generators: 10_000, branches: 50_000 } as const;

/** MATPOWER column indices (0-based), from idx_bus, idx_gen, idx_brch. */
export const BUS = { I: 0, TYPE: 1, PD: 2, QD: 3, GS: 4, BS: 5, AREA: 6, VM: 7, VA: 8, BASE_KV: 9, ZONE: 10, VMAX: 11, VMIN: 12 } as const;
export const GEN = { BUS: 0, PG: 1, QG: 2, QMAX: 3, QMIN: 4, VG: 5, MBASE: 6, STATUS: 7, PMAX: 8, PMIN: 9 } as const;
export const BRANCH = { F: 0, T: 1, R: 2, X: 3, B: 4, RATE_A: 5, RATE_B: 6, RATE_C: 7, TAP: 8, SHIFT: 9, STATUS: 10, ANGMIN: 11, ANGMAX: 12 } as const;
const WIDTH = { bus: [13, 17], gen: [10, 25], branch: [11, 21] } as const;
const NAMES = { bus: 'buses', gen: 'generators', branch: 'branches' } as const;
const ROW_LIMIT = { bus: LIMITS.buses, gen: LIMITS.generators, branch: LIMITS.branches } as const;

export type TableName = 'bus' | 'gen' | 'branch';

/** The three tables as given (rows in MATPOWER's column order), with where each row came from. */
export interface CaseTables {
  name?: string;
  baseMVA: number;
  bus: number[][];
  gen: number[][];
  branch: number[][];
  /** for messages: 'case, line 27' or 'network.bus[3]' per row */
  at: { baseMVA: string; bus: string[]; gen: string[]; branch: string[]; table: Record<TableName, string> };
  /** the input field the tables came from ('case' or 'network') */
  field: 'case' | 'network';
}

/** long words (a 300,000-character name) are cut in messages */
const clip = (message: string) => message.replace(/\S{61,}/g, (w) => w.slice(0, 57) + '…');

function badLine(line: number, msg: string): never {
  const message = clip(msg);
  throw refuse('INVALID_INPUT', `case, line ${line}: ${message}`, { line, issues: [{ path: 'case', message: `line ${line}: ${message}` }] });
}

function badAt(field: string, at: string, msg: string): never {
  const message = clip(msg);
  const line = /^case, line (\d+)/.exec(at);
  throw refuse('INVALID_INPUT', `${at}: ${message}`, { ...(line ? { line: Number(line[1]) } : {}), issues: [{ path: field, message: `${at}: ${message}` }] });
}

// ---------------------------------------------------------------------------------------------
// Tokens

type TokKind = 'num' | 'str' | 'id' | 'op' | 'nl' | 'eof';
interface Tok { kind: TokKind; text: string; line: number; value?: number; space: boolean }

const HEX = /0[xX]([0-9a-fA-F]+)([su](?:8|16|32|64))?/y;
const BIN = /0[bB]([01]+)([su](?:8|16|32|64))?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const isDigit = (ch: number) => ch >= 48 && ch <= 57;
const isNameStart = (ch: number) => (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122) || ch === 95;
const isNameChar = (ch: number) => isNameStart(ch) || isDigit(ch);

/** Value of a hex or binary literal with MATLAB's integer-type rules. */
function intLiteral(digits: string, radix: 16 | 2, suffix: string | undefined, line: number, text: string): number {
  const bitsPerDigit = radix === 16 ? 4 : 1;
  const v = BigInt((radix === 16 ? '0x' : '0b') + digits);
  const needBits = digits.replace(/^0+/, '').length * bitsPerDigit;
  if (!suffix) {
    if (needBits > 64) badLine(line, `'${text}' does not fit in 64 bits`);
    return Number(v);
  }
  const width = Number(suffix.slice(1));
  if (v >= 1n << BigInt(width)) badLine(line, `'${text}' does not fit in ${width} bits`);
  if (suffix[0] === 's' && v >= 1n << BigInt(width - 1)) return Number(v - (1n << BigInt(width)));
  return Number(v);
}

/** The tokens of a case text, made as the parser asks for them (a large case never exists as a
 * token list). */
function* tokenize(text: string): Generator<Tok, void, undefined> {
  let line = 1, i = 0, space = false, depth = 0;
  const n = text.length;
  let lineStart = true;
  let prev: Tok | undefined;
  const make = (kind: TokKind, t: string, value?: number): Tok => {
    prev = { kind, text: t, line, value, space };
    space = false; lineStart = false;
    return prev;
  };
  while (i < n) {
    const c = text[i];
    if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      yield make('nl', '\n');
      line++; i++; lineStart = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\f' || c === '\v') { space = true; i++; continue; }
    if (c === '%') {
      // a block comment: a line holding only %{ … up to a line holding only %}
      const eol = text.indexOf('\n', i);
      const rest = text.slice(i, eol < 0 ? n : eol).trim();
      if (lineStart && rest === '%{') {
        const startLine = line;
        let j = eol < 0 ? n : eol + 1;
        line++;
        let closed = false;
        while (j < n) {
          const e = text.indexOf('\n', j);
          const l = text.slice(j, e < 0 ? n : e).trim();
          j = e < 0 ? n : e + 1;
          if (l === '%}') { closed = true; break; }
          line++;
        }
        if (!closed) badLine(startLine, 'block comment %{ is not closed by a line holding only %}');
        i = j;
        yield make('nl', '\n');
        line++; lineStart = true;
        continue;
      }
      i = eol < 0 ? n : eol;
      continue;
    }
    if (c === '.' && text.startsWith('...', i)) {
      // continuation: the rest of the line is a comment and the newline does not count
      const eol = text.indexOf('\n', i);
      if (eol < 0) { i = n; continue; }
      i = eol + 1; line++; space = true;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c === '.' && text[i + 1] >= '0' && text[i + 1] <= '9')) {
      let m: RegExpExecArray | null = null;
      let value: number, t: string;
      const x = text[i + 1];
      if (c === '0' && (x === 'x' || x === 'X' || x === 'b' || x === 'B')) { HEX.lastIndex = i; BIN.lastIndex = i; }
      if (c === '0' && (x === 'x' || x === 'X') && (m = HEX.exec(text))) { t = m[0]; value = intLiteral(m[1], 16, m[2], line, t); }
      else if (c === '0' && (x === 'b' || x === 'B') && (m = BIN.exec(text))) { t = m[0]; value = intLiteral(m[1], 2, m[2], line, t); }
      else {
        // a decimal literal, scanned by hand (the hot path of a large case): digits [. digits] [e|E|d|D [+-] digits]
        let j = i, fortran = false;
        while (j < n && isDigit(text.charCodeAt(j))) j++;
        if (text[j] === '.' && !text.startsWith('...', j)) { j++; while (j < n && isDigit(text.charCodeAt(j))) j++; }
        const e = text[j];
        if (e === 'e' || e === 'E' || e === 'd' || e === 'D') {
          let k = j + 1;
          if (text[k] === '+' || text[k] === '-') k++;
          if (k < n && isDigit(text.charCodeAt(k))) {
            while (k < n && isDigit(text.charCodeAt(k))) k++;
            fortran = e === 'd' || e === 'D';
            j = k;
          }
        }
        t = text.slice(i, j);
        value = Number(fortran ? t.replace(/[dD]/, 'e') : t);
      }
      const next = text[i + t.length];
      if (next !== undefined && isNameChar(next.charCodeAt(0))) {
        const tail = /[A-Za-z0-9_]*/y; tail.lastIndex = i + t.length;
        const word = t + tail.exec(text)![0];
        if (/^(?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?[ij]$/.test(word)) badLine(line, `'${word}' is a complex number; case tables are real`);
        badLine(line, `'${word}' is not a number`);
      }
      if (next === '.' && !text.startsWith('...', i + t.length) && t.includes('.')) badLine(line, `'${t}.' is not a number`);
      yield make('num', t, value);
      i += t.length;
      continue;
    }
    if (isNameStart(c.charCodeAt(0))) {
      IDENT.lastIndex = i;
      const t = IDENT.exec(text)![0];
      yield make('id', t);
      i += t.length;
      continue;
    }
    if (c === "'" || c === '"') {
      const afterValue = prev && (prev.kind === 'id' || prev.kind === 'num' || prev.kind === 'str' || (prev.kind === 'op' && (prev.text === ']' || prev.text === '}' || prev.text === ')' || prev.text === "'")));
      if (c === "'" && afterValue && !(depth > 0 && space)) { yield make('op', "'"); i++; continue; } // transpose
      let j = i + 1, s = '';
      for (;;) {
        if (j >= n || text[j] === '\n' || text[j] === '\r') badLine(line, `text starting with ${c} is not closed on its line`);
        if (text[j] === c) {
          if (text[j + 1] === c) { s += c; j += 2; continue; }
          break;
        }
        s += text[j]; j++;
      }
      yield make('str', s);
      i = j + 1;
      continue;
    }
    if (c === '[' || c === '{') depth++;
    if ((c === ']' || c === '}') && depth > 0) depth--;
    // every other character is an operator or punctuation; the parser decides what is allowed
    yield make('op', c);
    i++;
  }
  yield make('eof', '');
}

// ---------------------------------------------------------------------------------------------
// Statements and literals

type Literal =
  | { kind: 'number'; value: number; line: number }
  | { kind: 'string'; value: string; line: number }
  | { kind: 'matrix'; rows: number[][]; lines: number[]; line: number }
  | { kind: 'cell'; line: number };

const KEYWORDS = new Set(['for', 'parfor', 'while', 'do', 'until', 'if', 'elseif', 'else', 'switch', 'case', 'otherwise',
  'try', 'catch', 'return', 'break', 'continue', 'global', 'persistent', 'function', 'end', 'endfunction', 'unwind_protect', 'spmd', 'classdef']);
const NUMBER_WORDS: Record<string, number> = { Inf: Infinity, inf: Infinity, NaN: NaN, nan: NaN };
/** the most values a matrix row may hold (case tables have at most 25 columns; gencost rows more) */
const MAX_ROW_VALUES = 1000;
const READ_FIELDS = new Set(['baseMVA', 'bus', 'gen', 'branch', 'version']);
/** Fields MATPOWER's power flow does not read: accepted, checked to be literals, ignored. */
export const IGNORED_FIELDS = ['gencost', 'areas', 'bus_name', 'gentype', 'genfuel'] as const;

class Parser {
  private readonly source: Generator<Tok, void, undefined>;
  private readonly ahead: Tok[] = [];
  private eof: Tok | undefined;
  constructor(source: Generator<Tok, void, undefined>) { this.source = source; }
  peek(o = 0): Tok {
    while (this.ahead.length <= o) {
      if (this.eof) return this.eof;
      const r = this.source.next();
      if (r.done) throw new Error('tokenizer ended without eof');
      if (r.value.kind === 'eof') this.eof = r.value;
      this.ahead.push(r.value);
    }
    return this.ahead[o];
  }
  next(): Tok { const t = this.peek(); if (t.kind !== 'eof') this.ahead.shift(); return t; }
  skip(count: number): void { for (let c = 0; c < count; c++) this.next(); }
  isOp(t: Tok, s: string): boolean { return t.kind === 'op' && t.text === s; }

  /** a MATLAB-code refusal describing what the statement at t does */
  code(t: Tok, what: string): never {
    badLine(t.line, `${what} is MATLAB code; a case must be literal data (mpc.FIELD = number, 'text', [matrix] or {cell})`);
  }

  describe(t: Tok): string {
    if (t.kind === 'eof') return 'the end of the text';
    if (t.kind === 'nl') return 'the end of the line';
    if (t.kind === 'str') return `the text '${t.text}'`;
    return `'${t.text}'`;
  }

  /** a signed number at the current position (a sign counts only when glued to its number) */
  signedNumber(first: boolean): { value: number; line: number } | null {
    const t = this.peek();
    let sign = 1, o = 0;
    if (t.kind === 'op' && (t.text === '-' || t.text === '+')) {
      const u = this.peek(1);
      const isNum = u.kind === 'num' || (u.kind === 'id' && Object.hasOwn(NUMBER_WORDS, u.text));
      if (!isNum || u.space || !(first || t.space)) return null;
      sign = t.text === '-' ? -1 : 1; o = 1;
    }
    const u = this.peek(o);
    if (u.kind === 'num') { this.skip(o + 1); return { value: sign * u.value!, line: u.line }; }
    if (u.kind === 'id' && Object.hasOwn(NUMBER_WORDS, u.text)) {
      if (this.isOp(this.peek(o + 1), '(')) return null;
      this.skip(o + 1);
      return { value: sign * NUMBER_WORDS[u.text], line: u.line };
    }
    return null;
  }

  matrix(open: Tok, table: string, rowLimit: number): Literal {
    const rows: number[][] = [], lines: number[] = [];
    let row: number[] = [], rowLine = open.line, width = -1;
    const endRow = () => {
      if (row.length === 0) return;
      if (width >= 0 && row.length !== width) badLine(rowLine, `this row of ${table} has ${row.length} values, the rows above have ${width}`);
      width = row.length;
      rows.push(row); lines.push(rowLine);
      if (rows.length > rowLimit) badLine(rowLine, `${table} has more than ${rowLimit.toLocaleString('en')} rows (the limit)`);
      row = [];
    };
    let expectElement = true; // after a comma an element must follow
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') badLine(open.line, `the matrix opened here with [ is not closed by ]`);
      if (this.isOp(t, ']')) { this.next(); endRow(); break; }
      if (t.kind === 'nl' || this.isOp(t, ';')) { this.next(); endRow(); expectElement = true; continue; }
      if (this.isOp(t, ',')) {
        if (expectElement && row.length > 0) badLine(t.line, 'two commas in a row');
        this.next(); expectElement = true; continue;
      }
      const num = this.signedNumber(row.length === 0 || expectElement || t.space);
      if (num) {
        if (row.length === 0) rowLine = num.line;
        if (row.length === MAX_ROW_VALUES) badLine(rowLine, `a row of ${table} has more than ${MAX_ROW_VALUES} values`);
        row.push(num.value); expectElement = false;
        continue;
      }
      if (t.kind === 'id') {
        if (this.isOp(this.peek(1), '(')) this.code(t, `the call or index '${t.text}(…)' inside a matrix`);
        this.code(t, `the name '${t.text}' inside a matrix`);
      }
      if (t.kind === 'str') badLine(t.line, `text '${t.text}' inside the numeric matrix ${table}`);
      if (this.isOp(t, '[') || this.isOp(t, '{')) this.code(t, `a nested ${t.text} inside a matrix`);
      this.code(t, `the operator '${t.text}' inside a matrix`);
    }
    return { kind: 'matrix', rows, lines, line: open.line };
  }

  cell(open: Tok): Literal {
    let entries = 0;
    const limit = 2 * LIMITS.buses;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') badLine(open.line, `the cell array opened here with { is not closed by }`);
      if (this.isOp(t, '}')) { this.next(); break; }
      if (t.kind === 'nl' || this.isOp(t, ';') || this.isOp(t, ',')) { this.next(); continue; }
      if (++entries > limit) badLine(t.line, `the cell array opened on line ${open.line} has more than ${limit.toLocaleString('en')} entries`);
      if (t.kind === 'str') { this.next(); continue; }
      if (this.signedNumber(true)) continue;
      if (t.kind === 'id') this.code(t, `the name '${t.text}' inside a cell array`);
      this.code(t, `the operator '${t.text}' inside a cell array`);
    }
    return { kind: 'cell', line: open.line };
  }

  literal(field: string): Literal {
    const t = this.peek();
    if (this.isOp(t, '[')) { this.next(); return this.matrix(t, `mpc.${field}`, Object.hasOwn(ROW_LIMIT, field) ? ROW_LIMIT[field as TableName] : 2 * LIMITS.generators); }
    if (this.isOp(t, '{')) { this.next(); return this.cell(t); }
    if (t.kind === 'str') { this.next(); return { kind: 'string', value: t.text, line: t.line }; }
    const num = this.signedNumber(true);
    if (num) return { kind: 'number', value: num.value, line: num.line };
    if (t.kind === 'id') {
      if (this.isOp(this.peek(1), '(')) this.code(t, `the function call or index '${t.text}(…)'`);
      this.code(t, `the expression '${t.text}' (a variable or function)`);
    }
    if (t.kind === 'nl' || t.kind === 'eof' || this.isOp(t, ';')) badLine(t.line, `mpc.${field} = has no value`);
    this.code(t, `the expression starting with ${this.describe(t)}`);
  }

  terminator(): void {
    const t = this.peek();
    if (t.kind === 'nl' || t.kind === 'eof' || this.isOp(t, ';') || this.isOp(t, ',')) { if (t.kind !== 'eof') this.next(); return; }
    if (this.isOp(t, "'")) this.code(t, "a transpose (')");
    this.code(t, `${this.describe(t)} after the value (an expression)`);
  }

  skipBlank(): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === 'nl' || this.isOp(t, ';') || this.isOp(t, ',')) this.next();
      else return;
    }
  }
}

/** Reads the literal subset of a MATPOWER case file (see the file comment). */
export function parseMatpowerCase(source: string | Uint8Array): CaseTables {
  const text = textOf(source);
  const p = new Parser(tokenize(text));
  let out = 'mpc', name: string | undefined, sawStatement = false, inFunction = false, ended = false;
  const values = new Map<string, Literal>();
  for (;;) {
    p.skipBlank();
    const t = p.peek();
    if (t.kind === 'eof') break;
    if (ended) p.code(t, `${p.describe(t)} after the end of the function`);
    if (t.kind !== 'id') {
      if (t.kind === 'num' || t.kind === 'str') p.code(t, `the expression ${p.describe(t)}`);
      p.code(t, `a statement starting with ${p.describe(t)}`);
    }
    if (t.text === 'function') {
      if (sawStatement) p.code(t, 'a second function definition (or one that is not the first statement)');
      p.next();
      const a = p.next();
      if (a.kind !== 'id' || !p.isOp(p.next(), '=')) badLine(t.line, "expected 'function mpc = NAME' (one output, the case struct)");
      const b = p.next();
      if (b.kind !== 'id') badLine(t.line, "expected 'function mpc = NAME'");
      if (p.isOp(p.peek(), '(')) {
        p.next();
        if (!p.isOp(p.next(), ')')) p.code(t, 'a function with input arguments');
      }
      out = a.text; name = b.text; inFunction = true; sawStatement = true;
      p.terminator();
      continue;
    }
    if ((t.text === 'end' || t.text === 'endfunction') && inFunction) { p.next(); p.terminator(); ended = true; continue; }
    if (KEYWORDS.has(t.text)) p.code(t, `the statement '${t.text}'`);
    sawStatement = true;
    const after = p.peek(1);
    if (t.text !== out) {
      if (p.isOp(after, '=') && !p.isOp(p.peek(2), '=')) p.code(t, `the assignment to the variable '${t.text}' (only ${out}.FIELD = literal is read)`);
      if (p.isOp(after, '(')) p.code(t, `the function call or index '${t.text}(…)'`);
      if (p.isOp(after, '.')) p.code(t, `the assignment to '${t.text}.…' (the case struct is '${out}')`);
      p.code(t, `the command '${t.text}'`);
    }
    p.next();
    if (p.isOp(after, '(') || p.isOp(after, '{')) p.code(t, `indexing into '${out}'`);
    if (!p.isOp(after, '.')) {
      if (p.isOp(after, '=')) p.code(t, `an assignment to the whole of '${out}'`);
      p.code(t, `the statement '${out}' ${p.describe(after)}`);
    }
    p.next();
    const f = p.next();
    if (f.kind !== 'id') p.code(f, `a dynamic or missing field name after '${out}.'`);
    const eq = p.peek();
    if (p.isOp(eq, '(') || p.isOp(eq, '{')) p.code(f, `indexing into '${out}.${f.text}'`);
    if (p.isOp(eq, '.')) p.code(f, `the nested field '${out}.${f.text}.…'`);
    if (!p.isOp(eq, '=') || p.isOp(p.peek(1), '=')) p.code(f, `'${out}.${f.text}' followed by ${p.describe(eq)}`);
    p.next();
    if (!READ_FIELDS.has(f.text) && !(IGNORED_FIELDS as readonly string[]).includes(f.text)) {
      badLine(f.line, `the field '${out}.${f.text}' is not supported: the fields read are baseMVA, bus, gen, branch and version; ${IGNORED_FIELDS.join(', ')} are accepted and ignored (they do not enter a power flow); anything else might change the problem`);
    }
    if (values.has(f.text)) badLine(f.line, `'${out}.${f.text}' is assigned a second time (first on line ${values.get(f.text)!.line})`);
    const v = p.literal(f.text);
    values.set(f.text, { ...v, line: f.line });
    p.terminator();
  }

  const version = values.get('version');
  if (version && !(version.kind === 'string' && version.value === '2')) badLine(version.line, "mpc.version must be '2' (the version-2 case struct; version 1 files are not supported)");
  const lastLine = p.peek().line;
  const base = values.get('baseMVA');
  if (!base) badLine(lastLine, `no ${out}.baseMVA in the case`);
  let baseMVA: number;
  if (base.kind === 'number') baseMVA = base.value;
  else if (base.kind === 'matrix' && base.rows.length === 1 && base.rows[0].length === 1) baseMVA = base.rows[0][0];
  else badLine(base.line, `${out}.baseMVA must be a number`);
  if (!(Number.isFinite(baseMVA) && baseMVA > 0)) badLine(base.line, `${out}.baseMVA must be a positive finite number (got ${baseMVA})`);
  const tables: Partial<Record<TableName, { rows: number[][]; at: string[]; line: number }>> = {};
  for (const tn of ['bus', 'gen', 'branch'] as const) {
    const v = values.get(tn);
    if (!v) badLine(lastLine, `no ${out}.${tn} table in the case`);
    if (v.kind !== 'matrix') badLine(v.line, `${out}.${tn} must be a numeric matrix [ … ]`);
    tables[tn] = { rows: v.rows, at: v.lines.map((l) => `case, line ${l}`), line: v.line };
  }
  for (const tn of IGNORED_FIELDS) {
    const v = values.get(tn);
    if (!v) continue;
    const numeric = tn === 'gencost' || tn === 'areas';
    if (numeric && v.kind !== 'matrix') badLine(v.line, `${out}.${tn} must be a numeric matrix`);
    if (!numeric && v.kind !== 'cell') badLine(v.line, `${out}.${tn} must be a cell array { … }`);
  }
  return {
    name, baseMVA,
    bus: tables.bus!.rows, gen: tables.gen!.rows, branch: tables.branch!.rows,
    at: {
      baseMVA: `case, line ${base.line}`, bus: tables.bus!.at, gen: tables.gen!.at, branch: tables.branch!.at,
      table: { bus: `case, line ${tables.bus!.line}`, gen: `case, line ${tables.gen!.line}`, branch: `case, line ${tables.branch!.line}` },
    },
    field: 'case',
  };
}

/** The same tables given as JSON (`network: {baseMVA, bus, gen, branch}`); shape checked by zod. */
export function tablesFromJson(net: { baseMVA: number; bus: number[][]; gen: number[][]; branch: number[][] }): CaseTables {
  const at = (tn: TableName) => net[tn].map((_, i) => `network.${tn}[${i}]`);
  return {
    baseMVA: net.baseMVA, bus: net.bus, gen: net.gen, branch: net.branch,
    at: { baseMVA: 'network.baseMVA', bus: at('bus'), gen: at('gen'), branch: at('branch'), table: { bus: 'network.bus', gen: 'network.gen', branch: 'network.branch' } },
    field: 'network',
  };
}

// ---------------------------------------------------------------------------------------------
// Validation: the tables become a power-flow network

export interface PfNetwork {
  baseMVA: number;
  nb: number;
  busId: number[];
  /** bus type as given (1 PQ, 2 PV, 3 slack, 4 isolated) */
  busType: Int8Array;
  Pd: Float64Array; Qd: Float64Array; Gs: Float64Array; Bs: Float64Array;
  /** starting values from the case: Vm (pu), Va (degrees) */
  Vm0: Float64Array; Va0: Float64Array;
  /** index of the slack bus */
  ref: number;
  /** in-service generators (status 1, bus not isolated), in table order */
  gen: { count: number; row: Int32Array; bus: Int32Array; Pg: Float64Array; Qg: Float64Array; Qmax: Float64Array; Qmin: Float64Array; Vg: Float64Array };
  /** in-service branches (status 1, neither end isolated), in table order; tap 0 already made 1 */
  branch: { count: number; row: Int32Array; from: Int32Array; to: Int32Array; r: Float64Array; x: Float64Array; b: Float64Array; tap: Float64Array; shiftDeg: Float64Array };
  /** table sizes (every row, in service or not) */
  rows: { gen: number; branch: number };
  /** ids of PV buses with no in-service generator (solved as PQ, as MATPOWER does) */
  pvWithoutGenerator: number[];
}

/** Columns a power flow reads; they must be finite (the others may be ±Inf but not NaN). */
const PF_COLUMNS: Record<TableName, number[]> = {
  bus: [BUS.I, BUS.TYPE, BUS.PD, BUS.QD, BUS.GS, BUS.BS, BUS.VM, BUS.VA],
  gen: [GEN.BUS, GEN.PG, GEN.QG, GEN.VG, GEN.STATUS],
  branch: [BRANCH.F, BRANCH.T, BRANCH.R, BRANCH.X, BRANCH.B, BRANCH.TAP, BRANCH.SHIFT, BRANCH.STATUS],
};
const COLUMN_NAMES: Record<TableName, string[]> = {
  bus: ['BUS_I', 'BUS_TYPE', 'PD', 'QD', 'GS', 'BS', 'BUS_AREA', 'VM', 'VA', 'BASE_KV', 'ZONE', 'VMAX', 'VMIN', 'LAM_P', 'LAM_Q', 'MU_VMAX', 'MU_VMIN'],
  gen: ['GEN_BUS', 'PG', 'QG', 'QMAX', 'QMIN', 'VG', 'MBASE', 'GEN_STATUS', 'PMAX', 'PMIN', 'PC1', 'PC2', 'QC1MIN', 'QC1MAX', 'QC2MIN', 'QC2MAX', 'RAMP_AGC', 'RAMP_10', 'RAMP_30', 'RAMP_Q', 'APF', 'MU_PMAX', 'MU_PMIN', 'MU_QMAX', 'MU_QMIN'],
  branch: ['F_BUS', 'T_BUS', 'BR_R', 'BR_X', 'BR_B', 'RATE_A', 'RATE_B', 'RATE_C', 'TAP', 'SHIFT', 'BR_STATUS', 'ANGMIN', 'ANGMAX', 'PF', 'QF', 'PT', 'QT', 'MU_SF', 'MU_ST', 'MU_ANGMIN', 'MU_ANGMAX'],
};

/** Checks the tables (see the file comment) and builds the network a power flow solves. */
export function buildPfNetwork(t: CaseTables): PfNetwork {
  const bad: (at: string, msg: string) => never = (at, msg) => badAt(t.field, at, msg);
  if (!(Number.isFinite(t.baseMVA) && t.baseMVA > 0)) bad(t.at.baseMVA, `baseMVA must be a positive finite number`);
  for (const tn of ['bus', 'gen', 'branch'] as const) {
    const rows = t[tn];
    if (rows.length > ROW_LIMIT[tn]) bad(t.at.table[tn], `more than ${ROW_LIMIT[tn].toLocaleString('en')} ${NAMES[tn]} (the limit)`);
    const [lo, hi] = WIDTH[tn];
    const pf = PF_COLUMNS[tn];
    rows.forEach((r, i) => {
      if (r.length < lo || r.length > hi) bad(t.at[tn][i], `a ${tn} row has ${lo} to ${hi} columns (MATPOWER's ${tn} table), this one has ${r.length}`);
      for (let c = 0; c < r.length; c++) {
        const v = r[c];
        if (typeof v !== 'number' || Number.isNaN(v)) bad(t.at[tn][i], `${tn} column ${c + 1} (${COLUMN_NAMES[tn][c]}) is not a number`);
        if (!Number.isFinite(v) && pf.includes(c)) bad(t.at[tn][i], `${tn} column ${c + 1} (${COLUMN_NAMES[tn][c]}) must be finite, got ${v}`);
      }
    });
  }
  if (t.bus.length === 0) bad(t.at.table.bus, 'the bus table is empty');

  const nb = t.bus.length;
  const index = new Map<number, number>();
  const busId: number[] = new Array(nb);
  const busType = new Int8Array(nb);
  const Pd = new Float64Array(nb), Qd = new Float64Array(nb), Gs = new Float64Array(nb), Bs = new Float64Array(nb);
  const Vm0 = new Float64Array(nb), Va0 = new Float64Array(nb);
  const slack: number[] = [];
  t.bus.forEach((r, i) => {
    const id = r[BUS.I], type = r[BUS.TYPE];
    if (!(Number.isSafeInteger(id) && id > 0)) bad(t.at.bus[i], `bus number (column 1, BUS_I) must be a positive integer, got ${id}`);
    if (index.has(id)) bad(t.at.bus[i], `bus ${id} is defined twice (first at ${t.at.bus[index.get(id)!]})`);
    if (!(type === 1 || type === 2 || type === 3 || type === 4)) bad(t.at.bus[i], `bus ${id}: type (column 2) must be 1 (PQ), 2 (PV), 3 (slack) or 4 (isolated), got ${type}`);
    if (type !== 4 && !(r[BUS.VM] > 0)) bad(t.at.bus[i], `bus ${id}: the starting voltage magnitude VM (column 8) must be positive, got ${r[BUS.VM]}`);
    index.set(id, i);
    busId[i] = id; busType[i] = type;
    Pd[i] = r[BUS.PD]; Qd[i] = r[BUS.QD]; Gs[i] = r[BUS.GS]; Bs[i] = r[BUS.BS];
    Vm0[i] = r[BUS.VM]; Va0[i] = r[BUS.VA];
    if (type === 3) slack.push(i);
  });
  if (slack.length === 0) bad(t.at.table.bus, 'the bus table has no slack bus (type 3); exactly one is needed, and none is chosen for you');
  if (slack.length > 1) bad(t.at.bus[slack[1]], `a second slack bus (bus ${busId[slack[1]]}; the first is bus ${busId[slack[0]]} at ${t.at.bus[slack[0]]}); exactly one slack bus is supported`);
  const ref = slack[0];

  const statusOf = (tn: 'gen' | 'branch', i: number, v: number): boolean => {
    if (v !== 0 && v !== 1) bad(t.at[tn][i], `status must be 0 (out of service) or 1 (in service), got ${v}`);
    return v === 1;
  };
  const genRows: number[] = [];
  const hasGen = new Uint8Array(nb);
  t.gen.forEach((r, i) => {
    const b = index.get(r[GEN.BUS]);
    if (b === undefined) bad(t.at.gen[i], `generator at bus ${r[GEN.BUS]}, which is not in the bus table`);
    const on = statusOf('gen', i, r[GEN.STATUS]);
    if (on && busType[b] !== 4) {
      if (!(r[GEN.VG] > 0)) bad(t.at.gen[i], `generator at bus ${busId[b]}: the voltage setpoint VG (column 6) must be positive, got ${r[GEN.VG]}`);
      if (r[GEN.QMAX] < r[GEN.QMIN]) bad(t.at.gen[i], `generator at bus ${busId[b]}: QMAX (${r[GEN.QMAX]}) is below QMIN (${r[GEN.QMIN]})`);
      genRows.push(i); hasGen[b] = 1;
    }
  });
  if (!hasGen[ref]) bad(t.at.bus[ref], `the slack bus ${busId[ref]} has no in-service generator`);
  const ng = genRows.length;
  const gen = {
    count: ng, row: Int32Array.from(genRows), bus: new Int32Array(ng),
    Pg: new Float64Array(ng), Qg: new Float64Array(ng), Qmax: new Float64Array(ng), Qmin: new Float64Array(ng), Vg: new Float64Array(ng),
  };
  genRows.forEach((row, k) => {
    const r = t.gen[row];
    gen.bus[k] = index.get(r[GEN.BUS])!;
    gen.Pg[k] = r[GEN.PG]; gen.Qg[k] = r[GEN.QG]; gen.Qmax[k] = r[GEN.QMAX]; gen.Qmin[k] = r[GEN.QMIN]; gen.Vg[k] = r[GEN.VG];
  });

  const brRows: number[] = [];
  t.branch.forEach((r, i) => {
    const f = index.get(r[BRANCH.F]), to = index.get(r[BRANCH.T]);
    if (f === undefined) bad(t.at.branch[i], `branch from bus ${r[BRANCH.F]}, which is not in the bus table`);
    if (to === undefined) bad(t.at.branch[i], `branch to bus ${r[BRANCH.T]}, which is not in the bus table`);
    const on = statusOf('branch', i, r[BRANCH.STATUS]);
    if (!on || busType[f] === 4 || busType[to] === 4) return;
    if (f === to) bad(t.at.branch[i], `branch from bus ${busId[f]} to itself`);
    if (r[BRANCH.R] === 0 && r[BRANCH.X] === 0) bad(t.at.branch[i], `branch ${busId[f]}-${busId[to]} has zero impedance (r = x = 0)`);
    if (r[BRANCH.TAP] < 0) bad(t.at.branch[i], `branch ${busId[f]}-${busId[to]}: the tap ratio (column 9) must be positive, or 0 for none; got ${r[BRANCH.TAP]}`);
    brRows.push(i);
  });
  const nl = brRows.length;
  const branch = {
    count: nl, row: Int32Array.from(brRows), from: new Int32Array(nl), to: new Int32Array(nl),
    r: new Float64Array(nl), x: new Float64Array(nl), b: new Float64Array(nl), tap: new Float64Array(nl), shiftDeg: new Float64Array(nl),
  };
  brRows.forEach((row, k) => {
    const r = t.branch[row];
    branch.from[k] = index.get(r[BRANCH.F])!; branch.to[k] = index.get(r[BRANCH.T])!;
    branch.r[k] = r[BRANCH.R]; branch.x[k] = r[BRANCH.X]; branch.b[k] = r[BRANCH.B];
    branch.tap[k] = r[BRANCH.TAP] === 0 ? 1 : r[BRANCH.TAP];
    branch.shiftDeg[k] = r[BRANCH.SHIFT];
  });

  // every bus that takes part must reach the slack through in-service branches
  const adjStart = new Int32Array(nb + 1);
  for (let k = 0; k < nl; k++) { adjStart[branch.from[k] + 1]++; adjStart[branch.to[k] + 1]++; }
  for (let i = 0; i < nb; i++) adjStart[i + 1] += adjStart[i];
  const adj = new Int32Array(2 * nl), fillAt = adjStart.slice(0, nb);
  for (let k = 0; k < nl; k++) { adj[fillAt[branch.from[k]]++] = branch.to[k]; adj[fillAt[branch.to[k]]++] = branch.from[k]; }
  const seen = new Uint8Array(nb);
  const queue = new Int32Array(nb);
  let head = 0, tail = 0;
  queue[tail++] = ref; seen[ref] = 1;
  while (head < tail) {
    const i = queue[head++];
    for (let p = adjStart[i]; p < adjStart[i + 1]; p++) if (!seen[adj[p]]) { seen[adj[p]] = 1; queue[tail++] = adj[p]; }
  }
  for (let i = 0; i < nb; i++) {
    if (busType[i] !== 4 && !seen[i]) {
      bad(t.at.bus[i], `bus ${busId[i]} is not connected to the slack bus ${busId[ref]} through in-service branches (an island needs its own slack, which is not supported; mark its buses type 4 to leave them out)`);
    }
  }
  const pvWithoutGenerator: number[] = [];
  for (let i = 0; i < nb; i++) if (busType[i] === 2 && !hasGen[i]) pvWithoutGenerator.push(busId[i]);
  return {
    baseMVA: t.baseMVA, nb, busId, busType, Pd, Qd, Gs, Bs, Vm0, Va0, ref, gen, branch,
    rows: { gen: t.gen.length, branch: t.branch.length }, pvWithoutGenerator,
  };
}

