// A seal means the right answer to the question asked (issue 18): the examples of the issue that
// concern the engine and verification. A result that fails its own check is refused (422
// PRECISION_REFUSED, nothing charged or chained) unless the caller sends acceptOutOfBound; a field
// with no effect is a 400; POST /api/svc/verify names the rule a malformed proof or id breaks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('right-answer'); });
after(async () => { await t.close(); });

async function tokensAndChain() {
  const me = (await t.call('GET', '/api/machines/me', undefined, m.apiKey)).body;
  const chain = (await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body;
  return { tokens: me.tokens.remaining, length: chain.length };
}

test('multibody: two bodies released at rest fail their energy check: refused, nothing charged or chained; sealed only with acceptOutOfBound', async () => {
  const body = { bodies: [{ mass: 1, position: [0, 0, 0], velocity: [0, 0, 0] }, { mass: 1, position: [1, 0, 0], velocity: [0, 0, 0] }], prompt: 'two bodies at rest' };
  const before = await tokensAndChain();
  const r = await t.call('POST', '/api/svc/multibody', body, m.apiKey);
  if (r.status === 200) {
    // a solver that keeps the energy within its bound through the collapse is right too
    assert.equal(r.body.precision.withinBound, true, JSON.stringify(r.body.precision));
    return;
  }
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.code, 'PRECISION_REFUSED');
  assert.ok(r.body.errorPct > r.body.boundPct);
  assert.equal(typeof r.body.reference, 'string');
  assert.deepEqual(await tokensAndChain(), before, 'nothing charged, nothing chained');
  const sealed = await t.call('POST', '/api/svc/multibody', { ...body, acceptOutOfBound: true }, m.apiKey);
  assert.equal(sealed.status, 200, sealed.text);
  assert.equal(sealed.body.precision.withinBound, false);
  assert.equal(sealed.body.acceptOutOfBound, true);
  assert.equal(sealed.body.tokens.remaining, before.tokens - 1);
});

test('dock with 5 restarts and 10 iterations misses the exact minimum: refused with the error, the bound and the reference, naming the settings and what passes', async () => {
  const r = await t.call('POST', '/api/svc/dock', { restarts: 5, iters: 10 }, m.apiKey);
  // the caller's own settings cannot meet the bound: a 400 naming them (docs/defaults.md), not a seal
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'INVALID_INPUT');
  assert.ok(r.body.errorPct > r.body.boundPct, JSON.stringify(r.body));
  assert.ok(Number.isFinite(r.body.referenceValue));
  assert.deepEqual(r.body.issues.map((i: any) => i.path).sort(), ['iters', 'restarts']);
  assert.deepEqual(r.body.retryWith.inputs, { restarts: 20, iters: 30 });
  const again = await t.call('POST', '/api/svc/dock', { restarts: 5, iters: 10, ...r.body.retryWith.inputs }, m.apiKey);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.precision.withinBound, true);
  const over = await t.tool('svc_dock', { restarts: 5, iters: 10 }, m.apiKey);
  assert.equal(over.isError, true);
  assert.equal(over.body.code, 'INVALID_INPUT');
});

test('consts.t on a solver is a 400 naming the field, not an echo in the receipt', async () => {
  const r = await t.call('POST', '/api/svc/heat', { consts: { t: 5 } }, m.apiKey);
  assert.equal(r.status, 400);
  assert.equal(r.body.issues[0].path, 'consts.t');
});

test('POST /api/svc/verify: a proof that is not 64 lowercase hex, or an operator id that is empty or has a comma, is a 400 naming the rule', async () => {
  const s = (await t.call('POST', '/api/svc/protect', {}, m.apiKey)).body;
  const good = { proof: s.svcProof, operatorIds: s.svcState.operators, R_t: s.svcState.masterSum, svcond: s.svcState.svcond, value: s.value, unit: s.unit };
  assert.equal((await t.call('POST', '/api/svc/verify', good, m.apiKey)).body.valid, true);
  for (const [bad, re] of [
    [{ ...good, proof: s.svcProof.toUpperCase() }, /64 lowercase hex/],
    [{ ...good, proof: s.svcProof.slice(1) }, /64 lowercase hex/],
    [{ ...good, operatorIds: ['KO42', ''] }, /not empty/],
    [{ ...good, operatorIds: ['KO42,EXTRA'] }, /contains no ","/],
  ] as const) {
    const r = await t.call('POST', '/api/svc/verify', bad, m.apiKey);
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.match(r.body.error, re);
  }
});

test('heat: kx or ky with dim 1 (and mode with dim 2) is a 400 naming the field, not an echo without effect', async () => {
  for (const [body, field] of [[{ dim: 1, kx: 2 }, 'kx'], [{ dim: 1, ky: 3 }, 'ky'], [{ dim: 2, mode: 2 }, 'mode']] as const) {
    const r = await t.call('POST', '/api/svc/heat', body, m.apiKey);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.issues[0].path, field);
  }
});

test('grid with N = 3 and the default chords adapts the default (a triangle has no chord) instead of refusing', async () => {
  const r = await t.call('POST', '/api/svc/grid', { N: 3 }, m.apiKey);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.precision.withinBound, true);
  const given = await t.call('POST', '/api/svc/grid', { N: 3, chords: 1 }, m.apiKey);
  assert.equal(given.status, 400, 'a chords value the caller gives is checked as given');
});

test('kalman with empty matrices is a 400 over HTTP and an INVALID_INPUT result over MCP, never a TypeError', async () => {
  const body = { F: [], H: [], Q: [], R: [] };
  const r = await t.call('POST', '/api/svc/kalman', body, m.apiKey);
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'INVALID_INPUT');
  const viaMcp = await t.tool('svc_kalman', body, m.apiKey);
  assert.equal(viaMcp.isError, true);
  assert.equal(viaMcp.body.code, 'INVALID_INPUT');
  assert.doesNotMatch(JSON.stringify(viaMcp.body), /TypeError|Cannot read/);
});
