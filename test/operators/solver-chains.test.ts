// The operator ids of the solvers' chains (spec, solver table) are catalogued, and they mean what
// the solvers use: each catalogued formula, evaluated through the catalog (units and all) on the
// solver's own parameters, gives the number the solver itself uses as its reference or reports.
// The solvers are run directly (pure `run` functions, small grids) so that this stays cheap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';
import { evaluateWithUnits, getOperator } from '../../src/operators/catalog.ts';
import { bindInputs } from '../../src/operators/gate.ts';
import { PULSE_HZ } from '../../src/core/clock.ts';
import * as quant from '../../src/solvers/quant.ts';
import * as protect from '../../src/solvers/protect.ts';
import * as lorenz from '../../src/solvers/lorenz.ts';
import * as climate from '../../src/solvers/climate.ts';
import * as acoustic from '../../src/solvers/acoustic.ts';
import * as heat from '../../src/solvers/heat.ts';
import * as device from '../../src/solvers/device.ts';
import * as opt from '../../src/solvers/opt.ts';
import * as schrodinger from '../../src/solvers/schrodinger.ts';

const ctx = { seed: 1, progress() {} };
const runSolver = (mod: any, input: Record<string, unknown>) => mod.run(mod.descriptor.input.parse(input), ctx);
/** the catalog's value of `id` on `inputs` (numbers in the declared units, or quantity strings) */
const op = (id: string, inputs: Record<string, unknown>) => {
  const def = getOperator(id)!;
  return evaluateWithUnits(def, bindInputs([def], inputs)[def.id]);
};
const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300);

test('every operator id named by a solver chain is in the catalog (KO42-tensioned is the KO42 base operator)', async () => {
  const solvers = await loadSolvers();
  assert.ok(solvers.length >= 25, `${solvers.length} solvers`);
  const named = new Set<string>();
  for (const s of solvers) {
    for (const id of s.descriptor.operators) {
      const base = id === 'KO42-tensioned' ? 'KO42' : id;
      assert.ok(getOperator(base), `${s.descriptor.name}: chain operator ${id} is not catalogued`);
      named.add(base);
    }
  }
  for (const id of ['KO42', 'WM1', 'BEAM_DEFLECTION', 'OC1', 'CMP11', 'BINDING_AFFINITY', 'CELL_GROWTH', 'FEA_DISPLACEMENT', 'FL3',
    'STRESS_ANALYSIS', 'HEP4', 'POWER_ELECTRICAL', 'CHE17', 'CS47', 'NL10', 'CS75', 'BLACK_SCHOLES', 'ICO9', 'CS81', 'QM5',
    'SVC-PROTECT-001', 'SVC-PROTECT-002']) {
    assert.ok(named.has(id), `no solver chain names ${id}`);
  }
});

test('BLACK_SCHOLES is the quant solver\'s closed-form reference', () => {
  for (const [S0, K, r, sigma, T] of [[100, 100, 0.05, 0.2, 1], [80, 95, 0.01, 0.45, 2.5], [120, 100, 0.1, 0.15, 0.25]]) {
    const out = runSolver(quant, { type: 'call', S0, K, r, sigma, T, paths: 2000 });
    const cat = op('BLACK_SCHOLES', { S: S0, K, r, sig: sigma, T });
    assert.ok(rel(cat, out.precision.referenceValue) < 1e-9, `catalog ${cat} vs solver ${out.precision.referenceValue}`);
  }
});

test('SVC-PROTECT-001 and -002 are the protect solver\'s guard terms', () => {
  for (const [t, phase] of [[45, 1.1], [1_790_000_123, 4.2], [0, 0.3]]) {
    const out = runSolver(protect, { t, phase, liveness: 1 });
    assert.ok(rel(op('SVC-PROTECT-001', { phi: phase, fpulse: PULSE_HZ }), out.result['SVC-PROTECT-001']) < 1e-12);
    assert.ok(rel(op('SVC-PROTECT-002', { t }), out.result['SVC-PROTECT-002']) < 1e-12);
  }
});

test('NL10 is the lorenz solver\'s reference contraction rate', () => {
  const out = runSolver(lorenz, { sigma: 12, rho: 30, beta: 2.5, steps: 200 });
  assert.ok(rel(op('NL10', { sig: 12, beta: 2.5 }), out.precision.referenceValue) < 1e-12);
});

test('OC1 is the climate solver\'s wave-speed reference sqrt(g H)', () => {
  const out = runSolver(climate, { N: 32, steps: 2, g: 9.81, H: 4 });
  assert.ok(rel(op('OC1', { g: 9.81, H: 4 }), out.result.waveSpeedReference) < 1e-12);
});

test('WM1 is the acoustic solver\'s half-wave mode frequency n c / 2L', () => {
  const out = runSolver(acoustic, { L: 0.5, c: 343, ends: 'open-open', mode: 2, N: 64 });
  assert.ok(rel(op('WM1', { n: 2, c: 343, L: 0.5 }), out.precision.referenceValue) < 1e-12);
});

test('CHE17 is the heat solver\'s mode-decay reference', () => {
  const out = runSolver(heat, { dim: 1, nx: 16, mode: 2, alpha: 0.5, dt: 1e-3, steps: 40, method: 'implicit' });
  const t = 40 * 1e-3;
  // the unit bar (L = 1 m), initial amplitude 1 K
  const cat = op('CHE17', { u0: 1, al: 0.5, k: 2, t, L: 1 });
  const ref = out.result.referenceAmplitude;
  assert.equal(typeof ref, 'number');
  assert.ok(rel(cat, ref) < 1e-12, `catalog ${cat} vs solver ${ref}`);
});

test('CMP11 is the device solver\'s PN-junction built-in potential reference', () => {
  const out = runSolver(device, { Na: 1e23, Nd: 1e22, ni: 1.5e16, T: 300, nx: 60 });
  assert.ok(rel(op('CMP11', { Na: 1e23, Nd: 1e22, ni: 1.5e16, T: 300 }), out.precision.referenceValue) < 1e-9);
});

test('CS75 is the opt solver\'s Rosenbrock function (a = 1, b = 100)', () => {
  const out = runSolver(opt, { fn: 'rosenbrock', dim: 2, maxIter: 50, start: -1.2 });
  const [x, y] = out.result.x as number[];
  assert.ok(Math.abs(op('CS75', { a: 1, b: 100, x, y }) - out.result.f) <= 1e-12 * Math.max(1, Math.abs(out.result.f)));
  assert.equal(op('CS75', { a: 1, b: 100, x: 1, y: 1 }), out.result.optimumF);
});

test('QM5 is the schrodinger solver\'s harmonic level (n + 1/2) in units of hbar omega', () => {
  const w = 2e14;
  const hbarOmegaEV = (6.62607015e-34 / (2 * Math.PI)) * w / 1.602176634e-19;
  for (const n of [0, 3]) {
    const out = runSolver(schrodinger, { potential: 'harmonic', n, N: 400 });
    assert.ok(rel(op('QM5', { w, n }) / hbarOmegaEV, out.precision.referenceValue) < 1e-12);
  }
});
