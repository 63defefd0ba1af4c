// Key rotation (issue 20): an admin operation rotates the signing, log and attestation keys;
// retired keys stay in the JWKS marked retired; receipts, checkpoints and attestations made before
// the rotation still verify, and new ones are signed with the new keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { testNode, ADMIN_KEY, type TestNode } from '../helpers.ts';
import { verifyReceiptLog, logVerifiersOf } from '../../src/verify.ts';
import { verifyReceiptSignature } from '../../src/services/receipt.ts';
import { pae } from '../../src/services/attest.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('rotating'); });
after(async () => { await t.close(); });

function attestationOk(bundle: any, jwks: any): boolean {
  const jwk = jwks.keys.find((k: any) => k.kid === bundle.verificationMaterial.publicKey.hint);
  if (!jwk) return false;
  const { kty, crv, x, y } = jwk;
  const env = bundle.dsseEnvelope;
  return verify('sha256', pae(env.payloadType, Buffer.from(env.payload, 'base64')), createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' }), Buffer.from(env.signatures[0].sig, 'base64'));
}

test('rotation retires every key into the JWKS; what was signed before still verifies; new seals use the new keys', async () => {
  const before1 = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  const oldBundle = (await t.call('GET', `/api/receipts/${before1.receipt.id}/attestation`, undefined, m.apiKey)).body;
  const oldVkey = (await t.call('GET', '/log/key')).text.trim();
  const jwks0 = (await t.call('GET', '/.well-known/jwks.json')).body;
  assert.equal(jwks0.keys.filter((k: any) => k.retired).length, 0);

  assert.equal((await t.call('POST', '/api/admin/keys/rotate', { purpose: 'all' }, m.apiKey)).status, 403, 'a machine key is not the admin key');
  const r = await t.call('POST', '/api/admin/keys/rotate', { purpose: 'all' }, ADMIN_KEY);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.rotated.map((x: any) => x.purpose), ['sig', 'log', 'attest']);
  for (const x of r.body.rotated) assert.notEqual(x.retired, x.current);
  const newVkey = (await t.call('GET', '/log/key')).text.trim();
  assert.notEqual(newVkey, oldVkey);
  assert.equal(newVkey.split('+')[0], oldVkey.split('+')[0], 'the log keeps its origin');

  const jwks = (await t.call('GET', '/.well-known/jwks.json')).body;
  const retired = jwks.keys.filter((k: any) => k.retired);
  assert.equal(retired.length, 3);
  for (const k of retired) assert.match(k.retiredAt, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(new Set(retired.map((k: any) => k.kid)), new Set(r.body.rotated.map((x: any) => x.retired)));
  // current keys first, retired ones after
  assert.ok(jwks.keys.findIndex((k: any) => k.retired) > jwks.keys.findLastIndex((k: any) => !k.retired));

  // before the rotation: the receipt (log entry and v3 signature) and its old attestation still verify
  assert.ok(verifyReceiptLog(before1, logVerifiersOf(jwks)).ok);
  assert.equal(verifyReceiptSignature(before1, jwks).valid, true);
  assert.ok(attestationOk(oldBundle, jwks));
  // after: new receipts and attestations carry the new keys, and verify with the same JWKS
  const after1 = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  assert.notEqual(after1.signature.kid, before1.signature.kid);
  assert.ok(after1.receipt.log.checkpoint.includes(`\u2014 ${newVkey.split('+')[0]} `));
  const lv = verifyReceiptLog(after1, logVerifiersOf(jwks));
  assert.ok(lv.ok, lv.reason);
  assert.equal(verifyReceiptLog(after1, logVerifiersOf({ keys: jwks.keys.filter((k: any) => k.retired) })).ok, false, 'the retired log key did not sign it');
  const newBundle = (await t.call('GET', `/api/receipts/${after1.receipt.id}/attestation`, undefined, m.apiKey)).body;
  assert.notEqual(newBundle.verificationMaterial.publicKey.hint, oldBundle.verificationMaterial.publicKey.hint);
  assert.ok(attestationOk(newBundle, jwks));
  // consistency across the rotation: the old checkpoint extends into the new one
  const c = await t.call('GET', `/log/consistency?old=${before1.receipt.log.treeSize}&new=${after1.receipt.log.treeSize}`);
  assert.equal(c.status, 200);
  // only one purpose
  const r2 = await t.call('POST', '/api/admin/keys/rotate', { purpose: 'attest' }, ADMIN_KEY);
  assert.deepEqual(r2.body.rotated.map((x: any) => x.purpose), ['attest']);
  assert.equal((await t.call('GET', '/.well-known/jwks.json')).body.keys.filter((k: any) => k.retired).length, 4);
});
