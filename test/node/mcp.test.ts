// A 2025-era client built on the official MCP SDK v1 talks to /api/mcp over real HTTP (the
// legacy leg: initialize and a session). The SDK v2 clients, both eras, the conformance runner
// and the Inspector are in test/mcp/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testNode, type TestNode } from '../helpers.ts';
import { SPEC_TOOL_ORDER } from '../../src/ops/registry.ts';

let t: TestNode;
let base: string;
before(async () => { t = await testNode(); base = await t.listen(); });
after(async () => { await t.close(); });

async function connect(key?: string) {
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', base), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

test('an SDK client lists the tools in the spec order with JSON Schemas, and calls pulse, spin_up, protect and verify', async () => {
  const anon = await connect();
  const info = anon.getServerVersion();
  assert.equal(info?.name, 'svc');
  const { tools } = await anon.listTools();
  const names = tools.map((x) => x.name);
  const specOrder = SPEC_TOOL_ORDER.filter((n) => names.includes(n));
  assert.deepEqual(names.filter((n) => SPEC_TOOL_ORDER.includes(n)), specOrder);
  // every built tool, and only those, in the registry's (the spec's) order
  assert.deepEqual(names, t.app.operations.filter((o) => o.tool && o.access !== 'admin').map((o) => o.tool));
  for (const tool of tools) assert.equal(tool.inputSchema.type, 'object', tool.name);
  // compact schemas (issue 21): the solver's own fields with their types; the common ones are
  // described once, in the instructions
  const protectSchema: any = tools.find((x) => x.name === 'svc_protect')!.inputSchema;
  for (const f of ['t', 'phase', 'health', 'liveness', 'status', 'series']) assert.ok(protectSchema.properties[f], `svc_protect schema lacks ${f}`);
  assert.deepEqual(protectSchema.properties.health.enum, ['up', 'slow', 'down']);
  assert.ok(names.includes('svc_protect') && names.includes('svc_pulse') && names.includes('svc_verify') && names.includes('svc_spin_up'));
  const pulse: any = await anon.callTool({ name: 'svc_pulse', arguments: {} });
  assert.equal(pulse.isError, undefined);
  assert.equal(pulse.structuredContent.f, 1.287);
  assert.equal(JSON.parse(pulse.content[0].text).svcond, pulse.structuredContent.svcond);
  // a key-requiring tool without a key is an HTTP 401 (issue 21: clients then sign in), not a result
  await assert.rejects(anon.callTool({ name: 'svc_protect', arguments: {} }), /401|UNAUTHORIZED/);
  await anon.close();

  const demo = await t.demoKey();
  const dc = await connect(demo);
  const spun: any = await dc.callTool({ name: 'svc_spin_up', arguments: { displayName: 'agent one' } });
  assert.equal(spun.isError, undefined);
  const apiKey = spun.structuredContent.apiKey;
  assert.match(apiKey, /^svc_ak_/);
  await dc.close();

  const mc = await connect(apiKey);
  const sealed: any = await mc.callTool({ name: 'svc_protect', arguments: { health: 'slow' } });
  const s = sealed.structuredContent;
  assert.equal(s.result.guardState, 'DEGRADED');
  // the text is a short summary naming the receipt; the whole answer is structuredContent
  assert.match(sealed.content[0].text, new RegExp(s.receipt.id));
  assert.equal(sealed.content[1].uri, `svc://receipts/${s.receipt.id}`);
  const verified: any = await mc.callTool({ name: 'svc_verify', arguments: { proof: s.svcProof, operatorIds: s.svcState.operators, R_t: s.svcState.masterSum, zeqond: s.svcState.svcond, value: s.value, unit: s.unit } });
  assert.equal(verified.structuredContent.valid, true);
  // a refusal is isError with the DESIGN §9 body as its text, and no structuredContent (it would
  // not match the tool's outputSchema, which this SDK checks it against)
  const bad: any = await mc.callTool({ name: 'svc_protect', arguments: { liveness: 7 } });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent, undefined);
  assert.equal(JSON.parse(bad.content[0].text).code, 'INVALID_INPUT');
  const unknown: any = await mc.callTool({ name: 'svc_nope', arguments: {} });
  assert.equal(unknown.isError, true);
  await mc.close();
});

test('a long solve sends progress notifications when the client gives a progressToken', async () => {
  const m = await t.machine('progress');
  // a job gets a progress channel to its worker only when someone listens: HTTP calls and MCP
  // calls without a progressToken make none (a port per job leaked native memory; pool-memory.test)
  const channels = () => t.app.pool.stats.progressChannels;
  const before = channels();
  const h = await t.call('POST', '/api/svc/lorenz', {}, m.apiKey);
  assert.equal(h.status, 200, h.text);
  const c = await connect(m.apiKey);
  const plain: any = await c.callTool({ name: 'svc_lorenz', arguments: {} });
  assert.equal(plain.isError, undefined);
  assert.equal(channels(), before, 'no progress channel without a listener');
  const seen: number[] = [];
  const r: any = await c.callTool({ name: 'svc_action', arguments: { system: 'kepler', order: 4, steps: 1_000_000, dt: 0.001, compare: false } }, undefined, {
    onprogress: (p) => { seen.push(p.progress); },
    timeout: 120_000,
  });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  assert.ok(seen.length >= 2, `progress notifications: ${seen.length}`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1]);
  assert.ok(seen.every((p) => p >= 0 && p <= 1));
  assert.equal(channels(), before + 1, 'one progress channel, for the call that listened');
  await c.close();
});

test('an invalid bearer on /api/mcp is a 401 error body; a foreign Host or Origin is refused', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const r1 = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: { ...headers, authorization: 'Bearer svc_ak_bogus' }, body: JSON.stringify(init) });
  assert.equal(r1.status, 401);
  assert.equal((await r1.json()).code, 'UNAUTHORIZED');
  const r2 = await t.call('POST', '/api/mcp', init, undefined, { ...headers, host: 'evil.example:80' });
  assert.equal(r2.status, 403);
  const r3 = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body: JSON.stringify(init) });
  assert.equal(r3.status, 403);
  // malformed JSON-RPC gets JSON-RPC errors (DESIGN §9)
  const r4 = await fetch(new URL('/api/mcp', base), { method: 'POST', headers, body: '{"jsonrpc":' });
  assert.equal(r4.status, 400);
  const e4 = await r4.json();
  assert.equal(e4.jsonrpc, '2.0');
  assert.equal(e4.error.code, -32700);
  const r6 = await fetch(new URL('/api/mcp', base), { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
  assert.equal(r6.status, 400);
  assert.equal((await r6.json()).jsonrpc, '2.0');
  const r5 = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  assert.equal(r5.status, 404);
});
