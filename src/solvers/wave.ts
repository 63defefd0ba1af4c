// wave: energy-conserving leapfrog for linear waves, three variants.
//  - membrane (default): u_tt = c²·∇²u on the unit square, zero Dirichlet edges, initial displacement
//    sin(kx·π·x)·sin(ky·π·y) at rest. Central differences in space and time (the leapfrog / Störmer-
//    Verlet scheme; Strikwerda, "Finite Difference Schemes and PDEs", 2nd ed., §8.1), started with
//    u¹ = u⁰ + ½(c·dt)²·∇²_h u⁰.
//  - wave1d (or dim 1): the same for a string on the unit interval, initial sin(mode_k·π·x).
//  - maxwell: the 2-D TE_z Yee scheme (Yee 1966, IEEE Trans. Antennas Propag. 14:302; Taflove &
//    Hagness, "Computational Electrodynamics", 3rd ed., §3.6) for Hz, Ex, Ey in the unit square with
//    perfectly conducting walls (tangential E = 0), permittivity eps and permeability mu, started
//    from the cavity's TE mode Hz = cos(kx·π·x)·cos(ky·π·y), E = 0. Wave speed c = 1/√(eps·mu).
// Stability (CFL): Courant number ν = c·dt·√(1/dx² + 1/dy²) <= 1 (c·dt/dx in 1-D). Without `dt`,
// dt follows from `courant` (default 0.5); an explicit `dt` with ν > 1 is refused (422 UNSTABLE).
//
// value: the total discrete energy at the end. The leapfrog schemes conserve a discrete energy
// exactly (up to rounding) for ν <= 1; it is the staggered-in-time quadratic form
//   membrane: E^{n+½} = ½‖(u^{n+1} − u^n)/dt‖² + ½c²·⟨u^{n+1}, −∇²_h u^n⟩        (area-weighted)
//   maxwell:  W^n     = ½eps‖E^n‖² + ½mu·⟨H^{n−½}, H^{n+½}⟩
// so precision.errorPct is the relative energy drift against the initial energy. The run also
// measures the mode's angular frequency from the zero crossings of its amplitude and compares it
// with the analytic c·π·√(kx² + ky²) (result.frequency).
//
// User mode (any of initial, initialVelocity, boundary, Lx, Ly, source, probes): u_tt = c²·∇²u +
// f(x, y, t, u) on [0, Lx] (× [0, Ly]) with the caller's initial displacement and velocity and
// per-side Dirichlet / Neumann / periodic conditions (lib/userpde.ts), by the same leapfrog with the
// same Courant limit; the source is taken at t^n (central, second order). The first step is the
// Taylor start u¹ = u⁰ + dt·v⁰ + ½dt²·(c²·∇²_h u⁰ + f⁰) (Strikwerda §8.1). precision is a Richardson
// estimate from a twin run on the grid halved in space and time (same Courant number).
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverRun, SolverOutput, Stability } from './types.ts';
import { relErrPct, precisionOf } from './lib/precision.ts';
import { noEffect, sent, withDefaults } from './lib/no-effect.ts';
import {
  userFields, userKeysOf, fieldInit, EXPR_MAX_LENGTH, checkModeConflicts, prepareUserProblem, checkWork, workOf, Grid, Recorder, fillField,
  explicitUpdate, evalSource, richardson, type UserProblem, type GridRun,
} from './lib/userpde.ts';

const input = z.strictObject({
  mode: z.enum(['membrane', 'maxwell', 'wave1d']).optional()
    .describe('membrane = 2-D scalar wave (default); maxwell = 2-D TE Yee cavity (analytic mode only, not with dim 1); wave1d = string (as dim 1; not with dim 2)'),
  nx: z.number().int().min(16).max(128).default(64).describe('grid intervals along x (dx = 1/nx)'),
  ny: z.number().int().min(16).max(128).optional().describe('2-D only (a 400 with dim 1 or wave1d): grid intervals along y (dy = 1/ny; default 64)'),
  kx: z.number().int().min(1).max(127).optional().describe('x mode number (default 1; analytic 2-D modes only: the string takes mode_k)'),
  ky: z.number().int().min(1).max(127).optional().describe('y mode number (default 1; analytic 2-D modes only)'),
  c: z.number().min(1e-6).max(1e6).optional().describe('wave speed (m/s; default 1); not with maxwell, whose speed is 1/sqrt(eps*mu)'),
  dt: z.number().positive().max(100).optional().describe('time step (s); default from courant'),
  courant: z.number().positive().max(1).optional().describe('Courant number c*dt*sqrt(1/dx^2+1/dy^2) that sets the default dt, at most 1 (default 0.5); not with dt'),
  steps: z.number().int().min(1).max(50000).default(1000).describe('time steps'),
  dim: z.number().int().min(1).max(2).optional().describe('1 selects the 1-D string (as mode wave1d), 2 the 2-D modes (default 2)'),
  mode_k: z.number().int().min(1).max(127).optional().describe('1-D mode number: initial sin(mode_k*pi*x) (default 1; analytic string only)'),
  eps: z.number().min(1e-6).max(1e6).optional().describe('permittivity (mode maxwell only; default 1)'),
  mu: z.number().min(1e-6).max(1e6).optional().describe('permeability (mode maxwell only; default 1)'),
  // user mode (docs/solvers-fields-a.md, "heat and wave: the user mode")
  ...userFields,
  initialVelocity: fieldInit('user mode: initial velocity u_t(x, y, 0)', ['-pi*cos(pi*x)', '0']),
  source: z.string().min(1).max(EXPR_MAX_LENGTH).optional()
    .describe('user mode: source f in u_tt = c^2*laplacian(u) + f, an expression in x, y (2-D), t and u')
    .meta({ examples: ['sin(5*t)*exp(-100*(x-0.5)^2)', '-4*u'] }),
}).superRefine((v, ctx) => {
  // nothing is silently ignored (DESIGN §9); the analytic/user-mode conflicts are checked in run
  if (v.mode === 'wave1d' && v.dim === 2) noEffect(ctx, 'dim', "with mode 'wave1d', the 1-D string: send dim 1 or leave dim out");
  if (v.dim === 1 && v.mode === 'membrane') noEffect(ctx, 'mode', "with dim 1, the 1-D string: send mode 'wave1d' or leave mode out");
  const oneD = v.dim === 1 || v.mode === 'wave1d';
  if (oneD && v.ny !== undefined) noEffect(ctx, 'ny', 'on the 1-D string (dim 1 or mode wave1d): it has no y direction');
  if (v.dt !== undefined && v.courant !== undefined) noEffect(ctx, 'courant', 'with dt: courant only sets the default dt; send one of them');
  if (userKeysOf(v).length) return;
  if (oneD && v.mode === 'maxwell') return; // refused in run: the Yee cavity is 2-D
  const mode = v.mode ?? 'membrane';
  const why = oneD ? 'on the 1-D string (dim 1 or mode wave1d)' : `with mode '${mode}'`;
  const idle: (keyof typeof v & string)[] = oneD ? ['kx', 'ky', 'eps', 'mu'] : mode === 'maxwell' ? ['mode_k', 'c'] : ['mode_k', 'eps', 'mu'];
  for (const k of sent(v, idle)) {
    const what = k === 'c' ? "the cavity's speed is 1/sqrt(eps*mu)" : k === 'eps' || k === 'mu' ? 'it belongs to mode maxwell'
      : k === 'mode_k' ? "it is the string's mode number (kx, ky on 2-D)" : 'it is a 2-D mode number (mode_k on the string)';
    noEffect(ctx, k, `${why}: ${what}`);
  }
}).overwrite(withDefaults((v) => {
  // the defaults that take effect: the variant's own mode and dim, ny in 2-D, c except for the
  // analytic cavity, courant when no dt is given
  const oneD = v.dim === 1 || v.mode === 'wave1d';
  const cavity = v.mode === 'maxwell' && !userKeysOf(v).length;
  return {
    dim: oneD ? 1 : 2, mode: oneD ? (v.mode === 'maxwell' ? undefined : 'wave1d' as const) : 'membrane' as const,
    ...(oneD ? {} : { ny: 64 }), ...(cavity ? {} : { c: 1 }), ...(v.dt === undefined ? { courant: 0.5 } : {}),
  };
}));

export type WaveInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'wave',
  domain: 'Wave Mechanics',
  method: 'leapfrog',
  methodDescription: 'energy-conserving leapfrog, 2-D membrane',
  operators: ['KO42', 'WM1'],
  unit: 'E',
  summary: 'Leapfrog time stepping of a vibrating membrane, a string, or a 2-D TE electromagnetic cavity '
    + '(Yee scheme); value is the conserved discrete energy, checked for drift, with the mode frequency '
    + 'measured against c*pi*sqrt(kx^2+ky^2).',
  input,
  examples: [
    'Simulate a vibrating square drum membrane and check energy conservation',
    'Energy drift of a leapfrog wave equation solver over 1000 steps',
    'Vibrating guitar string: 1-D wave equation with the third harmonic',
    'Electromagnetic field in a metal cavity with the FDTD Yee scheme',
    'Propagate a TE mode in a 2-D resonator with permittivity 2 and permeability 1',
    'What is the oscillation frequency of the (2,1) mode of a square membrane?',
    'Run the 2-D wave equation at Courant number 0.9 on a 128 by 128 grid',
    'Standing wave on a string with both ends fixed, wave speed 340',
    'Maxwell equations finite-difference time-domain simulation of a cavity mode',
  ],
  vocabulary: [
    'wave', 'wave equation', 'membrane', 'drum', 'string', 'vibration', 'vibrating', 'oscillation',
    'standing wave', 'leapfrog', 'courant', 'cfl', 'maxwell', 'electromagnetic', 'fdtd', 'yee',
    'cavity', 'resonator', 'te mode', 'energy conservation', 'harmonic', 'wave speed', 'acoustic wave',
    'hyperbolic pde', 'eigenmode',
  ],
};

// ---------------------------------------------------------------------------------------------
// Kernels (small top-level functions so the JIT optimises each loop on its own). Each advances one
// step in place and returns nothing; sums the energy needs are accumulated into `acc`.

/** One leapfrog step; acc[0] = Σ(u^{n+1}−u^n)², acc[1] = Σ u^{n+1}·(−∇²_h u^n), acc[2] = Σ u^{n+1}·phi */
function membraneStep(uPrev: Float64Array, u: Float64Array, nx: number, ny: number, cx2: number, cy2: number,
  ix2: number, iy2: number, phi: Float64Array, acc: Float64Array): void {
  const W = nx + 1;
  let kin = 0, pot = 0, proj = 0;
  for (let j = 1; j < ny; j++) {
    const row = j * W;
    for (let p = row + 1, end = row + nx; p < end; p++) {
      const c = u[p];
      const lx = u[p - 1] - 2 * c + u[p + 1];
      const ly = u[p - W] - 2 * c + u[p + W];
      const next = 2 * c - uPrev[p] + cx2 * lx + cy2 * ly;
      const d = next - c;
      kin += d * d;
      pot -= next * (ix2 * lx + iy2 * ly);
      proj += next * phi[p];
      uPrev[p] = next; // uPrev now holds u^{n+1}
    }
  }
  acc[0] = kin; acc[1] = pot; acc[2] = proj;
}

function stringStep(uPrev: Float64Array, u: Float64Array, nx: number, cx2: number, ix2: number,
  phi: Float64Array, acc: Float64Array): void {
  let kin = 0, pot = 0, proj = 0;
  for (let p = 1; p < nx; p++) {
    const c = u[p];
    const lx = u[p - 1] - 2 * c + u[p + 1];
    const next = 2 * c - uPrev[p] + cx2 * lx;
    const d = next - c;
    kin += d * d;
    pot -= next * ix2 * lx;
    proj += next * phi[p];
    uPrev[p] = next;
  }
  acc[0] = kin; acc[1] = pot; acc[2] = proj;
}

/** H^{n-½} → H^{n+½}; acc[0] = Σ H^{n−½}·H^{n+½}, acc[2] = Σ H^{n+½}·phi */
function yeeUpdateH(hz: Float64Array, ex: Float64Array, ey: Float64Array, nx: number, ny: number,
  chx: number, chy: number, phi: Float64Array, acc: Float64Array): void {
  const W = nx + 1;
  let hh = 0, proj = 0;
  for (let j = 0; j < ny; j++) {
    const hRow = j * nx, eyRow = j * W, exRow = j * nx;
    for (let i = 0; i < nx; i++) {
      const q = hRow + i;
      const old = hz[q];
      const nw = old - chx * (ey[eyRow + i + 1] - ey[eyRow + i]) + chy * (ex[exRow + nx + i] - ex[exRow + i]);
      hz[q] = nw;
      hh += old * nw;
      proj += nw * phi[q];
    }
  }
  acc[0] = hh; acc[2] = proj;
}

/** E^n → E^{n+1} (PEC walls stay zero); acc[1] = Σ|E^n|² */
function yeeUpdateE(hz: Float64Array, ex: Float64Array, ey: Float64Array, nx: number, ny: number,
  cex: number, cey: number, acc: Float64Array): void {
  const W = nx + 1;
  let ee = 0;
  for (let j = 1; j < ny; j++) {
    const row = j * nx;
    for (let i = 0; i < nx; i++) {
      const q = row + i;
      const old = ex[q];
      ee += old * old;
      ex[q] = old + cey * (hz[q] - hz[q - nx]);
    }
  }
  for (let j = 0; j < ny; j++) {
    const row = j * W, hRow = j * nx;
    for (let i = 1; i < nx; i++) {
      const q = row + i;
      const old = ey[q];
      ee += old * old;
      ey[q] = old - cex * (hz[hRow + i] - hz[hRow + i - 1]);
    }
  }
  acc[1] = ee;
}


/** Angular frequency from the zero crossings of a sampled amplitude a(t) (linear interpolation). */
function frequencyFromCrossings(ts: Float64Array, as: Float64Array, count: number): number | null {
  let first = -1, last = -1, crossings = 0;
  for (let n = 1; n < count; n++) {
    const a0 = as[n - 1], a1 = as[n];
    if ((a0 > 0 && a1 <= 0) || (a0 < 0 && a1 >= 0)) {
      if (a1 === 0 && n + 1 < count && Math.sign(as[n + 1]) === Math.sign(a0)) continue; // touch, not a crossing
      const tc = ts[n - 1] + (ts[n] - ts[n - 1]) * a0 / (a0 - a1);
      if (first < 0) first = tc;
      last = tc;
      crossings++;
    }
  }
  if (crossings < 2) return null;
  const halfPeriod = (last - first) / (crossings - 1);
  return Math.PI / halfPeriod;
}

export const run: SolverRun<WaveInput> = (inp, ctx): SolverOutput => {
  if (checkModeConflicts(inp, ['kx', 'ky', 'mode_k', 'eps', 'mu'])) return runUser(inp, ctx);
  const variant = inp.dim === 1 ? 'wave1d' : inp.mode ?? 'membrane';
  if (inp.dim === 1 && inp.mode === 'maxwell') {
    throw refuse('INVALID_INPUT', 'mode "maxwell" is the 2-D TE Yee scheme: it cannot run with dim 1', { field: 'dim' });
  }
  const oneD = variant === 'wave1d';
  const nx = inp.nx;
  const ny = oneD ? 1 : inp.ny ?? 64;
  const kx = oneD ? inp.mode_k ?? 1 : inp.kx ?? 1;
  const ky = oneD ? 0 : inp.ky ?? 1;
  if (kx >= nx) {
    throw refuse('INVALID_INPUT', `${oneD ? 'mode_k' : 'kx'} must be below nx (${nx})`, { field: oneD ? 'mode_k' : 'kx', max: nx - 1 });
  }
  if (!oneD && ky >= ny) {
    throw refuse('INVALID_INPUT', `ky must be below ny (${ny})`, { field: 'ky', max: ny - 1 });
  }
  const maxwell = variant === 'maxwell';
  const c = maxwell ? 1 / Math.sqrt((inp.eps ?? 1) * (inp.mu ?? 1)) : inp.c ?? 1;
  const dx = 1 / nx;
  const dy = oneD ? 1 : 1 / ny;
  const geo = oneD ? 1 / dx : Math.sqrt(1 / (dx * dx) + 1 / (dy * dy));
  const dt = inp.dt ?? (inp.courant ?? 0.5) / (c * geo);
  const courant = c * dt * geo;
  const stability: Stability = {
    number: courant,
    limit: 1,
    stable: courant <= 1,
    name: oneD ? 'c*dt/dx' : 'c*dt*sqrt(1/dx^2+1/dy^2)',
  };
  if (courant > 1) {
    throw refuse('UNSTABLE', `leapfrog is unstable: Courant number ${courant} exceeds 1; lower dt`, { stability });
  }
  const steps = inp.steps;
  const omega = c * Math.PI * Math.sqrt(kx * kx + ky * ky);
  // discrete dispersion relation of the scheme: sin(ω_h·dt/2) = (c·dt/2)·√λ_h
  const sx = Math.sin(kx * Math.PI * dx / 2), sy = oneD ? 0 : Math.sin(ky * Math.PI * dy / 2);
  const lambdaH = 4 * sx * sx / (dx * dx) + (oneD ? 0 : 4 * sy * sy / (dy * dy));
  const omegaDiscrete = (2 / dt) * Math.asin(Math.min(1, 0.5 * c * dt * Math.sqrt(lambdaH)));

  const cell = oneD ? dx : dx * dy;
  const energies = new Float64Array(steps);
  const ampT = new Float64Array(steps + 1);
  const amps = new Float64Array(steps + 1);
  const acc = new Float64Array(3);
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  let continuumEnergy: number;

  if (maxwell) {
    const eps = inp.eps ?? 1, mu = inp.mu ?? 1;
    const hz = new Float64Array(nx * ny);
    const ex = new Float64Array(nx * (ny + 1));
    const ey = new Float64Array((nx + 1) * ny);
    const phi = new Float64Array(nx * ny);
    let phiNorm = 0;
    for (let j = 0; j < ny; j++) {
      const cy = Math.cos(ky * Math.PI * (j + 0.5) * dy);
      for (let i = 0; i < nx; i++) {
        const v = Math.cos(kx * Math.PI * (i + 0.5) * dx) * cy;
        phi[j * nx + i] = v; hz[j * nx + i] = v; phiNorm += v * v;
      }
    }
    // H starts at t = −dt/2 with E⁰ = 0 (time-symmetric standing wave, so H^{−½} = H^{½}).
    const chx = dt / (mu * dx), chy = dt / (mu * dy), cex = dt / (eps * dx), cey = dt / (eps * dy);
    ampT[0] = -0.5 * dt; amps[0] = 1;
    for (let n = 0; n < steps; n++) {
      yeeUpdateH(hz, ex, ey, nx, ny, chx, chy, phi, acc);
      yeeUpdateE(hz, ex, ey, nx, ny, cex, cey, acc);
      energies[n] = 0.5 * cell * (eps * acc[1] + mu * acc[0]);
      ampT[n + 1] = (n + 0.5) * dt; amps[n + 1] = acc[2] / phiNorm;
      if ((n + 1) % progressEvery === 0) ctx.progress((n + 1) / steps);
    }
    continuumEnergy = 0.5 * mu * 0.25; // ½·mu·∫cos²·cos² over the unit square
  } else {
    const W = nx + 1;
    const H = oneD ? 1 : ny + 1;
    const phi = new Float64Array(W * H);
    let phiNorm = 0;
    const jLo = oneD ? 0 : 1, jHi = oneD ? 0 : ny - 1;
    for (let j = jLo; j <= jHi; j++) {
      const syj = oneD ? 1 : Math.sin(ky * Math.PI * j * dy);
      for (let i = 1; i < nx; i++) {
        const v = Math.sin(kx * Math.PI * i * dx) * syj;
        phi[j * W + i] = v; phiNorm += v * v;
      }
    }
    const cx2 = (c * dt / dx) ** 2, cy2 = oneD ? 0 : (c * dt / dy) ** 2;
    const ix2 = 1 / (dx * dx), iy2 = oneD ? 0 : 1 / (dy * dy);
    const c2 = c * c, idt2 = 1 / (dt * dt);
    // Start at rest: u⁰ = phi and, by time symmetry, u^{−1} = u¹ = u⁰ + ½(c·dt)²·∇²_h u⁰, so the first
    // leapfrog step 2u⁰ − u^{−1} + (c·dt)²·∇²_h u⁰ yields exactly that u¹.
    let uPrev = new Float64Array(W * H);
    let u = Float64Array.from(phi);
    for (let j = jLo; j <= jHi; j++) {
      const row = j * W;
      for (let p = row + 1, end = row + nx; p < end; p++) {
        const cc = u[p];
        const lx = u[p - 1] - 2 * cc + u[p + 1];
        const ly = oneD ? 0 : u[p - W] - 2 * cc + u[p + W];
        uPrev[p] = cc + 0.5 * (cx2 * lx + cy2 * ly);
      }
    }
    ampT[0] = 0; amps[0] = 1;
    for (let n = 0; n < steps; n++) {
      if (oneD) stringStep(uPrev, u, nx, cx2, ix2, phi, acc);
      else membraneStep(uPrev, u, nx, ny, cx2, cy2, ix2, iy2, phi, acc);
      // uPrev now holds u^{n+1}; the energy is E^{n+½}
      energies[n] = 0.5 * cell * (acc[0] * idt2 + c2 * acc[1]);
      ampT[n + 1] = (n + 1) * dt; amps[n + 1] = acc[2] / phiNorm;
      const tmp = uPrev; uPrev = u; u = tmp;
      if ((n + 1) % progressEvery === 0) ctx.progress((n + 1) / steps);
    }
    continuumEnergy = 0.5 * c2 * Math.PI * Math.PI * (kx * kx + ky * ky) * (oneD ? 0.5 : 0.25);
  }

  const e0 = energies[0];
  const value = energies[steps - 1];
  let maxDrift = 0;
  for (let n = 0; n < steps; n++) {
    const d = Math.abs(energies[n] - e0);
    if (d > maxDrift) maxDrift = d;
  }
  if (!Number.isFinite(value) || !Number.isFinite(maxDrift)) {
    throw refuse('UNSTABLE', 'the run produced a non-finite energy', { stability });
  }
  let omegaMeasured = frequencyFromCrossings(ampT, amps, steps + 1);
  let freqMethod = 'zero crossings';
  if (omegaMeasured === null) {
    // fewer than two crossings: the three-term recurrence a^{n+1} + a^{n−1} = 2cos(ω_h·dt)·a^n
    let best = 1, bestAbs = 0;
    for (let n = 1; n < steps; n++) if (Math.abs(amps[n]) > bestAbs) { bestAbs = Math.abs(amps[n]); best = n; }
    const cosw = steps >= 2 ? (amps[best + 1] + amps[best - 1]) / (2 * amps[best]) : NaN;
    omegaMeasured = Number.isFinite(cosw) && Math.abs(cosw) <= 1 ? Math.acos(cosw) / dt : null;
    freqMethod = 'three-term recurrence';
  }
  const errorPct = e0 === 0 ? 0 : (Math.abs(value - e0) / Math.abs(e0)) * 100;
  const boundPct = 0.01;

  const stride = Math.max(1, Math.ceil(steps / 500));
  const sT: number[] = [], sE: number[] = [], sA: number[] = [];
  for (let n = 0; n < steps; n += stride) {
    sT.push(ampT[n + 1]); sE.push(energies[n]); sA.push(amps[n + 1]);
  }
  if ((steps - 1) % stride !== 0) { sT.push(ampT[steps]); sE.push(energies[steps - 1]); sA.push(amps[steps]); }

  return {
    value,
    result: {
      energy: value,
      initialEnergy: e0,
      energyDrift: e0 === 0 ? 0 : Math.abs(value - e0) / Math.abs(e0),
      maxEnergyDrift: e0 === 0 ? 0 : maxDrift / Math.abs(e0),
      continuumEnergy,
      variant,
      nx, ny: oneD ? null : ny,
      kx, ky: oneD ? null : ky,
      c,
      dt,
      courant,
      t: steps * dt,
      frequency: {
        measured: omegaMeasured,
        analytic: omega,
        discrete: omegaDiscrete,
        method: freqMethod,
        errorPct: omegaMeasured === null ? null : relErrPct(omegaMeasured, omega),
      },
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'initial discrete energy (leapfrog invariant); mode frequency c*pi*sqrt(kx^2+ky^2) in result.frequency',
      referenceValue: e0,
    }),
    series: { t: sT, energy: sE, amplitude: sA },
    stability,
    method: maxwell ? 'yee-fdtd-te' : 'leapfrog',
  };
};

// ---------------------------------------------------------------------------------------------
// User mode

/** One leapfrog solve of the user problem on grid g (base: the caller's grid, for array data). */
function waveOnGrid(P: UserProblem, g: Grid, base: Grid, c: number, dt: number, steps: number, keepSeries: boolean,
  progress: (f: number) => void): GridRun {
  let prev: Float64Array = new Float64Array(g.size);
  let cur: Float64Array = new Float64Array(g.size);
  fillField(g, base, P.initial, prev);
  const S0 = g.sidesAt(0, 0);
  g.setDirichlet(prev, S0);
  g.syncPeriodic(prev);
  const rec = new Recorder(g, steps, dt, keepSeries);
  rec.record(0, prev);
  let v: Float64Array | null = null;
  if (P.initialVelocity.kind !== 'zero') { v = new Float64Array(g.size); fillField(g, base, P.initialVelocity, v); }
  const src = P.source;
  const f = src ? new Float64Array(g.size) : null;
  const dynamic = !!src && (src.usesT || src.usesU);
  const cx2 = (c * dt / g.ax.h) ** 2;
  const cy2 = g.dim === 2 ? (c * dt / g.ay.h) ** 2 : 0;
  const dt2 = dt * dt;
  // Taylor start: u¹ = u⁰ + dt·v⁰ + ½dt²·(c²·∇²_h u⁰ + f(x, 0, u⁰))
  g.fillGhosts(prev, S0);
  if (src) evalSource(g, 0, prev, f!);
  explicitUpdate(g, cur, 1, prev, v ? dt : 0, v ?? prev, 0.5 * cx2, 0.5 * cy2, f, 0.5 * dt2);
  g.setDirichlet(cur, g.sidesAt(dt, 1));
  g.syncPeriodic(cur);
  rec.record(1, cur);
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  for (let n = 1; n < steps; n++) {
    const t = n * dt;
    g.fillGhosts(cur, g.sidesAt(t, n % 2));
    if (dynamic) evalSource(g, t, cur, f!);
    // u^{n+1} = 2u^n − u^{n−1} + (c·dt)²·∇²_h u^n + dt²·f^n, written over u^{n−1}
    explicitUpdate(g, prev, 2, cur, -1, prev, cx2, cy2, f, dt2);
    g.setDirichlet(prev, g.sidesAt((n + 1) * dt, (n + 1) % 2));
    g.syncPeriodic(prev);
    const tmp = prev; prev = cur; cur = tmp;
    rec.record(n + 1, cur);
    if ((n + 1) % progressEvery === 0) progress((n + 1) / steps);
  }
  return { grid: g, u: cur, dt, steps, rec };
}

function runUser(inp: WaveInput, ctx: Parameters<SolverRun>[1]): SolverOutput {
  if (inp.mode === 'maxwell') {
    throw refuse('INVALID_INPUT', 'mode "maxwell" (the Yee cavity) has no user mode; the user fields solve the scalar wave equation '
      + '(mode membrane, or wave1d / dim 1)', { field: 'mode' });
  }
  const dim = inp.dim === 1 || inp.mode === 'wave1d' ? 1 : 2;
  const { nx, steps } = inp;
  const ny = inp.ny ?? 64, c = inp.c ?? 1;
  const P = prepareUserProblem(inp, { dim, nx, ny });
  const base = new Grid(P, nx, ny);
  const dx = base.ax.h, dy = base.ay.h;
  const geo = dim === 1 ? 1 / dx : Math.sqrt(1 / (dx * dx) + 1 / (dy * dy));
  const dt = inp.dt ?? (inp.courant ?? 0.5) / (c * geo);
  const courant = c * dt * geo;
  const stability: Stability = { number: courant, limit: 1, stable: courant <= 1, name: dim === 1 ? 'c*dt/dx' : 'c*dt*sqrt(1/dx^2+1/dy^2)' };
  if (courant > 1) {
    throw refuse('UNSTABLE', `leapfrog is unstable: Courant number ${courant} exceeds 1 (dx = Lx/nx${dim === 2 ? ', dy = Ly/ny' : ''}); lower dt`, { stability });
  }
  checkWork(P, nx, ny, steps, 2);
  const share = (workOf(P, nx, ny, steps, 1).nodeSteps / (1 + (dim === 2 ? 4 : 2))) / workOf(P, nx, ny, steps, 2).nodeSteps;
  const coarse = waveOnGrid(P, base, base, c, dt, steps, false, (f) => ctx.progress(f * share));
  const fineGrid = new Grid(P, 2 * nx, 2 * ny);
  const fine = waveOnGrid(P, fineGrid, base, c, dt / 2, 2 * steps, true, (f) => ctx.progress(share + f * (1 - share)));
  const R = richardson(P, coarse, fine, { order: 2, scale: fine.rec.maxAbsSeen, scaleName: 'max |u| over the grid and the recorded times' });
  const refusedBy = R.precision.withinBound ? null : R.precision.errorPct;
  return {
    ...(refusedBy !== null ? retryWave(inp, dim, nx, ny, steps, refusedBy, R.precision.boundPct) : {}),
    value: R.value,
    result: { ...R.result, variant: dim === 1 ? 'wave1d' : 'membrane', c, courant },
    precision: R.precision,
    series: R.series,
    stability,
    method: 'leapfrog',
  };
}

// Refusals that say how to succeed (issue 29). Leapfrog is second order in space and time
// (Strikwerda §8.1): refining the grid by an integer factor f in space and, at the same final time,
// in time (the same Courant number: steps × f; with an explicit dt, dt / f) divides the error by f².
// The advice is the least f (grid at most 128 intervals) whose predicted error is a quarter of the
// bound; the Richardson estimate is asymptotic, so the margin covers a pre-asymptotic start.
function retryWave(inp: WaveInput, dim: number, nx: number, ny: number, steps: number, errorPct: number, boundPct: number): { retryWith: NonNullable<SolverOutput['retryWith']> } | Record<string, never> {
  if (!Number.isFinite(errorPct)) return {};
  for (let f = 2; nx * f <= 128 && (dim === 1 || ny * f <= 128) && steps * f <= 50000; f++) {
    const predictedErrorPct = errorPct / (f * f);
    if (predictedErrorPct > 0.25 * boundPct) continue;
    const inputs: Record<string, number> = { nx: nx * f, steps: steps * f };
    if (dim === 2) inputs.ny = ny * f;
    if (inp.dt !== undefined) inputs.dt = inp.dt / f;
    const cells = dim === 2 ? f * f : f;
    return { retryWith: { inputs, predictedErrorPct, predictedCost: { nodeSteps: (nx * f + 1) * (dim === 2 ? ny * f + 1 : 1) * steps * f, relativeToThisRun: cells * f } } };
  }
  return {};
}
