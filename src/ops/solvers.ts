// The sealed solver operations (DESIGN §10): one operation per solver (POST /api/svc/<name>, tool
// svc_<name>), derived from the solver's descriptor. A call validates the body (the solver's own
// fields plus the common ones), checks the machine's tokens, runs the solver in the pool
// (src/solvers/engine/pool.ts), refuses what must not be sealed, and seals the result (v2:
// value and unit are signed).
import { z } from 'zod';
import type { App, Operation, OpContext } from './types.ts';
import type { SolverOutput, SolverRun } from '../solvers/types.ts';
import { SvcError, isSvcError, secondsToNextUtcMidnight } from '../core/errors.ts';
import { canonicalJson } from '../core/canonical.ts';
import { sha256Hex } from '../core/ids.ts';
import { parseInput } from './validate.ts';
import { folderField, shapeOf, toJsonSchema, lazyJsonSchema } from './schema.ts';
import { loadSolvers, solverRun, type LoadedSolver } from '../solvers/engine/loader.ts';
import { assertMachineCaller } from '../services/identity.ts';
import type { SealJob } from '../services/seal-batch.ts';
import { sealedResult, SEALING } from './tool-hints.ts';
import { derivedSeedOf, forRun, resolveBlobInputs, splitLargeResult, withBlobInputs, withBlobInputsForSchema, type BlobReader, type SealedBlob } from './files.ts';
import { ulid } from '../core/ids.ts';
import { blobStore } from './blobs.ts';
import { currentJob, JobHandback } from '../services/job-context.ts';

/** A solver's display name (MCP title) and one-line description (MCP description), when its
 * descriptor gives none: the summary is the full text (OpenAPI), this is what a tool list shows. */
const TOOL_TEXT: Record<string, [title: string, brief: string]> = {
  protect: ['Liveness guard', 'Guard power P and state (OK, DEGRADED, BREACH) from a liveness signal; value: P.'],
  solve: ['Trajectory tuned to a closed form', 'Free fall with drag, pendulum or inverse-square fall by RK4, tuned to within 0.1 % of its closed form; value: energy (J).'],
  multibody: ['N-body integration', 'N-body gravity (2-16 bodies) by RK4: energy, momentum drift and Kepler period check; value: energy (J).'],
  evolve: ['Molecular dynamics (Lennard-Jones)', 'Lennard-Jones molecular dynamics (NVE) on a preset or your XYZ/LAMMPS data: energies, temperature, pressure, RDF.'],
  action: ['Symplectic orbit integration', 'Kepler orbit, oscillator or pendulum by leapfrog or Yoshida 4/6/8; value: final energy, with its drift.'],
  heat: ['Heat equation', 'Heat equation on a bar or square (a sine mode, or your initial and boundary conditions); value: mode amplitude.'],
  lorenz: ['Lorenz attractor', 'Lorenz system by RK4: phase-volume contraction rate (value) and the largest Lyapunov exponent.'],
  wave: ['Wave equation', 'Membrane, string or 2-D EM cavity by leapfrog (or your own problem); value: the conserved energy.'],
  flow: ['Incompressible flow', '2-D incompressible flow (stable fluids) from a Taylor-Green vortex; value: peak speed, checked against exact decay.'],
  fracture: ['Fracture (peridynamics)', 'Peak stress of a notched plate or a bar pulled to a strain, by peridynamics with bond breaking.'],
  react: ['Reaction-diffusion', 'Gray-Scott or FitzHugh-Nagumo patterns on an N x N grid; value: mean concentration of u.'],
  epi: ['Epidemic model (SIR/SEIR)', 'SIR or SEIR epidemic: R0 (value), peak infected, peak day and final size.'],
  quant: ['Option pricing (Monte Carlo)', 'European call or put price by Monte Carlo with standard error and delta, checked against Black-Scholes.'],
  zeta: ['Riemann zeta zeros', 'Number of zeros of the Riemann zeta function on the critical line up to height T, checked against N(T).'],
  sat: ['Random 3-SAT', 'A random 3-SAT instance decided by DPLL: a verified assignment or unsatisfiable; value: decisions.'],
  gauge: ['U(1) lattice gauge theory', 'Compact U(1) lattice gauge Monte Carlo: mean plaquette with its error, checked against I1(b)/I0(b).'],
  fea: ['Cantilever finite elements', 'Cantilever tip deflection (m) by Q4 finite elements, checked against Timoshenko beam theory.'],
  grid: ['Power flow', 'Power flow: DC on a synthetic network, or AC/DC on your MATPOWER case (voltages, flows, losses).'],
  device: ['Device electrostatics', "Potential of a parallel-plate device or a PN junction's built-in potential (V)."],
  opt: ['Optimisation', 'Minimise a test function or your own expression (Nelder-Mead, BFGS, L-BFGS-B) with a KKT check; value: f.'],
  climate: ['Shallow-water waves', '1-D shallow-water waves: peak surface height (value), wave speed against sqrt(gH), mass conservation.'],
  dock: ['Molecular docking', 'Rigid ligand docked into a built-in pocket over 6 degrees of freedom (LJ + Coulomb); value: best energy.'],
  buckling: ['Column buckling', 'Euler buckling load (N) of a column with pinned, fixed or free ends, by beam FEM eigenvalues.'],
  acoustic: ['Duct acoustics', 'Resonant frequency (Hz) of mode n of a duct with open or closed ends (finite-volume Helmholtz).'],
  schrodinger: ['1-D Schrödinger eigenstates', 'Energy of bound state n of a 1-D potential (harmonic, box, finite well), checked analytically.'],
  tumor: ['Fisher-KPP growth front', 'Growth-front speed of logistic growth plus diffusion (Fisher-KPP), checked against 2*sqrt(r*D).'],
  lotka: ['Predator-prey dynamics', 'Lotka-Volterra predator-prey by RK4 or symplectic; value: the conserved first integral.'],
  kalman: ['Kalman filter', 'Kalman filter on a simulated linear Gaussian system; value: steady-state error, checked by the Riccati fixed point.'],
  closedform: ['Closed-form nonlinear oscillator', "Exact solution of phi'' = mu2*phi + lambda*phi^3 + F (harmonic, hyperbolic, Duffing …) with an RK4 cross-check."],
  ode: ['ODE system', "Your own ODE system y' = f(t, y) (RK45, DOP853, Radau, BDF) with events and a global error estimate."],
};

/** The answer of every solver operation. */
export const SOLVER_OUTPUT = sealedResult();
import { solverExample, solverOutputJsonSchema } from './solver-examples.ts';
import { SOLVER_INPUT_EXAMPLES } from './solver-input-examples.ts';

const finiteNumber = z.number().finite();
/** the request fields every solver takes besides its own (DESIGN §10) */
export const COMMON_KEYS = ['operators', 'inputs', 'consts', 'domain', 'query', 'sample', 'acceptOutOfBound'];

const acceptOutOfBoundField = () => z.boolean().optional()
  .describe('seal a result whose precision check fails (precision.withinBound false) instead of refusing it with 422 PRECISION_REFUSED');

function commonFields() {
  return {
    operators: z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'operator ids are 1-64 characters of A-Z a-z 0-9 _ . -')).max(8).optional()
      .describe('operator ids added to the chain (KO42 is always first)'),
    inputs: z.record(z.string().max(64), finiteNumber).optional()
      .describe('numeric inputs, merged under the top-level fields'),
    consts: z.record(z.string().max(64), finiteNumber).optional().describe('constant overrides, kept in the receipt'),
    domain: z.string().max(120).optional().describe("domain label; must match the solver's domain if given"),
    query: z.string().max(2000).optional().describe('natural-language description, kept in the receipt'),
    folder: folderField.describe('folder the receipt is filed in (default "default")'),
    sample: z.number().int().min(2).max(2000).optional().describe('downsample series to this many points (only for results that have series)'),
    acceptOutOfBound: acceptOutOfBoundField(),
  };
}


/** A solver whose body has its own `operators`/`inputs` (closedform, protect) takes `folder` and
 * `acceptOutOfBound` besides its own fields. */
function ownWithFolder(own: any): z.ZodType {
  const shape = shapeOf(own);
  return own.extend({ ...('folder' in shape ? {} : { folder: folderField }), acceptOutOfBound: acceptOutOfBoundField() });
}

/** The op schema of a solver: its own fields plus the common fields, with `inputs` merged
 * under the top-level fields before validation (unknown input keys are refused, listing the
 * accepted ones). */
export function solverInputSchema(ls: LoadedSolver): z.ZodType {
  // file-like inputs take the blob form too (src/ops/files.ts)
  const own = withBlobInputs(ls.descriptor.name, ls.descriptor.input) as any;
  const ownShape = shapeOf(own);
  if (ls.noCommonFields) return ownWithFolder(own);
  const common = commonFields();
  const extended = own.extend(Object.fromEntries(Object.entries(common).filter(([k]) => !(k in ownShape))));
  const accepted = Object.keys(ownShape);
  return z.preprocess((raw, ctx) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
    const body = raw as Record<string, unknown>;
    const inputs = body.inputs;
    if (!inputs || typeof inputs !== 'object' || Array.isArray(inputs)) return raw;
    const merged: Record<string, unknown> = { ...body };
    for (const [k, v] of Object.entries(inputs as Record<string, unknown>)) {
      if (!accepted.includes(k)) {
        ctx.addIssue({ code: 'custom', path: ['inputs', k], message: `unknown input key '${k}'; accepted: ${accepted.join(', ')}` });
        continue;
      }
      if (merged[k] === undefined) merged[k] = v;
      // the same field given twice with two values: one of them would be silently ignored
      else if (merged[k] !== v) ctx.addIssue({ code: 'custom', path: ['inputs', k], message: `'${k}' is also given at the top level (${JSON.stringify(merged[k])}); give it once` });
    }
    return merged;
  }, extended);
}

export function derivedSeed(input: unknown): number {
  return parseInt(sha256Hex(canonicalJson(input)).slice(0, 8), 16) >>> 0;
}

/** Finds the first non-finite number in a solver output, as a path. */
export function findNonFinite(x: unknown, path = ''): string | null {
  if (typeof x === 'number') return Number.isFinite(x) ? null : path || '(value)';
  if (Array.isArray(x) || ArrayBuffer.isView(x)) {
    const arr = x as ArrayLike<unknown>;
    for (let i = 0; i < arr.length; i++) { const p = findNonFinite(arr[i], `${path}[${i}]`); if (p) return p; }
    return null;
  }
  if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) { const p = findNonFinite(v, path ? `${path}.${k}` : k); if (p) return p; }
  }
  return null;
}

export function downsampleSeries(series: Record<string, number[]>, n: number): Record<string, number[]> {
  const keys = Object.keys(series);
  if (!keys.length) return series;
  const len = series[keys[0]].length;
  if (len <= n) return Object.fromEntries(keys.map((k) => [k, Array.from(series[k])]));
  const idx: number[] = [];
  for (let i = 0; i < n; i++) idx.push(Math.round((i * (len - 1)) / (n - 1)));
  return Object.fromEntries(keys.map((k) => [k, idx.map((i) => series[k][i])]));
}

const solversByName = new Map<string, { ls: LoadedSolver; op: Operation }>();

/** A solver's sealed-response job, without the caller's identity, cost and instant. */
export type SolverSealJob = Omit<SealJob, 'zid' | 'keyPrefix' | 't' | 'cost' | 'folder'>;

/** A validated solver body split into the solver's own input and the common fields. */
interface PreparedSolverInput {
  own: Record<string, any>;
  extraOps?: string[];
  consts?: Record<string, number>;
  query?: string;
  folder?: string;
  sample?: number;
  acceptOutOfBound?: boolean;
  seed: number;
  /** inputs given as blobs: what the receipt seals for each */
  blobs?: Record<string, SealedBlob>;
}

/** Splits an already validated body into the solver's own fields and the common ones, checks
 * `domain` and fixes the seed (the input's own `seed`, else derived from the canonical input). */
function prepareSolverInput(ls: LoadedSolver, input: Record<string, any>, blobs?: Record<string, SealedBlob>): PreparedSolverInput {
  const d = ls.descriptor;
  // Solvers whose body has its own `operators`/`inputs` (closedform, protect) get everything but
  // `folder`; the others get their own fields, with the common ones taken out here. A solver that
  // declares a common field name itself (action's and evolve's `sample`) receives it too.
  const ownShape = shapeOf(d.input);
  let own: Record<string, any>;
  let extraOps: string[] | undefined, consts: Record<string, number> | undefined, domain: string | undefined;
  let query: string | undefined, folder: string | undefined, sample: number | undefined, acceptOutOfBound: boolean | undefined;
  if (ls.noCommonFields) {
    ({ folder, acceptOutOfBound, ...own } = input);
  } else {
    const { operators: o, inputs: _inputs, consts: c, domain: dm, query: qy, folder: f, sample: sm, acceptOutOfBound: ab, ...rest } = input;
    extraOps = o; consts = c; domain = dm; query = qy; folder = f; sample = sm; acceptOutOfBound = ab;
    own = rest;
    for (const k of COMMON_KEYS) if (k in ownShape && input[k] !== undefined) own[k] = input[k];
  }
  if (domain !== undefined && domain.trim().toLowerCase() !== d.domain.toLowerCase()) {
    throw new SvcError('INVALID_INPUT', `domain '${domain}' does not match this solver's domain '${d.domain}'`, { issues: [{ path: 'domain', message: `must be '${d.domain}'` }] });
  }
  // solvers take no constants: consts belongs to the operator catalog (svc_compute, svc_unified),
  // and a key here would be echoed in the receipt without any effect (DESIGN §9)
  const constKeys = Object.keys(consts ?? {});
  if (constKeys.length) {
    throw new SvcError('INVALID_INPUT', `consts.${constKeys[0]}: the ${d.name} solver has no constants to override (consts applies to svc_compute and svc_unified); nothing would use it`, {
      issues: constKeys.map((k) => ({ path: `consts.${k}`, message: 'has no effect on this solver' })),
    });
  }
  // a blob input derives the seed the same input derives inline (src/ops/files.ts)
  const seed = typeof own.seed === 'number' ? own.seed >>> 0 : derivedSeedOf(own);
  return { own, extraOps, consts, query, folder, sample, acceptOutOfBound, seed, ...(blobs && Object.keys(blobs).length ? { blobs } : {}) };
}

/** The seal job of a solver output (the response body, operator chain, value and unit), refusing
 * non-finite output with 422 UNSTABLE. */
function buildSolverJob(ls: LoadedSolver, p: PreparedSolverInput, output: SolverOutput, extraResult?: Record<string, unknown>): SolverSealJob {
  const d = ls.descriptor;
  const bad = findNonFinite({ value: output.value, result: output.result, precision: output.precision, series: output.series, stability: output.stability });
  if (bad) {
    throw new SvcError('UNSTABLE', `the ${d.name} solver produced a non-finite number at ${bad}; nothing was sealed`, {
      details: { value: null, ...(output.stability ? { stability: output.stability } : {}) },
    });
  }
  // a result that fails its own check is refused, not sealed, unless the caller asked for it
  if (!output.precision.withinBound && !p.acceptOutOfBound) {
    const pr = output.precision;
    // a resolution the caller set (grid, step, tolerance, iterations, paths) that the method's
    // error model shows cannot meet the bound is an out-of-range field for this problem: a 400
    // naming it, with the value that would pass (docs/defaults.md)
    const short = callerFieldsShort(p.own, output.retryWith, d.input as z.ZodType);
    if (short.length) {
      const advice = output.retryWith!;
      const given = short.map((k) => `${k} = ${JSON.stringify(p.own[k])}`).join(', ');
      throw new SvcError('INVALID_INPUT', `${given}: this setting cannot meet the bound of this ${d.name} problem: error ${fmtPct(pr.errorPct)} against a bound of ${fmtPct(pr.boundPct)} (${pr.reference}). Calling again with ${JSON.stringify(advice.inputs)} is predicted to pass${advice.predictedErrorPct !== undefined ? ` (error ${fmtPct(advice.predictedErrorPct)})` : ''} (details.retryWith); nothing was sealed (a run past its first second of worker time is charged for it). Send acceptOutOfBound: true to have it sealed with withinBound: false`, {
        issues: short.map((k) => ({ path: k, message: `${JSON.stringify(p.own[k])} cannot meet the bound of ${fmtPct(pr.boundPct)} (error ${fmtPct(pr.errorPct)}); ${JSON.stringify(advice.inputs[k])} is predicted to` })),
        details: {
          errorPct: pr.errorPct, boundPct: pr.boundPct, reference: pr.reference, ...(pr.referenceValue !== undefined ? { referenceValue: pr.referenceValue } : {}), ...(pr.certificate ? { certificate: pr.certificate } : {}), value: output.value,
          fields: short, retryWith: advice,
        },
      });
    }
    const retry = output.retryWith ? ` Calling again with ${JSON.stringify(output.retryWith.inputs)} is predicted to pass${output.retryWith.predictedErrorPct !== undefined ? ` (error ${fmtPct(output.retryWith.predictedErrorPct)})` : ''} (details.retryWith).` : '';
    throw new SvcError('PRECISION_REFUSED', `the ${d.name} result failed its own check: error ${fmtPct(pr.errorPct)} against a bound of ${fmtPct(pr.boundPct)} (${pr.reference});${retry} nothing was sealed (a run past its first second of worker time is charged for it). Send acceptOutOfBound: true to have it sealed with withinBound: false`, {
      details: {
        errorPct: pr.errorPct, boundPct: pr.boundPct, reference: pr.reference, ...(pr.referenceValue !== undefined ? { referenceValue: pr.referenceValue } : {}), ...(pr.certificate ? { certificate: pr.certificate } : {}), value: output.value,
        // what would pass, by the method's own error model: the caller's body with these fields
        ...(output.retryWith ? { retryWith: output.retryWith } : {}),
      },
    });
  }
  if (p.sample !== undefined && !output.series && !('sample' in shapeOf(d.input))) {
    throw new SvcError('INVALID_INPUT', `sample: this ${d.name} result has no series to downsample`, { issues: [{ path: 'sample', message: 'has no effect: the result has no series' }] });
  }
  const chain = [...d.operators];
  for (const op of p.extraOps ?? []) if (!chain.includes(op)) chain.push(op);
  const body: Record<string, unknown> = { result: extraResult ? { ...output.result, ...extraResult } : output.result };
  if (output.series) body.series = downsampleSeries(output.series, p.sample ?? 200);
  body.precision = output.precision;
  if (output.stability) body.stability = output.stability;
  if (output.clamped && Object.keys(output.clamped).length) body.clamped = output.clamped;
  body.seed = p.seed;
  body.input = sealedInput(p.own, p.blobs);
  if (p.consts) body.consts = p.consts;
  if (p.query) body.query = p.query;
  if (p.acceptOutOfBound) body.acceptOutOfBound = true;
  return {
    solver: d.name, domain: d.domain, method: output.method ?? d.method, operators: chain, version: 2, value: output.value, unit: d.unit, body,
    ...(output.attachments && Object.keys(output.attachments).length ? { attachments: output.attachments } : {}),
  };
}

/** Inputs larger than this (a CNF, a case file, a configuration, a long series) are sealed by
 * their digest, not repeated in the receipt: `{sha256, bytes}` of the text (or of the RFC 8785
 * JSON of an array or object). Whoever holds the file can check it against the receipt. */
export const SEALED_INPUT_INLINE_BYTES = 64 * 1024;

function sealedInput(own: Record<string, any>, blobs?: Record<string, SealedBlob>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(own)) {
    // an input given as a blob is sealed by its name and size (src/ops/files.ts)
    if (blobs?.[k]) { out[k] = { blob: blobs[k].blob, bytes: blobs[k].bytes }; continue; }
    const text = typeof v === 'string' ? v : v !== null && typeof v === 'object' ? canonicalJson(v) : null;
    if (text !== null && text.length > SEALED_INPUT_INLINE_BYTES) {
      out[k] = { sha256: sha256Hex(text), bytes: Buffer.byteLength(text), sealedBy: typeof v === 'string' ? 'sha256 of the text' : 'sha256 of the RFC 8785 JSON' };
    } else out[k] = v;
  }
  return out;
}

/** The fields the caller set whose value the refusal's advice changes: the caller's own resolution
 * is what cannot meet the bound (a 400 naming them); none when the advice changes only fields the
 * caller left out (a default that did not follow the problem: 422 PRECISION_REFUSED). */
function callerFieldsShort(own: Record<string, any>, advice: SolverOutput['retryWith'], input: z.ZodType): string[] {
  if (!advice) return [];
  return Object.keys(advice.inputs).filter((k) => {
    if (own[k] === undefined || canonicalJson(own[k]) === canonicalJson(advice.inputs[k])) return false;
    // the parsed input carries the defaults (the schema's, and those a solver fills in from the
    // other fields): a field at the value it would take if left out counts as left out
    const { [k]: _given, ...rest } = own;
    const again = input.safeParse(rest);
    return !(again.success && canonicalJson((again.data as Record<string, unknown>)[k] ?? null) === canonicalJson(own[k]));
  });
}

const fmtPct = (x: number) => `${Number.isFinite(x) ? Number(x.toPrecision(3)) : x} %`;

/** The rate work is charged at when it produces no receipt (docs/node.md "Work is paid for"):
 * one token per started second of worker time, at least one. */
export const WORKER_MS_PER_TOKEN = 1000;

/** The most a run with this time budget can cost: the budget's worth of worker time. A call is
 * admitted only when the machine holds that many tokens (beside what its other jobs on this node
 * may still cost). */
export function budgetCost(budgetMs: number): number {
  return Math.max(1, Math.ceil(budgetMs / WORKER_MS_PER_TOKEN));
}

/** What a run that was stopped (budget, memory) or cancelled after it started costs: one token per
 * started second of worker time, at least one, at most its budget's cost. */
export function workCost(workerMs: number, budgetMs: number): number {
  return Math.min(budgetCost(budgetMs), Math.max(1, Math.ceil(workerMs / WORKER_MS_PER_TOKEN)));
}

/** What the worker time of a run that ended by itself costs (issue 33: every run is paid, whatever
 * its end: sealed, or refused as UNSTABLE, PRECISION_REFUSED or any other solver refusal): one
 * token per started second after the first, which is free. A sealed run pays this beside its seal. */
export function runCost(workerMs: number, budgetMs: number): number {
  return Math.min(budgetCost(budgetMs), Math.max(0, Math.ceil((workerMs - WORKER_MS_PER_TOKEN) / WORKER_MS_PER_TOKEN)));
}

/** Tokens held for the worst case of each machine's admitted jobs on this node (queued or
 * running), so a burst of calls cannot be admitted against the same tokens. */
const reservations = new WeakMap<App, Map<string, number>>();

/** How a paid run went in its worker (the pool fills it in). */
interface PaidUsage { started: boolean; workerMs: number; budgetMs: number }

/** Charges the worker time of a run that ended without a seal and re-throws its refusal naming the
 * tokens and the chain entry. Stopped (time or memory budget) and cancelled runs pay every started
 * second (at least one); runs that ended in a refusal of their own pay past their first second. */
async function chargeRefusal(app: App, zid: string, name: string, e: unknown, usage: PaidUsage, cancelled: boolean): Promise<never> {
  if (!usage.started || !isSvcError(e)) throw e;
  const stopped = e.code === 'TIME_BUDGET_EXCEEDED' || e.code === 'MEMORY_BUDGET_EXCEEDED';
  const code = stopped ? e.code : cancelled ? 'CANCELLED' : e.code;
  const cost = stopped || cancelled ? workCost(usage.workerMs, usage.budgetMs) : runCost(usage.workerMs, usage.budgetMs);
  if (cost <= 0) throw e;
  const seconds = Math.round(usage.workerMs) / 1000;
  const { chain, ...tokens } = await app.sealer.charge(zid, cost, { solver: name, code, workerSeconds: seconds });
  const rate = stopped || cancelled ? '1 per started second' : '1 per started second after the first';
  throw new SvcError(e.code, `${e.message}; it used ${seconds} s of worker time and was charged ${tokens.cost} token(s) (${rate})${chain ? `, recorded on the machine's chain at seq ${chain.seq}` : ''}`, {
    details: { ...(e.details ?? {}), workerSeconds: seconds, tokens, ...(chain ? { chain } : {}) },
  });
}

/** Runs a solver in the pool for machine `zid`: admits it only when the machine can pay its
 * worst case, schedules it fairly (the pool's per-machine lanes), and charges the worker time of a
 * run that ends without a seal (chargeRefusal). A run that is sealed pays its seal (1 token) and
 * its worker time past the first second (runCost). */
async function runPaid(app: App, name: string, own: unknown, usage: PaidUsage, opts: {
  zid: string; seed: number; now: number; signal?: AbortSignal; timeoutMs?: number; progress?: (f: number) => void;
}): Promise<SolverOutput> {
  const budgetMs = usage.budgetMs;
  const worst = budgetCost(budgetMs);
  let held = reservations.get(app);
  if (!held) { held = new Map(); reservations.set(app, held); }
  const before = held.get(opts.zid) ?? 0;
  const left = await app.sealer.tokensLeft(opts.zid);
  if (left < before + worst) {
    throw new SvcError('QUOTA_EXCEEDED', `not enough compute tokens: a solver call is admitted only when the machine can pay for its whole time budget (${budgetMs} ms of worker time = ${worst} tokens)${before ? `, besides ${before} held for its other running or queued jobs` : ''}; ${left} left. The allowance renews at 00:00 UTC`, {
      // cost: what this call may cost; remaining: what is left for it beside the other jobs' holds
      details: { tokens: { cost: worst, remaining: Math.max(0, left - before) }, retryAfterSeconds: secondsToNextUtcMidnight(app.clock.now()) },
    });
  }
  held.set(opts.zid, (held.get(opts.zid) ?? 0) + worst);
  // a job runs in its machine's job lane: the queue already limits the machine's running jobs
  // cluster-wide, and the machine's synchronous calls keep their own lane (docs/jobs.md)
  const tenant = currentJob() ? `job:${opts.zid}` : opts.zid;
  try {
    return await app.pool.run(name, own, { seed: opts.seed, now: opts.now, signal: opts.signal, timeoutMs: opts.timeoutMs, progress: opts.progress, tenant, usage });
  } catch (e) {
    // a job handed back by a draining node runs again elsewhere: its stopped attempt is not charged
    if (opts.signal?.reason instanceof JobHandback) throw e;
    return await chargeRefusal(app, opts.zid, name, e, usage, !!opts.signal?.aborted);
  } finally {
    const now = (held.get(opts.zid) ?? worst) - worst;
    if (now > 0) held.set(opts.zid, now); else held.delete(opts.zid);
  }
}

/** The reference that keeps the blobs of each seal job: its input blobs, and the blob its large
 * result went to; released only if the seal fails. */
const outputBlobs = new WeakMap<SolverSealJob, { ref: string }>();

/** The inputs a receipt seals by digest are kept as long as the receipt (so that `svc verify
 * --replay --url` can fetch them later): a reference taken before the seal. */
async function holdInputBlobs(app: App, zid: string, job: SolverSealJob, blobs: Record<string, SealedBlob> | undefined): Promise<void> {
  if (!blobs || !Object.keys(blobs).length) return;
  const store = blobStore(app);
  const ref = outputBlobs.get(job)?.ref ?? `receipt:${ulid()}`;
  for (const b of Object.values(blobs)) await store.refer(zid, b.blob, ref);
  outputBlobs.set(job, { ref });
}

/** Moves the large part of a result (docs/jobs.md "Blobs") into a blob of machine `zid` when the
 * result and series take more than SVC_INLINE_RESULT_BYTES; the blob is kept as long as the
 * receipt that names it (a reference, released only if the seal fails). */
async function outputToBlob(app: App, zid: string, job: SolverSealJob): Promise<void> {
  const body = job.body as Record<string, any>;
  const split = splitLargeResult(body, app.config.inlineResultBytes);
  if (!split) return;
  const store = blobStore(app);
  const put = await store.putBytes(zid, Buffer.from(split.content, 'utf8'));
  const ref = outputBlobs.get(job)?.ref ?? `receipt:${ulid()}`;
  await store.refer(zid, put.digest, ref);
  outputBlobs.set(job, { ref });
  body.result = { ...split.keep, blob: { blob: put.digest, bytes: put.bytes, holds: split.holds } };
  delete body.series;
}

async function releaseOutputBlob(app: App, _zid: string, job: SolverSealJob): Promise<void> {
  const held = outputBlobs.get(job);
  if (held) await blobStore(app).release(held.ref).catch(() => { /* the TTL sweep takes it */ });
}

/** Closed-form solvers evaluated on the event loop: their work takes microseconds, less than a
 * worker round trip (issue 20, the seal path; svc_shift, svc_verify and svc_compute already run
 * there). Everything else runs in the worker pool. */
const INLINE = new Set(['protect']);
const inlineRuns = new Map<string, SolverRun>();
async function loadInline(ls: LoadedSolver): Promise<SolverRun> {
  const run = await solverRun(ls);
  inlineRuns.set(ls.descriptor.name, run);
  return run;
}

/** Runs a solver on an already validated input for instant `now` and builds its seal job (the
 * response body, operator chain, value and unit), refusing non-finite output. Shared by the
 * solver operations and live compute (which seals each tick at its own instant). `zid` is the
 * machine the run is for: it is scheduled and charged as that machine's (see runPaid). */
export async function computeSolverJob(app: App, ls: LoadedSolver, input: Record<string, any>, opts: {
  zid: string; now: number; signal?: AbortSignal; timeoutMs?: number; progress?: (f: number) => void; extraResult?: Record<string, unknown>;
}): Promise<{ job: SolverSealJob; output: SolverOutput; folder: string | undefined; runTokens: number }> {
  const name = ls.descriptor.name;
  // inputs given as blobs are read from the caller's own (src/ops/files.ts)
  const store = blobStore(app);
  const resolved = await resolveBlobInputs(name, ls.descriptor.input, input, (digest) => store.readBytes(opts.zid, digest));
  const p = prepareSolverInput(ls, resolved.input, resolved.blobs);
  // closed-form solvers run on the event loop in microseconds: no worker time to schedule or charge
  if (INLINE.has(name)) {
    const output = app.pool.runInline(name, inlineRuns.get(name) ?? await loadInline(ls), p.own, { seed: p.seed, now: opts.now });
    const job = buildSolverJob(ls, p, output, opts.extraResult);
    await holdInputBlobs(app, opts.zid, job, p.blobs);
    await outputToBlob(app, opts.zid, job);
    return { job, output, folder: p.folder, runTokens: 0 };
  }
  const usage: PaidUsage = { started: false, workerMs: 0, budgetMs: opts.timeoutMs ?? app.config.solverTimeoutMs };
  const output = await runPaid(app, name, forRun(name, p.own), usage, { zid: opts.zid, seed: p.seed, now: opts.now, signal: opts.signal, timeoutMs: opts.timeoutMs, progress: opts.progress });
  let job: SolverSealJob;
  try {
    job = buildSolverJob(ls, p, output, opts.extraResult);
  } catch (e) {
    // refused after the run (non-finite output, its own precision check failed): the work is paid
    return await chargeRefusal(app, opts.zid, name, e, usage, false);
  }
  // the inputs sealed by digest are kept with the receipt; a result too large to send inline
  // keeps its headline figures and puts the rest in a blob
  await holdInputBlobs(app, opts.zid, job, p.blobs);
  await outputToBlob(app, opts.zid, job);
  return { job, output, folder: p.folder, runTokens: runCost(usage.workerMs, usage.budgetMs) };
}

/** Runs a solver on an already validated input and seals the result at the instant it started. */
async function runAndSeal(ctx: OpContext, ls: LoadedSolver, input: Record<string, any>, extraResult?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
  const now = ctx.app.clock.now();
  const name = ls.descriptor.name;
  const asJob = currentJob();
  const { job, folder, runTokens } = await computeSolverJob(ctx.app, ls, input, {
    zid, now, signal: ctx.signal, extraResult,
    // a job runs with its own budget and always reports progress (docs/jobs.md)
    ...(asJob ? { timeoutMs: asJob.timeoutMs } : {}),
    // a progress channel to the worker only when someone listens (see SolverPool.run)
    progress: asJob ? (f) => asJob.progress(f, `${name} ${Math.round(f * 100)}%`)
      : ctx.progressWanted ? (f) => ctx.progress(f, 1, `${name} ${Math.round(f * 100)}%`) : undefined,
  });
  try {
    // the seal's token, and the worker time past the first second (issue 33: every run is paid)
    return await ctx.app.sealer.seal({ ...job, zid, keyPrefix, folder, cost: 1 + runTokens, t: now });
  } catch (e) {
    await releaseOutputBlob(ctx.app, zid, job);
    throw e;
  }
}

export async function solverOperations(_app: App): Promise<Operation[]> {
  const solvers = await loadSolvers();
  return solvers.map((ls) => {
    const d = ls.descriptor;
    const op: Operation = {
      id: `solver.${d.name}`,
      tool: `svc_${d.name}`,
      method: 'POST',
      path: `/api/svc/${d.name}`,
      access: 'key',
      scope: 'compute',
      cost: 1,
      input: solverInputSchema(ls),
      title: d.title ?? TOOL_TEXT[d.name]?.[0] ?? d.domain,
      brief: d.brief ?? TOOL_TEXT[d.name]?.[1],
      hints: SEALING,
      toolOutput: SOLVER_OUTPUT,
      seriesOptIn: true,
      sharedFields: sharedFieldsOf(ls),
      summary: d.summary,
      description: `${d.domain}: ${d.methodDescription}. Value in ${d.unit}; the result is sealed in a signed receipt.`,
      tag: 'solvers',
      ...(d.bodyLimit ? { bodyLimit: d.bodyLimit } : {}),
      // derived when first asked for (OpenAPI, MCP), from the recorded example (solver-examples.ts)
      get outputJsonSchema() { return solverOutputJsonSchema(d); },
      get example() {
        const ex = solverExample(d.name);
        return ex ? { summary: `${d.name} with its default input`, request: ex.request, response: ex.response } : undefined;
      },
      // one per kind of user input (a case, a configuration, measurements, …): solver-input-examples.ts
      requestExamples: SOLVER_INPUT_EXAMPLES[d.name] ?? [],
      handler: (input, ctx) => runAndSeal(ctx, ls, input as Record<string, any>),
    };
    lazyJsonSchema(op, () => solverJsonSchema(ls));
    solversByName.set(d.name, { ls, op });
    return op;
  });
}

/** Validates `body` against solver `name`'s schema, runs it and seals it under that solver's
 * own source (used by svc_auto and live compute). `extraResult` fields are merged into `result`
 * before sealing, so the chain's payload hash and the receipt signature cover them. */
export async function runSealedSolver(ctx: OpContext, name: string, body: unknown, extraResult?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const entry = solversByName.get(name);
  if (!entry) throw new SvcError('NOT_FOUND', `no solver named '${name}'`);
  const input = parseInput(entry.op.input, body);
  return runAndSeal(ctx, entry.ls, input as Record<string, any>, extraResult);
}

/** Runs a solver without sealing (the CLI's `svc solve`, benchmarks): validates the body exactly
 * as the solver's operation does (common fields included), runs the solver in this process and
 * returns the body a sealed response would carry (solver, domain, method, value, unit, result,
 * series downsampled to `sample`, precision, stability, clamped, seed, input, consts, query, and
 * the operator chain under `svcState.operators`), marked `sealed: false`, without proof, pulse
 * state, receipt or tokens. Refusals are SvcErrors with the same codes as over HTTP. `now` is the
 * instant the solver sees (`svc verify --replay` passes the receipt's sealed instant). */
export async function runUnsealed(name: string, body: unknown, opts: { now?: number; readBlob?: BlobReader } = {}): Promise<Record<string, unknown>> {
  const solvers = await loadSolvers();
  const ls = solvers.find((s) => s.descriptor.name === name);
  if (!ls) throw new SvcError('NOT_FOUND', `no solver named '${name}'; solvers: ${solvers.map((s) => s.descriptor.name).join(', ')}`);
  const input = parseInput(solverInputSchema(ls), body) as Record<string, any>;
  const resolved = await resolveBlobInputs(name, ls.descriptor.input, input, opts.readBlob ?? (async (digest) => {
    throw new SvcError('INVALID_INPUT', `an input is the blob ${digest}: give a way to read it (svc verify --replay --url URL --key KEY fetches it from the node, or --input NAME=FILE)`);
  }));
  const p = prepareSolverInput(ls, resolved.input, resolved.blobs);
  const run = await solverRun(ls);
  let output: SolverOutput;
  try {
    output = run(forRun(name, p.own), { seed: p.seed, now: opts.now ?? Date.now() / 1000, progress() {} });
  } catch (e: any) {
    // the same mapping as the worker (src/solvers/engine/worker.ts): refusals keep their code, anything else is UNSTABLE
    if (e instanceof SvcError) throw new SvcError(e.code, e.message, { details: e.details });
    throw new SvcError('UNSTABLE', `the ${name} solver could not compute this input: ${e?.message ?? String(e)}`, { details: { value: null } });
  }
  const job = buildSolverJob(ls, p, output);
  return {
    sealed: false,
    solver: job.solver as string, domain: job.domain as string, method: job.method as string,
    value: job.value as number, unit: job.unit as string,
    ...(job.body as Record<string, any>),
    svcState: { operators: job.operators },
  };
}

/** The common fields a solver's body takes that are not its own (its own `sample` is its own). */
function sharedFieldsOf(ls: LoadedSolver): string[] {
  const own = shapeOf(ls.descriptor.input);
  const common = ls.noCommonFields ? ['folder', 'acceptOutOfBound'] : Object.keys(commonFields());
  return common.filter((k) => !(k in own));
}

/** JSON Schema of a solver op's body: its own fields plus the common ones. */
export function solverJsonSchema(ls: LoadedSolver): Record<string, unknown> {
  const own = withBlobInputsForSchema(ls.descriptor.name, ls.descriptor.input) as any;
  const ownShape = shapeOf(own);
  const schema = ls.noCommonFields
    ? ownWithFolder(own)
    : own.extend(Object.fromEntries(Object.entries(commonFields()).filter(([k]) => !(k in ownShape))));
  return toJsonSchema(schema);
}
