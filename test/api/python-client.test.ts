// The Python client (clients/python, issue 21 item 5, issue 29 item 4) installed as a user would,
// offline: (1) into a fresh venv of the first `python3` on PATH (whatever it is: pyenv's, Debian's),
// with no site packages, by its in-tree PEP 517 backend (no setuptools, no wheel package, no
// download), then its README example against a live node; it also runs uninstalled from the
// checkout (PYTHONPATH); (2) into a venv of Debian's python3, then its pytest suite against a node
// it starts itself. Needs python3 with venv (and pytest for (2)): a loud skip where they are
// missing, a failure under CI=true (.ci/run installs them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsSystemTool } from '../system-tools.ts';
import { testNode } from '../helpers.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const CLIENT = fileURLToPath(new URL('../../clients/python', import.meta.url));
const INSTALL = 'apt-get install -y python3-venv python3-pytest';

function skipReason(): string | false {
  const missing = needsSystemTool(PYTHON, 'the Python client tests', INSTALL);
  if (missing) return missing;
  return false;
}
const SKIP = skipReason();

let dir = '';
before(() => { if (!SKIP) dir = mkdtempSync(join(tmpdir(), 'svc-pyclient-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** The README's example (clients/python/README.md), against the node at SVC_URL. */
const EXAMPLE = `
import os, sys
from svc_client import Client
svc, machine = Client.new_machine(os.environ["SVC_URL"])
assert machine["apiKey"].startswith("svc_ak_") and machine["recovery"]
r = svc.solve("heat", steps=200)
print(r.value, r.unit, r.precision.error_pct, r.precision.bound_pct, r.receipt.id)
v = svc.verify(r)
assert v.valid, v.reason
print("verified", v.valid, sys.version_info[0], sys.version_info[1])
`;

test('a fresh venv of the first python3 on PATH installs the client offline (in-tree PEP 517 backend) and runs its example; it runs uninstalled from the checkout too', { timeout: 240_000 }, async () => {
  // the first python3 on PATH, as a user's shell finds it (on this machine pyenv's, not Debian's)
  const which = await run('python3', ['-c', 'import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2])']).catch(() => null);
  if (!which) {
    if (process.env.CI === 'true') assert.fail('python3 is required in CI');
    process.stderr.write('\n*** SKIPPED: no python3 on PATH ***\n\n');
    return;
  }
  const [exe, version] = which.stdout.trim().split('\n');
  const [maj, min] = version.split('.').map(Number);
  assert.ok(maj === 3 && min >= 9, `python3 on PATH is ${version}: the client needs >= 3.9`);
  const work = mkdtempSync(join(tmpdir(), 'svc-pyfresh-'));
  const t = await testNode();
  try {
    const url = await t.listen();
    const venv = join(work, 'venv');
    await run(exe, ['-m', 'venv', venv]);   // no --system-site-packages: nothing but the standard library and pip
    const py = join(venv, 'bin', 'python');
    const noWheel = await run(py, ['-c', 'import importlib.util as u; print(u.find_spec("wheel") is None, u.find_spec("setuptools") is None)']);
    process.stdout.write(`python3 on PATH: ${exe} (${version}); venv without wheel, without setuptools: ${noWheel.stdout.trim()}\n`);
    const src = join(work, 'src');
    cpSync(CLIENT, src, { recursive: true, filter: (p) => !/(\/build|\.egg-info|__pycache__|\.pytest_cache)(\/|$)/.test(p) });
    // with and without build isolation: pip needs nothing from an index either way
    for (const extra of [[], ['--no-build-isolation']]) {
      const pip = await run(py, ['-m', 'pip', 'install', '--no-index', '--no-input', '--force-reinstall', ...extra, src], { timeout: 120_000, env: { ...process.env, PIP_CONFIG_FILE: '/dev/null' } })
        .catch((e: any) => assert.fail(`pip install ${extra.join(' ')} failed:\n${e.stdout}\n${e.stderr}`));
      assert.match(pip.stdout, /Successfully installed svc-client-0\.1\.0/);
    }
    const ex = join(work, 'example.py');
    writeFileSync(ex, EXAMPLE);
    const out = await run(py, [ex], { cwd: work, timeout: 120_000, env: { ...process.env, SVC_URL: url, SVC_API_KEY: '', PYTHONPATH: '' } })
      .catch((e: any) => assert.fail(`the example failed:\n${e.stdout}\n${e.stderr}`));
    assert.match(out.stdout, new RegExp(`verified True ${maj} ${min}`));
    assert.equal(out.stderr, '', 'no warning');
    const where = await run(py, ['-c', 'import svc_client; print(svc_client.__file__)'], { cwd: work });
    assert.ok(where.stdout.startsWith(venv), `installed in the venv: ${where.stdout}`);

    // the offline verifier in that venv: no cryptography package there, so Ed25519 in pure Python
    const m = await t.machine('fresh-venv');
    const sealed = (await t.call('POST', '/api/svc/protect', { health: 'up' }, m.apiKey)).body;
    writeFileSync(join(work, 'r.json'), JSON.stringify(sealed));
    writeFileSync(join(work, 'jwks.json'), JSON.stringify((await t.call('GET', '/.well-known/jwks.json')).body));
    writeFileSync(join(work, 'edited.json'), JSON.stringify({ ...sealed, tokens: { ...sealed.tokens, remaining: sealed.tokens.remaining + 1000 } }));
    const hasCrypto = (await run(py, ['-c', 'import importlib.util as u; print(u.find_spec("cryptography") is not None)'], { cwd: work })).stdout.trim();
    const good = await run(py, ['-m', 'svc_client.verify', 'r.json', '--jwks', 'jwks.json'], { cwd: work }).catch((e: any) => assert.fail(`the verifier in the venv (cryptography: ${hasCrypto}): ${e.stdout}${e.stderr}`));
    assert.equal(JSON.parse(good.stdout).exit, 0);
    assert.equal(good.stderr, '');
    const bad = await run(py, ['-m', 'svc_client.verify', 'edited.json', '--jwks', 'jwks.json'], { cwd: work }).then(() => assert.fail('an edited tokens.remaining passed'), (e: any) => e);
    assert.equal(bad.code, 1);
    assert.deepEqual(JSON.parse(bad.stdout).failed, ['signature']);
    process.stdout.write(`the offline verifier in the fresh venv (cryptography installed: ${hasCrypto}): valid 0, edited tokens 1\n`);

    // uninstalled, from the checkout: PYTHONPATH=clients/python python3 …
    const checkout = await run(exe, [ex], { cwd: work, timeout: 120_000, env: { ...process.env, SVC_URL: url, SVC_API_KEY: '', PYTHONPATH: CLIENT } })
      .catch((e: any) => assert.fail(`the example from the checkout failed:\n${e.stdout}\n${e.stderr}`));
    assert.match(checkout.stdout, /verified True/);
    const help = await run(exe, ['-m', 'svc_client.verify', '--help'], { cwd: work, env: { ...process.env, PYTHONPATH: CLIENT } }).catch((e: any) => e);
    assert.equal(help.code ?? 0, 0, help.stderr);
    assert.match(help.stdout, /usage: python3 -m svc_client.verify/);
    assert.equal(help.stderr, '', 'python -m svc_client.verify prints no runpy warning');
  } finally {
    await t.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('pip installs svc_client offline into a venv of Debian python3, and its pytest suite passes against a live node', { skip: SKIP, timeout: 360_000 }, async () => {
  // the modules this needs, each named when missing
  const probe = await run(PYTHON, ['-c', 'import importlib.util as u; print(",".join(m for m in ("venv", "pytest", "ensurepip") if u.find_spec(m) is None))']);
  const missing = probe.stdout.trim();
  if (missing) {
    const reason = `SKIPPED: the Python client tests need the python3 modules ${missing} (${INSTALL})`;
    if (process.env.CI === 'true') assert.fail(`${reason}; CI=true requires them`);
    process.stderr.write(`\n*** ${reason} ***\n\n`);
    return;
  }
  const venv = join(dir, 'venv');
  // --system-site-packages: Debian's pytest and cryptography (and NumPy, when installed) without a download
  await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
  // a copy: pip builds in the source tree, which stays clean
  const src = join(dir, 'src');
  cpSync(CLIENT, src, { recursive: true, filter: (p) => !/(\/build|\.egg-info|__pycache__|\.pytest_cache)(\/|$)/.test(p) });
  const py = join(venv, 'bin', 'python');
  const pip = await run(py, ['-m', 'pip', 'install', '--no-index', '--no-input', src], { timeout: 120_000 })
    .catch((e: any) => assert.fail(`pip install failed:\n${e.stdout}\n${e.stderr}`));
  assert.match(pip.stdout, /Successfully installed svc-client/);
  const where = await run(py, ['-c', 'import svc_client, sys; print(svc_client.__file__); print(svc_client.Client.solve.__doc__ is not None)'], { cwd: dir });
  assert.ok(where.stdout.startsWith(venv), `svc_client is imported from the venv: ${where.stdout}`);
  assert.match(where.stdout, /True/);

  // the suite, run outside the source tree so that the installed package is what it tests
  // the whole suite: the client's tests and the offline verifier's (tests/test_verify.py)
  const tests = await run(py, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(CLIENT, 'tests')], {
    cwd: dir, timeout: 300_000, maxBuffer: 8 << 20,
    env: { ...process.env, SVC_TEST_NODE: process.execPath, SVC_URL: '', SVC_API_KEY: '' },
  }).catch((e: any) => ({ stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? e.message), failed: true }));
  process.stdout.write(tests.stdout.split('\n').filter((l: string) => /passed|failed|skipped|error/i.test(l)).join('\n') + '\n');
  assert.ok(!('failed' in tests), `pytest failed:\n${tests.stdout.slice(-4000)}\n${tests.stderr.slice(-2000)}`);
  assert.match(tests.stdout, /\d+ passed/);
  assert.doesNotMatch(tests.stdout, /failed|error/i);
});
