// svc_lp against GLPK's simplex (`glpsol --simplex`, Debian glpk-utils) and HiGHS' dual simplex
// (scipy.optimize.linprog(method='highs-ds'), Debian python3-scipy) on the Netlib LP problems of
// up to 1,000 rows (issue 30; rows as the Netlib table counts them, objective row included), with
// both of svc_lp's methods: the dual simplex ('simplex') and the interior-point method with
// crossover ('ipm'). Data: bench/data/netlib/*.mps (git-ignored), materialised by
// `node scripts/fetch-netlib.ts`; published objectives from test/fixtures/lp/netlib-objectives.json.
// Timing (CPU seconds, best of BENCH_REPS, default 1):
//   - ours: CPU time (process.cpuUsage) of lp.ts's run on the MPS text: parse, presolve, scale,
//     solve, clean-up and the certificate check, in this process;
//   - GLPK: user + system CPU of each `glpsol --mps file --simplex -o out` (parse, scale, solve,
//     report; glpsol unlinks its -o file before writing it, so it gets a real file), measured by
//     bash's `time` inside ONE bash process that runs all the glpsol calls before anything else
//     (spawning each glpsol from this large Node process charged ~0.16 s of fork cost to every
//     child on this machine, which made the ratio meaningless), minus glpsol's process floor (the
//     smallest of 5 runs on a one-row LP, a few ms), never below 0;
//   - HiGHS: time.process_time() around linprog(method='highs-ds') on the matrix we parsed (solve
//     only, no parsing: favourable to HiGHS).
// Aggregates: the sums over all problems, and the sums over the problems where both ours and
// GLPK's time exceed BENCH_LP_FLOOR (default 0.05 s), where timer resolution cannot matter.
// Target: ours (simplex) within 3× GLPK in aggregate. The machine is shared: ratios within a run
// are the figure to read, absolute times are not. BENCH_LP_METHODS=simplex (or ipm) runs one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, descriptor } from '../src/solvers/lp.ts';
import { parseMps } from '../src/solvers/lib/lp/mps.ts';

const REPS = Number(process.env.BENCH_REPS ?? 1);
const MAX_ROWS = Number(process.env.BENCH_LP_MAX_ROWS ?? 1000);
const DATA = new URL('./data/netlib/', import.meta.url).pathname;
const ref = JSON.parse(readFileSync(new URL('../test/fixtures/lp/netlib-objectives.json', import.meta.url), 'utf8')).problems as Record<string, { rows: number; objective: number }>;
const only = process.argv.slice(2);
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const haveGlpk = has('glpsol');
const haveScipy = spawnSync('python3', ['-c', 'import scipy.optimize'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'lpbench-'));

/** GLPK on every file, from one bash process: CPU seconds (floor subtracted) and the objective. */
function glpkAll(files: [string, string][]): Map<string, { s: number; obj: number }> {
  const out = new Map<string, { s: number; obj: number }>();
  const tiny = join(dir, 'tiny.mps');
  writeFileSync(tiny, 'NAME TINY\nROWS\n N OBJ\n L R1\nCOLUMNS\n X OBJ 1 R1 1\nRHS\n RHS R1 1\nENDATA\n');
  const lines = ['TIMEFORMAT="%3U %3S"'];
  for (let k = 0; k < 5; k++) lines.push(`{ time glpsol --mps '${tiny}' --simplex -o '${dir}/tiny.out' > /dev/null 2>&1; } 2>&1 | sed 's/^/floor /'`);
  for (let rep = 0; rep < REPS; rep++) {
    for (const [name, file] of files) lines.push(`{ time glpsol --mps '${file}' --simplex -o '${dir}/${name}.out' > /dev/null 2>&1; } 2>&1 | sed 's/^/run ${name} /'`);
  }
  writeFileSync(join(dir, 'glpk.sh'), lines.join('\n') + '\n');
  const r = spawnSync('bash', [join(dir, 'glpk.sh')], { encoding: 'utf8', maxBuffer: 1 << 24 });
  let floor = Infinity;
  const best = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const f = line.match(/^floor ([\d.]+) ([\d.]+)/);
    if (f) { floor = Math.min(floor, Number(f[1]) + Number(f[2])); continue; }
    const m = line.match(/^run (\S+) ([\d.]+) ([\d.]+)/);
    if (m) best.set(m[1], Math.min(best.get(m[1]) ?? Infinity, Number(m[2]) + Number(m[3])));
  }
  glpkFloor = Number.isFinite(floor) ? floor : 0;
  for (const [name] of files) {
    const report = existsSync(join(dir, `${name}.out`)) ? readFileSync(join(dir, `${name}.out`), 'utf8') : '';
    const m = report.match(/Objective:\s+\S+\s+=\s+(\S+)/);
    out.set(name, { s: Math.max((best.get(name) ?? NaN) - glpkFloor, 0), obj: m ? Number(m[1]) : NaN });
  }
  return out;
}
let glpkFloor = 0;

const HIGHS_PY = `
import json, sys, time, numpy as np
from scipy.optimize import linprog
from scipy.sparse import csc_matrix
p = json.load(sys.stdin)
A = csc_matrix((p['vals'], p['rowIdx'], p['colPtr']), shape=(p['m'], p['n']))
f = lambda v, d: np.array([d if x is None else x for x in v], float)
rl, ru = f(p['rowLo'], -np.inf), f(p['rowUp'], np.inf)
eq = rl == ru
A_eq, b_eq = A[eq], rl[eq]
ub_rows = (~eq) & np.isfinite(ru); lb_rows = (~eq) & np.isfinite(rl)
from scipy.sparse import vstack
A_ub = vstack([A[ub_rows], -A[lb_rows]]).tocsc(); b_ub = np.concatenate([ru[ub_rows], -rl[lb_rows]])
bounds = list(zip(f(p['colLo'], -np.inf), f(p['colUp'], np.inf)))
t0 = time.process_time()
r = linprog(np.array(p['c']), A_ub=A_ub if A_ub.shape[0] else None, b_ub=b_ub if A_ub.shape[0] else None, A_eq=A_eq if A_eq.shape[0] else None, b_eq=b_eq if A_eq.shape[0] else None, bounds=bounds, method='highs-ds')
t = time.process_time() - t0
print(json.dumps({'s': t, 'obj': float(r.fun) if r.fun is not None else None, 'status': int(r.status)}))
`;
function highs(mps: string): { s: number; obj: number } {
  const m = parseMps(mps);
  const fin = (a: Float64Array) => Array.from(a, (v) => (Number.isFinite(v) ? v : null));
  const body = JSON.stringify({ m: m.nRows, n: m.nCols, colPtr: Array.from(m.colPtr), rowIdx: Array.from(m.rowIdx), vals: Array.from(m.vals), c: Array.from(m.c), rowLo: fin(m.rowLo), rowUp: fin(m.rowUp), colLo: fin(m.colLo), colUp: fin(m.colUp) });
  const r = spawnSync('python3', ['-c', HIGHS_PY], { input: body, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) return { s: NaN, obj: NaN };
  const o = JSON.parse(r.stdout);
  return { s: o.s, obj: o.obj ?? NaN };
}

function ours(mps: string, method: string): { s: number; obj: number; ok: boolean; status: string; ipm?: string } {
  const c0 = process.cpuUsage();
  const out: any = run(descriptor.input.parse({ mps, timeLimit: 600, method }), { seed: 1, progress() {} });
  const c = process.cpuUsage(c0);
  return { s: (c.user + c.system) / 1e6, obj: out.value - (out.result.objectiveConstant ?? 0), ok: out.precision.withinBound, status: out.result.status, ipm: out.result.ipm?.status };
}

const METHODS = (process.env.BENCH_LP_METHODS ?? 'simplex,ipm').split(',');
const FLOOR = Number(process.env.BENCH_LP_FLOOR ?? 0.05);
const selected: [string, string][] = [];
for (const [name, info] of Object.entries(ref)) {
  if (info.rows > MAX_ROWS) continue;
  if (only.length && !only.includes(name)) continue;
  const file = join(DATA, `${name === 'vtp.base' ? 'vtpbase' : name}.mps`);
  if (!existsSync(file)) { console.log(`${name}: missing (run node scripts/fetch-netlib.ts)`); continue; }
  selected.push([name, file]);
}
const glpkTimes = haveGlpk ? glpkAll(selected) : new Map<string, { s: number; obj: number }>();
console.log(`Netlib LP, problems of up to ${MAX_ROWS} rows; GLPK ${haveGlpk ? `yes (process floor ${glpkFloor.toFixed(3)} s subtracted)` : 'not installed'}, HiGHS (SciPy) ${haveScipy ? 'yes' : 'not installed'}; CPU seconds; machine shared with other jobs`);
console.log(`problem      rows  cols ${METHODS.map((m) => `${m.padStart(8)}_s`).join(' ')}   glpk_s  highs_s ${METHODS.map((m) => `${m}/glpk`.padStart(12)).join(' ')}  rel.err    certificate`);
const sum: Record<string, number> = {}, sumF: Record<string, number> = {}, solved: Record<string, number> = {};
let sumGlpk = 0, sumHighs = 0, total = 0;
const sumGlpkF: Record<string, number> = {};
const failures: string[] = [];
const ipmStalls: string[] = [];
const perProblem: { name: string; glpk: number; t: Record<string, number> }[] = [];
for (const [name, file] of selected) {
  const info = ref[name];
  total++;
  const mps = readFileSync(file, 'utf8');
  const res: Record<string, ReturnType<typeof ours>> = {};
  let h = { s: Infinity, obj: NaN };
  for (const method of METHODS) {
    let o = { s: Infinity, obj: NaN, ok: false, status: '' } as ReturnType<typeof ours>;
    for (let k = 0; k < REPS; k++) { const a = ours(mps, method); if (a.s < o.s) o = a; }
    res[method] = o;
  }
  if (haveScipy) for (let k = 0; k < REPS; k++) { const d = highs(mps); if (d.s < h.s) h = d; }
  const g = glpkTimes.get(name) ?? { s: NaN, obj: NaN };
  let worstRel = 0, allOk = true;
  for (const method of METHODS) {
    const o = res[method];
    const rel = Math.abs(o.obj - info.objective) / Math.abs(info.objective);
    worstRel = Math.max(worstRel, rel);
    const good = o.status === 'optimal' && rel <= 1e-6 && o.ok;
    allOk &&= o.ok;
    if (good) solved[method] = (solved[method] ?? 0) + 1; else failures.push(`${name} (${method})`);
    sum[method] = (sum[method] ?? 0) + o.s;
    if (haveGlpk && o.s > FLOOR && g.s > FLOOR) { sumF[method] = (sumF[method] ?? 0) + o.s; sumGlpkF[method] = (sumGlpkF[method] ?? 0) + g.s; }
    if (method === 'ipm' && o.ipm !== 'optimal') ipmStalls.push(`${name} (${o.ipm})`);
  }
  if (haveGlpk) sumGlpk += g.s;
  if (haveScipy) sumHighs += h.s;
  perProblem.push({ name, glpk: g.s, t: Object.fromEntries(METHODS.map((me) => [me, res[me].s])) });
  const m = parseMps(mps);
  console.log(`${name.padEnd(10)} ${String(m.nRows).padStart(5)} ${String(m.nCols).padStart(5)} ${METHODS.map((me) => res[me].s.toFixed(3).padStart(10)).join(' ')} ${g.s.toFixed(3).padStart(8)} ${h.s.toFixed(3).padStart(8)} ${METHODS.map((me) => (res[me].s / g.s).toFixed(2).padStart(12)).join(' ')}  ${worstRel.toExponential(1).padStart(8)}  ${allOk ? 'accepted' : 'REJECTED'}`);
}
for (const method of METHODS) console.log(`\n${method}: solved to the published objective within 1e-6 with an accepted certificate: ${solved[method] ?? 0}/${total}`);
if (failures.length) console.log(`not solved: ${failures.join(' ')}`);
if (METHODS.includes('ipm')) console.log(`IPM did not converge (the dual simplex finished from the slack basis): ${ipmStalls.length ? ipmStalls.join(' ') : 'none'}`);
console.log(`aggregate CPU s: ${METHODS.map((me) => `ours ${me} ${sum[me].toFixed(2)}`).join(', ')}, GLPK ${sumGlpk.toFixed(2)}, HiGHS ${sumHighs.toFixed(2)}`);
for (const method of METHODS) {
  if (haveGlpk) console.log(`ours ${method} / GLPK = ${(sum[method] / sumGlpk).toFixed(2)} over all ${total} (target ≤ 3); ${((sumF[method] ?? 0) / (sumGlpkF[method] ?? NaN)).toFixed(2)} over the problems where both take > ${FLOOR} s (ours ${(sumF[method] ?? 0).toFixed(2)} s, GLPK ${(sumGlpkF[method] ?? 0).toFixed(2)} s)`);
  if (haveScipy) console.log(`ours ${method} / HiGHS = ${(sum[method] / sumHighs).toFixed(2)}`);
  if (haveGlpk && perProblem.length) {
    // how much the aggregate rests on one problem, and the typical problem
    const top = perProblem.reduce((a, b) => (b.glpk > a.glpk ? b : a));
    const rest = perProblem.filter((p) => p !== top);
    const sOurs = rest.reduce((a, p) => a + p.t[method], 0), sG = rest.reduce((a, p) => a + p.glpk, 0);
    const ratios = perProblem.filter((p) => p.glpk >= 0.005).map((p) => p.t[method] / p.glpk).sort((a, b) => a - b);
    const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length);
    console.log(`  ours ${method} / GLPK without ${top.name} (GLPK's largest, ${top.glpk.toFixed(2)} s) = ${(sOurs / sG).toFixed(2)}; per problem (GLPK ≥ 5 ms, ${ratios.length}): median ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}, geometric mean ${geo.toFixed(2)}`);
  }
}

// MIPLIB (3) instances committed as test fixtures, with their published optimal objectives
// (MIPLIB 3 solution table, Bixby, Ceria, McZeal & Savelsbergh 1998): svc_lp's branch and bound
// (no cuts, no heuristics) within the mipGap 1e-4, against GLPK's branch and cut (--intopt).
const MIPLIB: [string, number][] = [['flugpl', 1201500], ['lseu', 1120], ['egout', 568.1007]];
if (!only.length || only.some((o) => MIPLIB.some(([m]) => m === o))) {
  console.log('\nMIPLIB       ours_s   glpk_s  objective         published   within gap');
  for (const [name, published] of MIPLIB) {
    if (only.length && !only.includes(name)) continue;
    const file = new URL(`../test/fixtures/lp/${name}.mps`, import.meta.url).pathname;
    const mps = readFileSync(file, 'utf8');
    const c0 = process.cpuUsage();
    let out: any = null, err = '';
    try { out = run(descriptor.input.parse({ mps, timeLimit: 300 }), { seed: 1, progress() {} }); } catch (e) { err = (e as Error).message; }
    const c = process.cpuUsage(c0);
    const s = (c.user + c.system) / 1e6;
    let gs = NaN;
    if (haveGlpk) {
      const r = spawnSync('bash', ['-c', `glpsol --mps '${file}' -o '${dir}/mip.out' > /dev/null 2>&1; times`], { encoding: 'utf8' });
      const child = r.stdout.trim().split('\n').pop()!.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
      gs = child ? Number(child[1]) * 60 + Number(child[2]) + Number(child[3]) * 60 + Number(child[4]) : NaN;
    }
    const ok = out && Math.abs(out.value - published) <= 1e-4 * Math.max(1, Math.abs(published));
    console.log(`${name.padEnd(10)} ${s.toFixed(2).padStart(8)} ${gs.toFixed(2).padStart(8)}  ${out ? String(out.value).padEnd(16) : err.slice(0, 40).padEnd(16)} ${String(published).padEnd(11)} ${ok ? 'yes' : 'NO'} ${out ? out.result.status + ', ' + out.result.nodes + ' nodes' : ''}`);
  }
}
rmSync(dir, { recursive: true, force: true });
