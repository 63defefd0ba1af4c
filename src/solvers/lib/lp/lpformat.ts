// CPLEX LP format reader (IBM ILOG CPLEX, "LP file format: algebraic representation", CPLEX
// File Formats Reference Manual, v12; the subset also written by GLPK's glpsol --wlp, HiGHS and
// Gurobi): sections
//   Minimize|Minimum|Min|Maximize|Maximum|Max   [name:] linear expression [+ constant]
//   Subject To|Such That|st|s.t.                [name:] expression (<=|>=|=|<|>|=<|=>) constant
//                                               or ranged: constant <= expression <= constant
//   Bounds                                      x >= l, x <= u, l <= x <= u, x = v, x free
//                                               (±inf / ±infinity allowed)
//   General|Generals|Gen|Integers, Binary|Binaries|Bin (names), End
// Comments start with '\' and run to the end of the line. Variables default to [0, +∞) (a
// Binary is [0, 1] integer); a variable named only in Bounds or a type section is a column with
// zero cost. Constant terms on a constraint's left side move to its right side. Every malformed
// statement is a 400 naming its 1-based line. Semi-continuous, SOS, quadratic and indicator
// sections are refused.
import { refuse } from '../../../core/errors.ts';
import { LP_LIMITS, cscFromEntries, fileText, type LpModel } from './model.ts';

const fail = (line: number, what: string) => refuse('INVALID_INPUT', `lp line ${line}: ${what}`, { field: 'lp', line });

type Tok = { k: 'num' | 'name' | 'op' | 'colon' | 'sign'; v: string; n: number; line: number };

const SECTIONS: [RegExp, string][] = [
  [/^(maximi[sz]e|maximum|max)\b/i, 'max'], [/^(minimi[sz]e|minimum|min)\b/i, 'min'],
  [/^(subject\s+to|such\s+that|s\.t\.|st\.?)(?=\s|$|:)/i, 'st'], [/^bounds?\b/i, 'bounds'],
  [/^(generals?|gen|integers?)\b/i, 'general'], [/^(binary|binaries|bin)\b/i, 'binary'],
  [/^(semi-continuous|semis?|sos[12]?|sos)\b/i, 'unsupported'], [/^end\b/i, 'end'],
];

function tokenize(text: string, line: number, out: Tok[]) {
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ' ' || ch === '\t' || ch === '\r') { i++; continue; }
    if (ch === '\\') break;
    if (ch === ':') { out.push({ k: 'colon', v: ':', n: 0, line }); i++; continue; }
    if (ch === '+' || ch === '-') {
      const m = /^[+-]\s*inf(inity)?\b/i.exec(text.slice(i));
      if (m) { out.push({ k: 'num', v: m[0], n: ch === '-' ? -Infinity : Infinity, line }); i += m[0].length; continue; }
      out.push({ k: 'sign', v: ch, n: ch === '-' ? -1 : 1, line }); i++; continue;
    }
    if (ch === '<' || ch === '>' || ch === '=') {
      let op = ch; i++;
      if (text[i] === '=' || (ch === '=' && (text[i] === '<' || text[i] === '>'))) { op += text[i]; i++; }
      const norm = op === '<' || op === '<=' || op === '=<' ? '<=' : op === '>' || op === '>=' || op === '=>' ? '>=' : '=';
      out.push({ k: 'op', v: norm, n: 0, line }); continue;
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i));
    if (num) { out.push({ k: 'num', v: num[0], n: Number(num[0]), line }); i += num[0].length; continue; }
    const name = /^[A-Za-z_!"#$%&()\/,.;?@'`{}|~][A-Za-z0-9_!"#$%&()\/,.;?@'`{}|~\[\]^]*/.exec(text.slice(i));
    if (name) {
      if (/^inf(inity)?$/i.test(name[0])) { out.push({ k: 'num', v: name[0], n: Infinity, line }); i += name[0].length; continue; }
      out.push({ k: 'name', v: name[0], n: 0, line }); i += name[0].length; continue;
    }
    throw fail(line, `unexpected character '${ch}'`);
  }
}

export function parseLpFormat(input: string | Uint8Array): LpModel {
  const text = fileText(input);
  if (text.length > LP_LIMITS.maxTextBytes) throw refuse('INVALID_INPUT', `the LP text is longer than ${LP_LIMITS.maxTextBytes} characters`, { field: 'lp' });
  const lines = text.split(/\n/);
  const sections: Record<string, Tok[]> = { obj: [], st: [], bounds: [], general: [], binary: [] };
  let sense: 'min' | 'max' | null = null;
  let current: string | null = null;
  let sawEnd = false;
  for (let ln = 0; ln < lines.length && !sawEnd; ln++) {
    let body = lines[ln];
    const trimmed = body.replace(/\\.*$/, '').trim();
    if (trimmed === '') continue;
    for (const [re, name] of SECTIONS) {
      const m = re.exec(trimmed);
      if (!m) continue;
      if (name === 'unsupported') throw fail(ln + 1, `section '${m[0]}' is not supported (linear and mixed-integer linear programs only)`);
      if (name === 'end') { sawEnd = true; break; }
      if (name === 'max' || name === 'min') { if (sense) throw fail(ln + 1, 'a second objective section'); sense = name; current = 'obj'; }
      else { if (!sense) throw fail(ln + 1, 'the objective section (Minimize or Maximize) must come first'); current = name; }
      body = trimmed.slice(m[0].length);
      break;
    }
    if (sawEnd) break;
    if (current === null) throw fail(ln + 1, 'text before the objective section (Minimize or Maximize)');
    tokenize(body, ln + 1, sections[current]);
  }
  if (!sense) throw refuse('INVALID_INPUT', 'lp: no objective section (Minimize or Maximize)', { field: 'lp', line: 1 });

  const colIndex = new Map<string, number>();
  const colNames: string[] = [];
  const col = (name: string, line: number) => {
    let j = colIndex.get(name);
    if (j === undefined) {
      if (colNames.length >= LP_LIMITS.maxCols) throw fail(line, `more than ${LP_LIMITS.maxCols} variables`);
      j = colNames.length; colIndex.set(name, j); colNames.push(name);
    }
    return j;
  };
  /** reads a linear expression from toks[pos]: returns its terms, constant and the next position */
  const expr = (toks: Tok[], pos: number, stopAtOp: boolean) => {
    const terms = new Map<number, number>();
    let constant = 0, any = false;
    while (pos < toks.length) {
      const t = toks[pos];
      if (t.k === 'op' && stopAtOp) break;
      let sign = 1, coef = 1, hasCoef = false, hasSign = false;
      if (toks[pos].k === 'sign') { sign = toks[pos].n; pos++; hasSign = true; }
      else if (any) break; // a new statement starts (no operator between terms)
      if (pos < toks.length && toks[pos].k === 'num') { coef = toks[pos].n; hasCoef = true; pos++; }
      if (pos < toks.length && toks[pos].k === 'name' && !(pos + 1 < toks.length && toks[pos + 1].k === 'colon')) {
        const j = col(toks[pos].v, toks[pos].line);
        terms.set(j, (terms.get(j) ?? 0) + sign * coef); pos++;
      } else if (hasCoef) constant += sign * coef;
      else if (hasSign) throw fail(toks[pos - 1].line, 'a sign with no term after it');
      else break;
      any = true;
    }
    return { terms, constant, pos, any };
  };

  // objective
  const ot = sections.obj;
  let p = 0;
  if (ot.length >= 2 && ot[0].k === 'name' && ot[1].k === 'colon') p = 2;
  const obj = expr(ot, p, false);
  if (obj.pos !== ot.length) throw fail(ot[obj.pos].line, `unexpected '${ot[obj.pos].v}' in the objective`);
  // constraints
  const rowNames: string[] = [];
  const rowLo: number[] = [], rowUp: number[] = [];
  const ti: number[] = [], tj: number[] = [], tv: number[] = [];
  const st = sections.st;
  p = 0;
  while (p < st.length) {
    const line = st[p].line;
    let name = `R${rowNames.length + 1}`;
    if (st[p].k === 'name' && st[p + 1]?.k === 'colon') { name = st[p].v; p += 2; }
    if (rowNames.length >= LP_LIMITS.maxRows) throw fail(line, `more than ${LP_LIMITS.maxRows} constraints`);
    let lo = -Infinity, up = Infinity;
    const signedNum = (q: number): [number, number] | null => {
      let s = 1;
      if (st[q]?.k === 'sign') { s = st[q].n; q++; }
      if (st[q]?.k === 'num') return [s * st[q].n, q + 1];
      return null;
    };
    const lead = signedNum(p);
    let e;
    if (lead && st[lead[1]]?.k === 'op') {
      // ranged: l <= expr <= u (or >= both ways)
      const op1 = st[lead[1]].v;
      e = expr(st, lead[1] + 1, true);
      const op2 = st[e.pos]?.v;
      const rhs = st[e.pos]?.k === 'op' ? signedNum(e.pos + 1) : null;
      if (!rhs || op1 === '=' || op2 !== op1) throw fail(line, 'a ranged constraint is l <= expression <= u');
      if (op1 === '<=') { lo = lead[0]; up = rhs[0]; } else { lo = rhs[0]; up = lead[0]; }
      lo -= e.constant; up -= e.constant;
      p = rhs[1];
    } else {
      e = expr(st, p, true);
      if (!e.any) throw fail(line, `expected a constraint, found '${st[p]?.v ?? 'the end'}'`);
      if (st[e.pos]?.k !== 'op') throw fail(st[Math.min(e.pos, st.length - 1)].line, `constraint '${name}' has no relation (<=, >= or =)`);
      const op = st[e.pos].v;
      const rhs = signedNum(e.pos + 1);
      if (!rhs) throw fail(st[e.pos].line, `constraint '${name}': the right-hand side must be a number`);
      const b = rhs[0] - e.constant;
      if (op === '<=') up = b; else if (op === '>=') lo = b; else { lo = b; up = b; }
      p = rhs[1];
    }
    const i = rowNames.length;
    rowNames.push(name); rowLo.push(lo); rowUp.push(up);
    for (const [j, v] of e.terms) { if (ti.length >= LP_LIMITS.maxNonzeros) throw fail(line, `more than ${LP_LIMITS.maxNonzeros} nonzeros`); ti.push(i); tj.push(j); tv.push(v); }
  }
  // bounds
  const lo = new Map<number, number>(), up = new Map<number, number>();
  const bt = sections.bounds;
  p = 0;
  const bnum = (q: number): [number, number] | null => {
    let s = 1;
    if (bt[q]?.k === 'sign') { s = bt[q].n; q++; }
    if (bt[q]?.k === 'num') return [s * bt[q].n, q + 1];
    return null;
  };
  const setBound = (j: number, op: string, v: number, varOnLeft: boolean) => {
    const isUpper = (op === '<=') === varOnLeft;
    if (op === '=') { lo.set(j, v); up.set(j, v); } else if (isUpper) up.set(j, v); else lo.set(j, v);
  };
  while (p < bt.length) {
    const line = bt[p].line;
    const first = bnum(p);
    if (first) {
      if (bt[first[1]]?.k !== 'op' || bt[first[1] + 1]?.k !== 'name') throw fail(line, 'a bound is x >= l, x <= u, l <= x <= u, x = v or x free');
      const op1 = bt[first[1]].v, j = col(bt[first[1] + 1].v, line);
      setBound(j, op1, first[0], false);
      p = first[1] + 2;
      if (bt[p]?.k === 'op' && bt[p].line === line) {
        const second = bnum(p + 1);
        if (!second) throw fail(line, 'a bound needs a number after the relation');
        setBound(j, bt[p].v, second[0], true);
        p = second[1];
      }
      continue;
    }
    if (bt[p].k !== 'name') throw fail(line, `unexpected '${bt[p].v}' in Bounds`);
    const j = col(bt[p].v, line);
    if (bt[p + 1]?.k === 'name' && /^free$/i.test(bt[p + 1].v)) { lo.set(j, -Infinity); up.set(j, Infinity); p += 2; continue; }
    if (bt[p + 1]?.k !== 'op') throw fail(line, 'a bound is x >= l, x <= u, l <= x <= u, x = v or x free');
    const v = bnum(p + 2);
    if (!v) throw fail(line, 'a bound needs a number after the relation');
    setBound(j, bt[p + 1].v, v[0], true);
    p = v[1];
  }
  const integer = new Map<number, number>();
  for (const t of sections.general) { if (t.k !== 'name') throw fail(t.line, `'${t.v}' is not a variable name`); integer.set(col(t.v, t.line), 1); }
  const binary = new Set<number>();
  for (const t of sections.binary) { if (t.k !== 'name') throw fail(t.line, `'${t.v}' is not a variable name`); const j = col(t.v, t.line); binary.add(j); integer.set(j, 1); }

  const n = colNames.length, m = rowNames.length;
  const c = new Float64Array(n);
  for (const [j, v] of obj.terms) c[j] = v;
  const colLo = Float64Array.from({ length: n }, (_, j) => (binary.has(j) && !lo.has(j) ? 0 : lo.get(j) ?? 0));
  const colUp = Float64Array.from({ length: n }, (_, j) => (binary.has(j) && !up.has(j) ? 1 : up.get(j) ?? Infinity));
  const A = cscFromEntries(m, n, ti, tj, tv);
  return {
    name: 'lp', sense, nRows: m, nCols: n, rowNames, colNames,
    colPtr: A.colPtr, rowIdx: A.rowIdx, vals: A.vals, c, objConst: obj.constant,
    rowLo: Float64Array.from(rowLo), rowUp: Float64Array.from(rowUp), colLo, colUp,
    integer: Uint8Array.from({ length: n }, (_, j) => integer.get(j) ?? 0),
  };
}
