// Benchmarks for the stochastic and discrete solvers, one run, ratios printed:
//   quant  vs NumPy doing the same work (antithetic price and pathwise delta, one exp per pair)
//          (target: faster than NumPy)
//   gauge  vs a NumPy checkerboard heat-bath with vectorised von Mises  (target: faster than NumPy)
//   zeta   vs mpmath.nzeros(T)                                          (target: >= 10x faster)
//   sat    vs MiniSat 2.2 (Debian `minisat`) on the same DIMACS instances (reported, no target);
//          at n = 50 the 200 instances of the acceptance test
// Times are process CPU time (Node: process.cpuUsage, Python: time.process_time), best of N
// interleaved rounds after a warm-up run: on a shared, loaded machine wall-clock time mostly
// measures the scheduler, and CPU time still compares the work. (Node's CPU time also counts its
// JIT and GC threads, so the comparison is, if anything, tilted against us.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as quant from '../src/solvers/quant.ts';
import * as gauge from '../src/solvers/gauge.ts';
import * as zeta from '../src/solvers/zeta.ts';
import { randomInstance, dpll, toSigned } from '../src/solvers/sat.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ctx = { seed: 1, progress() {} };
const REPS = Number(process.env.BENCH_REPS ?? 4);

/** CPU seconds of this process spent in fn. */
function cpuTime<T>(fn: () => T): { seconds: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { seconds: (c.user + c.system) / 1e6, value };
}

function bestOf<T>(fn: () => T, reps = REPS): { seconds: number; value: T } {
  for (let w = 0; w < 2; w++) fn(); // warm-up (JIT)
  let best = Infinity, value!: T;
  for (let i = 0; i < reps; i++) {
    const r = cpuTime(fn);
    best = Math.min(best, r.seconds);
    value = r.value;
  }
  return { seconds: best, value };
}

const fmt = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1e3).toFixed(1)} ms` : `${s.toFixed(2)} s`);
const rows: string[][] = [];
const row = (...c: string[]) => rows.push(c);

const quantCases = [
  { type: 'call', S0: 100, K: 100, r: 0.05, sigma: 0.2, T: 1, paths: 200_000, seed: 1 },
  { type: 'call', S0: 100, K: 100, r: 0.05, sigma: 0.2, T: 1, paths: 2_000_000, seed: 1 },
];
const gaugeCases = [
  { L: 16, beta: 2, sweeps: 400, therm: 0, seed: 1 },
  { L: 64, beta: 2, sweeps: 100, therm: 0, seed: 1 },
];
const zetaCases = [{ T: 100 }, { T: 1000 }, { T: 2000 }];

/** One reference timing from bench/discrete_ref.py (best of `reps` inside Python). */
function reference(section: 'quant' | 'gauge' | 'zeta', spec: unknown, reps = 1): { seconds: number; value: any } | null {
  const py = spawnSync('python3', [join(HERE, 'discrete_ref.py'), JSON.stringify({ reps, [section]: [spec] })], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (py.status !== 0) throw new Error(py.stderr);
  const out = JSON.parse(py.stdout)[section];
  return out ? out[0] : null;
}

/** Interleaves rounds of (reference, ours) so a change in machine load hits both; keeps the best of each. */
function compare<T>(section: 'quant' | 'gauge' | 'zeta', spec: unknown, ours: () => T, rounds = REPS) {
  // warm-up: at least 3 calls and 250 ms, so that V8 has tiered the hot loops up to optimised code
  // as it has in a long-lived solver worker (3 calls alone left a sub-millisecond solver in the
  // baseline tier: zeta at T = 100 measured 197 µs cold against 35 µs warm)
  const warm0 = performance.now();
  for (let w = 0; w < 3 || performance.now() - warm0 < 250; w++) ours();
  // a call under ~20 ms is timed as the mean of a batch of calls lasting at least 20 ms: one
  // sub-millisecond sample of process CPU time is mostly V8's compiler and GC threads (the mean
  // of a batch is never better than its best call, so this favours neither side)
  const once = cpuTime(ours).seconds;
  const batch = once >= 0.02 ? 1 : Math.min(1000, Math.ceil(0.02 / Math.max(once, 1e-5)));
  let best = Infinity, bestRef = Infinity, value!: T, refValue: any = null, missing = false;
  for (let r = 0; r < rounds; r++) {
    const ref = reference(section, spec, section === 'gauge' ? 1 : 2);
    if (!ref) missing = true; else if (ref.seconds < bestRef) { bestRef = ref.seconds; refValue = ref.value; }
    const r = cpuTime(() => { let v!: T; for (let i = 0; i < batch; i++) v = ours(); return v; });
    best = Math.min(best, r.seconds / batch);
    value = r.value;
  }
  return { seconds: best, value, ref: missing ? null : { seconds: bestRef, value: refValue } };
}

for (const c of quantCases) {
  const m = compare('quant', c, () => quant.run(quant.descriptor.input.parse(c), ctx));
  const np = m.ref!;
  row('quant', `${c.type} ${c.paths.toLocaleString('en')} paths`, fmt(m.seconds), `NumPy ${fmt(np.seconds)}`, `${(np.seconds / m.seconds).toFixed(2)}x`,
    `price ${m.value.value.toFixed(4)} vs ${np.value[0].toFixed(4)} (BS ${(m.value.result.blackScholes as number).toFixed(4)}), delta ${(m.value.result.delta as number).toFixed(4)} vs ${np.value[2].toFixed(4)}`);
}
for (const c of gaugeCases) {
  const m = compare('gauge', c, () => gauge.run(gauge.descriptor.input.parse(c), ctx), Math.max(1, REPS - 1));
  const np = m.ref!;
  const links = 2 * c.L * c.L * c.sweeps;
  row('gauge', `${c.L}x${c.L} β=${c.beta} ${c.sweeps} sweeps`, `${fmt(m.seconds)} (${(m.seconds * 1e9 / links).toFixed(0)} ns/link)`,
    `NumPy ${fmt(np.seconds)} (${(np.seconds * 1e9 / links).toFixed(0)} ns/link)`, `${(np.seconds / m.seconds).toFixed(2)}x`,
    `plaquette ${m.value.value.toFixed(4)} vs ${np.value.toFixed(4)} (exact ${(m.value.result.exact as number).toFixed(4)})`);
}
for (const c of zetaCases) {
  const m = compare('zeta', c, () => zeta.run(zeta.descriptor.input.parse(c), ctx));
  const mp = m.ref;
  row('zeta', `T = ${c.T}`, fmt(m.seconds), mp ? `mpmath.nzeros ${fmt(mp.seconds)}` : 'mpmath missing', mp ? `${(mp.seconds / m.seconds).toFixed(1)}x` : '-',
    `zeros ${m.value.value}${mp ? ` vs ${mp.value}` : ''}`);
}

// sat vs MiniSat on the same instances
const minisat = spawnSync('minisat', ['--help'], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'satbench-'));
// n = 50: the 200 instances of the acceptance test (test/solvers/sat.test.ts, seeds 1 to 200),
// so MiniSat also re-checks every answer the test checks with its own solver
for (const [n, count, seed0] of [[50, 200, 1], [100, 20, 1000], [120, 20, 1000]]) {
  let oursTotal = 0, msCpu = 0, msWall = 0, agree = 0, satCount = 0, decisions = 0;
  const available = !minisat.error;
  for (let k = 0; k < count; k++) {
    const inst = randomInstance(n, Math.round(4.26 * n), seed0 + k);
    const r = bestOf(() => dpll(inst), 1);
    oursTotal += r.seconds;
    decisions += r.value.decisions;
    if (r.value.satisfiable) satCount++;
    if (!available) continue;
    const file = join(dir, `n${n}_${k}.cnf`);
    writeFileSync(file, `p cnf ${n} ${inst.m}\n` + toSigned(inst).map((c) => c.join(' ') + ' 0').join('\n') + '\n');
    const t = performance.now();
    const out = spawnSync('minisat', ['-verb=1', file], { encoding: 'utf8' });
    msWall += (performance.now() - t) / 1000;
    const cpu = /CPU time\s*:\s*([0-9.eE+-]+)/.exec(out.stdout);
    msCpu += cpu ? Number(cpu[1]) : NaN;
    const msSat = /^SATISFIABLE/m.test(out.stdout) ? true : /^UNSATISFIABLE/m.test(out.stdout) ? false : null;
    if (msSat === r.value.satisfiable) agree++;
  }
  row('sat', `${count} random 3-SAT, n=${n}, α=4.26`, `${fmt(oursTotal / count)} per instance (${(decisions / count).toFixed(0)} decisions)`,
    available ? `MiniSat CPU ${fmt(msCpu / count)}, wall ${fmt(msWall / count)}` : 'minisat not installed',
    available ? `${(msCpu / oursTotal).toFixed(2)}x vs CPU, ${(msWall / oursTotal).toFixed(1)}x vs wall` : '-',
    available ? `${satCount}/${count} SAT; answers agree on ${agree}/${count}${agree < count ? '  <-- DISAGREEMENT' : ''}` : `${satCount}/${count} SAT`);
}
rmSync(dir, { recursive: true, force: true });

const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log('discrete solvers vs references (ratio = reference time / ours; > 1 means we are faster)');
for (const r of rows) console.log(r.map((c, j) => c.padEnd(widths[j])).join('  '));
