// Preprocessing (src/solvers/lib/sat/elim.ts: top-level units, bounded variable elimination with
// subsumption; Eén & Biere, SAT 2005): the reduced formula is equisatisfiable, the model extended
// back satisfies the ORIGINAL formula, and the DRAT proof (preprocessing records first, the
// search's after) checks against the ORIGINAL formula with the node's independent checker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eliminate, extendModel } from '../../src/solvers/lib/sat/elim.ts';
import { solveSat } from '../../src/solvers/lib/sat/solve.ts';
import { solveCdcl } from '../../src/solvers/lib/cdcl.ts';
import { dratText } from '../../src/solvers/lib/drat-text.ts';
import { checkDrat } from '../../src/solvers/lib/drat-check.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

const flat = (clauses: number[][]) => new Int32Array(clauses.flatMap((c) => [...c, 0]));
const satisfies = (clauses: number[][], model: Uint8Array) => clauses.every((c) => c.some((l) => (model[Math.abs(l) - 1] === 1) === l > 0));

function randomCnf(seed: number, n: number, m: number, k = 3): number[][] {
  const rng = createRng(seed);
  const out: number[][] = [];
  for (let i = 0; i < m; i++) {
    const c: number[] = [];
    while (c.length < k) { const v = rng.int(n) + 1; if (!c.includes(v) && !c.includes(-v)) c.push(rng.nextU32() & 1 ? -v : v); }
    out.push(c);
  }
  return out;
}

test('random 3-CNF below, at and above the threshold: same verdicts with and without elimination; models and proofs hold on the original formula', () => {
  let sat = 0, unsat = 0, eliminated = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const n = 20 + (seed % 5) * 10;
    const alpha = [3.0, 4.0, 4.26, 4.6, 6.0][seed % 5];
    const clauses = randomCnf(seed, n, Math.round(alpha * n));
    const lits = flat(clauses);
    const plain = solveCdcl(n, lits, { proof: false });
    const r = solveSat(n, lits, { seed });
    eliminated += r.elim!.eliminated;
    assert.equal(r.status, plain.status, `seed ${seed}`);
    if (r.status === 'SAT') { sat++; assert.ok(satisfies(clauses, r.model!), `seed ${seed}: extended model`); }
    else {
      unsat++;
      const c = checkDrat(n, lits, dratText(r.proof!));
      assert.equal(c.ok, true, `seed ${seed}: ${c.reason}`);
    }
  }
  assert.ok(sat > 20 && unsat > 20 && eliminated > 100, `${sat} SAT, ${unsat} UNSAT, ${eliminated} eliminated`);
});

test('circuit-like formulas (Tseitin chains of XOR and AND gates): eliminated, and still decided right', () => {
  // x_{i+1} = x_i XOR y_i, with a final constraint; plus AND gates; SAT or UNSAT by the parity forced
  for (const [len, force] of [[30, 1], [30, -1], [60, 1]] as const) {
    const clauses: number[][] = [];
    let next = 2 * len + 2;
    for (let i = 1; i <= len; i++) {
      const x = i, y = len + i, z = i === len ? 2 * len + 1 : i + 1;
      clauses.push([-x, -y, -z], [x, y, -z], [x, -y, z], [-x, y, z]);
      const a = next++; // a = x AND y
      clauses.push([-a, x], [-a, y], [a, -x, -y]);
    }
    // every y_i false, x_1 true: the chain is forced; the last variable's sign decides
    for (let i = 1; i <= len; i++) clauses.push([-(len + i)]);
    clauses.push([1], [force * (2 * len + 1)]);
    const n = next - 1;
    const lits = flat(clauses);
    const r = solveSat(n, lits, {});
    const expect = force === 1 ? 'SAT' : 'UNSAT';
    assert.equal(r.status, expect, `len ${len} force ${force}`);
    if (r.status === 'SAT') assert.ok(satisfies(clauses, r.model!));
    else assert.equal(checkDrat(n, lits, dratText(r.proof!)).ok, true);
  }
});

test('pure literals, units, an empty resolvent, and clauses with repeated literals', () => {
  // x1 pure; x2 unit; x3 and ¬x3 units: the empty clause comes from unit propagation
  const e1 = eliminate(3, flat([[1, 2], [1, -3], [2]]));
  assert.ok(e1.eliminated[0] === 1, 'the pure literal x1 is eliminated');
  const m = new Uint8Array(3);
  m[1] = 1; // a model of the reduced formula: x2
  extendModel(m, e1.stack);
  assert.ok(satisfies([[1, 2], [1, -3], [2]], m));
  const e2 = eliminate(1, flat([[1], [-1]]));
  assert.deepEqual(Array.from(e2.lits), [0], 'refuted: the reduced formula is the empty clause');
  const r2 = solveSat(1, flat([[1], [-1]]));
  assert.equal(r2.status, 'UNSAT');
  assert.equal(checkDrat(1, flat([[1], [-1]]), dratText(r2.proof!)).ok, true);
  // a variable in a clause with a repeated literal, or in a tautology, is not eliminated
  const e3 = eliminate(3, flat([[1, 1, 2], [-1, 3], [2, -2, 3]]));
  assert.equal(e3.eliminated[0], 0);
  assert.equal(e3.eliminated[1], 0);
  const r3 = solveSat(3, flat([[1, 1, 2], [-1, 3], [2, -2, 3], [-3], [-2]]));
  assert.equal(r3.status, 'UNSAT');
  assert.equal(checkDrat(3, flat([[1, 1, 2], [-1, 3], [2, -2, 3], [-3], [-2]]), dratText(r3.proof!)).ok, true);
});

test('elimination is deterministic: the same input gives the same reduced formula, proof and stack', () => {
  const lits = flat(randomCnf(7, 60, 240));
  const a = eliminate(60, lits), b = eliminate(60, lits);
  assert.deepEqual(a, b);
});
