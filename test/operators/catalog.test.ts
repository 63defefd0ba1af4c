// The catalog as data: counts, ids, domains, and every operator evaluated on its sample inputs
// in its declared units (finite, dimensionally consistent with its output unit, and equal to
// the independent SI-float path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog, evaluateWithUnits, evaluateSI, relativeDiffPct, checkUnit, getOperator, resolveDomain } from '../../src/operators/catalog.ts';
import { convertInput } from '../../src/operators/gate.ts';
import { umath, isDimensionless, isPureAngle } from '../../src/operators/units.ts';
import { PAPER_SOURCES } from '../../src/config.ts';

const cat = loadCatalog();

test('the catalog has at least 1,600 operators across exactly 67 domains, each with at least 24', () => {
  assert.equal(cat.domains.length, 67);
  assert.ok(cat.operators.length >= 1600, `only ${cat.operators.length} operators`);
  for (const d of cat.domains) assert.ok((cat.byDomain.get(d.name) ?? []).length >= 24, `${d.name} has ${(cat.byDomain.get(d.name) ?? []).length}`);
  const names = new Set(cat.domains.map((d) => d.name));
  const slugs = new Set(cat.domains.map((d) => d.slug));
  const codes = new Set(cat.domains.map((d) => d.code));
  assert.equal(names.size, 67);
  assert.equal(slugs.size, 67);
  assert.equal(codes.size, 67);
});

test('operator ids are unique (case-insensitively) and well formed', () => {
  const seen = new Set<string>();
  for (const o of cat.operators) {
    const k = o.id.toUpperCase();
    assert.ok(!seen.has(k), `duplicate id ${o.id}`);
    seen.add(k);
    assert.match(o.id, /^([A-Z][A-Z0-9_]*|SVC-PROTECT-00[12])$/);
  }
});

test('every label of the spec solver table is a domain (the N-body label as an alias)', () => {
  const labels = ['Acoustics', 'Symplectic Mechanics', 'Structural Stability', 'Geophysical Fluid Dynamics', 'Closed-Form Master Field',
    'Semiconductor Devices', 'Molecular Docking', 'Epidemiology', 'Molecular Dynamics', 'Structural FEA', 'Fluid Dynamics',
    'Fracture Mechanics', 'Lattice Gauge Theory', 'Power Systems', 'Thermal Diffusion', 'State Estimation', 'Chaotic Dynamics',
    'Population Ecology', 'HULYAS-type Master Field (N-body)', 'Optimization', 'PulseGuard Protection', 'Quantitative Finance',
    'Reaction-Diffusion', 'Computational Complexity', 'Quantum Mechanics', 'Master Field', 'Growth-Front Dynamics',
    'Multi-Domain Composition', 'Wave Mechanics', 'Analytic Number Theory'];
  for (const l of labels) assert.ok(resolveDomain(l), `missing domain ${l}`);
  assert.equal(resolveDomain('HULYAS-type Master Field (N-body)')!.name, 'Master Field');
});

test('the operator ids of the spec solver chains exist in the domains whose solvers use them', () => {
  const expected: Record<string, string> = {
    KO42: 'Master Field', WM1: 'Wave Mechanics', BEAM_DEFLECTION: 'Structural FEA', OC1: 'Geophysical Fluid Dynamics',
    CMP11: 'Semiconductor Devices', BINDING_AFFINITY: 'Molecular Docking', CELL_GROWTH: 'Growth-Front Dynamics',
    FEA_DISPLACEMENT: 'Structural FEA', FL3: 'Fluid Dynamics', STRESS_ANALYSIS: 'Fracture Mechanics', HEP4: 'Lattice Gauge Theory',
    POWER_ELECTRICAL: 'Power Systems', CHE17: 'Thermal Diffusion', CS47: 'State Estimation', NL10: 'Chaotic Dynamics',
    CS75: 'Optimization', BLACK_SCHOLES: 'Quantitative Finance', ICO9: 'Reaction-Diffusion', CS81: 'Computational Complexity',
    QM5: 'Quantum Mechanics', 'SVC-PROTECT-001': 'PulseGuard Protection', 'SVC-PROTECT-002': 'PulseGuard Protection',
  };
  for (const [id, domain] of Object.entries(expected)) {
    const o = getOperator(id);
    assert.ok(o, `missing ${id}`);
    assert.equal(o!.domain, domain, id);
  }
  assert.equal(getOperator('WM1')!.output.unit, 'Hz');
  assert.equal(getOperator('BLACK_SCHOLES')!.output.unit, 'USD');
  assert.equal(getOperator('SVC-PROTECT-001')!.equation, 'abs(sin(5*phi))/fpulse');
});

test('domains: fields, default operator in the domain, literature sources among the six', () => {
  for (const d of cat.domains) {
    assert.ok(d.description.length > 20, d.name);
    assert.ok(d.vocabulary.length >= 10, `${d.name} vocabulary`);
    assert.ok(d.sources.length >= 1, d.name);
    for (const s of d.sources) assert.ok((PAPER_SOURCES as readonly string[]).includes(s), `${d.name}: source ${s}`);
    assert.equal(getOperator(d.defaultOperator)?.domain, d.name, `${d.name} default ${d.defaultOperator}`);
    assert.match(d.slug, /^[a-z0-9-]+$/);
  }
});

test('operators: fields, prefix = domain code, tier 1..3, parseable non-offset units, example keys = input keys', () => {
  const codeOf = new Map(cat.domains.map((d) => [d.name, d.code]));
  for (const o of cat.operators) {
    assert.equal(o.prefix, codeOf.get(o.domain), o.id);
    assert.ok([1, 2, 3].includes(o.tier), o.id);
    assert.ok(o.name && o.description && o.source && o.equation, o.id);
    assert.ok(Object.keys(o.inputs).length >= 1, o.id);
    assert.deepEqual(Object.keys(o.example).sort(), Object.keys(o.inputs).sort(), o.id);
    for (const u of [...Object.values(o.inputs), o.output.unit]) assert.ok(checkUnit(u), `${o.id}: unit ${u}`);
  }
});

test('every operator evaluates on its sample inputs: finite, in its output unit, equal to the SI path', () => {
  let n = 0;
  for (const o of cat.operators) {
    const a = evaluateWithUnits(o, o.example);
    const b = evaluateSI(o, o.example);
    assert.ok(Number.isFinite(a), `${o.id} = ${a}`);
    assert.ok(relativeDiffPct(a, b) < 1e-7, `${o.id}: unit path ${a} vs SI path ${b}`);
    n++;
  }
  assert.equal(n, cat.operators.length);
});

test('every operator gives the same value when its inputs are restated in SI base units through the gate', () => {
  for (const o of cat.operators) {
    const restated: Record<string, number> = {};
    for (const [k, unit] of Object.entries(o.inputs)) {
      const v = o.example[k];
      if (isDimensionless(unit) || isPureAngle(unit)) { restated[k] = v; continue; }
      let si: string;
      try { si = (umath().unit(v, unit) as any).toSI().toString(); } catch { si = `${v} ${unit}`; } // currency has no SI form
      const r = convertInput(k, si, unit, o.id);
      assert.ok('value' in r, `${o.id}.${k}: ${si} refused: ${'problem' in r ? r.problem.message : ''}`);
      restated[k] = (r as { value: number }).value;
    }
    const a = evaluateWithUnits(o, o.example);
    const b = evaluateWithUnits(o, restated);
    assert.ok(relativeDiffPct(a, b) < 1e-6, `${o.id}: ${a} vs ${b} after SI restatement`);
  }
});

test('a wrong-dimension result is caught: an output unit of another dimension fails the consistency check', () => {
  const o = { ...getOperator('KINETIC_ENERGY')!, output: { unit: 'm' } };
  assert.throws(() => evaluateWithUnits(o, { m: 2, v: 3 }), (e: any) => e.code === 'DIMENSIONAL_GATE');
});
