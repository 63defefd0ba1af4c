// action: symplectic mechanics. Integrates a separable Hamiltonian H = |p|²/2 + V(q) with the
// leapfrog (Störmer-Verlet) map or its Yoshida compositions of order 4, 6 and 8 (H. Yoshida,
// Phys. Lett. A 150 (1990) 262; Hairer, Lubich & Wanner, "Geometric Numerical Integration",
// §II.4, §VI.3, §IX.8 for the bounded-energy-error result), and, when `compare` is on, with the
// classical RK4 at the same step for contrast (RK4 is not symplectic: its energy error grows
// secularly).
//
// Systems (unit mass):
//   kepler      V = −mu/|q| in the plane; default orbit a = 1 starting at periapsis with the given
//               eccentricity, period 2π·√(a³/mu).
//   oscillator  V = omega²·q²/2.
//   pendulum    V = lambda·(1 − cos q), lambda = g/ℓ.
// Stability: on the harmonic oscillator the composed map is stable while h·ω is below
// harmonicStabilityLimit(order) (2 for leapfrog, ≈1.573 for order 4, ≈2.269 for 6, ≈2.357 for 8);
// the number reported is h·Ω with Ω = omega, √lambda, or √(mu/r_min³) at periapsis. A run that
// blows up (non-finite state, or an energy error above 100 %) is refused with UNSTABLE.
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import {
  harmonicStabilityLimit, splittingScheme, symplecticStep, symplecticWorkspace,
  type SeparableSystem, type SymplecticOrder,
} from './lib/symplectic.ts';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, sent, withDefaults } from './lib/no-effect.ts';

const coordinate = z.union([z.number(), z.array(z.number()).length(2)]);

/** defaults of the fields that belong to one system (filled in after the checks, which must see
 * what the caller sent: nothing is silently ignored, DESIGN §9) */
const SYSTEM_DEFAULTS = { eccentricity: 0.6, mu: 1, omega: 1, lambda: 1 };
/** the system each system-specific field belongs to */
const FIELD_SYSTEM = { eccentricity: 'kepler', mu: 'kepler', omega: 'oscillator', lambda: 'pendulum' } as const;

const input = z.strictObject({
  system: z.enum(['kepler', 'oscillator', 'pendulum']).default('kepler')
    .describe('kepler (default): planar orbit, V = −mu/|q|; oscillator: V = omega²q²/2; pendulum: V = lambda(1 − cos q)'),
  order: z.union([z.literal(2), z.literal(4), z.literal(6), z.literal(8)]).default(4)
    .describe('2 = leapfrog (Störmer-Verlet), 4, 6, 8 = Yoshida compositions (default 4)'),
  steps: z.number().int().min(10).max(2_000_000).default(20_000).describe('time steps (10 to 2,000,000; default 20,000)'),
  dt: z.number().positive().max(1e6).default(0.01).describe('time step (default 0.01)'),
  eccentricity: z.number().min(0).max(0.98).optional()
    .describe('kepler only: eccentricity of the default orbit (a = 1, from periapsis; default 0.6); not with q0/p0, which give the orbit themselves'),
  mu: z.number().positive().optional().describe('kepler only: gravitational parameter (default 1)'),
  omega: z.number().positive().optional().describe('oscillator only: angular frequency (default 1)'),
  lambda: z.number().positive().optional().describe('pendulum only: g/ℓ (default 1)'),
  /** kepler: a 2-vector (with p0) overriding the eccentricity orbit; oscillator, pendulum: a number */
  q0: coordinate.optional().describe('initial position: kepler, a 2-vector given together with p0 (instead of eccentricity); oscillator, pendulum, a number (default 1)'),
  p0: coordinate.optional().describe('initial momentum: kepler, a 2-vector given together with q0; oscillator, pendulum, a number (default 0)'),
  compare: z.boolean().default(true).describe('also run classical RK4 at the same step and report its energy drift (default true)'),
  sample: z.number().int().min(2).max(500).default(60).describe('points in the series (2 to 500; default 60)'),
}).superRefine((v, ctx) => {
  for (const k of sent(v, ['eccentricity', 'mu', 'omega', 'lambda'])) {
    const owner = FIELD_SYSTEM[k];
    if (owner !== v.system) noEffect(ctx, k, `when system is '${v.system}': it belongs to the ${owner} system`);
  }
  if (v.system === 'kepler' && v.eccentricity !== undefined && (v.q0 !== undefined || v.p0 !== undefined)) {
    noEffect(ctx, 'eccentricity', 'with q0/p0: they give the orbit; send one or the other');
  }
}).overwrite(withDefaults((v) => {
  const d = SYSTEM_DEFAULTS;
  if (v.system === 'oscillator') return { omega: d.omega };
  if (v.system === 'pendulum') return { lambda: d.lambda };
  return v.q0 !== undefined || v.p0 !== undefined ? { mu: d.mu } : { mu: d.mu, eccentricity: d.eccentricity };
}));

export type ActionInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'action',
  domain: 'Symplectic Mechanics',
  method: 'leapfrog-yoshida',
  methodDescription: 'leapfrog symplectic map',
  operators: ['KO42-tensioned'],
  unit: 'E',
  summary: 'Symplectic integration (leapfrog, Yoshida order 4/6/8) of a Kepler orbit, oscillator or pendulum; reports energy drift and, with compare, the RK4 drift at the same step.',
  input,
  examples: [
    'Integrate a Kepler orbit with eccentricity 0.6 for 1000 periods with a fourth-order symplectic integrator',
    'Compare leapfrog and RK4 energy drift for an eccentric planetary orbit',
    'How well does a Yoshida 6th order symplectic method conserve energy for a pendulum?',
    'Run a symplectic integrator on a harmonic oscillator with omega 2 and check the energy error',
    'Long-time energy conservation of a two-body orbit with Störmer-Verlet',
    'Show that symplectic integration keeps the energy bounded while Runge-Kutta drifts',
    'Eighth-order Yoshida composition for a nonlinear pendulum released at 2 radians',
    'Hamiltonian mechanics: action-preserving integration of an elliptic orbit with e = 0.9',
    'Velocity Verlet leapfrog for a simple harmonic oscillator over a million steps',
  ],
  vocabulary: [
    'symplectic', 'leapfrog', 'störmer-verlet', 'stormer-verlet', 'verlet', 'yoshida', 'hamiltonian',
    'action', 'kepler', 'orbit', 'eccentricity', 'periapsis', 'energy drift', 'energy conservation',
    'phase space', 'canonical', 'pendulum', 'harmonic oscillator', 'integrator order', 'long-time integration',
    'geometric integration', 'runge-kutta comparison', 'two-body problem',
  ],
};

interface SystemSetup {
  sys: SeparableSystem;
  energy(q: Float64Array, p: Float64Array): number;
  q: Float64Array;
  p: Float64Array;
  /** frequency scale for the stability number */
  omegaScale: number;
  stabilityName: string;
  info: Record<string, unknown>;
}

function setupSystem(inp: ActionInput): SystemSetup {
  const { system } = inp;
  if (system === 'kepler') {
    const mu = inp.mu ?? SYSTEM_DEFAULTS.mu;
    let q: Float64Array, p: Float64Array;
    if (inp.q0 !== undefined || inp.p0 !== undefined) {
      if (!Array.isArray(inp.q0) || !Array.isArray(inp.p0)) {
        throw refuse('INVALID_INPUT', 'kepler takes q0 and p0 together, each an array of 2 numbers (or neither, to build the orbit from eccentricity)');
      }
      q = Float64Array.from(inp.q0); p = Float64Array.from(inp.p0);
      if (Math.hypot(q[0], q[1]) === 0) throw refuse('INVALID_INPUT', 'kepler q0 must not be the origin');
    } else {
      const e = inp.eccentricity ?? SYSTEM_DEFAULTS.eccentricity;
      q = Float64Array.of(1 - e, 0);
      p = Float64Array.of(0, Math.sqrt((mu * (1 + e)) / (1 - e)));
    }
    const sys: SeparableSystem = {
      dim: 2,
      accel(x, out) {
        const r2 = x[0] * x[0] + x[1] * x[1];
        const f = -mu / (r2 * Math.sqrt(r2));
        out[0] = f * x[0];
        out[1] = f * x[1];
      },
    };
    const energy = (x: Float64Array, v: Float64Array) => 0.5 * (v[0] * v[0] + v[1] * v[1]) - mu / Math.sqrt(x[0] * x[0] + x[1] * x[1]);
    const E0 = energy(q, p);
    const L = q[0] * p[1] - q[1] * p[0];
    const eVec = Math.sqrt(Math.max(0, 1 + (2 * E0 * L * L) / (mu * mu)));
    const bound = E0 < 0;
    const a = bound ? -mu / (2 * E0) : Infinity;
    const rMin = bound ? a * (1 - eVec) : (L * L) / (mu * (1 + eVec));
    if (!(rMin > 0)) throw refuse('INVALID_INPUT', 'kepler orbit with zero angular momentum falls into the centre; give a non-radial p0');
    return {
      sys, energy, q, p,
      omegaScale: Math.sqrt(mu / (rMin * rMin * rMin)),
      stabilityName: 'dt*sqrt(mu/r_min^3) at periapsis',
      info: {
        semiMajorAxis: bound ? a : null,
        eccentricity: eVec,
        period: bound ? 2 * Math.PI * Math.sqrt((a * a * a) / mu) : null,
        periapsis: rMin,
      },
    };
  }
  if (Array.isArray(inp.q0) || Array.isArray(inp.p0)) {
    throw refuse('INVALID_INPUT', `${system} takes q0 and p0 as numbers`);
  }
  const q = Float64Array.of((inp.q0 as number | undefined) ?? 1);
  const p = Float64Array.of((inp.p0 as number | undefined) ?? 0);
  if (system === 'oscillator') {
    const omega = inp.omega ?? SYSTEM_DEFAULTS.omega;
    const w2 = omega * omega;
    return {
      sys: { dim: 1, accel(x, out) { out[0] = -w2 * x[0]; } },
      energy: (x, v) => 0.5 * v[0] * v[0] + 0.5 * w2 * x[0] * x[0],
      q, p,
      omegaScale: omega,
      stabilityName: 'dt*omega',
      info: { period: (2 * Math.PI) / omega },
    };
  }
  const lam = inp.lambda ?? SYSTEM_DEFAULTS.lambda;
  return {
    sys: { dim: 1, accel(x, out) { out[0] = -lam * Math.sin(x[0]); } },
    energy: (x, v) => 0.5 * v[0] * v[0] + lam * (1 - Math.cos(x[0])),
    q, p,
    omegaScale: Math.sqrt(lam),
    stabilityName: 'dt*sqrt(lambda) (small-angle frequency)',
    info: { smallAnglePeriod: (2 * Math.PI) / Math.sqrt(lam) },
  };
}

/** sample indices 0 = i_0 < … < i_{n−1} = steps, as evenly as integers allow */
function sampleSteps(steps: number, sample: number): Int32Array {
  const n = Math.min(sample, steps + 1);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round((i * steps) / (n - 1));
  return out;
}

interface Trajectory {
  energy: Float64Array; // at the sample points
  q: Float64Array[];    // per coordinate, at the sample points
  finalEnergy: number;
  maxAbsEnergyError: number;
  finite: boolean;
  angularMomentum?: { initial: number; final: number };
}

function integrateSymplectic(setup: SystemSetup, inp: ActionInput, marks: Int32Array,
  progress: (f: number) => void): Trajectory {
  const { sys, energy } = setup;
  const q = Float64Array.from(setup.q), p = Float64Array.from(setup.p);
  const scheme = splittingScheme(inp.order as SymplecticOrder);
  const ws = symplecticWorkspace(sys.dim);
  return record(setup, q, p, inp.steps, marks, progress, (qq, pp) => symplecticStep(sys, qq, pp, inp.dt, scheme, ws), energy);
}

function integrateRk4(setup: SystemSetup, inp: ActionInput, marks: Int32Array,
  progress: (f: number) => void): Trajectory {
  const { sys, energy } = setup;
  const d = sys.dim;
  const y = new Float64Array(2 * d);
  y.set(setup.q, 0); y.set(setup.p, d);
  const qv = y.subarray(0, d), pv = y.subarray(d);
  const acc = new Float64Array(d);
  const qBuf = new Float64Array(d);
  const f = (_t: number, s: Float64Array, out: Float64Array) => {
    for (let i = 0; i < d; i++) { out[i] = s[d + i]; qBuf[i] = s[i]; }
    sys.accel(qBuf, acc);
    for (let i = 0; i < d; i++) out[d + i] = acc[i];
  };
  const ws = rk4Workspace(2 * d);
  let t = 0;
  return record(setup, qv, pv, inp.steps, marks, progress, () => { rk4Step(f, t, y, inp.dt, ws); t += inp.dt; }, energy);
}

function record(setup: SystemSetup, q: Float64Array, p: Float64Array, steps: number, marks: Int32Array,
  progress: (f: number) => void, step: (q: Float64Array, p: Float64Array) => void,
  energy: (q: Float64Array, p: Float64Array) => number): Trajectory {
  const n = marks.length;
  const E = new Float64Array(n);
  const qs = Array.from({ length: q.length }, () => new Float64Array(n));
  const E0 = energy(q, p);
  const L0 = q.length === 2 ? q[0] * p[1] - q[1] * p[0] : 0;
  let maxErr = 0;
  let next = 0;
  const put = () => {
    const e = energy(q, p);
    E[next] = e;
    for (let i = 0; i < q.length; i++) qs[i][next] = q[i];
    const err = Math.abs(e - E0);
    if (err > maxErr || Number.isNaN(err)) maxErr = err;
    next++;
  };
  put();
  const progressEvery = Math.max(1, Math.floor(steps / 20));
  let finite = true;
  for (let k = 1; k <= steps; k++) {
    step(q, p);
    // the energy error is tracked at every step, so maxEnergyError is the true maximum
    const err = Math.abs(energy(q, p) - E0);
    if (err > maxErr) maxErr = err;
    if (k === marks[next]) {
      put();
      if (!Number.isFinite(E[next - 1])) { finite = false; break; }
    }
    if (k % progressEvery === 0) progress(k / steps);
  }
  const finalEnergy = finite ? energy(q, p) : NaN;
  return {
    energy: E, q: qs, finalEnergy, maxAbsEnergyError: maxErr, finite: finite && Number.isFinite(finalEnergy),
    angularMomentum: q.length === 2 ? { initial: L0, final: q[0] * p[1] - q[1] * p[0] } : undefined,
  };
}

function relative(err: number, scale: number): number {
  return scale > 0 ? err / scale : err;
}

export const run: SolverRun<ActionInput> = (inp, ctx) => {
  const setup = setupSystem(inp);
  const order = inp.order as SymplecticOrder;
  const E0 = setup.energy(setup.q, setup.p);
  const scale = Math.abs(E0);
  const stabNumber = inp.dt * setup.omegaScale;
  const stabLimit = harmonicStabilityLimit(order);
  const stability = {
    number: stabNumber, limit: stabLimit, stable: stabNumber < stabLimit,
    name: `${setup.stabilityName} vs the order-${order} composition's harmonic stability limit`,
  };
  if (inp.system === 'oscillator' && !stability.stable) {
    // on the linear oscillator the limit is exact: the map's eigenvalues leave the unit circle
    throw refuse('UNSTABLE', `dt*omega = ${stabNumber} exceeds the order-${order} stability limit ${stabLimit.toFixed(4)}; the map grows exponentially`, { stability });
  }
  // The engine treats `sample` as its common downsampling field and does not pass it on: then
  // record the maximum (500) and let the engine downsample to the caller's `sample`.
  const marks = sampleSteps(inp.steps, inp.sample ?? 500);
  const compare = inp.compare;
  const progressSym = (f: number) => ctx.progress(compare ? 0.6 * f : f);
  const sym = integrateSymplectic(setup, inp, marks, progressSym);
  const symDrift = relative(Math.abs(sym.finalEnergy - E0), scale);
  if (!sym.finite || !(symDrift <= 1)) {
    throw refuse('UNSTABLE', `the order-${order} integration blew up (relative energy error ${symDrift}); reduce dt`, { stability });
  }
  let rk4: Trajectory | null = null;
  if (compare) rk4 = integrateRk4(setup, inp, marks, (f) => ctx.progress(0.6 + 0.4 * f));

  const rk4Drift = rk4 && rk4.finite ? relative(Math.abs(rk4.finalEnergy - E0), scale) : null;
  const tEnd = inp.steps * inp.dt;
  const series: Record<string, number[]> = { t: Array.from(marks, (k) => k * inp.dt) };
  series.energy = Array.from(sym.energy);
  if (setup.q.length === 2) { series.x = Array.from(sym.q[0]); series.y = Array.from(sym.q[1]); }
  else series.q = Array.from(sym.q[0]);
  if (rk4) series.energyRk4 = Array.from(rk4.energy, (e) => (Number.isFinite(e) ? e : NaN));
  if (rk4 && !rk4.finite) delete series.energyRk4;

  const result: Record<string, unknown> = {
    system: inp.system,
    order,
    steps: inp.steps,
    dt: inp.dt,
    tEnd,
    initialEnergy: E0,
    finalEnergy: sym.finalEnergy,
    energyDrift: symDrift,
    maxEnergyError: relative(sym.maxAbsEnergyError, scale),
    driftIsRelative: scale > 0,
    forceEvaluations: 1 + inp.steps * splittingScheme(order).drift.length,
    ...setup.info,
  };
  if (setup.info.period) result.periods = tEnd / (setup.info.period as number);
  if (sym.angularMomentum) {
    const { initial, final } = sym.angularMomentum;
    result.angularMomentumDrift = relative(Math.abs(final - initial), Math.abs(initial));
  }
  if (rk4) {
    result.rk4Drift = rk4Drift;
    result.rk4MaxEnergyError = rk4.finite ? relative(rk4.maxAbsEnergyError, scale) : null;
    result.rk4BlewUp = !rk4.finite;
    result.rk4FinalEnergy = rk4.finite ? rk4.finalEnergy : null;
    if (rk4Drift !== null && rk4Drift > 0) result.driftRatio = symDrift / rk4Drift;
  }
  const errorPct = 100 * symDrift;
  const out: SolverOutput = {
    value: sym.finalEnergy,
    result,
    precision: precisionOf({
      errorPct,
      reference: 'initial energy (conserved by the exact flow)',
      referenceValue: E0,
    }),
    series,
    stability,
    method: order === 2 ? 'leapfrog' : `yoshida-${order}`,
  };
  return out;
};
