import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testNode, ADMIN_KEY, type TestNode } from '../helpers.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => { t = await testNode(); m = await t.machine('explorer'); });
after(async () => { await t.close(); });

test('GET /openapi.json is valid OpenAPI 3.1 with info.version 1.287.0 and no admin routes', async () => {
  const r = await t.call('GET', '/openapi.json');
  assert.equal(r.status, 200);
  assert.equal(r.body.openapi, '3.1.0');
  assert.equal(r.body.info.version, '1.287.0');
  const v = new Validator();
  const res = await v.validate(r.body);
  assert.equal(res.valid, true, JSON.stringify(res.errors)?.slice(0, 2000));
  assert.equal(v.version, '3.1');
  assert.ok(r.body.paths['/api/svc/protect'].post);
  assert.ok(r.body.paths['/api/folders/{name}/receipts'].get.parameters.some((p: any) => p.in === 'path' && p.name === 'name'));
  assert.ok(!Object.keys(r.body.paths).some((p) => p.startsWith('/api/admin')));
  // /docs is Redoc rendering /openapi.json in the browser (test/api/docs-browser.test.ts);
  // /docs/plain is the same reference without JavaScript
  const page = await t.call('GET', '/docs');
  assert.equal(page.status, 200);
  assert.match(page.headers['content-type'], /text\/html/);
  assert.match(page.text, /\/docs\/assets\/redoc\.standalone\.js/);
  const plain = await t.call('GET', '/docs/plain');
  assert.equal(plain.status, 200);
  assert.match(plain.text, /svc_protect/);
});

test('each operation is declared once and has its four faces: route, OpenAPI path, catalog entry and (if named) MCP tool', async () => {
  const { toolOperations } = await import('../../src/mcp/server.ts');
  const spec = (await t.call('GET', '/openapi.json')).body;
  const catalog = (await t.tool('svc_api_catalog', { limit: 200 })).body;
  assert.ok(catalog.total <= 200, 'the catalog check below needs every entry in one page');
  const tools = new Set(toolOperations(t.app).map((o) => o.tool));
  for (const op of t.app.operations) {
    const p = op.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    assert.ok(t.http.hasRoute({ method: op.method, url: op.path }), `${op.method} ${op.path}: no route`);
    const listed = catalog.endpoints.some((e: any) => e.method === op.method && e.path === p);
    const inSpec = !!spec.paths[p]?.[op.method.toLowerCase()];
    if (op.access === 'admin' || op.hidden) {
      assert.ok(!listed && !inSpec && !tools.has(op.tool), `${op.path}: admin/hidden operations are not published`);
    } else {
      assert.ok(listed, `${op.method} ${op.path}: not in the catalog`);
      assert.ok(inSpec, `${op.method} ${op.path}: not in OpenAPI`);
      if (op.tool) {
        assert.ok(tools.has(op.tool), `${op.tool}: not a tool`);
        assert.equal(spec.paths[p][op.method.toLowerCase()]['x-mcp-tool'], op.tool);
      }
    }
  }
  assert.equal(catalog.total, t.app.operations.filter((o) => o.access !== 'admin' && !o.hidden).length);
});

test('svc_api_catalog searches public endpoints by substring, method and access class; admin is never listed', async () => {
  const all = (await t.tool('svc_api_catalog', { limit: 200 })).body;
  assert.ok(all.total >= 20);
  assert.ok(all.endpoints.every((e: any) => !e.path.startsWith('/api/admin') && e.auth !== 'admin'));
  const q = (await t.tool('svc_api_catalog', { q: 'pulse' })).body;
  assert.ok(q.endpoints.some((e: any) => e.path === '/api/svc/pulse'));
  const gets = (await t.tool('svc_api_catalog', { method: 'GET', auth: 'public' })).body;
  assert.ok(gets.endpoints.length > 0 && gets.endpoints.every((e: any) => e.method === 'GET' && e.auth === 'public'));
  assert.equal((await t.tool('svc_api_catalog', { auth: 'admin' })).body.total, 0);
  assert.equal((await t.tool('svc_api_catalog', { limit: 2 })).body.endpoints.length, 2);
  // limit defaults to 40
  const dflt = (await t.tool('svc_api_catalog', {})).body;
  assert.ok(dflt.total > 40);
  assert.equal(dflt.endpoints.length, 40);
  // q searches descriptions too, case-insensitively
  assert.ok((await t.tool('svc_api_catalog', { q: 'GUARDSTATE' })).body.endpoints.some((e: any) => e.path === '/api/svc/protect'));
  assert.equal((await t.tool('svc_api_catalog', { q: 'admin/machines' })).body.total, 0);
  for (const bad of [{ limit: 0 }, { method: 'QUERY' }, { auth: 'root' }]) assert.equal((await t.tool('svc_api_catalog', bad)).isError, true);
  assert.equal((await t.tool('svc_api_catalog', { limit: 201 })).isError, true);
});

test('svc_http calls public endpoints in-process, forwarding the caller\'s key; QUERY merges the body into the query', async () => {
  const pulse = (await t.tool('svc_http', { method: 'GET', path: '/api/svc/pulse' })).body;
  assert.equal(pulse.status, 200);
  assert.equal(pulse.body.f, 1.287);
  const sealed = (await t.tool('svc_http', { method: 'POST', path: '/api/svc/protect', body: { health: 'up' } }, m.apiKey)).body;
  assert.equal(sealed.status, 200);
  assert.equal(sealed.body.keyPrefix, m.keyPrefix);
  const noKey = (await t.tool('svc_http', { method: 'POST', path: '/api/svc/protect', body: {} })).body;
  assert.equal(noKey.status, 401);
  const viaQuery = (await t.tool('svc_http', { method: 'QUERY', path: '/api/observer', body: { limit: 2 } })).body;
  assert.equal(viaQuery.status, 200);
  assert.equal(viaQuery.body.entries.length, 2);
  const withQuery = (await t.tool('svc_http', { method: 'GET', path: '/api/catalog', query: { q: 'mesh', limit: 1 } })).body;
  assert.equal(withQuery.body.endpoints.length, 1);
});

test('svc_http reads a streamed (SSE) answer for a bounded time, returns it marked truncated, and closes the stream', async () => {
  const { observerSubscribers } = await import('../../src/ops/observer-stream.ts');
  const started = Date.now();
  const r = (await t.tool('svc_http', { method: 'GET', path: '/api/observer/stream' }, m.apiKey)).body;
  assert.ok(Date.now() - started < 10_000);
  assert.equal(r.status, 200);
  assert.match(r.contentType, /^text\/event-stream/);
  assert.equal(r.truncated, true);
  assert.match(r.body, /observer feed/);
  // the handler saw its client go away: no subscriber is left behind
  for (let i = 0; i < 50 && observerSubscribers(t.app) > 0; i++) await new Promise((res) => setTimeout(res, 20));
  assert.equal(observerSubscribers(t.app), 0);
  // an ordinary answer is whole and not marked
  const whole = (await t.tool('svc_http', { method: 'GET', path: '/api/svc/pulse' })).body;
  assert.equal(whole.truncated, undefined);
});

test('svc_http refuses admin routes, /api/mcp, traversal, encoded traversal, // and absolute URLs', async () => {
  const refused: [string, number][] = [
    ['/api/admin/machines', 403], ['/api/mcp', 403], ['/api/http', 403], ['/api/../admin/machines', 400], ['/api/svc/%2e%2e/admin', 400],
    ['/api/svc/%2F..%2Fadmin', 400], ['/api//admin/machines', 400], ['http://evil.example/api/x', 400], ['//evil.example/api', 400],
    ['/etc/passwd', 400], ['/api/svc/pulse?x=1', 400], ['/api/svc/./pulse', 400], ['/api/svc\\pulse', 400], ['/api/svc/pulse%00', 400],
    // the router percent-decodes before matching: encoded letters must not reach admin routes, MCP or svc_http
    ['/api/%61dmin/machines', 403], ['/api/%61%64%6d%69%6e/machines', 403], ['/api/%6dcp', 403], ['/api/%6Dcp', 403], ['/api/%68ttp', 403],
    ['/api/admin/machines/', 403], ['/api/mcp/', 403], ['/api/admin;/machines', 403],
    ['/api/svc/%252e%252e/admin', 400], ['/api/svc/..%2fadmin', 400], ['/api/svc/.%2E/admin', 400], ['/api/svc/pulse/..', 400], ['/api/.', 400],
    ['/api/svc/%5c..%5cadmin', 400], ['/api/svc/%E0%A4%A', 400], ['/api/svc/pulse%23x', 400], ['/api/svc/pulse%3Fx=1', 400], ['/api/svc/%0a', 400],
    ['https://127.0.0.1/api/svc/pulse', 400], ['HTTP://evil.example/api/x', 400], ['\\\\evil.example\\api', 400], ['/API/svc/pulse', 400], [' /api/svc/pulse', 400],
    ['/api///admin/machines', 400],
  ];
  for (const [path, status] of refused) {
    for (const key of [undefined, m.apiKey, ADMIN_KEY]) {
      for (const method of ['GET', 'POST', 'QUERY']) {
        const r = await t.call('POST', '/api/http', { method, path }, key);
        assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
        assert.equal(r.body.ok, false);
        assert.equal(typeof r.body.code, 'string');
      }
    }
  }
  // a path that only names a route through percent-encoding still works when it is harmless
  const enc = (await t.tool('svc_http', { method: 'GET', path: '/api/svc/%70ulse' })).body;
  assert.equal(enc.status, 200);
  assert.equal(enc.body.f, 1.287);
  const viaHttp = await t.call('POST', '/api/http', { method: 'POST', path: '/api/admin/machines/Z00000000000000000000000000/revoke-keys', body: {} }, ADMIN_KEY);
  assert.equal(viaHttp.status, 403);
});

test('/api/mesh shows this node and the nodes sharing its database', async () => {
  const r = (await t.call('GET', '/api/mesh')).body;
  assert.equal(r.node.id, t.app.nodeId);
  assert.equal(r.node.version, t.app.version);
  assert.equal(r.node.startedAt, t.app.startedAt);
  assert.ok(Date.parse(r.node.startedAt) <= Date.now());
  assert.ok(r.nodes.some((n: any) => n.id === t.app.nodeId && n.self));
});
