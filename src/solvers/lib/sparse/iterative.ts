// Krylov methods for A·x = b on a CSC matrix, with three preconditioners.
//
// Methods (x₀ = 0; stop when ‖b − A·x‖₂ ≤ rtol·‖b‖₂, the true residual rechecked at the end):
//  - CG: Hestenes & Stiefel (1952), preconditioned as in Saad, "Iterative Methods for Sparse
//    Linear Systems", 2nd ed., SIAM 2003, Alg. 9.1 (lib/cg.ts). A and M symmetric positive definite.
//  - MINRES: Paige & Saunders, "Solution of sparse indefinite systems of linear equations", SIAM J.
//    Numer. Anal. 12(4), 1975: Lanczos with Givens rotations minimising ‖r‖ over the Krylov space;
//    A symmetric (possibly indefinite), M symmetric positive definite.
//  - GMRES(m): Saad & Schultz, "GMRES: a generalized minimal residual algorithm for solving
//    nonsymmetric linear systems", SIAM J. Sci. Stat. Comput. 7(3), 1986; Arnoldi with modified
//    Gram-Schmidt, Givens rotations, restarted every m steps; right preconditioning (Saad Alg. 9.5),
//    so the minimised residual is the true one.
//  - BiCGSTAB: van der Vorst, "Bi-CGSTAB: a fast and smoothly converging variant of Bi-CG", SIAM
//    J. Sci. Stat. Comput. 13(2), 1992; right preconditioning (Saad Alg. 7.7 with M).
// Preconditioners: Jacobi (the diagonal), ILU(0) (incomplete LU on the pattern of A, Saad §10.3.2,
// Alg. 10.4, IKJ variant), IC(0) (incomplete Cholesky on the pattern of A, Meijerink & van der
// Vorst, Math. Comp. 31, 1977, as L·D·Lᵀ from the same IKJ sweep with U replaced by D·Lᵀ, so M is
// symmetric by construction). A zero or (for IC(0)) non-positive pivot is a breakdown; IC(0) then
// retries on A + α·diag(A), α = 10⁻³, 10⁻², 10⁻¹ (Manteuffel, Math. Comp. 34, 1980).
import type { CscMatrix } from './csc.ts';
import { transpose, cscMatVec, diagonal } from './csc.ts';
import { pcg } from '../cg.ts';

export type Operator = (x: Float64Array, out: Float64Array) => void;
export type PrecondName = 'none' | 'jacobi' | 'ilu0' | 'ic0';
export type KrylovName = 'cg' | 'minres' | 'gmres' | 'bicgstab';

export interface KrylovResult { x: Float64Array; iterations: number; converged: boolean; relativeResidual: number; breakdown?: string }
export interface KrylovOptions { rtol: number; maxIter: number; restart?: number; x0?: Float64Array; onIteration?: (it: number) => void }

const dot = (a: Float64Array, b: Float64Array): number => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };
const nrm = (a: Float64Array): number => Math.sqrt(dot(a, a));

export class PreconditionerBreakdown extends Error {
  readonly kind: PrecondName;
  readonly row: number;
  readonly pivot: number;
  constructor(kind: PrecondName, row: number, pivot: number) {
    super(`${kind} breaks down at row ${row} (pivot ${pivot})`);
    this.kind = kind; this.row = row; this.pivot = pivot;
  }
}

/** The preconditioner M⁻¹ as an operator (null for none), and a description. */
export function buildPreconditioner(a: CscMatrix, kind: PrecondName): { apply: Operator | null; note: string } {
  if (kind === 'none') return { apply: null, note: 'none' };
  if (kind === 'jacobi') {
    const d = diagonal(a);
    const inv = d.map((v) => (v !== 0 ? 1 / v : 1));
    return { apply: (r, z) => { for (let i = 0; i < r.length; i++) z[i] = inv[i] * r[i]; }, note: 'jacobi' };
  }
  if (kind === 'ilu0') {
    const f = iluZero(a, 0);
    return { apply: (r, z) => iluApply(f, r, z, false), note: 'ilu0' };
  }
  let lastError: PreconditionerBreakdown | null = null;
  for (const shift of [0, 1e-3, 1e-2, 1e-1]) {
    try {
      const f = iluZero(a, shift, true);
      return { apply: (r, z) => iluApply(f, r, z, true), note: shift ? `ic0 (diagonal shift ${shift})` : 'ic0' };
    } catch (e) {
      if (!(e instanceof PreconditionerBreakdown)) throw e;
      lastError = e;
    }
  }
  throw lastError!;
}

interface Ilu { n: number; rp: Int32Array; ci: Int32Array; v: Float64Array; diag: Int32Array }

/** ILU(0) by rows (CSR from the transpose); `positive` demands positive pivots (IC(0)). */
function iluZero(a: CscMatrix, shift: number, positive = false): Ilu {
  const t = transpose(a); // column i of Aᵀ = row i of A, columns sorted
  const n = a.n, rp = t.colPtr, ci = t.rowIdx, v = Float64Array.from(t.values);
  const diag = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) for (let p = rp[i]; p < rp[i + 1]; p++) if (ci[p] === i) { diag[i] = p; v[p] *= 1 + shift; }
  const where = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (diag[i] < 0) throw new PreconditionerBreakdown(positive ? 'ic0' : 'ilu0', i, 0);
    for (let p = rp[i]; p < rp[i + 1]; p++) where[ci[p]] = p;
    for (let p = rp[i]; p < rp[i + 1]; p++) {
      const k = ci[p];
      if (k >= i) break;
      const lik = (v[p] /= v[diag[k]]);
      for (let q = diag[k] + 1; q < rp[k + 1]; q++) { const w = where[ci[q]]; if (w >= 0) v[w] -= lik * v[q]; }
    }
    for (let p = rp[i]; p < rp[i + 1]; p++) where[ci[p]] = -1;
    const d = v[diag[i]];
    if (!Number.isFinite(d) || d === 0 || (positive && !(d > 0))) throw new PreconditionerBreakdown(positive ? 'ic0' : 'ilu0', i, d);
  }
  return { n, rp, ci, v, diag };
}

/** z = (L·U)⁻¹·r, or (L·D·Lᵀ)⁻¹·r for IC(0) (U taken as D·Lᵀ). */
function iluApply(f: Ilu, r: Float64Array, z: Float64Array, symmetric: boolean): void {
  const { n, rp, ci, v, diag } = f;
  for (let i = 0; i < n; i++) { // unit lower
    let s = r[i];
    for (let p = rp[i]; p < diag[i]; p++) s -= v[p] * z[ci[p]];
    z[i] = s;
  }
  if (!symmetric) {
    for (let i = n - 1; i >= 0; i--) {
      let s = z[i];
      for (let p = diag[i] + 1; p < rp[i + 1]; p++) s -= v[p] * z[ci[p]];
      z[i] = s / v[diag[i]];
    }
    return;
  }
  for (let i = 0; i < n; i++) z[i] /= v[diag[i]];
  // Lᵀ·z = y: column-oriented sweep over the rows of L (row i of L is column i of Lᵀ)
  for (let i = n - 1; i >= 0; i--) {
    const zi = z[i];
    if (zi === 0) continue;
    for (let p = rp[i]; p < diag[i]; p++) z[ci[p]] -= v[p] * zi;
  }
}

/** Runs a Krylov method. `applyA` defaults to A·x. */
export function krylov(a: CscMatrix, b: Float64Array, method: KrylovName, precond: Operator | null, opts: KrylovOptions, applyA?: Operator): KrylovResult {
  const A: Operator = applyA ?? ((x, out) => { cscMatVec(a, x, out); });
  const n = a.n;
  const bn = nrm(b);
  if (bn === 0) return { x: new Float64Array(n), iterations: 0, converged: true, relativeResidual: 0 };
  const x = opts.x0 ? Float64Array.from(opts.x0) : new Float64Array(n);
  let res: KrylovResult;
  if (method === 'cg') {
    const r = pcg(A, b, x, { tol: opts.rtol, maxIter: opts.maxIter, precond, onIteration: opts.onIteration ? (it) => opts.onIteration!(it) : undefined });
    res = { x, iterations: r.iterations, converged: r.converged, relativeResidual: r.relativeResidual };
  } else if (method === 'minres') res = minres(A, b, x, precond, opts);
  else if (method === 'gmres') res = gmres(A, b, x, precond, opts);
  else res = bicgstab(A, b, x, precond, opts);
  // the true residual decides
  const r = new Float64Array(n);
  A(res.x, r);
  for (let i = 0; i < n; i++) r[i] = b[i] - r[i];
  res.relativeResidual = nrm(r) / bn;
  res.converged = res.relativeResidual <= opts.rtol;
  return res;
}

function minres(A: Operator, b: Float64Array, x: Float64Array, M: Operator | null, o: KrylovOptions): KrylovResult {
  const n = b.length;
  const applyM = (r: Float64Array, z: Float64Array) => { if (M) M(r, z); else z.set(r); };
  const bn = nrm(b);
  let its = 0;
  // restarts from the current x when the recurrence's residual estimate and the true one part
  for (let round = 0; round < 4 && its < o.maxIter; round++) {
    const r1 = new Float64Array(n);
    A(x, r1);
    for (let i = 0; i < n; i++) r1[i] = b[i] - r1[i];
    if (nrm(r1) <= o.rtol * bn) break;
    let y = new Float64Array(n); applyM(r1, y);
    const beta1sq = dot(r1, y);
    if (!(beta1sq > 0)) return { x, iterations: its, converged: false, relativeResidual: NaN, breakdown: 'the preconditioner is not positive definite' };
    const beta1 = Math.sqrt(beta1sq);
    let oldb = 0, beta = beta1, dbar = 0, epsln = 0, phibar = beta1, cs = -1, sn = 0;
    let w = new Float64Array(n), w2 = new Float64Array(n);
    let r2 = Float64Array.from(r1);
    const rr1 = Float64Array.from(r1);
    let rA = rr1;
    const v = new Float64Array(n);
    let first = true;
    while (its < o.maxIter) {
      its++;
      o.onIteration?.(its);
      const s = 1 / beta;
      for (let i = 0; i < n; i++) v[i] = s * y[i];
      const Av = new Float64Array(n);
      A(v, Av);
      if (!first) { const f = beta / oldb; for (let i = 0; i < n; i++) Av[i] -= f * rA[i]; }
      first = false;
      const alfa = dot(v, Av);
      const f2 = alfa / beta;
      for (let i = 0; i < n; i++) Av[i] -= f2 * r2[i];
      rA = r2; r2 = Av;
      y = new Float64Array(n); applyM(r2, y);
      oldb = beta;
      const bsq = dot(r2, y);
      if (bsq < 0) return { x, iterations: its, converged: false, relativeResidual: NaN, breakdown: 'the preconditioner is not positive definite' };
      beta = Math.sqrt(bsq);
      const oldeps = epsln;
      const delta = cs * dbar + sn * alfa;
      const gbar = sn * dbar - cs * alfa;
      epsln = sn * beta;
      dbar = -cs * beta;
      const gamma = Math.max(Math.hypot(gbar, beta), Number.EPSILON);
      cs = gbar / gamma; sn = beta / gamma;
      const phi = cs * phibar;
      phibar = sn * phibar;
      const w1 = w2; w2 = w; w = new Float64Array(n);
      for (let i = 0; i < n; i++) { w[i] = (v[i] - oldeps * w1[i] - delta * w2[i]) / gamma; x[i] += phi * w[i]; }
      // phibar is the M⁻¹-norm of the residual; compare it with the tolerance relative to beta1
      if (phibar <= 0.5 * o.rtol * beta1 || beta === 0) break;
    }
  }
  return { x, iterations: its, converged: false, relativeResidual: NaN };
}

function gmres(A: Operator, b: Float64Array, x: Float64Array, M: Operator | null, o: KrylovOptions): KrylovResult {
  const n = b.length;
  const m = Math.max(1, Math.min(o.restart ?? 30, n));
  const bn = nrm(b);
  const V: Float64Array[] = Array.from({ length: m + 1 }, () => new Float64Array(n));
  const Z: Float64Array[] = M ? Array.from({ length: m }, () => new Float64Array(n)) : [];
  const H = new Float64Array((m + 1) * m);
  const cs = new Float64Array(m), sn = new Float64Array(m), g = new Float64Array(m + 1);
  const r = new Float64Array(n), w = new Float64Array(n);
  let its = 0;
  while (its < o.maxIter) {
    A(x, r);
    for (let i = 0; i < n; i++) r[i] = b[i] - r[i];
    const beta = nrm(r);
    if (beta <= o.rtol * bn) break;
    for (let i = 0; i < n; i++) V[0][i] = r[i] / beta;
    g.fill(0); g[0] = beta; H.fill(0);
    let k = 0;
    for (; k < m && its < o.maxIter; k++) {
      its++;
      o.onIteration?.(its);
      const zk = M ? Z[k] : V[k];
      if (M) M(V[k], zk);
      A(zk, w);
      for (let j = 0; j <= k; j++) { // modified Gram-Schmidt
        const h = dot(w, V[j]);
        H[j * m + k] = h;
        const vj = V[j];
        for (let i = 0; i < n; i++) w[i] -= h * vj[i];
      }
      const hn = nrm(w);
      H[(k + 1) * m + k] = hn;
      if (hn > 0) for (let i = 0; i < n; i++) V[k + 1][i] = w[i] / hn;
      for (let j = 0; j < k; j++) { // apply the earlier rotations
        const t = cs[j] * H[j * m + k] + sn[j] * H[(j + 1) * m + k];
        H[(j + 1) * m + k] = -sn[j] * H[j * m + k] + cs[j] * H[(j + 1) * m + k];
        H[j * m + k] = t;
      }
      const den = Math.hypot(H[k * m + k], H[(k + 1) * m + k]);
      cs[k] = den ? H[k * m + k] / den : 1; sn[k] = den ? H[(k + 1) * m + k] / den : 0;
      H[k * m + k] = den; H[(k + 1) * m + k] = 0;
      g[k + 1] = -sn[k] * g[k]; g[k] = cs[k] * g[k];
      if (Math.abs(g[k + 1]) <= 0.5 * o.rtol * bn || hn === 0) { k++; break; }
    }
    // y = H⁻¹ g (upper triangular k×k), x += Z·y
    const y = new Float64Array(k);
    for (let i = k - 1; i >= 0; i--) {
      let s = g[i];
      for (let j = i + 1; j < k; j++) s -= H[i * m + j] * y[j];
      y[i] = H[i * m + i] ? s / H[i * m + i] : 0;
    }
    for (let j = 0; j < k; j++) { const zj = M ? Z[j] : V[j]; for (let i = 0; i < n; i++) x[i] += y[j] * zj[i]; }
  }
  return { x, iterations: its, converged: false, relativeResidual: NaN };
}

function bicgstab(A: Operator, b: Float64Array, x: Float64Array, M: Operator | null, o: KrylovOptions): KrylovResult {
  const n = b.length;
  const bn = nrm(b);
  const r = new Float64Array(n), rhat = new Float64Array(n), p = new Float64Array(n), v = new Float64Array(n);
  const s = new Float64Array(n), t = new Float64Array(n), ph = new Float64Array(n), sh = new Float64Array(n);
  A(x, r);
  for (let i = 0; i < n; i++) r[i] = b[i] - r[i];
  rhat.set(r);
  let rho = 1, alpha = 1, omega = 1;
  let its = 0;
  while (its < o.maxIter) {
    its++;
    o.onIteration?.(its);
    const rhoNew = dot(rhat, r);
    if (rhoNew === 0 || !Number.isFinite(rhoNew)) return { x, iterations: its, converged: false, relativeResidual: NaN, breakdown: 'rho = 0' };
    const beta = (rhoNew / rho) * (alpha / omega);
    rho = rhoNew;
    for (let i = 0; i < n; i++) p[i] = r[i] + beta * (p[i] - omega * v[i]);
    if (M) M(p, ph); else ph.set(p);
    A(ph, v);
    const rv = dot(rhat, v);
    if (rv === 0) return { x, iterations: its, converged: false, relativeResidual: NaN, breakdown: 'r̂·v = 0' };
    alpha = rho / rv;
    for (let i = 0; i < n; i++) s[i] = r[i] - alpha * v[i];
    if (nrm(s) <= 0.5 * o.rtol * bn) { for (let i = 0; i < n; i++) x[i] += alpha * ph[i]; break; }
    if (M) M(s, sh); else sh.set(s);
    A(sh, t);
    const tt = dot(t, t);
    omega = tt ? dot(t, s) / tt : 0;
    for (let i = 0; i < n; i++) { x[i] += alpha * ph[i] + omega * sh[i]; r[i] = s[i] - omega * t[i]; }
    if (nrm(r) <= 0.5 * o.rtol * bn) break;
    if (omega === 0) return { x, iterations: its, converged: false, relativeResidual: NaN, breakdown: 'omega = 0' };
  }
  return { x, iterations: its, converged: false, relativeResidual: NaN };
}
