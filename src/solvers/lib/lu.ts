// Dense LU factorisation with partial (row) pivoting, real and complex, for the Newton matrices
// of the implicit ODE methods (lib/ivp.ts: I − c·J for BDF, (γ/h)·I − J and (α + iβ)/h·I − J
// for Radau IIA). Golub & Van Loan, "Matrix Computations", 4th ed., Alg. 3.4.1 (Gaussian
// elimination with partial pivoting, P·A = L·U, unit lower L stored below the diagonal of the
// factor, U on and above it). Partial pivoting is backward stable in practice (growth factor
// bounded by 2^(n−1), small for the matrices met here). Row-major n×n Float64Arrays; the complex
// versions keep the real and imaginary parts in two arrays so that the inner loops stay on
// Float64Array without allocation.

export interface LuFactor {
  n: number;
  /** L (unit, strictly below the diagonal) and U (on and above) of P·A, row-major */
  lu: Float64Array;
  /** pivot row chosen at each elimination step */
  piv: Int32Array;
  /** false when a pivot was exactly zero (the matrix is singular); solving then gives non-finite values */
  ok: boolean;
}

/** Allocates a factor for n×n matrices (reused across factorisations). */
export function luAlloc(n: number): LuFactor {
  return { n, lu: new Float64Array(n * n), piv: new Int32Array(n), ok: true };
}

/** Factors A (row-major n×n, not modified) into f. Returns f.ok. */
export function luFactor(a: Float64Array, f: LuFactor): boolean {
  const n = f.n, m = f.lu, piv = f.piv;
  m.set(a.subarray(0, n * n));
  let ok = true;
  for (let k = 0; k < n; k++) {
    let p = k, best = Math.abs(m[k * n + k]);
    for (let i = k + 1; i < n; i++) { const v = Math.abs(m[i * n + k]); if (v > best) { best = v; p = i; } }
    piv[k] = p;
    if (p !== k) {
      const rk = k * n, rp = p * n;
      for (let j = 0; j < n; j++) { const t = m[rk + j]; m[rk + j] = m[rp + j]; m[rp + j] = t; }
    }
    const d = m[k * n + k];
    if (d === 0) { ok = false; continue; }
    const inv = 1 / d;
    const rk = k * n;
    for (let i = k + 1; i < n; i++) {
      const ri = i * n;
      const l = m[ri + k] * inv;
      m[ri + k] = l;
      if (l === 0) continue;
      for (let j = k + 1; j < n; j++) m[ri + j] -= l * m[rk + j];
    }
  }
  f.ok = ok;
  return ok;
}

/** Solves A·x = b in place (b becomes x) with A's factor. */
export function luSolve(f: LuFactor, b: Float64Array): void {
  const n = f.n, m = f.lu, piv = f.piv;
  for (let k = 0; k < n; k++) { const p = piv[k]; if (p !== k) { const t = b[k]; b[k] = b[p]; b[p] = t; } }
  for (let i = 1; i < n; i++) {
    const ri = i * n;
    let s = b[i];
    for (let k = 0; k < i; k++) s -= m[ri + k] * b[k];
    b[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * n;
    let s = b[i];
    for (let k = i + 1; k < n; k++) s -= m[ri + k] * b[k];
    b[i] = s / m[ri + i];
  }
}

export interface ComplexLuFactor {
  n: number;
  re: Float64Array;
  im: Float64Array;
  piv: Int32Array;
  ok: boolean;
}

export function complexLuAlloc(n: number): ComplexLuFactor {
  return { n, re: new Float64Array(n * n), im: new Float64Array(n * n), piv: new Int32Array(n), ok: true };
}

/** Factors the complex matrix (ar + i·ai) into f (pivoting on the modulus). Returns f.ok. */
export function complexLuFactor(ar: Float64Array, ai: Float64Array, f: ComplexLuFactor): boolean {
  const n = f.n, re = f.re, im = f.im, piv = f.piv;
  re.set(ar.subarray(0, n * n));
  im.set(ai.subarray(0, n * n));
  let ok = true;
  for (let k = 0; k < n; k++) {
    let p = k, best = -1;
    for (let i = k; i < n; i++) {
      const x = re[i * n + k], y = im[i * n + k];
      const v = x * x + y * y;
      if (v > best) { best = v; p = i; }
    }
    piv[k] = p;
    const rk = k * n;
    if (p !== k) {
      const rp = p * n;
      for (let j = 0; j < n; j++) {
        let t = re[rk + j]; re[rk + j] = re[rp + j]; re[rp + j] = t;
        t = im[rk + j]; im[rk + j] = im[rp + j]; im[rp + j] = t;
      }
    }
    const dr = re[rk + k], di = im[rk + k];
    const dd = dr * dr + di * di;
    if (dd === 0) { ok = false; continue; }
    // 1/d = conj(d)/|d|²
    const ir = dr / dd, ii = -di / dd;
    for (let i = k + 1; i < n; i++) {
      const ri = i * n;
      const xr = re[ri + k], xi = im[ri + k];
      const lr = xr * ir - xi * ii, li = xr * ii + xi * ir;
      re[ri + k] = lr; im[ri + k] = li;
      if (lr === 0 && li === 0) continue;
      for (let j = k + 1; j < n; j++) {
        const ur = re[rk + j], ui = im[rk + j];
        re[ri + j] -= lr * ur - li * ui;
        im[ri + j] -= lr * ui + li * ur;
      }
    }
  }
  f.ok = ok;
  return ok;
}

/** Solves A·x = b in place for complex b = (br + i·bi). */
export function complexLuSolve(f: ComplexLuFactor, br: Float64Array, bi: Float64Array): void {
  const n = f.n, re = f.re, im = f.im, piv = f.piv;
  for (let k = 0; k < n; k++) {
    const p = piv[k];
    if (p !== k) {
      let t = br[k]; br[k] = br[p]; br[p] = t;
      t = bi[k]; bi[k] = bi[p]; bi[p] = t;
    }
  }
  for (let i = 1; i < n; i++) {
    const ri = i * n;
    let sr = br[i], si = bi[i];
    for (let k = 0; k < i; k++) {
      const lr = re[ri + k], li = im[ri + k], xr = br[k], xi = bi[k];
      sr -= lr * xr - li * xi;
      si -= lr * xi + li * xr;
    }
    br[i] = sr; bi[i] = si;
  }
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * n;
    let sr = br[i], si = bi[i];
    for (let k = i + 1; k < n; k++) {
      const ur = re[ri + k], ui = im[ri + k], xr = br[k], xi = bi[k];
      sr -= ur * xr - ui * xi;
      si -= ur * xi + ui * xr;
    }
    const dr = re[ri + i], di = im[ri + i];
    const dd = dr * dr + di * di;
    br[i] = (sr * dr + si * di) / dd;
    bi[i] = (si * dr - sr * di) / dd;
  }
}
