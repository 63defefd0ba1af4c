// opt with a user objective vs scipy.optimize.minimize (SciPy's Nelder-Mead, BFGS and L-BFGS-B) on
// the acceptance problems (test/solvers/opt-problems.ts), one run: function and gradient
// evaluations, iterations, CPU time per solve, and the distance between the two answers.
//   ours   the whole solver call: parsing and compiling the expression, the minimisation with
//          automatic gradients, and the certificate (a fresh f and gradient at the returned x)
//   SciPy  minimize() with the objective and its analytic gradient hand-written in NumPy
//          (bench/opt_ref.py), same stopping rules (gtol 1e-8, xatol = fatol = 1e-10)
// Times are process CPU time (Node: process.cpuUsage, Python: time.process_time), best of
// BENCH_REPS rounds, each round timing a batch of calls lasting at least 20 ms, after a warm-up of
// at least 250 ms (V8 tiers hot loops up as it has in a long-lived worker). Rounds alternate
// SciPy and ours so that a change in machine load hits both. Python runs with OPENBLAS_NUM_THREADS=1
// (and OMP/MKL): SciPy's L-BFGS-B calls LAPACK on 2m×2m matrices, and threaded OpenBLAS's spinning
// worker threads otherwise add up to 300 ms of process CPU time to a 2 ms solve on this 2-core machine.
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptor, run } from '../src/solvers/opt.ts';
import { PROBLEMS, body, scipyCase, type Method, type OptProblem } from '../test/solvers/opt-problems.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.BENCH_REPS ?? 3);
const ctx = { seed: 1, progress() {} };

function cpu<T>(fn: () => T): { seconds: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { seconds: (c.user + c.system) / 1e6, value };
}

const cases: { p: OptProblem; m: Method; input: any }[] = [];
for (const p of PROBLEMS) for (const m of p.methods) cases.push({ p, m, input: descriptor.input.parse(body(p, m)) });

// warm-up
const w0 = performance.now();
while (performance.now() - w0 < 250) for (const c of cases) run(c.input, ctx);

const PY_ENV = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
const scipy = spawnSync('python3', ['-c', 'import scipy'], { encoding: 'utf8' });
const haveScipy = scipy.status === 0;
const best = cases.map(() => Infinity), bestRef = cases.map(() => Infinity);
const outs: any[] = [];
let ref: any[] | null = null, scipyVersion = '';
for (let r = 0; r < REPS; r++) {
  if (haveScipy) {
    const py = spawnSync('python3', [join(HERE, 'opt_ref.py'), JSON.stringify({ reps: 3, cases: cases.map((c) => scipyCase(c.p, c.m)) })], { encoding: 'utf8', maxBuffer: 1 << 24, env: PY_ENV });
    if (py.status !== 0) throw new Error(py.stderr);
    const o = JSON.parse(py.stdout);
    ref = o.cases; scipyVersion = o.scipy;
    o.cases.forEach((c: any, i: number) => { bestRef[i] = Math.min(bestRef[i], c.seconds); });
  }
  cases.forEach((c, i) => {
    const once = cpu(() => run(c.input, ctx));
    const batch = once.seconds >= 0.02 ? 1 : Math.min(1000, Math.ceil(0.02 / Math.max(once.seconds, 1e-5)));
    const t = cpu(() => { let v: any; for (let k = 0; k < batch; k++) v = run(c.input, ctx); return v; });
    best[i] = Math.min(best[i], t.seconds / batch);
    outs[i] = t.value;
  });
}

const fmt = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : `${(s * 1e3).toFixed(2)} ms`);
const rows: string[][] = [['problem', 'method', 'nfev ours/SciPy', 'njev ours/SciPy', 'nit ours/SciPy', 'CPU ours', 'CPU SciPy', 'SciPy/ours', '|x − x_SciPy|∞', 'certificate']];
const sums: Record<string, { ours: number; ref: number; nfev: number; nfevRef: number; njev: number; njevRef: number; ratios: number[] }> = {};
cases.forEach((c, i) => {
  const o = outs[i], s = ref?.[i];
  const x = c.p.vars.map((v) => o.result.x[v]);
  const dx = s ? Math.max(...x.map((v: number, k: number) => Math.abs(v - s.x[k]))) : NaN;
  const cert = o.result.certificate;
  const agg = (sums[c.m] ??= { ours: 0, ref: 0, nfev: 0, nfevRef: 0, njev: 0, njevRef: 0, ratios: [] });
  agg.ours += best[i]; agg.nfev += o.result.nfev; agg.njev += o.result.njev;
  if (s) { agg.ref += bestRef[i]; agg.nfevRef += s.nfev; agg.njevRef += s.njev; agg.ratios.push(bestRef[i] / best[i]); }
  rows.push([
    c.p.label, c.m,
    `${o.result.nfev}/${s ? s.nfev : '-'}`, `${o.result.njev}/${s ? s.njev : '-'}`, `${o.result.nit}/${s ? s.nit : '-'}`,
    fmt(best[i]), s ? fmt(bestRef[i]) : 'scipy missing', s ? `${(bestRef[i] / best[i]).toFixed(1)}x` : '-',
    s ? dx.toExponential(1) : '-',
    `${Math.max(cert.projectedGradientNorm, cert.kktResidual ?? 0).toExponential(1)} <= ${cert.tolerance.toExponential(0)} ${o.precision.withinBound ? 'ok' : 'OUT'}`,
  ]);
});
for (const [m, a] of Object.entries(sums)) {
  const r = a.ratios.sort((p, q) => p - q), median = r.length ? (r.length % 2 ? r[(r.length - 1) / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2) : NaN;
  rows.push([`all (${m})`, m, `${a.nfev}/${a.nfevRef}`, `${a.njev}/${a.njevRef}`, '', fmt(a.ours), haveScipy ? fmt(a.ref) : '-',
    haveScipy ? `${(a.ref / a.ours).toFixed(1)}x (median ${median.toFixed(1)}x, range ${r[0].toFixed(1)}-${r[r.length - 1].toFixed(1)}x)` : '-', '', '']);
}
const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log(`opt (user objectives) vs scipy.optimize.minimize ${haveScipy ? scipyVersion : '(python3 + scipy not installed: ours only)'}; ratio = SciPy CPU / ours (> 1: we are faster)`);
for (const r of rows) console.log(r.map((c, j) => c.padEnd(widths[j])).join('  '));
