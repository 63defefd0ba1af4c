// sat, the search techniques of issue 32 (src/solvers/lib/cdcl.ts): learnt-clause tiers with their
// reduction policy, focused/stable mode switching with target phases and rephasing, and
// vivification of learnt clauses. Each is run on its own and all together on small formulas
// (random 3-SAT around the threshold, pigeonhole, Tseitin parity, the committed SATLIB instances):
// every verdict agrees with MiniSat run here; every model satisfies the original clauses; every
// UNSAT proof passes the node's checker (backward, core-first) and drat-trim in FORWARD mode (`-f`:
// every lemma checked, vivified clauses included, not only the core), built from its public
// sources when the mirror is here (bench/sat.bench.ts builds the same binary). The stats show that
// each technique actually ran on these formulas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDimacs } from '../../src/solvers/lib/dimacs.ts';
import { solveSat, type SatOptions } from '../../src/solvers/lib/sat/solve.ts';
import { dratText } from '../../src/solvers/lib/drat-text.ts';
import { checkDrat } from '../../src/solvers/lib/drat-check.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { needsSystemTool } from '../system-tools.ts';
import { pigeonhole } from './sat-instances.ts';

const MINISAT_SKIP = needsSystemTool('/usr/bin/minisat', 'the MiniSat verdict comparisons', 'apt-get update && apt-get install -y minisat');
const tmp = mkdtempSync(join(tmpdir(), 'satinproc-'));

/** drat-trim on the PATH, built earlier by the bench, or built here from the fetched mirror */
function dratTrim(): string | null {
  if (spawnSync('sh', ['-c', 'command -v drat-trim']).status === 0) return 'drat-trim';
  const built = '/tmp/sat-drat-trim/drat-trim';
  if (existsSync(built)) return built;
  const mirror = '/work/.mirror/marijnheule+drat-trim/repo';
  if (!existsSync(mirror)) return null;
  const src = spawnSync('git', ['--git-dir', mirror, 'show', 'HEAD:drat-trim.c'], { maxBuffer: 1 << 26 });
  if (src.status !== 0) return null;
  mkdirSync('/tmp/sat-drat-trim', { recursive: true });
  writeFileSync('/tmp/sat-drat-trim/drat-trim.c', src.stdout);
  return spawnSync('gcc', ['-O2', '-o', built, '/tmp/sat-drat-trim/drat-trim.c']).status === 0 ? built : null;
}
const DRAT_TRIM = dratTrim();
if (!DRAT_TRIM) process.stderr.write('\n*** drat-trim not available (no mirror of github:marijnheule/drat-trim, or no gcc): proofs here are checked by the node\'s checker only ***\n\n');

function random3Sat(n: number, m: number, seed: number): number[][] {
  const rng = createRng(seed);
  const out: number[][] = [];
  for (let c = 0; c < m; c++) {
    const vs = new Set<number>();
    while (vs.size < 3) vs.add(rng.int(n) + 1);
    out.push([...vs].map((v) => (rng.next() < 0.5 ? -v : v)));
  }
  return out;
}
/** Tseitin parity on a w×h torus: a variable per edge, each vertex's edges XOR to its charge;
 * unsatisfiable exactly when the charges sum to 1 */
function tseitinTorus(w: number, h: number, odd: boolean): number[][] {
  const id = (x: number, y: number, d: number) => 2 * ((y % h) * w + (x % w)) + d + 1;
  const out: number[][] = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const vs = [id(x, y, 0), id(x, y, 1), id(x + w - 1, y, 0), id(x, y + h - 1, 1)];
    const parity = odd && x === 0 && y === 0 ? 1 : 0;
    for (let mask = 0; mask < 16; mask++) {
      let ones = 0; for (let k = 0; k < 4; k++) ones += (mask >> k) & 1;
      if ((ones & 1) === parity) continue; // forbid assignments of the wrong parity
      out.push(vs.map((v, k) => ((mask >> k) & 1 ? -v : v)));
    }
  }
  return out;
}
const dimacs = (n: number, cls: number[][]) => `p cnf ${n} ${cls.length}\n${cls.map((c) => c.join(' ') + ' 0').join('\n')}\n`;

interface Inst { name: string; text: string }
const fixtures = new URL('../fixtures/sat/', import.meta.url).pathname;
const INSTANCES: Inst[] = [
  ...[1, 2, 3, 4, 5, 6].map((s) => ({ name: `random n=120 seed ${s}`, text: dimacs(120, random3Sat(120, 520, s)) })),
  { name: 'pigeonhole 7', text: dimacs(56, pigeonhole(7)) },
  { name: 'Tseitin 4x4 odd', text: dimacs(32, tseitinTorus(4, 4, true)) },
  { name: 'Tseitin 5x4 even', text: dimacs(40, tseitinTorus(5, 4, false)) },
  ...readdirSync(fixtures).filter((f) => f.endsWith('.cnf')).sort().map((f) => ({ name: f, text: readFileSync(join(fixtures, f), 'utf8') })),
];

const CONFIGS: Record<string, SatOptions> = {
  'seed code (Luby, no vivification)': { restarts: 'luby', vivify: false },
  'tiers + vivification (Luby)': { restarts: 'luby', vivify: true },
  'modes, no target phases': { restarts: 'modes', target: false, vivify: false },
  'modes + target phases + rephasing': { restarts: 'modes', target: true, vivify: false },
  'all (the default)': {},
};

function minisatVerdict(text: string, name: string): string {
  const f = join(tmp, name.replace(/\W+/g, '_') + '.cnf');
  // MiniSat refuses SATLIB's `%` end line
  writeFileSync(f, text.replace(/^%[\s\S]*$/m, ''));
  const rc = spawnSync('minisat', ['-verb=0', f]).status;
  return rc === 10 ? 'SAT' : rc === 20 ? 'UNSAT' : '?';
}

test('each technique alone and all together: verdicts agree with MiniSat, models hold, proofs pass the node\'s checker and drat-trim -f', { skip: MINISAT_SKIP }, () => {
  const ran = { vivified: 0, vivifiedLits: 0, modeSwitches: 0, rephases: 0, reductions: 0 };
  let sat = 0, unsat = 0, forward = 0;
  for (const inst of INSTANCES) {
    const cnf = parseDimacs(inst.text);
    const expected = minisatVerdict(inst.text, inst.name);
    assert.notEqual(expected, '?', `${inst.name}: MiniSat decides it`);
    for (const [label, opts] of Object.entries(CONFIGS)) {
      const r = solveSat(cnf.vars, cnf.lits, { seed: 7, ...opts });
      const what = `${inst.name}, ${label}`;
      assert.equal(r.status, expected, `${what}: MiniSat says ${expected}`);
      if (label === 'all (the default)') {
        for (const k of Object.keys(ran) as (keyof typeof ran)[]) ran[k] += r.stats[k];
      }
      if (r.status === 'SAT') {
        sat++;
        let bad = 0, ok = false;
        for (const l of cnf.lits) {
          if (l === 0) { if (!ok) bad++; ok = false; continue; }
          if ((r.model![Math.abs(l) - 1] === 1) === l > 0) ok = true;
        }
        assert.equal(bad, 0, `${what}: the model satisfies every original clause`);
        continue;
      }
      unsat++;
      const text = dratText(r.proof!);
      const c = checkDrat(cnf.vars, cnf.lits, text);
      assert.equal(c.ok, true, `${what}: the node's checker: ${c.reason}`);
      if (DRAT_TRIM) {
        const cf = join(tmp, 'f.cnf'), pf = join(tmp, 'f.drat');
        writeFileSync(cf, inst.text.replace(/^%[\s\S]*$/m, ''));
        writeFileSync(pf, text);
        const d = spawnSync(DRAT_TRIM, [cf, pf, '-f', '-t', '100'], { encoding: 'utf8' });
        assert.match(d.stdout, /s VERIFIED/, `${what}: drat-trim -f: ${d.stdout.slice(-400)}`);
        forward++;
      }
    }
  }
  assert.ok(sat >= 10 && unsat >= 10, `both verdicts occur (${sat} SAT, ${unsat} UNSAT runs)`);
  // every technique ran on these formulas
  assert.ok(ran.reductions > 0, 'clause database reductions ran');
  assert.ok(ran.vivified > 0 && ran.vivifiedLits >= ran.vivified, `vivification shortened clauses (${ran.vivified} clauses, ${ran.vivifiedLits} literals)`);
  assert.ok(ran.modeSwitches > 0, 'focused/stable switches happened');
  assert.ok(ran.rephases > 0, 'rephasing happened');
  if (DRAT_TRIM) assert.ok(forward >= 10);
});

test('the default search is deterministic: same formula and seed, same verdict, stats and proof', () => {
  const cnf = parseDimacs(dimacs(56, pigeonhole(7)));
  const a = solveSat(cnf.vars, cnf.lits, { seed: 3 });
  const b = solveSat(cnf.vars, cnf.lits, { seed: 3 });
  assert.deepEqual(a.stats, b.stats);
  assert.deepEqual(a.proof, b.proof);
  assert.ok(a.stats.vivified > 0 && a.stats.modeSwitches > 0);
});

test('failed-literal probing (opt-in): finds the failed literals of hidden gadgets; the units are RUP in the proof', () => {
  // pigeonhole 7 (the hard, unsatisfiable part) plus 20 gadgets a → b, a → c, b ∧ c → d, b ∧ c → ¬d:
  // a is a failed literal. The default phase (false) satisfies each gadget, so the search alone
  // never learns ¬a; probing tries both signs. (Elimination off: it would resolve the gadgets away.)
  const cls = pigeonhole(7);
  let n = 56;
  for (let g = 0; g < 20; g++) { const a = ++n, b = ++n, c = ++n, d = ++n; cls.push([-a, b], [-a, c], [-b, -c, d], [-b, -c, -d]); }
  const text = dimacs(n, cls);
  const cnf = parseDimacs(text);
  const r = solveSat(cnf.vars, cnf.lits, { seed: 7, elim: false, probe: true });
  assert.equal(r.status, 'UNSAT');
  assert.equal(r.stats.failedLiterals, 20, 'every gadget\'s a found failed');
  const proof = dratText(r.proof!);
  // each gadget's unit ¬a is in the proof
  const units = new Set(proof.split('\n').filter((l) => /^-?\d+ 0$/.test(l)).map((l) => Number(l.split(' ')[0])));
  for (let g = 0; g < 20; g++) assert.ok(units.has(-(57 + 4 * g)), `the unit -${57 + 4 * g} is in the proof`);
  assert.equal(checkDrat(cnf.vars, cnf.lits, proof).ok, true);
  if (DRAT_TRIM) {
    const cf = join(tmp, 'g.cnf'), pf = join(tmp, 'g.drat');
    writeFileSync(cf, text); writeFileSync(pf, proof);
    assert.match(spawnSync(DRAT_TRIM, [cf, pf, '-f', '-t', '100'], { encoding: 'utf8' }).stdout, /s VERIFIED/);
  }
  // without probing the search learns none of them as such
  const plain = solveSat(cnf.vars, cnf.lits, { seed: 7, elim: false });
  assert.equal(plain.status, 'UNSAT');
  assert.equal(plain.stats.failedLiterals, 0);
});

/** every variable v gets a copy v + n with v ≡ v + n (two binary clauses); every second literal
 * occurrence of the formula is written with the copy */
function withCopies(n: number, cls: number[][]): { n: number; cls: number[][] } {
  const out: number[][] = [];
  let k = 0;
  for (const c of cls) out.push(c.map((l) => (k++ % 2 ? (l > 0 ? l + n : l - n) : l)));
  for (let v = 1; v <= n; v++) out.push([-v, v + n], [v, -(v + n)]);
  return { n: 2 * n, cls: out };
}

test('equivalent-literal substitution (opt-in): hidden copies found and replaced; models hold on the original clauses; proofs pass both checkers', () => {
  const cases = [
    { name: 'pigeonhole 7 with copies', ...withCopies(56, pigeonhole(7)), substituted: 56 },
    ...[1, 2, 3, 4, 5].map((s) => ({ name: `random n=100 seed ${s} with copies`, ...withCopies(100, random3Sat(100, 420, s)), substituted: 100 })),
    // 1 → 2 → ¬1 and ¬1 → 3 → 1: the class of 1 holds ¬1
    { name: 'x ≡ ¬x', n: 4, cls: [[-1, 2], [-2, -1], [1, 3], [-3, 1], [2, 3, 4]], substituted: 0 },
  ];
  let sat = 0, unsat = 0;
  for (const c of cases) {
    const text = dimacs(c.n, c.cls);
    const cnf = parseDimacs(text);
    const r = solveSat(cnf.vars, cnf.lits, { seed: 7, elim: false, substitute: true });
    const ref = solveSat(cnf.vars, cnf.lits, { seed: 7, elim: false });
    assert.equal(r.status, ref.status, `${c.name}: the same verdict as without substitution`);
    assert.equal(r.stats.substituted, c.substituted, `${c.name}: variables substituted`);
    if (r.status === 'SAT') {
      sat++;
      assert.ok(c.cls.every((cl) => cl.some((l) => (r.model![Math.abs(l) - 1] === 1) === l > 0)), `${c.name}: the model satisfies every original clause`);
      continue;
    }
    unsat++;
    const proof = dratText(r.proof!);
    assert.equal(checkDrat(cnf.vars, cnf.lits, proof).ok, true, `${c.name}: the node's checker`);
    if (DRAT_TRIM) {
      const cf = join(tmp, 's.cnf'), pf = join(tmp, 's.drat');
      writeFileSync(cf, text); writeFileSync(pf, proof);
      assert.match(spawnSync(DRAT_TRIM, [cf, pf, '-f', '-t', '100'], { encoding: 'utf8' }).stdout, /s VERIFIED/, `${c.name}: drat-trim -f`);
    }
  }
  assert.ok(sat >= 1 && unsat >= 3, `${sat} SAT, ${unsat} UNSAT`);
  // after elimination too (it removes some copies itself): verdicts and certificates still hold
  for (const c of cases.slice(1, 4)) {
    const cnf = parseDimacs(dimacs(c.n, c.cls));
    const r = solveSat(cnf.vars, cnf.lits, { seed: 7, substitute: true, probe: true });
    if (r.status === 'SAT') assert.ok(c.cls.every((cl) => cl.some((l) => (r.model![Math.abs(l) - 1] === 1) === l > 0)), c.name);
    else assert.equal(checkDrat(cnf.vars, cnf.lits, dratText(r.proof!)).ok, true, c.name);
  }
});
