// Banded linear systems: Gaussian elimination with partial (row) pivoting on a matrix with kl
// sub-diagonals and ku super-diagonals (Golub & Van Loan, "Matrix Computations", 4th ed., §4.3.5;
// the LAPACK routines dgbtf2 / dgbtrs, Anderson et al., "LAPACK Users' Guide", 3rd ed., §5.3.2).
// Row interchanges can push U's upper bandwidth from ku to ku + kl, so every row keeps room for
// kl extra super-diagonals. The work is O(n·kl·(kl + ku)) for the factorisation and
// O(n·(2kl + ku)) per right-hand side, against O(n³) and O(n²) dense.
//
// Storage (row-major band): row i holds the columns j = i − kl … i + ku + kl at
//   data[i·width + (j − i + kl)],   width = 2·kl + ku + 1.
// `factorBanded` overwrites it with U (upper part) and the multipliers of L (lower part) as
// LAPACK does: the interchange of step k is applied to the columns ≥ k only, and `solveFactored…`
// replays interchanges and eliminations in the same order, so each multiplier meets the
// right-hand-side entry it was computed for. Everything is Float64Array and allocation-free in
// the solve, so a factorisation can be reused for many right-hand sides.

export interface BandMatrix {
  n: number;
  /** number of sub-diagonals */
  kl: number;
  /** number of super-diagonals */
  ku: number;
  /** entries per stored row, 2·kl + ku + 1 */
  width: number;
  data: Float64Array;
}

export interface BandFactorization extends BandMatrix {
  /** piv[k] = the row swapped with row k at step k */
  piv: Int32Array;
}

/** A zero n×n band matrix with kl sub- and ku super-diagonals (room for the pivoting fill-in). */
export function bandMatrix(n: number, kl: number, ku: number): BandMatrix {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(kl) && kl >= 0 && Number.isInteger(ku) && ku >= 0)) {
    throw new RangeError(`band matrix: need integers n >= 1, kl >= 0, ku >= 0, got ${n}, ${kl}, ${ku}`);
  }
  const width = 2 * kl + ku + 1;
  return { n, kl, ku, width, data: new Float64Array(n * width) };
}

function slot(m: BandMatrix, i: number, j: number): number {
  return i * m.width + (j - i + m.kl);
}

/** Sets entry (i, j), which must lie inside the band (i − kl ≤ j ≤ i + ku). */
export function bandSet(m: BandMatrix, i: number, j: number, v: number): void {
  if (i < 0 || i >= m.n || j < 0 || j >= m.n || j < i - m.kl || j > i + m.ku) {
    throw new RangeError(`band matrix: entry (${i}, ${j}) is outside the band (kl = ${m.kl}, ku = ${m.ku}, n = ${m.n})`);
  }
  m.data[slot(m, i, j)] = v;
}

/** Entry (i, j) of an unfactored band matrix (0 outside the band). */
export function bandGet(m: BandMatrix, i: number, j: number): number {
  if (i < 0 || i >= m.n || j < 0 || j >= m.n || j < i - m.kl || j > i + m.ku) return 0;
  return m.data[slot(m, i, j)];
}

/** y = A·x for an unfactored band matrix. */
export function bandMatVec(m: BandMatrix, x: Float64Array, y: Float64Array = new Float64Array(m.n)): Float64Array {
  const { n, kl, ku, width, data } = m;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const j0 = Math.max(0, i - kl), j1 = Math.min(n - 1, i + ku);
    for (let j = j0; j <= j1; j++) s += data[i * width + (j - i + kl)] * x[j];
    y[i] = s;
  }
  return y;
}

/**
 * LU factorisation with partial pivoting, in place: `m.data` becomes the factors. A column without
 * a non-zero pivot candidate (an exactly singular matrix) is a RangeError naming the column.
 */
export function factorBanded(m: BandMatrix): BandFactorization {
  const { n, kl, ku, width, data } = m;
  const piv = new Int32Array(n);
  const kuf = ku + kl; // upper bandwidth of U after interchanges
  for (let k = 0; k < n; k++) {
    const iLast = Math.min(n - 1, k + kl);
    const jLast = Math.min(n - 1, k + kuf);
    // pivot: the largest |a(i, k)| for i = k … k + kl
    let p = k;
    let best = Math.abs(data[k * width + kl]);
    for (let i = k + 1; i <= iLast; i++) {
      const v = Math.abs(data[i * width + (k - i + kl)]);
      if (v > best) { best = v; p = i; }
    }
    piv[k] = p;
    if (best === 0) throw new RangeError(`banded LU: the matrix is singular (no non-zero pivot in column ${k})`);
    if (p !== k) {
      for (let j = k; j <= jLast; j++) {
        const a = k * width + (j - k + kl), b = p * width + (j - p + kl);
        const t = data[a]; data[a] = data[b]; data[b] = t;
      }
    }
    const pivot = data[k * width + kl];
    for (let i = k + 1; i <= iLast; i++) {
      const li = i * width + (k - i + kl);
      const l = data[li] / pivot;
      data[li] = l;
      if (l === 0) continue;
      const ri = i * width - i + kl, rk = k * width - k + kl;
      for (let j = k + 1; j <= jLast; j++) data[ri + j] -= l * data[rk + j];
    }
  }
  return { n, kl, ku, width, data, piv };
}

/** Solves A·x = b with a factorisation from `factorBanded`; `x` may alias `b`. */
export function solveFactoredBanded(f: BandFactorization, b: Float64Array, x: Float64Array = new Float64Array(f.n)): Float64Array {
  const { n, kl, ku, width, data, piv } = f;
  if (x !== b) x.set(b.subarray(0, n));
  // forward: the interchanges and eliminations of L, in the order of the factorisation
  for (let k = 0; k < n; k++) {
    const p = piv[k];
    if (p !== k) { const t = x[k]; x[k] = x[p]; x[p] = t; }
    const xk = x[k];
    if (xk === 0) continue;
    const iLast = Math.min(n - 1, k + kl);
    for (let i = k + 1; i <= iLast; i++) x[i] -= data[i * width + (k - i + kl)] * xk;
  }
  // backward: U has upper bandwidth ku + kl
  const kuf = ku + kl;
  for (let i = n - 1; i >= 0; i--) {
    const row = i * width - i + kl;
    let s = x[i];
    const jLast = Math.min(n - 1, i + kuf);
    for (let j = i + 1; j <= jLast; j++) s -= data[row + j] * x[j];
    x[i] = s / data[row + i];
  }
  return x;
}

/** Solves A·x = b without touching A (factorises a copy). */
export function solveBanded(m: BandMatrix, b: Float64Array, x: Float64Array = new Float64Array(m.n)): Float64Array {
  const copy: BandMatrix = { ...m, data: Float64Array.from(m.data) };
  return solveFactoredBanded(factorBanded(copy), b, x);
}
