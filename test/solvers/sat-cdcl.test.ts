// sat on a given problem (issue 22): CDCL verdicts against MiniSat on instances generated here
// (uniform random 3-SAT at the threshold, pigeonhole, parity, graph colouring); every model is
// checked against every clause here, every UNSAT proof by the project's DRAT checker; the DIMACS
// parser's refusals name the right line; the DRAT checker accepts valid hand-made proofs (RUP and
// RAT) and rejects broken ones; the same input and seed give the same output.
// MiniSat (`apt-get install minisat`) runs where it is installed; where it is not, the comparisons
// are skipped with a loud SKIPPED line, and fail under CI=true (test/system-tools.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { descriptor, run } from '../../src/solvers/sat.ts';
import { parseDimacs, cnfFromClauses } from '../../src/solvers/lib/dimacs.ts';
import { solveCdcl } from '../../src/solvers/lib/cdcl.ts';
import { solveDpll } from '../../src/solvers/lib/dpll.ts';
import { dratText } from '../../src/solvers/lib/drat-text.ts';
import { checkDrat } from '../../src/solvers/lib/drat-check.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { needsSystemTool } from '../system-tools.ts';
import { pigeonhole } from './sat-instances.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });

// ---------- instance generators (written here) ----------

/** Uniform random 3-SAT: m = round(4.26 n) clauses of 3 distinct variables, signs fair. */
function random3Sat(n: number, seed: number): number[][] {
  const rng = createRng(0x5a7 ^ seed);
  const out: number[][] = [];
  for (let c = 0, m = Math.round(4.26 * n); c < m; c++) {
    const vs = new Set<number>();
    while (vs.size < 3) vs.add(1 + rng.int(n));
    out.push([...vs].map((v) => (rng.next() < 0.5 ? -v : v)));
  }
  return out;
}

/** Clauses saying XOR(vars) = parity: one clause forbids each assignment of the wrong parity. */
function xorClauses(vars: number[], parity: number): number[][] {
  const out: number[][] = [];
  for (let s = 0; s < 1 << vars.length; s++) {
    let ones = 0;
    for (let i = 0; i < vars.length; i++) ones += (s >> i) & 1;
    if ((ones & 1) === parity) continue;
    out.push(vars.map((x, i) => ((s >> i) & 1 ? -x : x)));
  }
  return out;
}

/** Tseitin parity formula on the w×h torus: a variable per edge, each vertex's edges XOR to its
 * charge. Unsatisfiable iff the total charge is odd (every edge is counted twice). */
function tseitinTorus(w: number, h: number, charges: number[]): number[][] {
  const right = (x: number, y: number) => 1 + 2 * (y * w + x), down = (x: number, y: number) => 2 + 2 * (y * w + x);
  const out: number[][] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const edges = [right(x, y), right((x + w - 1) % w, y), down(x, y), down(x, (y + h - 1) % h)];
      out.push(...xorClauses(edges, charges[y * w + x]));
    }
  }
  return out;
}

/** Two XOR chains over inputs 1..k (one in order, one in a shuffled order) with Tseitin variables
 * for the prefixes; `equal` asserts the outputs equal (satisfiable) or different (unsatisfiable). */
function xorChains(k: number, seed: number, equal: boolean): number[][] {
  const rng = createRng(seed);
  const perm = Array.from({ length: k }, (_, i) => i + 1);
  for (let i = k - 1; i > 0; i--) { const j = rng.int(i + 1); [perm[i], perm[j]] = [perm[j], perm[i]]; }
  let next = k + 1;
  const out: number[][] = [];
  const chain = (order: number[]) => {
    let acc = order[0];
    for (let i = 1; i < order.length; i++) {
      const t = next++;
      out.push(...xorClauses([acc, order[i], t], 0)); // t = acc ⊕ x
      acc = t;
    }
    return acc;
  };
  const a = chain(Array.from({ length: k }, (_, i) => i + 1)), b = chain(perm);
  out.push(...xorClauses([a, b], equal ? 0 : 1));
  return out;
}

/** The Mycielski graph of G (n vertices 0..n−1): χ(M(G)) = χ(G) + 1. */
function mycielski(n: number, edges: [number, number][]): { n: number; edges: [number, number][] } {
  const out: [number, number][] = [...edges];
  for (const [a, b] of edges) { out.push([n + a, b]); out.push([n + b, a]); }
  for (let i = 0; i < n; i++) out.push([n + i, 2 * n]);
  return { n: 2 * n + 1, edges: out };
}

/** k-colouring: variable (v, c); every vertex some colour, at most one, neighbours differ. */
function colouring(n: number, edges: [number, number][], k: number): number[][] {
  const x = (v: number, c: number) => v * k + c + 1;
  const out: number[][] = [];
  for (let v = 0; v < n; v++) {
    out.push(Array.from({ length: k }, (_, c) => x(v, c)));
    for (let c = 0; c < k; c++) for (let d = c + 1; d < k; d++) out.push([-x(v, c), -x(v, d)]);
  }
  for (const [a, b] of edges) for (let c = 0; c < k; c++) out.push([-x(a, c), -x(b, c)]);
  return out;
}

function randomGraph(n: number, edgesWanted: number, seed: number): [number, number][] {
  const rng = createRng(seed);
  const seen = new Set<string>();
  const out: [number, number][] = [];
  while (out.length < edgesWanted) {
    const a = rng.int(n), b = rng.int(n);
    if (a === b || seen.has(`${Math.min(a, b)},${Math.max(a, b)}`)) continue;
    seen.add(`${Math.min(a, b)},${Math.max(a, b)}`);
    out.push([a, b]);
  }
  return out;
}

const toText = (clauses: number[][], vars?: number) => {
  const n = vars ?? Math.max(0, ...clauses.flat().map(Math.abs));
  return `p cnf ${n} ${clauses.length}\n` + clauses.map((c) => c.join(' ') + ' 0').join('\n') + '\n';
};

// ---------- MiniSat (run here when installed) ----------

// the shared rule (test/system-tools.ts): skipped loudly where MiniSat is missing, a failure under CI=true
const MINISAT_SKIP = needsSystemTool('/usr/bin/minisat', 'the MiniSat verdict comparisons', 'apt-get update && apt-get install -y minisat');
const tmp = mkdtempSync(join(tmpdir(), 'sat-cdcl-test-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
function minisat(clauses: number[][]): 'SAT' | 'UNSAT' {
  const file = join(tmp, `f${fileNo++}.cnf`);
  writeFileSync(file, toText(clauses));
  const r = spawnSync('minisat', ['-verb=0', file], { encoding: 'utf8' });
  if (r.status === 10) return 'SAT';
  if (r.status === 20) return 'UNSAT';
  throw new Error(`minisat exited with ${r.status}: ${r.stderr}`);
}
function needMinisat(t: { skip(msg: string): void }): boolean {
  if (!MINISAT_SKIP) return true;
  t.skip(MINISAT_SKIP);
  return false;
}

/** Every clause has a literal the model makes true (model: signed literal per variable, in order). */
function modelSatisfies(clauses: number[][], model: number[]): boolean {
  for (let v = 1; v <= model.length; v++) if (Math.abs(model[v - 1]) !== v) return false;
  return clauses.every((c) => c.some((l) => model[Math.abs(l) - 1] === l));
}

/** Solves through the solver's entry point and checks the certificate here: a model against
 * every clause, or the proof attachment against its digest and with the DRAT checker. */
function solveAndCertify(clauses: number[][], label: string, body: Record<string, unknown> = {}) {
  const o = solve({ clauses, ...body });
  const r = o.result as any;
  assert.equal(o.precision.withinBound, true, `${label}: ${o.precision.reference}`);
  if (r.status === 'SAT') {
    assert.equal(o.precision.certificate, 'model');
    assert.equal(r.satisfiable, true);
    assert.ok(modelSatisfies(clauses, r.model), `${label}: the model leaves a clause false`);
    assert.equal(o.attachments, undefined);
  } else {
    assert.equal(r.status, 'UNSAT');
    assert.equal(o.precision.certificate, 'drat');
    const text = o.attachments!.drat;
    assert.equal(r.proof.format, 'drat');
    assert.equal(r.proof.bytes, Buffer.byteLength(text));
    assert.equal(r.proof.sha256, createHash('sha256').update(text).digest('hex'));
    const lemmas = text.split('\n').filter((l) => l && !l.startsWith('d')).length;
    assert.equal(r.proof.lemmas, lemmas);
    const ck = checkDrat(r.n, cnfFromClauses(clauses, r.n).lits, text);
    assert.equal(ck.ok, true, `${label}: ${ck.reason}`);
  }
  return o;
}

// ---------- verdicts against MiniSat ----------

test('uniform random 3-SAT at the threshold (n = 150, 200, 250): verdicts match MiniSat, both SAT and UNSAT occur, certificates hold', (t) => {
  if (!needMinisat(t)) return;
  const cases: [number, number][] = [[150, 1], [150, 2], [150, 3], [150, 4], [150, 5], [200, 1], [200, 2], [200, 3], [200, 4], [250, 1], [250, 3]];
  const seen = { SAT: 0, UNSAT: 0 };
  for (const [n, seed] of cases) {
    const clauses = random3Sat(n, seed);
    const o = solveAndCertify(clauses, `n=${n} seed ${seed}`);
    const ours = (o.result as any).status as 'SAT' | 'UNSAT';
    assert.equal(ours, minisat(clauses), `n=${n} seed ${seed}`);
    assert.equal((o.result as any).n, n);
    assert.equal((o.result as any).m, Math.round(4.26 * n));
    seen[ours]++;
  }
  assert.ok(seen.SAT >= 3 && seen.UNSAT >= 3, JSON.stringify(seen));
});

test('pigeonhole 7 and 8 (h + 1 pigeons, h holes) are UNSAT, as MiniSat says, with checked DRAT proofs (9 is in bench/sat.bench.ts)', (t) => {
  if (!needMinisat(t)) return;
  for (const h of [7, 8]) {
    const clauses = pigeonhole(h);
    const o = solveAndCertify(clauses, `PHP ${h}`);
    assert.equal((o.result as any).status, 'UNSAT');
    assert.equal(minisat(clauses), 'UNSAT');
    assert.ok((o.result as any).stats.conflicts > 100);
  }
});

test('parity: Tseitin formulas on tori and XOR chains, odd/even charge, match MiniSat', (t) => {
  if (!needMinisat(t)) return;
  const rng = createRng(99);
  for (const [w, h] of [[3, 4], [4, 4], [3, 6]]) {
    for (const odd of [true, false]) {
      const charges = Array.from({ length: w * h }, () => rng.int(2));
      const total = charges.reduce((a, b) => a + b, 0);
      if ((total % 2 === 1) !== odd) charges[0] ^= 1;
      const clauses = tseitinTorus(w, h, charges);
      const o = solveAndCertify(clauses, `Tseitin ${w}x${h} ${odd ? 'odd' : 'even'}`);
      assert.equal((o.result as any).status, odd ? 'UNSAT' : 'SAT');
      assert.equal(minisat(clauses), (o.result as any).status);
    }
  }
  for (const k of [10, 16, 22]) {
    for (const equal of [true, false]) {
      const clauses = xorChains(k, k, equal);
      const o = solveAndCertify(clauses, `XOR chains k=${k} ${equal ? 'equal' : 'different'}`);
      assert.equal((o.result as any).status, equal ? 'SAT' : 'UNSAT');
      assert.equal(minisat(clauses), (o.result as any).status);
    }
  }
});

test('graph colouring: Mycielski graphs (χ(M4) = 4, χ(M5) = 5) and random graphs, match MiniSat', (t) => {
  if (!needMinisat(t)) return;
  const c5: [number, number][] = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 0]];
  const m4 = mycielski(5, c5);          // Grötzsch graph, 11 vertices, χ = 4
  const m5 = mycielski(m4.n, m4.edges); // 23 vertices, χ = 5
  const expect: [string, number, [number, number][], number, 'SAT' | 'UNSAT'][] = [
    ['M4', m4.n, m4.edges, 3, 'UNSAT'], ['M4', m4.n, m4.edges, 4, 'SAT'],
    ['M5', m5.n, m5.edges, 4, 'UNSAT'], ['M5', m5.n, m5.edges, 5, 'SAT'],
  ];
  for (const [name, n, edges, k, verdict] of expect) {
    const clauses = colouring(n, edges, k);
    const o = solveAndCertify(clauses, `${name} with ${k} colours`);
    assert.equal((o.result as any).status, verdict, `${name} with ${k} colours`);
    assert.equal(minisat(clauses), verdict);
  }
  const seen = { SAT: 0, UNSAT: 0 };
  for (let seed = 1; seed <= 8; seed++) {
    // 3-colouring of G(60, 140 edges): average degree 4.67, near the 3-colourability threshold
    const clauses = colouring(60, randomGraph(60, 140, seed), 3);
    const o = solveAndCertify(clauses, `random graph seed ${seed}`);
    assert.equal((o.result as any).status, minisat(clauses), `random graph seed ${seed}`);
    seen[(o.result as any).status as 'SAT' | 'UNSAT']++;
  }
  assert.ok(seen.SAT > 0 && seen.UNSAT > 0, JSON.stringify(seen));
});

test("method 'dpll' on a given problem: same verdicts, DRAT proofs from the search tree check", (t) => {
  if (!needMinisat(t)) return;
  const cases = [random3Sat(40, 1), random3Sat(40, 2), random3Sat(40, 3), random3Sat(40, 4), pigeonhole(5), xorChains(8, 8, false), tseitinTorus(3, 3, [1, 0, 0, 0, 0, 0, 0, 0, 0])];
  for (const [i, clauses] of cases.entries()) {
    const o = solveAndCertify(clauses, `dpll case ${i}`, { method: 'dpll' });
    assert.equal(o.method, 'dpll');
    assert.equal((o.result as any).status, minisat(clauses), `dpll case ${i}`);
    assert.equal((o.result as any).status, solve({ clauses }).result.status);
  }
});

// ---------- certificates and interface ----------

test('a CNF text: comments, clauses over several lines, SATLIB % end marker; result fields; value is decisions', () => {
  const text = 'c a small formula\nc\np cnf 4 5\n1 -2\n 3 0 -1 2 0\n2 3 0 -3\n4 0\n-4 0\n%\n0\n';
  const cnf = parseDimacs(text);
  assert.equal(cnf.vars, 4);
  assert.equal(cnf.clauses, 5);
  assert.deepEqual(Array.from(cnf.lits), [1, -2, 3, 0, -1, 2, 0, 2, 3, 0, -3, 4, 0, -4, 0]);
  const o = solve({ cnf: text });
  const r = o.result as any;
  assert.equal(r.status, 'SAT');
  assert.equal(r.satisfiable, true);
  assert.equal(r.model.length, 4);
  assert.ok(modelSatisfies([[1, -2, 3], [-1, 2], [2, 3], [-3, 4], [-4]], r.model));
  assert.deepEqual(Object.keys(r.stats).sort(), ['checkMs', 'conflicts', 'decisions', 'parseMs', 'proofMs', 'propagations', 'restarts', 'solveMs', 'wallMs']);
  assert.equal(o.value, r.stats.decisions);
  assert.equal(o.method, 'cdcl');
  assert.equal(o.precision.certificate, 'model');
  // UNSAT: the empty clause in the input, contradictory units
  for (const cnfText of ['p cnf 2 2\n1 2 0\n0\n', 'p cnf 1 2\n1 0\n-1 0\n']) {
    const u = solve({ cnf: cnfText });
    assert.equal(u.result.status, 'UNSAT');
    assert.equal(u.precision.withinBound, true);
    assert.equal(u.precision.certificate, 'drat');
    assert.equal(u.attachments!.drat, '0\n');
  }
  // no clauses at all: satisfiable by any assignment
  const empty = solve({ cnf: 'p cnf 3 0\n' });
  assert.deepEqual(empty.result.model, [-1, -2, -3]);
});

test('clauses: n is the largest variable unless vars says more; duplicate literals and tautologies are fine', () => {
  const o = solve({ clauses: [[1, -3], [3, 3], [2, -2]] });
  assert.equal(o.result.n, 3);
  assert.equal((o.result.model as number[]).length, 3);
  assert.equal((o.result.model as number[])[2], 3);
  // a tautology naming both signs of every variable, then ordinary clauses
  assert.deepEqual(solve({ cnf: 'p cnf 2 3\n1 -1 2 -2 1 0\n1 0\n-1 -2 0\n' }).result.model, [1, -2]);
  for (const method of ['cdcl', 'dpll']) {
    const u = solve({ clauses: [[1, -1, 2, -2], [2], [-2, 1], [-1, -2]], method });
    assert.equal(u.result.status, 'UNSAT', method);
    assert.equal(u.precision.withinBound, true, method);
  }
  assert.equal(solve({ clauses: [] }).result.status, 'SAT');
  assert.equal(solve({ clauses: [[]] }).result.status, 'UNSAT');
  const wide = solve({ clauses: [[1, -3], [3]], vars: 6 });
  assert.equal(wide.result.n, 6);
  assert.equal((wide.result.model as number[]).length, 6);
});

test('user-problem fields with the random-instance ones, or with each other, are 400s naming the conflict', () => {
  const bad: [Record<string, unknown>, string, RegExp][] = [
    [{ cnf: 'p cnf 1 1\n1 0\n', n: 20 }, 'n', /built-in random instance.*cnf/],
    [{ clauses: [[1]], alpha: 3 }, 'alpha', /built-in random instance.*clauses/],
    [{ clauses: [[1]], m: 30 }, 'm', /no effect with clauses/],
    [{ cnf: 'p cnf 1 1\n1 0\n', clauses: [[1]] }, 'clauses', /not both/],
    [{ cnf: 'p cnf 1 1\n1 0\n', vars: 3 }, 'vars', /header/],
    [{ n: 30, vars: 3 }, 'vars', /clauses only/],
    [{ clauses: [[1, 5]], vars: 3 }, 'vars', /largest variable.*5/],
    [{ clauses: [[1, 0, 2]] }, 'clauses', /nonzero/],
    [{ clauses: [[1.5]] }, 'clauses', /int/i],
    [{ clauses: [[100001]] }, 'clauses', /100000/],
    [{ method: 'walksat', clauses: [[1]] }, 'method', /./],
  ];
  for (const [body, field, msg] of bad) {
    const r = descriptor.input.safeParse(body);
    assert.equal(r.success, false, JSON.stringify(body));
    const issue = r.error!.issues.find((i) => i.path[0] === field);
    assert.ok(issue, `${JSON.stringify(body)}: no issue on ${field}: ${JSON.stringify(r.error!.issues)}`);
    assert.match(issue!.message, msg, JSON.stringify(body));
  }
  assert.deepEqual(descriptor.input.safeParse({ clauses: [[1, 0]] }).error!.issues[0].path, ['clauses', 0, 1]);
  // the built-in mode's fields are unchanged, and method 'cdcl' decides its instance with a certificate
  const builtin = solve({ n: 60, method: 'cdcl' }, 5);
  const dp = solve({ n: 60 }, 5);
  assert.deepEqual(builtin.result.clauses, dp.result.clauses);
  assert.equal(builtin.result.satisfiable, dp.result.satisfiable);
  assert.equal(builtin.precision.withinBound, true);
});

const malformed: [string, string, number, RegExp][] = [
  ['missing header', '1 2 0\n', 1, /before the header/],
  ['bad header', 'c x\np cnf 3\n1 0\n', 2, /bad header/],
  ['bad header words', 'p dnf 3 1\n1 0\n', 1, /bad header/],
  ['non-numeric header', 'c\nc\np cnf x 2\n', 3, /bad header/],
  ['second header', 'p cnf 3 2\n1 0\np cnf 3 2\n2 0\n', 3, /second header.*line 1/],
  ['fewer clauses than declared', 'c one\np cnf 3 3\n1 2 0\n-1 0\n', 2, /declares 3 clauses, the file has 2/],
  ['more clauses than declared', 'p cnf 3 1\n1 2 0\n\n-1 0\n', 4, /more clauses than the 1/],
  ['literal out of range', 'c\nc\np cnf 3 1\n1 4 0\n', 4, /literal 4 is out of range.*3 variables/],
  ['negative literal out of range', 'p cnf 3 2\n1 0\nc mid\n-7 0\n', 4, /literal -7 is out of range/],
  ['missing final 0', 'p cnf 3 2\n1 2 0\n3\n-1\n', 3, /not ended by 0/],
  ['non-integer token', 'p cnf 3 1\n1 2.5 0\n', 2, /'2\.5' is not an integer/],
  ['letters', 'p cnf 3 1\n1 a 0\n', 2, /'a' is not an integer/],
  ['lone minus', 'p cnf 3 1\n1 - 2 0\n', 2, /'-' is not an integer/],
  ['too many variables', 'p cnf 10000001 1\n1 0\n', 1, /10000001 variables.*10000000/],
  ['too many clauses', 'c\np cnf 3 50000001\n', 2, /50000001 clauses.*50000000/],
  ['empty text', '', 1, /no header/],
  ['only comments', 'c a\nc b\n', 3, /no header/],
];

test('malformed CNF is refused with INVALID_INPUT naming the 1-based line (comments counted)', () => {
  for (const [name, text, line, msg] of malformed) {
    assert.throws(() => parseDimacs(text), (e: any) => {
      assert.equal(e.name, 'SvcError', name);
      assert.equal(e.code, 'INVALID_INPUT', name);
      assert.equal(e.details?.line, line, `${name}: ${e.message}`);
      assert.match(e.message, new RegExp(`line ${line}\\b`), name);
      assert.match(e.message, msg, `${name}: ${e.message}`);
      return true;
    }, name);
    // and through the solver's entry point
    assert.throws(() => solve({ cnf: text }), (e: any) => e.code === 'INVALID_INPUT', name);
  }
  // Windows line endings and tabs are whitespace
  assert.equal(parseDimacs('p cnf 2 1\r\n1\t-2 0\r\n').clauses, 1);
  // the 8 MiB limit is on the text's bytes
  const big = 'c ' + 'x'.repeat(8 * 1024 * 1024) + '\np cnf 1 1\n1 0\n';
  assert.throws(() => parseDimacs(big), (e: any) => e.code === 'INVALID_INPUT' && /8 MiB/.test(e.message));
  assert.equal(descriptor.input.safeParse({ cnf: big }).success, false);
});

test('the DRAT checker: hand-made proofs, RUP and RAT, valid and broken', () => {
  // (x1 ∨ x2)(¬x1 ∨ x2)(x1 ∨ ¬x2)(¬x1 ∨ ¬x2): unsatisfiable, not by unit propagation alone
  const F = new Int32Array([1, 2, 0, -1, 2, 0, 1, -2, 0, -1, -2, 0]);
  const ok = (proof: string) => checkDrat(2, F, proof);
  assert.equal(ok('1 0\n0\n').ok, true);                 // RUP: ¬x1 propagates x2 and ¬x2
  assert.equal(ok('1 0\n').ok, true);                    // the empty clause may be left implicit
  assert.equal(ok('c comment\n1 2 0\nd 1 2 0\n1 0\n0\n').ok, true);
  // RAT: x3 is fresh, so (x3) is RAT on x3 but not RUP; the conflict needs it, so it is checked
  const rat = ok('3 0\n-3 1 0\n0\n');
  assert.equal(rat.ok, true, rat.reason);
  assert.equal(rat.rat, 1);
  assert.equal(rat.checked, 2);
  // broken: (x1) after deleting (x1 ∨ ¬x2) is neither RUP nor RAT (its resolvent with (¬x1 ∨ ¬x2) is not RUP)
  const badRat = ok('d 1 -2 0\n1 0\n0\n');
  assert.equal(badRat.ok, false);
  assert.match(badRat.reason!, /step 2.*neither RUP nor RAT/);
  // broken: the empty clause is not RUP here
  assert.match(ok('0\n').reason!, /empty clause is not RUP/);
  // broken: a proof that never reaches a conflict
  assert.match(ok('1 2 0\n').reason!, /does not derive the empty clause/);
  // broken: (x1 ∨ x2)(¬x1 ∨ x2) is satisfiable (x2); the lemma (¬x2) is neither RUP nor RAT and
  // the conflict that follows uses it
  const H = new Int32Array([1, 2, 0, -1, 2, 0]);
  const bogus = checkDrat(2, H, '-2 0\n0\n');
  assert.equal(bogus.ok, false);
  assert.match(bogus.reason!, /step 1: lemma '-2 0' is neither RUP nor RAT/);
  assert.equal(checkDrat(2, H, '2 0\n0\n').ok, false);
  // malformed proofs
  assert.match(ok('1 x 0\n').reason!, /line 1: 'x' is not a literal/);
  assert.match(ok('1 0\n2').reason!, /not ended by 0/);
  // deletions of missing clauses and of unit (reason) clauses are ignored, as DRAT-trim does
  // (x1 ∨ x3)(x1 ∨ ¬x3) force x1; then x2 ∧ ¬x2 under (¬x1 ∨ ±x2 ∨ ±x4)
  const K = new Int32Array([1, 3, 0, 1, -3, 0, -1, 2, 4, 0, -1, 2, -4, 0, -1, -2, 4, 0, -1, -2, -4, 0]);
  const ign = checkDrat(4, K, 'd 1 5 0\n1 0\nd 1 0\n2 0\n0\n');
  assert.equal(ign.ok, true);
  assert.equal(ign.ignoredDeletions, 2);
});

test('the DRAT checker rejects corrupted solver proofs, and every proof checked against a satisfiable weakening of its formula', () => {
  // soundness: a proof of F checked against F minus one clause, when that weakening is
  // satisfiable (MiniSat-independent: the model is found and checked here), must be rejected
  const weakenings: [string, number[][]][] = [['PHP 6', pigeonhole(6)], ['random n=120', random3Sat(120, 7)], ['random n=100', random3Sat(100, 11)]];
  let weakChecked = 0;
  for (const [name, clauses] of weakenings) {
    const n = Math.max(...clauses.flat().map(Math.abs));
    const cnf = cnfFromClauses(clauses, n);
    const r = solveCdcl(n, cnf.lits, { seed: 1 });
    assert.equal(r.status, 'UNSAT', name);
    const text = dratText(r.proof!);
    assert.equal(checkDrat(n, cnf.lits, text).ok, true, name);
    for (let drop = 0, tried = 0; drop < clauses.length && tried < 3; drop++) {
      const weaker = clauses.filter((_, i) => i !== drop);
      const sol = solveCdcl(n, cnfFromClauses(weaker, n).lits, {});
      if (sol.status !== 'SAT') continue;
      assert.ok(modelSatisfies(weaker, Array.from(sol.model!, (b, v) => (b ? v + 1 : -(v + 1)))));
      tried++; weakChecked++;
      const ck = checkDrat(n, cnfFromClauses(weaker, n).lits, text);
      assert.equal(ck.ok, false, `${name} without clause ${drop + 1}: a proof accepted for a satisfiable formula`);
    }
  }
  assert.ok(weakChecked >= 6, `${weakChecked} satisfiable weakenings checked`);
  // corrupted lemmas: flip the sign of one literal. A flipped lemma may still be RUP, or unused
  // (backward checking skips lemmas outside the core), so not every flip is rejected
  const clauses = random3Sat(120, 7);
  const cnf = cnfFromClauses(clauses, 120);
  const text = dratText(solveCdcl(120, cnf.lits, { seed: 1 }).proof!);
  const lines = text.trim().split('\n');
  const lemmaIdx = lines.map((l, i) => [l, i] as const).filter(([l]) => !l.startsWith('d') && l !== '0').map(([, i]) => i);
  let rejected = 0;
  const tries = 12;
  for (let k = 0; k < tries; k++) {
    const ls = lines.slice();
    const i = lemmaIdx[Math.floor((lemmaIdx.length * (k + 0.5)) / tries)];
    const toks = ls[i].split(' ');
    toks[0] = String(-Number(toks[0]));
    ls[i] = toks.join(' ');
    if (!checkDrat(120, cnf.lits, ls.join('\n') + '\n').ok) rejected++;
  }
  assert.ok(rejected >= tries / 2, `${rejected} of ${tries} corrupted proofs rejected`);
  // truncated proof: no conflict
  assert.equal(checkDrat(120, cnf.lits, lines.slice(0, lines.length >> 1).join('\n') + '\n').ok, false);
});

test('the Glucose restart policy and DPLL give the same verdicts as the default CDCL', () => {
  for (let seed = 1; seed <= 6; seed++) {
    const cnf = cnfFromClauses(random3Sat(60, seed), 60);
    const a = solveCdcl(60, cnf.lits, { seed });
    const b = solveCdcl(60, cnf.lits, { seed, restarts: 'glucose' });
    const c = solveDpll(60, cnf.lits, { seed });
    assert.equal(a.status, b.status, `seed ${seed}`);
    assert.equal(a.status, c.status, `seed ${seed}`);
    for (const x of [a, b, c]) if (x.status === 'UNSAT') assert.equal(checkDrat(60, cnf.lits, dratText(x.proof!)).ok, true);
  }
});

test('the index initial order (opt-in) gives the same verdicts as the seeded one, checked models and proofs, and the seed no longer matters', () => {
  for (let seed = 1; seed <= 6; seed++) {
    const clauses = random3Sat(60, seed);
    const cnf = cnfFromClauses(clauses, 60);
    const seeded = solveCdcl(60, cnf.lits, { seed });
    const a = solveCdcl(60, cnf.lits, { seed, initialOrder: 'index' });
    const b = solveCdcl(60, cnf.lits, { seed: seed + 100, initialOrder: 'index' });
    assert.equal(a.status, seeded.status, `seed ${seed}`);
    assert.deepEqual(a.stats, b.stats, `seed ${seed}: the index order ignores the seed`);
    if (a.status === 'SAT') assert.ok(modelSatisfies(clauses, Array.from(a.model!, (x, v) => (x ? v + 1 : -(v + 1)))));
    else assert.equal(checkDrat(60, cnf.lits, dratText(a.proof!)).ok, true, `seed ${seed}`);
  }
});

test('a proof past its size cap stops being written and is flagged (sat.ts then reports no certificate)', () => {
  const cnf = cnfFromClauses(pigeonhole(6), 42);
  const full = solveCdcl(42, cnf.lits, { seed: 1 });
  assert.equal(full.proofBytes, dratText(full.proof!).length);
  const capped = solveCdcl(42, cnf.lits, { seed: 1, maxProofBytes: 2000 });
  assert.equal(capped.status, 'UNSAT');
  assert.equal(capped.proofTruncated, true);
  assert.ok(capped.proofBytes <= 2000);
  assert.equal(checkDrat(42, cnf.lits, dratText(capped.proof!)).ok, false);
  const d = solveDpll(42, cnf.lits, { maxProofBytes: 100 });
  assert.equal(d.status, 'UNSAT');
  assert.equal(d.proofTruncated, true);
});

test('the same input and seed give the same output (all but the timings stats.solveMs and wallMs); another seed may search differently', () => {
  const strip = (o: any) => ({ ...o, result: { ...o.result, stats: { ...o.result.stats, solveMs: 0, wallMs: 0, parseMs: 0, proofMs: 0, checkMs: 0 } } });
  for (const clauses of [random3Sat(150, 1), random3Sat(150, 2), pigeonhole(6)]) {
    const a = solve({ clauses, seed: 3 }), b = solve({ clauses, seed: 3 });
    assert.deepEqual(strip(a), strip(b));
    assert.ok((a.result as any).stats.solveMs >= 0);
    const c = solve({ clauses, seed: 4 });
    assert.equal(c.result.status, a.result.status);
  }
  const d1 = solve({ clauses: random3Sat(40, 2), method: 'dpll', seed: 9 });
  const d2 = solve({ clauses: random3Sat(40, 2), method: 'dpll', seed: 9 });
  assert.deepEqual(strip(d1), strip(d2));
});
