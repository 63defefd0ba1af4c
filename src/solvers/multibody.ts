// multibody: HULYAS-type master field for N = 2..16 bodies, integrated with the classical RK4
// (Hairer, Nørsett & Wanner, "Solving ODEs I", §II.1; lib/ode.ts). Two regimes:
//
// gravity      every body has a position: Newtonian gravity with Plummer softening ε
//              (Aarseth, "Gravitational N-Body Simulations", §2.2),
//                a_i = Σ_j G·m_j·(r_j − r_i) / (|r_j − r_i|² + ε²)^{3/2},
//                U = −Σ_{i<j} G·m_i·m_j / √(|r_ij|² + ε²),   G = 6.674e-11.
//              Total energy and momentum are conserved by the flow; their drifts measure the
//              integration error. With two bodies the orbital period is measured (the unwrapped
//              angle of the relative vector, located by cubic Hermite interpolation between steps)
//              and compared with Kepler's third law T = 2π·√(a³/(G(m1 + m2))), a = −G·m1·m2/(2E).
// oscillators  otherwise: coupled master-field oscillators φ_i (each body a 1 m pendulum at its
//              location's buoyant gravity, Ω_i² = g′_i/ℓ) joined by springs,
//                m_i·φ_i'' = −m_i·Ω_i²·(1 + κ(t))·φ_i − Σ_j K_ij·(φ_i − φ_j),
//                K_ij = pairwiseCoupling·(m_i·Ω_i² + m_j·Ω_j²)/2,
//              with the KO42-tensioned modulation κ(t) of solve.ts (alpha, beta, koSettings). The
//              Hamiltonian H(t) is then explicitly time dependent; the work W = ∫ ∂H/∂t dt and the
//              impulse J of the on-site forces are integrated alongside the state, so H − W and
//              P − J are exact invariants whose drifts measure the integration error.
// Stability: RK4 is stable for oscillatory motion while dt·ω < 2√2; ω is the fastest pair rate
// √(G(m_i + m_j)/r³) seen along the run (gravity) or a Gershgorin bound on the normal-mode
// frequencies (oscillators). A run that produces non-finite numbers is refused as UNSTABLE.
import { z } from 'zod';
import { refuse } from '../core/errors.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { rk4Step, rk4Workspace } from './lib/ode.ts';
import { Modulation, buoyantGravity, operatorWeights, type LocationName, type MediumName } from './solve.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect, sent, withDefaults } from './lib/no-effect.ts';

export const G_NEWTON = 6.674e-11;
const PENDULUM_LENGTH = 1;
const RK4_IMAG_LIMIT = 2 * Math.SQRT2;
const MAX_STEPS = 1_000_000;
const MAX_PAIR_STEPS = 60_000_000;
const BOUND_PCT = 0.1;

const vector = z.array(z.number().min(-1e30).max(1e30)).min(2).max(3);

const body = z.strictObject({
  mass: z.number().positive().max(1e40).describe('kg'),
  location: z.enum(['earth', 'mars', 'moon', 'jupiter', 'sun']).optional().describe('oscillator mode only: where the pendulum hangs (default earth)'),
  medium: z.enum(['air', 'water', 'vacuum']).optional().describe('oscillator mode only: the medium, for buoyancy (default air)'),
  object: z.string().max(200).optional().describe('a label, kept in the receipt'),
  /** oscillator mode: initial field value (default 1 for the first body, 0 for the others) */
  phi0: z.number().min(-1e12).max(1e12).optional().describe('oscillator mode only: initial field value (default 1 for the first body, 0 for the others)'),
  /** oscillator mode: initial field rate (default 0) */
  dphi0: z.number().min(-1e12).max(1e12).optional().describe('oscillator mode only: initial field rate (default 0)'),
  /** metres; [x, y] or [x, y, z] */
  position: vector.optional().describe('metres, [x, y] or [x, y, z]; a position on every body selects gravity mode (a position on only some of them is refused)'),
  /** m/s; [vx, vy] or [vx, vy, vz]; gravity mode only (default at rest) */
  velocity: vector.optional().describe('m/s, [vx, vy] or [vx, vy, vz]; gravity mode only (default at rest)'),
});

/** fields of one regime, filled in after the checks (which must see what the caller sent: a field
 * of the other regime is a 400, DESIGN §9) */
const OSCILLATOR_DEFAULTS = { alpha: 1, beta: 0, pairwiseCoupling: 0.05, useOperatorModules: true, normalizeOperators: true, coreOnly: false };
const GRAVITY_DEFAULTS = { pairwiseSoftening: 1e-6 };
const GRAVITY_WHY = 'in gravity mode (every body has a position): it belongs to the coupled oscillators';

const input = z.strictObject({
  prompt: z.string().min(1).max(500).describe('what is simulated, in words (kept in the receipt)'),
  bodies: z.array(body).min(2).max(16).describe('2 to 16 bodies; a position on every body selects Newtonian gravity, none the coupled master-field oscillators'),
  alpha: z.number().min(-1e9).max(1e9).optional().describe('oscillator mode only: KO42 modulation amplitude scale (default 1)'),
  beta: z.number().min(-1e9).max(1e9).optional().describe('oscillator mode only: constant part of the modulation κ (default 0)'),
  koSettings: z.record(z.string().max(80), z.number().min(-1e9).max(1e9)).optional().describe('oscillator mode only: operator weights (KO42 core and modules)'),
  /** seconds; default 10 s (oscillators) or one period of the tightest pair (gravity) */
  tMax: z.number().positive().max(1e18).optional(),
  /** seconds; default 0.01 s (oscillators) or 1/2000 of the tightest pair's period (gravity) */
  dt: z.number().positive().max(1e16).optional(),
  pairwiseCoupling: z.number().min(0).max(1e6).optional().describe('oscillator mode only: spring coupling between the oscillators (default 0.05)'),
  pairwiseSoftening: z.number().min(0).max(1e30).optional().describe('gravity mode only: Plummer softening length ε in metres (default 1e-6)'),
  useOperatorModules: z.boolean().optional().describe('oscillator mode only: use the koSettings modules (default true)'),
  normalizeOperators: z.boolean().optional().describe('oscillator mode only: divide the operator weights by Σ|w| (default true)'),
  coreOnly: z.boolean().optional().describe('oscillator mode only: the KO42 core alone, modules dropped (default false)'),
}).superRefine((v, ctx) => {
  const placed = v.bodies.filter((b) => b.position !== undefined).length;
  if (placed === v.bodies.length) {
    for (const k of sent(v, ['alpha', 'beta', 'koSettings', 'pairwiseCoupling', 'useOperatorModules', 'normalizeOperators', 'coreOnly'])) noEffect(ctx, k, GRAVITY_WHY);
    v.bodies.forEach((b, i) => {
      for (const k of sent(b, ['location', 'medium', 'phi0', 'dphi0'])) noEffect(ctx, `bodies.${i}.${k}`, GRAVITY_WHY);
    });
    return;
  }
  const why = placed ? `unless every body has a position (gravity mode); ${v.bodies.length - placed} of ${v.bodies.length} have none, so these are coupled oscillators` : 'in oscillator mode (no body has a position): it belongs to gravity mode';
  if (v.pairwiseSoftening !== undefined) noEffect(ctx, 'pairwiseSoftening', why);
  v.bodies.forEach((b, i) => {
    for (const k of sent(b, ['position', 'velocity'])) noEffect(ctx, `bodies.${i}.${k}`, why);
  });
}).overwrite(withDefaults((v) => (v.bodies.every((b) => b.position !== undefined) ? GRAVITY_DEFAULTS : OSCILLATOR_DEFAULTS)));

export type MultibodyInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'multibody',
  domain: 'HULYAS-type Master Field (N-body)',
  method: 'rk4-nbody',
  methodDescription: 'RK4; pairwise gravity when positions are supplied',
  operators: ['KO42-tensioned'],
  unit: 'J',
  summary: 'N-body (2-16) RK4: Newtonian gravity with softening when every body has a position (energy, momentum drift, Kepler period check), otherwise coupled master-field oscillators.',
  input,
  examples: [
    'Simulate the Earth and the Moon orbiting each other and check the period against Kepler\'s third law',
    'Three-body gravitational problem with given positions and velocities: total energy and momentum drift',
    'Two stars in an eccentric binary orbit, one full period, energy conservation',
    'Coupled pendulums on Earth and Mars exchanging energy through a weak spring',
    'N-body simulation of 5 masses attracting each other with softening 1 metre',
    'Couple 4 master-field oscillators with pairwise coupling 0.2 and report the total energy',
    'Sun, Earth and Jupiter: integrate one year of Newtonian gravity',
    'How much does the total momentum drift in a 10-body gravitational cluster?',
    'Beating between two coupled oscillators of equal mass started from phi0 = 1 and 0',
  ],
  vocabulary: [
    'n-body', 'nbody', 'multibody', 'multi-body', 'many bodies', 'two-body', 'three-body', 'orbit', 'orbits', 'kepler',
    'period', 'gravitation', 'newtonian gravity', 'softening', 'binary', 'planets', 'moon', 'momentum', 'total energy',
    'coupled oscillators', 'coupled pendulums', 'pairwise coupling', 'hulyas', 'master field', 'cluster', 'bodies',
  ],
};

type Body = MultibodyInput['bodies'][number];

function toVec3(v: number[] | undefined): [number, number, number] {
  if (!v) return [0, 0, 0];
  return [v[0], v[1], v.length > 2 ? v[2] : 0];
}

function stepCount(tMax: number, dt: number, pairs: number): number {
  const steps = Math.ceil(tMax / dt - 1e-9);
  if (!(steps >= 1)) throw refuse('INVALID_INPUT', 'tMax/dt must give at least one step');
  if (steps > MAX_STEPS) throw refuse('INVALID_INPUT', `tMax/dt = ${steps} steps exceeds the limit of ${MAX_STEPS}; raise dt or lower tMax`, { steps, maxSteps: MAX_STEPS });
  if (steps * pairs > MAX_PAIR_STEPS) throw refuse('INVALID_INPUT', `steps x pairs = ${steps * pairs} exceeds the limit of ${MAX_PAIR_STEPS}; raise dt or lower tMax`, { steps, pairs, maxPairSteps: MAX_PAIR_STEPS });
  return steps;
}

/** sample indices, at most 501 of them, always including 0 and `steps` */
function sampleMarks(steps: number): Int32Array {
  const n = Math.min(501, steps + 1);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round((i * steps) / (n - 1));
  return out;
}

// ---- gravity --------------------------------------------------------------------------------

function runGravity(inp: MultibodyInput, progress: (f: number) => void): SolverOutput {
  const bodies = inp.bodies;
  const N = bodies.length;
  const softening = inp.pairwiseSoftening ?? GRAVITY_DEFAULTS.pairwiseSoftening;
  const eps2 = softening * softening;
  const mass = Float64Array.from(bodies, (b) => b.mass);
  const y = new Float64Array(6 * N); // [x y z] for all bodies, then [vx vy vz] for all bodies
  const dim3 = bodies.some((b) => (b.position?.length ?? 2) === 3 || (b.velocity?.length ?? 2) === 3);
  bodies.forEach((b, i) => {
    const p = toVec3(b.position), v = toVec3(b.velocity);
    y.set(p, 3 * i);
    y.set(v, 3 * N + 3 * i);
  });
  for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) {
    const dx = y[3 * j] - y[3 * i], dy = y[3 * j + 1] - y[3 * i + 1], dz = y[3 * j + 2] - y[3 * i + 2];
    if (dx * dx + dy * dy + dz * dz + eps2 === 0) {
      throw refuse('INVALID_INPUT', `bodies ${i} and ${j} share a position and pairwiseSoftening is 0: the force is infinite`);
    }
  }
  // fastest pair time and default step
  let minTau = Infinity;
  for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) {
    const dx = y[3 * j] - y[3 * i], dy = y[3 * j + 1] - y[3 * i + 1], dz = y[3 * j + 2] - y[3 * i + 2];
    const r2 = dx * dx + dy * dy + dz * dz + eps2;
    const tau = Math.sqrt((r2 * Math.sqrt(r2)) / (G_NEWTON * (mass[i] + mass[j])));
    if (tau < minTau) minTau = tau;
  }
  const pairPeriod = 2 * Math.PI * minTau;
  const tMax = inp.tMax ?? pairPeriod;
  const dt = inp.dt ?? pairPeriod / 2000;
  const pairs = (N * (N - 1)) / 2;
  const steps = stepCount(tMax, dt, pairs);
  const h = tMax / steps;

  const deriv = (_t: number, s: Float64Array, out: Float64Array) => {
    const off = 3 * N;
    for (let k = 0; k < off; k++) { out[k] = s[off + k]; out[off + k] = 0; }
    for (let i = 0; i < N; i++) {
      const xi = s[3 * i], yi = s[3 * i + 1], zi = s[3 * i + 2];
      for (let j = i + 1; j < N; j++) {
        const dx = s[3 * j] - xi, dy = s[3 * j + 1] - yi, dz = s[3 * j + 2] - zi;
        const r2 = dx * dx + dy * dy + dz * dz + eps2;
        const inv3 = G_NEWTON / (r2 * Math.sqrt(r2));
        const fi = mass[j] * inv3, fj = mass[i] * inv3;
        out[off + 3 * i] += fi * dx; out[off + 3 * i + 1] += fi * dy; out[off + 3 * i + 2] += fi * dz;
        out[off + 3 * j] -= fj * dx; out[off + 3 * j + 1] -= fj * dy; out[off + 3 * j + 2] -= fj * dz;
      }
    }
  };
  const energyOf = (s: Float64Array) => {
    let K = 0, U = 0;
    const off = 3 * N;
    for (let i = 0; i < N; i++) {
      const vx = s[off + 3 * i], vy = s[off + 3 * i + 1], vz = s[off + 3 * i + 2];
      K += 0.5 * mass[i] * (vx * vx + vy * vy + vz * vz);
      for (let j = i + 1; j < N; j++) {
        const dx = s[3 * j] - s[3 * i], dy = s[3 * j + 1] - s[3 * i + 1], dz = s[3 * j + 2] - s[3 * i + 2];
        U -= (G_NEWTON * mass[i] * mass[j]) / Math.sqrt(dx * dx + dy * dy + dz * dz + eps2);
      }
    }
    return { K, U, E: K + U };
  };
  const momentumOf = (s: Float64Array, out: Float64Array) => {
    out.fill(0);
    let scale = 0;
    for (let i = 0; i < N; i++) {
      const o = 3 * N + 3 * i;
      out[0] += mass[i] * s[o]; out[1] += mass[i] * s[o + 1]; out[2] += mass[i] * s[o + 2];
      scale += mass[i] * Math.hypot(s[o], s[o + 1], s[o + 2]);
    }
    return scale;
  };
  const maxPairRate = (s: Float64Array) => {
    let w = 0;
    for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) {
      const dx = s[3 * j] - s[3 * i], dy = s[3 * j + 1] - s[3 * i + 1], dz = s[3 * j + 2] - s[3 * i + 2];
      const r2 = dx * dx + dy * dy + dz * dz + eps2;
      const rate = Math.sqrt((G_NEWTON * (mass[i] + mass[j])) / (r2 * Math.sqrt(r2)));
      if (rate > w) w = rate;
    }
    return w;
  };

  const e0 = energyOf(y);
  const P0 = new Float64Array(3), P1 = new Float64Array(3);
  const pScale0 = momentumOf(y, P0);

  // two-body Kepler bookkeeping: the relative orbit's plane and angle
  const kepler = N === 2 ? keplerTracker(y, mass, e0.E, eps2) : null;

  const marks = sampleMarks(steps);
  const series: Record<string, number[]> = { t: [], energy: [] };
  const coords = dim3 ? ['x', 'y', 'z'] : ['x', 'y'];
  for (let i = 0; i < N; i++) for (const c of coords) series[`${c}${i}`] = [];
  let next = 0;
  const sample = (k: number) => {
    series.t.push(k * h);
    series.energy.push(energyOf(y).E);
    for (let i = 0; i < N; i++) coords.forEach((c, d) => series[`${c}${i}`].push(y[3 * i + d]));
  };
  sample(0); next = 1;
  const ws = rk4Workspace(6 * N);
  let rateMax = maxPairRate(y);
  const progressEvery = Math.max(1, Math.floor(steps / 50));
  for (let k = 1; k <= steps; k++) {
    rk4Step(deriv, (k - 1) * h, y, h, ws);
    if (kepler) kepler.observe(y, k * h, h);
    if (k === marks[next]) {
      sample(k); next++;
      const r = maxPairRate(y);
      if (r > rateMax) rateMax = r;
      if (!Number.isFinite(series.energy[series.energy.length - 1])) {
        throw refuse('UNSTABLE', `the N-body integration blew up near t = ${k * h} s (close encounter); reduce dt or raise pairwiseSoftening`,
          { stability: { number: h * rateMax, limit: RK4_IMAG_LIMIT, stable: false } });
      }
    }
    if (k % progressEvery === 0) progress(k / steps);
  }
  const e1 = energyOf(y);
  const pScale1 = momentumOf(y, P1);
  const energyDrift = Math.abs(e1.E - e0.E) / (Math.abs(e0.E) > 0 ? Math.abs(e0.E) : e0.K - e0.U);
  const dP = Math.hypot(P1[0] - P0[0], P1[1] - P0[1], P1[2] - P0[2]);
  const pScale = Math.max(pScale0, pScale1);
  const momentumDrift = pScale > 0 ? dP / pScale : dP;
  const stabNumber = h * rateMax;
  const stability = { number: stabNumber, limit: RK4_IMAG_LIMIT, stable: stabNumber < RK4_IMAG_LIMIT, name: 'dt*max sqrt(G(m_i+m_j)/r_ij^3) along the run vs the RK4 imaginary-axis limit' };
  const keplerResult = kepler ? kepler.result() : null;
  let errorPct = 100 * energyDrift;
  let reference = 'initial total energy (conserved by the flow)';
  if (keplerResult && keplerResult.periodErrorPct !== null) {
    errorPct = Math.max(errorPct, keplerResult.periodErrorPct);
    reference = 'initial total energy, and Kepler\'s third law T = 2*pi*sqrt(a^3/(G(m1+m2))) for the measured period';
  }
  return {
    value: e1.E,
    result: {
      mode: 'gravity',
      bodies: N,
      G: G_NEWTON,
      softening,
      tMax, dt: h, steps,
      initialEnergy: e0.E,
      finalEnergy: e1.E,
      kineticEnergy: e1.K,
      potentialEnergy: e1.U,
      energyDrift,
      momentumDrift,
      momentumDriftAbs: dP,
      initialMomentum: Array.from(P0),
      finalMomentum: Array.from(P1),
      kepler: keplerResult,
      modulation: { applied: false, reason: 'gravity mode integrates real Newtonian gravity; the KO42 modulation enters only the seal' },
      positions: Array.from({ length: N }, (_, i) => Array.from(y.subarray(3 * i, 3 * i + (dim3 ? 3 : 2)))),
      velocities: Array.from({ length: N }, (_, i) => Array.from(y.subarray(3 * N + 3 * i, 3 * N + 3 * i + (dim3 ? 3 : 2)))),
    },
    precision: precisionOf({
      errorPct,
      boundPct: BOUND_PCT,
      reference,
      referenceValue: e0.E,
    }),
    series,
    stability,
    method: 'rk4-gravity',
  };
}

interface KeplerTracker {
  observe(y: Float64Array, t: number, h: number): void;
  result(): Record<string, unknown> & { periodErrorPct: number | null };
}

/** Follows the unwrapped angle of r = r2 − r1 in its orbital plane and times the first full turn. */
function keplerTracker(y: Float64Array, mass: Float64Array, E: number, eps2: number): KeplerTracker {
  const rel = (s: Float64Array, out: Float64Array) => {
    for (let d = 0; d < 3; d++) { out[d] = s[3 + d] - s[d]; out[3 + d] = s[9 + d] - s[6 + d]; }
  };
  const rv = new Float64Array(6);
  rel(y, rv);
  const mu = G_NEWTON * (mass[0] + mass[1]);
  const r0 = Math.hypot(rv[0], rv[1], rv[2]);
  const Lx = rv[1] * rv[5] - rv[2] * rv[4], Ly = rv[2] * rv[3] - rv[0] * rv[5], Lz = rv[0] * rv[4] - rv[1] * rv[3];
  const L = Math.hypot(Lx, Ly, Lz);
  // a from the two-body energy (centre-of-mass kinetic energy removed)
  const M = mass[0] + mass[1];
  const vcm2 = ((mass[0] * y[6] + mass[1] * y[9]) ** 2 + (mass[0] * y[7] + mass[1] * y[10]) ** 2 + (mass[0] * y[8] + mass[1] * y[11]) ** 2) / (M * M);
  const reduced = (mass[0] * mass[1]) / M;
  const eRel = E - 0.5 * M * vcm2; // = ½μ_red v² − G m1 m2/r (unsoftened up to ε)
  const bound = eRel < 0 && L > 0;
  const a = bound ? (-G_NEWTON * mass[0] * mass[1]) / (2 * eRel) : null;
  const periodKepler = a !== null ? 2 * Math.PI * Math.sqrt((a * a * a) / mu) : null;
  const specificEnergy = eRel / reduced;
  const ecc = L > 0 ? Math.sqrt(Math.max(0, 1 + (2 * specificEnergy * L * L) / (mu * mu))) : 1;
  if (!bound) {
    return {
      observe() {},
      result: () => ({ bound: false, semiMajorAxis: null, eccentricity: ecc, periodKepler: null, periodMeasured: null, periodErrorPct: null }),
    };
  }
  const e1 = [rv[0] / r0, rv[1] / r0, rv[2] / r0];
  const n = [Lx / L, Ly / L, Lz / L];
  const e2 = [n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]];
  const angle = (v: Float64Array) => Math.atan2(v[0] * e2[0] + v[1] * e2[1] + v[2] * e2[2], v[0] * e1[0] + v[1] * e1[1] + v[2] * e1[2]);
  const rate = (v: Float64Array) => {
    const cx = v[1] * v[5] - v[2] * v[4], cy = v[2] * v[3] - v[0] * v[5], cz = v[0] * v[4] - v[1] * v[3];
    const r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    return (cx * n[0] + cy * n[1] + cz * n[2]) / r2;
  };
  let theta = 0, raw = 0, thetaRate = rate(rv);
  let periodMeasured: number | null = null;
  const sense = Math.sign(thetaRate) || 1;
  return {
    observe(s, t, h) {
      if (periodMeasured !== null) return;
      rel(s, rv);
      const a1 = angle(rv);
      let d = a1 - raw;
      if (d > Math.PI) d -= 2 * Math.PI; else if (d < -Math.PI) d += 2 * Math.PI;
      raw = a1;
      const thPrev = theta, ratePrev = thetaRate;
      theta += d;
      thetaRate = rate(rv);
      const target = 2 * Math.PI * sense;
      if ((theta - target) * sense >= 0) {
        // cubic Hermite on [t − h, t] through (θ, θ') at both ends; solve θ(τ) = 2π by bisection
        const p0 = thPrev, p1 = theta, m0 = ratePrev * h, m1 = thetaRate * h;
        const H = (u: number) => {
          const u2 = u * u, u3 = u2 * u;
          return (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1;
        };
        let lo = 0, hi = 1;
        for (let i = 0; i < 60; i++) {
          const mid = 0.5 * (lo + hi);
          if ((H(mid) - target) * sense >= 0) hi = mid; else lo = mid;
        }
        periodMeasured = t - h + 0.5 * (lo + hi) * h;
      }
    },
    result() {
      const err = periodMeasured !== null && periodKepler !== null ? (100 * Math.abs(periodMeasured - periodKepler)) / periodKepler : null;
      return {
        bound: true, semiMajorAxis: a, eccentricity: ecc, periodKepler, periodMeasured,
        periodErrorPct: err,
        note: periodMeasured === null ? 'tMax shorter than one orbit: no period measured' : undefined,
        softeningNote: eps2 > 0 ? 'Kepler period uses the unsoftened law; softening shifts it by O(eps^2/a^2)' : undefined,
      };
    },
  };
}

// ---- coupled master-field oscillators ------------------------------------------------------

function runOscillators(inp: MultibodyInput, progress: (f: number) => void): SolverOutput {
  const d = OSCILLATOR_DEFAULTS;
  const o = {
    alpha: inp.alpha ?? d.alpha, beta: inp.beta ?? d.beta, useOperatorModules: inp.useOperatorModules ?? d.useOperatorModules,
    normalizeOperators: inp.normalizeOperators ?? d.normalizeOperators, coreOnly: inp.coreOnly ?? d.coreOnly,
  };
  const coupling = inp.pairwiseCoupling ?? d.pairwiseCoupling;
  const bodies = inp.bodies;
  const N = bodies.length;
  const mass = Float64Array.from(bodies, (b) => b.mass);
  const omega2 = Float64Array.from(bodies, (b: Body) =>
    buoyantGravity((b.location ?? 'earth') as LocationName, (b.medium ?? 'air') as MediumName) / PENDULUM_LENGTH);
  const K = new Float64Array(N * N);
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) {
    if (i !== j) K[i * N + j] = coupling * 0.5 * (mass[i] * omega2[i] + mass[j] * omega2[j]);
  }
  const ow = operatorWeights(inp.koSettings, { useOperatorModules: o.useOperatorModules, normalizeOperators: o.normalizeOperators, coreOnly: o.coreOnly });
  const mod = new Modulation(o.alpha, o.beta, ow.weights, 1);
  const tMax = inp.tMax ?? 10;
  const dt = inp.dt ?? 0.01;
  const steps = stepCount(tMax, dt, (N * (N - 1)) / 2);
  const h = tMax / steps;

  // y = [φ_0..φ_{N−1}, φ'_0..φ'_{N−1}, W, J]
  const y = new Float64Array(2 * N + 2);
  bodies.forEach((b, i) => { y[i] = b.phi0 ?? (i === 0 ? 1 : 0); y[N + i] = b.dphi0 ?? 0; });
  const deriv = (t: number, s: Float64Array, out: Float64Array) => {
    const kap = mod.kappa(t), kapRate = mod.kappaRate(t);
    let work = 0, impulse = 0;
    for (let i = 0; i < N; i++) {
      const phi = s[i];
      const onsite = -mass[i] * omega2[i] * (1 + kap) * phi;
      let force = onsite;
      for (let j = 0; j < N; j++) if (j !== i) force -= K[i * N + j] * (phi - s[j]);
      out[i] = s[N + i];
      out[N + i] = force / mass[i];
      work += 0.5 * mass[i] * omega2[i] * kapRate * phi * phi;
      impulse += onsite;
    }
    out[2 * N] = work;
    out[2 * N + 1] = impulse;
  };
  const hamiltonian = (s: Float64Array, t: number) => {
    const kap = mod.kappa(t);
    let H = 0;
    for (let i = 0; i < N; i++) {
      const v = s[N + i], phi = s[i];
      H += 0.5 * mass[i] * v * v + 0.5 * mass[i] * omega2[i] * (1 + kap) * phi * phi;
      for (let j = i + 1; j < N; j++) H += 0.5 * K[i * N + j] * (phi - s[j]) ** 2;
    }
    return H;
  };
  const momentum = (s: Float64Array) => { let P = 0, scale = 0; for (let i = 0; i < N; i++) { P += mass[i] * s[N + i]; scale += mass[i] * Math.abs(s[N + i]); } return { P, scale }; };

  // stability: Gershgorin bound on the largest normal-mode frequency², with the largest |1 + κ|
  const kapMax = Math.abs(mod.beta) + mod.oscillation();
  let w2max = 0;
  for (let i = 0; i < N; i++) {
    let row = omega2[i] * (1 + kapMax);
    for (let j = 0; j < N; j++) if (j !== i) row += (2 * K[i * N + j]) / mass[i];
    if (row > w2max) w2max = row;
  }
  const stabNumber = h * Math.sqrt(w2max);
  const stability = { number: stabNumber, limit: RK4_IMAG_LIMIT, stable: stabNumber < RK4_IMAG_LIMIT, name: 'dt*sqrt(Gershgorin bound on the normal-mode frequency^2) vs the RK4 imaginary-axis limit' };
  if (!stability.stable) throw refuse('UNSTABLE', `RK4 step outside its stability region: dt*omega_max = ${stabNumber}`, { stability });

  const H0 = hamiltonian(y, 0);
  const p0 = momentum(y);
  const marks = sampleMarks(steps);
  const series: Record<string, number[]> = { t: [], energy: [] };
  for (let i = 0; i < N; i++) series[`phi${i}`] = [];
  let next = 0;
  const sample = (k: number) => {
    series.t.push(k * h);
    series.energy.push(hamiltonian(y, k * h));
    for (let i = 0; i < N; i++) series[`phi${i}`].push(y[i]);
  };
  sample(0); next = 1;
  const ws = rk4Workspace(2 * N + 2);
  const progressEvery = Math.max(1, Math.floor(steps / 50));
  for (let k = 1; k <= steps; k++) {
    rk4Step(deriv, (k - 1) * h, y, h, ws);
    if (k === marks[next]) {
      sample(k); next++;
      if (!Number.isFinite(series.energy[series.energy.length - 1])) {
        throw refuse('UNSTABLE', `the oscillator integration blew up near t = ${k * h} s`, { stability });
      }
    }
    if (k % progressEvery === 0) progress(k / steps);
  }
  const H1 = hamiltonian(y, steps * h);
  const W = y[2 * N], J = y[2 * N + 1];
  const p1 = momentum(y);
  const invariantErr = Math.abs(H1 - W - H0);
  const eScale = Math.max(Math.abs(H0), Math.abs(H1));
  const energyDrift = eScale > 0 ? invariantErr / eScale : invariantErr;
  const pErr = Math.abs(p1.P - p0.P - J);
  const pScale = Math.max(p0.scale, p1.scale, Math.abs(J));
  const momentumDrift = pScale > 0 ? pErr / pScale : pErr;
  const errorPct = 100 * energyDrift;
  const weights: Record<string, number> = {};
  ow.ids.forEach((id, i) => { weights[id] = ow.weights[i]; });
  return {
    value: H1,
    result: {
      mode: 'oscillators',
      bodies: N,
      tMax, dt: h, steps,
      initialEnergy: H0,
      finalEnergy: H1,
      modulationWork: W,
      energyDrift,
      energyDriftNote: 'drift of the invariant H - W (W = work of the explicit time dependence of the KO42 modulation)',
      onsiteImpulse: J,
      momentumDrift,
      momentumNote: 'drift of P - J (J = impulse of the on-site forces; the pairwise springs conserve P)',
      omega: Array.from(omega2, Math.sqrt),
      pairwiseCoupling: coupling,
      couplingStiffness: Array.from({ length: N }, (_, i) => Array.from(K.subarray(i * N, i * N + N))),
      phi: Array.from(y.subarray(0, N)),
      dphi: Array.from(y.subarray(N, 2 * N)),
      modulation: { applied: true, alpha: o.alpha, beta: o.beta, weights, ignoredOperators: ow.ignored },
    },
    precision: precisionOf({
      errorPct,
      boundPct: BOUND_PCT,
      reference: 'initial energy through the exact balance H(t) - W(t) = H(0)',
      referenceValue: H0,
    }),
    series,
    stability,
    method: 'rk4-coupled-oscillators',
  };
}

export const run: SolverRun<MultibodyInput> = (inp, ctx) => {
  const gravity = inp.bodies.every((b) => b.position !== undefined);
  return gravity ? runGravity(inp, ctx.progress) : runOscillators(inp, ctx.progress);
};
