// The one invocation path (src/ops/invoke.ts, issue 17 item 2): HTTP and MCP run an operation the
// same way; a bug in a handler is INTERNAL (a 500 body over HTTP, an isError result over MCP) and
// never shows the exception's message; invalid tools/call params are JSON-RPC -32602; and every
// token refusal says Retry-After: the seconds to the next 00:00 UTC, in its body and its header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { testNode, SEAL_SECRET } from '../helpers.ts';
import { createApp } from '../../src/app.ts';
import { buildHttp } from '../../src/http/server.ts';
import { callTool } from '../../src/mcp/server.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { secondsToNextUtcMidnight } from '../../src/core/errors.ts';
import type { Operation } from '../../src/ops/types.ts';

test('a non-SvcError thrown by a handler is INTERNAL: 500 over HTTP, isError over MCP, no raw message', async () => {
  const app = await createApp({ env: { SVC_DATA_DIR: ':memory:', SVC_SEAL_SECRET: SEAL_SECRET, DATABASE_URL: process.env.DATABASE_URL, SVC_DATABASE_SCHEMA: process.env.DATABASE_URL ? `t_invoke_${Date.now().toString(36)}` : undefined } });
  const boom: Operation = {
    id: 'test.boom', tool: 'svc_test_boom', method: 'POST', path: '/api/test/boom', access: 'public', tag: 'test',
    input: z.strictObject({}), summary: 'throws a TypeError',
    handler: async () => { (null as any).secretField; return {}; },
  };
  app.operations.push(boom);
  const http = await buildHttp(app);
  try {
    const r = await http.inject({ method: 'POST', url: '/api/test/boom', payload: {} });
    assert.equal(r.statusCode, 500);
    const body = JSON.parse(r.body);
    assert.deepEqual(body, { ok: false, error: 'internal error', code: 'INTERNAL' });
    assert.ok(!r.body.includes('secretField') && !r.body.includes('TypeError'));
    const m = await callTool(app, boom, {}, { caller: null, bearer: null, signal: new AbortController().signal, requestId: 't', ip: '127.0.0.1', via: 'mcp', headers: {}, progress: () => {} });
    assert.equal(m.isError, true);
    assert.deepEqual(m.body, { ok: false, error: 'internal error', code: 'INTERNAL' });
  } finally { await http.close(); await app.close(); }
});

test('tools/call with invalid params answers JSON-RPC -32602', async () => {
  const t = await testNode();
  try {
    const base = await t.listen();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${base}/api/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const h = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    await (await fetch(`${base}/api/mcp`, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    for (const params of [{ name: 42 }, { arguments: {} }, { name: 'svc_pulse', arguments: 'x' }]) {
      const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params }) });
      const text = await res.text();
      const msg = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data:'))!.slice(5));
      assert.equal(msg.error?.code, -32602, `${JSON.stringify(params)} → ${text}`);
    }
  } finally { await t.close(); }
});

test('one Retry-After policy: a solver call, a stream and a reactor refused for tokens all say the seconds to 00:00 UTC', async () => {
  const t0 = Date.UTC(2026, 10, 25, 21, 30, 0) / 1000; // 2 h 30 min before midnight
  const clock = fixedClock(t0);
  const t = await testNode({ env: { SVC_TOKENS_PER_DAY: '1' }, clock });
  try {
    const m = await t.machine('retry');
    assert.equal((await t.call('POST', '/api/svc/epi', {}, m.apiKey)).status, 200);
    const expected = secondsToNextUtcMidnight(t0);
    assert.equal(expected, 9000);
    const refusals = [
      await t.call('POST', '/api/svc/epi', {}, m.apiKey),
      await t.call('POST', '/api/svc/protect', {}, m.apiKey),
      await t.call('POST', '/api/streams', { operator: 'KINETIC_ENERGY', inputs: { m: 1, v: 1 }, ticks: 2 }, m.apiKey),
      await t.call('POST', '/api/reactor', { expr: { x: 'x + 1' }, inputs: { x: 0 }, maxDepth: 3 }, m.apiKey),
    ];
    for (const r of refusals) {
      assert.equal(r.status, 429, JSON.stringify(r.body));
      assert.equal(r.body.code, 'QUOTA_EXCEEDED');
      assert.equal(r.body.retryAfterSeconds, expected);
      assert.equal(r.headers['retry-after'], String(expected));
      assert.equal(r.body.tokens.remaining, 0);
    }
    const viaMcp = await t.tool('svc_epi', {}, m.apiKey);
    assert.equal(viaMcp.isError, true);
    assert.equal(viaMcp.body.retryAfterSeconds, expected);
  } finally { await t.close(); }
});
