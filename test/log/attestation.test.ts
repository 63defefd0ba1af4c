// Attestations (issue 20): GET /api/receipts/{id}/attestation is a Sigstore bundle v0.3 whose DSSE
// envelope carries an in-toto Statement v1 about the receipt; sigstore-js (@sigstore/verify, the
// verifier the `sigstore` package is built on) verifies it with the node's ECDSA P-256 key from the
// JWKS — keyed verification, no transparency log, no timestamp authority (thresholds 0); an
// edited payload or signature fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { Verifier, toTrustMaterial, toSignedEntity } from '@sigstore/verify';
import { bundleFromJSON } from '@sigstore/bundle';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('attested'); });
after(async () => { await t.close(); });

/** sigstore-js, configured with the node's JWKS and nothing else */
function sigstoreVerifier(jwks: { keys: any[] }) {
  const emptyRoot = { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1', tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] };
  const trust = toTrustMaterial(emptyRoot as any, (hint: string) => {
    const jwk = jwks.keys.find((k) => k.kid === hint);
    if (!jwk) throw new Error(`no key ${hint} in the JWKS`);
    const { kty, crv, x, y } = jwk;
    return { publicKey: createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' }), validFor: () => true };
  });
  return new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
}

test('sigstore-js verifies the attestation bundle with the JWKS key; the statement names the receipt digest; edits fail', async () => {
  const r = (await t.call('POST', '/api/svc/quant', {}, m.apiKey)).body;
  const res = await t.call('GET', `/api/receipts/${r.receipt.id}/attestation`, undefined, m.apiKey);
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers['content-type'], /^application\/json/);
  const bundle = res.body;
  assert.equal(bundle.mediaType, 'application/vnd.dev.sigstore.bundle.v0.3+json');
  const jwks = (await t.call('GET', '/.well-known/jwks.json')).body;
  const key = jwks.keys.find((k: any) => k.kid === bundle.verificationMaterial.publicKey.hint);
  assert.deepEqual([key.kty, key.crv, key.alg], ['EC', 'P-256', 'ES256']);
  const v = sigstoreVerifier(jwks);
  const signer = v.verify(toSignedEntity(bundleFromJSON(bundle)));
  assert.ok(signer.key);

  const st = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString());
  assert.equal(bundle.dsseEnvelope.payloadType, 'application/vnd.in-toto+json');
  assert.equal(st._type, 'https://in-toto.io/Statement/v1');
  assert.equal(st.predicateType, 'urn:svc:predicate:sealed-receipt:v1');
  assert.deepEqual(st.subject, [{ name: r.receipt.id, digest: { sha256: r.receipt.digest } }]);
  // the subject digest is the SHA-256 of the receipt's canonical body (its log entry)
  const { canonicalJson } = await import('../../src/core/canonical.ts');
  const { tokens: _t, signature: _s, ...body } = r;
  const { log: _l, digest: _d, ...inner } = r.receipt;
  assert.equal(createHash('sha256').update(canonicalJson({ ...body, receipt: inner })).digest('hex'), r.receipt.digest);
  const p = st.predicate;
  assert.deepEqual([p.solver, p.method, p.seed, p.value, p.unit, p.log.index, p.log.treeSize], [r.solver, r.method, r.seed, r.value, r.unit, r.receipt.log.index, r.receipt.log.treeSize]);
  assert.deepEqual(p.inputs, r.input);
  assert.deepEqual(p.precision, r.precision);

  // an edited payload (the value), a flipped signature bit, another key: sigstore-js refuses
  const edited = structuredClone(bundle);
  edited.dsseEnvelope.payload = Buffer.from(JSON.stringify({ ...st, predicate: { ...p, value: p.value + 1 } })).toString('base64');
  assert.throws(() => v.verify(toSignedEntity(bundleFromJSON(edited))), /signature verification failed/);
  const flipped = structuredClone(bundle);
  const sig = Buffer.from(flipped.dsseEnvelope.signatures[0].sig, 'base64'); sig[sig.length - 1] ^= 1;
  flipped.dsseEnvelope.signatures[0].sig = sig.toString('base64');
  assert.throws(() => v.verify(toSignedEntity(bundleFromJSON(flipped))));
  const other = await testNode();
  try {
    const otherJwks = (await other.call('GET', '/.well-known/jwks.json')).body;
    assert.throws(() => sigstoreVerifier({ keys: otherJwks.keys.map((k: any) => ({ ...k, kid: bundle.verificationMaterial.publicKey.hint })) }).verify(toSignedEntity(bundleFromJSON(bundle))));
  } finally { await other.close(); }
  // another machine's receipt is not found; no key, 401
  const x = await t.machine('stranger');
  assert.equal((await t.call('GET', `/api/receipts/${r.receipt.id}/attestation`, undefined, x.apiKey)).status, 404);
  assert.equal((await t.call('GET', `/api/receipts/${r.receipt.id}/attestation`)).status, 401);
});
