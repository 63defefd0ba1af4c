// react: two-species reaction-diffusion on an N×N periodic grid, explicit Euler in time with the
// 5-point Laplacian (FTCS), two models:
//  - gray-scott (Gray & Scott 1984; Pearson, "Complex patterns in a simple system", Science 261:189,
//    1993):  u_t = Du·∇²u − u·v² + F·(1 − u),   v_t = Dv·∇²v + u·v² − (F + k)·v,
//    on Pearson's 2.5 × 2.5 domain, u = 1, v = 0 with a perturbed central square (u = ½, v = ¼) and
//    ±1 % seeded noise.
//  - fitzhugh-nagumo (FitzHugh 1961; Nagumo, Arimoto & Yoshizawa 1962), excitable medium:
//    u_t = Du·∇²u + u − u³/3 − v + I,   v_t = Dv·∇²v + epsilon·(u + a − b·v),
//    on a 200 × 200 domain from the rest state with a stimulated central square and seeded noise.
// Stability of the explicit diffusion step (von Neumann, 2-D FTCS): D·dt/dx² <= 1/4 for
// D = max(Du, Dv). The number is computed first; past 1/4 the run is refused (422 UNSTABLE), and a
// run whose reaction terms blow up anyway is refused the same way.
//
// value: the mean concentration of u at the end. Reference (the model's mass balance): on a
// periodic grid the discrete Laplacian sums to zero, so the change of the total of u must equal the
// time-integrated reaction term Σ_n dt·Σ_cells R_u(u^n, v^n), accumulated during the run;
// precision.errorPct is the relative mismatch (scaled by the integrated |R_u|).
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverRun, SolverOutput, Stability } from './types.ts';
import { createRng } from './lib/rng.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, sent, withDefaults } from './lib/no-effect.ts';

/** the kinetic parameters of each model, filled in after the checks (which must see what the
 * caller sent: a parameter of the other model is a 400, DESIGN §9) */
const GRAY_SCOTT = { F: 0.04, k: 0.06 };
const FITZHUGH_NAGUMO = { epsilon: 0.08, a: 0.7, b: 0.8, I: 0 };

const input = z.strictObject({
  model: z.enum(['gray-scott', 'fitzhugh-nagumo']).default('gray-scott').describe('gray-scott (default; F, k) or fitzhugh-nagumo (epsilon, a, b, I)'),
  N: z.number().int().min(16).max(400).optional().describe('grid cells per side (periodic); default 128, or, when Du or Dv is so large that the stable step on 128 cells leaves a run too short to check (t = steps·dt under 0.002), the finest grid whose stable step gives t ≥ 0.004 (at least 16)'),
  steps: z.number().int().min(1).max(100000).default(1000).describe('time steps'),
  dt: z.number().positive().max(100).optional().describe('time step; default 1 (gray-scott) or 0.05 (fitzhugh-nagumo), lowered to keep D*dt/dx^2 at 0.2 on fine grids'),
  Du: z.number().min(0).max(1e3).optional().describe('diffusivity of u; default 2e-5 (gray-scott) or 1 (fitzhugh-nagumo)'),
  Dv: z.number().min(0).max(1e3).optional().describe('diffusivity of v; default 1e-5 (gray-scott) or 0 (fitzhugh-nagumo)'),
  F: z.number().min(0).max(1).optional().describe('gray-scott only: feed rate (default 0.04)'),
  k: z.number().min(0).max(1).optional().describe('gray-scott only: kill rate (default 0.06)'),
  epsilon: z.number().min(0).max(10).optional().describe('fitzhugh-nagumo only: time-scale ratio (default 0.08)'),
  a: z.number().min(-10).max(10).optional().describe('fitzhugh-nagumo only: a (default 0.7)'),
  b: z.number().min(0).max(10).optional().describe('fitzhugh-nagumo only: b (default 0.8)'),
  I: z.number().min(-10).max(10).optional().describe('fitzhugh-nagumo only: stimulus current (default 0)'),
}).superRefine((v, ctx) => {
  const [other, owner] = v.model === 'gray-scott' ? [['epsilon', 'a', 'b', 'I'] as const, 'fitzhugh-nagumo'] : [['F', 'k'] as const, 'gray-scott'];
  for (const k of sent(v, other)) noEffect(ctx, k, `with model '${v.model}': it is a ${owner} parameter`);
}).overwrite(withDefaults((v) => ({ ...(v.model === 'gray-scott' ? GRAY_SCOTT : FITZHUGH_NAGUMO), N: defaultN(v, v.model === 'gray-scott') })));

export type ReactInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'react',
  domain: 'Reaction-Diffusion',
  method: 'ftcs-reaction-diffusion',
  methodDescription: 'reaction-diffusion integrator on a grid',
  operators: ['KO42', 'ICO9'],
  unit: 'c',
  summary: 'Gray-Scott or FitzHugh-Nagumo reaction-diffusion on a periodic N x N grid (explicit Euler, 5-point '
    + 'Laplacian, stable while D*dt/dx^2 <= 1/4); value is the mean concentration of u, checked against the '
    + "model's mass balance.",
  input,
  examples: [
    'Grow Turing patterns with the Gray-Scott model, feed 0.035 and kill 0.065',
    'Simulate spots and stripes in a reaction-diffusion system',
    'FitzHugh-Nagumo excitable medium: a wave spreading from a stimulus',
    'Run Gray-Scott on a 256 by 256 grid for 5000 steps',
    'What is the mean concentration of the activator after 2000 steps of reaction-diffusion?',
    'Pattern formation in a chemical reaction with two diffusing species',
    'Nerve impulse propagation in 2-D with FitzHugh-Nagumo, epsilon 0.08',
    'Check the mass balance of a reaction-diffusion simulation',
    'Morphogen patterns: Pearson\'s Gray-Scott parameter sweep',
  ],
  vocabulary: [
    'reaction-diffusion', 'reaction diffusion', 'gray-scott', 'gray scott', 'turing pattern', 'turing',
    'pattern formation', 'spots', 'stripes', 'morphogen', 'activator', 'inhibitor', 'fitzhugh-nagumo',
    'fitzhugh', 'nagumo', 'excitable', 'excitable medium', 'chemical', 'concentration', 'feed rate',
    'kill rate', 'autocatalytic', 'belousov', 'spiral wave',
  ],
};

interface ModelParams {
  gray: boolean;
  F: number; k: number;
  eps: number; a: number; b: number; I: number;
}

/**
 * One explicit step of both species into (un, vn): Gray-Scott kinetics when m.gray, else
 * FitzHugh-Nagumo. Σ_cells R_u before the step goes to acc[0] and Σ_cells |R_u| to acc[1].
 */
function reactStep(u: Float64Array, v: Float64Array, un: Float64Array, vn: Float64Array, N: number,
  cu: number, cv: number, dt: number, m: ModelParams, acc: Float64Array): void {
  let sum = 0, sumAbs = 0;
  for (let j = 0; j < N; j++) {
    const row = j * N;
    const up = j === N - 1 ? 0 : row + N;
    const dn = j === 0 ? (N - 1) * N : row - N;
    // the two wrapped columns, then the branch-free interior
    sum += reactCell(u, v, un, vn, row, row + N - 1, row + 1, up, dn, cu, cv, dt, m, acc);
    sumAbs += acc[0];
    sum += reactCell(u, v, un, vn, row + N - 1, row + N - 2, row, up + N - 1, dn + N - 1, cu, cv, dt, m, acc);
    sumAbs += acc[0];
    if (m.gray) {
      const F = m.F, Fk = m.F + m.k;
      for (let i = 1; i < N - 1; i++) {
        const p = row + i;
        const uc = u[p], vc = v[p];
        const uvv = uc * vc * vc;
        const ru = F * (1 - uc) - uvv;
        un[p] = uc + cu * (u[p - 1] + u[p + 1] + u[up + i] + u[dn + i] - 4 * uc) + dt * ru;
        vn[p] = vc + cv * (v[p - 1] + v[p + 1] + v[up + i] + v[dn + i] - 4 * vc) + dt * (uvv - Fk * vc);
        sum += ru;
        sumAbs += ru < 0 ? -ru : ru;
      }
    } else {
      const eps = m.eps, a = m.a, b = m.b, I = m.I;
      for (let i = 1; i < N - 1; i++) {
        const p = row + i;
        const uc = u[p], vc = v[p];
        const ru = uc - uc * uc * uc / 3 - vc + I;
        un[p] = uc + cu * (u[p - 1] + u[p + 1] + u[up + i] + u[dn + i] - 4 * uc) + dt * ru;
        vn[p] = vc + cv * (v[p - 1] + v[p + 1] + v[up + i] + v[dn + i] - 4 * vc) + dt * eps * (uc + a - b * vc);
        sum += ru;
        sumAbs += ru < 0 ? -ru : ru;
      }
    }
  }
  acc[0] = sum; acc[1] = sumAbs;
}

/** One cell with explicit neighbour indices (used for the wrapped columns); returns R_u, |R_u| in acc[0]. */
function reactCell(u: Float64Array, v: Float64Array, un: Float64Array, vn: Float64Array, p: number, l: number, r: number,
  upP: number, dnP: number, cu: number, cv: number, dt: number, m: ModelParams, acc: Float64Array): number {
  const uc = u[p], vc = v[p];
  let ru: number, rv: number;
  if (m.gray) {
    const uvv = uc * vc * vc;
    ru = m.F * (1 - uc) - uvv;
    rv = uvv - (m.F + m.k) * vc;
  } else {
    ru = uc - uc * uc * uc / 3 - vc + m.I;
    rv = m.eps * (uc + m.a - m.b * vc);
  }
  un[p] = uc + cu * (u[l] + u[r] + u[upP] + u[dnP] - 4 * uc) + dt * ru;
  vn[p] = vc + cv * (v[l] + v[r] + v[upP] + v[dnP] - 4 * vc) + dt * rv;
  acc[0] = Math.abs(ru);
  return ru;
}

function total(f: Float64Array): number {
  let s = 0;
  for (let k = 0; k < f.length; k++) s += f[k];
  return s;
}

/** The most work a single run may do, N²·steps (roughly 10-20 s of one core at the top). */
export const REACT_WORK_LIMIT = 6.4e8;

// The check's rounding floor (issue 29). The mass balance compares the change of total u with the
// time-integrated reaction term; each step adds dt·R_u to u ≈ 1, and the part of it below u's
// rounding is lost, so over a run of length t = steps·dt the check cannot resolve better than about
// 1e-9/t % (measured with Gray-Scott: t = 1e-6, 6e-4 to 1e-3 %; t = 1e-4, 7e-6 %; t = 0.01, 1e-7 %),
// whatever the step count. The bound is 1e-6 %: a run shorter than 0.001 cannot be certified.
const DEFAULT_N = 128;
/** below this default horizon the default grid is coarsened (the floor would be past half the bound) */
const T_SWITCH = 2e-3;
/** the horizon a coarsened default grid aims at (the floor at a quarter of the bound) */
const T_AIM = 4e-3;

/** the default step of a grid: the model's usual step, lowered to keep D·dt/dx² at 0.2 */
const defaultDt = (gray: boolean, dx: number, Dmax: number) => Math.min(gray ? 1 : 0.05, Dmax > 0 ? 0.2 * dx * dx / Dmax : Infinity);

export const run: SolverRun<ReactInput> = (inp, ctx): SolverOutput => {
  const gray = inp.model === 'gray-scott';
  const { steps } = inp;
  // the parsed input carries the grid (the default is filled in by the schema, so the receipt's
  // input lists the grid used, and the seed derived from it is the same as before)
  const N = inp.N ?? defaultN(inp, gray);
  if (N * N * steps > REACT_WORK_LIMIT) {
    throw refuse('INVALID_INPUT', `N^2*steps = ${N * N * steps} exceeds the work limit ${REACT_WORK_LIMIT}; lower N or steps`,
      { field: 'steps', max: Math.floor(REACT_WORK_LIMIT / (N * N)) });
  }
  const L = gray ? 2.5 : 200;
  const dx = L / N;
  const Du = inp.Du ?? (gray ? 2e-5 : 1);
  const Dv = inp.Dv ?? (gray ? 1e-5 : 0);
  const Dmax = Math.max(Du, Dv);
  // default dt: the model's usual step (Pearson's 1 for Gray-Scott), reduced on fine grids to keep
  // D·dt/dx² at 0.2
  const dt = inp.dt ?? defaultDt(gray, dx, Dmax);
  const number = Dmax * dt / (dx * dx);
  const stability: Stability = { number, limit: 0.25, stable: number <= 0.25, name: 'max(Du,Dv)*dt/dx^2' };
  if (number > 0.25) {
    throw refuse('UNSTABLE',
      `explicit reaction-diffusion is unstable: D*dt/dx^2 = ${number} exceeds 1/4 (dx = ${dx}); lower dt or D`, { stability });
  }
  const m: ModelParams = {
    gray, F: inp.F ?? GRAY_SCOTT.F, k: inp.k ?? GRAY_SCOTT.k,
    eps: inp.epsilon ?? FITZHUGH_NAGUMO.epsilon, a: inp.a ?? FITZHUGH_NAGUMO.a, b: inp.b ?? FITZHUGH_NAGUMO.b, I: inp.I ?? FITZHUGH_NAGUMO.I,
  };
  const n = N * N;
  let u = new Float64Array(n), v = new Float64Array(n);
  let un = new Float64Array(n), vn = new Float64Array(n);
  const rng = createRng(ctx.seed);
  // rest state of FitzHugh-Nagumo: v = (u + a)/b and u − u³/3 − v + I = 0 (Newton from u = −1)
  let uRest = -1.2, vRest = 0;
  if (!gray) {
    for (let it = 0; it < 100; it++) {
      const f = uRest - uRest ** 3 / 3 - (uRest + m.a) / (m.b || 1e-300) + m.I;
      const df = 1 - uRest * uRest - 1 / (m.b || 1e-300);
      const stepN = f / df;
      if (!Number.isFinite(stepN)) break;
      uRest -= stepN;
      if (Math.abs(stepN) < 1e-14) break;
    }
    vRest = m.b > 0 ? (uRest + m.a) / m.b : 0;
    if (!Number.isFinite(uRest) || !Number.isFinite(vRest)) { uRest = 0; vRest = 0; }
  }
  const lo = Math.floor(N * 0.45), hi = Math.ceil(N * 0.55);
  for (let j = 0; j < N; j++) {
    for (let i = 0; i < N; i++) {
      const p = j * N + i;
      const inside = i >= lo && i < hi && j >= lo && j < hi;
      const noise = 0.01 * (2 * rng.next() - 1);
      if (gray) {
        u[p] = (inside ? 0.5 : 1) * (1 + noise);
        v[p] = (inside ? 0.25 : 0) * (1 + noise);
      } else {
        u[p] = (inside ? 2 : uRest) + noise;
        v[p] = vRest;
      }
    }
  }
  const cu = Du * dt / (dx * dx), cv = Dv * dt / (dx * dx);
  const cellArea = dx * dx;
  const mean0 = total(u) / n;
  const meanV0 = total(v) / n;
  const total0 = total(u);
  let reactionIntegral = 0, reactionAbs = 0;
  const acc = new Float64Array(2);
  const stride = Math.max(1, Math.ceil(steps / 500));
  const ts: number[] = [0], means: number[] = [mean0];
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  for (let s = 1; s <= steps; s++) {
    reactStep(u, v, un, vn, N, cu, cv, dt, m, acc);
    reactionIntegral += dt * acc[0];
    reactionAbs += dt * acc[1];
    let tmp = u; u = un; un = tmp;
    tmp = v; v = vn; vn = tmp;
    if (s % stride === 0 || s === steps) {
      const mean = total(u) / n;
      if (!Number.isFinite(mean) || !Number.isFinite(total(v))) {
        throw refuse('UNSTABLE', `the reaction terms blew up at step ${s} (dt = ${dt} is too large for the kinetics)`,
          { stability: { ...stability, stable: false } });
      }
      ts.push(s * dt); means.push(mean);
    }
    if (s % progressEvery === 0) ctx.progress(s / steps);
  }
  const totalEnd = total(u);
  const value = totalEnd / n;
  const change = totalEnd - total0;
  const mismatch = Math.abs(change - reactionIntegral);
  const scale = Math.max(reactionAbs, Math.abs(change), 1e-300);
  const errorPct = (mismatch / scale) * 100;
  const boundPct = 1e-6;
  // a step the caller set so short that the run's horizon is below the check's rounding floor
  // (∝ 1/t): the step that lengthens the run to where the floor is a quarter of the bound, within
  // the stability limit and the model's usual step. This lengthens the horizon: a shorter one
  // cannot be checked to the bound at all (docs/defaults.md)
  const retry = errorPct > boundPct && inp.dt !== undefined ? (() => {
    const dtMax = defaultDt(gray, dx, Dmax);
    let dt2 = Number((dt * errorPct / (0.25 * boundPct) * 1.001).toPrecision(3));
    if (dt2 > dtMax) dt2 = dtMax;
    const predictedErrorPct = errorPct * dt / dt2;
    return dt2 > dt && predictedErrorPct < boundPct ? { retryWith: { inputs: { dt: dt2 }, predictedErrorPct, predictedCost: { cellSteps: n * steps, relativeToThisRun: 1 } } } : {};
  })() : {};
  let vSum = 0, uMin = Infinity, uMax = -Infinity;
  for (let p = 0; p < n; p++) { vSum += v[p]; if (u[p] < uMin) uMin = u[p]; if (u[p] > uMax) uMax = u[p]; }
  return {
    value,
    result: {
      meanU: value,
      meanV: vSum / n,
      initialMeanU: mean0,
      initialMeanV: meanV0,
      minU: uMin,
      maxU: uMax,
      model: inp.model,
      N, L, dx, dt, Du, Dv,
      t: steps * dt,
      massBalance: {
        changeOfTotalU: change * cellArea,
        integratedReaction: reactionIntegral * cellArea,
        mismatch: mismatch * cellArea,
        relativeMismatch: mismatch / scale,
      },
    },
    precision: precisionOf({
      errorPct,
      boundPct,
      reference: 'mass balance: change of total u equals the time-integrated reaction term',
      referenceValue: (total0 + reactionIntegral) / n,
    }),
    series: { t: ts, meanU: means },
    stability,
    method: gray ? 'gray-scott-ftcs' : 'fitzhugh-nagumo-ftcs',
    ...retry,
  };
};

/** 128 cells, unless a large Du or Dv makes the stable step on them leave a run shorter than
 * T_SWITCH (given steps and dt): then the finest grid whose stable step reaches T_AIM, at least 16 */
function defaultN(inp: { dt?: number; Du?: number; Dv?: number; steps: number }, gray: boolean): number {
  if (inp.dt !== undefined) return DEFAULT_N;
  const L = gray ? 2.5 : 200;
  const Dmax = Math.max(inp.Du ?? (gray ? 2e-5 : 1), inp.Dv ?? (gray ? 1e-5 : 0));
  if (defaultDt(gray, L / DEFAULT_N, Dmax) * inp.steps >= T_SWITCH) return DEFAULT_N;
  for (let N = DEFAULT_N; N > 16; N--) if (defaultDt(gray, L / N, Dmax) * inp.steps >= T_AIM) return N;
  return 16;
}

/** The one-step kernel, for tests that check the stencil on exact discrete eigenmodes. */
export const internals = { reactStep };
