// The error estimate is honest: over 100 random linear systems y' = A·y with known solutions
// (A = V·diag(λ)·V⁻¹ with real eigenvalues, so y(T) = V·diag(e^{λT})·V⁻¹·y0), the true error at
// tEnd is within 10× of the reported estimate in at least 95 % of them. Methods, sizes,
// tolerances, spectra and horizons vary; the comparison uses the same scaled measure as
// precision.errorPct.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/ode.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { denseSolve } from './util.ts';

const ctx = { seed: 1, progress() {} };
const METHODS = ['RK45', 'DOP853', 'Radau', 'BDF'] as const;

test('over 100 random linear systems the true error is within 10× of the estimate in ≥ 95 %', () => {
  const rng = createRng(20240607);
  const u = (a: number, b: number) => a + (b - a) * rng.next();
  const ratios: { method: string; n: number; rtol: number; ratio: number }[] = [];
  for (let c = 0; c < 100; c++) {
    const method = METHODS[c % 4];
    const n = 2 + rng.int(4);
    // well-conditioned eigenvectors: V = I + 0.5·(random); eigenvalues in [−5, 0.5] (the stiff
    // methods also get a fast mode down to −500)
    const V = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0) + 0.5 * u(-1, 1)));
    const lam = Array.from({ length: n }, () => u(-5, 0.5));
    if (method === 'Radau' || method === 'BDF') lam[0] = -u(50, 500);
    // A = V·diag(λ)·V⁻¹: columns of V⁻¹ by solving V·w = e_k
    const Vinv = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let k = 0; k < n; k++) {
      const col = denseSolve(V, Array.from({ length: n }, (_, i) => (i === k ? 1 : 0)));
      for (let i = 0; i < n; i++) Vinv[i][k] = col[i];
    }
    const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let k = 0; k < n; k++) s += V[i][k] * lam[k] * Vinv[k][j];
      return s;
    }));
    const y0 = Array.from({ length: n }, () => u(-1, 1));
    const T = u(1, 5);
    const rtol = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8][rng.int(5)];
    const atol = rtol * 1e-3;
    // exact y(T) = V·diag(e^{λT})·(V⁻¹·y0)
    const w = Vinv.map((row) => row.reduce((s, v, j) => s + v * y0[j], 0));
    const exact = V.map((row) => row.reduce((s, v, k) => s + v * Math.exp(lam[k] * T) * w[k], 0));
    const states = Array.from({ length: n }, (_, i) => `y${i}`);
    const equations: Record<string, string> = {}, params: Record<string, number> = {}, init: Record<string, number> = {};
    states.forEach((s, i) => {
      equations[s] = states.map((sj, j) => `a${i}_${j}*${sj}`).join(' + ');
      states.forEach((_, j) => { params[`a${i}_${j}`] = A[i][j]; });
      init[s] = y0[i];
    });
    const out = run(descriptor.input.parse({ equations, y0: init, params, tSpan: [0, T], method, rtol, atol, sample: 2 }), ctx);
    const yEnd = (out.result as any).yEnd as Record<string, number>;
    let trueRel = 0;
    states.forEach((s, i) => { trueRel = Math.max(trueRel, Math.abs(yEnd[s] - exact[i]) / Math.max(Math.abs(yEnd[s]), atol / rtol)); });
    const est = out.precision.errorPct / 100;
    ratios.push({ method, n, rtol, ratio: est / trueRel });
  }
  const good = ratios.filter((r) => r.ratio >= 0.1 && r.ratio <= 10);
  const bad = ratios.filter((r) => !(r.ratio >= 0.1 && r.ratio <= 10));
  const sorted = ratios.map((r) => r.ratio).sort((a, b) => a - b);
  console.log(`honesty: ${good.length}/100 within 10x; ratio estimate/true: min ${sorted[0].toExponential(2)}, median ${sorted[50].toFixed(3)}, max ${sorted[99].toExponential(2)}`);
  for (const m of METHODS) {
    const rs = ratios.filter((r) => r.method === m).map((r) => r.ratio).sort((a, b) => a - b);
    console.log(`  ${m}: median ${rs[12].toFixed(3)}, range [${rs[0].toExponential(2)}, ${rs[24].toExponential(2)}]`);
  }
  assert.ok(good.length >= 95, `only ${good.length}/100 within 10x: ${JSON.stringify(bad)}`);
});
