// The words of each solver for svc_auto's reader (src/ops/dispatch-read.ts): the names people use for
// a solver's fields beyond the field name and its describe() text, the phrases that pick an option,
// the words a solver always implies, the options it does not have, and the user problems a line of
// text cannot carry. Kept here, next to the reader, so that a solver module stays free of dispatch
// concerns; a field added to a solver is read by its name and describe() text without an entry.
import type { Unit } from './dispatch-units.ts';
import type { SvcError } from '../core/errors.ts';

/** A name of a field: a phrase, optionally only with `=`/`:` (strict), also after a measured number
 * ("4 km deep": post), or after an ordinal ("third harmonic": ordinal = the offset added). */
export type AliasDef = string | { p: string; strict?: boolean; post?: boolean; ordinal?: number };

export interface FieldLex {
  aliases?: AliasDef[];
  /** the unit the field is in (a symbol or word of dispatch-units.ts), when describe() does not say */
  unit?: string;
  /** a percentage means a fraction of 1 here ("volatility 25 %" → 0.25) */
  percent?: boolean;
  /** "500 steps": a plain number before a name is this field (default: integer fields) */
  count?: boolean;
  /** a measured quantity of this field's dimension with no name goes here (when several share it) */
  byUnit?: boolean;
  /** the field name itself is not a name (a one-letter field that is an English word) */
  noNameAlias?: boolean;
  /** no name taken from describe() */
  noDescribe?: boolean;
  /** enum values are not option words (grid's `start: case | flat`) */
  noOptions?: boolean;
  /** setting this field also sets these (SEIR's sigma selects the SEIR model) */
  implies?: Record<string, unknown>;
}

/** A field of a solver's input as the reader sees it. */
export interface FieldInfo {
  name: string;
  type: 'number' | 'integer' | 'enum' | 'boolean' | 'other';
  values?: string[];
  describe: string;
  default?: unknown;
  unit?: Unit;
  percent: boolean;
  count: boolean;
  byUnit?: boolean;
  implies?: Record<string, unknown>;
}

export type RefusalReason = 'UNMAPPED_QUANTITY' | 'UNSUPPORTED_OPTION' | 'NEEDS_STRUCTURED_INPUT' | 'CONFLICTING_VALUES' | 'UNIT_MISMATCH' | 'AMBIGUOUS_SOLVER';

export interface ReadContext {
  text: string;
  lower: string;
  solver: string;
  fields: Map<string, FieldInfo>;
  set(field: string, value: unknown, words: string, i: number, j: number): void;
  useSpan(i: number, j: number): void;
  refuse(reason: RefusalReason, message: string, words: string[]): SvcError;
}

export interface SolverLex {
  fields?: Record<string, FieldLex>;
  /** phrase → settings ("closed at one end" → {ends: 'open-closed'}) */
  options?: [string, Record<string, unknown>][];
  /** words the solver always implies: consumed, no input */
  inherent?: (string | RegExp)[];
  /** an option the solver does not have: refused with the reason */
  unsupported?: [string | RegExp, string][];
  /** the user's own problem, which a line of text cannot carry: refused with the reason */
  structured?: [string | RegExp, string][];
  /** the user's own problem, refused unless one of `unless` was read ("my objective" without an expression) */
  ownProblem?: { unless: string[]; patterns: [RegExp, string][] };
  /** the request must give one of these fields (from the solver-specific reader) */
  requires?: { fields: string[]; message: string };
  /** "2-D": the dimensions solved (others refused), a field, or the settings per dimension */
  dims?: number[] | { field: string } | Record<number, Record<string, unknown>>;
  /** the fields an "A × B grid" sets: [nx, ny], or one field for a square grid */
  grid?: string[];
  /** quantities that are not fields but determine them (R0 → beta), read like fields */
  pseudo?: Record<string, { aliases: AliasDef[]; unit?: string; percent?: boolean; describe?: string }>;
  /** computes fields from the pseudo quantities and flags: field → {value, words} (value undefined: the field is dropped) */
  finish?(set: Record<string, unknown>, pseudo: Record<string, { value: number | boolean; words: string }>, defaults: Record<string, unknown>): Record<string, { value: unknown; words: string }>;
  /** a solver-specific reader run before the generic passes (ODE right-hand sides, objectives) */
  parse?(ctx: ReadContext): void;
}

/** Names every field of that name has, in every solver. */
export const GENERIC_ALIASES: Record<string, AliasDef[]> = {
  steps: ['steps', 'time steps', 'timesteps', 'number of steps', 'step count'],
  dt: ['dt', 'time step', 'timestep', 'step size', 'step', 'delta t'],
  seed: ['seed', 'random seed', 'rng seed'],
  tMax: ['tmax', 'final time', 'end time', 'until time', 'duration', 'until t', 'up to t', 'to t'],
  sample: ['sample points', 'output points', 'samples'],
};

/** Numerical methods by name: a request naming one its solver does not use is refused. */
export const METHOD_WORDS = [
  'euler', 'runge kutta', 'rk4', 'rk45', 'dop853', 'radau', 'bdf', 'leapfrog', 'verlet', 'yoshida', 'symplectic',
  'crank nicolson', 'adi', 'ftcs', 'lax friedrichs', 'lax wendroff', 'upwind', 'semi lagrangian', 'spectral', 'fft',
  'finite element', 'finite difference', 'finite volume', 'monte carlo', 'metropolis', 'heat bath', 'gibbs', 'wolff',
  'dpll', 'cdcl', 'walksat', 'bfgs', 'nelder mead', 'simplex', 'gradient descent', 'steepest descent', 'newton raphson',
  'simulated annealing', 'genetic algorithm', 'particle swarm', 'gauss seidel', 'multigrid', 'binomial tree', 'lattice boltzmann',
  'conjugate gradient', 'jacobi', 'ssor', 'peridynamic', 'shooting method', 'numerov',
];

const MY = '(?:my|our|this|these|the following|attached|uploaded|given|your)\\s+(?:own\\s+)?';

const MATERIAL_E: [string, number][] = [
  // typical Young's moduli (Pa): Callister & Rethwisch, Materials Science and Engineering, Table 6.1
  ['steel', 207e9], ['aluminium', 69e9], ['aluminum', 69e9], ['copper', 110e9], ['titanium', 107e9], ['brass', 97e9],
  ['nickel', 207e9], ['magnesium', 45e9], ['tungsten', 407e9],
];
const materials = (field = 'E'): [string, Record<string, unknown>][] => MATERIAL_E.map(([m, e]) => [m, { [field]: e }]);

const NUM = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?`;

export const LEXICON: Record<string, SolverLex> = {
  acoustic: {
    fields: {
      L: { aliases: ['length', 'duct length', 'pipe length', 'tube length', { p: 'long', post: true }] },
      c: { aliases: ['speed of sound', 'sound speed', 'velocity of sound'] },
      mode: { aliases: [{ p: 'harmonic', ordinal: 0 }, { p: 'mode', ordinal: 0 }, { p: 'resonance', ordinal: 0 }, 'mode number', 'harmonic number'] },
      N: { aliases: ['cells', 'grid cells', 'volumes'] },
    },
    options: [
      ['open at both ends', { ends: 'open-open' }], ['both ends open', { ends: 'open-open' }], ['open ends', { ends: 'open-open' }],
      ['open pipe', { ends: 'open-open' }], ['open tube', { ends: 'open-open' }], ['open open', { ends: 'open-open' }],
      ['closed at both ends', { ends: 'closed-closed' }], ['both ends closed', { ends: 'closed-closed' }], ['closed closed', { ends: 'closed-closed' }],
      ['closed at one end', { ends: 'open-closed' }], ['open at one end', { ends: 'open-closed' }], ['one end closed', { ends: 'open-closed' }],
      ['stopped at one end', { ends: 'open-closed' }], ['stopped', { ends: 'open-closed' }], ['closed pipe', { ends: 'open-closed' }],
      ['closed tube', { ends: 'open-closed' }], ['closed open', { ends: 'open-closed' }], ['open closed', { ends: 'open-closed' }],
      ['fundamental', { mode: 1 }], ['lowest mode', { mode: 1 }], ['lowest resonance', { mode: 1 }],
    ],
    inherent: ['organ pipe', 'duct', 'air column'],
    dims: [1],
  },
  action: {
    fields: {
      order: { aliases: [{ p: 'order', ordinal: 0 }, 'integrator order'] },
      eccentricity: { aliases: ['eccentricity', { p: 'e', strict: true }] },
      mu: { aliases: ['gravitational parameter', 'gm'] },
      omega: { aliases: ['angular frequency', 'frequency'] },
      lambda: { aliases: ['g/l'] },
      q0: { aliases: ['initial angle', 'released at', 'initial position', 'amplitude'], unit: 'rad' },
      p0: { aliases: ['initial momentum'] },
      compare: {},
    },
    options: [
      ['kepler', { system: 'kepler' }], ['orbit', { system: 'kepler' }], ['planet', { system: 'kepler' }],
      ['harmonic oscillator', { system: 'oscillator' }], ['spring', { system: 'oscillator' }],
      ['leapfrog', { order: 2 }], ['stormer verlet', { order: 2 }], ['verlet', { order: 2 }],
      ['without comparison', { compare: false }], ['no comparison', { compare: false }], ['without rk4', { compare: false }],
      ['fourth order', { order: 4 }], ['sixth order', { order: 6 }], ['eighth order', { order: 8 }], ['second order', { order: 2 }],
    ],
    inherent: ['rk4', 'yoshida', 'symplectic', 'energy drift', 'hamiltonian'],
  },
  buckling: {
    fields: {
      EI: { aliases: ['bending stiffness', 'flexural rigidity', 'ei'] },
      E: { aliases: ['young modulus', 'elastic modulus', 'modulus', 'youngs modulus'] },
      I: { aliases: ['second moment of area', 'area moment of inertia', 'moment of inertia', 'second moment'] },
      L: { aliases: ['length', 'column length', 'height', { p: 'long', post: true }, { p: 'tall', post: true }, { p: 'high', post: true }] },
      elements: { aliases: ['beam elements', 'finite elements'] },
    },
    options: [
      ['pinned at both ends', { ends: 'pinned-pinned' }], ['both ends pinned', { ends: 'pinned-pinned' }], ['pin ended', { ends: 'pinned-pinned' }], ['hinged', { ends: 'pinned-pinned' }],
      ['fixed at both ends', { ends: 'fixed-fixed' }], ['both ends fixed', { ends: 'fixed-fixed' }], ['clamped at both ends', { ends: 'fixed-fixed' }], ['clamped clamped', { ends: 'fixed-fixed' }],
      ['fixed free', { ends: 'fixed-free' }], ['cantilever', { ends: 'fixed-free' }], ['cantilevered', { ends: 'fixed-free' }], ['free at the top', { ends: 'fixed-free' }], ['flagpole', { ends: 'fixed-free' }], ['one end free', { ends: 'fixed-free' }],
      // "fixed at one end" alone is the cantilever (issue 29): the other end is free unless named
      ['fixed at one end', { ends: 'fixed-free' }], ['clamped at one end', { ends: 'fixed-free' }], ['built in at one end', { ends: 'fixed-free' }],
      ['fixed at its base', { ends: 'fixed-free' }], ['fixed at the base', { ends: 'fixed-free' }], ['fixed at the bottom', { ends: 'fixed-free' }],
      ['fixed at one end and free at the other', { ends: 'fixed-free' }], ['clamped at one end and free at the other', { ends: 'fixed-free' }],
      ['fixed at one end and pinned at the other', { ends: 'fixed-pinned' }], ['clamped at one end and pinned at the other', { ends: 'fixed-pinned' }],
      ['fixed at one end and hinged at the other', { ends: 'fixed-pinned' }],
      ['fixed pinned', { ends: 'fixed-pinned' }], ['pinned fixed', { ends: 'fixed-pinned' }], ['clamped pinned', { ends: 'fixed-pinned' }], ['propped', { ends: 'fixed-pinned' }],
      ...materials(),
    ],
    inherent: ['euler', 'column', 'strut'],
    unsupported: [[/\b(?:wood|wooden|timber|concrete|plastic)\b/, 'no Young modulus is assumed for this material: give E (with I) or EI']],
  },
  climate: {
    fields: {
      N: { aliases: ['cells', 'grid cells'] },
      g: { aliases: ['gravity', 'gravitational acceleration'] },
      H: { aliases: ['depth', 'mean depth', 'water depth', 'ocean depth', { p: 'deep', post: true }] },
    },
    inherent: ['shallow water', 'periodic', 'lax friedrichs'],
    dims: [1],
  },
  closedform: {
    fields: {
      mu2_eff: { aliases: ['mu2', 'mu2_eff', 'linear coefficient'] },
      lambda_eff: { aliases: ['lambda', 'cubic coefficient', 'lambda_eff'] },
      F_eff: { aliases: ['forcing', 'constant force', 'drive', 'f_eff', { p: 'f', strict: true }] },
      phi0: { aliases: ['phi0', 'initial amplitude', 'initial displacement', 'initial value'] },
      dphi0: { aliases: ['dphi0', 'initial velocity', 'initial rate'] },
      tEnd: { aliases: ['tend', 'until t', 'up to t', 'to t', 'end time', 'final time'] },
    },
    inherent: ['duffing', 'jacobi elliptic', 'closed form', 'exact solution', 'analytic'],
  },
  device: {
    fields: {
      nx: { aliases: ['grid nodes along x'] },
      ny: {},
      Lx: { aliases: ['width', 'device length', 'length'] },
      Ly: { aliases: ['plate separation', 'separation', 'gap', 'plate spacing'] },
      V: { aliases: ['voltage', 'applied voltage', 'bias', 'plate potential', 'top plate potential'] },
      kx: { aliases: ['space charge mode', 'charge mode'] },
      Na: { aliases: ['acceptor density', 'acceptor doping', 'acceptor concentration', 'acceptors', 'p side doping', 'na'] },
      Nd: { aliases: ['donor density', 'donor doping', 'donor concentration', 'donors', 'n side doping', 'nd'] },
      ni: { aliases: ['intrinsic density', 'intrinsic carrier density', 'intrinsic concentration', 'ni'] },
      T: { aliases: ['temperature'] },
    },
    options: [['pn junction', { dim: 1 }], ['p n junction', { dim: 1 }], ['diode', { dim: 1 }], ['junction', { dim: 1 }]],
    inherent: ['silicon', 'capacitor', 'parallel plate', 'poisson', 'semiconductor', 'built in voltage', 'built in potential'],
    dims: { 1: { dim: 1 }, 2: { dim: 2 } },
    grid: ['nx', 'ny'],
  },
  dock: {
    fields: {
      restarts: { aliases: ['restarts', 'random starts', 'starts', 'multi starts'] },
      iters: { aliases: ['iterations', 'basin hopping steps', 'hops', 'hopping steps'] },
    },
    structured: [
      [new RegExp(`\\b${MY}(?:\\w+\\s+)?(?:ligand|protein|receptor|molecule|compound|inhibitor|drug|pocket|complex|structure)s?\\b`), 'svc_dock docks its built-in three-atom test ligand into its built-in pocket; it cannot take your molecule — no answer from it would be about yours'],
      [/\b(?:pdb|sdf|mol2|smiles|pdbqt)\b/, 'svc_dock takes no molecule files; it docks its built-in test complex only'],
    ],
    inherent: ['rigid', 'basin hopping', 'lennard jones', 'coulomb', 'binding energy'],
  },
  epi: {
    fields: {
      beta: { aliases: ['transmission rate', 'infection rate', 'contact rate', 'beta'], unit: '/day', percent: true },
      gamma: { aliases: ['recovery rate', 'removal rate', 'gamma'], unit: '/day', percent: true },
      sigma: { aliases: ['incubation rate', 'progression rate', 'sigma'], unit: '/day', percent: true, implies: { model: 'seir' } },
      N: { aliases: ['population', 'population size', 'people', 'inhabitants', 'residents', 'town of', 'city of'], count: true },
      I0: { aliases: ['initially infected', 'initial infections', 'infected', 'initial cases', 'cases', 'infectious people', 'index cases', 'i0'], count: true },
      days: { aliases: ['days', 'simulated days'], unit: 'day', byUnit: true },
      // the fit mode's fields: its case series cannot be given in the text
      population: { noNameAlias: true, noDescribe: true }, fit: { noOptions: true },
    },
    structured: [[/\b(?:fit|fitting|fitted|calibrate|estimate (?:beta|gamma|r0)|case (?:series|data|counts)|daily (?:cases|counts|case)|incidence data|reported cases)\b|\b(?:my|our|this|these|the following) (?:own )?(?:data|cases|case counts|counts|series|outbreak data)\b/, 'fitting the model to your case series needs the series itself, which cannot be given in the text; call svc_epi with `cases` and `population`']],
    pseudo: {
      '@R0': { aliases: ['r0', 'basic reproduction number', 'reproduction number', 'r naught', 'infects'], describe: 'basic reproduction number' },
      '@infectious': { aliases: ['infectious period', 'recovery time', 'duration of infection', 'infectious for', 'sick for'], unit: 'day', describe: 'infectious period' },
      '@incubation': { aliases: ['incubation period', 'latent period', 'incubation time', 'incubation'], unit: 'day', describe: 'incubation period' },
    },
    finish(set, pseudo, defaults) {
      const out: Record<string, { value: unknown; words: string }> = {};
      const inf = pseudo['@infectious'];
      const gamma = inf ? 1 / (inf.value as number) : (set.gamma as number | undefined) ?? (defaults.gamma as number);
      if (inf) out.gamma = { value: gamma, words: inf.words };
      const r0 = pseudo['@R0'];
      if (r0) out.beta = { value: (r0.value as number) * gamma, words: r0.words };
      const inc = pseudo['@incubation'];
      if (inc) { out.sigma = { value: 1 / (inc.value as number), words: inc.words }; out.model = { value: 'seir', words: inc.words }; }
      return out;
    },
    options: [['exposed', { model: 'seir' }], ['susceptible infected recovered', { model: 'sir' }]],
    inherent: ['epidemic', 'outbreak', 'final size', 'peak'],
  },
  evolve: {
    fields: {
      N: { aliases: ['particles', 'atoms', 'molecules', 'beads'] },
      rho: { aliases: ['density', 'number density'] },
      T0: { aliases: ['temperature', 'initial temperature', { p: 't', strict: true }] },
      equilibrate: { aliases: ['equilibration steps', 'equilibration', 'equilibrate'] },
      dtSim: { aliases: ['time step', 'dt', 'timestep', 'step size'] },
      eps: { aliases: ['epsilon', 'well depth'] },
      sig: { aliases: ['sigma', 'diameter'] },
      rc: { aliases: ['cutoff', 'cut off', 'cutoff radius'] },
      kBond: { aliases: ['bond stiffness', 'spring constant'] },
      r0Bond: { aliases: ['bond length', 'rest length'] },
      rdfBins: { noDescribe: true }, rdfStride: { noDescribe: true }, frameStride: { noDescribe: true }, energyStride: { noDescribe: true },
      sample: {},
    },
    options: [
      ['liquid', { preset: 'lj-liquid' }], ['lj liquid', { preset: 'lj-liquid' }], ['gas', { preset: 'lj-gas' }], ['lj gas', { preset: 'lj-gas' }],
      ['vapour', { preset: 'lj-gas' }], ['vapor', { preset: 'lj-gas' }], ['solid', { preset: 'crystal' }], ['fcc', { preset: 'crystal' }],
      ['crystalline', { preset: 'crystal' }], ['polymer', { preset: 'polymer' }], ['bead spring', { preset: 'polymer' }], ['fene', { preset: 'polymer', bond: 'fene' }],
    ],
    structured: [
      [/\b(?:xyz|lammps data|data file|extended xyz)\b/, 'your configuration file cannot be given in the text; call svc_evolve with `xyz` or `lammpsData`'],
      [new RegExp(`\\b${MY}(?:configuration|system|atoms|coordinates|structure|molecule)\\b`), 'your configuration cannot be given in the text; call svc_evolve with `xyz` or `lammpsData`'],
    ],
    inherent: ['argon', 'lennard jones', 'velocity verlet', 'verlet', 'nve', 'periodic box', 'molecular dynamics'],
    dims: [3],
  },
  fea: {
    fields: {
      nx: { aliases: ['elements along the length'] },
      ny: { aliases: ['elements through the depth'] },
      Lx: { aliases: ['length', 'span', { p: 'long', post: true }] },
      Ly: { aliases: ['depth', 'height', { p: 'deep', post: true }, { p: 'high', post: true }] },
      E: { aliases: ['young modulus', 'elastic modulus', 'modulus', 'youngs modulus'] },
      P: { aliases: ['load', 'tip load', 'point load', 'force', 'end load'] },
    },
    options: materials(),
    inherent: ['cantilever', 'plane stress', 'q4', 'quadrilateral', 'timoshenko', 'finite element', 'fem'],
    // issue 31: the user's own mesh ("Poisson on this mesh") cannot come in a sentence
    structured: [[new RegExp(`\\b${MY}(?:[\\w-]+\\s+)?(?:mesh|geometry|msh file|gmsh file)\\b|\\bgmsh\\b|\\bmsh\\b`), 'your mesh cannot be given in the text; call svc_fea with `mesh` (Gmsh MSH 4.1 or 2.2), `pde` and `boundary`']],
    grid: ['nx', 'ny'],
    dims: [2],
  },
  fit: {
    parse: parseFit,
    requires: { fields: ['data'], message: 'svc_fit fits your model to your data, which svc_auto does not read from text: call svc_fit with `model` (an expression in x and the parameters), `data` ({x, y, sigma?} arrays or CSV text with a header) and `p0` (the parameters\' start values)' },
    inherent: ['least squares', 'nonlinear least squares', 'regression', 'nonlinear regression', 'curve fit', 'curve fitting', 'error bars', 'confidence intervals', 'levenberg marquardt'],
  },
  // issue 31: the user's own matrix cannot come in a sentence; "solve the linear system" alone runs the documented example
  linsolve: {
    structured: [[new RegExp(`\\b${MY}(?:[\\w-]+\\s+)?(?:matrix|matrices|system matrix|mtx file|matrix market file|coo triplets|triplets)\\b|\\bmatrix market file\\b`), 'your matrix cannot be given in the text; call svc_linsolve with `matrix` (Matrix Market text or {n, rows, cols, vals}) and `rhs`']],
    inherent: ['linear system', 'sparse', 'ax = b', 'matrix market'],
  },
  flow: {
    fields: {
      N: { aliases: ['grid', 'cells', 'resolution', 'grid cells', 'grid points'] },
      visc: { aliases: ['viscosity', 'kinematic viscosity', 'nu'] },
      iters: { aliases: ['cg iterations', 'solver iterations', 'poisson iterations'] },
    },
    inherent: ['taylor green', 'periodic', 'incompressible', 'navier stokes', 'stable fluids', 'semi lagrangian'],
    grid: ['N'],
    dims: [2],
  },
  fracture: {
    fields: {
      // the plate's grid: its describe() texts say "nodes", which belongs to the bar's N
      nx: { noDescribe: true, aliases: ['nodes along the load'] }, ny: { noDescribe: true, aliases: ['nodes across'] },
      notchFrac: { aliases: ['notch depth', 'notch', 'notch fraction'], percent: true },
      horizonM: { aliases: ['horizon'] },
      N: { aliases: ['nodes', 'bar nodes'] },
      E: { aliases: ['young modulus', 'elastic modulus', 'modulus', 'youngs modulus'] },
      strain: { aliases: ['strain', 'applied strain', 'final strain', 'stretched to', 'pulled to'], percent: true },
      s0: { aliases: ['critical stretch', 'critical bond stretch', 's0'], percent: true },
      sf: { aliases: ['softening stretch', 'final stretch', 'sf'], percent: true },
      loadSteps: { aliases: ['load steps', 'loading steps', 'load increments'] },
      relaxIters: { aliases: ['relaxation iterations', 'relaxation steps'] },
    },
    options: [['bar', { mode: 'bar' }], ['rod', { mode: 'bar' }], ['plate', { mode: '2d' }], ['notched plate', { mode: '2d' }], ...materials()],
    inherent: ['peridynamic', 'peridynamics', 'bond based', 'mode i', 'crack', 'tension'],
    dims: { 1: { mode: 'bar' }, 2: { mode: '2d' } },
    grid: ['nx', 'ny'],
  },
  gauge: {
    fields: {
      L: { aliases: ['lattice size', 'lattice side', 'side', 'size'] },
      beta: { aliases: ['coupling', 'inverse coupling', 'beta'] },
      sweeps: { aliases: ['sweeps', 'measurement sweeps', 'measurements'] },
      therm: { aliases: ['thermalization sweeps', 'thermalisation sweeps', 'thermalization', 'thermalisation', 'burn in', 'burn in sweeps', 'warm up sweeps', 'equilibration sweeps'] },
    },
    options: [['heatbath', { method: 'heat-bath' }], ['heat bath', { method: 'heat-bath' }]],
    inherent: [/\bu\s*\(\s*1\s*\)/, 'compact', 'qed', 'plaquette', 'wilson', 'abelian', 'lattice'],
    unsupported: [[/\bsu\s*\(\s*[2-9]\s*\)|\bsu[2-9]\b|\bz\s*\(?\s*[2-9]\s*\)?\s+gauge|non[\s-]?abelian/, 'svc_gauge simulates compact U(1) only']],
    grid: ['L'],
    dims: [2],
  },
  grid: {
    fields: {
      N: { aliases: ['buses', 'bus', 'nodes', 'substations'] },
      chords: { aliases: ['chords', 'extra lines', 'extra branches', 'cross links'] },
      reactance: { aliases: ['reactance', 'line reactance', 'mean reactance'] },
      method: { noOptions: true }, start: { noOptions: true },
    },
    structured: [
      [/\b(?:matpower|case file|case\d+|ieee\s*\d+|pglib|raw file|psse)\b|\bieee\b/, 'a named or uploaded network cannot be given in the text (the built-in network is a seeded synthetic ring with chords); call svc_grid with `case` (MATPOWER text) or `network`'],
      [new RegExp(`\\b${MY}(?:\\w+\\s+)?(?:network|grid|case|system|feeder)\\b`), 'your network cannot be given in the text (the built-in network is a seeded synthetic one); call svc_grid with `case` (MATPOWER text) or `network`'],
    ],
    unsupported: [[/\bac\s+(?:power|load)\s+flow|\bnewton[\s-]raphson\b|\breactive power\b|\bvoltage magnitudes?\b|\blosses\b/, 'the AC power flow needs your network (`case` or `network`); the synthetic network svc_auto can run is DC only']],
    options: [['no extra lines', { chords: 0 }], ['no chords', { chords: 0 }], ['without chords', { chords: 0 }], ['just the ring', { chords: 0 }]],
    inherent: ['dc', 'dc power flow', 'dc load flow', 'synthetic', 'slack bus', 'ring', 'per unit', 'pu'],
  },
  heat: {
    fields: {
      nx: { aliases: ['intervals', 'grid intervals'] }, ny: {},
      kx: { aliases: ['kx'] }, ky: { aliases: ['ky'] },
      alpha: { aliases: ['diffusivity', 'thermal diffusivity', 'diffusion coefficient', 'kappa'] },
      mode: { aliases: [{ p: 'mode', ordinal: 0 }, { p: 'sine mode', ordinal: 0 }, 'mode number'] },
      Lx: { noDescribe: true }, Ly: { noDescribe: true }, boundPct: { noDescribe: true },
    },
    options: [
      ['ftcs', { method: 'explicit' }], ['forward euler', { method: 'explicit' }], ['crank nicolson', { method: 'implicit' }],
      ['adi', { method: 'implicit' }], ['peaceman rachford', { method: 'implicit' }],
      ['rod', { dim: 1 }], ['bar', { dim: 1 }], ['wire', { dim: 1 }], ['plate', { dim: 2 }], ['square', { dim: 2 }], ['sheet', { dim: 2 }],
    ],
    structured: [
      [new RegExp(`\\b${MY}(?:initial|temperature|profile|boundary|source)`), 'your own initial condition, boundary conditions or source cannot be read from the text; call svc_heat with `initial`, `boundary`, `source`'],
      [/\b(?:gaussian|hot spot|square pulse|step profile|triangular|insulated|neumann|robin|heat source|source term|periodic boundar\w*|boundary conditions?)\b|\binitial (?:condition|temperature|profile|distribution|shape|data)\b/, 'svc_auto runs the analytic problem only (a sine mode on the unit bar or square with zero walls); your own initial condition, boundaries or source cannot be read from the text: call svc_heat with `initial`, `boundary`, `source`'],
    ],
    inherent: ['dirichlet', 'heat equation', 'diffusion'],
    dims: { 1: { dim: 1 }, 2: { dim: 2 } },
    grid: ['nx', 'ny'],
  },
  kalman: {
    fields: {
      F: { aliases: ['transition', 'state transition', { p: 'f', strict: true }] },
      H: { aliases: ['observation', 'observation matrix', 'measurement matrix', { p: 'h', strict: true }] },
      Q: { aliases: ['process noise', 'process noise variance', 'process variance', { p: 'q', strict: true }] },
      R: { aliases: ['measurement noise', 'measurement noise variance', 'sensor noise', 'sensor noise variance', 'observation noise', 'noise variance', { p: 'r', strict: true }] },
      steps: { aliases: ['filter steps', 'measurements', 'observations', 'updates'] },
    },
    options: [['random walk', { F: 1, H: 1 }], ['scalar', { H: 1 }]],
    ownProblem: { unless: ['F', 'H', 'Q', 'R'], patterns: [[new RegExp(`\\b${MY}(?:[\\w-]+\\s+)?(?:filter|system|model|tracker|matrices|plant|dynamics)\\b`), 'your system was not given: name its matrices as numbers ("F = 0.9, H = 1, Q = 0.1, R = 2") or call svc_kalman with F, H, Q, R']] },
    structured: [[new RegExp(`\\b${MY}(?:[\\w-]+\\s+)?(?:measurements|data|readings|observations|series|log|recording)\\b|\\bsmooth(?:ed|ing|er)?\\b|\\brts\\b`), 'filtering your own measurement series needs the series, which cannot be given in the text; call svc_kalman with `measurements` (and F, H, Q, R, x0, P0)']],
    inherent: ['constant velocity', 'riccati', 'joseph', 'steady state'],
  },
  lorenz: {
    fields: {
      sigma: { aliases: ['prandtl number', 'sigma'] },
      rho: { aliases: ['rayleigh number', 'rho', 'r'] },
      beta: { aliases: ['geometric factor', 'beta', 'b'] },
      delta: { aliases: ['initial separation', 'separation', 'perturbation'] },
    },
    inherent: ['butterfly', 'attractor', 'lyapunov', 'chaos', 'chaotic', 'rk4'],
  },
  lotka: {
    fields: {
      alpha: { aliases: ['prey growth rate', 'prey growth', 'prey birth rate', 'alpha'] },
      beta: { aliases: ['predation rate', 'beta'] },
      gamma: { aliases: ['predator death rate', 'predator mortality', 'gamma'] },
      delta: { aliases: ['predator growth', 'conversion rate', 'conversion efficiency', 'delta'] },
      x0: { aliases: ['prey', 'initial prey', 'rabbits', 'hares', 'deer', 'x0'], count: true },
      y0: { aliases: ['predators', 'initial predators', 'foxes', 'wolves', 'lynx', 'y0'], count: true },
      tMax: { aliases: [{ p: 'time units', post: true }, 'time', 'final time'] },
    },
    options: [['yoshida', { method: 'symplectic' }]],
    inherent: ['volterra', 'predator prey', 'first integral'],
  },
  lp: {
    // the program itself (an MPS or LP file, or the matrices) cannot be written in a sentence
    requires: { fields: ['mps', 'lp', 'model'], message: 'svc_lp solves your own linear or integer program, which svc_auto does not read from text: call svc_lp with `mps` (an MPS file), `lp` (a CPLEX LP file) or `model` ({c, A, lb, ub, bounds, integrality} as scipy.optimize.milp)' },
    inherent: ['linear program', 'linear programming', 'integer program', 'integer programming', 'mixed integer', 'mps file', 'lp file', 'milp'],
  },
  multibody: {
    requires: { fields: ['bodies'], message: 'svc_multibody needs the bodies (mass, position and velocity of each), which svc_auto does not read from text; call svc_multibody with `bodies`' },
  },
  ode: {
    fields: {
      rtol: { aliases: ['relative tolerance', 'rtol', 'tolerance'] },
      maxSteps: { aliases: ['max steps', 'maximum steps', 'step limit'] },
      boundPct: { noDescribe: true },
      sample: { aliases: ['output points', 'sample points', 'samples'] },
    },
    parse: parseOde,
    requires: { fields: ['equations'], message: 'svc_ode integrates your own equations: write them in the request as "x\' = …" or "dx/dt = …" with initial values "x(0) = …" (first order only), or call svc_ode with `equations` and `y0`' },
    inherent: ['stiff', 'non stiff', 'initial value problem', 'ivp', 'error estimate', 'solve_ivp', 'implicit', 'explicit'],
  },
  opt: {
    fields: {
      dim: { aliases: ['dimensions', 'dimension', 'variables', 'dim'] },
      maxIter: { aliases: ['iterations', 'max iterations', 'iteration limit', 'maxiter'] },
      start: { aliases: ['start', 'starting point', 'start value', 'starting at', 'starting from', 'initial guess', 'start at'] },
      gtol: { aliases: ['gradient tolerance', 'gtol'] },
      xatol: { noDescribe: true }, fatol: { noDescribe: true },
    },
    options: [
      ['banana', { fn: 'rosenbrock' }], ['nelder mead', { method: 'nelder-mead' }], ['downhill simplex', { method: 'nelder-mead' }], ['simplex', { method: 'nelder-mead' }],
      ['gradient descent', { method: 'gradient' }], ['steepest descent', { method: 'gradient' }], ['l bfgs', { method: 'l-bfgs-b' }], ['lbfgsb', { method: 'l-bfgs-b' }],
    ],
    parse: parseObjective,
    ownProblem: { unless: ['objective'], patterns: [[new RegExp(`\\b${MY}(?:[\\w-]+\\s+)?(?:function|objective|cost|loss|problem|model|expression)\\b`), 'your objective was not found in the text: write it as "minimise <expression> from x = …, y = …", or call svc_opt with `objective` and `x0`']] },
    dims: { field: 'dim' },
    inherent: ['test function', 'global minimum', 'multimodal', 'minimum', 'minimize', 'minimise'],
  },
  protect: {
    fields: {
      t: { aliases: ['unix time', 'timestamp', 'unix seconds', 'time'] },
      phase: { aliases: ['phase'] },
      liveness: { aliases: ['liveness', 'liveness signal'] },
      status: { aliases: ['status', 'http status', 'status code', 'returning', 'returns', 'http'] },
    },
    options: [['healthy', { health: 'up' }], ['offline', { health: 'down' }], ['outage', { health: 'down' }], ['degraded', { health: 'slow' }], ['sluggish', { health: 'slow' }]],
    // a word about health ("is my endpoint degraded?") is the question when a measured signal is
    // given: liveness, then status, decide (the solver reads liveness before health before status)
    finish(set, _pseudo, _defaults): Record<string, { value: unknown; words: string }> {
      return set.health !== undefined && set.liveness !== undefined ? { health: { value: undefined, words: '' } } : {};
    },
    inherent: ['guard', 'pulseguard', 'uptime', 'alarm', 'website', 'site', 'service', 'api', 'endpoint', 'server'],
  },
  quant: {
    fields: {
      S0: { aliases: ['spot', 'spot price', 'stock price', 'underlying', 'underlying price', 'share price', 'stock', 'trades at', 'trading at', 'current price', 's0', 'index at', 'index level', { p: 's', strict: true }] },
      K: { aliases: ['strike', 'strike price', 'struck at', 'exercise price', 'strike of'] },
      r: { aliases: ['interest rate', 'risk free rate', 'rate', 'riskless rate'], percent: true },
      sigma: { aliases: ['volatility', 'vol', 'implied volatility', 'implied vol', 'sigma'], percent: true },
      T: { aliases: ['maturity', 'expiry', 'expiration', 'time to expiry', 'time to maturity', 'expiring in', 'expires in', 'tenor'] },
      paths: { aliases: ['paths', 'simulations', 'samples', 'scenarios', 'monte carlo paths'] },
    },
    options: [['calls', { type: 'call' }], ['puts', { type: 'put' }], ['at the money', { '@atm': true }], ['atm', { '@atm': true }]],
    pseudo: { '@atm': { aliases: [] } },
    finish(set, pseudo, defaults): Record<string, { value: unknown; words: string }> {
      const atm = pseudo['@atm'];
      if (!atm) return {};
      return { K: { value: (set.S0 as number | undefined) ?? defaults.S0, words: atm.words } };
    },
    unsupported: [
      [/\b(?:american|bermudan|asian|barrier|knock[\s-]?(?:in|out)|lookback|digital|binary option|compound option|basket|spread option|rainbow)\b/, 'svc_quant prices European calls and puts only'],
      [/\bdividends?\b|\bdividend yield\b/, 'svc_quant has no dividend input (geometric Brownian motion without dividends)'],
      [/\b(?:gamma|vega|theta|vanna|volga)\b/, 'svc_quant reports the price and delta only'],
      [/\b(?:heston|stochastic volatility|local volatility|jump diffusion|sabr|volatility smile)\b/, 'svc_quant prices under geometric Brownian motion (constant volatility) only'],
    ],
    inherent: ['european', 'black scholes', 'monte carlo', 'antithetic', 'option', 'premium'],
  },
  react: {
    fields: {
      N: { aliases: ['grid', 'cells', 'grid cells', 'resolution'] },
      Du: { aliases: ['du', 'diffusivity of u', 'u diffusivity'] },
      Dv: { aliases: ['dv', 'diffusivity of v', 'v diffusivity'] },
      F: { aliases: ['feed rate', 'feed', { p: 'f', strict: true }] },
      k: { aliases: ['kill rate', 'kill', { p: 'k', strict: true }] },
      epsilon: { aliases: ['epsilon', 'time scale ratio'] },
      a: { aliases: [{ p: 'a', strict: true }] }, b: { aliases: [{ p: 'b', strict: true }] },
      I: { aliases: ['stimulus', 'stimulus current', 'current', { p: 'i', strict: true }] },
    },
    options: [['grayscott', { model: 'gray-scott' }], ['fhn', { model: 'fitzhugh-nagumo' }], ['excitable', { model: 'fitzhugh-nagumo' }]],
    inherent: ['turing', 'reaction diffusion', 'periodic', 'spots', 'stripes'],
    grid: ['N'],
    dims: [2],
  },
  sat: {
    fields: {
      n: { aliases: ['variables', 'vars', 'boolean variables'] },
      alpha: { aliases: ['ratio', 'clause ratio', 'clause to variable ratio', 'clause density', 'density', 'alpha'] },
      m: { aliases: ['clauses'] },
      // with your own clauses only
      vars: { noNameAlias: true, noDescribe: true },
    },
    parse: parseInlineCnf,
    ownProblem: {
      unless: ['cnf'],
      patterns: [[new RegExp(`\\b${MY}(?!random)(?:[\\w-]+\\s+)?(?:cnf|dimacs|formula|clauses|instance|problem|constraints)\\b|\\bdimacs\\b`), 'your own formula was not found in the text (svc_auto runs a seeded random 3-SAT instance otherwise): write it inline as DIMACS ("p cnf 3 2 1 -2 0 2 3 0") or call svc_sat with `cnf` or `clauses`']],
    },
    unsupported: [
      [/\b(?:[12]|[4-9]|\d{2,})[\s-]?(?:sat|cnf)\b|\bk[\s-]sat\b/, 'svc_sat generates random 3-SAT only'],
      [/\bmax[\s-]?sat\b|#sat|model counting|count (?:all )?(?:the )?solutions/, 'svc_sat decides satisfiability; it does not optimise or count'],
    ],
    inherent: [/\b3[\s-]?(?:sat|cnf)\b/, 'random', 'dpll', 'cnf', 'satisfiable', 'satisfiability'],
  },
  schrodinger: {
    fields: {
      n: { aliases: [{ p: 'level', ordinal: -1 }, { p: 'energy level', ordinal: -1 }, { p: 'bound level', ordinal: -1 }, { p: 'state', ordinal: -1 }, { p: 'eigenvalue', ordinal: -1 }, { p: 'excited state', ordinal: 0 }, 'level number', 'quantum number'] },
      N: { aliases: ['grid nodes', 'nodes', 'grid points'] },
      L: { aliases: ['width', 'well width', 'box width', 'domain width', 'box length', 'length'] },
      V0: { aliases: ['depth', 'well depth', 'v0', 'barrier height', 'potential depth'] },
    },
    options: [
      ['harmonic oscillator', { potential: 'harmonic' }], ['parabolic', { potential: 'harmonic' }], ['quadratic potential', { potential: 'harmonic' }],
      ['infinite well', { potential: 'box' }], ['infinite square well', { potential: 'box' }], ['particle in a box', { potential: 'box' }],
      ['infinitely high walls', { potential: 'box' }], ['infinite potential well', { potential: 'box' }],
      ['finite well', { potential: 'finite-well' }], ['finite square well', { potential: 'finite-well' }], ['square well', { potential: 'finite-well' }],
      ['finite potential well', { potential: 'finite-well' }], ['finite square potential well', { potential: 'finite-well' }], ['square potential well', { potential: 'finite-well' }],
      ['ground state', { n: 0 }], ['lowest level', { n: 0 }], ['lowest state', { n: 0 }], ['lowest energy', { n: 0 }],
    ],
    unsupported: [[/\b(?:hydrogen|coulomb|double[\s-]well|morse|delta potential|kronig|anharmonic|step potential|tunnell?ing)\b/, 'svc_schrodinger solves the harmonic, infinite-box and finite-square-well potentials only']],
    inherent: ['natural units', 'bound state', 'eigenvalue', 'energy'],
    dims: [1],
  },
  solve: {
    fields: {
      mass: { aliases: ['mass', 'weighing', { p: 'weighing', post: true }], unit: 'kg' },
      tMax: { aliases: ['for', 'duration'], unit: 's', byUnit: true },
      position: { aliases: ['height', 'altitude', 'dropped from', 'drop height', 'initial height', 'from a height of', 'amplitude'], unit: 'm' },
      dt: { unit: 's' },
      beta: { noNameAlias: true }, alpha: { noNameAlias: true },
    },
    options: [
      ['on earth', { location: 'earth' }], ['underwater', { medium: 'water' }], ['no air', { medium: 'vacuum' }], ['without air resistance', { medium: 'vacuum' }],
      ['free fall', { referenceMode: 'free-fall' }], ['pendulum', { referenceMode: 'shm' }], ['small angle pendulum', { referenceMode: 'shm' }], ['simple harmonic', { referenceMode: 'shm' }],
      ['inverse square', { referenceMode: 'gravity' }], ['radial fall', { referenceMode: 'gravity' }], ['master field oscillator', { referenceMode: 'model' }],
    ],
    inherent: ['drag', 'air resistance', 'ball', 'object', 'rk4', 'falling', 'dropped', 'drop', 'trajectory'],
  },
  tumor: {
    fields: {
      D: { aliases: ['diffusivity', 'diffusion', 'diffusion coefficient', 'motility'] },
      r: { aliases: ['growth rate', 'proliferation rate', 'growth'] },
      L: { aliases: ['domain length', 'domain', 'length'] },
      N: { aliases: ['nodes', 'grid nodes', 'grid points'] },
      tMax: { aliases: ['time', 'simulated time'], byUnit: true },
    },
    inherent: ['fisher kpp', 'fisher', 'kpp', 'logistic', 'front', 'travelling wave', 'traveling wave', 'strang'],
    dims: [1],
  },
  wave: {
    fields: {
      mode: { noNameAlias: true },
      nx: { aliases: ['intervals', 'grid intervals', 'cells', 'segments'] },
      kx: { aliases: ['kx'] }, ky: { aliases: ['ky'] },
      c: { aliases: ['wave speed', 'speed', 'propagation speed'] },
      courant: { aliases: ['courant', 'courant number', 'cfl', 'cfl number'] },
      mode_k: { aliases: [{ p: 'mode', ordinal: 0 }, { p: 'harmonic', ordinal: 0 }, 'mode number'] },
      eps: { aliases: ['permittivity', 'epsilon'] },
      mu: { aliases: ['permeability'] },
      Lx: { noDescribe: true }, Ly: { noDescribe: true }, boundPct: { noDescribe: true },
    },
    options: [
      ['drum', { mode: 'membrane' }], ['electromagnetic', { mode: 'maxwell' }], ['yee', { mode: 'maxwell' }], ['cavity', { mode: 'maxwell' }],
      ['string', { mode: 'wave1d' }], ['strings', { mode: 'wave1d' }], ['fundamental', { mode_k: 1 }],
    ],
    structured: [
      [new RegExp(`\\b${MY}(?:initial|displacement|shape|profile|boundary|source)`), 'your own initial condition, boundary conditions or source cannot be read from the text; call svc_wave with `initial`, `initialVelocity`, `boundary`, `source`'],
      [/\b(?:gaussian|pluck(?:ed)? at|square pulse|triangular|neumann|free ends?|source term|periodic boundar\w*|boundary conditions?)\b|\binitial (?:condition|displacement|velocity|profile|shape|data)\b/, 'svc_auto runs the analytic problem only (a sine mode with fixed edges); your own initial shape, boundaries or source cannot be read from the text: call svc_wave with `initial`, `initialVelocity`, `boundary`, `source`'],
    ],
    inherent: ['leapfrog', 'energy conservation', 'vibrating', 'vibration'],
    dims: { 1: { mode: 'wave1d' }, 2: {} },
    grid: ['nx', 'ny'],
  },
  zeta: {
    fields: {
      T: { aliases: ['height', 'up to height', 'up to', 'below', 'below height', 'under', 'less than', 'imaginary part up to', 'imaginary part less than', 'imaginary part below', 'up to t', 'to t'] },
      dt: { aliases: ['scan step'] },
    },
    unsupported: [[/\bfirst\s+\S+\s+(?:\S+\s+){0,2}zeros\b|\b\d+(?:st|nd|rd|th)\s+zero\b|\bbetween\s+\S+\s+and\s+\S+/, 'svc_zeta counts the zeros with 0 < Im ρ ≤ T; ask for the zeros up to a height T']],
    inherent: [/\bre\s*\(\s*s\s*\)\s*=\s*1\s*\/\s*2|\breal part\s+(?:of\s+)?1\s*\/\s*2|\bsigma\s*=\s*1\s*\/\s*2/, 'critical line', 'riemann', 'nontrivial', 'non trivial', 'zeros', 'gram', 'rosser', 'hardy'],
  },
};

// ---- solver-specific readers ------------------------------------------------------------------

/** Where an expression written in prose ends: the first delimiter outside brackets. */
function exprEnd(text: string, from: number, stops: RegExp): number {
  let depth = 0;
  for (let k = from; k < text.length; k++) {
    const c = text[k];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') { if (depth === 0) return k; depth--; }
    else if (depth === 0) {
      if (c === ',' || c === ';') return k;
      if (c === '.' && (k + 1 === text.length || /\s/.test(text[k + 1])) && !/\d/.test(text[k - 1] ?? '')) return k;
      if (c === ' ') { stops.lastIndex = k; const m = stops.exec(text); if (m && m.index === k) return k; }
    }
  }
  return text.length;
}

const EXPR_STOPS = /\s+(?:and|with|from|for|until|till|to|starting|where|using|on|over|in|subject|s\.t\.|then|by|at|up|over|between|when|if|starting|beginning|initially)\b/y;
const FUNCTIONS = new Set(['sin', 'cos', 'tan', 'exp', 'log', 'ln', 'sqrt', 'abs', 'min', 'max', 'sinh', 'cosh', 'tanh', 'asin', 'acos', 'atan', 'atan2', 'pow', 'sign', 'floor', 'ceil', 'pi', 'e', 'log10', 'cbrt']);
const identifiers = (expr: string) => [...new Set([...expr.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map((m) => m[0]).filter((w) => !FUNCTIONS.has(w)))];

/** svc_ode: "x' = v, v' = -x" or "dx/dt = …", initial values "x(0) = 1" (x0 after normalisation),
 * parameters "k = 0.5" (names used in the right-hand sides), the span "from t = 0 to 10", "until t = 5". */
function parseOde(ctx: ReadContext): void {
  const { text } = ctx;
  if (/[A-Za-z_]\w*\s*''/.test(text) || /\bd\^?2\s*[A-Za-z_]\w*\s*\/\s*dt\^?2/.test(text)) {
    throw ctx.refuse('NEEDS_STRUCTURED_INPUT', 'svc_ode takes first-order systems: write a second-order equation x\'\' = f as x\' = v, v\' = f', []);
  }
  const equations: Record<string, string> = {};
  const spans: [number, number][] = [];
  const eqRe = /(?:\bd([A-Za-z_]\w*)\s*\/\s*dt|\b([A-Za-z_]\w*)\s*')\s*=\s*/g;
  for (const m of text.matchAll(eqRe)) {
    const name = m[1] ?? m[2];
    const start = m.index! + m[0].length;
    const end = exprEnd(text, start, EXPR_STOPS);
    const expr = text.slice(start, end).trim();
    if (!expr) continue;
    if (equations[name] !== undefined) throw ctx.refuse('CONFLICTING_VALUES', `two right-hand sides for ${name}'`, [m[0]]);
    equations[name] = expr;
    spans.push([m.index!, end]);
  }
  const states = Object.keys(equations);
  if (!states.length) return;
  const words = spans.map(([a, b]) => text.slice(a, b).trim()).join(', ');
  ctx.set('equations', equations, words, spans[0][0], spans[spans.length - 1][1]);
  for (const [a, b] of spans) ctx.useSpan(a, b);
  // initial values and parameters
  const y0: Record<string, number> = {};
  const params: Record<string, number> = {};
  const used = new Set(Object.values(equations).flatMap(identifiers));
  const iv: string[] = [], pv: string[] = [];
  for (const m of text.matchAll(new RegExp(String.raw`\b([A-Za-z_]\w*)\s*=\s*(${NUM})(?![\w.])`, 'g'))) {
    if (spans.some(([a, b]) => m.index! >= a && m.index! < b)) continue;
    const name = m[1], v = Number(m[2]);
    const st = states.find((s) => name === s + '0') ?? (states.includes(name) ? name : undefined);
    if (st !== undefined) { y0[st] = v; iv.push(m[0]); ctx.useSpan(m.index!, m.index! + m[0].length); }
    else if (used.has(name) && name !== 't') { params[name] = v; pv.push(m[0]); ctx.useSpan(m.index!, m.index! + m[0].length); }
  }
  const missing = states.filter((s) => y0[s] === undefined);
  if (missing.length) throw ctx.refuse('NEEDS_STRUCTURED_INPUT', `no initial value for ${missing.map((s) => `${s} (write ${s}(0) = …)`).join(', ')}`, []);
  ctx.set('y0', y0, iv.join(', '), 0, 0);
  const free = [...used].filter((n) => n !== 't' && !states.includes(n) && params[n] === undefined);
  if (free.length) throw ctx.refuse('NEEDS_STRUCTURED_INPUT', `the right-hand sides use ${free.join(', ')}, which the request gives no value for (write ${free[0]} = …)`, []);
  if (pv.length) ctx.set('params', params, pv.join(', '), 0, 0);
  // the time span
  const spanRes: [RegExp, (m: RegExpMatchArray) => [number, number]][] = [
    [new RegExp(String.raw`\bfrom\s+t\s*=\s*(${NUM})\s+(?:to|until|till)\s+(?:t\s*=\s*)?(${NUM})`), (m) => [Number(m[1]), Number(m[2])]],
    [new RegExp(String.raw`\bt\s+(?:from|in)\s+\[?\s*(${NUM})\s*(?:,|to|\.\.)\s*(${NUM})\s*\]?`), (m) => [Number(m[1]), Number(m[2])]],
    [new RegExp(String.raw`\bfor\s+t\s+from\s+(${NUM})\s+to\s+(${NUM})`), (m) => [Number(m[1]), Number(m[2])]],
    [new RegExp(String.raw`(${NUM})\s*<=?\s*t\s*<=?\s*(${NUM})`), (m) => [Number(m[1]), Number(m[2])]],
    [new RegExp(String.raw`\b(?:until|till|up to|to|through|over|at)\s+t\s*=\s*(${NUM})`), (m) => [0, Number(m[1])]],
  ];
  for (const [re, f] of spanRes) {
    const m = re.exec(text);
    if (!m) continue;
    ctx.set('tSpan', f(m), m[0], m.index!, m.index! + m[0].length);
    ctx.useSpan(m.index!, m.index! + m[0].length);
    break;
  }
}

/** svc_sat: a DIMACS CNF written inline ("p cnf 3 2 1 -2 0 2 3 0"): the header, then the clause
 * literals up to the last 0 (DIMACS lets clauses share a line; the header goes on its own). */
function parseInlineCnf(ctx: ReadContext): void {
  const m = /\bp\s+cnf\s+(\d+)\s+(\d+)((?:\s+-?\d+)*\s+0)(?![\d.])/.exec(ctx.text);
  if (!m) return;
  const cnf = `p cnf ${m[1]} ${m[2]}\n${m[3].trim().replace(/\s+/g, ' ')}\n`;
  ctx.set('cnf', cnf, m[0].trim(), m.index, m.index + m[0].length);
  ctx.useSpan(m.index, m.index + m[0].length);
}

/** svc_opt: "minimise (x-1)^2 + (y+2)^2 from x = 0, y = 0" (or "starting at (0, 0)", in the order
 * the variables first appear, or the order of "f(x, y) ="), with bounds "0 <= x <= 1", "x >= 0". */
/** svc_fit: "fit y = <expression> to the points (x, y), (x, y), … from a = …, b = …" or
 * "… to the data x = [..], y = [..] …"; the independent variable is x, every other name of the
 * expression a parameter, each needing a start value. Anything less is left to `requires`. */
function parseFit(ctx: ReadContext): void {
  const { text } = ctx;
  const m = /\bfit(?:ting)?\s+(?:the\s+(?:model|curve|function)\s+)?(?:y\s*=\s*)?/i.exec(text);
  if (!m) return;
  const start = m.index + m[0].length;
  const end = exprEnd(text, start, EXPR_STOPS);
  const expr = text.slice(start, end).trim();
  const names = identifiers(expr);
  if (!/[\^*+/()-]/.test(expr) || !names.includes('x') || names.some((v) => v.length > 3)) return;
  const params = names.filter((v) => v !== 'x');
  const rest = text.slice(end);
  const x: number[] = [], y: number[] = [], words: string[] = [];
  const arr = (name: string) => new RegExp(String.raw`\b${name}\s*=\s*\[([^\]]*)\]`).exec(rest);
  const ax = arr('x'), ay = arr('y');
  if (ax && ay) {
    const parse = (a: RegExpExecArray) => a[1].split(',').map((v) => Number(v.trim()));
    x.push(...parse(ax)); y.push(...parse(ay));
    if (x.length !== y.length || !x.every(Number.isFinite) || !y.every(Number.isFinite)) throw ctx.refuse('CONFLICTING_VALUES', `x has ${x.length} values and y ${y.length}: give as many of each, as numbers`, [ax[0], ay[0]]);
    for (const a of [ax, ay]) { words.push(a[0]); ctx.useSpan(end + a.index, end + a.index + a[0].length); }
  } else {
    for (const t of rest.matchAll(new RegExp(String.raw`\(\s*(${NUM})\s*,\s*(${NUM})\s*\)`, 'g'))) {
      x.push(Number(t[1])); y.push(Number(t[2])); words.push(t[0]);
      ctx.useSpan(end + t.index!, end + t.index! + t[0].length);
    }
  }
  if (!x.length) return;
  ctx.set('model', expr, text.slice(m.index, end).trim(), m.index, end);
  ctx.useSpan(m.index, end);
  ctx.set('data', { x, y }, `${x.length} points`, 0, 0);
  const p0: Record<string, number> = {};
  const pw: string[] = [];
  for (const a of rest.matchAll(new RegExp(String.raw`\b([A-Za-z_]\w*)\s*=\s*(${NUM})(?![\w.])`, 'g'))) {
    if (!params.includes(a[1])) continue;
    p0[a[1]] = Number(a[2]); pw.push(a[0]);
    ctx.useSpan(end + a.index!, end + a.index! + a[0].length);
  }
  const missing = params.filter((v) => p0[v] === undefined);
  if (missing.length) throw ctx.refuse('NEEDS_STRUCTURED_INPUT', `give a start value for ${missing.join(', ')} ("from ${missing.map((v) => `${v} = …`).join(', ')}")`, []);
  ctx.set('p0', p0, pw.join(', '), 0, 0);
}

function parseObjective(ctx: ReadContext): void {
  const { text } = ctx;
  const m = /\b(?:minimi[sz]e|minimum of|minimi[sz]ing|min)\s+(?:the\s+(?:function|objective)\s+)?(?:f\s*\(([^)]*)\)\s*=\s*)?/i.exec(text);
  if (!m) return;
  const start = m.index + m[0].length;
  const end = exprEnd(text, start, EXPR_STOPS);
  const expr = text.slice(start, end).trim();
  const vars0 = identifiers(expr);
  // prose ("minimise the rosenbrock function") is not an expression: it needs an operator and short names
  if (!/[\^*+/()-]/.test(expr) || !vars0.length || vars0.some((v) => v.length > 3)) return;
  const order = m[1] ? m[1].split(',').map((s) => s.trim()).filter(Boolean) : vars0;
  if (m[1] && (order.length !== vars0.length || vars0.some((v) => !order.includes(v)))) {
    throw ctx.refuse('CONFLICTING_VALUES', `f(${m[1]}) does not name the variables the expression uses (${vars0.join(', ')})`, [m[0]]);
  }
  ctx.set('objective', expr, text.slice(m.index, end).trim(), m.index, end);
  ctx.useSpan(m.index, end);
  const x0: Record<string, number> = {};
  const words: string[] = [];
  for (const a of text.slice(end).matchAll(new RegExp(String.raw`\b([A-Za-z_]\w*)\s*=\s*(${NUM})(?![\w.])`, 'g'))) {
    if (!order.includes(a[1])) continue;
    x0[a[1]] = Number(a[2]); words.push(a[0]);
    ctx.useSpan(end + a.index!, end + a.index! + a[0].length);
  }
  const tuple = new RegExp(String.raw`\(\s*(${NUM}(?:\s*,\s*${NUM})*)\s*\)`).exec(text.slice(end));
  if (!Object.keys(x0).length && tuple) {
    const vals = tuple[1].split(',').map((s) => Number(s.trim()));
    if (vals.length !== order.length) throw ctx.refuse('CONFLICTING_VALUES', `the start point (${tuple[1]}) has ${vals.length} coordinates for ${order.length} variables (${order.join(', ')})`, [tuple[0]]);
    order.forEach((v, k) => { x0[v] = vals[k]; });
    words.push(tuple[0]);
    ctx.useSpan(end + tuple.index, end + tuple.index + tuple[0].length);
  }
  const missing = order.filter((v) => x0[v] === undefined);
  if (missing.length) throw ctx.refuse('NEEDS_STRUCTURED_INPUT', `give a start point for ${missing.join(', ')} ("from ${missing.map((v) => `${v} = …`).join(', ')}")`, []);
  ctx.set('x0', x0, words.join(', '), 0, 0);
  // bounds: lo <= x <= hi, x >= lo, x <= hi
  const bounds: Record<string, [number | null, number | null]> = {};
  const bw: string[] = [];
  const rest = text.slice(end);
  for (const b of rest.matchAll(new RegExp(String.raw`(${NUM})\s*<=?\s*([A-Za-z_]\w*)\s*<=?\s*(${NUM})`, 'g'))) {
    if (!order.includes(b[2])) continue;
    bounds[b[2]] = [Number(b[1]), Number(b[3])]; bw.push(b[0]); ctx.useSpan(end + b.index!, end + b.index! + b[0].length);
  }
  for (const b of rest.matchAll(new RegExp(String.raw`\b([A-Za-z_]\w*)\s*(>=?|<=?)\s*(${NUM})`, 'g'))) {
    if (!order.includes(b[1]) || bounds[b[1]]?.every((x) => x !== null)) continue;
    const cur = bounds[b[1]] ?? [null, null];
    if (b[2].startsWith('>')) cur[0] = Number(b[3]); else cur[1] = Number(b[3]);
    bounds[b[1]] = cur; bw.push(b[0]); ctx.useSpan(end + b.index!, end + b.index! + b[0].length);
  }
  if (Object.keys(bounds).length) {
    ctx.set('bounds', bounds, bw.join(', '), 0, 0);
    for (const s of rest.matchAll(/\bsubject to\b|\bs\.t\./g)) ctx.useSpan(end + s.index!, end + s.index! + s[0].length);
  }
}

export type { Unit };
