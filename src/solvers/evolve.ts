// evolve: classical molecular dynamics in the microcanonical (NVE) ensemble, on a built-in preset
// or on the caller's own configuration (extended XYZ or a LAMMPS data file). The engine (force
// field, neighbour lists, velocity Verlet) is lib/md.ts; the file readers are lib/xyz.ts.
// - Potential: Lennard-Jones 12-6, truncated at rc (Allen & Tildesley, "Computer Simulation of
//   Liquids", 2nd ed. 2017, §1.4 and §2.3; Frenkel & Smit, "Understanding Molecular Simulation",
//   2nd ed. 2002, §3.2). Presets: shifted so U(rc) = 0, m = kB = 1, periodic cubic box of side
//   L = (N/rho)^(1/3). User configurations: LAMMPS `units lj` with `pair_style lj/cut rc`
//   (not shifted unless `shift`), per-species ε, σ, m with Lorentz-Berthelot mixing
//   ε_ij = sqrt(ε_i ε_j), σ_ij = (σ_i + σ_j)/2 (LAMMPS `pair_modify mix arithmetic`; Allen &
//   Tildesley §1.4.2), orthorhombic periodic box from the file.
// - Integrator: velocity Verlet (Swope, Andersen, Berens & Wilson, J. Chem. Phys. 76, 637, 1982),
//   time-reversible and symplectic, so the total energy has no secular drift at a stable step; it
//   is stable for dt·ω < 2 with ω the fastest vibration (reported as the stability number, with
//   ω² ≈ 2·(U''_LJ(r_min) + bond stiffness) for presets, max over pairs of U''_ij(r_min)/μ_ij for
//   user configurations).
// - Neighbours: a Verlet list built from cell lists (Allen & Tildesley §5.3; the LAMMPS
//   `neighbor 0.3 bin` scheme; skin 0.3σ for presets, 0.3 for user configurations) and rebuilt as
//   soon as any particle has moved more than half the skin since the last build, so no pair inside
//   rc is ever missed.
// - Presets: lj-liquid (rho 0.8442, T0 0.72), lj-gas (rho 0.05, T0 1.5), crystal (FCC kept,
//   rho 1.0, T0 0.4), polymer (bead-spring chains of 10 beads with harmonic bonds
//   U = kBond/2 (r - r0Bond)^2, or FENE U = -kBond R0^2/2 ln(1 - (r/R0)^2) with R0 = r0Bond
//   (default 1.5) as in Kremer & Grest, J. Chem. Phys. 92, 5057, 1990; LJ acts between all pairs).
// - Preset start: FCC lattice (simple cubic, serpentine-ordered for polymer chains), vacancies spread
//   evenly when N does not fill it; Gaussian velocities from the seeded RNG, zero total momentum,
//   rescaled to T0 with 3N - 3 degrees of freedom.
// - Preset equilibration: `equilibrate` steps (preset default) with the velocities rescaled to T0
//   after every step (isokinetic; Woodcock, Chem. Phys. Lett. 10, 257, 1971) melt the lattice for
//   the liquid and gas and bring every preset to T0; the NVE run and all measurements follow it. A
//   user configuration is run as given, without equilibration.
// value = time-averaged potential energy per particle; reference = total-energy conservation:
// the relative drift |E(end) - E(0)| / max(|E(0)|, KE(0)) is the error, bounded at 1e-3 (0.1 %).
// Pressure is the virial P = (2 KE/3 + W/3)/V with W = Σ r_ij·f_ij (no tail correction; LAMMPS's
// `press`); the presets keep their historical kinetic term N·T/V with T from 3N − 3.
import { z } from 'zod';
import { createRng } from './lib/rng.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { LjSystem, accumulateRdf, normaliseRdf } from './lib/md.ts';
import { parseExtendedXyz, parseLammpsData, type Configuration } from './lib/xyz.ts';
import { retryByOrder, optionalRetry } from './lib/retry.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffectRefusal, withDefaults } from './lib/no-effect.ts';

export const PRESETS = {
  'lj-liquid': { N: 256, rho: 0.8442, T0: 0.72, lattice: 'fcc', equilibrate: 1000 },
  'lj-gas': { N: 256, rho: 0.05, T0: 1.5, lattice: 'fcc', equilibrate: 300 },
  crystal: { N: 256, rho: 1.0, T0: 0.4, lattice: 'fcc', equilibrate: 300 },
  polymer: { N: 250, rho: 0.85, T0: 1.0, lattice: 'sc', equilibrate: 1000 },
} as const;
export type Preset = keyof typeof PRESETS;

/** beads per chain in the polymer preset (the last chain takes the remainder) */
export const CHAIN_LENGTH = 10;
/** Verlet-list skin in units of sig */
const SKIN_SIG = 0.3;
/** LJ curvature at its minimum r = 2^(1/6) σ: U'' = 72·2^(-1/3) ε/σ² */
const LJ_CURVATURE = 72 * Math.pow(2, -1 / 3);

const speciesEntry = z.strictObject({
  mass: z.number().gt(0).max(1e6).optional().describe('mass (default: the data file\'s Masses, else 1)'),
  eps: z.number().min(0).max(1000).optional().describe('LJ well depth ε_i (default: the data file\'s Pair Coeffs, else 1)'),
  sig: z.number().gt(0).max(100).optional().describe('LJ diameter σ_i (default: the data file\'s Pair Coeffs, else 1)'),
});

const MAX_FILE_CHARS = 4_000_000;

const input = z.strictObject({
  preset: z.enum(['lj-liquid', 'lj-gas', 'crystal', 'polymer']).optional().describe('built-in system: lj-liquid (the default when no file is given), lj-gas, crystal, polymer'),
  xyz: z.string().max(MAX_FILE_CHARS).optional().describe('your configuration as extended XYZ text: atom count, a comment line with Lattice="Lx 0 0 0 Ly 0 0 0 Lz" (orthorhombic), Properties=species:S:1:pos:R:3[:vel:R:3] and pbc="T T T", then one line per atom; at most 20,000 atoms; LJ reduced units (LAMMPS units lj)')
    .meta({ examples: ['2\nLattice="6 0 0 0 6 0 0 0 6" Properties=species:S:1:pos:R:3:vel:R:3 pbc="T T T"\nAr 1 1 1 0.1 0 0\nAr 2.12 1 1 -0.1 0 0\n'] }),
  lammpsData: z.string().max(MAX_FILE_CHARS).optional().describe('your configuration as a LAMMPS data file, atom style atomic (header counts, xlo xhi …, Masses, Atoms # atomic: id type x y z [ix iy iz], optional Velocities, optional Pair Coeffs: type eps sig); at most 20,000 atoms')
    .meta({ examples: ['LAMMPS data file\n\n2 atoms\n2 atom types\n\n0 6 xlo xhi\n0 6 ylo yhi\n0 6 zlo zhi\n\nMasses\n\n1 1.0\n2 2.0\n\nAtoms # atomic\n\n1 1 1.0 1.0 1.0\n2 2 2.2 1.0 1.0\n\nVelocities\n\n1 0.1 0 0\n2 -0.05 0 0\n'] }),
  species: z.record(z.string().min(1).max(64), speciesEntry).optional().describe('with a file: LJ parameters per species (element/species name in XYZ, type number in a data file) as {mass, eps, sig}; mixed by Lorentz-Berthelot (eps_ij = sqrt(eps_i eps_j), sig_ij = (sig_i + sig_j)/2); may be omitted for a single species (eps = sig = 1) or a data file with Masses and Pair Coeffs')
    .meta({ examples: [{ Ar: { mass: 1, eps: 1, sig: 1 }, Kr: { mass: 2.1, eps: 1.4, sig: 1.1 } }, { 1: { eps: 1, sig: 1 }, 2: { eps: 0.5, sig: 0.88 } }] }),
  shift: z.boolean().optional().describe('with a file: shift the pair energy so U(rc) = 0 (LAMMPS pair_modify shift yes); default false, as lj/cut'),
  rdfBins: z.number().int().min(10).max(2000).optional().describe('with a file: bins of the radial distribution function over [0, half the shortest box side] (default 100)'),
  rdfStride: z.number().int().min(1).max(200_000).optional().describe('with a file: the RDF is averaged over steps 0, rdfStride, 2·rdfStride, … (default steps/10 rounded up; fewer snapshots when N > 4·steps, as each costs N²/2 distances)'),
  frameStride: z.number().int().min(1).max(200_000).optional().describe('with a file: trajectory frames (unwrapped positions) at steps 0, frameStride, … (default: steps, i.e. first and last)'),
  energyStride: z.number().int().min(1).max(200_000).optional().describe('with a file: energies, temperature and pressure every energyStride steps and at the last step (LAMMPS thermo N; default steps/100 rounded up)'),
  N: z.number().int().min(2).max(2000).optional().describe('preset only: number of particles (2 to 2000; preset default)'),
  rho: z.number().min(0.001).max(1.5).optional().describe('preset only: number density N/V (preset default)'),
  T0: z.number().min(0).max(50).optional().describe('initial temperature in ε/kB (preset default; with a file that has no velocities, draws Gaussian velocities at T0 with zero momentum; without it they are zero)'),
  steps: z.number().int().min(10).max(200_000).default(2000).describe('velocity-Verlet NVE steps (10 to 200000)'),
  equilibrate: z.number().int().min(0).max(50_000).optional().describe('preset only: velocity-rescaled steps at T0 before the NVE run (preset default: 1000 liquid/polymer, 300 gas/crystal)'),
  dtSim: z.number().gt(0).max(0.02).optional().describe('time step in reduced units (default 0.003; for a start hotter than 10 ε/kB, 0.003·(10/T)^(7/12), T being T0 or the file\'s velocities\' temperature: the repulsive wall a collision reaches stiffens with its energy)'),
  eps: z.number().gt(0).max(100).optional().describe('preset only: LJ well depth ε (default 1)'),
  sig: z.number().min(0.5).max(2).optional().describe('preset only: LJ diameter σ (default 1)'),
  rc: z.number().min(0.5).max(5).default(2.5).describe('cutoff radius (absolute, same units as sig; with a file it must be below half the shortest box side)'),
  kBond: z.number().gt(0).max(10_000).optional().describe('polymer preset only (a 400 with another preset or a file): bond stiffness (default 30)'),
  r0Bond: z.number().min(0.5).max(3).optional().describe('polymer preset only (a 400 with another preset or a file): harmonic rest length (default 1) or FENE maximum extension R0 (default 1.5)'),
  bond: z.enum(['harmonic', 'fene']).optional().describe('polymer preset only (a 400 with another preset or a file): bond type (default harmonic)'),
  seed: z.number().int().min(0).max(0xffffffff).optional().describe('RNG seed for the initial velocities (default derived from inputs); with a file only together with T0 > 0 and no velocities in the file, the one case that draws them'),
  sample: z.number().int().min(2).max(500).default(40).describe('number of samples in the energy series (2 to 500)'),
// the default step is filled in where the start temperature is known from the fields (a preset's
// T0, or T0 drawing a file's velocities), so the receipt's input names it and the derived seed of a
// default call is the one it always was (docs/defaults.md); a file's own velocities set it in run
}).overwrite(withDefaults((v) => {
  if (v.xyz === undefined && v.lammpsData === undefined) return { dtSim: defaultDtSim(v.T0 ?? PRESETS[v.preset ?? 'lj-liquid'].T0) };
  return v.T0 !== undefined ? { dtSim: defaultDtSim(v.T0) } : {};
}));

/** The default time step (issue 29). Up to a starting temperature of DT_T_REF it is 0.003 τ. A
 * hotter start drives collisions up the r^-12 wall: the closest approach falls as T^(-1/12), the
 * wall's curvature U'' ∝ r^-14 rises as T^(7/6), so a collision lasts ∝ T^(-7/12) and velocity
 * Verlet's energy error (O((dt/τ_coll)²)) stays where it was at DT_T_REF when the step follows it.
 * Measured over the four presets, T0 from 8 to 50 and three seeds each: errors 7e-5 % to 0.06 %
 * against the 0.1 % bound (with 0.003 at T0 = 50: 14 %). */
export const DT_DEFAULT = 0.003;
const DT_T_REF = 10;
export function defaultDtSim(temperature: number): number {
  return temperature > DT_T_REF ? DT_DEFAULT * Math.pow(DT_T_REF / temperature, 7 / 12) : DT_DEFAULT;
}

/** fields that only describe a built-in preset */
const PRESET_ONLY = ['preset', 'N', 'rho', 'equilibrate', 'eps', 'sig', 'kBond', 'r0Bond', 'bond'] as const;
/** fields that only apply to a user configuration */
const FILE_ONLY = ['species', 'shift', 'rdfBins', 'rdfStride', 'frameStride', 'energyStride'] as const;
/** fields of the polymer preset's bonds */
const POLYMER_ONLY = ['kBond', 'r0Bond', 'bond'] as const;

export type EvolveInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'evolve',
  domain: 'Molecular Dynamics',
  method: 'velocity-verlet',
  methodDescription: 'velocity-Verlet NVE, energy-conserving',
  operators: ['KO42-tensioned'],
  unit: 'epsilon',
  summary: 'Lennard-Jones molecular dynamics (periodic box, Verlet neighbour lists) integrated by velocity Verlet in NVE, on a built-in preset or on your own configuration (extended XYZ or a LAMMPS data file, LAMMPS units lj, lj/cut with per-species parameters and Lorentz-Berthelot mixing): energies per atom, temperature, virial pressure, radial distribution function, trajectory frames, energy drift as the check.',
  input,
  examples: [
    'Run a Lennard-Jones liquid at density 0.8442 and temperature 0.72 with 500 atoms',
    'Molecular dynamics of argon atoms: what is the potential energy per particle?',
    'Simulate an FCC crystal with velocity Verlet and check energy conservation',
    'Bead-spring polymer melt with FENE bonds: run 5000 MD steps',
    'What is the virial pressure of a dilute Lennard-Jones gas at temperature 1.5?',
    'NVE simulation of 1000 particles with cutoff 2.5 sigma and time step 0.003',
    'Check the energy drift of a velocity Verlet integrator for a simple liquid',
    'Melt a Lennard-Jones solid and report temperature and pressure',
    'Particle simulation of a noble-gas fluid in a periodic box',
    'Run my extended XYZ configuration of argon and krypton with their own Lennard-Jones parameters',
    'Simulate this LAMMPS data file for 1000 steps and give me the radial distribution function',
  ],
  vocabulary: [
    'molecular dynamics', 'md', 'lennard-jones', 'lj', 'velocity verlet', 'verlet', 'nve',
    'microcanonical', 'atoms', 'particles', 'argon', 'noble gas', 'liquid', 'fluid', 'gas', 'crystal',
    'fcc', 'lattice', 'solid', 'melt', 'polymer', 'bead-spring', 'fene', 'chains', 'virial', 'pressure',
    'temperature', 'potential energy', 'energy drift', 'periodic box', 'cutoff', 'neighbour list',
    'cell list', 'lammps', 'extended xyz', 'xyz file', 'lammps data file', 'read_data', 'configuration',
    'radial distribution function', 'rdf', 'trajectory', 'frames', 'lorentz-berthelot', 'mixing rule',
  ],
  // a 20,000-atom configuration with velocities is about 2.7 MB of text
  bodyLimit: 9 * 1024 * 1024,
};

export interface MdConfig {
  preset: Preset;
  N: number;
  rho: number;
  T0: number;
  dt: number;
  eps: number;
  sig: number;
  rc: number;
  kBond: number;
  r0Bond: number;
  bond: 'harmonic' | 'fene';
  seed: number;
  equilibrate: number;
}

export function resolveConfig(inp: EvolveInput, seed: number): MdConfig {
  const preset = inp.preset ?? 'lj-liquid';
  const p = PRESETS[preset];
  const bond = inp.bond ?? 'harmonic';
  const T0 = inp.T0 ?? p.T0;
  return {
    preset,
    N: inp.N ?? p.N,
    rho: inp.rho ?? p.rho,
    T0,
    dt: inp.dtSim ?? defaultDtSim(T0),
    eps: inp.eps ?? 1,
    sig: inp.sig ?? 1,
    rc: inp.rc,
    kBond: inp.kBond ?? 30,
    r0Bond: inp.r0Bond ?? (bond === 'fene' ? 1.5 : 1),
    bond,
    seed,
    equilibrate: inp.equilibrate ?? p.equilibrate,
  };
}

export interface InitialState {
  N: number;
  L: number;
  /** interleaved x, y, z in [0, L) */
  pos: Float64Array;
  vel: Float64Array;
  /** bonded pairs i0, j0, i1, j1, ... (empty unless polymer) */
  bonds: Int32Array;
}

/** Lattice positions, seeded velocities (zero momentum, temperature T0) and bonds. */
export function initialState(cfg: MdConfig): InitialState {
  const { N, rho, T0 } = cfg;
  const L = Math.cbrt(N / rho);
  const pos = new Float64Array(3 * N);
  if (PRESETS[cfg.preset].lattice === 'fcc') {
    const n = Math.max(1, Math.ceil(Math.cbrt(N / 4) - 1e-9));
    const a = L / n;
    const M = 4 * n * n * n;
    const basis = [0, 0, 0, 0.5, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0.5];
    for (let k = 0; k < N; k++) {
      // N of the M sites, spread evenly so vacancies do not cluster
      const site = Math.floor((k * M) / N);
      const b = site % 4, cell = (site - b) / 4;
      const cx = cell % n, cy = Math.floor(cell / n) % n, cz = Math.floor(cell / (n * n));
      pos[3 * k] = (cx + basis[3 * b] + 0.25) * a;
      pos[3 * k + 1] = (cy + basis[3 * b + 1] + 0.25) * a;
      pos[3 * k + 2] = (cz + basis[3 * b + 2] + 0.25) * a;
    }
  } else {
    // simple cubic in serpentine order: consecutive sites are lattice neighbours, so chains of
    // consecutive indices start with every bond at the lattice spacing
    const n = Math.max(1, Math.ceil(Math.cbrt(N) - 1e-9));
    const a = L / n;
    let k = 0;
    for (let iz = 0; iz < n && k < N; iz++) {
      for (let jy = 0; jy < n && k < N; jy++) {
        const iy = iz % 2 === 0 ? jy : n - 1 - jy;
        for (let jx = 0; jx < n && k < N; jx++) {
          const ix = (iz * n + jy) % 2 === 0 ? jx : n - 1 - jx;
          pos[3 * k] = (ix + 0.5) * a;
          pos[3 * k + 1] = (iy + 0.5) * a;
          pos[3 * k + 2] = (iz + 0.5) * a;
          k++;
        }
      }
    }
  }
  const vel = new Float64Array(3 * N);
  if (T0 > 0) {
    const rng = createRng(cfg.seed);
    for (let k = 0; k < 3 * N; k++) vel[k] = rng.normal();
    const mean = [0, 0, 0];
    for (let i = 0; i < N; i++) for (let d = 0; d < 3; d++) mean[d] += vel[3 * i + d] / N;
    let v2 = 0;
    for (let i = 0; i < N; i++) for (let d = 0; d < 3; d++) { vel[3 * i + d] -= mean[d]; v2 += vel[3 * i + d] ** 2; }
    const T = v2 / (3 * N - 3);
    const f = T > 0 ? Math.sqrt(T0 / T) : 0;
    for (let k = 0; k < 3 * N; k++) vel[k] *= f;
  }
  const bondList: number[] = [];
  if (cfg.preset === 'polymer') {
    for (let i = 0; i + 1 < N; i++) {
      if (Math.floor(i / CHAIN_LENGTH) === Math.floor((i + 1) / CHAIN_LENGTH)) bondList.push(i, i + 1);
    }
  }
  return { N, L, pos, vel, bonds: Int32Array.from(bondList) };
}

/**
 * A preset system: the shared Lennard-Jones engine (lib/md.ts) in a cubic box with one (ε, σ),
 * unit masses, the shifted potential, skin 0.3σ and the preset's bonds. Exported for tests and
 * the benchmark; the solver drives it through `run`.
 */
export class MdSystem extends LjSystem {
  readonly L: number;
  constructor(init: InitialState, cfg: MdConfig) {
    super({
      pos: init.pos, vel: init.vel, box: [init.L, init.L, init.L],
      pair: { kind: 'single', eps: cfg.eps, sig: cfg.sig }, rc: cfg.rc, shift: true,
      skin: SKIN_SIG * cfg.sig, dt: cfg.dt,
      bonds: init.bonds, bond: { k: cfg.kBond, r0: cfg.r0Bond, fene: cfg.bond === 'fene' },
    });
    this.L = init.L;
  }
}

export const run: SolverRun<EvolveInput> = (inp, ctx): SolverOutput => {
  const given = (k: string) => (inp as Record<string, unknown>)[k] !== undefined;
  if (given('xyz') && given('lammpsData')) {
    throw refuse('INVALID_INPUT', 'give either xyz or lammpsData, not both', { issues: [{ path: 'lammpsData', message: 'not with xyz' }] });
  }
  if (given('xyz') || given('lammpsData')) {
    const file = given('xyz') ? 'xyz' : 'lammpsData';
    for (const k of PRESET_ONLY) {
      if (given(k)) throw refuse('INVALID_INPUT', `${k} describes a built-in preset and has no effect with ${file}: remove it`, { issues: [{ path: k, message: `not with ${file}` }] });
    }
    return runConfiguration(inp, ctx);
  }
  for (const k of FILE_ONLY) {
    if (given(k)) throw refuse('INVALID_INPUT', `${k} applies only to your own configuration (xyz or lammpsData), not to a preset`, { issues: [{ path: k, message: 'needs xyz or lammpsData' }] });
  }
  const preset = inp.preset ?? 'lj-liquid';
  if (preset !== 'polymer') {
    for (const k of POLYMER_ONLY) if (given(k)) throw noEffectRefusal(k, `with preset '${preset}': bonds exist only in the polymer preset`);
  }
  return runPreset(inp, ctx);
};

function runPreset(inp: EvolveInput, ctx: Parameters<SolverRun>[1]): SolverOutput {
  const cfg = resolveConfig(inp, ctx.seed);
  const init = initialState(cfg);
  const sys = new MdSystem(init, cfg);
  const { N, L } = sys;
  const steps = inp.steps;
  // `sample` samples of the energies; when the engine has taken `sample` to downsample the
  // series itself it is absent here, and the full 500 (the spec's maximum) are recorded
  const sample = Math.min(inp.sample ?? 500, steps + 1);
  const dof = Math.max(3 * N - 3, 1);
  const V = L * L * L;
  const bondCurv = cfg.preset === 'polymer' ? cfg.kBond * (cfg.bond === 'fene' ? 4 : 1) : 0;
  const omega = Math.sqrt(2 * (LJ_CURVATURE * cfg.eps / (cfg.sig * cfg.sig) + bondCurv));
  const stability = { number: cfg.dt * omega, limit: 2, stable: cfg.dt * omega < 2, name: 'dt·ω, ω² = 2(U\'\'_LJ(r_min) + bond stiffness) (velocity Verlet limit 2)' };

  const unstable = (step: number, why: string): never => {
    throw refuse('UNSTABLE', `${why} at step ${step}; reduce dtSim or lower T0/rho`, { stability: { ...stability, stable: false } });
  };
  // isokinetic equilibration at T0
  const progressTotal = cfg.equilibrate + steps;
  const progressEvery = Math.max(1, Math.floor(progressTotal / 50));
  for (let s = 1; s <= cfg.equilibrate; s++) {
    const ke = sys.step();
    const target = 0.5 * cfg.T0 * dof;
    // one step cannot multiply the kinetic energy a hundredfold (nor reach 1000 ε per particle)
    // while the velocities are rescaled every step, unless the integration has blown up
    if (!Number.isFinite(ke + sys.potential) || sys.bondBroken || ke > Math.max(100 * target, 1000 * cfg.eps * N)) {
      unstable(s, 'the equilibration blew up');
    }
    const f = ke > 0 ? Math.sqrt(target / ke) : 0;
    for (let k = 0; k < 3 * N; k++) sys.vel[k] *= f;
    if (s % progressEvery === 0) ctx.progress(s / progressTotal);
  }
  const startPos = Float64Array.from(sys.pos);
  const startImg = Int32Array.from(sys.img);

  const KE0 = sys.kinetic();
  const PE0 = sys.potential;
  const E0 = KE0 + PE0;
  const scaleE = Math.max(Math.abs(E0), KE0, 1e-12 * N);
  const tS: number[] = [0], eS: number[] = [E0 / N], keS: number[] = [KE0 / N], peS: number[] = [PE0 / N], TS: number[] = [2 * KE0 / dof];
  let nextSample = 1;
  const sampleStep = (s: number): number => Math.round((s * steps) / (sample - 1));
  let sumPE = 0, sumT = 0, sumP = 0, maxDev = 0;
  let KE = KE0;

  for (let s = 1; s <= steps; s++) {
    KE = sys.step();
    const PE = sys.potential;
    const E = KE + PE;
    if (!Number.isFinite(E)) unstable(s, 'the energy became non-finite');
    if (sys.bondBroken) unstable(s, 'a FENE bond stretched past its maximum extension');
    const dev = Math.abs(E - E0);
    if (dev > maxDev) maxDev = dev;
    if (dev > 0.5 * scaleE) unstable(s, `the total energy drifted by ${(100 * dev / scaleE).toFixed(1)} %`);
    const T = 2 * KE / dof;
    sumPE += PE; sumT += T; sumP += (N * T + sys.virial / 3) / V;
    while (nextSample < sample && sampleStep(nextSample) === s) {
      tS.push(s * cfg.dt); eS.push(E / N); keS.push(KE / N); peS.push(PE / N); TS.push(T);
      nextSample++;
    }
    if ((cfg.equilibrate + s) % progressEvery === 0) ctx.progress((cfg.equilibrate + s) / progressTotal);
  }

  const Eend = KE + sys.potential;
  const drift = Math.abs(Eend - E0) / scaleE;
  const p = sys.momentum();
  const pNorm = Math.hypot(p[0], p[1], p[2]);
  // mean squared displacement over the NVE run, from the unwrapped positions
  let msd = 0;
  for (let i = 0; i < 3 * N; i++) {
    const d = sys.pos[i] - startPos[i] + (sys.img[i] - startImg[i]) * L;
    msd += d * d;
  }
  msd /= N;
  let bondMean: number | null = null;
  if (sys.bonds.length > 0) {
    let sum = 0;
    for (let b = 0; b < sys.bonds.length; b += 2) {
      const i3 = 3 * sys.bonds[b], j3 = 3 * sys.bonds[b + 1];
      let r2 = 0;
      for (let d = 0; d < 3; d++) {
        const x = sys.pos[i3 + d] - sys.pos[j3 + d] + (sys.img[i3 + d] - sys.img[j3 + d]) * L;
        r2 += x * x;
      }
      sum += Math.sqrt(r2);
    }
    bondMean = sum / (sys.bonds.length / 2);
  }
  const meanPE = sumPE / steps / N;
  const errorPct = 100 * drift;

  return {
    value: meanPE,
    result: {
      preset: cfg.preset,
      N,
      rho: cfg.rho,
      T0: cfg.T0,
      boxLength: L,
      steps,
      equilibrationSteps: cfg.equilibrate,
      dtSim: cfg.dt,
      rc: cfg.rc,
      meanPotentialPerParticle: meanPE,
      energyDrift: drift,
      maxEnergyDeviation: maxDev / scaleE,
      energyPerParticle: { initial: E0 / N, final: Eend / N },
      temperature: sumT / steps,
      finalTemperature: 2 * KE / dof,
      pressure: sumP / steps,
      totalMomentum: pNorm,
      momentum: p,
      meanSquaredDisplacement: msd,
      bonds: sys.bonds.length / 2,
      meanBondLength: bondMean,
      bond: cfg.preset === 'polymer' ? { type: cfg.bond, kBond: cfg.kBond, r0Bond: cfg.r0Bond, chainLength: CHAIN_LENGTH } : null,
      neighborRebuilds: sys.rebuilds,
      neighborList: sys.listMode,
      seed: ctx.seed,
    },
    precision: {
      errorPct,
      boundPct: 0.1,
      reference: 'total-energy conservation: |E(end) - E(0)| / max(|E(0)|, KE(0))',
      withinBound: errorPct <= 0.1,
      referenceValue: E0 / N,
    },
    series: { t: tS, E: eS, KE: keS, PE: peS, T: TS },
    stability,
    // a step the caller set too long for the bound (issue 29): velocity Verlet's energy error is
    // O(dt²); the advice keeps the simulated time (steps × dtSim)
    ...(errorPct > 0.1 ? optionalRetry(retryByOrder({ field: 'dtSim', value: cfg.dt, errorPct, boundPct: 0.1, order: 2, kind: 'step', costPower: 1, also: (d) => ({ steps: Math.min(200_000, Math.ceil((steps * cfg.dt) / d)) }) })) : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// User configurations (extended XYZ or a LAMMPS data file), LAMMPS `units lj` conventions.

/** LAMMPS `neighbor 0.3 bin` in lj units: the skin is an absolute distance */
const USER_SKIN = 0.3;
/** cost ceilings keeping one request within the engine's time budget and a reasonable response */
const MAX_ATOM_STEPS = 4e8;
const MAX_RDF_PAIRS = 2.5e9;
const MAX_FRAME_ATOMS = 200_000;
const MAX_ENERGY_SAMPLES = 20_001;

const bad = (path: string, message: string): never => {
  throw refuse('INVALID_INPUT', message, { issues: [{ path, message }] });
};

export interface SpeciesParams { key: string; count: number; mass: number; eps: number; sig: number }

/** Per-species mass, ε, σ from `species` and the file (Masses, Pair Coeffs); conflicts are refused. */
export function resolveSpecies(conf: Configuration, species: EvolveInput['species'], file: string): SpeciesParams[] {
  const keys = conf.speciesKeys;
  // own properties only: a species named like an Object.prototype member must not resolve to it
  const own = <T>(o: Record<string, T> | undefined, k: string): T | undefined => (o && Object.hasOwn(o, k) ? o[k] : undefined);
  if (species) {
    for (const k of Object.keys(species)) {
      if (!keys.includes(k)) bad(`species.${k}`, `species ${k} does not occur in ${file} (its species: ${keys.join(', ')})`);
    }
    for (const k of keys) {
      if (!Object.hasOwn(species, k)) bad('species', `species must give ${k} too (${file} has species ${keys.join(', ')})`);
    }
  } else if (keys.length > 1 && !keys.every((k) => Object.hasOwn(conf.pairCoeffs, k))) {
    bad('species', `${file} has ${keys.length} species (${keys.join(', ')}): give their {mass, eps, sig} in species`);
  }
  const counts = new Map<string, number>();
  for (const sp of conf.species) counts.set(sp, (counts.get(sp) ?? 0) + 1);
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  return keys.map((key) => {
    const given = own(species, key) ?? {};
    const fileMass = own(conf.masses, key);
    const pc = own(conf.pairCoeffs, key);
    if (given.mass !== undefined && fileMass !== undefined && !same(given.mass, fileMass)) {
      bad(`species.${key}.mass`, `species.${key}.mass ${given.mass} contradicts the Masses section of ${file} (${fileMass})`);
    }
    if (pc && given.eps !== undefined && !same(given.eps, pc.eps)) bad(`species.${key}.eps`, `species.${key}.eps ${given.eps} contradicts the Pair Coeffs section of ${file} (${pc.eps})`);
    if (pc && given.sig !== undefined && !same(given.sig, pc.sig)) bad(`species.${key}.sig`, `species.${key}.sig ${given.sig} contradicts the Pair Coeffs section of ${file} (${pc.sig})`);
    let mass = given.mass ?? fileMass;
    if (mass === undefined) {
      // a data file must set every mass (as LAMMPS requires); extended XYZ has no mass column we read
      if (conf.format === 'lammps-data') bad(`species.${key}.mass`, `the mass of type ${key} is set neither in the Masses section of ${file} nor in species.${key}.mass`);
      mass = 1;
    }
    return { key, count: counts.get(key) ?? 0, mass, eps: given.eps ?? pc?.eps ?? 1, sig: given.sig ?? pc?.sig ?? 1 };
  });
}

/** Lorentz-Berthelot tables, ntypes × ntypes */
export function mixLorentzBerthelot(sp: SpeciesParams[]): { eps: Float64Array; sig: Float64Array } {
  const n = sp.length;
  const eps = new Float64Array(n * n), sig = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    eps[i * n + j] = Math.sqrt(sp[i].eps * sp[j].eps);
    sig[i * n + j] = 0.5 * (sp[i].sig + sp[j].sig);
  }
  return { eps, sig };
}

function runConfiguration(inp: EvolveInput, ctx: Parameters<SolverRun>[1]): SolverOutput {
  const file = inp.xyz !== undefined ? 'xyz' : 'lammpsData';
  const conf = inp.xyz !== undefined ? parseExtendedXyz(inp.xyz, 'xyz') : parseLammpsData(inp.lammpsData!, 'lammpsData');
  const N = conf.N;
  const sp = resolveSpecies(conf, inp.species, file);
  const typeIndex = new Map(sp.map((s, t) => [s.key, t]));
  const types = Int32Array.from(conf.species, (k) => typeIndex.get(k)!);
  const mass = Float64Array.from(sp, (s) => s.mass);
  const box = conf.box;
  const Lmin = Math.min(box[0], box[1], box[2]);
  const V = box[0] * box[1] * box[2];
  const rc = inp.rc;
  if (!(rc < 0.5 * Lmin)) bad('rc', `rc ${rc} must be below half the shortest box side (${0.5 * Lmin}): the minimum-image convention would not hold`);
  const steps = inp.steps;
  if (N * steps > MAX_ATOM_STEPS) bad('steps', `${N} atoms × ${steps} steps exceeds the ${MAX_ATOM_STEPS.toExponential(0)} atom-steps a request may take; lower steps to ${Math.floor(MAX_ATOM_STEPS / N)}`);
  const energyStride = inp.energyStride ?? Math.max(1, Math.ceil(steps / 100));
  // default: 10 intervals, fewer for big systems on short runs: a snapshot costs N²/2 distances, an
  // MD step about 20·N pair forces, so k ≤ 40·steps/N keeps the RDF below about half the MD's cost
  const rdfIntervals = Math.max(1, Math.min(10, Math.floor((40 * steps) / N)));
  const rdfStride = inp.rdfStride ?? Math.ceil(steps / rdfIntervals);
  const frameStride = inp.frameStride ?? steps;
  const nEnergy = Math.floor(steps / energyStride) + 1 + (steps % energyStride === 0 ? 0 : 1);
  if (nEnergy > MAX_ENERGY_SAMPLES) bad('energyStride', `energyStride ${energyStride} gives ${nEnergy} energy samples, more than ${MAX_ENERGY_SAMPLES}; raise it to at least ${Math.ceil(steps / (MAX_ENERGY_SAMPLES - 2))}`);
  const nRdf = Math.floor(steps / rdfStride) + 1;
  if (nRdf * N * (N - 1) / 2 > MAX_RDF_PAIRS) bad('rdfStride', `rdfStride ${rdfStride} gives ${nRdf} RDF snapshots of ${N} atoms, more than ${MAX_RDF_PAIRS.toExponential(1)} pair distances; raise it`);
  const nFrames = Math.floor(steps / frameStride) + 1;
  if (nFrames * N > MAX_FRAME_ATOMS) bad('frameStride', `frameStride ${frameStride} gives ${nFrames} frames of ${N} atoms, more than ${MAX_FRAME_ATOMS} positions; raise it`);
  for (let a = 0; a < N; a++) for (let d = 0; d < 3; d++) {
    const x = conf.pos[3 * a + d] - conf.origin[d];
    if (Math.abs(x) > 1e6 * box[d]) bad(file, `${file} line ${conf.line[a]}: the atom lies more than 10^6 box lengths outside the box`);
  }

  // velocities: the file's, or drawn at T0, or zero
  const dof = 3 * N - 3;
  let vel: Float64Array;
  let velocitySource: 'file' | 'T0' | 'zero';
  if (conf.vel) {
    if (inp.T0 !== undefined) bad('T0', `T0 draws velocities, but ${file} already holds velocities: remove T0 (or the velocities)`);
    vel = conf.vel;
    velocitySource = 'file';
  } else if (inp.T0 !== undefined && inp.T0 > 0) {
    vel = drawVelocities(N, types, mass, inp.T0, ctx.seed);
    velocitySource = 'T0';
  } else {
    vel = new Float64Array(3 * N);
    velocitySource = 'zero';
  }
  // the seed only draws velocities at T0; otherwise the run uses no random numbers
  if (inp.seed !== undefined && velocitySource !== 'T0') {
    throw noEffectRefusal('seed', velocitySource === 'file'
      ? `with ${file}, whose velocities are used: the seed only draws velocities at T0 when the file has none`
      : 'without T0 > 0: the seed only draws velocities at T0 (the file has none, so they start at zero)');
  }
  // the step: the caller's, or the default following the starting temperature (2 KE / dof)
  let twoKE = 0;
  for (let a = 0; a < N; a++) for (let d = 0; d < 3; d++) twoKE += mass[types[a]] * vel[3 * a + d] ** 2;
  const dt = inp.dtSim ?? defaultDtSim(dof > 0 ? twoKE / dof : 0);
  const mix = mixLorentzBerthelot(sp);
  const shift = inp.shift ?? false;
  const pos = new Float64Array(3 * N);
  for (let a = 0; a < N; a++) for (let d = 0; d < 3; d++) pos[3 * a + d] = conf.pos[3 * a + d] - conf.origin[d];
  const sys = new LjSystem({
    pos, vel, box, img: conf.img ?? undefined, types, mass,
    pair: { kind: 'table', ntypes: sp.length, eps: mix.eps, sig: mix.sig }, rc, shift, skin: USER_SKIN, dt,
  });
  if (!Number.isFinite(sys.potential)) {
    const [i, j] = closestPair(sys);
    bad(file, `${file} lines ${conf.line[i]} and ${conf.line[j]}: the two atoms coincide (infinite pair energy)`);
  }

  // stability number: the stiffest pair vibration at the LJ minimum, ω² = U''_ij(r_min)/μ_ij
  let omega2 = 0;
  for (let i = 0; i < sp.length; i++) for (let j = 0; j < sp.length; j++) {
    const t = i * sp.length + j;
    const mu = (mass[i] * mass[j]) / (mass[i] + mass[j]);
    omega2 = Math.max(omega2, LJ_CURVATURE * mix.eps[t] / (mix.sig[t] * mix.sig[t]) / mu);
  }
  const stability = { number: dt * Math.sqrt(omega2), limit: 2, stable: dt * Math.sqrt(omega2) < 2, name: 'dt·ω, ω² = max over pairs of U\'\'_ij(r_min)/μ_ij (velocity Verlet limit 2)' };
  const unstable = (step: number, why: string): never => {
    throw refuse('UNSTABLE', `${why} at step ${step}; reduce dtSim or check the configuration for overlapping atoms`, { stability: { ...stability, stable: false } });
  };

  const energy: { step: number; kinetic: number; potential: number; total: number }[] = [];
  const thermo: { step: number; temp: number; press: number }[] = [];
  const tS: number[] = [], eS: number[] = [], keS: number[] = [], peS: number[] = [], TS: number[] = [], PS: number[] = [];
  const record = (step: number, KE: number) => {
    const PE = sys.potential;
    const T = 2 * KE / dof;
    const P = (2 * KE + sys.virial) / (3 * V);
    energy.push({ step, kinetic: KE / N, potential: PE / N, total: (KE + PE) / N });
    thermo.push({ step, temp: T, press: P });
    tS.push(step * dt); eS.push((KE + PE) / N); keS.push(KE / N); peS.push(PE / N); TS.push(T); PS.push(P);
  };
  const rdfMax = 0.5 * Lmin;
  const rdfBins = inp.rdfBins ?? 100;
  const hist = new Float64Array(rdfBins);
  const rdfSteps: number[] = [];
  const frames: { step: number; positions: number[][] }[] = [];
  const frame = (step: number) => {
    const positions: number[][] = new Array(N);
    for (let a = 0; a < N; a++) {
      const p = [0, 0, 0];
      for (let d = 0; d < 3; d++) p[d] = conf.origin[d] + sys.pos[3 * a + d] + sys.img[3 * a + d] * box[d];
      positions[a] = p;
    }
    frames.push({ step, positions });
  };

  // drift is measured on the energy the trajectory conserves: with the shifted potential (the forces
  // are the same whether or not the energy is shifted). The unshifted lj/cut total jumps by U_ij(rc)
  // whenever a pair crosses the cutoff: that is the model (LAMMPS shows the same jumps), not an
  // integration error, so it is reported but not counted as drift.
  const conserved = (KE: number) => KE + (shift ? sys.potential : sys.potential - sys.cutoffEnergy);
  const KE0 = sys.kinetic();
  const E0 = KE0 + sys.potential;
  const C0 = conserved(KE0);
  const scaleE = Math.max(Math.abs(C0), KE0, 1e-12 * N);
  record(0, KE0);
  accumulateRdf(sys.pos, box, rdfMax, hist); rdfSteps.push(0);
  frame(0);
  const progressEvery = Math.max(1, Math.floor(steps / 50));
  let sumPE = 0, maxDev = 0, KE = KE0;
  for (let s = 1; s <= steps; s++) {
    KE = sys.step();
    const C = conserved(KE);
    if (!Number.isFinite(C)) unstable(s, 'the energy became non-finite');
    const dev = Math.abs(C - C0);
    if (dev > maxDev) maxDev = dev;
    if (dev > 0.5 * scaleE) unstable(s, `the total energy drifted by ${(100 * dev / scaleE).toFixed(1)} %`);
    sumPE += sys.potential;
    if (s % energyStride === 0 || s === steps) record(s, KE);
    if (s % rdfStride === 0) { accumulateRdf(sys.pos, box, rdfMax, hist); rdfSteps.push(s); }
    if (s % frameStride === 0) frame(s);
    if (s % progressEvery === 0) ctx.progress(s / steps);
  }
  const Eend = KE + sys.potential;
  const drift = Math.abs(conserved(KE) - C0) / scaleE;
  const rdf = normaliseRdf(hist, rdfMax, N, V, rdfSteps.length);
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const errorPct = 100 * drift;
  const lo = conf.origin;
  return {
    value: sumPE / steps / N,
    result: {
      format: conf.format,
      N,
      species: sp,
      box: { lo: [...lo], hi: [lo[0] + box[0], lo[1] + box[1], lo[2] + box[2]], sides: [...box] },
      volume: V,
      density: N / V,
      steps,
      dtSim: dt,
      rc,
      shift,
      skin: USER_SKIN,
      velocities: velocitySource,
      degreesOfFreedom: dof,
      energy,
      thermo,
      temperature: mean(TS),
      pressure: mean(PS),
      rdf,
      rdfSteps,
      frames,
      meanPotentialPerParticle: sumPE / steps / N,
      energyDrift: drift,
      maxEnergyDeviation: maxDev / scaleE,
      conservedEnergyPerParticle: { initial: C0 / N, final: conserved(KE) / N },
      totalEnergyChange: (Eend - E0) / N,
      momentum: sys.momentum(),
      neighborRebuilds: sys.rebuilds,
      neighborList: sys.listMode,
      unusedFromFile: conf.unused,
      ...(velocitySource === 'T0' ? { seed: ctx.seed } : {}),
    },
    precision: precisionOf({
      errorPct,
      boundPct: 0.1,
      reference: 'total-energy conservation: |E(end) - E(0)| / max(|E(0)|, KE(0)) over the NVE run, E with the pair energy shifted to 0 at rc (the energy the trajectory conserves)',
      referenceValue: C0 / N,
      certificate: 'error-estimate',
    }),
    series: { t: tS, E: eS, KE: keS, PE: peS, T: TS, P: PS },
    stability,
  };
}

/** Gaussian velocities at temperature T0 (LAMMPS `velocity all create T0 seed dist gaussian mom yes`):
 * v ~ N(0, T0/m) per component, centre-of-mass velocity removed, scaled so 2 KE / (3N − 3) = T0. */
function drawVelocities(N: number, types: Int32Array, mass: Float64Array, T0: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const vel = new Float64Array(3 * N);
  for (let a = 0; a < N; a++) {
    const s = 1 / Math.sqrt(mass[types[a]]);
    for (let d = 0; d < 3; d++) vel[3 * a + d] = s * rng.normal();
  }
  let M = 0;
  const p = [0, 0, 0];
  for (let a = 0; a < N; a++) { const m = mass[types[a]]; M += m; for (let d = 0; d < 3; d++) p[d] += m * vel[3 * a + d]; }
  let mv2 = 0;
  for (let a = 0; a < N; a++) {
    const m = mass[types[a]];
    for (let d = 0; d < 3; d++) { vel[3 * a + d] -= p[d] / M; mv2 += m * vel[3 * a + d] ** 2; }
  }
  const T = mv2 / (3 * N - 3);
  const f = T > 0 ? Math.sqrt(T0 / T) : 0;
  for (let k = 0; k < 3 * N; k++) vel[k] *= f;
  return vel;
}

/** the pair of atoms at the shortest minimum-image distance (only on the error path: O(N²)) */
function closestPair(sys: LjSystem): [number, number] {
  const [Lx, Ly, Lz] = sys.box;
  let best = Infinity, bi = 0, bj = 1;
  for (let i = 0; i < sys.N; i++) for (let j = i + 1; j < sys.N; j++) {
    let dx = sys.pos[3 * i] - sys.pos[3 * j], dy = sys.pos[3 * i + 1] - sys.pos[3 * j + 1], dz = sys.pos[3 * i + 2] - sys.pos[3 * j + 2];
    dx -= Lx * Math.round(dx / Lx); dy -= Ly * Math.round(dy / Ly); dz -= Lz * Math.round(dz / Lz);
    const r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < best) { best = r2; bi = i; bj = j; }
  }
  return [bi, bj];
}
