// Benchmark: svc_linsolve's direct path (lib/sparse/driver.ts: AMD, sparse Cholesky or LU,
// refinement, condition estimate, certificate) against scipy.sparse.linalg.spsolve (SuperLU) on the
// same matrices, b = ones, back to back in one run, in process CPU time on both sides (the machine is
// shared: wall clock would measure the other processes; the phase timings use the same CPU clock): generated 2-D (5-point) and 3-D (7-point)
// Laplacians up to about 1,000,000 nonzeros, and HB/bcsstk16 (test/fixtures/linsolve). The
// Matrix Market files are written to bench/out/linsolve/ (git-ignored). Times are CPU seconds, best
// of BENCH_REPS (default 2; Node process.cpuUsage, Python time.process_time); ours is reported twice: the factor-and-solve core (ordering,
// factorisation, solve with refinement, as spsolve does) and the whole request's numerics (also the
// condition estimate and the independent check). Target: core ratio ours/SuperLU ≤ 3.
// Run: npm run bench linsolve   (BENCH_LINSOLVE_MAX_NNZ=300000 for a shorter run; BENCH_LINSOLVE_MIN_NNZ
// to skip the small ones)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMatrixMarket } from '../src/solvers/lib/sparse/mm.ts';
import { solveSparse } from '../src/solvers/lib/sparse/driver.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'out', 'linsolve');
mkdirSync(OUT, { recursive: true });
const REPS = Number(process.env.BENCH_REPS ?? 2);
const MAX_NNZ = Number(process.env.BENCH_LINSOLVE_MAX_NNZ ?? 1_000_000);
const MIN_NNZ = Number(process.env.BENCH_LINSOLVE_MIN_NNZ ?? 0);

function laplacianText(N: number, dim: 2 | 3): { text: string; nnz: number } {
  const nz = dim === 3 ? N : 1;
  const id = (i: number, j: number, k: number) => (i * N + j) * nz + k + 1;
  const lines: string[] = [];
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) for (let k = 0; k < nz; k++) {
    const me = id(i, j, k);
    lines.push(`${me} ${me} ${2 * dim}`);
    // lower triangle only (symmetric file): neighbours with a smaller index
    if (k > 0) lines.push(`${me} ${id(i, j, k - 1)} -1`);
    if (j > 0) lines.push(`${me} ${id(i, j - 1, k)} -1`);
    if (i > 0) lines.push(`${me} ${id(i - 1, j, k)} -1`);
  }
  const n = N * N * nz;
  const nnz = 2 * lines.length - n;
  return { text: `%%MatrixMarket matrix coordinate real symmetric\n${n} ${n} ${lines.length}\n${lines.join('\n')}\n`, nnz };
}

const cpuMs = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const cases: { name: string; path: string; nnz: number }[] = [];
for (const [N, dim] of [[100, 2], [200, 2], [316, 2], [447, 2], [20, 3], [30, 3], [38, 3]] as const) {
  const { text, nnz } = laplacianText(N, dim);
  if (nnz > MAX_NNZ || nnz < MIN_NNZ) continue;
  const path = join(OUT, `lap${dim}d-${N}.mtx`);
  writeFileSync(path, text);
  cases.push({ name: `${dim}-D Laplacian ${N}^${dim}`, path, nnz });
}
{
  const path = join(OUT, 'bcsstk16.mtx');
  writeFileSync(path, gunzipSync(readFileSync(join(HERE, '..', 'test', 'fixtures', 'linsolve', 'bcsstk16.mtx.gz'))));
  cases.push({ name: 'HB/bcsstk16', path, nnz: 290_810 });
}

{ // warm-up (JIT) on a small system
  const w = laplacianText(60, 2);
  const m = readMatrixMarket(w.text);
  for (let r = 0; r < 3; r++) solveSparse({ n: m.rows, ri: m.ri, ci: m.ci, vals: m.vals }, new Float64Array(m.rows).fill(1), { method: 'auto', seed: 1 });
}
console.log(`linsolve vs SciPy spsolve (SuperLU), b = ones, best of ${REPS}; the machine is shared, ratios are measured back to back`);
console.log('matrix                     n        nnz   ours core s  ours all s   SuperLU s  core ratio  η ours     η SuperLU  method  fill');
for (const c of cases) {
  const text = readFileSync(c.path, 'utf8');
  const m = readMatrixMarket(text, { maxEntries: 5_000_000 });
  const p = { n: m.rows, ri: m.ri, ci: m.ci, vals: m.vals };
  const b = new Float64Array(m.rows).fill(1);
  let core = Infinity, all = Infinity, last: ReturnType<typeof solveSparse> | null = null;
  for (let r = 0; r < REPS; r++) {
    const c0 = process.cpuUsage();
    last = solveSparse(p, b, { method: 'auto', seed: 1, clock: cpuMs });
    const c = process.cpuUsage(c0);
    const t = (c.user + c.system) / 1e6;
    all = Math.min(all, t);
    core = Math.min(core, t - (last.timings.condestMs + last.timings.checkMs) / 1000);
  }
  const py = spawnSync('python3', [join(HERE, 'linsolve_ref.py'), String(REPS), c.path], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const ref = py.status === 0 ? JSON.parse(py.stdout.trim().split('\n').pop()!) : null;
  const s = last!;
  console.log(`${c.name.padEnd(24)} ${String(m.rows).padStart(7)} ${String(c.nnz).padStart(9)} ${core.toFixed(2).padStart(11)} ${all.toFixed(2).padStart(11)} ${(ref ? ref.solveS.toFixed(2) : 'n/a').padStart(11)} ${(ref ? (core / ref.solveS).toFixed(2) : 'n/a').padStart(11)}  ${s.backwardError.toExponential(1).padEnd(9)}  ${(ref ? ref.eta.toExponential(1) : 'n/a').padEnd(9)}  ${s.method.padEnd(7)} ${s.fillIn}`);
  console.log(`  ours: setup ${(s.timings.setupMs / 1000).toFixed(2)} s, order ${(s.timings.orderMs / 1000).toFixed(2)} s, factor ${(s.timings.factorMs / 1000).toFixed(2)} s, solve+refine ${(s.timings.solveMs / 1000).toFixed(2)} s, condest ${(s.timings.condestMs / 1000).toFixed(2)} s, check ${(s.timings.checkMs / 1000).toFixed(2)} s`);
  if (!ref) console.log(`  (SciPy unavailable: ${py.stderr.slice(0, 200)})`);
}
