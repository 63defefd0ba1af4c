// fit: nonlinear least squares of the caller's model to the caller's data, with error bars.
//
// The model is an expression in the independent variable(s) and the named parameters (the keys
// of p0), in the sandboxed expression language; it is compiled by lib/expr.ts, whose Jacobian is
// the exact symbolic derivative of the expression (forward rules, chain rule node by node), so
// every Jacobian here is automatic, not a difference quotient (central differences only when the
// expression uses a function with no derivative rule, and the result says so). Residuals are
// r_i = (y_i − f(x_i; p))/σ_i (σ_i = 1 without sigma).
//
// Methods (lib/fit/):
//   lm   Levenberg-Marquardt as Moré (1978) and MINPACK-1's lmder (lm.ts), the default without
//        bounds and with the linear loss; it refuses bounds and robust losses (400), as SciPy.
//   trf  trust-region reflective of Branch, Coleman & Li (1999) as scipy.optimize.least_squares
//        (trf.ts), for bounds and for the robust losses soft_l1, huber and cauchy (loss.ts).
// Statistics: dof = m − n; chi2 = Σr²; reducedChi2 = chi2/dof; the covariance is
// s²·(JᵀJ)⁻¹ with s² = chi2/dof when σ is not given (the convention of NIST StRD's certified
// standard deviations and of curve_fit's absolute_sigma=False), and (JᵀJ)⁻¹ when it is (σ taken as
// absolute: chi2 is then a goodness-of-fit statistic). (JᵀJ)⁻¹ comes from the SVD of the
// column-equilibrated J (lib/fit/linalg.ts), never from inverting JᵀJ; a numerically rank-deficient
// J (singular values below 10·max(m,n)·ε of the largest) is a 422 naming the parameters the
// data do not determine. ci95 is the Wald interval p ± t(0.975, dof)·stderr (z(0.975) with σ
// given); with profile: true also the profile-likelihood interval (lib/fit/profile.ts).
// aic = m·ln(chi2/m) + 2n (Akaike 1974 for Gaussian errors of unknown variance; as lmfit).
// With a robust loss the covariance is that of the loss-weighted Gauss-Newton problem at the
// solution (J and r scaled as in loss.ts), with s² = 2·cost/dof: an approximation, stated.
//
// Precision (certificate 'lsq-gradient', lib/fit/check.ts, which shares no code with the above):
// the model is re-evaluated by the sandbox's mathjs evaluator, the Jacobian taken by
// Richardson-extrapolated central differences, and from it (1) the largest cosine between the
// residual vector and a Jacobian column (the gradient Jᵀr, scale-free; components at an active
// bound only count when they point into the box) and (2) the standard errors, compared with the
// solver's. errorPct = 100·max(cosine/GRADIENT_TOL, stderrRelDiff/STDERR_TOL)·BOUND, i.e. the
// worse of the two measured against its own tolerance, scaled so that boundPct = 0.1 % means
// "both within tolerance"; both raw numbers are in result.certificate.
import { z } from 'zod';
import type { SolverContext, SolverDescriptor, SolverOutput, SolverRun } from './types.ts';
import { refuse, SvcError } from '../core/errors.ts';
import { compileSafe } from '../core/sandbox.ts';
import { compileSystem, type CompiledSystem } from './lib/expr.ts';
import { confirmedRetry } from './lib/retry.ts';
import { precisionOf } from './lib/precision.ts';
import { noEffect } from './lib/no-effect.ts';
import { readCsv } from './lib/fit/csv.ts';
import { levenbergMarquardt } from './lib/fit/lm.ts';
import { trustRegionReflective } from './lib/fit/trf.ts';
import { LOSSES, lossCost, scaleForLoss, type LossName } from './lib/fit/loss.ts';
import { covarianceFromJacobian } from './lib/fit/linalg.ts';
import { studentTQuantile, Z975 } from './lib/fit/stats.ts';
import { profileInterval } from './lib/fit/profile.ts';
import { checkFit } from './lib/fit/check.ts';
import type { LsqProblem, LsqResult } from './lib/fit/problem.ts';

export const MAX_ROWS = 20_000;
export const MAX_PARAMS = 50;
const MAX_MODEL = 4096;
/** largest gradient cosine the certificate accepts */
export const GRADIENT_TOL = 1e-6;
/** largest relative disagreement of the recomputed standard errors */
export const STDERR_TOL = 1e-5;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RESERVED = new Set(['pi', 'e', 'tau', 'true', 'false', 'Infinity', 'NaN', 'i']);

const finite = z.number().finite();
const nameKey = z.string().regex(NAME_RE, 'names are 1-64 characters of A-Z a-z 0-9 _, not starting with a digit');
const column = z.array(finite).min(1).max(MAX_ROWS);

// NIST StRD Misra1a (Misra, NIST 1978): the default problem, so that {} fits a real data set
const MISRA1A_X = [77.6, 114.9, 141.1, 190.8, 239.9, 289.0, 332.8, 378.4, 434.8, 477.3, 536.8, 593.1, 689.1, 760.0];
const MISRA1A_Y = [10.07, 14.73, 17.94, 23.93, 29.61, 35.18, 40.02, 44.82, 50.76, 55.05, 61.01, 66.40, 75.47, 81.78];

const DEFAULT_MODEL = 'b1*(1-exp(-b2*x))';
const DEFAULT_P0: Record<string, number> = { b1: 500, b2: 1e-4 };

const dataObject = z.strictObject({
  x: z.union([column, z.record(nameKey, column)])
    .describe('the independent variable: an array (named x in the model), or name → array for several (e.g. {"t": [...], "T": [...]}); every array as long as y'),
  y: column.describe('the observed responses'),
  sigma: z.array(z.number().finite().positive()).min(1).max(MAX_ROWS).optional()
    .describe('standard deviation of each y (positive); taken as absolute: the covariance is (JᵀJ)⁻¹ and chi2 a goodness-of-fit statistic'),
});

const input = z.strictObject({
  model: z.string().min(1).max(MAX_MODEL).optional()
    .describe('the model y = f(x; p): an expression in the independent variable(s) and the parameters (the keys of p0), in the sandboxed evaluator\'s syntax (^ for powers; exp, log, sqrt, sin, atan, …; constants pi, e), up to 4,096 characters (default: NIST\'s Misra1a model b1*(1-exp(-b2*x)))')
    .meta({ examples: ['b1*(1-exp(-b2*x))', 'A*exp(-k*t) + c', 'b1 - b2*x1*exp(-b3*x2)'] }),
  data: z.union([
    dataObject,
    z.string().min(1).max(4_000_000).describe('CSV text: a header line naming the columns, then one row of numbers per line (comma, semicolon or tab separated; # comments). The column y is the response, a column sigma (if any) its standard deviations, every other column an independent variable the model must use'),
  ]).optional().describe('the data: {x, y, sigma?} arrays, or CSV text with a header naming the columns (default: NIST\'s Misra1a data, 14 points)')
    .meta({ examples: [
      { x: [0, 1, 2, 3, 4, 5], y: [5.1, 3.0, 1.9, 1.2, 0.7, 0.5] },
      { x: [0, 1, 2, 3, 4, 5], y: [5.1, 3.0, 1.9, 1.2, 0.7, 0.5], sigma: [0.2, 0.2, 0.1, 0.1, 0.05, 0.05] },
      { x: { x1: [1, 2, 4, 8, 1, 2, 4, 8], x2: [180, 180, 180, 180, 250, 250, 250, 250] }, y: [2.7, 2.7, 2.6, 2.6, 2.6, 2.5, 2.3, 2.1] },
      'x,y\n0,5.1\n1,3.0\n2,1.9\n3,1.2\n4,0.7\n5,0.5\n',
      'x,y,sigma\n0,5.1,0.2\n1,3.0,0.2\n2,1.9,0.1\n3,1.2,0.1\n4,0.7,0.05\n5,0.5,0.05\n',
    ] }),
  p0: z.record(nameKey, finite).optional()
    .describe('the parameters and their start values, name → value (1 to 50); the keys are the parameters (default {b1: 500, b2: 0.0001}, NIST\'s first start for Misra1a)')
    .meta({ examples: [{ b1: 500, b2: 1e-4 }, { A: 5, k: 0.5, c: 0 }] }),
  bounds: z.record(z.string(), z.tuple([finite.nullable(), finite.nullable()])).optional()
    .describe('box bounds, parameter → [lo, hi], null for an open side; trf only (p0 must lie inside)').meta({ examples: [{ k: [0, null] }] }),
  method: z.enum(['lm', 'trf']).optional()
    .describe('lm: Levenberg-Marquardt (MINPACK lmder; the default without bounds and robust loss); trf: trust-region reflective (the default with bounds or a robust loss)'),
  loss: z.enum(LOSSES as [LossName, ...LossName[]]).optional()
    .describe('linear (least squares, the default), or a robust loss as SciPy\'s least_squares: soft_l1, huber, cauchy (trf only)'),
  fScale: z.number().finite().positive().max(1e12).optional()
    .describe('with a robust loss: the soft margin between inlier and outlier residuals, in units of r = (y − f)/σ (default 1)'),
  ftol: z.number().min(1e-15).max(0.1).optional().describe('stop when the relative reduction of the sum of squares is at most ftol (default 1e-12)'),
  xtol: z.number().min(1e-15).max(0.1).optional().describe('stop when the relative step is at most xtol (default 1e-12)'),
  gtol: z.number().min(0).max(0.1).optional().describe('stop when the gradient is at most gtol: lm, the largest cosine between residuals and a Jacobian column; trf, the scaled gradient\'s max-norm (default 1e-12)'),
  maxNfev: z.number().int().min(1).max(100_000).optional().describe('the most model evaluations over all data (default 1000·(number of parameters), at least 2000)'),
  profile: z.boolean().optional().describe('also compute profile-likelihood 95 % intervals (linear loss, no bounds; costs a few dozen refits per parameter)'),
}).superRefine((v, ctx) => {
  const method = v.method ?? (v.bounds || (v.loss && v.loss !== 'linear') ? 'trf' : 'lm');
  if (method === 'lm' && v.bounds) ctx.addIssue({ code: 'custom', path: ['bounds'], message: 'lm (Levenberg-Marquardt) does not take bounds: use method trf' });
  if (method === 'lm' && v.loss && v.loss !== 'linear') ctx.addIssue({ code: 'custom', path: ['loss'], message: `lm minimises the plain sum of squares: the ${v.loss} loss needs method trf` });
  if (v.fScale !== undefined && (v.loss ?? 'linear') === 'linear') noEffect(ctx, 'fScale', 'with the linear loss: it sets the margin of a robust loss (soft_l1, huber, cauchy)');
  if (v.profile && v.bounds) ctx.addIssue({ code: 'custom', path: ['profile'], message: 'profile-likelihood intervals are computed for fits without bounds' });
  if (v.profile && v.loss && v.loss !== 'linear') ctx.addIssue({ code: 'custom', path: ['profile'], message: 'profile-likelihood intervals need the linear loss (a robust cost is not a likelihood)' });
  if ((v.model === undefined) !== (v.p0 === undefined) || (v.data !== undefined && v.model === undefined)) {
    ctx.addIssue({ code: 'custom', path: [v.model === undefined ? 'model' : 'p0'], message: 'give model, data and p0 together (or none of them for the built-in Misra1a example)' });
    return;
  }
  if (v.model !== undefined && v.data === undefined) ctx.addIssue({ code: 'custom', path: ['data'], message: 'data is required with model' });
  {
    const p0 = v.p0 ?? DEFAULT_P0;
    const names = Object.keys(p0);
    if (names.length === 0) ctx.addIssue({ code: 'custom', path: ['p0'], message: 'p0 must name at least one parameter' });
    if (names.length > MAX_PARAMS) ctx.addIssue({ code: 'custom', path: ['p0'], message: `p0 names ${names.length} parameters; at most ${MAX_PARAMS}` });
    for (const k of names) if (RESERVED.has(k)) ctx.addIssue({ code: 'custom', path: ['p0', k], message: `'${k}' is a reserved name (a constant); rename the parameter` });
    for (const [k, b] of Object.entries(v.bounds ?? {})) {
      if (!Object.hasOwn(p0, k)) { ctx.addIssue({ code: 'custom', path: ['bounds', k], message: `'${k}' is not a parameter (the parameters are the keys of p0: ${names.join(', ')})` }); continue; }
      const [lo, hi] = b;
      if (lo !== null && hi !== null && !(lo < hi)) { ctx.addIssue({ code: 'custom', path: ['bounds', k], message: `lower bound ${lo} must be below upper bound ${hi}` }); continue; }
      const s = p0[k];
      if ((lo !== null && s < lo) || (hi !== null && s > hi)) ctx.addIssue({ code: 'custom', path: ['p0', k], message: `start ${s} lies outside bounds [${lo ?? '-inf'}, ${hi ?? 'inf'}]` });
    }
  }
});

export type FitInput = z.infer<typeof input>;

export const descriptor: SolverDescriptor<typeof input> = {
  name: 'fit',
  domain: 'Regression',
  method: 'lm',
  methodDescription: 'nonlinear least squares (Levenberg-Marquardt as MINPACK, or trust-region reflective with bounds and robust losses) with exact automatic Jacobians; covariance from the SVD of J; certificate: gradient and standard errors recomputed by finite differences',
  operators: ['KO42'],
  unit: 'chi2',
  title: 'Curve fitting (nonlinear least squares)',
  brief: 'Fits your model expression to your data (arrays or CSV): parameters, standard errors, covariance, 95 % intervals; value = residual sum of squares',
  summary: 'Fits a model expression y = f(x; p) to data given as arrays or CSV by nonlinear least squares (Levenberg-Marquardt as MINPACK, or trust-region reflective with bounds and robust losses), with exact automatic derivatives, and returns the parameters, their standard errors, covariance, Wald (and optionally profile-likelihood) 95 % intervals, residuals, chi², AIC, and a certificate that recomputes the gradient and the standard errors independently.',
  input,
  bodyLimit: 8 * 1024 * 1024,
  examples: [
    'fit the model b1*(1-exp(-b2*x)) to my data and give the parameters with error bars',
    'nonlinear least squares fit of an exponential decay A*exp(-k*t) + c to these measurements',
    'fit this curve to data with Levenberg-Marquardt and report standard errors and the covariance matrix',
    'regression of a Michaelis-Menten model Vmax*S/(Km + S) to my CSV file',
    'least squares fit with bounds on the parameters and a robust loss against outliers',
    'curve fitting: fit a Gaussian peak to the spectrum data with confidence intervals',
    'fit my model to data and give 95 % confidence intervals by profile likelihood',
    'estimate the parameters of a nonlinear regression model from x and y columns',
  ],
  vocabulary: [
    'fit', 'fitting', 'curve fit', 'curve fitting', 'least squares', 'nonlinear least squares', 'least-squares', 'regression',
    'nonlinear regression', 'levenberg-marquardt', 'levenberg marquardt', 'trust region reflective', 'minpack', 'curve_fit',
    'parameters', 'error bars', 'standard errors', 'confidence intervals', 'covariance matrix', 'residuals', 'chi-square',
    'chi squared', 'goodness of fit', 'data', 'measurements', 'csv', 'model to data', 'profile likelihood', 'robust loss',
    'huber', 'outliers', 'nist strd',
  ],
};

/** The data as named columns, y, σ and each row's source line (CSV) for error messages. */
export interface FitData { columns: Record<string, number[]>; y: number[]; sigma?: number[]; lines?: number[] }

const invalid = (path: string, message: string) => refuse('INVALID_INPUT', `${path}: ${message}`, { issues: [{ path, message }] });

/** Reads the data field (arrays, CSV text or CSV bytes) into columns. */
export function readData(data: FitInput['data'] | Uint8Array): FitData {
  if (typeof data === 'string' || data instanceof Uint8Array) {
    const t = readCsv(data, 'data', MAX_ROWS);
    if (!t.names.includes('y')) throw invalid('data', `the CSV header (${t.names.join(', ')}) has no column y, the response`);
    if (t.lines.length === 0) throw invalid('data', 'the CSV has a header but no data rows');
    const columns: Record<string, number[]> = {};
    for (const nm of t.names) if (nm !== 'y' && nm !== 'sigma') columns[nm] = t.columns[nm];
    const sigma = t.columns.sigma;
    if (sigma) sigma.forEach((s, i) => { if (!(s > 0)) throw refuse('INVALID_INPUT', `data: CSV line ${t.lines[i]}: sigma must be positive (found ${s})`, { issues: [{ path: 'data', message: `line ${t.lines[i]}: sigma must be positive` }] }); });
    if (Object.keys(columns).length === 0) throw invalid('data', 'the CSV has no independent-variable column besides y (and sigma)');
    return { columns, y: t.columns.y, ...(sigma ? { sigma } : {}), lines: t.lines };
  }
  const d = data!;
  const columns: Record<string, number[]> = Array.isArray(d.x) ? { x: d.x } : { ...d.x };
  if (Object.keys(columns).length === 0) throw invalid('data.x', 'name at least one independent variable');
  for (const [k, col] of Object.entries(columns)) {
    if (k === 'y' || k === 'sigma') throw invalid(`data.x.${k}`, `'${k}' cannot name an independent variable (it is the response / its σ)`);
    if (col.length !== d.y.length) throw invalid(Array.isArray(d.x) ? 'data.x' : `data.x.${k}`, `has ${col.length} values but y has ${d.y.length}`);
  }
  if (d.sigma && d.sigma.length !== d.y.length) throw invalid('data.sigma', `has ${d.sigma.length} values but y has ${d.y.length}`);
  return { columns, y: d.y, ...(d.sigma ? { sigma: d.sigma } : {}) };
}

/** The compiled model over rows: residuals and exact Jacobian of r = (f − y)/σ (SciPy's sign). */
export interface CompiledFit extends LsqProblem {
  names: string[];
  xNames: string[];
  exactJacobian: boolean;
  /** f(x_i; p) for every row */
  predict(p: ArrayLike<number>, out: Float64Array): void;
}

/** Compiled models by (expression, variables): compiling is a pure function of the text, and a
 * worker that fits the same model again (a profile, a sweep of data sets) reuses the code V8 has
 * already optimised. At most COMPILED_CACHE entries, least recently used first out. */
const COMPILED_CACHE = 32;
const compiled = new Map<string, CompiledSystem>();
/** the free names of each model expression (the sandbox's check), cached likewise */
const modelSymbols = new Map<string, Set<string>>();
function compiledModel(model: string, vars: string[]): CompiledSystem {
  const key = JSON.stringify([model, vars]);
  let sys = compiled.get(key);
  if (sys) { compiled.delete(key); compiled.set(key, sys); return sys; }
  sys = compileSystem([model], vars, {}, { field: 'model', maxLength: MAX_MODEL });
  compiled.set(key, sys);
  if (compiled.size > COMPILED_CACHE) compiled.delete(compiled.keys().next().value!);
  return sys;
}

export function compileFit(model: string, names: string[], data: FitData): CompiledFit {
  const xNames = Object.keys(data.columns);
  for (const k of xNames) if (names.includes(k)) throw invalid(`p0.${k}`, `'${k}' is both a parameter and a data column`);
  let used = modelSymbols.get(model);
  if (!used) {
    try { used = new Set(compileSafe(model, { maxLength: MAX_MODEL, maxNodes: 4096 }).symbols); } catch (e) {
      if (e instanceof SvcError) throw invalid('model', e.message);
      throw e;
    }
    if (modelSymbols.size >= COMPILED_CACHE) modelSymbols.delete(modelSymbols.keys().next().value!);
    modelSymbols.set(model, used);
  }
  for (const k of names) if (!used.has(k)) throw invalid(`p0.${k}`, `the model does not use the parameter '${k}'; drop it from p0 or use it in the model`);
  for (const k of xNames) if (!used.has(k)) throw invalid('data', `the model does not use the data column '${k}'${data.lines ? ' (a CSV column)' : ''}: every column besides y and sigma must be an independent variable of the model`);
  let sys: CompiledSystem;
  try {
    sys = compiledModel(model, [...names, ...xNames]);
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
    throw invalid('model', e.message.replace(/^model\[[^\]]*\]:\s*/, '').replace(/; known: .*/, `; the parameters are ${names.join(', ')} and the variables ${xNames.join(', ')}`));
  }
  const n = names.length, k = xNames.length, m = data.y.length;
  const X = new Float64Array(m * k);
  xNames.forEach((nm, c) => { const col = data.columns[nm]; for (let i = 0; i < m; i++) X[i * k + c] = col[i]; });
  const y = Float64Array.from(data.y);
  const w = Float64Array.from({ length: m }, (_, i) => (data.sigma ? 1 / data.sigma[i] : 1));
  const v = new Float64Array(n + k), out = new Float64Array(1), row = new Float64Array(n + k);
  const predict = (p: ArrayLike<number>, dst: Float64Array) => {
    for (let j = 0; j < n; j++) v[j] = p[j];
    for (let i = 0; i < m; i++) {
      for (let c = 0; c < k; c++) v[n + c] = X[i * k + c];
      sys.evaluate(v, out);
      dst[i] = out[0];
    }
  };
  const residuals = (p: Float64Array, dst: Float64Array) => { predict(p, dst); for (let i = 0; i < m; i++) dst[i] = (dst[i] - y[i]) * w[i]; };
  const exact = sys.differentiable;
  const fd = new Float64Array(m), fd2 = new Float64Array(m), pp = new Float64Array(n);
  const jacobian = (p: Float64Array, jac: Float64Array) => {
    if (exact) {
      for (let j = 0; j < n; j++) v[j] = p[j];
      for (let i = 0; i < m; i++) {
        for (let c = 0; c < k; c++) v[n + c] = X[i * k + c];
        sys.jacobian(v, row);
        for (let j = 0; j < n; j++) jac[i + j * m] = row[j] * w[i];
      }
      return;
    }
    // central differences (the expression uses a function without a derivative rule)
    pp.set(p);
    for (let j = 0; j < n; j++) {
      const h = 6.055454452393343e-6 * Math.max(1, Math.abs(p[j]));
      pp[j] = p[j] + h; residuals(pp, fd);
      pp[j] = p[j] - h; residuals(pp, fd2);
      pp[j] = p[j];
      for (let i = 0; i < m; i++) jac[i + j * m] = (fd[i] - fd2[i]) / (2 * h);
    }
  };
  return { m, n, names, xNames, exactJacobian: exact, residuals, jacobian, predict };
}

/** Everything a fit computes, before it becomes a solver output (used by the tests and the bench). */
export interface FitReport {
  names: string[];
  method: 'lm' | 'trf';
  loss: LossName;
  solve: LsqResult;
  params: number[];
  stderr: number[];
  covariance: number[][];
  chi2: number;
  dof: number;
  m: number;
  exactJacobian: boolean;
  rank: number;
  condition: number;
  absoluteSigma: boolean;
  tValue: number;
  data: FitData;
  prob: CompiledFit;
  tolerances: { ftol: number; xtol: number; gtol: number; maxNfev: number };
  bounds?: { lower: Float64Array; upper: Float64Array };
}

/** Runs the fit itself (no certificate): parse, compile, solve, covariance. */
export function fitModel(raw: Partial<FitInput> & { data?: FitInput['data'] | Uint8Array }, progress?: (f: number) => void): FitReport {
  const model = raw.model ?? DEFAULT_MODEL;
  const p0 = raw.p0 ?? DEFAULT_P0;
  const data = readData(raw.data ?? { x: MISRA1A_X, y: MISRA1A_Y });
  const names = Object.keys(p0);
  const n = names.length, m = data.y.length;
  if (m <= n) throw refuse('SHAPE_REFUSED', `${m} data points cannot determine ${n} parameters with error bars: at least ${n + 1} are needed (dof = m − n >= 1)`, { issues: [{ path: 'data', message: `${m} rows for ${n} parameters` }] });
  const loss: LossName = raw.loss ?? 'linear';
  const method: 'lm' | 'trf' = raw.method ?? (raw.bounds || loss !== 'linear' ? 'trf' : 'lm');
  const prob = compileFit(model, names, data);
  const ftol = raw.ftol ?? 1e-15, xtol = raw.xtol ?? 1e-15, gtol = raw.gtol ?? 1e-15;
  const maxNfev = raw.maxNfev ?? Math.max(2000, 1000 * n);
  const x0 = Float64Array.from(names, (k) => p0[k]);
  // the start must be inside the model's domain
  const r0 = new Float64Array(m);
  prob.residuals(x0, r0);
  const badRow = r0.findIndex((v) => !Number.isFinite(v));
  if (badRow >= 0) throw invalid('p0', `the model is not finite at p0 for data row ${badRow + 1}${data.lines ? ` (CSV line ${data.lines[badRow]})` : ''}; choose a start inside the model's domain`);
  const j0 = new Float64Array(m * n);
  prob.jacobian(x0, j0);
  const badJ = j0.findIndex((v) => !Number.isFinite(v));
  if (badJ >= 0) throw invalid('p0', `the model's derivative with respect to ${names[Math.floor(badJ / m)]} is not finite at p0 (data row ${(badJ % m) + 1}); choose another start`);
  let bounds: FitReport['bounds'];
  if (raw.bounds && Object.keys(raw.bounds).length) {
    const lower = new Float64Array(n).fill(-Infinity), upper = new Float64Array(n).fill(Infinity);
    for (const [k, [lo, hi]] of Object.entries(raw.bounds)) { const j = names.indexOf(k); if (lo !== null) lower[j] = lo; if (hi !== null) upper[j] = hi; }
    bounds = { lower, upper };
  }
  const fScale = raw.fScale ?? 1;
  const solve = method === 'lm'
    ? levenbergMarquardt(prob, x0, { ftol, xtol, gtol, maxNfev, progress })
    : trustRegionReflective(prob, x0, { ftol, xtol, gtol, maxNfev, progress, loss, fScale, ...(bounds ?? {}) });
  const params = Array.from(solve.x);
  // the covariance at the solution, from the exact Jacobian (loss-weighted for a robust loss)
  const jac = new Float64Array(m * n);
  prob.jacobian(solve.x, jac);
  const f = Float64Array.from(solve.fun);
  let chi2 = 0;
  for (let i = 0; i < m; i++) chi2 += f[i] * f[i];
  scaleForLoss(loss, fScale, f, jac, m, n);
  const cov = covarianceFromJacobian(jac, m, n);
  if (!cov.inverse) {
    const who = cov.unidentifiable.map((j) => names[j]);
    throw refuse('SHAPE_REFUSED', `the Jacobian at the fitted parameters is rank deficient (rank ${cov.rank} of ${n}): ${who.length ? `the data do not determine ${who.join(', ')} separately` : 'some combination of the parameters is not determined'} (they are not identifiable: the model depends on them only through fewer combinations at these data, or not at all); fix or remove ${who.length === 1 ? 'it' : 'one of them'}, or add data that separate them`, {
      issues: who.map((w) => ({ path: `p0.${w}`, message: 'not identifiable from these data' })),
      unidentifiable: who,
      singularValues: cov.singularValues,
      params: Object.fromEntries(names.map((k, j) => [k, params[j]])),
    });
  }
  const dof = m - n;
  const absoluteSigma = !!data.sigma;
  const s2 = absoluteSigma ? 1 : (loss === 'linear' ? chi2 : 2 * lossCost(loss, fScale, solve.fun)) / dof;
  const covariance: number[][] = [];
  const stderr: number[] = [];
  for (let i = 0; i < n; i++) {
    covariance.push(Array.from({ length: n }, (_, j) => s2 * cov.inverse![i * n + j]));
    stderr.push(Math.sqrt(s2 * cov.inverse[i * n + i]));
  }
  const tValue = absoluteSigma ? Z975 : studentTQuantile(0.975, dof);
  return {
    names, method, loss, solve, params, stderr, covariance, chi2, dof, m, exactJacobian: prob.exactJacobian,
    rank: cov.rank, condition: cov.condition, absoluteSigma, tValue, data, prob,
    tolerances: { ftol, xtol, gtol, maxNfev }, ...(bounds ? { bounds } : {}),
  };
}

const named = (names: string[], v: ArrayLike<number>) => Object.fromEntries(names.map((k, j) => [k, v[j]]));
const sig = (v: number) => Number(v.toPrecision(4));

/** A gradient tolerance the caller loosened past what the certificate needs (issue 29): the refusal
 * names gtol a tenth of the certificate's cosine tolerance, confirmed by running it (the fit is
 * deterministic). */
export const run: SolverRun<FitInput> = (raw, ctx: SolverContext): SolverOutput => {
  const out = runOnce(raw, ctx);
  if (out.precision.withinBound) return out;
  // the stopping rules the caller loosened (or an evaluation budget they cut) back to what the
  // certificate needs: gtol a tenth of its cosine tolerance, ftol and xtol their defaults, maxNfev
  // its default
  const inputs: Record<string, number> = {};
  if (raw.gtol !== undefined && raw.gtol > GRADIENT_TOL / 10) inputs.gtol = GRADIENT_TOL / 10;
  if (raw.xtol !== undefined && raw.xtol > 1e-12) inputs.xtol = 1e-15;
  if (raw.ftol !== undefined && raw.ftol > 1e-12) inputs.ftol = 1e-15;
  const nfevDefault = (out.result as { tolerances?: { maxNfev?: number } }).tolerances?.maxNfev;
  if (raw.maxNfev !== undefined && !(out.result as { converged?: boolean }).converged) inputs.maxNfev = Math.max(2000, 1000 * Object.keys((out.result as { parameters?: object }).parameters ?? {}).length, nfevDefault ?? 0);
  if (!Object.keys(inputs).length) return out;
  const quiet = { ...ctx, progress() {} };
  const advice = confirmedRetry(raw, { retryWith: { inputs } }, (i) => runOnce(i, quiet), 1);
  return advice ? { ...out, retryWith: advice } : out;
};

const runOnce = (raw: FitInput, ctx: SolverContext): SolverOutput => {
  const r = fitModel(raw, (f) => ctx.progress(0.8 * f));
  const { names, params, stderr, m, dof, chi2, solve } = r;
  const n = names.length;
  const model = raw.model ?? DEFAULT_MODEL;
  // residuals y − f and the fitted curve
  const fitted = new Float64Array(m);
  r.prob.predict(params, fitted);
  const residuals = Array.from(fitted, (fv, i) => r.data.y[i] - fv);
  const ci95 = named(names, names.map((_, j) => [params[j] - r.tValue * stderr[j], params[j] + r.tValue * stderr[j]]) as any);
  let profile: Record<string, [number | null, number | null]> | undefined;
  let profileFits = 0;
  if (raw.profile) {
    const delta = r.absoluteSigma ? Z975 * Z975 : (chi2 * r.tValue * r.tValue) / dof;
    profile = {};
    names.forEach((k, j) => {
      const iv = profileInterval(r.prob, solve.x, j, r.tValue * stderr[j], { delta, sMin: chi2, ftol: 1e-12, xtol: 1e-12, gtol: 1e-12, maxNfev: r.tolerances.maxNfev });
      profileFits += iv.fits;
      profile![k] = [iv.lo, iv.hi];
      ctx.progress(0.8 + (0.1 * (j + 1)) / n);
    });
  }
  // the certificate, from the model text alone (lib/fit/check.ts)
  const active = r.solve.activeMask;
  const cert = checkFit({
    model, names, params, columns: r.data.columns, y: r.data.y, ...(r.data.sigma ? { sigma: r.data.sigma } : {}),
    stderr, absoluteSigma: r.absoluteSigma, loss: r.loss, fScale: raw.fScale ?? 1, ...(active ? { active: Array.from(active) } : {}),
  });
  ctx.progress(1);
  const gradientScore = cert.gradientCosine / GRADIENT_TOL, stderrScore = cert.stderrRelDiff / STDERR_TOL;
  const worst = Math.max(gradientScore, stderrScore);
  const errorPct = Number.isFinite(worst) ? 0.1 * worst : Infinity;
  // AIC and BIC need chi2 > 0: an exact fit (chi2 = 0) has none (null)
  const logLik = chi2 > 0 ? m * Math.log(chi2 / m) : null;
  const aic = logLik === null ? null : logLik + 2 * n;
  const status = {
    code: solve.status,
    converged: solve.success,
    reason: solve.message,
    ...(r.method === 'lm' ? { minpackInfo: solve.info } : {}),
  };
  return {
    value: chi2,
    result: {
      model,
      method: r.method,
      loss: r.loss,
      ...(r.loss !== 'linear' ? { fScale: raw.fScale ?? 1 } : {}),
      parameters: names,
      variables: r.prob.xNames,
      params: named(names, params),
      stderr: named(names, stderr),
      covariance: r.covariance,
      // an exact fit (chi2 = 0, σ estimated) has zero error bars: correlations are then undefined, reported as 0
      correlation: r.covariance.map((row, i) => row.map((c, j) => (stderr[i] > 0 && stderr[j] > 0 ? c / (stderr[i] * stderr[j]) : i === j ? 1 : 0))),
      ci95,
      ciMethod: r.absoluteSigma ? 'wald: p ± z(0.975)·stderr (sigma absolute)' : `wald: p ± t(0.975, ${dof})·stderr, t = ${r.tValue.toPrecision(6)}`,
      ...(profile ? { ci95Profile: profile, profileFits } : {}),
      residuals,
      fitted: Array.from(fitted),
      chi2,
      reducedChi2: chi2 / dof,
      rss: residuals.reduce((s, e) => s + e * e, 0),
      dof,
      n: m,
      aic,
      bic: logLik === null ? null : logLik + n * Math.log(m),
      nfev: solve.nfev,
      njev: solve.njev,
      iterations: solve.iterations,
      status,
      jacobian: r.exactJacobian ? 'automatic (exact symbolic derivative of the model)' : 'central differences (the model uses a function without a derivative rule)',
      rank: r.rank,
      conditionNumber: r.condition,
      absoluteSigma: r.absoluteSigma,
      p0: named(names, names.map((k) => (raw.p0 ?? DEFAULT_P0)[k])),
      ...(r.bounds ? { bounds: raw.bounds, activeBounds: named(names, Array.from(r.solve.activeMask ?? new Int8Array(n))) } : {}),
      tolerances: r.tolerances,
      certificate: {
        gradientCosine: cert.gradientCosine,
        gradientTolerance: GRADIENT_TOL,
        gradient: named(names, cert.gradient),
        stderr: named(names, cert.stderr),
        stderrRelDiff: cert.stderrRelDiff,
        stderrTolerance: STDERR_TOL,
        chi2: cert.chi2,
        evaluations: cert.evaluations,
      },
    },
    precision: precisionOf({
      errorPct,
      boundPct: 0.1,
      reference: `${solve.success ? '' : `the solver did not converge (status ${solve.status}: ${solve.message}); `}lsq-gradient certificate recomputed from the model text by finite differences (lib/fit/check.ts): largest cosine between residuals and a Jacobian column ${sig(cert.gradientCosine)} (tolerance ${GRADIENT_TOL}), standard errors within ${sig(cert.stderrRelDiff)} relative (tolerance ${STDERR_TOL}); errorPct = 0.1·max(cosine/${GRADIENT_TOL}, stderr difference/${STDERR_TOL})`,
      certificate: 'lsq-gradient',
    }),
    method: r.method,
  };
};
