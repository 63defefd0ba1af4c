// The expression compiler: values agree with the sandbox's own evaluation, and Jacobians with
// central differences, over a table of expressions; limits and unknown names are refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSystem } from '../../src/solvers/lib/expr.ts';
import { compileSafe } from '../../src/core/sandbox.ts';
import { SvcError } from '../../src/core/errors.ts';

const EXPRS = [
  'x^2 + 3*y - z/2', 'sin(x)*cos(y) + exp(-z^2)', 'sqrt(x^2 + y^2 + 1)', 'log(x + 3) - log10(y + 3) + log2(z + 3)',
  'x > 0 ? x^3 : -x', 'max(x, y, z) + min(x, y)', 'hypot(x, y, z)', 'atan2(y, x + 2)', 'tanh(x) * sinh(y) / cosh(z)',
  'abs(x - y) + floor(z) * 0 + 2^x', '(x + 2)^y', 'erf(x) + asinh(y) + atan(z)', 'nthRoot(x^2 + 2, 3) + cbrt(y + 5)',
  '(x + y) * (y + z) * (z + x)', 'mean(x, y, z) + sum(x, y) + prod(x, z)', '-x + +y - -z', 'expm1(x) + log1p(y + 2)',
  'sec(x) + csc(y + 2) + cot(z + 1)', 'x^2 * a + b', 'log(x + 4, 2)', '1 / (1 + exp(-(x*y - z)))',
];

test('compiled values equal the sandbox evaluation and Jacobians equal central differences', () => {
  const vars = ['x', 'y', 'z'];
  const sys = compileSystem(EXPRS, vars, { a: 2.5, b: -1 });
  assert.equal(sys.differentiable, true);
  const out = new Float64Array(EXPRS.length);
  const jac = new Float64Array(EXPRS.length * 3);
  const pts = [[0.3, 0.7, -0.2], [1.1, 0.4, 0.9], [-0.6, 1.3, 0.5], [0.9, 1.7, -1.1]];
  for (const p of pts) {
    sys.evaluate(p, out);
    sys.jacobian(p, jac);
    EXPRS.forEach((e, i) => {
      const ref = compileSafe(e).evaluate({ x: p[0], y: p[1], z: p[2], a: 2.5, b: -1 }) as number;
      assert.ok(Math.abs(out[i] - ref) <= 1e-13 * (1 + Math.abs(ref)), `${e} at ${p}: ${out[i]} vs ${ref}`);
      for (let j = 0; j < 3; j++) {
        const h = 1e-6;
        const pp = [...p], pm = [...p];
        pp[j] += h; pm[j] -= h;
        const fp = compileSafe(e).evaluate({ x: pp[0], y: pp[1], z: pp[2], a: 2.5, b: -1 }) as number;
        const fm = compileSafe(e).evaluate({ x: pm[0], y: pm[1], z: pm[2], a: 2.5, b: -1 }) as number;
        const fd = (fp - fm) / (2 * h);
        assert.ok(Math.abs(jac[i * 3 + j] - fd) <= 1e-6 * (1 + Math.abs(fd)), `d(${e})/d${vars[j]} at ${p}: ${jac[i * 3 + j]} vs ${fd}`);
      }
    });
  }
});

test('mathjs semantics on reals: mod takes the divisor sign, round halves away from zero, sqrt(-1) is NaN', () => {
  const sys = compileSystem(['mod(x, 3)', 'round(x)', 'sqrt(x)', 'x == -2.5'], ['x']);
  const out = new Float64Array(4);
  sys.evaluate([-2.5], out);
  assert.equal(out[0], 0.5);
  assert.equal(out[1], -3);
  assert.ok(Number.isNaN(out[2]));
  assert.equal(out[3], 1);
  assert.equal(sys.differentiable, false, 'mod has no derivative rule here');
  assert.throws(() => sys.jacobian([1], new Float64Array(4)), SvcError);
});

test('unknown names, strings, arrays and oversized expressions are refusals naming the field', () => {
  const bad: [string, RegExp][] = [['x + w', /unknown name 'w'/], ['"a"', /string/], ['[1, 2]', /array/], ['x + '.repeat(1100) + 'x', /characters|nodes/], ['import("fs")', /import/]];
  for (const [e, re] of bad) {
    assert.throws(() => compileSystem([e], ['x'], {}, { field: 'equations' }), (err: any) => err instanceof SvcError && err.code === 'INVALID_INPUT' && re.test(err.message) && /equations/.test(err.message), e);
  }
  assert.throws(() => compileSystem(['x'], ['x'], { x: 1 }), /both a variable and a parameter/);
});

test('a 4 KB expression compiles and evaluates', () => {
  const terms = Array.from({ length: 900 }, (_, i) => `${i % 7}*x`);
  const e = terms.join('+');
  assert.ok(e.length > 3500);
  const sys = compileSystem([e], ['x']);
  const out = new Float64Array(1);
  sys.evaluate([2], out);
  assert.equal(out[0], 2 * terms.reduce((s, _, i) => s + (i % 7), 0));
});

test('a power tower\'s Jacobian is compiled with shared subexpressions: exact, and linear in size (issue 33)', () => {
  // (1+x)^(1+y)^(1+z)^… 30 levels: written out as a tree its derivative doubles with every level
  const vars = ['x', 'y', 'z'];
  const tower = Array.from({ length: 30 }, (_, k) => `(1 + 0.01*${vars[k % 3]})`).join('^');
  const sys = compileSystem([tower], vars);
  const p = [0.2, -0.3, 0.5];
  const jac = new Float64Array(3);
  const before = process.memoryUsage().heapUsed;
  sys.jacobian(p, jac);
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 2 ** 20, 'compiling the Jacobian stays small');
  const f = (q: number[]) => compileSafe(tower).evaluate({ x: q[0], y: q[1], z: q[2] }) as number;
  for (let j = 0; j < 3; j++) {
    const h = 1e-6, pp = [...p], pm = [...p];
    pp[j] += h; pm[j] -= h;
    const fd = (f(pp) - f(pm)) / (2 * h);
    assert.ok(Math.abs(jac[j] - fd) <= 1e-6 * (1 + Math.abs(fd)), `d/d${vars[j]}: ${jac[j]} vs ${fd}`);
  }
});

test('a system whose exact Jacobian is too large is refused naming the state, before it fills memory', () => {
  const n = 100;
  const vars = Array.from({ length: n }, (_, i) => `y${i}`);
  const exprs = vars.map((_, i) => Array.from({ length: 38 }, (_, k) => `(1+0.001*${vars[(i + k) % n]})`).join('^'));
  const sys = compileSystem(exprs, vars, {}, { field: 'equations', names: vars });
  const rss0 = process.memoryUsage().rss;
  let err: any;
  try { sys.jacobian(new Float64Array(n).fill(0.5), new Float64Array(n * n)); } catch (e) { err = e; }
  assert.ok(err instanceof SvcError, String(err));
  assert.equal(err.code, 'INVALID_INPUT');
  assert.match(err.message, /^equations\[y\d+\]: its exact Jacobian has more than 200000 distinct operations/);
  assert.match(err.message, /RK45/);
  assert.ok(process.memoryUsage().rss - rss0 < 512 * 2 ** 20, `RSS rose by ${Math.round((process.memoryUsage().rss - rss0) / 2 ** 20)} MiB`);
});
