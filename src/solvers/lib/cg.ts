// Matrix-free preconditioned conjugate gradients for symmetric positive-definite systems A·x = b.
//
// Method: Hestenes & Stiefel, "Methods of conjugate gradients for solving linear systems",
// J. Res. NBS 49 (1952) 409; the preconditioned form follows Saad, "Iterative Methods for Sparse
// Linear Systems" (2nd ed., SIAM 2003), Algorithm 9.1, and Shewchuk, "An Introduction to the
// Conjugate Gradient Method Without the Agonizing Pain" (1994), §B3. The operator and the
// preconditioner are callbacks `(x, out) => void` that write A·x (or M⁻¹·x) into `out`; no matrix is
// ever formed. Convergence (in exact arithmetic, at most n steps) requires A and M to be symmetric
// positive definite; the iteration stops when ‖r‖₂ ≤ tol·‖b‖₂ or after maxIter steps.
//
// Work arrays are allocated once per call; the loop itself does not allocate.

/** Writes A·x into `out` (must not read `out` before writing it). */
export type LinearOperator = (x: Float64Array, out: Float64Array) => void;

export interface PcgOptions {
  /** stop when ‖r‖₂ ≤ tol·‖b‖₂ (default 1e-10) */
  tol?: number;
  /** default 10·n */
  maxIter?: number;
  /** z = M⁻¹·r; identity when omitted */
  precond?: LinearOperator | null;
  /**
   * Jacobi preconditioning by this diagonal, fused into the residual update (one pass fewer per
   * iteration than passing `jacobiPreconditioner(diag)` as `precond`, same iterates). Zero entries
   * are treated as 1. Takes precedence over `precond`.
   */
  diagonal?: Float64Array | null;
  /** called every iteration with the relative residual (for progress reporting) */
  onIteration?: (iteration: number, relativeResidual: number) => void;
}

export interface PcgResult {
  iterations: number;
  /** final ‖b − A·x‖₂ / ‖b‖₂, recomputed from the true residual */
  relativeResidual: number;
  converged: boolean;
}

export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Jacobi (diagonal) preconditioner: z = r / diag. Entries with diag = 0 are passed through. */
export function jacobiPreconditioner(diag: Float64Array): LinearOperator {
  const inv = new Float64Array(diag.length);
  for (let i = 0; i < diag.length; i++) inv[i] = diag[i] !== 0 ? 1 / diag[i] : 1;
  return (r, z) => { for (let i = 0; i < inv.length; i++) z[i] = r[i] * inv[i]; };
}

// The vector kernels are small separate functions so the JIT optimises each on its own, early,
// instead of relying on on-stack replacement of one large loop.

/** x += α·p; r −= α·q; returns r·r. */
function step(x: Float64Array, r: Float64Array, p: Float64Array, q: Float64Array, alpha: number): number {
  let rr = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] += alpha * p[i];
    const ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr += ri * ri;
  }
  return rr;
}

/** step() fused with z = r/diag; writes r·r and r·z into sums. */
function stepJacobi(
  x: Float64Array, r: Float64Array, z: Float64Array, p: Float64Array, q: Float64Array,
  invDiag: Float64Array, alpha: number, sums: Float64Array,
): void {
  let rr = 0;
  let rz = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] += alpha * p[i];
    const ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr += ri * ri;
    const zi = ri * invDiag[i];
    z[i] = zi;
    rz += ri * zi;
  }
  sums[0] = rr;
  sums[1] = rz;
}

/** p = z + β·p */
function newDirection(p: Float64Array, z: Float64Array, beta: number): void {
  for (let i = 0; i < p.length; i++) p[i] = z[i] + beta * p[i];
}

/**
 * Solves A·x = b in place in `x` (its content is the initial guess). Returns the iteration count
 * and the true relative residual at exit.
 */
export function pcg(apply: LinearOperator, b: Float64Array, x: Float64Array, opts: PcgOptions = {}): PcgResult {
  const n = b.length;
  if (x.length !== n) throw new RangeError(`x has length ${x.length}, b has ${n}`);
  const tol = opts.tol ?? 1e-10;
  const maxIter = opts.maxIter ?? 10 * n;
  let invDiag: Float64Array | null = null;
  if (opts.diagonal) {
    if (opts.diagonal.length !== n) throw new RangeError(`diagonal has length ${opts.diagonal.length}, b has ${n}`);
    invDiag = new Float64Array(n);
    for (let i = 0; i < n; i++) invDiag[i] = opts.diagonal[i] !== 0 ? 1 / opts.diagonal[i] : 1;
  }
  const precond = invDiag ? null : (opts.precond ?? null);
  const r = new Float64Array(n);
  const z = precond || invDiag ? new Float64Array(n) : r;
  const p = new Float64Array(n);
  const q = new Float64Array(n);
  const sums = new Float64Array(2);

  const bnorm = Math.sqrt(dot(b, b));
  if (bnorm === 0) {
    x.fill(0);
    return { iterations: 0, relativeResidual: 0, converged: true };
  }
  const target = tol * bnorm;
  let it = 0;
  let rel = Infinity;
  // The recursively updated residual drifts from b − A·x in floating point; when the recursion
  // claims convergence but the true residual disagrees, CG is restarted from the current x
  // (residual replacement; van der Vorst & Ye, SIAM J. Sci. Comput. 22 (2000) 1716).
  let stalled = false;
  for (let restart = 0; ; restart++) {
    apply(x, q);
    let rr0 = 0;
    for (let i = 0; i < n; i++) { const ri = b[i] - q[i]; r[i] = ri; rr0 += ri * ri; }
    const rnorm0 = Math.sqrt(rr0);
    rel = rnorm0 / bnorm;
    if (rnorm0 <= target || it >= maxIter || restart >= 8 || stalled) break;
    if (invDiag) for (let i = 0; i < n; i++) z[i] = r[i] * invDiag[i];
    else if (precond) precond(r, z);
    p.set(z);
    let rz = dot(r, z);
    const itStart = it;
    while (it < maxIter) {
      apply(p, q);
      const pq = dot(p, q);
      if (!(pq > 0)) break; // not positive definite along p (or breakdown): stop honestly
      const alpha = rz / pq;
      let rr: number;
      let rzNew = 0;
      if (invDiag) {
        stepJacobi(x, r, z, p, q, invDiag, alpha, sums);
        rr = sums[0];
        rzNew = sums[1];
      } else {
        rr = step(x, r, p, q, alpha);
      }
      it++;
      const rnorm = Math.sqrt(rr);
      if (opts.onIteration) opts.onIteration(it, rnorm / bnorm);
      // aim a little below the target so the true residual usually passes without a restart
      if (rnorm <= 0.5 * target) break;
      if (!invDiag) {
        if (precond) { precond(r, z); rzNew = dot(r, z); } else rzNew = rr;
      }
      const beta = rzNew / rz;
      rz = rzNew;
      newDirection(p, z, beta);
    }
    stalled = it === itStart; // no progress possible: report the residual and stop
  }
  return { iterations: it, relativeResidual: rel, converged: rel <= tol };
}
