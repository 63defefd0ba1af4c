// /api/mcp on SDK v2 (issue 21 item 1): an SDK v2 client pinned to 2026-07-28 discovers, lists
// and calls; a legacy initialize negotiates 2025-11-25; progress and cancellation in both eras;
// -32602 for invalid tools/call params; the entry checks (Host/Origin, JSON, registered checks,
// credential) answer before the SDK.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { mcpEntryChecks } from '../../src/mcp/server.ts';
import { jobsOf } from '../../src/mcp/tasks.ts';
import { connect, rpc, envelope, MODERN, LEGACY, JSON_HEADERS } from './client.ts';

let t: TestNode;
let base: string;
let key: string;
before(async () => {
  t = await testNode();
  base = await t.listen();
  key = (await t.machine('mcp protocol')).apiKey;
});
after(async () => { await t.close(); });

test('an SDK v2 client pinned to 2026-07-28 discovers the server, lists the tools and calls them', async () => {
  const anon = await connect(base, 'modern');
  try {
    assert.equal(anon.getProtocolEra(), 'modern');
    assert.equal(anon.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(anon.getServerVersion()?.name, 'svc');
    assert.match(anon.getInstructions() ?? '', /svc_verify/);
    const { tools } = await anon.listTools();
    assert.deepEqual(tools.map((x) => x.name), t.app.operations.filter((o) => o.tool && o.access !== 'admin').map((o) => o.tool));
    const pulse: any = await anon.callTool({ name: 'svc_pulse', arguments: {} });
    assert.equal(pulse.isError, undefined);
    assert.equal(pulse.structuredContent.f, 1.287);
  } finally { await anon.close(); }

  const c = await connect(base, 'modern', key);
  try {
    const heat: any = await c.callTool({ name: 'svc_heat', arguments: {} });
    assert.equal(heat.isError, undefined, JSON.stringify(heat.content));
    const s = heat.structuredContent;
    assert.equal(s.solver, 'heat');
    assert.equal(s.series, undefined, 'series are opt-in over MCP');
    assert.equal(heat.content[0].type, 'text');
    assert.match(heat.content[0].text, new RegExp(`receipt ${s.receipt.id}`));
    assert.deepEqual(heat.content[1], { type: 'resource_link', uri: `svc://receipts/${s.receipt.id}`, name: s.receipt.id, title: `Receipt ${s.receipt.id}`, mimeType: 'application/json', description: 'the whole sealed receipt (resources/read; your own receipts)' });
    // the link reads the whole receipt, series included
    const read = await c.readResource({ uri: heat.content[1].uri });
    const receipt = JSON.parse((read.contents[0] as any).text);
    assert.equal(receipt.receipt.id, s.receipt.id);
    assert.equal(receipt.value, s.value);
    assert.ok(Array.isArray(receipt.series.t));
    const templates = await c.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((x) => x.uriTemplate), ['svc://receipts/{id}', 'svc://tools/{name}/schema']);
    const schema = await c.readResource({ uri: 'svc://tools/svc_heat/schema' });
    assert.match(JSON.parse((schema.contents[0] as any).text).properties.alpha.description, /diffusivity/);

    // series: true brings them, sample sets their length (and implies them)
    const withSeries: any = await c.callTool({ name: 'svc_heat', arguments: { series: true } });
    assert.equal(withSeries.structuredContent.series.t.length, 200);
    const sampled: any = await c.callTool({ name: 'svc_heat', arguments: { sample: 20 } });
    assert.equal(sampled.structuredContent.series.t.length, 20);
    const conflict: any = await c.callTool({ name: 'svc_heat', arguments: { series: false, sample: 5 } });
    assert.equal(conflict.isError, true);
    assert.equal(JSON.parse(conflict.content[0].text).code, 'INVALID_INPUT');
    // over HTTP nothing changed: series are in the answer
    assert.ok((await t.call('POST', '/api/svc/heat', {}, key)).body.series.t.length > 0);
  } finally { await c.close(); }
});

test('server/discover lists 2026-07-28 with the capabilities and instructions', async () => {
  const r = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.message.result.supportedVersions.includes(MODERN));
  // with a job runner, the tasks extension too (test/mcp/tasks.test.ts)
  assert.deepEqual(Object.keys(r.message.result.capabilities).sort(), [...(jobsOf(t.app) ? ['extensions'] : []), 'logging', 'resources', 'tools']);
  assert.match(r.message.result.instructions, /svc_verify/);
});

test('a legacy initialize negotiates 2025-11-25 (and older revisions); the session serves the same tools', async () => {
  for (const version of [LEGACY, '2025-06-18']) {
    const init = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    assert.equal(init.status, 200, init.text);
    assert.equal(init.message.result.protocolVersion, version);
    assert.equal(init.message.result.serverInfo.name, 'svc');
    assert.match(init.message.result.instructions, /receipt/);
    assert.ok(init.headers.get('mcp-session-id'));
  }
  const c = await connect(base, 'legacy', key);
  try {
    assert.equal(c.getProtocolEra(), 'legacy');
    assert.equal(c.getNegotiatedProtocolVersion(), LEGACY);
    const r: any = await c.callTool({ name: 'svc_quant', arguments: {} });
    assert.equal(r.isError, undefined);
    assert.equal(r.structuredContent.unit, '$');
    assert.equal(r.content[1].type, 'resource_link');
  } finally { await c.close(); }
});

test('progress notifications for a long solve, in both eras', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const c = await connect(base, era, key);
    try {
      const seen: number[] = [];
      // long enough (≈0.5 s) for several notifications: the worker sends at most one per 100 ms
      const r: any = await c.callTool({ name: 'svc_action', arguments: { system: 'kepler', order: 6, steps: 2_000_000, dt: 0.001, compare: false } }, {
        onprogress: (p) => { seen.push(p.progress); },
        timeout: 120_000,
      });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      assert.ok(seen.length >= 2, `${era}: progress notifications: ${seen.length}`);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i] >= seen[i - 1]);
    } finally { await c.close(); }
  }
});

test('cancelling a long solve stops its worker, in both eras', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const c = await connect(base, era, key);
    try {
      const stopped = t.app.pool.stats.stoppedJobs;
      const ac = new AbortController();
      let running!: () => void;
      const started = new Promise<void>((resolve) => { running = resolve; });
      // 2 M steps of an order-8 integrator: seconds of work, cut short after the first progress
      const call = c.callTool({ name: 'svc_action', arguments: { system: 'kepler', order: 8, steps: 2_000_000, dt: 0.001, compare: false } }, {
        signal: ac.signal, onprogress: () => running(), timeout: 120_000,
      });
      await started;
      ac.abort('stop');
      await assert.rejects(call);
      for (let i = 0; i < 50 && t.app.pool.stats.stoppedJobs === stopped; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(t.app.pool.stats.stoppedJobs, stopped + 1, `${era}: the worker was stopped`);
    } finally { await c.close(); }
  }
});

test('cancelling a call stops it on the node, in both eras (a followed channel closes)', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const c = await connect(base, era, key);
    try {
      const ac = new AbortController();
      let channel: string | undefined;
      const firstTick = new Promise<void>((resolve) => {
        c.setNotificationHandler('notifications/message', (n: any) => { if (n.params.logger === 'svc_stream' && !channel) { channel = n.params.data.channel; resolve(); } });
      });
      const call = c.callTool({ name: 'svc_stream', arguments: { operator: 'KINETIC_ENERGY', inputs: { m: 1, v: 2 }, ticks: 600, closeOnDisconnect: true } }, { signal: ac.signal });
      await firstTick;
      ac.abort('stop');
      await assert.rejects(call);
      let st: any;
      for (let i = 0; i < 50; i++) {
        st = (await t.call('GET', `/api/streams/${channel}`, undefined, key)).body.channel;
        if (st.state !== 'open') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(st.state, 'closed', era);
      assert.equal(st.reason, 'client-disconnected', era);
    } finally { await c.close(); }
  }
});

test('invalid tools/call params answer JSON-RPC -32602 in both eras', async () => {
  const init = await rpc(base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': LEGACY };
  await rpc(base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  for (const params of [{ name: 42 }, { arguments: {} }, { name: 'svc_pulse', arguments: 'x' }]) {
    const legacy = await rpc(base, { jsonrpc: '2.0', id: 2, method: 'tools/call', params }, session);
    assert.equal(legacy.message?.error?.code, -32602, `legacy ${JSON.stringify(params)} → ${legacy.text}`);
    // the 2026-07-28 standard headers (SEP-2243) name the method and the tool
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', ...('name' in params ? { 'mcp-name': String(params.name) } : {}) };
    const modern = await rpc(base, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { ...params, _meta: envelope() } }, headers);
    assert.equal(modern.message?.error?.code, -32602, `modern ${JSON.stringify(params)} → ${modern.text}`);
  }
});

test('the entry answers before the SDK: Host/Origin, malformed JSON, registered entry checks, credentials', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  // DNS rebinding
  assert.equal((await t.call('POST', '/api/mcp', init, undefined, { ...JSON_HEADERS, host: 'evil.example:80' })).status, 403);
  assert.equal((await rpc(base, init, { origin: 'http://evil.example' })).status, 403);
  // malformed JSON-RPC gets JSON-RPC errors (DESIGN §9)
  const bad = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: JSON_HEADERS, body: '{"jsonrpc":' });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, -32700);
  const deep = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: JSON_HEADERS, body: '['.repeat(100) + ']'.repeat(100) });
  assert.equal((await deep.json()).error.code, -32600);
  // a registered entry check (the place of a JSON-RPC batch cap) refuses before anything else runs
  const cap = (body: unknown) => Array.isArray(body) && body.length > 2 ? { status: 400, code: -32600, message: 'at most 2 messages in a batch' } : null;
  mcpEntryChecks.push(cap);
  try {
    const r = await rpc(base, [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })));
    assert.equal(r.status, 400);
    assert.equal(r.message.error.message, 'at most 2 messages in a batch');
  } finally { mcpEntryChecks.splice(mcpEntryChecks.indexOf(cap), 1); }

  // a bad bearer is a 401 that says where to sign in
  const challenged = await rpc(base, init, { authorization: 'Bearer svc_ak_bogus' });
  assert.equal(challenged.status, 401);
  assert.equal(challenged.message.code, 'UNAUTHORIZED');
  const www = challenged.headers.get('www-authenticate') ?? '';
  assert.match(www, /^Bearer /);
  assert.match(www, new RegExp(`resource_metadata="${t.app.config.baseUrl}/.well-known/oauth-protected-resource"`));
  assert.match(www, /error="invalid_token"/);
  // a call that needs a key and has none is a 401 too, in both eras; a key-free tool is not
  const modernCall = (name: string) => rpc(base, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: {}, _meta: envelope() } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
  const noKey = await modernCall('svc_heat');
  assert.equal(noKey.status, 401);
  assert.match(noKey.headers.get('www-authenticate') ?? '', /resource_metadata="[^"]+", scope="compute machine:read"/);
  assert.equal((await modernCall('svc_pulse')).status, 200);
  const legacy = await connect(base, 'legacy');
  try {
    await assert.rejects(legacy.callTool({ name: 'svc_protect', arguments: {} }), /401|UNAUTHORIZED|nauthorized/);
    assert.equal(((await legacy.callTool({ name: 'svc_pulse', arguments: {} })) as any).isError, undefined);
  } finally { await legacy.close(); }
  // a demo key is a valid credential that may not run solvers: the tool answers FORBIDDEN
  const demo = await connect(base, 'modern', await t.demoKey());
  try {
    const r: any = await demo.callTool({ name: 'svc_heat', arguments: {} });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent, undefined);
    assert.equal(JSON.parse(r.content[0].text).code, 'FORBIDDEN');
  } finally { await demo.close(); }
  // the HTTP face says the same on every 401
  const http = await t.call('POST', '/api/svc/heat', {});
  assert.equal(http.status, 401);
  assert.match(http.headers['www-authenticate'], /^Bearer resource_metadata="[^"]+\/.well-known\/oauth-protected-resource"/);
  const badHttp = await t.call('GET', '/api/machines/me', undefined, 'svc_ak_nope');
  assert.equal(badHttp.status, 401);
  assert.match(badHttp.headers['www-authenticate'], /error="invalid_token"/);
});
