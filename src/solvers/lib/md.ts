// Classical molecular dynamics of Lennard-Jones particles in an orthorhombic periodic box, shared
// by evolve's presets and its user configurations.
// - Potential: Lennard-Jones 12-6 truncated at rc, optionally shifted so U(rc) = 0 (LAMMPS
//   `pair_style lj/cut` with or without `pair_modify shift yes`; Allen & Tildesley, "Computer
//   Simulation of Liquids", 2nd ed. 2017, §1.4 and §2.3; Frenkel & Smit, "Understanding Molecular
//   Simulation", 2nd ed. 2002, §3.2). Several atom types carry per-pair ε_ij, σ_ij tables (the
//   caller mixes them, e.g. Lorentz-Berthelot); per-type masses.
// - Integrator: velocity Verlet (Swope, Andersen, Berens & Wilson, J. Chem. Phys. 76, 637, 1982),
//   time-reversible and symplectic, so the total energy has no secular drift at a stable step; it
//   is stable for dt·ω < 2 with ω the fastest vibration.
// - Neighbours: a Verlet list with a skin built from cell lists (Allen & Tildesley §5.3; the
//   LAMMPS `neighbor <skin> bin` scheme) and rebuilt as soon as any particle has moved more than
//   half the skin since the last build (LAMMPS `neigh_modify every 1 delay 0 check yes`), so no
//   pair inside rc is ever missed. Each listed pair carries the periodic image it was found with;
//   positions are wrapped into the box only at rebuilds, so the images stay valid in between and
//   any box size works (self-images included when a side is shorter than the list radius).
// - Optional bonds (bead-spring chains): harmonic U = k/2 (r − r0)², or FENE
//   U = −k R0²/2 ln(1 − (r/R0)²) (Kremer & Grest, J. Chem. Phys. 92, 5057, 1990), on unwrapped
//   coordinates (image counters), so bonds need no minimum image.
// - Radial distribution function: histogram of minimum-image pair distances up to half the
//   shortest side, normalised as LAMMPS `compute rdf` does (ideal-gas shell count with N − 1
//   partners, so an uncorrelated configuration has ⟨g⟩ = 1 exactly).

/** Pair interaction: one (ε, σ) with the reduced-form kernel, or per-type tables. */
export type PairSpec =
  | { kind: 'single'; eps: number; sig: number }
  | { kind: 'table'; ntypes: number; eps: Float64Array; sig: Float64Array };

export interface LjSystemOptions {
  /** interleaved x, y, z relative to the box origin; may lie outside [0, L) (wrapped at the first build) */
  pos: Float64Array;
  vel: Float64Array;
  /** box sides Lx, Ly, Lz (orthorhombic, periodic in all three directions) */
  box: readonly [number, number, number];
  /** initial image counters (LAMMPS image flags); default zero */
  img?: Int32Array;
  /** type index of each atom, 0 .. ntypes − 1 (only with a table pair spec) */
  types?: Int32Array;
  /** mass of each type (default 1) */
  mass?: Float64Array;
  pair: PairSpec;
  rc: number;
  /** subtract U(rc) from each pair energy (LAMMPS `pair_modify shift yes`) */
  shift: boolean;
  /** Verlet-list skin (absolute distance) */
  skin: number;
  dt: number;
  /** bonded pairs i0, j0, i1, j1, … */
  bonds?: Int32Array;
  bond?: { k: number; r0: number; fene: boolean };
}

export type ListMode = 'cells-1' | 'cells-2' | 'all-pairs' | 'all-images';

/**
 * The simulated system: positions, velocities, forces and the neighbour list.
 */
export class LjSystem {
  readonly N: number;
  readonly box: readonly [number, number, number];
  readonly pos: Float64Array;
  readonly vel: Float64Array;
  readonly force: Float64Array;
  /** image counters: unwrapped position = pos + img·L */
  readonly img: Int32Array;
  readonly bonds: Int32Array;
  readonly dt: number;
  /** 1/m per atom */
  readonly invMass: Float64Array;
  /** m per atom */
  readonly massOf: Float64Array;
  potential = 0;
  /** W = Σ r_ij·f_ij over pairs (and bonds) */
  virial = 0;
  /** Σ U_ij(rc) over the pairs inside rc: the unshifted potential minus this is the shifted one,
   * whose energy the trajectory conserves (the forces are the same), so drift is measured on it */
  cutoffEnergy = 0;
  rebuilds = 0;
  bondBroken = false;
  /** neighbour-list scheme of the last build: cell lists with an m = 1 or 2 stencil, all pairs
   * with the minimum image, or all pairs with all images (a side shorter than 2 rlist) */
  listMode: ListMode = 'all-pairs';

  private readonly rc2: number;
  // single-type reduced kernel
  private readonly sig2: number;
  private readonly eps4: number;
  private readonly eps24: number;
  private readonly eShift: number;
  private readonly uRc: number;
  // per-type tables (LAMMPS's lj1..lj4 and offset, flattened ntypes × ntypes)
  private readonly table: boolean;
  private readonly ntypes: number;
  private readonly types: Int32Array;
  /** type of atom i at index 3·i (the neighbour list stores 3·j) */
  private readonly types3: Int32Array;
  /** per type pair t: coef[5t .. 5t+4] = lj1, lj2, lj3, lj4, U_ij(rc) */
  private readonly coef: Float64Array;
  private readonly shiftOn: boolean = false;
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

  constructor(o: LjSystemOptions) {
    this.N = o.pos.length / 3;
    this.box = [o.box[0], o.box[1], o.box[2]];
    this.pos = Float64Array.from(o.pos);
    this.vel = Float64Array.from(o.vel);
    this.force = new Float64Array(3 * this.N);
    this.img = o.img ? Int32Array.from(o.img) : new Int32Array(3 * this.N);
    this.bonds = o.bonds ?? new Int32Array(0);
    this.dt = o.dt;
    this.rc2 = o.rc * o.rc;
    const N = this.N;
    this.types = o.types ?? new Int32Array(N);
    this.types3 = new Int32Array(3 * N);
    for (let i = 0; i < N; i++) this.types3[3 * i] = this.types[i];
    this.invMass = new Float64Array(N);
    this.massOf = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      const m = o.mass ? o.mass[this.types[i]] : 1;
      this.massOf[i] = m;
      this.invMass[i] = 1 / m;
    }
    const p = o.pair;
    if (p.kind === 'single') {
      this.table = false;
      this.ntypes = 1;
      this.sig2 = p.sig * p.sig;
      this.eps4 = 4 * p.eps;
      this.eps24 = 24 * p.eps;
      const sr6 = Math.pow(p.sig / o.rc, 6);
      this.uRc = 4 * p.eps * sr6 * (sr6 - 1);
      this.eShift = o.shift ? this.uRc : 0;
      this.coef = new Float64Array(0);
    } else {
      this.table = true;
      const nt = p.ntypes;
      this.ntypes = nt;
      this.sig2 = this.eps4 = this.eps24 = this.eShift = this.uRc = 0;
      this.shiftOn = o.shift;
      this.coef = new Float64Array(5 * nt * nt);
      for (let t = 0; t < nt * nt; t++) {
        const eps = p.eps[t], sig = p.sig[t];
        // the same coefficients as LAMMPS PairLJCut::init_one
        this.coef[5 * t] = 48 * eps * Math.pow(sig, 12);
        this.coef[5 * t + 1] = 24 * eps * Math.pow(sig, 6);
        this.coef[5 * t + 2] = 4 * eps * Math.pow(sig, 12);
        this.coef[5 * t + 3] = 4 * eps * Math.pow(sig, 6);
        const ratio = sig / o.rc;
        this.coef[5 * t + 4] = 4 * eps * (Math.pow(ratio, 12) - Math.pow(ratio, 6));
      }
    }
    this.rlist = o.rc + o.skin;
    this.halfSkin2 = (0.5 * o.skin) ** 2;
    this.kBond = o.bond?.k ?? 0;
    this.r0Bond = o.bond?.r0 ?? 1;
    this.fene = o.bond?.fene ?? false;
    this.posRef = new Float64Array(3 * N);
    this.nbrStart = new Int32Array(N + 1);
    const V = this.box[0] * this.box[1] * this.box[2];
    const guess = Math.max(64, Math.ceil(N * (2 / 3) * Math.PI * this.rlist ** 3 * (N / V) * 1.3));
    this.nbrJ3 = new Int32Array(guess);
    const guessShift = Math.max(64, guess >> 1);
    this.shI3 = new Int32Array(guessShift);
    this.shJ3 = new Int32Array(guessShift);
    this.shCode3 = new Uint16Array(guessShift);
    this.cellOf = new Int32Array(N);
    this.cellAtoms = new Int32Array(N);
    this.rank = new Int32Array(N);
    this.sorted = new Float64Array(3 * N);
    this.buildNeighbors();
    this.computeForces();
  }

  get volume(): number { return this.box[0] * this.box[1] * this.box[2]; }

  /** Wraps positions into [0, L) (keeping image counters) and rebuilds the half neighbour list. */
  buildNeighbors(): void {
    const { N, pos, img } = this;
    const [Lx, Ly, Lz] = this.box;
    for (let k = 0; k < 3 * N; k++) {
      const x = pos[k];
      const L = this.box[k % 3];
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
    const Lmin = Math.min(Lx, Ly, Lz);
    // choose the cheapest exact scheme: cells of side >= rlist/m with a (2m+1)^3 stencil
    // (needs at least 2m+1 cells along every side so every stencil cell is distinct), or all
    // pairs with the minimum image (needs every side >= 2 rlist), or all pairs with all images
    const density = N / (Lx * Ly * Lz);
    let bestM = 0, bestCost = Lmin >= 2 * this.rlist ? 0.5 * N : Infinity;
    let bestNc: [number, number, number] = [0, 0, 0];
    for (let m = 1; m <= 2; m++) {
      const nc = [Lx, Ly, Lz].map((L) => Math.min(48, Math.floor((L * m) / this.rlist))) as [number, number, number];
      if (Math.min(nc[0], nc[1], nc[2]) < 2 * m + 1) continue;
      const cellVol = (Lx / nc[0]) * (Ly / nc[1]) * (Lz / nc[2]);
      const cost = 0.5 * (2 * m + 1) ** 3 * cellVol * density + 0.25 * (2 * m + 1) ** 3;
      if (cost < bestCost) { bestCost = cost; bestM = m; bestNc = nc; }
    }
    if (bestM > 0) {
      const m = bestM;
      const [ncx, ncy, ncz] = bestNc;
      this.listMode = m === 1 ? 'cells-1' : 'cells-2';
      this.setShiftTable(1, 1, 1);
      const ncAll = ncx * ncy * ncz;
      // counting sort of the particles by cell: cellStart is a CSR index into cellAtoms, and
      // sorted holds their coordinates in that order, so candidate scans are contiguous
      if (this.cellStart.length !== ncAll + 1) {
        this.cellStart = new Int32Array(ncAll + 1);
        this.cellFill = new Int32Array(ncAll);
      }
      const cellStart = this.cellStart, cellOf = this.cellOf, cellAtoms = this.cellAtoms, sorted = this.sorted;
      cellStart.fill(0);
      const invx = ncx / Lx, invy = ncy / Ly, invz = ncz / Lz;
      for (let i = 0; i < N; i++) {
        const cx = Math.min(ncx - 1, Math.floor(pos[3 * i] * invx));
        const cy = Math.min(ncy - 1, Math.floor(pos[3 * i + 1] * invy));
        const cz = Math.min(ncz - 1, Math.floor(pos[3 * i + 2] * invz));
        const c = cx + ncx * (cy + ncy * cz);
        cellOf[i] = c;
        cellStart[c + 1]++;
      }
      for (let c = 0; c < ncAll; c++) cellStart[c + 1] += cellStart[c];
      const fill = this.cellFill;
      fill.set(cellStart.subarray(0, ncAll));
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
        const cx = ci % ncx, cy = Math.floor(ci / ncx) % ncy, cz = Math.floor(ci / (ncx * ncy));
        // half stencil by rows of cells along x: row (dy, dz) = (0, 0) from this particle on
        // (later in the sorted order), rows lexicographically after it in full. Cells of one
        // row are contiguous in the sorted order except where the row wraps around the box.
        for (let dz = 0; dz <= m; dz++) {
          let nz = cz + dz, sz = 0;
          if (nz >= ncz) { nz -= ncz; sz = 1; }
          for (let dy = dz === 0 ? 0 : -m; dy <= m; dy++) {
            let ny = cy + dy, sy = 0;
            if (ny < 0) { ny += ncy; sy = -1; } else if (ny >= ncy) { ny -= ncy; sy = 1; }
            const row = ncx * (ny + ncy * nz);
            const ownRow = dz === 0 && dy === 0;
            const lo = ownRow ? cx : cx - m, hi = cx + m;
            const codeBase = 3 * (1 + 3 * (sy + 1) + 9 * (sz + 1));
            // middle segment: no wrap in x
            const a0 = lo < 0 ? 0 : lo, a1 = hi >= ncx ? ncx - 1 : hi;
            this.scan(i3, ownRow ? this.rank[i] + 1 : cellStart[row + a0], cellStart[row + a1 + 1], codeBase, 0, sy * Ly, sz * Lz);
            // wrapped on the low side: cells ncx+lo .. ncx-1, image shifted by -Lx in x
            if (lo < 0) this.scan(i3, cellStart[row + ncx + lo], cellStart[row + ncx], codeBase - 3, -Lx, sy * Ly, sz * Lz);
            // wrapped on the high side: cells 0 .. hi-ncx, image shifted by +Lx in x
            if (hi >= ncx) this.scan(i3, cellStart[row], cellStart[row + hi - ncx + 1], codeBase + 3, Lx, sy * Ly, sz * Lz);
          }
        }
      }
    } else if (Lmin >= 2 * this.rlist) {
      // all pairs, minimum image (at most one image of j lies within rlist of i)
      this.listMode = 'all-pairs';
      this.setShiftTable(1, 1, 1);
      const hx = 0.5 * Lx, hy = 0.5 * Ly, hz = 0.5 * Lz;
      for (let i = 0; i < N; i++) {
        start[i] = this.nMain;
        const xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        for (let j = i + 1; j < N; j++) {
          let rx = xi - pos[3 * j], ry = yi - pos[3 * j + 1], rz = zi - pos[3 * j + 2];
          const sx = rx > hx ? 1 : rx < -hx ? -1 : 0;
          const sy = ry > hy ? 1 : ry < -hy ? -1 : 0;
          const sz = rz > hz ? 1 : rz < -hz ? -1 : 0;
          rx -= sx * Lx; ry -= sy * Ly; rz -= sz * Lz;
          if (rx * rx + ry * ry + rz * rz < rl2) {
            this.addPair(3 * i, 3 * j, 3 * ((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1)));
          }
        }
      }
    } else {
      // small box: every pair with every image within the list radius (self-images for j = i,
      // half of them, so each periodic pair is counted once)
      this.listMode = 'all-images';
      const kx = Math.ceil(this.rlist / Lx), ky = Math.ceil(this.rlist / Ly), kz = Math.ceil(this.rlist / Lz);
      this.setShiftTable(kx, ky, kz);
      const Kx = 2 * kx + 1, Ky = 2 * ky + 1;
      for (let i = 0; i < N; i++) {
        start[i] = this.nMain;
        const xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        for (let j = i; j < N; j++) {
          const bx = xi - pos[3 * j], by = yi - pos[3 * j + 1], bz = zi - pos[3 * j + 2];
          for (let sz = -kz; sz <= kz; sz++) for (let sy = -ky; sy <= ky; sy++) for (let sx = -kx; sx <= kx; sx++) {
            if (j === i) {
              // keep the lexicographically positive half of the nonzero images
              if (sz < 0 || (sz === 0 && (sy < 0 || (sy === 0 && sx <= 0)))) continue;
            }
            const rx = bx - sx * Lx, ry = by - sy * Ly, rz = bz - sz * Lz;
            if (rx * rx + ry * ry + rz * rz < rl2) {
              this.addPair(3 * i, 3 * j, 3 * ((sx + kx) + Kx * (sy + ky) + Kx * Ky * (sz + kz)));
            }
          }
        }
      }
    }
    start[N] = this.nMain;
    this.rebuilds++;
  }

  private setShiftTable(kx: number, ky: number, kz: number): void {
    const Kx = 2 * kx + 1, Ky = 2 * ky + 1, Kz = 2 * kz + 1;
    const [Lx, Ly, Lz] = this.box;
    const t = new Float64Array(3 * Kx * Ky * Kz);
    for (let sz = -kz; sz <= kz; sz++) for (let sy = -ky; sy <= ky; sy++) for (let sx = -kx; sx <= kx; sx++) {
      const c = (sx + kx) + Kx * (sy + ky) + Kx * Ky * (sz + kz);
      t[3 * c] = sx * Lx; t[3 * c + 1] = sy * Ly; t[3 * c + 2] = sz * Lz;
    }
    this.shiftTable = t;
    this.zeroCode3 = 3 * (kx + Kx * ky + Kx * Ky * kz);
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
    this.force.fill(0);
    if (this.table) this.pairForcesTable(); else this.pairForcesSingle();
    if (this.bonds.length > 0) this.bondForces();
  }

  /** one (ε, σ): sums kept in reduced form, pe = Σ s⁶(s⁶ - 1), vir = Σ s⁶(2s⁶ - 1), scaled after the loops */
  private pairForcesSingle(): void {
    const N = this.N, pos = this.pos, f = this.force;
    const start = this.nbrStart, nj = this.nbrJ3;
    const rc2 = this.rc2, sig2 = this.sig2, eps4 = this.eps4, eps24 = this.eps24, eShift = this.eShift;
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
    this.potential = eps4 * pe - eShift * inside;
    this.virial = eps24 * vir;
    this.cutoffEnergy = this.uRc * inside;
  }

  /** per-type tables, in LAMMPS's PairLJCut::compute form: f·r = r⁻⁶(lj1 r⁻⁶ − lj2), U = r⁻⁶(lj3 r⁻⁶ − lj4) (− U_ij(rc) when shifted, summed apart) */
  private pairForcesTable(): void {
    const N = this.N, pos = this.pos, f = this.force, types3 = this.types3, nt = this.ntypes;
    const start = this.nbrStart, nj = this.nbrJ3;
    const rc2 = this.rc2, c = this.coef;
    let pe = 0, vir = 0, ecut = 0;
    for (let i = 0; i < N; i++) {
      const i3 = 3 * i;
      const ti = types3[i3] * nt;
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
          const t = 5 * (ti + types3[j3]);
          const ir2 = 1 / r2;
          const r6 = ir2 * ir2 * ir2;
          const flj = r6 * (c[t] * r6 - c[t + 1]);
          const ff = flj * ir2;
          pe += r6 * (c[t + 2] * r6 - c[t + 3]);
          ecut += c[t + 4];
          vir += flj;
          const fx = ff * dx, fy = ff * dy, fz = ff * dz;
          fxi += fx; fyi += fy; fzi += fz;
          f[j3] -= fx; f[j3 + 1] -= fy; f[j3 + 2] -= fz;
        }
      }
      f[i3] += fxi; f[i3 + 1] += fyi; f[i3 + 2] += fzi;
    }
    const si = this.shI3, sj = this.shJ3, sc = this.shCode3, sh = this.shiftTable, nShift = this.nShift;
    for (let p = 0; p < nShift; p++) {
      const i3 = si[p], j3 = sj[p], c3 = sc[p];
      const dx = pos[i3] - pos[j3] - sh[c3];
      const dy = pos[i3 + 1] - pos[j3 + 1] - sh[c3 + 1];
      const dz = pos[i3 + 2] - pos[j3 + 2] - sh[c3 + 2];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2) {
        const t = 5 * (types3[i3] * nt + types3[j3]);
        const ir2 = 1 / r2;
        const r6 = ir2 * ir2 * ir2;
        const flj = r6 * (c[t] * r6 - c[t + 1]);
        const ff = flj * ir2;
        pe += r6 * (c[t + 2] * r6 - c[t + 3]);
        ecut += c[t + 4];
        vir += flj;
        const fx = ff * dx, fy = ff * dy, fz = ff * dz;
        f[i3] += fx; f[i3 + 1] += fy; f[i3 + 2] += fz;
        f[j3] -= fx; f[j3 + 1] -= fy; f[j3 + 2] -= fz;
      }
    }
    this.potential = this.shiftOn ? pe - ecut : pe;
    this.virial = vir;
    this.cutoffEnergy = ecut;
  }

  private bondForces(): void {
    const pos = this.pos, f = this.force, bonds = this.bonds;
    const [Lx, Ly, Lz] = this.box;
    const img = this.img, k = this.kBond, r0 = this.r0Bond;
    let pe = this.potential, vir = this.virial;
    for (let b = 0; b < bonds.length; b += 2) {
      const i3 = 3 * bonds[b], j3 = 3 * bonds[b + 1];
      const dx = pos[i3] - pos[j3] + (img[i3] - img[j3]) * Lx;
      const dy = pos[i3 + 1] - pos[j3 + 1] + (img[i3 + 1] - img[j3 + 1]) * Ly;
      const dz = pos[i3 + 2] - pos[j3 + 2] + (img[i3 + 2] - img[j3 + 2]) * Lz;
      const r2 = dx * dx + dy * dy + dz * dz;
      let ff: number; // force on i along (dx, dy, dz) divided by r
      if (this.fene) {
        const x = r2 / (r0 * r0);
        if (x >= 1) { this.bondBroken = true; continue; }
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
    this.potential = pe;
    this.virial = vir;
  }

  /** One velocity-Verlet step; returns the kinetic energy at the end of the step. */
  step(): number {
    const N = this.N, pos = this.pos, vel = this.vel, f = this.force, ref = this.posRef, invm = this.invMass;
    const dt = this.dt, hdt = 0.5 * dt;
    let maxD2 = 0;
    for (let a = 0, i = 0; a < N; a++, i += 3) {
      const im = invm[a];
      const vx = vel[i] + hdt * f[i] * im, vy = vel[i + 1] + hdt * f[i + 1] * im, vz = vel[i + 2] + hdt * f[i + 2] * im;
      vel[i] = vx; vel[i + 1] = vy; vel[i + 2] = vz;
      const x = pos[i] + dt * vx, y = pos[i + 1] + dt * vy, z = pos[i + 2] + dt * vz;
      pos[i] = x; pos[i + 1] = y; pos[i + 2] = z;
      const ex = x - ref[i], ey = y - ref[i + 1], ez = z - ref[i + 2];
      const d2 = ex * ex + ey * ey + ez * ez;
      if (d2 > maxD2) maxD2 = d2;
    }
    if (maxD2 > this.halfSkin2) this.buildNeighbors();
    this.computeForces();
    const mass = this.massOf;
    let v2 = 0;
    for (let a = 0, i = 0; a < N; a++, i += 3) {
      const im = invm[a], m = mass[a];
      const vx = vel[i] + hdt * f[i] * im, vy = vel[i + 1] + hdt * f[i + 1] * im, vz = vel[i + 2] + hdt * f[i + 2] * im;
      vel[i] = vx; vel[i + 1] = vy; vel[i + 2] = vz;
      v2 += m * vx * vx;
      v2 += m * vy * vy;
      v2 += m * vz * vz;
    }
    return 0.5 * v2;
  }

  /** Σ ½ m v² */
  kinetic(): number {
    let v2 = 0;
    const vel = this.vel, mass = this.massOf;
    for (let a = 0, i = 0; a < this.N; a++, i += 3) {
      const m = mass[a];
      v2 += m * vel[i] * vel[i];
      v2 += m * vel[i + 1] * vel[i + 1];
      v2 += m * vel[i + 2] * vel[i + 2];
    }
    return 0.5 * v2;
  }

  /** Σ m v */
  momentum(): [number, number, number] {
    const p: [number, number, number] = [0, 0, 0];
    const vel = this.vel, mass = this.massOf;
    for (let i = 0; i < this.N; i++) {
      const m = mass[i];
      p[0] += m * vel[3 * i]; p[1] += m * vel[3 * i + 1]; p[2] += m * vel[3 * i + 2];
    }
    return p;
  }

  /** listed pairs (for tests) */
  pairCount(): number { return this.nMain + this.nShift; }
}

/**
 * Adds the minimum-image pair distances of one configuration to `hist` (bins of width rmax/nbins
 * over [0, rmax), each unordered pair counted once). rmax must not exceed half the shortest side,
 * so the minimum image is the only image that can fall inside it. O(N²) per configuration.
 */
export function accumulateRdf(pos: Float64Array, box: readonly [number, number, number], rmax: number, hist: Float64Array): void {
  const N = pos.length / 3, nbins = hist.length;
  const [Lx, Ly, Lz] = box;
  // wrapped copy: with every coordinate in [0, L), |Δx| < L and the minimum-image distance along x
  // is min(|Δx|, L − |Δx|), branch-free
  const w = new Float64Array(3 * N);
  for (let k = 0; k < 3 * N; k++) {
    const L = box[k % 3];
    let x = pos[k] - L * Math.floor(pos[k] / L);
    if (x >= L) x -= L;
    w[k] = x;
  }
  const rmax2 = rmax * rmax, inv = nbins / rmax;
  for (let i = 0; i < N; i++) {
    const xi = w[3 * i], yi = w[3 * i + 1], zi = w[3 * i + 2];
    for (let j = i + 1; j < N; j++) {
      let dx = Math.abs(xi - w[3 * j]); dx = Math.min(dx, Lx - dx);
      let dy = Math.abs(yi - w[3 * j + 1]); dy = Math.min(dy, Ly - dy);
      let dz = Math.abs(zi - w[3 * j + 2]); dz = Math.min(dz, Lz - dz);
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rmax2) {
        const b = Math.floor(Math.sqrt(r2) * inv);
        if (b < nbins) hist[b] += 1;
      }
    }
  }
}

/**
 * g(r) at the bin centres from a pair histogram summed over `frames` configurations of N atoms:
 * g_k = 2 h_k / (frames · N (N − 1) · (4π/3)(r_{k+1}³ − r_k³) / V), LAMMPS `compute rdf`'s
 * normalisation (N − 1 partners per atom, so uniform random positions give ⟨g⟩ = 1).
 */
export function normaliseRdf(hist: Float64Array, rmax: number, N: number, volume: number, frames: number): { r: number[]; g: number[] } {
  const nbins = hist.length, dr = rmax / nbins;
  const r: number[] = [], g: number[] = [];
  const pairsPerVolume = frames * N * (N - 1) / volume;
  for (let k = 0; k < nbins; k++) {
    const lo = k * dr, hi = (k + 1) * dr;
    const shell = (4 * Math.PI / 3) * (hi * hi * hi - lo * lo * lo);
    r.push((k + 0.5) * dr);
    g.push(pairsPerVolume > 0 ? (2 * hist[k]) / (pairsPerVolume * shell) : 0);
  }
  return { r, g };
}
