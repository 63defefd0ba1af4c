// Benchmark for the user-data modes of kalman and epi (issue 24), one run, figures printed:
//   kalman  a 100,000-point constant-velocity track: filter, filter + RTS smoother; the same
//           recursion as a NumPy loop (bench/series_ref.py) timed in the same run, results compared
//   epi     coverage of the reported 95 % intervals over 100 seeds of synthetic Poisson data
//           (SIR Poisson, SIR least squares, a larger SIR outbreak, SEIR), CPU time per fit; five
//           SIR fits repeated with SciPy (solve_ivp + Nelder-Mead/Powell) for the estimates and time
// Times are process CPU time (Node: process.cpuUsage, Python: time.process_time).
// Run: node bench/series.bench.ts [seeds]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as kalman from '../src/solvers/kalman.ts';
import * as epi from '../src/solvers/epi.ts';
import { createRng } from '../src/solvers/lib/rng.ts';
import { expectedCases, noisyCases, type EpiTruth } from '../test/solvers/epi-synth.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ctx = { seed: 1, progress() {} };
const SEEDS = Number(process.argv[2] ?? 100);

function cpu<T>(fn: () => T): { seconds: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { seconds: (c.user + c.system) / 1e6, value };
}
const fmt = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1e3).toFixed(1)} ms` : `${s.toFixed(2)} s`);

// ---- kalman ----
const dt = 1, q = 0.05, r = 4, N = 100_000;
const model = { F: [[1, dt], [0, 1]], H: [[1, 0]], Q: [[q / 3, q / 2], [q / 2, q]], R: [[r]] };
const rng = createRng(5);
const LQ = [[Math.sqrt(q / 3), 0], [0, 0]];
LQ[1][0] = (q / 2) / LQ[0][0]; LQ[1][1] = Math.sqrt(q - LQ[1][0] ** 2);
let s = [0, 1];
const z: number[] = [];
for (let k = 0; k < N; k++) {
  if (k > 0) { const e = [rng.normal(), rng.normal()]; s = [s[0] + dt * s[1] + LQ[0][0] * e[0], s[1] + LQ[1][0] * e[0] + LQ[1][1] * e[1]]; }
  z.push(s[0] + Math.sqrt(r) * rng.normal());
}
const kIn = { ...model, x0: [0, 1], P0: [[100, 0], [0, 10]], measurements: z };
kalman.run(kalman.descriptor.input.parse({ ...kIn, measurements: z.slice(0, 2000), smooth: true }), ctx); // warm-up
const parseK = cpu(() => kalman.descriptor.input.parse({ ...kIn, smooth: true }));
const kf = cpu(() => kalman.run(kalman.descriptor.input.parse(kIn), ctx));
const ks = cpu(() => kalman.run(parseK.value, ctx));

// ---- epi ----
interface Scenario { label: string; truth: EpiTruth; fit: 'poisson' | 'least-squares'; model: 'sir' | 'seir' }
const scenarios: Scenario[] = [
  { label: 'SIR Poisson  N=1e5 80 d (the test)', truth: { beta: 0.4, gamma: 0.15, N: 1e5, I0: 10, days: 80 }, fit: 'poisson', model: 'sir' },
  { label: 'SIR LSQ      N=1e5 80 d', truth: { beta: 0.4, gamma: 0.15, N: 1e5, I0: 10, days: 80 }, fit: 'least-squares', model: 'sir' },
  { label: 'SIR Poisson  N=1e6 200 d', truth: { beta: 0.3, gamma: 0.1, N: 1e6, I0: 5, days: 200 }, fit: 'poisson', model: 'sir' },
  { label: 'SEIR Poisson N=1e5 150 d', truth: { beta: 0.5, gamma: 0.25, sigma: 0.2, N: 1e5, I0: 5, days: 150 }, fit: 'poisson', model: 'seir' },
];
const epiLines: string[] = [];
const sirForScipy: Array<{ cases: number[]; population: number; svc: Record<string, number>; svcSeconds: number }> = [];
for (const sc of scenarios) {
  const exp = expectedCases(sc.truth);
  const names = sc.model === 'seir' ? ['beta', 'gamma', 'sigma', 'I0'] : ['beta', 'gamma', 'I0'];
  const hits: Record<string, number> = Object.fromEntries([...names, 'R0', 'all'].map((k) => [k, 0]));
  let seconds = 0, worst = 0, outOfBound = 0, allWithin = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const cases = noisyCases(sc.truth, seed, exp);
    const t = cpu(() => epi.run(epi.descriptor.input.parse({ cases, population: sc.truth.N, model: sc.model, fit: sc.fit }), ctx));
    seconds += t.seconds;
    const fit = t.value.result.fit as Record<string, any>;
    let all = true;
    for (const k of [...names, 'R0']) {
      const v = k === 'R0' ? sc.truth.beta / sc.truth.gamma : (sc.truth as any)[k];
      const ci = fit.ci95[k];
      const inside = ci && ci[0] <= v && v <= ci[1];
      hits[k] += inside ? 1 : 0;
      if (k !== 'R0' && !inside) all = false;
    }
    hits.all += all ? 1 : 0;
    worst = Math.max(worst, t.value.precision.errorPct);
    if (!t.value.precision.withinBound) outOfBound++;
    else if (all) allWithin++;
    if (sc === scenarios[0] && seed <= 5) sirForScipy.push({ cases, population: sc.truth.N, svc: fit, svcSeconds: t.seconds });
  }
  epiLines.push(`  ${sc.label}: 95 % CI coverage ${names.map((k) => `${k} ${hits[k]}`).join(', ')}, R0 ${hits.R0}, all ${hits.all} of ${SEEDS}; ` +
    `${fmt(seconds / SEEDS)} CPU per fit (with refit); refit errorPct max ${worst.toExponential(1)} %; withinBound false: ${outOfBound}` +
    (outOfBound ? ` (all parameters covered in ${allWithin} of the ${SEEDS - outOfBound} fits within bound)` : ''));
}

// ---- references ----
const dir = mkdtempSync(join(tmpdir(), 'series-bench-'));
const specPath = join(dir, 'spec.json');
writeFileSync(specPath, JSON.stringify({ kalman: kIn, epi: { cases: sirForScipy.map(({ cases, population }) => ({ cases, population })) } }));
const py = spawnSync('python3', [join(HERE, 'series_ref.py'), specPath], { encoding: 'utf8', maxBuffer: 1 << 26 });
rmSync(dir, { recursive: true, force: true });

console.log(`kalman: ${N} measurements, constant-velocity model (n = 2, m = 1)`);
console.log(`  svc  parse ${fmt(parseK.seconds)}; filter ${fmt(kf.seconds)}; filter + RTS smoother ${fmt(ks.seconds)} CPU; mean NIS ${kf.value.value.toFixed(5)} in [${(kf.value.result.nis as any).lower95.toFixed(5)}, ${(kf.value.result.nis as any).upper95.toFixed(5)}]`);
if (py.status !== 0) {
  console.log(`  NumPy/SciPy reference failed: ${py.stderr.trim().split('\n').pop()}`);
} else {
  const ref = JSON.parse(py.stdout.trim().split('\n').pop()!);
  const k = ref.kalman;
  const filtered = ks.value.result.filtered as Array<{ x: number[] }>, smoothed = ks.value.result.smoothed as Array<{ x: number[] }>;
  const idx = [0, N / 2, N - 1];
  let dmax = 0;
  idx.forEach((i, j) => { for (let a = 0; a < 2; a++) dmax = Math.max(dmax, Math.abs(filtered[i].x[a] - k.filtered[j][a]), Math.abs(smoothed[i].x[a] - k.smoothed[j][a])); });
  console.log(`  NumPy loop  filter ${fmt(k.filterSeconds)}; filter + smoother ${fmt(k.filterSmoothSeconds)} CPU (ratio ${(k.filterSmoothSeconds / ks.seconds).toFixed(0)}x); mean NIS ${k.meanNis.toFixed(5)}; max |Δx| at k = 0, N/2, N-1: ${dmax.toExponential(1)}`);
  console.log(`epi: ${SEEDS} seeds per scenario`);
  for (const l of epiLines) console.log(l);
  console.log('  SciPy (solve_ivp DOP853 + Nelder-Mead/Powell, no derivatives) on seeds 1-5 of the first scenario:');
  ref.epi.forEach((e: any, i: number) => {
    const sv = sirForScipy[i].svc;
    const d = Math.max(Math.abs(e.beta / sv.beta - 1), Math.abs(e.gamma / sv.gamma - 1), Math.abs(e.I0 / sv.I0 - 1));
    console.log(`    seed ${i + 1}: SciPy β ${e.beta.toFixed(6)} γ ${e.gamma.toFixed(6)} I0 ${e.I0.toFixed(4)} logLik ${e.logLik.toFixed(4)} (${fmt(e.seconds)}, ${e.nfev} ODE solves); ` +
      `svc logLik ${sv.logLik.toFixed(4)} (${fmt(sirForScipy[i].svcSeconds)} with refit); max rel. parameter difference ${d.toExponential(1)}`);
  });
}
