// `svc submit`, `svc jobs`, `svc wait`, `svc cancel` (src/cli-jobs.ts) against a live node: a job
// submitted from the command line is waited for with a progress bar and answers exactly the
// synchronous call's body; another machine's job is a 404; bad usage exits 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';
import { progressBar } from '../../src/cli-jobs.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const svc = (args: string[]) => run(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 }).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

// svc_action, Kepler orbit by Yoshida-8: about 1 s of one worker (3 s on the busy test machine)
const ARGS = { system: 'kepler', order: 8, steps: 500_000, dt: 0.001, compare: false };

let t: TestNode;
let base: string;
let A: { apiKey: string };
let B: { apiKey: string };
before(async () => { t = await testNode(); base = await t.listen(); A = await t.machine('cli A'); B = await t.machine('cli B'); });
after(async () => { await t?.close(); });

test('svc submit, svc wait (a progress bar, then the synchronous answer), svc jobs; another machine cannot see or cancel it', { timeout: 180_000 }, async () => {
  const sub = await svc(['submit', 'action', JSON.stringify(ARGS), '--budget', '60', '--url', base, '--key', A.apiKey]);
  assert.equal(sub.code, 0, sub.stderr);
  const job = JSON.parse(sub.stdout);
  assert.match(job.id, /^job_/);
  assert.equal(job.tool, 'svc_action');
  assert.deepEqual(job.budget, { seconds: 60 });
  assert.match(sub.stderr, new RegExp(`svc wait ${job.id}`));
  // B: not found
  for (const cmd of ['wait', 'cancel']) {
    const r = await svc([cmd, job.id, '--url', base, '--key', B.apiKey]);
    assert.equal(r.code, 1, `${cmd}: ${r.stdout}`);
    assert.match(r.stderr, /404 NOT_FOUND/);
  }
  const waited = await svc(['wait', job.id, '--url', base, '--key', A.apiKey]);
  assert.equal(waited.code, 0, waited.stderr);
  // off a terminal, one line per change of the bar, ending at 100 % succeeded
  const bars = waited.stderr.trim().split('\n');
  assert.match(bars.at(-1)!, new RegExp(`^${job.id} svc_action \\[#{30}\\] 100% succeeded$`));
  const body = JSON.parse(waited.stdout);
  const sync = await t.call('POST', '/api/svc/action', ARGS, A.apiKey);
  assert.equal(sync.status, 200);
  for (const k of ['value', 'unit', 'result', 'input', 'precision']) assert.deepEqual(body[k], sync.body[k], k);
  assert.notEqual(body.receipt.id, sync.body.receipt.id);
  const list = await svc(['jobs', '--url', base, '--key', A.apiKey]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^${job.id}\\tsvc_action\\tsucceeded\\t100%`, 'm'));
  const none = await svc(['jobs', '--url', base, '--key', B.apiKey]);
  assert.equal(none.stdout, '');
  assert.match(none.stderr, /no jobs/);
});

test('svc cancel stops a running job; svc wait then exits 1 with the cancelled job; usage errors exit 2', { timeout: 180_000 }, async () => {
  const sub = await svc(['submit', 'svc_action', JSON.stringify({ ...ARGS, steps: 2_000_000 }), '--url', base, '--key', A.apiKey]);
  const job = JSON.parse(sub.stdout);
  const caller = { kind: 'machine' as const, zid: (await t.call('GET', '/api/machines/me', undefined, A.apiKey)).body.zid, keyPrefix: '', keyHash: '' };
  for (let i = 0; i < 600 && !(await t.app.jobs.get(caller, job.id)).progress; i++) await new Promise((r) => setTimeout(r, 50));
  const c = await svc(['cancel', job.id, '--url', base, '--key', A.apiKey]);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(JSON.parse(c.stdout).status, 'cancelled');
  const w = await svc(['wait', job.id, '--url', base, '--key', A.apiKey]);
  assert.equal(w.code, 1);
  assert.match(w.stderr, /cancelled/);
  // a refusal of the synchronous call, at submission
  const bad = await svc(['submit', 'action', '{"steps": 1}', '--url', base, '--key', A.apiKey]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /400 INVALID_INPUT/);
  assert.equal((await svc(['submit', 'action', '{not json', '--url', base, '--key', A.apiKey])).code, 2);
  assert.equal((await svc(['submit', 'action', '{}', '--budget', '1.5', '--url', base, '--key', A.apiKey])).code, 2);
  assert.equal((await svc(['wait', '--url', base])).code, 2);
});

test('svc upload streams a file into the blob store (gzip too); the digest is a solver input', { timeout: 120_000 }, async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { gzipSync, createHash } = await import('node:zlib').then(async (z) => ({ gzipSync: z.gzipSync, createHash: (await import('node:crypto')).createHash }));
  const dir = mkdtempSync(join(tmpdir(), 'svc-upload-'));
  try {
    const cnf = 'c tiny\np cnf 3 3\n1 -2 0\n2 3 0\n-1 -3 0\n';
    writeFileSync(join(dir, 'tiny.cnf'), cnf);
    writeFileSync(join(dir, 'tiny.cnf.gz'), gzipSync(cnf));
    const up = await svc(['upload', join(dir, 'tiny.cnf'), '--url', base, '--key', A.apiKey]);
    assert.equal(up.code, 0, up.stderr);
    const blob = JSON.parse(up.stdout);
    assert.deepEqual(blob, { digest: `sha256:${createHash('sha256').update(cnf).digest('hex')}`, bytes: cnf.length, created: true });
    const gz = await svc(['upload', join(dir, 'tiny.cnf.gz'), '--gzip', '--url', base, '--key', A.apiKey]);
    assert.equal(gz.code, 0, gz.stderr);
    assert.deepEqual(JSON.parse(gz.stdout), { ...blob, created: false }, 'the node names the decompressed bytes');
    const viaBlob = await t.call('POST', '/api/svc/sat', { cnf: { blob: blob.digest } }, A.apiKey);
    const inline = await t.call('POST', '/api/svc/sat', { cnf }, A.apiKey);
    assert.equal(viaBlob.status, 200, viaBlob.text);
    assert.equal(viaBlob.body.value, inline.body.value);
    const anon = await svc(['upload', join(dir, 'tiny.cnf'), '--url', base]);
    assert.equal(anon.code, 1);
    assert.match(anon.stderr, /^401/);
    assert.equal((await svc(['upload', join(dir, 'missing.cnf'), '--url', base, '--key', A.apiKey])).code, 2);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('the progress bar', () => {
  assert.equal(progressBar({ id: 'job_X', tool: 'svc_heat', status: 'running', progress: { fraction: 0.5, message: 'heat 50%' } }, 10), 'job_X svc_heat [#####-----]  50% running: heat 50%');
  assert.equal(progressBar({ id: 'job_X', tool: 'svc_heat', status: 'queued', progress: null }, 4), 'job_X svc_heat [----]   0% queued');
});
