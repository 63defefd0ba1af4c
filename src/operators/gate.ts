// The dimensional gate (spec: svc_compute "unrecognized input keys are rejected by the dimensional
// gate (value NaN)"). Every input is checked against its operator's declared unit with mathjs
// units. An input is either a plain number, taken in the declared unit, or a string with a unit
// ("3 km", "25 degC", "1.2e-3 mol/L"), converted to the declared unit when the dimensions agree.
// An unknown key, a missing key, a wrong dimension, an unparseable quantity or a non-finite
// number is refused: 422 DIMENSIONAL_GATE with value null and the offending keys named.
import { SvcError } from '../core/errors.ts';
import { umath, isUnit, toDeclared, dimensionsOf, describeDimension, isDimensionless } from './units.ts';
import type { OperatorDef } from './types.ts';

export type RawInput = number | string;
export type RawInputs = Record<string, unknown>;

export interface GateProblem {
  key: string;
  reason: 'unknown-key' | 'missing' | 'non-finite' | 'wrong-dimension' | 'bad-quantity';
  message: string;
  /** the operator whose declaration refused it */
  operator?: string;
}

/** Longest quantity string the gate parses ("6.02214076e23 mol^-1" is 20). */
export const MAX_QUANTITY_LENGTH = 64;
const QUANTITY_RE = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*((?:1\s*\/\s*)?[A-Za-z(][A-Za-z0-9 ^*/().\-]*)$/;

export function gateError(problems: GateProblem[], what = 'the dimensional gate refused the inputs'): SvcError {
  const keys = [...new Set(problems.map((p) => p.key))];
  return new SvcError('DIMENSIONAL_GATE', `${what}: ${problems.map((p) => p.message).join('; ')}`, {
    issues: problems.map((p) => ({ path: `inputs.${p.key}`, message: p.message })),
    details: { value: null, keys },
  });
}

/** Converts one raw input to a number in `unit`, or describes why it cannot. */
export function convertInput(key: string, raw: unknown, unit: string, operator?: string): { value: number } | { problem: GateProblem } {
  const bad = (reason: GateProblem['reason'], message: string) => ({ problem: { key, reason, message, operator } });
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return bad('non-finite', `${key} must be a finite number`);
    return { value: raw };
  }
  if (typeof raw !== 'string') return bad('bad-quantity', `${key} must be a number (in ${unit}) or a quantity string such as "3 km"`);
  const s = raw.trim();
  if (s.length > MAX_QUANTITY_LENGTH) return bad('bad-quantity', `${key}: a quantity string is at most ${MAX_QUANTITY_LENGTH} characters`);
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) {
    const v = Number(s);
    return Number.isFinite(v) ? { value: v } : bad('non-finite', `${key} must be finite`);
  }
  const m = QUANTITY_RE.exec(s);
  if (!m) return bad('bad-quantity', `${key}: '${s}' is not a number followed by a unit`);
  const num = Number(m[1]);
  if (!Number.isFinite(num)) return bad('non-finite', `${key} must be finite`);
  let q: unknown;
  try { q = umath().unit(num, m[2].trim()); } catch { return bad('bad-quantity', `${key}: '${s}' has a unit mathjs does not know`); }
  if (!isUnit(q) || (q as any).value === null) return bad('bad-quantity', `${key}: '${s}' has no numeric value`);
  const v = toDeclared(q, unit);
  if (v === null) {
    const want = isDimensionless(unit) ? 'dimensionless' : describeDimension(dimensionsOf(unit));
    return bad('wrong-dimension', `${key}: '${s}' is ${describeDimension(dimensionsOf(q))}, but ${key} is declared in ${unit} (${want})`);
  }
  if (!Number.isFinite(v)) return bad('non-finite', `${key} must be finite`);
  return { value: v };
}

/**
 * Binds raw inputs to the declared inputs of several operators at once (a compute chain shares
 * one `inputs` object). Keys no operator declares are refused; each operator takes the keys it
 * declares, converted to its own declared unit. Returns numbers in declared units, per operator.
 */
export function bindInputs(defs: OperatorDef[], raw: RawInputs, fixed: Record<string, Record<string, number>> = {}): Record<string, Record<string, number>> {
  const problems: GateProblem[] = [];
  const accepted = new Set<string>();
  for (const d of defs) for (const k of Object.keys(d.inputs)) if (!(fixed[d.id] && k in fixed[d.id])) accepted.add(k);
  for (const k of Object.keys(raw)) {
    if (!accepted.has(k)) {
      problems.push({ key: k, reason: 'unknown-key', message: `unknown input key '${k}'; accepted: ${[...accepted].sort().join(', ') || '(none)'}` });
    }
  }
  const out: Record<string, Record<string, number>> = {};
  for (const d of defs) {
    const bound: Record<string, number> = {};
    for (const [k, unit] of Object.entries(d.inputs)) {
      if (fixed[d.id] && k in fixed[d.id]) { bound[k] = fixed[d.id][k]; continue; }
      if (!Object.prototype.hasOwnProperty.call(raw, k)) {
        problems.push({ key: k, reason: 'missing', message: `${d.id} needs '${k}' (${unit})`, operator: d.id });
        continue;
      }
      const r = convertInput(k, raw[k], unit, d.id);
      if ('problem' in r) problems.push(r.problem);
      else bound[k] = r.value;
    }
    out[d.id] = bound;
  }
  if (problems.length) throw gateError(dedupe(problems));
  return out;
}

function dedupe(problems: GateProblem[]): GateProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.key}|${p.reason}|${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
