// Malformed input to every operation: wrong types, missing and unknown fields, out-of-range and
// non-finite numbers, 2 MB bodies, bad JSON, bad or foreign keys. Every answer is a 4xx error
// body {ok: false, error, code}; none is a 500. The table is generated from the operations
// themselves, so an operation added later is covered without editing this file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, ADMIN_KEY, type TestNode } from '../helpers.ts';
import { jsonSchemaOf } from '../../src/http/openapi.ts';
import type { Operation } from '../../src/ops/types.ts';

let t: TestNode;
let key: string;
let demo: string;
before(async () => {
  t = await testNode();
  key = (await t.machine('fuzz')).apiKey;
  demo = await t.demoKey();
});
after(async () => { await t.close(); });

function url(op: Operation, params: Record<string, string> = {}): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_, n) => encodeURIComponent(params[n] ?? 'x'));
}

function keyFor(op: Operation): string | undefined {
  return op.access === 'admin' ? ADMIN_KEY : op.access === 'public' ? undefined : key;
}

function wrongValues(schema: any): unknown[] {
  const type = schema?.type;
  const out: unknown[] = [{ nested: { deep: [1, 2, 3] } }, [1, 2, 3]];
  if (type === 'number' || type === 'integer') out.push('abc', true, 1e308 * 10, -1e308 * 10, 1e300, -1e300);
  else if (type === 'string') out.push(12345, false, 'x'.repeat(300_000));
  else if (type === 'boolean') out.push('yes', 2);
  else if (type === 'array') out.push('not-an-array', 7);
  else out.push('str', 42);
  return out;
}

function expect4xx(op: Operation, what: string, r: { status: number; body: any; text: string }) {
  assert.ok(r.status >= 400 && r.status < 500, `${op.method} ${op.path} [${what}] gave ${r.status}: ${r.text.slice(0, 300)}`);
  assert.equal(r.body.ok, false, `${op.method} ${op.path} [${what}] body: ${r.text.slice(0, 200)}`);
  assert.equal(typeof r.body.code, 'string', `${op.method} ${op.path} [${what}] has no code`);
  assert.equal(typeof r.body.error, 'string');
}

const send = (op: Operation, body: unknown, k: string | undefined, extra: Record<string, string> = {}) => {
  if (op.method === 'GET' || op.method === 'DELETE') {
    const qs = body && typeof body === 'object' && !Array.isArray(body)
      ? '?' + new URLSearchParams(Object.entries(body as Record<string, unknown>).map(([a, b]) => [a, typeof b === 'string' ? b : JSON.stringify(b)])).toString()
      : '';
    return t.call(op.method, url(op) + qs, undefined, k, extra);
  }
  return t.call(op.method, url(op), body, k, extra);
};

test('every operation answers malformed input with a 4xx error body, never a 500', async () => {
  const ops = t.app.operations;
  assert.ok(ops.length >= 20);
  let cases = 0;
  for (const op of ops) {
    const schema = jsonSchemaOf(op);
    const props: Record<string, any> = schema.properties ?? {};
    const k = keyFor(op);
    // an unknown field
    expect4xx(op, 'unknown field', await send(op, { zz_unknown_field: 1 }, k)); cases++;
    // each field with values of the wrong type, out of range or non-finite
    for (const [name, ps] of Object.entries(props)) {
      if (op.path.includes(`:${name}`)) continue;
      for (const v of wrongValues(ps)) {
        const r = await send(op, { [name]: v }, k);
        // a value of another type can be valid for a union field; then it must not be a 5xx either
        assert.ok(r.status < 500 || (r.status === 503 && r.body.code === 'UPSTREAM_UNAVAILABLE'), `${op.method} ${op.path} [${name}=${JSON.stringify(v).slice(0, 40)}] gave ${r.status}: ${r.text.slice(0, 300)}`);
        if (r.status >= 400 && r.status < 500) expect4xx(op, `${name}`, r);
        cases++;
      }
    }
    // bad and foreign credentials
    expect4xx(op, 'unknown key', await send(op, {}, 'svc_ak_unknownkey')); cases++;
    expect4xx(op, 'malformed header', await t.call(op.method, url(op), undefined, undefined, { authorization: 'Token abc' })); cases++;
    if (op.access !== 'public') {
      expect4xx(op, 'no key', await send(op, {}, undefined)); cases++;
      if (!op.allowDemo) { expect4xx(op, 'demo key', await send(op, {}, demo)); cases++; }
    }
    if (op.method !== 'GET' && op.method !== 'DELETE') {
      expect4xx(op, 'bad JSON', await t.call(op.method, url(op), '{"a":', k)); cases++;
      expect4xx(op, 'array body', await t.call(op.method, url(op), '[1,2,3]', k)); cases++;
      expect4xx(op, 'string body', await t.call(op.method, url(op), '"hello"', k)); cases++;
      expect4xx(op, 'text/plain', await t.call(op.method, url(op), 'hello', k, { 'content-type': 'text/plain' })); cases++;
      const big = JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) });
      const r = await t.call(op.method, url(op), big, k);
      expect4xx(op, '2 MB body', r);
      assert.equal(r.status, 413, `${op.path} 2 MB body gave ${r.status}`);
      cases++;
    }
  }
  assert.ok(cases > ops.length * 8);
});

test('unknown routes and methods are 404 error bodies', async () => {
  for (const [m, p] of [['GET', '/api/nope'], ['POST', '/api/svc/nope'], ['PATCH', '/api/svc/pulse'], ['GET', '/%2e%2e/etc/passwd']] as const) {
    const r = await t.call(m, p);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'NOT_FOUND');
  }
});
