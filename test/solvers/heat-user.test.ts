// heat, user mode: the caller's initial and boundary conditions against analytic solutions (Fourier
// series, separable modes, manufactured solutions), and the Richardson estimate against the true error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/heat.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const r = (out: any) => out.result as any;

/** x(1−x) on [0, 1] with zero ends: 8/π³ Σ_{odd n} sin(nπx)·e^{−α n²π² t}/n³ */
function fourierParabola(x: number, t: number, alpha = 1): number {
  let s = 0;
  for (let n = 1; n < 4001; n += 2) s += Math.sin(n * Math.PI * x) * Math.exp(-alpha * n * n * Math.PI * Math.PI * t) / (n * n * n);
  return (8 / Math.PI ** 3) * s;
}

const periodic = { type: 'periodic' } as const;
const neumann0 = { type: 'neumann' } as const;

/**
 * Checks every probe against the exact solution: the true error of the reported u stays below
 * `maxErr` (so a wrong answer fails), and the Richardson estimate is within 10× of it
 * (true/estimate in [0.1, 10]). Returns the ratios.
 */
function checkProbes(out: any, exact: (x: number, y: number, t: number) => number, maxErr: number, label: string): number[] {
  const res = r(out);
  assert.equal(out.precision.certificate, 'error-estimate');
  const ratios: number[] = [];
  for (const p of res.probes) {
    const truth = exact(p.x, p.y ?? 0, res.t);
    const err = Math.abs(p.u - truth);
    assert.ok(err < maxErr, `${label} at (${p.x}, ${p.y}): u = ${p.u}, exact ${truth}, error ${err} >= ${maxErr}`);
    const ratio = err / p.err;
    assert.ok(ratio >= 0.1 && ratio <= 10, `${label} at (${p.x}, ${p.y}): true error ${err} vs estimate ${p.err} (ratio ${ratio})`);
    ratios.push(ratio);
  }
  return ratios;
}

test('x(1−x) with zero Dirichlet ends matches its Fourier series; the estimate is within 10× of the true error (CN and FTCS)', () => {
  const probes = [[0.5], [0.25], [0.1], [0.37]];
  const cn = solve({ dim: 1, nx: 32, dt: 1e-3, steps: 100, initial: 'x*(1-x)', probes });
  assert.equal(cn.method, 'crank-nicolson');
  checkProbes(cn, (x, _y, t) => fourierParabola(x, t), 5e-5, 'CN');
  const ftcs = solve({ dim: 1, method: 'explicit', nx: 32, dt: 2.5e-4, steps: 400, initial: 'x*(1-x)', probes });
  assert.equal(ftcs.method, 'ftcs');
  checkProbes(ftcs, (x, _y, t) => fourierParabola(x, t), 5e-5, 'FTCS');
  // the refined twin: h/2 with dt/2 (CN), dt/4 (FTCS, keeping r)
  assert.deepEqual(r(cn).refined, { nx: 64, ny: null, dx: 1 / 64, dy: null, dt: 5e-4, steps: 200 });
  assert.deepEqual(r(ftcs).refined, { nx: 64, ny: null, dx: 1 / 64, dy: null, dt: 6.25e-5, steps: 1600 });
  assert.equal(r(ftcs).t, 0.1);
});

test('an array initial condition on the grid gives the expression\'s answer (cubic interpolation to the refined grid is exact on x(1−x))', () => {
  const nx = 32;
  const arr = Array.from({ length: nx + 1 }, (_, i) => (i / nx) * (1 - i / nx));
  const a = solve({ dim: 1, nx, dt: 1e-3, steps: 50, initial: arr, probes: [[0.3], [0.5]] });
  const e = solve({ dim: 1, nx, dt: 1e-3, steps: 50, initial: 'x*(1-x)', probes: [[0.3], [0.5]] });
  for (let k = 0; k < 2; k++) {
    assert.ok(Math.abs(r(a).probes[k].u - r(e).probes[k].u) < 1e-14);
    assert.ok(Math.abs(r(a).probes[k].err - r(e).probes[k].err) < 1e-14);
  }
  // 2-D: rows at y_j, columns at x_i
  const n = 16;
  const rows = Array.from({ length: n + 1 }, (_, j) => Array.from({ length: n + 1 }, (_, i) => (i / n) * (1 - i / n) * (j / n) * (2 - j / n)));
  const a2 = solve({ nx: n, ny: n, dt: 2e-3, steps: 10, initial: rows, boundary: { top: neumann0 }, probes: [[0.4, 0.6]] });
  const e2 = solve({ nx: n, ny: n, dt: 2e-3, steps: 10, initial: 'x*(1-x)*y*(2-y)', boundary: { top: neumann0 }, probes: [[0.4, 0.6]] });
  assert.ok(Math.abs(r(a2).probes[0].u - r(e2).probes[0].u) < 1e-14);
});

test('zero-flux Neumann walls: cos(πx/L) decays as e^{−απ²t/L²}; the estimate is within 10×', () => {
  const out = solve({ dim: 1, nx: 32, Lx: 2, dt: 2e-3, steps: 100, initial: 'cos(pi*x/2)', boundary: { left: neumann0, right: neumann0 }, probes: [[0], [0.3], [1.3], [2]] });
  checkProbes(out, (x, _y, t) => Math.cos(Math.PI * x / 2) * Math.exp(-(Math.PI ** 2) / 4 * t), 1e-4, 'Neumann');
  const ftcs = solve({ dim: 1, method: 'explicit', nx: 32, Lx: 2, dt: 1e-3, steps: 200, initial: 'cos(pi*x/2)', boundary: { left: neumann0, right: neumann0 }, probes: [[0], [0.7]] });
  checkProbes(ftcs, (x, _y, t) => Math.cos(Math.PI * x / 2) * Math.exp(-(Math.PI ** 2) / 4 * t), 1e-4, 'Neumann FTCS');
});

test('non-zero Neumann fluxes (outward normal derivatives) on every wall: u = (x + ½)² + 2αt is reproduced exactly', () => {
  // outward derivative −u_x(0) = −1 on the left, u_x(1) = 3 on the right (2-D: plus (y − 0.3)², with
  // −u_y(0) = 0.6 and u_y(1) = 1.4); quadratic in space, linear in time: every scheme is exact
  const x1 = { left: { type: 'neumann', value: -1 }, right: { type: 'neumann', value: 3 } };
  for (const fields of [
    { dim: 1, nx: 16, dt: 1e-3, steps: 50, alpha: 0.7, initial: '(x+0.5)^2', boundary: x1 },
    { dim: 1, nx: 16, dt: 1e-3, steps: 50, alpha: 0.7, method: 'explicit', initial: '(x+0.5)^2', boundary: x1 },
    { dim: 1, nx: 16, dt: 1e-3, steps: 50, alpha: 0.7, initial: '(x+0.5)^2', boundary: { left: x1.left, right: { type: 'dirichlet', value: '2.25 + 1.4*t' } } },
    { nx: 16, ny: 16, dt: 1e-3, steps: 20, alpha: 0.7, initial: '(x+0.5)^2 + (y-0.3)^2', boundary: { ...x1, bottom: { type: 'neumann', value: 0.6 }, top: { type: 'neumann', value: 1.4 } } },
    { nx: 16, ny: 16, dt: 1e-4, steps: 20, alpha: 0.7, method: 'explicit', initial: '(x+0.5)^2 + (y-0.3)^2', boundary: { ...x1, bottom: { type: 'neumann', value: 0.6 }, top: { type: 'neumann', value: 1.4 } } },
  ]) {
    const out = solve({ ...fields, probes: fields.dim === 1 ? [[0], [0.4], [1]] : [[0, 0], [0.4, 0.9], [1, 1]] });
    for (const p of r(out).probes) {
      const exact = (p.x + 0.5) ** 2 + (fields.dim === 1 ? 0 : (p.y - 0.3) ** 2) + (fields.dim === 1 ? 2 : 4) * 0.7 * r(out).t;
      assert.ok(Math.abs(p.u - exact) < 1e-11, `${JSON.stringify(fields.boundary)} ${fields.method ?? ''}: ${p.u} vs ${exact}`);
    }
  }
});

test('periodic ends: the mode sin(2πx/L) decays as e^{−α(2π/L)²t}; the estimate is within 10×', () => {
  const out = solve({ dim: 1, nx: 24, Lx: 3, alpha: 0.5, dt: 5e-3, steps: 100, initial: 'sin(2*pi*x/3)', boundary: { left: periodic, right: periodic }, probes: [[0.4], [1.9], [2.9]] });
  checkProbes(out, (x, _y, t) => Math.sin(2 * Math.PI * x / 3) * Math.exp(-0.5 * (2 * Math.PI / 3) ** 2 * t), 1e-3, 'periodic');
  assert.deepEqual(r(out).boundary, { left: 'periodic', right: 'periodic' });
});

test('non-zero Dirichlet values: 1 + 2x + e^{−π²t}·sin(πx) relaxes to the linear steady state 1 + 2x', () => {
  const bc = { left: { type: 'dirichlet', value: 1 }, right: { type: 'dirichlet', value: 3 } };
  const out = solve({ dim: 1, nx: 32, dt: 1e-3, steps: 80, initial: '1 + 2*x + sin(pi*x)', boundary: bc, probes: [[0.5], [0.8], [0.05]] });
  checkProbes(out, (x, _y, t) => 1 + 2 * x + Math.exp(-(Math.PI ** 2) * t) * Math.sin(Math.PI * x), 1e-4, 'Dirichlet');
  // from a cold rod, long after: the linear profile
  const steady = solve({ dim: 1, nx: 32, dt: 0.01, steps: 300, boundary: bc, probes: [[0.25], [0.5], [1]] });
  for (const p of r(steady).probes) assert.ok(Math.abs(p.u - (1 + 2 * p.x)) < 1e-8, `${p.x}: ${p.u}`);
  assert.ok(r(steady).errorEstimate < 1e-8);
});

test('2-D: x(1−x)·y(1−y) against the product of Fourier series (ADI and FTCS); the estimate is within 10×', () => {
  const probes = [[0.5, 0.5], [0.2, 0.7], [0.33, 0.41]];
  const exact = (x: number, y: number, t: number) => fourierParabola(x, t) * fourierParabola(y, t);
  const adi = solve({ nx: 32, ny: 32, dt: 1e-3, steps: 50, initial: 'x*(1-x)*y*(1-y)', probes });
  assert.equal(adi.method, 'adi-peaceman-rachford');
  checkProbes(adi, exact, 1e-5, 'ADI');
  const ftcs = solve({ method: 'explicit', nx: 32, ny: 32, dt: 1e-4, steps: 500, initial: 'x*(1-x)*y*(1-y)', probes });
  checkProbes(ftcs, exact, 1e-5, 'FTCS 2-D');
});

test('2-D mixed walls: Neumann in x, periodic in y on [0, 1] × [0, 2]; the estimate is within 10×', () => {
  const out = solve({
    nx: 32, ny: 32, Lx: 1, Ly: 2, dt: 1e-3, steps: 40, initial: 'cos(pi*x)*sin(pi*y)',
    boundary: { left: neumann0, right: neumann0, bottom: periodic, top: periodic }, probes: [[0, 0.5], [0.3, 1.2], [1, 1.9]],
  });
  checkProbes(out, (x, y, t) => Math.cos(Math.PI * x) * Math.sin(Math.PI * y) * Math.exp(-2 * Math.PI ** 2 * t), 5e-4, 'mixed 2-D');
  assert.equal(r(out).dy, undefined);
  assert.equal(r(out).grid.dy, 2 / 32);
});

test('sources: a manufactured f(x, t), a reaction −k·u, and time-dependent walls', () => {
  // u = sin(πx)(1 + t): f = sin(πx)(1 + π²(1 + t))
  const man = solve({ dim: 1, nx: 32, dt: 2e-3, steps: 50, initial: 'sin(pi*x)', source: 'sin(pi*x)*(1 + pi^2*(1+t))', probes: [[0.5], [0.3]] });
  checkProbes(man, (x, _y, t) => Math.sin(Math.PI * x) * (1 + t), 3e-4, 'manufactured');
  // u_t = u_xx − 3u: u = e^{−(π²+3)t}·sin(πx) (CN with ũ extrapolated; FTCS explicit)
  for (const method of ['implicit', 'explicit']) {
    const out = solve({ dim: 1, method, nx: 32, dt: method === 'explicit' ? 2e-4 : 2e-3, steps: method === 'explicit' ? 500 : 50, initial: 'sin(pi*x)', source: '-3*u', probes: [[0.5], [0.3]] });
    checkProbes(out, (x, _y, t) => Math.sin(Math.PI * x) * Math.exp(-(Math.PI ** 2 + 3) * t), 1e-4, `reaction ${method}`);
  }
  // 2-D ADI, u = e^{−t}(x² + y²): f = −e^{−t}(x² + y² + 4); Dirichlet and Neumann walls moving in time
  const exact = (x: number, y: number, t: number) => Math.exp(-t) * (x * x + y * y);
  for (const boundary of [
    { left: { type: 'dirichlet', value: 'exp(-t)*y^2' }, right: { type: 'dirichlet', value: 'exp(-t)*(1+y^2)' }, bottom: { type: 'dirichlet', value: 'exp(-t)*x^2' }, top: { type: 'dirichlet', value: 'exp(-t)*(1+x^2)' } },
    { left: neumann0, right: { type: 'neumann', value: '2*exp(-t)' }, bottom: neumann0, top: { type: 'dirichlet', value: 'exp(-t)*(1+x^2)' } },
  ]) {
    const out = solve({ nx: 16, ny: 16, dt: 0.01, steps: 20, initial: 'x^2+y^2', source: '-exp(-t)*(x^2+y^2+4)', boundary, probes: [[0.5, 0.5], [0.25, 0.8], [0.1, 0.1]] });
    checkProbes(out, exact, 3e-6, `moving walls ${boundary.left.type}`);
  }
});

test('result: probes {x, y, u, err}, errorEstimate the largest err, value the first probe, precision from the estimate', () => {
  const out = solve({ dim: 1, nx: 32, dt: 1e-3, steps: 100, initial: 'x*(1-x)', probes: [[0.1], [0.5]] });
  const res = r(out);
  assert.equal(res.probes.length, 2);
  for (const p of res.probes) assert.deepEqual(Object.keys(p).slice(0, 4), ['x', 'y', 'u', 'err']);
  assert.equal(res.probes[0].y, null);
  assert.equal(out.value, res.probes[0].u);
  assert.equal(res.errorEstimate, Math.max(...res.probes.map((p: any) => p.err)));
  assert.ok(Math.abs(out.precision.errorPct - 100 * res.errorEstimate / res.scale) < 1e-15);
  assert.equal(out.precision.boundPct, 1);
  assert.equal(out.precision.withinBound, true);
  assert.deepEqual(Object.keys(out.series!), ['t', 'p0', 'p1']);
  assert.equal(out.series!.t[0], 0);
  assert.ok(Math.abs(out.series!.p1[0] - 0.25) < 1e-15);
  assert.equal(out.series!.t[out.series!.t.length - 1], res.t);
  // the caller's bound: far below the estimate, the result is out of bound (the engine refuses it)
  const tight = solve({ dim: 1, nx: 32, dt: 1e-3, steps: 100, initial: 'x*(1-x)', probes: [[0.1], [0.5]], boundPct: 1e-4 });
  assert.equal(tight.precision.boundPct, 1e-4);
  assert.equal(tight.precision.withinBound, false);
  // no probes: the centre
  const centre = solve({ Lx: 2, Ly: 4, nx: 16, ny: 16, dt: 1e-3, steps: 5, initial: 'x*y' });
  assert.deepEqual([r(centre).probes[0].x, r(centre).probes[0].y], [1, 2]);
  assert.equal(r(centre).probesDefaulted, true);
});

test('stability: FTCS past r = 1/2 on the caller\'s grid (dx = Lx/nx) is 422 UNSTABLE; a blow-up is UNSTABLE with tFail', () => {
  // Lx = 0.5 halves dx: r = dt/dx² = 4e-4·(32/0.5)² = 1.6384
  assert.throws(() => solve({ dim: 1, method: 'explicit', nx: 32, Lx: 0.5, dt: 4e-4, steps: 10, initial: 'x' }), (e: any) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    assert.ok(Math.abs((e.details as any).stability.number - 4e-4 * 64 * 64) < 1e-12);
    return true;
  });
  const ok = solve({ dim: 1, method: 'explicit', nx: 32, Lx: 2, dt: 1e-3, steps: 10, initial: 'x' });
  assert.ok(Math.abs(ok.stability!.number - 1e-3 * 16 * 16) < 1e-12);
  // u_t = u_xx + u²: from u0 = 50 the solution blows up in finite time (about 1/50)
  assert.throws(() => solve({ dim: 1, nx: 16, dt: 1e-3, steps: 200, initial: '50', boundary: { left: neumann0, right: neumann0 }, source: 'u^2' }), (e: any) => {
    assert.equal(e.code, 'UNSTABLE');
    assert.ok((e.details as any).tFail > 0.01 && (e.details as any).tFail <= 0.2, JSON.stringify(e.details));
    return true;
  });
});

test('bad input is a 400 naming the field: mode conflicts, periodic on one side, probes outside, wrong array sizes, bad expressions', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ initial: 'x', kx: 2 }, /kx .*initial/],
    [{ probes: [[0.5, 0.5]], ky: 1 }, /ky /],
    [{ dim: 1, Lx: 2, mode: 3 }, /mode .*Lx/],
    [{ boundPct: 1 }, /boundPct/],
    [{ dim: 1, boundary: { left: periodic } }, /boundary.right: periodic must be given on both/],
    [{ boundary: { top: periodic } }, /boundary.bottom: periodic/],
    [{ boundary: { left: { type: 'periodic', value: 1 }, right: periodic } }, /periodic side takes no value/],
    [{ dim: 1, boundary: { bottom: neumann0 } }, /boundary.bottom/],
    [{ dim: 1, Ly: 2, initial: 'x' }, /Ly/],
    [{ initial: 'x', probes: [[1.5, 0.5]] }, /probes\[0\].*outside/],
    [{ dim: 1, Lx: 2, initial: 'x', probes: [[0.5], [-0.1]] }, /probes\[1\].*outside/],
    [{ initial: 'x', probes: [[0.5]] }, /probes\[0\] has 1 coordinate.*dim: 1/],
    [{ dim: 1, initial: 'x', probes: [[0.5, 0.5]] }, /probes\[0\]/],
    [{ dim: 1, nx: 16, initial: [0, 1, 2] }, /initial has 3 values; .* 17 nodes/],
    [{ nx: 8, ny: 8, initial: Array.from({ length: 9 }, () => [1, 2]) }, /initial\[0\] has 2 values/],
    [{ nx: 8, ny: 8, initial: [[1, 2], [3, 4]] }, /initial has 2 rows/],
    [{ nx: 8, ny: 8, initial: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, /initial: a 2-D problem .*dim: 1/],
    [{ dim: 1, nx: 8, initial: Array.from({ length: 9 }, (_, i) => i), boundary: { left: periodic, right: periodic } }, /periodic.*must equal/],
    [{ initial: 'x +* y' }, /initial: expression refused/],
    [{ initial: 'x*z' }, /initial: unknown variable 'z'/],
    [{ dim: 1, initial: 'y' }, /initial: unknown variable 'y'/],
    [{ initial: 'import("fs")' }, /initial:/],
    [{ initial: 'x', source: 'x*q' }, /source: unknown variable 'q'/],
    [{ boundary: { left: { type: 'dirichlet', value: 'x*t' } } }, /boundary.left.value: unknown variable 'x'/],
    [{ dim: 1, initial: '1/x' }, /initial is not finite .* x = 0/],
    [{ dim: 1, initial: 'x', source: 'log(x - 0.5)' }, /source/],
    [{ dim: 1, boundary: { right: { type: 'dirichlet', value: '1/(t - 0.01)' } }, dt: 1e-3, steps: 20 }, /boundary.right.value is not finite .*t = 0.01/],
    [{ initial: 'x', nx: 128, ny: 128, steps: 20000 }, /too much work/],
    [{ nx: 128, ny: 128, steps: 3000, initial: 'x', source: 'sin(t)' }, /expression evaluations/],
  ];
  for (const [fields, msg] of cases) {
    assert.throws(() => solve(fields), (e: any) => {
      assert.ok(e instanceof SvcError, `${JSON.stringify(fields)}: ${e}`);
      assert.equal(e.code, 'INVALID_INPUT', `${JSON.stringify(fields)}: ${e.code} ${e.message}`);
      assert.match(e.message, msg, JSON.stringify(fields));
      return true;
    });
  }
  // schema level: non-finite numbers, unknown side keys, unknown condition types, oversize expressions
  for (const f of [{ Lx: 0 }, { Lx: Number.POSITIVE_INFINITY }, { initial: [1, Number.NaN, 3] }, { boundary: { front: neumann0 } },
    { boundary: { left: { type: 'robin' } } }, { probes: [] }, { probes: [[0.1, 0.2, 0.3]] }, { source: 'x'.repeat(4097) }, { boundPct: 0 }]) {
    assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  }
});

test('user mode is deterministic: same input, same bits', () => {
  const f = { nx: 16, ny: 24, Lx: 2, dt: 2e-3, steps: 30, initial: 'exp(-10*((x-1)^2+(y-0.5)^2))', source: '0.1*u*(1-u)', boundary: { left: neumann0, right: { type: 'dirichlet', value: 'sin(t)' } }, probes: [[0.3, 0.2], [1.5, 0.9]] };
  assert.deepEqual(solve(f), solve(f));
});
