// The catalog's operations through the node (HTTP and MCP): listing, search, domains, match,
// and the sealed compute / unified / lattice, whose receipts verify.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { ESCAPES } from './escapes.ts';

let t: TestNode;
let key: string;
before(async () => {
  t = await testNode();
  key = (await t.machine('operators')).apiKey;
});
after(async () => { await t.close(); });

async function verify(r: any): Promise<boolean> {
  const v = await t.call('POST', '/api/svc/verify', {
    proof: r.svcProof, operatorIds: r.svcState.operators, R_t: r.svcState.masterSum, zeqond: r.svcState.svcond,
    keyPrefix: r.keyPrefix, value: r.value, unit: r.unit,
  }, key);
  assert.equal(v.status, 200, v.text);
  return v.body.valid;
}

test('GET /api/operators lists 67 domains; with a domain, its operators with equation and input keys', async () => {
  const all = await t.call('GET', '/api/operators');
  assert.equal(all.status, 200);
  assert.equal(all.body.domainCount, 67);
  assert.ok(all.body.operatorCount >= 1600);
  const ac = await t.call('GET', '/api/operators?domain=Acoustics');
  assert.equal(ac.status, 200);
  assert.ok(ac.body.count >= 24);
  const op = ac.body.operators[0];
  for (const k of ['id', 'domain', 'prefix', 'tier', 'equation', 'inputKeys', 'inputs', 'output']) assert.ok(k in op, k);
  assert.equal((await t.call('GET', '/api/operators?domain=AC')).body.count, ac.body.count, 'by code');
  assert.equal((await t.call('GET', '/api/operators?domain=nowhere')).status, 404);
  const one = await t.call('GET', '/api/operators/QM5');
  assert.equal(one.body.operator.domain, 'Quantum Mechanics');
});

test('svc_find_operator: full text, limit default 12 and max 40', async () => {
  const r = await t.call('GET', '/api/operators/search?term=ideal%20gas%20law');
  assert.equal(r.status, 200);
  assert.ok(r.body.operators.some((o: any) => o.id === 'IDEAL_GAS_PRESSURE'));
  assert.equal((await t.call('GET', '/api/operators/search?term=energy')).body.count, 12);
  assert.equal((await t.call('GET', '/api/operators/search?term=energy&limit=40')).body.count, 40);
  assert.equal((await t.call('GET', '/api/operators/search?term=energy&limit=41')).status, 400);
  assert.equal((await t.call('GET', '/api/operators/search')).status, 400);
  const tool = await t.tool('svc_find_operator', { term: 'black scholes', limit: 2 });
  assert.equal(tool.isError, false);
  assert.equal(tool.body.operators[0].id, 'BLACK_SCHOLES');
});

test('svc_science_domains: the 67 domains with their literature sources', async () => {
  const r = await t.call('GET', '/api/domains');
  assert.equal(r.status, 200);
  assert.equal(r.body.count, 67);
  for (const d of r.body.domains) assert.ok(d.sources.length >= 1 && d.operatorCount >= 24, d.name);
  const tool = await t.tool('svc_science_domains', {});
  assert.equal(tool.body.count, 67);
});

test('svc_domain_match: text or id, limit 1..12 default 5, terms that fired', async () => {
  const r = await t.call('POST', '/api/domains/match', { text: 'Fisher-KPP tumour invasion front with logistic growth' });
  assert.equal(r.status, 200);
  assert.equal(r.body.domains[0].name, 'Growth-Front Dynamics');
  assert.ok(r.body.domains[0].terms.includes('fisher-kpp'));
  assert.ok(r.body.domains.length <= 5);
  const byId = await t.call('POST', '/api/domains/match', { id: 'BLACK_SCHOLES', limit: 1 });
  assert.equal(byId.body.domains[0].name, 'Quantitative Finance');
  const broad = 'energy heat wave quantum stress fluid population option circuit reaction diffusion temperature pressure frequency';
  assert.equal((await t.call('POST', '/api/domains/match', { text: broad })).body.domains.length, 5, 'default limit 5');
  assert.equal((await t.call('POST', '/api/domains/match', { text: broad, limit: 12 })).body.domains.length, 12);
  assert.equal((await t.call('POST', '/api/domains/match', { text: 'x', limit: 0 })).status, 400);
  assert.equal((await t.call('POST', '/api/domains/match', { text: 'x', limit: 13 })).status, 400);
  assert.equal((await t.call('POST', '/api/domains/match', { limit: 3 })).status, 400);
});

test('svc_compute: the 7-step protocol, KO42 added, the default operator, a v2 receipt that verifies', async () => {
  const r = await t.call('POST', '/api/svc/compute', { domain: 'Classical Mechanics', inputs: { m: 2, v: 3 }, folder: 'ops' }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.value, 9);
  assert.equal(r.body.unit, 'J');
  assert.deepEqual(r.body.svcState.operators, ['KO42', 'KINETIC_ENERGY']);
  assert.deepEqual(r.body.result.protocol.map((s: any) => s.step), ['SELECT', 'BIND', 'VALIDATE', 'COMPUTE', 'VERIFY', 'PULSE', 'RETURN']);
  assert.ok(r.body.result.protocol.every((s: any) => s.ok));
  assert.equal(r.body.receipt.version, 2);
  assert.equal(r.body.receipt.folder, 'ops');
  assert.equal(r.body.tokens.cost, 1);
  const pulse = r.body.result.protocol.find((s: any) => s.step === 'PULSE').detail;
  assert.equal(pulse.R_t, r.body.svcState.masterSum, 'the sealed R_t is the PULSE step R_t');
  assert.equal(await verify(r.body), true);
  assert.equal(await verify({ ...r.body, value: 9.000001 }), false);
});

test('svc_compute: explicit operators (KO42 plus up to 3), quantity strings, and the MCP tool', async () => {
  const r = await t.call('POST', '/api/svc/compute', { domain: 'CM', operators: ['KO42', 'MOMENTUM', 'KINETIC_ENERGY'], inputs: { m: '2000 g', v: '10.8 km/h' } }, key);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.svcState.operators, ['KO42', 'MOMENTUM', 'KINETIC_ENERGY']);
  assert.ok(Math.abs(r.body.value - 6) < 1e-12, 'the primary is the first operator after KO42');
  assert.equal(r.body.unit, 'kg m/s');
  const four = await t.call('POST', '/api/svc/compute', { domain: 'CM', operators: ['MOMENTUM', 'KINETIC_ENERGY', 'MECHANICAL_POWER', 'IMPULSE'], inputs: {} }, key);
  assert.equal(four.status, 400);
  const tool = await t.tool('svc_compute', { domain: 'Quantum Mechanics', inputs: { w: 1e14, n: 0 } }, key);
  assert.equal(tool.isError, false, JSON.stringify(tool.body));
  assert.equal(tool.body.unit, 'eV');
  assert.equal(await verify(tool.body), true);
});

test('svc_compute refuses unknown keys and wrong dimensions at the dimensional gate (422, value null)', async () => {
  const unknown = await t.call('POST', '/api/svc/compute', { domain: 'Classical Mechanics', inputs: { m: 2, v: 3, q: 1 } }, key);
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.code, 'DIMENSIONAL_GATE');
  assert.equal(unknown.body.value, null);
  assert.deepEqual(unknown.body.keys, ['q']);
  assert.equal(unknown.body.protocol.at(-1).step, 'BIND');
  const wrong = await t.call('POST', '/api/svc/compute', { domain: 'Classical Mechanics', inputs: { m: '2 m', v: 3 } }, key);
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.code, 'DIMENSIONAL_GATE');
  assert.deepEqual(wrong.body.keys, ['m']);
  assert.equal(wrong.body.protocol.at(-1).step, 'VALIDATE');
  const inf = await t.call('POST', '/api/svc/compute', '{"domain":"Classical Mechanics","inputs":{"m":2,"v":1e999}}', key);
  assert.equal(inf.status, 422);
  assert.deepEqual(inf.body.keys, ['v']);
  const missing = await t.call('POST', '/api/svc/compute', { domain: 'Classical Mechanics', inputs: { m: 2 } }, key);
  assert.equal(missing.status, 422);
  assert.equal((await t.call('POST', '/api/svc/compute', { domain: 'Classical Mechanics', inputs: { m: 2, v: 3 } })).status, 401);
  assert.equal((await t.call('POST', '/api/svc/compute', { domain: 'Nowhere', inputs: {} }, key)).status, 400);
});

test('svc_unified: strategies A, B, C sealed with their composed value and unit', async () => {
  const a = await t.call('POST', '/api/svc/unified', { operators: ['OHMS_LAW', { id: 'I2', equation: 'I', unit: 'A' }], inputs: { I: 2, R: 10 } }, key);
  assert.equal(a.status, 200, a.text);
  assert.equal(a.body.result.strategy, 'A');
  assert.equal(a.body.value, 40);
  assert.equal(a.body.unit, 'W');
  assert.deepEqual(a.body.svcState.operators, ['KO42', 'OHMS_LAW', 'I2']);
  assert.equal(await verify(a.body), true);
  const b = await t.call('POST', '/api/svc/unified', { operators: [{ id: 'decay', equation: '-k*y', kind: 'ode' }], inputs: { k: 1, y0: 1 }, consts: { tMax: 1, steps: 100 } }, key);
  assert.equal(b.status, 200, b.text);
  assert.equal(b.body.method, 'sequential-rk4');
  assert.ok(Math.abs(b.body.value - Math.exp(-1)) < 1e-9);
  const c = await t.call('POST', '/api/svc/unified', { operators: ['WM1'], inputs: { n: 2, c: 343, L: 0.5 } }, key);
  assert.equal(c.body.result.strategy, 'C');
  assert.equal(c.body.value, 686);
  assert.equal(c.body.unit, 'Hz');
  const tool = await t.tool('svc_unified', { operators: ['KINETIC_ENERGY'], inputs: { m: 1, v: 2 } }, key);
  assert.equal(tool.body.value, 2);
});

test(`svc_unified refuses every sandbox escape and DoS attempt (${ESCAPES.length}) with 400, never 500, each within 100 ms of CPU`, async () => {
  assert.ok(ESCAPES.length >= 30);
  // the expression library loads on the first call that needs it (issue 28): not the refusals' cost
  assert.equal((await t.call('POST', '/api/svc/unified', { operators: [{ id: 'warm', equation: 'x + 1', unit: '1' }], inputs: { x: 1 } }, key)).status, 200);
  for (const [label, expr] of ESCAPES) {
    // this thread's CPU: the sandbox evaluates on the event loop (inject runs the request here);
    // the store's thread and the solver workers' own collections are not the sandbox's work
    // A DoS costs its CPU on every call; a major collection or a JIT tier-up of this thread that
    // happens to fall inside one call does not (CI saw 'division by zero' at 183 ms once, 1-3 ms
    // otherwise). So each attempt is measured up to three times and its cheapest call must fit.
    const times: number[] = [];
    for (let k = 0; k < 3; k++) {
      const cpu0 = process.threadCpuUsage();
      const r = await t.call('POST', '/api/svc/unified', { operators: [{ id: 'evil', equation: expr }] }, key);
      const cpu = process.threadCpuUsage(cpu0);
      times.push((cpu.user + cpu.system) / 1000);
      assert.equal(r.status, 400, `${label}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.body.code, 'INVALID_INPUT', label);
      if (times[k] < 100) break;
    }
    assert.ok(Math.min(...times) < 100, `${label} took ${times.join(', ')} ms of CPU`);
  }
  // nothing was sealed or charged by the refusals
  const ok = await t.call('POST', '/api/svc/unified', { operators: ['KO42'] }, key);
  assert.equal(ok.status, 200);
});

test('svc_lattice: staggered nodes at one instant, coherenceScore in [0, 1], one token per node, receipt verifies', async () => {
  const r = await t.call('POST', '/api/svc/lattice', { nodes: [{ domain: 'Classical Mechanics', inputs: { m: 2, v: 3 } }, { domain: 'Quantum Mechanics' }, {}] }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.tokens.cost, 3);
  const nodes = r.body.result.nodes;
  assert.equal(nodes.length, 3);
  assert.equal(nodes[0].value, 9);
  for (const n of nodes) assert.ok(Math.abs(n.phaseOffset - (2 * Math.PI * n.index) / 3) < 1e-12);
  assert.ok(r.body.result.coherenceScore >= 0 && r.body.result.coherenceScore <= 1);
  assert.equal(r.body.value, r.body.result.coherenceScore);
  assert.match(r.body.result.latticeEquation, /R_lattice/);
  assert.equal(await verify(r.body), true);
  assert.equal((await t.call('POST', '/api/svc/lattice', { nodes: [{}] }, key)).status, 400);
  assert.equal((await t.call('POST', '/api/svc/lattice', { nodes: Array(6).fill({}) }, key)).status, 400);
  const tool = await t.tool('svc_lattice', { nodes: [{}, {}] }, key);
  assert.equal(tool.body.tokens.cost, 2);
});
