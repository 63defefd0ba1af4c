// svc_unified seals the unit that belongs to its value (issue 18, item 3):
//  - the sweep: every one of the 1,718 catalogued operators alone through svc_unified and through
//    svc_compute gives the same value and the same unit (in-process over the whole catalog; a
//    sample and the issue's examples through the node, over HTTP, on whichever store the run uses);
//  - ten multi-operator compositions against SI values computed here by hand from the equations
//    (CODATA 2018 constants written out, never read from the code under test);
//  - the ode kind starts from the initial state it is given, and nothing given is ignored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { composeUnified } from '../../src/operators/compose.ts';
import { runComputeProtocol } from '../../src/operators/compute.ts';
import { loadCatalog, evaluateWithUnits } from '../../src/operators/catalog.ts';
import { testNode, type TestNode } from '../helpers.ts';

const now = 1_790_000_000.5;
// R = N_A k_B exactly (SI 2019)
const R = 6.02214076e23 * 1.380649e-23, au = 149597870700, PI = Math.PI;
const close = (a: number, b: number, rel = 1e-12) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

let t: TestNode;
let key: string;
before(async () => {
  t = await testNode();
  key = (await t.machine('unified-units')).apiKey;
});
after(async () => { await t.close(); });

/** Unified and compute for one operator alone; KO42 (the identity, always prepended) is compared with compute's KO42 entry. */
function both(id: string, example: Record<string, number>, prefix: string) {
  const u = composeUnified({ operators: [id], inputs: id === 'KO42' ? {} : example }, now);
  const c = runComputeProtocol({ domain: prefix, inputs: id === 'KO42' ? {} : example, operators: [id] }, now);
  const ref = id === 'KO42' ? c.operators.find((o) => o.id === 'KO42')! : c.primary;
  return { u, ref };
}

test('sweep: each of the 1,718 operators alone gives the same value and unit through svc_unified and svc_compute', () => {
  const cat = loadCatalog();
  assert.equal(cat.operators.length, 1718);
  const disagree: string[] = [];
  for (const o of cat.operators) {
    const { u, ref } = both(o.id, o.example, o.prefix);
    if (u.value !== ref.value || u.unit !== ref.unit) disagree.push(`${o.id}: unified ${u.value} ${u.unit}, compute ${ref.value} ${ref.unit}`);
    // the value is in the operator's declared unit, and that is the unit sealed
    else if (o.id !== 'KO42' && (u.unit !== (o.output.unit.trim() || '1') || u.value !== evaluateWithUnits(o, o.example))) disagree.push(`${o.id}: not the declared unit ${o.output.unit}`);
  }
  assert.deepEqual(disagree, [], `${disagree.length} of 1718 disagree:\n${disagree.slice(0, 40).join('\n')}`);
});

test('the issue\'s example through the node: SOUND_SPEED_IDEAL_GAS is 343.2 m/s through svc_unified as through svc_compute', async () => {
  const inputs = { gam: 1.4, T: 293.15, Mm: 0.02897 };
  const hand = Math.sqrt(1.4 * R * 293.15 / 0.02897);
  const u = await t.call('POST', '/api/svc/unified', { operators: ['SOUND_SPEED_IDEAL_GAS'], inputs }, key);
  assert.equal(u.status, 200, u.text);
  assert.equal(u.body.unit, 'm/s');
  assert.ok(close(u.body.value, hand, 1e-12), `${u.body.value} vs ${hand}`);
  assert.equal(Math.round(u.body.value * 10) / 10, 343.2);
  const c = await t.call('POST', '/api/svc/compute', { domain: 'Acoustics', operators: ['SOUND_SPEED_IDEAL_GAS'], inputs }, key);
  assert.equal(c.status, 200, c.text);
  assert.equal(c.body.unit, u.body.unit);
  assert.equal(c.body.value, u.body.value);
  const tool = await t.tool('svc_unified', { operators: ['SOUND_SPEED_IDEAL_GAS'], inputs }, key);
  assert.equal(tool.isError, false, JSON.stringify(tool.body));
  assert.equal(tool.body.unit, 'm/s');
});

test('the issue\'s other examples: Pa*s, J/kg and cd/m^2 keep their unit, alone and as products (never P, Sv, Gy or lx)', async () => {
  const alone: [string, string][] = [['Pa*s', '1.81e-5'], ['J/kg', '2.5e3'], ['cd/m^2', '250']];
  for (const [unit, equation] of alone) {
    const r = await t.call('POST', '/api/svc/unified', { operators: [{ id: 'q', equation, unit }] }, key);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.unit, unit);
    assert.equal(r.body.value, Number(equation));
  }
  const products: [unknown[], Record<string, number>, string, number][] = [
    [[{ id: 'stress', equation: '3', unit: 'Pa' }, { id: 'time', equation: '0.5', unit: 's' }], {}, 'Pa*s', 1.5],
    [['CAPE_PARCEL'], { g: 9.81, dz: 5000, Tp: 290, Te: 286 }, 'J/kg', 9.81 * 5000 * 4 / 286],
    [[{ id: 'E', equation: '10', unit: 'J' }, { id: 'perKg', equation: '0.25', unit: '1/kg' }], {}, 'J/kg', 2.5],
    [[{ id: 'I', equation: '800', unit: 'cd' }, { id: 'perArea', equation: '0.25', unit: '1/m^2' }], {}, 'cd/m^2', 200],
  ];
  for (const [operators, inputs, unit, value] of products) {
    const r = await t.call('POST', '/api/svc/unified', { operators, inputs }, key);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.unit, unit, JSON.stringify(operators));
    assert.ok(close(r.body.value, value), `${r.body.value} vs ${value}`);
  }
});

test('sweep sample through the node (HTTP): every 25th operator and the issue\'s, same value and unit from svc_unified and svc_compute', async () => {
  const cat = loadCatalog();
  const ids = new Set(cat.operators.filter((_, i) => i % 25 === 0).map((o) => o.id));
  for (const id of ['SOUND_SPEED_IDEAL_GAS', 'CAPE_PARCEL', 'PLUMMER_POTENTIAL', 'SIMPLY_SUPPORTED_MAX_MOMENT', 'FOOD_TO_MICROORGANISM', 'CUMULATED_ACTIVITY', 'LAWSON_TRIPLE_PRODUCT', 'ARRHENIUS_RATE']) ids.add(id);
  ids.delete('KO42');
  assert.ok(ids.size >= 70);
  for (const o of cat.operators.filter((x) => ids.has(x.id))) {
    const u = await t.call('POST', '/api/svc/unified', { operators: [o.id], inputs: o.example }, key);
    const c = await t.call('POST', '/api/svc/compute', { domain: o.prefix, operators: [o.id], inputs: o.example }, key);
    assert.equal(u.status, 200, `${o.id}: ${u.text}`);
    assert.equal(c.status, 200, `${o.id}: ${c.text}`);
    assert.equal(u.body.unit, c.body.unit, o.id);
    assert.equal(u.body.value, c.body.value, o.id);
    assert.equal(u.body.unit, o.output.unit, o.id);
  }
});

// Ten compositions (strategy A: value = product of the operators' values). `unit` is the expected
// sealed unit and `toSI` its factor to SI, both by hand; `si` is the SI value by hand.
interface Composition { name: string; operators: unknown[]; inputs: Record<string, number>; unit: string; toSI: number; si: number }
const compositions: Composition[] = [
  {
    name: 'speed of sound x time = distance',
    operators: ['SOUND_SPEED_IDEAL_GAS', { id: 'dt', equation: '2.5', unit: 's' }],
    inputs: { gam: 1.4, T: 293.15, Mm: 0.02897 }, unit: 'm', toSI: 1,
    si: Math.sqrt(1.4 * R * 293.15 / 0.02897) * 2.5,
  },
  {
    name: 'kinetic energy per unit mass (J/kg, not Gy or Sv)',
    operators: ['KINETIC_ENERGY', { id: 'perKg', equation: '1/m', unit: '1/kg' }],
    inputs: { m: 2, v: 3 }, unit: 'J/kg', toSI: 1, si: 3 * 3 / 2,
  },
  {
    name: 'osmotic pressure x relaxation time (Pa*s, not P)',
    operators: ['OSMOTIC_PRESSURE', { id: 'tau', equation: '0.003', unit: 's' }],
    inputs: { i: 2, c: 0.15, T: 310 }, unit: 'Pa*s', toSI: 1, si: 2 * 150 * R * 310 * 0.003,
  },
  {
    name: 'Ohm\'s law voltage x current x time = energy (V*A*s = J)',
    operators: ['OHMS_LAW', 'OHMS_LAW_CURRENT', { id: 'dt', equation: '60', unit: 's' }],
    inputs: { I: 2, R: 10, V: 12 }, unit: 'J', toSI: 1, si: 20 * (12 / 10) * 60,
  },
  {
    name: 'beam moment in kN m x rotation keeps the kN scale (never J)',
    operators: ['SIMPLY_SUPPORTED_MAX_MOMENT', { id: 'theta', equation: '0.02', unit: 'rad' }],
    inputs: { w: 20, L: 6 }, unit: 'kN*m*rad', toSI: 1000, si: 20e3 * 36 / 8 * 0.02,
  },
  {
    name: 'Michaelis-Menten rate in mol/(L s) x volume in L = mol/s',
    operators: ['MICHAELIS_MENTEN', { id: 'vol', equation: '2', unit: 'L' }],
    inputs: { Vmax: 1e-6, S: 5e-4, Km: 1e-4 }, unit: 'mol/s', toSI: 1,
    // SI: Vmax = 1e-3 mol/(m^3 s), S and Km in mol/m^3, volume 2e-3 m^3
    si: (1e-3 * 0.5 / (0.1 + 0.5)) * 2e-3,
  },
  {
    name: 'Dulong-Petit molar heat capacity x temperature x amount = energy',
    operators: ['DULONG_PETIT', { id: 'temp', equation: 'T', unit: 'K' }, { id: 'amount', equation: 'n', unit: 'mol' }],
    inputs: { atoms: 1, T: 300, n: 2 }, unit: 'J', toSI: 1, si: 3 * R * 300 * 2,
  },
  {
    name: 'SIR growth rate per day x 14 days is dimensionless',
    operators: ['SIR_GROWTH_RATE', { id: 'span', equation: '14', unit: 'day' }],
    inputs: { gam: 0.1, R0: 3 }, unit: '1', toSI: 1, si: 0.1 * 2 * 14,
  },
  {
    name: 'solar flux at 1 au x one hour = fluence (W*s/m^2, no name picked)',
    operators: ['FLUX_AT_DISTANCE', { id: 'hour', equation: '3600', unit: 's' }],
    inputs: { L: 3.828e26, d: 1 }, unit: 'W*s/m^2', toSI: 1, si: 3.828e26 / (4 * PI * au * au) * 3600,
  },
  {
    name: 'plane-wave intensity x workspace area = power',
    operators: ['PLANE_WAVE_INTENSITY', 'WORKSPACE_AREA_2R'],
    inputs: { p: 1, rho: 1.204, c: 343, l1: 0.5, l2: 0.4 }, unit: 'W', toSI: 1,
    si: (1 / (1.204 * 343)) * PI * (0.9 * 0.9 - 0.1 * 0.1),
  },
];

test('ten multi-operator compositions equal their hand-computed SI values, in the unit that belongs to the value', () => {
  assert.equal(compositions.length, 10);
  for (const c of compositions) {
    const r = composeUnified({ operators: c.operators as any, inputs: c.inputs }, now);
    assert.equal(r.strategy, 'A', c.name);
    assert.equal(r.unit, c.unit, c.name);
    assert.ok(close(r.value * c.toSI, c.si, 1e-10), `${c.name}: ${r.value} ${r.unit} = ${r.value * c.toSI} SI, by hand ${c.si}`);
  }
});

test('the ten compositions through the node seal the same values and units', async () => {
  for (const c of compositions) {
    const r = await t.call('POST', '/api/svc/unified', { operators: c.operators, inputs: c.inputs }, key);
    assert.equal(r.status, 200, `${c.name}: ${r.text}`);
    assert.equal(r.body.unit, c.unit, c.name);
    assert.ok(close(r.body.value * c.toSI, c.si, 1e-10), c.name);
  }
});

test('ode kind: the integration starts from the initial state it is given (inputs.y0, inputs.y, or the previous stage)', async () => {
  const decay = { id: 'decay', equation: '-k*y', kind: 'ode' as const };
  const consts = { tMax: 2, steps: 400 };
  // y' = -k y, y(0) = y0: y(2) = y0 e^{-2k}
  const viaY0 = composeUnified({ operators: [decay], inputs: { k: 0.5, y0: 3 }, consts }, now);
  assert.ok(close(viaY0.value, 3 * Math.exp(-1), 1e-9), `${viaY0.value}`);
  // the state under its own name: today it was read as a constant and the state started at 0
  const viaY = composeUnified({ operators: [decay], inputs: { k: 0.5, y: 3 }, consts }, now);
  assert.ok(close(viaY.value, 3 * Math.exp(-1), 1e-9), `inputs.y is the initial state: ${viaY.value}`);
  // a non-zero initial state that an additive right-hand side does not mask: y' = 1, y(1) = y0 + 1
  const ramp = composeUnified({ operators: [{ id: 'ramp', equation: '1', kind: 'ode' }], inputs: { y: -4 }, consts: { tMax: 1, steps: 10 } }, now);
  assert.ok(close(ramp.value, -3, 1e-12), `${ramp.value}`);
  // after a catalogued stage, the ode starts from that stage's value: KE = 9 J, then y' = -y
  const chained = composeUnified({ operators: ['KINETIC_ENERGY', { id: 'relax', equation: '-y', kind: 'ode', unit: 'J' }], inputs: { m: 2, v: 3 }, consts: { tMax: 1, steps: 400 } }, now);
  assert.ok(close(chained.value, 9 * Math.exp(-1), 1e-9), `${chained.value}`);
  assert.equal(chained.unit, 'J');
  // over HTTP
  const r = await t.call('POST', '/api/svc/unified', { operators: [decay], inputs: { k: 0.5, y: 3 }, consts }, key);
  assert.equal(r.status, 200, r.text);
  assert.ok(close(r.body.value, 3 * Math.exp(-1), 1e-9));
});

test('nothing given to svc_unified is ignored: an unused initial state, an unread const, a unit or kind on a catalogued operator', () => {
  const bad = (req: any, code: string, path: RegExp) => assert.throws(() => composeUnified(req, now), (e: any) => e.code === code && path.test(JSON.stringify(e.issues ?? e.details)), JSON.stringify(req));
  const decay = { id: 'decay', equation: '-y', kind: 'ode' as const };
  bad({ operators: [decay], inputs: { y0: 1, y: 2 } }, 'INVALID_INPUT', /inputs\.y0/);
  bad({ operators: [{ id: 'five', equation: '5' }, decay], inputs: { y0: 1 } }, 'INVALID_INPUT', /inputs\.y0/);
  bad({ operators: ['KINETIC_ENERGY'], inputs: { m: 2, v: 3, y0: 1 } }, 'DIMENSIONAL_GATE', /y0/);
  bad({ operators: [decay], consts: { y0: 1 } }, 'INVALID_INPUT', /consts\.y0/);
  bad({ operators: ['KINETIC_ENERGY'], inputs: { m: 2, v: 3 }, consts: { tMax: 2 } }, 'INVALID_INPUT', /consts\.tMax/);
  bad({ operators: [{ id: 'KINETIC_ENERGY', kind: 'ode' }], inputs: { m: 2, v: 3 } }, 'INVALID_INPUT', /operators\.kind/);
  bad({ operators: [{ id: 'KINETIC_ENERGY', unit: 'kJ' }], inputs: { m: 2, v: 3 } }, 'INVALID_INPUT', /operators\.unit/);
  // the declared unit itself is accepted, and the first stage reading y0 as a parameter is fine
  assert.equal(composeUnified({ operators: [{ id: 'KINETIC_ENERGY', unit: 'J' }], inputs: { m: 2, v: 3 } }, now).unit, 'J');
  assert.equal(composeUnified({ operators: [{ id: 'start', equation: 'y0 + 1' }, decay], inputs: { y0: 1 }, consts: { tMax: 1 } }, now).strategy, 'B');
});
