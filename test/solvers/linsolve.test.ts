// svc_linsolve (issue 31): the user's sparse A·x = b with a backward-error certificate.
// References: exact solutions, dense Gaussian elimination (test/solvers/util.ts), and SciPy
// (scipy.sparse.linalg.spsolve, i.e. SuperLU; numpy.linalg.cond for the exact 1-norm condition
// number) on public SuiteSparse matrices (test/fixtures/linsolve/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, descriptor, EXAMPLE_MM, EXAMPLE_COO, EXAMPLE_RHS_MM, runMemoryBudgetMb, factorBytesFor } from '../../src/solvers/linsolve.ts';
import { solveSparse } from '../../src/solvers/lib/sparse/driver.ts';
import { SolverPool } from '../../src/solvers/engine/pool.ts';
import { readMatrixMarket } from '../../src/solvers/lib/sparse/mm.ts';
import { checkLinearSolve } from '../../src/solvers/lib/sparse/check.ts';
import { SvcError } from '../../src/core/errors.ts';
import { denseSolve } from './util.ts';

const ctx = { seed: 7, progress: () => {} };
const solve = (body: Record<string, unknown>) => run(descriptor.input.parse(body) as any, ctx);
const FIX = new URL('../fixtures/linsolve/', import.meta.url);
const fixture = (name: string) => name.endsWith('.gz') ? gunzipSync(readFileSync(new URL(name, FIX))).toString('utf8') : readFileSync(new URL(name, FIX), 'utf8');

function refusal(fn: () => unknown): SvcError {
  try { fn(); } catch (e) { if (e instanceof SvcError) return e; throw e; }
  assert.fail('expected a refusal');
}

/** 2-D (5-point) or 3-D (7-point) Laplacian with Dirichlet boundary, as triplets. */
export function laplacian(N: number, dim: 2 | 3): { n: number; rows: number[]; cols: number[]; vals: number[] } {
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const nz = dim === 3 ? N : 1;
  const id = (i: number, j: number, k: number) => (i * N + j) * nz + k;
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) for (let k = 0; k < nz; k++) {
    rows.push(id(i, j, k)); cols.push(id(i, j, k)); vals.push(2 * dim);
    const nb = [[i - 1, j, k], [i + 1, j, k], [i, j - 1, k], [i, j + 1, k], ...(dim === 3 ? [[i, j, k - 1], [i, j, k + 1]] : [])];
    for (const [a, b, c] of nb) if (a >= 0 && a < N && b >= 0 && b < N && c >= 0 && c < nz) { rows.push(id(i, j, k)); cols.push(id(a, b, c)); vals.push(-1); }
  }
  return { n: N * N * nz, rows, cols, vals };
}

const dense = (n: number, rows: number[], cols: number[], vals: number[]) => {
  const A = Array.from({ length: n }, () => new Array(n).fill(0));
  rows.forEach((r, k) => { A[r][cols[k]] += vals[k]; });
  return A;
};

test('the documented example: tridiag(-1, 2, -1) x = [1, 0, 0, 1] has x = [1, 1, 1, 1], by Cholesky', () => {
  const out = solve({ matrix: EXAMPLE_MM, rhs: EXAMPLE_RHS_MM });
  assert.equal(out.result.method, 'cholesky');
  for (const v of out.result.x as number[]) assert.ok(Math.abs(v - 1) < 1e-14);
  assert.ok(Math.abs(out.value - 2) < 1e-14);
  assert.equal(out.precision.withinBound, true);
  assert.equal(out.precision.certificate, 'backward-error');
  assert.ok((out.result.backwardError as number) <= 1e-15);
  // κ₁ of tridiag(-1,2,-1) of order 4 is exactly 12 (‖A‖₁ = 4, ‖A⁻¹‖₁ = 3): the estimate is exact here
  assert.ok(Math.abs((out.result.condEst as number) - 12) < 1e-9, `condEst ${out.result.condEst}`);
});

test('JSON triplets of an unsymmetric matrix are solved by LU and agree with dense elimination', () => {
  const out = solve({ matrix: EXAMPLE_COO, rhs: [1, 2, 3] });
  assert.equal(out.result.method, 'lu');
  const ref = denseSolve(dense(3, EXAMPLE_COO.rows, EXAMPLE_COO.cols, EXAMPLE_COO.vals), [1, 2, 3]);
  (out.result.x as number[]).forEach((v, i) => assert.ok(Math.abs(v - ref[i]) <= 1e-14 * Math.abs(ref[i]) + 1e-15));
});

test('skew-symmetric, integer and pattern files are expanded as the format says', () => {
  // [[0, -2], [2, 0]] from the one stored entry a21 = 2
  const skew = solve({ matrix: '%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 2\n', rhs: [2, 4] });
  assert.deepEqual(skew.result.x, [2, -1]);
  // pattern: every stored entry is 1, mirrored: [[1,1,0],[1,1,0],[0,0,1]]
  const pat = readMatrixMarket('%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n2 2\n3 3\n');
  assert.deepEqual([...pat.ri], [0, 1, 0, 1, 2]);
  assert.deepEqual([...pat.vals], [1, 1, 1, 1, 1]);
});

test('a singular matrix is 422 SINGULAR naming the pivot; a numerically singular one too', () => {
  const e = refusal(() => solve({ matrix: '%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n2 2\n3 3\n', method: 'lu' }));
  assert.equal(e.code, 'SINGULAR');
  assert.equal(e.status, 422);
  assert.ok((e.details as any).pivot.step >= 0 && (e.details as any).pivot.column >= 0);
  // an empty column
  const e2 = refusal(() => solve({ matrix: { n: 3, rows: [0, 1, 2], cols: [0, 1, 1], vals: [1, 1, 1] } }));
  assert.equal(e2.code, 'SINGULAR');
  assert.match(e2.message, /column 2/);
  // rank-deficient in rounding: rows 1 and 2 equal up to 1e-17 relative
  const e3 = refusal(() => solve({ matrix: { n: 2, rows: [0, 0, 1, 1], cols: [0, 1, 0, 1], vals: [1, 1, 1, 1 + 1e-17] } }));
  assert.equal(e3.code, 'SINGULAR');
});

test('malformed Matrix Market text is a 400 naming the line', () => {
  const cases: [string, RegExp][] = [
    ['%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n', /line 1: complex/],
    ['%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 2\n', /line 4: row 3 is outside 1\.\.2/],
    ['%%MatrixMarket matrix coordinate real general\n% c\n2 2 2\n1 1 1\n2 2 x\n', /line 5: 'x' is not a real number/],
    ['%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n', /announces 3 entries, the file has 2/],
    ['%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n1 2 1\n', /line 4: a symmetric file stores the lower triangle/],
    ['%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n', /square matrix \(this one is 2×3\)/],
    ['hello', /line 1: the first line must be the banner/],
  ];
  for (const [text, re] of cases) {
    const e = refusal(() => solve({ matrix: text }));
    assert.equal(e.code, 'INVALID_INPUT', text);
    assert.match(e.message, re);
  }
  assert.equal(refusal(() => solve({ matrix: EXAMPLE_MM, rhs: [1, 2] })).code, 'INVALID_INPUT');
  assert.throws(() => descriptor.input.parse({ matrix: { n: 2, rows: [0, 2], cols: [0, 1], vals: [1, 1] } }), /outside 0\.\.1/);
  assert.throws(() => descriptor.input.parse({ matrix: EXAMPLE_MM, precond: 'jacobi' }), /precond applies to the iterative methods/);
  assert.throws(() => descriptor.input.parse({ matrix: EXAMPLE_MM, method: 'cg', ordering: 'amd' }), /ordering applies to the direct methods/);
});

test('a Uint8Array (a blob) reads like the text', () => {
  const a = readMatrixMarket(new TextEncoder().encode(EXAMPLE_MM));
  const b = readMatrixMarket(EXAMPLE_MM);
  assert.deepEqual([...a.vals], [...b.vals]);
});

test('every method solves the 2-D Laplacian; direct ones to backward error ≤ 1e-12, iterative ones to rtol', () => {
  const L = laplacian(24, 2);
  const b = L.rows.map(() => 0).slice(0, L.n).map((_, i) => Math.sin(i));
  const ref = solve({ matrix: L, rhs: b, method: 'cholesky' });
  const xr = ref.result.x as number[];
  const combos: Record<string, unknown>[] = [
    { method: 'auto' }, { method: 'lu' }, { method: 'lu', ordering: 'colamd' }, { method: 'cholesky', ordering: 'natural' },
    { method: 'cg', precond: 'ic0', rtol: 1e-10 }, { method: 'cg', precond: 'jacobi', rtol: 1e-10 }, { method: 'minres', precond: 'jacobi', rtol: 1e-10 },
    { method: 'gmres', precond: 'ilu0', rtol: 1e-10 }, { method: 'bicgstab', precond: 'ilu0', rtol: 1e-10 }, { method: 'gmres', restart: 10, rtol: 1e-9 },
  ];
  for (const c of combos) {
    const out = solve({ matrix: L, rhs: b, ...c });
    const direct = !('rtol' in c);
    assert.equal(out.precision.withinBound, true, JSON.stringify(c));
    assert.ok((out.result.backwardError as number) <= (direct ? 1e-12 : (c.rtol as number)), `${JSON.stringify(c)}: η = ${out.result.backwardError}`);
    const x = out.result.x as number[];
    const xmax = Math.max(...xr.map(Math.abs));
    const err = Math.max(...x.map((v, i) => Math.abs(v - xr[i]))) / xmax;
    // both solutions lie within their forward error bounds of the true one
    assert.ok(err <= (out.result.forwardErrorBound as number) + (ref.result.forwardErrorBound as number), `${JSON.stringify(c)}: ${err} vs bounds`);
    if (!direct) assert.ok((out.result.iterations as number) > 0);
    else assert.ok((out.result.fillIn as number) >= L.n);
  }
});

test('auto on a symmetric indefinite matrix tries Cholesky, falls back to LU and says so', () => {
  const m = { n: 3, rows: [0, 1, 1, 2, 2, 0, 1], cols: [0, 1, 2, 1, 2, 1, 0], vals: [2, 1, 3, 3, 1, 1, 1] };
  const out = solve({ matrix: m, rhs: [1, 2, 3] });
  assert.equal(out.result.method, 'lu');
  assert.match(out.result.fallback as string, /non-positive pivot/);
  const ref = denseSolve(dense(3, m.rows, m.cols, m.vals), [1, 2, 3]);
  (out.result.x as number[]).forEach((v, i) => assert.ok(Math.abs(v - ref[i]) < 1e-13));
  const e = refusal(() => solve({ matrix: m, rhs: [1, 2, 3], method: 'cholesky' }));
  assert.equal(e.code, 'SHAPE_REFUSED');
  assert.match(e.message, /not positive definite/);
  // MINRES handles the indefinite symmetric case
  const mr = solve({ matrix: m, rhs: [1, 2, 3], method: 'minres', rtol: 1e-12 });
  (mr.result.x as number[]).forEach((v, i) => assert.ok(Math.abs(v - ref[i]) < 1e-10));
});

test('the certificate checker recomputes the residual from the triplets alone (a wrong x fails it)', () => {
  const L = laplacian(10, 2);
  const out = solve({ matrix: L });
  const x = Float64Array.from(out.result.x as number[]);
  const b = new Float64Array(L.n).fill(1);
  const good = checkLinearSolve(L.n, L.rows, L.cols, L.vals, x, b);
  assert.ok(good.backwardError < 1e-15);
  x[17] *= 1 + 1e-8;
  const bad = checkLinearSolve(L.n, L.rows, L.cols, L.vals, x, b);
  assert.ok(bad.backwardError > 1e-10);
  // duplicates are summed: the same matrix with one entry split in two halves
  const rows = [...L.rows, 0], cols = [...L.cols, 0], vals = [...L.vals, 1];
  vals[0] -= 1;
  const split = checkLinearSolve(L.n, rows, cols, vals, Float64Array.from(out.result.x as number[]), b);
  assert.equal(split.normAInf, good.normAInf);
});

test('non-convergence is refused, not sealed: CG capped at 3 iterations', () => {
  const L = laplacian(20, 2);
  const e = refusal(() => solve({ matrix: L, method: 'cg', maxIter: 3 }));
  assert.equal(e.code, 'PRECISION_REFUSED');
});

// SciPy cross-checks: SuiteSparse matrices and Laplacians, x against spsolve within the forward error
// bounds; the condition estimate against numpy's exact κ₁.
const hasScipy = (() => { try { execFileSync('python3', ['-c', 'import scipy, numpy'], { stdio: 'ignore' }); return true; } catch { return false; } })();
const SCIPY_SKIP = hasScipy ? false : process.env.CI === 'true' ? false : 'SKIPPED: python3 with SciPy (Debian python3-scipy) is not installed';
if (SCIPY_SKIP) process.stderr.write(`\n*** ${SCIPY_SKIP} ***\n\n`);

const PY = `
import sys, json, numpy as np, scipy.io, scipy.sparse as sp, scipy.sparse.linalg as sla
out = {}
for path in sys.argv[1:]:
    A = scipy.io.mmread(path).tocsc().astype(float)
    n = A.shape[0]
    b = np.ones(n)
    x = sla.spsolve(A, b)
    r = b - A @ x
    eta = np.abs(r).max() / (abs(A).sum(axis=1).max() * np.abs(x).max() + 1)
    cond = float(np.linalg.cond(A.toarray(), 1)) if n <= 2000 else None
    out[path] = {"x": x.tolist(), "eta": float(eta), "cond1": cond}
print(json.dumps(out))
`;

test('SuiteSparse matrices and Laplacians: η ≤ 1e-12, x agrees with SciPy spsolve within the forward error bounds, κ₁ estimate within 10× of numpy', { skip: SCIPY_SKIP, timeout: 120_000 }, () => {
  assert.ok(hasScipy, 'python3 with scipy is required in CI');
  const dir = mkdtempSync(join(tmpdir(), 'linsolve-'));
  const files: Record<string, string> = {};
  for (const f of ['bcsstk01.mtx', 'bcsstk02.mtx', '494_bus.mtx', 'west0067.mtx', 'west0479.mtx', 'fs_183_1.mtx', 'bcsstk16.mtx.gz']) {
    const p = join(dir, f.replace(/\.gz$/, ''));
    writeFileSync(p, fixture(f));
    files[f] = p;
  }
  const lap = (N: number, d: 2 | 3) => {
    const L = laplacian(N, d);
    const lines = ['%%MatrixMarket matrix coordinate real general', `${L.n} ${L.n} ${L.rows.length}`, ...L.rows.map((r, k) => `${r + 1} ${L.cols[k] + 1} ${L.vals[k]}`)];
    const p = join(dir, `lap${d}d-${N}.mtx`);
    writeFileSync(p, lines.join('\n') + '\n');
    files[`lap${d}d-${N}`] = p;
  };
  lap(40, 2); lap(12, 3);
  const ref = JSON.parse(execFileSync('python3', ['-c', PY, ...Object.values(files)], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  for (const [name, path] of Object.entries(files)) {
    const text = readFileSync(path, 'utf8');
    const out = solve({ matrix: text });
    const r = ref[path];
    const x = out.result.x as number[];
    const eta = out.result.backwardError as number;
    assert.ok(eta <= 1e-12, `${name}: η = ${eta}`);
    const xmax = Math.max(...x.map(Math.abs));
    const diff = Math.max(...x.map((v, i) => Math.abs(v - r.x[i]))) / xmax;
    // SciPy's own solution carries an error up to its own bound (its η, the same κ)
    const kappa = out.result.condEstInf as number;
    const scipyBound = 2 * kappa * Math.max(r.eta, 1.1e-16) / Math.max(1e-300, 1 - kappa * r.eta);
    assert.ok(diff <= (out.result.forwardErrorBound as number) + scipyBound, `${name}: |x − x_scipy|/|x| = ${diff}, bounds ${out.result.forwardErrorBound} + ${scipyBound}`);
    if (r.cond1 !== null) {
      const ratio = r.cond1 / (out.result.condEst as number);
      assert.ok(ratio >= 0.999 && ratio <= 10, `${name}: κ₁ = ${r.cond1}, estimate ${out.result.condEst}`);
    }
    process.stdout.write(`# ${name}: n ${out.result.n}, ${out.result.method}, η ${eta.toExponential(2)}, κ₁ est ${(out.result.condEst as number).toExponential(2)} (numpy ${r.cond1?.toExponential(2) ?? '—'}), |x − x_scipy|/|x| ${diff.toExponential(2)}, bound ${(out.result.forwardErrorBound as number).toExponential(2)}, fill ${out.result.fillIn}\n`);
  }
});

test("the Cholesky factor is bounded by the run's memory budget: past it, 422 SHAPE_REFUSED naming cg with ic0", () => {
  // the budget: the worker's heap limit, else SVC_JOB_MEMORY_MB, else 512 MiB
  const saved = process.env.SVC_JOB_MEMORY_MB;
  try {
    delete process.env.SVC_JOB_MEMORY_MB;
    assert.equal(runMemoryBudgetMb(), 512);
    process.env.SVC_JOB_MEMORY_MB = '1536';
    assert.equal(runMemoryBudgetMb(), 1536);
  } finally { if (saved === undefined) delete process.env.SVC_JOB_MEMORY_MB; else process.env.SVC_JOB_MEMORY_MB = saved; }
  assert.equal(factorBytesFor(512, 1_000_000, 100_000), 512 * 2 ** 20 - 64e6 - 16e6);
  const L = laplacian(12, 3);
  const p = { n: L.n, ri: Int32Array.from(L.rows), ci: Int32Array.from(L.cols), vals: Float64Array.from(L.vals) };
  const b = new Float64Array(L.n).fill(1);
  const ok = solveSparse(p, b, { method: 'auto', maxFactorBytes: 64 * 2 ** 20 });
  assert.equal(ok.method, 'cholesky');
  // the symbolic phase's count: at least the stored values and the row indices, at most the budget
  const e = refusal(() => solveSparse(p, b, { method: 'auto', maxFactorBytes: 2 ** 20, memoryNote: 'a test budget' }));
  assert.equal(e.code, 'SHAPE_REFUSED');
  assert.match(e.message, /needs \d+ MiB .* more than 1 MiB \(a test budget\); use method: 'cg' with precond: 'ic0'/);
  const d = e.details as any;
  assert.deepEqual(d.use, { method: 'cg', precond: 'ic0' });
  assert.ok(d.factorBytes > 8 * d.fill && d.factorBytes < 64 * 2 ** 20, `${d.factorBytes} bytes for ${d.fill} entries`);
  // far past it, the pattern is not even built: refused on the count of L
  const e2 = refusal(() => solveSparse(p, b, { method: 'cholesky', maxFactorBytes: 8 * 1000 }));
  assert.equal(e2.code, 'SHAPE_REFUSED');
  assert.deepEqual((e2.details as any).use, { method: 'cg', precond: 'ic0' });
  // the refusal's advice works
  const cg = solveSparse(p, b, { method: 'cg', precond: 'ic0', rtol: 1e-12 });
  assert.ok(cg.backwardError <= 1e-12);
});

test("in a pool worker the budget is the worker's own (SVC_JOB_MEMORY_MB): 64 MiB refuses the 3-D Laplacian 30³, naming cg with ic0", { timeout: 60_000 }, async () => {
  const pool = new SolverPool({ timeoutMs: 30_000, threads: 1, jobMemoryMb: 64 });
  try {
    const L = laplacian(30, 3); // L has 5.6 M entries: the factorisation needs about 90 MiB
    const e = await pool.run('linsolve', descriptor.input.parse({ matrix: L }), { seed: 1, now: 1_790_000_000 }).then(() => null, (err) => err);
    assert.ok(e instanceof SvcError, String(e));
    assert.equal(e.code, 'SHAPE_REFUSED');
    assert.match(e.message, /this run's memory budget of 64 MiB, SVC_JOB_MEMORY_MB/);
    assert.deepEqual((e.details as any).use, { method: 'cg', precond: 'ic0' });
  } finally {
    await pool.close();
  }
});
