// One step of live compute: a solver run (in the worker pool) or a catalog operator evaluation,
// computed for a fixed instant `t` and turned into a v2 seal job for that instant. Streams seal
// each tick as it comes; the reactor computes its whole trajectory, then seals every step.
// A solver step goes through the engine's computeSolverJob (src/ops/solvers.ts), as a direct
// call does, with `now` = the step's own instant; the caller seals the job with that same `t`
// (see docs/live-compute.md, "What the node's core provides").
import type { z } from 'zod';
import type { App } from '../ops/types.ts';
import type { SealJob } from '../services/seal-batch.ts';
import { SvcError } from '../core/errors.ts';
import { parseInput } from '../ops/validate.ts';
import { loadSolvers, type LoadedSolver } from '../solvers/engine/loader.ts';
import { solverInputSchema, computeSolverJob } from '../ops/solvers.ts';
import { shapeOf } from '../ops/schema.ts';
import { jobEnded, jobStarted } from './registry.ts';

export type StepJob = Omit<SealJob, 'zid' | 'keyPrefix' | 't' | 'cost' | 'folder'>;

export interface StepOutcome {
  value: number;
  unit: string;
  /** numbers a mapping may read: `value` and `result_<key>` for each finite top-level number of result */
  outputs: Record<string, number>;
  job: StepJob;
}

export interface PreparedSolver {
  kind: 'solver';
  name: string;
  ls: LoadedSolver;
  schema: z.ZodType;
  /** the solver's own field names */
  ownKeys: string[];
}

export interface PreparedOperator {
  kind: 'operator';
  name: string;
  def: any;
  inputKeys: string[];
  unit: string;
  catalog: any;
  gate: any;
}

export type PreparedSource = PreparedSolver | PreparedOperator;


const prepared = new Map<string, PreparedSolver>();

export async function prepareSolver(name: string): Promise<PreparedSolver> {
  const hit = prepared.get(name);
  if (hit) return hit;
  const solvers = await loadSolvers();
  const ls = solvers.find((s) => s.descriptor.name === name);
  if (!ls) {
    throw new SvcError('INVALID_INPUT', `unknown solver '${name}'; available: ${solvers.map((s) => s.descriptor.name).join(', ')}`,
      { issues: [{ path: 'solver', message: `unknown solver '${name}'` }] });
  }
  const p: PreparedSolver = { kind: 'solver', name, ls, schema: solverInputSchema(ls), ownKeys: Object.keys(shapeOf(ls.descriptor.input)) };
  prepared.set(name, p);
  return p;
}

let catalogModules: Promise<{ catalog: any; gate: any } | null> | null = null;

/** The operator catalog (src/operators/), when it loads. */
function operatorModules() {
  catalogModules ??= (async () => {
    try {
      const [catalog, gate] = await Promise.all([import('../operators/catalog.ts'), import('../operators/gate.ts')]);
      if (typeof (catalog as any).getOperator !== 'function' || typeof (gate as any).bindInputs !== 'function') return null;
      return { catalog, gate };
    } catch {
      return null;
    }
  })();
  return catalogModules;
}

export async function prepareOperator(id: string): Promise<PreparedOperator> {
  const mods = await operatorModules();
  if (!mods) throw new SvcError('INVALID_INPUT', 'the operator catalog is not available on this node; use a solver', { issues: [{ path: 'operator', message: 'catalog unavailable' }] });
  let def: any;
  try { def = mods.catalog.getOperator(id); } catch { def = undefined; }
  if (!def) {
    throw new SvcError('INVALID_INPUT', `unknown operator '${id}'; find one with svc_find_operator`, { issues: [{ path: 'operator', message: `unknown operator '${id}'` }] });
  }
  return { kind: 'operator', name: def.id, def, inputKeys: Object.keys(def.inputs), unit: def.output.unit, catalog: mods.catalog, gate: mods.gate };
}

/** Validates a solver body (its own fields plus the common ones, no folder). Throws 400. */
export function validateSolverBody(p: PreparedSolver, body: Record<string, unknown>): Record<string, any> {
  return parseInput(p.schema, body) as Record<string, any>;
}

/** Binds operator inputs through the dimensional gate (422 DIMENSIONAL_GATE on a bad key). */
export function bindOperatorInputs(p: PreparedOperator, inputs: Record<string, unknown>): Record<string, number> {
  return p.gate.bindInputs([p.def], inputs)[p.def.id];
}

function numericOutputs(value: number, result: unknown): Record<string, number> {
  const out: Record<string, number> = { value };
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    for (const [k, v] of Object.entries(result)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(k)) continue;
      if (typeof v === 'number' && Number.isFinite(v)) out[`result_${k}`] = v;
      else if (typeof v === 'boolean') out[`result_${k}`] = v ? 1 : 0;
    }
  }
  return out;
}

/** Runs solver `p` on an already validated body for instant t (unix seconds). */
export async function computeSolverStep(app: App, p: PreparedSolver, input: Record<string, any>,
  opts: { t: number; signal?: AbortSignal; timeoutMs?: number; tag: Record<string, unknown> }): Promise<StepOutcome> {
  jobStarted();
  let prepared;
  try {
    prepared = await computeSolverJob(app, p.ls, input, { now: opts.t, signal: opts.signal, timeoutMs: opts.timeoutMs });
  } finally {
    jobEnded();
  }
  const { job, output } = prepared;
  Object.assign(job.body as Record<string, unknown>, opts.tag);
  return { value: output.value, unit: job.unit as string, outputs: numericOutputs(output.value, output.result), job };
}

/** Evaluates catalog operator `p` on bound inputs (numbers in the declared units). Synchronous
 * and cheap (one mathjs evaluation with units, one in SI floats as the cross-check). */
export function computeOperatorStep(p: PreparedOperator, bound: Record<string, number>, opts: { tag: Record<string, unknown> }): StepOutcome {
  const value: number = p.catalog.evaluateWithUnits(p.def, bound);
  const siValue: number = p.catalog.evaluateSI(p.def, bound);
  if (!Number.isFinite(value) || !Number.isFinite(siValue)) {
    throw new SvcError('UNSTABLE', `operator ${p.def.id} gave a non-finite value; nothing was sealed`, { details: { value: null } });
  }
  const errorPct: number = p.catalog.relativeDiffPct(value, siValue);
  const result = { operator: p.def.id, equation: p.def.equation, inputs: bound, siValue };
  return {
    value,
    unit: p.unit,
    outputs: numericOutputs(value, { siValue }),
    job: {
      solver: 'compute', domain: p.def.domain, method: 'catalog-operator', operators: ['KO42', p.def.id], version: 2, value, unit: p.unit,
      body: { result, precision: { errorPct, boundPct: 0.1, reference: 'independent SI float evaluation of the same equation', withinBound: errorPct <= 0.1 }, ...opts.tag },
    },
  };
}
