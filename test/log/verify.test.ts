// `svc verify` without trusting the node (issue 20): offline (digest, inclusion proof, checkpoint
// signature by the log key), --url (consistency of the node's current checkpoint with the
// receipt's; a forged fork is a split view), --replay (the solver again, bit for bit), and the
// replay of every solver's default body.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testNode, type TestNode } from '../helpers.ts';
import { checkpointText, ed25519Raw, leafHash, signNote } from '../../src/core/tlog.ts';
import { replayReceipt } from '../../src/verify.ts';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';

const run = promisify(execFile);
const CLI = new URL('../../bin/svc.js', import.meta.url).pathname;
let t: TestNode;
let url: string;
let m: Awaited<ReturnType<TestNode['machine']>>;
let dir: string;
before(async () => { t = await testNode(); url = await t.listen(); m = await t.machine('verifier'); dir = mkdtempSync(join(tmpdir(), 'svc-verify-')); });
after(async () => { await t.close(); });

const svc = (args: string[]) => run(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 })
  .then((r) => ({ code: 0, out: JSON.parse(r.stdout), stderr: r.stderr }), (e) => ({ code: e.code, out: e.stdout ? JSON.parse(e.stdout) : null, stderr: e.stderr }));
const save = (name: string, x: unknown) => { const p = join(dir, name); writeFileSync(p, typeof x === 'string' ? x : JSON.stringify(x)); return p; };

test('offline: digest, inclusion proof and checkpoint signature against the log key (--vkey); any edit fails', async () => {
  await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey);
  const r = (await t.call('POST', '/api/svc/protect', { health: 'slow' }, m.apiKey)).body;
  assert.ok(r.receipt.log.inclusionProof.length > 0);
  const vkey = (await t.call('GET', '/log/key')).text.trim();
  const ok = await svc(['verify', save('r.json', r), '--vkey', vkey]);
  assert.equal(ok.code, 0, JSON.stringify(ok.out) + ok.stderr);
  assert.deepEqual(ok.out.log, { digest: true, inclusion: true, checkpoint: true, index: r.receipt.log.index, treeSize: r.receipt.log.treeSize, origin: '127.0.0.1:8787/log', keySource: 'vkey' });
  assert.equal(ok.out.hmac, null);
  assert.equal(ok.out.consistency, null);
  // the vkey from a file works the same
  assert.equal((await svc(['verify', save('r.json', r), '--vkey', save('log.vkey', vkey + '\n')])).code, 0);
  const proof = [...r.receipt.log.inclusionProof];
  const flipped = Buffer.from(proof[0], 'base64'); flipped[5] ^= 1; proof[0] = flipped.toString('base64');
  const otherKey = (await testNode()); // another deployment: another log key
  const foreign = (await otherKey.call('GET', '/log/key')).text.trim();
  await otherKey.close();
  for (const [name, edited, args, why] of [
    ['value', { ...r, value: r.value + 1 }, [], /canonical body does not hash/],
    ['proof', { ...r, receipt: { ...r.receipt, log: { ...r.receipt.log, inclusionProof: proof } } }, [], /inclusion proof/],
    ['index', { ...r, receipt: { ...r.receipt, log: { ...r.receipt.log, index: r.receipt.log.index + 1 } } }, [], /inclusion proof/],
    ['digest', { ...r, receipt: { ...r.receipt, digest: '0'.repeat(64) } }, [], /canonical body/],
    ['checkpoint', { ...r, receipt: { ...r.receipt, log: { ...r.receipt.log, checkpoint: r.receipt.log.checkpoint.replace(/\n(\d+)\n/, (_: string, n: string) => `\n${Number(n) + 1}\n`) } } }, [], /checkpoint/],
    ['key', r, ['--vkey', foreign], /no signature by a trusted key/],
  ] as const) {
    const bad = await svc(['verify', save(`${name}.json`, edited), '--vkey', vkey, ...args]);
    assert.equal(bad.code, 1, name);
    assert.equal(bad.out.valid, false, name);
    assert.match(bad.out.reason, why, name);
  }
});

test('--url: the node\'s current checkpoint is consistent with the receipt\'s; a forged checkpoint signed by the log key is a split view', async () => {
  const r = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  for (let i = 0; i < 3; i++) await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey);
  const v = await svc(['verify', save('u.json', r), '--url', url]);
  assert.equal(v.code, 0, JSON.stringify(v.out));
  assert.equal(v.out.consistency, true);
  assert.ok(v.out.currentSize > r.receipt.log.treeSize);
  assert.equal(v.out.log.keySource, `${url}/.well-known/jwks.json`);
  // with the key, the node also checks the HMAC proof
  const h = await svc(['verify', save('u.json', r), '--url', url, '--key', m.apiKey]);
  assert.deepEqual([h.code, h.out.hmac], [0, true]);

  // a log that shows this receipt a different history: a one-leaf tree signed with the same key
  const d = Buffer.from(r.receipt.digest, 'hex');
  const note = signNote(checkpointText(t.app.logOrigin, 1, leafHash(d)), t.app.logOrigin, t.app.logKey.privateKey, ed25519Raw(t.app.logKey.publicKey));
  const forged = { ...r, receipt: { ...r.receipt, log: { index: 0, treeSize: 1, inclusionProof: [], checkpoint: note } } };
  const off = await svc(['verify', save('f.json', forged), '--vkey', (await t.call('GET', '/log/key')).text.trim()]);
  assert.equal(off.code, 0, 'offline, a signed fork cannot be told apart');
  const on = await svc(['verify', save('f.json', forged), '--url', url]);
  assert.equal(on.code, 1);
  assert.equal(on.out.consistency, false);
  assert.match(on.out.reason, /split view/);
});

test('--replay: the solver runs again from the receipt\'s input and seed and must match bit for bit', async () => {
  const r = (await t.call('POST', '/api/svc/quant', {}, m.apiKey)).body;
  const ok = await svc(['verify', save('q.json', r), '--jwks', save('jwks.json', (await t.call('GET', '/.well-known/jwks.json')).body), '--replay']);
  assert.equal(ok.code, 0, JSON.stringify(ok.out));
  assert.equal(ok.out.replay, true);
  // a receipt whose value was not what the solver gives fails the replay (and the digest)
  assert.equal((await replayReceipt({ ...r, value: r.value * (1 + 2 ** -52) })).ok, false);
  assert.equal((await replayReceipt({ ...r, result: { ...r.result, extra: 1 } })).ok, false);
  assert.equal((await replayReceipt({ ...r, input: { ...r.input, paths: (r.input.paths ?? 10000) + 1 } })).ok, false);
  const shift = (await t.tool('svc_shift', { steps: 1 }, m.apiKey)).body;
  assert.match((await replayReceipt(shift)).reason!, /only solver receipts/);
});

test('every solver\'s default body, sealed by the node, replays bit for bit', { timeout: 600_000 }, async () => {
  const solvers = await loadSolvers();
  const failures: string[] = [];
  let replayed = 0;
  for (const ls of solvers) {
    const name = ls.descriptor.name;
    // the default body; a solver with a required free-text prompt gets its first example, and
    // multibody (which has no default bodies) an Earth–Moon pair
    const body: Record<string, unknown> = 'prompt' in (ls.descriptor.input as any).shape ? { prompt: ls.descriptor.examples?.[0] ?? name } : {};
    if (name === 'multibody') Object.assign(body, { bodies: [{ mass: 5.972e24, position: [0, 0] }, { mass: 7.342e22, position: [3.844e8, 0], velocity: [0, 1022] }], acceptOutOfBound: true });
    const s = await t.call('POST', `/api/svc/${name}`, body, m.apiKey);
    if (s.status !== 200) { failures.push(`${name}: sealing its default body gave ${s.status} ${s.text.slice(0, 160)}`); continue; }
    const r = await replayReceipt(s.body);
    if (!r.ok) failures.push(`${name}: ${r.reason}`);
    else replayed++;
  }
  assert.deepEqual(failures, []);
  assert.equal(replayed, solvers.length);
});
