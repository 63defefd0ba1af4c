// Benchmark: the lorenz solver (RK4 trajectory + tangent vectors + twin, 100,000 steps at
// dt = 0.01 after a 1,000-step transient) against the same algorithm written with NumPy
// (bench/lorenz_ref.py). Prints both times, the ratio and the two estimates side by side.
// Run: npx node bench/lorenz.bench.ts [steps]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptor, run } from '../src/solvers/lorenz.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 100_000);
const input = descriptor.input.parse({ steps });
const ctx = { seed: 1, progress() {} };

run(descriptor.input.parse({ steps: 2000 }), ctx); // warm-up (JIT)
let best = Infinity, bestCpu = Infinity, out = run(input, ctx);
for (let rep = 0; rep < 3; rep++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  out = run(input, ctx);
  best = Math.min(best, (performance.now() - t0) / 1000);
  const c = process.cpuUsage(c0);
  bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
}

const py = spawnSync('python3', [join(HERE, 'lorenz_ref.py'), String(steps)], { encoding: 'utf8' });
console.log(`lorenz: ${steps} RK4 steps (15-dimensional state), sigma=10 rho=28 beta=8/3, dt=0.01`);
console.log(`  svc (TypeScript)  ${best.toFixed(3)} s wall (best of 3, ${bestCpu.toFixed(3)} s CPU)  lyapunov ${(out.result.lyapunov as number).toFixed(4)}  contraction ${out.value.toFixed(6)}`);
if (py.status !== 0) {
  console.log(`  NumPy reference failed: ${py.stderr.trim().split('\n').pop()}`);
} else {
  const ref = JSON.parse(py.stdout.trim().split('\n').pop()!);
  console.log(`  NumPy reference   ${ref.seconds.toFixed(3)} s wall                       lyapunov ${ref.lyapunov.toFixed(4)}  contraction ${ref.contraction.toFixed(6)}`);
  console.log(`  ratio NumPy/svc = ${(ref.seconds / best).toFixed(1)}x (target: svc faster, ratio > 1)`);
  const dl = Math.abs(ref.lyapunov - (out.result.lyapunov as number));
  console.log(`  agreement: |Δλ| = ${dl.toExponential(2)}, |Δ contraction| = ${Math.abs(ref.contraction - out.value).toExponential(2)}`);
}
