// Eigenvalues of a real symmetric tridiagonal matrix by Sturm-sequence bisection.
//
// Method: the number of eigenvalues below x equals the number of negative pivots of the LDLᵀ
// factorisation of T − x·I (Sylvester's law of inertia), computed by the recurrence
//   q₀ = d₀ − x,   qᵢ = dᵢ − x − eᵢ₋₁² / qᵢ₋₁,
// with a zero pivot replaced by −pivmin (Kahan, "Accurate eigenvalues of a symmetric tridiagonal
// matrix", Stanford CS41, 1966; Barth, Martin & Wilkinson, Numer. Math. 9 (1967) 386; the LAPACK
// routine DSTEBZ uses the same count). Bisection on the count isolates the k-th eigenvalue inside
// the Gershgorin interval; each halving is unconditionally stable, and the eigenvalue is found to
// within a few ulps of the interval's magnitude (Demmel, "Applied Numerical Linear Algebra", §5.3.4).
//
// Conventions: `d` holds the n diagonal entries, `e` the n−1 off-diagonal entries (e[i] couples
// rows i and i+1). Eigenvalues are numbered from k = 0 (the smallest).

export interface TridiagonalMatrix {
  d: Float64Array;
  e: Float64Array;
}

/** The Gershgorin interval [lo, hi] that contains every eigenvalue. */
export function gershgorinBounds(d: Float64Array, e: Float64Array): [number, number] {
  const n = d.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const r = (i > 0 ? Math.abs(e[i - 1]) : 0) + (i < n - 1 ? Math.abs(e[i]) : 0);
    if (d[i] - r < lo) lo = d[i] - r;
    if (d[i] + r > hi) hi = d[i] + r;
  }
  return [lo, hi];
}

/** Squares of the off-diagonal entries (the only form the count needs). */
export function squaredOffDiagonal(e: Float64Array): Float64Array {
  const e2 = new Float64Array(e.length);
  for (let i = 0; i < e.length; i++) e2[i] = e[i] * e[i];
  return e2;
}

function pivotFloor(d: Float64Array, e2: Float64Array): number {
  let m = 0;
  for (let i = 0; i < e2.length; i++) if (e2[i] > m) m = e2[i];
  for (let i = 0; i < d.length; i++) { const a = d[i] * d[i]; if (a > m) m = a; }
  // LAPACK's PIVMIN: the smallest safe pivot, scaled by the largest squared entry.
  return Math.max(2.2250738585072014e-308 * Math.max(m, 1), 1e-300);
}

/** Number of eigenvalues strictly below x (Sturm count). `e2` holds the squared off-diagonals. */
export function sturmCount(d: Float64Array, e2: Float64Array, x: number, pivmin = 1e-300): number {
  const n = d.length;
  let count = 0;
  let q = d[0] - x;
  if (Math.abs(q) < pivmin) q = -pivmin;
  if (q < 0) count++;
  for (let i = 1; i < n; i++) {
    q = d[i] - x - e2[i - 1] / q;
    if (Math.abs(q) < pivmin) q = -pivmin;
    if (q < 0) count++;
  }
  return count;
}

export interface BisectionOptions {
  /** absolute tolerance on the eigenvalue; default: a few ulps of the spectrum's magnitude */
  absTol?: number;
  /** relative tolerance; default 4·eps */
  relTol?: number;
}

function bisectOne(
  d: Float64Array, e2: Float64Array, k: number, lo0: number, hi0: number, pivmin: number,
  absTol: number, relTol: number,
): number {
  let lo = lo0;
  let hi = hi0;
  // Invariant: count(lo) <= k < count(hi), i.e. the k-th eigenvalue lies in [lo, hi).
  for (let it = 0; it < 2200; it++) {
    const mid = 0.5 * (lo + hi);
    if (hi - lo <= absTol + relTol * Math.max(Math.abs(lo), Math.abs(hi)) || mid === lo || mid === hi) break;
    if (sturmCount(d, e2, mid, pivmin) > k) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

function checkShape(d: Float64Array, e: Float64Array): void {
  if (d.length === 0) throw new RangeError('tridiagonal matrix is empty');
  if (e.length !== d.length - 1) throw new RangeError(`off-diagonal length ${e.length} != n-1 = ${d.length - 1}`);
}

/** The k-th smallest eigenvalue (k = 0 is the smallest). */
export function tridiagonalEigenvalue(d: Float64Array, e: Float64Array, k: number, opts: BisectionOptions = {}): number {
  return tridiagonalEigenvalues(d, e, k, 1, opts)[0];
}

/**
 * `count` consecutive eigenvalues starting at index k0 (ascending). The bracket of each is narrowed
 * from the Gershgorin interval; counts already computed for the previous eigenvalue tighten the
 * next lower bound.
 */
export function tridiagonalEigenvalues(
  d: Float64Array, e: Float64Array, k0: number, count: number, opts: BisectionOptions = {},
): Float64Array {
  checkShape(d, e);
  const n = d.length;
  if (!Number.isInteger(k0) || !Number.isInteger(count) || k0 < 0 || count < 0 || k0 + count > n) {
    throw new RangeError(`eigenvalue indices ${k0}..${k0 + count - 1} outside 0..${n - 1}`);
  }
  const e2 = squaredOffDiagonal(e);
  const pivmin = pivotFloor(d, e2);
  let [lo, hi] = gershgorinBounds(d, e);
  const span = Math.max(Math.abs(lo), Math.abs(hi), Number.MIN_VALUE);
  // widen by a hair so that the end eigenvalues are strictly inside
  lo -= 2.2e-16 * span * 4 + pivmin;
  hi += 2.2e-16 * span * 4 + pivmin;
  const absTol = opts.absTol ?? 2 * 2.220446049250313e-16 * span;
  const relTol = opts.relTol ?? 4 * 2.220446049250313e-16;
  const out = new Float64Array(count);
  let lower = lo;
  for (let j = 0; j < count; j++) {
    const lam = bisectOne(d, e2, k0 + j, lower, hi, pivmin, absTol, relTol);
    out[j] = lam;
    // the next eigenvalue is >= this one; start its bracket a little below to keep the invariant
    const guard = lam - (absTol + relTol * Math.abs(lam)) * 4;
    if (sturmCount(d, e2, guard, pivmin) <= k0 + j + 1) lower = Math.max(lower, guard);
  }
  return out;
}
