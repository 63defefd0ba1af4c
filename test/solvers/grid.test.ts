// grid: DC power flow checked by Kirchhoff balance, an analytic ring solution and an
// independent iterative solve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, buildNetwork } from '../../src/solvers/grid.ts';
import { SvcError } from '../../src/core/errors.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });
type Line = { from: number; to: number; x: number; flow: number };
const linesOf = (o: { result: Record<string, unknown> }): Line[] => {
  const l = o.result.lines as { from: number[]; to: number[]; x: number[]; flow: number[] };
  return l.flow.map((flow, k) => ({ from: l.from[k], to: l.to[k], x: l.x[k], flow }));
};

test('acceptance: line flows satisfy the power balance at every bus to 1e-9', () => {
  for (const [N, chords, seed] of [[3, 0, 1], [4, 2, 2], [30, 10, 3], [118, 60, 4], [300, 0, 5], [300, 400, 6], [300, 2000, 7]]) {
    const o = solve({ N, chords, reactance: 0.05 + seed * 0.01 }, seed);
    const P = o.result.injections as number[];
    const res = [...P];
    for (const l of linesOf(o)) { res[l.from] -= l.flow; res[l.to] += l.flow; }
    const worst = Math.max(...res.map(Math.abs));
    assert.ok(worst <= 1e-9, `N=${N} chords=${chords}: residual ${worst}`);
    assert.equal(o.precision.withinBound, true);
    assert.equal(linesOf(o).length, N + chords);
    assert.ok(Math.abs(P.reduce((s, p) => s + p, 0)) < 1e-12, 'injections sum to zero');
  }
});

test('a pure ring matches the analytic solution: flows differ by the injections and Σ x·f = 0 around the loop', () => {
  const o = solve({ N: 40, chords: 0, reactance: 0.2 }, 8);
  const lines = linesOf(o);
  const P = o.result.injections as number[];
  // line k joins bus k to k+1; KCL at bus k: f_k = f_{k−1} + P_k, so f_k = f_0 + Σ_{i=1..k} P_i;
  // KVL around the ring: Σ x_k·f_k = 0 fixes f_0.
  const N = 40;
  const cum = new Array(N).fill(0);
  for (let k = 1; k < N; k++) cum[k] = cum[k - 1] + P[k];
  const sx = lines.reduce((s, l) => s + l.x, 0);
  const f0 = -lines.reduce((s, l, k) => s + l.x * cum[k], 0) / sx;
  lines.forEach((l, k) => assert.ok(Math.abs(l.flow - (f0 + cum[k])) < 1e-11, `line ${k}`));
  const maxAbs = Math.max(...lines.map((l, k) => Math.abs(f0 + cum[k])));
  assert.ok(Math.abs(o.value - maxAbs) < 1e-11);
});

test('angles agree with an independent Gauss-Seidel solve of B·θ = P', () => {
  const o = solve({ N: 25, chords: 15, reactance: 0.1 }, 9);
  const lines = linesOf(o);
  const P = o.result.injections as number[];
  const theta = new Array(25).fill(0);
  const adj: [number, number][][] = Array.from({ length: 25 }, () => []);
  for (const l of lines) { adj[l.from].push([l.to, 1 / l.x]); adj[l.to].push([l.from, 1 / l.x]); }
  for (let sweep = 0; sweep < 20000; sweep++) {
    let change = 0;
    for (let i = 1; i < 25; i++) {
      let diag = 0, s = P[i];
      for (const [j, y] of adj[i]) { diag += y; s += y * theta[j]; }
      const v = s / diag;
      change = Math.max(change, Math.abs(v - theta[i]));
      theta[i] = v;
    }
    if (change < 1e-15) break;
  }
  (o.result.theta as number[]).forEach((t, i) => assert.ok(Math.abs(t - theta[i]) < 1e-10, `θ_${i}`));
  assert.equal((o.result.theta as number[])[0], 0, 'slack angle');
});

test('chords are distinct, non-adjacent and within range', () => {
  const net = buildNetwork(12, 54, 0.1, 3); // 54 = N(N−3)/2: every possible chord
  const seen = new Set<string>();
  for (let l = 12; l < net.from.length; l++) {
    const a = net.from[l], b = net.to[l];
    const d = Math.abs(a - b);
    assert.ok(d > 1 && d < 11, `chord ${a}-${b} is a ring edge`);
    const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
    assert.ok(!seen.has(key));
    seen.add(key);
  }
  assert.equal(seen.size, 54);
});

test('the same input and seed give identical bits', () => {
  assert.deepEqual(solve({ N: 50, chords: 20 }, 4), solve({ N: 50, chords: 20 }, 4));
  assert.notEqual(solve({ N: 50, chords: 20 }, 4).value, solve({ N: 50, chords: 20 }, 5).value);
});

test('bounds: N 3 to 300 by the schema; more chords than non-adjacent pairs is refused', () => {
  for (const bad of [{ N: 2 }, { N: 301 }, { chords: -1 }, { reactance: 0 }, { N: 10.5 }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.throws(() => solve({ N: 5, chords: 6 }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT');
});
