// A small reader of numeric tables in CSV (RFC 4180: comma-separated, optionally double-quoted
// fields, CRLF or LF line ends), also accepting semicolon- or tab-separated text (the separator is
// the first of , ; tab found in the header line). The first non-blank line that is not a comment
// (#) is the header naming the columns; every following non-blank, non-comment line is a row of
// finite numbers, one per column. Any malformed line is refused with its 1-based line number.
import { refuse } from '../../../core/errors.ts';

export interface Table {
  /** column names in header order */
  names: string[];
  /** column values by name */
  columns: Record<string, number[]>;
  /** 1-based source line of each row */
  lines: number[];
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const NUMBER_RE = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|[+-]?(?:inf|Infinity|nan|NaN))$/;

const bad = (field: string, line: number, message: string) =>
  refuse('INVALID_INPUT', `${field}: CSV line ${line}: ${message}`, { issues: [{ path: field, message: `line ${line}: ${message}` }] });

function splitFields(text: string, sep: string, field: string, line: number): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let value = '';
    while (text[i] === ' ') i++;
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw bad(field, line, 'a quoted field is not closed');
        if (text[i] === '"') {
          if (text[i + 1] === '"') { value += '"'; i += 2; continue; }
          i++;
          break;
        }
        value += text[i++];
      }
      while (text[i] === ' ') i++;
      if (i < text.length && text[i] !== sep) throw bad(field, line, `text after a quoted field: '${text.slice(i, i + 20)}'`);
    } else {
      const j = text.indexOf(sep, i);
      value = (j === -1 ? text.slice(i) : text.slice(i, j)).trim();
      i = j === -1 ? text.length : j;
    }
    out.push(value);
    if (i >= text.length) return out;
    i++; // the separator
  }
}

/** Parses CSV text (or UTF-8 bytes) into named numeric columns; `field` names the input in errors. */
export function readCsv(input: string | Uint8Array, field = 'data', maxRows = 100_000): Table {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(input); } catch { throw refuse('INVALID_INPUT', `${field}: the CSV file is not valid UTF-8 text`, { issues: [{ path: field, message: 'not UTF-8 text' }] }); }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rawLines = text.split(/\r\n|\n|\r/);
  let names: string[] | null = null, sep = ',';
  const columns: Record<string, number[]> = {};
  const lines: number[] = [];
  for (let k = 0; k < rawLines.length; k++) {
    const lineNo = k + 1;
    const raw = rawLines[k];
    if (!raw.trim() || raw.trimStart().startsWith('#')) continue;
    if (!names) {
      sep = raw.includes(',') ? ',' : raw.includes(';') ? ';' : raw.includes('\t') ? '\t' : ',';
      names = splitFields(raw, sep, field, lineNo);
      const seen = new Set<string>();
      names.forEach((nm, idx) => {
        if (!NAME_RE.test(nm)) throw bad(field, lineNo, `header column ${idx + 1} '${nm.slice(0, 40)}' is not a name (a letter or _ then letters, digits or _, at most 64 characters); the first line must name the columns`);
        if (seen.has(nm)) throw bad(field, lineNo, `header names column '${nm}' twice`);
        seen.add(nm);
        columns[nm] = [];
      });
      continue;
    }
    const cells = splitFields(raw, sep, field, lineNo);
    if (cells.length !== names.length) throw bad(field, lineNo, `${cells.length} field${cells.length === 1 ? '' : 's'}, but the header names ${names.length} columns (${names.join(', ')})`);
    if (lines.length >= maxRows) throw refuse('INVALID_INPUT', `${field}: more than ${maxRows} data rows (line ${lineNo})`, { issues: [{ path: field, message: `at most ${maxRows} rows` }] });
    cells.forEach((cell, idx) => {
      const v = NUMBER_RE.test(cell) ? Number(cell) : NaN;
      if (!Number.isFinite(v)) throw bad(field, lineNo, `column '${names![idx]}' holds '${cell.slice(0, 40)}', not a finite number`);
      columns[names![idx]].push(v);
    });
    lines.push(lineNo);
  }
  if (!names) throw refuse('INVALID_INPUT', `${field}: the CSV text is empty: give a header line naming the columns, then rows of numbers`, { issues: [{ path: field, message: 'empty CSV' }] });
  return { names, columns, lines };
}
