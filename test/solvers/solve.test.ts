import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run } from '../../src/solvers/solve.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (body: Record<string, unknown>) => run(descriptor.input.parse({ prompt: 'test', ...body }), ctx);
const within = (value: number, ref: number, pct: number, msg: string) =>
  assert.ok(Math.abs(value - ref) <= (pct / 100) * Math.abs(ref), `${msg}: ${value} vs ${ref} (${(100 * Math.abs(value - ref) / Math.abs(ref)).toExponential(3)} %)`);

// independent physical data for the checks (standard surface gravity, GM, mean radius, air density)
const PLANETS = {
  earth: { g: 9.80665, GM: 3.986004418e14, R: 6.371e6, air: 1.225 },
  mars: { g: 3.72076, GM: 4.282837e13, R: 3.3895e6, air: 0.020 },
  moon: { g: 1.625, GM: 4.9048695e12, R: 1.7374e6, air: 0 },
  jupiter: { g: 24.79, GM: 1.26686534e17, R: 6.9911e7, air: 0.16 },
  sun: { g: 274.0, GM: 1.32712440018e20, R: 6.957e8, air: 2e-4 },
} as const;
type Loc = keyof typeof PLANETS;
const LOCS = Object.keys(PLANETS) as Loc[];

/** steel sphere (7850 kg/m³, C_d 0.47) dropped from rest at height h, quadratic drag and buoyancy */
function freeFallKE(loc: Loc, medium: 'air' | 'water' | 'vacuum', m: number, h: number, tMax: number): number {
  const rho = medium === 'vacuum' ? 0 : medium === 'water' ? 1000 : PLANETS[loc].air;
  const g = PLANETS[loc].g * (1 - rho / 7850);
  const r = Math.cbrt((3 * m) / (4 * Math.PI * 7850));
  const k = (0.5 * rho * 0.47 * Math.PI * r * r) / m;
  if (k === 0) { const t = Math.min(tMax, Math.sqrt((2 * h) / g)); return 0.5 * m * (g * t) ** 2; }
  const vt = Math.sqrt(g / k);
  // time to fall h: d(t) = (vt²/g) ln cosh(g t / vt) = h
  const tImpact = (vt / g) * Math.acosh(Math.exp((g * h) / (vt * vt)));
  const t = Math.min(tMax, tImpact);
  return 0.5 * m * (vt * Math.tanh((g * t) / vt)) ** 2;
}

test('free fall converges within 0.1 % of the closed form v = v_t tanh(g t / v_t) at every location and medium', () => {
  for (const loc of LOCS) {
    for (const medium of ['air', 'water', 'vacuum'] as const) {
      const out = solve({ referenceMode: 'free-fall', location: loc, medium, mass: 3, position: 150, tMax: 6 });
      const r = out.result as any;
      assert.equal(r.tuneStatus, 'converged');
      assert.ok(r.deviationPct <= 0.1 && out.precision.withinBound, `${loc}/${medium}: ${r.deviationPct}`);
      within(out.value, freeFallKE(loc, medium, 3, 150, 6), 0.1, `${loc}/${medium}`);
    }
  }
});

test('free fall reaching the ground stops at impact: in vacuum the impact energy is m g h', () => {
  const out = solve({ referenceMode: 'free-fall', medium: 'vacuum', mass: 2, position: 10, tMax: 30 });
  const r = out.result as any;
  assert.equal(r.impact, true);
  within(r.tEnd, Math.sqrt((2 * 10) / 9.80665), 1e-9, 'impact time');
  within(out.value, 2 * 9.80665 * 10, 0.1, 'impact energy');
  // with air drag the sphere lands later and with less energy, approaching terminal speed
  const air = solve({ referenceMode: 'free-fall', medium: 'air', mass: 2, position: 2000, tMax: 30 }).result as any;
  assert.ok(air.finalVelocity < air.terminalVelocity && air.finalVelocity > 0.95 * air.terminalVelocity);
});

test('shm converges within 0.1 % of E = m g l^-1 x0^2 / 2 at every location', () => {
  for (const loc of LOCS) {
    const out = solve({ referenceMode: 'shm', location: loc, medium: 'vacuum', mass: 2, position: 0.2 });
    const w2 = PLANETS[loc].g / 1;
    within(out.value, 0.5 * 2 * w2 * 0.04, 0.1, loc);
    assert.equal((out.result as any).tuneStatus, 'converged');
    // the tuned trajectory follows x0 cos(ωt)
    const s = out.series!;
    for (let i = 0; i < s.t.length; i++) assert.ok(Math.abs(s.x[i] - 0.2 * Math.cos(Math.sqrt(w2) * s.t[i])) < 2e-3 * 0.2, `${loc} t=${s.t[i]}`);
  }
});

test('gravity (inverse-square radial fall) converges within 0.1 % and conserves GMm(1/r - 1/r0) at every location', () => {
  for (const loc of LOCS) {
    const { GM, R } = PLANETS[loc];
    const alt = 5e5;
    const out = solve({ referenceMode: 'gravity', location: loc, mass: 10, position: alt, tMax: 20 });
    const r = out.result as any;
    const r0 = R + alt, rEnd = r0 - r.finalPosition;
    within(out.value, GM * 10 * (1 / rEnd - 1 / r0), 0.1, `${loc} energy balance`);
    // the reference point satisfies the cycloid relation t = √(r0³/2GM)(η + sin η cos η), r = r0 cos²η
    const eta = Math.acos(Math.sqrt((r0 - r.referencePosition) / r0));
    within(Math.sqrt(r0 ** 3 / (2 * GM)) * (eta + Math.sin(eta) * Math.cos(eta)), r.tEnd, 1e-6, `${loc} closed form`);
    // for a short fall the distance is close to g0 t²/2 with g0 = GM/r0²
    within(r.referencePosition, 0.5 * (GM / r0 ** 2) * r.tEnd ** 2, 1, `${loc} short-fall limit`);
    assert.ok(r.deviationPct <= 0.1);
  }
});

test('model (the master-field oscillator) converges within 0.1 % of E = m(w^2 x0^2/2 + w^2 x0^4/4)', () => {
  const w = 2 * Math.PI * 1.287;
  for (const x0 of [0.2, 0.5, -1]) {
    const out = solve({ referenceMode: 'model', mass: 1.5, position: x0, tMax: 5 });
    within(out.value, 1.5 * (0.5 * w * w * x0 * x0 + 0.25 * w * w * x0 ** 4), 0.1, `x0=${x0}`);
    assert.equal((out.result as any).tuneStatus, 'converged');
  }
  // the master field is dimensionless in location: a location there has no effect and is refused (issue 18)
  const ref = 1.5 * (0.5 * w * w * 0.25 + 0.25 * w * w * 0.0625);
  within(solve({ referenceMode: 'model', mass: 1.5, position: 0.5 }).value, ref, 0.1, 'no location');
  for (const loc of LOCS) {
    const r = descriptor.input.safeParse({ prompt: 'test', referenceMode: 'model', location: loc, mass: 1.5, position: 0.5 });
    assert.ok(!r.success && r.error.issues[0].path[0] === 'location', loc);
  }
});

test('the autotuner pulls a large beta back: converged in several iterations with a small final beta', () => {
  const out = solve({ referenceMode: 'free-fall', beta: 0.5 });
  const r = out.result as any;
  assert.equal(r.tuneStatus, 'converged');
  assert.ok(r.iterations >= 2 && r.iterations <= 40, `iterations ${r.iterations}`);
  assert.ok(Math.abs(r.beta) < 1e-2, `final beta ${r.beta}`);
  assert.ok(r.deviationPct <= 0.1);
  assert.equal(r.tuning.length, r.iterations);
  assert.ok(r.tuning[0].deviationPct > 10, 'the untuned run was far off');
  // a strong modulation is tamed by shrinking the weights
  const strong = solve({ referenceMode: 'shm', alpha: 2000, koSettings: { 'KO42-tensioned': 1, OPX: 1 } }).result as any;
  assert.equal(strong.tuneStatus, 'converged');
  assert.ok(strong.weightScale < 1);
  assert.ok(strong.weights['KO42-tensioned'] < 0.5 && 'OPX' in strong.weights);
});

test('a case that cannot converge is refused with PRECISION_REFUSED and the best deviation reached', () => {
  assert.throws(() => solve({ beta: 0.5, maxIterations: 1 }), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'PRECISION_REFUSED');
    const d = e.details as any;
    assert.ok(d.bestDeviationPct > 0.1, `best ${d.bestDeviationPct}`);
    assert.equal(d.iterations, 1);
    assert.match(e.message, /nothing was sealed/);
    return true;
  });
  // too coarse a step: the integration error alone exceeds the bound, whatever the tuner does
  assert.throws(() => solve({ referenceMode: 'model', dt: 0.1, tMax: 30 }), (e: unknown) =>
    e instanceof SvcError && e.code === 'PRECISION_REFUSED' && /reduce dt/.test(e.message) && (e.details as any).integrationFloorPct > 0.1);
});

test('tMax and dt are clamped and reported, not refused', () => {
  // (a drop in vacuum from 10 km: RK4 is exact on the polynomial trajectory, so dt = 0.1 is fine)
  const out = solve({ referenceMode: 'free-fall', medium: 'vacuum', position: 1e4, tMax: 100, dt: 0.5 });
  assert.deepEqual(out.clamped, { tMax: { given: 100, used: 30 }, dt: { given: 0.5, used: 0.1 } });
  assert.equal((out.result as any).dt, 0.1);
  assert.equal((out.result as any).tEnd, 30);
  const low = solve({ referenceMode: 'shm', tMax: 0, dt: 1e-6 });
  assert.deepEqual(low.clamped, { tMax: { given: 0, used: 0.1 }, dt: { given: 1e-6, used: 0.001 } });
  assert.equal(solve({ referenceMode: 'shm' }).clamped, undefined);
});

test('bounds: prompt required (max 500), maxIterations 1..40, enums; strict true is accepted, strict false refused', () => {
  const bad = [{}, { prompt: '' }, { prompt: 'x'.repeat(501) }, { prompt: 'x', maxIterations: 0 }, { prompt: 'x', maxIterations: 41 },
    { prompt: 'x', maxIterations: 2.5 }, { prompt: 'x', referenceMode: 'orbit' }, { prompt: 'x', location: 'venus' },
    { prompt: 'x', medium: 'oil' }, { prompt: 'x', mass: 0 }, { prompt: 'x', koSettings: { a: 'b' } }, { prompt: 'x', extra: 1 }];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b).slice(0, 60));
  const d = descriptor.input.parse({ prompt: 'x' });
  assert.equal(d.mass, 1); assert.equal(d.alpha, 1); assert.equal(d.beta, 0); assert.equal(d.tMax, 5); assert.equal(d.dt, 0.01);
  assert.equal(d.maxIterations, 40); assert.equal(d.normalizeOperators, true);
  assert.deepStrictEqual(solve({ strict: true }).value, solve({}).value);
  // the check is always on: strict false would be ignored, so it is refused (issue 18)
  assert.equal(descriptor.input.safeParse({ prompt: 'x', strict: false }).success, false);
});

test('free-fall and gravity need a positive height; shm and model a non-zero amplitude', () => {
  for (const [mode, position] of [['free-fall', 0], ['free-fall', -5], ['gravity', 0], ['shm', 0], ['model', 0]] as const) {
    assert.throws(() => solve({ referenceMode: mode, position }), (e: unknown) => e instanceof SvcError && e.code === 'INVALID_INPUT', `${mode} ${position}`);
  }
});

test('a step outside the RK4 stability region is refused as UNSTABLE with the number', () => {
  // a 1 g steel bead in water on the Sun: linearised drag rate 2g/v_t ≈ 82 /s, dt = 0.1 gives 8.2
  assert.throws(() => solve({ location: 'sun', medium: 'water', mass: 0.001, dt: 0.1 }), (e: unknown) =>
    e instanceof SvcError && e.code === 'UNSTABLE' && (e.details as any).stability.number > 2.785);
});

test('operator weights: normalised, modules at harmonics, coreOnly and useOperatorModules drop modules', () => {
  const a = solve({ koSettings: { KO42: 3, B: 1 } }).result as any;
  assert.deepEqual(Object.keys(a.weights), ['KO42-tensioned', 'B']);
  assert.ok(Math.abs(a.weights['KO42-tensioned'] / a.weights.B - 3) < 1e-12);
  assert.ok(Math.abs(a.weights['KO42-tensioned'] + a.weights.B - a.weightScale) < 1e-12);
  const core = solve({ koSettings: { KO42: 3, B: 1 }, coreOnly: true }).result as any;
  assert.deepEqual(core.ignoredOperators, ['B']);
  const off = solve({ koSettings: { B: 1 }, useOperatorModules: false }).result as any;
  assert.deepEqual(Object.keys(off.weights), ['KO42-tensioned']);
  const raw = solve({ koSettings: { KO42: 0.25 }, normalizeOperators: false }).result as any;
  assert.equal(raw.weights['KO42-tensioned'], 0.25 * raw.weightScale);
});

test('same input gives identical bits, and every number in the output is finite', () => {
  const body = { referenceMode: 'free-fall', location: 'mars', beta: 0.2, koSettings: { X: 2 } };
  const a = solve(body), b = solve(body);
  assert.deepStrictEqual(a, b);
  const walk = (x: unknown): void => {
    if (typeof x === 'number') assert.ok(Number.isFinite(x));
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(a);
  assert.equal(Object.keys(a.series!)[0], 't');
});
