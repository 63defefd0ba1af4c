// State contracts through the node (HTTP and MCP faces): deploy, list, get, fire, receipts and
// chain, blocked guards, concurrency, ownership, refusals, generation, the foundation machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { MAX_DEFINITION_BYTES } from '../../src/contracts/definition.ts';
import Ajv2020Module from 'ajv/dist/2020.js';

// ajv (a dependency of the MCP SDK) as an independent JSON Schema implementation
const Ajv2020: any = (Ajv2020Module as any).default ?? Ajv2020Module;

const clock = fixedClock(1_790_000_000);
let node: TestNode;
let a: { zid: string; apiKey: string; keyPrefix: string };
let b: { zid: string; apiKey: string; keyPrefix: string };

before(async () => {
  node = await testNode({ clock });
  a = await node.machine('contracts a');
  b = await node.machine('contracts b');
});
after(async () => { await node?.close(); });

const counterDef = (limit = 25) => ({
  version: '1.0.0',
  name: 'Counter',
  initial: 'counting',
  states: [{ name: 'counting' }, { name: 'done', terminal: true }],
  transitions: [
    { from: 'counting', to: 'done', name: 'finish', guard: `n >= ${limit}` },
    { from: 'counting', to: 'counting', name: 'tick', set: { n: 'n + 1' } },
  ],
  variables: { n: 0 },
});

const gatedDef = () => ({
  version: 2,
  name: 'Release gate',
  initial: 'built',
  states: [{ name: 'built' }, { name: 'released', terminal: true }, { name: 'scrapped', terminal: true }],
  transitions: [
    { from: 'built', to: 'released', name: 'release', guard: 'testsPassed and coverage >= 80' },
    { from: 'built', to: 'scrapped', name: 'scrap', guard: 'fireCount > 100' },
  ],
  variables: { testsPassed: false, coverage: 72 },
});

async function deploy(body: unknown, key = a.apiKey) {
  const r = await node.call('POST', '/api/contracts', body, key);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

async function verifyReceipt(body: any, key: string) {
  const v = await node.call('POST', '/api/svc/verify', {
    proof: body.svcProof, operatorIds: body.svcState.operators, R_t: body.svcState.masterSum, zeqond: body.svcState.svcond, keyPrefix: body.keyPrefix,
  }, key);
  assert.equal(v.status, 200, v.text);
  assert.equal(v.body.valid, true, `receipt ${body.receipt?.id} verifies`);
}

test('templates: the list has 321 ids and names; one template returns its definition', async () => {
  const r = await node.call('GET', '/api/contracts/templates', undefined, a.apiKey);
  assert.equal(r.status, 200);
  assert.equal(r.body.templates.length, 321);
  assert.ok(r.body.templates.every((t: any) => typeof t.id === 'string' && typeof t.name === 'string'));
  const one = await node.call('GET', '/api/contracts/templates/escrow-goods', undefined, a.apiKey);
  assert.equal(one.status, 200);
  assert.equal(one.body.definition.initial, 'open');
  assert.equal((await node.call('GET', '/api/contracts/templates/nope', undefined, a.apiKey)).status, 404);
  const viaTool = await node.tool('svc_contract_templates', {}, a.apiKey);
  assert.equal(viaTool.isError, false);
  assert.equal(viaTool.body.count, 321);
  assert.equal((await node.call('GET', '/api/contracts/templates')).status, 401, 'needs a key');
});

test('the definition schema is published as a draft 2020-12 JSON Schema that served definitions satisfy', async () => {
  const r = await node.call('GET', '/api/contracts/schema');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/schema\+json/);
  assert.equal(r.body.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.deepEqual([...r.body.required].sort(), ['initial', 'name', 'states', 'transitions', 'version']);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  assert.equal(ajv.validateSchema(r.body), true, JSON.stringify(ajv.errors));
  const validate = ajv.compile(r.body);
  // definitions the node serves satisfy it: a template, the foundation machine, a generated draft
  const tpl = await node.call('GET', '/api/contracts/templates/escrow-goods', undefined, a.apiKey);
  assert.ok(validate(tpl.body.definition), JSON.stringify(validate.errors));
  const foundation = await node.call('GET', '/api/chain/state-machines/foundation');
  assert.ok(validate(foundation.body.definition), JSON.stringify(validate.errors));
  const g = await node.call('POST', '/api/contracts/generate', { query: 'Draft the memo, review it, then publish it.' }, a.apiKey);
  assert.ok(validate(g.body.definition), JSON.stringify(validate.errors));
  // and a definition without version does not
  const noVersion = { ...tpl.body.definition };
  delete noVersion.version;
  assert.equal(validate(noVersion), false);
});

test('deploy from a template, fire along the happy path: v1 receipts that verify, chain anchored, observer shows it', async () => {
  const d = await deploy({ templateId: 'invoice-dunning' });
  assert.match(d.id, /^ct_/);
  assert.equal(d.state, 'issued');
  assert.equal(d.fireCount, 0);
  assert.ok(d.chain.seq > 0);
  const fires: any[] = [];
  for (let i = 0; i < 10; i++) {
    clock.advance(1);
    const r = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, a.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.fired, true);
    fires.push(r.body);
    if (r.body.contract.terminal) break;
  }
  assert.deepEqual(fires.map((f) => f.transition.name), ['receive_payment', 'reconcile']);
  const last = fires[fires.length - 1];
  assert.equal(last.contract.state, 'reconciled');
  assert.equal(last.contract.fireCount, 2);
  for (const f of fires) {
    assert.equal(f.receipt.version, 1);
    assert.deepEqual(f.svcState.operators, ['KO42']);
    assert.equal(f.tokens.cost, 1);
    await verifyReceipt(f, a.apiKey);
  }
  assert.equal(fires[1].receipt.chain.seq, fires[0].receipt.chain.seq + 1);
  const chain = await node.call('GET', '/api/chain/verify', undefined, a.apiKey);
  assert.equal(chain.body.valid, true);
  const obs = await node.call('GET', '/api/observer?limit=50', undefined, a.apiKey);
  const refs = obs.body.entries.filter((e: any) => e.kind === 'contract.fire').map((e: any) => e.ref);
  for (const f of fires) assert.ok(refs.includes(f.receipt.id), 'every transition shows in the observer');
  assert.ok(obs.body.entries.some((e: any) => e.kind === 'contract.deploy' && e.ref === d.id));
  const pub = await node.call('GET', '/api/observer?limit=50');
  assert.ok(pub.body.entries.some((e: any) => e.kind === 'contract.fire'));

  const got = await node.call('GET', `/api/contracts/${d.id}`, undefined, a.apiKey);
  assert.equal(got.status, 200);
  assert.equal(got.body.state, 'reconciled');
  assert.equal(got.body.terminal, true);
  assert.equal(got.body.definition.name, 'Invoice collection with reminders');
  assert.deepEqual(got.body.history.map((h: any) => h.receiptId).reverse(), fires.map((f) => f.receipt.id));
  // a terminal contract fires nothing
  const again = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, a.apiKey);
  assert.equal(again.status, 200);
  assert.equal(again.body.fired, false);
  assert.match(again.body.reason, /terminal/);
});

test('a blocked guard fires nothing, reports why, and charges nothing', async () => {
  const d = await deploy({ definition: gatedDef() });
  const before = await node.call('GET', '/api/chain/verify', undefined, a.apiKey);
  const r = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, a.apiKey);
  assert.equal(r.status, 200);
  assert.equal(r.body.ok, true);
  assert.equal(r.body.fired, false);
  assert.match(r.body.reason, /blocked/);
  assert.equal(r.body.guard, 'testsPassed and coverage >= 80');
  assert.deepEqual(r.body.values, { testsPassed: false, coverage: 72 });
  assert.equal(r.body.svcProof, undefined, 'nothing sealed');
  const afterChain = await node.call('GET', '/api/chain/verify', undefined, a.apiKey);
  assert.equal(afterChain.body.length, before.body.length, 'nothing appended');
  const got = await node.call('GET', `/api/contracts/${d.id}`, undefined, a.apiKey);
  assert.equal(got.body.state, 'built');
  assert.equal(got.body.fireCount, 0);
  assert.deepEqual(got.body.variables, { testsPassed: false, coverage: 72 }, 'proposed variables of a blocked fire are not kept');
  // half the condition still blocks
  const half = await node.call('POST', `/api/contracts/${d.id}/fire`, { variables: { testsPassed: true } }, a.apiKey);
  assert.equal(half.body.fired, false);
  assert.deepEqual(half.body.values, { testsPassed: true, coverage: 72 });
  // over MCP the blocked fire is a result, not an error
  const t = await node.tool('svc_contract_fire', { id: d.id }, a.apiKey);
  assert.equal(t.isError, false);
  assert.equal(t.body.fired, false);
  const ok = await node.call('POST', `/api/contracts/${d.id}/fire`, { variables: { testsPassed: true, coverage: 91 } }, a.apiKey);
  assert.equal(ok.body.fired, true);
  assert.equal(ok.body.contract.state, 'released');
  assert.deepEqual(ok.body.guard.values, { testsPassed: true, coverage: 91 });
  assert.deepEqual(ok.body.contract.variables, { testsPassed: true, coverage: 91 });
});

test('fire input errors are 400s: wrong variable types, unknown variables, a transition that does not leave the state', async () => {
  const d = await deploy({ definition: gatedDef() });
  for (const body of [{ variables: { coverage: 'high' } }, { variables: { nope: 1 } }, { transition: 'finish' }, { extra: 1 }]) {
    const r = await node.call('POST', `/api/contracts/${d.id}/fire`, body, a.apiKey);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, 'INVALID_INPUT');
  }
  const named = await node.call('POST', `/api/contracts/${d.id}/fire`, { transition: 'scrap' }, a.apiKey);
  assert.equal(named.body.fired, false);
  assert.equal(named.body.guard, 'fireCount > 100');
});

test('20 concurrent fires advance a contract exactly as 20 sequential fires', async () => {
  const c1 = await deploy({ definition: counterDef() });
  const c2 = await deploy({ definition: counterDef() });
  const results = await Promise.all(Array.from({ length: 20 }, () => node.call('POST', `/api/contracts/${c1.id}/fire`, {}, a.apiKey)));
  for (const r of results) { assert.equal(r.status, 200, r.text); assert.equal(r.body.fired, true); }
  assert.deepEqual(results.map((r) => r.body.contract.fireCount).sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal(new Set(results.map((r) => r.body.contract.variables.n)).size, 20, 'every fire saw its own predecessor');
  for (let i = 0; i < 20; i++) {
    const r = await node.call('POST', `/api/contracts/${c2.id}/fire`, {}, a.apiKey);
    assert.equal(r.body.fired, true);
  }
  const g1 = (await node.call('GET', `/api/contracts/${c1.id}`, undefined, a.apiKey)).body;
  const g2 = (await node.call('GET', `/api/contracts/${c2.id}`, undefined, a.apiKey)).body;
  assert.equal(g1.fireCount, 20);
  assert.equal(g1.state, g2.state);
  assert.equal(g1.fireCount, g2.fireCount);
  assert.deepEqual(g1.variables, g2.variables);
  assert.deepEqual(g1.variables, { n: 20 });
  assert.deepEqual(g1.history.map((h: any) => h.seq).sort((x: number, y: number) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
  const chain = await node.call('GET', '/api/chain/verify', undefined, a.apiKey);
  assert.equal(chain.body.valid, true);
  // 20 concurrent fires on a contract 10 steps from its end: exactly 10+1 fire, the rest report terminal
  const c3 = await deploy({ definition: counterDef(10) });
  const rs = await Promise.all(Array.from({ length: 20 }, () => node.call('POST', `/api/contracts/${c3.id}/fire`, {}, a.apiKey)));
  assert.equal(rs.filter((r) => r.body.fired).length, 11);
  assert.ok(rs.filter((r) => !r.body.fired).every((r) => /terminal/.test(r.body.reason)));
  const g3 = (await node.call('GET', `/api/contracts/${c3.id}`, undefined, a.apiKey)).body;
  assert.equal(g3.state, 'done');
  assert.equal(g3.fireCount, 11);
});

test('20 concurrent fires on a contract that changes state every fire end where 20 sequential fires end', async () => {
  // a three-phase rotation with a step counter: after k fires the state is phase (k mod 3), so a
  // lost or doubled update shows in the state as well as in the counters
  const rotation = {
    version: '1', name: 'Rotation', initial: 'p0',
    states: [{ name: 'p0' }, { name: 'p1' }, { name: 'p2' }, { name: 'done', terminal: true }],
    transitions: [
      { from: 'p0', to: 'done', name: 'stop0', guard: 'steps >= 40' },
      { from: 'p0', to: 'p1', name: 'a', set: { steps: 'steps + 1', trail: 'trail * 3 + 0' } },
      { from: 'p1', to: 'p2', name: 'b', set: { steps: 'steps + 1', trail: 'mod(trail * 3 + 1, 1000003)' } },
      { from: 'p2', to: 'p0', name: 'c', set: { steps: 'steps + 1', trail: 'mod(trail * 3 + 2, 1000003)' } },
    ],
    variables: { steps: 0, trail: 1 },
  };
  const conc = await deploy({ definition: rotation });
  const seq = await deploy({ definition: rotation });
  const rs = await Promise.all(Array.from({ length: 20 }, () => node.call('POST', `/api/contracts/${conc.id}/fire`, {}, a.apiKey)));
  for (const r of rs) { assert.equal(r.status, 200, r.text); assert.equal(r.body.fired, true); }
  for (let i = 0; i < 20; i++) assert.equal((await node.call('POST', `/api/contracts/${seq.id}/fire`, {}, a.apiKey)).body.fired, true);
  const gc = (await node.call('GET', `/api/contracts/${conc.id}`, undefined, a.apiKey)).body;
  const gs = (await node.call('GET', `/api/contracts/${seq.id}`, undefined, a.apiKey)).body;
  assert.equal(gs.state, 'p2', '20 mod 3 = 2');
  assert.equal(gs.fireCount, 20);
  assert.deepEqual({ state: gc.state, fireCount: gc.fireCount, variables: gc.variables }, { state: gs.state, fireCount: gs.fireCount, variables: gs.variables });
  // the history is the same sequence of transitions, one per fire count
  const hist = (g: any) => g.history.map((h: any) => `${h.seq}:${h.from}>${h.to}`).sort();
  assert.deepEqual(hist(gc), hist(gs));
  // every concurrent fire got its own step and its own receipt, anchored on the chain in order of step
  const bySeq = rs.map((r) => r.body).sort((x, y) => x.contract.fireCount - y.contract.fireCount);
  assert.deepEqual(bySeq.map((b) => b.contract.fireCount), Array.from({ length: 20 }, (_, i) => i + 1));
  for (let i = 1; i < 20; i++) assert.ok(bySeq[i].receipt.chain.seq > bySeq[i - 1].receipt.chain.seq);
  assert.equal(new Set(rs.map((r) => r.body.receipt.id)).size, 20);
  assert.equal((await node.call('GET', '/api/chain/verify', undefined, a.apiKey)).body.valid, true);
});

test('transition operators are evaluated from the catalog, feed the guard and join the seal', async () => {
  const def = {
    version: '1', name: 'Bench supply check', initial: 'powered',
    states: [{ name: 'powered' }, { name: 'in_spec', terminal: true }, { name: 'out_of_spec', terminal: true }],
    transitions: [
      { from: 'powered', to: 'in_spec', name: 'measure', operators: ['ohms_law'], guard: 'abs(ohms_law - 12) < 0.5' },
      { from: 'powered', to: 'out_of_spec', name: 'reject', operators: ['OHMS_LAW', 'KO42'], guard: 'OHMS_LAW >= 12.5 and KO42 > 0.99' },
    ],
    variables: { I: 0.1, R: 130 },
  };
  const d = await deploy({ definition: def });
  const r = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, a.apiKey);
  assert.equal(r.body.fired, true, r.text);
  assert.equal(r.body.transition.name, 'reject', 'V = 13 V is out of spec');
  assert.deepEqual(r.body.svcState.operators, ['KO42', 'OHMS_LAW']);
  assert.ok(Math.abs(r.body.operatorOutputs.OHMS_LAW - 13) < 1e-9);
  assert.equal(r.body.operatorOutputs.KO42, r.body.svcState.masterSum, 'KO42 contributes R(t)');
  await verifyReceipt(r.body, a.apiKey);
  const d2 = await deploy({ definition: def, variables: { R: 120 } });
  const r2 = await node.call('POST', `/api/contracts/${d2.id}/fire`, {}, a.apiKey);
  assert.equal(r2.body.transition.name, 'measure');
  assert.deepEqual(r2.body.guard.values, { ohms_law: 12 });
  assert.deepEqual(r2.body.svcState.operators, ['KO42', 'OHMS_LAW']);
  // an unknown operator, or one whose inputs are not numeric variables, is refused at deploy
  const unknown = await node.call('POST', '/api/contracts', { definition: { ...def, transitions: [{ ...def.transitions[0], operators: ['NO_SUCH_OP'], guard: undefined }, def.transitions[1]] } }, a.apiKey);
  assert.equal(unknown.status, 400);
  assert.ok(unknown.body.issues.some((i: any) => i.path === 'definition.transitions.0.operators.0'));
  const noInput = await node.call('POST', '/api/contracts', { definition: { ...def, variables: { I: 0.1 } } }, a.apiKey);
  assert.equal(noInput.status, 400);
  assert.match(noInput.body.error, /'R'/);
});

test('a fire without tokens is 429 QUOTA_EXCEEDED and changes nothing', async () => {
  const m = await node.machine('broke');
  const d = await deploy({ templateId: 'podcast-episode' }, m.apiKey);
  await node.app.db.query('UPDATE machines SET tokens_left = 0 WHERE zid = $1', [m.zid]);
  const chainBefore = (await node.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length;
  const r = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, m.apiKey);
  assert.equal(r.status, 429);
  assert.equal(r.body.code, 'QUOTA_EXCEEDED');
  const got = await node.call('GET', `/api/contracts/${d.id}`, undefined, m.apiKey);
  assert.equal(got.body.state, 'idea');
  assert.equal(got.body.fireCount, 0);
  assert.equal(got.body.history.length, 0);
  const chain = await node.call('GET', '/api/chain/verify', undefined, m.apiKey);
  assert.equal(chain.body.length, chainBefore);
  assert.equal(chain.body.valid, true);
});

test('a machine cannot read, list, fire or learn the existence of another machine\'s contract', async () => {
  const d = await deploy({ templateId: 'code-review' });
  const missing = 'ct_01AAAAAAAAAAAAAAAAAAAAAAAA';
  for (const [method, suffix] of [['GET', ''], ['POST', '/fire']] as const) {
    const other = await node.call(method, `/api/contracts/${d.id}${suffix}`, method === 'POST' ? {} : undefined, b.apiKey);
    const none = await node.call(method, `/api/contracts/${missing}${suffix}`, method === 'POST' ? {} : undefined, b.apiKey);
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'NOT_FOUND');
    assert.deepEqual(other.body, none.body, 'indistinguishable from a nonexistent contract');
  }
  const t = await node.tool('svc_contract_get', { id: d.id }, b.apiKey);
  assert.equal(t.isError, true);
  assert.equal(t.body.code, 'NOT_FOUND');
  const tf = await node.tool('svc_contract_fire', { id: d.id }, b.apiKey);
  assert.equal(tf.isError, true);
  assert.equal(tf.body.code, 'NOT_FOUND');
  const tNone = await node.tool('svc_contract_get', { id: missing }, b.apiKey);
  assert.deepEqual(t.body, tNone.body, 'indistinguishable over MCP too');
  // fire arguments that would be a 400 on one's own contract (a transition that does not leave
  // the state, an undeclared variable) still answer 404: nothing about the contract leaks
  for (const body of [{ transition: 'no_such_transition' }, { variables: { undeclared: 1 } }, { transition: 'approve' }]) {
    const other = await node.call('POST', `/api/contracts/${d.id}/fire`, body, b.apiKey);
    const none = await node.call('POST', `/api/contracts/${missing}/fire`, body, b.apiKey);
    assert.equal(other.status, 404, JSON.stringify(body));
    assert.deepEqual(other.body, none.body);
  }
  const list = await node.call('GET', '/api/contracts', undefined, b.apiKey);
  assert.ok(!list.body.contracts.some((c: any) => c.id === d.id));
  assert.equal(list.body.total, list.body.contracts.length, 'B counts only its own contracts');
  const listTool = await node.tool('svc_contract_list', {}, b.apiKey);
  assert.ok(!listTool.body.contracts.some((c: any) => c.id === d.id));
  // a cursor just above A's id does not reveal it either
  const cursor = await node.call('GET', `/api/contracts?before=${d.id}z`, undefined, b.apiKey);
  assert.ok(!cursor.body.contracts.some((c: any) => c.id === d.id));
  const mine = await node.call('GET', '/api/contracts?limit=500', undefined, a.apiKey);
  assert.ok(mine.body.contracts.some((c: any) => c.id === d.id));
  // A's contract is untouched by B's attempts
  const got = await node.call('GET', `/api/contracts/${d.id}`, undefined, a.apiKey);
  assert.equal(got.body.fireCount, 0);
  // no key at all
  assert.equal((await node.call('GET', `/api/contracts/${d.id}`)).status, 401);
  assert.equal((await node.call('GET', '/api/contracts')).status, 401);
});

test('list gives id, name, current state and fire count, newest first, with a cursor', async () => {
  const m = await node.machine('lister');
  const ids: string[] = [];
  for (const tpl of ['nda-execution', 'hotel-booking', 'podcast-episode']) {
    clock.advance(1);
    ids.push((await deploy({ templateId: tpl }, m.apiKey)).id);
  }
  await node.call('POST', `/api/contracts/${ids[1]}/fire`, {}, m.apiKey);
  const r = await node.tool('svc_contract_list', {}, m.apiKey);
  assert.equal(r.isError, false);
  assert.equal(r.body.total, 3);
  assert.deepEqual(r.body.contracts.map((c: any) => c.id), [...ids].reverse());
  const hotel = r.body.contracts.find((c: any) => c.id === ids[1]);
  assert.deepEqual({ name: hotel.name, state: hotel.state, fireCount: hotel.fireCount }, { name: 'Hotel reservation', state: 'guaranteed', fireCount: 1 });
  const page1 = await node.call('GET', '/api/contracts?limit=2', undefined, m.apiKey);
  assert.equal(page1.body.contracts.length, 2);
  const page2 = await node.call('GET', `/api/contracts?limit=2&before=${page1.body.next}`, undefined, m.apiKey);
  assert.deepEqual(page2.body.contracts.map((c: any) => c.id), [ids[0]]);
});

test('deploy overrides: initial variables and a name', async () => {
  const d = await deploy({ templateId: 'escrow-goods', variables: { deliveryConfirmed: false }, name: 'Bike sale' });
  assert.equal(d.name, 'Bike sale');
  assert.equal(d.variables.deliveryConfirmed, false);
  const bad = await node.call('POST', '/api/contracts', { templateId: 'escrow-goods', variables: { deliveryConfirmed: 'yes' } }, a.apiKey);
  assert.equal(bad.status, 400);
});

test('malformed definitions are refused with 400 and the path of the problem', async () => {
  const noVersion: any = gatedDef();
  delete noVersion.version;
  const cases: [unknown, string][] = [
    [{ definition: noVersion }, 'definition.version'],
    [{ definition: { ...gatedDef(), initial: 'ghost' } }, 'definition.initial'],
    [{ definition: { ...gatedDef(), transitions: [{ from: 'built', to: 'moon', name: 'go' }] } }, 'definition.transitions.0.to'],
    [{ definition: { ...gatedDef(), states: [...gatedDef().states, { name: 'island' }] } }, 'definition.states.3'],
    [{ definition: { ...gatedDef(), transitions: [...gatedDef().transitions, { from: 'released', to: 'built', name: 'undo' }] } }, 'definition.transitions.2.from'],
    [{ definition: { ...gatedDef(), transitions: [{ ...gatedDef().transitions[0], guard: 'coverage >= (1' }, gatedDef().transitions[1]] } }, 'definition.transitions.0.guard'],
    [{ templateId: 'escrow-goods', definition: gatedDef() }, 'definition'],
    [{}, 'templateId'],
  ];
  for (const [body, path] of cases) {
    const r = await node.call('POST', '/api/contracts', body, a.apiKey);
    assert.equal(r.status, 400, `${path}: ${r.text}`);
    assert.equal(r.body.code, 'INVALID_INPUT');
    assert.ok(r.body.issues.some((i: any) => i.path === path), `${path} in ${JSON.stringify(r.body.issues)}`);
  }
  const unknown = await node.call('POST', '/api/contracts', { templateId: 'no-such-template' }, a.apiKey);
  assert.equal(unknown.status, 404);
  const viaTool = await node.tool('svc_contract_deploy', { definition: noVersion }, a.apiKey);
  assert.equal(viaTool.isError, true);
  assert.equal(viaTool.body.code, 'INVALID_INPUT');
  const notObject = await node.call('POST', '/api/contracts', { definition: 'states: a, b' }, a.apiKey);
  assert.equal(notObject.status, 400);
});

test('hostile guard expressions are refused at deploy with a 4xx, never a 500', async () => {
  const hostile = [
    'constructor.constructor("return process")()',
    'import("fs")',
    'f(x) = f(x); f(1)',
    'coverage = 100',
    'evaluate("1")',
    '[1,2][1] > 0',
    'coverage.__proto__',
    'process.exit(1)',
    '"x".constructor',
    'createUnit("sneaky")',
    '1'.repeat(2000),
    'a'.repeat(900) + ' > 1',
  ];
  for (const guard of hostile) {
    const def = { ...gatedDef(), transitions: [{ from: 'built', to: 'released', name: 'go', guard }] };
    const r = await node.call('POST', '/api/contracts', { definition: def }, a.apiKey);
    assert.ok(r.status >= 400 && r.status < 500, `${guard.slice(0, 30)} → ${r.status}`);
    const t = await node.tool('svc_contract_deploy', { definition: def }, a.apiKey);
    assert.equal(t.isError, true);
    assert.notEqual(t.body.code, undefined);
  }
  // hostile set expressions too
  const def = { ...counterDef(), transitions: [{ from: 'counting', to: 'done', name: 'go', set: { n: 'constructor.constructor("x")()' } }] };
  const r = await node.call('POST', '/api/contracts', { definition: def }, a.apiKey);
  assert.equal(r.status, 400);
  // prototype member names as variables or assignment targets (an own "__proto__" key reaches
  // the MCP face, which does not strip it)
  for (const variables of [{ n: 0, constructor: 1 }, { n: 0, toString: 'x' }, JSON.parse('{"n": 0, "__proto__": 1}')]) {
    const h = await node.tool('svc_contract_deploy', { definition: { ...counterDef(), variables } }, a.apiKey);
    assert.equal(h.isError, true);
    assert.equal(h.body.code, 'INVALID_INPUT');
  }
  const inherited = { ...counterDef(), transitions: [{ from: 'counting', to: 'done', name: 'go', set: { toString: '1' } }] };
  const ri = await node.call('POST', '/api/contracts', { definition: inherited }, a.apiKey);
  assert.equal(ri.status, 400);
  assert.ok(ri.body.issues.some((i: any) => i.path === 'definition.transitions.0.set.toString'));
  // guards that are well-formed but fail or overflow at run time block with a reason, never a 500
  for (const guard of ['factorial(n * 1e9) > 0 and n > 1e9', 'nthRoot(n - 8, 0) > 0', 'max() > 0', 'n / 0 < 0']) {
    const d = await deploy({ definition: { ...counterDef(), transitions: [{ from: 'counting', to: 'done', name: 'go', guard }, { from: 'counting', to: 'counting', name: 'tick', guard: 'false' }] } });
    const f = await node.call('POST', `/api/contracts/${d.id}/fire`, {}, a.apiKey);
    assert.equal(f.status, 200, `${guard}: ${f.text}`);
    assert.equal(f.body.fired, false, guard);
    assert.equal(typeof f.body.reason, 'string');
  }
  // deeply nested JSON inside a definition (under the size limit) is a 4xx, not a stack overflow
  const nested = JSON.stringify({ definition: { ...gatedDef(), metadata: { x: 0 } } }).replace('"x":0', '"x":' + '['.repeat(20000) + ']'.repeat(20000));
  const rn = await node.call('POST', '/api/contracts', nested, a.apiKey);
  assert.ok(rn.status >= 400 && rn.status < 500, `nested: ${rn.status}`);
});

test('definitions over 256 KiB are refused with 413', async () => {
  const big = (bytes: number) => ({ ...gatedDef(), metadata: { blob: 'x'.repeat(bytes) } });
  // just over the definition limit, within the request limit: refused by the definition check
  const r1 = await node.call('POST', '/api/contracts', { definition: big(MAX_DEFINITION_BYTES) }, a.apiKey);
  assert.equal(r1.status, 413);
  assert.equal(r1.body.code, 'PAYLOAD_TOO_LARGE');
  // far over: refused by the request body limit
  const r2 = await node.call('POST', '/api/contracts', { definition: big(2 * MAX_DEFINITION_BYTES) }, a.apiKey);
  assert.equal(r2.status, 413);
  // over MCP (no HTTP body limit in the way)
  const t = await node.tool('svc_contract_deploy', { definition: big(MAX_DEFINITION_BYTES) }, a.apiKey);
  assert.equal(t.isError, true);
  assert.equal(t.body.code, 'PAYLOAD_TOO_LARGE');
  // just under the limit deploys
  const ok = await node.call('POST', '/api/contracts', { definition: big(MAX_DEFINITION_BYTES - 2000) }, a.apiKey);
  assert.equal(ok.status, 200, ok.text.slice(0, 200));
});

test('the foundation state machine: public definition; with a key, the lifecycle state and chain anchor', async () => {
  const pub = await node.call('GET', '/api/chain/state-machines/foundation');
  assert.equal(pub.status, 200);
  assert.equal(pub.body.definition.initial, 'provisioned');
  assert.equal(pub.body.machine, undefined);
  // a key that is not a key is refused, not treated as anonymous
  assert.equal((await node.call('GET', '/api/chain/state-machines/foundation', undefined, 'svc_ak_not_a_real_key')).status, 401);
  const m = await node.machine('foundation');
  const mine = await node.call('GET', '/api/chain/state-machines/foundation', undefined, m.apiKey);
  assert.equal(mine.body.machine.zid, m.zid);
  assert.equal(mine.body.machine.state, 'active');
  const chain = await node.call('GET', '/api/chain/verify', undefined, m.apiKey);
  assert.equal(mine.body.machine.chain.head, chain.body.head);
  assert.equal(mine.body.machine.chain.length, chain.body.length);
  assert.match(mine.body.machine.chain.genesis.hash, /^[0-9a-f]{64}$/);
  // the definition is deployable as a contract in the same format
  const d = await deploy({ definition: pub.body.definition }, m.apiKey);
  assert.equal(d.state, 'provisioned');
});

test('a fire files its receipt in the folder it names, and in "contracts" by default', async () => {
  const c = await deploy({ definition: counterDef(2) });
  const named = await node.call('POST', `/api/contracts/${c.id}/fire`, { folder: 'audit-2026' }, a.apiKey);
  assert.equal(named.status, 200, named.text);
  assert.equal(named.body.fired, true);
  assert.equal(named.body.receipt.folder, 'audit-2026');
  const plain = await node.call('POST', `/api/contracts/${c.id}/fire`, {}, a.apiKey);
  assert.equal(plain.body.receipt.folder, 'contracts');
  const listed = await node.call('GET', '/api/folders/audit-2026/receipts', undefined, a.apiKey);
  assert.equal(listed.status, 200, listed.text);
  assert.ok(JSON.stringify(listed.body).includes(named.body.receipt.id), 'the fire is listed in its folder');
  // the other machine sees no such folder, and a malformed folder name is a 400 that fires nothing
  const other = await node.call('GET', '/api/folders/audit-2026/receipts', undefined, b.apiKey);
  assert.ok(!JSON.stringify(other.body).includes(named.body.receipt.id));
  const bad = await node.call('POST', `/api/contracts/${c.id}/fire`, { folder: '../x' }, a.apiKey);
  assert.equal(bad.status, 400, bad.text);
  const after = await node.call('GET', `/api/contracts/${c.id}`, undefined, a.apiKey);
  assert.equal(after.body.fireCount ?? after.body.contract?.fireCount, 2);
});
