import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '../../src/solvers/lib/smallmat.ts';

const close = (a: M.Mat, b: number[][], tol = 1e-12) => {
  assert.deepEqual([a.rows, a.cols], [b.length, b[0].length]);
  const m = M.maxAbsDiff(a, M.fromNested(b));
  assert.ok(m <= tol, `max |diff| ${m}: ${JSON.stringify(M.toNested(a))} vs ${JSON.stringify(b)}`);
};

test('fromNested / toNested round-trip; a number is a 1x1 matrix; ragged rows are refused', () => {
  assert.deepEqual(M.toNested(M.fromNested([[1, 2, 3], [4, 5, 6]])), [[1, 2, 3], [4, 5, 6]]);
  const s = M.fromNested(7);
  assert.deepEqual([s.rows, s.cols, s.data[0]], [1, 1, 7]);
  assert.throws(() => M.fromNested([[1, 2], [3]]), RangeError);
});

test('mul, transpose, add, sub, scale, trace and congruence against hand-computed values', () => {
  const A = M.fromNested([[1, 2], [3, 4], [5, 6]]);
  const B = M.fromNested([[7, 8, 9], [10, 11, 12]]);
  close(M.mul(A, B), [[27, 30, 33], [61, 68, 75], [95, 106, 117]]);
  close(M.transpose(A), [[1, 3, 5], [2, 4, 6]]);
  close(M.add(A, A), [[2, 4], [6, 8], [10, 12]]);
  close(M.sub(A, A), [[0, 0], [0, 0], [0, 0]]);
  close(M.scale(A, -0.5), [[-0.5, -1], [-1.5, -2], [-2.5, -3]]);
  assert.equal(M.trace(M.mul(B, A)), 212); // B A = [[76, 100], [103, 136]]
  close(M.congruence(M.fromNested([[1, 1], [0, 1]]), M.identity(2)), [[2, 1], [1, 1]]);
  assert.throws(() => M.mul(A, A), RangeError);
  const out = M.zeros(3, 3);
  assert.throws(() => M.mul(out, out, out), RangeError);
});

test('solve and inverse reproduce a random well-conditioned system and need pivoting', () => {
  // zero leading pivot: fails without row exchange
  const A = M.fromNested([[0, 2, 1], [1, 1, 1], [2, 1, 0]]);
  const x = M.column([1, -2, 3]);
  const b = M.mul(A, x);
  close(M.solve(A, b)!, [[1], [-2], [3]], 1e-14);
  const inv = M.inverse(A)!;
  close(M.mul(A, inv), [[1, 0, 0], [0, 1, 0], [0, 0, 1]], 1e-14);
  // 4x4 Hilbert-like with a known inverse product
  const H4 = M.fromNested([[1, 1 / 2, 1 / 3, 1 / 4], [1 / 2, 1 / 3, 1 / 4, 1 / 5], [1 / 3, 1 / 4, 1 / 5, 1 / 6], [1 / 4, 1 / 5, 1 / 6, 1 / 7]]);
  close(M.inverse(H4)!, [[16, -120, 240, -140], [-120, 1200, -2700, 1680], [240, -2700, 6480, -4200], [-140, 1680, -4200, 2800]], 1e-8);
  // in-place right-hand side and a reused workspace
  const rhs = M.copy(b);
  M.solve(A, rhs, rhs, new Float64Array(9));
  close(rhs, [[1], [-2], [3]], 1e-14);
});

test('a singular matrix gives null', () => {
  assert.equal(M.solve(M.fromNested([[1, 2], [2, 4]]), M.column([1, 1])), null);
  assert.equal(M.inverse(M.zeros(2, 2)), null);
});

test('Cholesky factors an SPD matrix, accepts a semidefinite one and refuses an indefinite one', () => {
  const A = M.fromNested([[4, 12, -16], [12, 37, -43], [-16, -43, 98]]);
  close(M.cholesky(A)!, [[2, 0, 0], [6, 1, 0], [-8, 5, 3]]);
  const L = M.cholesky(A)!;
  close(M.mul(L, M.transpose(L)), M.toNested(A));
  // rank one: v v'
  const v = M.column([1, 2, 3]);
  const R1 = M.mul(v, M.transpose(v));
  const L1 = M.cholesky(R1)!;
  assert.ok(L1);
  close(M.mul(L1, M.transpose(L1)), M.toNested(R1), 1e-12);
  assert.equal(M.cholesky(M.fromNested([[1, 2], [2, 1]])), null);
  assert.equal(M.isPositiveDefinite(A), true);
  assert.equal(M.isPositiveDefinite(R1), false);
  assert.equal(M.isPositiveDefinite(M.fromNested([[1, 0.5], [0.4, 1]])), false); // not symmetric
});

test('symmetrize and isSymmetric', () => {
  const A = M.fromNested([[1, 2], [4, 3]]);
  close(M.symmetrize(A), [[1, 3], [3, 3]]);
  assert.equal(M.isSymmetric(A), false);
  assert.equal(M.isSymmetric(M.symmetrize(A)), true);
  M.symmetrize(A, A);
  close(A, [[1, 3], [3, 3]]);
});

test('spectral radius: diagonal, rotation, non-normal and Jordan matrices', () => {
  assert.ok(Math.abs(M.spectralRadius(M.fromNested([[0.5, 0], [0, -0.9]])) - 0.9) < 1e-12);
  const c = Math.cos(0.3), s = Math.sin(0.3);
  assert.ok(Math.abs(M.spectralRadius(M.fromNested([[1.7 * c, -1.7 * s], [1.7 * s, 1.7 * c]])) - 1.7) < 1e-12);
  // eigenvalues 0.95 and 0.2 with a large off-diagonal coupling (||A|| >> rho)
  assert.ok(Math.abs(M.spectralRadius(M.fromNested([[0.95, 50], [0, 0.2]])) - 0.95) < 1e-9);
  // Jordan block: eigenvalue 0.8 of multiplicity 2 converges slowly but surely
  assert.ok(Math.abs(M.spectralRadius(M.fromNested([[0.8, 1], [0, 0.8]])) - 0.8) < 1e-6);
  // companion matrix of (x - 2)(x + 0.5)(x - 0.1): rho = 2
  const comp = M.fromNested([[1.6, 0.85, -0.1], [1, 0, 0], [0, 1, 0]]);
  assert.ok(Math.abs(M.spectralRadius(comp) - 2) < 1e-9, `${M.spectralRadius(comp)}`);
  assert.equal(M.spectralRadius(M.fromNested([[0, 1], [0, 0]])), 0);
});
