// Matrix Market exchange format reader (Boisvert, Pozo & Remington, "The Matrix Market Exchange
// Formats: Initial Design", NIST IR 5935, 1996; https://math.nist.gov/MatrixMarket/formats.html).
// Reads the `coordinate` form with fields `real`, `integer`, `pattern` and symmetries `general`,
// `symmetric`, `skew-symmetric` (the stored triangle is mirrored: a_ji = a_ij, or −a_ij; a
// pattern entry is 1), and the dense `array` form `real`/`integer` `general` (a right-hand side).
// `complex` and `hermitian` are refused by name. Indices are 1-based in the file and 0-based here.
// Every malformed line is an INVALID_INPUT naming its line number (counted from 1, the header and
// comments included). Text may come as a string or as UTF-8 bytes (a blob).
import { refuse } from '../../../core/errors.ts';

export interface MatrixMarketCoordinate {
  rows: number;
  cols: number;
  /** entries after the symmetric expansion, 0-based */
  ri: Int32Array;
  ci: Int32Array;
  vals: Float64Array;
  /** entries as stored in the file */
  storedEntries: number;
  field: 'real' | 'integer' | 'pattern';
  symmetry: 'general' | 'symmetric' | 'skew-symmetric';
}

const asText = (input: string | Uint8Array): string => typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: false }).decode(input);

const bad = (field: string, line: number, why: string) => refuse('INVALID_INPUT', `${field}: line ${line}: ${why}`, { line });

/** Iterates the lines of `text` with their 1-based numbers (no allocation of a line array). */
function* lines(text: string): Generator<[string, number]> {
  let start = 0, no = 1;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    yield [line, no];
    if (end >= text.length) break;
    start = end + 1; no++;
  }
}

function parseHeader(line: string | undefined, field: string): { format: string; fieldType: string; symmetry: string } {
  const m = /^%%MatrixMarket\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/i.exec(line ?? '');
  if (!m) throw bad(field, 1, 'the first line must be the banner `%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> <general|symmetric|skew-symmetric>`');
  const [object, format, fieldType, symmetry] = [m[1], m[2], m[3], m[4]].map((s) => s.toLowerCase());
  if (object !== 'matrix') throw bad(field, 1, `object '${object}' is not supported (only 'matrix')`);
  if (format !== 'coordinate' && format !== 'array') throw bad(field, 1, `format '${format}' is unknown (coordinate or array)`);
  if (fieldType === 'complex') throw bad(field, 1, "complex matrices are not supported (real, integer or pattern)");
  if (!['real', 'integer', 'pattern', 'double'].includes(fieldType)) throw bad(field, 1, `field '${fieldType}' is unknown (real, integer or pattern)`);
  if (symmetry === 'hermitian') throw bad(field, 1, "hermitian symmetry is not supported (general, symmetric or skew-symmetric)");
  if (!['general', 'symmetric', 'skew-symmetric'].includes(symmetry)) throw bad(field, 1, `symmetry '${symmetry}' is unknown (general, symmetric or skew-symmetric)`);
  if (format === 'array' && fieldType === 'pattern') throw bad(field, 1, 'an array cannot have the pattern field');
  return { format, fieldType: fieldType === 'double' ? 'real' : fieldType, symmetry };
}

const TOKEN = /\S+/g;
function tokens(line: string): string[] { return line.match(TOKEN) ?? []; }

function parseIndex(tok: string, max: number, field: string, line: number, what: string): number {
  if (!/^\d+$/.test(tok)) throw bad(field, line, `${what} '${tok}' is not a positive integer`);
  const v = Number(tok);
  if (v < 1 || v > max) throw bad(field, line, `${what} ${v} is outside 1..${max}`);
  return v - 1;
}

function parseValue(tok: string | undefined, integer: boolean, field: string, line: number): number {
  if (tok === undefined) throw bad(field, line, 'the value is missing');
  if (integer ? !/^[+-]?\d+$/.test(tok) : !/^[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d+)?$/.test(tok)) {
    throw bad(field, line, `'${tok}' is not ${integer ? 'an integer' : 'a real number'}`);
  }
  const v = Number(tok.replace(/[dD]/, 'e'));
  if (!Number.isFinite(v)) throw bad(field, line, `'${tok}' overflows a double`);
  return v;
}

/** Reads a coordinate matrix. Limits: `maxEntries` stored entries, `maxDim` rows or columns. */
export function readMatrixMarket(input: string | Uint8Array, opts: { field?: string; maxEntries?: number; maxDim?: number } = {}): MatrixMarketCoordinate {
  const field = opts.field ?? 'matrix';
  const maxEntries = opts.maxEntries ?? 2_000_000;
  const maxDim = opts.maxDim ?? 2_000_000;
  const it = lines(asText(input));
  const first = it.next();
  const h = parseHeader(first.done ? undefined : first.value[0], field);
  if (h.format !== 'coordinate') throw bad(field, 1, 'a matrix must be in the coordinate format (array is for a right-hand side)');
  let size: number[] | null = null;
  let ri = new Int32Array(0), ci = new Int32Array(0), vv = new Float64Array(0);
  let stored = 0, expanded = 0, sizeLine = 0;
  const integer = h.fieldType === 'integer', pattern = h.fieldType === 'pattern';
  const sym = h.symmetry;
  for (const [line, no] of it) {
    if (line.startsWith('%')) continue;
    const tk = tokens(line);
    if (!tk.length) continue;
    if (!size) {
      if (tk.length !== 3 || !tk.every((t) => /^\d+$/.test(t))) throw bad(field, no, 'the size line must be `<rows> <columns> <entries>`');
      size = tk.map(Number);
      sizeLine = no;
      const [m, n, nnz] = size;
      if (m < 1 || n < 1) throw bad(field, no, 'the matrix has no rows or no columns');
      if (m > maxDim || n > maxDim) throw bad(field, no, `${m}×${n} exceeds the limit of ${maxDim} rows or columns`);
      if (nnz > maxEntries) throw bad(field, no, `${nnz} entries exceed the limit of ${maxEntries}`);
      if (sym !== 'general' && m !== n) throw bad(field, no, `a ${sym} matrix must be square (${m}×${n})`);
      const cap = sym === 'general' ? nnz : 2 * nnz;
      ri = new Int32Array(cap); ci = new Int32Array(cap); vv = new Float64Array(cap);
      continue;
    }
    const [m, n, nnz] = size;
    if (stored >= nnz) throw bad(field, no, `more entries than the ${nnz} the size line (line ${sizeLine}) announces`);
    if (tk.length !== (pattern ? 2 : 3)) throw bad(field, no, `an entry is \`<row> <column>${pattern ? '' : ' <value>'}\` (${tk.length} fields here)`);
    const i = parseIndex(tk[0], m, field, no, 'row');
    const j = parseIndex(tk[1], n, field, no, 'column');
    const v = pattern ? 1 : parseValue(tk[2], integer, field, no);
    if (sym !== 'general' && i < j) throw bad(field, no, `a ${sym} file stores the lower triangle only (row ${i + 1} < column ${j + 1})`);
    if (sym === 'skew-symmetric' && i === j) throw bad(field, no, 'a skew-symmetric matrix has no diagonal entries');
    stored++;
    ri[expanded] = i; ci[expanded] = j; vv[expanded] = v; expanded++;
    if (sym !== 'general' && i !== j) { ri[expanded] = j; ci[expanded] = i; vv[expanded] = sym === 'symmetric' ? v : -v; expanded++; }
  }
  if (!size) throw bad(field, 1, 'the size line `<rows> <columns> <entries>` is missing');
  if (stored !== size[2]) throw bad(field, sizeLine, `the size line announces ${size[2]} entries, the file has ${stored}`);
  return {
    rows: size[0], cols: size[1], ri: ri.slice(0, expanded), ci: ci.slice(0, expanded), vals: vv.slice(0, expanded),
    storedEntries: stored, field: h.fieldType as MatrixMarketCoordinate['field'], symmetry: sym as MatrixMarketCoordinate['symmetry'],
  };
}

/** Reads a dense Matrix Market `array` (column-major) or a coordinate vector as a vector of length n. */
export function readMatrixMarketVector(input: string | Uint8Array, n: number, opts: { field?: string } = {}): Float64Array {
  const field = opts.field ?? 'rhs';
  const text = asText(input);
  const firstLine = text.slice(0, Math.max(0, text.indexOf('\n')) || text.length);
  const h = parseHeader(firstLine.replace(/\r$/, ''), field);
  if (h.format === 'coordinate') {
    const m = readMatrixMarket(text, { field, maxDim: Math.max(n, 1) });
    if (m.cols !== 1 || m.rows !== n) throw bad(field, 1, `a right-hand side must be ${n}×1 (this one is ${m.rows}×${m.cols})`);
    const b = new Float64Array(n);
    for (let k = 0; k < m.ri.length; k++) b[m.ri[k]] += m.vals[k];
    return b;
  }
  if (h.symmetry !== 'general') throw bad(field, 1, 'a right-hand side array must be general');
  const out = new Float64Array(n);
  let size: number[] | null = null, k = 0, sizeLine = 0;
  for (const [line, no] of lines(text)) {
    if (no === 1 || line.startsWith('%')) continue;
    const tk = tokens(line);
    if (!tk.length) continue;
    if (!size) {
      if (tk.length !== 2 || !tk.every((t) => /^\d+$/.test(t))) throw bad(field, no, 'the size line of an array must be `<rows> <columns>`');
      size = tk.map(Number); sizeLine = no;
      if (size[1] !== 1 || size[0] !== n) throw bad(field, no, `a right-hand side must be ${n}×1 (this one is ${size[0]}×${size[1]})`);
      continue;
    }
    if (tk.length !== 1) throw bad(field, no, `an array entry is one value per line (${tk.length} here)`);
    if (k >= n) throw bad(field, no, `more values than the ${n} the size line (line ${sizeLine}) announces`);
    out[k++] = parseValue(tk[0], h.fieldType === 'integer', field, no);
  }
  if (!size) throw bad(field, 1, 'the size line `<rows> <columns>` is missing');
  if (k !== n) throw bad(field, sizeLine, `the size line announces ${n} values, the file has ${k}`);
  return out;
}

/** Writes a coordinate matrix (general, real) as Matrix Market text: for tests and the bench. */
export function writeMatrixMarket(n: number, ri: ArrayLike<number>, ci: ArrayLike<number>, vals: ArrayLike<number>, symmetric = false): string {
  const out: string[] = [`%%MatrixMarket matrix coordinate real ${symmetric ? 'symmetric' : 'general'}`];
  const keep: number[] = [];
  for (let k = 0; k < ri.length; k++) if (!symmetric || ri[k] >= ci[k]) keep.push(k);
  out.push(`${n} ${n} ${keep.length}`);
  for (const k of keep) out.push(`${ri[k] + 1} ${ci[k] + 1} ${vals[k]}`);
  return out.join('\n') + '\n';
}
