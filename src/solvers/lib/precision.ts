// How every solver reports its distance to a reference (DESIGN §10): `precisionOf` is the one
// place the `withinBound` rule is written, `relErrPct` the one relative error.
import type { Precision } from '../types.ts';

/** |value − ref| / |ref| in percent; 0 when equal; 100 when ref is (numerically) zero but value is not. */
export function relErrPct(value: number, ref: number): number {
  const diff = Math.abs(value - ref);
  if (diff === 0) return 0;
  const scale = Math.abs(ref);
  if (scale < 1e-300) return diff < 1e-300 ? 0 : 100;
  return (diff / scale) * 100;
}

/** The `precision` block of a solver output. `withinBound` is `errorPct <= boundPct` (a NaN error
 * is never within bound), and also requires `alsoHolds` when a solver has a second check (a
 * conserved mass, a sign count) that must hold as well. `boundPct` defaults to 0.1 %. */
export function precisionOf(p: {
  errorPct: number;
  boundPct?: number;
  reference: string;
  referenceValue?: number;
  certificate?: string;
  alsoHolds?: boolean;
}): Precision {
  const boundPct = p.boundPct ?? 0.1;
  const out: Precision = {
    errorPct: p.errorPct,
    boundPct,
    reference: p.reference,
    withinBound: p.errorPct <= boundPct && (p.alsoHolds ?? true),
  };
  if (p.referenceValue !== undefined) out.referenceValue = p.referenceValue;
  if (p.certificate !== undefined) out.certificate = p.certificate;
  return out;
}
