// MPS reader, fixed and free form (IBM MPSX, "Mathematical Programming System Extended",
// IBM SH20-0968, 1971; the de-facto rules as written down by Murtagh, "Advanced Linear
// Programming", McGraw-Hill 1981, ch. 9, and in the lp_solve / CPLEX / Gurobi MPS references):
//   NAME, ROWS (N, E, L, G), COLUMNS (with 'MARKER' 'INTORG'/'INTEND' integer sections), RHS,
//   RANGES, BOUNDS (UP, LO, FX, FR, MI, PL, BV, LI, UI), ENDATA, and OBJSENSE (MAX/MIN, on the
//   same line or the next) where present. Lines starting with '*' are comments.
// Conventions (docs/solvers-lp.md): the first N row is the objective and further N rows are
// dropped (the Netlib readme's rule); an RHS entry on the objective row is minus the objective
// constant; RANGES R on a row with right-hand side b gives E: [b, b+|R|] (R > 0) or
// [b−|R|, b] (R < 0), L: [b−|R|, b], G: [b, b+|R|]; an UP bound below 0 on a column whose lower
// bound is still the default 0 makes the lower bound −∞ (as CPLEX and GLPK do); integer columns
// keep the default bounds [0, +∞) unless BOUNDS say otherwise; BV is [0, 1] integer.
// Fields are split on whitespace (free MPS); a line whose field count does not fit is read by
// the fixed columns 2-3, 5-12, 15-22, 25-36, 40-47, 50-61 instead (names with spaces).
// Every malformed line is a 400 naming its 1-based line number.
import { refuse } from '../../../core/errors.ts';
import { LP_LIMITS, cscFromEntries, fileText, type LpModel } from './model.ts';

const fail = (line: number, what: string) => refuse('INVALID_INPUT', `mps line ${line}: ${what}`, { field: 'mps', line });

function fixedFields(raw: string): string[] {
  const f = (a: number, b: number) => raw.slice(a, b).trim();
  const out = [f(1, 3), f(4, 12), f(14, 22), f(24, 36), f(39, 47), f(49, 61)];
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

function num(tok: string | undefined, line: number, what: string): number {
  if (tok === undefined) throw fail(line, `missing ${what}`);
  const v = Number(tok.replace(/[dD]/, 'e'));
  if (!Number.isFinite(v) && !/^[+-]?inf(inity)?$/i.test(tok)) throw fail(line, `${what} '${tok.slice(0, 30)}' is not a number`);
  return Number.isFinite(v) ? v : (tok.startsWith('-') ? -Infinity : Infinity);
}

export function parseMps(input: string | Uint8Array): LpModel {
  const text = fileText(input);
  if (text.length > LP_LIMITS.maxTextBytes) throw refuse('INVALID_INPUT', `the MPS text is longer than ${LP_LIMITS.maxTextBytes} characters`, { field: 'mps' });
  const lines = text.split(/\r?\n/);
  let name = '';
  let sense: 'min' | 'max' = 'min';
  let section = '';
  let objName: string | null = null;
  const rowIndex = new Map<string, number>();
  const freeRows = new Set<string>();
  const rowNames: string[] = [];
  const rowType: string[] = [];
  const colIndex = new Map<string, number>();
  const colNames: string[] = [];
  const integer: number[] = [];
  const ti: number[] = [], tj: number[] = [], tv: number[] = [];
  const cObj: number[] = [];
  let rhs: Float64Array | null = null;
  let range: Float64Array | null = null;
  let objConst = 0;
  let inInteger = false;
  let rhsSetName: string | null = null, rangeSetName: string | null = null, boundSetName: string | null = null;
  let lo: number[] = [], up: number[] = [];
  let loSet: Uint8Array = new Uint8Array(0);
  let ended = false;
  let lastCol = -1;

  const ensureRowArrays = () => {
    if (!rhs) { rhs = new Float64Array(rowNames.length); range = new Float64Array(rowNames.length).fill(NaN); }
  };
  const ensureBounds = () => {
    if (loSet.length !== colNames.length) {
      lo = colNames.map(() => 0); up = colNames.map(() => Infinity);
      loSet = new Uint8Array(colNames.length);
    }
  };

  for (let ln = 0; ln < lines.length && !ended; ln++) {
    const lineNo = ln + 1;
    const raw = lines[ln];
    if (raw.trim() === '' || raw[0] === '*') continue;
    const isHeader = raw[0] !== ' ' && raw[0] !== '\t';
    let toks = raw.trim().split(/\s+/);
    if (isHeader) {
      const head = toks[0].toUpperCase();
      switch (head) {
        case 'NAME': name = raw.trim().slice(4).trim(); section = 'NAME'; continue;
        case 'ROWS': case 'COLUMNS': case 'RHS': case 'RANGES': case 'BOUNDS':
          if (head === 'COLUMNS' && objName === null) throw fail(lineNo, 'no objective row (type N) in ROWS');
          section = head; if (head !== 'ROWS' && head !== 'COLUMNS') { ensureRowArrays(); ensureBounds(); }
          continue;
        case 'OBJSENSE': {
          section = 'OBJSENSE';
          if (toks.length > 1) { sense = parseSense(toks[1], lineNo); section = ''; }
          continue;
        }
        case 'OBJSENSE:': section = 'OBJSENSE'; continue;
        case 'ENDATA': ended = true; continue;
        case 'MAX': case 'MAXIMIZE': case 'MIN': case 'MINIMIZE':
          if (section === 'OBJSENSE') { sense = parseSense(head, lineNo); section = ''; continue; }
          throw fail(lineNo, `unexpected '${head}' outside OBJSENSE`);
        case 'OBJSENSE MAX': continue;
        case 'SOS': case 'QUADOBJ': case 'QMATRIX': case 'QSECTION': case 'QCMATRIX': case 'INDICATORS':
          throw fail(lineNo, `section ${head} is not supported (linear and mixed-integer linear programs only)`);
        default:
          throw fail(lineNo, `unknown section '${toks[0].slice(0, 30)}'`);
      }
    }
    switch (section) {
      case 'OBJSENSE': sense = parseSense(toks[0], lineNo); section = ''; break;
      case 'ROWS': {
        if (toks.length !== 2) { const f = fixedFields(raw); if (f.length === 2) toks = f; else throw fail(lineNo, 'a ROWS line is a type (N, E, L, G) and a row name'); }
        const t = toks[0].toUpperCase(), nm = toks[1];
        if (!['N', 'E', 'L', 'G'].includes(t)) throw fail(lineNo, `row type '${toks[0]}' is not N, E, L or G`);
        if (rowIndex.has(nm) || nm === objName || freeRows.has(nm)) throw fail(lineNo, `row '${nm}' is defined twice`);
        if (t === 'N') { if (objName === null) objName = nm; else freeRows.add(nm); break; }
        if (rowNames.length >= LP_LIMITS.maxRows) throw fail(lineNo, `more than ${LP_LIMITS.maxRows} rows`);
        rowIndex.set(nm, rowNames.length); rowNames.push(nm); rowType.push(t);
        break;
      }
      case 'COLUMNS': {
        if (toks.length >= 3 && (toks[1] === "'MARKER'" || toks[1].toUpperCase() === "'MARKER'")) {
          const kind = toks[2].toUpperCase();
          if (kind === "'INTORG'") inInteger = true; else if (kind === "'INTEND'") inInteger = false;
          else throw fail(lineNo, `unknown marker ${toks[2]} (expected 'INTORG' or 'INTEND')`);
          break;
        }
        const knownRow = (t: string) => rowIndex.has(t) || t === objName || freeRows.has(t);
        const isNum = (t: string | undefined) => t !== undefined && !Number.isNaN(Number(t.replace(/[dD]/, 'e')));
        const freeOk = (toks.length === 3 || toks.length === 5) && knownRow(toks[1]) && isNum(toks[2]) && (toks.length === 3 || (knownRow(toks[3]) && isNum(toks[4])));
        if (!freeOk) {
          const f = fixedFields(raw);
          if ((f.length === 4 || f.length === 6) && knownRow(f[2])) toks = f.slice(1);
          else if (toks.length !== 3 && toks.length !== 5) throw fail(lineNo, 'a COLUMNS line is a column name and one or two (row, value) pairs');
        }
        const cn = toks[0];
        let j = colIndex.get(cn);
        if (j === undefined) {
          if (colNames.length >= LP_LIMITS.maxCols) throw fail(lineNo, `more than ${LP_LIMITS.maxCols} columns`);
          j = colNames.length; colIndex.set(cn, j); colNames.push(cn); integer.push(inInteger ? 1 : 0); cObj.push(0);
        } else if (j !== lastCol) throw fail(lineNo, `the entries of column '${cn}' are not contiguous`);
        lastCol = j;
        for (let k = 1; k + 1 < toks.length; k += 2) {
          const rn = toks[k], v = num(toks[k + 1], lineNo, 'coefficient');
          if (!Number.isFinite(v)) throw fail(lineNo, 'a coefficient must be finite');
          if (rn === objName) { cObj[j] += v; continue; }
          if (freeRows.has(rn)) continue;
          const i = rowIndex.get(rn);
          if (i === undefined) throw fail(lineNo, `row '${rn.slice(0, 30)}' is not declared in ROWS`);
          if (ti.length >= LP_LIMITS.maxNonzeros) throw fail(lineNo, `more than ${LP_LIMITS.maxNonzeros} nonzeros`);
          ti.push(i); tj.push(j); tv.push(v);
        }
        break;
      }
      case 'RHS': case 'RANGES': {
        // [set name] row value [row value]
        const isRows = (t: string | undefined) => t !== undefined && (rowIndex.has(t) || t === objName || freeRows.has(t));
        let start = 0;
        if (toks.length === 3 || toks.length === 5) start = 1;
        else if (toks.length === 2 || toks.length === 4) start = isRows(toks[0]) ? 0 : -1;
        else start = -1;
        if (start === 1 && !isRows(toks[1])) start = -1;
        if (start === 1 && toks.length === 5 && !isRows(toks[3])) start = -1;
        if (start === 0 && toks.length === 4 && !isRows(toks[2])) start = -1;
        if (start < 0) {
          const f = fixedFields(raw);
          if ((f.length === 4 || f.length === 6) && isRows(f[2])) { toks = f.slice(2); start = 0; }
          else if (toks.length >= 2 && !isRows(toks[toks.length === 3 || toks.length === 5 ? 1 : 0])) throw fail(lineNo, `row '${(toks.length === 3 || toks.length === 5 ? toks[1] : toks[0]).slice(0, 30)}' is not declared in ROWS`);
          else throw fail(lineNo, `a ${section} line is [set name] row value [row value]`);
          const set = f[1];
          if (section === 'RHS') { if (rhsSetName === null) rhsSetName = set; else if (set !== rhsSetName) break; }
          else { if (rangeSetName === null) rangeSetName = set; else if (set !== rangeSetName) break; }
        }
        if (start === 1) {
          const set = toks[0];
          if (section === 'RHS') { if (rhsSetName === null) rhsSetName = set; else if (set !== rhsSetName) break; }
          else { if (rangeSetName === null) rangeSetName = set; else if (set !== rangeSetName) break; }
        }
        for (let k = start; k + 1 < toks.length; k += 2) {
          const rn = toks[k], v = num(toks[k + 1], lineNo, 'value');
          if (rn === objName) { if (section === 'RHS') objConst = -v; else throw fail(lineNo, 'a range on the objective row'); continue; }
          if (freeRows.has(rn)) continue;
          const i = rowIndex.get(rn);
          if (i === undefined) throw fail(lineNo, `row '${rn.slice(0, 30)}' is not declared in ROWS`);
          if (!Number.isFinite(v)) throw fail(lineNo, `${section === 'RHS' ? 'a right-hand side' : 'a range'} must be finite`);
          if (section === 'RHS') rhs![i] = v; else range![i] = v;
        }
        break;
      }
      case 'BOUNDS': {
        const type = toks[0].toUpperCase();
        const noValue = type === 'FR' || type === 'MI' || type === 'PL' || type === 'BV';
        if (!['UP', 'LO', 'FX', 'FR', 'MI', 'PL', 'BV', 'LI', 'UI'].includes(type)) {
          if (type === 'SC') throw fail(lineNo, 'semi-continuous bounds (SC) are not supported');
          throw fail(lineNo, `bound type '${toks[0].slice(0, 10)}' is not one of UP, LO, FX, FR, MI, PL, BV, LI, UI`);
        }
        let col: string, valTok: string | undefined, set: string | null = null;
        const want = noValue ? 2 : 3;
        if (toks.length === want + 1) { set = toks[1]; col = toks[2]; valTok = toks[3]; }
        else if (toks.length === want) { col = toks[1]; valTok = toks[2]; }
        else if (noValue && toks.length === want + 2) { set = toks[1]; col = toks[2]; } // BV with a value 1
        else {
          const f = fixedFields(raw);
          if (f.length >= 3) { set = f[1]; col = f[2]; valTok = f[3]; } else throw fail(lineNo, 'a BOUNDS line is type [set name] column [value]');
        }
        if (!colIndex.has(col) && set !== null && colIndex.has(set) && toks.length === want + 1 && noValue) { col = set; set = null; }
        if (set !== null) { if (boundSetName === null) boundSetName = set; else if (set !== boundSetName) break; }
        const j = colIndex.get(col);
        if (j === undefined) throw fail(lineNo, `column '${col.slice(0, 30)}' is not declared in COLUMNS`);
        const v = noValue ? 0 : num(valTok, lineNo, 'bound value');
        switch (type) {
          case 'UP': case 'UI':
            up[j] = v; if (v < 0 && !loSet[j] && lo[j] === 0) lo[j] = -Infinity;
            if (type === 'UI') integer[j] = 1;
            break;
          case 'LO': case 'LI': lo[j] = v; loSet[j] = 1; if (type === 'LI') integer[j] = 1; break;
          case 'FX': if (!Number.isFinite(v)) throw fail(lineNo, 'a fixed bound must be finite'); lo[j] = v; up[j] = v; loSet[j] = 1; break;
          case 'FR': lo[j] = -Infinity; up[j] = Infinity; loSet[j] = 1; break;
          case 'MI': lo[j] = -Infinity; loSet[j] = 1; break;
          case 'PL': up[j] = Infinity; break;
          case 'BV': lo[j] = 0; up[j] = 1; loSet[j] = 1; integer[j] = 1; break;
        }
        break;
      }
      case 'NAME': case '': throw fail(lineNo, `data line outside a section`);
      default: throw fail(lineNo, `data line outside a section`);
    }
  }
  if (objName === null) throw refuse('INVALID_INPUT', 'mps: no ROWS section with an objective row (type N)', { field: 'mps', line: lines.length });
  ensureRowArrays(); ensureBounds();
  const m = rowNames.length, n = colNames.length;
  const rowLo = new Float64Array(m), rowUp = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const b = rhs![i], r = range![i], t = rowType[i];
    if (t === 'E') { rowLo[i] = b; rowUp[i] = b; if (!Number.isNaN(r)) { if (r >= 0) rowUp[i] = b + Math.abs(r); else rowLo[i] = b - Math.abs(r); } }
    else if (t === 'L') { rowLo[i] = Number.isNaN(r) ? -Infinity : b - Math.abs(r); rowUp[i] = b; }
    else { rowLo[i] = b; rowUp[i] = Number.isNaN(r) ? Infinity : b + Math.abs(r); }
  }
  const colLo = Float64Array.from(lo), colUp = Float64Array.from(up);
  for (let j = 0; j < n; j++) if (colLo[j] > colUp[j]) { /* kept: the model is infeasible, which the solver reports */ }
  const A = cscFromEntries(m, n, ti, tj, tv);
  return {
    name, sense, nRows: m, nCols: n, rowNames, colNames,
    colPtr: A.colPtr, rowIdx: A.rowIdx, vals: A.vals,
    c: Float64Array.from(cObj), objConst, rowLo, rowUp, colLo, colUp, integer: Uint8Array.from(integer),
  };
}

function parseSense(tok: string, line: number): 'min' | 'max' {
  const t = tok.toUpperCase();
  if (t === 'MAX' || t === 'MAXIMIZE' || t === 'MAXIMISE') return 'max';
  if (t === 'MIN' || t === 'MINIMIZE' || t === 'MINIMISE') return 'min';
  throw fail(line, `OBJSENSE '${tok.slice(0, 20)}' is not MAX or MIN`);
}
