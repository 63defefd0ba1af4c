// A live node's GET /metrics, after a sealed solver call, errors and an MCP session, goes through
// Prometheus's own linter, `promtool check metrics` (Debian package `prometheus`): it must report
// nothing. Where promtool is missing the check is skipped loudly, and fails under CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let base: string;
let metrics: string;

function value(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : null;
}

before(async () => {
  t = await testNode();
  base = await t.listen();
  const m = await t.machine('promtool');
  const post = (path: string, body: unknown, key?: string) => fetch(base + path, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
  // a sealed solver call with a machine key, a refused input, an unknown route
  assert.equal((await post('/api/svc/protect', { health: 'up' }, m.apiKey)).status, 200);
  assert.equal((await post('/api/svc/protect', { liveness: 7 }, m.apiKey)).status, 400);
  assert.equal((await fetch(base + '/no/such/route')).status, 404);
  // an MCP session: initialize, one tool call, close
  const client = new Client({ name: 'promtool-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', base)));
  const pulse: any = await client.callTool({ name: 'svc_pulse', arguments: {} });
  assert.equal(pulse.isError, undefined);
  await client.close();
  // let the event-loop sampler record a few delays
  await new Promise((r) => setTimeout(r, 100));
  const r = await fetch(base + '/metrics');
  assert.equal(r.status, 200);
  metrics = await r.text();
});
after(async () => { await t.close(); });

test('the calls made are in the metrics', () => {
  assert.equal(value(metrics, 'svc_solver_job_duration_seconds_count{solver="protect",outcome="ok"}'), 1);
  assert.equal(value(metrics, 'svc_seals_total{solver="protect"}'), 1);
  assert.equal(value(metrics, 'svc_http_errors_total{code="INVALID_INPUT"}'), 1);
  assert.equal(value(metrics, 'svc_http_errors_total{code="NOT_FOUND"}'), 1);
  assert.equal(value(metrics, 'svc_http_requests_total{operation="solver.protect",method="POST",status="400"}'), 1);
  assert.equal(value(metrics, 'svc_mcp_sessions_opened_total'), 1);
  assert.equal(value(metrics, 'svc_solver_jobs_in_flight'), 0);
});

test('CPU time is a counter and the event-loop delay a histogram (no gauge with quantile labels)', async () => {
  assert.match(metrics, /^# TYPE process_cpu_seconds_total counter$/m);
  assert.ok(value(metrics, 'process_cpu_seconds_total')! > 0);
  assert.match(metrics, /^# TYPE nodejs_eventloop_delay_seconds histogram$/m);
  const count = value(metrics, 'nodejs_eventloop_delay_seconds_count')!;
  assert.ok(count >= 1, `event-loop samples: ${count}`);
  assert.equal(value(metrics, 'nodejs_eventloop_delay_seconds_bucket{le="+Inf"}'), count);
  assert.doesNotMatch(metrics, /quantile=/);
  // CPU time only grows from one scrape to the next
  const cpu = async () => value(await (await fetch(base + '/metrics')).text(), 'process_cpu_seconds_total')!;
  const a = await cpu();
  const b = await cpu();
  assert.ok(b >= a, `${b} >= ${a}`);
});

test('promtool check metrics reports nothing on a live node\'s /metrics', async (ctx) => {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const msg = 'SKIPPED: promtool not installed (Debian package `prometheus`): /metrics was not linted';
    if (process.env.CI === 'true') assert.fail(msg.replace('SKIPPED: ', '') + ' — CI must have it (.ci/run installs it)');
    console.log(`\n*** ${msg} ***\n`);
    ctx.skip(msg);
    return;
  }
  const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { out += c; });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.end(metrics);
  });
  assert.equal(out, '', `promtool check metrics said:\n${out}`);
  assert.equal(code, 0);
});
