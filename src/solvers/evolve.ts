// evolve: classical molecular dynamics in the microcanonical (NVE) ensemble.
// - Potential: Lennard-Jones 12-6, truncated at rc and shifted so U(rc) = 0 (reduced units
//   m = kB = 1; Allen & Tildesley, "Computer Simulation of Liquids", 2nd ed. 2017, §1.4 and §2.3;
//   Frenkel & Smit, "Understanding Molecular Simulation", 2nd ed. 2002, §3.2), periodic cubic box of
//   side L = (N/rho)^(1/3).
// - Integrator: velocity Verlet (Swope, Andersen, Berens & Wilson, J. Chem. Phys. 76, 637, 1982),
//   time-reversible and symplectic, so the total energy has no secular drift at a stable step; it
//   is stable for dt·ω < 2 with ω the fastest vibration (reported as the stability number, with
//   ω² ≈ 2·(U''_LJ(r_min) + bond stiffness)).
// - Neighbours: a Verlet list with skin 0.3σ built from cell lists (Allen & Tildesley §5.3; the
//   LAMMPS `neighbor 0.3 bin` scheme) and rebuilt as soon as any particle has moved more than half
//   the skin since the last build, so no pair inside rc is ever missed. Each listed pair carries
//   the periodic image it was found with; positions are wrapped into the box only at rebuilds, so
//   the images stay valid in between and any box size works (self-images included when L < rc).
// - Presets: lj-liquid (rho 0.8442, T0 0.72), lj-gas (rho 0.05, T0 1.5), crystal (FCC kept,
//   rho 1.0, T0 0.4), polymer (bead-spring chains of 10 beads with harmonic bonds
//   U = kBond/2 (r - r0Bond)^2, or FENE U = -kBond R0^2/2 ln(1 - (r/R0)^2) with R0 = r0Bond
//   (default 1.5) as in Kremer & Grest, J. Chem. Phys. 92, 5057, 1990; LJ acts between all pairs).
// - Start: FCC lattice (simple cubic, serpentine-ordered for polymer chains), vacancies spread
//   evenly when N does not fill it; Gaussian velocities from the seeded RNG, zero total momentum,
//   rescaled to T0 with 3N - 3 degrees of freedom.
// - Equilibration: `equilibrate` steps (preset default) with the velocities rescaled to T0 after
//   every step (isokinetic; Woodcock, Chem. Phys. Lett. 10, 257, 1971) melt the lattice for the
//   liquid and gas and bring every preset to T0; the NVE run and all measurements follow it.
// value = time-averaged potential energy per particle; reference = total-energy conservation:
// the relative drift |E(end) - E(0)| / max(|E(0)|, KE(0)) is the error, bounded at 1e-3 (0.1 %).
// Pressure is the virial P = (N T + W/3)/V with W = Σ r_ij·f_ij (no tail correction).
import { z } from 'zod';
import { createRng } from './lib/rng.ts';
import type { SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';

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

const input = z.strictObject({
  preset: z.enum(['lj-liquid', 'lj-gas', 'crystal', 'polymer']).default('lj-liquid').describe('lj-liquid (default), lj-gas, crystal, polymer'),
  N: z.number().int().min(2).max(2000).optional().describe('number of particles (2 to 2000; preset default)'),
  rho: z.number().min(0.001).max(1.5).optional().describe('number density N/V (preset default)'),
  T0: z.number().min(0).max(50).optional().describe('initial temperature in ε/kB (preset default)'),
  steps: z.number().int().min(10).max(200_000).default(2000).describe('velocity-Verlet NVE steps (10 to 200000)'),
  equilibrate: z.number().int().min(0).max(50_000).optional().describe('velocity-rescaled steps at T0 before the NVE run (preset default: 1000 liquid/polymer, 300 gas/crystal)'),
  dtSim: z.number().gt(0).max(0.02).default(0.003).describe('time step in reduced units'),
  eps: z.number().gt(0).max(100).default(1).describe('LJ well depth ε'),
  sig: z.number().min(0.5).max(2).default(1).describe('LJ diameter σ'),
  rc: z.number().min(0.5).max(5).default(2.5).describe('cutoff radius (absolute, same units as sig)'),
  kBond: z.number().gt(0).max(10_000).default(30).describe('polymer bond stiffness'),
  r0Bond: z.number().min(0.5).max(3).optional().describe('harmonic rest length (default 1) or FENE maximum extension R0 (default 1.5)'),
  bond: z.enum(['harmonic', 'fene']).default('harmonic').describe('polymer bond type'),
  seed: z.number().int().min(0).max(0xffffffff).optional().describe('RNG seed for the initial velocities (default derived from inputs)'),
  sample: z.number().int().min(2).max(500).default(40).describe('number of samples in the energy series (2 to 500)'),
});

export type EvolveInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'evolve',
  domain: 'Molecular Dynamics',
  method: 'velocity-verlet',
  methodDescription: 'velocity-Verlet NVE, energy-conserving',
  operators: ['KO42-tensioned'],
  unit: 'epsilon',
  summary: 'Lennard-Jones molecular dynamics (truncated and shifted, periodic box, Verlet neighbour lists) integrated by velocity Verlet in NVE: mean potential energy per particle, energy drift, temperature, virial pressure, total momentum.',
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
  ],
  vocabulary: [
    'molecular dynamics', 'md', 'lennard-jones', 'lj', 'velocity verlet', 'verlet', 'nve',
    'microcanonical', 'atoms', 'particles', 'argon', 'noble gas', 'liquid', 'fluid', 'gas', 'crystal',
    'fcc', 'lattice', 'solid', 'melt', 'polymer', 'bead-spring', 'fene', 'chains', 'virial', 'pressure',
    'temperature', 'potential energy', 'energy drift', 'periodic box', 'cutoff', 'neighbour list',
    'cell list', 'lammps',
  ],
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
  const p = PRESETS[inp.preset];
  const bond = inp.bond;
  return {
    preset: inp.preset,
    N: inp.N ?? p.N,
    rho: inp.rho ?? p.rho,
    T0: inp.T0 ?? p.T0,
    dt: inp.dtSim,
    eps: inp.eps,
    sig: inp.sig,
    rc: inp.rc,
    kBond: inp.kBond,
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
 * The simulated system: positions, velocities, forces and the neighbour list. Exported for tests
 * and the benchmark; the solver drives it through `run`.
 */
export class MdSystem {
  readonly N: number;
  readonly L: number;
  readonly pos: Float64Array;
  readonly vel: Float64Array;
  readonly force: Float64Array;
  /** image counters: unwrapped position = pos + img·L */
  readonly img: Int32Array;
  readonly bonds: Int32Array;
  readonly dt: number;
  potential = 0;
  virial = 0;
  rebuilds = 0;
  bondBroken = false;
  /** neighbour-list scheme of the last build: cell lists with an m = 1 or 2 stencil, all pairs
   * with the minimum image, or all pairs with all images (box smaller than 2 rlist) */
  listMode: 'cells-1' | 'cells-2' | 'all-pairs' | 'all-images' = 'all-pairs';

  private readonly rc2: number;
  private readonly sig2: number;
  private readonly eps4: number;
  private readonly eps24: number;
  private readonly eShift: number;
  private readonly rlist: number;
  private readonly halfSkin2: number;
  private readonly kBond: number;
  private readonly r0Bond: number;
  private readonly fene: boolean;
  private readonly posRef: Float64Array;
  /** pairs whose nearest image is the particle itself: CSR list of 3·j by i */
  private nbrStart: Int32Array;
  private nbrJ3: Int32Array;
  private nMain = 0;
  /** pairs across the periodic boundary: 3·i, 3·j and 3·(image code) */
  private shI3: Int32Array;
  private shJ3: Int32Array;
  private shCode3: Uint16Array;
  private nShift = 0;
  /** 3·(code of the zero shift) in the current shift table */
  private zeroCode3 = 0;
  private shiftTable: Float64Array = new Float64Array(3);
  private cellStart: Int32Array = new Int32Array(0);
  private cellFill: Int32Array = new Int32Array(0);
  private readonly cellOf: Int32Array;
  private readonly cellAtoms: Int32Array;
  private readonly rank: Int32Array;
  private readonly sorted: Float64Array;

  constructor(init: InitialState, cfg: MdConfig) {
    this.N = init.N;
    this.L = init.L;
    this.pos = Float64Array.from(init.pos);
    this.vel = Float64Array.from(init.vel);
    this.force = new Float64Array(3 * this.N);
    this.img = new Int32Array(3 * this.N);
    this.bonds = init.bonds;
    this.dt = cfg.dt;
    this.rc2 = cfg.rc * cfg.rc;
    this.sig2 = cfg.sig * cfg.sig;
    this.eps4 = 4 * cfg.eps;
    this.eps24 = 24 * cfg.eps;
    const sr6 = Math.pow(cfg.sig / cfg.rc, 6);
    this.eShift = 4 * cfg.eps * sr6 * (sr6 - 1);
    const skin = SKIN_SIG * cfg.sig;
    this.rlist = cfg.rc + skin;
    this.halfSkin2 = (0.5 * skin) ** 2;
    this.kBond = cfg.kBond;
    this.r0Bond = cfg.r0Bond;
    this.fene = cfg.bond === 'fene';
    this.posRef = new Float64Array(3 * this.N);
    this.nbrStart = new Int32Array(this.N + 1);
    const guess = Math.max(64, Math.ceil(this.N * (2 / 3) * Math.PI * this.rlist ** 3 * (this.N / this.L ** 3) * 1.3));
    this.nbrJ3 = new Int32Array(guess);
    const guessShift = Math.max(64, guess >> 1);
    this.shI3 = new Int32Array(guessShift);
    this.shJ3 = new Int32Array(guessShift);
    this.shCode3 = new Uint16Array(guessShift);
    this.cellOf = new Int32Array(this.N);
    this.cellAtoms = new Int32Array(this.N);
    this.rank = new Int32Array(this.N);
    this.sorted = new Float64Array(3 * this.N);
    this.buildNeighbors();
    this.computeForces();
  }

  /** Wraps positions into [0, L) (keeping image counters) and rebuilds the half neighbour list. */
  buildNeighbors(): void {
    const { N, L, pos, img } = this;
    for (let k = 0; k < 3 * N; k++) {
      const x = pos[k];
      if (x < 0 || x >= L) {
        const s = Math.floor(x / L);
        let w = x - s * L;
        if (w >= L) w -= L; // rounding at the top edge
        if (w < 0) w = 0;
        pos[k] = w;
        img[k] += s;
      }
    }
    this.posRef.set(pos);
    const rl2 = this.rlist * this.rlist;
    const start = this.nbrStart;
    this.nMain = 0;
    this.nShift = 0;
    // choose the cheapest exact scheme: cells of side >= rlist/m with a (2m+1)^3 stencil
    // (needs ncell >= 2m+1 so every stencil cell is distinct), or all pairs with the minimum
    // image (needs L >= 2 rlist), or all pairs with all images for tiny boxes
    const density = N / (L * L * L);
    let bestM = 0, bestCells = 0, bestCost = L >= 2 * this.rlist ? 0.5 * N : Infinity;
    for (let m = 1; m <= 2; m++) {
      const ncell = Math.min(48, Math.floor((L * m) / this.rlist));
      if (ncell < 2 * m + 1) continue;
      const side = L / ncell;
      const cost = 0.5 * (2 * m + 1) ** 3 * side ** 3 * density + 0.25 * (2 * m + 1) ** 3;
      if (cost < bestCost) { bestCost = cost; bestM = m; bestCells = ncell; }
    }
    if (bestM > 0) {
      const m = bestM, ncell = bestCells;
      this.listMode = m === 1 ? 'cells-1' : 'cells-2';
      this.setShiftTable(1);
      const nc3 = ncell * ncell * ncell;
      // counting sort of the particles by cell: cellStart is a CSR index into cellAtoms, and
      // sorted holds their coordinates in that order, so candidate scans are contiguous
      if (this.cellStart.length !== nc3 + 1) {
        this.cellStart = new Int32Array(nc3 + 1);
        this.cellFill = new Int32Array(nc3);
      }
      const cellStart = this.cellStart, cellOf = this.cellOf, cellAtoms = this.cellAtoms, sorted = this.sorted;
      cellStart.fill(0);
      const inv = ncell / L;
      for (let i = 0; i < N; i++) {
        const cx = Math.min(ncell - 1, Math.floor(pos[3 * i] * inv));
        const cy = Math.min(ncell - 1, Math.floor(pos[3 * i + 1] * inv));
        const cz = Math.min(ncell - 1, Math.floor(pos[3 * i + 2] * inv));
        const c = cx + ncell * (cy + ncell * cz);
        cellOf[i] = c;
        cellStart[c + 1]++;
      }
      for (let c = 0; c < nc3; c++) cellStart[c + 1] += cellStart[c];
      const fill = this.cellFill;
      fill.set(cellStart.subarray(0, nc3));
      for (let i = 0; i < N; i++) {
        const k = fill[cellOf[i]]++;
        cellAtoms[k] = i;
        this.rank[i] = k;
        sorted[3 * k] = pos[3 * i]; sorted[3 * k + 1] = pos[3 * i + 1]; sorted[3 * k + 2] = pos[3 * i + 2];
      }
      for (let i = 0; i < N; i++) {
        start[i] = this.nMain;
        const i3 = 3 * i;
        const ci = cellOf[i];
        const cx = ci % ncell, cy = Math.floor(ci / ncell) % ncell, cz = Math.floor(ci / (ncell * ncell));
        // half stencil by rows of cells along x: row (dy, dz) = (0, 0) from this particle on
        // (later in the sorted order), rows lexicographically after it in full. Cells of one
        // row are contiguous in the sorted order except where the row wraps around the box.
        for (let dz = 0; dz <= m; dz++) {
          let nz = cz + dz, sz = 0;
          if (nz >= ncell) { nz -= ncell; sz = 1; }
          for (let dy = dz === 0 ? 0 : -m; dy <= m; dy++) {
            let ny = cy + dy, sy = 0;
            if (ny < 0) { ny += ncell; sy = -1; } else if (ny >= ncell) { ny -= ncell; sy = 1; }
            const row = ncell * (ny + ncell * nz);
            const ownRow = dz === 0 && dy === 0;
            const lo = ownRow ? cx : cx - m, hi = cx + m;
            const codeBase = 3 * (1 + 3 * (sy + 1) + 9 * (sz + 1));
            // middle segment: no wrap in x
            const a0 = lo < 0 ? 0 : lo, a1 = hi >= ncell ? ncell - 1 : hi;
            this.scan(i3, ownRow ? this.rank[i] + 1 : cellStart[row + a0], cellStart[row + a1 + 1], codeBase, 0, sy * L, sz * L);
            // wrapped on the low side: cells ncell+lo .. ncell-1, image shifted by -L in x
            if (lo < 0) this.scan(i3, cellStart[row + ncell + lo], cellStart[row + ncell], codeBase - 3, -L, sy * L, sz * L);
            // wrapped on the high side: cells 0 .. hi-ncell, image shifted by +L in x
            if (hi >= ncell) this.scan(i3, cellStart[row], cellStart[row + hi - ncell + 1], codeBase + 3, L, sy * L, sz * L);
          }
        }
      }
    } else if (L >= 2 * this.rlist) {
      // all pairs, minimum image (at most one image of j lies within rlist of i)
      this.listMode = 'all-pairs';
      this.setShiftTable(1);
      const half = 0.5 * L;
      for (let i = 0; i < N; i++) {
        start[i] = this.nMain;
        const xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        for (let j = i + 1; j < N; j++) {
          let rx = xi - pos[3 * j], ry = yi - pos[3 * j + 1], rz = zi - pos[3 * j + 2];
          const sx = rx > half ? 1 : rx < -half ? -1 : 0;
          const sy = ry > half ? 1 : ry < -half ? -1 : 0;
          const sz = rz > half ? 1 : rz < -half ? -1 : 0;
          rx -= sx * L; ry -= sy * L; rz -= sz * L;
          if (rx * rx + ry * ry + rz * rz < rl2) {
            this.addPair(3 * i, 3 * j, 3 * ((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1)));
          }
        }
      }
    } else {
      // small box: every pair with every image within the list radius (self-images for j = i,
      // half of them, so each periodic pair is counted once)
      this.listMode = 'all-images';
      const k = Math.ceil(this.rlist / L);
      this.setShiftTable(k);
      const K = 2 * k + 1;
      for (let i = 0; i < N; i++) {
        start[i] = this.nMain;
        const xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        for (let j = i; j < N; j++) {
          const bx = xi - pos[3 * j], by = yi - pos[3 * j + 1], bz = zi - pos[3 * j + 2];
          for (let sz = -k; sz <= k; sz++) for (let sy = -k; sy <= k; sy++) for (let sx = -k; sx <= k; sx++) {
            if (j === i) {
              // keep the lexicographically positive half of the nonzero images
              if (sz < 0 || (sz === 0 && (sy < 0 || (sy === 0 && sx <= 0)))) continue;
            }
            const rx = bx - sx * L, ry = by - sy * L, rz = bz - sz * L;
            if (rx * rx + ry * ry + rz * rz < rl2) {
              this.addPair(3 * i, 3 * j, 3 * ((sx + k) + K * (sy + k) + K * K * (sz + k)));
            }
          }
        }
      }
    }
    start[N] = this.nMain;
    this.rebuilds++;
  }

  private setShiftTable(k: number): void {
    const K = 2 * k + 1;
    const t = new Float64Array(3 * K * K * K);
    for (let sz = -k; sz <= k; sz++) for (let sy = -k; sy <= k; sy++) for (let sx = -k; sx <= k; sx++) {
      const c = (sx + k) + K * (sy + k) + K * K * (sz + k);
      t[3 * c] = sx * this.L; t[3 * c + 1] = sy * this.L; t[3 * c + 2] = sz * this.L;
    }
    this.shiftTable = t;
    this.zeroCode3 = 3 * (k + K * k + K * K * k);
  }

  /** lists the sorted particles first..last-1 that lie within rlist of particle i3's image */
  private scan(i3: number, first: number, last: number, code3: number, ox: number, oy: number, oz: number): void {
    const pos = this.pos, sorted = this.sorted, cellAtoms = this.cellAtoms, rl2 = this.rlist * this.rlist;
    const bx = pos[i3] - ox, by = pos[i3 + 1] - oy, bz = pos[i3 + 2] - oz;
    if (code3 === this.zeroCode3) {
      let nm = this.nMain;
      let list = this.nbrJ3;
      for (let k = first; k < last; k++) {
        const rx = bx - sorted[3 * k], ry = by - sorted[3 * k + 1], rz = bz - sorted[3 * k + 2];
        if (rx * rx + ry * ry + rz * rz < rl2) {
          if (nm >= list.length) { this.nMain = nm; this.growMain(); list = this.nbrJ3; }
          list[nm++] = 3 * cellAtoms[k];
        }
      }
      this.nMain = nm;
    } else {
      for (let k = first; k < last; k++) {
        const rx = bx - sorted[3 * k], ry = by - sorted[3 * k + 1], rz = bz - sorted[3 * k + 2];
        if (rx * rx + ry * ry + rz * rz < rl2) this.addPair(i3, 3 * cellAtoms[k], code3);
      }
    }
  }

  private growMain(): void {
    const a = new Int32Array(2 * this.nbrJ3.length); a.set(this.nbrJ3); this.nbrJ3 = a;
  }

  private addPair(i3: number, j3: number, code3: number): void {
    if (code3 === this.zeroCode3) {
      if (this.nMain >= this.nbrJ3.length) this.growMain();
      this.nbrJ3[this.nMain++] = j3;
    } else {
      if (this.nShift >= this.shI3.length) {
        const cap = 2 * this.shI3.length;
        const a = new Int32Array(cap); a.set(this.shI3); this.shI3 = a;
        const b = new Int32Array(cap); b.set(this.shJ3); this.shJ3 = b;
        const c = new Uint16Array(cap); c.set(this.shCode3); this.shCode3 = c;
      }
      this.shI3[this.nShift] = i3;
      this.shJ3[this.nShift] = j3;
      this.shCode3[this.nShift] = code3;
      this.nShift++;
    }
  }

  /** Forces, potential energy and virial from the current positions. */
  computeForces(): void {
    const N = this.N, pos = this.pos, f = this.force;
    f.fill(0);
    const start = this.nbrStart, nj = this.nbrJ3;
    const rc2 = this.rc2, sig2 = this.sig2, eps4 = this.eps4, eps24 = this.eps24, eShift = this.eShift;
    // LJ sums kept in reduced form: pe = Σ s⁶(s⁶ - 1), vir = Σ s⁶(2s⁶ - 1), scaled after the loops
    let pe = 0, vir = 0, inside = 0;
    // pairs inside the box: no image shift
    for (let i = 0; i < N; i++) {
      const i3 = 3 * i;
      const xi = pos[i3], yi = pos[i3 + 1], zi = pos[i3 + 2];
      let fxi = 0, fyi = 0, fzi = 0;
      const end = start[i + 1];
      for (let p = start[i]; p < end; p++) {
        const j3 = nj[p];
        const dx = xi - pos[j3];
        const dy = yi - pos[j3 + 1];
        const dz = zi - pos[j3 + 2];
        const r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
          const ir2 = 1 / r2;
          const s2 = sig2 * ir2;
          const s6 = s2 * s2 * s2;
          const t = s6 * (2 * s6 - 1);
          const ff = eps24 * t * ir2;
          pe += s6 * (s6 - 1);
          vir += t;
          inside++;
          const fx = ff * dx, fy = ff * dy, fz = ff * dz;
          fxi += fx; fyi += fy; fzi += fz;
          f[j3] -= fx; f[j3 + 1] -= fy; f[j3 + 2] -= fz;
        }
      }
      f[i3] += fxi; f[i3 + 1] += fyi; f[i3 + 2] += fzi;
    }
    // pairs across the periodic boundary, each with the image it was listed with
    const si = this.shI3, sj = this.shJ3, sc = this.shCode3, sh = this.shiftTable, nShift = this.nShift;
    for (let p = 0; p < nShift; p++) {
      const i3 = si[p], j3 = sj[p], c3 = sc[p];
      const dx = pos[i3] - pos[j3] - sh[c3];
      const dy = pos[i3 + 1] - pos[j3 + 1] - sh[c3 + 1];
      const dz = pos[i3 + 2] - pos[j3 + 2] - sh[c3 + 2];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const ir2 = 1 / r2;
        const s2 = sig2 * ir2;
        const s6 = s2 * s2 * s2;
        const t = s6 * (2 * s6 - 1);
        const ff = eps24 * t * ir2;
        pe += s6 * (s6 - 1);
        vir += t;
        inside++;
        const fx = ff * dx, fy = ff * dy, fz = ff * dz;
        f[i3] += fx; f[i3 + 1] += fy; f[i3 + 2] += fz;
        f[j3] -= fx; f[j3 + 1] -= fy; f[j3 + 2] -= fz;
      }
    }
    pe = eps4 * pe - eShift * inside;
    vir = eps24 * vir;
    const bonds = this.bonds;
    if (bonds.length > 0) {
      const L = this.L, img = this.img, k = this.kBond, r0 = this.r0Bond;
      for (let b = 0; b < bonds.length; b += 2) {
        const i3 = 3 * bonds[b], j3 = 3 * bonds[b + 1];
        const dx = pos[i3] - pos[j3] + (img[i3] - img[j3]) * L;
        const dy = pos[i3 + 1] - pos[j3 + 1] + (img[i3 + 1] - img[j3 + 1]) * L;
        const dz = pos[i3 + 2] - pos[j3 + 2] + (img[i3 + 2] - img[j3 + 2]) * L;
        const r2 = dx * dx + dy * dy + dz * dz;
        let ff: number; // force on i along (dx, dy, dz) divided by r
        if (this.fene) {
          const x = r2 / (r0 * r0);
          if (x >= 1) { this.bondBroken = true; ff = 0; continue; }
          pe += -0.5 * k * r0 * r0 * Math.log(1 - x);
          ff = -k / (1 - x);
        } else {
          const r = Math.sqrt(r2);
          pe += 0.5 * k * (r - r0) * (r - r0);
          ff = -k * (r - r0) / r;
        }
        vir += ff * r2;
        f[i3] += ff * dx; f[i3 + 1] += ff * dy; f[i3 + 2] += ff * dz;
        f[j3] -= ff * dx; f[j3 + 1] -= ff * dy; f[j3 + 2] -= ff * dz;
      }
    }
    this.potential = pe;
    this.virial = vir;
  }

  /** One velocity-Verlet step; returns the kinetic energy at the end of the step. */
  step(): number {
    const n3 = 3 * this.N, pos = this.pos, vel = this.vel, f = this.force, ref = this.posRef;
    const dt = this.dt, hdt = 0.5 * dt;
    let maxD2 = 0;
    for (let i = 0; i < n3; i += 3) {
      const vx = vel[i] + hdt * f[i], vy = vel[i + 1] + hdt * f[i + 1], vz = vel[i + 2] + hdt * f[i + 2];
      vel[i] = vx; vel[i + 1] = vy; vel[i + 2] = vz;
      const x = pos[i] + dt * vx, y = pos[i + 1] + dt * vy, z = pos[i + 2] + dt * vz;
      pos[i] = x; pos[i + 1] = y; pos[i + 2] = z;
      const ex = x - ref[i], ey = y - ref[i + 1], ez = z - ref[i + 2];
      const d2 = ex * ex + ey * ey + ez * ez;
      if (d2 > maxD2) maxD2 = d2;
    }
    if (maxD2 > this.halfSkin2) this.buildNeighbors();
    this.computeForces();
    let v2 = 0;
    for (let i = 0; i < n3; i++) {
      const v = vel[i] + hdt * f[i];
      vel[i] = v;
      v2 += v * v;
    }
    return 0.5 * v2;
  }

  kinetic(): number {
    let v2 = 0;
    for (let i = 0; i < 3 * this.N; i++) v2 += this.vel[i] * this.vel[i];
    return 0.5 * v2;
  }

  momentum(): [number, number, number] {
    const p: [number, number, number] = [0, 0, 0];
    for (let i = 0; i < this.N; i++) { p[0] += this.vel[3 * i]; p[1] += this.vel[3 * i + 1]; p[2] += this.vel[3 * i + 2]; }
    return p;
  }

  /** listed pairs (for tests) */
  pairCount(): number { return this.nMain + this.nShift; }
}

export const run: SolverRun<EvolveInput> = (inp, ctx): SolverOutput => {
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
  };
};
