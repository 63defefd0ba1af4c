// The least-squares problem as the solvers in this folder see it: m residuals f_i(p) of n
// parameters (f = (model − y)/σ, SciPy's sign), and their Jacobian, column-major m×n.

export interface LsqProblem {
  m: number;
  n: number;
  /** f(p) into out (length m); entries may be NaN/±Infinity outside the model's domain */
  residuals(p: Float64Array, out: Float64Array): void;
  /** ∂f_i/∂p_j into jac[i + j·m] */
  jacobian(p: Float64Array, jac: Float64Array): void;
}

/** Why a solver stopped, SciPy's `status` codes: −1 improper input, 0 maxNfev reached,
 * 1 gtol, 2 ftol, 3 xtol, 4 ftol and xtol (trf: 4 = both; lm maps MINPACK's info onto these). */
export interface LsqResult {
  x: Float64Array;
  /** residuals at x */
  fun: Float64Array;
  /** 0.5·Σρ(f_i²) (the loss's cost; 0.5·Σf² for the linear loss) */
  cost: number;
  nfev: number;
  njev: number;
  iterations: number;
  status: number;
  /** true when a convergence test (gtol, ftol, xtol) stopped it */
  success: boolean;
  message: string;
  /** the solver's own detail: MINPACK's info for lm */
  info?: number;
  /** active bounds at x: −1 lower, +1 upper, 0 free (trf) */
  activeMask?: Int8Array;
}

export interface LsqOptions {
  ftol: number;
  xtol: number;
  gtol: number;
  maxNfev: number;
  progress?: (fraction: number) => void;
}
