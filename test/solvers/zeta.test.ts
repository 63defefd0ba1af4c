// zeta: zero counts of the Riemann zeta function on the critical line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, hardyZ, hardyZAccurate, rsCorrection, gramPoint, zetaEulerMaclaurin, riemannVonMangoldt, cosReduced } from '../../src/solvers/zeta.ts';
import { siegelTheta } from '../../src/solvers/lib/special.ts';

const solve = (body: Record<string, unknown>) => run(descriptor.input.parse(body), { seed: 1, progress() {} });

test('Hardy Z(t) by Riemann-Siegel matches mpmath.siegelz within the t^(-11/4) truncation envelope', () => {
  const table: [number, number][] = [
    [9.7, -1.53416336077102438], [12, -1.25988883412447226], [14.5, 0.297350945067239419], [20, 1.14784241218519728],
    [33.3, 0.545614871168843954], [50.5, -1.14289218402380187], [100, 2.69269705666446347], [250.7, -0.88432147533541611],
    [777.7, -2.68614085623138749], [1000, 0.997794637521586614], [1500.3, 0.103498671295150951], [1999.9, 0.779765424144187277],
    [2000, 0.790797418309816044],
  ];
  for (const [t, z] of table) {
    const envelope = 0.03 * t ** -2.75 + 1e-10;
    assert.ok(Math.abs(hardyZ(t) - z) < envelope, `Z(${t}) = ${hardyZ(t)} vs ${z}`);
  }
});

test('C0 of the regenerated Riemann-Siegel coefficients equals Ψ(p) = cos(2π(p² − p − 1/16))/cos(2πp)', () => {
  for (let p = 0; p <= 1; p += 0.03125) {
    if (Math.abs(Math.cos(2 * Math.PI * p)) < 1e-3) continue; // removable singularity of the formula
    const psi = Math.cos(2 * Math.PI * (p * p - p - 1 / 16)) / Math.cos(2 * Math.PI * p);
    assert.ok(Math.abs(rsCorrection(0, p) - psi) < 1e-13, `p=${p}`);
  }
  // C1 = −Ψ'''/(96π²): check against a finite difference of C0
  const h = 1e-3;
  for (const p of [0.1, 0.4, 0.7]) {
    const d3 = (rsCorrection(0, p + 2 * h) - 2 * rsCorrection(0, p + h) + 2 * rsCorrection(0, p - h) - rsCorrection(0, p - 2 * h)) / (2 * h ** 3);
    assert.ok(Math.abs(rsCorrection(1, p) + d3 / (96 * Math.PI ** 2)) < 1e-6);
  }
});

test('Gram points satisfy θ(g_n) = nπ and match tabulated values', () => {
  const table: [number, number][] = [[-1, 9.6669080561301921413], [0, 17.845599540410860817], [1, 23.170282701246309279], [10, 54.675237446853256266], [100, 238.58259051450292333]];
  for (const [n, g] of table) {
    assert.ok(Math.abs(gramPoint(n) - g) < 1e-10, `g_${n}`);
    assert.ok(Math.abs(siegelTheta(gramPoint(n)) - n * Math.PI) < 1e-10);
  }
});

test('Euler-Maclaurin ζ reproduces known values (the independent reference path)', () => {
  const [a, b] = zetaEulerMaclaurin(2, 0);
  assert.ok(Math.abs(a - Math.PI ** 2 / 6) < 1e-14 && Math.abs(b) < 1e-15);
  assert.ok(Math.abs(zetaEulerMaclaurin(3, 0)[0] - 1.202056903159594285) < 1e-14);
  const [r1, i1] = zetaEulerMaclaurin(0.5, 20);
  assert.ok(Math.abs(r1 - 0.4299138604378433721) < 1e-12 && Math.abs(i1 + 1.064291443080589112) < 1e-12);
  const [r2, i2] = zetaEulerMaclaurin(2, 100);
  assert.ok(Math.abs(r2 - 1.190780408775217015) < 1e-12 && Math.abs(i2 + 0.05389095935426045832) < 1e-12);
  const [r3, i3] = zetaEulerMaclaurin(0.5, 14.134725141734693);
  assert.ok(Math.hypot(r3, i3) < 1e-12, 'first zero');
});

test('acceptance: T = 100, 1000 and 2000 give 29, 649 and 1517 zeros', () => {
  for (const [T, n] of [[100, 29], [1000, 649], [2000, 1517]]) {
    const o = solve({ T });
    assert.equal(o.value, n, `N(${T})`);
    assert.ok(Math.abs((o.result.nOfT as number) - n) < 1e-6, 'Riemann-von Mangoldt agrees');
    assert.equal(o.precision.withinBound, true);
    assert.equal(o.result.extraSignChanges, 0);
  }
});

test('first zeros and the largest zero below T are located', () => {
  const o = solve({ T: 1000 });
  const first = o.result.firstZeros as number[];
  const known = [14.134725141734693, 21.022039638771555, 25.010857580145688, 30.424876125859513, 32.935061587739189];
  known.forEach((z, i) => assert.ok(Math.abs(first[i] - z) < 1e-5, `zero ${i + 1}: ${first[i]}`));
  assert.ok(Math.abs((o.result.largestZeroBelowT as number) - 999.79157155741294) < 1e-6);
});

test('a sweep over T: every count equals N(T) = θ(T)/π + 1 + S(T), which is an integer', () => {
  const mpmathCounts: Record<number, number> = { 15: 1, 20: 1, 50: 10, 77.7: 20, 150.3: 53, 200: 79, 333.3: 158, 500: 269, 777: 473, 1234.5: 842, 1500: 1069 };
  for (const [T, n] of Object.entries(mpmathCounts)) assert.equal(solve({ T: Number(T) }).value, n, `mpmath.nzeros(${T})`);
  for (let T = 15; T <= 2000; T += 6.37) {
    const o = solve({ T });
    const rvm = o.result.nOfT as number;
    assert.ok(Math.abs(rvm - Math.round(rvm)) < 1e-6, `N(${T}) = ${rvm} is not an integer`);
    assert.equal(o.value, Math.round(rvm), `T = ${T}`);
  }
});

test('the Gram-point scan refines failing Rosser blocks and agrees with a fine uniform scan', () => {
  const gram = solve({ T: 1500 });
  assert.equal(gram.value, 1069);
  assert.ok((gram.result.refinedBlocks as number) > 0, 'blocks with a bad Gram point were refined');
  assert.ok((gram.result.badGramPoints as number) > 0);
  const fine = solve({ T: 1500, dt: 0.05 });
  assert.equal(fine.value, 1069);
  assert.equal(fine.result.refinedBlocks, 0, 'a fine scan sees every sign change at once');
  assert.ok((fine.series!.t as number[]).length > (gram.series!.t as number[]).length);
});

test('Riemann-von Mangoldt alone: S(T) stays small and N(T) is integral away from zeros', () => {
  for (const T of [30, 250.5, 1999]) {
    const r = riemannVonMangoldt(T);
    assert.ok(Math.abs(r.S) < 1.5);
    assert.ok(Math.abs(r.N - Math.round(r.N)) < 1e-6);
  }
});

test('the same input gives identical bits; bounds T 15 to 2000 enforced', () => {
  assert.deepEqual(solve({ T: 321.5 }), solve({ T: 321.5 }));
  for (const bad of [{ T: 14.9 }, { T: 2001 }, { dt: 0 }, { dt: 11 }, { T: 'x' }]) {
    assert.equal(descriptor.input.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test('T a hair below or above a zero: the count flips exactly at the zero (mpmath.zetazero ordinates)', () => {
  // the Riemann-Siegel remainder (2e-5 at t = 20) exceeds |Z| this close to a zero; the count must
  // not depend on it
  const zeros: [number, number][] = [[2, 21.022039638771555], [3, 25.010857580145689], [4, 30.424876125859513],
    [100, 236.52422966581621], [101, 237.76982048092520], [500, 811.18435884650626], [1000, 1419.4224809459957],
    [1517, 1999.5457641762676]];
  for (const [k, z] of zeros) {
    for (const d of [1e-6, 1e-9]) {
      const below = solve({ T: z - d }), above = solve({ T: z + d });
      assert.equal(below.value, k - 1, `T = zero #${k} − ${d}`);
      assert.equal(above.value, k, `T = zero #${k} + ${d}`);
      assert.equal(below.precision.withinBound, true);
      assert.equal(above.precision.withinBound, true);
    }
  }
});

test('the Euler-Maclaurin Z used near T matches mpmath.siegelz to 1e-11', () => {
  for (const [t, z] of [[20, 1.14784241218519728], [100, 2.69269705666446347], [1000, 0.997794637521586614], [1999.9, 0.779765424144187277]]) {
    assert.ok(Math.abs(hardyZAccurate(t) - z) < 1e-11, `Z(${t}) = ${hardyZAccurate(t)} vs ${z}`);
  }
});

test('the reduced cosine of the Riemann-Siegel sum agrees with Math.cos to 1e-15 for |x| <= 1e6', () => {
  let worst = 0;
  for (let i = 0; i < 200_000; i++) {
    // deterministic spread over magnitudes 1e-3 .. 1e6, both signs, and the points kπ/2 where cos
    // crosses zero or turns
    const x = (i % 2 === 0 ? 1 : -1) * 10 ** (-3 + (9 * ((i * 0.6180339887498949) % 1)));
    worst = Math.max(worst, Math.abs(cosReduced(x) - Math.cos(x)), Math.abs(cosReduced((i * Math.PI) / 2) - Math.cos((i * Math.PI) / 2)));
  }
  assert.ok(worst < 1e-15, `worst ${worst}`);
  assert.equal(cosReduced(1e7), Math.cos(1e7), 'beyond 1e6 it is Math.cos');
  assert.ok(Number.isNaN(cosReduced(Number.NaN)));
});

test('Gram points from extrapolated guesses (as the scan takes them) equal Gram points found from scratch', () => {
  const g = [gramPoint(-1), gramPoint(0), gramPoint(1)];
  for (let n = 2; n <= 1520; n++) {
    const m = g.length;
    const x = gramPoint(n, 3 * (g[m - 1] - g[m - 2]) + g[m - 3]);
    if (n % 97 === 0 || n === 1520) {
      const scratch = gramPoint(n);
      assert.ok(Math.abs(x - scratch) < 1e-11 * x, `g_${n}: ${x} vs ${scratch}`);
      assert.ok(Math.abs(siegelTheta(x) - n * Math.PI) < 4e-12, `θ(g_${n}) − ${n}π`);
    }
    g.push(x);
  }
});

