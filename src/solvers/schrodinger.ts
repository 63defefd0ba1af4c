// schrodinger: bound-state energies of the 1-D time-independent Schrödinger equation
//   −½ ψ'' + V(x) ψ = E ψ        (natural units ħ = m = 1; harmonic ω = 1; n = 0 is the ground state)
//
// Method: second-order central finite differences on N interior nodes with ψ = 0 at the ends of
// the computational interval, giving the symmetric tridiagonal Hamiltonian
//   H = tridiag(−1/(2h²), 1/h² + V_i, −1/(2h²))
// (Thijssen, "Computational Physics", 2nd ed., §3.2; Press et al., Numerical Recipes §18.3).
// Its eigenvalues come from Sturm-sequence bisection (lib/sturm.ts), unconditionally stable; the
// k-th eigenvalue is isolated by the inertia count, so the level number n is exact (no missed or
// swapped states). The kinetic truncation error is −(h²/24)·⟨p⁴⟩, O(h²). The finite well's step is
// smoothed by cell averaging V over [x_i − h/2, x_i + h/2] so the discontinuity costs O(h²), not O(h).
//
// References (analytic levels):
//   harmonic V = x²/2:              E_n = n + ½
//   infinite box of width L:        E_n = (n+1)²π² / (2L²)
//   finite well V = 0 for |x| < L/2, V0 outside: with a = L/2, z = a·√(2E), z₀ = a·√(2V₀),
//     even states z·tan z = √(z₀² − z²), odd states −z·cot z = √(z₀² − z²)
//     (Griffiths, "Introduction to Quantum Mechanics", §2.6), solved by bisection on
//     f_even = z·sin z − √(z₀²−z²)·cos z and f_odd = z·cos z + √(z₀²−z²)·sin z, level n in
//     (nπ/2, (n+1)π/2) ∩ (0, z₀).
//
// Domain: harmonic, L is the width of [−L/2, L/2] (default max(20, 2(√(2n+1) + 8)), so the
// Dirichlet walls sit ≥ 8 units past the classical turning point); box, L is the box width
// (default 1); finite well, L is the well width (default 2) and the interval extends 12 decay
// lengths 1/κ (κ = √(2(V₀ − E_n))) beyond each edge, at least L, at most 40·L.

import { z } from 'zod';
import { tridiagonalEigenvalues } from './lib/sturm.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, withDefaults } from './lib/no-effect.ts';

/** the finite well's depth, filled in after the checks (which must see what the caller sent: with
 * another potential it is a 400, DESIGN §9) */
const DEFAULT_V0 = 10;

/** Default L. Harmonic: wide enough that the walls sit ≥ 8 units past level n's turning point;
 * box: 1; finite well: 2, or, when a well that narrow holds fewer than n + 1 bound states, the
 * width whose well parameter z0 = (L/2)·√(2·V0) is (n + 3/4)·π/2, which holds level n (and no more)
 * with its energy clear of the rim. */
export function defaultWidth(potential: 'harmonic' | 'box' | 'finite-well', n: number, V0: number): number {
  if (potential === 'harmonic') return Math.max(20, 2 * (Math.sqrt(2 * n + 1) + 8));
  if (potential === 'box') return 1;
  const bound = Math.ceil((2 * Math.sqrt(2 * V0)) / Math.PI); // bound states of the L = 2 well
  return n < bound ? 2 : ((n + 0.75) * Math.PI) / Math.sqrt(2 * V0);
}

const input = z.strictObject({
  potential: z.enum(['harmonic', 'box', 'finite-well']).default('harmonic').describe('harmonic (default, ω = 1), box (infinite walls) or finite-well (depth V0)'),
  n: z.number().int().min(0).max(200).default(0).describe('level number, 0 = ground state; at most N/20'),
  N: z.number().int().min(16).max(50000).optional().describe('interior grid nodes; default 4000, or, when level n needs more, the count the O(h²) error of the 4000-node run predicts meets the bound (at most 50,000)'),
  L: z.number().min(0.01).max(1000).optional()
    .describe('harmonic: domain width (default max(20, 2(√(2n+1) + 8))); box: box width (default 1); finite-well: well width (default 2, widened when a well that narrow holds no level n)'),
  V0: z.number().min(1e-3).max(1e6).optional().describe('finite-well only (a 400 with harmonic or box): well depth (natural units; default 10)'),
}).superRefine((v, ctx) => {
  if (v.N !== undefined && v.n > Math.floor(v.N / 20)) {
    ctx.addIssue({ code: 'custom', path: ['n'], message: `n must be at most N/20 = ${Math.floor(v.N / 20)} (at least 10 nodes per half-wavelength); raise N` });
  }
  if (v.potential !== 'finite-well') {
    if (v.V0 !== undefined) noEffect(ctx, 'V0', `with potential '${v.potential}': V0 is the depth of the finite well`);
    return;
  }
  const V0 = v.V0 ?? DEFAULT_V0;
  const L = v.L ?? defaultWidth('finite-well', v.n, V0);
  const bound = Math.ceil((2 * (L / 2) * Math.sqrt(2 * V0)) / Math.PI);
  if (v.n >= bound) {
    ctx.addIssue({ code: 'custom', path: ['n'], message: `this well (L = ${L}, V0 = ${V0}) holds ${bound} bound state(s): n must be at most ${bound - 1}` });
  }
}).overwrite(withDefaults((v) => (v.potential === 'finite-well' ? { V0: DEFAULT_V0 } : {})));

export type SchrodingerInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'schrodinger',
  domain: 'Quantum Mechanics',
  method: 'finite-difference-sturm',
  methodDescription: 'finite-difference eigensolver (Sturm bisection) vs analytic levels',
  operators: ['KO42', 'QM5'],
  unit: 'E',
  summary: 'Energy of bound state n of a 1-D potential (harmonic, infinite box, finite square well) from a finite-difference Hamiltonian solved by Sturm bisection, in natural units ħ = m = 1, against the analytic levels.',
  input,
  examples: [
    'Ground state energy of the quantum harmonic oscillator',
    'Energy of the fourth excited state of a harmonic oscillator with hbar = m = omega = 1',
    'Particle in a box of width 1: what is the energy of level 3?',
    'Bound states of a finite square well of depth 10 and width 2',
    'Solve the time-independent Schrödinger equation for an infinite well',
    'How many bound states does a finite potential well with V0 = 50 have, and the first excited energy?',
    'Quantized energy levels of a 1-D quantum oscillator by finite differences',
    'Eigenvalues of the Hamiltonian for a particle trapped in a square well',
  ],
  vocabulary: [
    'schrodinger', 'schrödinger', 'quantum', 'wavefunction', 'hamiltonian', 'eigenvalue', 'energy level',
    'bound state', 'ground state', 'excited state', 'harmonic oscillator', 'particle in a box',
    'infinite well', 'finite well', 'square well', 'potential well', 'quantized', 'hbar', 'zero-point energy',
  ],
};

/** n-th level of the finite square well (well width L, depth V0), natural units. */
export function finiteWellLevel(widthL: number, V0: number, n: number): number {
  const a = widthL / 2;
  const z0 = a * Math.sqrt(2 * V0);
  let lo = (n * Math.PI) / 2;
  let hi = Math.min(((n + 1) * Math.PI) / 2, z0);
  if (!(lo < hi)) return NaN;
  const even = n % 2 === 0;
  const f = (zz: number): number => {
    const s = Math.sqrt(Math.max(z0 * z0 - zz * zz, 0));
    return even ? zz * Math.sin(zz) - s * Math.cos(zz) : zz * Math.cos(zz) + s * Math.sin(zz);
  };
  let flo = f(lo);
  for (let it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
    const mid = 0.5 * (lo + hi);
    const fm = f(mid);
    if (fm === 0) { lo = hi = mid; break; }
    if ((fm < 0) === (flo < 0)) { lo = mid; flo = fm; } else hi = mid;
  }
  const zz = 0.5 * (lo + hi);
  return (zz * zz) / (2 * a * a);
}

export function analyticLevel(inp: { potential: SchrodingerInput['potential']; L: number; V0: number }, n: number): number {
  if (inp.potential === 'harmonic') return n + 0.5;
  if (inp.potential === 'box') return ((n + 1) ** 2 * Math.PI ** 2) / (2 * inp.L * inp.L);
  return finiteWellLevel(inp.L, inp.V0, n);
}

interface Grid { xmin: number; width: number; h: number; d: Float64Array; e: Float64Array }

function buildHamiltonian(potential: SchrodingerInput['potential'], L: number, V0: number, N: number, halfDomain: number): Grid {
  const width = potential === 'box' ? L : 2 * halfDomain;
  const xmin = potential === 'box' ? 0 : -halfDomain;
  const h = width / (N + 1);
  const kin = 1 / (h * h);
  const d = new Float64Array(N);
  const e = new Float64Array(N - 1).fill(-0.5 * kin);
  const a = L / 2;
  for (let i = 0; i < N; i++) {
    const x = xmin + (i + 1) * h;
    let V = 0;
    if (potential === 'harmonic') V = 0.5 * x * x;
    else if (potential === 'finite-well') {
      // cell average of the step: V0 times the part of [x−h/2, x+h/2] outside |x| < a
      const lo = x - h / 2, hi = x + h / 2;
      const inside = Math.max(0, Math.min(hi, a) - Math.max(lo, -a));
      V = V0 * (1 - inside / h);
    }
    d[i] = kin + V;
  }
  return { xmin, width, h, d, e };
}

const DEFAULT_N = 4000;
const MAX_N = 50000;
const BOUND_PCT = 0.1;

interface LevelRun { value: number; levels: Float64Array | number[]; listed: number; grid: Grid; eCoarse: number; errorPct: number }

/** level n (and those below, listed) on N interior nodes, with the half-grid run for Richardson */
function solveLevel(potential: SchrodingerInput['potential'], n: number, N: number, L: number, V0: number, ref: number): LevelRun {
  const halfDomain = domainHalf(potential, L, V0, ref);
  const grid = buildHamiltonian(potential, L, V0, N, halfDomain);
  let listed = Math.min(Math.max(n + 1, 6), N);
  if (potential === 'finite-well') {
    // only bound levels have an analytic counterpart
    let bound = 0;
    while (bound < listed && Number.isFinite(finiteWellLevel(L, V0, bound))) bound++;
    listed = Math.max(bound, n + 1);
  }
  const levels = tridiagonalEigenvalues(grid.d, grid.e, 0, listed);
  const value = levels[n];
  // a posteriori estimate: the same level on a grid with half the nodes, Richardson for O(h²)
  const coarse = buildHamiltonian(potential, L, V0, Math.floor((N + 1) / 2) - 1, halfDomain);
  const eCoarse = tridiagonalEigenvalues(coarse.d, coarse.e, n, 1)[0];
  return { value, levels, listed, grid, eCoarse, errorPct: (Math.abs(value - ref) / Math.abs(ref)) * 100 };
}

/** The kinetic truncation error of the three-point Laplacian, −(h²/24)·⟨p⁴⟩, relative to the level
 * E_n, in percent: harmonic ⟨p⁴⟩ = (3/4)(2n² + 2n + 1) exactly (the default problem: 1.56e-4 %
 * predicted and measured); box and finite well p⁴ = (2E)² (kinetic energy E inside the well). */
function predictedPct(potential: SchrodingerInput['potential'], n: number, h: number, ref: number): number {
  const p4 = potential === 'harmonic' ? 0.75 * (2 * n * n + 2 * n + 1) : 4 * ref * ref;
  return 100 * (h * h * p4) / (24 * Math.abs(ref));
}

/** 4000 nodes where they meet the bound (the same bits as always), else the count predicted to meet
 * a quarter of it (at most 50,000) */
function defaultNodes(potential: SchrodingerInput['potential'], n: number, L: number, V0: number, ref: number): number {
  const width = (N: number) => (potential === 'box' ? L : 2 * domainHalf(potential, L, V0, ref)) / (N + 1);
  const at = predictedPct(potential, n, width(DEFAULT_N), ref);
  if (at <= BOUND_PCT) return DEFAULT_N;
  return Math.min(MAX_N, Math.max(DEFAULT_N, Math.ceil((DEFAULT_N + 1) * Math.sqrt(at / (0.25 * BOUND_PCT)))));
}

function domainHalf(potential: SchrodingerInput['potential'], L: number, V0: number, ref: number): number {
  if (potential !== 'finite-well') return L / 2;
  const kappa = Math.sqrt(2 * Math.max(V0 - ref, 0));
  return L / 2 + Math.min(Math.max(12 / Math.max(kappa, 1e-12), L), 40 * L);
}

/** the node count the O(h²) error model predicts meets a quarter of the bound, from a run at N */
const nodesFor = (N: number, errorPct: number) => Math.ceil((N + 1) * Math.sqrt(errorPct / (0.25 * BOUND_PCT)));

export const run: SolverRun<SchrodingerInput> = (inp, ctx): SolverOutput => {
  const { potential, n } = inp;
  const V0 = inp.V0 ?? DEFAULT_V0;
  const L = inp.L ?? defaultWidth(potential, n, V0);
  const ref = analyticLevel({ potential, L, V0 }, n);
  if (!Number.isFinite(ref)) {
    throw refuse('INVALID_INPUT', `level n = ${n} is not bound in this potential`, { n });
  }
  ctx.progress(0);
  // a grid the caller left out follows the level (issue 29): the kinetic error is O(h²) and grows
  // with the level's momentum (predictedPct); the default 4000 stays wherever it meets the bound
  const N = inp.N ?? defaultNodes(potential, n, L, V0, ref);
  const lr = solveLevel(potential, n, N, L, V0, ref);
  ctx.progress(0.7);
  const { value, levels, listed, grid, eCoarse, errorPct } = lr;
  const richardson = value + (value - eCoarse) / 3;
  const boundPct = BOUND_PCT;
  const ns: number[] = [], E: number[] = [], Eref: number[] = [];
  for (let k = 0; k < listed; k++) { ns.push(k); E.push(levels[k]); Eref.push(analyticLevel({ potential, L, V0 }, k)); }
  // a grid or (harmonic) domain the caller set that cannot meet the bound: the setting that does,
  // found by running it (a run costs milliseconds): the harmonic domain's default width (walls ≥ 8
  // units past the turning point) at the same spacing, then the node count the O(h²) model names
  const retry = errorPct > boundPct ? retrySchrodinger(inp, potential, n, N, L, V0, ref, errorPct) : undefined;
  ctx.progress(1);
  return {
    value,
    result: {
      energy: value,
      referenceEnergy: ref,
      level: n,
      potential,
      units: 'natural (hbar = m = 1, omega = 1)',
      L,
      ...(potential === 'finite-well' ? { V0, boundStates: Math.ceil((L * Math.sqrt(2 * V0)) / Math.PI) } : {}),
      domain: [grid.xmin, grid.xmin + grid.width],
      gridNodes: N,
      gridSpacing: grid.h,
      discretisationErrorPct: errorPct,
      errorEstimatePct: (Math.abs(richardson - value) / Math.abs(richardson)) * 100,
      richardsonEnergy: richardson,
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: potential === 'harmonic' ? 'harmonic oscillator E_n = n + 1/2'
        : potential === 'box' ? 'infinite well E_n = (n+1)^2 pi^2 / (2 L^2)'
          : 'finite square well, transcendental equations solved by bisection',
      referenceValue: ref,
    }),
    series: { n: ns, E, Eref },
    ...(retry ? { retryWith: retry } : {}),
  };
};

function retrySchrodinger(inp: SchrodingerInput, potential: SchrodingerInput['potential'], n: number, N: number, L: number, V0: number, ref: number, errorPct: number): NonNullable<SolverOutput['retryWith']> | undefined {
  const tries: { L?: number; N?: number }[] = [];
  const Ldef = defaultWidth(potential, n, V0);
  if (potential === 'harmonic' && inp.L !== undefined && L < Ldef) {
    const Nsame = Math.min(MAX_N, Math.ceil((N + 1) * Ldef / L));
    tries.push({ L: Ldef }, { L: Ldef, N: Nsame }, { L: Ldef, N: Math.max(DEFAULT_N, N) });
  }
  if (inp.N !== undefined || (potential === 'harmonic' && inp.L !== undefined)) {
    const N2 = Math.min(MAX_N, nodesFor(N, errorPct));
    if (N2 > N) tries.push({ N: N2 });
    if (potential === 'harmonic' && inp.L !== undefined && L > Ldef) tries.push({ L: Ldef });
  }
  for (const t of tries) {
    const L2 = t.L ?? L, N2 = t.N ?? N;
    if (N2 < 20 * n || N2 > MAX_N) continue;
    const e = solveLevel(potential, n, N2, L2, V0, analyticLevel({ potential, L: L2, V0 }, n)).errorPct;
    if (e <= 0.5 * BOUND_PCT) {
      const inputs: Record<string, number> = {};
      if (t.L !== undefined) inputs.L = Number(t.L.toPrecision(6));
      if (t.N !== undefined) inputs.N = t.N;
      if (inputs.L !== undefined && inputs.L !== t.L) continue;
      return { inputs, predictedErrorPct: e, predictedCost: { nodes: N2, relativeToThisRun: N2 / N } };
    }
  }
  return undefined;
}
