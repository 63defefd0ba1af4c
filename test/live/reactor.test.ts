// svc_reactor: recursive sealed loops. A logistic map reproduces bit for bit (against plain
// JavaScript, so across runs and across stores: the suite runs on PGlite and on PostgreSQL),
// every step is a v2 seal that verifies, the Merkle root verifies from leaves, receipts and
// inclusion paths, a diverging loop stops at its last finite step, and limits hold.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let key: string;
before(async () => {
  t = await testNode();
  key = (await t.machine('reactor')).apiKey;
});
after(async () => { await t.close(); });

const logistic = (r: number, x0: number, n: number) => {
  const out: number[] = [];
  let x = x0;
  for (let i = 0; i < n; i++) { x = r * x * (1 - x); out.push(x); }
  return out;
};

test('a logistic-map reactor reproduces the same trajectory bit for bit, and its Merkle root verifies', async () => {
  const req = { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.2 }, params: { r: 3.7 }, maxDepth: 64 };
  const a = await t.call('POST', '/api/reactor', req, key);
  assert.equal(a.status, 200, a.text);
  const b = await t.tool('svc_reactor', req, key);
  assert.equal(b.isError, false, JSON.stringify(b.body));
  const expected = logistic(3.7, 0.2, 64);
  for (const run of [a.body, b.body]) {
    assert.equal(run.steps, 64);
    assert.deepEqual(run.stopped, { reason: 'maxDepth', atStep: 63 });
    const values = run.trajectory.map((s: any) => s.value);
    assert.equal(values.length, 64);
    values.forEach((v: number, i: number) => assert.ok(Object.is(v, expected[i]), `step ${i}: ${v} vs ${expected[i]}`));
    // step k's input is step k-1's output; the instant of step k is t0 + k*0.777 s
    run.trajectory.forEach((s: any, k: number) => {
      assert.equal(s.step, k);
      assert.equal(s.inputs.x, k === 0 ? 0.2 : expected[k - 1]);
      assert.equal(Math.round(s.t * 1000), Math.round(run.t0 * 1000) + 777 * k);
    });
  }
  assert.notEqual(a.body.merkle.root, b.body.merkle.root, 'two runs are two sets of seals (different instants)');
  // the final receipt is the last step's seal
  assert.equal(a.body.final.svcProof, a.body.trajectory[63].receipt.svcProof);
  assert.equal(a.body.final.value, expected[63]);
  assert.equal(a.body.tokens.cost, 64);

  // the root verifies from the leaves, from the receipts (each HMAC checked) and per step
  const leaves = a.body.trajectory.map((s: any) => s.receipt.svcProof);
  const v1 = await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, leaves }, key);
  assert.deepEqual([v1.status, v1.body.valid, v1.body.size], [200, true, 64]);
  const receipts = a.body.trajectory.map((s: any) => ({ svcProof: s.receipt.svcProof, svcState: { masterSum: s.receipt.R_t, operators: s.receipt.operators, svcond: s.receipt.svcond }, keyPrefix: s.receipt.keyPrefix, value: s.receipt.value, unit: s.receipt.unit }));
  const v2 = await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, receipts }, key);
  assert.equal(v2.body.valid, true);
  assert.ok(v2.body.proofs.every(Boolean));
  for (const k of [0, 17, 63]) {
    const s = a.body.trajectory[k];
    const inc = await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, inclusion: { leaf: s.receipt.svcProof, index: k, size: 64, path: s.inclusion } }, key);
    assert.equal(inc.body.valid, true, `step ${k}`);
    const wrong = await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, inclusion: { leaf: s.receipt.svcProof, index: (k + 1) % 64, size: 64, path: s.inclusion } }, key);
    assert.equal(wrong.body.valid, false);
    // and the step's own seal verifies with svc_verify
    const sv = await t.tool('svc_verify', { proof: s.receipt.svcProof, operatorIds: s.receipt.operators, R_t: s.receipt.R_t, zeqond: s.receipt.svcond, value: s.receipt.value, unit: s.receipt.unit }, key);
    assert.equal(sv.body.valid, true);
  }
  // tampering: a changed value breaks its proof; a swapped order or a foreign root breaks the root
  const tampered = receipts.map((r: any, i: number) => (i === 5 ? { ...r, value: r.value + 1e-12 } : r));
  const v3 = await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, receipts: tampered }, key);
  assert.deepEqual([v3.body.valid, v3.body.rootValid, v3.body.proofs[5], v3.body.proofs[4]], [false, true, false, true]);
  const swapped = [...leaves];
  [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
  assert.equal((await t.call('POST', '/api/reactor/verify', { root: a.body.merkle.root, leaves: swapped }, key)).body.valid, false);
  assert.equal((await t.call('POST', '/api/reactor/verify', { root: b.body.merkle.root, leaves }, key)).body.valid, false);

  // the run is stored, and every step is on the chain
  const stored = await t.call('GET', `/api/reactor/${a.body.run}`, undefined, key);
  assert.equal(stored.body.merkle.root, a.body.merkle.root);
  const chain = await t.call('GET', '/api/chain/verify', undefined, key);
  assert.equal(chain.body.valid, true, chain.text);
});

test('a stop condition ends the loop at the first step where it holds; the environment is readable', async () => {
  // r = 2.5 converges to the fixed point 1 - 1/r = 0.6
  const r = await t.call('POST', '/api/reactor', { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.1 }, params: { r: 2.5 }, until: 'abs(x - prev_x) < 1e-9', maxDepth: 64 }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.stopped.reason, 'until');
  const last = r.body.trajectory[r.body.steps - 1];
  assert.ok(Math.abs(last.value - 0.6) < 1e-8);
  assert.ok(r.body.steps < 64 && r.body.steps > 5);
  const prev = r.body.trajectory[r.body.steps - 2];
  assert.ok(Math.abs(last.value - prev.value) < 1e-9 && Math.abs(prev.value - r.body.trajectory[r.body.steps - 3].value) >= 1e-9);
  // prev_value is first read after step 1; step and the pulse of the step's own instant are in scope
  const e = await t.call('POST', '/api/reactor', { expr: { n: 'n + step', p: 'phase' }, inputs: { n: 0, p: 0 }, value: 'n', until: 'value == prev_value + 3', maxDepth: 10 }, key);
  assert.equal(e.status, 200, e.text);
  assert.deepEqual(e.body.trajectory.map((s: any) => s.value), [0, 1, 3, 6]);
  e.body.trajectory.forEach((s: any) => assert.equal(s.state.p, s.phase));
});

test('a diverging loop stops at its last finite step; nothing non-finite is sealed', async () => {
  const r = await t.call('POST', '/api/reactor', { expr: { x: 'x*x' }, inputs: { x: 1e100 }, maxDepth: 10 }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.steps, 1);
  assert.equal(r.body.stopped.reason, 'diverged');
  assert.equal(r.body.stopped.atStep, 1);
  assert.equal(r.body.trajectory[0].value, 1e200);
  assert.equal(r.body.tokens.cost, 1);
  // diverging at the first step: nothing sealed, a 422
  const first = await t.call('POST', '/api/reactor', { expr: { x: '1/x' }, inputs: { x: 0 }, maxDepth: 10 }, key);
  assert.equal(first.status, 422);
  assert.equal(first.body.code, 'UNSTABLE');
  // an operator loop whose mapped input overflows stops before that step
  const op = await t.call('POST', '/api/reactor', { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 }, map: { v: 'value * 1e150' }, maxDepth: 10 }, key);
  assert.equal(op.status, 200, op.text);
  assert.equal(op.body.stopped.reason, 'diverged');
  assert.ok(op.body.trajectory.every((s: any) => Number.isFinite(s.value)));
  assert.equal(op.body.trajectory[0].value, 9);
  assert.equal(op.body.trajectory[0].unit, 'J');
  assert.equal(op.body.trajectory[1].inputs.v, 9e150);
});

test('a solver loop maps outputs to the next inputs and seals under the solver\'s own source', async () => {
  // SIR epidemics: each step's gamma is raised by the environment's step number
  const r = await t.call('POST', '/api/reactor', {
    solver: 'epi', body: { model: 'sir', days: 60 }, inputs: { beta: 0.5, gamma: 0.1 },
    map: { gamma: 'gamma + 0.05 * step' }, until: 'value < 2', maxDepth: 6,
  }, key);
  assert.equal(r.status, 200, r.text);
  const tr = r.body.trajectory;
  // the map for step k+1 reads step = k+1: gamma 0.1, +0.05, +0.10, +0.15; R0 = 5, 3.33, 2, 1.25
  assert.deepEqual(tr.map((s: any) => s.inputs.gamma.toFixed(2)), ['0.10', '0.15', '0.25', '0.40']);
  assert.deepEqual(r.body.stopped, { reason: 'until', atStep: 3 });
  assert.equal(tr[1].outputs.result_R0, tr[1].value);
  for (const s of tr) assert.ok(Math.abs(s.value - s.inputs.beta / s.inputs.gamma) < 1e-9 * s.value, 'R0 = beta/gamma');
  assert.equal(r.body.final.solver, 'epi');
  assert.equal(r.body.final.unit, 'R0');
});

test('limits and bad input are 4xx, never a 500', async () => {
  const cases: [unknown, number][] = [
    [{ expr: { x: 'x' }, inputs: { x: 1 }, maxDepth: 65 }, 400],
    [{ expr: { x: 'x' }, inputs: { x: 1 }, maxDepth: 0 }, 400],
    [{ expr: { x: 'x' }, solver: 'epi', inputs: { x: 1 } }, 400],
    [{ inputs: { x: 1 } }, 400],
    [{ expr: { x: 'y' }, inputs: { x: 1 } }, 400],
    [{ expr: { x: 'x +' }, inputs: { x: 1 } }, 400],
    [{ expr: { y: 'x' }, inputs: { x: 1 } }, 400],
    [{ expr: { t: '1' }, inputs: { t: 1 } }, 400],
    [{ expr: { x: 'x' }, inputs: { x: 1 }, params: { x: 2 } }, 400],
    [{ expr: { x: 'x' }, inputs: { x: 1 }, map: { x: 'x' } }, 400],
    [{ expr: { x: 'x' }, inputs: { x: 1 }, until: 'nope > 1' }, 400],
    [{ expr: { x: 'x' }, inputs: { x: Number.MAX_VALUE }, params: { r: 1 }, value: 'x * r * 10' }, 422],
    [{ solver: 'nosuch', inputs: {} }, 400],
    [{ solver: 'epi', inputs: { nosuch: 1 } }, 400],
    [{ solver: 'epi', inputs: { beta: -5 } }, 400],
    [{ operator: 'NO_SUCH_OP', inputs: { m: 1 } }, 400],
    [{ operator: 'KINETIC_ENERGY', inputs: { m: 1, q: 2 } }, 422],
    [{ expr: { x: 'x' }, inputs: { x: 1 }, folder: '../etc' }, 400],
  ];
  for (const [body, status] of cases) {
    const r = await t.call('POST', '/api/reactor', body, key);
    assert.equal(r.status, status, `${JSON.stringify(body)} → ${r.status} ${r.text.slice(0, 200)}`);
    assert.equal(r.body.ok, false);
  }
  assert.equal((await t.call('POST', '/api/reactor', { expr: { x: 'x' }, inputs: { x: 1 } })).status, 401);
  assert.equal((await t.call('GET', '/api/reactor/rx_01M81JBBCA63TG8G510XNGNP6W', undefined, key)).status, 404);
  assert.equal((await t.call('POST', '/api/reactor/verify', { root: 'ab'.repeat(32) }, key)).status, 400);
});

test('a run never seals more steps than the machine has tokens for', async () => {
  const m = await t.machine('poor');
  const today = new Date(t.app.clock.now() * 1000).toISOString().slice(0, 10);
  await t.app.db.query('UPDATE machines SET tokens_day = $2, tokens_left = 5 WHERE zid = $1', [m.zid, today]);
  const r = await t.call('POST', '/api/reactor', { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.2 }, params: { r: 3.7 }, maxDepth: 20 }, m.apiKey);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.steps, 5);
  assert.equal(r.body.stopped.reason, 'quota');
  assert.equal(r.body.tokens.remaining, 0);
  const again = await t.call('POST', '/api/reactor', { expr: { x: 'x' }, inputs: { x: 1 } }, m.apiKey);
  assert.equal(again.status, 429);
  assert.equal(again.body.code, 'QUOTA_EXCEEDED');
});
