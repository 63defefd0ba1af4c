// The user mode of the grid solvers heat and wave: the caller's own initial condition (an expression
// in x, y or an array of node values), per-side boundary conditions, domain lengths, a source term and
// probe points, with a Richardson error estimate. The time stepping lives in each solver; this file
// holds what both share: the input fields and their checks, the node-centred grid with one ghost
// layer, the boundary conditions, the implicit line solves, interpolation, and the estimate.
//
// Grid. Nodes x_i = i·dx, i = 0..nx, dx = Lx/nx (and y_j likewise): second-order central
// differences, δ²u_i = u_{i−1} − 2u_i + u_{i+1}. Each side is one of
//  - Dirichlet u = g: the boundary node holds g(t) and is never updated; where two Dirichlet sides
//    meet, the corner node holds the mean of the two values (no interior stencil reads it);
//  - Neumann ∂u/∂n = g (outward normal derivative): the boundary node is an unknown and the
//    reflected ghost node u_{−1} = u_1 + 2·dx·g closes its stencil (second order; Morton & Mayers,
//    "Numerical Solution of PDEs", 2nd ed., §2.13, and LeVeque, "Finite Difference Methods for
//    ODEs and PDEs", 2007, §2.12);
//  - periodic (both opposite sides): node nx is the image of node 0, ghosts wrap around.
// Neumann and periodic operators keep the eigenvalues of −δ² in [0, 4], so the stability limits of
// the homogeneous Dirichlet problem (FTCS r <= 1/2 per dimension summed, leapfrog Courant <= 1) hold.
//
// Implicit lines (Crank-Nicolson, ADI) solve (I − θ·Â)·u = rhs on the active nodes of one line,
// Â the second difference with the boundary terms moved to the right-hand side: Thomas elimination
// (lib/tridiag.ts), or for periodic lines the cyclic system by Sherman-Morrison (Press et al.,
// "Numerical Recipes", 3rd ed., §2.7), factored once per run.
//
// Error estimate (Richardson; LeVeque 2007 §A.6, Roache, "Verification and Validation in
// Computational Science and Engineering", 1998, ch. 5): the same problem is solved on the grid
// halved in space and time (h/2 and dt/2; dt/4 for FTCS, which keeps r = α·dt/h² and so the
// O(dt + h²) = O(h²) error balance). For a scheme of order p in h, u_h − u ≈ C·h^p, so the error of
// the finer solution is estimated by |u_h − u_{h/2}| / (2^p − 1); p = 2 for every scheme here.
// The reported value is the finer solution's, with that estimate.
//
// Probes read the grid by tensor-product 4-point cubic Lagrange interpolation (O(h⁴), one-sided
// near the walls, wrapped on periodic axes), so interpolation adds nothing at the scheme's O(h²)
// and the Richardson ratio is not disturbed by a probe's position inside a cell. Array initial
// conditions reach the refined grid by the same interpolation.
import { z } from 'zod';
import { refuse, SvcError } from '../../core/errors.ts';
import { compileSafe } from '../../core/sandbox.ts';
import { compileSystem } from './expr.ts';
import { factorTridiagonal, solveFactored, solveFactoredBatch, type TridiagonalFactor } from './tridiag.ts';
import { precisionOf } from './precision.ts';
import type { Precision } from '../types.ts';

export const EXPR_MAX_LENGTH = 4096;
export const EXPR_MAX_NODES = 4000;
/** largest node count per axis an array initial condition can have (nx <= 128) */
const MAX_AXIS_NODES = 129;

// ---------------------------------------------------------------------------------------------
// Input fields (shared by heat and wave)

const expr = z.string().min(1).max(EXPR_MAX_LENGTH);
const sideSchema = z.strictObject({
  type: z.enum(['dirichlet', 'neumann', 'periodic'])
    .describe('dirichlet: u = value; neumann: outward normal derivative du/dn = value; periodic: wraps to the opposite side (give it on both)'),
  value: z.union([z.number(), expr]).optional()
    .describe('a number, or an expression in t and the coordinate along the side (y on left/right, x on bottom/top); default 0; not for periodic'),
});

export const fieldInit = (what: string, examples: unknown[]) => z.union([
  expr,
  z.array(z.number()).min(2).max(MAX_AXIS_NODES),
  z.array(z.array(z.number()).min(2).max(MAX_AXIS_NODES)).min(2).max(MAX_AXIS_NODES),
]).describe(`${what}: an expression in x (and y), or the node values: an array of nx+1 numbers (1-D), `
  + 'or ny+1 rows of nx+1 numbers (2-D, row j at y = j·dy), boundary nodes included; default 0').meta({ examples }).optional();

/** The user-mode fields; any of them selects the user mode. */
export const userFields = {
  initial: fieldInit('initial condition u(x, y, 0)', ['x*(1-x)', 'exp(-50*((x-0.5)^2+(y-0.5)^2))', [0, 0.09, 0.16, 0.21, 0.24, 0.25, 0.24, 0.21, 0.16, 0.09, 0]]),
  boundary: z.strictObject({ left: sideSchema.optional(), right: sideSchema.optional(), bottom: sideSchema.optional(), top: sideSchema.optional() })
    .describe('per-side conditions {left, right, bottom, top} (x = 0, x = Lx, y = 0, y = Ly); a side not given is Dirichlet 0')
    .meta({ examples: [
      { left: { type: 'dirichlet', value: 1 }, right: { type: 'neumann', value: 0 } },
      { left: { type: 'periodic' }, right: { type: 'periodic' }, bottom: { type: 'dirichlet', value: 'sin(pi*x)*exp(-t)' }, top: { type: 'neumann', value: -0.5 } },
    ] }).optional(),
  Lx: z.number().min(1e-6).max(1e6).describe('domain length along x (default 1); user mode').meta({ examples: [2] }).optional(),
  Ly: z.number().min(1e-6).max(1e6).describe('domain length along y (default 1); user mode, 2-D').meta({ examples: [0.5] }).optional(),
  probes: z.array(z.array(z.number()).min(1).max(2)).min(1).max(32)
    .describe('points [x] or [x, y] inside the domain whose values are reported; default: the centre')
    .meta({ examples: [[[0.5], [0.25]], [[0.5, 0.5], [0.1, 0.9]]] }).optional(),
  boundPct: z.number().positive().max(100).optional()
    .describe('user mode: largest accepted error estimate, % of the solution scale (default 1)'),
};
export const USER_KEYS = ['initial', 'boundary', 'Lx', 'Ly', 'source', 'probes', 'initialVelocity'] as const;

/** The user-mode keys present in an input (boundPct alone does not select the user mode). */
export function userKeysOf(inp: Record<string, unknown>): string[] {
  return USER_KEYS.filter((k) => inp[k] !== undefined);
}

/** Refuses the analytic-mode fields `conflicting` together with the user-mode keys, and boundPct without them. */
export function checkModeConflicts(inp: Record<string, unknown>, conflicting: string[]): boolean {
  const user = userKeysOf(inp);
  if (!user.length) {
    if (inp.boundPct !== undefined) {
      throw refuse('INVALID_INPUT', 'boundPct bounds the user mode\'s error estimate; the analytic mode (no initial, boundary, '
        + 'Lx, Ly, source, probes) checks against its closed form with a fixed bound', { field: 'boundPct' });
    }
    return false;
  }
  for (const k of conflicting) {
    if (inp[k] !== undefined) {
      throw refuse('INVALID_INPUT', `${k} belongs to the analytic sine-mode problem; it cannot be combined with the user-mode `
        + `field${user.length > 1 ? 's' : ''} ${user.join(', ')}`, { field: k, conflictsWith: user });
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Expressions

export type Fn = (args: Float64Array) => number;

/** Compiles a user expression over `vars` (in that order) into f(args) by lib/expr.ts. The
 * sandbox check runs first so that every refusal (syntax, whitelist, unknown names) names the
 * field. Comparisons give 0/1; a value outside a function's real domain is NaN, which the callers
 * refuse as non-finite. */
export function compileScalar(src: string, vars: string[], field: string): { fn: Fn; uses: Set<string> } {
  let c;
  try {
    c = compileSafe(src, { maxLength: EXPR_MAX_LENGTH, maxNodes: EXPR_MAX_NODES });
  } catch (e) {
    if (e instanceof SvcError) throw refuse('INVALID_INPUT', `${field}: ${e.message}`, { field });
    throw e;
  }
  const unknown = c.symbols.filter((s) => !vars.includes(s));
  if (unknown.length) {
    throw refuse('INVALID_INPUT', `${field}: unknown variable${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `'${s}'`).join(', ')}; `
      + `the expression may use ${vars.join(', ')}`, { field });
  }
  let sys;
  try {
    sys = compileSystem([src], vars, {}, { maxLength: EXPR_MAX_LENGTH, field });
  } catch (e) {
    if (e instanceof SvcError) throw refuse('INVALID_INPUT', e.message.replace(`${field}[0]: `, `${field}: `), { field });
    throw e;
  }
  const out = new Float64Array(1);
  const evaluate = sys.evaluate;
  const fn: Fn = (args) => { evaluate(args, out); return out[0]; };
  return { fn, uses: new Set(c.symbols) };
}

const fmt = (v: number) => Number(v.toPrecision(6));

/** An input refusal for a non-finite expression value at a point. */
export function nonFiniteAt(field: string, point: Record<string, number>, v: number): SvcError {
  const at = Object.entries(point).map(([k, x]) => `${k} = ${fmt(x)}`).join(', ');
  return refuse('INVALID_INPUT', `${field} is not finite (${v}) at ${at}`, { field, at: point });
}

// ---------------------------------------------------------------------------------------------
// The problem

export type BcType = 'dirichlet' | 'neumann' | 'periodic';
export type SideName = 'left' | 'right' | 'bottom' | 'top';
const SIDES: SideName[] = ['left', 'right', 'bottom', 'top'];

export interface Side {
  type: BcType;
  /** constant value, or null with fn */
  value: number;
  fn: Fn | null;
  usesT: boolean;
}

export type FieldInit = { kind: 'zero' } | { kind: 'expr'; fn: Fn; field: string } | { kind: 'array'; rows: number[][]; field: string };

export interface UserProblem {
  dim: 1 | 2;
  Lx: number;
  Ly: number;
  sides: Record<SideName, Side>;
  initial: FieldInit;
  /** wave only */
  initialVelocity: FieldInit;
  source: { fn: Fn; usesT: boolean; usesU: boolean } | null;
  probes: { x: number; y: number }[];
  probesDefaulted: boolean;
  boundPct: number;
}

export const DEFAULT_BOUND_PCT = 1;

interface RawUser {
  initial?: string | number[] | number[][];
  initialVelocity?: string | number[] | number[][];
  boundary?: Partial<Record<SideName, { type: BcType; value?: number | string }>>;
  Lx?: number;
  Ly?: number;
  source?: string;
  probes?: number[][];
  boundPct?: number;
}

function checkFinite(v: number, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw refuse('INVALID_INPUT', `${field} must be a finite number`, { field });
  return v;
}

function parseInit(raw: RawUser['initial'], field: string, dim: 1 | 2, nx: number, ny: number, xPeriodic: boolean, yPeriodic: boolean): FieldInit {
  if (raw === undefined) return { kind: 'zero' };
  if (typeof raw === 'string') {
    const vars = dim === 1 ? ['x'] : ['x', 'y'];
    return { kind: 'expr', fn: compileScalar(raw, vars, field).fn, field };
  }
  const nested = Array.isArray(raw[0]);
  if (dim === 1 && nested) throw refuse('INVALID_INPUT', `${field}: a 1-D problem takes a flat array of nx+1 = ${nx + 1} node values`, { field });
  if (dim === 2 && !nested) {
    throw refuse('INVALID_INPUT', `${field}: a 2-D problem (dim 2, the default) takes ny+1 = ${ny + 1} rows of nx+1 = ${nx + 1} values; `
      + 'give dim: 1 for a 1-D problem', { field });
  }
  const rows = (nested ? raw : [raw]) as number[][];
  const wantRows = dim === 1 ? 1 : ny + 1;
  if (rows.length !== wantRows) {
    throw refuse('INVALID_INPUT', `${field} has ${rows.length} rows; the grid has ny+1 = ${wantRows} rows of nodes`, { field, expected: [wantRows, nx + 1] });
  }
  rows.forEach((row, j) => {
    if (!Array.isArray(row) || row.length !== nx + 1) {
      const where = dim === 1 ? field : `${field}[${j}]`;
      throw refuse('INVALID_INPUT', `${where} has ${Array.isArray(row) ? row.length : 0} values; the grid has nx+1 = ${nx + 1} nodes along x`,
        { field, expected: dim === 1 ? [nx + 1] : [wantRows, nx + 1] });
    }
    row.forEach((v, i) => checkFinite(v, dim === 1 ? `${field}[${i}]` : `${field}[${j}][${i}]`));
  });
  // On a periodic axis the last node is the image of the first: the two values must agree.
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  if (xPeriodic) {
    rows.forEach((row, j) => {
      if (!same(row[0], row[nx])) {
        throw refuse('INVALID_INPUT', `${field}${dim === 2 ? `[${j}]` : ''}: x is periodic, so the value at x = Lx (index ${nx}) must equal the one at x = 0`, { field });
      }
    });
  }
  if (yPeriodic) {
    for (let i = 0; i <= nx; i++) {
      if (!same(rows[0][i], rows[ny][i])) throw refuse('INVALID_INPUT', `${field}[${ny}]: y is periodic, so row ny must equal row 0`, { field });
    }
  }
  return { kind: 'array', rows, field };
}

/** Checks and compiles the user-mode fields. `nx`, `ny` are the caller's grid (ny unused in 1-D). */
export function prepareUserProblem(raw: RawUser, opts: { dim: 1 | 2; nx: number; ny: number }): UserProblem {
  const { dim, nx, ny } = opts;
  if (dim === 1 && raw.Ly !== undefined) throw refuse('INVALID_INPUT', 'Ly: a 1-D problem (dim 1) has no y extent', { field: 'Ly' });
  const Lx = raw.Lx === undefined ? 1 : checkFinite(raw.Lx, 'Lx');
  const Ly = dim === 1 ? 0 : raw.Ly === undefined ? 1 : checkFinite(raw.Ly, 'Ly');
  if (!(Lx > 0) || (dim === 2 && !(Ly > 0))) throw refuse('INVALID_INPUT', 'Lx and Ly must be positive', { field: Lx > 0 ? 'Ly' : 'Lx' });

  // boundary conditions
  const b = raw.boundary ?? {};
  if (dim === 1) {
    for (const s of ['bottom', 'top'] as const) {
      if (b[s] !== undefined) throw refuse('INVALID_INPUT', `boundary.${s}: a 1-D problem (dim 1) has only left and right ends`, { field: `boundary.${s}` });
    }
  }
  const sides = {} as Record<SideName, Side>;
  for (const s of SIDES) {
    const spec = b[s];
    const field = `boundary.${s}`;
    const type: BcType = spec?.type ?? 'dirichlet';
    if (type === 'periodic') {
      if (spec?.value !== undefined) throw refuse('INVALID_INPUT', `${field}.value: a periodic side takes no value`, { field: `${field}.value` });
      sides[s] = { type, value: 0, fn: null, usesT: false };
      continue;
    }
    const v = spec?.value ?? 0;
    if (typeof v === 'number') {
      sides[s] = { type, value: checkFinite(v, `${field}.value`), fn: null, usesT: false };
    } else {
      const along = s === 'left' || s === 'right' ? 'y' : 'x';
      const vars = dim === 1 ? ['t'] : [along, 't'];
      const c = compileScalar(v, vars, `${field}.value`);
      sides[s] = { type, value: 0, fn: c.fn, usesT: c.uses.has('t') };
    }
  }
  const pairs: [SideName, SideName][] = dim === 1 ? [['left', 'right']] : [['left', 'right'], ['bottom', 'top']];
  for (const [a, c] of pairs) {
    const pa = sides[a].type === 'periodic', pc = sides[c].type === 'periodic';
    if (pa !== pc) {
      const missing = pa ? c : a;
      throw refuse('INVALID_INPUT', `boundary.${missing}: periodic must be given on both ${a} and ${c} (boundary.${pa ? a : c} is periodic)`,
        { field: `boundary.${missing}` });
    }
  }

  const xPer = sides.left.type === 'periodic', yPer = dim === 2 && sides.bottom.type === 'periodic';
  const initial = parseInit(raw.initial, 'initial', dim, nx, ny, xPer, yPer);
  const initialVelocity = parseInit(raw.initialVelocity, 'initialVelocity', dim, nx, ny, xPer, yPer);

  let source: UserProblem['source'] = null;
  if (raw.source !== undefined) {
    const vars = dim === 1 ? ['x', 't', 'u'] : ['x', 'y', 't', 'u'];
    const c = compileScalar(raw.source, vars, 'source');
    source = { fn: c.fn, usesT: c.uses.has('t'), usesU: c.uses.has('u') };
  }

  const probes: { x: number; y: number }[] = [];
  const probesDefaulted = raw.probes === undefined;
  if (probesDefaulted) probes.push({ x: Lx / 2, y: Ly / 2 });
  else {
    raw.probes!.forEach((p, k) => {
      const field = `probes[${k}]`;
      if (p.length !== dim) {
        throw refuse('INVALID_INPUT', `${field} has ${p.length} coordinate${p.length > 1 ? 's' : ''}; a ${dim}-D problem takes ${dim === 1 ? '[x]' : '[x, y]'}`
          + (dim === 2 ? ' (dim 2 is the default; give dim: 1 for a 1-D problem)' : ''), { field });
      }
      const x = checkFinite(p[0], field), y = dim === 2 ? checkFinite(p[1], field) : 0;
      if (x < 0 || x > Lx || y < 0 || y > Ly) {
        throw refuse('INVALID_INPUT', `${field} = [${p.join(', ')}] lies outside the domain [0, ${Lx}]${dim === 2 ? ` × [0, ${Ly}]` : ''}`, { field });
      }
      probes.push({ x, y });
    });
  }
  const boundPct = raw.boundPct ?? DEFAULT_BOUND_PCT;
  return { dim, Lx, Ly, sides, initial, initialVelocity, source, probes, probesDefaulted, boundPct };
}

// ---------------------------------------------------------------------------------------------
// Grid with one ghost layer

export interface Axis {
  /** intervals */
  n: number;
  h: number;
  lo: BcType;
  hi: BcType;
  /** first and last updated node */
  a0: number;
  a1: number;
}

function axisOf(n: number, L: number, lo: BcType, hi: BcType): Axis {
  return { n, h: L / n, lo, hi, a0: lo === 'dirichlet' ? 1 : 0, a1: hi === 'neumann' ? n : n - 1 };
}

/** Side values at one time: Dirichlet values or Neumann fluxes per node along the side. */
export type SideArrays = Record<SideName, Float64Array>;

export class Grid {
  readonly dim: 1 | 2;
  readonly nx: number;
  readonly ny: number;
  readonly ax: Axis;
  readonly ay: Axis;
  /** padded row width nx+3 and row count (ny+3 in 2-D, 1 in 1-D) */
  readonly W: number;
  readonly H: number;
  readonly size: number;
  readonly padY: number;
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  readonly P: UserProblem;
  private readonly slots: { t: number; arr: SideArrays }[] = [];
  private readonly constSides: SideArrays;

  constructor(P: UserProblem, nx: number, ny: number) {
    this.P = P;
    this.dim = P.dim;
    this.nx = nx;
    this.ny = P.dim === 1 ? 0 : ny;
    this.ax = axisOf(nx, P.Lx, P.sides.left.type, P.sides.right.type);
    this.ay = P.dim === 1 ? { n: 0, h: 1, lo: 'dirichlet', hi: 'dirichlet', a0: 0, a1: 0 } : axisOf(ny, P.Ly, P.sides.bottom.type, P.sides.top.type);
    this.W = nx + 3;
    this.H = P.dim === 1 ? 1 : this.ny + 3;
    this.padY = P.dim === 1 ? 0 : 1;
    this.size = this.W * this.H;
    this.xs = Float64Array.from({ length: nx + 1 }, (_, i) => i === nx ? P.Lx : i * this.ax.h);
    this.ys = Float64Array.from({ length: this.ny + 1 }, (_, j) => j === this.ny ? P.Ly : j * this.ay.h);
    this.constSides = this.newSides();
    this.fillSides(0, this.constSides, false);
    for (let k = 0; k < 3; k++) this.slots.push({ t: Number.NaN, arr: this.newSides() });
  }

  idx(i: number, j: number): number { return (j + this.padY) * this.W + i + 1; }

  get xPeriodic(): boolean { return this.ax.lo === 'periodic'; }
  get yPeriodic(): boolean { return this.dim === 2 && this.ay.lo === 'periodic'; }
  get timeDependentSides(): boolean { return SIDES.some((s) => this.P.sides[s].usesT); }

  private newSides(): SideArrays {
    const along = (s: SideName) => this.dim === 1 ? 1 : (s === 'left' || s === 'right' ? this.ny + 1 : this.nx + 1);
    return { left: new Float64Array(along('left')), right: new Float64Array(along('right')), bottom: new Float64Array(along('bottom')), top: new Float64Array(along('top')) };
  }

  /** Fills `out` with the side values at time t (all sides, or only time-dependent ones). */
  private fillSides(t: number, out: SideArrays, onlyTimeDependent: boolean): void {
    const args = new Float64Array(2);
    for (const s of SIDES) {
      const sd = this.P.sides[s];
      if (this.dim === 1 && (s === 'bottom' || s === 'top')) continue;
      if (sd.type === 'periodic') continue;
      if (onlyTimeDependent && !sd.usesT) { out[s].set(this.constSides[s]); continue; }
      const arr = out[s];
      if (!sd.fn) { arr.fill(sd.value); continue; }
      const coords = s === 'left' || s === 'right' ? this.ys : this.xs;
      const periodicAlong = s === 'left' || s === 'right' ? this.yPeriodic : this.xPeriodic;
      for (let k = 0; k < arr.length; k++) {
        let v: number;
        if (this.dim === 1) { args[0] = t; v = sd.fn(args); } else {
          args[0] = coords[k]; args[1] = t;
          v = periodicAlong && k === arr.length - 1 ? arr[0] : sd.fn(args);
        }
        if (!Number.isFinite(v)) {
          const point: Record<string, number> = this.dim === 1 ? { t } : { [s === 'left' || s === 'right' ? 'y' : 'x']: coords[k], t };
          throw nonFiniteAt(`boundary.${s}.value`, point, v);
        }
        arr[k] = v;
      }
    }
  }

  /** The side values at time t, kept in `slot` (0..2) so each time is evaluated once. Constant sides share one array. */
  sidesAt(t: number, slot: number): SideArrays {
    if (!this.timeDependentSides) return this.constSides;
    const s = this.slots[slot];
    if (s.t !== t) { this.fillSides(t, s.arr, true); s.t = t; }
    return s.arr;
  }

  /** Sets the Dirichlet nodes of u to the side values (corners of two Dirichlet sides: their mean). */
  setDirichlet(u: Float64Array, S: SideArrays): void {
    const { nx, ny, ax, ay } = this;
    if (this.dim === 1) {
      if (ax.lo === 'dirichlet') u[this.idx(0, 0)] = S.left[0];
      if (ax.hi === 'dirichlet') u[this.idx(nx, 0)] = S.right[0];
      return;
    }
    if (ay.lo === 'dirichlet') for (let i = 0; i <= nx; i++) u[this.idx(i, 0)] = S.bottom[i];
    if (ay.hi === 'dirichlet') for (let i = 0; i <= nx; i++) u[this.idx(i, ny)] = S.top[i];
    if (ax.lo === 'dirichlet') for (let j = 0; j <= ny; j++) u[this.idx(0, j)] = S.left[j];
    if (ax.hi === 'dirichlet') for (let j = 0; j <= ny; j++) u[this.idx(nx, j)] = S.right[j];
    if (ax.lo === 'dirichlet' && ay.lo === 'dirichlet') u[this.idx(0, 0)] = 0.5 * (S.left[0] + S.bottom[0]);
    if (ax.lo === 'dirichlet' && ay.hi === 'dirichlet') u[this.idx(0, ny)] = 0.5 * (S.left[ny] + S.top[0]);
    if (ax.hi === 'dirichlet' && ay.lo === 'dirichlet') u[this.idx(nx, 0)] = 0.5 * (S.right[0] + S.bottom[nx]);
    if (ax.hi === 'dirichlet' && ay.hi === 'dirichlet') u[this.idx(nx, ny)] = 0.5 * (S.right[ny] + S.top[nx]);
  }

  /** Copies node 0 onto its periodic image (node nx, node ny). */
  syncPeriodic(u: Float64Array): void {
    const { nx, ny } = this;
    if (this.xPeriodic) for (let j = 0; j <= ny; j++) u[this.idx(nx, j)] = u[this.idx(0, j)];
    if (this.yPeriodic) {
      const r0 = this.idx(0, 0), rn = this.idx(0, ny);
      for (let i = 0; i <= nx; i++) u[rn + i] = u[r0 + i];
    }
  }

  /** Ghost columns: Neumann reflections u_{−1} = u_1 + 2dx·g, periodic wrap. */
  fillGhostsX(u: Float64Array, S: SideArrays): void {
    const { nx, ny, ax } = this;
    const twoH = 2 * ax.h;
    for (let j = 0; j <= ny; j++) {
      const p0 = this.idx(0, j), pn = this.idx(nx, j);
      if (ax.lo === 'neumann') u[p0 - 1] = u[p0 + 1] + twoH * S.left[this.dim === 1 ? 0 : j];
      else if (ax.lo === 'periodic') u[p0 - 1] = u[pn - 1];
      if (ax.hi === 'neumann') u[pn + 1] = u[pn - 1] + twoH * S.right[this.dim === 1 ? 0 : j];
      else if (ax.hi === 'periodic') u[pn + 1] = u[p0 + 1];
    }
  }

  /** Ghost rows (2-D): as fillGhostsX along y. */
  fillGhostsY(u: Float64Array, S: SideArrays): void {
    if (this.dim === 1) return;
    const { nx, ny, ay, W } = this;
    const twoH = 2 * ay.h;
    const r0 = this.idx(0, 0), rn = this.idx(0, ny);
    for (let i = 0; i <= nx; i++) {
      const p0 = r0 + i, pn = rn + i;
      if (ay.lo === 'neumann') u[p0 - W] = u[p0 + W] + twoH * S.bottom[i];
      else if (ay.lo === 'periodic') u[p0 - W] = u[pn - W];
      if (ay.hi === 'neumann') u[pn + W] = u[pn - W] + twoH * S.top[i];
      else if (ay.hi === 'periodic') u[pn + W] = u[p0 + W];
    }
  }

  fillGhosts(u: Float64Array, S: SideArrays): void {
    this.fillGhostsX(u, S);
    this.fillGhostsY(u, S);
  }

  /** Largest |u| over the nodes; NaN as soon as a node is NaN. */
  maxAbs(u: Float64Array): number {
    let m = 0;
    for (let j = 0; j <= this.ny; j++) {
      const r = this.idx(0, j);
      for (let p = r, e = r + this.nx; p <= e; p++) {
        const a = Math.abs(u[p]);
        if (!(a <= m)) {
          if (Number.isNaN(a)) return Number.NaN;
          m = a;
        }
      }
    }
    return m;
  }
}

/**
 * out = a·u + b·w + cx·δx²u + cy·δy²u + sc·src over the updated (active) nodes; ghosts must be
 * filled. out may alias w (each node reads w at its own index only) but not u.
 */
export function explicitUpdate(g: Grid, out: Float64Array, a: number, u: Float64Array, b: number, w: Float64Array,
  cx: number, cy: number, src: Float64Array | null, sc: number): void {
  const { ax, ay, W } = g;
  const two = g.dim === 2;
  for (let j = ay.a0; j <= ay.a1; j++) {
    const r = g.idx(0, j);
    const p0 = r + ax.a0, p1 = r + ax.a1;
    if (two) {
      if (src) {
        for (let p = p0; p <= p1; p++) {
          const c = u[p];
          out[p] = a * c + b * w[p] + cx * (u[p - 1] - 2 * c + u[p + 1]) + cy * (u[p - W] - 2 * c + u[p + W]) + sc * src[p];
        }
      } else {
        for (let p = p0; p <= p1; p++) {
          const c = u[p];
          out[p] = a * c + b * w[p] + cx * (u[p - 1] - 2 * c + u[p + 1]) + cy * (u[p - W] - 2 * c + u[p + W]);
        }
      }
    } else {
      for (let p = p0; p <= p1; p++) {
        const c = u[p];
        out[p] = a * c + b * w[p] + cx * (u[p - 1] - 2 * c + u[p + 1]) + (src ? sc * src[p] : 0);
      }
    }
  }
}

/** Evaluates the source f(x, [y,] t, u) at the active nodes into out. A non-finite value at
 * t = 0 is the caller's expression (400); later, the run has blown up (422 UNSTABLE). */
export function evalSource(g: Grid, t: number, u: Float64Array, out: Float64Array): void {
  const src = g.P.source!;
  const { ax, ay } = g;
  const two = g.dim === 2;
  const args = new Float64Array(two ? 4 : 3);
  for (let j = ay.a0; j <= ay.a1; j++) {
    const r = g.idx(0, j);
    if (two) args[1] = g.ys[j];
    for (let i = ax.a0; i <= ax.a1; i++) {
      const p = r + i;
      args[0] = g.xs[i];
      if (two) { args[2] = t; args[3] = u[p]; } else { args[1] = t; args[2] = u[p]; }
      const v = src.fn(args);
      if (!Number.isFinite(v)) {
        if (Number.isFinite(u[p]) && t === 0) throw nonFiniteAt('source', two ? { x: g.xs[i], y: g.ys[j], t, u: u[p] } : { x: g.xs[i], t, u: u[p] }, v);
        throw refuse('UNSTABLE', `the source became non-finite at t = ${fmt(t)} (x = ${fmt(g.xs[i])}${two ? `, y = ${fmt(g.ys[j])}` : ''}, u = ${u[p]}): `
          + 'the solution blew up, or the source is singular there', { tFail: t });
      }
      out[p] = v;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fields: initial values, interpolation

/** 4-point Lagrange stencil for coordinate s (in units of h) on nodes 0..n: first node and weights. */
function stencil(s: number, n: number, periodic: boolean, w: Float64Array): number {
  let i0 = Math.floor(s) - 1;
  if (!periodic) i0 = Math.max(0, Math.min(n - 3, i0));
  const th = s - i0;
  w[0] = -(th - 1) * (th - 2) * (th - 3) / 6;
  w[1] = th * (th - 2) * (th - 3) / 2;
  w[2] = -th * (th - 1) * (th - 3) / 2;
  w[3] = th * (th - 1) * (th - 2) / 6;
  return i0;
}

const wrap = (i: number, n: number) => ((i % n) + n) % n;

/** The grid function u at (x, y) by tensor-product 4-point cubic Lagrange interpolation. */
export function interpolate(g: Grid, u: Float64Array, x: number, y: number): number {
  const wx = new Float64Array(4);
  const sx = Math.min(g.nx, Math.max(0, x / g.ax.h));
  const i0 = stencil(sx, g.nx, g.xPeriodic, wx);
  const col = (j: number): number => {
    const r = g.idx(0, j);
    let s = 0;
    for (let k = 0; k < 4; k++) s += wx[k] * u[r + (g.xPeriodic ? wrap(i0 + k, g.nx) : i0 + k)];
    return s;
  };
  if (g.dim === 1) return col(0);
  const wy = new Float64Array(4);
  const sy = Math.min(g.ny, Math.max(0, y / g.ay.h));
  const j0 = stencil(sy, g.ny, g.yPeriodic, wy);
  let s = 0;
  for (let k = 0; k < 4; k++) s += wy[k] * col(g.yPeriodic ? wrap(j0 + k, g.ny) : j0 + k);
  return s;
}

/** Fills u (all nodes) from an initial-condition spec. `base` is the caller's grid: array values
 * live there and reach a refined grid by interpolation. */
export function fillField(g: Grid, base: Grid, init: FieldInit, u: Float64Array): void {
  if (init.kind === 'zero') return;
  const { nx, ny } = g;
  if (init.kind === 'expr') {
    const args = new Float64Array(g.dim);
    for (let j = 0; j <= ny; j++) {
      for (let i = 0; i <= nx; i++) {
        args[0] = g.xs[i];
        if (g.dim === 2) args[1] = g.ys[j];
        const v = init.fn(args);
        if (!Number.isFinite(v)) throw nonFiniteAt(init.field, g.dim === 2 ? { x: g.xs[i], y: g.ys[j] } : { x: g.xs[i] }, v);
        u[g.idx(i, j)] = v;
      }
    }
  } else {
    const onBase = new Float64Array(base.size);
    init.rows.forEach((row, j) => row.forEach((v, i) => { onBase[base.idx(i, j)] = v; }));
    if (g === base) { u.set(onBase); return; }
    for (let j = 0; j <= ny; j++) for (let i = 0; i <= nx; i++) u[g.idx(i, j)] = interpolate(base, onBase, g.xs[i], g.dim === 2 ? g.ys[j] : 0);
  }
  g.syncPeriodic(u);
}

// ---------------------------------------------------------------------------------------------
// Implicit line solves: (I − θ·Â)·v = rhs on the active nodes of one line

export class LineSolver {
  private readonly f: TridiagonalFactor;
  private readonly m: number;
  private readonly a0: number;
  private readonly cyclic: { z: Float64Array; beta: number; gamma: number; den: number } | null = null;

  constructor(ax: Axis, theta: number) {
    const m = ax.a1 - ax.a0 + 1;
    this.m = m;
    this.a0 = ax.a0;
    const a = new Float64Array(m).fill(-theta), b = new Float64Array(m).fill(1 + 2 * theta), c = new Float64Array(m).fill(-theta);
    if (ax.lo === 'neumann') c[0] = -2 * theta;
    if (ax.hi === 'neumann') a[m - 1] = -2 * theta;
    if (ax.lo === 'periodic') {
      // Sherman-Morrison (Numerical Recipes §2.7): corners alpha = A[m−1][0] = beta = A[0][m−1] = −θ.
      const alpha = -theta, beta = -theta, gamma = -b[0];
      b[0] -= gamma;
      b[m - 1] -= alpha * beta / gamma;
      this.f = factorTridiagonal(a, b, c);
      const z = new Float64Array(m);
      z[0] = gamma; z[m - 1] = alpha;
      solveFactored(this.f, z, 0, 1);
      this.cyclic = { z, beta, gamma, den: 1 + z[0] + beta * z[m - 1] / gamma };
    } else {
      this.f = factorTridiagonal(a, b, c);
    }
  }

  /** Solves in place; the line's node k sits at data[off + k·stride]. */
  solve(data: Float64Array, off: number, stride: number): void {
    const start = off + this.a0 * stride;
    solveFactored(this.f, data, start, stride);
    const cy = this.cyclic;
    if (cy) {
      const last = start + (this.m - 1) * stride;
      const fact = (data[start] + cy.beta * data[last] / cy.gamma) / cy.den;
      const z = cy.z;
      for (let k = 0, p = start; k < this.m; k++, p += stride) data[p] -= fact * z[k];
    }
  }

  /** Solves `count` lines at once: line s has its node k at data[off + k·rowStride + s] (the
   * columns of a row-major grid, so the inner loop walks contiguous memory). */
  solveColumns(data: Float64Array, off: number, rowStride: number, count: number): void {
    const start = off + this.a0 * rowStride;
    solveFactoredBatch(this.f, data, start, rowStride, count);
    const cy = this.cyclic;
    if (cy) {
      const last = start + (this.m - 1) * rowStride;
      const z = cy.z;
      for (let s = 0; s < count; s++) {
        const fact = (data[start + s] + cy.beta * data[last + s] / cy.gamma) / cy.den;
        for (let k = 0, p = start + s; k < this.m; k++, p += rowStride) data[p] -= fact * z[k];
      }
    }
  }
}

/** Adds θ·(boundary term at the new level) to the first and last active rows of a line: a Dirichlet
 * neighbour's value, or 2h·g for a Neumann end. */
export function addImplicitBoundary(ax: Axis, theta: number, data: Float64Array, off: number, stride: number, lo: number, hi: number): void {
  if (ax.lo === 'dirichlet') data[off + stride] += theta * lo;
  else if (ax.lo === 'neumann') data[off] += theta * 2 * ax.h * lo;
  if (ax.hi === 'dirichlet') data[off + (ax.n - 1) * stride] += theta * hi;
  else if (ax.hi === 'neumann') data[off + ax.n * stride] += theta * 2 * ax.h * hi;
}

// ---------------------------------------------------------------------------------------------
// Runs, recording and the Richardson result

/** Probe values at up to ~500 times of one run, with the largest |u| seen (for the wave scale). */
export class Recorder {
  readonly t: number[] = [];
  readonly values: number[][];
  maxAbsSeen = 0;
  private readonly stride: number;
  private readonly g: Grid;
  private readonly steps: number;
  private readonly dt: number;
  private readonly keepSeries: boolean;
  constructor(g: Grid, steps: number, dt: number, keepSeries: boolean) {
    this.g = g; this.steps = steps; this.dt = dt; this.keepSeries = keepSeries;
    this.stride = Math.max(1, Math.ceil(steps / 500));
    this.values = g.P.probes.map(() => []);
  }
  /** Called with the field after step n (n = 0: the initial field). Refuses a blown-up field. */
  record(n: number, u: Float64Array): void {
    if (n % this.stride !== 0 && n !== this.steps) return;
    const t = n * this.dt;
    const m = this.g.maxAbs(u);
    if (!Number.isFinite(m)) {
      throw refuse('UNSTABLE', `the solution became non-finite by t = ${fmt(t)}`, { tFail: t });
    }
    if (m > this.maxAbsSeen) this.maxAbsSeen = m;
    if (!this.keepSeries) return;
    this.t.push(t);
    this.g.P.probes.forEach((p, k) => this.values[k].push(interpolate(this.g, u, p.x, p.y)));
  }
}

export interface GridRun {
  grid: Grid;
  u: Float64Array;
  dt: number;
  steps: number;
  rec: Recorder;
}

/** Node-steps of a run and of its refined twin, and the expression evaluations they need. */
export function workOf(P: UserProblem, nx: number, ny: number, steps: number, timeFactor: number): { nodeSteps: number; evaluations: number } {
  const nodes = (d: number) => (nx * d + 1) * (P.dim === 1 ? 1 : ny * d + 1);
  const nodeSteps = nodes(1) * steps + nodes(2) * steps * timeFactor;
  let evaluations = 0;
  if (P.source && (P.source.usesT || P.source.usesU)) evaluations += nodeSteps;
  const sideNodes = (d: number) => P.dim === 1 ? 1 : Math.max(nx, ny) * d + 1;
  for (const s of SIDES) {
    if (P.sides[s].usesT) evaluations += sideNodes(1) * steps * 2 + sideNodes(2) * steps * timeFactor * 2;
  }
  return { nodeSteps, evaluations };
}

/** ~10 s of one core for ADI (~16 ns per node update), less for FTCS and leapfrog */
export const MAX_NODE_STEPS = 6e8;
/** a compiled evaluation (lib/expr.ts) with its loop costs ~20 ns: 3e8 is ~6 s on top of the updates */
export const MAX_EVALUATIONS = 3e8;

/** Refuses runs past the work limits (the coarse and the refined solve together). */
export function checkWork(P: UserProblem, nx: number, ny: number, steps: number, timeFactor: number): void {
  const w = workOf(P, nx, ny, steps, timeFactor);
  if (w.nodeSteps > MAX_NODE_STEPS) {
    throw refuse('INVALID_INPUT', `too much work: the run and its refined twin (h/2, dt/${timeFactor === 4 ? 4 : 2}) need ${w.nodeSteps.toExponential(2)} node updates, `
      + `more than ${MAX_NODE_STEPS.toExponential(0)}; lower steps or nx${P.dim === 2 ? '/ny' : ''}`, { field: 'steps', limit: MAX_NODE_STEPS, work: w.nodeSteps });
  }
  if (w.evaluations > MAX_EVALUATIONS) {
    throw refuse('INVALID_INPUT', `too much work: a time-dependent source or boundary value needs ${w.evaluations.toExponential(2)} expression evaluations `
      + `over the run and its refined twin, more than ${MAX_EVALUATIONS.toExponential(0)}; lower steps or nx${P.dim === 2 ? '/ny' : ''}`,
    { field: 'steps', limit: MAX_EVALUATIONS, work: w.evaluations });
  }
}

export interface UserResult {
  value: number;
  result: Record<string, unknown>;
  precision: Precision;
  series: Record<string, number[]>;
}

/**
 * Richardson comparison of a run and its refined twin: per probe u (the refined value), uCoarse and
 * err = D/(2^p − 1), D the largest |u_h − u_{h/2}| at the probe (interpolated) and at the coarse
 * nodes within one coarse spacing of it; errorEstimate = max err; errorPct = 100·errorEstimate/scale.
 * The neighbourhood guards against a difference that vanishes by coincidence at the probe: with
 * non-smooth data (a plucked string's u'' jumps travel as fronts) the error changes sign between the
 * two grids at points near a front, and the pointwise difference alone under-estimated the true
 * error up to 120× in our sweeps (docs/solvers-fields-a.md); with it, never more than 5×.
 */
export function richardson(P: UserProblem, coarse: GridRun, fine: GridRun, opts: { order: number; scale: number; scaleName: string }): UserResult {
  const denom = 2 ** opts.order - 1;
  const cg = coarse.grid, fg = fine.grid;
  // |u_h − u_{h/2}| at the coarse nodes (they are the even fine nodes)
  const diffAt = (i: number, j: number) => Math.abs(coarse.u[cg.idx(i, j)] - fine.u[fg.idx(2 * i, 2 * j)]);
  /** coarse node indices within one coarse spacing of s·h (wrapped on a periodic axis) */
  const around = (s: number, n: number, periodic: boolean): number[] => {
    const out: number[] = [];
    for (let i = Math.ceil(s - 1 - 1e-9); i <= Math.floor(s + 1 + 1e-9); i++) {
      if (periodic) out.push(wrap(i, n));
      else if (i >= 0 && i <= n) out.push(i);
    }
    return out;
  };
  const probes = P.probes.map((p) => {
    const uc = interpolate(cg, coarse.u, p.x, p.y);
    const uf = interpolate(fg, fine.u, p.x, p.y);
    let d = Math.abs(uc - uf);
    const is = around(p.x / cg.ax.h, cg.nx, cg.xPeriodic);
    const js = P.dim === 1 ? [0] : around(p.y / cg.ay.h, cg.ny, cg.yPeriodic);
    for (const j of js) for (const i of is) d = Math.max(d, diffAt(i, j));
    return { x: p.x, y: P.dim === 1 ? null : p.y, u: uf, err: d / denom, uCoarse: uc };
  });
  let errorEstimate = 0;
  for (const p of probes) if (p.err > errorEstimate) errorEstimate = p.err;
  // the same estimate over every node the two grids share (the coarse nodes)
  let fieldErr = 0;
  for (let j = 0; j <= cg.ny; j++) for (let i = 0; i <= cg.nx; i++) fieldErr = Math.max(fieldErr, diffAt(i, j) / denom);
  const scale = opts.scale > 0 ? opts.scale : 1;
  const errorPct = (errorEstimate / scale) * 100;
  const series: Record<string, number[]> = { t: fine.rec.t };
  fine.rec.values.forEach((v, k) => { series[`p${k}`] = v; });
  const grid = (r: GridRun) => ({
    nx: r.grid.nx, ny: P.dim === 1 ? null : r.grid.ny, dx: r.grid.ax.h, dy: P.dim === 1 ? null : r.grid.ay.h, dt: r.dt, steps: r.steps,
  });
  return {
    value: probes[0].u,
    result: {
      probes,
      errorEstimate,
      fieldErrorEstimate: fieldErr,
      order: opts.order,
      scale,
      scaleName: opts.scaleName,
      probesDefaulted: P.probesDefaulted,
      t: fine.steps * fine.dt,
      dim: P.dim,
      Lx: P.Lx,
      Ly: P.dim === 1 ? null : P.Ly,
      boundary: Object.fromEntries(SIDES.filter((s) => P.dim === 2 || s === 'left' || s === 'right').map((s) => [s, P.sides[s].type])),
      grid: grid(coarse),
      refined: grid(fine),
    },
    precision: precisionOf({
      errorPct,
      boundPct: P.boundPct,
      reference: `Richardson estimate: the same problem on the grid halved in space and time, err = |u_h - u_h/2| / ${denom} per probe, `
        + `largest err relative to ${opts.scaleName}`,
      certificate: 'error-estimate',
    }),
    series,
  };
}
