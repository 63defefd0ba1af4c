// Example requests for every kind of user input a solver accepts (issue 29 item 5): a MATPOWER
// case and its JSON tables for grid, a configuration for evolve, measurements for kalman, case
// counts for epi, a CNF and clauses for sat, your own ODEs, objective, model and data, an LP in
// each of its three formats, a Matrix Market file and JSON triplets, a Gmsh mesh, initial and
// boundary conditions for heat and wave, … OpenAPI shows them beside each solver's recorded
// example (src/ops/solver-examples.json, the solver's defaults written out); they are requests
// only: test/api/solver-input-examples.test.ts runs each on a test node and requires it sealed, and
// checks that every field carrying user data (text, a list, a table, records, an object) is used,
// in each of its forms, by some example. Keep them small: the test runs them all.
//
// A field's blob form ({"blob": "sha256:…"}, src/ops/files.ts) is the same content uploaded
// first; it is not repeated here (docs/api.md).
import { EXAMPLE_CASE } from '../solvers/grid.ts';

export interface InputExample {
  /** the key in OpenAPI's examples map: short, [A-Za-z0-9_-] */
  name: string;
  /** what the example shows, for people */
  summary: string;
  request: Record<string, unknown>;
}

/** A unit square of 9 nodes and 8 triangles (Gmsh MSH 2.2) with the physical groups left (x = 0),
 * right (x = 1), walls (y = 0 and y = 1) and domain. */
const SQUARE_MESH = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n4\n1 1 \"left\"\n1 2 \"right\"\n1 3 \"walls\"\n2 4 \"domain\"\n$EndPhysicalNames\n$Nodes\n9\n1 0 0 0\n2 0.5 0 0\n3 1 0 0\n4 0 0.5 0\n5 0.5 0.5 0\n6 1 0.5 0\n7 0 1 0\n8 0.5 1 0\n9 1 1 0\n$EndNodes\n$Elements\n16\n1 1 2 1 1 1 4\n2 1 2 1 1 4 7\n3 1 2 2 2 3 6\n4 1 2 2 2 6 9\n5 1 2 3 3 1 2\n6 1 2 3 3 2 3\n7 1 2 3 3 7 8\n8 1 2 3 3 8 9\n9 2 2 4 4 1 2 5\n10 2 2 4 4 1 5 4\n11 2 2 4 4 2 3 6\n12 2 2 4 4 2 6 5\n13 2 2 4 4 4 5 8\n14 2 2 4 4 4 8 7\n15 2 2 4 4 5 6 9\n16 2 2 4 4 5 9 8\n$EndElements\n";

/** x·(1 − x) at the 11 nodes of nx = 10 */
const PARABOLA_11 = [0, 0.09, 0.16, 0.21, 0.24, 0.25, 0.24, 0.21, 0.16, 0.09, 0];

/** 16·x(1 − x)·y(1 − y) on the (n + 1) × (n + 1) nodes of nx = ny = n, row j at y = j/n */
const bump = (n: number) => Array.from({ length: n + 1 }, (_, j) => Array.from({ length: n + 1 }, (_, i) => Number((16 * (i / n) * (1 - i / n) * (j / n) * (1 - j / n)).toFixed(4))));

/** sin(πx) at the 17 nodes of nx = 16, and zeros */
const SINE_17 = Array.from({ length: 17 }, (_, i) => Number(Math.sin((Math.PI * i) / 16).toFixed(6)));
const ZERO_17 = Array<number>(17).fill(0);
const ZERO_17x17 = Array.from({ length: 17 }, () => Array<number>(17).fill(0));


export const SOLVER_INPUT_EXAMPLES: Record<string, InputExample[]> = {
  action: [
    { name: 'kepler-initial-state', summary: 'a Kepler orbit from your own initial position and momentum (2-vectors)', request: { system: 'kepler', q0: [1, 0], p0: [0, 1.2], order: 4, steps: 20000, dt: 0.01, sample: 6 } },
  ],
  closedform: [
    { name: 'operators-couplings', summary: 'your own coefficients (inputs), shaped operators, couplings and a compile scale', request: { inputs: { mu2_eff: -1, lambda_eff: 0.1, phi0: 1, tEnd: 10 }, operators: [{ id: 'KO42', shape: 'phi', weight: 0.5 }], couplings: [{ target: 'mu2', value: -0.5 }], compile: { scale: 2 } } },
  ],
  epi: [
    { name: 'case-counts', summary: 'fit SIR to your daily case counts (Poisson maximum likelihood)', request: { cases: [3, 4, 6, 9, 12, 17, 25, 34, 47, 63, 80, 98, 112, 118, 114, 101, 83, 64, 47, 33, 23, 15, 10, 7], population: 2000, sample: 6 } },
  ],
  evolve: [
    { name: 'xyz-configuration', summary: 'your configuration as extended XYZ text, with LJ parameters per species', request: { xyz: '2\nLattice="6 0 0 0 6 0 0 0 6" Properties=species:S:1:pos:R:3:vel:R:3 pbc="T T T"\nAr 1 1 1 0.1 0 0\nAr 2.12 1 1 -0.1 0 0\n', species: { Ar: { mass: 1, eps: 1, sig: 1 } }, steps: 200, sample: 6 } },
    { name: 'lammps-data', summary: 'your configuration as a LAMMPS data file (atom style atomic) with two species', request: { lammpsData: 'LAMMPS data file\n\n2 atoms\n2 atom types\n\n0 6 xlo xhi\n0 6 ylo yhi\n0 6 zlo zhi\n\nMasses\n\n1 1.0\n2 2.0\n\nAtoms # atomic\n\n1 1 1.0 1.0 1.0\n2 2 2.2 1.0 1.0\n\nVelocities\n\n1 0.1 0 0\n2 -0.05 0 0\n', species: { 1: { eps: 1, sig: 1 }, 2: { eps: 0.5, sig: 0.88 } }, steps: 200, sample: 6 } },
  ],
  fea: [
    { name: 'mesh-poisson', summary: 'Poisson −∇²u = 2 on your Gmsh mesh, P2 elements: u = x(1 − x), 0.25 at the centre', request: { mesh: SQUARE_MESH, pde: 'poisson', order: 2, f: 2, boundary: { left: { type: 'dirichlet', value: 0 }, right: { type: 'dirichlet', value: 0 } }, probes: [[0.5, 0.5]] } },
    { name: 'mesh-poisson-expressions', summary: 'Poisson on your mesh (P2) with a conductivity, a source and a boundary flux given as expressions in x, y', request: { mesh: SQUARE_MESH, order: 2, k: '1 + x', f: 'sin(pi*y)', boundary: { left: { type: 'dirichlet', value: 0 }, right: { type: 'neumann', value: '1 + y' } }, probes: [[0.5, 0.5]] } },
    { name: 'mesh-elasticity', summary: 'plane-stress elasticity on your mesh (P2): clamped on the left, pulled on the right', request: { mesh: SQUARE_MESH, pde: 'elasticity', order: 2, E: 1000, nu: 0.3, boundary: { left: { type: 'fixed', value: 0 }, right: { type: 'traction', value: [1, 0] } }, probes: [[1, 0.5]] } },
  ],
  fit: [
    { name: 'arrays', summary: 'your model and data as {x, y, sigma} arrays', request: { model: 'A*exp(-k*x) + c', data: { x: [0, 1, 2, 3, 4, 5], y: [5.1, 3, 1.9, 1.2, 0.7, 0.5], sigma: [0.2, 0.2, 0.1, 0.1, 0.05, 0.05] }, p0: { A: 5, k: 0.5, c: 0 } } },
    { name: 'csv', summary: 'your data as CSV text with a header naming the columns, with a bound on a parameter', request: { model: 'A*exp(-k*x) + c', data: 'x,y,sigma\n0,5.1,0.2\n1,3.0,0.2\n2,1.9,0.1\n3,1.2,0.1\n4,0.7,0.05\n5,0.5,0.05\n', p0: { A: 5, k: 0.5, c: 0 }, bounds: { k: [0, null] } } },
  ],
  grid: [
    { name: 'matpower-case', summary: 'AC power flow of your MATPOWER case file (3 buses)', request: { case: EXAMPLE_CASE, method: 'ac', sample: 6 } },
    { name: 'matpower-json', summary: 'DC power flow of the same network given as MATPOWER tables in JSON', request: { network: { baseMVA: 100, bus: [[1, 3, 0, 0, 0, 0, 1, 1.02, 0, 230, 1, 1.1, 0.9], [2, 2, 50, 20, 0, 0, 1, 1.01, 0, 230, 1, 1.1, 0.9], [3, 1, 120, 50, 0, 5, 1, 1, 0, 230, 1, 1.1, 0.9]], gen: [[1, 0, 0, 200, -200, 1.02, 100, 1, 300, 0], [2, 80, 0, 100, -100, 1.01, 100, 1, 150, 0]], branch: [[1, 2, 0.01, 0.08, 0.02, 0, 0, 0, 0, 0, 1, -360, 360], [1, 3, 0.02, 0.1, 0.02, 0, 0, 0, 0.98, 0, 1, -360, 360], [2, 3, 0.015, 0.09, 0.02, 0, 0, 0, 0, 0, 1, -360, 360]] }, method: 'dc', sample: 6 } },
  ],
  heat: [
    { name: 'user-1d-expression', summary: 'a 1-D bar with your initial condition, boundary conditions, source and probe points', request: { dim: 1, nx: 32, dt: 0.001, steps: 100, initial: 'x*(1-x)', boundary: { left: { type: 'dirichlet', value: 0 }, right: { type: 'neumann', value: 0 } }, source: 'sin(pi*x)*exp(-t)', probes: [[0.5], [0.25]], sample: 6 } },
    { name: 'user-1d-values', summary: 'a 1-D bar whose initial condition is given as node values (nx + 1 numbers)', request: { dim: 1, nx: 10, dt: 0.001, steps: 50, initial: PARABOLA_11, probes: [[0.5]], sample: 6 } },
    { name: 'user-2d-values', summary: 'a plate whose initial condition is given as rows of node values ((ny + 1) × (nx + 1))', request: { dim: 2, nx: 8, ny: 8, dt: 0.002, steps: 10, initial: bump(8), probes: [[0.5, 0.5]], sample: 6 } },
  ],
  kalman: [
    { name: 'measurements', summary: 'filter your measurement series with your constant-velocity model (F, H, Q, R, x0, P0)', request: { measurements: [0.09, -0.25, 1.85, 2.92, 4.32, 5.69, 7.08, 8.33, 8.98, 10.0, 12.59, 13.77, 14.62, 15.87, 17.06, 19.32, 19.22, 20.89, 23.18, 24.94], F: [[1, 1], [0, 1]], H: [[1, 0]], Q: [[0.01 / 3, 0.005], [0.005, 0.01]], R: [[0.25]], x0: [0, 1], P0: [[1, 0], [0, 1]], smooth: true, sample: 6 } },
    { name: 'measurements-controls', summary: 'your measurements from two sensors and your control inputs (B u)', request: { measurements: [[0.09, 0.74], [1.88, 1.41], [1.94, 0.58], [3.04, 1.53], [5.93, 2.65], [9.04, 3.02], [11.06, 3.36], [13.29, 1.32], [16.31, 1.51], [16.84, 1.61], [18.16, 1.96], [19.28, 2.43]], controls: [0, 0, 1, 1, 0, 0, -1, -1, 0, 0, 1, 0], F: [[1, 1], [0, 1]], B: [[0.5], [1]], H: [[1, 0], [0, 1]], Q: [[0.01 / 3, 0.005], [0.005, 0.01]], R: [[0.25, 0], [0, 0.25]], x0: [0, 1], P0: [[1, 0], [0, 1]], sample: 6 } },
    { name: 'vector-controls', summary: 'a point in the plane steered by your velocity commands, two control inputs per step (controls as vectors)', request: { measurements: [[-0.33, -0.09], [0.35, 0.06], [1.3, 0.2], [3.29, 0.49], [2.02, 2.01], [2.62, 2.04], [3.72, 2.45], [2.37, 2.22], [0.21, 3.79], [0.45, 2.91], [0.26, 2.8], [-0.58, 1.02]], controls: [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1], [-1, 0], [-1, 0], [-1, 0], [0, -1], [0, -1], [0, -1]], F: [[1, 0], [0, 1]], B: [[1, 0], [0, 1]], H: [[1, 0], [0, 1]], Q: [[0.01, 0], [0, 0.01]], R: [[0.25, 0], [0, 0.25]], x0: [0, 0], P0: [[1, 0], [0, 1]], sample: 6 } },
  ],
  linsolve: [
    { name: 'triplets', summary: 'your matrix as JSON triplets {n, rows, cols, vals} (0-based) and the right-hand side as numbers', request: { matrix: { n: 3, rows: [0, 0, 1, 1, 2, 2], cols: [0, 2, 0, 1, 1, 2], vals: [4, 1, -1, 3, 2, 5] }, rhs: [5, 2, 7] } },
  ],
  lp: [
    { name: 'cplex-lp', summary: 'your mixed-integer program as CPLEX LP text', request: { lp: '\\ a small mixed-integer program\nMaximize\n profit: 3 x + 5 y\nSubject To\n plant1: x <= 4\n plant2: 2 y <= 12\n plant3: 3 x + 2 y <= 18.5\nBounds\n 0 <= x <= 10\nGeneral\n y\nEnd\n' } },
    { name: 'json-model', summary: 'your problem as JSON in scipy.optimize.milp\'s form (c, A, lb, ub, bounds, integrality)', request: { model: { c: [-1, -2, -3], A: [[1, 1, 1], [1, -1, 0]], lb: [null, 0], ub: [10, null], bounds: { lb: [0, 0, 0], ub: [4, null, 3] }, integrality: [1, 1, 0] } } },
  ],
  multibody: [
    { name: 'oscillators', summary: 'coupled oscillators (bodies without positions) with your operator weights', request: { prompt: 'Three coupled pendulums of 1, 2 and 3 kg', bodies: [{ mass: 1 }, { mass: 2 }, { mass: 3 }], koSettings: { KO42: 1, B: 0.5 }, sample: 6 } },
  ],
  ode: [
    { name: 'pendulum-invariant', summary: 'a pendulum with your energy invariant, whose drift is reported (DOP853)', request: { equations: { theta: 'omega', omega: '-(g/L)*sin(theta)' }, y0: { theta: 1, omega: 0 }, params: { g: 9.81, L: 1 }, tSpan: [0, 5], invariants: { energy: '0.5*omega^2 - (g/L)*cos(theta)' }, method: 'DOP853', rtol: 1e-9, sample: 11 } },
    { name: 'van-der-pol', summary: 'your own system with a parameter, output times, an event and per-state tolerances', request: { equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 1 }, tSpan: [0, 10], tEval: [0, 2, 4, 6, 8, 10], events: [{ name: 'cross', expr: 'x', direction: -1 }], atol: { x: 1e-9, y: 1e-9 }, method: 'auto' } },
  ],
  opt: [
    { name: 'objective', summary: 'minimise your own objective from your start point (BFGS)', request: { objective: '(x^2 + y - 11)^2 + (x + y^2 - 7)^2', x0: { x: 1, y: 1 } } },
    { name: 'objective-bounds', summary: 'your objective with box bounds on a variable (L-BFGS-B)', request: { objective: '(1 - x)^2 + 100*(y - x^2)^2', x0: { x: -1.2, y: 0 }, bounds: { x: [null, 0.5] } } },
  ],
  sat: [
    { name: 'dimacs-cnf', summary: 'your formula as DIMACS CNF text (this one is unsatisfiable: the answer carries a DRAT proof)', request: { cnf: 'c unsatisfiable: every assignment of x1, x2 falsifies one clause\np cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n' } },
    { name: 'clauses', summary: 'your formula as clauses of signed variable numbers (satisfiable: the answer carries a model)', request: { clauses: [[1, -2], [2, 3], [-1, -3]] } },
  ],
  solve: [
    { name: 'labelled-pendulum', summary: 'a pendulum on the Moon with your own label and operator weights', request: { prompt: 'A 2 kg brass bob swinging on the Moon', referenceMode: 'shm', location: 'moon', mass: 2, object: 'brass bob', koSettings: { KO42: 1 }, sample: 6 } },
  ],
  wave: [
    { name: 'user-1d-expressions', summary: 'a 1-D string with your initial shape and velocity, periodic ends and probe points', request: { dim: 1, nx: 32, Lx: 2, c: 1.3, steps: 100, initial: 'sin(pi*x)', initialVelocity: '-1.3*pi*cos(pi*x)', boundary: { left: { type: 'periodic' }, right: { type: 'periodic' } }, probes: [[0.3], [1.1]], sample: 6 } },
    { name: 'user-1d-values', summary: 'a 1-D string given as node values (shape and velocity) with a driving source', request: { dim: 1, nx: 16, steps: 40, initial: SINE_17, initialVelocity: ZERO_17, source: 'sin(5*t)*exp(-100*(x-0.5)^2)', probes: [[0.5]], sample: 6 } },
    { name: 'user-2d-values', summary: 'a membrane whose initial shape and velocity are given as rows of node values', request: { dim: 2, nx: 16, ny: 16, steps: 20, initial: bump(16), initialVelocity: ZERO_17x17, probes: [[0.5, 0.5]], sample: 6 } },
  ],
};
