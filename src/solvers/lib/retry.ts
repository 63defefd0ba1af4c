// Refusals that say how to succeed (issue 29): the advice of a method whose error falls like
// h^p in a step or cell size h (or like N^−p in a count N: grid intervals, elements, steps). From the
// run's own error e at the caller's setting v, the setting predicted to meet a target (a quarter of the
// bound: the model is asymptotic) is v·(target/e)^(1/p) for a step, v·(e/target)^(1/p) for a count;
// the predicted error is e·(v'/v)^(±p). Orders are the method's formal order, taken on the low side
// where the observed one is higher, so the prediction errs toward a finer setting. No advice when the
// schema's range cannot reach the target (then the refusal says what failed, not what would pass).
import type { RetryAdvice } from '../types.ts';

export interface OrderModel {
  field: string;
  /** the setting of this run */
  value: number;
  errorPct: number;
  boundPct: number;
  /** the error's order in the setting */
  order: number;
  /** 'step': smaller is finer (dt, a tolerance); 'count': larger is finer (grid intervals, elements, steps) */
  kind: 'step' | 'count';
  /** the schema's limits of the field */
  min?: number;
  max?: number;
  integer?: boolean;
  /** how the work grows with refinement: work ∝ (v/v')^costPower for a step, (v'/v)^costPower for a count (default 1) */
  costPower?: number;
  /** the fraction of the bound aimed at (default 0.25) */
  target?: number;
  /** other fields to send with it (the same question kept, say) */
  also?: (v: number) => Record<string, unknown>;
}

export function retryByOrder(m: OrderModel): RetryAdvice | undefined {
  const { value: v, errorPct: e, boundPct: b, order: p } = m;
  if (!(Number.isFinite(e) && e > b && v > 0 && p > 0)) return undefined;
  const target = (m.target ?? 0.25) * b;
  const ratio = Math.pow(target / e, 1 / p); // < 1
  let next = m.kind === 'step' ? v * ratio : v / ratio;
  if (m.integer) next = m.kind === 'step' ? Math.floor(next) : Math.ceil(next);
  else next = Number((m.kind === 'step' ? next * 0.999 : next * 1.001).toPrecision(3));
  if (m.min !== undefined && next < m.min) next = m.min;
  if (m.max !== undefined && next > m.max) next = m.max;
  if (next === v) return undefined;
  const refine = m.kind === 'step' ? v / next : next / v; // > 1
  const predictedErrorPct = e / Math.pow(refine, p);
  if (!(predictedErrorPct < b)) return undefined;
  return {
    inputs: { [m.field]: next, ...(m.also ? m.also(next) : {}) },
    predictedErrorPct,
    predictedCost: { [m.field]: next, relativeToThisRun: Math.pow(refine, m.costPower ?? 1) },
  };
}

/** `{retryWith}` when there is advice, else nothing (to spread into a solver's output) */
export function optionalRetry(a: RetryAdvice | undefined): { retryWith: RetryAdvice } | Record<string, never> {
  return a ? { retryWith: a } : {};
}

/** For a deterministic solver whose run is cheap: the advice confirmed by running it (and, while
 * the model's asymptotic prediction falls short, the advice of that run, up to `tries` times), so
 * the predicted error is the error calling again will report. Undefined when no confirmed advice
 * exists. */
export function confirmedRetry<I extends Record<string, unknown>>(
  input: I, first: { retryWith?: RetryAdvice },
  rerun: (inp: I) => { precision: { withinBound: boolean; errorPct: number }; retryWith?: RetryAdvice },
  tries = 4,
): RetryAdvice | undefined {
  let advice = first.retryWith;
  let merged: Record<string, unknown> = {};
  for (let k = 0; k < tries && advice; k++) {
    merged = { ...merged, ...advice.inputs };
    const o = rerun({ ...input, ...merged } as I);
    if (o.precision.withinBound) return { inputs: merged, predictedErrorPct: o.precision.errorPct, ...(advice.predictedCost ? { predictedCost: advice.predictedCost } : {}) };
    advice = o.retryWith;
  }
  return undefined;
}
