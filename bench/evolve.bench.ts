// Benchmark: the evolve solver against LAMMPS on the same system.
// System: Lennard-Jones liquid preset, N = 2000, rho = 0.8442, T0 = 0.72, rc = 2.5 (truncated and
// shifted), dt = 0.003, 2,000 velocity-Verlet NVE steps, Verlet list with skin 0.3 checked every
// step. LAMMPS (Debian package `lammps`, binary `lmp`, serial, OMP_NUM_THREADS=1) reads exactly
// our initial positions and velocities from a data file, with `pair_style lj/cut 2.5`,
// `pair_modify shift yes`, `neighbor 0.3 bin`, `neigh_modify every 1 delay 0 check yes`,
// `fix nve`. Both start from the lattice (equilibrate: 0), so the first few hundred steps are the
// same trajectory and the energies printed side by side must agree.
// Figures: best of 3 for each; CPU time (user + system) is the fair figure on a shared machine,
// wall time is printed too. Run: npx node bench/evolve.bench.ts [N] [steps] (defaults 2000 2000, the
// issue's size; smaller values are for a quick check that the LAMMPS input still works).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descriptor, run, resolveConfig, initialState, MdSystem } from '../src/solvers/evolve.ts';

const N = Number(process.argv[2] ?? 2000), STEPS = Number(process.argv[3] ?? 2000), SEED = 1;
const EVERY = Math.min(500, STEPS); // energies compared every EVERY steps
const fields = { preset: 'lj-liquid', N, rho: 0.8442, T0: 0.72, rc: 2.5, dtSim: 0.003, steps: STEPS, equilibrate: 0 };
const input = descriptor.input.parse(fields);
const cfg = resolveConfig(input, SEED);
const init = initialState(cfg);
const ctx = { seed: SEED, progress() {} };

// ---- ours
run(descriptor.input.parse({ ...fields, N: 500, steps: 200 }), ctx); // warm-up (JIT)
let oursWall = Infinity, oursCpu = Infinity;
let out = run(input, ctx);
for (let rep = 0; rep < 3; rep++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  out = run(input, ctx);
  oursWall = Math.min(oursWall, (performance.now() - t0) / 1000);
  const c = process.cpuUsage(c0);
  oursCpu = Math.min(oursCpu, (c.user + c.system) / 1e6);
}
// energies per particle at steps 0, EVERY, 2·EVERY, ... straight from the integrator
const sys = new MdSystem(init, cfg);
const ours: number[][] = [[sys.potential / N, sys.kinetic() / N]];
for (let s = 1; s <= STEPS; s++) {
  const ke = sys.step();
  if (s % EVERY === 0) ours.push([sys.potential / N, ke / N]);
}

console.log(`evolve: LJ liquid N=${N}, rho=0.8442, T0=0.72, rc=2.5 (shifted), dt=0.003, ${STEPS} NVE steps`);
console.log(`  svc (TypeScript)  ${oursWall.toFixed(3)} s wall, ${oursCpu.toFixed(3)} s CPU (best of 3; whole solver run incl. setup)  drift ${(out.result.energyDrift as number).toExponential(2)}  rebuilds ${out.result.neighborRebuilds}`);

// ---- LAMMPS
const probe = spawnSync('lmp', ['-h'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.log('  LAMMPS: `lmp` not found (Debian package `lammps`); skipped');
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'svc-evolve-bench-'));
try {
  let data = `LAMMPS data file written by bench/evolve.bench.ts\n\n${N} atoms\n1 atom types\n\n`;
  data += `0 ${init.L} xlo xhi\n0 ${init.L} ylo yhi\n0 ${init.L} zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n`;
  for (let i = 0; i < N; i++) data += `${i + 1} 1 ${init.pos[3 * i]} ${init.pos[3 * i + 1]} ${init.pos[3 * i + 2]}\n`;
  data += '\nVelocities\n\n';
  for (let i = 0; i < N; i++) data += `${i + 1} ${init.vel[3 * i]} ${init.vel[3 * i + 1]} ${init.vel[3 * i + 2]}\n`;
  writeFileSync(join(dir, 'data.lj'), data);
  writeFileSync(join(dir, 'in.lj'), [
    'units lj', 'atom_style atomic', 'atom_modify map array', 'read_data data.lj',
    'pair_style lj/cut 2.5', 'pair_modify shift yes', 'pair_coeff 1 1 1.0 1.0 2.5',
    'neighbor 0.3 bin', 'neigh_modify every 1 delay 0 check yes',
    'fix 1 all nve', 'timestep 0.003',
    'thermo_style custom step pe ke etotal press', 'thermo_modify format float %.10g', `thermo ${EVERY}`,
    `run ${STEPS}`, '',
  ].join('\n'));
  let lmpWall = Infinity, lmpCpu = Infinity, lmpLoop = Infinity;
  let screen = '';
  for (let rep = 0; rep < 3; rep++) {
    const r = spawnSync('bash', ['-c', "TIMEFORMAT='%3R %3U %3S'; time lmp -in in.lj -log none -screen screen.txt"], {
      cwd: dir, encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    if (r.status !== 0) throw new Error(`lmp failed: ${r.stderr}`);
    const [wall, user, sys2] = r.stderr.trim().split('\n').pop()!.trim().split(/\s+/).map(Number);
    lmpWall = Math.min(lmpWall, wall);
    lmpCpu = Math.min(lmpCpu, user + sys2);
    screen = readFileSync(join(dir, 'screen.txt'), 'utf8');
    const loop = /Loop time of ([\d.eE+-]+) on/.exec(screen);
    if (loop) lmpLoop = Math.min(lmpLoop, Number(loop[1]));
  }
  const rows = [...screen.matchAll(/^\s*(\d+)\s+(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s*$/gm)]
    .map((m) => m.slice(1).map(Number));
  const builds = /Neighbor list builds = (\d+)/.exec(screen)?.[1];
  console.log(`  LAMMPS (lmp)      ${lmpWall.toFixed(3)} s wall, ${lmpCpu.toFixed(3)} s CPU (best of 3; whole process), loop ${lmpLoop.toFixed(3)} s wall  rebuilds ${builds}`);
  console.log(`  ratio svc/LAMMPS: CPU ${(oursCpu / lmpCpu).toFixed(2)}x, wall ${(oursWall / lmpWall).toFixed(2)}x (whole process); ` +
    `wall ${(oursWall / lmpLoop).toFixed(2)}x against LAMMPS's MD loop alone (target: within 2x)`);
  console.log('  same trajectory check, energies per particle (svc | LAMMPS):');
  for (let k = 0; k < rows.length && k < ours.length; k++) {
    const [step, pe, ke, et] = rows[k];
    const [ope, oke] = ours[k];
    console.log(`    step ${String(step).padStart(4)}  PE ${ope.toFixed(7)} | ${pe.toFixed(7)}   KE ${oke.toFixed(7)} | ${ke.toFixed(7)}   E ${(ope + oke).toFixed(7)} | ${et.toFixed(7)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
