// The certificate of a least-squares fit ('lsq-gradient'), recomputed from scratch: it imports
// nothing of the fitting code (not the compiled model, not its derivatives, not its linear
// algebra). The model is evaluated again through the sandbox's own mathjs evaluator
// (src/core/sandbox.ts), the Jacobian is taken by central differences with one Richardson
// extrapolation (steps h and h/2, h = ε^(1/5)·|p_j|, or ε^(1/5)·max(1e-3·max|p|, 1e-8) for p_j = 0; error O(h⁴) + O(ε/h),
// about 1e-12 relative: Richardson, Phil. Trans. R. Soc. A 210, 307 (1911); the step rule as in
// Nocedal & Wright, "Numerical Optimization", 2nd ed., §8.1), and from it:
//   - the gradient Jᵀr of ½‖r‖² at the returned parameters, reported as the largest cosine
//     between r and a column of J (MINPACK's scale-free gtol measure), and
//   - the covariance s²(JᵀJ)⁻¹ (or (JᵀJ)⁻¹ with absolute σ) by modified Gram-Schmidt with
//     reorthogonalisation (Björck, "Numerical Methods for Least Squares Problems", SIAM (1996),
//     §2.4.4) of the column-equilibrated Jacobian, R⁻¹R⁻ᵀ, so the standard errors are compared
//     with the solver's.
// Residuals here are r_i = (y_i − model_i)/σ_i; the sign does not matter for either quantity.
import { compileSafe } from '../../../core/sandbox.ts';

export interface FitClaim {
  model: string;
  /** parameter names, in the order of `params` */
  names: string[];
  params: number[];
  /** independent variables by name, each of length m */
  columns: Record<string, number[]>;
  y: number[];
  sigma?: number[];
  /** the solver's standard errors, in the order of `names` */
  stderr: number[];
  /** true: covariance = (JᵀJ)⁻¹ (σ absolute); false: s²(JᵀJ)⁻¹ with s² = Σr²/(m − n) */
  absoluteSigma: boolean;
  /** the robust loss (default linear) and its margin C: the cost is ½ Σ C²ρ((r/C)²) */
  loss?: 'linear' | 'soft_l1' | 'huber' | 'cauchy';
  fScale?: number;
  /** per parameter: −1 at its lower bound, +1 at its upper bound, 0 free */
  active?: number[];
}

/** ρ'(z) and ρ''(z) of the robust losses (as SciPy's least_squares defines them), written again here */
function rhoDerivatives(loss: string, z: number): [number, number, number] {
  if (loss === 'soft_l1') return [2 * (Math.sqrt(1 + z) - 1), 1 / Math.sqrt(1 + z), -0.5 / ((1 + z) * Math.sqrt(1 + z))];
  if (loss === 'huber') return z <= 1 ? [z, 1, 0] : [2 * Math.sqrt(z) - 1, 1 / Math.sqrt(z), -0.5 / (z * Math.sqrt(z))];
  if (loss === 'cauchy') return [Math.log(1 + z), 1 / (1 + z), -1 / ((1 + z) * (1 + z))];
  return [z, 1, 0];
}

export interface FitCertificate {
  /** max_j |Σ_i J_ij r_i| / (‖J_j‖·‖r‖), with ‖r‖ floored at 1e-8·‖y/σ‖ (an exact fit's residuals are rounding noise) */
  gradientCosine: number;
  /** the finite-difference gradient Jᵀr of ½‖r‖², by parameter */
  gradient: number[];
  /** the checker's standard errors (NaN when its Gram-Schmidt finds J singular) */
  stderr: number[];
  /** max_j |stderr_j − claimed_j| / claimed_j */
  stderrRelDiff: number;
  /** Σ r² recomputed */
  chi2: number;
  evaluations: number;
}

function modelEvaluator(model: string, names: string[], columns: Record<string, number[]>) {
  const expr = compileSafe(model, { maxLength: 4096, maxNodes: 4096 });
  const cols = Object.keys(columns);
  const scope: Record<string, unknown> = {};
  let evaluations = 0;
  return {
    at(p: number[], i: number): number {
      evaluations++;
      for (let k = 0; k < names.length; k++) scope[names[k]] = p[k];
      for (const c of cols) scope[c] = columns[c][i];
      const v = expr.evaluate(scope);
      return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : NaN;
    },
    get evaluations() { return evaluations; },
  };
}

const norm2 = (v: ArrayLike<number>) => { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return Math.sqrt(s); };

/** Recomputes the gradient and the standard errors of a fit from the model text alone. */
export function checkFit(c: FitClaim): FitCertificate {
  const ev = modelEvaluator(c.model, c.names, c.columns);
  const n = c.names.length, m = c.y.length;
  const w = (i: number) => (c.sigma ? 1 / c.sigma[i] : 1);
  const r = new Float64Array(m);
  for (let i = 0; i < m; i++) r[i] = (c.y[i] - ev.at(c.params, i)) * w(i);
  const pmax = Math.max(...c.params.map(Math.abs));
  const h0 = Math.pow(2.220446049250313e-16, 0.2);
  // J_ij = ∂model_i/∂p_j · w_i by Richardson-extrapolated central differences
  const jac: Float64Array[] = [];
  const p = c.params.slice();
  for (let j = 0; j < n; j++) {
    const h = h0 * (c.params[j] !== 0 ? Math.abs(c.params[j]) : Math.max(1e-3 * pmax, 1e-8));
    const col = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const cd = (step: number) => {
        p[j] = c.params[j] + step; const fp = ev.at(p, i);
        p[j] = c.params[j] - step; const fm = ev.at(p, i);
        p[j] = c.params[j];
        return (fp - fm) / (2 * step);
      };
      const d1 = cd(h), d2 = cd(h / 2);
      col[i] = ((4 * d2 - d1) / 3) * w(i);
    }
    jac.push(col);
  }
  // a robust loss: the gradient is Σ ρ'·r·J; the covariance that of the weighted problem
  const loss = c.loss ?? 'linear', C = c.fScale ?? 1;
  let robustCost = 0;
  if (loss !== 'linear') {
    for (let i = 0; i < m; i++) {
      const z = (r[i] / C) ** 2;
      const [rho0, rho1, rho2] = rhoDerivatives(loss, z);
      robustCost += C * C * rho0;
      const js = Math.sqrt(Math.max(rho1 + 2 * rho2 * z, 2.220446049250313e-16));
      r[i] *= rho1 / js;
      for (let j = 0; j < n; j++) jac[j][i] *= js;
    }
  }
  let ySize = 0;
  for (let i = 0; i < m; i++) ySize += (c.y[i] * w(i)) ** 2;
  const rNorm = Math.max(norm2(r), 1e-8 * Math.sqrt(ySize));
  const gradient: number[] = [];
  let cosine = 0;
  for (let j = 0; j < n; j++) {
    let g = 0;
    for (let i = 0; i < m; i++) g += jac[j][i] * r[i];
    // the gradient of ½‖model − y‖² is −Jᵀr with r = y − model
    gradient.push(-g);
    const cn = norm2(jac[j]);
    // at an active bound only a gradient that points into the box counts (d cost/dp_j = −g)
    const a = c.active?.[j] ?? 0;
    const g2 = a === -1 ? Math.min(0, -g) : a === 1 ? Math.max(0, -g) : -g;
    const cos = cn > 0 ? Math.abs(g2) / (cn * rNorm) : 0;
    if (cos > cosine || Number.isNaN(cos)) cosine = cos;
  }
  let chi2 = 0;
  for (let i = 0; i < m; i++) chi2 += r[i] * r[i];
  if (loss !== 'linear') chi2 = robustCost;
  // covariance by modified Gram-Schmidt (twice) on the column-equilibrated J
  const scale = jac.map((col) => norm2(col) || 1);
  const q = jac.map((col, j) => Float64Array.from(col, (v) => v / scale[j]));
  const R = new Float64Array(n * n);
  let singular = false;
  for (let j = 0; j < n; j++) {
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < j; k++) {
        let d = 0;
        for (let i = 0; i < m; i++) d += q[k][i] * q[j][i];
        R[k * n + j] += d;
        for (let i = 0; i < m; i++) q[j][i] -= d * q[k][i];
      }
    }
    const nj = norm2(q[j]);
    if (!(nj > 1e-14)) { singular = true; break; }
    R[j * n + j] = nj;
    for (let i = 0; i < m; i++) q[j][i] /= nj;
  }
  const stderr: number[] = new Array(n).fill(NaN);
  if (!singular) {
    // Rinv (upper triangular) by back substitution; cov = Rinv Rinvᵀ
    const Ri = new Float64Array(n * n);
    for (let col = 0; col < n; col++) {
      for (let i = n - 1; i >= 0; i--) {
        let s = i === col ? 1 : 0;
        for (let k = i + 1; k < n; k++) s -= R[i * n + k] * Ri[k * n + col];
        Ri[i * n + col] = s / R[i * n + i];
      }
    }
    const s2 = c.absoluteSigma ? 1 : chi2 / (m - n);
    for (let j = 0; j < n; j++) {
      let v = 0;
      for (let k = j; k < n; k++) v += Ri[j * n + k] ** 2;
      stderr[j] = Math.sqrt((s2 * v)) / scale[j];
    }
  }
  let rel = 0;
  for (let j = 0; j < n; j++) {
    const claimed = c.stderr[j];
    const d = Math.abs(stderr[j] - claimed) / Math.max(Math.abs(claimed), 1e-300);
    if (d > rel || Number.isNaN(d)) rel = Number.isNaN(d) ? Infinity : d;
  }
  return { gradientCosine: cosine, gradient, stderr, stderrRelDiff: rel, chi2, evaluations: ev.evaluations };
}
