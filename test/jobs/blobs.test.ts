// Blobs (issue 27 item 6; docs/jobs.md "Blobs"): streamed uploads named by their SHA-256, ranged
// reads, per-machine ownership, the quota and the TTL sweep. Runs on the embedded store, and on
// PostgreSQL when DATABASE_URL is set.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { testNode, type TestNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { blobStore, parseRange } from '../../src/ops/blobs.ts';

const sha = (b: Uint8Array | string) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

async function upload(url: string, key: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/blobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', ...headers }, body: body as BodyInit });
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: json, headers: res.headers };
}

describe('blobs', () => {
  let node: TestNode;
  let url: string;
  let a: { apiKey: string; zid: string };
  let b: { apiKey: string; zid: string };
  const clock = fixedClock(1_790_000_000);

  before(async () => {
    node = await testNode({ clock, env: { SVC_BLOB_QUOTA_BYTES: String(64 * 1024), SVC_BLOB_MAX_BYTES: String(48 * 1024), SVC_BLOB_TTL_SECONDS: '3600' } });
    url = await node.listen();
    a = await node.machine('blob owner');
    b = await node.machine('another machine');
  });
  after(async () => { const t = Date.now(); await node.close(); console.log("close ms", Date.now() - t); });

  test('an upload answers the SHA-256 of the bytes (201), and the same bytes again change nothing (200)', async () => {
    const bytes = randomBytes(5000);
    const r = await upload(url, a.apiKey, bytes);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.digest, sha(bytes));
    assert.equal(r.body.bytes, 5000);
    assert.equal(r.headers.get('location'), `/api/blobs/${sha(bytes)}`);
    const again = await upload(url, a.apiKey, bytes);
    assert.equal(again.status, 200);
    assert.equal(again.body.digest, sha(bytes));
    assert.equal(again.body.created, false);
    const list = await node.call('GET', '/api/blobs', undefined, a.apiKey);
    assert.equal(list.status, 200);
    assert.equal(list.body.blobs.filter((x: any) => x.digest === sha(bytes)).length, 1);
    assert.equal(list.body.usedBytes, 5000);
  });

  test('GET gives the bytes with ETag = digest; Range gives 206 and its part; past the end is 416; HEAD gives the headers', async () => {
    const bytes = randomBytes(3000);
    const { body: { digest } } = await upload(url, a.apiKey, bytes);
    const auth = { authorization: `Bearer ${a.apiKey}` };
    const full = await fetch(`${url}/api/blobs/${digest}`, { headers: auth });
    assert.equal(full.status, 200);
    assert.equal(full.headers.get('etag'), `"${digest}"`);
    assert.equal(full.headers.get('accept-ranges'), 'bytes');
    assert.deepEqual(Buffer.from(await full.arrayBuffer()), bytes);
    const part = await fetch(`${url}/api/blobs/${digest}`, { headers: { ...auth, range: 'bytes=100-199' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 100-199/3000');
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100, 200));
    const tail = await fetch(`${url}/api/blobs/${digest}`, { headers: { ...auth, range: 'bytes=-10' } });
    assert.equal(tail.status, 206);
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(2990));
    const open = await fetch(`${url}/api/blobs/${digest}`, { headers: { ...auth, range: 'bytes=2500-' } });
    assert.deepEqual(Buffer.from(await open.arrayBuffer()), bytes.subarray(2500));
    const past = await fetch(`${url}/api/blobs/${digest}`, { headers: { ...auth, range: 'bytes=3000-3100' } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */3000');
    assert.equal((await past.json()).code, 'RANGE_NOT_SATISFIABLE');
    const head = await fetch(`${url}/api/blobs/${digest}`, { method: 'HEAD', headers: auth });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), '3000');
    assert.equal(head.headers.get('etag'), `"${digest}"`);
    const headPart = await fetch(`${url}/api/blobs/${digest}`, { method: 'HEAD', headers: { ...auth, range: 'bytes=0-9' } });
    assert.equal(headPart.status, 206);
    assert.equal(headPart.headers.get('content-length'), '10');
    const cached = await fetch(`${url}/api/blobs/${digest}`, { headers: { ...auth, 'if-none-match': `"${digest}"` } });
    assert.equal(cached.status, 304);
  });

  test('Range parsing follows RFC 9110 (ignored when malformed or multiple)', () => {
    assert.deepEqual(parseRange('bytes=0-0', 10), { start: 0, end: 0 });
    assert.deepEqual(parseRange('bytes=5-100', 10), { start: 5, end: 9 });
    assert.deepEqual(parseRange('bytes=-100', 10), { start: 0, end: 9 });
    assert.equal(parseRange('bytes=-0', 10), 'unsatisfiable');
    assert.equal(parseRange('bytes=10-', 10), 'unsatisfiable');
    assert.equal(parseRange('bytes=5-2', 10), null);
    assert.equal(parseRange('bytes=0-1,3-4', 10), null);
    assert.equal(parseRange('items=0-1', 10), null);
    assert.equal(parseRange(undefined, 10), null);
  });

  test("another machine's blob is 404, even when it holds the same bytes under its own claim", async () => {
    const bytes = randomBytes(2000);
    const { body: { digest } } = await upload(url, a.apiKey, bytes);
    const other = await node.call('GET', `/api/blobs/${digest}`, undefined, b.apiKey);
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'NOT_FOUND');
    assert.equal((await node.call('DELETE', `/api/blobs/${digest}`, undefined, b.apiKey)).status, 404);
    // b uploads the same bytes: its own claim; a's deletion then leaves b's readable
    assert.equal((await upload(url, b.apiKey, bytes)).status, 201);
    assert.equal((await node.call('DELETE', `/api/blobs/${digest}`, undefined, a.apiKey)).status, 200);
    assert.equal((await node.call('GET', `/api/blobs/${digest}`, undefined, a.apiKey)).status, 404);
    const res = await fetch(`${url}/api/blobs/${digest}`, { headers: { authorization: `Bearer ${b.apiKey}` } });
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
    assert.equal((await node.call('DELETE', `/api/blobs/${digest}`, undefined, b.apiKey)).status, 200);
    // without a key: 401
    assert.equal((await node.call('GET', `/api/blobs/${digest}`)).status, 401);
  });

  test('a gzip body is decompressed on the way in: the digest names the bytes, not the compressed form', async () => {
    const text = 'p cnf 3 2\n1 -3 0\n2 3 -1 0\n'.repeat(200);
    const r = await upload(url, a.apiKey, gzipSync(text), { 'content-encoding': 'gzip' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.digest, sha(text));
    assert.equal(r.body.bytes, Buffer.byteLength(text));
    const back = await fetch(`${url}/api/blobs/${r.body.digest}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
    assert.equal(await back.text(), text);
  });

  test('bad digests, malformed bodies and bodies too large are 4xx', async () => {
    for (const d of ['sha256:xyz', 'md5:00', `sha256:${'A'.repeat(64)}`, 'sha256:' + 'a'.repeat(63)]) {
      const r = await node.call('GET', `/api/blobs/${encodeURIComponent(d)}`, undefined, a.apiKey);
      assert.equal(r.status, 400, d);
      assert.equal(r.body.code, 'INVALID_INPUT');
    }
    const notGzip = await upload(url, a.apiKey, 'plain text', { 'content-encoding': 'gzip' });
    assert.equal(notGzip.status, 400);
    assert.equal(notGzip.body.code, 'INVALID_INPUT');
    const brotli = await upload(url, a.apiKey, 'x', { 'content-encoding': 'br' });
    assert.equal(brotli.status, 415);
    const empty = await upload(url, a.apiKey, '');
    assert.equal(empty.status, 400);
    // declared too large: refused before it is read; streamed too large (gzip hides the size): refused as it flows
    const big = await upload(url, a.apiKey, randomBytes(49 * 1024));
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'PAYLOAD_TOO_LARGE');
    const bomb = await upload(url, a.apiKey, gzipSync(Buffer.alloc(200 * 1024)), { 'content-encoding': 'gzip' });
    assert.equal(bomb.status, 413);
    // nothing of the refused uploads is left
    const rows = await node.app.db.query('SELECT count(*)::int AS n FROM blob_uploads');
    assert.equal(rows[0].n, 0);
  });

  test('the quota counts a machine\'s blobs: past it, 429 QUOTA_EXCEEDED; another machine is not affected', async () => {
    const m = await node.machine('quota');
    const first = await upload(url, m.apiKey, randomBytes(40 * 1024));
    assert.equal(first.status, 201);
    const second = await upload(url, m.apiKey, randomBytes(30 * 1024));
    assert.equal(second.status, 429, JSON.stringify(second.body));
    assert.equal(second.body.code, 'QUOTA_EXCEEDED');
    assert.equal(second.body.quota.bytes, 64 * 1024);
    // gzip hides the size until it flows: refused while streaming
    const hidden = await upload(url, m.apiKey, gzipSync(randomBytes(30 * 1024)), { 'content-encoding': 'gzip' });
    assert.equal(hidden.status, 429);
    const other = await node.machine('quota neighbour');
    assert.equal((await upload(url, other.apiKey, randomBytes(30 * 1024))).status, 201);
    assert.equal((await node.call('DELETE', `/api/blobs/${first.body.digest}`, undefined, m.apiKey)).status, 200);
    assert.equal((await upload(url, m.apiKey, randomBytes(30 * 1024))).status, 201);
  });

  test('an unreferenced blob goes after its TTL since its last use; a referenced one stays; the bytes go with the last claim', async () => {
    const m = await node.machine('ttl');
    const keep = await upload(url, m.apiKey, randomBytes(1000));
    const drop = await upload(url, m.apiKey, randomBytes(1000));
    const store = blobStore(node.app);
    await store.refer(m.zid, keep.body.digest, 'receipt:test');
    clock.advance(1800);
    await store.sweep();
    assert.equal((await node.call('GET', `/api/blobs/${drop.body.digest}`, undefined, m.apiKey)).status, 200); // a read is a use
    clock.advance(3000);
    await store.sweep();
    assert.equal((await node.call('GET', `/api/blobs/${drop.body.digest}`, undefined, m.apiKey)).status, 200);
    clock.advance(3601);
    const swept = await store.sweep();
    assert.ok(swept.claims >= 1);
    assert.equal((await node.call('GET', `/api/blobs/${drop.body.digest}`, undefined, m.apiKey)).status, 404);
    assert.equal((await node.call('GET', `/api/blobs/${keep.body.digest}`, undefined, m.apiKey)).status, 200);
    const left = await node.app.db.query('SELECT count(*)::int AS n FROM blob_contents WHERE digest = $1', [drop.body.digest.slice(7)]);
    assert.equal(left[0].n, 0);
    await store.release('receipt:test');
    clock.advance(3601);
    await store.sweep();
    assert.equal((await node.call('GET', `/api/blobs/${keep.body.digest}`, undefined, m.apiKey)).status, 404);
  });
  test('the inputs a receipt seals by digest stay as long as the receipt; a job holds the blobs it names until it ends', async () => {
    const m = await node.machine('held inputs');
    const sealedInput = await upload(url, m.apiKey, 'c held by a receipt\np cnf 2 2\n1 2 0\n-1 2 0\n');
    const jobInput = await upload(url, m.apiKey, 'c named by a job\np cnf 3 1\n1 2 3 0\n');
    const loose = await upload(url, m.apiKey, 'c named by nothing\np cnf 1 1\n1 0\n');
    const call = await node.call('POST', '/api/svc/sat', { cnf: { blob: sealedInput.body.digest } }, m.apiKey);
    assert.equal(call.status, 200, call.text);
    assert.equal(call.body.input.cnf.blob, sealedInput.body.digest);
    const sub = await node.call('POST', '/api/jobs', { tool: 'svc_sat', arguments: { cnf: { blob: jobInput.body.digest } }, budget: { seconds: 5 } }, m.apiKey);
    assert.equal(sub.status, 202, sub.text);
    const refs = async () => (await node.app.db.query<{ digest: string; ref: string }>('SELECT digest, ref FROM blob_refs WHERE zid = $1', [m.zid]));
    assert.ok((await refs()).some((r) => r.ref === `job:${sub.body.id}` && `sha256:${r.digest}` === jobInput.body.digest), 'the job holds its input from its submission');
    let v = sub.body;
    for (let i = 0; i < 200 && !['succeeded', 'failed', 'cancelled'].includes(v.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      v = (await node.call('GET', `/api/jobs/${sub.body.id}`, undefined, m.apiKey)).body;
    }
    assert.equal(v.status, 'succeeded', JSON.stringify(v));
    const store = blobStore(node.app);
    await store.sweep();
    assert.ok(!(await refs()).some((r) => r.ref.startsWith('job:')), 'an ended job holds nothing');
    clock.advance(2 * 3600 + 1);
    await store.sweep();
    // the receipts (the synchronous call's and the job's) keep their inputs; the loose blob is gone
    assert.equal((await node.call('GET', `/api/blobs/${sealedInput.body.digest}`, undefined, m.apiKey)).status, 200);
    assert.equal((await node.call('GET', `/api/blobs/${jobInput.body.digest}`, undefined, m.apiKey)).status, 200);
    assert.equal((await node.call('GET', `/api/blobs/${loose.body.digest}`, undefined, m.apiKey)).status, 404);
  });
});
