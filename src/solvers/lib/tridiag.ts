// Tridiagonal linear systems by the Thomas algorithm (Gaussian elimination without pivoting on
// a tridiagonal matrix; Press et al., "Numerical Recipes", 3rd ed., §2.4 "tridag"), plus the
// cyclic (periodic) variant by the Sherman-Morrison formula (Numerical Recipes §2.7 "cyclic").
// No pivoting: stable for diagonally dominant or symmetric positive-definite matrices, which is
// what the implicit diffusion schemes produce (|b| >= |a| + |c| with strict inequality somewhere).
//
// Conventions: the system of size n is
//   a[i]·x[i-1] + b[i]·x[i] + c[i]·x[i+1] = d[i],   i = 0..n-1,
// with a[0] and c[n-1] ignored. Everything works on Float64Arrays and the "factored" forms let a
// caller reuse one elimination for many right-hand sides (ADI sweeps, Crank-Nicolson steps)
// without allocating in the time loop.

/** Solves a tridiagonal system; `x` may alias `d`. `work` (length >= n) avoids an allocation. */
export function solveTridiagonal(a: Float64Array, b: Float64Array, c: Float64Array, d: Float64Array,
  x: Float64Array, work?: Float64Array): Float64Array {
  const n = b.length;
  const cp = work ?? new Float64Array(n);
  let piv = b[0];
  if (piv === 0) throw new RangeError('tridiagonal: zero pivot at row 0');
  cp[0] = c[0] / piv;
  x[0] = d[0] / piv;
  for (let i = 1; i < n; i++) {
    piv = b[i] - a[i] * cp[i - 1];
    if (piv === 0) throw new RangeError(`tridiagonal: zero pivot at row ${i}`);
    cp[i] = c[i] / piv;
    x[i] = (d[i] - a[i] * x[i - 1]) / piv;
  }
  for (let i = n - 2; i >= 0; i--) x[i] -= cp[i] * x[i + 1];
  return x;
}

/** The elimination of one tridiagonal matrix, reusable for any number of right-hand sides. */
export interface TridiagonalFactor {
  n: number;
  /** sub-diagonal (a[0] unused) */
  a: Float64Array;
  /** modified super-diagonal c[i] / pivot[i] */
  cp: Float64Array;
  /** 1 / pivot[i] */
  inv: Float64Array;
}

export function factorTridiagonal(a: Float64Array, b: Float64Array, c: Float64Array): TridiagonalFactor {
  const n = b.length;
  const cp = new Float64Array(n);
  const inv = new Float64Array(n);
  let piv = b[0];
  if (piv === 0) throw new RangeError('tridiagonal: zero pivot at row 0');
  inv[0] = 1 / piv;
  cp[0] = c[0] * inv[0];
  for (let i = 1; i < n; i++) {
    piv = b[i] - a[i] * cp[i - 1];
    if (piv === 0) throw new RangeError(`tridiagonal: zero pivot at row ${i}`);
    inv[i] = 1 / piv;
    cp[i] = c[i] * inv[i];
  }
  return { n, a: Float64Array.from(a), cp, inv };
}

/** Factor of the constant-coefficient matrix tridiag(sub, diag, sup) of size n. */
export function factorConstantTridiagonal(n: number, sub: number, diag: number, sup: number): TridiagonalFactor {
  return factorTridiagonal(new Float64Array(n).fill(sub), new Float64Array(n).fill(diag), new Float64Array(n).fill(sup));
}

/**
 * Solves in place the system whose right-hand side sits in data[offset + k·stride], k = 0..n-1.
 */
export function solveFactored(f: TridiagonalFactor, data: Float64Array, offset = 0, stride = 1): void {
  const { n, a, cp, inv } = f;
  let prev = data[offset] * inv[0];
  data[offset] = prev;
  for (let k = 1, p = offset + stride; k < n; k++, p += stride) {
    prev = (data[p] - a[k] * prev) * inv[k];
    data[p] = prev;
  }
  for (let k = n - 2, p = offset + (n - 2) * stride; k >= 0; k--, p -= stride) {
    data[p] -= cp[k] * data[p + stride];
  }
}

/**
 * Solves m independent systems with the same matrix at once, in place. Unknown k of system s sits at
 * data[offset + k·rowStride + s] (the systems run down the columns of a row-major grid), so the inner
 * loop walks contiguous memory: this is the cache-friendly column sweep of an ADI step.
 */
export function solveFactoredBatch(f: TridiagonalFactor, data: Float64Array, offset: number, rowStride: number, m: number): void {
  const { n, a, cp, inv } = f;
  const i0 = inv[0];
  for (let s = 0; s < m; s++) data[offset + s] *= i0;
  for (let k = 1; k < n; k++) {
    const row = offset + k * rowStride;
    const prevRow = row - rowStride;
    const ak = a[k], ik = inv[k];
    for (let s = 0; s < m; s++) data[row + s] = (data[row + s] - ak * data[prevRow + s]) * ik;
  }
  for (let k = n - 2; k >= 0; k--) {
    const row = offset + k * rowStride;
    const nextRow = row + rowStride;
    const ck = cp[k];
    for (let s = 0; s < m; s++) data[row + s] -= ck * data[nextRow + s];
  }
}

/**
 * Cyclic tridiagonal system (periodic boundaries): the tridiagonal system above plus the corner
 * entries alpha = A[n-1][0] and beta = A[0][n-1]. Sherman-Morrison: solve A'·y = d and A'·z = u
 * with A' = A - u·vᵀ, then x = y - (v·y)/(1 + v·z)·z (Numerical Recipes §2.7). Needs n >= 3.
 */
export function solveCyclicTridiagonal(a: Float64Array, b: Float64Array, c: Float64Array, alpha: number, beta: number,
  d: Float64Array, x: Float64Array): Float64Array {
  const n = b.length;
  if (n < 3) throw new RangeError('cyclic tridiagonal: n must be at least 3');
  const gamma = -b[0];
  const bb = Float64Array.from(b);
  bb[0] = b[0] - gamma;
  bb[n - 1] = b[n - 1] - alpha * beta / gamma;
  const work = new Float64Array(n);
  const y = solveTridiagonal(a, bb, c, d, new Float64Array(n), work);
  const u = new Float64Array(n);
  u[0] = gamma;
  u[n - 1] = alpha;
  const z = solveTridiagonal(a, bb, c, u, new Float64Array(n), work);
  const fact = (y[0] + beta * y[n - 1] / gamma) / (1 + z[0] + beta * z[n - 1] / gamma);
  for (let i = 0; i < n; i++) x[i] = y[i] - fact * z[i];
  return x;
}
