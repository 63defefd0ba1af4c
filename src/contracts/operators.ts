// Catalogued operators on contract transitions. A transition may list operator ids; when the
// transition is considered, each is evaluated on the contract's numeric variables of the same
// names as the operator's inputs (numbers in the operator's declared units), its output becomes a
// guard symbol, and the ids join the fire's seal after KO42. KO42, the base operator of every
// chain, contributes R(t) of the fire's pulse (DESIGN §6): that is its output on a transition.
import { pulseAt, type Pulse } from '../core/clock.ts';
import { getOperator, evaluateSI } from '../operators/catalog.ts';
import type { VarValue } from './definition.ts';

export const BASE_OPERATOR = 'KO42';

const isBase = (id: string) => id.toUpperCase() === BASE_OPERATOR;

/** Input keys of an operator usable on a transition, or undefined when it is not catalogued. */
export function operatorInputs(id: string): string[] | undefined {
  if (isBase(id)) return [];
  try {
    const def = getOperator(id);
    return def ? Object.keys(def.inputs) : undefined;
  } catch {
    return undefined;
  }
}

/** The catalog's spelling of an operator id (ids are case-insensitive). */
export function canonicalOperatorId(id: string): string {
  if (isBase(id)) return BASE_OPERATOR;
  try {
    return getOperator(id)?.id ?? id;
  } catch {
    return id;
  }
}

/** The seal's operator chain for a transition: KO42 first, then the transition's operators. */
export function sealOperators(ids: string[] | undefined): string[] {
  const out = [BASE_OPERATOR];
  for (const id of ids ?? []) {
    const c = canonicalOperatorId(id);
    if (!out.includes(c)) out.push(c);
  }
  return out;
}

/** Evaluates a transition's operators on the contract's numeric variables; keys are the ids as
 * the definition writes them. Throws Error when an input is missing or the value is not finite. */
export function evaluateContractOperators(ids: string[], variables: Record<string, VarValue>, pulse: Pulse): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of ids) {
    if (isBase(id)) { out[id] = pulse.R_t; continue; }
    const def = getOperator(id);
    if (!def) throw new Error(`unknown operator '${id}'`);
    const inputs: Record<string, number> = {};
    for (const k of Object.keys(def.inputs)) {
      const v = variables[k];
      if (typeof v !== 'number') throw new Error(`operator '${id}' needs the numeric variable '${k}'`);
      inputs[k] = v;
    }
    const v = evaluateSI(def, inputs);
    if (!Number.isFinite(v)) throw new Error(`operator '${id}' gave a non-finite value`);
    out[id] = v;
  }
  return out;
}

/** An evaluator bound to the pulse at t (for pure runs: tests, the generator's self-check). */
export function operatorEvaluatorAt(t: number) {
  const pulse = pulseAt(t);
  return (ids: string[], variables: Record<string, VarValue>) => evaluateContractOperators(ids, variables, pulse);
}
