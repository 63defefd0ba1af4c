// File-like inputs given as blobs and results too large to send inline (issue 27 item 6;
// docs/jobs.md "Blobs"): the receipt seals the digest, the value equals the inline call's, another
// machine's digest is 404, and `svc verify --replay` fetches what it needs from the node.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testNode, type TestNode } from '../helpers.ts';
import { replayReceipt } from '../../src/verify.ts';
import { joinLargeResult, derivedSeedOf, textOfBytes } from '../../src/ops/files.ts';
import { derivedSeed } from '../../src/ops/solvers.ts';

const sha = (b: Uint8Array | string) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** a satisfiable 3-CNF over n variables (planted: x_v = v odd), deterministic */
function plantedCnf(n: number, m: number): string {
  let s = 7;
  const next = () => { s = (s * 1103515245 + 12345) % 2147483648; return s; };
  const lines = [`c planted`, `p cnf ${n} ${m}`];
  for (let i = 0; i < m; i++) {
    const a = 1 + (next() % n), b = 1 + (next() % n), c = 1 + (next() % n);
    lines.push(`${a % 2 ? a : -a} ${next() % 2 ? b : -b} ${next() % 2 ? c : -c} 0`);
  }
  return lines.join('\n') + '\n';
}

async function upload(url: string, key: string, body: string): Promise<string> {
  const res = await fetch(`${url}/api/blobs`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
  const j: any = await res.json();
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(j));
  return j.digest;
}

const strip = (r: any) => { const { stats: _s, ...rest } = r; return rest; };

describe('blob inputs', () => {
  let node: TestNode;
  let url: string;
  let a: { apiKey: string; zid: string };
  let b: { apiKey: string; zid: string };
  before(async () => {
    node = await testNode();
    url = await node.listen();
    a = await node.machine('blob inputs');
    b = await node.machine('someone else');
  });
  after(async () => { await node.close(); });

  test('a CNF given as a blob: the receipt seals {blob, bytes}, the value and result equal the inline call\'s', async () => {
    const cnf = plantedCnf(60, 200);
    const digest = await upload(url, a.apiKey, cnf);
    const inline = await node.call('POST', '/api/svc/sat', { cnf }, a.apiKey);
    assert.equal(inline.status, 200, inline.text);
    const viaBlob = await node.call('POST', '/api/svc/sat', { cnf: { blob: digest } }, a.apiKey);
    assert.equal(viaBlob.status, 200, viaBlob.text);
    assert.deepEqual(viaBlob.body.input.cnf, { blob: digest, bytes: Buffer.byteLength(cnf) });
    assert.equal(viaBlob.body.seed, inline.body.seed);
    assert.ok(Object.is(viaBlob.body.value, inline.body.value));
    assert.deepEqual(strip(viaBlob.body.result), strip(inline.body.result));
    assert.equal(viaBlob.body.result.satisfiable, true);
    // the stored receipt seals the digest, never the bytes
    const stored = await node.call('GET', `/api/receipts/${viaBlob.body.receipt.id}`, undefined, a.apiKey);
    if (stored.status === 200) assert.ok(!JSON.stringify(stored.body).includes('p cnf 60'));
    // over MCP too
    const tool = await node.tool('svc_sat', { cnf: { blob: digest } }, a.apiKey);
    assert.equal(tool.isError, false, JSON.stringify(tool.body));
    assert.ok(Object.is(tool.body.value, inline.body.value));
  });

  test('the seed a blob input derives is the one the same text derives inline (streamed over its bytes)', () => {
    for (const text of ['p cnf 1 1\n1 0\n', '\ufeffé "quoted" \\ \u0001 ☃ 😀\n'.repeat(1000)]) {
      const inline = derivedSeed({ cnf: text, method: 'cdcl' });
      assert.equal(derivedSeedOf({ cnf: new TextEncoder().encode(text), method: 'cdcl' }), inline);
    }
  });

  test("another machine's blob as an input is 404; a malformed reference is 400", async () => {
    const digest = await upload(url, a.apiKey, plantedCnf(10, 20));
    const r = await node.call('POST', '/api/svc/sat', { cnf: { blob: digest } }, b.apiKey);
    assert.equal(r.status, 404, r.text);
    assert.equal(r.body.code, 'NOT_FOUND');
    const bad = await node.call('POST', '/api/svc/sat', { cnf: { blob: 'sha256:nothex' } }, a.apiKey);
    assert.equal(bad.status, 400);
    assert.match(bad.body.issues[0].path, /^cnf/);
    const extra = await node.call('POST', '/api/svc/sat', { cnf: { blob: digest, more: 1 } }, a.apiKey);
    assert.equal(extra.status, 400);
    // an inline value keeps its own checks and messages
    const tooLong = await node.call('POST', '/api/svc/sat', { cnf: 'x'.repeat(9 * 1024 * 1024) }, a.apiKey);
    assert.ok(tooLong.status === 400 || tooLong.status === 413, tooLong.text);
  });

  test('an array input given as a JSON blob is checked by the field\'s own schema and equals the inline call', async () => {
    const clauses = [[1, -2], [2, 3], [-1, -3], [1, 3]];
    const digest = await upload(url, a.apiKey, JSON.stringify(clauses));
    const inline = await node.call('POST', '/api/svc/sat', { clauses }, a.apiKey);
    const viaBlob = await node.call('POST', '/api/svc/sat', { clauses: { blob: digest } }, a.apiKey);
    assert.equal(viaBlob.status, 200, viaBlob.text);
    assert.ok(Object.is(viaBlob.body.value, inline.body.value));
    assert.equal(viaBlob.body.seed, inline.body.seed);
    assert.deepEqual(viaBlob.body.input.clauses, { blob: digest, bytes: Buffer.byteLength(JSON.stringify(clauses)) });
    const notJson = await upload(url, a.apiKey, '[[1, 2], oops');
    const r1 = await node.call('POST', '/api/svc/sat', { clauses: { blob: notJson } }, a.apiKey);
    assert.equal(r1.status, 400);
    assert.match(r1.body.error, /not JSON/);
    const wrong = await upload(url, a.apiKey, JSON.stringify([[1, 0.5]]));
    const r2 = await node.call('POST', '/api/svc/sat', { clauses: { blob: wrong } }, a.apiKey);
    assert.equal(r2.status, 400);
    assert.match(r2.body.issues[0].path, /^clauses\.0\.1/);
  });

  test('svc verify --replay fetches a blob input from the node (with the key) and reproduces the receipt', async () => {
    const cnf = plantedCnf(40, 150);
    const digest = await upload(url, a.apiKey, cnf);
    const r = await node.call('POST', '/api/svc/sat', { cnf: { blob: digest } }, a.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await replayReceipt(r.body, { url, key: a.apiKey }), { ok: true });
    // without the node: the replay says what it needs; with the original file: it runs
    const missing = await replayReceipt(r.body, {});
    assert.equal(missing.ok, false);
    assert.match(missing.reason!, /--url/);
    assert.deepEqual(await replayReceipt(r.body, { inputs: { cnf } }), { ok: true });
    const wrongFile = await replayReceipt(r.body, { inputs: { cnf: cnf + 'c\n' } });
    assert.equal(wrongFile.ok, false);
    // another machine's key cannot fetch it
    const other = await replayReceipt(r.body, { url, key: b.apiKey });
    assert.equal(other.ok, false);
    assert.match(other.reason!, /404/);
  });
});

describe('big outputs', () => {
  let node: TestNode;
  let url: string;
  let a: { apiKey: string; zid: string };
  before(async () => {
    // a small inline limit, so an ordinary result is "big"
    node = await testNode({ env: { SVC_INLINE_RESULT_BYTES: '2000' } });
    url = await node.listen();
    a = await node.machine('big outputs');
  });
  after(async () => { await node.close(); });

  test('a result over SVC_INLINE_RESULT_BYTES keeps its headline figures and puts the rest in a blob named in the sealed result', async () => {
    const cnf = plantedCnf(400, 1200);
    const r = await node.call('POST', '/api/svc/sat', { cnf }, a.apiKey);
    assert.equal(r.status, 200, r.text);
    const held = r.body.result.blob;
    assert.ok(held && /^sha256:[0-9a-f]{64}$/.test(held.blob), JSON.stringify(r.body.result));
    assert.ok(held.holds.includes('result.model'), JSON.stringify(held));
    assert.equal(r.body.result.satisfiable, true); // a scalar stays inline
    assert.equal(typeof r.body.value, 'number');
    assert.ok(r.body.precision);
    assert.ok(Buffer.byteLength(JSON.stringify(r.body.result)) < 2000);
    // the owner reads the blob; with it, the full result is the one the solver produced
    const res = await fetch(`${url}/api/blobs/${held.blob}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(sha(text), held.blob);
    assert.equal(Buffer.byteLength(text), held.bytes);
    const full = joinLargeResult(r.body.result, text).result as any;
    assert.equal(full.model.length, 400);
    // every clause is satisfied by the assignment the blob holds
    const values = full.model as (boolean | number)[];
    const truth = (v: number) => { const x = values[Math.abs(v) - 1]; const t = x === true || x === 1 || (typeof x === 'number' && x > 0); return v > 0 ? t : !t; };
    for (const line of cnf.split('\n').filter((l) => /^-?\d/.test(l))) {
      const lits = line.split(/\s+/).map(Number).filter((x) => x !== 0);
      assert.ok(lits.some(truth), line);
    }
    // kept while the receipt lives: a reference holds it against the TTL sweep
    const refs = await node.app.db.query('SELECT count(*)::int AS n FROM blob_refs WHERE digest = $1', [held.blob.slice(7)]);
    assert.equal(refs[0].n, 1);
    // the replay fetches it and compares the whole result
    assert.deepEqual(await replayReceipt(r.body, { url, key: a.apiKey }), { ok: true });
    const noUrl = await replayReceipt(r.body, {});
    assert.equal(noUrl.ok, false);
  });
});
