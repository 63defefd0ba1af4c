import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testNode, type TestNode } from '../helpers.ts';

const run = promisify(execFile);
const CLI = new URL('../../bin/svc.js', import.meta.url).pathname;
let t: TestNode;
let url: string;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); url = await t.listen(); m = await t.machine('cli'); });
after(async () => { await t.close(); });

const svc = (args: string[]) => run(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 }).then((r) => ({ code: 0, ...r }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

test('svc verify checks a saved sealed response against a running node; a tampered one fails', async () => {
  const receipt = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  writeFileSync(join(dir, 'r.json'), JSON.stringify(receipt));
  const ok = await svc(['verify', join(dir, 'r.json'), '--url', url, '--key', m.apiKey]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).valid, true);
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...receipt, value: receipt.value + 1 }));
  const bad = await svc(['verify', join(dir, 'bad.json'), '--url', url, '--key', m.apiKey]);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.stdout).valid, false);
  // fully offline: the Ed25519 signature against a saved JWKS, no node involved
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify((await t.call('GET', '/.well-known/jwks.json')).body));
  const off = await svc(['verify', join(dir, 'r.json'), '--jwks', join(dir, 'jwks.json')]);
  assert.equal(off.code, 0, off.stderr);
  const offOut = JSON.parse(off.stdout);
  assert.deepEqual({ valid: offOut.valid, hmac: offOut.hmac, signature: offOut.signature, receipt: offOut.receipt }, { valid: true, hmac: null, signature: true, receipt: receipt.receipt.id });
  // offline, the log checks hold too (the log key is in the saved JWKS): docs/verify.md
  assert.deepEqual([offOut.log.digest, offOut.log.inclusion, offOut.log.checkpoint], [true, true, true]);
  assert.match(offOut.checked.join(' '), /Ed25519/);
  const offBad = await svc(['verify', join(dir, 'bad.json'), '--jwks', join(dir, 'jwks.json')]);
  assert.equal(offBad.code, 1);
  assert.equal(JSON.parse(offBad.stdout).signature, false);
  // not a sealed response: the strict reading fails (exit 1, check "strict"); a missing file is a usage error (2)
  writeFileSync(join(dir, 'junk.json'), '{"not": "a receipt"}');
  const junk = await svc(['verify', join(dir, 'junk.json'), '--url', url]);
  assert.equal(junk.code, 1);
  assert.deepEqual(JSON.parse(junk.stdout).failed, ['strict']);
  assert.equal((await svc(['verify', join(dir, 'missing.json'), '--url', url])).code, 2);
});

test('svc verify fails on a receipt whose signature was deleted and whose result, input and precision were edited (issue 18)', async () => {
  const receipt = (await t.call('POST', '/api/svc/epi', {}, m.apiKey)).body;
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const { signature: _removed, ...unsigned } = receipt;
  const edited = { ...unsigned, result: { ...receipt.result, peakInfected: 1 }, input: { ...receipt.input, beta: 9 }, precision: { ...receipt.precision, errorPct: 0 } };
  writeFileSync(join(dir, 'edited.json'), JSON.stringify(edited));
  const r = await svc(['verify', join(dir, 'edited.json'), '--url', url, '--key', m.apiKey]);
  assert.equal(r.code, 1, r.stdout);
  const out = JSON.parse(r.stdout);
  assert.equal(out.valid, false);
  assert.deepEqual(out.failed, ['strict']);
  assert.match(out.reason, /no signature/);
  // asked to check an unsigned response, the digest still fails; the HMAC alone does not cover
  // result, input or precision; the output says that the signature was not checked
  const allowed = await svc(['verify', join(dir, 'edited.json'), '--url', url, '--key', m.apiKey, '--allow-unsigned']);
  assert.equal(allowed.code, 1, allowed.stdout);
  const a = JSON.parse(allowed.stdout);
  assert.equal(a.hmac, true, 'the HMAC alone does not cover result, input or precision');
  assert.deepEqual(a.failed, ['digest', 'inclusion']);
  assert.match(a.unsigned, /--allow-unsigned/);
  // the untouched response with only its signature removed: 1 by default, 0 with --allow-unsigned (said so)
  writeFileSync(join(dir, 'unsigned.json'), JSON.stringify(unsigned));
  assert.equal((await svc(['verify', join(dir, 'unsigned.json'), '--url', url])).code, 1);
  const ok = await svc(['verify', join(dir, 'unsigned.json'), '--url', url, '--allow-unsigned']);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(JSON.parse(ok.stdout).unsigned, /signature was not checked/);
  // an edit to any one field of a signed receipt fails too
  for (const edit of [{ result: { ...receipt.result, finalSize: 0 } }, { input: { ...receipt.input, gamma: 0.2 } }, { precision: { ...receipt.precision, withinBound: false } }, { seed: 1 }, { receipt: { ...receipt.receipt, folder: 'x' } }]) {
    writeFileSync(join(dir, 'one.json'), JSON.stringify({ ...receipt, ...edit }));
    const one = await svc(['verify', join(dir, 'one.json'), '--url', url, '--key', m.apiKey]);
    assert.equal(one.code, 1, JSON.stringify(edit));
  }
});

test('svc says in one line that the node cannot be reached (no stack trace), and reads SVC_URL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  writeFileSync(join(dir, 'r.json'), JSON.stringify((await t.call('POST', '/api/svc/protect', {}, m.apiKey)).body));
  const r = await svc(['verify', join(dir, 'r.json'), '--url', 'http://127.0.0.1:9']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /cannot reach the node at http:\/\/127\.0\.0\.1:9/);
  assert.equal(JSON.parse(r.stdout).exit, 2);
  assert.match(JSON.parse(r.stdout).unreachable, /^http:\/\/127\.0\.0\.1:9\//);
  // every command that reaches a node: exit 2, the URL named, one line
  for (const args of [['call', 'svc_pulse', '{}', '--url', 'http://127.0.0.1:9'], ['call', 'svc_heat', '{}', '--url', 'http://127.0.0.1:9', '--key', m.apiKey]]) {
    const c = await svc(args);
    assert.equal(c.code, 2, `${args.join(' ')}: ${c.stderr}`);
    assert.match(c.stderr, /cannot reach the node at http:\/\/127\.0\.0\.1:9/);
    assert.equal(c.stderr.trim().split('\n').length, 1, c.stderr);
  }
  const viaEnv = await run(process.execPath, [CLI, 'call', 'svc_pulse', '{}'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SVC_URL: url } });
  assert.equal(JSON.parse(viaEnv.stdout).f, 1.287);
});

test('svc --help (and -h, svc help) prints the usage and exits 0; an unknown command exits 2', async () => {
  for (const args of [['--help'], ['-h'], ['help'], ['verify', '--help']]) {
    const h = await svc(args);
    assert.equal(h.code, 0, args.join(' '));
    assert.match(h.stdout, /usage:[\s\S]*svc verify[\s\S]*--allow-unsigned[\s\S]*exit codes/);
  }
  assert.equal((await svc(['nonsense'])).code, 2);
});

test('svc runs from any folder with the checkout\'s bin on PATH (README), whatever node the PATH finds first', async () => {
  const bin = new URL('../../bin', import.meta.url).pathname;
  const elsewhere = mkdtempSync(join(tmpdir(), 'svc-anywhere-'));
  try {
    // the system's node first (Node 20 on this machine: bin/svc.js re-runs itself on the pinned Node 24), then this one
    for (const pathTail of ['/usr/local/bin:/usr/bin:/bin', `${join(process.execPath, '..')}:/usr/bin:/bin`]) {
      const r = await run('svc', ['--help'], { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${pathTail}` } }).catch((e: any) => e);
      assert.equal(r.code ?? 0, 0, `${pathTail}: ${r.stderr}`);
      assert.match(r.stdout, /usage:/);
      assert.doesNotMatch(r.stderr ?? '', /EBADENGINE|Warning/);
      const c = await run('svc', ['call', 'svc_pulse', '{}', '--url', url], { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${pathTail}` } });
      assert.equal(JSON.parse(c.stdout).f, 1.287);
    }
  } finally { rmSync(elsewhere, { recursive: true, force: true }); }
});

test('svc call calls a tool over MCP; svc solve runs a solver locally, unsealed', async () => {
  const r = await svc(['call', 'svc_pulse', '{}', '--url', url]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).f, 1.287);
  const p = await svc(['call', 'svc_protect', '{"health":"down"}', '--url', url, '--key', m.apiKey]);
  assert.equal(JSON.parse(p.stdout).result.guardState, 'BREACH');
  const s = await svc(['solve', 'protect', '{"t": 1790000000, "phase": 0.5, "health": "up"}']);
  assert.equal(s.code, 0, s.stderr);
  const out = JSON.parse(s.stdout);
  assert.equal(out.sealed, false);
  assert.equal(out.result.guardState, 'OK');
  assert.equal((await svc(['solve', 'protect', '{"liveness": 9}'])).code, 1);
  assert.equal((await svc(['nonsense'])).code, 2);
});

/** Starts a node as `npm start` does (src/main.ts) or as `svc serve` does, on the embedded store
 * in `dataDir`, on a free port; resolves with its base URL once it listens. */
function startNode(args: string[], dataDir: string): Promise<{ proc: ChildProcess; url: string; exited: Promise<number | null> }> {
  const env: Record<string, string> = { ...process.env as Record<string, string>, PORT: '0', SVC_DATA_DIR: dataDir };
  for (const k of ['DATABASE_URL', 'SVC_DATABASE_SCHEMA', 'SVC_SEAL_SECRET', 'SVC_ADMIN_KEY', 'NODE_TEST_CONTEXT']) delete env[k];
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`node did not start:\n${out}`)); }, 90_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc, url: m[1], exited }); }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`node exited ${code}:\n${out}`)); });
  });
}

test('`npm start` (src/main.ts) and `svc serve` start the node on the embedded store with DESIGN §3 defaults; SIGTERM drains and exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  const main = new URL('../../src/main.ts', import.meta.url).pathname;
  let proc: ChildProcess | null = null;
  try {
    const a = await startNode([main], dataDir);
    proc = a.proc;
    const pulse = await (await fetch(`${a.url}/api/svc/pulse`)).json();
    assert.equal(pulse.f, 1.287);
    // the master secret is generated once into the data directory, readable by the owner only
    assert.equal(statSync(join(dataDir, 'seal-secret.hex')).mode & 0o777, 0o600);
    const fs = await (await fetch(`${a.url}/api/svc/field-status`)).json();
    assert.equal(fs.keySource, 'generated into the data directory');
    const demo = (await (await fetch(`${a.url}/api/demo-key/mint`, { method: 'POST' })).json()).apiKey;
    const m = await (await fetch(`${a.url}/api/machines`, { method: 'POST', headers: { authorization: `Bearer ${demo}`, 'content-type': 'application/json' }, body: '{"displayName":"first run"}' })).json();
    const sealed = await (await fetch(`${a.url}/api/svc/protect`, { method: 'POST', headers: { authorization: `Bearer ${m.apiKey}`, 'content-type': 'application/json' }, body: '{"health":"up"}' })).json();
    assert.match(sealed.svcProof, /^[0-9a-f]{64}$/);
    a.proc.kill('SIGTERM');
    assert.equal(await a.exited, 0);
    proc = null;

    // the same data directory through `svc serve`: the machine, its key, the receipt and the secret persist
    const b = await startNode([CLI, 'serve'], dataDir);
    proc = b.proc;
    const filed = await (await fetch(`${b.url}/api/receipts/${sealed.receipt.id}`, { headers: { authorization: `Bearer ${m.apiKey}` } })).json();
    assert.equal(filed.svcProof, sealed.svcProof);
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    writeFileSync(join(dir, 'r.json'), JSON.stringify(sealed));
    const v = await svc(['verify', join(dir, 'r.json'), '--url', b.url, '--key', m.apiKey]);
    assert.equal(v.code, 0, v.stderr);
    assert.deepEqual([JSON.parse(v.stdout).hmac, JSON.parse(v.stdout).signature], [true, true]);
    b.proc.kill('SIGTERM');
    assert.equal(await b.exited, 0);
    proc = null;
  } finally {
    if (proc) proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
