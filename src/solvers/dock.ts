// dock: rigid-ligand docking in six degrees of freedom against a built-in receptor.
//
// Energy (reduced units: lengths in σ, energies in ε, Coulomb constant 1): for ligand atoms a at
// x_a and receptor sites r,
//   E = Σ_a Σ_r 4ε_ar[(σ_ar/d)^12 − (σ_ar/d)^6] + q_a·q_r/d,   d = |x_a − y_r|,
// with Lorentz-Berthelot mixing σ_ar = (σ_a + σ_r)/2, ε_ar = √(ε_a·ε_r). The ligand is rigid
// (its internal energy is constant and left out); its pose is a translation t and a unit
// quaternion q, x_a = t + R(q)·b_a with body coordinates b_a.
// Method: multi-start basin hopping (Li & Scheraga, PNAS 84, 6611 (1987); Wales & Doye,
// J. Phys. Chem. A 101, 5111 (1997)), the Monte Carlo-plus-local-search family of AutoDock Vina
// (Trott & Olson, J. Comput. Chem. 31, 455 (2010)). Each of `restarts` chains starts from t
// uniform in the receptor's box and q uniform on SO(3) (Shoemake, "Uniform random rotations",
// Graphics Gems III, 1992) and makes `iters` basin-hopping steps: a random displacement (uniform
// in a ball of 1 σ) and rotation (random axis, angle up to 1 rad), a local minimisation, and a
// Metropolis test at kT = 0.5 ε. The local minimiser is BFGS (Nocedal & Wright, Alg. 6.1, at
// most 200 iterations) in the 6-D tangent space of the pose: gradient (Σ_a ∇V_a,
// Σ_a (R·b_a) × ∇V_a) (force and torque), steps (δt, ω) applied as t += δt, q ← exp(ω/2)·q,
// with Armijo backtracking and each step capped at 0.25 σ and 0.25 rad.
// No stability condition: every accepted step lowers E.
//
// The built-in test complex is constructed so that its exact global minimum is known without
// any 6-D search. E(pose) = Σ_a V_a(x_a), where V_a is the receptor's field felt by atom a alone,
// so E >= Σ_a min_x V_a(x) for every pose. The ligand's body geometry is built from the three
// per-atom minimisers p_a (each found by an exhaustive 3-D grid search plus BFGS refinement),
// so the pose that puts every atom on its own minimiser attains the bound: E* = Σ_a min V_a is
// the exact global minimum. `precision` compares the docked energy with E*.
import { z } from 'zod';
import type { SolverDescriptor, SolverRun } from './types.ts';
import { createRng } from './lib/rng.ts';
import { precisionOf } from './lib/precision.ts';

const DEFAULT_RESTARTS = 20;
const DEFAULT_ITERS = 30;

export const descriptor: SolverDescriptor = {
  name: 'dock',
  domain: 'Molecular Docking',
  method: 'multistart-bfgs',
  methodDescription: 'global optimization over 6 DOF (translation plus unit quaternion), Lennard-Jones plus Coulomb energy, multi-start BFGS',
  operators: ['KO42', 'BINDING_AFFINITY'],
  unit: 'epsilon',
  summary: 'Docks a rigid three-atom ligand into a built-in receptor pocket over 6 degrees of freedom (translation and unit-quaternion rotation) with a Lennard-Jones plus Coulomb energy and multi-start local optimisation; the test complex\'s exact global minimum is known by construction.',
  input: z.strictObject({
    restarts: z.number().int().min(1).max(200).default(DEFAULT_RESTARTS).describe('independent random starts (1 to 200)'),
    iters: z.number().int().min(1).max(100).default(DEFAULT_ITERS).describe('basin-hopping steps per start (1 to 100), each a BFGS local minimisation'),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('seed of the random starts (default: derived from the input)'),
  }),
  examples: [
    'dock a small ligand into the receptor binding pocket',
    'find the lowest binding energy pose of a rigid molecule',
    'protein ligand docking with Lennard-Jones and electrostatics',
    'molecular docking with 100 random restarts',
    'estimate binding affinity by searching translations and rotations',
    'where does the drug molecule bind, best pose and energy',
    'rigid body docking over six degrees of freedom with quaternions',
    'virtual screening style pose search, seed 3',
    'how strongly does the ligand bind to the pocket',
  ],
  vocabulary: [
    'dock', 'docking', 'ligand', 'receptor', 'protein', 'pocket', 'binding', 'binding site', 'binding affinity',
    'affinity', 'pose', 'drug', 'molecule', 'molecular', 'lennard-jones', 'lennard jones', 'coulomb', 'electrostatic',
    'electrostatics', 'van der waals', 'rigid body', 'quaternion', 'rotation', 'six degrees of freedom',
    '6 dof', 'vina', 'autodock', 'screening', 'inhibitor', 'complex',
  ],
};

// ---------------------------------------------------------------------------------------------
// The built-in receptor: a cup of 15 Lennard-Jones sites (radius ≈ 3 σ, open towards +z) with
// its positions perturbed by a fixed seed so no two hollows are symmetric, two negative sites on
// the +x side and two positive sites on the −x side (net charge zero).

export interface Site { x: number; y: number; z: number; sigma: number; eps: number; q: number }

function buildReceptor(): Site[] {
  const rng = createRng(0x5eed_d0c4);
  const sites: Site[] = [];
  const R = 3;
  const rings: [number, number][] = [[Math.PI, 1], [(3 * Math.PI) / 4, 6], [(5 * Math.PI) / 9, 8]];
  for (const [polar, count] of rings) {
    for (let k = 0; k < count; k++) {
      const az = (2 * Math.PI * k) / count + (polar === Math.PI ? 0 : 0.3 * (rng.next() - 0.5));
      const rr = R * (1 + 0.08 * (rng.next() - 0.5));
      const pol = polar === Math.PI ? Math.PI : polar + 0.12 * (rng.next() - 0.5);
      sites.push({
        x: rr * Math.sin(pol) * Math.cos(az), y: rr * Math.sin(pol) * Math.sin(az), z: rr * Math.cos(pol),
        sigma: 1.0 + 0.2 * rng.next(), eps: 0.8 + 0.4 * rng.next(), q: 0,
      });
    }
  }
  // charges: the two sites with the largest x get −Q, the two with the smallest +Q
  const Q = 1;
  const byX = sites.map((s, i) => [s.x, i] as [number, number]).sort((a, b) => a[0] - b[0]);
  sites[byX[0][1]].q = Q; sites[byX[1][1]].q = Q;
  sites[byX[byX.length - 1][1]].q = -Q; sites[byX[byX.length - 2][1]].q = -Q;
  return sites;
}

export const RECEPTOR: readonly Site[] = buildReceptor();

/** Ligand atom types: a cation, an anion and a larger neutral atom. */
export const LIGAND_TYPES = [
  { name: 'N+', sigma: 1.0, eps: 1.0, q: 1 },
  { name: 'O-', sigma: 0.95, eps: 1.0, q: -1 },
  { name: 'C', sigma: 1.2, eps: 1.2, q: 0 },
] as const;

const NR = RECEPTOR.length;
const RX = new Float64Array(NR), RY = new Float64Array(NR), RZ = new Float64Array(NR);
for (let r = 0; r < NR; r++) { RX[r] = RECEPTOR[r].x; RY[r] = RECEPTOR[r].y; RZ[r] = RECEPTOR[r].z; }
// per (type, site) pair constants: 4ε·σ^12, 4ε·σ^6, q_a·q_r
const NT = LIGAND_TYPES.length;
const C12 = new Float64Array(NT * NR), C6 = new Float64Array(NT * NR), QQ = new Float64Array(NT * NR);
for (let a = 0; a < NT; a++) for (let r = 0; r < NR; r++) {
  const s = 0.5 * (LIGAND_TYPES[a].sigma + RECEPTOR[r].sigma);
  const e = Math.sqrt(LIGAND_TYPES[a].eps * RECEPTOR[r].eps);
  const s6 = s ** 6;
  C12[a * NR + r] = 4 * e * s6 * s6; C6[a * NR + r] = 4 * e * s6; QQ[a * NR + r] = LIGAND_TYPES[a].q * RECEPTOR[r].q;
}

/** V_a(x) and, if g is given, its gradient written to g[0..2] (added at offset `o`). */
export function atomField(type: number, x: number, y: number, z: number, g?: Float64Array, o = 0): number {
  let e = 0, gx = 0, gy = 0, gz = 0;
  const base = type * NR;
  for (let r = 0; r < NR; r++) {
    const dx = x - RX[r], dy = y - RY[r], dz = z - RZ[r];
    const d2 = dx * dx + dy * dy + dz * dz;
    const inv2 = 1 / d2, inv6 = inv2 * inv2 * inv2;
    const inv1 = Math.sqrt(inv2);
    const lj12 = C12[base + r] * inv6 * inv6, lj6 = C6[base + r] * inv6, coul = QQ[base + r] * inv1;
    e += lj12 - lj6 + coul;
    if (g) {
      // dE/dd · 1/d = (−12·lj12 + 6·lj6 − coul)/d²
      const f = (-12 * lj12 + 6 * lj6 - coul) * inv2;
      gx += f * dx; gy += f * dy; gz += f * dz;
    }
  }
  if (g) { g[o] = gx; g[o + 1] = gy; g[o + 2] = gz; }
  return e;
}

// ---------------------------------------------------------------------------------------------
// Per-atom global minima (exhaustive grid + local refinement) and the ligand built from them.

export interface FieldMinimum { type: number; x: number; y: number; z: number; energy: number }

/** BFGS on a 3-D function with gradient; returns the refined point. */
function refine3(type: number, p: Float64Array): number {
  const g = new Float64Array(3), gn = new Float64Array(3), pn = new Float64Array(3), s = new Float64Array(3), yv = new Float64Array(3);
  const H = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  let e = atomField(type, p[0], p[1], p[2], g);
  const dir = new Float64Array(3);
  for (let it = 0; it < 500; it++) {
    const gnorm = Math.hypot(g[0], g[1], g[2]);
    if (gnorm < 1e-12) break;
    for (let i = 0; i < 3; i++) dir[i] = -(H[3 * i] * g[0] + H[3 * i + 1] * g[1] + H[3 * i + 2] * g[2]);
    let slope = dir[0] * g[0] + dir[1] * g[1] + dir[2] * g[2];
    if (!(slope < 0)) { H.set([1, 0, 0, 0, 1, 0, 0, 0, 1]); for (let i = 0; i < 3; i++) dir[i] = -g[i]; slope = -gnorm * gnorm; }
    const len = Math.hypot(dir[0], dir[1], dir[2]);
    let step = Math.min(1, 0.2 / len), en = 0, accepted = false;
    for (let k = 0; k < 60; k++) {
      for (let i = 0; i < 3; i++) pn[i] = p[i] + step * dir[i];
      en = atomField(type, pn[0], pn[1], pn[2], gn);
      if (en <= e + 1e-4 * step * slope) { accepted = true; break; }
      step *= 0.5;
    }
    if (!accepted) break;
    for (let i = 0; i < 3; i++) { s[i] = pn[i] - p[i]; yv[i] = gn[i] - g[i]; }
    bfgsUpdate(H, s, yv, 3);
    p.set(pn); g.set(gn);
    if (Math.abs(e - en) <= 1e-16 * Math.abs(en)) { e = en; break; }
    e = en;
  }
  return e;
}

/** Inverse-Hessian BFGS update H ← (I − ρsyᵀ)H(I − ρysᵀ) + ρssᵀ (skipped when yᵀs <= 0). */
function bfgsUpdate(H: Float64Array, s: Float64Array, y: Float64Array, n: number): void {
  let sy = 0;
  for (let i = 0; i < n; i++) sy += s[i] * y[i];
  if (!(sy > 1e-300)) return;
  const rho = 1 / sy;
  const Hy = new Float64Array(n);
  for (let i = 0; i < n; i++) { let t = 0; for (let j = 0; j < n; j++) t += H[i * n + j] * y[j]; Hy[i] = t; }
  let yHy = 0;
  for (let i = 0; i < n; i++) yHy += y[i] * Hy[i];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    H[i * n + j] += -rho * (Hy[i] * s[j] + s[i] * Hy[j]) + (rho * rho * yHy + rho) * s[i] * s[j];
  }
}

/** Global minimum of one atom type's field: every local minimum of a grid of spacing h over the
 *  receptor's box (padded by 2.5 σ) is refined by BFGS; the lowest wins. */
export function fieldMinimum(type: number, h = 0.2, offset = 0): FieldMinimum {
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (const s of RECEPTOR) {
    minX = Math.min(minX, s.x); minY = Math.min(minY, s.y); minZ = Math.min(minZ, s.z);
    maxX = Math.max(maxX, s.x); maxY = Math.max(maxY, s.y); maxZ = Math.max(maxZ, s.z);
  }
  const pad = 2.5;
  const x0 = minX - pad + offset, y0 = minY - pad + offset, z0 = minZ - pad + offset;
  const nx = Math.ceil((maxX - minX + 2 * pad) / h) + 1, ny = Math.ceil((maxY - minY + 2 * pad) / h) + 1, nz = Math.ceil((maxZ - minZ + 2 * pad) / h) + 1;
  const E = new Float64Array(nx * ny * nz);
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    E[(k * ny + j) * nx + i] = atomField(type, x0 + i * h, y0 + j * h, z0 + k * h);
  }
  // grid-local minima (strictly below every in-box neighbour among the 26)
  const cands: [number, number][] = [];
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    const c = (k * ny + j) * nx + i, ec = E[c];
    if (!(ec < 0)) continue;
    let isMin = true;
    for (let dk = -1; dk <= 1 && isMin; dk++) for (let dj = -1; dj <= 1 && isMin; dj++) for (let di = -1; di <= 1; di++) {
      if (!dk && !dj && !di) continue;
      const ii = i + di, jj = j + dj, kk = k + dk;
      if (ii < 0 || jj < 0 || kk < 0 || ii >= nx || jj >= ny || kk >= nz) continue;
      if (E[(kk * ny + jj) * nx + ii] < ec) { isMin = false; break; }
    }
    if (isMin) cands.push([ec, c]);
  }
  cands.sort((a, b) => a[0] - b[0]);
  let best: FieldMinimum = { type, x: 0, y: 0, z: 0, energy: Infinity };
  const p = new Float64Array(3);
  for (const [, c] of cands.slice(0, 64)) {
    const i = c % nx, j = Math.floor(c / nx) % ny, k = Math.floor(c / (nx * ny));
    p[0] = x0 + i * h; p[1] = y0 + j * h; p[2] = z0 + k * h;
    const e = refine3(type, p);
    if (e < best.energy) best = { type, x: p[0], y: p[1], z: p[2], energy: e };
  }
  return best;
}

export interface Complex {
  minima: FieldMinimum[];
  /** body coordinates b_a (relative to the centroid of the minimisers) */
  body: Float64Array;
  /** exact global minimum E* and its pose (t* = centroid, q* = identity) */
  exactEnergy: number;
  exactTranslation: [number, number, number];
  box: { min: [number, number, number]; max: [number, number, number] };
}

let complexCache: Complex | null = null;

/** The built-in test complex (computed once per process). */
export function testComplex(): Complex {
  if (complexCache) return complexCache;
  const minima = LIGAND_TYPES.map((_, a) => fieldMinimum(a));
  const cx = minima.reduce((s, m) => s + m.x, 0) / NT, cy = minima.reduce((s, m) => s + m.y, 0) / NT, cz = minima.reduce((s, m) => s + m.z, 0) / NT;
  const body = new Float64Array(3 * NT);
  minima.forEach((m, a) => { body[3 * a] = m.x - cx; body[3 * a + 1] = m.y - cy; body[3 * a + 2] = m.z - cz; });
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (const s of RECEPTOR) {
    minX = Math.min(minX, s.x); minY = Math.min(minY, s.y); minZ = Math.min(minZ, s.z);
    maxX = Math.max(maxX, s.x); maxY = Math.max(maxY, s.y); maxZ = Math.max(maxZ, s.z);
  }
  complexCache = {
    minima, body,
    exactEnergy: minima.reduce((s, m) => s + m.energy, 0),
    exactTranslation: [cx, cy, cz],
    box: { min: [minX - 1, minY - 1, minZ - 1], max: [maxX + 1, maxY + 1, maxZ + 2] },
  };
  return complexCache;
}

// ---------------------------------------------------------------------------------------------
// Poses.

/** Rotation matrix of the unit quaternion (w, x, y, z), row-major. */
export function rotationMatrix(q: Float64Array, out: Float64Array): void {
  const [w, x, y, z] = [q[0], q[1], q[2], q[3]];
  out[0] = 1 - 2 * (y * y + z * z); out[1] = 2 * (x * y - w * z); out[2] = 2 * (x * z + w * y);
  out[3] = 2 * (x * y + w * z); out[4] = 1 - 2 * (x * x + z * z); out[5] = 2 * (y * z - w * x);
  out[6] = 2 * (x * z - w * y); out[7] = 2 * (y * z + w * x); out[8] = 1 - 2 * (x * x + y * y);
}

/** Energy of a pose and (optionally) its 6-D gradient (force part, torque part). */
export function poseEnergy(body: Float64Array, t: Float64Array, q: Float64Array, grad?: Float64Array): number {
  const R = new Float64Array(9);
  rotationMatrix(q, R);
  const ga = new Float64Array(3);
  let e = 0;
  if (grad) grad.fill(0);
  for (let a = 0; a < NT; a++) {
    const bx = body[3 * a], by = body[3 * a + 1], bz = body[3 * a + 2];
    const rx = R[0] * bx + R[1] * by + R[2] * bz, ry = R[3] * bx + R[4] * by + R[5] * bz, rz = R[6] * bx + R[7] * by + R[8] * bz;
    e += atomField(a, t[0] + rx, t[1] + ry, t[2] + rz, grad ? ga : undefined);
    if (grad) {
      grad[0] += ga[0]; grad[1] += ga[1]; grad[2] += ga[2];
      grad[3] += ry * ga[2] - rz * ga[1]; grad[4] += rz * ga[0] - rx * ga[2]; grad[5] += rx * ga[1] - ry * ga[0];
    }
  }
  return e;
}

/** q ← exp(ω/2)·q (rotation by the vector ω in the lab frame), renormalised. */
function rotateQuaternion(q: Float64Array, wx: number, wy: number, wz: number, out: Float64Array): void {
  const angle = Math.hypot(wx, wy, wz);
  let dw = 1, dx = 0, dy = 0, dz = 0;
  if (angle > 0) {
    const s = Math.sin(angle / 2) / angle;
    dw = Math.cos(angle / 2); dx = wx * s; dy = wy * s; dz = wz * s;
  }
  const w = dw * q[0] - dx * q[1] - dy * q[2] - dz * q[3];
  const x = dw * q[1] + dx * q[0] + dy * q[3] - dz * q[2];
  const y = dw * q[2] - dx * q[3] + dy * q[0] + dz * q[1];
  const z = dw * q[3] + dx * q[2] - dy * q[1] + dz * q[0];
  const n = Math.hypot(w, x, y, z);
  out[0] = w / n; out[1] = x / n; out[2] = y / n; out[3] = z / n;
}

const MAX_TRANSLATION_STEP = 0.25;
const MAX_ROTATION_STEP = 0.25;

/** BFGS in the pose's tangent space from (t, q); both are updated in place. */
export function localDock(body: Float64Array, t: Float64Array, q: Float64Array, iters: number): { energy: number; iterations: number } {
  const g = new Float64Array(6), gn = new Float64Array(6), dir = new Float64Array(6), s = new Float64Array(6), y = new Float64Array(6);
  const tn = new Float64Array(3), qn = new Float64Array(4);
  const H = new Float64Array(36);
  const resetH = () => { H.fill(0); for (let i = 0; i < 6; i++) H[i * 7] = 1; };
  resetH();
  let e = poseEnergy(body, t, q, g);
  let it = 0;
  for (; it < iters; it++) {
    let gg = 0;
    for (let i = 0; i < 6; i++) gg += g[i] * g[i];
    if (Math.sqrt(gg) < 1e-10) break;
    for (let i = 0; i < 6; i++) { let v = 0; for (let j = 0; j < 6; j++) v -= H[i * 6 + j] * g[j]; dir[i] = v; }
    let slope = 0;
    for (let i = 0; i < 6; i++) slope += dir[i] * g[i];
    if (!(slope < 0)) { resetH(); for (let i = 0; i < 6; i++) dir[i] = -g[i]; slope = -gg; }
    const tl = Math.hypot(dir[0], dir[1], dir[2]), rl = Math.hypot(dir[3], dir[4], dir[5]);
    let step = Math.min(1, tl > 0 ? MAX_TRANSLATION_STEP / tl : 1, rl > 0 ? MAX_ROTATION_STEP / rl : 1);
    let en = 0, accepted = false;
    for (let k = 0; k < 60; k++) {
      tn[0] = t[0] + step * dir[0]; tn[1] = t[1] + step * dir[1]; tn[2] = t[2] + step * dir[2];
      rotateQuaternion(q, step * dir[3], step * dir[4], step * dir[5], qn);
      en = poseEnergy(body, tn, qn, gn);
      if (en <= e + 1e-4 * step * slope) { accepted = true; break; }
      step *= 0.5;
    }
    if (!accepted) break;
    for (let i = 0; i < 6; i++) { s[i] = step * dir[i]; y[i] = gn[i] - g[i]; }
    bfgsUpdate(H, s, y, 6);
    t.set(tn); q.set(qn); g.set(gn);
    const done = Math.abs(e - en) <= 1e-15 * Math.abs(en);
    e = en;
    if (done) break;
  }
  return { energy: e, iterations: it };
}

/** Uniform random unit quaternion (Shoemake 1992). */
function randomQuaternion(rng: ReturnType<typeof createRng>, out: Float64Array): void {
  const u1 = rng.next(), u2 = rng.next(), u3 = rng.next();
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  out[0] = a * Math.sin(2 * Math.PI * u2); out[1] = a * Math.cos(2 * Math.PI * u2);
  out[2] = b * Math.sin(2 * Math.PI * u3); out[3] = b * Math.cos(2 * Math.PI * u3);
}

/** Root-mean-square distance between the ligand atoms of two poses. */
function poseRmsd(body: Float64Array, t1: ArrayLike<number>, q1: Float64Array, t2: ArrayLike<number>, q2: Float64Array): number {
  const R1 = new Float64Array(9), R2 = new Float64Array(9);
  rotationMatrix(q1, R1); rotationMatrix(q2, R2);
  let s = 0;
  for (let a = 0; a < NT; a++) {
    for (let i = 0; i < 3; i++) {
      const p1 = t1[i] + R1[3 * i] * body[3 * a] + R1[3 * i + 1] * body[3 * a + 1] + R1[3 * i + 2] * body[3 * a + 2];
      const p2 = t2[i] + R2[3 * i] * body[3 * a] + R2[3 * i + 1] * body[3 * a + 1] + R2[3 * i + 2] * body[3 * a + 2];
      s += (p1 - p2) ** 2;
    }
  }
  return Math.sqrt(s / NT);
}

const HOP_TRANSLATION = 1.0; // σ
const HOP_ROTATION = 1.0; // rad
const HOP_TEMPERATURE = 0.5; // ε
const LOCAL_ITERS = 200;

export const run: SolverRun = (input, ctx) => {
  const restarts: number = input.restarts, iters: number = input.iters;
  const cx = testComplex();
  ctx.progress(0.05);
  const rng = createRng(input.seed ?? ctx.seed);
  const t = new Float64Array(3), q = new Float64Array(4), tc = new Float64Array(3), qc = new Float64Array(4);
  const bestT = new Float64Array(3), bestQ = new Float64Array(4);
  let best = Infinity, bestRestart = -1, totalIterations = 0, accepted = 0, hops = 0;
  const energies: number[] = [];
  const { min, max } = cx.box;
  for (let k = 0; k < restarts; k++) {
    for (let i = 0; i < 3; i++) t[i] = min[i] + (max[i] - min[i]) * rng.next();
    randomQuaternion(rng, q);
    let res = localDock(cx.body, t, q, LOCAL_ITERS);
    totalIterations += res.iterations;
    let e = res.energy, chainBest = e;
    if (e < best) { best = e; bestRestart = k; bestT.set(t); bestQ.set(q); }
    for (let h = 1; h < iters; h++) {
      // basin hopping: random displacement and rotation, local minimisation, Metropolis test
      tc.set(t); qc.set(q);
      let dx: number, dy: number, dz: number;
      do { dx = 2 * rng.next() - 1; dy = 2 * rng.next() - 1; dz = 2 * rng.next() - 1; } while (dx * dx + dy * dy + dz * dz > 1);
      tc[0] += HOP_TRANSLATION * dx; tc[1] += HOP_TRANSLATION * dy; tc[2] += HOP_TRANSLATION * dz;
      let ax: number, ay: number, az: number, an: number;
      do { ax = 2 * rng.next() - 1; ay = 2 * rng.next() - 1; az = 2 * rng.next() - 1; an = Math.hypot(ax, ay, az); } while (an > 1 || an < 1e-6);
      const angle = HOP_ROTATION * rng.next() / an;
      rotateQuaternion(q, ax * angle, ay * angle, az * angle, qc);
      res = localDock(cx.body, tc, qc, LOCAL_ITERS);
      totalIterations += res.iterations;
      hops++;
      if (res.energy <= e || rng.next() < Math.exp(-(res.energy - e) / HOP_TEMPERATURE)) {
        t.set(tc); q.set(qc); e = res.energy; accepted++;
        if (e < chainBest) chainBest = e;
        if (e < best) { best = e; bestRestart = k; bestT.set(t); bestQ.set(q); }
      }
    }
    energies.push(chainBest);
    ctx.progress(0.05 + (0.95 * (k + 1)) / restarts);
  }
  const exact = cx.exactEnergy;
  const tol = 1e-6 * Math.abs(exact);
  const atGlobal = energies.filter((e) => Math.abs(e - exact) <= tol).length;
  const rmsd = poseRmsd(cx.body, bestT, bestQ, cx.exactTranslation, new Float64Array([1, 0, 0, 0]));
  const errorPct = (100 * Math.abs(best - exact)) / Math.abs(exact);
  return {
    value: best,
    result: {
      bestEnergy: best,
      exactMinimum: exact,
      gap: best - exact,
      pose: { translation: Array.from(bestT), quaternion: Array.from(bestQ) },
      exactPose: { translation: cx.exactTranslation, quaternion: [1, 0, 0, 0] },
      rmsd,
      bestRestart,
      restarts,
      restartsAtGlobalMinimum: atGlobal,
      iterations: totalIterations,
      receptorSites: NR,
      ligandAtoms: LIGAND_TYPES.map((ty, a) => ({ ...ty, body: [cx.body[3 * a], cx.body[3 * a + 1], cx.body[3 * a + 2]], fieldMinimum: cx.minima[a].energy })),
    },
    precision: precisionOf({
      errorPct,
      reference: 'exact global minimum of the built-in complex, E* = Σ_a min V_a (lower bound attained by construction)',
      referenceValue: exact,
    }),
    series: { restart: energies.map((_, i) => i + 1), energy: energies },
    // a search the caller cut below the defaults (fewer starts or hops) that missed the minimum: the
    // defaults are the advice (a stochastic search has no error model to predict a smaller count;
    // the defaults reach the exact minimum of this complex: test/solvers/defaults-succeed.test.ts)
    ...(errorPct > 0.1 && (restarts < DEFAULT_RESTARTS || iters < DEFAULT_ITERS) ? { retryWith: {
      inputs: { ...(restarts < DEFAULT_RESTARTS ? { restarts: DEFAULT_RESTARTS } : {}), ...(iters < DEFAULT_ITERS ? { iters: DEFAULT_ITERS } : {}) },
      predictedCost: { localMinimisations: Math.max(restarts, DEFAULT_RESTARTS) * Math.max(iters, DEFAULT_ITERS), relative: (Math.max(restarts, DEFAULT_RESTARTS) * Math.max(iters, DEFAULT_ITERS)) / (restarts * iters) },
    } } : {}),
  };
};
