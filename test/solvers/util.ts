// Shared assertions for solver tests.
import assert from 'node:assert/strict';

/** Runs a solver and accepts either a SolverRefusal or an output whose every number is finite. */
export function assertFiniteOrRefused(solveFn: () => any, label: string): void {
  let out: any;
  try { out = solveFn(); } catch (e: any) {
    assert.equal(e?.name, 'SolverRefusal', `${label}: threw ${e?.message}`);
    return;
  }
  const walk = (x: unknown, path: string): void => {
    if (typeof x === 'number') assert.ok(Number.isFinite(x), `${label}: ${path} = ${x}`);
    else if (Array.isArray(x)) x.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) walk(v, `${path}.${k}`);
  };
  walk({ value: out.value, result: out.result, precision: out.precision, series: out.series, stability: out.stability }, 'out');
}
