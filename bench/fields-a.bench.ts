// Benchmark: heat (2-D Peaceman-Rachford ADI, 128×128, 500 steps) and wave (2-D membrane leapfrog,
// 128×128, 1,000 steps) against the same methods at the same sizes written with NumPy/SciPy
// (bench/fields_a_ref.py), in one run. Prints timings, ratios, and the physics of both sides
// (they must agree: same scheme, same steps).
// Run: npx node bench/fields-a.bench.ts
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as heat from '../src/solvers/heat.ts';
import * as wave from '../src/solvers/wave.ts';
import type { SolverOutput } from '../src/solvers/types.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ctx = { seed: 1, progress() {} };

function median(fn: () => SolverOutput, reps = 5): { seconds: number; out: SolverOutput } {
  let out = fn(); // warm-up (JIT)
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    out = fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return { seconds: times[Math.floor(times.length / 2)], out };
}

const heatInput = heat.descriptor.input.parse({ method: 'implicit', nx: 128, ny: 128, steps: 500, alpha: 1, dt: 5e-5 });
const waveInput = wave.descriptor.input.parse({ mode: 'membrane', nx: 128, ny: 128, steps: 1000, courant: 0.5 });
const h = median(() => heat.run(heatInput, ctx));
const w = median(() => wave.run(waveInput, ctx));

const py = spawnSync('python3', [join(HERE, 'fields_a_ref.py')], { encoding: 'utf8' });
console.log('fields-a bench: heat 2-D ADI 128x128 x 500 steps; wave 2-D membrane leapfrog 128x128 x 1000 steps');
if (py.status !== 0) {
  console.log(`  heat node ${h.seconds.toFixed(3)} s, wave node ${w.seconds.toFixed(3)} s; NumPy reference failed: ${py.stderr.trim().split('\n').pop()}`);
  process.exit(0);
}
const ref = JSON.parse(py.stdout.trim().split('\n').pop()!);
const hr = ref.heatSeconds / h.seconds, wr = ref.waveSeconds / w.seconds;
const verdict = (r: number) => (r > 1 ? '(node faster)' : '(numpy faster)');
console.log(`  heat  node (median of 5) ${h.seconds.toFixed(3)} s  amplitude ${h.out.value.toPrecision(12)}`);
console.log(`        numpy ${ref.numpy} + scipy solve_banded ${ref.heatSeconds.toFixed(3)} s  amplitude ${ref.heatAmplitude.toPrecision(12)}`);
console.log(`        ratio numpy/node = ${hr.toFixed(1)}x ${verdict(hr)}; amplitudes ${Math.abs(h.out.value - ref.heatAmplitude) < 1e-10 ? 'agree' : 'DIFFER'}`);
const wres = w.out.result as any;
console.log(`  wave  node (median of 5) ${w.seconds.toFixed(3)} s  energy ${w.out.value.toPrecision(12)}  max drift ${wres.maxEnergyDrift.toExponential(2)}`);
console.log(`        numpy ${ref.waveSeconds.toFixed(3)} s  energy ${ref.waveEnergy.toPrecision(12)}  max drift ${ref.waveMaxDrift.toExponential(2)}`);
console.log(`        ratio numpy/node = ${wr.toFixed(1)}x ${verdict(wr)}; energies ${Math.abs(w.out.value - ref.waveEnergy) < 1e-9 * ref.waveEnergy ? 'agree' : 'DIFFER'}`);
