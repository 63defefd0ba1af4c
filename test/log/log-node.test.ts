// The deployment's transparency log through a node (issue 20): every sealed receipt is a leaf;
// a verifier written here from the specifications alone (RFC 8785, RFC 6962 / RFC 9162,
// c2sp.org/signed-note, tlog-checkpoint, tlog-tiles, tlog-proof) checks 1,000 receipts; a change to
// any byte fails; tiles, entry bundles, checkpoints and consistency proofs are served as specified.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify as edVerify } from 'node:crypto';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode({ env: { SVC_BASE_URL: 'https://svc.example.org:8443' } }); m = await t.machine('logged'); });
after(async () => { await t.close(); });

// ---- an independent verifier, from the specifications alone ----------------------------------
const sha = (...b: (Buffer | string)[]) => { const h = createHash('sha256'); for (const x of b) h.update(x); return h.digest(); };
/** RFC 8785 for values JSON.parse gives: keys sorted by UTF-16 code units, ES number form */
function jcs(v: any): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(jcs).join(',')}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${jcs(v[k])}`).join(',')}}`;
}
/** vkey: <name>+<hex id>+base64(0x01 ‖ 32-byte Ed25519 key); id = SHA-256(name ‖ \n ‖ 0x01 ‖ key)[:4] */
function parseKey(vkey: string) {
  const i = vkey.indexOf('+');
  const j = vkey.indexOf('+', i + 1);
  const name = vkey.slice(0, i);
  const raw = Buffer.from(vkey.slice(j + 1).trim(), 'base64');
  assert.equal(raw[0], 0x01);
  const id = sha(name, '\n', raw).subarray(0, 4);
  assert.equal(id.toString('hex'), vkey.slice(i + 1, j));
  return { name, id, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(1).toString('base64url') }, format: 'jwk' }) };
}
/** RFC 9162 §2.1.3.2 */
function inclusionOk(leaf: Buffer, index: number, size: number, path: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = sha(Buffer.from([1]), p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn >>= 1; sn >>= 1; }
    } else r = sha(Buffer.from([1]), r, p);
    fn >>= 1; sn >>= 1;
  }
  return sn === 0 && r.equals(root);
}
/** checks a checkpoint note against the log key: the signature line by (name, id) verifies */
function checkpointOk(note: string, k: ReturnType<typeof parseKey>): { size: number; root: Buffer; origin: string } | null {
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0) return null;
  const text = note.slice(0, cut + 1);
  const sigs = note.slice(cut + 2).split('\n').filter(Boolean);
  let ok = false;
  for (const line of sigs) {
    if (!line.startsWith(`\u2014 ${k.name} `)) continue;
    const raw = Buffer.from(line.slice(k.name.length + 3), 'base64');
    if (!raw.subarray(0, 4).equals(k.id)) continue;
    if (!edVerify(null, Buffer.from(text), k.key, raw.subarray(4))) return null;
    ok = true;
  }
  if (!ok) return null;
  const [origin, size, root] = text.split('\n');
  if (origin !== k.name || !/^(0|[1-9]\d*)$/.test(size)) return null;
  return { origin, size: Number(size), root: Buffer.from(root, 'base64') };
}
/** a receipt is in the log under the log key */
function receiptOk(text: string, k: ReturnType<typeof parseKey>): boolean {
  try { return receiptChecks(text, k); } catch { return false; }
}
function receiptChecks(text: string, k: ReturnType<typeof parseKey>): boolean {
  const r = JSON.parse(text);
  if (!r?.receipt?.log || typeof r.receipt.digest !== 'string') return false;
  const { tokens: _t, signature: _s, ...rest } = r;
  const { log, digest, ...inner } = r.receipt;
  const d = sha(jcs({ ...rest, receipt: inner }));
  if (d.toString('hex') !== digest) return false;
  const cp = checkpointOk(log.checkpoint, k);
  if (!cp || cp.size !== log.treeSize) return false;
  return inclusionOk(sha(Buffer.from([0]), d), log.index, log.treeSize, log.inclusionProof.map((h: string) => Buffer.from(h, 'base64')), cp.root);
}
// ------------------------------------------------------------------------------------------------

const receipts: any[] = [];

test('every seal is a leaf: receipts name issuer and jwks_uri, state their digest and carry an inclusion proof against a checkpoint of the same batch', async () => {
  const key = await t.call('GET', '/log/key');
  assert.equal(key.status, 200);
  assert.match(key.headers['content-type'], /^text\/plain/);
  assert.match(key.text, /^svc\.example\.org:8443\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+\n$/);
  const k = parseKey(key.text);
  const cp0 = await t.call('GET', '/log/checkpoint');
  assert.equal(cp0.status, 200);
  assert.match(cp0.headers['content-type'], /^text\/plain; charset=utf-8/);
  assert.match(cp0.headers['cache-control'], /max-age=[0-9]\b/);
  assert.ok(checkpointOk(cp0.text, k));

  const s = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  assert.equal(s.receipt.issuer, 'https://svc.example.org:8443');
  assert.equal(s.receipt.jwks_uri, 'https://svc.example.org:8443/.well-known/jwks.json');
  assert.match(s.receipt.digest, /^[0-9a-f]{64}$/);
  assert.deepEqual(Object.keys(s.receipt.log), ['index', 'treeSize', 'inclusionProof', 'checkpoint']);
  assert.ok(s.receipt.log.index < s.receipt.log.treeSize);
  assert.ok(receiptOk(JSON.stringify(s), k));
  // the other sealing paths: svc_shift, svc_compute, a contract fire (sealInTx), a reactor run
  const shift = (await t.tool('svc_shift', { steps: 2 }, m.apiKey)).body;
  const compute = (await t.call('POST', '/api/svc/compute', { domain: 'Quantum Mechanics', inputs: { w: 1e14, n: 0 } }, m.apiKey)).body;
  const d = (await t.call('POST', '/api/contracts', { templateId: 'invoice-dunning' }, m.apiKey)).body;
  const fire = (await t.call('POST', `/api/contracts/${d.id}/fire`, {}, m.apiKey)).body;
  assert.equal(fire.fired, true);
  const reactor = (await t.call('POST', '/api/reactor', { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.2 }, params: { r: 3.7 }, maxDepth: 4 }, m.apiKey)).body;
  for (const r of [shift, compute, fire, reactor.final]) {
    assert.ok(r?.receipt?.log, JSON.stringify(r).slice(0, 200));
    assert.ok(receiptOk(JSON.stringify(r), k), r.solver);
  }
  // the filed copy is the same receipt
  const filed = (await t.call('GET', `/api/receipts/${fire.receipt.id}`, undefined, m.apiKey)).body;
  assert.deepEqual(filed.receipt, fire.receipt);
});

test('1,000 receipts sealed concurrently each verify from the specifications alone; a change to any byte fails', async () => {
  const k = parseKey((await t.call('GET', '/log/key')).text);
  for (let b = 0; b < 10; b++) {
    const batch = await Promise.all(Array.from({ length: 100 }, (_, i) => t.call('POST', '/api/svc/protect', { health: i % 3 ? 'up' : 'down' }, m.apiKey)));
    for (const r of batch) { assert.equal(r.status, 200, r.text); receipts.push(r.body); }
  }
  assert.equal(receipts.length, 1000);
  const sizes = new Set(receipts.map((r) => r.receipt.log.treeSize));
  assert.ok(sizes.size < 1000, 'receipts of one group commit share a checkpoint');
  assert.equal(new Set(receipts.map((r) => r.receipt.log.index)).size, 1000);
  let rejected = 0;
  let seed = 1;
  const rnd = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
  receipts.forEach((r, n) => {
    // tokens (the caller's balance) and any per-receipt signature are outside the digest by definition
    const { tokens: _t, signature: _s, ...rest } = r;
    const text = JSON.stringify(rest);
    assert.ok(receiptOk(text, k), `receipt ${n}`);
    const bytes = Buffer.from(text);
    const positions = n === 0 ? bytes.map((_, i) => i) : [rnd(bytes.length), rnd(bytes.length), rnd(bytes.length)];
    for (const p of positions) {
      const c = Buffer.from(bytes);
      c[p] ^= 1;
      assert.equal(receiptOk(c.toString('latin1'), k), false, `receipt ${n}, byte ${p} (${String.fromCharCode(bytes[p])})`);
      rejected++;
    }
  });
  assert.ok(rejected > 3000);
});

test('tiles and entry bundles (c2sp.org/tlog-tiles) rebuild the checkpoint; partial tiles, caching, 404s', async () => {
  const k = parseKey((await t.call('GET', '/log/key')).text);
  const cp = checkpointOk((await t.call('GET', '/log/checkpoint')).text, k)!;
  assert.ok(cp.size >= 1000);
  const full = Math.floor(cp.size / 256);
  const leaves: Buffer[] = [];
  const digests: Buffer[] = [];
  const path = (n: number) => String(n).padStart(3, '0');
  for (let n = 0; n <= full; n++) {
    const w = n < full ? 256 : cp.size % 256;
    if (w === 0) break;
    const suffix = n < full ? '' : `.p/${w}`;
    const tile = await t.call('GET', `/log/tile/0/${path(n)}${suffix}`);
    assert.equal(tile.status, 200, `tile 0/${n}${suffix}`);
    assert.equal(tile.headers['content-type'], 'application/octet-stream');
    assert.match(tile.headers['cache-control'], /immutable/);
    const bytes = (await t.http.inject({ method: 'GET', url: `/log/tile/0/${path(n)}${suffix}` })).rawPayload;
    assert.equal(bytes.length, 32 * w);
    const entries = (await t.http.inject({ method: 'GET', url: `/log/tile/entries/${path(n)}${suffix}` })).rawPayload;
    assert.equal(entries.length, 34 * w);
    for (let i = 0; i < w; i++) {
      leaves.push(bytes.subarray(32 * i, 32 * i + 32));
      assert.equal(entries.readUInt16BE(34 * i), 32);
      const dg = entries.subarray(34 * i + 2, 34 * i + 34);
      digests.push(dg);
      assert.ok(sha(Buffer.from([0]), dg).equals(leaves[leaves.length - 1]), 'entry hashes to the level-0 tile');
    }
  }
  const mth = (h: Buffer[]): Buffer => {
    if (h.length === 1) return h[0];
    let s = 1; while (s * 2 < h.length) s *= 2;
    return sha(Buffer.from([1]), mth(h.slice(0, s)), mth(h.slice(s)));
  };
  assert.ok(mth(leaves).equals(cp.root), 'the tiles rebuild the checkpoint root');
  // level 1: each entry is the root of a full level-0 tile; partial width floor(size/256) mod 256
  const l1 = (await t.http.inject({ method: 'GET', url: `/log/tile/1/000.p/${full}` })).rawPayload;
  assert.equal(l1.length, 32 * full);
  for (let i = 0; i < full; i++) assert.ok(l1.subarray(32 * i, 32 * i + 32).equals(mth(leaves.slice(256 * i, 256 * i + 256))));
  // each receipt's digest is its entry
  for (const r of receipts.slice(0, 50)) assert.equal(digests[r.receipt.log.index].toString('hex'), r.receipt.digest);
  for (const bad of ['/log/tile/0/000.p/0', '/log/tile/0/x000/000', '/log/tile/1/000', `/log/tile/0/${path(full + 1)}`, '/log/tile/0/000.p/999', '/log/tile/entries/7']) {
    assert.equal((await t.call('GET', bad)).status, 404, bad);
  }
});

test('consistency proofs between checkpoints verify (RFC 9162 §2.1.4.2, written here); the tlog-proof of a receipt verifies offline', async () => {
  const k = parseKey((await t.call('GET', '/log/key')).text);
  const cps = [...new Map(receipts.map((r) => [r.receipt.log.treeSize, r.receipt.log.checkpoint])).values()].map((n) => checkpointOk(n, k)!);
  const verifyConsistency = (m: number, n: number, proof: Buffer[], r1: Buffer, r2: Buffer): boolean => {
    if (m === n) return proof.length === 0 && r1.equals(r2);
    const path = (m & (m - 1)) === 0 ? [r1, ...proof] : proof;
    let fn = m - 1, sn = n - 1;
    while (fn % 2 === 1) { fn >>= 1; sn >>= 1; }
    let fr = path[0], sr = path[0];
    for (const c of path.slice(1)) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        fr = sha(Buffer.from([1]), c, fr); sr = sha(Buffer.from([1]), c, sr);
        if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) { fn >>= 1; sn >>= 1; }
      } else sr = sha(Buffer.from([1]), sr, c);
      fn >>= 1; sn >>= 1;
    }
    return sn === 0 && fr.equals(r1) && sr.equals(r2);
  };
  let checked = 0;
  for (let i = 0; i + 1 < cps.length; i += Math.max(1, Math.floor(cps.length / 12))) {
    const a = cps[i], b = cps[cps.length - 1 - (i % 3)];
    if (a.size > b.size) continue;
    const r = await t.call('GET', `/log/consistency?old=${a.size}&new=${b.size}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.oldSize, r.body.newSize], [a.size, b.size]);
    const proof = r.body.proof.map((h: string) => Buffer.from(h, 'base64'));
    assert.ok(verifyConsistency(a.size, b.size, proof, a.root, b.root), `${a.size} → ${b.size}`);
    if (proof.length) assert.equal(verifyConsistency(a.size, b.size, proof.slice(1), a.root, b.root), false);
    checked++;
  }
  assert.ok(checked >= 5);
  assert.equal((await t.call('GET', '/log/consistency?old=5&new=3')).status, 400);
  assert.equal((await t.call('GET', '/log/consistency?old=5&new=999999')).status, 404);

  const r = receipts[123];
  const p = await t.call('GET', `/api/receipts/${r.receipt.id}/proof`, undefined, m.apiKey);
  assert.equal(p.status, 200, p.text);
  assert.match(p.headers['content-type'], /^text\/plain/);
  const [head, ...rest] = p.text.split('\n\n');
  const lines = head.split('\n');
  assert.equal(lines[0], 'c2sp.org/tlog-proof@v1');
  assert.equal(lines[1], `index ${r.receipt.log.index}`);
  const cp = checkpointOk(rest.join('\n\n'), k)!;
  assert.ok(cp.size >= r.receipt.log.treeSize);
  assert.ok(inclusionOk(sha(Buffer.from([0]), Buffer.from(r.receipt.digest, 'hex')), r.receipt.log.index, cp.size, lines.slice(2).map((h) => Buffer.from(h, 'base64')), cp.root));
  const other = await t.machine('other');
  assert.equal((await t.call('GET', `/api/receipts/${r.receipt.id}/proof`, undefined, other.apiKey)).status, 404);
  assert.equal((await t.call('GET', `/api/receipts/${r.receipt.id}/proof`)).status, 401);
});

test('seals composed before their transaction and seals under the locks interleave (issue 28): when another writer moves a machine between batches the batch is sealed again under the locks; every receipt verifies, log indexes are contiguous, the chain holds and the tokens add up', async () => {
  const k = parseKey((await t.call('GET', '/log/key')).text);
  const m2 = await t.machine('optimistic');
  const first = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m2.apiKey)).body;
  const stats0 = { ...t.app.sealer.stats };
  const mine: any[] = [first];
  const ROUNDS = 6, PER = 30, OUTSIDE = 5;
  for (let r = 0; r < ROUNDS; r++) {
    // requests in flight while another writer (a second node, an operator) charges the machine:
    // the node's view of the row is stale for the batches composed from it
    const calls = Array.from({ length: PER }, (_, i) => t.call('POST', '/api/svc/protect', { health: i % 2 ? 'up' : 'down' }, m2.apiKey));
    await new Promise((res) => setImmediate(res));
    if (r % 2) await t.app.db.query('UPDATE machines SET tokens_left = tokens_left - $2 WHERE zid = $1', [m2.zid, OUTSIDE]);
    for (const c of await Promise.all(calls)) { assert.equal(c.status, 200, c.text); mine.push(c.body); }
  }
  const stats = t.app.sealer.stats;
  assert.ok(stats.optimistic > stats0.optimistic, `sealed before the transaction: ${JSON.stringify(stats0)} → ${JSON.stringify(stats)}`);
  assert.ok(stats.locked > stats0.locked, `sealed under the locks after a row moved: ${JSON.stringify(stats0)} → ${JSON.stringify(stats)}`);
  // every receipt is in the log, each index once; together with the other tests' receipts the
  // indexes of this machine's receipts are distinct and below the last tree size
  for (const r of mine) assert.ok(receiptOk(JSON.stringify(r), k), r.receipt.id);
  assert.equal(new Set(mine.map((r) => r.receipt.log.index)).size, mine.length);
  const cp = checkpointOk((await t.call('GET', '/log/checkpoint')).text, k)!;
  const leaves = await t.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM log_leaves');
  assert.equal(cp.size, leaves[0].n, 'the tree has exactly the leaves written (no gap, no duplicate)');
  // the machine's chain: seq 1..n without a gap, valid; tokens: one per seal plus the outside charges
  const seqs = mine.map((r) => r.receipt.chain.seq).sort((a, b) => a - b);
  assert.deepEqual(seqs, Array.from({ length: mine.length }, (_, i) => seqs[0] + i));
  const v = (await t.call('GET', '/api/chain/verify', undefined, m2.apiKey)).body;
  assert.equal(v.valid, true, JSON.stringify(v).slice(0, 300));
  const last = mine.reduce((a, b) => (b.receipt.chain.seq > a.receipt.chain.seq ? b : a));
  assert.equal(last.tokens.remaining, first.tokens.remaining - ROUNDS * PER - (ROUNDS / 2) * OUTSIDE);
  const [row] = await t.app.db.query<{ tokens_left: number }>('SELECT tokens_left FROM machines WHERE zid = $1', [m2.zid]);
  assert.equal(Number(row.tokens_left), last.tokens.remaining);
});
