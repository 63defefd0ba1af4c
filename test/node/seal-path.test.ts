import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { testNode, SEAL_SECRET, type TestNode } from '../helpers.ts';
import { pulseAt } from '../../src/core/clock.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('sealer'); });
after(async () => { await t.close(); });

/** The proof computed from DESIGN §7 alone, with node:crypto, not the project's seal module. */
function independentProof(r: any, version: 1 | 2): string {
  const k = Buffer.from(hkdfSync('sha256', Buffer.from(SEAL_SECRET, 'hex'), 'svc-seal', 'svc-proof', 32));
  const lines = [`svc-proof/v${version}`, r.svcState.operators.join(','), String(r.svcState.masterSum), String(r.svcState.svcond), r.keyPrefix];
  if (version === 2) lines.push(String(r.value), r.unit);
  return createHmac('sha256', k).update(lines.join('\n')).digest('hex');
}

test('an independent HMAC computed from DESIGN §7 equals the svcProof of a svc_protect receipt', async () => {
  const r = await t.tool('svc_protect', { health: 'up' }, m.apiKey);
  assert.equal(r.isError, false);
  const s = r.body;
  assert.equal(s.solver, 'protect');
  assert.equal(s.unit, 'P');
  assert.deepEqual(s.svcState.operators, ['KO42', 'SVC-PROTECT-001', 'SVC-PROTECT-002']);
  assert.equal(s.keyPrefix, m.keyPrefix);
  assert.equal(s.receipt.version, 2);
  assert.equal(s.svcProof, independentProof(s, 2));
  // the pulse fields agree with the clock at the sealed instant
  const p = pulseAt(s.t);
  assert.equal(s.svcState.svcond, p.svcond);
  assert.equal(s.phase, p.phase);
  assert.equal(s.svcState.masterSum, p.R_t);
});

test('svc_verify says valid for the receipt and invalid when any signed field changes', async () => {
  const s = (await t.tool('svc_protect', { liveness: 0.7 }, m.apiKey)).body;
  const args = { proof: s.svcProof, operatorIds: s.svcState.operators, R_t: s.svcState.masterSum, zeqond: s.svcState.svcond, keyPrefix: s.keyPrefix, value: s.value, unit: s.unit };
  assert.equal((await t.tool('svc_verify', args, m.apiKey)).body.valid, true);
  assert.equal((await t.call('POST', '/api/svc/verify', { ...args, zeqond: undefined, svcond: s.svcState.svcond }, m.apiKey)).body.valid, true);
  const changes: Record<string, unknown>[] = [
    { operatorIds: ['KO42', 'SVC-PROTECT-001'] }, { R_t: s.svcState.masterSum + 1e-12 }, { zeqond: s.svcState.svcond + 1 },
    { keyPrefix: 'svc_ak_00000000' }, { value: s.value * (1 + 1e-12) }, { unit: 'J' }, { value: undefined, unit: undefined },
    { proof: s.svcProof.slice(0, -1) + (s.svcProof.endsWith('0') ? '1' : '0') },
  ];
  for (const c of changes) {
    const r = await t.tool('svc_verify', { ...args, ...c }, m.apiKey);
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.equal(r.body.valid, false, JSON.stringify(c));
  }
});

test('protect follows the spec formulas and maps liveness to guardState', async () => {
  const t0 = 1790000000, phase = 0.3;
  const cases: [Record<string, unknown>, string, string][] = [
    [{ health: 'up' }, 'OK', 'harmonic'], [{ health: 'slow' }, 'DEGRADED', 'harmonic'], [{ health: 'down' }, 'BREACH', 'hyperbolic'],
    [{ status: 200 }, 'OK', 'harmonic'], [{ status: 503 }, 'DEGRADED', 'harmonic'], [{ status: 500 }, 'BREACH', 'hyperbolic'],
    [{ liveness: 0.9 }, 'OK', 'harmonic'], [{ liveness: 0.5 }, 'BREACH', 'hyperbolic'], [{ liveness: 0 }, 'BREACH', 'hyperbolic'],
  ];
  for (const [sig, state, branch] of cases) {
    const r = (await t.call('POST', '/api/svc/protect', { t: t0, phase, ...sig }, m.apiKey)).body;
    assert.equal(r.result.guardState, state, JSON.stringify(sig));
    assert.equal(r.result.branch, branch);
    const p1 = Math.abs(Math.sin(5 * phase)) / 1.287, p2 = 0.5 + 0.3 * Math.sin(t0 / 30);
    assert.equal(r.result['SVC-PROTECT-001'], p1);
    assert.equal(r.result['SVC-PROTECT-002'], p2);
    if (branch === 'harmonic') assert.ok(Math.abs(r.value) <= p2 + 1e-15); else assert.ok(r.value >= p2);
    assert.ok(r.precision.withinBound);
  }
});

test('receipts are filed in folders and listed per machine only', async () => {
  await t.call('POST', '/api/svc/protect', { folder: 'lab-a' }, m.apiKey);
  await t.call('POST', '/api/svc/protect', { folder: 'lab-a' }, m.apiKey);
  const other = await t.machine('other');
  await t.call('POST', '/api/svc/protect', { folder: 'lab-a' }, other.apiKey);
  const folders = (await t.call('GET', '/api/folders', undefined, m.apiKey)).body.folders;
  assert.equal(folders.find((f: any) => f.name === 'lab-a').count, 2);
  const list = (await t.call('GET', '/api/folders/lab-a/receipts', undefined, m.apiKey)).body;
  assert.equal(list.receipts.length, 2);
  assert.ok(list.receipts.every((r: any) => r.keyPrefix === m.keyPrefix && r.receipt.folder === 'lab-a'));
  const id = list.receipts[0].receipt.id;
  assert.equal((await t.call('GET', `/api/receipts/${id}`, undefined, m.apiKey)).body.svcProof, list.receipts[0].svcProof);
  assert.equal((await t.call('GET', `/api/receipts/${id}`, undefined, other.apiKey)).status, 404);
  assert.equal((await t.call('POST', '/api/svc/protect', { folder: '../etc' }, m.apiKey)).status, 400);
});

test('svc_shift projects R(t) forward, one token per step, and seals the projection', async () => {
  const before = (await t.call('GET', '/api/machines/me', undefined, m.apiKey)).body.tokens.remaining;
  const r = await t.tool('svc_shift', { steps: 5 }, m.apiKey);
  assert.equal(r.isError, false);
  const proj = r.body.result.projection;
  assert.equal(proj.length, 5);
  assert.equal(proj[0].delta, 0);
  for (let k = 1; k < 5; k++) {
    assert.ok(Math.abs(proj[k].t - proj[0].t - 0.777 * k) < 1e-6);
    assert.equal(proj[k].R_t, pulseAt(proj[k].t).R_t);
    assert.equal(proj[k].delta, proj[k].R_t - proj[0].R_t);
  }
  assert.equal(r.body.tokens.cost, 5);
  assert.equal(r.body.tokens.remaining, before - 5);
  assert.equal((await t.tool('svc_shift', {}, m.apiKey)).body.result.projection.length, 16);
  for (const steps of [0, 65, 1.5]) assert.equal((await t.call('POST', '/api/svc/shift', { steps }, m.apiKey)).status, 400);
});

test('svc_pulse and svc_field_status answer without a key and never show the secret', async () => {
  const p = (await t.tool('svc_pulse', {})).body;
  assert.deepEqual([p.f, p.svcondSeconds, p.alpha], [1.287, 0.777, 0.00129]);
  const fs = (await t.call('GET', '/api/svc/field-status')).body;
  assert.equal(fs.cipher, 'HMAC-SHA256');
  assert.deepEqual(fs.protocolVersions, ['svc-proof/v1', 'svc-proof/v2']);
  assert.equal(fs.keyDerivation.salt, 'svc-seal');
  assert.ok(!JSON.stringify(fs).includes(SEAL_SECRET));
});

test('the observer shows the global feed without values, and the caller\'s own chain in full with a key', async () => {
  await t.call('POST', '/api/svc/protect', {}, m.apiKey);
  const g = (await t.call('GET', '/api/observer?limit=5')).body;
  assert.equal(g.scope, 'global');
  assert.equal(g.entries.length, 5);
  for (const e of g.entries) { assert.deepEqual(Object.keys(e).sort(), ['at', 'hash', 'kind', 'machine']); assert.equal(e.hash.length, 12); }
  const own = (await t.call('GET', '/api/observer', undefined, m.apiKey)).body;
  assert.equal(own.scope, 'machine');
  assert.equal(own.entries.length, 15);
  assert.ok(own.entries.every((e: any) => e.zid === m.zid));
  for (const limit of [0, 51, 'x']) assert.equal((await t.call('GET', `/api/observer?limit=${limit}`)).status, 400);
  const v = (await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body;
  assert.equal(v.valid, true);
});

test('a tampered chain entry is detected by /api/chain/verify', async () => {
  const x = await t.machine('tamper');
  await t.call('POST', '/api/svc/protect', {}, x.apiKey);
  await t.call('POST', '/api/svc/protect', {}, x.apiKey);
  await t.app.db.query(`UPDATE chain_entries SET ref = 'forged' WHERE zid = $1 AND seq = 3`, [x.zid]);
  const v = (await t.call('GET', '/api/chain/verify', undefined, x.apiKey)).body;
  assert.equal(v.valid, false);
  assert.equal(v.firstBadSeq, 3);
});

test('v3: every receipt carries an Ed25519 signature over its RFC 8785 JSON that verifies offline against the JWKS', async () => {
  const { verifyReceiptSignature } = await import('../../src/services/receipt.ts');
  const s = (await t.call('POST', '/api/svc/protect', { health: 'up', folder: 'v3' }, m.apiKey)).body;
  assert.equal(s.signature.v, 3);
  assert.equal(s.signature.alg, 'EdDSA');
  const jwks = (await t.call('GET', '/.well-known/jwks.json')).body;
  assert.ok(jwks.keys.some((k: any) => k.kid === s.signature.kid && k.crv === 'Ed25519'));
  assert.deepEqual(verifyReceiptSignature(s, jwks), { valid: true, kid: s.signature.kid });
  // the filed copy is the same signed receipt
  const filed = (await t.call('GET', `/api/receipts/${s.receipt.id}`, undefined, m.apiKey)).body;
  assert.equal(verifyReceiptSignature(filed, jwks).valid, true);
  for (const tamper of [
    (r: any) => { r.value = r.value + 1e-9; }, (r: any) => { r.result.guardState = 'BREACH'; }, (r: any) => { r.receipt.folder = 'other'; },
    (r: any) => { r.svcState.operators.push('X'); }, (r: any) => { r.extra = 1; }, (r: any) => { const b = Buffer.from(r.signature.sig, 'base64url'); b[0] ^= 1; r.signature.sig = b.toString('base64url'); },
    (r: any) => { r.signature.kid = 'nope'; }, (r: any) => { delete r.signature; },
  ]) {
    const copy = JSON.parse(JSON.stringify(s));
    tamper(copy);
    assert.equal(verifyReceiptSignature(copy, jwks).valid, false);
  }
});
