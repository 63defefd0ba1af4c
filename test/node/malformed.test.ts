// Malformed input to every operation: wrong types, missing and unknown fields, out-of-range and
// non-finite numbers, 2 MB bodies, bad JSON, bad or foreign keys. Every answer is a 4xx error
// body {ok: false, error, code}; none is a 500. The table is generated from the operations the
// registry declares (app.operations), so an operation added later is covered without editing
// this file; one test per operation, so the per-test time budget holds however many there are.
//
// "Bad or foreign keys": no key, a malformed Authorization header, an unknown key, a revoked key,
// an expired demo key, a key minted by another node (another database), a demo key where a
// machine key is needed, the admin key on a machine operation, a machine key on an admin route.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testNode, ADMIN_KEY } from '../helpers.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';
import type { Operation } from '../../src/ops/types.ts';

const t = await testNode();
after(async () => { await t.close(); });
const key = (await t.machine('fuzz')).apiKey;
const demo = await t.demoKey();
// a revoked machine key
const revokedMachine = await t.machine('revoked');
assert.equal((await t.call('POST', `/api/admin/machines/${revokedMachine.zid}/revoke-keys`, {}, ADMIN_KEY)).status, 200);
const revoked = revokedMachine.apiKey;
// an expired demo key (expired in the store before it is ever used, so no cache holds it)
const expired = await t.demoKey();
await t.app.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 hour' WHERE key_hash = $1`, [createHash('sha256').update(expired).digest('hex')]);
// a valid machine key of another node (its own database): foreign here
const other = await testNode();
const foreign = (await other.machine('elsewhere')).apiKey;
await other.close();

function url(op: Operation, params: Record<string, string> = {}): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_, n) => encodeURIComponent(params[n] ?? 'x'));
}

function keyFor(op: Operation): string | undefined {
  return op.access === 'admin' ? ADMIN_KEY : op.access === 'public' ? undefined : key;
}

const isGetLike = (op: Operation) => op.method === 'GET' || op.method === 'DELETE';

/** false when the JSON Schema certainly refuses v (type, enum, const or a declared bound);
 * true when v may be valid (unions, untyped fields, or a value inside the bounds). */
function mayAccept(s: any, v: unknown): boolean {
  if (!s || typeof s !== 'object') return true;
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b: any) => mayAccept(b, v));
  if (Array.isArray(s.oneOf)) return s.oneOf.some((b: any) => mayAccept(b, v));
  if (Array.isArray(s.allOf)) return s.allOf.every((b: any) => mayAccept(b, v));
  if (s.const !== undefined) return JSON.stringify(s.const) === JSON.stringify(v);
  if (Array.isArray(s.enum)) return s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v));
  if (s.type === undefined) return true;
  const types: string[] = [].concat(s.type);
  return types.some((ty) => {
    switch (ty) {
      case 'number':
      case 'integer':
        if (typeof v !== 'number' || !Number.isFinite(v)) return false;
        if (ty === 'integer' && !Number.isInteger(v)) return false;
        if (s.minimum !== undefined && v < s.minimum) return false;
        if (s.maximum !== undefined && v > s.maximum) return false;
        if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return false;
        if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) return false;
        return true;
      case 'string':
        if (typeof v !== 'string') return false;
        if (s.maxLength !== undefined && v.length > s.maxLength) return false;
        if (s.minLength !== undefined && v.length < s.minLength) return false;
        return true;
      case 'boolean': return typeof v === 'boolean';
      case 'null': return v === null;
      case 'array':
        if (!Array.isArray(v)) return false;
        if (s.maxItems !== undefined && v.length > s.maxItems) return false;
        if (s.minItems !== undefined && v.length < s.minItems) return false;
        return true;
      case 'object': return !!v && typeof v === 'object' && !Array.isArray(v);
      default: return true;
    }
  });
}

/** What the node makes of a query-string value (src/http/server.ts coerceQuery, documented in
 * docs/node.md): numbers and booleans are coerced for fields of that type, the rest stay strings. */
function asQueryValue(s: any, v: unknown): unknown {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  const type = s?.type;
  if ((type === 'number' || type === 'integer') && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (type === 'array') return text.split(',').filter(Boolean);
  return text;
}

function wrongValues(s: any): unknown[] {
  const type = s?.type;
  const out: unknown[] = [{ nested: { deep: [1, 2, 3] } }, [1, 2, 3], null];
  if (type === 'number' || type === 'integer') out.push('abc', 'NaN', 'Infinity', true, 1e300, -1e300, 0.5);
  else if (type === 'string') out.push(12345, false, 'x'.repeat(300_000));
  else if (type === 'boolean') out.push('yes', 2);
  else if (type === 'array') out.push('not-an-array', 7, Array.from({ length: 5000 }, () => 'KO42'));
  else out.push('str', 42);
  return out;
}

/** values just outside each bound the schema declares */
function outOfRange(s: any): unknown[] {
  const out: unknown[] = [];
  const step = (x: number) => (s.type === 'integer' ? 1 : Math.max(1e-9, Math.abs(x) * 1e-6));
  if (typeof s.minimum === 'number' && Number.isFinite(s.minimum - step(s.minimum))) out.push(s.minimum - step(s.minimum));
  if (typeof s.maximum === 'number' && Number.isFinite(s.maximum + step(s.maximum))) out.push(s.maximum + step(s.maximum));
  if (typeof s.exclusiveMinimum === 'number') out.push(s.exclusiveMinimum);
  if (typeof s.exclusiveMaximum === 'number') out.push(s.exclusiveMaximum);
  if (typeof s.maxLength === 'number' && s.maxLength < 1_000_000) out.push('a'.repeat(s.maxLength + 1));
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('a'.repeat(s.minLength - 1));
  if (typeof s.maxItems === 'number' && s.maxItems < 100_000) out.push(Array.from({ length: s.maxItems + 1 }, () => 'KO42'));
  if (typeof s.minItems === 'number' && s.minItems > 0) out.push(Array.from({ length: s.minItems - 1 }, () => 'KO42'));
  if (s.type === 'integer') out.push(1.5);
  return out;
}

function expect4xx(op: Operation, what: string, r: { status: number; body: any; text: string }, status?: number, code?: string) {
  const where = `${op.method} ${op.path} [${what}]`;
  assert.ok(r.status >= 400 && r.status < 500, `${where} gave ${r.status}: ${r.text.slice(0, 300)}`);
  if (status !== undefined) assert.equal(r.status, status, `${where}: ${r.text.slice(0, 300)}`);
  assert.equal(r.body?.ok, false, `${where} body: ${r.text.slice(0, 200)}`);
  assert.equal(typeof r.body.code, 'string', `${where} has no code`);
  assert.equal(typeof r.body.error, 'string', `${where} has no error`);
  if (code !== undefined) assert.equal(r.body.code, code, where);
}

const send = (op: Operation, body: Record<string, unknown>, k: string | undefined, extra: Record<string, string> = {}) => {
  if (isGetLike(op)) {
    const qs = new URLSearchParams(Object.entries(body).map(([a, b]) => [a, typeof b === 'string' ? b : JSON.stringify(b)])).toString();
    return t.call(op.method, url(op) + (qs ? `?${qs}` : ''), undefined, k, extra);
  }
  return t.call(op.method, url(op), body, k, extra);
};

const ops = t.app.operations;
let guesses = 0;
const guessAddress = () => `10.77.${(guesses >> 8) & 255}.${guesses++ & 255}`;

test('the table covers every operation the registry declares', () => {
  assert.ok(ops.length >= 20);
  // every route under /api/ except the MCP endpoint (tested in mcp.test.ts) is an operation
  for (const op of ops) assert.ok(t.http.hasRoute({ method: op.method, url: op.path }), `${op.method} ${op.path} is served`);
});

for (const op of ops) {
  test(`${op.method} ${op.path}: malformed input and bad keys give 4xx error bodies, never 5xx`, async () => {
    const schema = jsonSchemaOf(op);
    const props: Record<string, any> = schema.properties ?? {};
    const required: string[] = (schema.required ?? []).filter((n: string) => !op.path.includes(`:${n}`));
    const k = keyFor(op);
    // a wildcard route (/log/tile/*) takes its '*' from the path, like a :param
    const hasPathParams = op.path.includes(':') || op.path.endsWith('*');

    // an operation that reads a text body (a witness's add-checkpoint): JSON is 415, junk text a 4xx
    if (op.textBody) {
      for (const [label, body, ct] of [['JSON body', '{"a":1}', 'application/json'], ['empty text', '', 'text/plain'], ['junk text', 'old 0\n\nnot a checkpoint', 'text/plain'], ['binary text', '\u0000\u0001\u00ff', 'text/plain']] as const) {
        const r = await t.call(op.method, url(op), body, k, { 'content-type': ct });
        assert.ok(r.status >= 400 && r.status < 500, `${op.method} ${op.path} [${label}]: ${r.status} ${r.text.slice(0, 200)}`);
        assert.equal(r.body?.ok, false, `${label}: an error body`);
      }
      return;
    }

    // an upload (POST /api/blobs) takes any bytes as its body: what is malformed is the coding, the
    // size and the credential
    if (op.streamBody) {
      for (const [label, body, headers, status] of [['bad gzip', 'not gzip', { 'content-encoding': 'gzip' }, 400], ['unknown coding', 'x', { 'content-encoding': 'br' }, 415], ['empty body', '', {}, 400]] as const) {
        expect4xx(op, label, await t.call(op.method, url(op), body, k, { 'content-type': 'application/octet-stream', ...headers }), status);
      }
      expect4xx(op, 'no key', await t.call(op.method, url(op), 'x', undefined, { 'content-type': 'application/octet-stream' }), 401, 'UNAUTHORIZED');
      expect4xx(op, 'unknown key', await t.call(op.method, url(op), 'x', 'svc_ak_unknownkey', { 'content-type': 'application/octet-stream' }), 401, 'UNAUTHORIZED');
      if (!op.allowDemo) expect4xx(op, 'demo key', await t.call(op.method, url(op), 'x', demo, { 'content-type': 'application/octet-stream' }), 403, 'FORBIDDEN');
      return;
    }

    // an unknown field (a hosted page's query string is not input: it is ignored, never refused)
    if (op.ignoreQuery) {
      const r = await send(op, { zz_unknown_field: 1 }, k);
      assert.ok(r.status < 500, `${op.method} ${op.path} with a query: ${r.status}`);
      assert.notEqual(r.body?.code, 'INVALID_INPUT', `${op.method} ${op.path} refused its query string`);
    } else {
      expect4xx(op, 'unknown field', await send(op, { zz_unknown_field: 1 }, k), 400, 'INVALID_INPUT');
    }
    // missing required fields
    if (required.length) {
      const r = await send(op, {}, k);
      expect4xx(op, 'missing fields', r);
      if (!hasPathParams) assert.ok((r.body.issues ?? []).some((i: any) => required.includes(i.path)) || required.some((n) => r.body.error.includes(n)), `${op.path}: missing field not named: ${r.text.slice(0, 300)}`);
    }

    // each field: values of the wrong type, out of range, non-finite
    for (const [name, ps] of Object.entries(props)) {
      if (op.path.includes(`:${name}`) || (name === '*' && op.path.endsWith('*'))) continue;
      for (const v of [...wrongValues(ps), ...outOfRange(ps)]) {
        const r = await send(op, { [name]: v }, k);
        const what = `${name}=${JSON.stringify(v)?.slice(0, 40)}`;
        const effective = isGetLike(op) ? asQueryValue(ps, v) : v;
        if (!mayAccept(ps, effective)) {
          // certainly invalid: a 400 (or an earlier 4xx from the path parameter)
          // (or a 413 when the value alone makes the body larger than the operation accepts)
          expect4xx(op, what, r, hasPathParams || r.status === 413 ? undefined : 400);
          if (!hasPathParams && r.status !== 413) assert.ok((r.body.issues ?? []).some((i: any) => i.path === name || i.path.startsWith(`${name}.`)), `${op.path} [${what}] does not name '${name}': ${r.text.slice(0, 300)}`);
        } else {
          // may be valid (a union, or inside the bounds): whatever it is, never a 5xx (a literature
          // source that cannot be reached is the one 503 the tests allow: they run offline)
          assert.ok(r.status < 500 || (r.status === 503 && r.body.code === 'UPSTREAM_UNAVAILABLE'), `${op.method} ${op.path} [${what}] gave ${r.status}: ${r.text.slice(0, 300)}`);
          if (r.status >= 400 && r.status < 500) expect4xx(op, what, r);
        }
      }
      // non-finite numbers: JSON has no NaN or Infinity, but 1e400 parses to Infinity
      if (ps.type === 'number' || ps.type === 'integer') {
        if (isGetLike(op)) {
          for (const v of ['Infinity', '-Infinity', 'NaN', '1e400']) expect4xx(op, `${name}=${v}`, await t.call(op.method, `${url(op)}?${name}=${v}`, undefined, k));
        } else {
          for (const v of ['1e400', '-1e400']) expect4xx(op, `${name}=${v}`, await t.call(op.method, url(op), `{"${name}": ${v}}`, k));
        }
      }
    }

    // bad and foreign credentials: 401 on every operation, public ones included (a credential, if
    // sent, must be valid)
    for (const [what, bad] of [['unknown key', 'svc_ak_unknownkey'], ['revoked key', revoked], ['expired demo key', expired], ['key of another node', foreign], ['not a key', 'hello']] as const) {
      // a bearer that is not shaped like an issued credential is a guess at the admin key: each
      // address may make 10 an hour (issue 19), so each operation's guess comes from its own address
      expect4xx(op, what, await send(op, {}, bad, { 'x-test-ip': guessAddress() }), 401, 'UNAUTHORIZED');
    }
    expect4xx(op, 'malformed header', await t.call(op.method, url(op), undefined, undefined, { authorization: 'Token abc' }), 401, 'UNAUTHORIZED');
    expect4xx(op, 'empty bearer', await t.call(op.method, url(op), undefined, undefined, { authorization: 'Bearer ' }), 401, 'UNAUTHORIZED');
    if (op.access === 'admin') {
      expect4xx(op, 'no key', await send(op, {}, undefined), 403, 'ADMIN_REQUIRED');
      expect4xx(op, 'machine key', await send(op, {}, key), 403, 'ADMIN_REQUIRED');
      expect4xx(op, 'demo key', await send(op, {}, demo), 403, 'ADMIN_REQUIRED');
    } else if (op.access !== 'public') {
      expect4xx(op, 'no key', await send(op, {}, undefined), 401, 'UNAUTHORIZED');
      if (!op.allowDemo) expect4xx(op, 'demo key', await send(op, {}, demo), 403, 'FORBIDDEN');
      expect4xx(op, 'admin key', await send(op, {}, ADMIN_KEY), 403, 'FORBIDDEN');
    }

    // bodies that are not a JSON object, and bodies that are too large
    if (!isGetLike(op)) {
      expect4xx(op, 'bad JSON', await t.call(op.method, url(op), '{"a":', k), 400);
      expect4xx(op, 'empty JSON body', await t.call(op.method, url(op), '', k, { 'content-type': 'application/json' }), 400);
      expect4xx(op, 'array body', await t.call(op.method, url(op), '[1,2,3]', k), 400);
      expect4xx(op, 'string body', await t.call(op.method, url(op), '"hello"', k), 400);
      expect4xx(op, 'number body', await t.call(op.method, url(op), '42', k), 400);
      expect4xx(op, 'null body', await t.call(op.method, url(op), 'null', k));
      expect4xx(op, 'text/plain', await t.call(op.method, url(op), 'hello', k, { 'content-type': 'text/plain' }));
      expect4xx(op, 'prototype pollution', await t.call(op.method, url(op), '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}', k), 400);
      // past the operation's own body limit (1 MiB unless it takes files)
      const over = (op.bodyLimit ?? 1024 * 1024) + 1024 * 1024;
      const big = JSON.stringify({ blob: 'x'.repeat(over) });
      expect4xx(op, 'oversize body', await t.call(op.method, url(op), big, k), 413, 'PAYLOAD_TOO_LARGE');
      const bigNested = '{"a":' + '['.repeat(over / 2) + ']'.repeat(over / 2) + '}';
      expect4xx(op, 'oversize nested body', await t.call(op.method, url(op), bigNested, k), 413, 'PAYLOAD_TOO_LARGE');
      // deep nesting within the size limit is refused by the depth limit, not by a stack overflow
      const deep = '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
      expect4xx(op, 'nested 5,000 deep', await t.call(op.method, url(op), deep, k), 400, 'INVALID_INPUT');
    } else {
      // a 2 MB query string
      expect4xx(op, '2 MB query', await t.call(op.method, `${url(op)}?zz=${'x'.repeat(2 * 1024 * 1024)}`, undefined, k));
    }

    // the same validation over MCP: a failed tool call is an isError result carrying the body
    if (op.tool) {
      const r = await t.tool(op.tool, { zz_unknown_field: 1 }, k);
      assert.equal(r.isError, true, `${op.tool} accepted an unknown field`);
      assert.equal(r.body.code, 'INVALID_INPUT');
      const s = await t.tool(op.tool, 'not an object' as any, k);
      assert.equal(s.isError, true);
      assert.equal(s.body.code, 'INVALID_INPUT');
      const bad = await t.tool(op.tool, {}, revoked);
      assert.equal(bad.isError, true);
      assert.equal(bad.body.code, 'UNAUTHORIZED');
    }
  });
}

test('unknown routes are 404 error bodies; a known route with another method is 405 with Allow', async () => {
  for (const [m, p] of [['GET', '/api/nope'], ['POST', '/api/svc/nope'], ['GET', '/%2e%2e/etc/passwd']] as const) {
    const r = await t.call(m, p);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'NOT_FOUND');
  }
  const r = await t.call('PATCH', '/api/svc/pulse');
  assert.equal(r.status, 405);
  assert.equal(r.body.code, 'METHOD_NOT_ALLOWED');
  assert.equal(r.headers.allow, 'GET, HEAD');
});

test('another machine\'s resources are not found with a foreign machine key', async () => {
  const a = await t.machine('owner');
  const b = await t.machine('stranger');
  const s = (await t.call('POST', '/api/svc/protect', { folder: 'private' }, a.apiKey)).body;
  const r = await t.call('GET', `/api/receipts/${s.receipt.id}`, undefined, b.apiKey);
  expect4xx(ops.find((o) => o.path === '/api/receipts/:id')!, 'foreign receipt', r, 404, 'NOT_FOUND');
  const f = (await t.call('GET', '/api/folders/private/receipts', undefined, b.apiKey)).body;
  assert.deepEqual(f.receipts, []);
  assert.ok(!(await t.call('GET', '/api/folders', undefined, b.apiKey)).body.folders.some((x: any) => x.name === 'private'));
  const own = (await t.call('GET', '/api/observer?limit=50', undefined, b.apiKey)).body;
  assert.ok(own.entries.every((e: any) => e.zid === b.zid));
  // a proof sealed for A does not verify as B's (keyPrefix defaults to the caller's)
  const v = await t.tool('svc_verify', { proof: s.svcProof, operatorIds: s.svcState.operators, R_t: s.svcState.masterSum, zeqond: s.svcState.svcond, value: s.value, unit: s.unit }, b.apiKey);
  assert.equal(v.body.valid, false);
});
