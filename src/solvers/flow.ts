// flow: incompressible Navier-Stokes on the periodic square [0, 2π]² by Stam's "stable fluids"
// (J. Stam, "Stable Fluids", SIGGRAPH 1999): each step advects the velocity semi-Lagrangianly,
// diffuses it implicitly, and projects it onto divergence-free fields (Chorin's projection).
// Unconditionally stable in dt: advection traces characteristics back and interpolates, diffusion is
// backward Euler, so no CFL limit applies (accuracy still wants |u|·dt/h of order one or less).
//
// Discretisation choices (docs/solvers-fields-a.md):
//  - MAC staggered grid (Harlow & Welch 1965): u on vertical faces (i·h, (j+½)·h), v on horizontal
//    faces ((i+½)·h, j·h), pressure at cell centres; N×N cells, h = 2π/N. With this layout the
//    discrete divergence of the discrete gradient is exactly the 5-point Laplacian, so solving that
//    Poisson problem to tolerance makes the projected field divergence-free to the same tolerance.
//  - advection: second-order (midpoint) back-trace and Catmull-Rom bicubic interpolation (the
//    higher-order interpolation of Fedkiw, Stam & Jensen 2001 in place of Stam's bilinear one, which
//    would add O(h²/dt) numerical viscosity and swamp the physical decay).
//  - diffusion (I − ν·dt·∇²_h)·u = u* and the pressure Poisson equation ∇²_h p = ∇·u* are both solved
//    by conjugate gradients (Hestenes & Stiefel 1952; lib/cg.ts) to tolerance; `iters` caps the CG
//    iterations of each Poisson solve (the pressure is warm-started from the previous step). The
//    periodic Poisson matrix is singular (constants); the right-hand side is made zero-mean so the
//    system is consistent and CG converges in the complement of the null space.
//
// Initial state: the Taylor-Green vortex u = sin x·cos y, v = −cos x·sin y (k = 1), an exact
// Navier-Stokes solution that decays as exp(−2ν·k²·t). value: peak speed at the end (cell-centre
// speeds); reference: the initial discrete peak speed times exp(−2ν·t). result.divergenceMax is the
// largest |∇·u| after the last projection (and result.divergenceMaxOverRun over every step).
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverRun, SolverOutput } from './types.ts';
import { pcg, dot } from './lib/cg.ts';
import { relErrPct, precisionOf } from './lib/precision.ts';

const input = z.strictObject({
  N: z.number().int().min(8).max(160).default(64).describe('grid cells per side of the periodic square [0, 2π]²'),
  steps: z.number().int().min(1).max(5000).default(50).describe('time steps'),
  dt: z.number().positive().max(10).optional().describe('time step (s); default 0.02, or, at a viscosity whose decay the implicit diffusion step would follow too coarsely, the step its first-order error predicts meets a quarter of the bound, √(0.0025/(2ν²·steps)) (the horizon steps·dt then shortens)'),
  visc: z.number().min(0).max(100).default(0.05).describe('kinematic viscosity ν (m²/s)'),
  iters: z.number().int().min(1).max(10000).default(2000)
    .describe('maximum conjugate-gradient iterations per Poisson solve (it stops earlier at tolerance)'),
});

export type FlowInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'flow',
  domain: 'Fluid Dynamics',
  method: 'stable-fluids',
  methodDescription: 'semi-Lagrangian projection, incompressible',
  operators: ['KO42', 'FL3'],
  unit: 'm/s',
  summary: "Stam's stable fluids (semi-Lagrangian advection, implicit diffusion, pressure projection) on a "
    + 'periodic grid from the Taylor-Green vortex; value is the peak speed at the end, checked against the '
    + 'exact decay exp(-2*nu*t), with the divergence after projection reported.',
  input,
  examples: [
    'Simulate the decay of a Taylor-Green vortex with viscosity 0.01',
    'Incompressible fluid flow with stable fluids and pressure projection on a 128 grid',
    'How fast does a viscous vortex slow down? Navier-Stokes in a periodic box',
    'Run a semi-Lagrangian fluid solver and report the divergence after projection',
    'Two-dimensional incompressible Navier-Stokes simulation, 100 steps of 0.01 s',
    'Peak velocity of a decaying vortex array in water-like viscous fluid',
    'Check that the projected velocity field is divergence free',
    "Stam's stable fluids solver with 500 Poisson iterations",
    'Fluid dynamics: vortex decay at Reynolds number 100',
  ],
  vocabulary: [
    'flow', 'fluid', 'fluids', 'navier-stokes', 'navier stokes', 'incompressible', 'vortex', 'vortices',
    'taylor-green', 'viscosity', 'viscous', 'velocity field', 'stable fluids', 'stam', 'semi-lagrangian',
    'pressure projection', 'poisson', 'divergence', 'divergence-free', 'turbulence', 'reynolds',
    'hydrodynamics', 'cfd', 'advection',
  ],
};

// ---------------------------------------------------------------------------------------------
// Periodic grid helpers. Index of cell (i, j) is j·N + i. `wrap` maps k ∈ [−1, N+1] to k mod N.

/** Catmull-Rom weights for fractional offset t ∈ [0, 1): samples at −1, 0, 1, 2. */
function crWeights(t: number, w: Float64Array): void {
  const t2 = t * t, t3 = t2 * t;
  w[0] = 0.5 * (-t3 + 2 * t2 - t);
  w[1] = 0.5 * (3 * t3 - 5 * t2 + 2);
  w[2] = 0.5 * (-3 * t3 + 4 * t2 + t);
  w[3] = 0.5 * (t3 - t2);
}

/**
 * Bicubic (Catmull-Rom) interpolation of a periodic field whose sample (i, j) sits at
 * ((i + ox)·h, (j + oy)·h), at the point (x, y).
 */
function interp(f: Float64Array, N: number, invH: number, ox: number, oy: number, x: number, y: number,
  wrap: Int32Array, wx: Float64Array, wy: Float64Array): number {
  const gx = x * invH - ox, gy = y * invH - oy;
  let i0 = Math.floor(gx), j0 = Math.floor(gy);
  const tx = gx - i0, ty = gy - j0;
  i0 %= N; if (i0 < 0) i0 += N;
  j0 %= N; if (j0 < 0) j0 += N;
  crWeights(tx, wx);
  crWeights(ty, wy);
  const ia = wrap[i0], ib = wrap[i0 + 1], ic = wrap[i0 + 2], id = wrap[i0 + 3];
  let s = 0;
  for (let b = 0; b < 4; b++) {
    const row = wrap[j0 + b] * N;
    s += wy[b] * (wx[0] * f[row + ia] + wx[1] * f[row + ib] + wx[2] * f[row + ic] + wx[3] * f[row + id]);
  }
  return s;
}

interface Grid {
  N: number; h: number; invH: number;
  /** wrap[k + 1] = k mod N for k ∈ [−1, N + 2] */
  wrap: Int32Array;
  ip: Int32Array; im: Int32Array;
  wx: Float64Array; wy: Float64Array;
}

function makeGrid(N: number): Grid {
  const h = 2 * Math.PI / N;
  const wrap = new Int32Array(N + 4);
  for (let k = -1; k <= N + 2; k++) wrap[k + 1] = ((k % N) + N) % N;
  const ip = new Int32Array(N), im = new Int32Array(N);
  for (let i = 0; i < N; i++) { ip[i] = (i + 1) % N; im[i] = (i - 1 + N) % N; }
  return { N, h, invH: 1 / h, wrap, ip, im, wx: new Float64Array(4), wy: new Float64Array(4) };
}

/** Semi-Lagrangian advection of (u, v) into (u2, v2): midpoint back-trace, bicubic sampling. */
function advect(g: Grid, u: Float64Array, v: Float64Array, u2: Float64Array, v2: Float64Array, dt: number): void {
  const { N, h, invH, wrap, ip, im, wx, wy } = g;
  const half = 0.5 * dt;
  for (let j = 0; j < N; j++) {
    const row = j * N, rowUp = ip[j] * N, rowDn = im[j] * N;
    for (let i = 0; i < N; i++) {
      const iL = im[i], iR = ip[i];
      // u-face (i·h, (j+½)·h): v averaged from the four surrounding v-faces
      {
        const x = i * h, y = (j + 0.5) * h;
        const uu = u[row + i];
        const vv = 0.25 * (v[row + iL] + v[row + i] + v[rowUp + iL] + v[rowUp + i]);
        const xm = x - half * uu, ym = y - half * vv;
        const um = interp(u, N, invH, 0, 0.5, xm, ym, wrap, wx, wy);
        const vm = interp(v, N, invH, 0.5, 0, xm, ym, wrap, wx, wy);
        u2[row + i] = interp(u, N, invH, 0, 0.5, x - dt * um, y - dt * vm, wrap, wx, wy);
      }
      // v-face ((i+½)·h, j·h): u averaged from the four surrounding u-faces
      {
        const x = (i + 0.5) * h, y = j * h;
        const vv = v[row + i];
        const uu = 0.25 * (u[row + i] + u[row + iR] + u[rowDn + i] + u[rowDn + iR]);
        const xm = x - half * uu, ym = y - half * vv;
        const um = interp(u, N, invH, 0, 0.5, xm, ym, wrap, wx, wy);
        const vm = interp(v, N, invH, 0.5, 0, xm, ym, wrap, wx, wy);
        v2[row + i] = interp(v, N, invH, 0.5, 0, x - dt * um, y - dt * vm, wrap, wx, wy);
      }
    }
  }
}

/** out = diag·x − off·(sum of the four periodic neighbours) */
function applyStencil(g: Grid, x: Float64Array, out: Float64Array, diag: number, off: number): void {
  const { N, ip, im } = g;
  for (let j = 0; j < N; j++) {
    const row = j * N, rowUp = ip[j] * N, rowDn = im[j] * N;
    // i = 0 and i = N − 1 wrap; the interior runs branch-free
    out[row] = diag * x[row] - off * (x[row + N - 1] + x[row + 1] + x[rowUp] + x[rowDn]);
    for (let i = 1; i < N - 1; i++) {
      out[row + i] = diag * x[row + i] - off * (x[row + i - 1] + x[row + i + 1] + x[rowUp + i] + x[rowDn + i]);
    }
    const e = row + N - 1;
    out[e] = diag * x[e] - off * (x[e - 1] + x[row] + x[rowUp + N - 1] + x[rowDn + N - 1]);
  }
}

/** div[c] = (u(i+1,j) − u(i,j) + v(i,j+1) − v(i,j)) / h at every cell; returns max |div| */
function divergence(g: Grid, u: Float64Array, v: Float64Array, div: Float64Array): number {
  const { N, invH, ip } = g;
  let mx = 0;
  for (let j = 0; j < N; j++) {
    const row = j * N, rowUp = ip[j] * N;
    for (let i = 0; i < N; i++) {
      const dv = (u[row + ip[i]] - u[row + i] + v[rowUp + i] - v[row + i]) * invH;
      div[row + i] = dv;
      const a = Math.abs(dv);
      if (a > mx) mx = a;
    }
  }
  return mx;
}

/** u −= ∂p/∂x at u-faces, v −= ∂p/∂y at v-faces */
function subtractGradient(g: Grid, p: Float64Array, u: Float64Array, v: Float64Array): void {
  const { N, invH, im } = g;
  for (let j = 0; j < N; j++) {
    const row = j * N, rowDn = im[j] * N;
    for (let i = 0; i < N; i++) {
      const c = p[row + i];
      u[row + i] -= (c - p[row + im[i]]) * invH;
      v[row + i] -= (c - p[rowDn + i]) * invH;
    }
  }
}

function peakSpeed(g: Grid, u: Float64Array, v: Float64Array): number {
  const { N, ip } = g;
  let mx = 0;
  for (let j = 0; j < N; j++) {
    const row = j * N, rowUp = ip[j] * N;
    for (let i = 0; i < N; i++) {
      const uc = 0.5 * (u[row + i] + u[row + ip[i]]);
      const vc = 0.5 * (v[row + i] + v[rowUp + i]);
      const s = uc * uc + vc * vc;
      if (s > mx) mx = s;
    }
  }
  return Math.sqrt(mx);
}


/** The divergence the projection aims for (max-norm, 1/s); the acceptance line is 1e-6. */
const DIVERGENCE_TARGET = 1e-10;

/** The most work a single run may do, N²·steps (160² cells for 300 steps: roughly 10-20 s of one core). */
export const FLOW_WORK_LIMIT = 160 * 160 * 300;

// The error model of the decay (issue 29: defaults that succeed). Backward Euler diffusion decays the
// k = 1 mode by 1/(1 + 2ν·dt) a step against exp(−2ν·dt): over n steps the amplitude is off by about
// exp(n·(2ν·dt)²/2) − 1 = 2ν²·dt·t (measured: ν 50, dt 2e-4, t 0.01: 1.07 %, predicted 1 %).
const DEFAULT_DT = 0.02;
const TARGET_FRACTION = 0.0025; // a quarter of the 1 % bound
export function defaultFlowDt(visc: number, steps: number): number {
  const fits = visc > 0 ? Math.sqrt(TARGET_FRACTION / (2 * visc * visc * steps)) : Infinity;
  return fits >= DEFAULT_DT ? DEFAULT_DT : Number(fits.toPrecision(3));
}

export const run: SolverRun<FlowInput> = (inp, ctx): SolverOutput => {
  const { N, steps, visc, iters } = inp;
  const dt = inp.dt ?? defaultFlowDt(visc, steps);
  // a step the caller set whose diffusion error alone is far past the bound, for a horizon no
  // allowed step count can reach with a step that meets it: an out-of-range dt, before running
  if (inp.dt !== undefined && visc > 0) {
    const tEnd = steps * dt;
    const predicted = 100 * (Math.exp(Math.min(700, 2 * visc * visc * dt * tEnd)) - 1);
    const dtFit = TARGET_FRACTION / (2 * visc * visc * tEnd);
    if (predicted > 4 && Math.ceil(tEnd / dtFit) > 5000) {
      throw refuse('INVALID_INPUT', `dt = ${dt}: backward Euler diffusion at viscosity ${visc} is off by about 2ν²·dt·t = ${Number(predicted.toPrecision(3))} % at t = steps·dt = ${tEnd}, against the 1 % bound; meeting it needs dt ≤ ${Number(dtFit.toPrecision(3))}, more than the 5,000 steps allowed for this horizon: shorten the horizon (dt·steps) or lower visc`, {
        issues: [{ path: 'dt', message: `too long for viscosity ${visc} over t = ${tEnd}: needs dt ≤ ${Number(dtFit.toPrecision(3))}` }],
        predictedErrorPct: predicted,
      });
    }
  }
  if (N * N * steps > FLOW_WORK_LIMIT) {
    throw refuse('INVALID_INPUT', `N^2*steps = ${N * N * steps} exceeds the work limit ${FLOW_WORK_LIMIT}; lower N or steps`,
      { field: 'steps', max: Math.floor(FLOW_WORK_LIMIT / (N * N)) });
  }
  const g = makeGrid(N);
  const n = N * N;
  const h = g.h;
  const u = new Float64Array(n), v = new Float64Array(n);
  const u2 = new Float64Array(n), v2 = new Float64Array(n);
  const p = new Float64Array(n), div = new Float64Array(n), rhs = new Float64Array(n);
  const applyPoisson = (x: Float64Array, out: Float64Array): void => applyStencil(g, x, out, 4, 1);
  for (let j = 0; j < N; j++) {
    const yc = (j + 0.5) * h, yf = j * h;
    for (let i = 0; i < N; i++) {
      const xf = i * h, xc = (i + 0.5) * h;
      u[j * N + i] = Math.sin(xf) * Math.cos(yc);
      v[j * N + i] = -Math.cos(xc) * Math.sin(yf);
    }
  }
  const peak0 = peakSpeed(g, u, v);
  const initialDivergence = divergence(g, u, v, div);

  const s = visc * dt / (h * h);
  const applyDiffusion = (x: Float64Array, out: Float64Array): void => applyStencil(g, x, out, 1 + 4 * s, s);
  const stride = Math.max(1, Math.ceil(steps / 500));
  const ts: number[] = [0], peaks: number[] = [peak0], refs: number[] = [peak0];
  let divergenceMaxOverRun = 0, divergenceMax = 0;
  let poissonItersTotal = 0, poissonItersMax = 0, diffusionItersTotal = 0;
  let poissonConverged = true;
  const poissonTol = DIVERGENCE_TARGET * h * h;
  const progressEvery = Math.max(1, Math.floor(steps / 20));

  for (let step = 1; step <= steps; step++) {
    // 1. advect
    advect(g, u, v, u2, v2, dt);
    // 2. diffuse: (1 + 4s)·x − s·Σneighbours = u*
    if (visc > 0) {
      for (const [src, dst] of [[u2, u], [v2, v]] as const) {
        dst.set(src);
        diffusionItersTotal += pcg(applyDiffusion, src, dst, { tol: 1e-13, maxIter: 10000 }).iterations;
      }
    } else {
      u.set(u2); v.set(v2);
    }
    // 3. project: ∇²_h p = ∇·u  ⇔  4p − Σneighbours = −h²·∇·u ; then u −= ∇p
    divergence(g, u, v, div);
    let mean = 0;
    for (let k = 0; k < n; k++) mean += div[k];
    mean /= n;
    for (let k = 0; k < n; k++) rhs[k] = -h * h * (div[k] - mean);
    const bnorm = Math.sqrt(dot(rhs, rhs));
    if (bnorm > 0) {
      // ‖r‖₂ <= poissonTol bounds max|∇·u| after the projection by DIVERGENCE_TARGET
      const tol = Math.max(poissonTol / bnorm, 1e-14);
      const res = pcg(applyPoisson, rhs, p, { tol, maxIter: iters });
      if (!res.converged) poissonConverged = false;
      poissonItersTotal += res.iterations;
      if (res.iterations > poissonItersMax) poissonItersMax = res.iterations;
    }
    subtractGradient(g, p, u, v);
    divergenceMax = divergence(g, u, v, div);
    if (divergenceMax > divergenceMaxOverRun) divergenceMaxOverRun = divergenceMax;

    if (step % stride === 0 || step === steps) {
      const t = step * dt;
      const pk = peakSpeed(g, u, v);
      if (!Number.isFinite(pk)) throw refuse('UNSTABLE', `the velocity became non-finite at step ${step}`);
      ts.push(t); peaks.push(pk); refs.push(peak0 * Math.exp(-2 * visc * t));
    }
    if (step % progressEvery === 0) ctx.progress(step / steps);
  }

  const t = steps * dt;
  const value = peaks[peaks.length - 1];
  const reference = peak0 * Math.exp(-2 * visc * t);
  const errorPct = relErrPct(value, reference);
  const boundPct = 1;
  return {
    value,
    result: {
      peakSpeed: value,
      initialPeakSpeed: peak0,
      t,
      N, h,
      viscosity: visc,
      decayFactor: value / peak0,
      referenceDecayFactor: Math.exp(-2 * visc * t),
      divergenceMax,
      divergenceMaxOverRun,
      initialDivergence,
      divergenceTarget: DIVERGENCE_TARGET,
      poissonConverged,
      poissonItersMean: poissonItersTotal / steps,
      poissonItersMax,
      diffusionItersMean: diffusionItersTotal / (2 * steps),
      cflNumber: peak0 * dt / h,
      ...(inp.dt === undefined && dt !== DEFAULT_DT ? { dt } : {}),
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'Taylor-Green decay exp(-2*nu*k^2*t), k = 1, of the initial peak speed',
      referenceValue: reference,
    }),
    series: { t: ts, peakSpeed: peaks, reference: refs },
    method: 'stable-fluids-mac-cg',
    // a step the caller set too long for the bound: the first-order model names the step (and
    // the steps, keeping t) that meets a quarter of the bound, within the schema and the work limit
    ...(errorPct > boundPct && inp.dt !== undefined && visc > 0 ? (() => {
      // both the diffusion step and the semi-Lagrangian advection are first order in dt: the run's
      // own error over f
      const predicted = (d: number) => errorPct * d / dt;
      let f = 1;
      while (f < 1e6 && predicted(dt / f) > 0.25 * boundPct) f *= 2;
      const steps2 = steps * f;
      if (f === 1 || steps2 > 5000 || N * N * steps2 > FLOW_WORK_LIMIT || !(predicted(dt / f) < boundPct)) return {};
      return { retryWith: { inputs: { dt: dt / f, steps: steps2 }, predictedErrorPct: predicted(dt / f), predictedCost: { steps: steps2, relativeToThisRun: f } } };
    })() : {}),
  };
};
