// Readers for atomic configurations in the two formats evolve accepts, limited to what a periodic
// orthorhombic Lennard-Jones run needs.
// - Extended XYZ (the libAtoms/QUIP convention, also ASE's `extxyz`; https://github.com/libAtoms/extxyz):
//   line 1 the atom count, line 2 `key=value` pairs (values bare or in double quotes) with
//   `Lattice="ax ay az bx by bz cx cy cz"` (three cell vectors, row by row), `Properties=name:type:count:…`
//   (type S string, R real, I integer, L logical; default `species:S:1:pos:R:3`) and `pbc="T T T"`
//   (default T T T when a Lattice is given, as in ASE); then one line per atom with the Properties
//   columns. `pos` is Cartesian; `vel` (or `velo`) are velocities.
// - LAMMPS data file (read_data, https://docs.lammps.org/read_data.html), atom style atomic: a title
//   line, header lines (`N atoms`, `N atom types`, `xlo xhi`, `ylo yhi`, `zlo zhi`, optional
//   `xy xz yz`, zero counts of bonds, angles, …), then sections `Masses`, `Atoms` (`id type x y z`
//   with optional image flags `ix iy iz`), optional `Velocities` (`id vx vy vz`) and optional
//   `Pair Coeffs` (`type eps sig`, the lj/cut coefficients). `#` starts a comment.
// Both readers refuse what they do not support (a triclinic cell, non-periodic directions, a second
// frame, molecular sections) and every malformed line, with INVALID_INPUT naming the field and the
// 1-based line number.
import { refuse } from '../../core/errors.ts';
import { textOf } from './text.ts';

/** most atoms a configuration may hold */
export const MAX_ATOMS = 20_000;

export interface Configuration {
  format: 'xyz' | 'lammps-data';
  N: number;
  /** box origin (xlo, ylo, zlo; zero for extended XYZ) */
  origin: [number, number, number];
  /** box sides */
  box: [number, number, number];
  /** interleaved x, y, z as in the file (absolute coordinates) */
  pos: Float64Array;
  /** interleaved velocities, or null when the file has none */
  vel: Float64Array | null;
  /** LAMMPS image flags (interleaved), or null */
  img: Int32Array | null;
  /** species key of each atom: the element/species name (XYZ) or the type number (data file) */
  species: string[];
  /** the distinct species keys: in order of first appearance (XYZ), types 1..n (data file) */
  speciesKeys: string[];
  /** 1-based line of each atom (for messages) */
  line: Int32Array;
  /** masses from the data file's Masses section, by type */
  masses: Record<string, number>;
  /** eps, sig from the data file's Pair Coeffs section, by type */
  pairCoeffs: Record<string, { eps: number; sig: number }>;
  /** atom ids (data file) */
  ids: Int32Array | null;
  /** what the reader read but does not use (extra XYZ columns and comment keys) */
  unused: string[];
}

function fail(field: string, line: number | null, message: string): never {
  const text = line === null ? `${field}: ${message}` : `${field} line ${line}: ${message}`;
  throw refuse('INVALID_INPUT', text, { issues: [{ path: field, message: text }], ...(line === null ? {} : { line }) });
}

/** a finite number written as a decimal (no hex, no Infinity, no empty string) */
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d+)?$/;
function parseReal(tok: string | undefined, field: string, line: number, what: string): number {
  if (tok === undefined) fail(field, line, `missing ${what}`);
  if (!NUMBER_RE.test(tok)) fail(field, line, `${what} '${tok}' is not a number`);
  const x = Number(tok.replace(/[dD]/, 'e'));
  if (!Number.isFinite(x)) fail(field, line, `${what} '${tok}' is not finite`);
  return x;
}
function parseInt32(tok: string | undefined, field: string, line: number, what: string, min = -2147483648): number {
  if (tok === undefined) fail(field, line, `missing ${what}`);
  if (!/^[+-]?\d+$/.test(tok)) fail(field, line, `${what} '${tok}' is not an integer`);
  const x = Number(tok);
  if (!Number.isSafeInteger(x) || x < min || x > 2147483647) fail(field, line, `${what} ${tok} is out of range`);
  return x;
}

function splitLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/);
}

/** key=value pairs of an extended XYZ comment line; a bare key is `T` (ASE's convention) */
function parseCommentPairs(s: string, field: string, line: number): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && /\s/.test(s[i])) i++;
    if (i >= n) break;
    let key = '';
    while (i < n && !/[\s=]/.test(s[i])) key += s[i++];
    while (i < n && s[i] === ' ') i++;
    let value = 'T';
    if (s[i] === '=') {
      i++;
      while (i < n && s[i] === ' ') i++;
      if (s[i] === '"') {
        const end = s.indexOf('"', i + 1);
        if (end < 0) fail(field, line, `unterminated quote in the value of ${key}`);
        value = s.slice(i + 1, end);
        i = end + 1;
      } else if (s[i] === '{') {
        const end = s.indexOf('}', i + 1);
        if (end < 0) fail(field, line, `unterminated brace in the value of ${key}`);
        value = s.slice(i + 1, end);
        i = end + 1;
      } else {
        value = '';
        while (i < n && !/\s/.test(s[i])) value += s[i++];
      }
    }
    if (key === '') fail(field, line, 'a value without a key');
    const k = key.toLowerCase();
    if (out.has(k)) fail(field, line, `key ${key} appears twice`);
    out.set(k, value);
  }
  return out;
}

interface Column { name: string; type: 'S' | 'R' | 'I' | 'L'; count: number; first: number }

/** Parses an extended XYZ file (one frame, orthorhombic periodic cell). */
export function parseExtendedXyz(source: string | Uint8Array, field = 'xyz'): Configuration {
  const text = textOf(source);
  const lines = splitLines(text);
  const countLine = lines[0]?.trim() ?? '';
  if (countLine === '') fail(field, 1, 'the first line must be the number of atoms');
  const N = parseInt32(countLine.split(/\s+/)[0], field, 1, 'atom count', 0);
  if (countLine.split(/\s+/).length > 1) fail(field, 1, 'the first line must hold only the number of atoms');
  if (N < 2) fail(field, 1, `at least 2 atoms are needed, the file declares ${N}`);
  if (N > MAX_ATOMS) fail(field, 1, `at most ${MAX_ATOMS} atoms are accepted, the file declares ${N}`);
  if (lines.length < 2) fail(field, 2, 'the comment line (Lattice, Properties, pbc) is missing');
  const info = parseCommentPairs(lines[1], field, 2);
  const unused: string[] = [];

  // cell
  const lat = info.get('lattice');
  if (lat === undefined) fail(field, 2, 'a Lattice="ax ay az bx by bz cx cy cz" key is required (the run is periodic)');
  const lv = lat.trim().split(/[\s,]+/);
  if (lv.length !== 9) fail(field, 2, `Lattice needs 9 numbers, got ${lv.length}`);
  const L = lv.map((t, k) => parseReal(t, field, 2, `Lattice component ${k + 1}`));
  const box: [number, number, number] = [L[0], L[4], L[8]];
  for (const k of [1, 2, 3, 5, 6, 7]) {
    if (L[k] !== 0) fail(field, 2, 'the Lattice is not orthorhombic (off-diagonal components must be 0): triclinic cells are not supported');
  }
  for (let d = 0; d < 3; d++) if (!(box[d] > 0)) fail(field, 2, `Lattice vector ${'abc'[d]} must point along +${'xyz'[d]} with positive length`);
  const pbc = info.get('pbc');
  if (pbc !== undefined) {
    const p = pbc.trim().split(/\s+/);
    if (p.length !== 3 || p.some((x) => !/^(T|F|True|False|1|0)$/i.test(x))) fail(field, 2, `pbc must be three logicals such as "T T T", got "${pbc}"`);
    if (p.some((x) => /^(F|False|0)$/i.test(x))) fail(field, 2, 'the run is periodic in all three directions: pbc must be "T T T"');
  }

  // columns
  const propText = info.get('properties') ?? 'species:S:1:pos:R:3';
  const pt = propText.split(':');
  if (pt.length % 3 !== 0 || pt.length === 0) fail(field, 2, `Properties must be name:type:count triples, got "${propText}"`);
  const cols: Column[] = [];
  let width = 0;
  for (let k = 0; k < pt.length; k += 3) {
    const name = pt[k], type = pt[k + 1].toUpperCase(), count = Number(pt[k + 2]);
    if (!/^[A-Za-z_][\w-]*$/.test(name)) fail(field, 2, `Properties: bad name "${name}"`);
    if (!['S', 'R', 'I', 'L'].includes(type)) fail(field, 2, `Properties: type of ${name} must be S, R, I or L, got "${pt[k + 1]}"`);
    if (!Number.isInteger(count) || count < 1 || count > 100) fail(field, 2, `Properties: count of ${name} must be a positive integer, got "${pt[k + 2]}"`);
    if (cols.some((c) => c.name.toLowerCase() === name.toLowerCase())) fail(field, 2, `Properties: ${name} appears twice`);
    cols.push({ name, type: type as Column['type'], count, first: width });
    width += count;
  }
  const find = (names: string[]) => cols.find((c) => names.includes(c.name.toLowerCase()));
  const spCol = find(['species']);
  const posCol = find(['pos']);
  const velCol = find(['vel', 'velo', 'velocities']);
  if (!spCol || spCol.type !== 'S' || spCol.count !== 1) fail(field, 2, 'Properties must contain species:S:1');
  if (!posCol || posCol.type !== 'R' || posCol.count !== 3) fail(field, 2, 'Properties must contain pos:R:3');
  if (velCol && (velCol.type !== 'R' || velCol.count !== 3)) fail(field, 2, `Properties: ${velCol.name} must be R:3`);
  for (const c of cols) if (c !== spCol && c !== posCol && c !== velCol) unused.push(`column ${c.name}`);
  for (const k of info.keys()) if (!['lattice', 'properties', 'pbc'].includes(k)) unused.push(`comment key ${k}`);

  const pos = new Float64Array(3 * N);
  const vel = velCol ? new Float64Array(3 * N) : null;
  const species: string[] = new Array(N);
  const speciesKeys: string[] = [];
  const seen = new Set<string>();
  const lineOf = new Int32Array(N);
  for (let a = 0; a < N; a++) {
    const ln = a + 3;
    const raw = lines[a + 2];
    if (raw === undefined || raw.trim() === '') fail(field, ln, `expected atom ${a + 1} of ${N}, found ${raw === undefined ? 'the end of the file' : 'an empty line'}`);
    const tok = raw.trim().split(/\s+/);
    if (tok.length !== width) fail(field, ln, `expected ${width} columns (${propText}), found ${tok.length}`);
    for (const c of cols) {
      for (let k = 0; k < c.count; k++) {
        const t = tok[c.first + k];
        if (c.type === 'R') parseReal(t, field, ln, `${c.name}`);
        else if (c.type === 'I') parseInt32(t, field, ln, `${c.name}`);
        else if (c.type === 'L' && !/^(T|F|True|False)$/i.test(t)) fail(field, ln, `${c.name} '${t}' is not a logical (T or F)`);
      }
    }
    const sp = tok[spCol.first];
    species[a] = sp;
    if (!seen.has(sp)) { seen.add(sp); speciesKeys.push(sp); }
    for (let d = 0; d < 3; d++) pos[3 * a + d] = Number(tok[posCol.first + d].replace(/[dD]/, 'e'));
    if (vel && velCol) for (let d = 0; d < 3; d++) vel[3 * a + d] = Number(tok[velCol.first + d].replace(/[dD]/, 'e'));
    lineOf[a] = ln;
  }
  for (let k = N + 2; k < lines.length; k++) {
    if (lines[k].trim() !== '') fail(field, k + 1, `unexpected content after the ${N} atoms (only one frame is accepted)`);
  }
  return {
    format: 'xyz', N, origin: [0, 0, 0], box, pos, vel, img: null, species, speciesKeys, line: lineOf,
    masses: {}, pairCoeffs: {}, ids: null, unused,
  };
}

/** header keywords whose count must be zero in atom style atomic */
const MOLECULAR_COUNTS = ['bonds', 'angles', 'dihedrals', 'impropers', 'bond types', 'angle types', 'dihedral types', 'improper types', 'ellipsoids', 'lines', 'triangles', 'bodies'];
const MOLECULAR_SECTIONS = ['Bonds', 'Angles', 'Dihedrals', 'Impropers', 'Bond Coeffs', 'Angle Coeffs', 'Dihedral Coeffs', 'Improper Coeffs',
  'BondBond Coeffs', 'BondAngle Coeffs', 'MiddleBondTorsion Coeffs', 'EndBondTorsion Coeffs', 'AngleTorsion Coeffs', 'AngleAngleTorsion Coeffs',
  'BondBond13 Coeffs', 'AngleAngle Coeffs', 'Ellipsoids', 'Lines', 'Triangles', 'Bodies', 'PairIJ Coeffs', 'Atom Type Labels',
  'Bond Type Labels', 'Angle Type Labels', 'Dihedral Type Labels', 'Improper Type Labels'];
const SECTIONS = ['Atoms', 'Velocities', 'Masses', 'Pair Coeffs'];

/** Parses a LAMMPS data file in atom style atomic (orthorhombic box). */
export function parseLammpsData(source: string | Uint8Array, field = 'lammpsData'): Configuration {
  const text = textOf(source);
  const lines = splitLines(text);
  // strip comments; the Atoms line's comment names the atom style
  const body = lines.map((l) => { const h = l.indexOf('#'); return (h >= 0 ? l.slice(0, h) : l).trim(); });
  let N = -1, ntypes = -1;
  const lo = [NaN, NaN, NaN], hi = [NaN, NaN, NaN];
  let k = 1; // line 1 is the title
  const isSectionStart = (s: string) => SECTIONS.includes(s) || MOLECULAR_SECTIONS.includes(s);
  for (; k < lines.length; k++) {
    const s = body[k];
    if (s === '') continue;
    if (isSectionStart(s)) break;
    const ln = k + 1;
    const tok = s.split(/\s+/);
    let m: RegExpMatchArray | null;
    if ((m = /^(\S+)\s+atoms$/.exec(s))) {
      if (N >= 0) fail(field, ln, 'the atom count appears twice');
      N = parseInt32(m[1], field, ln, 'atom count', 0);
    } else if ((m = /^(\S+)\s+atom\s+types$/.exec(s))) {
      if (ntypes >= 0) fail(field, ln, 'the atom-type count appears twice');
      ntypes = parseInt32(m[1], field, ln, 'atom-type count', 0);
    } else if ((m = /^(\S+)\s+(\S+)\s+([xyz])lo\s+\3hi$/.exec(s))) {
      const d = 'xyz'.indexOf(m[3]);
      if (!Number.isNaN(lo[d])) fail(field, ln, `${m[3]}lo ${m[3]}hi appears twice`);
      lo[d] = parseReal(m[1], field, ln, `${m[3]}lo`);
      hi[d] = parseReal(m[2], field, ln, `${m[3]}hi`);
      if (!(hi[d] > lo[d])) fail(field, ln, `${m[3]}hi must exceed ${m[3]}lo`);
    } else if (/^\S+\s+\S+\s+\S+\s+xy\s+xz\s+yz$/.test(s)) {
      const t = tok.slice(0, 3).map((x, j) => parseReal(x, field, ln, ['xy', 'xz', 'yz'][j]));
      if (t.some((x) => x !== 0)) fail(field, ln, 'the box is triclinic (nonzero xy xz yz): only orthorhombic boxes are supported');
    } else if ((m = /^(\S+)\s+(.+)$/.exec(s)) && MOLECULAR_COUNTS.includes(m[2].replace(/\s+/g, ' '))) {
      const c = parseInt32(m[1], field, ln, m[2], 0);
      if (c !== 0) fail(field, ln, `${c} ${m[2]}: only atom style atomic (no bonds, angles, …) is supported`);
    } else if ((m = /^(\S+)\s+extra\s+(bond|angle|dihedral|improper|special)\s+per\s+atom$/.exec(s)) ||
      (m = /^(\S+)\s+extra\s+special\s+per\s+atom$/.exec(s))) {
      parseInt32(m[1], field, ln, 'extra count', 0);
    } else {
      fail(field, ln, `unknown header line "${s}"`);
    }
  }
  const hdrLine = Math.min(k + 1, lines.length);
  if (N < 0) fail(field, hdrLine, 'the header must give "N atoms"');
  if (ntypes < 1) fail(field, hdrLine, 'the header must give "N atom types" (at least 1)');
  for (let d = 0; d < 3; d++) if (Number.isNaN(lo[d])) fail(field, hdrLine, `the header must give "${'xyz'[d]}lo ${'xyz'[d]}hi"`);
  if (N < 2) fail(field, hdrLine, `at least 2 atoms are needed, the header declares ${N}`);
  if (N > MAX_ATOMS) fail(field, hdrLine, `at most ${MAX_ATOMS} atoms are accepted, the header declares ${N}`);

  const masses: Record<string, number> = {};
  const pairCoeffs: Record<string, { eps: number; sig: number }> = {};
  const ids = new Int32Array(N);
  const types = new Int32Array(N);
  const pos = new Float64Array(3 * N);
  let img: Int32Array | null = null;
  let vel: Float64Array | null = null;
  const lineOf = new Int32Array(N);
  const idIndex = new Map<number, number>();
  const done = new Set<string>();
  while (k < lines.length) {
    const s = body[k];
    if (s === '') { k++; continue; }
    const ln = k + 1;
    if (MOLECULAR_SECTIONS.includes(s)) fail(field, ln, `section ${s}: only atom style atomic is supported`);
    if (!SECTIONS.includes(s)) fail(field, ln, `unknown section or stray line "${s}"`);
    if (done.has(s)) fail(field, ln, `section ${s} appears twice`);
    done.add(s);
    if (s === 'Atoms') {
      const h = lines[k].indexOf('#');
      const style = h >= 0 ? lines[k].slice(h + 1).trim() : '';
      if (style !== '' && style !== 'atomic') fail(field, ln, `Atoms # ${style}: only atom style atomic is supported`);
    }
    if (s === 'Velocities' && !done.has('Atoms')) fail(field, ln, 'the Velocities section must follow the Atoms section');
    const count = s === 'Atoms' || s === 'Velocities' ? N : ntypes;
    k++;
    // entries: the next `count` non-blank lines
    let got = 0;
    while (got < count) {
      if (k >= lines.length) fail(field, lines.length, `section ${s} ends after ${got} of ${count} lines`);
      const e = body[k];
      const eln = k + 1;
      k++;
      if (e === '') { if (got === 0) continue; fail(field, eln, `section ${s} ends after ${got} of ${count} lines (an empty line)`); }
      if (isSectionStart(e)) fail(field, eln, `section ${s} ends after ${got} of ${count} lines`);
      const tok = e.split(/\s+/);
      if (s === 'Masses') {
        if (tok.length !== 2) fail(field, eln, `a Masses line is "type mass", found ${tok.length} columns`);
        const t = parseInt32(tok[0], field, eln, 'type', 1);
        if (t > ntypes) fail(field, eln, `type ${t} exceeds the ${ntypes} atom types`);
        if (String(t) in masses) fail(field, eln, `type ${t} appears twice in Masses`);
        const m = parseReal(tok[1], field, eln, 'mass');
        if (!(m > 0)) fail(field, eln, `mass ${tok[1]} must be positive`);
        masses[String(t)] = m;
      } else if (s === 'Pair Coeffs') {
        if (tok.length !== 3) fail(field, eln, `a Pair Coeffs line is "type eps sig" (lj/cut without a per-type cutoff), found ${tok.length} columns`);
        const t = parseInt32(tok[0], field, eln, 'type', 1);
        if (t > ntypes) fail(field, eln, `type ${t} exceeds the ${ntypes} atom types`);
        if (String(t) in pairCoeffs) fail(field, eln, `type ${t} appears twice in Pair Coeffs`);
        const eps = parseReal(tok[1], field, eln, 'eps');
        const sig = parseReal(tok[2], field, eln, 'sig');
        if (!(eps >= 0)) fail(field, eln, `eps ${tok[1]} must not be negative`);
        if (!(sig > 0)) fail(field, eln, `sig ${tok[2]} must be positive`);
        pairCoeffs[String(t)] = { eps, sig };
      } else if (s === 'Atoms') {
        if (tok.length !== 5 && tok.length !== 8) fail(field, eln, `an Atoms line (atomic) is "id type x y z [ix iy iz]", found ${tok.length} columns`);
        const id = parseInt32(tok[0], field, eln, 'atom id', 1);
        if (idIndex.has(id)) fail(field, eln, `atom id ${id} appears twice`);
        const t = parseInt32(tok[1], field, eln, 'atom type', 1);
        if (t > ntypes) fail(field, eln, `atom type ${t} exceeds the ${ntypes} atom types`);
        const a = got;
        idIndex.set(id, a);
        ids[a] = id;
        types[a] = t;
        lineOf[a] = eln;
        for (let d = 0; d < 3; d++) pos[3 * a + d] = parseReal(tok[2 + d], field, eln, 'xyz'[d]);
        if (tok.length === 8) {
          if (a === 0) img = new Int32Array(3 * N);
          else if (!img) fail(field, eln, 'image flags must be given on every Atoms line or on none');
          for (let d = 0; d < 3; d++) img![3 * a + d] = parseInt32(tok[5 + d], field, eln, `image flag i${'xyz'[d]}`);
        } else if (img) fail(field, eln, 'image flags must be given on every Atoms line or on none');
      } else {
        if (tok.length !== 4) fail(field, eln, `a Velocities line is "id vx vy vz", found ${tok.length} columns`);
        const id = parseInt32(tok[0], field, eln, 'atom id', 1);
        const a = idIndex.get(id);
        if (a === undefined) fail(field, eln, `atom id ${id} is not in the Atoms section`);
        if (!vel) vel = new Float64Array(3 * N).fill(NaN);
        if (!Number.isNaN(vel[3 * a])) fail(field, eln, `atom id ${id} appears twice in Velocities`);
        for (let d = 0; d < 3; d++) vel[3 * a + d] = parseReal(tok[1 + d], field, eln, `v${'xyz'[d]}`);
      }
      got++;
    }
  }
  if (!done.has('Atoms')) fail(field, lines.length, 'the Atoms section is missing');
  const species = Array.from(types, (t) => String(t));
  const speciesKeys = Array.from({ length: ntypes }, (_, t) => String(t + 1));
  return {
    format: 'lammps-data', N,
    origin: [lo[0], lo[1], lo[2]],
    box: [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]],
    pos, vel, img, species, speciesKeys, line: lineOf, masses, pairCoeffs, ids, unused: [],
  };
}
