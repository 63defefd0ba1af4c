// The README's first calls, run as written (issue 21 item 6, issue 29 item 5): the shell block of
// "Your first hour" against a listening node (its address in place of localhost:8787, this
// checkout in place of /path/to/the/checkout), with HOME a scratch directory: `svc` found on the
// PATH the README sets (bin/svc.js, run by whatever `node` the PATH has: Node 20 here re-runs it on
// the pinned Node 24), the machine's secrets written outside the checkout (~/.config/svc, mode
// 0600), the figures of step 4 and the line `svc verify` prints exactly as the README shows them
// (ids, log positions and sizes aside). Needs bash, curl and jq: a loud skip where one is missing,
// a failure under CI=true.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';
import { needsSystemTool } from '../system-tools.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = needsSystemTool('/usr/bin/jq', 'the README first-calls test', 'apt-get install -y jq curl')
  || needsSystemTool('/usr/bin/curl', 'the README first-calls test', 'apt-get install -y curl');

let t: TestNode;
let url: string;
let dir: string;
before(async () => {
  if (SKIP) return;
  t = await testNode();
  url = await t.listen();
  dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
});
after(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The first ```sh block after the heading. */
function shellBlock(markdown: string, heading: string): string {
  const from = markdown.indexOf(heading);
  assert.ok(from >= 0, `the README has a "${heading}" section`);
  const m = markdown.slice(from).match(/```sh\n([\s\S]*?)```/);
  assert.ok(m, `a sh block under ${heading}`);
  return m[1];
}

test("the README's first calls run as written, outside the checkout: a machine, a sealed heat result, and svc verify prints the README's line", { skip: SKIP, timeout: 120_000 }, async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = shellBlock(readme, '## Your first hour');
  assert.match(block, /api\/svc\/heat/, 'the first sealed call is a physics solver');
  assert.match(block, /svc verify/);
  // why Node 24 is pinned, and how to silence npm's EBADENGINE warnings on an older Node (measured:
  // 25 blocks on Node 20 with npm 11, none with --loglevel=error)
  assert.match(readme, /Node\.js 24 is pinned[\s\S]{0,400}EBADENGINE[\s\S]{0,300}--loglevel=error/);
  assert.doesNotMatch(block, /npx svc/, 'svc from the PATH, not npx (outside the checkout npx finds another package)');
  assert.doesNotMatch(block, />\s*machine\.json/, 'the secrets are not written into the working folder');
  const host = new URL(url).host;
  const home = join(dir, 'home');
  mkdirSync(home);
  const script = [
    'set -euo pipefail',
    `export SVC_URL=${url}`,
    block.replaceAll('localhost:8787', host).replaceAll('/path/to/the/checkout', ROOT.replace(/\/$/, '')),
    'pwd >&2',
  ].join('\n');
  const r = await promisify(execFile)('/bin/bash', ['-c', script], {
    cwd: ROOT, timeout: 100_000, maxBuffer: 8 << 20,
    env: { ...process.env, HOME: home, SVC_API_KEY: '', XDG_CONFIG_HOME: '' },
  }).catch((e: any) => assert.fail(`the README's commands failed (exit ${e.code}):\n${e.stdout}\n${e.stderr}`));
  assert.equal(r.stderr.trim().split('\n').at(-1), join(home, 'svc-first-hour'), 'the commands ran in a folder of their own, outside the checkout');
  // step 4's figures, exactly as the README shows them (the receipt id aside)
  const figures = JSON.parse(r.stdout.slice(0, r.stdout.indexOf('\n}') + 2));
  assert.equal(figures.unit, 'T');
  assert.equal(figures.precision.withinBound, true);
  assert.ok(Math.abs(figures.value - Math.exp(-2 * Math.PI ** 2 * 0.02)) < 1e-3, `the amplitude after t = 0.02: ${figures.value}`);
  assert.match(figures.receipt, /^rcpt_/);
  const shown4 = JSON.parse(readme.slice(readme.indexOf('Step 4 prints')).match(/```json\n([\s\S]*?)```/)![1]);
  assert.deepEqual({ ...figures, receipt: 'rcpt_' }, { ...shown4, receipt: 'rcpt_' }, 'step 4 prints what the README shows');
  // step 5's line, exactly as the README shows it: one line of JSON, the same members in the same
  // order with the same values, ids, log positions, sizes and addresses aside
  const line = r.stdout.trim().split('\n').at(-1)!;
  const verdict = JSON.parse(line);
  assert.equal(verdict.valid, true, line);
  assert.equal(verdict.hmac, true);
  assert.equal(verdict.signature, true);
  assert.equal(verdict.receipt, figures.receipt);
  const shownLine = readme.slice(readme.indexOf('It prints one line of JSON')).match(/```\n(\{[^\n]*\})\n```/)![1];
  const normal = (x: any) => JSON.stringify({ ...x, receipt: 'rcpt_', currentSize: 0, log: { ...x.log, index: 0, treeSize: 0, origin: 'o', keySource: 'k' } });
  assert.equal(normal(verdict), normal(JSON.parse(shownLine)), `svc verify prints what the README shows:\n${line}`);
  // the machine file, outside the checkout, readable by its owner only
  const machinePath = join(home, '.config', 'svc', 'machine.json');
  assert.equal(statSync(machinePath).mode & 0o077, 0, 'machine.json is readable by its owner only');
  const machine = JSON.parse(readFileSync(machinePath, 'utf8'));
  assert.match(machine.recovery.equation, /^\d+\*x \+ \d+ = \d+ \| x = \d+ \| /);
  assert.match(readFileSync(join(ROOT, '.gitignore'), 'utf8'), /^machine\.json$/m);
  // the recovery call the README shows works with that material
  const rec = await t.call('POST', '/api/machines/recover', { zid: machine.zid, equation: machine.recovery.equation, salt: machine.recovery.salt });
  assert.equal(rec.status, 200);
  assert.match(rec.body.apiKey, /^svc_ak_/);
});
