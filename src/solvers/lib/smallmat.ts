// Small dense matrices (up to a few dozen entries) for state estimation and other solvers that
// carry 1x1 .. 4x4 systems: row-major Float64Array storage, Gaussian elimination with partial
// pivoting (Golub & Van Loan, "Matrix Computations", 4th ed., §3.4), Cholesky with a semidefinite
// tolerance (§4.2), and a spectral-radius estimate from repeated squaring (Gelfand's formula
// rho(A) = lim ||A^k||^(1/k)). Every operation takes an optional `out` so hot loops can reuse
// storage; `out` must not alias an input of mul().

import { cholesky as denseCholesky } from './dense.ts';

export interface Mat {
  rows: number;
  cols: number;
  /** row-major: entry (i, j) is data[i * cols + j] */
  data: Float64Array;
}

export function zeros(rows: number, cols: number): Mat {
  return { rows, cols, data: new Float64Array(rows * cols) };
}

export function identity(n: number): Mat {
  const m = zeros(n, n);
  for (let i = 0; i < n; i++) m.data[i * n + i] = 1;
  return m;
}

/** A number becomes a 1x1 matrix; a nested array of rows becomes a matrix (rows must be equal length). */
export function fromNested(v: number | number[][]): Mat {
  if (typeof v === 'number') return { rows: 1, cols: 1, data: Float64Array.of(v) };
  const rows = v.length;
  const cols = rows > 0 ? v[0].length : 0;
  const m = zeros(rows, cols);
  for (let i = 0; i < rows; i++) {
    if (v[i].length !== cols) throw new RangeError(`row ${i} has ${v[i].length} entries, expected ${cols}`);
    for (let j = 0; j < cols; j++) m.data[i * cols + j] = v[i][j];
  }
  return m;
}

export function toNested(m: Mat): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < m.rows; i++) out.push(Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
  return out;
}

/** A column vector (n x 1) from a number or an array. */
export function column(v: number | number[]): Mat {
  const a = typeof v === 'number' ? [v] : v;
  return { rows: a.length, cols: 1, data: Float64Array.from(a) };
}

export function copy(m: Mat, out?: Mat): Mat {
  const o = out ?? zeros(m.rows, m.cols);
  o.data.set(m.data);
  return o;
}

function sameShape(a: Mat, b: Mat, what: string): void {
  if (a.rows !== b.rows || a.cols !== b.cols) {
    throw new RangeError(`${what}: ${a.rows}x${a.cols} vs ${b.rows}x${b.cols}`);
  }
}

export function add(a: Mat, b: Mat, out?: Mat): Mat {
  sameShape(a, b, 'add');
  const o = out ?? zeros(a.rows, a.cols);
  for (let k = 0; k < a.data.length; k++) o.data[k] = a.data[k] + b.data[k];
  return o;
}

export function sub(a: Mat, b: Mat, out?: Mat): Mat {
  sameShape(a, b, 'sub');
  const o = out ?? zeros(a.rows, a.cols);
  for (let k = 0; k < a.data.length; k++) o.data[k] = a.data[k] - b.data[k];
  return o;
}

export function scale(a: Mat, s: number, out?: Mat): Mat {
  const o = out ?? zeros(a.rows, a.cols);
  for (let k = 0; k < a.data.length; k++) o.data[k] = a.data[k] * s;
  return o;
}

/** a * b; `out` must not be a or b. */
export function mul(a: Mat, b: Mat, out?: Mat): Mat {
  if (a.cols !== b.rows) throw new RangeError(`mul: ${a.rows}x${a.cols} times ${b.rows}x${b.cols}`);
  const o = out ?? zeros(a.rows, b.cols);
  if (o === a || o === b) throw new RangeError('mul: out aliases an input');
  const n = a.rows, m = b.cols, p = a.cols;
  const A = a.data, B = b.data, O = o.data;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let k = 0; k < p; k++) s += A[i * p + k] * B[k * m + j];
      O[i * m + j] = s;
    }
  }
  return o;
}

export function transpose(a: Mat, out?: Mat): Mat {
  const o = out ?? zeros(a.cols, a.rows);
  if (o === a) throw new RangeError('transpose: out aliases the input');
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < a.cols; j++) o.data[j * a.rows + i] = a.data[i * a.cols + j];
  return o;
}

/** a * b * a^T, the congruence that propagates covariances. */
export function congruence(a: Mat, b: Mat): Mat {
  return mul(mul(a, b), transpose(a));
}

export function trace(a: Mat): number {
  if (a.rows !== a.cols) throw new RangeError('trace of a non-square matrix');
  let s = 0;
  for (let i = 0; i < a.rows; i++) s += a.data[i * a.cols + i];
  return s;
}

/** (a + a^T) / 2, in place when out === a. */
export function symmetrize(a: Mat, out?: Mat): Mat {
  const n = a.rows;
  const o = out ?? zeros(n, n);
  for (let i = 0; i < n; i++) {
    o.data[i * n + i] = a.data[i * n + i];
    for (let j = i + 1; j < n; j++) {
      const s = 0.5 * (a.data[i * n + j] + a.data[j * n + i]);
      o.data[i * n + j] = s;
      o.data[j * n + i] = s;
    }
  }
  return o;
}

export function maxAbs(a: Mat): number {
  let m = 0;
  for (let k = 0; k < a.data.length; k++) { const v = Math.abs(a.data[k]); if (v > m) m = v; }
  return m;
}

export function maxAbsDiff(a: Mat, b: Mat): number {
  sameShape(a, b, 'maxAbsDiff');
  let m = 0;
  for (let k = 0; k < a.data.length; k++) { const v = Math.abs(a.data[k] - b.data[k]); if (v > m) m = v; }
  return m;
}

export function isSymmetric(a: Mat, relTol = 1e-12): boolean {
  if (a.rows !== a.cols) return false;
  const n = a.rows, tol = relTol * Math.max(1, maxAbs(a));
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
    if (Math.abs(a.data[i * n + j] - a.data[j * n + i]) > tol) return false;
  }
  return true;
}

/**
 * Solves a * x = b for x (b may have several columns) by Gaussian elimination with partial
 * pivoting. Returns null when a is singular to working precision. `out` (a.rows x b.cols) and
 * `work` (at least a.rows² entries) may be passed to avoid allocation; `out` may be b itself.
 */
export function solve(a: Mat, b: Mat, out?: Mat, work?: Float64Array): Mat | null {
  const n = a.rows;
  if (a.cols !== n || b.rows !== n) throw new RangeError(`solve: ${a.rows}x${a.cols} with ${b.rows}x${b.cols}`);
  const m = b.cols;
  const A = work && work.length >= n * n ? work : new Float64Array(n * n);
  A.set(a.data);
  const o = out ?? zeros(n, m);
  if (o === a) throw new RangeError('solve: out aliases a');
  const X = o.data;
  if (o !== b) X.set(b.data);
  let scaleA = 0;
  for (let k = 0; k < n * n; k++) { const v = Math.abs(A[k]); if (v > scaleA) scaleA = v; }
  if (scaleA === 0) return null;
  for (let k = 0; k < n; k++) {
    let p = k, best = Math.abs(A[k * n + k]);
    for (let i = k + 1; i < n; i++) { const v = Math.abs(A[i * n + k]); if (v > best) { best = v; p = i; } }
    if (best <= 1e-14 * scaleA) return null;
    if (p !== k) {
      for (let j = 0; j < n; j++) { const t = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = t; }
      for (let j = 0; j < m; j++) { const t = X[k * m + j]; X[k * m + j] = X[p * m + j]; X[p * m + j] = t; }
    }
    const piv = A[k * n + k];
    for (let i = k + 1; i < n; i++) {
      const f = A[i * n + k] / piv;
      if (f === 0) continue;
      for (let j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      for (let j = 0; j < m; j++) X[i * m + j] -= f * X[k * m + j];
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    const piv = A[k * n + k];
    for (let j = 0; j < m; j++) {
      let s = X[k * m + j];
      for (let i = k + 1; i < n; i++) s -= A[k * n + i] * X[i * m + j];
      X[k * m + j] = s / piv;
    }
  }
  return o;
}

export function inverse(a: Mat): Mat | null {
  return solve(a, identity(a.rows));
}

/**
 * Lower-triangular L with L L^T = a for a symmetric positive semidefinite a (the Cholesky of
 * lib/dense.ts in its semidefinite mode). A pivot below `tol * max|a|` is treated as zero (its
 * column of L is zeroed); a clearly negative pivot means a is not PSD and gives null.
 */
export function cholesky(a: Mat, tol = 1e-12): Mat | null {
  const n = a.rows;
  if (a.cols !== n) throw new RangeError('cholesky of a non-square matrix');
  const l = denseCholesky(a.data, n, { semidefiniteTol: tol });
  return l ? { rows: n, cols: n, data: l } : null;
}

/** True when a is symmetric and strictly positive definite (every Cholesky pivot clearly positive). */
export function isPositiveDefinite(a: Mat): boolean {
  if (!isSymmetric(a, 1e-10)) return false;
  const L = cholesky(a, 1e-12);
  if (!L) return false;
  for (let i = 0; i < a.rows; i++) if (!(L.data[i * a.rows + i] > 0)) return false;
  return true;
}

/**
 * Spectral radius by Gelfand's formula with repeated squaring: after m squarings
 * ||A^(2^m)||^(1/2^m) -> rho(A). Each square is rescaled to unit max-norm and the scale kept
 * in logarithms, so neither overflow nor underflow occurs. Accurate to a few digits for
 * diagonalizable matrices; Jordan blocks converge more slowly (polynomial factor 2^(m*(k-1))).
 */
export function spectralRadius(a: Mat, squarings = 48): number {
  if (a.rows !== a.cols) throw new RangeError('spectralRadius of a non-square matrix');
  let s0 = maxAbs(a);
  if (s0 === 0) return 0;
  let B = scale(a, 1 / s0);
  let logScale = Math.log(s0);
  let power = 1;
  const tmp = zeros(a.rows, a.cols);
  for (let m = 0; m < squarings; m++) {
    mul(B, B, tmp);
    const s = maxAbs(tmp);
    if (s === 0) return 0;
    scale(tmp, 1 / s, B);
    logScale = 2 * logScale + Math.log(s);
    power *= 2;
  }
  return Math.exp(logScale / power);
}
