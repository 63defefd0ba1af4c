// Robust loss functions ρ(z) of z = f², with ρ'(z) and ρ''(z), and their use in a Gauss-Newton
// method, as scipy.optimize.least_squares defines them (its `loss` and `f_scale`):
//   linear   ρ = z
//   soft_l1  ρ = 2(√(1+z) − 1)
//   huber    ρ = z for z <= 1, 2√z − 1 otherwise
//   cauchy   ρ = ln(1 + z)
// With a soft margin C = f_scale the cost is ½ Σ C²·ρ((f_i/C)²). Each iteration solves the
// Gauss-Newton problem of the scaled residuals and Jacobian of Triggs, McLauchlan, Hartley &
// Fitzgibbon, "Bundle adjustment — a modern synthesis", Vision Algorithms (2000), §4.3
// ("robustified least squares"): J̃ = √(ρ' + 2zρ'')·J, f̃ = ρ'·f / √(ρ' + 2zρ''), the
// square-root factor clipped below at machine epsilon (as SciPy).

export type LossName = 'linear' | 'soft_l1' | 'huber' | 'cauchy';
export const LOSSES: LossName[] = ['linear', 'soft_l1', 'huber', 'cauchy'];

const EPS = 2.220446049250313e-16;

/** ρ, ρ', ρ'' at z into rho[0..2] */
function rhoAt(loss: LossName, z: number, rho: Float64Array): void {
  switch (loss) {
    case 'linear': rho[0] = z; rho[1] = 1; rho[2] = 0; return;
    case 'soft_l1': { const t = 1 + z; rho[0] = 2 * (Math.sqrt(t) - 1); rho[1] = 1 / Math.sqrt(t); rho[2] = -0.5 * t ** -1.5; return; }
    case 'huber':
      if (z <= 1) { rho[0] = z; rho[1] = 1; rho[2] = 0; } else { const s = Math.sqrt(z); rho[0] = 2 * s - 1; rho[1] = 1 / s; rho[2] = -0.5 / (z * s); }
      return;
    case 'cauchy': { const t = 1 + z; rho[0] = Math.log1p(z); rho[1] = 1 / t; rho[2] = -1 / (t * t); return; }
  }
}

/** ½ Σ C²ρ((f/C)²) */
export function lossCost(loss: LossName, fScale: number, f: Float64Array): number {
  const rho = new Float64Array(3);
  let s = 0;
  if (loss === 'linear') { for (let i = 0; i < f.length; i++) s += f[i] * f[i]; return 0.5 * s; }
  const c2 = fScale * fScale;
  for (let i = 0; i < f.length; i++) { rhoAt(loss, (f[i] * f[i]) / c2, rho); s += c2 * rho[0]; }
  return 0.5 * s;
}

/** Scales J (column-major m×n) and f in place for the robust Gauss-Newton step (no-op for linear). */
export function scaleForLoss(loss: LossName, fScale: number, f: Float64Array, jac: Float64Array, m: number, n: number): void {
  if (loss === 'linear') return;
  const rho = new Float64Array(3);
  const c2 = fScale * fScale;
  for (let i = 0; i < m; i++) {
    const z = (f[i] * f[i]) / c2;
    rhoAt(loss, z, rho);
    // SciPy: rho[0] *= C², rho[2] /= C²; J_scale = ρ' + 2ρ''f²
    let js = rho[1] + 2 * (rho[2] / c2) * f[i] * f[i];
    if (js < EPS) js = EPS;
    js = Math.sqrt(js);
    f[i] *= rho[1] / js;
    for (let j = 0; j < n; j++) jac[i + j * m] *= js;
  }
}
