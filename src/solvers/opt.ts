// opt: unconstrained minimisation of standard test functions, checked against their known optima.
//
// Methods:
//   nelder-mead  the downhill simplex of Nelder & Mead (Computer J. 7, 308 (1965)) with the
//                conventions of Lagarias, Reeds, Wright & Wright, "Convergence properties of the
//                Nelder-Mead simplex method in low dimensions", SIAM J. Optim. 9(1), 112 (1998):
//                coefficients ρ = 1 (reflection), χ = 2 (expansion), γ = 1/2 (contraction),
//                σ = 1/2 (shrink); expansion accepted only if f_e < f_r; outside contraction when
//                f_n <= f_r < f_{n+1}, inside contraction when f_r >= f_{n+1}; ties in the ordering
//                broken so that a new vertex ranks after old vertices of equal value. Initial
//                simplex as in MATLAB's fminsearch: x0 plus 5 % of each coordinate (0.00025 where
//                it is zero). Stops after maxIter iterations or when the simplex diameter is below
//                1e-12·(1 + |x_best|) and the spread of f below 1e-16·(1 + |f_best|) (so the result
//                is converged to rounding, not to a loose tolerance).
//   gradient     steepest descent with an analytic gradient and Armijo backtracking line search
//                (Nocedal & Wright, "Numerical Optimization", 2nd ed., Alg. 3.1: c1 = 1e-4,
//                step halved from the last accepted step times 2); stops at ‖∇f‖ < 1e-10 or maxIter.
// Functions (dimensionless, DESIGN §10): sphere Σx², Rosenbrock Σ 100(x_{i+1} − x_i²)² + (1 − x_i)²,
// Rastrigin 10d + Σ (x² − 10 cos 2πx), Beale (1.5 − x + xy)² + (2.25 − x + xy²)² + (2.625 − x + xy³)²
// (2-D only). Start point: `start` for every coordinate if given; otherwise the function's
// standard start (Rosenbrock (−1.2, 1, −1.2, 1, …), Beale (1, 1)) or, for sphere and Rastrigin,
// a point drawn uniformly from [−5.12, 5.12]^d with `seed`.
// Reference: the known global minimiser and value (sphere and Rastrigin 0 at the origin,
// Rosenbrock 0 at (1, …, 1), Beale 0 at (3, 0.5)); errorPct is the distance to the minimiser in
// percent of max(1, ‖x*‖). There is no stability condition; descent is monotone in f.
import { z } from 'zod';
import type { SolverDescriptor, SolverRun } from './types.ts';
import { refuse } from '../core/errors.ts';
import { createRng } from './lib/rng.ts';

export const descriptor: SolverDescriptor = {
  name: 'opt',
  domain: 'Optimization',
  method: 'nelder-mead',
  methodDescription: 'numerical descent (Nelder-Mead simplex or gradient descent with Armijo line search), checked against known optimum',
  operators: ['KO42', 'CS75'],
  unit: 'f',
  summary: 'Minimises a standard test function (sphere, Rosenbrock, Rastrigin, Beale) by Nelder-Mead or gradient descent with backtracking line search and reports the distance to the known optimum.',
  input: z.strictObject({
    fn: z.enum(['sphere', 'rosenbrock', 'rastrigin', 'beale']).default('rosenbrock').describe('test function'),
    method: z.enum(['nelder-mead', 'gradient']).default('nelder-mead').describe('minimiser'),
    dim: z.number().int().min(1).max(50).default(2).describe('dimension (1 to 50; beale is 2-D only, rosenbrock needs at least 2)'),
    maxIter: z.number().int().min(1).max(200_000).default(10_000).describe('iteration limit (1 to 200,000)'),
    start: z.number().finite().min(-100).max(100).optional().describe('start value for every coordinate (default: the function\'s standard start)'),
    seed: z.number().int().min(0).max(0xffffffff).optional().describe('seed for the random start of sphere and rastrigin'),
  }),
  examples: [
    'minimize the Rosenbrock banana function in two dimensions',
    'find the minimum of the rastrigin function with 5 variables',
    'Nelder-Mead simplex search on the Beale function',
    'gradient descent with line search on a 10 dimensional sphere',
    'how close does downhill simplex get to the optimum at (1,1)',
    'numerical optimisation benchmark: locate the global minimum of a test function',
    'compare derivative-free and gradient based minimizers',
    'optimize a nonconvex objective starting from -1.2, 1',
    'unconstrained minimization with Armijo backtracking',
  ],
  vocabulary: [
    'optimize', 'optimise', 'optimization', 'optimisation', 'minimize', 'minimise', 'minimum', 'minimizer', 'maximum',
    'objective', 'cost function', 'nelder-mead', 'nelder mead', 'simplex', 'downhill simplex', 'gradient descent',
    'steepest descent', 'line search', 'armijo', 'backtracking', 'rosenbrock', 'banana', 'rastrigin', 'beale', 'sphere',
    'test function', 'global minimum', 'local minimum', 'convergence', 'iterations', 'derivative-free', 'argmin',
  ],
};

type Fn = 'sphere' | 'rosenbrock' | 'rastrigin' | 'beale';

export function evaluate(fn: Fn, x: Float64Array): number {
  const d = x.length;
  let f = 0;
  switch (fn) {
    case 'sphere':
      for (let i = 0; i < d; i++) f += x[i] * x[i];
      return f;
    case 'rosenbrock':
      for (let i = 0; i < d - 1; i++) { const a = x[i + 1] - x[i] * x[i], b = 1 - x[i]; f += 100 * a * a + b * b; }
      return f;
    case 'rastrigin':
      f = 10 * d;
      for (let i = 0; i < d; i++) f += x[i] * x[i] - 10 * Math.cos(2 * Math.PI * x[i]);
      return f;
    case 'beale': {
      const [u, v] = [x[0], x[1]];
      const a = 1.5 - u + u * v, b = 2.25 - u + u * v * v, c = 2.625 - u + u * v * v * v;
      return a * a + b * b + c * c;
    }
  }
}

export function gradient(fn: Fn, x: Float64Array, g: Float64Array): void {
  const d = x.length;
  g.fill(0);
  switch (fn) {
    case 'sphere':
      for (let i = 0; i < d; i++) g[i] = 2 * x[i];
      return;
    case 'rosenbrock':
      for (let i = 0; i < d - 1; i++) {
        const a = x[i + 1] - x[i] * x[i];
        g[i] += -400 * x[i] * a - 2 * (1 - x[i]);
        g[i + 1] += 200 * a;
      }
      return;
    case 'rastrigin':
      for (let i = 0; i < d; i++) g[i] = 2 * x[i] + 20 * Math.PI * Math.sin(2 * Math.PI * x[i]);
      return;
    case 'beale': {
      const [u, v] = [x[0], x[1]];
      const a = 1.5 - u + u * v, b = 2.25 - u + u * v * v, c = 2.625 - u + u * v * v * v;
      g[0] = 2 * a * (v - 1) + 2 * b * (v * v - 1) + 2 * c * (v * v * v - 1);
      g[1] = 2 * a * u + 2 * b * 2 * u * v + 2 * c * 3 * u * v * v;
      return;
    }
  }
}

export function optimum(fn: Fn, d: number): { x: Float64Array; f: number } {
  const x = new Float64Array(d);
  if (fn === 'rosenbrock') x.fill(1);
  if (fn === 'beale') { x[0] = 3; x[1] = 0.5; }
  return { x, f: 0 };
}

export interface MinimizeResult {
  x: Float64Array;
  f: number;
  iterations: number;
  evaluations: number;
  converged: boolean;
  history: number[];
  /** counts of each Nelder-Mead step kind, or line-search backtracks */
  steps: Record<string, number>;
}

/** Nelder-Mead with the Lagarias et al. (1998) conventions. */
export function nelderMead(f: (x: Float64Array) => number, x0: Float64Array, maxIter: number, progress?: (fr: number) => void): MinimizeResult {
  const n = x0.length;
  const rho = 1, chi = 2, gamma = 0.5, sigma = 0.5;
  const simplex: Float64Array[] = [];
  const fv = new Float64Array(n + 1);
  // age breaks ties: among equal f, older vertices rank first (Lagarias et al. §2)
  const age = new Float64Array(n + 1);
  let evaluations = 0;
  const ev = (x: Float64Array) => { evaluations++; return f(x); };
  simplex.push(Float64Array.from(x0));
  for (let i = 0; i < n; i++) {
    const v = Float64Array.from(x0);
    v[i] = v[i] !== 0 ? 1.05 * v[i] : 0.00025;
    simplex.push(v);
  }
  for (let i = 0; i <= n; i++) { fv[i] = ev(simplex[i]); age[i] = i; }
  let stamp = n + 1;
  const idx = Array.from({ length: n + 1 }, (_, i) => i);
  const centroid = new Float64Array(n), xr = new Float64Array(n), xe = new Float64Array(n), xc = new Float64Array(n);
  const steps = { reflect: 0, expand: 0, contractOutside: 0, contractInside: 0, shrink: 0 };
  const history: number[] = [];
  let iter = 0, converged = false;
  const sortIdx = () => idx.sort((a, b) => (fv[a] - fv[b]) || (age[a] - age[b]));
  sortIdx();
  while (iter < maxIter) {
    const best = idx[0], worst = idx[n], second = idx[n - 1];
    // convergence: simplex diameter (max distance to the best vertex) and spread of f
    let diam = 0, norm = 0;
    for (let k = 0; k < n; k++) norm = Math.max(norm, Math.abs(simplex[best][k]));
    for (let i = 1; i <= n; i++) {
      const v = simplex[idx[i]];
      for (let k = 0; k < n; k++) diam = Math.max(diam, Math.abs(v[k] - simplex[best][k]));
    }
    if (diam <= 1e-12 * (1 + norm) && fv[worst] - fv[best] <= 1e-16 * (1 + Math.abs(fv[best]))) { converged = true; break; }
    iter++;
    centroid.fill(0);
    for (let i = 0; i < n; i++) { const v = simplex[idx[i]]; for (let k = 0; k < n; k++) centroid[k] += v[k] / n; }
    const w = simplex[worst];
    for (let k = 0; k < n; k++) xr[k] = centroid[k] + rho * (centroid[k] - w[k]);
    const fr = ev(xr);
    let replaceWith: Float64Array | null = null, fNew = 0;
    if (fr < fv[best]) {
      for (let k = 0; k < n; k++) xe[k] = centroid[k] + chi * (xr[k] - centroid[k]);
      const fe = ev(xe);
      if (fe < fr) { replaceWith = xe; fNew = fe; steps.expand++; } else { replaceWith = xr; fNew = fr; steps.reflect++; }
    } else if (fr < fv[second]) {
      replaceWith = xr; fNew = fr; steps.reflect++;
    } else if (fr < fv[worst]) {
      for (let k = 0; k < n; k++) xc[k] = centroid[k] + gamma * (xr[k] - centroid[k]);
      const fc = ev(xc);
      if (fc <= fr) { replaceWith = xc; fNew = fc; steps.contractOutside++; }
    } else {
      for (let k = 0; k < n; k++) xc[k] = centroid[k] - gamma * (centroid[k] - w[k]);
      const fc = ev(xc);
      if (fc < fv[worst]) { replaceWith = xc; fNew = fc; steps.contractInside++; }
    }
    if (replaceWith) {
      w.set(replaceWith);
      fv[worst] = fNew;
      age[worst] = stamp++;
    } else {
      steps.shrink++;
      const b = simplex[best];
      for (let i = 1; i <= n; i++) {
        const v = simplex[idx[i]];
        for (let k = 0; k < n; k++) v[k] = b[k] + sigma * (v[k] - b[k]);
        fv[idx[i]] = ev(v);
        age[idx[i]] = stamp++;
      }
    }
    sortIdx();
    if (iter % 64 === 0 || iter === 1) history.push(fv[idx[0]]);
    if ((iter & 1023) === 0) progress?.(iter / maxIter);
  }
  history.push(fv[idx[0]]);
  return { x: Float64Array.from(simplex[idx[0]]), f: fv[idx[0]], iterations: iter, evaluations, converged, history, steps };
}

/** Steepest descent with Armijo backtracking. */
export function gradientDescent(fn: Fn, x0: Float64Array, maxIter: number, progress?: (fr: number) => void): MinimizeResult {
  const n = x0.length;
  const x = Float64Array.from(x0), g = new Float64Array(n), xt = new Float64Array(n);
  let fx = evaluate(fn, x), evaluations = 1, backtracks = 0;
  let alpha = 1;
  const c1 = 1e-4;
  const history: number[] = [];
  let iter = 0, converged = false;
  while (iter < maxIter) {
    gradient(fn, x, g);
    let gg = 0;
    for (let k = 0; k < n; k++) gg += g[k] * g[k];
    if (Math.sqrt(gg) < 1e-10) { converged = true; break; }
    iter++;
    alpha = Math.min(1e6, alpha * 2);
    let ft: number;
    for (;;) {
      for (let k = 0; k < n; k++) xt[k] = x[k] - alpha * g[k];
      ft = evaluate(fn, xt); evaluations++;
      if (ft <= fx - c1 * alpha * gg) break;
      alpha *= 0.5; backtracks++;
      if (alpha < 1e-300) break;
    }
    if (!(ft < fx)) { converged = true; break; } // no further decrease representable
    x.set(xt); fx = ft;
    if (iter % 64 === 0 || iter === 1) history.push(fx);
    if ((iter & 1023) === 0) progress?.(iter / maxIter);
  }
  history.push(fx);
  return { x, f: fx, iterations: iter, evaluations, converged, history, steps: { backtracks } };
}

export function startPoint(fn: Fn, d: number, start: number | undefined, seed: number): Float64Array {
  const x = new Float64Array(d);
  if (start !== undefined) { x.fill(start); return x; }
  if (fn === 'rosenbrock') { for (let i = 0; i < d; i++) x[i] = i % 2 === 0 ? -1.2 : 1; return x; }
  if (fn === 'beale') { x[0] = 1; x[1] = 1; return x; }
  const rng = createRng(seed);
  for (let i = 0; i < d; i++) x[i] = -5.12 + 10.24 * rng.next();
  return x;
}

export const run: SolverRun = (input, ctx) => {
  const fn: Fn = input.fn;
  const d: number = input.dim;
  if (fn === 'beale' && d !== 2) {
    throw refuse('INVALID_INPUT', 'beale is defined in 2 dimensions only: dim must be 2', { issues: [{ path: 'dim', message: 'must be 2 for beale' }] });
  }
  if (fn === 'rosenbrock' && d < 2) {
    throw refuse('INVALID_INPUT', 'rosenbrock needs at least 2 dimensions', { issues: [{ path: 'dim', message: 'must be at least 2 for rosenbrock' }] });
  }
  const seed: number = input.seed ?? ctx.seed;
  const x0 = startPoint(fn, d, input.start, seed);
  const res = input.method === 'gradient'
    ? gradientDescent(fn, x0, input.maxIter, ctx.progress)
    : nelderMead((x) => evaluate(fn, x), x0, input.maxIter, ctx.progress);
  const opt = optimum(fn, d);
  let dist2 = 0, norm2 = 0;
  for (let k = 0; k < d; k++) { dist2 += (res.x[k] - opt.x[k]) ** 2; norm2 += opt.x[k] ** 2; }
  const distance = Math.sqrt(dist2);
  const errorPct = (100 * distance) / Math.max(1, Math.sqrt(norm2));
  ctx.progress(1);
  const it = res.history.map((_, i) => (i === res.history.length - 1 ? res.iterations : i === 0 ? 1 : i * 64));
  return {
    value: res.f,
    result: {
      fn, method: input.method, dim: d,
      x: Array.from(res.x),
      f: res.f,
      start: Array.from(x0),
      optimumX: Array.from(opt.x),
      optimumF: opt.f,
      distance,
      fGap: res.f - opt.f,
      iterations: res.iterations,
      evaluations: res.evaluations,
      converged: res.converged,
      steps: res.steps,
    },
    precision: {
      errorPct,
      boundPct: 0.1,
      reference: `known global minimum of ${fn}: f* = 0 at (${fn === 'beale' ? '3, 0.5' : fn === 'rosenbrock' ? '1, …, 1' : '0, …, 0'}); error = distance to the minimiser`,
      withinBound: errorPct <= 0.1,
      referenceValue: opt.f,
    },
    series: { iteration: it, f: res.history },
    method: input.method,
  };
};
