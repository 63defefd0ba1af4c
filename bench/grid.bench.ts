// Power-flow solve times of svc grid on MATPOWER's 14-, 30-, 57- and 118-bus cases
// (test/fixtures/matpower) and on larger networks tiled from case118 (copies joined by tie lines,
// up to 9,912 buses, near the 10,000-bus limit). For each network:
//   AC solve   lib/powerflow solveAc on a prepared network (Ybus, ordering, Newton with sparse LU, pfsoln)
//   AC run     the whole solver call: read the case text (or JSON tables), check, solve, certify
//   DC solve   lib/powerflow solveDc
// Times are process CPU time, best of N rounds after a warm-up of at least 3 calls and 250 ms;
// calls under 20 ms are timed as the mean of a batch (as bench/discrete.bench.ts). No reference
// tool: MATPOWER needs MATLAB or Octave, which this machine does not have (the accuracy against
// MATPOWER's own solutions is test/solvers/grid-ac.test.ts).
import { readFileSync } from 'node:fs';
import * as grid from '../src/solvers/grid.ts';
import { parseMatpowerCase, buildPfNetwork, tablesFromJson } from '../src/solvers/lib/matpower.ts';
import { solveAc, solveDc } from '../src/solvers/lib/powerflow.ts';

const REPS = Number(process.env.BENCH_REPS ?? 4);
const ctx = { seed: 1, progress() {} };
const FIX = new URL('../test/fixtures/matpower/', import.meta.url);

function cpu<T>(fn: () => T): { seconds: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { seconds: (c.user + c.system) / 1e6, value };
}

function time<T>(fn: () => T): { seconds: number; value: T } {
  const w0 = performance.now();
  for (let w = 0; w < 3 || performance.now() - w0 < 250; w++) fn();
  const once = cpu(fn).seconds;
  const batch = once >= 0.02 ? 1 : Math.min(1000, Math.ceil(0.02 / Math.max(once, 1e-5)));
  let best = Infinity, value!: T;
  for (let r = 0; r < REPS; r++) {
    const t = cpu(() => { let v!: T; for (let i = 0; i < batch; i++) v = fn(); return v; });
    best = Math.min(best, t.seconds / batch);
    value = t.value;
  }
  return { seconds: best, value };
}

const fmt = (s: number) => (s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1e3).toFixed(2)} ms` : `${s.toFixed(2)} s`);

/** `copies` copies of case118 in a ring, each joined to the next by three tie lines; the copies'
 * slack buses but the first become PV buses at the slack's solved output, so each copy is balanced. */
function tiled(copies: number) {
  const src = parseMatpowerCase(readFileSync(new URL('case118.m', FIX), 'utf8'));
  const sol = JSON.parse(readFileSync(new URL('case118.solution.json', FIX), 'utf8'));
  const slackGen = src.gen.findIndex((g) => src.bus.find((b) => b[0] === g[0])![1] === 3);
  const bus: number[][] = [], gen: number[][] = [], branch: number[][] = [];
  const id = (k: number, b: number) => k * 1000 + b;
  for (let k = 0; k < copies; k++) {
    for (const b of src.bus) { const r = [...b]; r[0] = id(k, b[0]); if (k > 0 && r[1] === 3) r[1] = 2; bus.push(r); }
    src.gen.forEach((g, j) => { const r = [...g]; r[0] = id(k, g[0]); if (j === slackGen) r[1] = sol.generators[j].Pg; gen.push(r); });
    for (const br of src.branch) { const r = [...br]; r[0] = id(k, br[0]); r[1] = id(k, br[1]); branch.push(r); }
    if (copies > 1) {
      const n = (k + 1) % copies;
      for (const [a, b] of [[10, 12], [60, 59], [100, 103]]) branch.push([id(k, a), id(n, b), 0.01, 0.08, 0.02, 0, 0, 0, 0, 0, 1, -360, 360]);
    }
  }
  return { baseMVA: src.baseMVA, bus, gen, branch };
}

const rows: string[][] = [['network', 'buses', 'branches', 'AC its', 'AC solve', 'AC run (read+check+solve+certify)', 'DC solve', 'mismatch P, Q (pu)']];
const cases: { name: string; body: Record<string, unknown> }[] = [];
for (const c of ['case14', 'case30', 'case57', 'case118']) cases.push({ name: c, body: { case: readFileSync(new URL(`${c}.m`, FIX), 'utf8') } });
for (const k of [10, 42, 84]) cases.push({ name: `case118 × ${k} (JSON)`, body: { network: tiled(k) } });
{
  // the largest network once more as case text, to time the reader on a 2.5 MB file
  const t = tiled(84);
  const m = (rows: number[][]) => rows.map((r) => '\t' + r.join('\t') + ';').join('\n');
  const text = `function mpc = tiled\nmpc.version = '2';\nmpc.baseMVA = ${t.baseMVA};\nmpc.bus = [\n${m(t.bus)}\n];\nmpc.gen = [\n${m(t.gen)}\n];\nmpc.branch = [\n${m(t.branch)}\n];\n`;
  cases.push({ name: `case118 × 84 (text, ${(text.length / 1e6).toFixed(1)} MB)`, body: { case: text } });
}

for (const { name, body } of cases) {
  const input = grid.descriptor.input.parse(body);
  const tables = body.case ? parseMatpowerCase(body.case as string) : tablesFromJson(body.network as any);
  const net = buildPfNetwork(tables);
  const ac = time(() => solveAc(net));
  const full = time(() => grid.run(input, ctx));
  const dc = time(() => solveDc(net));
  const r = full.value.result as any;
  if (!full.value.precision.withinBound) throw new Error(`${name}: the certificate failed: ${JSON.stringify(r.certificate)}`);
  rows.push([name, String(net.nb), String(net.branch.count), String(ac.value.iterations), fmt(ac.seconds), fmt(full.seconds), fmt(dc.seconds),
    `${r.mismatch.P.toExponential(1)}, ${r.mismatch.Q.toExponential(1)}`]);
}

const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
console.log('grid: power-flow solve times (process CPU time, best of rounds)');
for (const r of rows) console.log(r.map((c, j) => c.padEnd(widths[j])).join('  '));
