// The Python verifier (clients/python, standard library + Debian's python3-cryptography) on fresh
// receipts from a node: it accepts real receipts and their attestations and rejects edited ones
// (issue 20). Needs python3 with the cryptography module: a loud skip where it is missing, a
// failure in CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testNode, type TestNode } from '../helpers.ts';

const CLIENT = new URL('../../clients/python', import.meta.url).pathname;
const hasPython = (() => { try { execFileSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' }); return true; } catch { return false; } })();
const SKIP = hasPython ? false : process.env.CI === 'true' ? false : 'SKIPPED: python3 with the cryptography module (Debian python3-cryptography) is not installed';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('python'); });
after(async () => { await t.close(); });

test('python3 -m svc_client.verify accepts real receipts and attestations, rejects edited ones', { skip: SKIP }, async () => {
  assert.ok(hasPython, 'python3 with cryptography is required in CI');
  const dir = mkdtempSync(join(tmpdir(), 'svc-py-'));
  const jwksPath = join(dir, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify((await t.call('GET', '/.well-known/jwks.json')).body));
  const py = (args: string[]) => spawnSync('python3', ['-m', 'svc_client.verify', ...args], { cwd: CLIENT, encoding: 'utf8' });
  const d = (await t.call('POST', '/api/contracts', { templateId: 'invoice-dunning' }, m.apiKey)).body;
  const sealed = [
    ...(await Promise.all(['protect', 'epi', 'quant', 'heat', 'sat', 'zeta'].map((s) => t.call('POST', `/api/svc/${s}`, {}, m.apiKey)))).map((r) => r.body),
    (await t.call('POST', '/api/svc/protect', { liveness: 0.00005 }, m.apiKey)).body,
    (await t.tool('svc_shift', { steps: 3 }, m.apiKey)).body,
    (await t.call('POST', `/api/contracts/${d.id}/fire`, {}, m.apiKey)).body,
  ];
  for (const [i, r] of sealed.entries()) {
    assert.ok(r.receipt?.log, JSON.stringify(r).slice(0, 200));
    const p = join(dir, `r${i}.json`);
    writeFileSync(p, JSON.stringify(r));
    const b = join(dir, `b${i}.json`);
    writeFileSync(b, (await t.call('GET', `/api/receipts/${r.receipt.id}/attestation`, undefined, m.apiKey)).text);
    const ok = py([p, '--jwks', jwksPath, '--bundle', b]);
    assert.equal(ok.status, 0, `${r.solver}: ${ok.stdout}${ok.stderr}`);
    const edited = JSON.parse(JSON.stringify(r));
    if (typeof edited.value === 'number') edited.value = edited.value * 2 + 1; else edited.receipt.folder = 'edited';
    writeFileSync(p, JSON.stringify(edited));
    const bad = py([p, '--jwks', jwksPath]);
    assert.equal(bad.status, 1, `${r.solver} edited: ${bad.stdout}${bad.stderr}`);
    assert.equal(JSON.parse(bad.stdout).valid, false);
  }
  // the module's own tests (fixtures sealed by a node), when pytest is there; the client's suite
  // (tests/test_client.py, which starts a node of its own) runs in test/api/python-client.test.ts
  const pytest = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_verify.py'], { cwd: CLIENT, encoding: 'utf8' });
  if (pytest.error || /No module named pytest/.test(pytest.stderr)) {
    if (process.env.CI === 'true') assert.fail('pytest is required in CI');
    console.log('SKIPPED: pytest is not installed (the Python verifier\'s own tests)');
  } else assert.equal(pytest.status, 0, pytest.stdout + pytest.stderr);
});
