import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, solveDare, riccatiMap } from '../../src/solvers/kalman.ts';
import * as M from '../../src/solvers/lib/smallmat.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(fields), { ...ctx, seed });

/** scalar DARE (F = a, H = 1): X² + X(r − a²r − q) − q r = 0, posterior X r/(X + r) */
function scalarSteadyState(a: number, q: number, r: number): number {
  const b = r - a * a * r - q;
  const X = (-b + Math.sqrt(b * b + 4 * q * r)) / 2;
  return (X * r) / (X + r);
}

test('scalar filter reaches the closed-form Riccati steady state', () => {
  for (const [a, q, r] of [[0.9, 1, 2], [1, 1, 1], [0.5, 0.1, 3], [-0.7, 2, 0.5]]) {
    const out = solve({ F: a, H: 1, Q: q, R: r, steps: 400 });
    const ref = scalarSteadyState(a, q, r);
    assert.ok(Math.abs(out.value - ref) / ref < 1e-12, `a=${a}: ${out.value} vs ${ref}`);
    assert.ok(Math.abs(out.precision.referenceValue! - ref) / ref < 1e-12);
    assert.ok(out.precision.withinBound);
  }
  // random walk seen with unit noise: the golden-ratio steady state (√5 − 1)/2
  const rw = solve({ F: 1, H: 1, Q: 1, R: 1 });
  assert.ok(Math.abs(rw.value - (Math.sqrt(5) - 1) / 2) < 1e-12);
});

test('Joseph form: a nearly exact sensor (R = 1e-8 against Q = 1e4) keeps every digit of the posterior variance', () => {
  // the short update P = (1 - K) P⁻ cancels catastrophically here (1 - K ≈ 1e-12): about 1e-4 relative
  // error, while (1 - K)² P⁻ + K² R is exact to rounding
  const a = 0.5, q = 1e4, r = 1e-8;
  const out = solve({ F: a, H: 1, Q: q, R: r, steps: 50 });
  const ref = scalarSteadyState(a, q, r);
  assert.ok(Math.abs(out.value - ref) / ref < 1e-12, `${out.value} vs ${ref}`);
  let shortForm = 1;
  for (let k = 0; k < 50; k++) { const prior = a * a * shortForm + q; shortForm = (1 - prior / (prior + r)) * prior; }
  assert.ok(Math.abs(shortForm - ref) / ref > 1e-6, 'the short form is measurably wrong on this case');
  assert.ok(out.precision.errorPct < 1e-10, `reference agreement ${out.precision.errorPct} %`);
});

test('the doubling solution is a fixed point of the Riccati map and equals plain iteration', () => {
  const F = M.fromNested([[1, 0.1, 0], [0, 1, 0.1], [0, 0, 0.95]]);
  const H = M.fromNested([[1, 0, 0], [0, 0, 1]]);
  const Q = M.fromNested([[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, 1e-2]]);
  const R = M.fromNested([[0.5, 0.1], [0.1, 0.8]]);
  const dare = solveDare(F, H, Q, R)!;
  assert.ok(dare.residual < 1e-12, `residual ${dare.residual}`);
  let X = M.identity(3);
  for (let k = 0; k < 20000; k++) X = riccatiMap(X, F, H, Q, R);
  assert.ok(M.maxAbsDiff(X, dare.X) < 1e-10 * M.maxAbs(X), `${M.maxAbsDiff(X, dare.X)}`);
  assert.ok(dare.iterations < 30);
});

test('default two-state tracker: Joseph-form filter converges to the Riccati fixed point, symmetric PSD', () => {
  const out = solve({});
  assert.ok(out.precision.errorPct < 1e-8, `${out.precision.errorPct}`);
  const P = M.fromNested(out.result.steadyStateCovariance as number[][]);
  assert.ok(M.isSymmetric(P, 1e-14));
  assert.ok(M.cholesky(P));
  const Pref = M.fromNested(out.result.riccatiCovariance as number[][]);
  assert.ok(M.maxAbsDiff(P, Pref) < 1e-10);
  assert.ok((out.result.closedLoopSpectralRadius as number) < 1);
});

test('empirical error variance and innovation statistics agree with the theory over a long run', () => {
  const out = solve({ F: 0.9, H: 1, Q: 1, R: 2, steps: 40000 }, 7);
  const emp = out.result.empiricalErrorVariance as number;
  assert.ok(Math.abs(emp - out.value) / out.value < 0.05, `empirical ${emp} vs ${out.value}`);
  const nis = out.result.normalizedInnovationSquared as number;
  assert.ok(Math.abs(nis - 1) < 0.05, `NIS ${nis}`);
});

test('a 4-state system with two sensors works and matches its Riccati solution', () => {
  const dt = 0.1;
  const out = solve({
    F: [[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]],
    H: [[1, 0, 0, 0], [0, 1, 0, 0]],
    Q: [[1e-4, 0, 0, 0], [0, 1e-4, 0, 0], [0, 0, 1e-2, 0], [0, 0, 0, 1e-2]],
    R: [[0.25, 0], [0, 0.25]],
    x0: [0, 0, 1, -1],
    steps: 2000,
  });
  assert.equal(out.result.n, 4);
  assert.equal(out.result.m, 2);
  assert.ok(out.precision.errorPct < 1e-6, `${out.precision.errorPct}`);
  assert.ok(Math.abs((out.result.empiricalErrorVariance as number) - out.value) / out.value < 0.25);
});

test('an unstable but observable system is tracked; the state is recentred to stay finite', () => {
  const out = solve({ F: 2, H: 1, Q: 1, R: 1, steps: 3000 });
  assert.ok(Math.abs(out.value - (Math.sqrt(5) + 2) / (Math.sqrt(5) + 3)) < 1e-12);
  assert.ok((out.result.recentred as number) > 0);
  assert.ok(Math.abs((out.result.empiricalErrorVariance as number) - out.value) / out.value < 0.1);
});

test('systems without a stabilizing steady state are refused', () => {
  const refused = (f: Record<string, unknown>) => assert.throws(() => solve(f),
    (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT', JSON.stringify(f));
  refused({ F: 2, H: 1, Q: 0, R: 1 }); // not stabilizable
  refused({ F: [[1, 0], [0, 2]], H: [[1, 0]], Q: [[1, 0], [0, 1]], R: 1 }); // unobserved unstable mode
  refused({ F: 1, H: 1, Q: 1, R: 0 }); // R singular
  refused({ F: [[1, 0], [0, 1]], H: [[1, 0]], Q: [[1, 0.5], [0, 1]], R: 1 }); // Q not symmetric
  refused({ F: [[1, 0], [0, 1]], H: [[1, 1]], Q: [[1, 2], [2, 1]], R: 1 }); // Q indefinite
});

test('same input and seed give identical bits; another seed changes only the simulated noise', () => {
  assert.deepEqual(solve({}, 3), solve({}, 3));
  const a = solve({}, 3), b = solve({}, 4);
  assert.equal(a.value, b.value);
  assert.notEqual(a.result.empiricalErrorVariance, b.result.empiricalErrorVariance);
});

test('bounds and shapes: mismatched or oversized matrices are refused naming the field', () => {
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ F: [[1, 0], [0, 1]], H: [[1, 0, 0]] }, 'H'],
    [{ F: [[1, 0]] }, 'F'],
    [{ F: 1, H: 1, Q: [[1, 0], [0, 1]], R: 1 }, 'Q'],
    [{ F: 1, H: 1, Q: 1, R: [[1, 0], [0, 1]] }, 'R'],
    [{ F: 1, H: 1, Q: 1, R: 1, P0: [[1, 0], [0, 1]] }, 'P0'],
    [{ F: 1, H: 1, Q: 1, R: 1, x0: [1, 2] }, 'x0'],
    [{ F: [[1, 2], [3]] }, 'F'],
    [{ F: [[1, 0, 0, 0, 0]] }, 'F'],
    [{ steps: 5 }, 'steps'],
    [{ steps: 200000 }, 'steps'],
    [{ F: 1e7 }, 'F'],
  ];
  for (const [b, field] of bad) {
    const r = descriptor.input.safeParse(b);
    assert.equal(r.success, false, JSON.stringify(b));
    assert.equal(r.error!.issues[0].path[0], field, JSON.stringify(b));
  }
  assert.ok(descriptor.input.safeParse({ F: 0.5, H: 2, Q: 1, R: 1, P0: 10, x0: 3 }).success);
});

test('descriptor carries at least 8 examples and a vocabulary', () => {
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.includes('kalman'));
  assert.deepEqual(descriptor.operators, ['KO42', 'CS47']);
  assert.equal(descriptor.unit, 'err');
});
