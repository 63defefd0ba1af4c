// The opt acceptance problems (issue 22), shared by test/solvers/opt-objective.test.ts and
// bench/opt.bench.ts: each as the objective expression the solver takes, the name under which
// bench/opt_ref.py has it hand-written with its analytic gradient for SciPy, and the known minimiser.

export type Method = 'nelder-mead' | 'bfgs' | 'l-bfgs-b';
export const SCIPY_METHOD: Record<Method, string> = { 'nelder-mead': 'Nelder-Mead', bfgs: 'BFGS', 'l-bfgs-b': 'L-BFGS-B' };

export interface OptProblem {
  label: string;
  /** the name in bench/opt_ref.py */
  problem: string;
  objective: string;
  vars: string[];
  x0: number[];
  /** per variable [lo, hi] (null = open side); omitted when unbounded */
  bounds?: ([number | null, number | null])[];
  methods: Method[];
  /** the known minimiser (null where it is not known in closed form; see the test) */
  xStar: number[] | null;
  fStar: number;
  /** compare in f instead of x (degenerate minimum) */
  compareF?: boolean;
}

const xs = (n: number) => Array.from({ length: n }, (_, i) => `x${i + 1}`);
function rosenbrock(n: number): string {
  const t: string[] = [];
  for (let i = 1; i < n; i++) t.push(`100*(x${i + 1} - x${i}^2)^2 + (1 - x${i})^2`);
  return t.join(' + ');
}
const ALL: Method[] = ['nelder-mead', 'bfgs', 'l-bfgs-b'];
const HIMMELBLAU = '(x^2 + y - 11)^2 + (x + y^2 - 7)^2';

export const PROBLEMS: OptProblem[] = [
  { label: 'Rosenbrock 2-D', problem: 'rosenbrock', objective: rosenbrock(2), vars: xs(2), x0: [-1.2, 1], methods: ALL, xStar: [1, 1], fStar: 0 },
  // the start of SciPy's tutorial
  { label: 'Rosenbrock 5-D', problem: 'rosenbrock', objective: rosenbrock(5), vars: xs(5), x0: [1.3, 0.7, 0.8, 1.9, 1.2], methods: ALL, xStar: Array(5).fill(1), fStar: 0 },
  // from the origin (from (−1.2, 1, …) SciPy's BFGS and Nelder-Mead end in the local minimum near (−1, 1, …, 1))
  { label: 'Rosenbrock 10-D', problem: 'rosenbrock', objective: rosenbrock(10), vars: xs(10), x0: Array(10).fill(0), methods: ALL, xStar: Array(10).fill(1), fStar: 0 },
  { label: 'Beale', problem: 'beale', objective: '(1.5 - x + x*y)^2 + (2.25 - x + x*y^2)^2 + (2.625 - x + x*y^3)^2', vars: ['x', 'y'], x0: [1, 1], methods: ALL, xStar: [3, 0.5], fStar: 0 },
  { label: 'Booth', problem: 'booth', objective: '(x + 2*y - 7)^2 + (2*x + y - 5)^2', vars: ['x', 'y'], x0: [0, 0], methods: ALL, xStar: [1, 3], fStar: 0 },
  // Himmelblau's four minima from four starts; three are roots of a quartic system, refined by the test
  { label: 'Himmelblau from (1, 1)', problem: 'himmelblau', objective: HIMMELBLAU, vars: ['x', 'y'], x0: [1, 1], methods: ALL, xStar: [3, 2], fStar: 0 },
  { label: 'Himmelblau from (-1, 1)', problem: 'himmelblau', objective: HIMMELBLAU, vars: ['x', 'y'], x0: [-1, 1], methods: ALL, xStar: [-2.805118, 3.131312], fStar: 0 },
  { label: 'Himmelblau from (-1, -1)', problem: 'himmelblau', objective: HIMMELBLAU, vars: ['x', 'y'], x0: [-1, -1], methods: ALL, xStar: [-3.779310, -3.283186], fStar: 0 },
  { label: 'Himmelblau from (2, -2)', problem: 'himmelblau', objective: HIMMELBLAU, vars: ['x', 'y'], x0: [2, -2], methods: ALL, xStar: [3.584428, -1.848126], fStar: 0 },
  // Powell's singular function: minimum 0 at the origin, Hessian singular there (compared in f)
  { label: 'Powell singular', problem: 'powell', objective: '(x1 + 10*x2)^2 + 5*(x3 - x4)^2 + (x2 - 2*x3)^4 + 10*(x1 - x4)^4', vars: xs(4), x0: [3, -1, 0, 1], methods: ALL, xStar: [0, 0, 0, 0], fStar: 0, compareF: true },
  // bounded: Rosenbrock with x <= 1/2: f >= (1 − x)² >= 1/4, attained only at (1/2, 1/4) (x on its upper bound)
  { label: 'Rosenbrock 2-D, x <= 0.5', problem: 'rosenbrock', objective: rosenbrock(2), vars: xs(2), x0: [-1.2, 1], bounds: [[-1.5, 0.5], [-0.5, 1.5]], methods: ['nelder-mead', 'l-bfgs-b'], xStar: [0.5, 0.25], fStar: 0.25 },
  // bounded: separable, x on its upper bound 1, y on its lower bound 0, z free at 1/2
  { label: 'separable 3-D on two bounds', problem: 'separable', objective: '(x1 - 2)^2 + (x2 + 1)^4 + (x3 - 0.5)^2', vars: xs(3), x0: [0.5, 1, 0], bounds: [[0, 1], [0, null], [null, null]], methods: ['nelder-mead', 'l-bfgs-b'], xStar: [1, 0, 0.5], fStar: 2 },
];

/** The request body for the solver. */
export function body(p: OptProblem, method: Method, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const b: Record<string, unknown> = { objective: p.objective, x0: Object.fromEntries(p.vars.map((v, i) => [v, p.x0[i]])), method, ...extra };
  if (p.bounds) b.bounds = Object.fromEntries(p.vars.map((v, i) => [v, p.bounds![i]]).filter(([, bd]) => (bd as unknown[]).some((e) => e !== null)));
  return b;
}

/** The case for bench/opt_ref.py. */
export function scipyCase(p: OptProblem, method: Method): Record<string, unknown> {
  return { problem: p.problem, n: p.vars.length, x0: p.x0, bounds: p.bounds ?? null, method: SCIPY_METHOD[method] };
}
