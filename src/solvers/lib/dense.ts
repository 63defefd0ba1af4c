// Small dense symmetric linear algebra (row-major Float64Array, n×n), used by the beam-buckling
// FEM and as an independent check in tests.
//
// - Cholesky A = L·Lᵀ (Golub & Van Loan, "Matrix Computations", 4th ed., Alg. 4.2.1); refuses a
//   matrix that is not numerically positive definite.
// - Householder reduction of a symmetric matrix to tridiagonal form (Golub & Van Loan Alg. 8.3.1;
//   Press et al., Numerical Recipes 3rd ed. §11.4 tred2), followed by Sturm bisection (sturm.ts).
//   Backward stable: the tridiagonal matrix is exactly similar to A + E with ‖E‖ = O(eps·‖A‖).
// - Cyclic Jacobi eigenvalue iteration (Jacobi 1846; Golub & Van Loan §8.5.2; Rutishauser's
//   stable rotation formulas), quadratically convergent; used as an independent second method.
// - Generalized symmetric-definite problem K·v = λ·G·v with K positive definite, reduced to the
//   standard problem C·y = μ·y with C = L⁻¹·G·L⁻ᵀ, μ = 1/λ (Golub & Van Loan §8.7.2). The smallest
//   positive λ is the reciprocal of the largest μ.
import { tridiagonalEigenvalues } from './sturm.ts';

/** Cholesky factor (lower, row-major) of an SPD matrix, or null when a pivot is not positive.
 * With `semidefiniteTol`, a positive semidefinite matrix is accepted: a pivot below
 * `semidefiniteTol·max|a|` counts as zero (its column of L stays zero, and the rest of that column
 * must vanish too), and only a clearly negative pivot gives null. This is the project's one
 * Cholesky (src/solvers/lib/smallmat.ts adapts it to its matrix type). */
export function cholesky(a: Float64Array, n: number, opts: { semidefiniteTol?: number } = {}): Float64Array | null {
  const l = new Float64Array(n * n);
  const psd = opts.semidefiniteTol !== undefined;
  let scale = 0;
  if (psd) for (let k = 0; k < n * n; k++) scale = Math.max(scale, Math.abs(a[k]));
  const eps = psd ? opts.semidefiniteTol! * Math.max(scale, Number.MIN_VALUE) : 0;
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j];
    for (let k = 0; k < j; k++) s -= l[j * n + k] * l[j * n + k];
    if (psd && s <= eps) {
      if (s < -eps) return null;
      // a semidefinite direction: the rest of this column must vanish too
      for (let i = j + 1; i < n; i++) {
        let t = a[i * n + j];
        for (let k = 0; k < j; k++) t -= l[i * n + k] * l[j * n + k];
        if (Math.abs(t) > Math.sqrt(eps) * Math.sqrt(Math.max(scale, Number.MIN_VALUE))) return null;
      }
      continue;
    }
    if (!(s > 0)) return null;
    const ljj = Math.sqrt(s);
    l[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let t = a[i * n + j];
      for (let k = 0; k < j; k++) t -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = t / ljj;
    }
  }
  return l;
}

/** Solves L·y = b in place (L lower triangular, row-major). */
export function forwardSubstitute(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * n + k] * b[k];
    b[i] = s / l[i * n + i];
  }
}

/** Solves Lᵀ·x = b in place. */
export function backSubstituteTransposed(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let k = i + 1; k < n; k++) s -= l[k * n + i] * b[k];
    b[i] = s / l[i * n + i];
  }
}

/** Solves A·x = b given A's Cholesky factor; returns a new vector. */
export function choleskySolve(l: Float64Array, n: number, b: Float64Array): Float64Array {
  const x = Float64Array.from(b);
  forwardSubstitute(l, n, x);
  backSubstituteTransposed(l, n, x);
  return x;
}

/** y = A·x for a row-major n×n matrix. */
export function matVec(a: Float64Array, n: number, x: Float64Array, y: Float64Array = new Float64Array(n)): Float64Array {
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let k = 0; k < n; k++) s += a[row + k] * x[k];
    y[i] = s;
  }
  return y;
}

/** Householder tridiagonalisation of a symmetric matrix (A is not modified). */
export function householderTridiagonal(a: Float64Array, n: number): { d: Float64Array; e: Float64Array } {
  const m = Float64Array.from(a);
  const v = new Float64Array(n);
  const p = new Float64Array(n);
  for (let k = 0; k < n - 2; k++) {
    // x = m[k+1..n-1, k]
    let alpha2 = 0;
    for (let i = k + 1; i < n; i++) alpha2 += m[i * n + k] * m[i * n + k];
    if (alpha2 === 0) continue;
    const x0 = m[(k + 1) * n + k];
    const alpha = x0 >= 0 ? -Math.sqrt(alpha2) : Math.sqrt(alpha2);
    // v = x − alpha·e1, H = I − 2 v vᵀ / (vᵀv)
    for (let i = 0; i <= k; i++) v[i] = 0;
    v[k + 1] = x0 - alpha;
    for (let i = k + 2; i < n; i++) v[i] = m[i * n + k];
    let vv = 0;
    for (let i = k + 1; i < n; i++) vv += v[i] * v[i];
    if (vv === 0) continue;
    const beta = 2 / vv;
    // p = beta·M·v ; w = p − (beta/2)(pᵀv) v ; M ← M − v wᵀ − w vᵀ (on the trailing block)
    for (let i = k; i < n; i++) {
      let s = 0;
      const row = i * n;
      for (let j = k + 1; j < n; j++) s += m[row + j] * v[j];
      p[i] = beta * s;
    }
    let pv = 0;
    for (let i = k + 1; i < n; i++) pv += p[i] * v[i];
    const c = 0.5 * beta * pv;
    for (let i = k; i < n; i++) p[i] -= c * v[i];
    for (let i = k; i < n; i++) {
      const row = i * n;
      const vi = v[i];
      const pi = p[i];
      for (let j = k; j < n; j++) m[row + j] -= vi * p[j] + pi * v[j];
    }
    // column k below the subdiagonal is now (numerically) zero; make it exact
    m[(k + 1) * n + k] = alpha;
    m[k * n + k + 1] = alpha;
    for (let i = k + 2; i < n; i++) { m[i * n + k] = 0; m[k * n + i] = 0; }
  }
  const d = new Float64Array(n);
  const e = new Float64Array(Math.max(n - 1, 0));
  for (let i = 0; i < n; i++) d[i] = m[i * n + i];
  for (let i = 0; i < n - 1; i++) e[i] = m[(i + 1) * n + i];
  return { d, e };
}

/** All eigenvalues (ascending) of a symmetric matrix: Householder + Sturm bisection. */
export function symmetricEigenvalues(a: Float64Array, n: number): Float64Array {
  const { d, e } = householderTridiagonal(a, n);
  return tridiagonalEigenvalues(d, e, 0, n);
}

/** All eigenvalues (ascending) by cyclic Jacobi rotations; the independent second method. */
export function jacobiEigenvalues(a: Float64Array, n: number, maxSweeps = 60): Float64Array {
  const m = Float64Array.from(a);
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += m[i * n + i] * m[i * n + i];
      for (let j = i + 1; j < n; j++) off += m[i * n + j] * m[i * n + j];
    }
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q];
        if (apq === 0) continue;
        const app = m[p * n + p];
        const aqq = m[q * n + q];
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        const tau = s / (1 + c);
        m[p * n + p] = app - t * apq;
        m[q * n + q] = aqq + t * apq;
        m[p * n + q] = 0;
        m[q * n + p] = 0;
        for (let r = 0; r < n; r++) {
          if (r === p || r === q) continue;
          const arp = m[r * n + p];
          const arq = m[r * n + q];
          const nrp = arp - s * (arq + tau * arp);
          const nrq = arq + s * (arp - tau * arq);
          m[r * n + p] = nrp; m[p * n + r] = nrp;
          m[r * n + q] = nrq; m[q * n + r] = nrq;
        }
      }
    }
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = m[i * n + i];
  return out.sort();
}

/** Solves L·X = B in place for all columns of B (row-oriented: contiguous row updates). */
function forwardSubstituteRows(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let k = 0; k < i; k++) {
      const lik = l[row + k];
      if (lik === 0) continue;
      const src = k * n;
      for (let j = 0; j < n; j++) b[row + j] -= lik * b[src + j];
    }
    const inv = 1 / l[row + i];
    for (let j = 0; j < n; j++) b[row + j] *= inv;
  }
}

/** C = L⁻¹·G·L⁻ᵀ for the Cholesky factor L of K (the reduced standard problem). */
export function reduceGeneralized(l: Float64Array, g: Float64Array, n: number): Float64Array {
  // W = L⁻¹·G, then C = W·L⁻ᵀ = (L⁻¹·Wᵀ)ᵀ, and C is symmetric
  const w = Float64Array.from(g);
  forwardSubstituteRows(l, n, w);
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) c[j * n + i] = w[i * n + j];
  forwardSubstituteRows(l, n, c);
  // symmetrise the rounding
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = 0.5 * (c[i * n + j] + c[j * n + i]);
      c[i * n + j] = s; c[j * n + i] = s;
    }
  }
  return c;
}

/**
 * The `count` smallest positive eigenvalues λ of K·v = λ·G·v (K symmetric positive definite,
 * G symmetric), ascending. Returns null when K is not positive definite. Eigenvalues of the
 * pencil with μ ≤ 0 (λ infinite or negative) are not returned.
 */
export function generalizedSmallestEigenvalues(k: Float64Array, g: Float64Array, n: number, count: number): Float64Array | null {
  const l = cholesky(k, n);
  if (!l) return null;
  const c = reduceGeneralized(l, g, n);
  const { d, e } = householderTridiagonal(c, n);
  const want = Math.min(count, n);
  const mus = tridiagonalEigenvalues(d, e, n - want, want); // the largest μ, ascending
  const out: number[] = [];
  for (let i = want - 1; i >= 0; i--) if (mus[i] > 0) out.push(1 / mus[i]);
  return Float64Array.from(out);
}
