// The OpenAPI says what the node answers (issue 18 item 9): a known path with another method is
// 405 with Allow (QUERY too); operations that depend on an upstream declare 503; non-JSON answers
// declare their real media types. (The fuzzer, test/scale/fuzz.test.ts, checks every answer of
// every operation against these declarations.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let spec: any;
before(async () => { t = await testNode(); spec = (await t.call('GET', '/openapi.json')).body; });
after(async () => { await t.close(); });

test('a known path asked with a method it does not take is 405 with Allow; an unknown path stays 404', async () => {
  for (const [method, path, allow] of [['GET', '/api/svc/heat', 'POST'], ['QUERY', '/api/svc/heat', 'POST'], ['DELETE', '/api/svc/pulse', 'GET, HEAD'], ['POST', '/openapi.json', 'GET, HEAD']]) {
    const r = await t.call(method, path);
    assert.equal(r.status, 405, `${method} ${path}: ${r.text}`);
    assert.equal(r.body.code, 'METHOD_NOT_ALLOWED');
    assert.equal(r.headers.allow, allow);
  }
  assert.equal((await t.call('PUT', '/api/no-such-thing')).status, 404);
});

test('operations that depend on an upstream declare 503; non-JSON answers declare their media types; no other 5xx is declared', () => {
  const op = (path: string, method: string) => spec.paths[path][method];
  assert.ok(op('/api/papers/search', 'get').responses['503'], 'papers search declares 503');
  assert.ok(op('/api/observer/stream', 'get').responses['503']);
  assert.deepEqual(Object.keys(op('/api/observer/stream', 'get').responses['200'].content), ['text/event-stream']);
  const schema = Object.entries<any>(spec.paths).find(([p]) => p.startsWith('/api/contracts/schema'));
  assert.ok(schema, 'the contract schema route is published');
  assert.deepEqual(Object.keys(schema[1].get.responses['200'].content), ['application/schema+json']);
  const raw = Object.entries<any>(spec.paths).find(([p]) => p.endsWith('/raw'));
  assert.ok(raw);
  assert.deepEqual(Object.keys(raw[1].get.responses['200'].content), ['text/plain']);
  for (const [path, methods] of Object.entries<any>(spec.paths)) {
    for (const [m, o] of Object.entries<any>(methods)) {
      for (const st of Object.keys(o.responses)) assert.ok(!/^5/.test(st) || st === '503', `${m} ${path} declares ${st}`);
    }
  }
});
