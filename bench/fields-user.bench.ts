// Benchmark: the user mode of heat and wave (issue 23). Two figures:
//  1. the cost of the Richardson estimate: process CPU time of a user-mode run (the run plus its
//     twin on the grid halved in space and time) against the analytic mode on the same grid;
//  2. the honesty of the estimate over a sweep: per-probe true error / estimate for smooth problems
//     (separable modes, travelling waves) and for data whose u'' jumps (plucked string x(1−x), plucked
//     membrane x(1−x)·y(1−y)), against d'Alembert and Fourier-series solutions.
// Run: npx node bench/fields-user.bench.ts
import * as heat from '../src/solvers/heat.ts';
import * as wave from '../src/solvers/wave.ts';
import type { SolverOutput } from '../src/solvers/types.ts';

const ctx = { seed: 1, progress() {} };
const H = (f: Record<string, unknown>) => heat.run(heat.descriptor.input.parse(f), ctx);
const Wv = (f: Record<string, unknown>) => wave.run(wave.descriptor.input.parse(f), ctx);

function cpu(fn: () => SolverOutput, reps = 3): number {
  fn(); // warm-up (JIT)
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    times.push((c.user + c.system) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(reps / 2)];
}

console.log('fields-user bench: cost of the Richardson twin (process CPU, median of 3)');
const costCases: [string, () => SolverOutput, () => SolverOutput][] = [
  ['heat 2-D ADI 64x64, 1000 steps', () => H({ kx: 1 }), () => H({ initial: 'sin(pi*x)*sin(pi*y)' })],
  ['heat 2-D FTCS 64x64, 1000 steps', () => H({ method: 'explicit', kx: 1 }), () => H({ method: 'explicit', initial: 'sin(pi*x)*sin(pi*y)' })],
  ['heat 1-D CN 128, 5000 steps', () => H({ dim: 1, nx: 128, steps: 5000, dt: 1e-5, mode: 1 }), () => H({ dim: 1, nx: 128, steps: 5000, dt: 1e-5, initial: 'sin(pi*x)' })],
  ['wave 2-D membrane 128x128, 1000 steps', () => Wv({ nx: 128, ny: 128, kx: 1 }), () => Wv({ nx: 128, ny: 128, initial: 'sin(pi*x)*sin(pi*y)' })],
];
for (const [name, analytic, user] of costCases) {
  const a = cpu(analytic), u = cpu(user);
  console.log(`  ${name.padEnd(40)} analytic ${a.toFixed(3)} s  user ${u.toFixed(3)} s  (${(u / a).toFixed(1)}x)`);
}

// ---- estimate honesty
const F = (s: number) => { const z = ((s % 2) + 2) % 2; return z <= 1 ? z * (1 - z) : -(z - 1) * (2 - z); };
const pluck = (x: number, t: number) => 0.5 * (F(x - t) + F(x + t));
const fourier = (x: number, t: number) => { let s = 0; for (let n = 1; n < 4001; n += 2) s += Math.sin(n * Math.PI * x) * Math.exp(-n * n * Math.PI * Math.PI * t) / n ** 3; return 8 / Math.PI ** 3 * s; };
const membrane = (x: number, y: number, t: number) => {
  let s = 0;
  for (let m = 1; m < 300; m += 2) for (let n = 1; n < 300; n += 2) s += Math.sin(m * Math.PI * x) * Math.sin(n * Math.PI * y) * Math.cos(Math.PI * Math.hypot(m, n) * t) / (m ** 3 * n ** 3);
  return 64 / Math.PI ** 6 * s;
};

interface Tally { n: number; inBand: number; under10: number; over10: number; min: number; max: number; ratios: number[]; caseMin: number; caseMax: number }
const tally = (): Tally => ({ n: 0, inBand: 0, under10: 0, over10: 0, min: Infinity, max: 0, ratios: [], caseMin: Infinity, caseMax: 0 });
function add(T: Tally, out: SolverOutput, exact: (x: number, y: number, t: number) => number): void {
  const res = out.result as any;
  let maxTrue = 0;
  for (const p of res.probes) {
    const e = Math.abs(p.u - exact(p.x, p.y ?? 0, res.t));
    maxTrue = Math.max(maxTrue, e);
    if (e < 1e-13 && p.err < 1e-13) continue; // both at rounding level
    const ratio = e / p.err;
    T.n++; T.ratios.push(ratio);
    if (ratio >= 0.1 && ratio <= 10) T.inBand++;
    if (ratio > 10) T.under10++;
    if (ratio < 0.1) T.over10++;
    T.min = Math.min(T.min, ratio); T.max = Math.max(T.max, ratio);
  }
  const c = maxTrue / res.errorEstimate;
  T.caseMin = Math.min(T.caseMin, c); T.caseMax = Math.max(T.caseMax, c);
}
function report(name: string, T: Tally): void {
  T.ratios.sort((a, b) => a - b);
  console.log(`  ${name.padEnd(44)} probes ${String(T.n).padStart(4)}  in [0.1, 10] ${String(T.inBand).padStart(4)}  estimate >10x too small ${T.under10}  >10x too large ${T.over10}`
    + `  ratio min ${T.min.toFixed(3)} median ${T.ratios[T.ratios.length >> 1].toFixed(3)} max ${T.max.toFixed(3)}  case (max true / errorEstimate) ${T.caseMin.toFixed(2)}..${T.caseMax.toFixed(2)}`);
}

console.log('estimate honesty: true error / estimate per probe (1 = exact estimate; > 10 would be an unsafe under-estimate)');
const probes1 = Array.from({ length: 19 }, (_, k) => [0.05 + 0.05 * k]);
{
  const T = tally();
  for (const [nx, steps, dt] of [[16, 20, 5e-3], [32, 100, 1e-3], [32, 400, 2.5e-4], [64, 50, 2e-3]] as const) {
    for (const method of ['implicit', 'explicit']) {
      const dtm = method === 'explicit' ? 0.4 / (nx * nx) : dt;
      const st = Math.round(steps * dt / dtm);
      add(T, H({ dim: 1, method, nx, dt: dtm, steps: st, initial: 'x*(1-x)', probes: probes1 }), (x, _y, t) => fourier(x, t));
    }
  }
  report('heat x(1-x), Dirichlet 0, CN + FTCS', T);
}
{
  const T = tally();
  for (const steps of [20, 50, 100, 160]) {
    add(T, H({ dim: 1, nx: 32, Lx: 2, dt: 2e-3, steps, initial: 'cos(pi*x/2)', boundary: { left: { type: 'neumann' }, right: { type: 'neumann' } }, probes: probes1.map(([x]) => [2 * x]) }),
      (x, _y, t) => Math.cos(Math.PI * x / 2) * Math.exp(-(Math.PI ** 2) / 4 * t));
    add(T, H({ dim: 1, nx: 24, Lx: 3, alpha: 0.5, dt: 5e-3, steps, initial: 'sin(2*pi*x/3)', boundary: { left: { type: 'periodic' }, right: { type: 'periodic' } }, probes: probes1.map(([x]) => [3 * x]) }),
      (x, _y, t) => Math.sin(2 * Math.PI * x / 3) * Math.exp(-0.5 * (2 * Math.PI / 3) ** 2 * t));
  }
  report('heat Neumann cos, periodic sin modes', T);
}
{
  const T = tally();
  for (const nx of [32, 64]) for (const steps of [13, 29, 40, 57, 77, 100, 133, 160]) {
    add(T, Wv({ dim: 1, nx, steps: steps * nx / 32, initial: 'x*(1-x)', probes: probes1 }), (x, _y, t) => pluck(x, t));
  }
  report('wave plucked string x(1-x) (u\'\' jumps)', T);
}
{
  const T = tally();
  for (const steps of [30, 60, 100, 150]) {
    add(T, Wv({ dim: 1, nx: 32, Lx: 2, c: 1.3, steps, initial: 'sin(pi*x)', initialVelocity: '-1.3*pi*cos(pi*x)', boundary: { left: { type: 'periodic' }, right: { type: 'periodic' } }, probes: probes1.map(([x]) => [2 * x]) }),
      (x, _y, t) => Math.sin(Math.PI * (x - 1.3 * t)));
  }
  report('wave periodic travelling sin', T);
}
{
  const T = tally();
  const probes2: number[][] = [];
  for (const x of [0.13, 0.3, 0.5, 0.71]) for (const y of [0.2, 0.45, 0.7, 0.9]) probes2.push([x, y]);
  for (const steps of [20, 45, 60, 90]) add(T, Wv({ nx: 32, ny: 32, steps, initial: 'x*(1-x)*y*(1-y)', probes: probes2 }), membrane);
  report('wave plucked membrane x(1-x)y(1-y) (u\'\' jumps)', T);
}
