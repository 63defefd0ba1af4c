// svc_reactor: recursive sealed compute loops. A step function (a solver, a catalog operator, or
// a map of sandboxed expressions) is applied again and again; each step's outputs are mapped to
// the next step's inputs by sandboxed expressions that may read the environment of the step
// (pulse t, phase, svcond, R_t, step number), until a stop condition holds or maxDepth steps ran.
//
// Step k is computed for the fixed instant t_k = t0 + k·0.777 s (t0 = the run's start in whole
// milliseconds), never for "now", so the trajectory is a pure function of the request whenever
// the expressions do not read the pulse. Every step is sealed (v2, its value and unit, one token)
// with the pulse of t_k; nothing non-finite is sealed: a diverging loop stops at its last good
// step. The step receipts' svcProofs are the leaves of an RFC 6962 Merkle tree whose root
// commits to the whole run (see merkle.ts and docs/live-compute.md).
import type { OpContext } from '../ops/types.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { pulseAt, SVCOND_SECONDS } from '../core/clock.ts';
import { ulid } from '../core/ids.ts';
import { assertMachineCaller } from '../services/identity.ts';
import type { SealedResponse } from '../services/seal-batch.ts';
import {
  bindOperatorInputs, computeOperatorStep, computeSolverStep, prepareOperator, prepareSolver, validateSolverBody,
  type PreparedSource, type StepJob,
} from './steps.ts';
import { compileChecked, evalNumber, evalTruth, expressionCompiler, NAME_RE, RESERVED_NAMES, type CompiledExpr } from './expr.ts';
import { fromHex, inclusionPath, leafHash, rootOfLeafHashes } from './merkle.ts';

export const MAX_DEPTH = 64;
const ENV_NAMES = ['t', 'phase', 'svcond', 'R_t', 'step'];
const STEP_MS = 777;

export interface ReactorInput {
  solver?: string;
  operator?: string;
  expr?: Record<string, string>;
  inputs: Record<string, number>;
  body?: Record<string, unknown>;
  params?: Record<string, number>;
  map?: Record<string, string>;
  value?: string;
  unit?: string;
  until?: string;
  maxDepth: number;
  folder?: string;
}

export type StopReason = 'until' | 'maxDepth' | 'diverged' | 'refused' | 'quota' | 'time-budget';

interface ComputedStep {
  step: number;
  t: number;
  inputs: Record<string, number>;
  value: number;
  unit: string;
  state?: Record<string, number>;
  outputs?: Record<string, number>;
  job: StepJob;
}

const invalid = (path: string, message: string) => new SvcError('INVALID_INPUT', `${path}: ${message}`, { issues: [{ path, message }] });

function checkName(path: string, name: string, taken: Set<string>): void {
  if (!NAME_RE.test(name)) throw invalid(path, `'${name}' is not a name (letters, digits, _; at most 32)`);
  if (RESERVED_NAMES.has(name) || ENV_NAMES.includes(name) || name === 'value' || name.startsWith('prev_') || name.startsWith('result_')) {
    throw invalid(path, `'${name}' is reserved (environment, function, constant, value, prev_*, result_*)`);
  }
  if (taken.has(name)) throw invalid(path, `'${name}' is already used by inputs or params`);
}

function envAt(t: number, step: number) {
  const p = pulseAt(t);
  return { t, phase: p.phase, svcond: p.svcond, R_t: p.R_t, step };
}

const finiteAll = (o: Record<string, number>) => Object.entries(o).find(([, v]) => !Number.isFinite(v))?.[0] ?? null;

export async function runReactor(input: ReactorInput, ctx: OpContext): Promise<Record<string, unknown>> {
  const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
  const app = ctx.app;
  const mode: 'solver' | 'operator' | 'expr' = input.solver !== undefined ? 'solver' : input.operator !== undefined ? 'operator' : 'expr';

  // --- validate names and compile every expression before anything runs
  const params = input.params ?? {};
  const paramNames = new Set<string>();
  for (const k of Object.keys(params)) { checkName(`params.${k}`, k, paramNames); paramNames.add(k); }
  const inputNames = new Set<string>();
  if (mode === 'expr') {
    for (const k of Object.keys(input.inputs)) { checkName(`inputs.${k}`, k, paramNames); inputNames.add(k); }
  } else {
    for (const k of Object.keys(input.inputs)) {
      if (!NAME_RE.test(k)) throw invalid(`inputs.${k}`, `'${k}' is not a name`);
      if (paramNames.has(k)) throw invalid(`inputs.${k}`, `'${k}' is also a param`);
      inputNames.add(k);
    }
  }
  let source: PreparedSource | null = null;
  let outputNames: string[] = [];
  if (mode === 'solver') {
    const s = await prepareSolver(input.solver!);
    source = s;
    const body = input.body ?? {};
    if ('folder' in body) throw invalid('body.folder', 'give folder at the top level');
    for (const k of inputNames) if (k in body) throw invalid(`inputs.${k}`, 'also given in body');
    for (const k of inputNames) if (!s.ownKeys.includes(k)) throw invalid(`inputs.${k}`, `not a field of solver ${s.name}; accepted: ${s.ownKeys.join(', ')}`);
    validateSolverBody(s, { ...body, ...input.inputs });
    outputNames = ['value']; // plus result_<key>, known only after a run: checked when the map runs
  } else if (mode === 'operator') {
    const o = await prepareOperator(input.operator!);
    source = o;
    bindOperatorInputs(o, input.inputs);
    outputNames = ['value', 'result_siValue'];
  }
  const exprs: [string, CompiledExpr][] = [];
  const maps: [string, CompiledExpr][] = [];
  const env = [...ENV_NAMES];
  const params_ = [...paramNames];
  const inputs_ = [...inputNames];
  if (mode === 'expr') {
    for (const [k, e] of Object.entries(input.expr!)) {
      if (!inputNames.has(k)) throw invalid(`expr.${k}`, `'${k}' needs an initial value in inputs`);
      exprs.push([k, await compileChecked(e, [...env, ...params_, ...inputs_], `expr.${k}`)]);
    }
  } else {
    for (const [k, e] of Object.entries(input.map ?? {})) {
      if (!inputNames.has(k)) throw invalid(`map.${k}`, `'${k}' is not one of the inputs (${inputs_.join(', ') || 'none'})`);
      // solver result_* names are only known after a run; allow any result_ name there
      const c = await compileChecked(e, [...env, ...params_, ...inputs_, ...outputNames, ...(mode === 'solver' ? resultSymbols(e) : [])], `map.${k}`);
      maps.push([k, c]);
    }
  }
  const firstState = mode === 'expr' ? Object.keys(input.expr!)[0] : null;
  const valueExpr = input.value !== undefined
    ? await compileChecked(input.value, [...env, ...params_, ...inputs_], 'value')
    : null;
  const untilNames = mode === 'expr'
    ? [...env, ...params_, ...inputs_, ...inputs_.map((n) => `prev_${n}`), 'value', 'prev_value']
    : [...env, ...params_, ...inputs_, ...outputNames, 'prev_value', ...(mode === 'solver' && input.until ? resultSymbols(input.until) : [])];
  const until = input.until !== undefined ? await compileChecked(input.until, untilNames, 'until') : null;
  const untilReadsPrev = !!until && (until.symbols ?? []).includes('prev_value');
  const unit = mode === 'expr' ? (input.unit ?? '1') : source!.kind === 'solver' ? source!.ls.descriptor.unit : source!.unit;

  // --- tokens: one per step; never compute more steps than can be sealed
  const nowT = app.clock.now();
  const left = await app.sealer.assertTokens(zid, 1);
  const depth = Math.min(input.maxDepth, left);

  const runId = 'rx_' + ulid();
  const t0ms = Math.round(nowT * 1000);
  const deadline = performance.now() + app.config.solverTimeoutMs;
  const steps: ComputedStep[] = [];
  let stopped: { reason: StopReason; atStep: number; detail?: Record<string, unknown> } | null = null;
  let inputs: Record<string, number> = { ...input.inputs };
  let prevValue = 0;

  for (let k = 0; k < depth; k++) {
    const t = (t0ms + k * STEP_MS) / 1000;
    const e = envAt(t, k);
    const tag = { reactor: { run: runId, step: k } };
    let computed: ComputedStep;
    try {
      if (mode === 'expr') {
        const scope = { ...params, ...inputs, ...e };
        const next: Record<string, number> = { ...inputs };
        for (const [name, c] of exprs) next[name] = evalNumber(c, scope, `expr.${name}`);
        const value = valueExpr ? evalNumber(valueExpr, { ...params, ...next, ...e }, 'value') : next[firstState!];
        const bad = finiteAll(next) ?? (Number.isFinite(value) ? null : 'value');
        if (bad) { stopped = { reason: 'diverged', atStep: k, detail: { variable: bad, message: `${bad} is not finite at step ${k}; steps up to ${k - 1} are sealed` } }; break; }
        computed = {
          step: k, t, inputs, value, unit, state: next,
          job: {
            solver: 'reactor', domain: 'Recursive Compute', method: 'expression-map', operators: ['KO42'], version: 2, value, unit,
            body: { result: { step: k, inputs, state: next, ...(Object.keys(params).length ? { params } : {}) }, ...tag },
          },
        };
      } else if (source!.kind === 'solver') {
        const remaining = deadline - performance.now();
        if (remaining <= 0) {
          if (k === 0) throw new SvcError('TIME_BUDGET_EXCEEDED', 'the reactor ran out of time before its first step');
          stopped = { reason: 'time-budget', atStep: k, detail: { budgetMs: app.config.solverTimeoutMs } };
          break;
        }
        const body = validateSolverBody(source!, { ...(input.body ?? {}), ...inputs });
        const out = await computeSolverStep(app, source!, body, { t, signal: ctx.signal, timeoutMs: Math.ceil(remaining), tag });
        computed = { step: k, t, inputs, value: out.value, unit: out.unit, outputs: out.outputs, job: out.job };
      } else {
        const bound = bindOperatorInputs(source!, inputs);
        const out = computeOperatorStep(source!, bound, { tag });
        computed = { step: k, t, inputs, value: out.value, unit: out.unit, outputs: out.outputs, job: out.job };
      }
    } catch (err) {
      if (!isSvcError(err) || k === 0 || ctx.signal.aborted) throw err;
      if (err.code === 'UNSTABLE') stopped = { reason: 'diverged', atStep: k, detail: { code: err.code, message: err.message } };
      else if (err.code === 'TIME_BUDGET_EXCEEDED') stopped = { reason: 'time-budget', atStep: k, detail: { message: err.message } };
      else stopped = { reason: 'refused', atStep: k, detail: { code: err.code, message: err.message } };
      break;
    }
    steps.push(computed);

    // stop condition, on this step's outputs
    // (a condition that reads prev_value has no previous value at step 0 and is first checked after step 1)
    if (until && !(k === 0 && untilReadsPrev)) {
      const prev = k === 0 ? {} : { prev_value: prevValue };
      const scope: Record<string, unknown> = mode === 'expr'
        ? { ...params, ...Object.fromEntries(Object.entries(inputs).map(([n, v]) => [`prev_${n}`, v])), ...computed.state, ...e, value: computed.value, ...prev }
        : { ...params, ...inputs, ...computed.outputs, ...e, ...prev };
      let holds: boolean;
      try {
        holds = evalTruth(until, scope, 'until');
      } catch (err) {
        if (k === 0) throw err;
        stopped = { reason: 'refused', atStep: k + 1, detail: { code: 'INVALID_INPUT', message: (err as Error).message } };
        break;
      }
      if (holds) { stopped = { reason: 'until', atStep: k }; break; }
    }
    prevValue = computed.value;
    if (k + 1 >= depth) break;

    // next inputs
    if (mode === 'expr') {
      inputs = computed.state!;
    } else if (maps.length) {
      const tn = (t0ms + (k + 1) * STEP_MS) / 1000;
      const scope = { ...params, ...inputs, ...computed.outputs, ...envAt(tn, k + 1) };
      const next = { ...inputs };
      try {
        for (const [name, c] of maps) next[name] = evalNumber(c, scope, `map.${name}`);
      } catch (err) {
        stopped = { reason: 'refused', atStep: k + 1, detail: { code: 'INVALID_INPUT', message: (err as Error).message } };
        break;
      }
      const bad = finiteAll(next);
      if (bad) { stopped = { reason: 'diverged', atStep: k + 1, detail: { variable: bad, message: `input ${bad} is not finite at step ${k + 1}; steps up to ${k} are sealed` } }; break; }
      inputs = next;
    }
  }
  if (!steps.length) {
    throw new SvcError('UNSTABLE', `the first step gave a non-finite value; nothing was sealed`, { details: { value: null, stopped } });
  }
  if (!stopped) stopped = steps.length < input.maxDepth
    ? { reason: 'quota', atStep: steps.length, detail: { message: `only ${left} compute tokens were left` } }
    : { reason: 'maxDepth', atStep: steps.length - 1 };

  // --- seal every step (the sealer commits them together, in order)
  const settled = await Promise.allSettled(steps.map((s) =>
    app.sealer.seal({ ...s.job, zid, keyPrefix, t: s.t, cost: 1, folder: input.folder })));
  const sealed: SealedResponse[] = [];
  for (let i = 0; i < settled.length; i++) {
    const r = settled[i];
    if (r.status === 'fulfilled') { sealed.push(r.value); continue; }
    const err = r.reason;
    if (i === 0) throw err;
    if (isSvcError(err) && err.code === 'QUOTA_EXCEEDED') {
      stopped = { reason: 'quota', atStep: i, detail: { message: err.message } };
      break;
    }
    throw err;
  }
  steps.length = sealed.length;

  const leafHashes = sealed.map((s) => leafHash(fromHex(s.svcProof)));
  const root = rootOfLeafHashes(leafHashes).toString('hex');
  const trajectory = steps.map((s, i) => {
    const r = sealed[i] as any;
    return {
      step: s.step,
      t: s.t,
      svcond: r.svcState.svcond,
      phase: r.phase,
      R_t: r.svcState.masterSum,
      inputs: s.inputs,
      ...(s.state ? { state: s.state } : {}),
      ...(s.outputs ? { outputs: s.outputs } : {}),
      value: s.value,
      unit: s.unit,
      receipt: { id: r.receipt.id, svcProof: r.svcProof, operators: r.svcState.operators, R_t: r.svcState.masterSum, svcond: r.svcState.svcond, keyPrefix: r.keyPrefix, value: r.value, unit: r.unit, chain: r.receipt.chain },
      inclusion: inclusionPath(leafHashes, i).map((b) => b.toString('hex')),
    };
  });
  const last = sealed[sealed.length - 1] as any;
  const response = {
    ok: true,
    run: runId,
    mode,
    source: mode === 'solver' ? { solver: input.solver } : mode === 'operator' ? { operator: source!.name } : { expr: input.expr },
    steps: sealed.length,
    stopped,
    t0: t0ms / 1000,
    svcondSeconds: SVCOND_SECONDS,
    trajectory,
    merkle: {
      root,
      size: sealed.length,
      scheme: 'RFC 6962 Merkle tree hash (SHA-256; leaf = SHA-256(0x00 || leaf), node = SHA-256(0x01 || left || right))',
      leaf: 'the 32 bytes of each step receipt\'s svcProof, in step order',
      verify: 'POST /api/reactor/verify',
    },
    final: last,
    tokens: { cost: sealed.length, remaining: last.tokens?.remaining },
    expressions: (await expressionCompiler()).source,
  };
  await app.db.query('INSERT INTO reactor_runs (id, zid, root, size, stopped, body) VALUES ($1, $2, $3, $4, $5, $6)',
    [runId, zid, root, sealed.length, stopped.reason, JSON.stringify(response)]);
  return response;
}

/** result_* names an expression mentions (a solver's result fields are known only after a run). */
function resultSymbols(expr: string): string[] {
  return [...new Set(expr.match(/\bresult_[A-Za-z0-9_]+/g) ?? [])];
}
