// Dense kernels of the least-squares solvers, on column-major m×n matrices (a[i + j·m]).
//
// - enorm: the Euclidean norm without overflow or destructive underflow (the scaled sum of
//   squares of LAPACK's dnrm2; Blue, ACM TOMS 4(1), 15 (1978) for the reason).
// - householderQr: A = QR by Householder reflections without pivoting (Golub & Van Loan,
//   "Matrix Computations", 4th ed., Alg. 5.2.1); Qᵀb applied from the stored reflectors.
// - jacobiSvd: the one-sided Jacobi SVD of Hestenes (J. SIAM 6(1), 51 (1958)), rotation formulas
//   of Demmel & Veselić, SIAM J. Matrix Anal. Appl. 13(4), 1204 (1992), which also prove its high
//   relative accuracy on column-scaled matrices (why it is used for the covariance of badly
//   scaled NIST problems). Applied to the n×n R of a QR so that J = Q·R = (Q·U)·S·Vᵀ.
// - covarianceFromJacobian: (JᵀJ)⁻¹ from the SVD of the column-equilibrated J, never by inverting
//   JᵀJ (which squares the condition number); a rank test on the singular values names the
//   directions (and so the parameters) that the data do not determine.

const EPS = 2.220446049250313e-16;

/** ‖v[off .. off+len)‖₂ with a running scale (no overflow for entries up to the largest double). */
export function enorm(v: ArrayLike<number>, len = v.length, off = 0): number {
  let scale = 0, ssq = 1;
  for (let i = off; i < off + len; i++) {
    const x = v[i];
    if (x !== 0) {
      const a = Math.abs(x);
      if (scale < a) { const r = scale / a; ssq = 1 + ssq * r * r; scale = a; } else { const r = a / scale; ssq += r * r; }
    }
  }
  return scale * Math.sqrt(ssq);
}

export interface Qr {
  m: number;
  n: number;
  /** reflectors below the diagonal (column j: v_j with v_j[j] = 1 implied), R on and above */
  a: Float64Array;
  /** the Householder scalars τ_j (H_j = I − τ_j v_j v_jᵀ) */
  tau: Float64Array;
}

/** QR of a (m×n column-major, m >= n); `a` is overwritten. */
export function householderQr(a: Float64Array, m: number, n: number): Qr {
  const tau = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const c = j * m;
    const norm = enorm(a, m - j, c + j);
    if (norm === 0) { tau[j] = 0; continue; }
    const alpha = a[c + j];
    const beta = alpha > 0 ? -norm : norm;
    const v0 = alpha - beta;
    for (let i = j + 1; i < m; i++) a[c + i] /= v0;
    tau[j] = (beta - alpha) / beta;
    a[c + j] = beta;
    // apply H_j to the remaining columns
    for (let k = j + 1; k < n; k++) {
      const ck = k * m;
      let s = a[ck + j];
      for (let i = j + 1; i < m; i++) s += a[c + i] * a[ck + i];
      s *= tau[j];
      a[ck + j] -= s;
      for (let i = j + 1; i < m; i++) a[ck + i] -= s * a[c + i];
    }
  }
  return { m, n, a, tau };
}

/** b ← Qᵀb (length m), in place. */
export function applyQt(qr: Qr, b: Float64Array): void {
  const { m, n, a, tau } = qr;
  for (let j = 0; j < n; j++) {
    if (tau[j] === 0) continue;
    const c = j * m;
    let s = b[j];
    for (let i = j + 1; i < m; i++) s += a[c + i] * b[i];
    s *= tau[j];
    b[j] -= s;
    for (let i = j + 1; i < m; i++) b[i] -= s * a[c + i];
  }
}

/** The n×n upper triangle R (column-major) of a QR. */
export function rOf(qr: Qr): Float64Array {
  const { m, n, a } = qr;
  const r = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) r[i + j * n] = a[i + j * m];
  return r;
}

export interface Svd {
  /** singular values, descending */
  s: Float64Array;
  /** left singular vectors of the n×n input, column-major n×n (column k belongs to s[k]) */
  u: Float64Array;
  /** right singular vectors, column-major n×n */
  v: Float64Array;
}

/** One-sided Jacobi SVD of a square n×n column-major matrix (not modified). */
export function jacobiSvd(input: Float64Array, n: number): Svd {
  const a = Float64Array.from(input);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i + i * n] = 1;
  for (let sweep = 0; sweep < 80; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0, beta = 0, gamma = 0;
        const cp = p * n, cq = q * n;
        for (let i = 0; i < n; i++) { const x = a[cp + i], y = a[cq + i]; alpha += x * x; beta += y * y; gamma += x * y; }
        if (gamma === 0 || Math.abs(gamma) <= EPS * Math.sqrt(alpha * beta)) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t), s = c * t;
        for (let i = 0; i < n; i++) {
          const x = a[cp + i], y = a[cq + i];
          a[cp + i] = c * x - s * y; a[cq + i] = s * x + c * y;
          const vx = v[cp + i], vy = v[cq + i];
          v[cp + i] = c * vx - s * vy; v[cq + i] = s * vx + c * vy;
        }
      }
    }
    if (!rotated) break;
  }
  const sv = new Float64Array(n);
  for (let k = 0; k < n; k++) sv[k] = enorm(a, n, k * n);
  const order = Array.from({ length: n }, (_, k) => k).sort((x, y) => sv[y] - sv[x] || x - y);
  const s = new Float64Array(n), u = new Float64Array(n * n), vv = new Float64Array(n * n);
  order.forEach((k, idx) => {
    s[idx] = sv[k];
    for (let i = 0; i < n; i++) {
      u[i + idx * n] = sv[k] > 0 ? a[i + k * n] / sv[k] : 0;
      vv[i + idx * n] = v[i + k * n];
    }
  });
  // columns of U for zero singular values: leave zero (they never multiply anything nonzero)
  return { s, u, v: vv };
}

export interface Covariance {
  /** (JᵀJ)⁻¹, n×n row-major; null when J is rank deficient */
  inverse: Float64Array | null;
  /** numerical rank of the column-equilibrated J */
  rank: number;
  /** singular values of the column-equilibrated J, descending */
  singularValues: number[];
  /** condition number of the column-equilibrated J (s_max / s_min) */
  condition: number;
  /** indices of parameters in the near null space (|V_jk| > 0.1 for some negligible s_k), or a zero column */
  unidentifiable: number[];
  /** the rank threshold used: s_k <= tol·s_max is negligible */
  rankTolerance: number;
}

/** (JᵀJ)⁻¹ of a column-major m×n J (m >= n) from the SVD of J·D⁻¹, D = diag of column norms. */
export function covarianceFromJacobian(jac: Float64Array, m: number, n: number): Covariance {
  const a = Float64Array.from(jac);
  const d = new Float64Array(n);
  const zero: number[] = [];
  for (let j = 0; j < n; j++) {
    d[j] = enorm(a, m, j * m);
    if (d[j] === 0 || !Number.isFinite(d[j])) { zero.push(j); d[j] = 1; continue; }
    for (let i = 0; i < m; i++) a[i + j * m] /= d[j];
  }
  const qr = householderQr(a, m, n);
  const svd = jacobiSvd(rOf(qr), n);
  const tol = Math.max(m, n) * EPS * 10;
  const smax = svd.s[0];
  let rank = 0;
  for (let k = 0; k < n; k++) if (svd.s[k] > tol * smax) rank++;
  const unident = new Set<number>(zero);
  for (let k = rank; k < n; k++) for (let j = 0; j < n; j++) if (Math.abs(svd.v[j + k * n]) > 0.1) unident.add(j);
  const condition = svd.s[n - 1] > 0 ? smax / svd.s[n - 1] : Infinity;
  const base = { rank: zero.length ? Math.min(rank, n - zero.length) : rank, singularValues: Array.from(svd.s), condition, unidentifiable: [...unident].sort((x, y) => x - y), rankTolerance: tol };
  if (rank < n || zero.length) return { inverse: null, ...base };
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += (svd.v[i + k * n] * svd.v[j + k * n]) / (svd.s[k] * svd.s[k]);
      const val = s / (d[i] * d[j]);
      inv[i * n + j] = val; inv[j * n + i] = val;
    }
  }
  return { inverse: inv, ...base };
}
