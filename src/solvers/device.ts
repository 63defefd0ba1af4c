// device: electrostatics of a semiconductor device: a 2-D parallel-plate Poisson/Laplace problem,
// or (dim = 1, or Na/Nd given) the equilibrium potential of an abrupt silicon PN junction.
//
// 2-D method: the five-point finite-difference Laplacian on an nx × ny node grid
// (LeVeque, "Finite Difference Methods for ODEs and PDEs", SIAM 2007, §3.2), bottom plate y = 0 at
// 0 V and top plate y = Ly at V (Dirichlet), insulating side walls x = 0, Lx (∂φ/∂x = 0, mirrored
// ghost node; boundary rows carry the half control-volume weight so the matrix stays symmetric).
// The system −∇²φ = ρ/ε is symmetric positive definite and is solved matrix-free by preconditioned
// conjugate gradients (lib/cg.ts; Saad, "Iterative Methods for Sparse Linear Systems", Alg. 9.1)
// with a symmetric SOR preconditioner, ω = 2/(1 + 2π/max(nx, ny)) (Saad §10.2; Axelsson, "Iterative Solution Methods",
// §7.4) or a Jacobi (diagonal) one. CG converges for any SPD system; the stop is ‖r‖ ≤ 1e−10·‖b‖.
// kx = 0 (default) is the empty capacitor: the exact solution is the linear field φ = V·y/Ly. kx ≥ 1
// adds the space charge ρ(x,y) = ε·A·π²(kx²/Lx² + 1/Ly²)·cos(kx·π·x/Lx)·sin(π·y/Ly) with A = V/4,
// whose exact potential is the linear field plus A·cos(kx·π·x/Lx)·sin(π·y/Ly) (a manufactured
// solution; the five-point error is then O(h²)). value = φ at the probe node nearest (Lx/3, Ly/2).
//
// PN method: the 1-D Poisson equation with Boltzmann carriers in equilibrium,
//   ε ψ'' = −q (p − n + Nd − Na),   n = ni·e^{ψ/V_T},  p = ni·e^{−ψ/V_T},  V_T = kT/q,
// abrupt junction at mid-length, zero-field (Neumann) contacts, solved by damped Newton iterations
// on the scaled potential u = ψ/V_T (Selberherr, "Analysis and Simulation of Semiconductor
// Devices", Springer 1984, ch. 6: box (finite-volume) discretisation on a non-uniform mesh;
// Vasileska, Goodnick & Klimeck, "Computational Electronics", CRC 2010, §3.2: the update δ is
// limited to sign(δ)·ln(1 + |δ|)). The junction sits on a node; each side is graded by a sinh map
// so that the spacing next to the junction is at most a quarter of the shorter Debye length of the
// two sides (uniform where the plain spacing is already that fine): at a one-sided junction the
// potential bends, and the heavy side's carriers spill over, within a few of that very short length
// around the junction, which a uniform 220-node mesh cannot resolve. The tridiagonal Newton system
// is solved by the Thomas algorithm. Newton stops when max|δu| < 1e−12 (or rounding stalls it below 1e−8). value = ψ(right contact) − ψ(left contact);
// reference (kT/q)·ln(Na·Nd/ni²). ε = 11.7·ε₀ (silicon). The default length leaves at least two
// depletion widths plus 15 Debye lengths of neutral material on each side. The nodal field comes
// from the discrete Gauss law of the box scheme (flux of the half control volume), so its peak is
// the field at the junction node.

import { z } from 'zod';
import { pcg, type LinearOperator } from './lib/cg.ts';
import { solveTridiagonal } from './lib/tridiag.ts';
import type { SolverDescriptor, SolverOutput, SolverRun, SolverContext } from './types.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, sent, withDefaults } from './lib/no-effect.ts';

export const Q_E = 1.602176634e-19;
export const K_B = 1.380649e-23;
export const EPS0 = 8.8541878128e-12;
export const EPS_SI = 11.7 * EPS0;

/** 2-D plate defaults and PN-junction defaults, filled in after the checks (which must see what
 * the caller sent: a field of the other problem is a 400, DESIGN §9) */
const PLATE_DEFAULTS = { ny: 64, Ly: 1e-6, V: 1, kx: 0, precond: 'ssor' as const };
const PN_DEFAULTS = { ni: 1e16, T: 300 };
const COMMON_DEFAULTS = { dim: 2 as const };
/** the plate's default nx: 64, or the most (220) when the space-charge mode needs more than 64 nodes
 * (8 intervals per half-wavelength, kx > 7): the probe error of a mode is O((kx·h)²), and 8·kx + 1
 * nodes alone would miss the 0.1 % bound */
export const plateNx = (kx: number): number => (kx <= 7 ? 64 : 220);
const PN_WHY = 'in the PN junction (dim 1, or Na/Nd given): it belongs to the 2-D plate problem';
const PLATE_WHY = 'in the 2-D plate problem: it belongs to the PN junction (dim 1, or Na/Nd given)';

const input = z.strictObject({
  nx: z.number().int().min(16).max(220).optional().describe('grid nodes along x (2-D default 64, or 220 when kx > 7 needs more; PN junction: mesh nodes, default 200)'),
  ny: z.number().int().min(16).max(220).optional().describe('2-D plates only: grid nodes along y (default 64)'),
  Lx: z.number().positive().max(1).optional().describe('width (m); 2-D default 1e-6; PN: device length, default from the depletion width'),
  Ly: z.number().positive().max(1).optional().describe('2-D plates only: plate separation (m; default 1e-6)'),
  V: z.number().min(-1e4).max(1e4).optional().describe('2-D plates only: top-plate potential (V; default 1)'),
  kx: z.number().int().min(0).max(27).optional().describe('2-D plates only: space-charge mode along x (0 = empty capacitor, the default); at most (nx − 1)/8, and a 400 where even the largest grid (220 nodes) cannot resolve it to the 0.1 % bound (above 13 at the default plate)'),
  dim: z.union([z.literal(1), z.literal(2)]).optional().describe('1 selects the PN junction, 2 the 2-D plates (default 2, unless Na or Nd is given: they select the PN junction, and dim 2 with them is refused)'),
  Na: z.number().min(1e12).max(1e28).optional().describe('acceptor density (m^-3); selects the PN junction (default 1e22 there)'),
  Nd: z.number().min(1e12).max(1e28).optional().describe('donor density (m^-3); selects the PN junction (default 1e22 there)'),
  ni: z.number().min(1).max(1e24).optional().describe('PN junction only: intrinsic carrier density (m^-3; default 1e16)'),
  T: z.number().min(1).max(1500).optional().describe('PN junction only: temperature (K; default 300)'),
  precond: z.enum(['ssor', 'jacobi']).optional().describe('2-D plates only: CG preconditioner (default ssor)'),
}).superRefine((v, ctx) => {
  const doped = v.Na !== undefined || v.Nd !== undefined;
  if (doped && v.dim === 2) noEffect(ctx, 'dim', 'with Na/Nd, which select the 1-D PN junction: send dim 1 or leave dim out');
  const pn = v.dim === 1 || doped;
  if (!pn) {
    for (const k of sent(v, ['ni', 'T'])) noEffect(ctx, k, PLATE_WHY);
    const kx = v.kx ?? PLATE_DEFAULTS.kx;
    const nx = v.nx ?? plateNx(kx);
    if (kx > Math.floor((nx - 1) / 8)) {
      ctx.addIssue({ code: 'custom', path: ['kx'], message: `kx must be at most (nx − 1)/8 = ${Math.floor((nx - 1) / 8)} (at least 8 grid intervals per half-wavelength); raise nx` });
    }
    return;
  }
  for (const k of sent(v, ['ny', 'Ly', 'V', 'kx', 'precond'])) noEffect(ctx, k, PN_WHY);
  const Na = v.Na ?? 1e22;
  const Nd = v.Nd ?? 1e22;
  const ni = v.ni ?? PN_DEFAULTS.ni;
  for (const [key, val] of [['Na', Na], ['Nd', Nd]] as const) {
    if (val < 100 * ni) {
      ctx.addIssue({ code: 'custom', path: [key], message: `${key} must be at least 100·ni = ${100 * ni} m^-3 (an extrinsic junction)` });
    }
  }
  if (Math.log(Math.max(Na, Nd) / ni) > 600) {
    ctx.addIssue({ code: 'custom', path: ['ni'], message: 'doping/ni ratio exceeds e^600; the Boltzmann densities overflow' });
  }
}).overwrite(withDefaults((v) => (v.dim === 1 || v.Na !== undefined || v.Nd !== undefined ? PN_DEFAULTS : { ...PLATE_DEFAULTS, ...COMMON_DEFAULTS })));

export type DeviceInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'device',
  domain: 'Semiconductor Devices',
  method: 'pcg-poisson',
  methodDescription: 'Poisson/Laplace solver, matrix-free preconditioned CG',
  operators: ['KO42', 'CMP11'],
  unit: 'V',
  summary: 'Electrostatic potential of a 2-D parallel-plate device (five-point Poisson/Laplace, matrix-free SSOR- or Jacobi-preconditioned CG) or the built-in potential of an abrupt PN junction (nonlinear Poisson-Boltzmann, Newton), against the exact linear field or (kT/q)·ln(NaNd/ni²).',
  input,
  examples: [
    'Built-in potential of a silicon PN junction with Na = 1e22 and Nd = 1e22 per cubic metre',
    'Solve Laplace equation between two parallel plates at 0 and 5 volts',
    'Electrostatic potential in a capacitor with a sinusoidal space charge, 128 by 128 grid',
    'What is the contact potential of an abrupt p-n diode at 350 K?',
    'Poisson equation for the potential inside a semiconductor device using conjugate gradients',
    'Depletion region and peak electric field of a one-sided junction, Na = 1e24, Nd = 1e21 m^-3',
    'Potential at the centre of a MOS-like structure with a 1 V gate, 2-D finite differences',
    'Equilibrium band bending across a pn junction with intrinsic density 1e16 m^-3',
  ],
  vocabulary: [
    'semiconductor', 'device', 'pn junction', 'p-n', 'diode', 'built-in potential', 'depletion',
    'doping', 'acceptor', 'donor', 'intrinsic carrier', 'poisson', 'laplace', 'electrostatic',
    'potential', 'capacitor', 'parallel plate', 'electric field', 'space charge', 'volt', 'silicon',
    'conjugate gradient', 'band bending', 'contact potential',
  ],
};

// ---------------------------------------------------------------------------------------------
// 2-D parallel-plate Poisson problem

/** SSOR relaxation factor for an N-node grid: 2/(1 + 2π/N), near the optimum for the 5-point Laplacian. */
export function ssorOmega(nx: number, ny: number): number {
  return 2 / (1 + (2 * Math.PI) / Math.max(nx, ny));
}

export interface PlateProblem {
  nx: number;
  ny: number;
  Lx: number;
  Ly: number;
  V: number;
  kx: number;
  precond: 'ssor' | 'jacobi';
  tol?: number;
  omega?: number;
}

export interface PlateSolution {
  /** potential on all nx·ny nodes, row-major in y (index j·nx + i), plates included */
  phi: Float64Array;
  iterations: number;
  relativeResidual: number;
  converged: boolean;
  /** exact solution on the nodes */
  exact: Float64Array;
}

/** The SPD operator on the (ny − 2)·nx unknowns (plates excluded), plus its SSOR and Jacobi forms. */
export function plateOperator(nx: number, ny: number, hx: number, hy: number, omega = ssorOmega(nx, ny)) {
  const rows = ny - 2;
  const ix2 = 1 / (hx * hx);
  const iy2 = 1 / (hy * hy);
  // per-column data (every row of unknowns is alike): weight, diagonal, y coupling
  const diag = new Float64Array(nx);
  const cy = new Float64Array(nx);
  for (let i = 0; i < nx; i++) {
    const side = i === 0 || i === nx - 1;
    const w = side ? 0.5 : 1;
    diag[i] = (side ? 1 : 2) * ix2 + 2 * w * iy2;
    cy[i] = w * iy2;
  }
  const last = nx - 1;
  const dSide = diag[0], dMid = diag[1], cSide = cy[0], cMid = cy[1];
  // Branch-free inner loops: the side columns (i = 0, nx − 1) and the first/last rows are peeled.
  const apply: LinearOperator = (u, out) => {
    for (let r = 0; r < rows; r++) {
      const o = r * nx;
      const dn = r > 0 ? o - nx : -1; // row below (or none)
      const up = r < rows - 1 ? o + nx : -1; // row above (or none)
      let yy = (dn >= 0 ? u[dn] : 0) + (up >= 0 ? u[up] : 0);
      out[o] = dSide * u[o] - ix2 * u[o + 1] - cSide * yy;
      if (dn >= 0 && up >= 0) {
        for (let k = o + 1; k < o + last; k++) {
          out[k] = dMid * u[k] - ix2 * (u[k - 1] + u[k + 1]) - cMid * (u[k - nx] + u[k + nx]);
        }
      } else {
        const off = dn >= 0 ? -nx : nx;
        const only = dn >= 0 || up >= 0;
        for (let k = o + 1; k < o + last; k++) {
          out[k] = dMid * u[k] - ix2 * (u[k - 1] + u[k + 1]) - (only ? cMid * u[k + off] : 0);
        }
      }
      const k = o + last;
      yy = (dn >= 0 ? u[dn + last] : 0) + (up >= 0 ? u[up + last] : 0);
      out[k] = dSide * u[k] - ix2 * u[k - 1] - cSide * yy;
    }
  };
  const fullDiag = new Float64Array(rows * nx);
  for (let r = 0; r < rows; r++) fullDiag.set(diag, r * nx);
  const scale = omega * (2 - omega);
  const wx = omega * ix2;
  const wcSide = omega * cSide, wcMid = omega * cMid;
  const iSide = 1 / dSide, iMid = 1 / dMid;
  const axMid = wx * iMid;
  // M = (D + ωL)·D⁻¹·(D + ωU) / (ω(2 − ω)); z = M⁻¹·r by a forward and a backward sweep
  const ssor: LinearOperator = (res, z) => {
    // forward: (D + ωL)·y = ω(2 − ω)·r
    for (let r = 0; r < rows; r++) {
      const o = r * nx;
      if (r > 0) {
        z[o] = (scale * res[o] + wcSide * z[o - nx]) * iSide;
        // written so the loop-carried dependency is one multiply-add: z[k] = t + ax·z[k−1]
        for (let k = o + 1; k < o + last; k++) z[k] = (scale * res[k] + wcMid * z[k - nx]) * iMid + axMid * z[k - 1];
        const k = o + last;
        z[k] = (scale * res[k] + wx * z[k - 1] + wcSide * z[k - nx]) * iSide;
      } else {
        z[o] = scale * res[o] * iSide;
        for (let k = o + 1; k < o + last; k++) z[k] = (scale * res[k] + wx * z[k - 1]) * iMid;
        const k = o + last;
        z[k] = (scale * res[k] + wx * z[k - 1]) * iSide;
      }
    }
    // backward: (D + ωU)·z = D·y
    for (let r = rows - 1; r >= 0; r--) {
      const o = r * nx;
      if (r < rows - 1) {
        let k = o + last;
        z[k] = z[k] + wcSide * z[k + nx] * iSide;
        for (k = o + last - 1; k > o; k--) z[k] = (z[k] + wcMid * z[k + nx] * iMid) + axMid * z[k + 1];
        z[o] = z[o] + (wx * z[o + 1] + wcSide * z[o + nx]) * iSide;
      } else {
        for (let k = o + last - 1; k > o; k--) z[k] = z[k] + wx * z[k + 1] * iMid;
        z[o] = z[o] + wx * z[o + 1] * iSide;
      }
    }
  };
  return { apply, ssor, fullDiag, diag, cy, rows };
}

export function solvePlates(p: PlateProblem, onIteration?: (it: number, rel: number) => void): PlateSolution {
  const { nx, ny, Lx, Ly, V, kx } = p;
  const hx = Lx / (nx - 1);
  const hy = Ly / (ny - 1);
  const op = plateOperator(nx, ny, hx, hy, p.omega);
  const rows = op.rows;
  const n = rows * nx;
  const b = new Float64Array(n);
  const A = V / 4;
  const exact = new Float64Array(nx * ny);
  const lap = kx > 0 ? A * Math.PI * Math.PI * ((kx * kx) / (Lx * Lx) + 1 / (Ly * Ly)) : 0; // ρ/ε amplitude
  for (let j = 0; j < ny; j++) {
    const y = j * hy;
    for (let i = 0; i < nx; i++) {
      const x = i * hx;
      const mode = kx > 0 ? Math.cos((kx * Math.PI * x) / Lx) * Math.sin((Math.PI * y) / Ly) : 0;
      exact[j * nx + i] = (V * y) / Ly + A * mode;
      if (j > 0 && j < ny - 1) {
        const w = i === 0 || i === nx - 1 ? 0.5 : 1;
        let rhs = w * lap * mode;
        if (j === ny - 2) rhs += op.cy[i] * V; // top plate moved to the right-hand side
        b[(j - 1) * nx + i] = rhs;
      }
    }
  }
  const u = new Float64Array(n); // zero initial guess: the solve owes nothing to the known answer
  const res = pcg(op.apply, b, u, {
    tol: p.tol ?? 1e-10,
    maxIter: 20 * n,
    precond: p.precond === 'ssor' ? op.ssor : null,
    diagonal: p.precond === 'jacobi' ? op.fullDiag : null,
    onIteration,
  });
  const phi = new Float64Array(nx * ny);
  for (let i = 0; i < nx; i++) phi[(ny - 1) * nx + i] = V;
  phi.set(u, nx);
  return { phi, iterations: res.iterations, relativeResidual: res.relativeResidual, converged: res.converged, exact };
}

/** The probe's error predicted exactly (issue 29): the linear field V·y/Ly is reproduced by the
 * 5-point stencil to rounding, and the space-charge mode cos(kx·π·x/Lx)·sin(π·y/Ly) is an
 * eigenvector of it (mirror ends in x), so the discrete mode's amplitude is A·λ/λ_h, with λ the
 * continuous and λ_h the discrete eigenvalue (4/h²)·sin²(k·π·h/2L) in each direction. */
/** the fewest nodes along x above nx predicted within 0.09 % (0 if none up to 220) */
function nxFitOf(nx: number, ny: number, Lx: number, Ly: number, V: number, kx: number): number {
  for (let m = nx + 1; m <= 220; m++) if (kx <= (m - 1) / 8 && predictedPlateErrorPct(m, ny, Lx, Ly, V, kx) <= 0.09) return m;
  return 0;
}

export function predictedPlateErrorPct(nx: number, ny: number, Lx: number, Ly: number, V: number, kx: number): number {
  if (kx <= 0) return 0;
  const hx = Lx / (nx - 1), hy = Ly / (ny - 1);
  const A = V / 4;
  const lam = Math.PI * Math.PI * ((kx * kx) / (Lx * Lx) + 1 / (Ly * Ly));
  const lamH = (4 / (hx * hx)) * Math.sin((kx * Math.PI * hx) / (2 * Lx)) ** 2 + (4 / (hy * hy)) * Math.sin((Math.PI * hy) / (2 * Ly)) ** 2;
  const ip = Math.round((nx - 1) / 3), jp = Math.round((ny - 1) / 2);
  const x = ip * hx, y = jp * hy;
  const mode = Math.cos((kx * Math.PI * x) / Lx) * Math.sin((Math.PI * y) / Ly);
  const ref = (V * y) / Ly + A * mode;
  return (100 * Math.abs(A * mode * (lam / lamH - 1))) / Math.max(Math.abs(ref), 1e-300);
}

/** CG's relative-residual tolerance: 1e-10, or, on cells far narrower in x than in y, the rounding
 * floor the residual can reach there (about 1e-13·(hy/hx)²: measured, Lx 1e-9 with Ly 1e-6 stalls
 * near 1e-8 while the potential is right to 5e-6 %; cells wide in x converge to 1e-10 as usual) */
export const plateTolerance = (hx: number, hy: number): number => Math.max(1e-10, 1e-13 * (Math.max(1, hy / hx)) ** 2);

function runPlates(inp: DeviceInput, ctx: SolverContext): SolverOutput {
  const kx = inp.kx ?? PLATE_DEFAULTS.kx;
  const ny0 = inp.ny ?? PLATE_DEFAULTS.ny, Ly0 = inp.Ly ?? PLATE_DEFAULTS.Ly, V0 = inp.V ?? PLATE_DEFAULTS.V, Lx0 = inp.Lx ?? 1e-6;
  // nx left out: 64 (or 220 past kx 7) where the exact error model meets the bound (the same run as
  // always), else the fewest nodes (up to the schema's 220) it predicts within 0.09 %
  let nx = inp.nx ?? plateNx(kx);
  if (inp.nx === undefined && predictedPlateErrorPct(nx, ny0, Lx0, Ly0, V0, kx) > 0.1) {
    for (let m = 16; m <= 220; m++) if (predictedPlateErrorPct(m, ny0, Lx0, Ly0, V0, kx) <= 0.09 && kx <= (m - 1) / 8) { nx = m; break; }
    if (predictedPlateErrorPct(nx, ny0, Lx0, Ly0, V0, kx) > 0.1) nx = 220;
  }
  const ny = inp.ny ?? PLATE_DEFAULTS.ny, Ly = inp.Ly ?? PLATE_DEFAULTS.Ly, V = inp.V ?? PLATE_DEFAULTS.V;
  const precond = inp.precond ?? PLATE_DEFAULTS.precond;
  const Lx = inp.Lx ?? 1e-6;
  const n = (ny - 2) * nx;
  // a space-charge mode the grid (the caller's, or the schema's largest, 220) cannot resolve to the
  // bound: an out-of-range field for this problem, decided before running
  const predicted = predictedPlateErrorPct(nx, ny, Lx, Ly, V, kx);
  if (predicted > 0.1) {
    let nxFit = 0;
    for (let m = nx + 1; m <= 220; m++) if ((kx <= (m - 1) / 8) && predictedPlateErrorPct(m, ny, Lx, Ly, V, kx) <= 0.09) { nxFit = m; break; }
    if (nxFit === 0) {
      const field = inp.nx !== undefined ? 'nx' : 'kx';
      throw refuse('INVALID_INPUT', `kx = ${kx}: on ${nx} × ${ny} nodes the space-charge mode's discrete amplitude is off by ${Number(predicted.toPrecision(3))} % at the probe (the 5-point stencil's eigenvalue), beyond the 0.1 % bound${inp.nx === undefined ? ', and 220 nodes is the most the schema allows' : nxFit === 0 ? ' even at 220 nodes, the most the schema allows' : ''}; lower kx${inp.nx !== undefined ? ' or raise nx' : ''}`, {
        issues: [{ path: field, message: `the grid cannot resolve mode ${kx} to within 0.1 %` }],
        predictedErrorPct: predicted,
      });
    }
  }
  let lastReported = 0;
  const retry = predicted > 0.1 ? { retryWith: { inputs: { nx: nxFitOf(nx, ny, Lx, Ly, V, kx) }, predictedErrorPct: predictedPlateErrorPct(nxFitOf(nx, ny, Lx, Ly, V, kx), ny, Lx, Ly, V, kx), predictedCost: { nodes: nxFitOf(nx, ny, Lx, Ly, V, kx) * ny, relativeToThisRun: nxFitOf(nx, ny, Lx, Ly, V, kx) / nx } } } : {};
  const sol = solvePlates({ nx, ny, Lx, Ly, V, kx, precond, tol: plateTolerance(Lx / (nx - 1), Ly / (ny - 1)) }, (it) => {
    if (it - lastReported >= 50) { lastReported = it; ctx.progress(Math.min(0.95, it / Math.sqrt(n) / 20)); }
  });
  if (!sol.converged) {
    throw refuse('PRECISION_REFUSED', `CG did not reach the tolerance (relative residual ${sol.relativeResidual})`, { iterations: sol.iterations });
  }
  const ip = Math.round((nx - 1) / 3);
  const jp = Math.round((ny - 1) / 2);
  const hx = Lx / (nx - 1);
  const hy = Ly / (ny - 1);
  const value = sol.phi[jp * nx + ip];
  const ref = sol.exact[jp * nx + ip];
  let maxErr = 0;
  for (let k = 0; k < sol.phi.length; k++) maxErr = Math.max(maxErr, Math.abs(sol.phi[k] - sol.exact[k]));
  const errorPct = (Math.abs(value - ref) / Math.max(Math.abs(ref), 1e-300)) * 100;
  const boundPct = 0.1;
  // field between the plates at the probe column: E = −∂φ/∂y (central difference)
  const fieldAtProbe = -(sol.phi[(jp + 1) * nx + ip] - sol.phi[(jp - 1) * nx + ip]) / (2 * hy);
  const ys: number[] = [], phiCol: number[] = [], exactCol: number[] = [];
  for (let j = 0; j < ny; j++) { ys.push(j * hy); phiCol.push(sol.phi[j * nx + ip]); exactCol.push(sol.exact[j * nx + ip]); }
  ctx.progress(1);
  return {
    value,
    method: `pcg-${precond}`,
    ...retry,
    result: {
      mode: 'plates-2d',
      potentialV: value,
      referenceV: ref,
      probe: { x: ip * hx, y: jp * hy, i: ip, j: jp },
      grid: { nx, ny, Lx, Ly, hx, hy, unknowns: n },
      plateVoltage: V,
      kx,
      spaceChargeAmplitudeCm3: kx > 0 ? EPS_SI * (V / 4) * Math.PI ** 2 * ((kx * kx) / (Lx * Lx) + 1 / (Ly * Ly)) : 0,
      uniformFieldVm: V / Ly,
      fieldAtProbeVm: fieldAtProbe,
      maxErrorV: maxErr,
      maxErrorPctOfV: (maxErr / Math.max(Math.abs(V), 1e-300)) * 100,
      preconditioner: precond,
      cgIterations: sol.iterations,
      relativeResidual: sol.relativeResidual,
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: kx > 0 ? 'linear field between plates plus the exact space-charge mode' : 'linear field between plates V*y/Ly',
      referenceValue: ref,
    }),
    series: { y: ys, phi: phiCol, exact: exactCol },
  };
}

// ---------------------------------------------------------------------------------------------
// 1-D PN junction: Newton on the Poisson-Boltzmann equation

export interface JunctionSolution {
  x: Float64Array;
  psi: Float64Array;
  /** electric field at the nodes (V/m), from the discrete Gauss law of the box scheme */
  field: Float64Array;
  /** index of the junction node */
  junction: number;
  newtonIterations: number;
  builtInV: number;
  lengthM: number;
  maxUpdate: number;
}

/**
 * Offsets 0 = d_0 < … < d_n = sideM of one side of the junction, the spacing next to the junction
 * at most `firstM`: uniform if sideM/n already is, else d_k = sideM·sinh(β·k/n)/sinh(β) with β
 * chosen so the first spacing is about firstM (sinh(β)/β = sideM/(n·firstM), by bisection).
 */
export function gradedOffsets(sideM: number, n: number, firstM: number): Float64Array {
  const d = new Float64Array(n + 1);
  const ratio = sideM / (n * firstM);
  if (!(ratio > 1)) {
    for (let k = 0; k <= n; k++) d[k] = (sideM * k) / n;
    return d;
  }
  let lo = 0, hi = 1;
  while (Math.sinh(hi) / hi < ratio && hi < 700) hi *= 2;
  for (let it = 0; it < 200 && hi - lo > 1e-14 * hi; it++) {
    const mid = 0.5 * (lo + hi);
    if (Math.sinh(mid) / mid < ratio) lo = mid; else hi = mid;
  }
  const beta = 0.5 * (lo + hi);
  const sb = Math.sinh(beta);
  for (let k = 0; k <= n; k++) d[k] = (sideM * Math.sinh((beta * k) / n)) / sb;
  d[n] = sideM;
  return d;
}

export function solveJunction(Na: number, Nd: number, ni: number, T: number, nodes: number, lengthM: number): JunctionSolution {
  const VT = (K_B * T) / Q_E;
  const lambda2 = (EPS_SI * VT) / (Q_E * ni); // intrinsic Debye length squared
  // mesh: junction node j at x = L/2; the p side (left) has j intervals, the n side the rest
  const j = Math.floor((nodes - 1) / 2);
  const side = lengthM / 2;
  const LDp = Math.sqrt((EPS_SI * VT) / (Q_E * Na));
  const LDn = Math.sqrt((EPS_SI * VT) / (Q_E * Nd));
  // the heavier side's carriers spill over the junction, so both sides resolve the shorter length
  const first = Math.min(LDp, LDn) / 4;
  const left = gradedOffsets(side, j, first);
  const right = gradedOffsets(side, nodes - 1 - j, first);
  const x = new Float64Array(nodes);
  for (let i = 0; i <= j; i++) x[i] = side - left[j - i];
  for (let k = 1; k < nodes - j; k++) x[j + k] = side + right[k];
  const h = new Float64Array(nodes - 1);
  for (let i = 0; i < nodes - 1; i++) h[i] = x[i + 1] - x[i];
  // doping (scaled by ni) of the left and right half control volumes of each node, and the box weight
  const Cp = -Na / ni, Cn = Nd / ni;
  const CL = new Float64Array(nodes), CR = new Float64Array(nodes), C = new Float64Array(nodes), w = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) {
    CL[i] = i <= j ? Cp : Cn;
    CR[i] = i < j ? Cp : Cn;
    const hl = i > 0 ? 0.5 * h[i - 1] : 0, hr = i < nodes - 1 ? 0.5 * h[i] : 0;
    w[i] = hl + hr;
    C[i] = (hl * CL[i] + hr * CR[i]) / w[i]; // the junction node carries the average doping of its box
  }
  const u = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) u[i] = Math.asinh(C[i] / 2); // local charge neutrality
  const sub = new Float64Array(nodes), dia = new Float64Array(nodes), sup = new Float64Array(nodes);
  const F = new Float64Array(nodes), delta = new Float64Array(nodes), work = new Float64Array(nodes);
  let it = 0;
  let maxUpdate = Infinity;
  let stalled = 0;
  // stop at max|δu| < 1e−12, or when rounding stalls the update below 1e−8 (three times no smaller)
  for (; it < 200 && maxUpdate > 1e-12 && !(stalled >= 3 && maxUpdate < 1e-8); ) {
    const previous = maxUpdate;
    // box residual F_i = λ²·[(u_{i+1} − u_i)/h_i − (u_i − u_{i−1})/h_{i−1}] − w_i·(2 sinh u_i − C_i),
    // zero flux through the contacts; we solve (−J)δ = F with −J symmetric positive definite
    for (let i = 0; i < nodes; i++) {
      const gl = i > 0 ? lambda2 / h[i - 1] : 0;
      const gr = i < nodes - 1 ? lambda2 / h[i] : 0;
      const flux = (i < nodes - 1 ? gr * (u[i + 1] - u[i]) : 0) - (i > 0 ? gl * (u[i] - u[i - 1]) : 0);
      F[i] = flux - w[i] * (2 * Math.sinh(u[i]) - C[i]);
      dia[i] = gl + gr + 2 * w[i] * Math.cosh(u[i]);
      sub[i] = -gl;
      sup[i] = -gr;
    }
    solveTridiagonal(sub, dia, sup, F, delta, work);
    maxUpdate = 0;
    for (let i = 0; i < nodes; i++) {
      const d = delta[i];
      const a = Math.abs(d);
      if (a > maxUpdate) maxUpdate = a;
      u[i] += a > 1 ? Math.sign(d) * Math.log1p(a) : d;
    }
    stalled = maxUpdate >= 0.5 * previous ? stalled + 1 : 0;
    it++;
  }
  const psi = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) psi[i] = u[i] * VT;
  // nodal field E = −V_T·u': the flux into the node's box from one side plus the charge of that half
  // box (Gauss's law of the scheme), E_i = −V_T·[(u_{i+1} − u_i)/h_i − (h_i/2λ²)(2 sinh u_i − C_R)]
  const field = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) {
    const du = i < nodes - 1
      ? (u[i + 1] - u[i]) / h[i] - (0.5 * h[i] / lambda2) * (2 * Math.sinh(u[i]) - CR[i])
      : (u[i] - u[i - 1]) / h[i - 1] + (0.5 * h[i - 1] / lambda2) * (2 * Math.sinh(u[i]) - CL[i]);
    field[i] = -VT * du;
  }
  return { x, psi, field, junction: j, newtonIterations: it, builtInV: psi[nodes - 1] - psi[0], lengthM, maxUpdate };
}

/**
 * Field at an abrupt junction in equilibrium from the first integral of the Poisson-Boltzmann
 * equation (continuum, no depletion approximation): with u = ψ/V_T, λ² = εV_T/(q·ni), C = (Nd − Na)/ni,
 * λ²·u'' = 2 sinh u − C integrates on each uniformly doped side, from its neutral bulk u_b
 * (2 sinh u_b = C, u' = 0), to ½λ²u'² = 2 cosh u − 2 cosh u_b − C·(u − u_b). Continuity of u and u'
 * at the junction fixes u_j; the field there is the peak |E| (Sze & Ng, "Physics of Semiconductor
 * Devices", 3rd ed., §2.2.1, whose depletion approximation this does not make).
 */
export function junctionFirstIntegral(Na: number, Nd: number, ni: number, T: number): { junctionPotentialV: number; peakFieldVm: number } {
  const VT = (K_B * T) / Q_E;
  const lambda2 = (EPS_SI * VT) / (Q_E * ni);
  const Cp = -Na / ni, Cn = Nd / ni;
  const up = Math.asinh(Cp / 2), un = Math.asinh(Cn / 2);
  // 2cosh u_j − 2cosh u_p − C_p(u_j − u_p) = 2cosh u_j − 2cosh u_n − C_n(u_j − u_n)
  const uj = (2 * Math.cosh(up) - 2 * Math.cosh(un) - Cp * up + Cn * un) / (Cn - Cp);
  const g = 2 * Math.cosh(uj) - 2 * Math.cosh(up) - Cp * (uj - up);
  return { junctionPotentialV: uj * VT, peakFieldVm: VT * Math.sqrt((2 * Math.max(g, 0)) / lambda2) };
}

/** Depletion-approximation width (m) of an abrupt junction in equilibrium. */
export function depletionWidth(Na: number, Nd: number, Vbi: number, T: number): number {
  const VT = (K_B * T) / Q_E;
  const Veff = Math.max(Vbi - 2 * VT, VT);
  return Math.sqrt((2 * EPS_SI * Veff * (Na + Nd)) / (Q_E * Na * Nd));
}

function runJunction(inp: DeviceInput, ctx: SolverContext): SolverOutput {
  const Na = inp.Na ?? 1e22;
  const Nd = inp.Nd ?? 1e22;
  const ni = inp.ni ?? PN_DEFAULTS.ni, T = inp.T ?? PN_DEFAULTS.T;
  const nodes = inp.nx ?? 200;
  const VT = (K_B * T) / Q_E;
  const ref = VT * Math.log((Na * Nd) / (ni * ni));
  const W = depletionWidth(Na, Nd, ref, T);
  const xp = (W * Nd) / (Na + Nd);
  const xn = (W * Na) / (Na + Nd);
  const LDp = Math.sqrt((EPS_SI * VT) / (Q_E * Na));
  const LDn = Math.sqrt((EPS_SI * VT) / (Q_E * Nd));
  const half = Math.max(2 * xp + 15 * LDp, 2 * xn + 15 * LDn);
  const lengthM = inp.Lx ?? 2 * half;
  if (!(lengthM / (nodes - 1) > 0)) {
    throw refuse('INVALID_INPUT', `Lx = ${lengthM} m is too short for ${nodes} mesh nodes; raise Lx`, { field: 'Lx' });
  }
  ctx.progress(0.1);
  const sol = solveJunction(Na, Nd, ni, T, nodes, lengthM);
  if (!(sol.maxUpdate <= 1e-8) || !Number.isFinite(sol.builtInV)) {
    throw refuse('PRECISION_REFUSED', Number.isFinite(sol.builtInV)
      ? `Newton iteration did not converge (last update ${sol.maxUpdate} V_T)`
      : `the junction potential is not finite on this mesh (device length ${lengthM} m); raise Lx`, { newtonIterations: sol.newtonIterations });
  }
  const value = sol.builtInV;
  const errorPct = (Math.abs(value - ref) / ref) * 100;
  // peak field (the nodal Gauss-law field) and the depletion-approximation estimate Emax = q·Na·xp/ε
  let Emax = 0;
  let hMin = Infinity, hMax = 0;
  for (let i = 0; i < nodes; i++) {
    if (Math.abs(sol.field[i]) > Math.abs(Emax)) Emax = sol.field[i];
    if (i > 0) { const hi = sol.x[i] - sol.x[i - 1]; hMin = Math.min(hMin, hi); hMax = Math.max(hMax, hi); }
  }
  const firstIntegral = junctionFirstIntegral(Na, Nd, ni, T);
  const EmaxDepletion = (Q_E * Na * xp) / EPS_SI;
  ctx.progress(1);
  const exactNeutral = VT * (Math.asinh(Nd / (2 * ni)) + Math.asinh(Na / (2 * ni)));
  return {
    value,
    method: 'newton-poisson-boltzmann',
    result: {
      mode: 'pn-junction-1d',
      builtInPotentialV: value,
      referenceV: ref,
      neutralityLimitV: exactNeutral,
      thermalVoltageV: VT,
      Na, Nd, ni, T,
      lengthM,
      nodes,
      gridSpacingMinM: hMin,
      gridSpacingMaxM: hMax,
      junctionNode: sol.junction,
      junctionPotentialV: sol.psi[sol.junction],
      newtonIterations: sol.newtonIterations,
      lastUpdateVt: sol.maxUpdate,
      depletionWidthM: W,
      depletionP: xp,
      depletionN: xn,
      debyeLengthPM: LDp,
      debyeLengthNM: LDn,
      peakFieldVm: Math.abs(Emax),
      peakFieldDepletionApproxVm: EmaxDepletion,
      peakFieldFirstIntegralVm: firstIntegral.peakFieldVm,
      junctionPotentialFirstIntegralV: firstIntegral.junctionPotentialV,
      permittivity: EPS_SI,
    },
    precision: precisionOf({
      errorPct,
      reference: 'built-in potential (kT/q) ln(Na Nd / ni^2)',
      referenceValue: ref,
    }),
    series: { x: Array.from(sol.x), psi: Array.from(sol.psi), E: Array.from(sol.field) },
  };
}

export const run: SolverRun<DeviceInput> = (inp, ctx): SolverOutput => {
  const pn = inp.dim === 1 || inp.Na !== undefined || inp.Nd !== undefined;
  return pn ? runJunction(inp, ctx) : runPlates(inp, ctx);
};
