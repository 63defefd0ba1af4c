// svc_lattice: staggered phases at one instant, and the coherence score's bounds and symmetry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coherenceScore, runLattice } from '../../src/operators/lattice.ts';
import { createRng as makeRng } from '../../src/solvers/lib/rng.ts';

const createRng = (seed: number) => { const r = makeRng(seed); return () => r.next(); };

test('coherenceScore lies in [0, 1], is 1 for equal modulations and 0 for a zero against a non-zero', () => {
  const rng = createRng(7);
  for (let trial = 0; trial < 2000; trial++) {
    const n = 2 + Math.floor(rng() * 4);
    const R = Array.from({ length: n }, () => (rng() - 0.5) * 10 ** (rng() * 6 - 3));
    const c = coherenceScore(R);
    assert.ok(c >= 0 && c <= 1, `${c} for ${R}`);
  }
  assert.equal(coherenceScore([1.2, 1.2, 1.2]), 1);
  assert.equal(coherenceScore([0, 0]), 1);
  assert.equal(coherenceScore([0, 5]), 0);
  assert.equal(coherenceScore([1, -1]), 0);
});

test('coherenceScore is symmetric: every relabelling of the nodes gives the same score', () => {
  const rng = createRng(11);
  const permute = (a: number[]) => { const b = a.slice(); for (let i = b.length - 1; i > 0; i--) { const j = Math.floor(rng() * (i + 1)); [b[i], b[j]] = [b[j], b[i]]; } return b; };
  for (let trial = 0; trial < 500; trial++) {
    const R = Array.from({ length: 5 }, () => 1 + (rng() - 0.5) * 0.01);
    const c = coherenceScore(R);
    for (let k = 0; k < 5; k++) assert.ok(Math.abs(coherenceScore(permute(R)) - c) < 1e-15);
  }
});

test('coherenceScore equals hand-computed values of the documented formula (mean pairwise agreement)', () => {
  // C = 1 - mean over unordered pairs of |Ri - Rj| / (|Ri| + |Rj|)
  assert.ok(Math.abs(coherenceScore([1, 3]) - 0.5) < 1e-15); // |1-3|/4 = 1/2
  assert.ok(Math.abs(coherenceScore([1, 2, 3]) - 59 / 90) < 1e-15); // pairs 1/3, 2/4, 1/5: mean 31/90
  assert.ok(Math.abs(coherenceScore([2, 2, 2, 6]) - 0.75) < 1e-15); // three pairs at 1/2, three at 0: mean 1/4
  assert.ok(Math.abs(coherenceScore([1.001, 0.999]) - 0.999) < 1e-12); // 0.002/2
  // scale invariance: multiplying every R by the same non-zero factor leaves C unchanged
  assert.ok(Math.abs(coherenceScore([3, 6, 9]) - coherenceScore([1, 2, 3])) < 1e-15);
  assert.ok(Math.abs(coherenceScore([-1, -2, -3]) - coherenceScore([1, 2, 3])) < 1e-15);
});

test('coherenceScore is symmetric for every lattice size and sign pattern (all permutations of 2 to 5 nodes)', () => {
  const rng = createRng(23);
  const perms = (a: number[]): number[][] => a.length <= 1 ? [a] : a.flatMap((x, i) => perms([...a.slice(0, i), ...a.slice(i + 1)]).map((p) => [x, ...p]));
  for (let n = 2; n <= 5; n++) {
    for (let trial = 0; trial < 20; trial++) {
      const R = Array.from({ length: n }, () => (rng() < 0.1 ? 0 : (rng() - 0.3) * 10 ** (rng() * 4 - 2)));
      const c = coherenceScore(R);
      assert.ok(c >= 0 && c <= 1);
      for (const p of perms(R)) assert.ok(Math.abs(coherenceScore(p) - c) < 1e-14, `${R} vs ${p}`);
    }
  }
});

test('nodes share one timestamp, sit at phi + 2 pi k / n, and the staggered sum equals the weight sum', () => {
  for (const n of [2, 3, 4, 5]) {
    const t = 1_790_000_123.456;
    const out = runLattice(Array.from({ length: n }, () => ({})), t);
    assert.equal(out.t, t);
    for (const node of out.nodes) {
      const want = (out.phase + (2 * Math.PI * node.index) / n) % (2 * Math.PI);
      assert.ok(Math.abs(node.phase - want) < 1e-12);
      assert.ok(Math.abs(node.R_t - (1 + 0.00129 * Math.sin(node.phase))) < 1e-15);
    }
    assert.ok(Math.abs(out.latticeSum - n) < 1e-12, `sum ${out.latticeSum}`);
    assert.ok(out.coherenceScore > 0.99 && out.coherenceScore <= 1);
  }
});

test('a node with a domain and inputs carries its default operator value; bad nodes are refused', () => {
  const out = runLattice([{ domain: 'Classical Mechanics', inputs: { m: 2, v: 3 } }, { domain: 'qm' }], 1_790_000_000);
  assert.equal(out.nodes[0].value, 9);
  assert.equal(out.nodes[0].unit, 'J');
  assert.equal(out.nodes[1].operator, 'QM5');
  assert.deepEqual(out.chain, ['KO42', 'KINETIC_ENERGY', 'QM5']);
  assert.throws(() => runLattice([{}], 0), (e: any) => e.status === 400);
  assert.throws(() => runLattice(Array(6).fill({}), 0), (e: any) => e.status === 400);
  assert.throws(() => runLattice([{ domain: 'nowhere' }, {}], 0), (e: any) => e.status === 400);
  assert.throws(() => runLattice([{ domain: 'CM', inputs: { m: 2, v: 3, x: 1 } }, {}], 0), (e: any) => e.code === 'DIMENSIONAL_GATE');
});
