import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
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
  // protect read the live phase at the sealed instant: the phase it used is the sealed one
  assert.equal(s.result.t, s.t);
  assert.equal(s.result.phase, s.phase);
});

test('a v1 proof computed from DESIGN §7 alone verifies through svc_verify (no value), and fails as v2', async () => {
  const k = Buffer.from(hkdfSync('sha256', Buffer.from(SEAL_SECRET, 'hex'), 'svc-seal', 'svc-proof', 32));
  const f = { operatorIds: ['KO42', 'QM5'], R_t: 1.000123456789, svcond: 2304123456, keyPrefix: m.keyPrefix };
  const proof = createHmac('sha256', k).update(['svc-proof/v1', f.operatorIds.join(','), String(f.R_t), String(f.svcond), f.keyPrefix].join('\n')).digest('hex');
  const args = { proof, operatorIds: f.operatorIds, R_t: f.R_t, zeqond: f.svcond };
  const ok = (await t.tool('svc_verify', args, m.apiKey)).body;
  assert.deepEqual([ok.valid, ok.version, ok.keyPrefix], [true, 1, m.keyPrefix]);
  // a proof is 64 lowercase hex characters (issue 18): upper case is a 400 naming the rule, not a guess
  const upper = await t.tool('svc_verify', { ...args, proof: proof.toUpperCase() }, m.apiKey);
  assert.equal(upper.isError, true);
  assert.match(upper.body.error, /64 lowercase hex/);
  assert.equal((await t.tool('svc_verify', { ...args, value: 1, unit: 'E' }, m.apiKey)).body.valid, false);
  assert.equal((await t.tool('svc_verify', { ...args, svcond: f.svcond + 1, zeqond: undefined }, m.apiKey)).body.valid, false);
  // zeqond and svcond that disagree, a missing counter, a proof that is not hex: 400, not a guess
  assert.equal((await t.call('POST', '/api/svc/verify', { ...args, svcond: f.svcond + 1 }, m.apiKey)).status, 400);
  assert.equal((await t.call('POST', '/api/svc/verify', { ...args, zeqond: undefined }, m.apiKey)).status, 400);
  assert.equal((await t.tool('svc_verify', { ...args, proof: 'zz' + proof.slice(2) }, m.apiKey)).body.code, 'INVALID_INPUT');
});

test('one injectable clock: pulse, seals and svc_shift all read it', async () => {
  const { fixedClock } = await import('../../src/core/clock.ts');
  const t0 = 1790303030.123;
  const clock = fixedClock(t0);
  const n = await testNode({ clock });
  try {
    const p = (await n.call('GET', '/api/svc/pulse')).body;
    const ref = pulseAt(t0);
    assert.deepEqual(p, { ok: true, t: t0, svcond: ref.svcond, phase: ref.phase, R_t: ref.R_t, f: 1.287, svcondSeconds: 0.777, alpha: 0.00129 });
    // DESIGN §6 by hand: svcond = floor(t / 0.777), phase = 2π·frac(1.287·t), R_t = 1 + α·sin(phase)
    assert.equal(p.svcond, Math.floor(t0 / 0.777));
    const exactFrac = Number((1287n * 1790303030123n) % 1000000n) / 1e6; // 1.287·t in exact integer milliseconds
    assert.ok(Math.abs(p.phase - 2 * Math.PI * exactFrac) < 1e-12);
    assert.equal(p.R_t, 1 + 0.00129 * Math.sin(p.phase));
    const x = await n.machine('clocked');
    const genesis = (await n.call('GET', '/api/observer', undefined, x.apiKey)).body.entries.find((e: any) => e.kind === 'genesis');
    assert.equal(genesis.at, new Date(t0 * 1000).toISOString());
    clock.advance(10);
    const s = (await n.call('POST', '/api/svc/protect', { health: 'up' }, x.apiKey)).body;
    assert.equal(s.t, t0 + 10);
    assert.equal(s.phase, pulseAt(t0 + 10).phase);
    assert.equal(s.receipt.issuedAt, new Date((t0 + 10) * 1000).toISOString());
    const sh = (await n.tool('svc_shift', { steps: 3 }, x.apiKey)).body;
    assert.deepEqual(sh.result.projection.map((e: any) => e.t), [t0 + 10, t0 + 10 + 0.777, t0 + 10 + 1.554].map((v) => Math.round(v * 1000) / 1000));
  } finally { await n.close(); }
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
    // docs/node.md: P = p2·cos(√|μ²|·τ) (harmonic) or p2·cosh(√μ²·τ) (hyperbolic), μ² = 2(0.5 − λ), τ = p1·(1 + α·sin φ)
    const lambda = r.result.liveness, mu2 = 2 * (0.5 - lambda), tau = p1 * (1 + 0.00129 * Math.sin(phase));
    const P = p2 * (branch === 'harmonic' ? Math.cos(Math.sqrt(-mu2) * tau) : Math.cosh(Math.sqrt(mu2) * tau));
    assert.ok(Math.abs(r.value - P) <= 1e-12 * Math.abs(P), `${JSON.stringify(sig)}: P ${r.value} vs ${P}`);
    assert.equal(r.unit, 'P');
    assert.ok(r.precision.errorPct < 1e-9);
    assert.ok(r.precision.withinBound);
  }
});

test('every sealed operation takes a folder', async () => {
  const { jsonSchemaOf } = await import('../../src/ops/schema.ts');
  const sealed = t.app.operations.filter((o) => o.cost !== undefined);
  assert.ok(sealed.length >= 30);
  for (const op of sealed) {
    const f = jsonSchemaOf(op).properties?.folder;
    assert.ok(f, `${op.id} takes no folder`);
    assert.equal(f.type, 'string', op.id);
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
  assert.deepEqual([fs.keyDerivation.algorithm, fs.keyDerivation.info, fs.keyDerivation.length], ['HKDF-SHA256', 'svc-proof', 32]);
  assert.equal(fs.keySource, 'environment (SVC_SEAL_SECRET)');
  assert.equal(fs.proofHmac.algorithm, 'HMAC-SHA256');
  assert.equal(fs.proofHmac.comparison, 'constant-time');
  assert.deepEqual((await t.tool('svc_field_status', {})).body, fs);
  // neither the master secret nor the derived proof key, in any encoding
  const k = Buffer.from(hkdfSync('sha256', Buffer.from(SEAL_SECRET, 'hex'), 'svc-seal', 'svc-proof', 32));
  for (const secret of [SEAL_SECRET, SEAL_SECRET.toUpperCase(), Buffer.from(SEAL_SECRET, 'hex').toString('base64'), k.toString('hex'), k.toString('base64')]) {
    assert.ok(!JSON.stringify(fs).includes(secret));
  }
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

test('the chain recomputed from DESIGN §8 alone: hash = SHA-256(prevHash ‖ RFC 8785 entry), a seal\'s payloadHash covers the response', async () => {
  // RFC 8785 for the values a chain entry and a receipt hold (strings, integers, shortest-form
  // doubles, booleans, null): keys sorted by UTF-16 code units, numbers as ECMAScript prints them
  const jcs = (v: any): string => v === null || typeof v !== 'object' ? JSON.stringify(v)
    : Array.isArray(v) ? `[${v.map(jcs).join(',')}]`
    : `{${Object.keys(v).filter((k) => v[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${jcs(v[k])}`).join(',')}}`;
  const sha = (x: string) => createHash('sha256').update(x).digest('hex');
  const x = await t.machine('rechain');
  const sealed: any[] = [];
  for (const health of ['up', 'slow', 'down']) sealed.push((await t.call('POST', '/api/svc/protect', { health }, x.apiKey)).body);
  const entries = (await t.call('GET', '/api/observer?limit=50', undefined, x.apiKey)).body.entries.slice().reverse();
  assert.deepEqual(entries.map((e: any) => e.kind), ['genesis', 'key.minted', 'seal', 'seal', 'seal']);
  let prev = '0'.repeat(64);
  entries.forEach((e: any, i: number) => {
    assert.equal(e.seq, i + 1);
    assert.equal(e.prevHash, prev);
    assert.equal(e.hash, sha(prev + jcs({ seq: e.seq, zid: e.zid, kind: e.kind, ref: e.ref, at: e.at, payloadHash: e.payloadHash })));
    prev = e.hash;
  });
  for (const s of sealed) {
    const e = entries.find((y: any) => y.ref === s.receipt.id);
    assert.equal(e.seq, s.receipt.chain.seq);
    assert.equal(e.hash, s.receipt.chain.hash);
    const { receipt: _r, tokens: _t, signature: _s, ...covered } = s;
    assert.equal(e.payloadHash, sha(jcs(covered)));
  }
  assert.equal((await t.call('GET', '/api/chain/verify', undefined, x.apiKey)).body.head, prev);
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

test('a stored receipt edited after sealing is detected by /api/chain/verify (its body no longer hashes to its entry)', async () => {
  const x = await t.machine('tamper-body');
  const sealed: any[] = [];
  for (const health of ['up', 'slow', 'down']) sealed.push((await t.call('POST', '/api/svc/protect', { health }, x.apiKey)).body);
  const sound = (await t.call('GET', '/api/chain/verify', undefined, x.apiKey)).body;
  assert.equal(sound.valid, true);
  assert.equal(sound.receiptsChecked, 3);
  // the links alone still hold after each edit below: only the re-hash of the body catches it
  const victim = sealed[1];
  for (const edit of [
    (b: any) => { b.value = b.value === 0 ? 1 : -b.value; },
    (b: any) => { b.precision = { ...b.precision, errorPct: b.precision.errorPct + 1, withinBound: !b.precision.withinBound }; },
    (b: any) => { b.input = { ...b.input, health: 'up' }; },
  ]) {
    const [row] = await t.app.db.query<{ body: string }>('SELECT body FROM receipts WHERE id = $1', [victim.receipt.id]);
    const body = JSON.parse(row.body);
    edit(body);
    await t.app.db.query('UPDATE receipts SET body = $2 WHERE id = $1', [victim.receipt.id, JSON.stringify(body)]);
    const v = (await t.call('GET', '/api/chain/verify', undefined, x.apiKey)).body;
    assert.equal(v.valid, false, JSON.stringify(v));
    assert.equal(v.firstBadSeq, victim.receipt.chain.seq);
    assert.match(v.reason, new RegExp(`receipt ${victim.receipt.id}: the stored body does not hash`));
    await t.app.db.query('UPDATE receipts SET body = $2 WHERE id = $1', [victim.receipt.id, row.body]);
  }
  // the receipt and signature parts are not covered by the entry (the entry's hash is in them)
  const [row] = await t.app.db.query<{ body: string }>('SELECT body FROM receipts WHERE id = $1', [victim.receipt.id]);
  const moved = JSON.parse(row.body);
  moved.receipt.folder = 'elsewhere';
  await t.app.db.query('UPDATE receipts SET body = $2 WHERE id = $1', [victim.receipt.id, JSON.stringify(moved)]);
  assert.equal((await t.call('GET', '/api/chain/verify', undefined, x.apiKey)).body.valid, true);
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
