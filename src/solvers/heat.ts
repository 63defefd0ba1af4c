// heat: the diffusion equation u_t = α·∇²u on the unit interval (dim 1) or the unit square (dim 2),
// zero Dirichlet boundaries, initial mode u0 = sin(kx·π·x)·sin(ky·π·y) (sin(mode·π·x) in 1-D).
//
// Methods (second-order central differences in space on a uniform grid of nx (and ny) intervals):
//  - explicit: forward-time centred-space (FTCS). Stable only while
//    r = α·dt·(1/dx² + 1/dy²) <= 1/2 (1/dx² alone in 1-D); past that it blows up, so the run is
//    refused with 422 UNSTABLE and r before anything is computed (von Neumann analysis;
//    Morton & Mayers, "Numerical Solution of PDEs", 2nd ed., §2.6 and §3.7).
//  - implicit, 1-D: Crank-Nicolson (Crank & Nicolson 1947; Press et al., "Numerical Recipes",
//    3rd ed., §20.2), one tridiagonal (Thomas) solve per step; unconditionally stable.
//  - implicit, 2-D: alternating-direction implicit, Peaceman-Rachford (Peaceman & Rachford 1955;
//    Numerical Recipes §20.3.3), two tridiagonal sweeps per step; unconditionally stable.
//
// value: the amplitude of the initial mode at the end, the discrete L2 projection of u onto the
// mode. Reference: exp(−α·π²·(kx² + ky²)·t) (ky = 0 in 1-D). The sine mode is an exact eigenvector
// of the discrete Laplacian, so the solver also reports the scheme's exact discrete amplitude
// g^steps (g the von Neumann amplification factor of the mode): the run must match it to rounding,
// and the remaining gap to the continuous reference is the O(dx², dt²) truncation error.
//
// User mode (any of initial, boundary, Lx, Ly, source, probes): u_t = α·∇²u + f(x, y, t, u) on
// [0, Lx] (× [0, Ly]) with the caller's initial condition and per-side Dirichlet / Neumann / periodic
// conditions (lib/userpde.ts), the same three schemes and the same r <= 1/2 limit for FTCS. The
// source enters FTCS at t^n; Crank-Nicolson and each ADI half step take it at t^{n+½} with u
// extrapolated, ũ = (3u^n − u^{n−1})/2 (second order; explicit in u, so a stiff source −k·u needs
// k·dt below about 1). ADI's intermediate level on a time-dependent Dirichlet wall takes the
// consistent value u* = ½(g^n + g^{n+1}) − ½·hy·δy²(g^{n+1} − g^n) (Fairweather & Mitchell, SIAM J.
// Numer. Anal. 4 (1967) 163). precision is a Richardson estimate from a twin run on the grid halved
// in space and time (dt/2; dt/4 for FTCS).
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverRun, SolverOutput, Stability } from './types.ts';
import { factorConstantTridiagonal, solveFactored, solveFactoredBatch } from './lib/tridiag.ts';
import { relErrPct, precisionOf } from './lib/precision.ts';
import { noEffect } from './lib/no-effect.ts';
import {
  userFields, EXPR_MAX_LENGTH, checkModeConflicts, prepareUserProblem, checkWork, workOf, Grid, Recorder, fillField,
  explicitUpdate, evalSource, LineSolver, addImplicitBoundary, richardson, type UserProblem, type GridRun,
} from './lib/userpde.ts';

/** the finest grid a caller may ask for, or a default may choose (1024 intervals a side) */
const MAX_GRID = 1024;

const input = z.strictObject({
  method: z.enum(['explicit', 'implicit']).default('implicit')
    .describe('explicit = FTCS; implicit = Crank-Nicolson (1-D) or ADI Peaceman-Rachford (2-D)'),
  nx: z.number().int().min(8).max(MAX_GRID).optional().describe('grid intervals along x (dx = 1/nx). Default: 64, or for a sine mode the coarsest grid whose predicted error is within 0.09 % (a higher mode needs a finer grid)'),
  ny: z.number().int().min(8).max(MAX_GRID).optional().describe('dim 2 only (a 400 with dim 1): grid intervals along y (dy = 1/ny, or Ly/ny in the user mode; default as nx)'),
  kx: z.number().int().min(1).max(127).optional().describe('x wavenumber of the initial mode sin(kx·π·x) (default 1; analytic mode with dim 2 only: dim 1 takes mode)'),
  ky: z.number().int().min(1).max(127).optional().describe('y wavenumber of the initial mode sin(ky·π·y) (default 1; analytic mode with dim 2 only)'),
  alpha: z.number().positive().max(1000).default(1).describe('diffusivity α (m²/s)'),
  dt: z.number().positive().max(10).optional().describe('time step (s); default 5e-5, or, for a sine mode with steps also left out, t = 0.05 split into as many steps as the mode needs'),
  steps: z.number().int().min(1).max(20000).optional().describe('number of time steps (default 1000, or as dt)'),
  dim: z.number().int().min(1).max(2).default(2).describe('1 selects the 1-D bar, 2 the unit square'),
  mode: z.number().int().min(1).max(127).optional().describe('1-D mode number: initial sin(mode·π·x) (default 1; analytic mode with dim 1 only: dim 2 takes kx, ky)'),
  // user mode (docs/solvers-fields-a.md, "heat and wave: the user mode")
  ...userFields,
  source: z.string().min(1).max(EXPR_MAX_LENGTH).optional()
    .describe('user mode: source f in u_t = alpha*laplacian(u) + f, an expression in x, y (2-D), t and u; '
      + 'a u-dependent source is extrapolated in time in the implicit schemes (explicit in u)')
    .meta({ examples: ['sin(pi*x)*exp(-t)', '10*u*(1-u)'] }),
}).superRefine((v, ctx) => {
  // nothing is silently ignored (DESIGN §9): the 1-D bar has no y grid
  if (v.dim === 1 && v.ny !== undefined) noEffect(ctx, 'ny', 'with dim 1: the bar has no y direction');
});

export type HeatInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'heat',
  domain: 'Thermal Diffusion',
  method: 'crank-nicolson',
  methodDescription: 'Crank-Nicolson / FTCS / ADI, 1-D and 2-D',
  operators: ['KO42', 'CHE17'],
  unit: 'T',
  summary: 'Diffusion of a sine mode on the unit bar or unit square (zero Dirichlet walls): explicit FTCS, '
    + 'Crank-Nicolson (1-D) or Peaceman-Rachford ADI (2-D); value is the mode amplitude at the end, '
    + 'checked against exp(-alpha*pi^2*(kx^2+ky^2)*t).',
  input,
  examples: [
    'How fast does heat diffuse out of a square plate with cold edges?',
    'Solve the 2-D heat equation with Crank-Nicolson or ADI on a 64 by 64 grid',
    'Temperature decay of a metal bar with both ends held at zero degrees',
    'Run an explicit FTCS diffusion simulation and check the stability number r',
    'Thermal diffusion of the first sine mode with diffusivity 0.5',
    'Simulate heat conduction in a 1-D rod with implicit time stepping',
    'How does the amplitude of a temperature mode decay over time in a plate?',
    'Cooling of a hot spot by conduction, alternating direction implicit scheme',
    'Is my explicit heat equation time step stable? alpha 1, dt 0.001, 50 grid points',
  ],
  vocabulary: [
    'heat', 'heat equation', 'diffusion', 'thermal', 'temperature', 'conduction', 'conductivity',
    'diffusivity', 'cooling', 'warming', 'rod', 'bar', 'plate', 'crank-nicolson', 'crank nicolson',
    'ftcs', 'adi', 'alternating direction implicit', 'peaceman-rachford', 'fourier', 'parabolic pde',
    'heat transfer', 'thermal diffusion', 'hot', 'cold',
  ],
};


/** 4·sin²(k·π·h/2): eigenvalue of −δ² (times h²) for the mode sin(kπx) on a grid of spacing h. */
function symbol(k: number, h: number): number {
  const s = Math.sin(k * Math.PI * h / 2);
  return 4 * s * s;
}

// Kernels live in small top-level functions so the JIT optimises each tight loop on its own.

function ftcs1d(cur: Float64Array, nxt: Float64Array, nx: number, r: number): void {
  for (let i = 1; i < nx; i++) nxt[i] = cur[i] + r * (cur[i - 1] - 2 * cur[i] + cur[i + 1]);
}

function ftcs2d(cur: Float64Array, nxt: Float64Array, nx: number, ny: number, rx: number, ry: number): void {
  const W = nx + 1;
  for (let j = 1; j < ny; j++) {
    const row = j * W;
    for (let p = row + 1, end = row + nx; p < end; p++) {
      const c = cur[p];
      nxt[p] = c + rx * (cur[p - 1] - 2 * c + cur[p + 1]) + ry * (cur[p - W] - 2 * c + cur[p + W]);
    }
  }
}

/** starT(i, j) = (I + hy·δy²)·u (i, j), written transposed (starT[i·(ny+1) + j]). */
function adiHalfY(u: Float64Array, starT: Float64Array, nx: number, ny: number, hy: number): void {
  const W = nx + 1, Hs = ny + 1;
  for (let j = 1; j < ny; j++) {
    const row = j * W;
    for (let i = 1, p = row + 1, q = Hs + j; i < nx; i++, p++, q += Hs) {
      const c = u[p];
      starT[q] = c + hy * (u[p - W] - 2 * c + u[p + W]);
    }
  }
}

/** u(i, j) = (I + hx·δx²)·u*(i, j), reading the transposed u*. */
function adiHalfX(starT: Float64Array, u: Float64Array, nx: number, ny: number, hx: number): void {
  const W = nx + 1, Hs = ny + 1;
  for (let i = 1; i < nx; i++) {
    const col = i * Hs;
    for (let j = 1, q = col + 1, p = W + i; j < ny; j++, q++, p += W) {
      const c = starT[q];
      u[p] = c + hx * (starT[q - Hs] - 2 * c + starT[q + Hs]);
    }
  }
}

export const run: SolverRun<HeatInput> = (inp, ctx): SolverOutput => {
  if (checkModeConflicts(inp, ['kx', 'ky', 'mode'])) return runUser(inp, ctx);
  const oneD = inp.dim === 1;
  // nothing is silently ignored (DESIGN §9): the 1-D bar's mode is `mode`, the square's are kx, ky
  for (const f of oneD ? (['kx', 'ky'] as const) : (['mode'] as const)) {
    if (inp[f] !== undefined) {
      throw refuse('INVALID_INPUT', oneD ? `${f}: the 1-D bar (dim 1) has one mode, given by mode; ${f} applies to the unit square (dim 2)` : 'mode: the 1-D mode number applies to dim 1; the unit square takes kx and ky',
        { issues: [{ path: f, message: oneD ? 'has no effect with dim 1' : 'has no effect with dim 2' }] });
    }
  }
  const kx = oneD ? inp.mode ?? 1 : inp.kx ?? 1;
  const ky = oneD ? 0 : inp.ky ?? 1;
  const explicitMethod = inp.method === 'explicit';
  // a mode that has decayed below rounding by the final time has nothing to compare with: the
  // modes rounding excites (about 1e-16 of the start) decay more slowly, and past ~1e-308 the
  // reference itself underflows. The question is meaningless for the reference: a 400 naming the
  // fields that set it, decided before running (docs/defaults.md)
  const tEnd = (inp.dt ?? DEFAULT_DT) * (inp.steps ?? DEFAULT_STEPS);
  if (lostInRounding({ oneD, explicit: explicitMethod, kx, ky, alpha: inp.alpha, dt: inp.dt ?? DEFAULT_DT, steps: inp.steps ?? DEFAULT_STEPS })) {
    const amp = Math.exp(-inp.alpha * Math.PI * Math.PI * (kx * kx + ky * ky) * tEnd);
    const fields = (oneD ? ['mode', 'alpha', 'dt', 'steps'] : ['kx', 'ky', 'alpha', 'dt', 'steps']).filter((f) => (inp as Record<string, unknown>)[f] !== undefined);
    const what = amp === 0 ? `underflows to 0 (below the smallest double)` : `is ${amp.toPrecision(2)}, below the rounding floor ${ROUNDING_FLOOR}`;
    throw refuse('INVALID_INPUT', `the initial mode's amplitude at t = ${tEnd}, exp(-alpha*pi^2*(${oneD ? 'mode^2' : 'kx^2+ky^2'})*t), ${what}: the modes rounding excites (about 1e-16 of the start) decay more slowly, so no grid can resolve it and there is nothing to compare the result with; lower ${oneD ? 'mode' : 'kx/ky'}, alpha or t = dt*steps (the amplitude must stay above ${ROUNDING_FLOOR})`, {
      issues: (fields.length ? fields : [oneD ? 'mode' : 'kx']).map((f) => ({ path: f, message: `with the other inputs the mode's amplitude at the end ${what}` })),
      referenceAmplitude: amp, roundingFloor: ROUNDING_FLOOR,
    });
  }
  // a grid the caller left out follows the mode they chose (issue 29: defaults that succeed)
  // (and so does the time step, when neither dt nor steps is given: t = 0.05 is kept, split finer)
  const freeSteps = inp.dt === undefined && inp.steps === undefined;
  const chosen = inp.nx === undefined || (!oneD && inp.ny === undefined) || freeSteps
    ? chooseGrid({ oneD, explicit: explicitMethod, kx, ky, alpha: inp.alpha, dt: inp.dt ?? DEFAULT_DT, steps: inp.steps ?? DEFAULT_STEPS, nx: inp.nx, ny: oneD ? 1 : inp.ny }, freeSteps)
    : null;
  const nx = inp.nx ?? chosen!.nx;
  const ny = oneD ? 1 : inp.ny ?? chosen!.ny;
  const split = chosen?.split ?? 1;
  const dt = (inp.dt ?? DEFAULT_DT) / split;
  const steps = (inp.steps ?? DEFAULT_STEPS) * split;
  if (kx >= nx) {
    throw refuse('INVALID_INPUT', `${oneD ? 'mode' : 'kx'} must be below nx (${nx}): the grid cannot represent sin(${kx}·π·x)`,
      { field: oneD ? 'mode' : 'kx', max: nx - 1 });
  }
  if (!oneD && ky >= ny) {
    throw refuse('INVALID_INPUT', `ky must be below ny (${ny}): the grid cannot represent sin(${ky}·π·y)`, { field: 'ky', max: ny - 1 });
  }
  const { alpha } = inp;
  const dx = 1 / nx;
  const dy = oneD ? 1 : 1 / ny;
  const rx = alpha * dt / (dx * dx);
  const ry = oneD ? 0 : alpha * dt / (dy * dy);
  const r = rx + ry;
  const explicit = inp.method === 'explicit';
  const stability: Stability = {
    number: r,
    limit: 0.5,
    stable: explicit ? r <= 0.5 : true,
    name: oneD ? 'r = alpha*dt/dx^2' : 'r = alpha*dt*(1/dx^2+1/dy^2)',
  };
  if (explicit && r > 0.5) {
    throw refuse('UNSTABLE',
      `explicit FTCS is unstable: r = alpha*dt*(${oneD ? '1/dx^2' : '1/dx^2+1/dy^2'}) = ${r} exceeds 1/2; lower dt, or use method "implicit"`,
      { stability });
  }

  // Grid of (nx+1)·(ny+1) nodes including the zero boundary; row j is contiguous in i.
  const W = nx + 1;
  const H = oneD ? 1 : ny + 1;
  const u = new Float64Array(W * H);
  const phi = new Float64Array(W * H);
  const jLo = oneD ? 0 : 1, jHi = oneD ? 0 : ny - 1;
  let phiNorm = 0;
  for (let j = jLo; j <= jHi; j++) {
    const sy = oneD ? 1 : Math.sin(ky * Math.PI * j * dy);
    for (let i = 1; i < nx; i++) {
      const v = Math.sin(kx * Math.PI * i * dx) * sy;
      phi[j * W + i] = v;
      u[j * W + i] = v;
      phiNorm += v * v;
    }
  }
  const amplitude = (): number => {
    let s = 0;
    for (let j = jLo; j <= jHi; j++) {
      const row = j * W;
      for (let i = 1; i < nx; i++) s += u[row + i] * phi[row + i];
    }
    return s / phiNorm;
  };

  const stride = Math.max(1, Math.ceil(steps / 500));
  const ts: number[] = [0], amps: number[] = [1], refs: number[] = [1];
  const rate = alpha * Math.PI * Math.PI * (kx * kx + ky * ky);
  const record = (n: number): void => {
    const t = n * dt;
    ts.push(t); amps.push(amplitude()); refs.push(Math.exp(-rate * t));
  };
  const progressEvery = Math.max(1, Math.floor(steps / 20));

  const mx = symbol(kx, dx);
  const my = oneD ? 0 : symbol(ky, dy);
  let g: number;
  let methodUsed: string;
  if (explicit) {
    methodUsed = 'ftcs';
    g = 1 - rx * mx - ry * my;
    const next = new Float64Array(W * H);
    let cur = u, nxt = next;
    for (let n = 1; n <= steps; n++) {
      if (oneD) ftcs1d(cur, nxt, nx, rx);
      else ftcs2d(cur, nxt, nx, ny, rx, ry);
      const tmp = cur; cur = nxt; nxt = tmp;
      if (n % stride === 0 || n === steps) {
        if (cur !== u) u.set(cur);
        record(n);
      }
      if (n % progressEvery === 0) ctx.progress(n / steps);
    }
    if (cur !== u) u.set(cur);
  } else if (oneD) {
    methodUsed = 'crank-nicolson';
    g = (1 - 0.5 * rx * mx) / (1 + 0.5 * rx * mx);
    // (I − r/2·δ²)·u^{n+1} = (I + r/2·δ²)·u^n on the nx−1 interior nodes.
    const f = factorConstantTridiagonal(nx - 1, -0.5 * rx, 1 + rx, -0.5 * rx);
    const rhs = new Float64Array(W);
    for (let n = 1; n <= steps; n++) {
      for (let i = 1; i < nx; i++) rhs[i] = u[i] + 0.5 * rx * (u[i - 1] - 2 * u[i] + u[i + 1]);
      solveFactored(f, rhs, 1, 1);
      for (let i = 1; i < nx; i++) u[i] = rhs[i];
      if (n % stride === 0 || n === steps) record(n);
      if (n % progressEvery === 0) ctx.progress(n / steps);
    }
  } else {
    methodUsed = 'adi-peaceman-rachford';
    g = ((1 - 0.5 * rx * mx) * (1 - 0.5 * ry * my)) / ((1 + 0.5 * rx * mx) * (1 + 0.5 * ry * my));
    // Half step 1: (I − rx/2·δx²)·u* = (I + ry/2·δy²)·u^n   (implicit in x, rows)
    // Half step 2: (I − ry/2·δy²)·u^{n+1} = (I + rx/2·δx²)·u*   (implicit in y, columns)
    const fx = factorConstantTridiagonal(nx - 1, -0.5 * rx, 1 + rx, -0.5 * rx);
    const fy = factorConstantTridiagonal(ny - 1, -0.5 * ry, 1 + ry, -0.5 * ry);
    // Both sweeps use the batched (column) Thomas solve: the explicit half-operators write their
    // result transposed, so every tridiagonal solve runs down contiguous rows of systems.
    const Hs = ny + 1;
    const starT = new Float64Array(W * Hs); // starT[i·Hs + j] = u*(i, j)
    const hx = 0.5 * rx, hy = 0.5 * ry;
    for (let n = 1; n <= steps; n++) {
      adiHalfY(u, starT, nx, ny, hy);
      solveFactoredBatch(fx, starT, Hs + 1, Hs, ny - 1);
      adiHalfX(starT, u, nx, ny, hx);
      solveFactoredBatch(fy, u, W + 1, W, nx - 1);
      if (n % stride === 0 || n === steps) record(n);
      if (n % progressEvery === 0) ctx.progress(n / steps);
    }
  }

  const value = amps[amps.length - 1];
  const t = steps * dt;
  const reference = Math.exp(-rate * t);
  const discrete = Math.pow(g, steps);
  if (!Number.isFinite(value)) {
    throw refuse('UNSTABLE', 'the run produced a non-finite amplitude', { stability });
  }
  const errorPct = relErrPct(value, reference);
  const boundPct = BOUND_PCT;
  const retryWith = errorPct > boundPct
    ? retryFor({ oneD, explicit, kx, ky, alpha, dt, steps, nx, ny })
    : undefined;
  return {
    value,
    result: {
      amplitude: value,
      t,
      dim: oneD ? 1 : 2,
      nx, ny: oneD ? null : ny,
      dx, dy: oneD ? null : dy,
      kx, ky: oneD ? null : ky,
      method: methodUsed,
      decayRate: rate,
      referenceAmplitude: reference,
      discreteAmplitude: discrete,
      amplificationFactor: g,
      schemeErrorPct: relErrPct(value, discrete),
      truncationErrorPct: relErrPct(discrete, reference),
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: oneD ? 'exp(-alpha*pi^2*mode^2*t)' : 'exp(-alpha*pi^2*(kx^2+ky^2)*t)',
      referenceValue: reference,
    }),
    series: { t: ts, amplitude: amps, reference: refs },
    stability,
    method: methodUsed,
    ...(retryWith ? { retryWith } : {}),
  };
};

// ---------------------------------------------------------------------------------------------
// The error model of the sine-mode problem: exact, not asymptotic. The mode is an eigenvector of
// the discrete operator, so the computed amplitude is g^steps to rounding, with g the amplification
// factor of the scheme for that mode (FTCS 1 − r·m, Crank-Nicolson (1 − r·m/2)/(1 + r·m/2), ADI the
// product over both directions), m = 4·sin²(k·π·h/2). Its distance to exp(−α·π²·(kx² + ky²)·t) is the
// error the run will report; a grid or step left out is chosen, and a refusal's retryWith
// predicted, from it (issue 29).

const BOUND_PCT = 0.1;
const DEFAULT_DT = 5e-5;
const DEFAULT_STEPS = 1000;
/** what a chosen default or a retry aims at: the model is exact (the predicted and the computed
 * error agree to rounding), so a tenth of the bound is margin enough */
const TARGET_PCT = 0.9 * BOUND_PCT;

interface ModeProblem { oneD: boolean; explicit: boolean; kx: number; ky: number; alpha: number; dt: number; steps: number; nx?: number; ny?: number }

function predictedErrorPct(p: ModeProblem & { nx: number; ny: number }): number {
  const rx = p.alpha * p.dt * p.nx * p.nx;
  const ry = p.oneD ? 0 : p.alpha * p.dt * p.ny * p.ny;
  const mx = symbol(p.kx, 1 / p.nx), my = p.oneD ? 0 : symbol(p.ky, 1 / p.ny);
  if (p.explicit && rx + ry > 0.5) return Infinity;
  const g = p.explicit ? 1 - rx * mx - ry * my
    : ((1 - 0.5 * rx * mx) * (1 - 0.5 * ry * my)) / ((1 + 0.5 * rx * mx) * (1 + 0.5 * ry * my));
  const reference = Math.exp(-p.alpha * Math.PI * Math.PI * (p.kx * p.kx + p.ky * p.ky) * p.dt * p.steps);
  return relErrPct(Math.pow(g, p.steps), reference);
}

/** grids a default or a retry may take, coarse to fine */
const GRID_LADDER = [64, 96, 128, 192, 256, 384, 512, 768, 1024];

/** The grid for a mode problem whose caller left nx (and in 2-D ny) out: the pair of the ladder
 * (at least 64, as before) with the fewest cells whose predicted error is within TARGET_PCT (time and
 * space errors may cancel, so the pairs are searched, not only squares); the finest otherwise
 * (then the run reports its error, and a refusal says what would pass). */
/** Below this amplitude the mode is lost in rounding: the other modes that rounding excites
 * (about 1e-16 of the start) decay more slowly, so no grid or step resolves it (measured: a mode
 * at 6e-19 is still resolved to 0.08 %, one at 9e-27 is not). */
const ROUNDING_FLOOR = 1e-22;
const lostInRounding = (p: ModeProblem) => Math.exp(-p.alpha * Math.PI * Math.PI * (p.kx * p.kx + p.ky * p.ky) * p.dt * p.steps) < ROUNDING_FLOOR;

function chooseGrid(p: ModeProblem, freeSteps: boolean): { nx: number; ny: number; split: number } {
  if (lostInRounding(p)) return { nx: p.nx ?? 64, ny: p.oneD ? 1 : p.ny ?? 64, split: 1 };
  const xs = p.nx !== undefined ? [p.nx] : GRID_LADDER.filter((n) => n > p.kx);
  const ys = p.oneD ? [1] : p.ny !== undefined ? [p.ny] : GRID_LADDER.filter((n) => n > p.ky);
  const splits = freeSteps ? [1, 2, 4, 8, 16] : [1];
  let best: { nx: number; ny: number; split: number; work: number } | null = null;
  for (const nx of xs) {
    for (const ny of ys) {
      for (const split of splits) {
        const work = nx * ny * split;
        if ((!best || work < best.work) && predictedErrorPct({ ...p, nx, ny, dt: p.dt / split, steps: p.steps * split }) <= TARGET_PCT) best = { nx, ny, split, work };
      }
    }
  }
  // nothing meets the target: the finest grid (it may still pass), unless the caller fixed one
  // direction so coarse that even the finest fails: then the other keeps 64 (a finer one cannot make
  // up for it, and the refusal names the caller's field with a grid that passes)
  const finest = { nx: xs[xs.length - 1] ?? 64, ny: ys[ys.length - 1] ?? 64, split: 1 };
  if (!best && (p.nx !== undefined || (!p.oneD && p.ny !== undefined))
    && predictedErrorPct({ ...p, nx: finest.nx, ny: finest.ny }) > BOUND_PCT) return { nx: p.nx ?? 64, ny: p.oneD ? 1 : p.ny ?? 64, split: 1 };
  return best ?? finest;
}

/** Inputs that the error model predicts to meet the bound with margin (TARGET_PCT), at the least
 * work (grid cells × steps): finer grids from the ladder and, keeping t = steps·dt, steps split by
 * 2, 4, … (up to the schema's 20,000 steps). The caller's t and mode are never changed. */
function retryFor(p: ModeProblem & { nx: number; ny: number }): { inputs: Record<string, number>; predictedErrorPct: number; predictedCost: { cellSteps: number; relativeToThisRun: number } } | undefined {
  if (lostInRounding(p)) return undefined;
  let best: { nx: number; ny: number; split: number; err: number; work: number } | null = null;
  const grids = GRID_LADDER.filter((n) => n >= p.nx);
  for (const gx of grids) {
    for (const gy of p.oneD ? [1] : GRID_LADDER.filter((n) => n >= p.ny)) {
      for (let split = 1; p.steps * split <= 20000; split *= 2) {
        const c = { ...p, nx: gx, ny: gy, dt: p.dt / split, steps: p.steps * split };
        const err = predictedErrorPct(c);
        const work = gx * gy * c.steps;
        if (err <= TARGET_PCT && (!best || work < best.work)) best = { nx: gx, ny: gy, split, err, work };
      }
    }
  }
  // nothing to change (the reference itself underflows, say): no advice rather than a useless one
  if (!best || (best.nx === p.nx && best.ny === p.ny && best.split === 1)) return undefined;
  // the grid is always named, so the retry does not depend on what a default would choose
  const inputs: Record<string, number> = { nx: best.nx };
  if (!p.oneD) inputs.ny = best.ny;
  if (best.split > 1) { inputs.dt = p.dt / best.split; inputs.steps = p.steps * best.split; }
  return { inputs, predictedErrorPct: best.err, predictedCost: { cellSteps: best.work, relativeToThisRun: best.work / (p.nx * p.ny * p.steps) } };
}

// ---------------------------------------------------------------------------------------------
// User mode

type Scheme = 'ftcs' | 'crank-nicolson' | 'adi-peaceman-rachford';

/** One solve of the user problem on grid g (base: the caller's grid, for array initial values). */
function heatOnGrid(P: UserProblem, g: Grid, base: Grid, alpha: number, dt: number, steps: number, scheme: Scheme,
  keepSeries: boolean, progress: (f: number) => void): GridRun {
  let u: Float64Array = new Float64Array(g.size);
  let nxt: Float64Array = new Float64Array(g.size);
  fillField(g, base, P.initial, u);
  g.setDirichlet(u, g.sidesAt(0, 0));
  g.syncPeriodic(u);
  const rec = new Recorder(g, steps, dt, keepSeries);
  rec.record(0, u);
  const src = P.source;
  const f = src ? new Float64Array(g.size) : null;
  const dynamic = !!src && (src.usesT || src.usesU);
  if (src && !dynamic) evalSource(g, 0, u, f!);
  const rx = alpha * dt / (g.ax.h * g.ax.h);
  const ry = g.dim === 2 ? alpha * dt / (g.ay.h * g.ay.h) : 0;
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  // u^{n−1} and the extrapolated ũ for a u-dependent source in the implicit schemes
  let uOld: Float64Array | null = null, ext: Float64Array | null = null;
  const midSource = (n: number, t: number): void => {
    if (!dynamic) return;
    if (!src!.usesU || n === 0) { evalSource(g, t, u, f!); return; }
    for (let p = 0; p < g.size; p++) ext![p] = 1.5 * u[p] - 0.5 * uOld![p];
    evalSource(g, t, ext!, f!);
  };
  if (scheme !== 'ftcs' && src?.usesU) { uOld = new Float64Array(g.size); ext = new Float64Array(g.size); }
  const W = g.W;

  if (scheme === 'ftcs') {
    for (let n = 0; n < steps; n++) {
      const t = n * dt;
      g.fillGhosts(u, g.sidesAt(t, n % 2));
      if (dynamic) evalSource(g, t, u, f!);
      explicitUpdate(g, nxt, 1, u, 0, u, rx, ry, f, dt);
      g.setDirichlet(nxt, g.sidesAt((n + 1) * dt, (n + 1) % 2));
      g.syncPeriodic(nxt);
      const tmp = u; u = nxt; nxt = tmp;
      rec.record(n + 1, u);
      if ((n + 1) % progressEvery === 0) progress((n + 1) / steps);
    }
  } else if (scheme === 'crank-nicolson') {
    const th = 0.5 * rx;
    const line = new LineSolver(g.ax, th);
    const row = g.idx(0, 0);
    for (let n = 0; n < steps; n++) {
      const t = n * dt;
      const S0 = g.sidesAt(t, n % 2), S1 = g.sidesAt((n + 1) * dt, (n + 1) % 2);
      g.fillGhostsX(u, S0);
      midSource(n, t + 0.5 * dt);
      // (I − θ·δ²)·u^{n+1} = (I + θ·δ²)·u^n + dt·f^{n+½}, θ = r/2
      explicitUpdate(g, nxt, 1, u, 0, u, th, 0, f, dt);
      addImplicitBoundary(g.ax, th, nxt, row, 1, S1.left[0], S1.right[0]);
      line.solve(nxt, row, 1);
      g.setDirichlet(nxt, S1);
      g.syncPeriodic(nxt);
      if (uOld) { const o = uOld; uOld = u; u = nxt; nxt = o; } else { const tmp = u; u = nxt; nxt = tmp; }
      rec.record(n + 1, u);
      if ((n + 1) % progressEvery === 0) progress((n + 1) / steps);
    }
  } else {
    const hx = 0.5 * rx, hy = 0.5 * ry;
    const lineX = new LineSolver(g.ax, hx), lineY = new LineSolver(g.ay, hy);
    const { nx, ny, ax, ay } = g;
    const star = new Float64Array(g.size);
    const gStarL = new Float64Array(ny + 1), gStarR = new Float64Array(ny + 1);
    // u* on an x-Dirichlet wall: ½(g^n + g^{n+1}) − ½·hy·δy²(g^{n+1} − g^n) (g constant in time: g)
    const wallStar = (g0: Float64Array, g1: Float64Array, timeDep: boolean, out: Float64Array): void => {
      if (!timeDep) { out.set(g0); return; }
      const d = (j: number) => g1[j] - g0[j];
      for (let j = ay.a0; j <= ay.a1; j++) {
        const jm = j > 0 ? j - 1 : ay.lo === 'periodic' ? ny - 1 : 1;
        const jp = j < ny ? j + 1 : ny - 1;
        out[j] = 0.5 * (g0[j] + g1[j]) - 0.5 * hy * (d(jm) - 2 * d(j) + d(jp));
      }
    };
    for (let n = 0; n < steps; n++) {
      const t = n * dt;
      const S0 = g.sidesAt(t, n % 2), SH = g.sidesAt(t + 0.5 * dt, 2), S1 = g.sidesAt((n + 1) * dt, (n + 1) % 2);
      midSource(n, t + 0.5 * dt);
      // half step 1, implicit in x: (I − hx·δx²)·u* = (I + hy·δy²)·u^n + dt/2·f^{n+½}
      g.fillGhostsY(u, S0);
      explicitUpdate(g, star, 1, u, 0, u, 0, hy, f, 0.5 * dt);
      if (ax.lo === 'dirichlet') wallStar(S0.left, S1.left, P.sides.left.usesT, gStarL);
      if (ax.hi === 'dirichlet') wallStar(S0.right, S1.right, P.sides.right.usesT, gStarR);
      for (let j = ay.a0; j <= ay.a1; j++) {
        const r = g.idx(0, j);
        addImplicitBoundary(ax, hx, star, r, 1, ax.lo === 'dirichlet' ? gStarL[j] : SH.left[j], ax.hi === 'dirichlet' ? gStarR[j] : SH.right[j]);
        lineX.solve(star, r, 1);
        if (ax.lo === 'dirichlet') star[r] = gStarL[j];
        if (ax.hi === 'dirichlet') star[r + nx] = gStarR[j];
        if (ax.lo === 'periodic') star[r + nx] = star[r];
      }
      // half step 2, implicit in y: (I − hy·δy²)·u^{n+1} = (I + hx·δx²)·u* + dt/2·f^{n+½}
      g.fillGhostsX(star, SH);
      explicitUpdate(g, nxt, 1, star, 0, star, hx, 0, f, 0.5 * dt);
      for (let i = ax.a0; i <= ax.a1; i++) addImplicitBoundary(ay, hy, nxt, g.idx(i, 0), W, S1.bottom[i], S1.top[i]);
      lineY.solveColumns(nxt, g.idx(ax.a0, 0), W, ax.a1 - ax.a0 + 1);
      g.setDirichlet(nxt, S1);
      g.syncPeriodic(nxt);
      if (uOld) { const o = uOld; uOld = u; u = nxt; nxt = o; } else { const tmp = u; u = nxt; nxt = tmp; }
      rec.record(n + 1, u);
      if ((n + 1) % progressEvery === 0) progress((n + 1) / steps);
    }
  }
  return { grid: g, u, dt, steps, rec };
}

function runUser(inp: HeatInput, ctx: Parameters<SolverRun>[1]): SolverOutput {
  const dim = inp.dim === 1 ? 1 : 2;
  const { alpha } = inp;
  const dt = inp.dt ?? DEFAULT_DT;
  const steps = inp.steps ?? DEFAULT_STEPS;
  const nx = inp.nx ?? 64;
  const ny = inp.ny ?? 64;
  const P = prepareUserProblem(inp, { dim, nx, ny });
  const base = new Grid(P, nx, ny);
  const rx = alpha * dt / (base.ax.h * base.ax.h);
  const ry = dim === 2 ? alpha * dt / (base.ay.h * base.ay.h) : 0;
  const r = rx + ry;
  const explicit = inp.method === 'explicit';
  const stability: Stability = {
    number: r,
    limit: 0.5,
    stable: explicit ? r <= 0.5 : true,
    name: dim === 1 ? 'r = alpha*dt/dx^2' : 'r = alpha*dt*(1/dx^2+1/dy^2)',
  };
  if (explicit && r > 0.5) {
    throw refuse('UNSTABLE',
      `explicit FTCS is unstable: r = alpha*dt*(${dim === 1 ? '1/dx^2' : '1/dx^2+1/dy^2'}) = ${r} exceeds 1/2 (dx = Lx/nx${dim === 2 ? ', dy = Ly/ny' : ''}); `
      + 'lower dt, or use method "implicit"', { stability });
  }
  const scheme: Scheme = explicit ? 'ftcs' : dim === 1 ? 'crank-nicolson' : 'adi-peaceman-rachford';
  // FTCS keeps r on the refined grid with dt/4 (its error is O(dt + h²)); the others halve dt.
  const tf = explicit ? 4 : 2;
  checkWork(P, nx, ny, steps, tf);
  const w = workOf(P, nx, ny, steps, 1).nodeSteps / (1 + (dim === 2 ? 4 : 2));
  const share = w / workOf(P, nx, ny, steps, tf).nodeSteps;
  const coarse = heatOnGrid(P, base, base, alpha, dt, steps, scheme, false, (f) => ctx.progress(f * share));
  const fineGrid = new Grid(P, 2 * nx, 2 * ny);
  const fine = heatOnGrid(P, fineGrid, base, alpha, dt / tf, steps * tf, scheme, true, (f) => ctx.progress(share + f * (1 - share)));
  const R = richardson(P, coarse, fine, { order: 2, scale: fineGrid.maxAbs(fine.u), scaleName: 'max |u| over the grid at the end' });
  return {
    value: R.value,
    result: { ...R.result, method: scheme, alpha },
    precision: R.precision,
    series: R.series,
    stability,
    method: scheme,
  };
}
