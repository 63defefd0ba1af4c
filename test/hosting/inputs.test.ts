// No input produces a 500 from the hosting operations: every string field (and path parameter)
// of pages, mail and OAuth receives hostile strings, both alone and on top of an otherwise valid
// request, so that the values reach the handlers and the store (NUL bytes, lone surrogates, …).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';
import type { Operation } from '../../src/ops/types.ts';
import { pkce } from './oauth-helpers.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  t = await testNode();
  m = await t.machine('fuzzed');
});
after(async () => { await t.close(); });

const NASTY = ['\u0000', 'a\u0000b', '\ud800', '\udfff\ud800', '😀'.repeat(50), '\u202eevil', '%00', '../../etc/passwd', '<script>alert(1)</script>',
  "'; DROP TABLE machines; --", ' ', '\r\n', 'x'.repeat(5000), '${7*7}', 'ﬁ', '\\', '"', '{}', '[]', 'null', '-1', 'Z' + '0'.repeat(26), 'svc_ort_' + 'A'.repeat(43)];

function baseline(op: Operation): Record<string, unknown> {
  const { challenge } = pkce();
  switch (op.id) {
    case 'pages.publish': return { title: 't', html: '<p>x</p>', pageSlug: 'fz' };
    case 'mail.send': return { subject: 's', html: '<p>x</p>' };
    case 'oauth.authorize': return { client_id: 'c', redirect_uri: 'https://c.example/cb', response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'openid', nonce: 'n' };
    case 'oauth.token': return { grant_type: 'refresh_token', refresh_token: 'svc_ort_' + 'A'.repeat(43), client_id: 'c' };
    case 'oauth.refresh': return { refresh_token: 'svc_ort_' + 'A'.repeat(43) };
    case 'oauth.revoke': return { token: 'svc_oat_' + 'A'.repeat(43) };
    case 'oauth.approve': return { requestId: 'oar_' + '0'.repeat(26) };
    default: return {};
  }
}

/** Path segments: a lone surrogate cannot be percent-encoded, so it goes as invalid UTF-8. */
const segment = (v: string) => { try { return encodeURIComponent(v); } catch { return '%ED%A0%80'; } };

let ipCounter = 0;
function request(op: Operation, params: Record<string, string>, body: Record<string, unknown>) {
  // a client address per request, so the per-address rate limits never stand between a value and the handler
  const n = ipCounter++;
  const ip = { 'x-test-ip': `10.77.${(n >> 8) & 255}.${n & 255}` };
  const path = op.path.replace(/:([A-Za-z0-9_]+)/g, (_, n) => segment(params[n] ?? 'x'));
  const key = op.access === 'public' ? undefined : m.apiKey;
  if (op.method === 'GET' || op.method === 'DELETE') {
    const qs = new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
    return t.call(op.method, path + (qs ? `?${qs}` : ''), undefined, key, ip);
  }
  return t.call(op.method, path, body, key, ip);
}

test('hostile strings in every field and path parameter of the hosting operations never give a 500', async () => {
  const ops = t.app.operations.filter((o) => /^(pages|mail|oauth)\./.test(o.id));
  assert.ok(ops.length >= 15, ops.map((o) => o.id).join());
  let cases = 0;
  for (const op of ops) {
    const schema = jsonSchemaOf(op);
    const pathParams = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((x) => x[1]);
    const fields = Object.entries<any>(schema.properties ?? {}).filter(([k, s]) => !pathParams.includes(k) && s.type === 'string').map(([k]) => k);
    for (const v of NASTY) {
      for (const p of pathParams) {
        const r = await request(op, { [p]: v }, {});
        assert.ok(r.status < 500, `${op.id} :${p}=${JSON.stringify(v).slice(0, 30)} → ${r.status} ${r.text.slice(0, 200)}`);
        cases++;
      }
      for (const f of fields) {
        // on top of a valid request, so the value reaches the handler (single fields alone: test/node/malformed.test.ts)
        for (const body of [{ ...baseline(op), [f]: v }]) {
          const r = await request(op, {}, body);
          assert.ok(r.status < 500, `${op.id} ${f}=${JSON.stringify(v).slice(0, 30)} → ${r.status} ${r.text.slice(0, 200)}`);
          assert.notEqual(r.status, 429, `${op.id} rate-limited: the value never reached the handler`);
          if (r.status >= 400) assert.equal(r.body.ok, false, `${op.id} ${f}: ${r.text.slice(0, 100)}`);
          cases++;
        }
      }
    }
  }
  assert.ok(cases > 400, String(cases));
});

test('a NUL in page html is refused (400); in mail html it is dropped; the store never sees it', async () => {
  const p = await t.call('POST', '/api/pages', { title: 't', html: '<p>a\u0000b</p>', pageSlug: 'nul' }, m.apiKey);
  assert.equal(p.status, 400);
  const mail = await t.call('POST', '/api/mail', { subject: 's', html: '<p>a\u0000b</p>', text: 'x\u0000y' }, m.apiKey);
  assert.equal(mail.status, 200);
  const got = await t.call('GET', `/api/mail/${mail.body.id}`, undefined, m.apiKey);
  assert.equal(got.body.html, '<p>ab</p>');
  assert.equal(got.body.text, 'xy');
});
