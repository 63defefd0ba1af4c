// The console's logic outside the browser: the form generated from each solver's schema, the
// receipt checks (canonical JSON, proof request, Ed25519 signature), the SSE parser, and the
// node side (static files, the solver list, the mail frame's tickets and policy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { fieldsOf, collectBody, initialText, hintOf, COMMON_FIELDS } from '../../src/console/static/form.js';
import { canonicalJson, parseSealed, proofRequestOf, checkSignature, verdictOf } from '../../src/console/static/verify.js';
import { createSseParser } from '../../src/console/static/api.js';
import { seriesColumns, formatTicks, niceTicks } from '../../src/console/static/plot.js';
import { PRESENT, chartsOf, phasesOf, headlineOf, valueLine, fmt, sci } from '../../src/console/static/present.js';
import { readFileSync } from 'node:fs';
import { canonicalJson as nodeCanonicalJson } from '../../src/core/canonical.ts';
import { createRng } from '../../src/solvers/lib/rng.ts';
import { parseInput } from '../../src/ops/validate.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';
import { MAIL_FRAME_CSP, MAIL_TICKET_SECONDS, mintMailTicket, openMailTicket, CONSOLE_CSP } from '../../src/ops/console.ts';

let t: TestNode;
let m: Awaited<ReturnType<TestNode['machine']>>;
let heat: any;
let jwks: any;
before(async () => {
  t = await testNode();
  m = await t.machine('unit');
  const r = await t.call('POST', '/api/svc/heat', { nx: 32, ny: 32, steps: 100, folder: 'unit' }, m.apiKey);
  assert.equal(r.status, 200);
  heat = r.body;
  jwks = (await t.call('GET', '/.well-known/jwks.json')).body;
});
after(async () => { await t?.close(); });

test('the playground lists every sealed solver with the schema the API publishes', async () => {
  const r = await t.call('GET', '/console/solvers.json');
  assert.equal(r.status, 200);
  const solverOps = t.app.operations.filter((o) => o.tag === 'solvers' && o.method === 'POST' && o.path.startsWith('/api/svc/'));
  assert.equal(r.body.solvers.length, solverOps.length);
  const openapi = (await t.call('GET', '/openapi.json')).body;
  for (const s of r.body.solvers) {
    const op = solverOps.find((o) => o.path === s.path)!;
    assert.deepEqual(s.schema, JSON.parse(JSON.stringify(jsonSchemaOf(op))), s.name);
    const fromOpenApi = openapi.paths[s.path].post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(s.schema.properties ?? {}).sort(), Object.keys(fromOpenApi.properties ?? {}).sort(), s.name);
  }
  assert.ok(r.body.solvers.some((s: any) => s.name === 'heat'));
});

test('heat\'s form: its own fields with bounds and defaults, the common fields apart', async () => {
  const heatSchema = (await t.call('GET', '/console/solvers.json')).body.solvers.find((s: any) => s.name === 'heat').schema;
  const fields = fieldsOf(heatSchema);
  const by = Object.fromEntries(fields.map((f: any) => [f.name, f]));
  // no fixed default: a grid left out follows the mode (issue 29)
  assert.deepEqual({ kind: by.nx.kind, integer: by.nx.integer, min: by.nx.min, max: by.nx.max, def: by.nx.default }, { kind: 'number', integer: true, min: 8, max: 1024, def: undefined });
  assert.equal(by.method.kind, 'select');
  assert.deepEqual(by.method.options, ['explicit', 'implicit']);
  assert.equal(by.alpha.exclusiveMin, true, 'alpha > 0 is an exclusive bound');
  assert.match(hintOf(by.alpha), /> 0, ≤ 1000/);
  for (const name of COMMON_FIELDS) assert.equal(by[name]?.common, true, name);
  for (const name of ['nx', 'dt', 'steps', 'dim']) assert.equal(by[name].common, false, name);
  assert.equal(by.operators.kind, 'list');
  assert.equal(by.inputs.kind, 'json');

  // typed text becomes the request body; bad text is caught before it is sent
  const raw = Object.fromEntries(fields.map((f: any) => [f.name, initialText(f)]));
  const { body, errors } = collectBody(fields, { ...raw, nx: '48', dt: '1e-4', operators: 'CHE17, KO42', folder: 'f1' });
  assert.deepEqual(errors, []);
  assert.equal(body.nx, 48);
  assert.equal(body.dt, 1e-4);
  assert.deepEqual(body.operators, ['CHE17', 'KO42']);
  assert.equal(body.method, 'implicit');
  assert.ok(!('inputs' in body) && !('query' in body), 'empty fields are left to the node');
  const bad = collectBody(fields, { ...raw, nx: '4.5', steps: 'many', inputs: '{nope' });
  assert.deepEqual(bad.errors.map((e: any) => e.name).sort(), ['inputs', 'nx', 'steps']);
});

test('every solver\'s form, left at its defaults, gives a body the node accepts', async () => {
  const { solvers } = (await t.call('GET', '/console/solvers.json')).body;
  for (const s of solvers) {
    const op = t.app.operations.find((o) => o.path === s.path)!;
    const fields = fieldsOf(s.schema);
    const raw = Object.fromEntries(fields.map((f: any) => [f.name, f.kind === 'checkbox' ? f.default === true : initialText(f)]));
    const { body, errors } = collectBody(fields, raw);
    const required = fields.filter((f: any) => f.required).map((f: any) => f.name);
    // a required field without a default is the user's to fill; everything else must validate
    if (required.length) {
      assert.deepEqual(errors.map((e: any) => e.name).sort(), required.sort(), s.name);
      continue;
    }
    assert.deepEqual(errors, [], s.name);
    assert.doesNotThrow(() => parseInput(op.input, body), `${s.name}: ${JSON.stringify(body).slice(0, 300)}`);
  }
});

test('canonical JSON in the browser is the node\'s RFC 8785 canonical JSON', () => {
  const rng = createRng(11);
  const keys = ['a', 'b', 'Z', 'é', '\u{1F600}', '10', '1', 'aa', '', 'ß', '\u00e9'];
  const gen = (depth: number): unknown => {
    const k = Math.floor(rng.next() * 7);
    if (depth > 3 || k === 0) return rng.next() < 0.5 ? (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 40 - 20) : Math.floor(rng.next() * 1e6);
    if (k === 1) return keys[Math.floor(rng.next() * keys.length)] + '"\\\n\u0001';
    if (k === 2) return rng.next() < 0.5 ? null : rng.next() < 0.5;
    if (k < 5) return Array.from({ length: Math.floor(rng.next() * 4) }, () => gen(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rng.next() * 5) }, () => [keys[Math.floor(rng.next() * keys.length)], gen(depth + 1)]));
  };
  for (let i = 0; i < 300; i++) {
    const v = gen(0);
    assert.equal(canonicalJson(v), nodeCanonicalJson(v));
  }
  assert.equal(canonicalJson(heat), nodeCanonicalJson(heat));
});

test('the proof request read from a sealed response is one the node finds valid (v2 and v1)', async () => {
  const req = proofRequestOf(heat);
  assert.equal(req.version, 2);
  assert.equal(req.request.value, heat.value);
  let r = await t.call('POST', '/api/svc/verify', req.request, m.apiKey);
  assert.deepEqual([r.status, r.body.valid, r.body.version], [200, true, 2]);
  r = await t.call('POST', '/api/svc/verify', proofRequestOf({ ...heat, value: heat.value + 1e-12 }).request, m.apiKey);
  assert.equal(r.body.valid, false);

  // a v1 receipt (a contract fire) signs no value
  const dep = await t.call('POST', '/api/contracts', { templateId: 'crop-season' }, m.apiKey);
  const fire = await t.call('POST', `/api/contracts/${dep.body.id}/fire`, {}, m.apiKey);
  assert.equal(fire.body.receipt.version, 1);
  const v1 = proofRequestOf(fire.body);
  assert.equal(v1.version, 1);
  assert.ok(!('value' in v1.request));
  r = await t.call('POST', '/api/svc/verify', v1.request, m.apiKey);
  assert.deepEqual([r.body.valid, r.body.version], [true, 1]);

  assert.match(proofRequestOf({ ok: true }).error, /missing svcProof, svcState, keyPrefix/);
  assert.match(proofRequestOf({ ...heat, value: null }).error, /v2 receipt signs its value/);
  assert.match(parseSealed('').error, /nothing to verify/);
  assert.match(parseSealed('[1]').error, /expected a JSON object/);
  assert.match(parseSealed('{').error, /not JSON/);
});

test('the Ed25519 signature check (WebCrypto, as in the browser) accepts the node\'s receipt and catches any change', async () => {
  assert.equal(typeof heat.signature, 'object', 'receipts carry a v3 signature');
  assert.deepEqual(await checkSignature(heat, jwks), { status: 'valid', kid: heat.signature.kid });
  const tampered = await checkSignature({ ...heat, result: { ...heat.result, amplitude: 1 } }, jwks);
  assert.equal(tampered.status, 'invalid');
  assert.match(tampered.reason, /signature does not match/);
  const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(heat).reverse())));
  assert.equal((await checkSignature(reordered, jwks)).status, 'valid', 'key order does not matter (canonical JSON)');
  assert.equal((await checkSignature({ ...heat, signature: { ...heat.signature, kid: 'nope' } }, jwks)).status, 'invalid');
  const { signature: _s, ...unsigned } = heat;
  assert.equal((await checkSignature(unsigned, jwks)).status, 'absent');

  assert.equal(verdictOf({ valid: true, version: 2 }, { status: 'valid', kid: 'k' }).valid, true);
  assert.equal(verdictOf({ valid: true, version: 2 }, { status: 'invalid', reason: 'x' }).valid, false);
  assert.equal(verdictOf({ valid: false, version: 2 }, { status: 'valid', kid: 'k' }).valid, false);
  assert.equal(verdictOf({ error: 'down' }, { status: 'valid', kid: 'k' }).reason, 'down');
  assert.match(verdictOf({ valid: true, version: 1 }, { status: 'absent', reason: 'no signature: old' }).reason, /v1 proof valid; no signature/);
});

test('the SSE parser follows the event-stream format across arbitrary chunking', () => {
  const stream = ': hello\n\nid: 7\nevent: entry\ndata: {"seq":7}\n\r\ndata: a\ndata: b\n\nevent: end\r\ndata: {"reason":"x"}\r\n\r\n';
  const expected = [
    { event: 'entry', data: '{"seq":7}', id: '7' },
    { event: 'message', data: 'a\nb', id: '7' },
    { event: 'end', data: '{"reason":"x"}', id: '7' },
  ];
  for (const size of [1, 2, 3, 7, stream.length]) {
    const got: any[] = [];
    const feed = createSseParser((e: any) => got.push(e));
    for (let i = 0; i < stream.length; i += size) feed(stream.slice(i, i + size));
    assert.deepEqual(got, expected, `chunks of ${size}`);
  }
});

test('series become plot columns: the first key is the abscissa', () => {
  assert.deepEqual(seriesColumns(heat.series), { x: 't', ys: ['amplitude', 'reference'], n: heat.series.t.length });
  assert.equal(seriesColumns({ t: [1, 2] }), null);
  assert.equal(seriesColumns(undefined), null);
  assert.deepEqual(seriesColumns({ x: [1, 2, 3], y: [1, 2], label: 'no' }), { x: 'x', ys: ['y'], n: 2 });
});

test('console files are served with the strict CSP; nothing outside the static folder is', async () => {
  const page = await t.call('GET', '/console');
  assert.equal(page.status, 200);
  assert.match(page.headers['content-type'], /^text\/html/);
  assert.equal(page.headers['content-security-policy'], CONSOLE_CSP);
  assert.equal(page.headers['x-frame-options'], 'DENY');
  assert.doesNotMatch(page.text, /<script>|<style>|style="|on(click|load)=/, 'no inline script or style');
  for (const m of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
    assert.ok(m[1].startsWith('/') || m[1].startsWith('#'), `local reference ${m[1]}`);
  }
  const js = await t.call('GET', '/console/static/app.js');
  assert.match(js.headers['content-type'], /^text\/javascript/);
  for (const path of ['/console/static/..%2F..%2Fops%2Fconsole.ts', '/console/static/console.ts', '/console/static/missing.js',
    '/console/static/.hidden.js', '/console/vendor/package.json', '/console/vendor/..%2Fpackage.json']) {
    assert.equal((await t.call('GET', path)).status, 404, path);
  }
  assert.equal((await t.call('GET', '/console/vendor/uPlot.esm.js')).status, 200);
  const catalog = await t.call('GET', '/api/catalog', undefined, undefined);
  assert.ok(!JSON.stringify(catalog.body).includes('/console'), 'console routes stay out of the API catalog');
});

test('a mail opens only through a short-lived ticket for the owner, in a script-less sandboxed document', async () => {
  const sent = await t.call('POST', '/api/mail', { subject: 'hi', html: '<p style="color:red">hello <b>there</b></p><script>alert(1)</script>' }, m.apiKey);
  assert.equal(sent.status, 200);
  const view = await t.call('POST', '/console/mail-view', { id: sent.body.id }, m.apiKey);
  assert.equal(view.status, 200);
  assert.match(view.body.url, /^\/console\/mail-view\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  const doc = await t.call('GET', view.body.url);
  assert.equal(doc.status, 200);
  assert.equal(doc.headers['content-security-policy'], MAIL_FRAME_CSP);
  assert.match(MAIL_FRAME_CSP, /^sandbox /);
  assert.doesNotMatch(MAIL_FRAME_CSP, /allow-scripts|allow-same-origin/);
  assert.match(MAIL_FRAME_CSP, /frame-ancestors 'self'/);
  assert.match(doc.text, /<p style="color:red">hello <b>there<\/b><\/p>/);
  assert.doesNotMatch(doc.text, /<script/i);
  assert.equal(doc.headers['cache-control'], 'private, no-store');

  // no key, another machine, a forged or an expired ticket: nothing
  assert.equal((await t.call('POST', '/console/mail-view', { id: sent.body.id })).status, 401);
  const other = await t.machine('other');
  assert.equal((await t.call('POST', '/console/mail-view', { id: sent.body.id }, other.apiKey)).status, 404);
  const ticket = view.body.url.slice('/console/mail-view/'.length);
  const [payload, mac] = ticket.split('.');
  const forgedPayload = Buffer.from(JSON.stringify({ z: other.zid, m: sent.body.id, e: 9e9 })).toString('base64url');
  for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, 'x', `${payload}.`]) {
    assert.equal((await t.call('GET', `/console/mail-view/${bad}`)).status, 404, bad);
  }
  const now = t.app.clock.now();
  const fresh = mintMailTicket(t.app, m.zid, sent.body.id, now);
  // every other spelling of the MAC's last character is refused, including the three that decode to the same bytes
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (const c of B64) {
    if (c === fresh.ticket.at(-1)) continue;
    assert.equal(openMailTicket(t.app, fresh.ticket.slice(0, -1) + c, now), null, c);
  }
  assert.deepEqual(openMailTicket(t.app, fresh.ticket, now + MAIL_TICKET_SECONDS - 1), { zid: m.zid, mailId: sent.body.id });
  assert.equal(openMailTicket(t.app, fresh.ticket, now + MAIL_TICKET_SECONDS + 1), null);
});

// ---- what the playground shows of a result (issue 21 item 7), on every solver's recorded answer
const examples: Record<string, { response: any }> = JSON.parse(readFileSync(new URL('../../src/ops/solver-examples.json', import.meta.url), 'utf8'));

test('tick labels: grouped digits up to millions, ×10ⁿ beyond, enough decimals and no more', () => {
  assert.deepEqual(formatTicks([0, 200000, 400000, 600000, 800000, 1000000]), ['0', '200,000', '400,000', '600,000', '800,000', '1,000,000']);
  assert.deepEqual(formatTicks([0, 2e7, 4e7]), ['0', '2×10⁷', '4×10⁷']);
  assert.deepEqual(formatTicks([0.5, 1, 1.5]), ['0.5', '1.0', '1.5']);
  assert.deepEqual(formatTicks([0, 0.0002, 0.0004]), ['0', '2×10⁻⁴', '4×10⁻⁴']);
  assert.deepEqual(formatTicks([-10, 0, 10]), ['-10', '0', '10']);
  assert.equal(sci(1e6), '10⁶');
  assert.equal(sci(-2.5e-5), '-2.5×10⁻⁵');
  assert.equal(fmt(0.673878858), '0.6739');
  assert.equal(fmt(940480.5), '940500');
});

test('nice ticks span the data: the first at or below the least value, the last at or above the largest', () => {
  for (const [lo, hi] of [[-17.3, 18.9], [0.2, 47.7], [3, 3], [-1e-3, 2e-3], [1000, 1e6]]) {
    const t = niceTicks(lo, hi);
    assert.ok(t[0] <= lo && t[t.length - 1] >= hi, `${lo}..${hi}: ${t}`);
    assert.ok(t.length >= 2 && t.length <= 12, `${lo}..${hi}: ${t}`);
  }
  assert.deepEqual(niceTicks(-17.3, 18.9), [-20, -10, 0, 10, 20]);
});

test('every solver says what its value is and what its unit means; every series is drawn on labelled axes', () => {
  for (const [name, { response: r }] of Object.entries(examples)) {
    assert.ok(PRESENT[name], `${name}: no presentation`);
    const v = valueLine(r);
    assert.ok(v.label !== 'Value' && v.note && v.note.includes(`"${r.unit}"`), `${name}: the value line ${JSON.stringify(v)}`);
    if (!r.series) continue;
    const charts = chartsOf(r);
    assert.ok(charts.length >= 1, `${name}: no chart`);
    const drawn = new Set<string>();
    for (const c of charts) {
      for (const k of [c.x, ...c.ys]) { assert.ok(Array.isArray(r.series[k]), `${name}: ${k} is not a series`); drawn.add(k); }
      assert.ok(c.xLabel && c.yLabel, `${name}: axis titles`);
      // a title names its unit (in parentheses) unless the quantity is a count or an index
      for (const label of [c.xLabel, c.yLabel]) assert.match(label, /\(.+\)|^(people|bus|sweep|iteration|restart|level n|mode number n|filter step k|first integral V|prey x|predators y|best f so far)$|^height t/, `${name}: "${label}" has no unit`);
    }
    for (const ph of phasesOf(r)) for (const k of [ph.x, ph.y, ...(ph.also ?? [])]) drawn.add(k);
    for (const k of Object.keys(r.series)) assert.ok(drawn.has(k), `${name}: series ${k} is not drawn`);
  }
});

test('headlines: epi leads with the final size and the peak, lorenz with its Lyapunov exponent', () => {
  const epi = headlineOf(examples.epi.response);
  assert.equal(epi[0].label, 'Final size');
  assert.match(epi[0].text, /^94(\.\d+)? % of the population infected \(940,481 people\)$/);
  assert.equal(epi[1].label, 'Peak');
  assert.match(epi[1].text, /^300,466 infectious at once \(30(\.\d+)? %\) on day 61$/);
  const lor = headlineOf(examples.lorenz.response);
  assert.equal(lor[0].label, 'Largest Lyapunov exponent λ₁');
  assert.equal(lor[0].text, `${fmt(examples.lorenz.response.result.lyapunov, 4)} per time unit`);
  assert.match(lor[0].note, /chaotic/);
  assert.ok(lor.some((x) => /sealed value/.test(x.label) && /Liouville/.test(x.note)), 'the contraction rate is shown as the check it is');
  assert.deepEqual(phasesOf(examples.lorenz.response).map((p) => [p.x, p.y]), [['x', 'z']]);
  // a response without the fields (a fitted epi, another mode) gives fewer rows, never an error
  assert.deepEqual(headlineOf({ solver: 'epi', result: { fitted: true } }), []);
});
