// buckling: Euler critical load of a slender column by the finite element method.
//
// Method: Euler-Bernoulli beam elements with Hermite cubic shape functions (two nodes, deflection w
// and rotation θ per node). Element bending stiffness K_e = EI/ℓ³·[12, 6ℓ, −12, 6ℓ; …] and the
// consistent geometric stiffness K_G,e = 1/(30ℓ)·[36, 3ℓ, −36, 3ℓ; 3ℓ, 4ℓ², −3ℓ, −ℓ²; …]
// (Przemieniecki, "Theory of Matrix Structural Analysis", 1968, §15; Cook, Malkus, Plesha & Witt,
// "Concepts and Applications of Finite Element Analysis", 4th ed., §18.2). Linearised buckling is the
// generalized symmetric eigenproblem K·v = P·K_G·v; its smallest eigenvalue is the critical load.
// K is positive definite once the supports are applied, so the pencil is reduced with the Cholesky
// factor K = LLᵀ to C = L⁻¹K_G L⁻ᵀ, μ = 1/P, tridiagonalised by Householder reflections and solved by
// Sturm bisection for the largest μ (lib/dense.ts, lib/sturm.ts; Golub & Van Loan §8.7.2). No time
// stepping, so no stability condition; the eigenvalues converge from above as O(h⁴) (consistent
// K_G, cubic elements). An independent inverse (power) iteration on K⁻¹K_G gives the buckled mode
// shape and a second estimate of the critical load by its Rayleigh quotient.
//
// Reference: P_cr = π²EI/(K·L)² with effective-length factor K = 1 (pinned-pinned), 0.5
// (fixed-fixed), 2 (fixed-free), and π/4.4934094579 = 0.699155… (fixed-pinned: the first root of
// tan x = x), Timoshenko & Gere, "Theory of Elastic Stability", 2nd ed., §2.
// Supports: 'fixed-free' is clamped at x = 0 and free at x = L; 'fixed-pinned' clamped at x = 0.
// Stiffness: EI if given; otherwise E·I, with E = 200 GPa and I = 8.333e-6 m⁴ (a 100 mm solid
// square steel section) for whichever is missing.

import { z } from 'zod';
import { cholesky, choleskySolve, generalizedSmallestEigenvalues, matVec } from './lib/dense.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { retryByOrder, optionalRetry } from './lib/retry.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect } from './lib/no-effect.ts';

const DEFAULT_E = 200e9;
const DEFAULT_I = 1e-4 / 12; // 0.1 m square: b·h³/12

const input = z.strictObject({
  ends: z.enum(['pinned-pinned', 'fixed-fixed', 'fixed-free', 'fixed-pinned']).default('pinned-pinned')
    .describe('end supports: pinned-pinned (default), fixed-fixed, fixed-free (clamped at x = 0), fixed-pinned (clamped at x = 0)'),
  EI: z.number().positive().max(1e15).optional().describe('bending stiffness (N·m²); default E·I. With EI, send neither E nor I, or both (then E·I must equal EI)'),
  E: z.number().positive().max(1e13).optional().describe("Young's modulus (Pa); default 200e9 when I is given alone. Not alone with EI"),
  I: z.number().positive().max(1e3).optional().describe('second moment of area (m⁴); default 1e-4/12 (a 100 mm solid square section) when E is given alone. Not alone with EI'),
  L: z.number().min(1e-3).max(1e4).default(3).describe('column length (m)'),
  elements: z.number().int().min(2).max(200).default(24).describe('number of beam elements'),
}).superRefine((v, ctx) => {
  // EI wins over E·I: E or I alone beside it would have no effect (DESIGN §9)
  if (v.EI !== undefined && (v.E === undefined) !== (v.I === undefined)) {
    const k = v.E !== undefined ? 'E' : 'I';
    noEffect(ctx, k, `with EI: the stiffness is EI; send EI alone, or E and I (whose product must equal EI)`);
  }
  if (v.EI !== undefined && v.E !== undefined && v.I !== undefined) {
    const ei = v.E * v.I;
    if (Math.abs(ei - v.EI) > 1e-9 * Math.max(ei, v.EI)) {
      ctx.addIssue({ code: 'custom', path: ['EI'], message: `EI = ${v.EI} disagrees with E·I = ${ei}; give EI, or E and I` });
    }
  }
});

export type BucklingInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'buckling',
  domain: 'Structural Stability',
  method: 'beam-fem-eigen',
  methodDescription: 'generalized eigenvalue beam FEM, smallest eigenvalue vs classical critical load',
  operators: ['KO42', 'BEAM_DEFLECTION'],
  unit: 'N',
  summary: 'Critical (Euler) buckling load of a column with pinned, fixed or free ends, from a Hermite-cubic beam FEM generalized eigenproblem K·v = P·K_G·v, checked against π²EI/(K·L)².',
  input,
  examples: [
    'Euler buckling load of a pinned-pinned steel column 3 m long',
    'Critical load of a cantilever column (fixed at the base, free at the top) with EI = 2e6 N m^2',
    'At what axial load does a fixed-fixed strut of length 5 m buckle?',
    'Column buckling for a fixed-pinned member, E = 70 GPa, I = 4e-6 m^4, L = 2 m',
    'Compute the critical compressive force for a slender aluminium rod',
    'Stability of a flagpole under its own axial load: effective length factor 2',
    'Find the first buckling mode and load of a simply supported beam-column',
    'How much compression can a 10 m timber post with EI 5e5 take before it buckles?',
  ],
  vocabulary: [
    'buckling', 'buckle', 'euler', 'critical load', 'column', 'strut', 'compression', 'compressive',
    'stability', 'slender', 'effective length', 'pinned', 'fixed', 'cantilever column', 'axial load',
    'eigenvalue', 'beam-column', 'flexural rigidity', 'ei', 'second moment of area', 'moment of inertia',
  ],
};

export const EFFECTIVE_LENGTH: Record<BucklingInput['ends'], number> = {
  'pinned-pinned': 1,
  'fixed-fixed': 0.5,
  'fixed-free': 2,
  // first positive root of tan x = x is 4.493409457909064; K = π / x
  'fixed-pinned': Math.PI / 4.493409457909064,
};

/** Dense global K and K_G (2 dofs per node) with supported dofs removed; also the kept dof map. */
function assemble(EI: number, lengthM: number, elements: number, ends: BucklingInput['ends']) {
  const nodes = elements + 1;
  const full = 2 * nodes;
  const K = new Float64Array(full * full);
  const G = new Float64Array(full * full);
  const l = lengthM / elements;
  const k = EI / (l * l * l);
  const ke = [
    12, 6 * l, -12, 6 * l,
    6 * l, 4 * l * l, -6 * l, 2 * l * l,
    -12, -6 * l, 12, -6 * l,
    6 * l, 2 * l * l, -6 * l, 4 * l * l,
  ];
  const g = 1 / (30 * l);
  const ge = [
    36, 3 * l, -36, 3 * l,
    3 * l, 4 * l * l, -3 * l, -l * l,
    -36, -3 * l, 36, -3 * l,
    3 * l, -l * l, -3 * l, 4 * l * l,
  ];
  for (let el = 0; el < elements; el++) {
    const base = 2 * el;
    for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) {
      K[(base + a) * full + base + b] += k * ke[a * 4 + b];
      G[(base + a) * full + base + b] += g * ge[a * 4 + b];
    }
  }
  const fixed = new Set<number>();
  const [left, right] = ends.split('-');
  if (left === 'pinned' || left === 'fixed') fixed.add(0);
  if (left === 'fixed') fixed.add(1);
  if (right === 'pinned' || right === 'fixed') fixed.add(full - 2);
  if (right === 'fixed') fixed.add(full - 1);
  const kept: number[] = [];
  for (let i = 0; i < full; i++) if (!fixed.has(i)) kept.push(i);
  const n = kept.length;
  const Kr = new Float64Array(n * n);
  const Gr = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    Kr[i * n + j] = K[kept[i] * full + kept[j]];
    Gr[i * n + j] = G[kept[i] * full + kept[j]];
  }
  return { Kr, Gr, n, kept, nodes, elementLength: l };
}

export const run: SolverRun<BucklingInput> = (inp, ctx): SolverOutput => {
  const { ends, L, elements } = inp;
  const EI = inp.EI ?? (inp.E ?? DEFAULT_E) * (inp.I ?? DEFAULT_I);
  ctx.progress(0);
  const { Kr, Gr, n, kept, nodes } = assemble(EI, L, elements, ends);
  const loads = generalizedSmallestEigenvalues(Kr, Gr, n, Math.min(3, n));
  if (!loads || loads.length === 0) {
    throw refuse('INVALID_INPUT', 'the supported stiffness matrix is not positive definite', { ends });
  }
  ctx.progress(0.6);
  const value = loads[0];

  // Inverse iteration x_{k+1} = K⁻¹ K_G x_k: converges to the mode of the largest μ = 1/P
  // (ratio P₁/P₂ per step); Rayleigh quotient gives an independent estimate of P₁.
  const Lk = cholesky(Kr, n)!;
  let x: Float64Array = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = 1 + 0.01 * i; // generic start, not orthogonal to the first mode
  const gx = new Float64Array(n);
  const kx = new Float64Array(n);
  let rayleigh = NaN;
  let iterations = 0;
  for (let it = 0; it < 200; it++) {
    matVec(Gr, n, x, gx);
    const y = choleskySolve(Lk, n, gx);
    let norm = 0;
    for (let i = 0; i < n; i++) norm = Math.max(norm, Math.abs(y[i]));
    for (let i = 0; i < n; i++) y[i] /= norm;
    matVec(Kr, n, y, kx);
    matVec(Gr, n, y, gx);
    let num = 0, den = 0;
    for (let i = 0; i < n; i++) { num += y[i] * kx[i]; den += y[i] * gx[i]; }
    const next = num / den;
    x = y;
    iterations = it + 1;
    if (Math.abs(next - rayleigh) <= 1e-11 * Math.abs(next)) { rayleigh = next; break; }
    rayleigh = next;
  }
  ctx.progress(0.9);

  // mode shape: deflection dofs (even global indices), normalised to max |w| = 1
  const wFull = new Float64Array(2 * nodes);
  for (let i = 0; i < n; i++) wFull[kept[i]] = x[i];
  const xs: number[] = [], w: number[] = [];
  let wmax = 0;
  for (let j = 0; j < nodes; j++) wmax = Math.max(wmax, Math.abs(wFull[2 * j]));
  let sign = 1;
  for (let j = 0; j < nodes; j++) if (Math.abs(wFull[2 * j]) === wmax) { sign = Math.sign(wFull[2 * j]) || 1; break; }
  for (let j = 0; j < nodes; j++) { xs.push((j * L) / elements); w.push(wmax > 0 ? (sign * wFull[2 * j]) / wmax : 0); }

  const K = EFFECTIVE_LENGTH[ends];
  const ref = (Math.PI ** 2 * EI) / (K * L) ** 2;
  const errorPct = (Math.abs(value - ref) / ref) * 100;
  const boundPct = 0.1;
  ctx.progress(1);
  return {
    value,
    result: {
      criticalLoadN: value,
      referenceLoadN: ref,
      ends,
      effectiveLengthFactor: K,
      EI,
      L,
      elements,
      higherModeLoadsN: Array.from(loads.subarray(1)),
      inverseIterationLoadN: rayleigh,
      inverseIterationSteps: iterations,
      methodAgreementPct: (Math.abs(rayleigh - value) / value) * 100,
      dofs: n,
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'Euler critical load pi^2 EI / (K L)^2',
      referenceValue: ref,
    }),
    series: { x: xs, w },
    // elements too few for the bound: the count the error model names (order 2 taken low: cubic
    // Hermite elements converge faster, so the advice errs fine)
    ...(errorPct > boundPct ? optionalRetry(retryByOrder({ field: 'elements', value: elements, errorPct, boundPct, order: 2, kind: 'count', integer: true, max: 200 })) : {}),
  };
};
