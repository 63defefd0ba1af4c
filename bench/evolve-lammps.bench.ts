// Benchmark: evolve on a user configuration (a LAMMPS data file) against LAMMPS on the same file.
// Systems: Lennard-Jones liquids at ρ = 0.8442 made by LAMMPS itself (FCC lattice melted at T = 3,
// cooled to T = 0.72 by velocity rescaling, relaxed in NVE, written by write_data): 2,000 atoms
// (10 × 10 × 5 FCC cells, an orthorhombic box) and 20,000 atoms (25 × 20 × 10 cells). Both programs
// then run NVE with `pair_style lj/cut 2.5` (not shifted), `neighbor 0.3 bin`,
// `neigh_modify every 1 delay 0 check yes`, `timestep 0.005`, velocities from the file, and print
// thermo (`thermo_modify norm yes`, 17 digits).
// Figures: (1) agreement of pe, ke, etotal, temp, press per step; the first step at which the
// largest relative difference passes 1e-6 on a long run (the trajectories separate by chaos, from
// round-off differences in the force sums, growing about e-fold every 0.25 τ here); (2) CPU time, best
// of 3 (process CPU for ours, user + system of the lmp process for LAMMPS, serial, OMP_NUM_THREADS=1);
// our time includes parsing the file, two RDF snapshots and two frames.
// Run: node bench/evolve-lammps.bench.ts [long steps] (default 3000).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descriptor, run } from '../src/solvers/evolve.ts';

const LONG = Number(process.argv[2] ?? 3000);
const probe = spawnSync('lmp', ['-h'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.log('evolve-lammps: `lmp` not found (Debian package `lammps`); skipped');
  process.exit(0);
}
const version = /LAMMPS \(([^)]*)\)/.exec(probe.stdout)?.[1] ?? /Simulator - ([^\n]*)/.exec(probe.stdout)?.[1] ?? '?';
const dir = mkdtempSync(join(tmpdir(), 'svc-evolve-lammps-'));

function lammps(script: string[]): { screen: string; cpu: number; loop: number } {
  writeFileSync(join(dir, 'in.lmp'), script.join('\n') + '\n');
  const r = spawnSync('bash', ['-c', "TIMEFORMAT='%3R %3U %3S'; time lmp -in in.lmp -log none -screen screen.txt"], {
    cwd: dir, encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' },
  });
  const screen = readFileSync(join(dir, 'screen.txt'), 'utf8');
  if (r.status !== 0) throw new Error(`lmp failed: ${screen.slice(-1500)}`);
  const [, user, sys] = r.stderr.trim().split('\n').pop()!.trim().split(/\s+/).map(Number);
  const loop = Number(/Loop time of ([\d.eE+-]+) on/.exec(screen)?.[1] ?? NaN);
  return { screen, cpu: user + sys, loop };
}

function melt(cells: [number, number, number], file: string): void {
  lammps(['units lj', 'atom_style atomic', 'lattice fcc 0.8442', `region box block 0 ${cells[0]} 0 ${cells[1]} 0 ${cells[2]}`, 'create_box 1 box',
    'create_atoms 1 box', 'mass 1 1.0', 'velocity all create 3.0 87287 loop geom', 'pair_style lj/cut 2.5', 'pair_coeff 1 1 1.0 1.0 2.5',
    'neighbor 0.3 bin', 'neigh_modify every 1 delay 0 check yes', 'timestep 0.005', 'thermo 500', 'fix 1 all nve', 'run 500',
    'fix 2 all temp/rescale 1 0.72 0.72 0.0 1.0', 'run 1500', 'unfix 2', 'run 500', `write_data ${file}`]);
}

const nveScript = (file: string, steps: number, every: number) => ['units lj', 'atom_style atomic', 'pair_style lj/cut 2.5', `read_data ${file}`,
  'pair_coeff 1 1 1.0 1.0 2.5', 'neighbor 0.3 bin', 'neigh_modify every 1 delay 0 check yes', 'fix 1 all nve', 'timestep 0.005',
  'thermo_style custom step temp pe ke etotal press', 'thermo_modify norm yes format float %.17g', `thermo ${every}`, `run ${steps}`];

const rows = (screen: string) => [...screen.matchAll(/^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/gm)].map((m) => m.slice(1).map(Number));
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

function ours(data: string, steps: number, every: number) {
  return run(descriptor.input.parse({ lammpsData: data, steps, dtSim: 0.005, rc: 2.5, energyStride: every, rdfStride: steps }), { seed: 1, progress() {} });
}

/** largest relative difference per thermo row (pe, ke, etotal, temp, press) */
function differences(out: ReturnType<typeof ours>, lmpRows: number[][]): number[] {
  const e = out.result.energy as { step: number; kinetic: number; potential: number; total: number }[];
  const th = out.result.thermo as { temp: number; press: number }[];
  return lmpRows.map(([step, temp, pe, ke, et, press], k) => {
    if (e[k].step !== step) throw new Error(`step mismatch ${e[k].step} vs ${step}`);
    return Math.max(rel(e[k].potential, pe), rel(e[k].kinetic, ke), rel(e[k].total, et), rel(th[k].temp, temp), rel(th[k].press, press));
  });
}

try {
  console.log(`evolve vs LAMMPS (${version}) on LAMMPS-made LJ liquids, rho 0.8442, T 0.72, lj/cut 2.5, dt 0.005`);
  melt([10, 10, 5], 'liquid2k.data');
  const data2k = readFileSync(join(dir, 'liquid2k.data'), 'utf8');

  // agreement over 1,000 steps and over a long run
  const short = differences(ours(data2k, 1000, 10), rows(lammps(nveScript('liquid2k.data', 1000, 10)).screen));
  const long = differences(ours(data2k, LONG, 10), rows(lammps(nveScript('liquid2k.data', LONG, 10)).screen));
  const firstOver = (d: number[], tol: number) => { const k = d.findIndex((x) => x > tol); return k < 0 ? `none in ${LONG} steps` : `step ${10 * k}`; };
  console.log(`  N=2000, 1000 steps: largest relative difference ${Math.max(...short).toExponential(2)} (pe, ke, etotal, temp, press, every 10 steps)`);
  console.log(`  N=2000, ${LONG} steps: difference passes 1e-9 at ${firstOver(long, 1e-9)}, 1e-6 at ${firstOver(long, 1e-6)}, 1e-3 at ${firstOver(long, 1e-3)}`);
  for (const s of [0, 250, 500, 750, 1000, 1250, 1500, 2000, 2500, 3000]) if (10 * (long.length - 1) >= s) console.log(`    step ${String(s).padStart(4)}: ${long[s / 10].toExponential(1)}`);

  // timings
  for (const [label, cells, steps] of [['N=2000', [10, 10, 5], 1000], ['N=20000', [25, 20, 10], 500]] as const) {
    const file = label === 'N=2000' ? 'liquid2k.data' : 'liquid20k.data';
    if (label !== 'N=2000') melt(cells as [number, number, number], file);
    const data = readFileSync(join(dir, file), 'utf8');
    ours(data, 100, 100); // warm-up (JIT)
    let cpu = Infinity, out = ours(data, 10, 10);
    for (let rep = 0; rep < 3; rep++) {
      const c0 = process.cpuUsage();
      out = ours(data, steps, 100);
      const c = process.cpuUsage(c0);
      cpu = Math.min(cpu, (c.user + c.system) / 1e6);
    }
    let lcpu = Infinity, lloop = Infinity, screen = '';
    for (let rep = 0; rep < 3; rep++) {
      const r = lammps(nveScript(file, steps, 100));
      lcpu = Math.min(lcpu, r.cpu); lloop = Math.min(lloop, r.loop); screen = r.screen;
    }
    const d = differences(out, rows(screen));
    console.log(`  ${label}, ${steps} steps: svc ${cpu.toFixed(2)} s CPU (${(out.result.neighborRebuilds as number)} rebuilds, ${out.result.neighborList}), ` +
      `LAMMPS ${lcpu.toFixed(2)} s CPU (loop ${lloop.toFixed(2)} s wall, ${/Neighbor list builds = (\d+)/.exec(screen)?.[1]} rebuilds); ` +
      `ratio ${(cpu / lcpu).toFixed(2)}x; largest relative difference ${Math.max(...d).toExponential(1)}; drift ${(out.precision.errorPct / 100).toExponential(1)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
