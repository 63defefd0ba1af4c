import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptor, run, resolveConfig, initialState, MdSystem, defaultDtSim } from '../../src/solvers/evolve.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { SvcError } from '../../src/core/errors.ts';

const ctx = { seed: 1, progress() {} };
const solve = (fields: Record<string, unknown>, seed = 1) => run(descriptor.input.parse(fields), { ...ctx, seed });
const num = (x: unknown) => x as number;

/** Perfect FCC at density rho: energy and virial per particle by a direct lattice sum (independent of the solver). */
function fccLatticeSum(rho: number, rc: number): { u: number; w: number } {
  const a = Math.cbrt(4 / rho);
  const basis = [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]];
  const shift = 4 * (rc ** -12 - rc ** -6);
  const n = Math.ceil(rc / a) + 1;
  let u = 0, w = 0;
  for (let i = -n; i <= n; i++) for (let j = -n; j <= n; j++) for (let k = -n; k <= n; k++) {
    for (const b of basis) {
      const x = (i + b[0]) * a, y = (j + b[1]) * a, z = (k + b[2]) * a;
      const r2 = x * x + y * y + z * z;
      if (r2 === 0 || r2 >= rc * rc) continue;
      const s6 = r2 ** -3;
      u += 0.5 * (4 * s6 * (s6 - 1) - shift);
      w += 0.5 * 24 * s6 * (2 * s6 - 1);
    }
  }
  return { u, w };
}

test('LJ liquid (rho 0.8442, T 0.72, N 500, dt 0.003): relative energy drift below 1e-3 over 5,000 steps (acceptance)', () => {
  const out = solve({ preset: 'lj-liquid', N: 500, rho: 0.8442, T0: 0.72, dtSim: 0.003, steps: 5000 });
  const r = out.result;
  assert.ok(num(r.energyDrift) < 1e-3, `drift ${r.energyDrift}`);
  assert.ok(num(r.maxEnergyDeviation) < 1e-3, `max deviation ${r.maxEnergyDeviation}`);
  assert.ok(out.precision.withinBound);
  assert.equal(out.precision.errorPct, 100 * num(r.energyDrift));
  assert.ok(Math.abs(num(r.temperature) - 0.72) < 0.05, `T ${r.temperature}`);
  // a liquid diffuses (D ≈ 0.03 here), a solid would stay below ~0.05
  assert.ok(num(r.meanSquaredDisplacement) > 1, `msd ${r.meanSquaredDisplacement}`);
  assert.ok(num(r.totalMomentum) < 1e-10);
  // truncated-and-shifted LJ at this state point: U/N ≈ -5.2 (full LJ ≈ -6.1 with shift and tail added back)
  assert.ok(out.value > -5.4 && out.value < -5.0, `PE/N ${out.value}`);
});

test('a perfect FCC crystal at T = 0 has the lattice-sum energy and virial pressure in every neighbour-list mode', () => {
  const rho = 1.0, rc = 2.5;
  const ref = fccLatticeSum(rho, rc);
  // N = 4 and 32: box smaller than the cutoff (all images, self-images); 256 and 500: all pairs
  // with the minimum image; 1372: cell lists
  const modes = new Set<unknown>();
  for (const N of [4, 32, 256, 500, 1372]) {
    const out = solve({ preset: 'crystal', N, rho, T0: 0, equilibrate: 0, steps: 10 });
    modes.add(out.result.neighborList);
    assert.ok(Math.abs(out.value - ref.u) < 1e-11, `N=${N}: ${out.value} vs ${ref.u}`);
    const P = rho * ref.w / 3;
    assert.ok(Math.abs(num(out.result.pressure) - P) < 1e-10, `N=${N}: P ${out.result.pressure} vs ${P}`);
  }
  assert.deepEqual([...modes].sort(), ['all-images', 'all-pairs', 'cells-2']);
});

test('the virial pressure equals -dE/dV of the lattice (thermodynamic check of the virial)', () => {
  const rho = 1.05, h = 1e-6;
  const u = (r: number) => solve({ preset: 'crystal', N: 256, rho: r, T0: 0, equilibrate: 0, steps: 10 }).value;
  const dudrho = (u(rho + h) - u(rho - h)) / (2 * h);
  const P = num(solve({ preset: 'crystal', N: 256, rho, T0: 0, equilibrate: 0, steps: 10 }).result.pressure);
  assert.ok(Math.abs(P - rho * rho * dudrho) < 1e-6 * Math.abs(P), `${P} vs ${rho * rho * dudrho}`);
});

function checkForces(fields: Record<string, unknown>, jiggle: number): string {
  const cfg = resolveConfig(descriptor.input.parse(fields), 5);
  const init = initialState(cfg);
  const rng = createRng(99);
  for (let k = 0; k < init.pos.length; k++) init.pos[k] += jiggle * (rng.next() - 0.5);
  const sys = new MdSystem(init, cfg);
  const f = Float64Array.from(sys.force);
  const h = 1e-5; // balances truncation O(h²) against round-off in the total energy
  let worst = 0;
  for (const k of [0, 1, 2, 3 * (init.N >> 1) + 1, 3 * init.N - 1]) {
    const x = sys.pos[k];
    sys.pos[k] = x + h; sys.computeForces(); const up = sys.potential;
    sys.pos[k] = x - h; sys.computeForces(); const dn = sys.potential;
    sys.pos[k] = x;
    const fd = -(up - dn) / (2 * h);
    worst = Math.max(worst, Math.abs(fd - f[k]) / Math.max(1, Math.abs(f[k])));
  }
  assert.ok(worst < 1e-5, `${JSON.stringify(fields)}: worst relative force error ${worst}`);
  // Newton's third law: forces sum to zero
  const sum = [0, 0, 0];
  for (let i = 0; i < init.N; i++) for (let d = 0; d < 3; d++) sum[d] += f[3 * i + d];
  assert.ok(Math.hypot(...sum) < 1e-9, `net force ${sum}`);
  return sys.listMode;
}

test('forces are minus the gradient of the potential in every neighbour-list mode and for bonds', () => {
  const modes = new Set([
    checkForces({ N: 6, rho: 0.9 }, 0.2),                    // box smaller than the cutoff
    checkForces({ N: 256 }, 0.2),                            // all pairs, minimum image
    checkForces({ N: 2000 }, 0.2),                           // cell lists, 5x5x5 stencil
    checkForces({ preset: 'lj-gas', N: 300 }, 1.0),          // dilute: cell lists, 3x3x3 stencil
    checkForces({ preset: 'polymer', N: 120 }, 0.1),         // harmonic bonds
    checkForces({ preset: 'polymer', N: 120, bond: 'fene' }, 0.1),
    checkForces({ N: 256, sig: 1.1, rho: 0.6, rc: 3, eps: 2 }, 0.2),
  ]);
  assert.deepEqual([...modes].sort(), ['all-images', 'all-pairs', 'cells-1', 'cells-2']);
});

test('velocity Verlet is second order: halving dt cuts the energy fluctuation about fourfold', () => {
  const dev = (dt: number) => num(solve({ N: 108, dtSim: dt, steps: Math.round(1.6 / dt), equilibrate: Math.round(1.6 / dt) }).result.maxEnergyDeviation);
  const ratio = dev(0.004) / dev(0.002);
  assert.ok(ratio > 2.5 && ratio < 6.5, `ratio ${ratio}`);
});

test('the crystal preset stays an FCC solid at its temperature', () => {
  const out = solve({ preset: 'crystal', steps: 600 });
  assert.ok(num(out.result.meanSquaredDisplacement) < 0.1, `msd ${out.result.meanSquaredDisplacement}`);
  assert.ok(Math.abs(num(out.result.temperature) - 0.4) < 0.05);
  assert.ok(num(out.result.energyDrift) < 1e-4);
});

test('the dilute gas is nearly ideal: P/(rho T) slightly below 1 (negative second virial coefficient)', () => {
  const out = solve({ preset: 'lj-gas', steps: 4000 });
  const Z = num(out.result.pressure) / (0.05 * num(out.result.temperature));
  assert.ok(Z > 0.85 && Z < 1.0, `Z ${Z}`);
  assert.ok(out.value < 0 && out.value > -0.6);
});

test('polymer chains keep their bonds: harmonic near r0Bond, FENE near 0.97σ (Kremer-Grest)', () => {
  const h = solve({ preset: 'polymer', steps: 600, equilibrate: 600 });
  assert.equal(h.result.bonds, 225);
  assert.ok(Math.abs(num(h.result.meanBondLength) - 1.1) < 0.1, `harmonic ${h.result.meanBondLength}`);
  assert.ok(num(h.result.energyDrift) < 1e-3);
  const f = solve({ preset: 'polymer', bond: 'fene', steps: 600, equilibrate: 600 });
  assert.ok(Math.abs(num(f.result.meanBondLength) - 0.97) < 0.03, `fene ${f.result.meanBondLength}`);
  assert.deepEqual(f.result.bond, { type: 'fene', kBond: 30, r0Bond: 1.5, chainLength: 10 });
  const stiff = solve({ preset: 'polymer', kBond: 300, r0Bond: 1.05, steps: 300, equilibrate: 300 });
  assert.ok(Math.abs(num(stiff.result.meanBondLength) - 1.05) < 0.05);
});

test('the initial state has zero momentum, temperature exactly T0 and distinct lattice sites', () => {
  for (const preset of ['lj-liquid', 'polymer'] as const) {
    const cfg = resolveConfig(descriptor.input.parse({ preset, N: 333, T0: 1.3 }), 11);
    const s = initialState(cfg);
    let v2 = 0;
    const p = [0, 0, 0];
    for (let i = 0; i < s.N; i++) for (let d = 0; d < 3; d++) { p[d] += s.vel[3 * i + d]; v2 += s.vel[3 * i + d] ** 2; }
    assert.ok(Math.hypot(...p) < 1e-12);
    assert.ok(Math.abs(v2 / (3 * s.N - 3) - 1.3) < 1e-12);
    const keys = new Set<string>();
    for (let i = 0; i < s.N; i++) keys.add(`${s.pos[3 * i].toFixed(6)},${s.pos[3 * i + 1].toFixed(6)},${s.pos[3 * i + 2].toFixed(6)}`);
    assert.equal(keys.size, s.N);
    for (const x of s.pos) assert.ok(x >= 0 && x < s.L);
  }
});

test('a step far too large for the density and temperature is refused as UNSTABLE', () => {
  assert.throws(() => solve({ rho: 1.5, T0: 10, dtSim: 0.02 }),
    (e: unknown) => e instanceof SvcError && e.code === 'UNSTABLE');
});

test('series: E, KE, PE and T sampled `sample` times; the full 500 when the engine downsamples', () => {
  const out = solve({ N: 32, steps: 300, sample: 25 });
  const s = out.series!;
  assert.deepEqual(Object.keys(s), ['t', 'E', 'KE', 'PE', 'T']);
  for (const k of Object.keys(s)) assert.equal(s[k].length, 25);
  assert.equal(s.t[0], 0);
  assert.ok(Math.abs(s.t[24] - 300 * 0.003) < 1e-12);
  for (let k = 0; k < 25; k++) assert.ok(Math.abs(s.E[k] - s.KE[k] - s.PE[k]) < 1e-12);
  const input = descriptor.input.parse({ N: 32, steps: 1000 }) as Record<string, unknown>;
  delete input.sample; // the engine takes `sample` for its own downsampling
  assert.equal(run(input as any, ctx).series!.t.length, 500);
});

test('same input and seed give identical bits; another seed gives another trajectory', () => {
  const f = { N: 64, steps: 200, equilibrate: 100 };
  assert.deepEqual(solve(f, 3), solve(f, 3));
  assert.notEqual(solve(f, 3).value, solve(f, 4).value);
});

test('bounds: out-of-range fields are refused by the schema', () => {
  const bad = [{ N: 1 }, { N: 2001 }, { N: 10.5 }, { steps: 5 }, { steps: 200001 }, { sample: 1 }, { sample: 501 },
    { dtSim: 0 }, { dtSim: 0.5 }, { rho: 0 }, { rho: 3 }, { T0: -1 }, { rc: 10 }, { preset: 'plasma' }, { bond: 'rigid' },
    { seed: -1 }, { temperature: 1 }];
  for (const b of bad) assert.equal(descriptor.input.safeParse(b).success, false, JSON.stringify(b));
  const r = descriptor.input.safeParse({ N: 2001 });
  assert.ok(!r.success && r.error.issues[0].path[0] === 'N' && /2000/.test(r.error.issues[0].message));
  const d = descriptor.input.parse({});
  assert.equal(d.steps, 2000);
  assert.equal(d.dtSim, 0.003, 'the preset\'s start temperature (0.72) keeps the classic step');
  assert.equal(descriptor.input.parse({ T0: 50 }).dtSim, defaultDtSim(50), 'a hot start gets a shorter one');
  assert.equal(d.sample, 40);
});

test('the default step follows a hot start (issue 29): T0 = 50 meets the 0.1 % bound; 0.003 there does not', () => {
  assert.equal(defaultDtSim(0.72), 0.003);
  assert.equal(defaultDtSim(10), 0.003);
  assert.ok(Math.abs(defaultDtSim(50) - 0.003 * (10 / 50) ** (7 / 12)) < 1e-15);
  const preset = solve({});
  assert.equal(num(preset.result.dtSim), 0.003, 'the presets (T0 ≤ 1.5) keep 0.003');
  const hot = solve({ T0: 50 });
  assert.ok(Math.abs(num(hot.result.dtSim) - defaultDtSim(50)) < 1e-15);
  assert.ok(hot.precision.withinBound, `T0 = 50 with the default step: ${hot.precision.errorPct} %`);
  // the step the default replaced: velocity Verlet loses energy in the hot collisions
  const old = solve({ T0: 50, dtSim: 0.003 });
  assert.ok(old.precision.errorPct > 1, `T0 = 50 with dtSim 0.003: ${old.precision.errorPct} %`);
  // a configuration file: the default follows the temperature of its velocities
  const lines = ['3', 'Lattice="6 0 0 0 6 0 0 0 6" Properties=species:S:1:pos:R:3:vel:R:3 pbc="T T T"',
    'Ar 1 1 1 9 0 0', 'Ar 3 1 1 -9 0 0', 'Ar 2 3 1 0 0 0'];
  const file = solve({ xyz: lines.join('\n') + '\n', steps: 20 });
  const T = (81 + 81) / 6; // 2 KE / (3N - 3), unit masses
  assert.ok(Math.abs(num(file.result.dtSim) - defaultDtSim(T)) < 1e-15, `file start at T = ${T}: dtSim ${file.result.dtSim}`);
});

test('descriptor carries at least 8 examples and a vocabulary', () => {
  assert.ok(descriptor.examples.length >= 8);
  assert.ok(descriptor.vocabulary.includes('molecular dynamics'));
  assert.deepEqual(descriptor.operators, ['KO42-tensioned']);
  assert.equal(descriptor.unit, 'epsilon');
  assert.equal(descriptor.domain, 'Molecular Dynamics');
});
