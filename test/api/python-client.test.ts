// The Python client (clients/python, issue 21 item 5) installed as a user would, offline, into a
// virtual environment of Debian's python3 (`pip install --no-build-isolation --no-index`, with
// Debian's python3-setuptools and python3-wheel), then its pytest suite against a live node it
// starts itself (node src/main.ts on a free port). Needs python3 with venv, setuptools, wheel and
// pytest: a loud skip where they are missing, a failure under CI=true (.ci/run installs them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsSystemTool } from '../system-tools.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const CLIENT = fileURLToPath(new URL('../../clients/python', import.meta.url));
const INSTALL = 'apt-get install -y python3-venv python3-setuptools python3-wheel python3-pytest';

function skipReason(): string | false {
  const missing = needsSystemTool(PYTHON, 'the Python client tests', INSTALL);
  if (missing) return missing;
  return false;
}
const SKIP = skipReason();

let dir = '';
before(() => { if (!SKIP) dir = mkdtempSync(join(tmpdir(), 'svc-pyclient-')); });
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

test('pip installs svc_client offline into a venv of Debian python3, and its pytest suite passes against a live node', { skip: SKIP, timeout: 180_000 }, async () => {
  // the modules this needs, each named when missing
  const probe = await run(PYTHON, ['-c', 'import importlib.util as u; print(",".join(m for m in ("venv", "setuptools", "wheel", "pytest", "ensurepip") if u.find_spec(m) is None))']);
  const missing = probe.stdout.trim();
  if (missing) {
    const reason = `SKIPPED: the Python client tests need the python3 modules ${missing} (${INSTALL})`;
    if (process.env.CI === 'true') assert.fail(`${reason}; CI=true requires them`);
    process.stderr.write(`\n*** ${reason} ***\n\n`);
    return;
  }
  const venv = join(dir, 'venv');
  // --system-site-packages: Debian's setuptools, wheel, pytest (and NumPy, when installed) without a download
  await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
  // a copy: pip builds in the source tree, which stays clean
  const src = join(dir, 'src');
  cpSync(CLIENT, src, { recursive: true, filter: (p) => !/(\/build|\.egg-info|__pycache__|\.pytest_cache)(\/|$)/.test(p) });
  const py = join(venv, 'bin', 'python');
  const pip = await run(py, ['-m', 'pip', 'install', '--no-build-isolation', '--no-index', '--no-input', src], { timeout: 120_000 })
    .catch((e: any) => assert.fail(`pip install failed:\n${e.stdout}\n${e.stderr}`));
  assert.match(pip.stdout, /Successfully installed svc-client/);
  const where = await run(py, ['-c', 'import svc_client, sys; print(svc_client.__file__); print(svc_client.Client.solve.__doc__ is not None)'], { cwd: dir });
  assert.ok(where.stdout.startsWith(venv), `svc_client is imported from the venv: ${where.stdout}`);
  assert.match(where.stdout, /True/);

  // the suite, run outside the source tree so that the installed package is what it tests
  // the whole suite: the client's tests and the offline verifier's (tests/test_verify.py)
  const tests = await run(py, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(CLIENT, 'tests')], {
    cwd: dir, timeout: 150_000, maxBuffer: 8 << 20,
    env: { ...process.env, SVC_TEST_NODE: process.execPath, SVC_URL: '', SVC_API_KEY: '' },
  }).catch((e: any) => ({ stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? e.message), failed: true }));
  process.stdout.write(tests.stdout.split('\n').filter((l: string) => /passed|failed|skipped|error/i.test(l)).join('\n') + '\n');
  assert.ok(!('failed' in tests), `pytest failed:\n${tests.stdout.slice(-4000)}\n${tests.stderr.slice(-2000)}`);
  assert.match(tests.stdout, /\d+ passed/);
  assert.doesNotMatch(tests.stdout, /failed|error/i);
});
