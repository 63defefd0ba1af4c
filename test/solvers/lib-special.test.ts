// Shared special functions against tabulated values (mpmath 1.3 at 25 digits) and identities.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  erf, erfc, normalCdf, besselI0, besselI1, besselI0e, besselI1e, besselI1OverI0, besselIRatios,
  logGamma, logGammaComplex, siegelTheta, siegelThetaExact, siegelThetaPrime,
  gammaP, gammaQ, inverseGammaP, chiSquareQuantile, chiSquareCdf,
} from '../../src/solvers/lib/special.ts';
import { FastRng } from '../../src/solvers/lib/rng.ts';

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

test('erf and erfc match tabulated values to 1e-14 relative', () => {
  const table: [number, number, number][] = [
    [0.1, 0.1124629160182848984, 0.8875370839817151016],
    [0.5, 0.52049987781304653768, 0.47950012218695346232],
    [1, 0.84270079294971486934, 0.15729920705028513066],
    [2, 0.99532226501895273416, 0.0046777349810472658379],
    [3, 0.99997790950300141456, 0.000022090496998585441373],
    [5, 0.99999999999846254021, 1.5374597944280348502e-12],
  ];
  for (const [x, e, ec] of table) {
    assert.ok(rel(erf(x), e) < 1e-14, `erf(${x})`);
    assert.ok(rel(erfc(x), ec) < 1e-14, `erfc(${x}) = ${erfc(x)} vs ${ec}`);
    assert.equal(erf(-x), -erf(x));
    assert.ok(Math.abs(erfc(-x) - (2 - ec)) < 1e-15);
  }
});

test('normal CDF is accurate in both tails', () => {
  const table: [number, number][] = [
    [-8, 6.2209605742717841235e-16], [-3, 0.0013498980316300945267], [-1.96, 0.024997895148220436213],
    [0, 0.5], [1, 0.84134474606854294859], [1.96, 0.97500210485177956379], [5, 0.99999971334842812081],
  ];
  for (const [x, p] of table) assert.ok(rel(normalCdf(x), p) < 1e-13, `Φ(${x}) = ${normalCdf(x)} vs ${p}`);
});

test('modified Bessel I0, I1 and their ratio match tabulated values across the series/asymptotic switch', () => {
  const table: [number, number, number, number][] = [
    [0.01, 1.000025000156250434, 0.0050000625002604173133, 0.0049999375010416488674],
    [0.5, 1.0634833707413235193, 0.25789430539089631636, 0.24249961258080194535],
    [1, 1.2660658777520083356, 0.56515910399248502721, 0.44638996589653450705],
    [2, 2.2795853023360672674, 1.5906368546373290634, 0.69777465796400798201],
    [5, 27.239871823604446895, 24.335642142450527199, 0.89338313704408522159],
    [10, 2815.7166284662544715, 2670.9883037012546543, 0.94859982595484595897],
    [20, 43558282.559553533272, 42454973.385127770181, 0.9746705078898071259],
    [50, 2.9325537838493363267e+20, 2.9030785901035567968e+20, 0.98994896737849775259],
    [100, 1.0737517071310738235e+42, 1.0683693903381624812e+42, 0.99498737300516876559],
  ];
  for (const [x, i0, i1, r] of table) {
    assert.ok(rel(besselI0(x), i0) < 1e-14, `I0(${x})`);
    assert.ok(rel(besselI1(x), i1) < 1e-14, `I1(${x})`);
    assert.ok(rel(besselI1OverI0(x), r) < 1e-14, `I1/I0(${x})`);
    assert.ok(rel(besselI0e(x), i0 * Math.exp(-x)) < 1e-13);
    assert.ok(rel(besselI1e(x), i1 * Math.exp(-x)) < 1e-13);
  }
  assert.equal(besselI1(-2), -besselI1(2));
  assert.equal(besselI0(0), 1);
  assert.ok(Number.isFinite(besselI1OverI0(1e4)) && besselI1OverI0(1e4) < 1);
});

test('I_n/I_0 by backward recurrence matches tabulated ratios and the three-term recurrence', () => {
  const r1 = besselIRatios(1, 4);
  const want1 = [1, 0.44638996589653451, 0.10722006820693097, 0.017509693068810561, 0.0021619097940676051];
  want1.forEach((w, n) => assert.ok(rel(r1[n], w) < 1e-13, `I${n}(1)/I0(1)`));
  const r20 = besselIRatios(20, 60);
  const want20 = [1, 0.97467050788980703, 0.90253294921101923, 0.79416391804760333];
  want20.forEach((w, n) => assert.ok(rel(r20[n], w) < 1e-13, `I${n}(20)/I0(20)`));
  // I_{n-1} − I_{n+1} = (2n/x)·I_n
  for (let n = 1; n < 40; n++) assert.ok(Math.abs(r20[n - 1] - r20[n + 1] - (2 * n / 20) * r20[n]) < 1e-14);
});

test('log-gamma: real values, the recurrence, and complex values', () => {
  const table: [number, number][] = [[0.5, 0.57236494292470008707], [1, 0], [3.5, 1.2009736023470742248], [10, 12.801827480081469611], [100, 359.13420536957539878]];
  for (const [x, v] of table) assert.ok(Math.abs(logGamma(x) - v) < 1e-13 * Math.max(1, Math.abs(v)), `lnΓ(${x})`);
  for (const x of [0.3, 1.7, 4.2, 12.5]) assert.ok(Math.abs(logGamma(x + 1) - logGamma(x) - Math.log(x)) < 1e-13);
  const ctable: [number, number, number, number][] = [
    [1, 1, -0.650923199301856339, -0.301640320467533198],
    [0.25, 7, -10.5629533390400019, 6.23016050052965131],
    [0.25, 50, -78.5988804327018425, 145.208659524257228],
    [3, -2, -0.0316390593739611898, -2.02219319750132712],
  ];
  for (const [a, b, re, im] of ctable) {
    const [r, i] = logGammaComplex(a, b);
    assert.ok(Math.abs(r - re) < 1e-12 * Math.max(1, Math.abs(re)), `Re lnΓ(${a}+${b}i)`);
    assert.ok(Math.abs(i - im) < 1e-12 * Math.max(1, Math.abs(im)), `Im lnΓ(${a}+${b}i)`);
  }
});

test('Riemann-Siegel theta: the asymptotic series agrees with Im lnΓ(1/4 + it/2) and tabulated values', () => {
  const table: [number, number][] = [[10, -3.0670743962898952917], [15, -1.3650113220230688851], [100, 87.972165231787219625], [1000, 2034.5464280380316087], [2000, 4762.6327044677049723]];
  for (const [t, th] of table) {
    assert.ok(Math.abs(siegelTheta(t) - th) < 1e-12 * Math.max(1, Math.abs(th)), `θ(${t})`);
    assert.ok(Math.abs(siegelThetaExact(t) - th) < 1e-11 * Math.max(1, Math.abs(th)), `θ exact(${t})`);
  }
  for (let t = 9; t < 2100; t += 37.3) {
    assert.ok(Math.abs(siegelTheta(t) - siegelThetaExact(t)) < 1e-11 * Math.max(1, Math.abs(siegelTheta(t))));
    const h = 1e-4;
    assert.ok(Math.abs((siegelTheta(t + h) - siegelTheta(t - h)) / (2 * h) - siegelThetaPrime(t)) < 1e-7);
  }
});

test('FastRng: deterministic per seed; uniforms in (0, 1); normals pass moment and Kolmogorov-Smirnov checks', () => {
  const a = new FastRng(42), b = new FastRng(42), c = new FastRng(43);
  const xa = Array.from({ length: 8 }, () => a.normal()), xb = Array.from({ length: 8 }, () => b.normal());
  assert.deepEqual(xa, xb);
  assert.notDeepEqual(xa, Array.from({ length: 8 }, () => c.normal()));
  const r = new FastRng(7);
  let mn = 1, mx = 0;
  for (let i = 0; i < 100000; i++) { const u = r.uniform(); mn = Math.min(mn, u); mx = Math.max(mx, u); }
  assert.ok(mn > 0 && mx < 1);
  const n = 200000;
  const z = new Float64Array(n);
  let s1 = 0, s2 = 0, s4 = 0;
  for (let i = 0; i < n; i++) { const v = r.normal(); z[i] = v; s1 += v; s2 += v * v; s4 += v ** 4; }
  assert.ok(Math.abs(s1 / n) < 5 / Math.sqrt(n), 'mean');
  assert.ok(Math.abs(s2 / n - 1) < 5 * Math.sqrt(2 / n), 'variance');
  assert.ok(Math.abs(s4 / n - 3) < 5 * Math.sqrt(96 / n), 'fourth moment');
  z.sort();
  let D = 0;
  for (let i = 0; i < n; i++) D = Math.max(D, Math.abs(normalCdf(z[i]) - (i + 0.5) / n));
  assert.ok(D < 1.63 / Math.sqrt(n), `KS statistic ${D} (1 % critical value ${1.63 / Math.sqrt(n)})`);
});

test('FastRng.fillNormals draws exactly the sequence of repeated normal() calls', () => {
  const a = new FastRng(2024), b = new FastRng(2024);
  const buf = new Float64Array(50_000);
  a.fillNormals(buf, 30_000);
  a.fillNormals(buf.subarray(30_000), 20_000);
  for (let i = 0; i < 50_000; i++) assert.equal(buf[i], b.normal(), `draw ${i}`);
  assert.equal(a.uniform(), b.uniform(), 'the state is handed back');
});

test('incomplete gamma P and Q match SciPy (gammainc, gammaincc) across the series, fraction and quadrature branches', () => {
  // scipy.special.gammainc / gammaincc, SciPy 1.17.1
  const table: [number, number, number, number][] = [
    [0.5, 0.1, 0.34527915398142317, 0.6547208460185768],
    [3, 2.5, 0.45618688411667035, 0.5438131158833297],
    [10, 15, 0.9301463393005901, 0.06985366069940986],
    [50, 40, 0.07033506665939494, 0.9296649333406051],
    [150, 140, 0.2095436239186071, 0.790456376081393],
    [150, 170, 0.9443655686898067, 0.05563443131019331],
    [1e4, 10150, 0.9326593784960509, 0.06734062150394915],
    [5e5, 498000, 0.0023148054846039404, 0.9976851945153961],
    [2.5, 30, 0.9999999999878454, 1.2154569777183007e-11],
  ];
  for (const [a, x, P, Q] of table) {
    assert.ok(rel(gammaP(a, x), P) < 1e-9, `P(${a}, ${x}) = ${gammaP(a, x)} vs ${P}`);
    assert.ok(rel(gammaQ(a, x), Q) < 1e-9, `Q(${a}, ${x}) = ${gammaQ(a, x)} vs ${Q}`);
  }
  // closed forms: P(1, x) = 1 − e^−x, P(1/2, x) = erf(√x)
  for (const x of [1e-3, 0.3, 1, 4, 20]) {
    assert.ok(rel(gammaP(1, x), -Math.expm1(-x)) < 1e-14, `P(1, ${x})`);
    assert.ok(rel(gammaP(0.5, x), erf(Math.sqrt(x))) < 1e-14, `P(1/2, ${x})`);
  }
  assert.equal(gammaP(3, 0), 0);
  assert.ok(Number.isNaN(gammaP(0, 1)) && Number.isNaN(gammaP(1, -1)));
});

test('chi-square quantiles match SciPy chi2.ppf at 2.5 % and 97.5 % from 1 to 800,000 degrees of freedom', () => {
  // scipy.stats.chi2.ppf(0.025, k), chi2.ppf(0.975, k), SciPy 1.17.1
  const table: [number, number, number][] = [
    [1, 0.0009820691171752555, 5.023886187314888], [2, 0.05063561596857975, 7.377758908227871],
    [3, 0.21579528262389785, 9.348403604496148], [5, 0.8312116134866625, 12.832501994030027],
    [10, 3.2469727802368413, 20.483177350807388], [30, 16.79077226556663, 46.97924224367115],
    [100, 74.22192747492373, 129.5611971858366], [199, 161.82618239364686, 239.9596818276442],
    [250, 208.09779814500047, 295.6886281787862], [1000, 914.257153799259, 1089.5309127749135],
    [20000, 19609.904934520368, 20393.883649999767], [200000, 198762.30532748945, 201241.48328154747],
    [800000, 797522.7147201126, 802481.0738909673],
  ];
  for (const [k, lo, hi] of table) {
    assert.ok(rel(chiSquareQuantile(0.025, k), lo) < 1e-11, `q(0.025; ${k}) = ${chiSquareQuantile(0.025, k)} vs ${lo}`);
    assert.ok(rel(chiSquareQuantile(0.975, k), hi) < 1e-11, `q(0.975; ${k}) = ${chiSquareQuantile(0.975, k)} vs ${hi}`);
  }
  // two degrees of freedom: the exponential distribution, q = −2 ln(1 − p)
  for (const p of [1e-6, 0.1, 0.5, 0.9, 0.999999]) assert.ok(rel(chiSquareQuantile(p, 2), -2 * Math.log1p(-p)) < 1e-13, `p ${p}`);
  // the inverse round-trips (P itself carries about a·1e-16 of rounding at large a, from ln Γ(a))
  for (const a of [0.2, 1.5, 7, 120, 5e4]) for (const p of [0.01, 0.3, 0.7, 0.99]) {
    assert.ok(Math.abs(gammaP(a, inverseGammaP(p, a)) - p) < 1e-14 * Math.max(100, a), `a ${a} p ${p}`);
  }
  assert.ok(Math.abs(chiSquareCdf(chiSquareQuantile(0.975, 7), 7) - 0.975) < 1e-13);
  assert.equal(inverseGammaP(0, 3), 0);
});
