// sat: DPLL answers checked against an independent solver written here, and against brute force.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/sat.ts';

const solve = (body: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(body), { seed, progress() {} });

/** An independent decision procedure: recursive DPLL on explicit clause lists (signed ints), with
 *  simplification by copying, unit propagation, and branching on the first literal of a shortest
 *  clause. It shares no code or data structure with src/solvers/sat.ts. */
function independentSat(clauses: number[][]): boolean {
  const simplify = (cls: number[][], lit: number): number[][] | null => {
    const out: number[][] = [];
    for (const c of cls) {
      if (c.includes(lit)) continue;
      const r = c.filter((l) => l !== -lit);
      if (r.length === 0) return null;
      out.push(r);
    }
    return out;
  };
  const rec = (cls: number[][]): boolean => {
    for (;;) {
      if (cls.length === 0) return true;
      const unit = cls.find((c) => c.length === 1);
      if (!unit) break;
      const next = simplify(cls, unit[0]);
      if (!next) return false;
      cls = next;
    }
    let shortest = cls[0];
    for (const c of cls) if (c.length < shortest.length) shortest = c;
    const lit = shortest[0];
    const a = simplify(cls, lit);
    if (a && rec(a)) return true;
    const b = simplify(cls, -lit);
    return !!b && rec(b);
  };
  return rec(clauses.map((c) => [...new Set(c)]));
}

function satisfies(clauses: number[][], assignment: number[]): boolean {
  const truth = new Map<number, boolean>();
  for (const l of assignment) truth.set(Math.abs(l), l > 0);
  return clauses.every((c) => c.some((l) => truth.get(Math.abs(l)) === l > 0));
}

test('acceptance: 200 random instances at alpha 4.26, n = 50 agree with an independent solver; every model satisfies every clause', () => {
  let sat = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const o = solve({ n: 50, alpha: 4.26 }, seed);
    const clauses = o.result.clauses as number[][];
    assert.equal(clauses.length, 213);
    const independent = independentSat(clauses);
    assert.equal(o.result.satisfiable, independent, `seed ${seed}`);
    if (o.result.satisfiable) {
      sat++;
      assert.ok(satisfies(clauses, o.result.assignment as number[]), `seed ${seed}: assignment`);
      assert.equal(o.result.falsifiedClauses, 0);
    } else {
      assert.equal(o.result.assignment, null);
    }
    assert.equal(o.precision.withinBound, true);
  }
  // near the threshold roughly half the instances are satisfiable
  assert.ok(sat > 60 && sat < 160, `${sat} of 200 satisfiable`);
});

test('small instances agree with brute force over all 2^n assignments (written here)', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const n = 6 + (seed % 7);
    const o = solve({ n, alpha: 3 + (seed % 4) }, seed);
    const clauses = o.result.clauses as number[][];
    let any = false;
    for (let mask = 0; mask < 1 << n && !any; mask++) {
      const a = Array.from({ length: n }, (_, v) => ((mask >> v) & 1 ? v + 1 : -(v + 1)));
      any = satisfies(clauses, a);
    }
    assert.equal(o.result.satisfiable, any, `seed ${seed}`);
    assert.equal(o.result.bruteForceAgrees, true);
  }
});

test('under- and over-constrained regimes: alpha 2 is satisfiable, alpha 8 is not (n = 100)', () => {
  for (let seed = 1; seed <= 5; seed++) {
    const easy = solve({ n: 100, alpha: 2 }, seed);
    assert.equal(easy.result.satisfiable, true);
    assert.ok(satisfies(easy.result.clauses as number[][], easy.result.assignment as number[]));
    const hard = solve({ n: 100, alpha: 8 }, seed);
    assert.equal(hard.result.satisfiable, false);
    assert.ok((hard.result.backtracks as number) > 0);
  }
});

test('m overrides alpha; clauses have 3 distinct variables in range', () => {
  const o = solve({ n: 20, m: 37 }, 4);
  const clauses = o.result.clauses as number[][];
  assert.equal(clauses.length, 37);
  for (const c of clauses) {
    const vars = c.map(Math.abs);
    assert.equal(new Set(vars).size, 3);
    assert.ok(vars.every((v) => v >= 1 && v <= 20));
  }
});

test('the largest instances (n = 120 at the threshold) finish and are verified', () => {
  for (let seed = 1; seed <= 3; seed++) {
    const o = solve({ n: 120 }, seed);
    if (o.result.satisfiable) assert.ok(satisfies(o.result.clauses as number[][], o.result.assignment as number[]));
    assert.equal(o.value, o.result.decisions);
    assert.ok((o.result.propagations as number) > 0);
  }
});

test('the same input and seed give identical bits', () => {
  const a = solve({ n: 60 }, 12), b = solve({ n: 60 }, 12);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.result.clauses, solve({ n: 60 }, 13).result.clauses);
});

test('bounds: n 3 to 120, m 1 to 2000, alpha positive', () => {
  for (const bad of [{ n: 2 }, { n: 121 }, { m: 0 }, { m: 2001 }, { alpha: 0 }, { alpha: 16 }, { n: 5.5 }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
  const tiny = solve({ n: 3, m: 1 });
  assert.equal(tiny.result.satisfiable, true);
});
