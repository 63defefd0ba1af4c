// Shared assertions for solver tests.
import assert from 'node:assert/strict';

/** Runs a solver and accepts either a SvcError or an output whose every number is finite. */
export function assertFiniteOrRefused(solveFn: () => any, label: string): void {
  let out: any;
  try { out = solveFn(); } catch (e: any) {
    assert.equal(e?.name, 'SvcError', `${label}: threw ${e?.message}`);
    return;
  }
  const walk = (x: unknown, path: string): void => {
    if (typeof x === 'number') assert.ok(Number.isFinite(x), `${label}: ${path} = ${x}`);
    else if (Array.isArray(x)) x.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) walk(v, `${path}.${k}`);
  };
  walk({ value: out.value, result: out.result, precision: out.precision, series: out.series, stability: out.stability }, 'out');
}

/** Dense Gaussian elimination with partial pivoting: the independent reference. */
export function denseSolve(A: number[][], d: ArrayLike<number>): number[] {
  const n = d.length;
  const M = A.map((row, i) => [...row, d[i]]);
  for (let k = 0; k < n; k++) {
    let piv = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(M[i][k]) > Math.abs(M[piv][k])) piv = i;
    [M[k], M[piv]] = [M[piv], M[k]];
    for (let i = k + 1; i < n; i++) {
      const f = M[i][k] / M[k][k];
      for (let j = k; j <= n; j++) M[i][j] -= f * M[k][j];
    }
  }
  const x = new Array(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = M[i][n];
    for (let j = i + 1; j < n; j++) s -= M[i][j] * x[j];
    x[i] = s / M[i][i];
  }
  return x;
}
