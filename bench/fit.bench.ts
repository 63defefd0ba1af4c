// svc_fit vs scipy.optimize.least_squares on the NIST StRD nonlinear regression problems (27
// datasets × 2 starts × methods lm and trf): CPU time per fit, evaluations, and the digits each
// reaches of NIST's certified values.
//   ours   fitModel(): parsing and compiling the expression with its exact Jacobian, the solve,
//          and the covariance from the SVD of J (the whole fit but the certificate); the full
//          solver call with the certificate is reported beside it
//   SciPy  least_squares(method, ftol = xtol = gtol = 1e-15, max_nfev 10000) with the model and
//          its exact Jacobian built by SymPy beforehand (bench/fit_ref.py), not counting that build
// Times are process CPU time (Node: process.cpuUsage, Python: time.process_time), best of
// BENCH_REPS rounds, each timing a batch of calls lasting at least 20 ms, after a warm-up of at
// least 250 ms. Python runs with OPENBLAS_NUM_THREADS=1. The ratio is SciPy / ours (> 1: ours is faster).
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptor, run, fitModel } from '../src/solvers/fit.ts';
import { readStrd, strdBody, STRD_NAMES, lre } from '../test/solvers/strd.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.BENCH_REPS ?? 3);
const ctx = { seed: 1, progress() {} };

function cpuPerCall(fn: () => unknown): number {
  let k = 1;
  for (;;) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < k; i++) fn();
    const c = process.cpuUsage(c0);
    const s = (c.user + c.system) / 1e6;
    if (s >= 0.02 || k >= 4096) return s / k;
    k *= 4;
  }
}

const cases = STRD_NAMES.flatMap((name) => {
  const p = readStrd(name);
  return ([1, 2] as const).flatMap((start) => (['lm', 'trf'] as const).map((method) => ({ p, start, method, body: { ...strdBody(p, start), method } })));
});

const w0 = performance.now();
while (performance.now() - w0 < 250) for (const c of cases) fitModel(c.body);

const PY_ENV = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
const haveScipy = spawnSync('python3', ['-c', 'import scipy'], { encoding: 'utf8' }).status === 0;
const spec = { reps: 1, tol: 1e-15, max_nfev: 10000, cases: cases.map((c) => ({ name: c.p.name, model: c.p.model, params: c.p.params, x: c.p.x, y: c.p.y, p0: c.start === 1 ? c.p.start1 : c.p.start2, method: c.method })) };

const ours = cases.map(() => Infinity), full = cases.map(() => Infinity), theirs = cases.map(() => Infinity);
let scipyOut: any = null;
for (let rep = 0; rep < REPS; rep++) {
  if (haveScipy) {
    const py = spawnSync('python3', [join(HERE, 'fit_ref.py')], { input: JSON.stringify(spec), encoding: 'utf8', maxBuffer: 1 << 26, env: PY_ENV });
    if (py.status !== 0) throw new Error(py.stderr);
    scipyOut = JSON.parse(py.stdout);
    scipyOut.cases.forEach((o: any, i: number) => { if (o.seconds !== null && o.seconds !== undefined) theirs[i] = Math.min(theirs[i], o.seconds); });
  }
  cases.forEach((c, i) => {
    ours[i] = Math.min(ours[i], cpuPerCall(() => fitModel(c.body)));
    const parsed = descriptor.input.parse(c.body);
    full[i] = Math.min(full[i], cpuPerCall(() => run(parsed, ctx)));
  });
}

const digits = (v: number[], ref: number[]) => Math.min(...v.map((x, j) => lre(x, ref[j])));
const rows: string[] = [];
let sumOurs = 0, sumFull = 0, sumTheirs = 0, nfevOurs = 0, nfevTheirs = 0, reachedOurs = 0, reachedTheirs = 0;
cases.forEach((c, i) => {
  const r = fitModel(c.body);
  const od = Math.min(digits(r.params, c.p.certified), digits(r.stderr, c.p.certifiedSd));
  const s = scipyOut?.cases[i];
  const sd = s && !s.error && s.sd.every((v: any) => v !== null) ? Math.min(digits(s.params, c.p.certified), digits(s.sd, c.p.certifiedSd)) : NaN;
  if (od >= 6) reachedOurs++;
  if (sd >= 6) reachedTheirs++;
  sumOurs += ours[i]; sumFull += full[i];
  nfevOurs += r.solve.nfev;
  if (s && Number.isFinite(theirs[i])) { sumTheirs += theirs[i]; nfevTheirs += s.nfev; }
  rows.push([
    `${c.p.name} s${c.start} ${c.method}`.padEnd(18),
    `${(ours[i] * 1e3).toFixed(3).padStart(8)} ms`, `${(full[i] * 1e3).toFixed(3).padStart(8)} ms`,
    s ? `${(theirs[i] * 1e3).toFixed(3).padStart(8)} ms` : '       -',
    s ? `${(theirs[i] / ours[i]).toFixed(1).padStart(6)}×` : '     -',
    `nfev ${String(r.solve.nfev).padStart(5)} / ${s ? String(s.nfev).padStart(5) : '    -'}`,
    `digits ${od.toFixed(1).padStart(4)} / ${Number.isNaN(sd) ? '   -' : sd.toFixed(1).padStart(4)}`,
  ].join('  '));
});
console.log(`svc_fit vs scipy.optimize.least_squares ${scipyOut ? `${scipyOut.scipy} (jac: ${scipyOut.jac})` : '(SciPy not installed)'} on NIST StRD, CPU time per fit, best of ${REPS}; the machine is shared with other jobs`);
console.log('problem              fit (ours)   with cert.      SciPy   SciPy/ours   nfev ours/SciPy    digits ours/SciPy');
for (const r of rows) console.log(r);
console.log(`\ntotal: ours ${(sumOurs * 1e3).toFixed(1)} ms (with the certificate ${(sumFull * 1e3).toFixed(1)} ms), SciPy ${(sumTheirs * 1e3).toFixed(1)} ms: SciPy/ours = ${(sumTheirs / sumOurs).toFixed(2)} (with the certificate ${(sumTheirs / sumFull).toFixed(2)})`);
const ratios = cases.map((_, i) => theirs[i] / ours[i]).filter(Number.isFinite).sort((a, b) => a - b);
if (ratios.length) console.log(`per-fit ratio SciPy/ours: min ${ratios[0].toFixed(2)}, median ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}, max ${ratios[ratios.length - 1].toFixed(2)}`);
console.log(`model evaluations (all rows): ours ${nfevOurs}, SciPy ${nfevTheirs}; 6 certified digits (params and sd): ours ${reachedOurs}/${cases.length}, SciPy ${reachedTheirs}/${cases.length}`);
