// Small helpers every solver uses to report its distance to a reference.

/** |value − ref| / |ref| in percent; 0 when equal; 100 when ref is (numerically) zero but value is not. */
export function relErrPct(value: number, ref: number): number {
  const diff = Math.abs(value - ref);
  if (diff === 0) return 0;
  const scale = Math.abs(ref);
  if (scale < 1e-300) return diff < 1e-300 ? 0 : 100;
  return (diff / scale) * 100;
}
