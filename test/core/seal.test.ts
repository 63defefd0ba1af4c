// The seal's primitives replay the standards' own vectors through the same functions the seal
// path uses: RFC 4231 (HMAC-SHA256) and RFC 5869 (HKDF-SHA256).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hmacSha256, hkdfSha256, proofMessage, computeProof, verifyProof, deriveProofKey, num } from '../../src/core/seal.ts';

const hex = (s: string) => Buffer.from(s, 'hex');
const range = (a: number, b: number) => Buffer.from(Array.from({ length: b - a + 1 }, (_, i) => a + i));

test('RFC 4231 HMAC-SHA256 test cases 1-4, 6, 7 (and the truncated case 5)', () => {
  const cases: [Buffer, Buffer, string][] = [
    [Buffer.alloc(20, 0x0b), Buffer.from('Hi There'), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
    [Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
    [Buffer.alloc(20, 0xaa), Buffer.alloc(50, 0xdd), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
    [range(0x01, 0x19), Buffer.alloc(50, 0xcd), '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
    [Buffer.alloc(131, 0xaa), Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'), '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'],
    [Buffer.alloc(131, 0xaa), Buffer.from('This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.'), '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2'],
  ];
  for (const [key, data, expected] of cases) assert.equal(hmacSha256(key, data).toString('hex'), expected);
  assert.equal(hmacSha256(Buffer.alloc(20, 0x0c), Buffer.from('Test With Truncation')).toString('hex').slice(0, 32), 'a3b6167473100ee06e0c796c2955552b');
});

test('RFC 5869 HKDF-SHA256 test cases 1-3', () => {
  assert.equal(hkdfSha256(Buffer.alloc(22, 0x0b), range(0x00, 0x0c), range(0xf0, 0xf9), 42).toString('hex'),
    '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865');
  assert.equal(hkdfSha256(range(0x00, 0x4f), range(0x60, 0xaf), range(0xb0, 0xff), 82).toString('hex'),
    'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87');
  assert.equal(hkdfSha256(Buffer.alloc(22, 0x0b), Buffer.alloc(0), Buffer.alloc(0), 42).toString('hex'),
    '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8');
});

test('proof messages are the DESIGN §7 lines joined by newlines', () => {
  const f = { operatorIds: ['KO42', 'CHE17'], R_t: 1.0012, svcond: 2304123456, keyPrefix: 'svc_ak_ab12cd34' };
  assert.equal(proofMessage(f), 'svc-proof/v1\nKO42,CHE17\n1.0012\n2304123456\nsvc_ak_ab12cd34');
  assert.equal(proofMessage({ ...f, value: 0.1 + 0.2, unit: 'T' }), 'svc-proof/v2\nKO42,CHE17\n1.0012\n2304123456\nsvc_ak_ab12cd34\n0.30000000000000004\nT');
  assert.equal(num(1e21), '1e+21');
  assert.equal(num(-0), '0');
});

test('a proof verifies, and any change to a signed field or the proof makes it invalid', () => {
  const key = deriveProofKey(hex('ab'.repeat(32)));
  const f = { operatorIds: ['KO42', 'QM5'], R_t: 0.99987, svcond: 123, keyPrefix: 'svc_ak_abcdefgh', value: 0.5, unit: 'E' };
  const proof = computeProof(key, f);
  assert.match(proof, /^[0-9a-f]{64}$/);
  assert.equal(verifyProof(key, proof, f), true);
  assert.equal(verifyProof(key, proof.toUpperCase(), f), true);
  for (const changed of [
    { ...f, operatorIds: ['KO42'] }, { ...f, R_t: 0.99988 }, { ...f, svcond: 124 }, { ...f, keyPrefix: 'svc_ak_abcdefgX' },
    { ...f, value: 0.5000001 }, { ...f, unit: 'J' }, { ...f, value: undefined, unit: undefined },
  ]) assert.equal(verifyProof(key, proof, changed), false);
  assert.equal(verifyProof(key, proof.replace(/.$/, (c) => (c === '0' ? '1' : '0')), f), false);
  assert.equal(verifyProof(key, 'not-hex', f), false);
  assert.equal(verifyProof(deriveProofKey(hex('cd'.repeat(32))), proof, f), false);
});

test('the seal path derives its proof key and computes its proofs through these same functions', async () => {
  const { Sealer } = await import('../../src/services/sealer.ts');
  const { systemClock } = await import('../../src/core/clock.ts');
  const secret = hex('0123456789abcdef'.repeat(4));
  const sealer = new Sealer({ db: null as any, clock: systemClock, masterSecret: secret, tokensPerDay: 1 });
  // K = HKDF-SHA256(secret, "svc-seal", "svc-proof", 32), through the RFC 5869-checked function
  assert.deepEqual(sealer.proofKey, hkdfSha256(secret, 'svc-seal', 'svc-proof', 32));
  assert.deepEqual(sealer.proofKey, deriveProofKey(secret));
  // the proof is the RFC 4231-checked HMAC of the DESIGN §7 message
  const f = { operatorIds: ['KO42', 'SVC-PROTECT-001', 'SVC-PROTECT-002'], R_t: 1.0001, svcond: 42, keyPrefix: 'svc_ak_12345678', value: 0.25, unit: 'P' };
  assert.equal(computeProof(sealer.proofKey, f), hmacSha256(sealer.proofKey, proofMessage(f)).toString('hex'));
});
