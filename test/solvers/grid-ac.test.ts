// grid with a given network: AC power flow on MATPOWER's 14-, 30-, 57- and 118-bus cases against
// MATPOWER's own solutions (test/fixtures/matpower/*.solution.json), the mismatch certificate,
// the branch model against a closed-form two-bus solution (tap, phase shift, charging, shunts),
// DC power flow against Kirchhoff's law and a dense solve, reactive limits, out-of-service and
// isolated elements, and the refusals: no slack bus, malformed tables, MATLAB code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { descriptor, run, EXAMPLE_CASE, EXAMPLE_NETWORK } from '../../src/solvers/grid.ts';
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.ts';
import { acMismatch } from '../../src/solvers/lib/pf-mismatch.ts';
import { parseMatpowerCase } from '../../src/solvers/lib/matpower.ts';
import { denseSolve } from './util.ts';

const DIR = new URL('../fixtures/matpower/', import.meta.url);
const CASES = ['case14', 'case30', 'case57', 'case118'] as const;
const text = (c: string) => readFileSync(new URL(`${c}.m`, DIR), 'utf8');
const solution = (c: string) => JSON.parse(readFileSync(new URL(`${c}.solution.json`, DIR), 'utf8'));
const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });
type Bus = { id: number; type: number; Vm: number; Va: number };
type Branch = { from: number; to: number; status: number; Pf: number; Qf: number; Pt: number; Qt: number; loss: number };
type Gen = { bus: number; status: number; Pg: number; Qg: number };
const R = (o: any) => o.result as { buses: Bus[]; branches: Branch[]; generators: Gen[]; mismatch: { P: number; Q: number }; iterations: number; [k: string]: any };

/** An independent reader for the test: the numeric rows between `mpc.NAME = [` and `];`. */
function tablesOf(src: string) {
  const table = (name: string) => {
    const m = new RegExp(`mpc\\.${name}\\s*=\\s*\\[([\\s\\S]*?)\\];`).exec(src)!;
    return m[1].split('\n').map((l) => l.split('%')[0].replace(/;\s*$/, '').trim()).filter(Boolean).map((l) => l.split(/\s+/).map(Number));
  };
  return { baseMVA: Number(/mpc\.baseMVA\s*=\s*([\d.]+)/.exec(src)![1]), bus: table('bus'), gen: table('gen'), branch: table('branch') };
}

/** A MATPOWER case text from tables. */
function caseText(t: { baseMVA: number; bus: number[][]; gen: number[][]; branch: number[][] }, extra = ''): string {
  const m = (rows: number[][]) => rows.map((r) => '\t' + r.join('\t') + ';').join('\n');
  return `function mpc = testcase\nmpc.version = '2';\nmpc.baseMVA = ${t.baseMVA};\nmpc.bus = [\n${m(t.bus)}\n];\nmpc.gen = [\n${m(t.gen)}\n];\nmpc.branch = [\n${m(t.branch)}\n];\n${extra}`;
}

function refused(body: Record<string, unknown>, pattern: RegExp, code = 'INVALID_INPUT'): SvcError {
  let err: unknown;
  try { solve(body); } catch (e) { err = e; }
  assert.ok(err instanceof SvcError, `expected a refusal matching ${pattern}, got ${err ? (err as Error).message : 'a result'}`);
  assert.equal(err.code, code, err.message);
  assert.match(err.message, pattern);
  return err;
}

test('acceptance: AC power flow of the four MATPOWER cases matches MATPOWER to 1e-4 pu and 0.01°, mismatch under 1e-8', () => {
  for (const c of CASES) {
    const ref = solution(c);
    const o = solve({ case: text(c) });
    const r = R(o);
    assert.equal(r.buses.length, ref.buses.length, c);
    let dVm = 0, dVa = 0;
    ref.buses.forEach((b: Bus, i: number) => {
      assert.equal(r.buses[i].id, b.id);
      assert.equal(r.buses[i].type, b.type);
      dVm = Math.max(dVm, Math.abs(r.buses[i].Vm - b.Vm));
      dVa = Math.max(dVa, Math.abs(r.buses[i].Va - b.Va));
    });
    assert.ok(dVm <= 1e-4, `${c}: Vm differs by ${dVm}`);
    assert.ok(dVa <= 0.01, `${c}: Va differs by ${dVa}°`);
    // the solutions agree far more closely than the acceptance bound (MATPOWER stops at 1e-8 pu)
    assert.ok(dVm <= 1e-7 && dVa <= 1e-5, `${c}: ${dVm} pu, ${dVa}°`);
    assert.ok(r.mismatch.P < 1e-8 && r.mismatch.Q < 1e-8, `${c}: mismatch ${JSON.stringify(r.mismatch)}`);
    assert.equal(o.precision.certificate, 'mismatch');
    assert.equal(o.precision.withinBound, true, c);
    assert.equal(r.converged, true);
    assert.ok(r.iterations >= ref.iterations && r.iterations <= ref.iterations + 1, `${c}: ${r.iterations} Newton iterations, MATPOWER ${ref.iterations}`);
    // branch flows and generator outputs against MATPOWER's (MW, MVAr)
    ref.branches.forEach((b: any, l: number) => {
      const ours = r.branches[l];
      assert.equal(ours.from, b.from); assert.equal(ours.to, b.to);
      for (const k of ['Pf', 'Qf', 'Pt', 'Qt'] as const) assert.ok(Math.abs(ours[k] - b[k]) < 1e-4, `${c} branch ${l} ${k}: ${ours[k]} vs ${b[k]}`);
      assert.ok(Math.abs(ours.loss - (b.Pf + b.Pt)) < 1e-4);
    });
    ref.generators.forEach((g: any, k: number) => {
      assert.equal(r.generators[k].bus, g.bus);
      assert.ok(Math.abs(r.generators[k].Pg - g.Pg) < 1e-4 && Math.abs(r.generators[k].Qg - g.Qg) < 1e-4, `${c} gen ${k}`);
    });
    // value: the largest branch active flow in pu
    const largest = Math.max(...ref.branches.map((b: any) => Math.max(Math.abs(b.Pf), Math.abs(b.Pt)))) / ref.baseMVA;
    assert.ok(Math.abs(o.value - largest) < 1e-6, `${c}: value ${o.value} vs ${largest}`);
    assert.ok(Math.abs(r.totalLoss - ref.branches.reduce((s: number, b: any) => s + b.Pf + b.Pt, 0)) < 1e-3);
  }
});

test('the certificate is independent: MATPOWER\'s own solutions pass it, a solution off by 1e-6 pu does not', () => {
  for (const c of CASES) {
    const t = parseMatpowerCase(text(c));
    const ref = solution(c);
    const m = acMismatch(t, ref);
    assert.ok(m.P < 1e-8 && m.Q < 1e-8, `${c}: MATPOWER's solution gives ${m.P}, ${m.Q}`);
    assert.ok(m.flowError < 1e-8, `${c}: MATPOWER's branch flows differ by ${m.flowError} pu`);
    const worse = structuredClone(ref);
    worse.buses[worse.buses.length - 1].Vm += 1e-6;
    const w = acMismatch(t, worse);
    assert.ok(Math.max(w.P, w.Q) > 1e-7, `${c}: a perturbed voltage gives ${w.P}, ${w.Q}`);
  }
});

test('JSON network tables give the same result as the case text', () => {
  for (const c of ['case14', 'case57'] as const) {
    const fromText = solve({ case: text(c) });
    const fromJson = solve({ network: tablesOf(text(c)) });
    const { case: name, ...rest } = R(fromText);
    assert.equal(name, c);
    assert.deepStrictEqual(R(fromJson), rest);
    assert.equal(fromJson.value, fromText.value);
    assert.deepStrictEqual(fromJson.precision, fromText.precision);
  }
});

test('a flat start reaches the same solution', () => {
  for (const c of ['case30', 'case118'] as const) {
    const a = R(solve({ case: text(c) })), b = R(solve({ case: text(c), start: 'flat' }));
    a.buses.forEach((bus, i) => {
      assert.ok(Math.abs(bus.Vm - b.buses[i].Vm) < 1e-9 && Math.abs(bus.Va - b.buses[i].Va) < 1e-7, `${c} bus ${bus.id}`);
    });
  }
});

test('the branch model matches the closed-form two-bus solution (tap, phase shift, line charging, GS and BS shunts)', () => {
  // slack bus 1 (Vm 1.02, Va 3°) feeds load bus 2 through a lossless branch with tap τ, shift φ and
  // charging b; bus 2 holds a load Pd + jQd and a shunt GS + jBS. With u = Vt², k = Vf/(τx) and
  // c = 1/x − BS − b/2 (pu), the to-end balance k·Vt·sin δ = −(Pd + GS·u), k·Vt·cos δ = c·u + Qd
  // (δ = θt − θf + φ) gives k²u = (c·u + Qd)² + (Pd + GS·u)², a quadratic in u.
  const base = 100, Vf = 1.02, thf = 3, x = 0.1, b = 0.04, tau = 0.97, phi = 5, Pd = 60, Qd = 25, Gs = 4, Bs = 8;
  const net = {
    baseMVA: base,
    bus: [[1, 3, 0, 0, 0, 0, 1, Vf, thf, 230, 1, 1.1, 0.9], [2, 1, Pd, Qd, Gs, Bs, 1, 1, 0, 230, 1, 1.1, 0.9]],
    gen: [[1, 0, 0, 999, -999, Vf, 100, 1, 999, 0]],
    branch: [[1, 2, 0, x, b, 0, 0, 0, tau, phi, 1, -360, 360]],
  };
  const o = solve({ network: net });
  const r = R(o);
  const p = Pd / base, q = Qd / base, gs = Gs / base, bs = Bs / base;
  const k = Vf / (tau * x), c = 1 / x - bs - b / 2;
  const A = c * c + gs * gs, B = 2 * q * c + 2 * p * gs - k * k, C = q * q + p * p;
  const u = (-B + Math.sqrt(B * B - 4 * A * C)) / (2 * A); // the high-voltage root
  const Vt = Math.sqrt(u);
  const delta = Math.atan2(-(p + gs * u), c * u + q);
  const tht = thf + (delta * 180) / Math.PI - phi;
  assert.ok(Math.abs(r.buses[1].Vm - Vt) < 1e-10, `Vm ${r.buses[1].Vm} vs ${Vt}`);
  assert.ok(Math.abs(r.buses[1].Va - tht) < 1e-8, `Va ${r.buses[1].Va} vs ${tht}`);
  assert.equal(r.buses[0].Va, thf, 'the slack keeps its angle');
  // from-end flows in closed form: Pf = −Pt (lossless), Qf = −(−1/x + b/2)·Vf²/τ² − k·Vt·(−cos δf)/x·x …
  const df = ((thf - tht - phi) * Math.PI) / 180;
  const PfRef = ((Vf * Vt) / (tau * x)) * Math.sin(df) * base;
  const QfRef = ((1 / x - b / 2) * (Vf * Vf) / (tau * tau) - ((Vf * Vt) / (tau * x)) * Math.cos(df)) * base;
  assert.ok(Math.abs(r.branches[0].Pf - PfRef) < 1e-7 && Math.abs(r.branches[0].Qf - QfRef) < 1e-7, JSON.stringify(r.branches[0]));
  assert.ok(Math.abs(r.branches[0].loss) < 1e-8, 'no series resistance, no active loss');
  assert.ok(Math.abs(r.generators[0].Pg - r.branches[0].Pf) < 1e-8 && Math.abs(r.generators[0].Qg - r.branches[0].Qf) < 1e-8);
  assert.equal(o.precision.withinBound, true);
});

test('DC power flow: flows satisfy Kirchhoff\'s law and the angles solve B·θ = P (dense check), phase shifters and taps included', () => {
  const t = tablesOf(text('case30'));
  t.branch[5][9] = -4; // a phase shifter, degrees
  t.branch[7][8] = 0.95; // and a tap
  t.bus[3][4] = 2.5; // a GS shunt (MW at V = 1)
  const o = solve({ network: t, method: 'dc' });
  const r = R(o);
  assert.equal(o.method, 'dc-power-flow');
  assert.equal(o.precision.withinBound, true);
  assert.equal(r.mismatch.Q, 0);
  const idx = new Map(t.bus.map((b, i) => [b[0], i]));
  const n = t.bus.length;
  // Kirchhoff: generation − load − GS = flows leaving, at every bus (MW)
  const bal = t.bus.map((b) => -b[2] - b[4]);
  r.generators.forEach((g) => { bal[idx.get(g.bus)!] += g.Pg; });
  r.branches.forEach((br) => { bal[idx.get(br.from)!] -= br.Pf; bal[idx.get(br.to)!] -= br.Pt; assert.equal(br.Pt, -br.Pf); assert.equal(br.Qf, 0); });
  assert.ok(Math.max(...bal.map(Math.abs)) < 1e-9, `KCL residual ${Math.max(...bal.map(Math.abs))} MW`);
  // every flow is (θf − θt − φ)/(x·τ)
  r.branches.forEach((br, l) => {
    const row = t.branch[l];
    const th = (id: number) => (r.buses[idx.get(id)!].Va * Math.PI) / 180;
    const f = ((th(br.from) - th(br.to) - (row[9] * Math.PI) / 180) / (row[3] * (row[8] || 1))) * t.baseMVA;
    assert.ok(Math.abs(br.Pf - f) < 1e-9, `branch ${l}`);
  });
  // the angles from a dense solve of B·θ = P with the slack angle fixed
  const slack = t.bus.findIndex((b) => b[1] === 3);
  const B = Array.from({ length: n }, () => new Array(n).fill(0));
  const P = t.bus.map((b) => (-b[2] - b[4]) / t.baseMVA);
  t.gen.forEach((g) => { P[idx.get(g[0])!] += g[1] / t.baseMVA; });
  t.branch.forEach((row) => {
    const f = idx.get(row[0])!, to = idx.get(row[1])!, y = 1 / (row[3] * (row[8] || 1)), s = (row[9] * Math.PI) / 180;
    B[f][f] += y; B[to][to] += y; B[f][to] -= y; B[to][f] -= y;
    P[f] += y * s; P[to] -= y * s;
  });
  const keep = [...Array(n).keys()].filter((i) => i !== slack);
  const th = denseSolve(keep.map((i) => keep.map((j) => B[i][j])), keep.map((i) => P[i]));
  keep.forEach((i, k) => assert.ok(Math.abs(r.buses[i].Va - (th[k] * 180) / Math.PI) < 1e-9, `bus ${t.bus[i][0]}`));
  r.buses.forEach((b) => assert.equal(b.Vm, 1));
});

test('reactive limits: PV buses switch to PQ as in MATPOWER (slack moved and its angle restored), all limits then hold', () => {
  // case14: the slack's generator (QMIN 0) absorbs 16.5 MVAr, so it is fixed at QMIN and bus 2 becomes the slack
  const o = solve({ case: text('case14'), enforceQLimits: true });
  const r = R(o);
  assert.equal(o.precision.withinBound, true);
  assert.deepEqual(r.qLimited, [{ bus: 1, generator: 0, limit: 'min' }]);
  assert.equal(r.slackBus, 2);
  assert.equal(r.originalSlackBus, 1);
  assert.equal(r.buses[0].Va, 0, 'the original slack keeps its angle');
  assert.equal(r.buses[0].type, 1);
  assert.equal(r.buses[1].type, 3);
  assert.equal(r.generators[0].Qg, 0);
  const t = tablesOf(text('case14'));
  r.generators.forEach((g, k) => assert.ok(g.Qg <= t.gen[k][3] + 5e-6 && g.Qg >= t.gen[k][4] - 5e-6, `gen ${k}: ${g.Qg}`));
  assert.ok(r.mismatch.P < 1e-8 && r.mismatch.Q < 1e-8);
  // generator voltage setpoints still hold at the remaining PV buses
  for (const k of [1, 2, 3, 4]) assert.ok(Math.abs(r.buses[t.gen[k][0] - 1].Vm - t.gen[k][5]) < 1e-12);
  // case118: several generators reach a limit
  const o2 = solve({ case: text('case118'), enforceQLimits: true });
  const r2 = R(o2);
  assert.equal(o2.precision.withinBound, true);
  assert.ok(r2.qLimited.length >= 3, `${r2.qLimited.length} generators at a limit`);
  const t118 = tablesOf(text('case118'));
  r2.generators.forEach((g, k) => assert.ok(g.Qg <= t118.gen[k][3] + 5e-6 && g.Qg >= t118.gen[k][4] - 5e-6, `118 gen ${k}`));
  for (const q of r2.qLimited) assert.equal(r2.generators[q.generator].Qg, t118.gen[q.generator][q.limit === 'max' ? 3 : 4]);
  // no solution within the limits: every PV and slack generator violates its maximum
  const tight = tablesOf(text('case14'));
  tight.gen.forEach((g) => { g[3] = -100; g[4] = -200; });
  const o3 = solve({ network: tight, enforceQLimits: true });
  assert.equal(R(o3).qLimitsInfeasible, true);
  assert.equal(o3.precision.withinBound, false);
});

test('out-of-service rows, an isolated bus and a PV bus without generator are handled as MATPOWER does', () => {
  const t = tablesOf(text('case14'));
  const m = structuredClone(t);
  m.branch[6][10] = 0; // 4-5 out of service (the network stays connected)
  m.gen[4][7] = 0; // the generator of PV bus 8 off: bus 8 is solved as PQ
  m.bus.push([15, 4, 10, 5, 0, 0, 1, 1, 0, 0, 1, 1.06, 0.94]); // an isolated bus,
  m.branch.push([14, 15, 0.1, 0.2, 0, 0, 0, 0, 0, 0, 1, -360, 360]); // its in-service branch (left out)
  m.gen.push([15, 10, 0, 10, -10, 1, 100, 1, 20, 0]); // and its generator (left out)
  const o = solve({ network: m });
  const r = R(o);
  assert.equal(o.precision.withinBound, true);
  assert.deepEqual(r.pvWithoutGenerator, [8]);
  assert.deepEqual(r.outOfService, { generators: 2, branches: 2 });
  assert.equal(r.branches[6].status, 0);
  assert.equal(r.branches[6].Pf, 0);
  assert.equal(r.generators[4].Pg, 0);
  assert.equal(r.buses[14].type, 4);
  // the same network written without those rows and with bus 8 as PQ
  const e = structuredClone(t);
  e.branch.splice(6, 1);
  e.gen.splice(4, 1);
  e.bus[7][1] = 1;
  const re = R(solve({ network: e }));
  re.buses.forEach((b, i) => assert.ok(Math.abs(b.Vm - r.buses[i].Vm) < 1e-9 && Math.abs(b.Va - r.buses[i].Va) < 1e-7, `bus ${b.id}`));
});

test('two generators at one bus share its reactive output in proportion to their ranges', () => {
  const t = tablesOf(text('case14'));
  const single = R(solve({ network: t }));
  const m = structuredClone(t);
  const g2 = m.gen[1];
  m.gen[1] = [...g2]; m.gen[1][1] = 25; m.gen[1][3] = 30; m.gen[1][4] = -10;
  const extra = [...g2]; extra[1] = 15; extra[3] = 20; extra[4] = -30;
  m.gen.push(extra);
  const r = R(solve({ network: m }));
  r.buses.forEach((b, i) => assert.ok(Math.abs(b.Vm - single.buses[i].Vm) < 1e-10 && Math.abs(b.Va - single.buses[i].Va) < 1e-8));
  const total = single.generators[1].Qg;
  assert.ok(Math.abs(r.generators[1].Qg + r.generators[5].Qg - total) < 1e-8, 'the bus total is kept');
  const share = (total - (-10 - 30)) / (30 + 20 - (-10 - 30));
  assert.ok(Math.abs(r.generators[1].Qg - (-10 + share * 40)) < 1e-8, `${r.generators[1].Qg}`);
  assert.ok(Math.abs(r.generators[5].Qg - (-30 + share * 50)) < 1e-8);
});

test('a case without a slack bus is a 400 (not repaired); so are two slacks, an island and a slack without generator', () => {
  const t = tablesOf(text('case14'));
  const noSlack = structuredClone(t); noSlack.bus[0][1] = 2;
  const e = refused({ case: caseText(noSlack) }, /case, line 4: .*no slack bus/);
  assert.equal((e.details as any).line, 4);
  refused({ network: noSlack }, /network\.bus: .*no slack bus/);
  const two = structuredClone(t); two.bus[1][1] = 3;
  refused({ case: caseText(two) }, /case, line 6: .*second slack bus/);
  const island = structuredClone(t); island.branch = island.branch.filter((b) => b[0] !== 13 && b[1] !== 13 && b[1] !== 14 && b[0] !== 14);
  refused({ network: island }, /bus 13 is not connected to the slack/);
  const noGen = structuredClone(t); noGen.gen[0][7] = 0;
  refused({ network: noGen }, /network\.bus\[0\]: the slack bus 1 has no in-service generator/);
});

test('malformed tables are 400s naming the line', () => {
  const good = caseText(tablesOf(text('case14')));
  const lines = good.split('\n');
  const edit = (lineNo: number, f: (l: string) => string) => lines.map((l, i) => (i === lineNo - 1 ? f(l) : l)).join('\n');
  // bus rows are lines 5..18, gen rows 21..25, branch rows 28..47
  const cases: [string, RegExp][] = [
    [edit(7, (l) => l.replace(/\t[^\t]*;$/, ';')), /line 7: this row of mpc\.bus has 12 values, the rows above have 13/],
    [edit(8, (l) => l.replace('\t0\t', '\tabc\t')), /line 8: .*'abc' inside a matrix/],
    [edit(9, (l) => l.replace(/^\t(\d+)\t1\t/, '\t$1\t7\t')), /line 9: bus 5: type .* got 7/],
    [edit(22, (l) => l.replace(/^\t2\t/, '\t99\t')), /line 22: generator at bus 99, which is not in the bus table/],
    [edit(30, (l) => l.replace(/^\t2\t3\t/, '\t2\t77\t')), /line 30: branch to bus 77/],
    [edit(6, (l) => l.replace(/^\t2\t/, '\t1\t')), /line 6: bus 1 is defined twice/],
    [edit(31, (l) => l.replace(/^\t(\S+)\t(\S+)\t(\S+)\t(\S+)\t/, '\t$1\t$2\t0\t0\t')), /line 31: branch 2-4 has zero impedance/],
    [edit(29, (l) => l.replace(/\t1\t-360\t360;$/, '\t2\t-360\t360;')), /line 29: status must be 0 .* or 1/],
    [edit(10, (l) => l.replace(/\t1\.06\t0\.94;$/, '\t1e\t0.94;')), /line 10: '1e' is not a number/],
    [edit(11, (l) => l.replace(/\t0\t1\t/, '\t3i\t1\t')), /line 11: '3i' is a complex number/],
    [edit(12, (l) => l.replace(/\t1\t/, '\tNaN\t')), /line 12: bus column \d+ \(\w+\) is not a number/],
    [edit(13, (l) => l.replace(/^\t(\d+)\t1\t\S+\t/, '\t$1\t1\tInf\t')), /line 13: bus column 3 \(PD\) must be finite/],
    [good.replace('];\nmpc.gen', '\nmpc.gen'), /line 20: the name 'mpc' inside a matrix/],
    [good + 'mpc.gencost = [1 2 3\n', /line 49: the matrix opened here with \[ is not closed by \]/],
    [good.replace(/mpc\.gen = \[[\s\S]*?\];\n/, ''), /no mpc\.gen table/],
    [good.replace("mpc.version = '2';", "mpc.version = '1';"), /line 2: mpc\.version must be '2'/],
    [good.replace('mpc.baseMVA = 100;', 'mpc.baseMVA = -100;'), /line 3: mpc\.baseMVA must be a positive/],
    [good.replace('\t1\t3\t', '\t1.5\t3\t'), /line 5: bus number .* positive integer/],
    [good + "mpc.bus_name = { 'a'; 'b\n};", /line 49: text starting with ' is not closed/],
  ];
  for (const [src, pattern] of cases) {
    const e = refused({ case: src }, pattern);
    assert.match(e.message, /^case, line \d+: /, e.message);
  }
  // in JSON, the row is named by its path
  const t = tablesOf(text('case14'));
  t.branch[3] = t.branch[3].slice(0, 9);
  refused({ network: t }, /network\.branch\[3\]: a branch row has 11 to 21 columns/);
  // a case with more than 10,000 buses is refused at the line of the 10,001st row
  const big = 'mpc.baseMVA = 100;\nmpc.bus = [\n' + Array.from({ length: 10_001 }, (_, i) => `${i + 1} 1 0 0 0 0 1 1 0 0 1 1.1 0.9`).join('\n') + '\n];';
  refused({ case: big }, /line 10003: mpc\.bus has more than 10,000 rows/);
});

test('a case that runs MATLAB code is a 400 naming the line', () => {
  const good = caseText(tablesOf(text('case14')));
  const codes: [string, RegExp][] = [
    [good + 'mpc.bus(3, 5) = 20;\n', /line 49: indexing into 'mpc\.bus'/],
    [good + 'for i = 1:3\n  mpc.bus(i, 3) = 0;\nend\n', /line 49: the statement 'for' is MATLAB code/],
    [good + 'x = 5;\n', /line 49: the assignment to the variable 'x'/],
    [good.replace(/mpc\.gen = \[[\s\S]*?\];/, 'mpc.gen = gen_data;'), /line 20: the expression 'gen_data'/],
    [good.replace('mpc.baseMVA = 100;', 'mpc.baseMVA = 50*2;'), /line 3: '\*' after the value/],
    [good.replace('mpc.baseMVA = 100;', 'mpc.baseMVA = 50 + 50;'), /line 3: '\+' after the value/],
    [good.replace(/(mpc\.gen = \[[\s\S]*?\])/, "$1'"), /line 26: a transpose/],
    [good.replace(/mpc\.branch = \[[\s\S]*?\];/, "mpc.branch = load('branches.mat');"), /line 27: the function call or index 'load\(…\)'/],
    [good.replace(/\t0\.01938\t/, '\t0.01938*2\t'), /line 28: the operator '\*' inside a matrix/],
    [good.replace(/\t0\.01938\t/, '\t0.02 - 0.00062\t'), /line 28: the operator '-' inside a matrix/],
    [good.replace(/\t0\.01938\t/, '\tsqrt(2)\t'), /line 28: the call or index 'sqrt\(…\)' inside a matrix/],
    [good + 'disp hello\n', /line 49: the command 'disp'/],
    [good + 'mpc.dcline = [1 2 1 10 10 0 0 1.01 1 0 100 -100 100 -100 100 0 0];\n', /line 49: the field 'mpc\.dcline' is not supported/],
    [good.replace('function mpc = testcase', 'function mpc = testcase(n)'), /line 1: a function with input arguments/],
    [good + 'mpc.bus = [];\n', /line 49: 'mpc\.bus' is assigned a second time/],
    [good + "eval('mpc.baseMVA = 1');\n", /line 49: the function call or index 'eval\(…\)'/],
    [good + 'mpc.bus(:, 3) = mpc.bus(:, 3) * 1.1;\n', /line 49: indexing into 'mpc\.bus'/],
  ];
  for (const [src, pattern] of codes) refused({ case: src }, pattern);
});

test('every literal form MATLAB allows reads as the plain case does', () => {
  const plain = text('case14');
  const plainOut = solve({ case: plain });
  // numbers in other literal forms, comments, continuations, commas and ';' separated rows
  let odd = plain
    .replace('mpc.baseMVA = 100;', 'mpc.baseMVA = 1e2; % the base\n%{\nmpc.bus = rubbish( ;\n%}')
    .replace('\t1\t3\t0\t0\t0\t0\t1\t1.06\t0\t', '\t0x1\t0b11\t0\t0\t+0\t.0\t1u8\t1.06\t0.0\t'.replace('1u8', '0x01u8'))
    .replace('\t2\t2\t21.7\t12.7\t', '\t2, 2, 2.17d1, 127E-1,')
    .replace(/\t3\t2\t94\.2\t19\t0\t0\t1\t1\.01\t-12\.72\t0\t1\t1\.06\t0\.94;\n\t4/, '\t3\t2\t94.2\t19\t0\t0\t1\t1.01\t-12.72\t0\t1\t1.06\t0.94; 4')
    .replace('\t5\t1\t7.6\t1.6\t', '\t5\t1\t7.6 ...  a continuation\n\t1.6\t')
    .replace(/\t1\t232\.4\t-16\.9\t10\t0\t/, '\t1\t232.4\t-16.9\t10\t-0\t');
  // Inf where MATPOWER allows it (a generator's reactive limit) changes nothing without Q limits
  odd = odd.replace(/\t8\t0\t17\.4\t24\t-6\t/, '\t8\t0\t17.4\tInf\t-Inf\t');
  for (const form of ['0x1\t0b11', '0x01u8', '2.17d1', '127E-1', '.0', '94.2\t19\t0\t0\t1\t1.01\t-12.72\t0\t1\t1.06\t0.94; 4', '...', '%{', 'Inf\t-Inf']) assert.ok(odd.includes(form), form);
  const oddOut = solve({ case: odd });
  assert.deepStrictEqual(R(oddOut).buses, R(plainOut).buses);
  assert.deepStrictEqual(R(oddOut).branches, R(plainOut).branches);
  // Windows line ends, and the function closed by end or endfunction
  for (const variant of [plain.replace(/\n/g, '\r\n'), plain + '\nend\n', plain + '\nendfunction']) {
    assert.deepStrictEqual(R(solve({ case: variant })).buses, R(plainOut).buses);
  }
  refused({ case: plain + '\nend\nmpc.baseMVA = 10;\n' }, /after the end of the function/);
  // gencost, bus_name, areas are accepted and ignored
  const withExtras = caseText(tablesOf(plain), "mpc.gencost = [2 0 0 3 0.1 20 0];\nmpc.areas = [1 1];\nmpc.gentype = {'ST'; 'NG'};\n");
  assert.deepStrictEqual(R(solve({ case: withExtras })).buses, R(plainOut).buses);
});

test('fields that do not apply are 400s: synthetic-network fields with a case, both case and network, AC options with DC', () => {
  const c = text('case14');
  for (const k of ['N', 'chords', 'reactance', 'seed']) refused({ case: c, [k]: 5 }, new RegExp(`^${k} describes the synthetic network`));
  refused({ network: tablesOf(c), N: 10 }, /^N describes the synthetic network .* given network/);
  refused({ case: c, network: tablesOf(c) }, /not both/);
  refused({ case: c, method: 'dc', enforceQLimits: false }, /enforceQLimits applies to AC power flow only/);
  refused({ case: c, method: 'dc', start: 'flat' }, /start applies to AC power flow only/);
  refused({ method: 'ac' }, /method applies to a given network/);
  refused({ N: 10, enforceQLimits: true }, /enforceQLimits applies to a given network/);
  // DC is the synthetic network's method anyway, so saying so is accepted
  assert.deepStrictEqual(solve({ N: 10, method: 'dc' }, 3), solve({ N: 10 }, 3));
  assert.equal(descriptor.input.safeParse({ method: 'newton' }).success, false);
});

test('no input gives a raw exception: a heavily overloaded case is refused or reported out of bound', () => {
  const t = tablesOf(text('case14'));
  for (const factor of [3, 6, 20]) {
    const m = structuredClone(t);
    m.bus.forEach((b) => { b[2] *= factor; b[3] *= factor; });
    try {
      const o = solve({ network: m });
      if (R(o).converged) assert.equal(o.precision.withinBound, true);
      else assert.equal(o.precision.withinBound, false, `factor ${factor}: not converged but within bound`);
      for (const b of R(o).buses) assert.ok(Number.isFinite(b.Vm) && Number.isFinite(b.Va));
    } catch (e) {
      assert.ok(e instanceof SvcError && e.code === 'UNSTABLE', `factor ${factor}: ${(e as Error).message}`);
    }
  }
  // random text never escapes as anything but a 400
  for (const junk of ['', 'mpc', '%', '[', 'mpc.bus = [1 2', "'", 'function', 'mpc.bus = {', '0x', '1..2', 'mpc.baseMVA = 100;\nmpc.bus = [];\nmpc.gen = [];\nmpc.branch = [];']) {
    if (junk === '') { assert.equal(descriptor.input.safeParse({ case: junk }).success, false); continue; }
    refused({ case: junk }, /./);
  }
  // a 300,000-character name is cut in the message; a row of 2,000 values stops at 1,000
  assert.ok(refused({ case: 'x'.repeat(300_000) }, /line 1: the command 'x+… is MATLAB code/).message.length < 300);
  refused({ case: `mpc.bus = [${'1 '.repeat(2000)}];` }, /line 1: a row of mpc\.bus has more than 1000 values/);
});

test('the OpenAPI examples (a three-bus case as text and as JSON) solve to the same certified result', () => {
  const a = solve({ case: EXAMPLE_CASE }), b = solve({ network: EXAMPLE_NETWORK });
  assert.equal(a.precision.withinBound, true);
  const { case: name, ...rest } = R(a);
  assert.equal(name, 'case3');
  assert.deepStrictEqual(R(b), rest);
  const js = JSON.stringify(z.toJSONSchema(descriptor.input, { io: 'input', unrepresentable: 'any' }));
  assert.ok(js.includes('"examples"') && js.includes('function mpc = case3'));
});
