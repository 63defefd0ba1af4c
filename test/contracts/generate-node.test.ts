// Acceptance: at least 40 plain-English requests generate definitions (svc_contract_generate)
// that deploy as is and fire along their happy path to a terminal state, through the node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { GENERATE_CASES } from './generate-queries.ts';

const clock = fixedClock(1_790_000_000);
let node: TestNode;
before(async () => { node = await testNode({ clock }); });
after(async () => { await node?.close(); });

async function deploy(body: unknown, key: string) {
  const r = await node.call('POST', '/api/contracts', body, key);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

test('the generate tool drafts definitions from plain English that deploy and fire to a terminal state', async () => {
  assert.ok(GENERATE_CASES.length >= 40);
  const m = await node.machine('generator');
  for (const c of GENERATE_CASES) {
    const g = await node.call('POST', '/api/contracts/generate', { query: c.query }, m.apiKey);
    assert.equal(g.status, 200, g.text);
    assert.ok(Array.isArray(g.body.assumptions) && g.body.assumptions.length);
    const d = await deploy({ definition: g.body.definition }, m.apiKey);
    let state = d.state;
    let terminal = false;
    for (let k = 0; k < g.body.happyPath.transitions.length; k++) {
      clock.advance(g.body.happyPath.waitSeconds[k] + 0.001);
      const fv = g.body.happyPath.fireVariables[k];
      const vars = Object.keys(fv).length ? { variables: fv } : {};
      const f = await node.call('POST', `/api/contracts/${d.id}/fire`, vars, m.apiKey);
      assert.equal(f.status, 200, f.text);
      assert.equal(f.body.fired, true, `${c.query.slice(0, 50)} step ${k}: ${f.body.reason}`);
      assert.equal(f.body.transition.name, g.body.happyPath.transitions[k]);
      state = f.body.contract.state;
      terminal = f.body.contract.terminal;
    }
    assert.equal(terminal, true, `${c.query.slice(0, 50)} ends terminal (in ${state})`);
  }
  const chain = await node.call('GET', '/api/chain/verify', undefined, m.apiKey);
  assert.equal(chain.body.valid, true);
  for (const q of ['short', 'sevench', 'x'.repeat(601)]) {
    const r = await node.call('POST', '/api/contracts/generate', { query: q }, m.apiKey);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'INVALID_INPUT');
  }
  for (const q of ['eight ch', 'Draft, review, sign. '.repeat(30).slice(0, 600)]) {
    const r = await node.call('POST', '/api/contracts/generate', { query: q }, m.apiKey);
    assert.equal(r.status, 200, `${q.length} chars: ${r.text.slice(0, 200)}`);
    assert.equal((await node.call('POST', '/api/contracts', { definition: r.body.definition }, m.apiKey)).status, 200);
  }
  // deterministic through the node: the same request twice gives the same answer
  const q1 = await node.call('POST', '/api/contracts/generate', { query: GENERATE_CASES[7].query }, m.apiKey);
  const q2 = await node.call('POST', '/api/contracts/generate', { query: GENERATE_CASES[7].query }, m.apiKey);
  assert.deepEqual(q1.body, q2.body);
  assert.ok(q1.body.assumptions.length > 0);
  const t = await node.tool('svc_contract_generate', { query: 'Draft, review, then sign the agreement.' }, m.apiKey);
  assert.equal(t.isError, false);
  assert.ok(t.body.definition.version);
});

