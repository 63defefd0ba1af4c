// The official tools against /api/mcp (issue 21 acceptance): the MCP conformance runner passes
// every server scenario that does not need its own fixtures, for both protocol revisions it knows
// (2025-06-18, 2025-11-25); the MCP Inspector's CLI lists and calls tools with no schema
// portability warning. Both run as child processes against this process's node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const CONFORMANCE = join(pkgDir('@modelcontextprotocol/conformance'), 'dist/index.js');
const INSPECTOR = join(pkgDir('@modelcontextprotocol/inspector'), JSON.parse(readFileSync(join(pkgDir('@modelcontextprotocol/inspector'), 'package.json'), 'utf8')).bin['mcp-inspector']);
const BASELINE = join(dirname(fileURLToPath(import.meta.url)), 'conformance-baseline.yml');

let t: TestNode;
let url: string;
let key: string;
let home: string;
before(async () => {
  t = await testNode();
  url = `${await t.listen()}/api/mcp`;
  key = (await t.machine('conformance')).apiKey;
  home = mkdtempSync(join(tmpdir(), 'svc-inspector-'));
});
after(async () => {
  await t.close();
  rmSync(home, { recursive: true, force: true });
});

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

test('the MCP conformance runner passes every scenario that needs no fixtures, for 2025-06-18 and 2025-11-25', async () => {
  const fixtures = readFileSync(BASELINE, 'utf8').split('\n').filter((l) => /^\s+- /.test(l)).map((l) => l.trim().slice(2));
  for (const version of ['2025-06-18', '2025-11-25']) {
    const out = mkdtempSync(join(tmpdir(), 'svc-conformance-'));
    try {
      const r = await run(process.execPath, [CONFORMANCE, 'server', '--url', url, '--spec-version', version, '--expected-failures', BASELINE, '-o', out],
        { encoding: 'utf8', timeout: 120_000, cwd: out }).catch((e) => e);
      const text = plain((r.stdout ?? '') + (r.stderr ?? ''));
      const lines = [...text.matchAll(/^([✓✗]) ([a-z0-9-]+): (\d+) passed, (\d+) failed/gm)];
      const passed = lines.filter((m) => m[1] === '✓').map((m) => m[2]);
      const failed = lines.filter((m) => m[1] === '✗').map((m) => m[2]);
      const checks = lines.filter((m) => m[1] === '✓').reduce((n, m) => n + Number(m[3]), 0);
      console.log(`# conformance ${version}: ${passed.length} scenarios passed (${checks} checks): ${passed.join(', ')}; ${failed.length} need fixtures`);
      assert.ok(passed.length >= 7, `${version}: too few scenarios ran:\n${text}`);
      for (const s of ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'resources-list']) assert.ok(passed.includes(s), `${version}: ${s}\n${text}`);
      if (version === '2025-11-25') for (const s of ['dns-rebinding-protection', 'server-sse-multiple-streams']) assert.ok(passed.includes(s), `${version}: ${s}\n${text}`);
      assert.deepEqual(failed.filter((s) => !fixtures.includes(s)), [], `${version}: scenarios that need no fixture failed:\n${text}`);
      assert.equal(r.code ?? 0, 0, `${version}: the runner exited ${r.code}:\n${text}`);
    } finally { rmSync(out, { recursive: true, force: true }); }
  }
});

test('the MCP Inspector CLI lists and calls tools with no portability warning', async () => {
  const env = { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), NO_COLOR: '1' };
  const inspector = (args: string[]) => run(process.execPath, [INSPECTOR, '--cli', url, ...args], { encoding: 'utf8', timeout: 60_000, env, cwd: home });
  const list = await inspector(['--method', 'tools/list']);
  assert.equal(list.stderr.trim(), '', `warnings: ${list.stderr}`);
  const tools = JSON.parse(list.stdout).tools;
  assert.ok(tools.length >= 57);
  // --strict reports every schema portability finding and exits 6 on an error-severity one
  const strict = await inspector(['--method', 'tools/list', '--strict']);
  assert.equal(strict.stderr.trim(), '', strict.stderr);
  const pulse = JSON.parse((await inspector(['--method', 'tools/call', '--tool-name', 'svc_pulse'])).stdout);
  assert.equal(pulse.structuredContent.f, 1.287);
  const heat = await inspector(['--method', 'tools/call', '--tool-name', 'svc_heat', '--tool-arg', 'dim=1', 'steps=100', '--header', `Authorization: Bearer ${key}`]);
  assert.equal(heat.stderr.trim(), '', heat.stderr);
  const r = JSON.parse(heat.stdout);
  assert.equal(r.isError, undefined, heat.stdout);
  assert.equal(r.structuredContent.solver, 'heat');
  assert.equal(r.content[1].type, 'resource_link');
});
