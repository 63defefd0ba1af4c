import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
  assert.deepEqual(JSON.parse(off.stdout), { valid: true, hmac: null, signature: true, receipt: receipt.receipt.id });
  const offBad = await svc(['verify', join(dir, 'bad.json'), '--jwks', join(dir, 'jwks.json')]);
  assert.equal(offBad.code, 1);
  assert.equal(JSON.parse(offBad.stdout).signature, false);
  writeFileSync(join(dir, 'junk.json'), '{"not": "a receipt"}');
  assert.equal((await svc(['verify', join(dir, 'junk.json'), '--url', url])).code, 2);
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
