// svc_fit: input forms (arrays, CSV text, CSV bytes, several independent variables), refusals
// (400 naming the CSV line or the field, 422 naming the parameters that are not identifiable),
// bounds, robust losses, σ, profile-likelihood intervals, and the certificate checker rejecting
// wrong claims. Checked against closed forms (weighted linear least squares) where one exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, fitModel } from '../../src/solvers/fit.ts';
import { checkFit } from '../../src/solvers/lib/fit/check.ts';
import { readCsv } from '../../src/solvers/lib/fit/csv.ts';
import { studentTQuantile, incompleteBeta } from '../../src/solvers/lib/fit/stats.ts';
import { SvcError } from '../../src/core/errors.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';

const ctx = { seed: 1, progress() {} };
const fit = (body: Record<string, unknown>) => run(descriptor.input.parse(body), ctx);
const refusal = (fn: () => unknown): SvcError => {
  try { fn(); } catch (e) { if (e instanceof SvcError) return e; throw e; }
  assert.fail('expected a refusal');
};

const X = [0, 1, 2, 3, 4, 5, 6, 7];
const Y = [5.12, 3.01, 1.93, 1.18, 0.69, 0.47, 0.26, 0.17];
const DECAY = { model: 'A*exp(-k*x)', p0: { A: 5, k: 0.5 } };

test('the default body fits NIST Misra1a to its certified values', () => {
  const out = fit({});
  const r = out.result as any;
  assert.ok(Math.abs(r.params.b1 / 2.3894212918e2 - 1) < 1e-8 && Math.abs(r.params.b2 / 5.5015643181e-4 - 1) < 1e-8);
  assert.ok(Math.abs(r.stderr.b1 / 2.7070075241 - 1) < 1e-8 && Math.abs(r.stderr.b2 / 7.2668688436e-6 - 1) < 1e-8);
  assert.ok(Math.abs(out.value / 1.2455138894e-1 - 1) < 1e-9);
  assert.equal(out.precision.certificate, 'lsq-gradient');
  assert.equal(out.precision.withinBound, true);
  assert.equal(r.dof, 12);
  assert.ok(Math.abs(r.aic - (14 * Math.log(out.value / 14) + 4)) < 1e-12);
});

test('arrays, CSV text, CSV bytes and a semicolon CSV with comments give the same bits', () => {
  const csv = 'x,y\n' + X.map((x, i) => `${x},${Y[i]}`).join('\n') + '\n';
  const a = fit({ ...DECAY, data: { x: X, y: Y } });
  const b = fit({ ...DECAY, data: csv });
  const c = run({ ...(descriptor.input.parse({ ...DECAY, data: csv }) as any), data: new TextEncoder().encode(csv) }, ctx);
  const d = fit({ ...DECAY, data: '# decay run 3\r\n"x";"y"\r\n' + X.map((x, i) => `${x}; ${Y[i]}`).join('\r\n') });
  for (const o of [b, c, d]) {
    assert.deepEqual(o.result.params, a.result.params);
    assert.deepEqual(o.result.stderr, a.result.stderr);
    assert.equal(o.value, a.value);
  }
});

test('several independent variables by name, as arrays or CSV columns', () => {
  // y = a·x1 + b·exp(-c·x2), exact data: the fit returns the generating parameters
  const x1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], x2 = [0.5, 1, 1.5, 0.2, 2.5, 3, 0.7, 4, 1.1, 5];
  const y = x1.map((v, i) => 2 * v + 3 * Math.exp(-0.7 * x2[i]));
  const model = 'a*x1 + b*exp(-c*x2)', p0 = { a: 1, b: 1, c: 1 };
  const arr = fit({ model, p0, data: { x: { x1, x2 }, y } });
  const csv = fit({ model, p0, data: 'x2,y,x1\n' + x1.map((v, i) => `${x2[i]},${y[i]},${v}`).join('\n') });
  for (const o of [arr, csv]) {
    const p = o.result.params as any;
    assert.ok(Math.abs(p.a - 2) < 1e-10 && Math.abs(p.b - 3) < 1e-10 && Math.abs(p.c - 0.7) < 1e-10, JSON.stringify(p));
    assert.equal(o.precision.withinBound, true);
  }
  assert.deepEqual(arr.result.variables, ['x1', 'x2']);
  assert.deepEqual(csv.result.variables, ['x2', 'x1']);
});

test('a malformed CSV is a 400 naming its line', () => {
  const cases: [string, RegExp][] = [
    ['x,y\n1,2\n2,3\n3,abc\n4,5\n', /CSV line 4: column 'y' holds 'abc', not a finite number/],
    ['x,y\n1,2\n\n2,3,4\n', /CSV line 4: 3 fields, but the header names 2 columns/],
    ['1x,y\n1,2\n', /CSV line 1: header column 1 '1x' is not a name/],
    ['x,y,x\n1,2,3\n', /CSV line 1: header names column 'x' twice/],
    ['x,y\n1,2\n2,"3\n', /CSV line 3: a quoted field is not closed/],
    ['x,y,sigma\n1,2,0.1\n2,3,0\n3,4,1\n4,5,1\n', /CSV line 3: sigma must be positive/],
    ['t,z\n1,2\n2,3\n', /has no column y/],
    ['x,y\n', /no data rows/],
  ];
  for (const [csv, re] of cases) {
    const e = refusal(() => fit({ ...DECAY, data: csv }));
    assert.equal(e.code, 'INVALID_INPUT', csv);
    assert.match(e.message, re);
    assert.equal((e.details as any)?.issues?.[0]?.path, 'data');
  }
  assert.throws(() => readCsv(new Uint8Array([0x78, 0x2c, 0x79, 0x0a, 0xff, 0xfe])), /not valid UTF-8/);
});

test('a rank-deficient Jacobian is a 422 naming the parameters the data do not determine', () => {
  const e = refusal(() => fit({ model: 'a*b*x + c', p0: { a: 1, b: 2, c: 0 }, data: { x: X, y: Y } }));
  assert.equal(e.code, 'SHAPE_REFUSED');
  assert.equal(e.status, 422);
  assert.match(e.message, /rank deficient \(rank 2 of 3\).*a, b/);
  assert.deepEqual((e.details as any).unidentifiable, ['a', 'b']);
  // a parameter that only matters where there are no data: exp(-k·x) at x = 0 only
  const e2 = refusal(() => fit({ model: 'A*exp(-k*x) + c', p0: { A: 1, k: 1, c: 0 }, data: { x: [0, 0, 0, 0], y: [1, 2, 3, 4] } }));
  assert.equal(e2.code, 'SHAPE_REFUSED');
  assert.deepEqual((e2.details as any).unidentifiable.sort(), ['A', 'c', 'k']);
  // as many points as parameters: no degrees of freedom for error bars
  assert.equal(refusal(() => fit({ ...DECAY, data: { x: [0, 1], y: [1, 2] } })).code, 'SHAPE_REFUSED');
});

test('bad fields are 400s naming them', () => {
  const bad: [Record<string, unknown>, string][] = [
    [{ ...DECAY, data: { x: X, y: Y }, p0: { A: 5, k: 0.5, z: 1 } }, 'p0.z'],
    [{ ...DECAY, data: { x: X.slice(1), y: Y } }, 'data.x'],
    [{ ...DECAY, data: { x: X, y: Y, sigma: [1, 2] } }, 'data.sigma'],
    [{ model: 'A*exp(-k*x) + q', p0: DECAY.p0, data: { x: X, y: Y } }, 'model'],
    [{ model: 'A*exp(-k*x', p0: DECAY.p0, data: { x: X, y: Y } }, 'model'],
    [{ model: 'A*sqrt(k - x)', p0: DECAY.p0, data: { x: X, y: Y } }, 'p0'],
  ];
  for (const [body, path] of bad) {
    const e = refusal(() => fit(body));
    assert.equal(e.code, 'INVALID_INPUT', path);
    assert.ok(((e.details as any)?.issues ?? []).some((i: any) => i.path === path), `${path}: ${e.message}`);
  }
  for (const body of [{ ...DECAY, data: { x: X, y: Y }, method: 'lm', bounds: { k: [0, 1] } }, { ...DECAY, data: { x: X, y: Y }, loss: 'huber', method: 'lm' }]) {
    assert.equal(descriptor.input.safeParse(body).success, false);
  }
});

test('σ is absolute: the covariance is (XᵀWX)⁻¹ of weighted linear least squares, chi2 its statistic', () => {
  const x = [1, 2, 3, 4, 5, 6], y = [2.9, 5.2, 6.8, 9.1, 11.2, 12.8], s = [0.1, 0.2, 0.1, 0.3, 0.2, 0.4];
  const out = fit({ model: 'a + b*x', p0: { a: 0, b: 1 }, data: { x, y, sigma: s } });
  // closed form
  let S = 0, Sx = 0, Sxx = 0, Sy = 0, Sxy = 0;
  x.forEach((v, i) => { const w = 1 / s[i] ** 2; S += w; Sx += w * v; Sxx += w * v * v; Sy += w * y[i]; Sxy += w * v * y[i]; });
  const D = S * Sxx - Sx * Sx;
  const a = (Sxx * Sy - Sx * Sxy) / D, b = (S * Sxy - Sx * Sy) / D;
  const r = out.result as any;
  assert.ok(Math.abs(r.params.a - a) < 1e-10 && Math.abs(r.params.b - b) < 1e-10);
  assert.ok(Math.abs(r.stderr.a / Math.sqrt(Sxx / D) - 1) < 1e-10 && Math.abs(r.stderr.b / Math.sqrt(S / D) - 1) < 1e-10);
  assert.ok(Math.abs(r.covariance[0][1] / (-Sx / D) - 1) < 1e-10);
  const chi2 = x.reduce((acc, v, i) => acc + ((y[i] - a - b * v) / s[i]) ** 2, 0);
  assert.ok(Math.abs(out.value / chi2 - 1) < 1e-10);
  assert.equal(r.absoluteSigma, true);
  assert.match(r.ciMethod, /z\(0.975\)/);
});

test('profile-likelihood intervals: equal to Wald for a linear model, asymmetric for a nonlinear one', () => {
  const x = [1, 2, 3, 4, 5, 6, 7, 8], y = [3.1, 4.8, 7.3, 8.9, 11.2, 12.7, 15.1, 17.2];
  const lin = fit({ model: 'a + b*x', p0: { a: 0, b: 1 }, data: { x, y }, profile: true }).result as any;
  for (const k of ['a', 'b']) {
    const [wl, wh] = lin.ci95[k], [pl, ph] = lin.ci95Profile[k];
    assert.ok(Math.abs(pl - wl) < 1e-5 * (wh - wl) && Math.abs(ph - wh) < 1e-5 * (wh - wl), `${k}: ${[pl, ph]} vs ${[wl, wh]}`);
  }
  const nl = fit({ ...DECAY, data: { x: X, y: Y }, profile: true }).result as any;
  const [wl, wh] = nl.ci95.k, [pl, ph] = nl.ci95Profile.k;
  assert.ok(pl !== null && ph !== null && pl < nl.params.k && nl.params.k < ph);
  assert.ok(Math.abs((ph - nl.params.k) - (nl.params.k - pl)) > 1e-4 * (wh - wl), 'a nonlinear profile is not symmetric');
  // at each end, the profile sum of squares equals the threshold S_min (1 + t²/dof)
  const t = studentTQuantile(0.975, nl.dof);
  for (const end of [pl, ph]) {
    const rest = fitModel({ model: 'A*exp(-k0*x)', p0: { A: nl.params.A }, data: { x: { x: X, k0: X.map(() => end) } as any, y: Y } });
    assert.ok(Math.abs(rest.chi2 / (nl.chi2 * (1 + (t * t) / nl.dof)) - 1) < 1e-6, `end ${end}`);
  }
});

test('bounds (trf): a bound that binds is reported active, and the certificate checks the KKT sign', () => {
  const out = fit({ ...DECAY, p0: { A: 5, k: 1 }, data: { x: X, y: Y }, bounds: { k: [0.6, 2] } });
  const r = out.result as any;
  assert.equal(r.method, 'trf');
  assert.ok(Math.abs(r.params.k - 0.6) < 1e-9, String(r.params.k));
  assert.equal(r.activeBounds.k, -1);
  assert.equal(r.activeBounds.A, 0);
  assert.equal(out.precision.withinBound, true);
  // the free optimum is inside: bounds that do not bind change nothing
  const free = fit({ ...DECAY, data: { x: X, y: Y } }).result as any;
  const loose = fit({ ...DECAY, data: { x: X, y: Y }, bounds: { k: [0, 2] } }).result as any;
  assert.ok(Math.abs(loose.params.k / free.params.k - 1) < 1e-8);
});

test('robust losses down-weight an outlier (trf, as SciPy\'s least_squares)', () => {
  const x = Array.from({ length: 20 }, (_, i) => i / 2);
  const y = x.map((v) => 3 * Math.exp(-0.4 * v) + 0.01 * Math.sin(7 * v));
  y[5] += 2; // one gross outlier
  const plain = fit({ model: 'A*exp(-k*x)', p0: { A: 1, k: 1 }, data: { x, y } }).result as any;
  for (const loss of ['soft_l1', 'huber', 'cauchy']) {
    const out = fit({ model: 'A*exp(-k*x)', p0: { A: 1, k: 1 }, data: { x, y }, loss, fScale: 0.05 });
    const r = out.result as any;
    assert.equal(r.method, 'trf');
    assert.ok(Math.abs(r.params.k - 0.4) < Math.abs(plain.params.k - 0.4) / 5, `${loss}: ${r.params.k} vs linear ${plain.params.k}`);
    assert.equal(out.precision.withinBound, true, `${loss}: ${out.precision.reference}`);
  }
});

test('a model without a derivative rule falls back to central differences and says so', () => {
  const out = fit({ model: 'A*exp(-k*x) + 0.001*mod(x, 2)', p0: DECAY.p0, data: { x: X, y: Y } });
  assert.match((out.result as any).jacobian, /central differences/);
  assert.equal(out.precision.withinBound, true);
});

test('the checker rejects claims that are not a least-squares solution or whose error bars are wrong', () => {
  const r = fitModel({ ...DECAY, data: { x: X, y: Y } });
  const claim = { model: DECAY.model, names: r.names, params: r.params, columns: r.data.columns, y: r.data.y, stderr: r.stderr, absoluteSigma: false };
  const good = checkFit(claim);
  assert.ok(good.gradientCosine < 1e-9 && good.stderrRelDiff < 1e-8, JSON.stringify(good));
  const moved = checkFit({ ...claim, params: [r.params[0] * (1 + 1e-4), r.params[1]] });
  assert.ok(moved.gradientCosine > 1e-4, String(moved.gradientCosine));
  const widened = checkFit({ ...claim, stderr: [r.stderr[0] * 1.01, r.stderr[1]] });
  assert.ok(widened.stderrRelDiff > 0.009);
});

test('Student t quantiles and the incomplete beta function agree with published values', () => {
  // t(0.975, ν): 12.706205 (1), 4.302653 (2), 2.570582 (5), 2.228139 (10), 2.042272 (30), 1.983972 (100)
  for (const [nu, q] of [[1, 12.706204736], [2, 4.302652730], [5, 2.570581836], [10, 2.228138852], [30, 2.042272456], [100, 1.983971519]]) {
    assert.ok(Math.abs(studentTQuantile(0.975, nu) - q) < 1e-8, `ν = ${nu}: ${studentTQuantile(0.975, nu)}`);
  }
  assert.ok(Math.abs(incompleteBeta(2, 3, 0.4) - 0.5248) < 1e-12);
});

test('the same input gives the same bits; a seeded noisy problem is reproducible', () => {
  const rng = createRng(7);
  const y = X.map((v) => 5 * Math.exp(-0.5 * v) + 0.05 * (rng.next() - 0.5));
  const a = fit({ ...DECAY, data: { x: X, y } }), b = fit({ ...DECAY, data: { x: X, y } });
  assert.deepEqual(a, b);
});
