import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { testNode, SEAL_SECRET, type TestNode } from '../helpers.ts';
import { createApp } from '../../src/app.ts';
import { loadOrCreateSigningKey, jwks, signBytes, verifyBytes, decryptPrivateKey, encryptPrivateKey } from '../../src/services/keys.ts';

let t: TestNode;
before(async () => { t = await testNode(); });
after(async () => { await t.close(); });

// RFC 8037 Appendix A: the Ed25519 key, its thumbprint and the JWS over "Example of Ed25519 signing"
const RFC8037 = {
  jwk: { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
  thumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
  signingInput: 'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc',
  signature: 'hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg',
};

test('Ed25519 signing and verification reproduce RFC 8037 Appendix A (A.3 thumbprint, A.4 signature, A.5 verification)', async () => {
  const { d, ...pub } = RFC8037.jwk;
  assert.equal(await calculateJwkThumbprint(pub as any, 'sha256'), RFC8037.thumbprint);
  const priv = createPrivateKey({ key: RFC8037.jwk as any, format: 'jwk' });
  assert.equal(sign(null, Buffer.from(RFC8037.signingInput), priv).toString('base64url'), RFC8037.signature);
  assert.equal(verifyBytes(pub as any, RFC8037.signingInput, RFC8037.signature), true);
  assert.equal(verifyBytes(pub as any, RFC8037.signingInput + 'x', RFC8037.signature), false);
  assert.ok(d);
});

test('the signing key is created once, race-free, and every reader gets the same key', async () => {
  // the node made its key at start; set it aside so that eight "nodes" race to create one on an empty table
  const saved = await t.app.db.query<any>('SELECT kid, slot, alg, public_jwk, private_enc, created_at FROM signing_keys');
  assert.equal(saved.length, 1);
  await t.app.db.query('DELETE FROM signing_keys');
  try {
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSigningKey(t.app.db, t.app.config.sealSecret)));
    assert.equal(new Set(keys.map((k) => k.kid)).size, 1);
    assert.notEqual(keys[0].kid, saved[0].kid);
    const rows = await t.app.db.query<any>('SELECT kid FROM signing_keys');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].kid, keys[0].kid);
    // the kid is the RFC 7638 thumbprint of the public key
    const { kty, crv, x } = keys[0].publicJwk;
    assert.equal(await calculateJwkThumbprint({ kty: kty!, crv: crv!, x: x! }, 'sha256'), keys[0].kid);
    // once it exists, everyone reads it
    assert.equal((await loadOrCreateSigningKey(t.app.db, t.app.config.sealSecret)).kid, keys[0].kid);
  } finally {
    await t.app.db.query('DELETE FROM signing_keys');
    const r = saved[0];
    await t.app.db.query('INSERT INTO signing_keys (kid, slot, alg, public_jwk, private_enc, created_at) VALUES ($1,$2,$3,$4,$5,$6)', [r.kid, r.slot, r.alg, r.public_jwk, r.private_enc, r.created_at]);
  }
  assert.equal(t.app.signingKey.kid, saved[0].kid);
});

test('the private key is encrypted at rest (AES-256-GCM under HKDF of the master secret, bound to its kid)', async () => {
  const k = t.app.signingKey;
  const [row] = await t.app.db.query<any>('SELECT kid, public_jwk, private_enc FROM signing_keys WHERE kid = $1', [k.kid]);
  const der = k.privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer;
  const jwk = k.privateKey.export({ format: 'jwk' }) as any;
  const dump = JSON.stringify(await t.app.db.query('SELECT * FROM signing_keys'));
  assert.ok(!dump.includes(jwk.d) && !dump.includes(der.toString('base64')) && !dump.includes(der.toString('base64url')) && !dump.includes(der.toString('hex')));
  assert.match(row.private_enc, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
  assert.ok(!JSON.parse(row.public_jwk).d);
  assert.deepEqual(decryptPrivateKey(t.app.config.sealSecret, k.kid, row.private_enc), der);
  // another master secret, another kid (AAD) or a flipped bit: refused
  assert.throws(() => decryptPrivateKey(Buffer.alloc(32, 7), k.kid, row.private_enc), /master secret/);
  assert.throws(() => decryptPrivateKey(t.app.config.sealSecret, 'other-kid', row.private_enc));
  const parts = row.private_enc.split('.');
  const ct = Buffer.from(parts[3], 'base64url'); ct[0] ^= 1;
  assert.throws(() => decryptPrivateKey(t.app.config.sealSecret, k.kid, [parts[0], parts[1], parts[2], ct.toString('base64url')].join('.')));
  // fresh IVs: the same key encrypts differently each time
  assert.notEqual(encryptPrivateKey(t.app.config.sealSecret, k.kid, der), encryptPrivateKey(t.app.config.sealSecret, k.kid, der));
});

test('jwks lists the public key; signBytes signatures verify against it (the v3 receipt path)', async () => {
  const set = await jwks(t.app.db);
  const k = t.app.signingKey;
  assert.equal(set.keys[0].kid, k.kid);
  assert.deepEqual(Object.keys(set.keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  const http = await t.call('GET', '/.well-known/jwks.json');
  assert.deepEqual(http.body, set);
  assert.match(http.headers['content-type'], /^application\/json/);
  const s = signBytes(t.app.signingKey, '{"canonical":"receipt"}');
  assert.equal(s.kid, k.kid);
  assert.equal(s.alg, 'EdDSA');
  assert.equal(verifyBytes(set.keys[0], '{"canonical":"receipt"}', s.signature), true);
  assert.equal(verifyBytes(set.keys[0], '{"canonical":"receipt!"}', s.signature), false);
});

test('two nodes sharing one PostgreSQL publish and sign with the same key', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, async () => {
  const second = await createApp({
    env: { SVC_DATA_DIR: ':memory:', SVC_SEAL_SECRET: SEAL_SECRET, DATABASE_URL: process.env.DATABASE_URL, SVC_DATABASE_SCHEMA: t.app.config.databaseSchema! },
  });
  try {
    const [a, b] = [t.app.signingKey, second.signingKey];
    assert.equal(a.kid, b.kid);
    assert.deepEqual(await jwks(second.db), await jwks(t.app.db));
    const s = signBytes(second.signingKey, 'shared');
    assert.equal(verifyBytes(a.publicJwk, 'shared', s.signature), true);
  } finally {
    await second.close();
  }
});
