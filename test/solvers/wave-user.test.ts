// wave, user mode: the caller's initial displacement, velocity and walls against d'Alembert, Fourier
// and travelling-wave solutions, and the Richardson estimate against the true error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/wave.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>) => run(descriptor.input.parse(fields), ctx);
const r = (out: any) => out.result as any;
const periodic = { type: 'periodic' } as const;
const neumann0 = { type: 'neumann' } as const;

/** d'Alembert for the string plucked into x(1−x), fixed ends: ½[F(x − ct) + F(x + ct)], F the odd 2-periodic extension */
function pluckedString(x: number, t: number, c = 1): number {
  const F = (s: number) => {
    const z = ((s % 2) + 2) % 2;
    return z <= 1 ? z * (1 - z) : -(z - 1) * (2 - z);
  };
  return 0.5 * (F(x - c * t) + F(x + c * t));
}

/** x(1−x)·y(1−y) on the unit membrane: 64/π⁶ Σ_{odd m, n} sin(mπx)·sin(nπy)·cos(π√(m²+n²)·t)/(m³n³) */
function pluckedMembrane(x: number, y: number, t: number): number {
  let s = 0;
  for (let m = 1; m < 400; m += 2) {
    const sx = Math.sin(m * Math.PI * x) / (m * m * m);
    for (let n = 1; n < 400; n += 2) s += sx * Math.sin(n * Math.PI * y) * Math.cos(Math.PI * Math.hypot(m, n) * t) / (n * n * n);
  }
  return (64 / Math.PI ** 6) * s;
}

/**
 * True error of every probe below maxErr. `smooth`: the estimate within 10× of the true error at
 * every probe (true/estimate in [0.1, 10]). Otherwise (data whose u'' jumps, so the error has fronts
 * and sign changes): the estimate is never 10× too small at any probe, and the case's largest true
 * error is within 10× of its errorEstimate.
 */
function checkProbes(out: any, exact: (x: number, y: number, t: number) => number, maxErr: number, smooth: boolean, label: string): void {
  const res = r(out);
  assert.equal(out.precision.certificate, 'error-estimate');
  let maxTrue = 0;
  for (const p of res.probes) {
    const truth = exact(p.x, p.y ?? 0, res.t);
    const err = Math.abs(p.u - truth);
    maxTrue = Math.max(maxTrue, err);
    assert.ok(err < maxErr, `${label} at (${p.x}, ${p.y}): u = ${p.u}, exact ${truth}, error ${err} >= ${maxErr}`);
    const ratio = err / p.err;
    assert.ok(ratio <= 10, `${label} at (${p.x}, ${p.y}): true error ${err} vs estimate ${p.err} (ratio ${ratio})`);
    if (smooth) assert.ok(ratio >= 0.1, `${label} at (${p.x}, ${p.y}): true error ${err} vs estimate ${p.err} (ratio ${ratio})`);
  }
  const caseRatio = maxTrue / res.errorEstimate;
  assert.ok(caseRatio >= 0.1 && caseRatio <= 10, `${label}: largest true error ${maxTrue} vs errorEstimate ${res.errorEstimate}`);
}

test('the string plucked into x(1−x) follows d\'Alembert\'s solution; the estimate tracks the true error', () => {
  const probes = [[0.1], [0.25], [0.37], [0.5], [0.8]];
  for (const fields of [
    { dim: 1, nx: 32, steps: 40, initial: 'x*(1-x)', probes },
    { dim: 1, nx: 50, dt: 0.01, steps: 77, initial: 'x*(1-x)', probes },
    { dim: 1, nx: 64, c: 2, dt: 0.005, steps: 260, initial: 'x*(1-x)', probes },
  ]) {
    const out = solve(fields);
    assert.equal(out.method, 'leapfrog');
    checkProbes(out, (x, _y, t) => pluckedString(x, t, fields.c ?? 1), 3e-4, false, `pluck ${JSON.stringify(fields).slice(0, 40)}`);
  }
});

test('a periodic travelling wave sin(π(x − ct)) (initial velocity −πc·cos(πx)); the estimate is within 10×', () => {
  const out = solve({ dim: 1, nx: 32, Lx: 2, c: 1.3, steps: 100, initial: 'sin(pi*x)', initialVelocity: '-1.3*pi*cos(pi*x)', boundary: { left: periodic, right: periodic }, probes: [[0.3], [1.1], [1.95]] });
  checkProbes(out, (x, _y, t) => Math.sin(Math.PI * (x - 1.3 * t)), 5e-3, true, 'periodic travelling');
  // the same with the velocity given as node values
  const v = Array.from({ length: 33 }, (_, i) => -1.3 * Math.PI * Math.cos(Math.PI * i / 16));
  const arr = solve({ dim: 1, nx: 32, Lx: 2, c: 1.3, steps: 100, initial: 'sin(pi*x)', initialVelocity: v, boundary: { left: periodic, right: periodic }, probes: [[0.3], [1.1], [1.95]] });
  checkProbes(arr, (x, _y, t) => Math.sin(Math.PI * (x - 1.3 * t)), 5e-3, true, 'periodic travelling, array velocity');
});

test('walls driven in time: sin(x − t) entering through a Dirichlet end; the estimate is within 10×', () => {
  const out = solve({ dim: 1, nx: 40, Lx: 3, steps: 120, initial: 'sin(x)', initialVelocity: '-cos(x)', boundary: { left: { type: 'dirichlet', value: 'sin(-t)' }, right: { type: 'dirichlet', value: 'sin(3-t)' } }, probes: [[0.7], [2.2]] });
  checkProbes(out, (x, _y, t) => Math.sin(x - t), 5e-4, true, 'driven');
});

test('non-zero Neumann fluxes: u = (x + ½)²/2 + c²t²/2 is reproduced exactly (1-D and 2-D)', () => {
  // outward derivatives −u_x(0) = −½, u_x(1) = 3/2; quadratic in x and t: leapfrog and its Taylor start are exact
  const out = solve({ dim: 1, nx: 16, steps: 40, c: 1.5, initial: '(x+0.5)^2/2', boundary: { left: { type: 'neumann', value: -0.5 }, right: { type: 'neumann', value: 1.5 } }, probes: [[0], [0.5], [1]] });
  for (const p of r(out).probes) assert.ok(Math.abs(p.u - ((p.x + 0.5) ** 2 / 2 + 1.125 * r(out).t ** 2)) < 1e-12, `${p.x}: ${p.u}`);
  // 2-D: u = ((x + ½)² + (y − 0.3)²)/2 + c²t²
  const two = solve({
    nx: 16, ny: 16, steps: 30, c: 1.5, initial: '((x+0.5)^2 + (y-0.3)^2)/2',
    boundary: { left: { type: 'neumann', value: -0.5 }, right: { type: 'neumann', value: 1.5 }, bottom: { type: 'neumann', value: 0.3 }, top: { type: 'neumann', value: 0.7 } },
    probes: [[0, 0], [0.4, 0.9], [1, 1]],
  });
  for (const p of r(two).probes) assert.ok(Math.abs(p.u - (((p.x + 0.5) ** 2 + (p.y - 0.3) ** 2) / 2 + 2.25 * r(two).t ** 2)) < 1e-12, `${p.x}, ${p.y}: ${p.u}`);
});

test('a source in u (Klein-Gordon u_tt = u_xx − 4u): sin(πx)·cos(√(π²+4)·t); the estimate is within 10×', () => {
  const out = solve({ dim: 1, nx: 32, steps: 60, initial: 'sin(pi*x)', source: '-4*u', probes: [[0.5], [0.3]] });
  checkProbes(out, (x, _y, t) => Math.sin(Math.PI * x) * Math.cos(Math.sqrt(Math.PI ** 2 + 4) * t), 1e-4, true, 'Klein-Gordon');
});

test('2-D: a Neumann standing wave, a periodic travelling wave, a plane wave through moving Dirichlet walls (estimate within 10×) and the plucked membrane against its Fourier series', () => {
  const standing = solve({ nx: 32, ny: 32, steps: 80, initial: 'cos(pi*x)*cos(pi*y)', boundary: { left: neumann0, right: neumann0, bottom: neumann0, top: neumann0 }, probes: [[0, 0], [0.3, 0.8], [0.55, 0.2]] });
  checkProbes(standing, (x, y, t) => Math.cos(Math.PI * x) * Math.cos(Math.PI * y) * Math.cos(Math.SQRT2 * Math.PI * t), 5e-4, true, 'standing');
  const travel = solve({
    nx: 32, ny: 32, Lx: 1, Ly: 2, steps: 80, initial: 'sin(2*pi*x + pi*y)', initialVelocity: '-sqrt(5)*pi*cos(2*pi*x + pi*y)',
    boundary: { left: periodic, right: periodic, bottom: periodic, top: periodic }, probes: [[0.3, 0.4], [0.9, 1.7]],
  });
  checkProbes(travel, (x, y, t) => Math.sin(2 * Math.PI * x + Math.PI * y - Math.sqrt(5) * Math.PI * t), 5e-3, true, 'travelling 2-D');
  // a plane wave sin(2x + y − √5·t) entering and leaving through four time-dependent Dirichlet walls
  const w = 'sqrt(5)';
  const plane = solve({
    nx: 24, ny: 24, steps: 60, initial: 'sin(2*x + y)', initialVelocity: `-${w}*cos(2*x + y)`,
    boundary: {
      left: { type: 'dirichlet', value: `sin(y - ${w}*t)` }, right: { type: 'dirichlet', value: `sin(2 + y - ${w}*t)` },
      bottom: { type: 'dirichlet', value: `sin(2*x - ${w}*t)` }, top: { type: 'dirichlet', value: `sin(2*x + 1 - ${w}*t)` },
    },
    probes: [[0.2, 0.3], [0.6, 0.85], [0.9, 0.1]],
  });
  checkProbes(plane, (x, y, t) => Math.sin(2 * x + y - Math.sqrt(5) * t), 5e-4, true, 'plane wave through Dirichlet walls');
  const membrane = solve({ nx: 32, ny: 32, steps: 60, initial: 'x*(1-x)*y*(1-y)', probes: [[0.5, 0.5], [0.2, 0.7], [0.33, 0.41]] });
  checkProbes(membrane, pluckedMembrane, 5e-5, false, 'membrane');
  assert.equal(r(membrane).variant, 'membrane');
  assert.equal(r(membrane).courant, 0.5);
});

test('result: probes, errorEstimate, value, series and the refined twin at the same Courant number', () => {
  const out = solve({ dim: 1, nx: 32, steps: 40, initial: 'x*(1-x)', probes: [[0.5], [0.2]] });
  const res = r(out);
  assert.equal(out.value, res.probes[0].u);
  assert.equal(res.errorEstimate, Math.max(...res.probes.map((p: any) => p.err)));
  assert.deepEqual(res.refined, { nx: 64, ny: null, dx: 1 / 64, dy: null, dt: res.grid.dt / 2, steps: 80 });
  assert.equal(out.stability!.number, 0.5);
  assert.deepEqual(Object.keys(out.series!), ['t', 'p0', 'p1']);
  assert.ok(Math.abs(res.scale - 0.25) < 1e-12); // max |u| over the run: the initial peak
  assert.ok(Math.abs(out.precision.errorPct - 100 * res.errorEstimate / res.scale) < 1e-15);
  assert.equal(out.precision.boundPct, 1);
  assert.equal(solve({ dim: 1, nx: 32, steps: 40, initial: 'x*(1-x)', boundPct: 1e-5 }).precision.withinBound, false);
});

test('CFL on the caller\'s grid: a dt past Courant 1 with dx = Lx/nx is 422 UNSTABLE; a blow-up is UNSTABLE with tFail', () => {
  assert.throws(() => solve({ dim: 1, nx: 32, Lx: 0.5, dt: 0.02, initial: 'x' }), (e: any) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'UNSTABLE');
    assert.ok(Math.abs((e.details as any).stability.number - 0.02 * 64) < 1e-12);
    return true;
  });
  assert.throws(() => solve({ dim: 1, nx: 16, steps: 400, courant: 0.5, initial: '1', boundary: { left: neumann0, right: neumann0 }, source: 'u^3' }), (e: any) => {
    assert.equal(e.code, 'UNSTABLE');
    assert.ok((e.details as any).tFail > 0, JSON.stringify(e.details));
    return true;
  });
});

test('bad input is a 400 naming the field', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ initial: 'x', mode_k: 2 }, /mode_k .*initial/],
    [{ initialVelocity: 'x', kx: 1 }, /kx /],
    [{ initial: 'x', eps: 2 }, /eps /],
    [{ initial: 'x', mode: 'maxwell' }, /maxwell.*no user mode/],
    [{ boundPct: 0.5 }, /boundPct/],
    [{ boundary: { right: periodic } }, /boundary.left: periodic must be given on both/],
    [{ initial: 'x', probes: [[0.5, 1.01]] }, /probes\[0\].*outside/],
    [{ dim: 1, nx: 16, initialVelocity: [1, 2] }, /initialVelocity has 2 values/],
    [{ mode: 'wave1d', nx: 16, initial: Array.from({ length: 17 }, () => [0, 0]) }, /initial: a 1-D problem takes a flat array/],
    [{ initial: 'x', initialVelocity: 'sqrt(' }, /initialVelocity: expression refused/],
    [{ dim: 1, initial: 'x', initialVelocity: '1/(x-0.5)' }, /initialVelocity is not finite .*x = 0.5/],
    [{ initial: 'x', source: 'u*w' }, /source: unknown variable 'w'/],
    [{ nx: 128, ny: 128, steps: 50000, initial: 'x' }, /too much work/],
  ];
  for (const [fields, msg] of cases) {
    assert.throws(() => solve(fields), (e: any) => {
      assert.ok(e instanceof SvcError, `${JSON.stringify(fields)}: ${e}`);
      assert.equal(e.code, 'INVALID_INPUT', `${JSON.stringify(fields)}: ${e.code} ${e.message}`);
      assert.match(e.message, msg, JSON.stringify(fields));
      return true;
    });
  }
  for (const f of [{ initialVelocity: [Number.NaN, 1] }, { Ly: -1 }, { boundary: { left: { type: 'dirichlet', value: Number.POSITIVE_INFINITY } } }]) {
    assert.equal(descriptor.input.safeParse(f).success, false, JSON.stringify(f));
  }
});

test('user mode is deterministic: same input, same bits', () => {
  const f = { nx: 20, ny: 16, Lx: 1.5, steps: 50, initial: 'exp(-40*((x-0.7)^2+(y-0.5)^2))', initialVelocity: 'x*y', source: 'sin(3*t)*x', boundary: { bottom: neumann0, left: { type: 'dirichlet', value: 'y*t' } }, probes: [[0.3, 0.2], [1.2, 0.9]] };
  assert.deepEqual(solve(f), solve(f));
});
