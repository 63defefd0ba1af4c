// climate: the 1-D shallow-water equations
//   h_t + (h·u)_x = 0,   (h·u)_t + (h·u² + ½·g·h²)_x = 0
// by the finite-volume Lax-Friedrichs scheme (Lax 1954; LeVeque, "Finite Volume Methods for
// Hyperbolic Problems", 2002, §4.6 and §13): interface flux
//   F_{i+½} = ½·(F(U_i) + F(U_{i+1})) − (dx / 2dt)·(U_{i+1} − U_i),
// U_i ← U_i − (dt/dx)·(F_{i+½} − F_{i−½}). Stable while the Courant number
// max(|u| + √(g·h))·dt/dx <= 1 (√(g·H)·dt/dx for the state at rest); the number is computed from
// the initial state before anything runs, past 1 the run is refused (422 UNSTABLE), and it is
// re-checked every step.
//
// Setup (docs/solvers-fields-a.md): periodic domain [0, 1) m with N cells, water at rest of depth H
// with a Gaussian hump of height 0.001·H and width σ = 0.05 m centred at x = 0.5. Periodic
// boundaries make the flux differences telescope, so the total mass Σh·dx is conserved to rounding
// (result.massRelativeError, acceptance 1e-10). The hump splits into two waves travelling at
// √(g·H); the front speed is measured as the propagation speed of the right-going characteristic
// variable R = ½·(η + h·u/√(gH)) (η = h − H): the phase of its first Fourier coefficient moves by
// 2π·x_shift, fitted by least squares over the run. value: the peak surface height max h (m) at the end.
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverRun, SolverOutput, Stability } from './types.ts';
import { retryByOrder, optionalRetry } from './lib/retry.ts';
import { relErrPct, precisionOf } from './lib/precision.ts';

const input = z.strictObject({
  N: z.number().int().min(16).max(20000).default(400).describe('cells on the periodic domain [0, 1) m'),
  steps: z.number().int().min(1).max(200000).default(300).describe('time steps'),
  g: z.number().positive().max(1000).default(9.81).describe('gravitational acceleration (m/s²)'),
  H: z.number().positive().max(100000).default(1).describe('mean water depth (m)'),
  dt: z.number().positive().max(1000).optional().describe('time step (s); default: Courant number 0.5'),
});

export type ClimateInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'climate',
  domain: 'Geophysical Fluid Dynamics',
  method: 'lax-friedrichs',
  methodDescription: 'finite-volume Lax-Friedrichs, shallow water',
  operators: ['KO42', 'OC1'],
  unit: 'h',
  summary: '1-D shallow-water equations by finite-volume Lax-Friedrichs on a periodic domain: a surface hump '
    + 'splits into gravity waves; value is the peak surface height at the end, with the measured wave speed '
    + 'against sqrt(g*H) and the total mass conservation reported.',
  input,
  examples: [
    'How fast does a shallow water gravity wave travel in 4000 m deep ocean?',
    'Simulate a tsunami-like surface hump spreading in shallow water',
    'Shallow water equations with Lax-Friedrichs, check mass conservation',
    'Gravity wave speed sqrt(g*H) for a 10 m deep channel',
    'Run a 1-D ocean wave model with 1000 cells and 500 time steps',
    'Peak sea surface height after a disturbance propagates away',
    'Geophysical fluid dynamics: finite volume shallow water model on Mars gravity 3.71',
    'Is my shallow water time step stable? dt 0.01 with 400 cells',
    'Water level in a periodic channel after a bump of water is released',
  ],
  vocabulary: [
    'shallow water', 'climate', 'ocean', 'sea', 'tsunami', 'gravity wave', 'surface height',
    'sea level', 'water depth', 'lax-friedrichs', 'finite volume', 'geophysical', 'atmosphere',
    'saint-venant', 'tide', 'channel', 'dam', 'mass conservation', 'wave speed', 'hydrostatic',
  ],
};

const HUMP_RELATIVE = 0.001;
const HUMP_SIGMA = 0.05;

/**
 * One Lax-Friedrichs step in place; hn, qn are scratch. Returns the Courant number
 * max(|u| + √(gh))·dt/dx of the state it started from, or NaN if a depth is not positive.
 */
function laxFriedrichsStep(h: Float64Array, q: Float64Array, fh: Float64Array, fq: Float64Array,
  N: number, g: number, dtdx: number, halfDxDt: number): number {
  let smax = 0;
  // flux at face i+½ between cells i and i+1 (periodic)
  let hL = h[0], qL = q[0];
  if (!(hL > 0)) return NaN;
  const u0 = qL / hL;
  let FhL = qL, FqL = qL * u0 + 0.5 * g * hL * hL;
  const h0 = hL, q0 = qL, Fh0 = FhL, Fq0 = FqL;
  smax = Math.abs(u0) + Math.sqrt(g * hL);
  for (let i = 0; i < N; i++) {
    let hR: number, qR: number, FhR: number, FqR: number;
    if (i + 1 < N) {
      hR = h[i + 1]; qR = q[i + 1];
      if (!(hR > 0)) return NaN;
      const uR = qR / hR;
      FhR = qR; FqR = qR * uR + 0.5 * g * hR * hR;
      const s = Math.abs(uR) + Math.sqrt(g * hR);
      if (s > smax) smax = s;
    } else {
      hR = h0; qR = q0; FhR = Fh0; FqR = Fq0;
    }
    fh[i] = 0.5 * (FhL + FhR) - halfDxDt * (hR - hL);
    fq[i] = 0.5 * (FqL + FqR) - halfDxDt * (qR - qL);
    hL = hR; qL = qR; FhL = FhR; FqL = FqR;
  }
  // U_i −= dt/dx·(F_{i+½} − F_{i−½})
  let fhPrev = fh[N - 1], fqPrev = fq[N - 1];
  for (let i = 0; i < N; i++) {
    const a = fh[i], b = fq[i];
    h[i] -= dtdx * (a - fhPrev);
    q[i] -= dtdx * (b - fqPrev);
    fhPrev = a; fqPrev = b;
  }
  return smax * dtdx;
}


/** The most work a single run may do, N·steps (roughly 10 s of one core at the top). */
export const CLIMATE_WORK_LIMIT = 1e9;

export const run: SolverRun<ClimateInput> = (inp, ctx): SolverOutput => {
  const { N, steps, g, H } = inp;
  if (N * steps > CLIMATE_WORK_LIMIT) {
    throw refuse('INVALID_INPUT', `N*steps = ${N * steps} exceeds the work limit ${CLIMATE_WORK_LIMIT}; lower N or steps`,
      { field: 'steps', max: Math.floor(CLIMATE_WORK_LIMIT / N) });
  }
  const dx = 1 / N;
  const c0 = Math.sqrt(g * H);
  const h = new Float64Array(N), q = new Float64Array(N);
  const fh = new Float64Array(N), fq = new Float64Array(N);
  const cosT = new Float64Array(N), sinT = new Float64Array(N);
  let hmax0 = 0;
  for (let i = 0; i < N; i++) {
    const x = (i + 0.5) * dx;
    const d = (x - 0.5) / HUMP_SIGMA;
    h[i] = H * (1 + HUMP_RELATIVE * Math.exp(-0.5 * d * d));
    if (h[i] > hmax0) hmax0 = h[i];
    cosT[i] = Math.cos(2 * Math.PI * x);
    sinT[i] = Math.sin(2 * Math.PI * x);
  }
  const maxSpeed0 = Math.sqrt(g * hmax0);
  const dt = inp.dt ?? 0.5 * dx / maxSpeed0;
  const courant0 = maxSpeed0 * dt / dx;
  const stability: Stability = {
    number: courant0,
    limit: 1,
    stable: courant0 <= 1,
    name: 'max(|u|+sqrt(g*h))*dt/dx (sqrt(g*H)*dt/dx at rest)',
  };
  if (courant0 > 1) {
    throw refuse('UNSTABLE',
      `Lax-Friedrichs is unstable: Courant number max(|u|+sqrt(g*h))*dt/dx = ${courant0} exceeds 1; lower dt (at most ${dx / maxSpeed0})`,
      { stability });
  }
  let mass0 = 0;
  for (let i = 0; i < N; i++) mass0 += h[i];
  mass0 *= dx;

  // phase of the first Fourier coefficient of R = ½(η + q/c0): position of the right-going wave
  const phaseOf = (): number => {
    let re = 0, im = 0;
    for (let i = 0; i < N; i++) {
      const r = 0.5 * ((h[i] - H) + q[i] / c0);
      re += r * cosT[i]; im += r * sinT[i];
    }
    return Math.atan2(im, re);
  };
  // least-squares slope of shift(t), accumulated on the fly
  let sT = 0, sS = 0, sTT = 0, sTS = 0, cnt = 0;
  let phasePrev = phaseOf(), unwrapped = 0;
  const addSample = (t: number, shift: number): void => { sT += t; sS += shift; sTT += t * t; sTS += t * shift; cnt++; };
  addSample(0, 0);

  const stride = Math.max(1, Math.ceil(steps / 500));
  const ts: number[] = [0], peaks: number[] = [hmax0], shifts: number[] = [0];
  const dtdx = dt / dx, halfDxDt = 0.5 * dx / dt;
  let courantMax = courant0;
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  for (let n = 1; n <= steps; n++) {
    const cn = laxFriedrichsStep(h, q, fh, fq, N, g, dtdx, halfDxDt);
    if (!(cn <= 1)) {
      const st: Stability = { ...stability, number: Number.isFinite(cn) ? cn : courantMax, stable: false };
      throw refuse('UNSTABLE', Number.isFinite(cn)
        ? `the Courant number rose to ${cn} (> 1) at step ${n}`
        : `the depth stopped being positive at step ${n}`, { stability: st });
    }
    if (cn > courantMax) courantMax = cn;
    const ph = phaseOf();
    let dph = ph - phasePrev;
    if (dph > Math.PI) dph -= 2 * Math.PI; else if (dph < -Math.PI) dph += 2 * Math.PI;
    unwrapped += dph;
    phasePrev = ph;
    const t = n * dt;
    const shift = unwrapped / (2 * Math.PI);
    addSample(t, shift);
    if (n % stride === 0 || n === steps) {
      let pk = -Infinity;
      for (let i = 0; i < N; i++) if (h[i] > pk) pk = h[i];
      ts.push(t); peaks.push(pk); shifts.push(shift);
    }
    if (n % progressEvery === 0) ctx.progress(n / steps);
  }
  let mass = 0, peak = -Infinity;
  for (let i = 0; i < N; i++) { mass += h[i]; if (h[i] > peak) peak = h[i]; }
  mass *= dx;
  const massRelativeError = Math.abs(mass - mass0) / mass0;
  const denom = cnt * sTT - sT * sT;
  const frontSpeed = denom > 0 ? (cnt * sTS - sT * sS) / denom : NaN;
  const speedErrorPct = Number.isFinite(frontSpeed) ? relErrPct(frontSpeed, c0) : 100;
  const boundPct = 1;
  const massOk = massRelativeError <= 1e-10;
  return {
    value: peak,
    result: {
      peakHeight: peak,
      peakElevation: peak - H,
      initialPeakHeight: hmax0,
      frontSpeed: Number.isFinite(frontSpeed) ? frontSpeed : null,
      waveSpeedReference: c0,
      frontSpeedErrorPct: speedErrorPct,
      mass,
      initialMass: mass0,
      massRelativeError,
      massConserved: massOk,
      t: steps * dt,
      dt, dx, N,
      courantMax,
      boundary: 'periodic',
    },
    precision: precisionOf({
      errorPct: speedErrorPct,
      boundPct,
      reference: 'front speed vs sqrt(g*H); total mass conserved to 1e-10 relative',
      referenceValue: c0,
      alsoHolds: massOk,
    }),
    series: { t: ts, peakHeight: peaks, frontShift: shifts },
    stability: { ...stability, number: courantMax, stable: courantMax <= 1 },
    method: 'lax-friedrichs-fv',
    // a grid too coarse for the bound: Lax-Friedrichs is first order; the advice refines the grid
    // and, when the step follows the grid (dt left out), the steps with it, so the final time stays
    ...(speedErrorPct > boundPct && massOk ? optionalRetry(retryByOrder({
      field: 'N', value: N, errorPct: speedErrorPct, boundPct, order: 1, kind: 'count', integer: true, max: 20000,
      also: (n2) => (inp.dt === undefined ? { steps: Math.ceil(steps * n2 / N) } : {}),
    })) : {}),
  };
};
