// A CNF uploaded as a blob and solved as a job (issue 27), at 3 MB so that the three solves here
// stay short (the 300 MB line is test/scale/big-cnf-job.scale.ts, `npm run test:scale`):
// the job's receipt seals the digest, its value equals the synchronous call's, `svc verify
// --replay --url` reproduces it, and another machine's job cannot read the blob.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { cnfStream } from './cnf-stream.ts';
import { replayReceipt } from '../../src/verify.ts';

const MB = 1024 * 1024;

async function finished(node: TestNode, id: string, key: string): Promise<any> {
  for (;;) {
    const v = (await node.call('GET', `/api/jobs/${id}?wait=20`, undefined, key)).body;
    if (['succeeded', 'failed', 'cancelled'].includes(v.status)) return v;
  }
}

describe('a CNF blob solved as a job', () => {
  let node: TestNode;
  let url: string;
  let a: { apiKey: string; zid: string };
  let b: { apiKey: string; zid: string };
  let digest: string;
  let bytes: number;
  before(async () => {
    node = await testNode();
    url = await node.listen();
    a = await node.machine('blob job');
    b = await node.machine('other');
    const cnf = cnfStream(3 * MB, 10_000, 3);
    const parts: Buffer[] = [];
    for await (const c of cnf.stream) parts.push(c as Buffer);
    const res = await fetch(`${url}/api/blobs`, { method: 'POST', headers: { authorization: `Bearer ${a.apiKey}` }, body: Buffer.concat(parts) });
    const j: any = await res.json();
    assert.equal(res.status, 201, JSON.stringify(j));
    assert.equal(j.digest, cnf.digest());
    digest = j.digest;
    bytes = j.bytes;
  });
  after(async () => { await node.close(); });

  test('the job seals the digest, equals the synchronous call, and replays from the node', { timeout: 240_000 }, async () => {
    const sub = await node.call('POST', '/api/jobs', { tool: 'svc_sat', arguments: { cnf: { blob: digest } }, budget: { seconds: 120 } }, a.apiKey);
    assert.equal(sub.status, 202, sub.text);
    const job = await finished(node, sub.body.id, a.apiKey);
    assert.equal(job.status, 'succeeded', JSON.stringify(job.response?.body).slice(0, 400));
    const sealed = job.response.body;
    assert.deepEqual(sealed.input.cnf, { blob: digest, bytes });
    assert.equal(sealed.result.satisfiable, true);
    const sync = await node.call('POST', '/api/svc/sat', { cnf: { blob: digest } }, a.apiKey);
    assert.equal(sync.status, 200, sync.text);
    assert.ok(Object.is(sync.body.value, sealed.value));
    assert.equal(sync.body.seed, sealed.seed);
    assert.deepEqual(await replayReceipt(sealed, { url, key: a.apiKey }), { ok: true });
  });

  test("another machine's job naming the blob fails with the synchronous call's 404", { timeout: 120_000 }, async () => {
    const sub = await node.call('POST', '/api/jobs', { tool: 'svc_sat', arguments: { cnf: { blob: digest } }, budget: { seconds: 60 } }, b.apiKey);
    assert.equal(sub.status, 202, sub.text);
    const job = await finished(node, sub.body.id, b.apiKey);
    assert.equal(job.status, 'failed');
    assert.equal(job.response.status, 404);
    assert.equal(job.response.body.code, 'NOT_FOUND');
  });
});
