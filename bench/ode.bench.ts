// Benchmark: the ode solver against scipy.integrate.solve_ivp (bench/ode_ref.py), same method
// family and same tolerances, on Van der Pol μ = 1000 (t ≤ 3000), Robertson (t ≤ 1e5) and the
// Pleiades (t ≤ 3), in one run. Ours is timed three ways:
//   compile     the expressions through the sandbox into JS with the exact symbolic Jacobian
//               (lib/expr), once per request;
//   compile+solve  compile and one integration (lib/ivp): the work of one solve_ivp call;
//   run         the whole `ode` request: compile, solve, and the error-estimate re-solve at 100×
//               tighter tolerances (two integrations, the second one the costlier).
// SciPy gets the analytic Jacobian as a Python function for Radau and BDF (ours is the exact
// symbolic one) and a NumPy-vectorised Pleiades right-hand side. Times are process CPU time, best
// of N after a warm-up (Node: process.cpuUsage; Python: time.process_time), as in
// bench/discrete.bench.ts. Target: ratio SciPy/ours > 1 on every row.
// Run: node bench/ode.bench.ts
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptor, run, compileProblem } from '../src/solvers/ode.ts';
import { solveIvp } from '../src/solvers/lib/ivp.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ctx = { seed: 1, progress() {} };
const REPS = Number(process.env.BENCH_REPS ?? 5);

interface Problem { equations: Record<string, string>; y0: Record<string, number>; params?: Record<string, number>; tSpan: [number, number] }

const pleiades = (): Problem => {
  const x0 = [3, 3, -1, -3, 2, -2, 2], y0 = [3, -3, 2, 0, 0, -4, 4], u0 = [0, 0, 0, 0, 0, 1.75, -1.5], v0 = [0, 0, 0, -1.25, 1, 0, 0];
  const equations: Record<string, string> = {}, init: Record<string, number> = {};
  for (let i = 1; i <= 7; i++) { equations[`x${i}`] = `u${i}`; init[`x${i}`] = x0[i - 1]; }
  for (let i = 1; i <= 7; i++) { equations[`y${i}`] = `v${i}`; init[`y${i}`] = y0[i - 1]; }
  for (const [c, name, v] of [['x', 'u', u0], ['y', 'v', v0]] as const) {
    for (let i = 1; i <= 7; i++) {
      const terms: string[] = [];
      for (let j = 1; j <= 7; j++) if (j !== i) terms.push(`${j}*(${c}${j} - ${c}${i})/((x${j} - x${i})^2 + (y${j} - y${i})^2)^1.5`);
      equations[`${name}${i}`] = terms.join(' + ');
      init[`${name}${i}`] = v[i - 1];
    }
  }
  return { equations, y0: init, tSpan: [0, 3] };
};

const PROBLEMS: Record<string, Problem> = {
  vdp: { equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 1000 }, tSpan: [0, 3000] },
  rober: {
    equations: { y1: '-0.04*y1 + 1e4*y2*y3', y2: '0.04*y1 - 1e4*y2*y3 - 3e7*y2^2', y3: '3e7*y2^2' },
    y0: { y1: 1, y2: 0, y3: 0 }, tSpan: [0, 1e5],
  },
  plei: pleiades(),
};
const LABEL: Record<string, string> = { vdp: 'Van der Pol μ=1000, t≤3000', rober: 'Robertson, t≤1e5', plei: 'Pleiades, t≤3' };

const CASES = [
  { problem: 'vdp', method: 'Radau', rtol: 1e-6, atol: 1e-6 },
  { problem: 'vdp', method: 'BDF', rtol: 1e-6, atol: 1e-6 },
  { problem: 'rober', method: 'Radau', rtol: 1e-6, atol: 1e-10 },
  { problem: 'rober', method: 'BDF', rtol: 1e-6, atol: 1e-10 },
  { problem: 'plei', method: 'RK45', rtol: 1e-8, atol: 1e-8 },
  { problem: 'plei', method: 'DOP853', rtol: 1e-8, atol: 1e-8 },
] as const;

function cpu<T>(fn: () => T): { seconds: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { seconds: (c.user + c.system) / 1e6, value };
}

/** warm-up (at least 3 calls and 250 ms, so V8 has optimised the hot loops), then best of REPS;
 * a call under 20 ms is timed as the mean of a batch lasting at least 20 ms */
function bestOf<T>(fn: () => T): { seconds: number; value: T } {
  const w0 = performance.now();
  for (let w = 0; w < 3 || performance.now() - w0 < 250; w++) fn();
  const once = cpu(fn).seconds;
  const batch = once >= 0.02 ? 1 : Math.min(200, Math.ceil(0.02 / Math.max(once, 1e-5)));
  let best = Infinity, value!: T;
  for (let r = 0; r < REPS; r++) {
    const m = cpu(() => { let v!: T; for (let i = 0; i < batch; i++) v = fn(); return v; });
    best = Math.min(best, m.seconds / batch);
    value = m.value;
  }
  return { seconds: best, value };
}

const py = spawnSync('python3', [join(HERE, 'ode_ref.py'), JSON.stringify({ reps: REPS, cases: CASES })], { encoding: 'utf8', maxBuffer: 1 << 24 });
const ref: any[] | null = py.status === 0 ? JSON.parse(py.stdout) : null;
if (!ref) console.log(`SciPy reference failed or missing: ${(py.stderr || String(py.error)).trim().split('\n').pop()}`);

const fmt = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1e3).toFixed(2)} ms` : `${s.toFixed(2)} s`);
const rows: string[][] = [['problem', 'method', 'compile', 'compile+solve', 'nfev/njev/steps', 'run (+re-solve)', 'SciPy solve_ivp', 'nfev/njev/steps', 'SciPy/(compile+solve)', 'SciPy/run', 'max |Δy_end|']];
CASES.forEach((c, k) => {
  const p = PROBLEMS[c.problem];
  const states = Object.keys(p.equations);
  const y0 = states.map((s) => p.y0[s]);
  const compileOnly = bestOf(() => compileProblem(states, states.map((s) => p.equations[s]), p.params ?? {}, [], []));
  const solveOnly = bestOf(() => {
    const comp = compileProblem(states, states.map((s) => p.equations[s]), p.params ?? {}, [], []);
    return solveIvp(comp.sys, p.tSpan[0], p.tSpan[1], y0, { method: c.method, rtol: c.rtol, atol: c.atol });
  });
  const input = descriptor.input.parse({ ...p, method: c.method, rtol: c.rtol, atol: c.atol, sample: 2, boundPct: 100 });
  const full = bestOf(() => run(input, ctx));
  const s = solveOnly.value.stats;
  const r = ref?.[k];
  const dy = r ? Math.max(...y0.map((_, i) => Math.abs(solveOnly.value.yEnd[i] - r.y[i]))) : NaN;
  rows.push([
    LABEL[c.problem], c.method, fmt(compileOnly.seconds), fmt(solveOnly.seconds), `${s.nfev}/${s.njev}/${s.steps}`, fmt(full.seconds),
    r ? fmt(r.seconds) : '-', r ? `${r.nfev}/${r.njev}/${r.steps}` : '-',
    r ? `${(r.seconds / solveOnly.seconds).toFixed(1)}x` : '-', r ? `${(r.seconds / full.seconds).toFixed(1)}x` : '-',
    r ? dy.toExponential(1) : '-',
  ]);
});
const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log(`ode vs scipy.integrate.solve_ivp (SciPy ${spawnSync('python3', ['-c', 'import scipy; print(scipy.__version__)'], { encoding: 'utf8' }).stdout.trim() || '?'}), CPU time, best of ${REPS}; ratio > 1: ours faster`);
for (const r of rows) console.log(r.map((x, j) => x.padEnd(widths[j])).join('  '));
