// svc_compute's 7-step protocol (spec: SELECT, BIND, VALIDATE, COMPUTE, VERIFY, PULSE, RETURN),
// as a pure function of the request and one instant t. The operation (src/ops/operators.ts)
// seals the outcome. Each step's outcome is recorded; a refusal carries the steps so far.
//   SELECT   resolve the domain (name, slug, code or alias); the chain is KO42 plus the given
//            operators (at most 3) or the domain's default operator.
//   BIND     every input key must be declared by some operator of the chain and every declared
//            key must be given (KO42's S is bound to the chain weight sum, 1 when normalised).
//   VALIDATE each value is converted to its operator's declared unit with mathjs units: wrong
//            dimension, unparseable quantity or non-finite number -> 422 DIMENSIONAL_GATE.
//   COMPUTE  each operator is evaluated with unit algebra and converted to its output unit.
//   VERIFY   each operator is recomputed by an independent path (plain SI floats, constants
//            and unit literals substituted) and compared; the worst relative gap is errorPct.
//   PULSE    R_t = S (1 + alpha sin(phase)) at t (DESIGN §6).
//   RETURN   the primary operator's value and unit (the first after KO42) go into a v2 seal.
import { SvcError } from '../core/errors.ts';
import { pulseAt, type Pulse } from '../core/clock.ts';
import { evaluateSI, evaluateWithUnits, getOperator, relativeDiffPct, resolveDomain, domainOperators } from './catalog.ts';
import { convertInput, gateError, type GateProblem } from './gate.ts';
import type { DomainDef, OperatorDef } from './types.ts';

export const BASE_OPERATOR = 'KO42';
export const MAX_EXTRA_OPERATORS = 3;
/** VERIFY refuses above this gap between the two evaluation paths (percent). */
export const VERIFY_BOUND_PCT = 1e-6;

export type StepName = 'SELECT' | 'BIND' | 'VALIDATE' | 'COMPUTE' | 'VERIFY' | 'PULSE' | 'RETURN';

export interface ProtocolStep {
  step: StepName;
  ok: boolean;
  detail: Record<string, unknown>;
}

export interface OperatorOutcome {
  id: string;
  name: string;
  domain: string;
  equation: string;
  inputs: Record<string, { value: number; unit: string }>;
  value: number;
  unit: string;
  verifiedValue: number;
  errorPct: number;
}

export interface ComputeOutcome {
  domain: DomainDef;
  chain: string[];
  primary: OperatorOutcome;
  operators: OperatorOutcome[];
  protocol: ProtocolStep[];
  pulse: Pulse;
  S: number;
  precision: { errorPct: number; boundPct: number; reference: string; withinBound: boolean };
}

export interface ComputeRequest {
  domain: string;
  inputs: Record<string, unknown>;
  operators?: string[];
}

function fail(steps: ProtocolStep[], step: StepName, err: SvcError): SvcError {
  steps.push({ step, ok: false, detail: { code: err.code, error: err.message } });
  const details = { ...(err.details ?? {}), protocol: steps };
  return new SvcError(err.code, err.message, { issues: err.issues, details });
}

/** The chain a request selects: KO42 first, then the given operators or the domain's default. */
export function selectChain(req: ComputeRequest): { domain: DomainDef; defs: OperatorDef[]; defaulted: boolean } {
  const domain = resolveDomain(req.domain);
  if (!domain) {
    throw new SvcError('INVALID_INPUT', `unknown domain '${req.domain}'; GET /api/domains lists the 67 domains (name, slug or code)`, {
      issues: [{ path: 'domain', message: 'not a catalogued domain' }],
    });
  }
  const requested = (req.operators ?? []).map((s) => s.trim()).filter((s) => s.toUpperCase() !== BASE_OPERATOR);
  const unique = [...new Set(requested.map((s) => s.toUpperCase()))];
  if (unique.length > MAX_EXTRA_OPERATORS) {
    throw new SvcError('INVALID_INPUT', `KO42 plus at most ${MAX_EXTRA_OPERATORS} operators (${unique.length} given)`, {
      issues: [{ path: 'operators', message: `at most ${MAX_EXTRA_OPERATORS} besides KO42` }],
    });
  }
  const unknown = unique.filter((id) => !getOperator(id));
  if (unknown.length) {
    throw new SvcError('INVALID_INPUT', `unknown operator ${unknown.join(', ')}; GET /api/operators/search?term= finds operators`, {
      issues: unknown.map((id) => ({ path: 'operators', message: `no operator ${id}` })),
    });
  }
  const ko42 = getOperator(BASE_OPERATOR)!;
  let defs = unique.map((id) => getOperator(id)!);
  let defaulted = false;
  if (!defs.length) {
    const d = getOperator(domain.defaultOperator) ?? domainOperators(domain)[0];
    if (d.id !== BASE_OPERATOR) defs = [d];
    defaulted = true;
  }
  return { domain, defs: [ko42, ...defs], defaulted };
}

/** Runs the protocol at instant t. Throws SvcError (with `protocol` in its details) on refusal. */
export function runComputeProtocol(req: ComputeRequest, t: number): ComputeOutcome {
  const steps: ProtocolStep[] = [];
  const S = 1;

  // SELECT
  let sel: ReturnType<typeof selectChain>;
  try {
    sel = selectChain(req);
  } catch (e) {
    throw e instanceof SvcError ? fail(steps, 'SELECT', e) : e;
  }
  const { domain, defs, defaulted } = sel;
  const chain = defs.map((d) => d.id);
  steps.push({ step: 'SELECT', ok: true, detail: { domain: domain.name, chain, defaultOperator: defaulted ? domain.defaultOperator : null } });

  // BIND: keys only (KO42's S comes from the chain weights, not from the caller)
  const raw = req.inputs ?? {};
  const bindable = defs.filter((d) => d.id !== BASE_OPERATOR);
  const accepted = new Set(bindable.flatMap((d) => Object.keys(d.inputs)));
  const problems: GateProblem[] = [];
  for (const k of Object.keys(raw)) {
    if (!accepted.has(k)) problems.push({ key: k, reason: 'unknown-key', message: `unknown input key '${k}'; accepted: ${[...accepted].sort().join(', ') || '(none)'}` });
  }
  for (const d of bindable) {
    for (const [k, unit] of Object.entries(d.inputs)) {
      if (!Object.prototype.hasOwnProperty.call(raw, k)) problems.push({ key: k, reason: 'missing', message: `${d.id} needs '${k}' (${unit})`, operator: d.id });
    }
  }
  if (problems.length) throw fail(steps, 'BIND', gateError(problems, 'BIND refused the inputs'));
  const binding: Record<string, string[]> = {};
  for (const d of bindable) for (const k of Object.keys(d.inputs)) (binding[k] ??= []).push(d.id);
  steps.push({ step: 'BIND', ok: true, detail: { binding, S } });

  // VALIDATE: dimensions and finiteness against each operator's declared unit
  const bound: Record<string, Record<string, number>> = { [BASE_OPERATOR]: { S } };
  for (const d of bindable) {
    const vals: Record<string, number> = {};
    for (const [k, unit] of Object.entries(d.inputs)) {
      const r = convertInput(k, raw[k], unit, d.id);
      if ('problem' in r) problems.push(r.problem);
      else vals[k] = r.value;
    }
    bound[d.id] = vals;
  }
  if (problems.length) throw fail(steps, 'VALIDATE', gateError(problems, 'the dimensional gate refused the inputs'));
  steps.push({
    step: 'VALIDATE', ok: true,
    detail: { checked: Object.fromEntries(bindable.map((d) => [d.id, Object.fromEntries(Object.entries(d.inputs).map(([k, u]) => [k, { value: bound[d.id][k], unit: u }]))])) },
  });

  // COMPUTE
  const values: Record<string, number> = {};
  try {
    for (const d of defs) {
      const v = evaluateWithUnits(d, bound[d.id]);
      if (!Number.isFinite(v)) throw gateError([{ key: d.id, reason: 'non-finite', message: `${d.id} is not finite for these inputs (${v})` }], 'COMPUTE produced a non-finite value');
      values[d.id] = v;
    }
  } catch (e) {
    throw e instanceof SvcError ? fail(steps, 'COMPUTE', e) : e;
  }
  steps.push({ step: 'COMPUTE', ok: true, detail: { values: Object.fromEntries(defs.map((d) => [d.id, { value: values[d.id], unit: d.output.unit }])) } });

  // VERIFY: independent SI-float path
  const outcomes: OperatorOutcome[] = [];
  let worst = 0;
  try {
    for (const d of defs) {
      const check = evaluateSI(d, bound[d.id]);
      const gap = relativeDiffPct(values[d.id], check);
      worst = Math.max(worst, gap);
      outcomes.push({
        id: d.id, name: d.name, domain: d.domain, equation: d.equation,
        inputs: Object.fromEntries(Object.entries(d.inputs).map(([k, u]) => [k, { value: bound[d.id][k], unit: u }])),
        value: values[d.id], unit: d.output.unit, verifiedValue: check, errorPct: gap,
      });
    }
  } catch (e) {
    throw e instanceof SvcError ? fail(steps, 'VERIFY', e) : e;
  }
  const withinBound = worst <= VERIFY_BOUND_PCT;
  if (!withinBound) {
    throw fail(steps, 'VERIFY', new SvcError('PRECISION_REFUSED', `VERIFY: the unit path and the SI path differ by ${worst}% (bound ${VERIFY_BOUND_PCT}%); nothing is sealed`, {
      details: { value: null, precision: { errorPct: worst, boundPct: VERIFY_BOUND_PCT } },
    }));
  }
  steps.push({ step: 'VERIFY', ok: true, detail: { errorPct: worst, boundPct: VERIFY_BOUND_PCT, method: 'independent SI-float recomputation' } });

  // PULSE
  const pulse = pulseAt(t, S);
  steps.push({ step: 'PULSE', ok: true, detail: { t: pulse.t, svcond: pulse.svcond, phase: pulse.phase, R_t: pulse.R_t, S } });

  // RETURN
  const primary = outcomes.find((o) => o.id !== BASE_OPERATOR) ?? outcomes[0];
  steps.push({ step: 'RETURN', ok: true, detail: { primary: primary.id, value: primary.value, unit: primary.unit, receiptVersion: 2 } });

  return {
    domain, chain, primary, operators: outcomes, protocol: steps, pulse, S,
    precision: { errorPct: worst, boundPct: VERIFY_BOUND_PCT, reference: 'independent SI-float recomputation of every operator', withinBound },
  };
}
