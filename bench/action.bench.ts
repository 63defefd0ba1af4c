// Benchmark: the action solver (Yoshida order 4 + RK4 compare on a Kepler orbit, e = 0.6) against
// the same method and size written with NumPy (bench/action_ref.py), in one run. Prints both
// timings, the ratio, and both energy drifts (they must agree: same method, same step).
// Run: npx node bench/action.bench.ts [steps]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptor, run } from '../src/solvers/action.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 20_000); // the solver's default size
const dt = 0.01, e = 0.6;

const input = descriptor.input.parse({ system: 'kepler', order: 4, steps, dt, eccentricity: e, compare: true });
run(descriptor.input.parse({ ...input, steps: 2000 }), { seed: 1, progress() {} }); // warm-up (JIT)
const times: number[] = [];
let out = run(input, { seed: 1, progress() {} });
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  out = run(input, { seed: 1, progress() {} });
  times.push((performance.now() - t0) / 1000);
}
times.sort((a, b) => a - b);
const jsSeconds = times[Math.floor(times.length / 2)];
const r = out.result as any;

const py = spawnSync('python3', [join(HERE, 'action_ref.py'), '--steps', String(steps), '--dt', String(dt), '--e', String(e)], { encoding: 'utf8' });
if (py.status !== 0) {
  console.log(`action: node ${jsSeconds.toFixed(3)} s for ${steps} steps (order 4 + RK4); NumPy reference failed: ${py.stderr.trim().split('\n').pop()}`);
  process.exit(0);
}
const ref = JSON.parse(py.stdout.trim().split('\n').pop()!);
const ratio = ref.totalSeconds / jsSeconds;
console.log(`action bench: Kepler e=${e}, ${steps} steps, dt=${dt}, Yoshida order 4 + RK4 compare, energy checked every step`);
console.log(`  node (median of 5): ${jsSeconds.toFixed(3)} s   energyDrift ${r.energyDrift.toExponential(3)}  maxEnergyError ${r.maxEnergyError.toExponential(3)}  rk4Drift ${r.rk4Drift.toExponential(3)}`);
console.log(`  numpy ${ref.numpy}:        ${ref.totalSeconds.toFixed(3)} s   energyDrift ${ref.energyDrift.toExponential(3)}  maxEnergyError ${ref.maxEnergyError.toExponential(3)}  rk4Drift ${ref.rk4Drift.toExponential(3)}`);
console.log(`  (numpy split: symplectic ${ref.symplecticSeconds.toFixed(3)} s, rk4 ${ref.rk4Seconds.toFixed(3)} s)`);
console.log(`  ratio numpy/node = ${ratio.toFixed(1)}x ${ratio > 1 ? '(node faster)' : '(numpy faster)'}`);
const agree = Math.abs(r.maxEnergyError - ref.maxEnergyError) <= 1e-3 * ref.maxEnergyError + 1e-15;
console.log(`  same method check: max energy errors ${agree ? 'agree' : 'DIFFER'} to 0.1 %`);
