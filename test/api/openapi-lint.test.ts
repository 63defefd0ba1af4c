// `redocly lint` with the recommended ruleset on the live /openapi.json (issue 21 item 4): no
// errors. Warnings are printed, not failed on (the one left today: /api/contracts/{id}/fire and
// /api/contracts/templates/{id} match the same URLs in principle; both routes are public API).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

let t: TestNode;
let url: string;
before(async () => { t = await testNode(); url = await t.listen(); });
after(async () => { await t.close(); });

test('redocly lint --extends recommended reports no errors on the live /openapi.json', async () => {
  // asynchronously: the node answering /openapi.json runs in this process
  const r = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', '--extends', 'recommended', '--format', 'json', `${url}/openapi.json`], {
    encoding: 'utf8',
    timeout: 90_000,
    maxBuffer: 16 * 1024 * 1024,
    // no usage telemetry, no update check: the lint talks to the node only
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  }).catch((e: any) => ({ stdout: String(e.stdout ?? ''), stderr: `${e.message}\n${e.stderr ?? ''}` }));
  assert.ok(r.stdout.trim().startsWith('{'), `redocly printed no report: ${r.stderr.slice(0, 2000)}`);
  const report = JSON.parse(r.stdout);
  const line = (p: any) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ''})`;
  const warnings = report.problems.filter((p: any) => p.severity === 'warn');
  if (warnings.length) process.stdout.write(`redocly warnings (${warnings.length}):\n${warnings.map(line).join('\n')}\n`);
  const errors = report.problems.filter((p: any) => p.severity === 'error');
  assert.equal(report.totals.errors, 0, `redocly errors:\n${errors.map(line).join('\n')}`);
});
