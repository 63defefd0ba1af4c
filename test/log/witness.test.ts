// Witnesses (issue 20; c2sp.org/tlog-witness, tlog-cosignature): two nodes, one witnessing the
// other. The log submits each checkpoint; the witness pins the log's key on first use, checks
// consistency and cosigns; the log's checkpoint and tlog-proofs carry the cosignature. A checkpoint
// inconsistent with an earlier one (a split view, signed with the log's own key) is refused with
// the spec's status and kept as evidence; the other refusals have the spec's codes too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { freePort } from '../scale/harness.ts';
import { checkpointText, ed25519Raw, parseCheckpointText, parseNote, parseVkey, signNote, verifyNote, EMPTY_ROOT } from '../../src/core/tlog.ts';
import { consistencyProof, logState } from '../../src/services/tlog.ts';

let log: TestNode;
let wit: TestNode;
let logUrl: string;
let witUrl: string;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  const port = await freePort();
  witUrl = `http://127.0.0.1:${port}`;
  log = await testNode({ env: { SVC_WITNESSES: witUrl } });
  logUrl = await log.listen();
  // the witness knows only the log's URL: it pins the log's key on first use
  wit = await testNode({ env: { SVC_WITNESS_OF: logUrl, SVC_BASE_URL: witUrl } });
  await wit.http.listen({ port, host: '127.0.0.1' });
  m = await log.machine('witnessed');
});
after(async () => { await log.close(); await wit.close(); });

const post = (body: string) => fetch(`${witUrl}/add-checkpoint`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function cosigned(size: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const note = await (await fetch(`${logUrl}/log/checkpoint`)).text();
    const cp = parseCheckpointText(parseNote(note)!.text)!;
    if (cp.size >= size && parseNote(note)!.signatures.length >= 2) return note;
    await sleep(25);
  }
  throw new Error(`no cosigned checkpoint of size ${size}`);
}

test('the log submits each checkpoint; the witness cosigns after checking consistency; checkpoint and tlog-proof carry the cosignature', async () => {
  const logKey = parseVkey(await (await fetch(`${logUrl}/log/key`)).text())!;
  const witKey = parseVkey(await (await fetch(`${witUrl}/log/witness-key`)).text())!;
  assert.equal(witKey.type, 0x04);
  assert.equal(witKey.name, `127.0.0.1:${new URL(witUrl).port}/witness`);
  let last: any;
  for (let i = 0; i < 5; i++) last = (await log.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  const note = await cosigned(last.receipt.log.treeSize);
  const v = verifyNote(note, [logKey, witKey]);
  assert.ok(v.ok && v.verifiedBy.length === 2, note);
  // the witness's own record, and the log's view of it
  const ws = (await (await fetch(`${witUrl}/log/witnesses`)).json()) as any;
  assert.equal(ws.witness.logs[0].origin, logKey.name);
  assert.ok(ws.witness.logs[0].cosignedSize >= last.receipt.log.treeSize);
  const ls = (await log.call('GET', '/log/witnesses')).body;
  assert.equal(ls.witnesses[0].url, witUrl);
  assert.equal(ls.witnesses[0].error, null);
  // the offline proof of a receipt carries the witness's cosignature
  const proof = (await log.call('GET', `/api/receipts/${last.receipt.id}/proof`, undefined, m.apiKey)).text;
  const cp = proof.slice(proof.indexOf('\n\n') + 2);
  assert.ok(verifyNote(cp, [witKey]).ok, 'the cosignature verifies alone');
});

test('add-checkpoint refusals: 409 with the size, 422 for a split view (kept as evidence), 403, 404, 400', async () => {
  await cosigned(1);
  const st = await logState(log.app.db);
  const [witnessed] = await wit.app.db.query<any>('SELECT size, root FROM witness_logs');
  const size = Number(witnessed.size);
  const origin = log.app.logOrigin;
  const sign = (n: number, root: Buffer, key = log.app.logKey) => signNote(checkpointText(origin, n, root), origin, key.privateKey, ed25519Raw(key.publicKey));
  // the current checkpoint again, from the wrong old size: 409 and the witness's size
  const r409 = await post(`old ${size - 1}\n\n${st.checkpoint}`);
  assert.equal(r409.status, 409);
  assert.equal(r409.headers.get('content-type'), 'text/x.tlog.size');
  assert.equal(await r409.text(), `${size}\n`);
  // a split view: the same size with another root, signed with the log's key
  const forkRoot = Buffer.alloc(32, 7);
  const r422a = await post(`old ${size}\n\n${sign(size, forkRoot)}`);
  assert.equal(r422a.status, 422);
  // a larger tree whose proof does not lead from the cosigned root
  const realProof = (await consistencyProof(log.app.db, size - 1, size)).map((h) => h.toString('base64') + '\n').join('');
  const r422b = await post(`old ${size}\n${realProof}\n${sign(size + 1, Buffer.alloc(32, 9))}`);
  assert.equal(r422b.status, 422);
  const ev = (await (await fetch(`${witUrl}/log/witnesses`)).json()) as any;
  assert.deepEqual(ev.witness.evidence.map((e: any) => e.kind).sort(), ['fork', 'inconsistent']);
  // nothing was cosigned: the witness still stands at the same size
  assert.equal(Number((await wit.app.db.query<any>('SELECT size FROM witness_logs'))[0].size), size);
  // a signature by another key: 403; an unknown origin: 404; old > size and malformed: 400
  const other = await testNode();
  try {
    const forged = signNote(checkpointText(origin, size + 1, Buffer.alloc(32, 1)), origin, other.app.logKey.privateKey, ed25519Raw(other.app.logKey.publicKey));
    assert.equal((await post(`old ${size}\n\n${forged}`)).status, 403);
    assert.equal((await post(`old 0\n\n${other.app.logKey && signNote(checkpointText('elsewhere.example/log', 0, EMPTY_ROOT), 'elsewhere.example/log', other.app.logKey.privateKey, ed25519Raw(other.app.logKey.publicKey))}`)).status, 404);
  } finally { await other.close(); }
  assert.equal((await post(`old ${st.size + 5}\n\n${st.checkpoint}`)).status, 400);
  assert.equal((await post('nonsense')).status, 400);
  // the log goes on: its next checkpoint is cosigned again
  const next = (await log.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  await cosigned(next.receipt.log.treeSize);
});
