// The property-based fuzzer (issue 12), shared by test/scale/fuzz.test.ts (CI: fixed seed, a
// small count) and test/scale/fuzz-run.ts (`npm run fuzz`: 20,000+ requests).
//
// Requests are generated with fast-check for every operation the node declares, from the
// operation's own JSON Schema (`jsonSchemaOf(op)`, the one OpenAPI publishes): valid values, and
// mutations of valid ones (a required field dropped, an unknown field added, a value of the
// wrong type, numbers at and past the bounds, huge strings, unicode and control characters,
// nested junk, a body that is not an object or not JSON at all). Path parameters are drawn from
// the ids the other tenant created, so the run also probes cross-tenant reads.
//
// Properties checked on every answer:
//   - never a 5xx, except 503 UPSTREAM_UNAVAILABLE (the literature sources point at a closed port)
//   - an answer within the per-request time limit (no hang)
//   - an error answer in JSON is the DESIGN §9 body {ok: false, error, code}
//   - no cross-tenant read: nothing machine B (or an anonymous or demo caller) gets back contains
//     an id, key or folder that machine A created and did not publish
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import type { Operation } from '../../src/ops/types.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';
import type { TestNode } from '../helpers.ts';

type Schema = Record<string, any>;
type Arb = fc.Arbitrary<unknown>;

const MAX_DEPTH = 4;

// ---------------------------------------------------------------- valid values from a schema

function regexArb(pattern: string, maxLength: number | undefined): fc.Arbitrary<string> | null {
  try {
    const re = new RegExp(pattern);
    let arb = fc.stringMatching(re);
    if (maxLength !== undefined) arb = arb.filter((s) => s.length <= maxLength);
    return arb;
  } catch {
    return null;
  }
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  if (s.pattern) {
    // only the schema's own bounds filter a pattern's strings (a default bound could exclude them all)
    const r = regexArb(s.pattern, s.maxLength);
    if (r) return minLength ? r.filter((x) => x.length >= minLength) : r;
  }
  const maxLength = s.maxLength ?? Math.max(minLength, 40);
  if (s.format === 'email') return fc.emailAddress();
  if (s.format === 'uri' || s.format === 'url') return fc.webUrl();
  if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 60) });
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  let min = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined);
  let max = s.maximum ?? (typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined);
  if (integer) {
    min = min === undefined ? -1000 : Math.max(Math.ceil(min + (typeof s.exclusiveMinimum === 'number' ? 1 : 0)), Number.MIN_SAFE_INTEGER);
    max = max === undefined ? Math.max(min + 1000, 1000) : Math.min(Math.floor(max - (typeof s.exclusiveMaximum === 'number' ? 1 : 0)), Number.MAX_SAFE_INTEGER);
    if (max < min) return fc.constant(min);
    return fc.integer({ min, max });
  }
  const lo = min ?? -1e6;
  const hi = max ?? 1e6;
  return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true, minExcluded: typeof s.exclusiveMinimum === 'number', maxExcluded: typeof s.exclusiveMaximum === 'number' })
    .filter((x) => Number.isFinite(x) && !Object.is(x, -0));
}

/** An arbitrary of values that satisfy `s` (as far as a generator can tell without a validator). */
export function valueArb(s: Schema | boolean | undefined, root: Schema, depth = 0): Arb {
  if (s === undefined || s === true || (typeof s === 'object' && !Object.keys(s).filter((k) => k !== 'description').length)) return junkArb(depth);
  if (s === false) return fc.constant(null);
  if (s.$ref && typeof s.$ref === 'string') {
    const name = s.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    const target = root.$defs?.[name] ?? root.definitions?.[name];
    return depth > MAX_DEPTH || !target ? fc.constant(null) : valueArb(target, root, depth + 1);
  }
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((x: Schema) => valueArb(x, root, depth + 1)));
  if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((x: Schema) => valueArb(x, root, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return valueArb(Object.assign({}, ...s.allOf), root, depth + 1);
  const type = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => valueArb({ ...s, type: t }, root, depth)));
  switch (type[0]) {
    case 'string': return stringArb(s);
    case 'integer': return numberArb(s, true);
    case 'number': return numberArb(s, false);
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.min(s.maxItems ?? minLength + 4, minLength + 4);
      if (depth > MAX_DEPTH) return fc.constant([]);
      if (Array.isArray(s.prefixItems)) return fc.tuple(...s.prefixItems.map((x: Schema) => valueArb(x, root, depth + 1)));
      return fc.array(valueArb(s.items, root, depth + 1), { minLength, maxLength });
    }
    case 'object': return objectArb(s, root, depth);
    default: return junkArb(depth);
  }
}

function objectArb(s: Schema, root: Schema, depth: number): Arb {
  const props: Record<string, Schema> = s.properties ?? {};
  const required = new Set<string>(s.required ?? []);
  if (depth > MAX_DEPTH) return fc.constant({});
  const known = Object.keys(props).length
    ? fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueArb(v, root, depth + 1)])),
      { requiredKeys: [...required].filter((k) => k in props) })
    : fc.constant({});
  const add = s.additionalProperties;
  if (add && typeof add === 'object' && !Object.keys(props).length) {
    const keyArb = s.propertyNames ? stringArb({ type: 'string', ...s.propertyNames, maxLength: Math.min(s.propertyNames.maxLength ?? 16, 16) }) : fc.string({ minLength: 1, maxLength: 12 });
    return fc.dictionary(keyArb, valueArb(add, root, depth + 1), { maxKeys: 4 });
  }
  return known;
}

// ---------------------------------------------------------------- junk and mutations

const NASTY_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\r\n\r\n', '\u202e\u0645\u0631\u062d\u0628\u0627', '🧪🔥'.repeat(20), '\ud800', '\udfff',
  '../../etc/passwd', '%2e%2e%2f', "'; DROP TABLE machines; --", '<script>alert(1)</script>', '{{7*7}}', '${process.exit()}',
  '__proto__', 'constructor', 'NaN', 'Infinity', '-0', '1e309', 'null', 'true', '[]', '{}', 'Z' + '0'.repeat(26), 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
];
const NASTY_NUMBERS = [0, -0, -1, 1, 0.5, -1e-320, 5e-324, 1e308, -1e308, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 123456789012345680000];

export function junkArb(depth = 0): Arb {
  const leaf = fc.oneof(
    fc.constantFrom<unknown>(...NASTY_STRINGS, ...NASTY_NUMBERS, true, false, null),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.double(),
    fc.integer(),
  );
  if (depth >= MAX_DEPTH) return leaf;
  return fc.oneof({ weight: 4, arbitrary: leaf }, { weight: 1, arbitrary: fc.array(junkArb(depth + 1), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), junkArb(depth + 1), { maxKeys: 4 }) });
}

function wrongTypeArb(s: Schema | undefined): Arb {
  const t = s?.type;
  const pool: Arb[] = [];
  if (t !== 'string') pool.push(fc.constantFrom<unknown>(...NASTY_STRINGS), fc.string({ maxLength: 10 }));
  if (t !== 'number' && t !== 'integer') pool.push(fc.constantFrom<unknown>(...NASTY_NUMBERS));
  if (t !== 'boolean') pool.push(fc.boolean());
  if (t !== 'object') pool.push(fc.constant({ nested: { deeper: [1, 'two', null] } }));
  if (t !== 'array') pool.push(fc.constant([1, 2, 3]), fc.constant([[[[[]]]]]));
  pool.push(fc.constant(null));
  return fc.oneof(...pool);
}

function boundaryArb(s: Schema | undefined): Arb {
  const out: unknown[] = [...NASTY_NUMBERS];
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    const v = s?.[k];
    if (typeof v === 'number') out.push(v, v - 1, v + 1, v - 1e-9, v + 1e-9, v * 10, -v);
  }
  if (typeof s?.maxLength === 'number') out.push('x'.repeat(s.maxLength), 'x'.repeat(s.maxLength + 1), 'é'.repeat(s.maxLength + 1));
  if (typeof s?.maxItems === 'number') out.push(Array.from({ length: s.maxItems + 1 }, () => 1));
  return fc.constantFrom(...out);
}

const HUGE = fc.constantFrom('A'.repeat(100_000), '🦀'.repeat(30_000), 'x'.repeat(1_100_000));
function deepJunk(n: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = i % 2 ? { k: v } : [v];
  return v;
}

export type Mutation = 'valid' | 'all-fields' | 'drop-required' | 'add-unknown' | 'wrong-type' | 'boundary' | 'huge' | 'unicode' | 'nested-junk' | 'not-an-object' | 'raw-body' | 'proto';

/** An arbitrary of [mutation, body] from a valid-body arbitrary and the schema. */
function mutatedBodyArb(schema: Schema, valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<{ mutation: Mutation; body: unknown; raw?: string; contentType?: string }> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(props);
  const required: string[] = schema.required ?? [];
  const field = names.length ? fc.constantFrom(...names) : fc.constant('x');
  const variants: { weight: number; arbitrary: fc.Arbitrary<{ mutation: Mutation; body: unknown; raw?: string; contentType?: string }> }[] = [
    { weight: 6, arbitrary: valid.map((body) => ({ mutation: 'valid' as Mutation, body })) },
    // every optional field at once: the cross-field rules (a field that has no effect with another,
    // two ways of giving one thing) must answer with a 4xx naming a field, never a 500
    { weight: 2, arbitrary: fc.record(Object.fromEntries(names.map((k) => [k, valueArb(props[k], schema)])), { requiredKeys: names }).map((body) => ({ mutation: 'all-fields' as Mutation, body })) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), junkArb()).map(([b, k, v]) => ({ mutation: 'add-unknown' as Mutation, body: { ...b, [k in props ? k + '_x' : k]: v } })) },
    { weight: 3, arbitrary: fc.tuple(valid, field).chain(([b, k]) => wrongTypeArb(props[k]).map((v) => ({ mutation: 'wrong-type' as Mutation, body: { ...b, [k]: v } }))) },
    { weight: 3, arbitrary: fc.tuple(valid, field).chain(([b, k]) => boundaryArb(props[k]).map((v) => ({ mutation: 'boundary' as Mutation, body: { ...b, [k]: v } }))) },
    { weight: 1, arbitrary: fc.tuple(valid, field, HUGE).map(([b, k, v]) => ({ mutation: 'huge' as Mutation, body: { ...b, [k]: v } })) },
    { weight: 2, arbitrary: fc.tuple(valid, field, fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.constantFrom(...NASTY_STRINGS)))
      .map(([b, k, v]) => ({ mutation: 'unicode' as Mutation, body: { ...b, [k]: v } })) },
    { weight: 2, arbitrary: fc.tuple(valid, field, fc.oneof(junkArb(), fc.constantFrom(deepJunk(64), deepJunk(2000))))
      .map(([b, k, v]) => ({ mutation: 'nested-junk' as Mutation, body: { ...b, [k]: v } })) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>([], [1, 2], 'string', 42, null, true).map((body) => ({ mutation: 'not-an-object' as Mutation, body })) },
    { weight: 1, arbitrary: fc.constantFrom(
      { raw: '{"unterminated": ', contentType: 'application/json' }, { raw: '', contentType: 'application/json' },
      { raw: 'a=1&b=2&b=3', contentType: 'application/x-www-form-urlencoded' }, { raw: 'plain text', contentType: 'text/plain' },
      { raw: '{"a":1}', contentType: 'application/xml' }, { raw: '\u0000\u0001\u0002', contentType: 'application/json' },
      { raw: '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}', contentType: 'application/json' },
      { raw: '[' .repeat(5000) + ']'.repeat(5000), contentType: 'application/json' },
    ).map((r) => ({ mutation: 'raw-body' as Mutation, body: undefined, ...r })) },
  ];
  if (required.length) {
    variants.push({ weight: 2, arbitrary: fc.tuple(valid, fc.constantFrom(...required)).map(([b, k]) => {
      const c = { ...b };
      delete c[k];
      return { mutation: 'drop-required' as Mutation, body: c };
    }) });
  }
  variants.push({ weight: 1, arbitrary: valid.map((b) => ({ mutation: 'proto' as Mutation, body: undefined, raw: JSON.stringify(b).replace(/^\{/, '{"__proto__":{"isAdmin":true},'), contentType: 'application/json' })) });
  return fc.oneof(...variants);
}

// ---------------------------------------------------------------- requests

export interface IdPools {
  /** ids machine A created (and did not publish) */
  foreign: Record<string, string[]>;
  /** ids machine B created */
  own: Record<string, string[]>;
}

export interface FuzzRequest {
  op: string;
  method: string;
  url: string;
  mutation: Mutation;
  auth: 'b' | 'none' | 'demo' | 'garbage';
  body?: string;
  contentType?: string;
}

function paramArb(name: string, schema: Schema | undefined, pools: IdPools): fc.Arbitrary<string> {
  const foreign = pools.foreign[name] ?? [];
  const own = pools.own[name] ?? [];
  const opts: { weight: number; arbitrary: fc.Arbitrary<string> }[] = [
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS.filter((s) => s !== '')).map((s) => s) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  ];
  if (schema?.pattern) { const r = regexArb(schema.pattern, 80); if (r) opts.push({ weight: 2, arbitrary: r.filter((s) => s.length > 0) }); }
  if (foreign.length) opts.push({ weight: 8, arbitrary: fc.constantFrom(...foreign) });
  if (own.length) opts.push({ weight: 2, arbitrary: fc.constantFrom(...own) });
  return fc.oneof(...opts);
}

/** A lone surrogate cannot be percent-encoded as UTF-8; send its raw (invalid) UTF-8 bytes. */
function encodePathSegment(s: string): string {
  try { return encodeURIComponent(s); } catch { return encodeURIComponent(s.toWellFormed()) + '%ED%A0%80'; }
}

function queryString(body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === undefined) continue;
    q.append(k, typeof v === 'string' ? v : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',') : JSON.stringify(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

/** An arbitrary of HTTP requests to `op`. */
export function requestArb(op: Operation, pools: IdPools): fc.Arbitrary<FuzzRequest> {
  const schema = jsonSchemaOf(op);
  const pathParams = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const bodySchema: Schema = {
    ...schema,
    properties: Object.fromEntries(Object.entries<Schema>(schema.properties ?? {}).filter(([k]) => !pathParams.includes(k))),
    required: (schema.required ?? []).filter((k: string) => !pathParams.includes(k)),
  };
  const valid = valueArb(bodySchema, schema) as fc.Arbitrary<Record<string, unknown>>;
  const validObj = valid.map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {}));
  const params = pathParams.length
    ? fc.tuple(...pathParams.map((p) => paramArb(p, schema.properties?.[p], pools)))
    : fc.constant([] as string[]);
  const auth = fc.constantFrom<FuzzRequest['auth']>('b', 'b', 'b', 'b', 'b', 'none', 'demo', 'garbage');
  return fc.tuple(mutatedBodyArb(bodySchema, validObj), params, auth).map(([m, ps, a]) => {
    let path = op.path;
    pathParams.forEach((p, i) => { path = path.replace(`:${p}`, encodePathSegment(ps[i])); });
    const req: FuzzRequest = { op: op.id, method: op.method, url: path, mutation: m.mutation, auth: a };
    if (op.method === 'GET' || op.method === 'DELETE') {
      req.url += m.raw !== undefined ? '?' + encodeURIComponent(m.raw).slice(0, 4000) : queryString(m.body).slice(0, 200_000);
    } else if (m.raw !== undefined) {
      req.body = m.raw;
      req.contentType = m.contentType;
    } else if (m.body !== undefined) {
      req.body = JSON.stringify(m.body);
      req.contentType = 'application/json';
    }
    return req;
  });
}

// ---------------------------------------------------------------- the run

export interface Tenants {
  a: { zid: string; apiKey: string; slug: string };
  b: { zid: string; apiKey: string; slug: string };
  demoKey: string;
  pools: IdPools;
  /** strings of A's that must never reach B, an anonymous or a demo caller */
  secrets: string[];
}

/** Machine A creates one of everything it can; machine B a little; both get their ids pooled. */
export async function setUpTenants(t: TestNode): Promise<Tenants> {
  const a = await t.machine('tenant a');
  const b = await t.machine('tenant b');
  const demoKey = await t.demoKey();
  const foreign: Record<string, string[]> = { id: [], slug: [a.slug], name: [], zid: [a.zid], machine: [a.slug], pageSlug: [] };
  const own: Record<string, string[]> = { id: [], slug: [b.slug], name: [], zid: [b.zid], machine: [b.slug], pageSlug: [] };
  const secrets: string[] = [a.apiKey, a.zid, a.zid.toLowerCase(), a.recovery.salt];
  const keep = (r: { status: number; text: string }, what: string) => {
    if (r.status !== 200) throw new Error(`fuzz set-up: ${what}: ${r.status} ${r.text.slice(0, 300)}`);
    return (r as any).body;
  };
  for (const [who, m, pool] of [['a', a, foreign], ['b', b, own]] as const) {
    const folder = who === 'a' ? 'a-private-folder-7q' : 'b-folder';
    pool.name.push(folder);
    if (who === 'a') secrets.push(folder);
    for (let i = 0; i < 2; i++) {
      const r = keep(await t.call('POST', '/api/svc/protect', { health: 'up', folder }, m.apiKey), 'protect');
      pool.id.push(r.receipt.id);
      if (who === 'a') secrets.push(r.receipt.id, r.svcProof);
    }
    const templates = await t.call('GET', '/api/contracts/templates', undefined, m.apiKey);
    const tid = templates.body?.templates?.[0]?.id;
    if (tid) {
      pool.id.push(tid);
      const c = await t.call('POST', '/api/contracts', { templateId: tid, name: `${who} contract` }, m.apiKey);
      const cid = c.body?.contract?.id ?? c.body?.id;
      if (c.status === 200 && cid) { pool.id.push(cid); if (who === 'a') secrets.push(cid); }
    }
    const s = await t.call('POST', '/api/streams', { solver: 'protect', body: { health: 'up' }, ticks: 1 }, m.apiKey);
    if (s.status === 200) { pool.id.push(s.body.channel.id); if (who === 'a') secrets.push(s.body.channel.id); }
    const mail = await t.call('POST', '/api/mail', { subject: `${who} private subject 9x`, html: `<p>${who} private body</p>` }, m.apiKey);
    const mid = mail.body?.id ?? mail.body?.mail?.id ?? mail.body?.message?.id;
    if (mail.status === 200 && mid) { pool.id.push(mid); if (who === 'a') secrets.push(mid, 'a private subject 9x'); }
    const react = await t.call('POST', '/api/reactor', { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.2 }, params: { r: 3.7 }, maxDepth: 3 }, m.apiKey);
    // a run answers {run: 'rx_…', final: <the last step's sealed receipt>, merkle: {root}, …}
    if (react.status !== 200 || typeof react.body?.run !== 'string') throw new Error(`fuzz set-up: reactor: ${react.status} ${react.text.slice(0, 300)}`);
    pool.id.push(react.body.run);
    if (who === 'a') secrets.push(react.body.run, react.body.merkle.root, react.body.final.svcProof, react.body.final.receipt.id);
    // a job (docs/jobs.md): another machine's is 404
    const job = await t.call('POST', '/api/jobs', { tool: 'svc_epi', arguments: { days: 30 }, budget: { seconds: 10 } }, m.apiKey);
    if (job.status !== 202) throw new Error(`fuzz set-up: job: ${job.status} ${job.text.slice(0, 300)}`);
    pool.id.push(job.body.id);
    if (who === 'a') secrets.push(job.body.id);
    // a published page is public by design: its slug is pooled, its content is not a secret
    const page = await t.call('POST', '/api/pages', { title: `${who} page`, html: '<p>hello</p>', pageSlug: `${who}-page` }, m.apiKey);
    if (page.status === 200) { pool.pageSlug.push(`${who}-page`); pool.slug.push(`${who}-page`); }
  }
  return { a, b, demoKey, pools: { foreign, own }, secrets: [...new Set(secrets.filter((x) => typeof x === 'string' && x.length >= 8))] };
}

/** server-error, hang and cross-tenant fail a run; bad-error-body (an error answer without the
 * DESIGN §9 body) is reported as a note */
export interface Finding { kind: 'server-error' | 'hang' | 'bad-error-body' | 'cross-tenant' | 'undeclared'; request: FuzzRequest; status: number; detail: string }

export interface FuzzStats {
  requests: number;
  byStatus: Record<string, number>;
  byMutation: Record<string, number>;
  operations: number;
  opsHit: number;
  findings: Finding[];
  /** bad-error-body findings (do not fail a run) */
  notes: Finding[];
  seconds: number;
}

/** Operations whose answer is public by design even when it names machine A (published pages
 * are served under A's slug; the global observer feed names machines by slug). */
const PUBLISHED = new Set(['pages.serve', 'pages.launcher', 'pages.serve-redirect', 'pages.launcher-redirect']);

/** Operations that answer with an endless Server-Sent Events stream: sent over a real socket,
 * read for a moment, then dropped (inject would wait for the end of the stream). */
const STREAMING = new Set(['chain.observer-stream', 'streams.events']);

function sendStreaming(base: string, req: FuzzRequest, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string; contentType: string } | 'hang'> {
  return new Promise((resolve) => {
    const u = new URL(base);
    let settled = false;
    const done = (r: { status: number; text: string; contentType: string } | 'hang') => { if (!settled) { settled = true; clearTimeout(timer); resolve(r); } };
    const timer = setTimeout(() => { r.destroy(); done('hang'); }, timeoutMs);
    const r = httpRequest({ agent: false, host: u.hostname, port: u.port, path: req.url, method: req.method, headers: { ...headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      const finish = () => { r.destroy(); done({ status: res.statusCode ?? 0, text, contentType: String(res.headers['content-type'] ?? '') }); };
      res.on('end', finish);
      res.on('error', finish);
      // a stream: what arrives in 300 ms is enough to check
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) setTimeout(finish, 300);
    });
    r.on('error', (e: any) => done({ status: 599, text: `socket error ${e?.code ?? e}`, contentType: 'text/plain' }));
    r.end(req.body);
  });
}

async function send(t: TestNode, base: string, req: FuzzRequest, ten: Tenants, timeoutMs: number): Promise<{ status: number; text: string; contentType: string } | 'hang'> {
  const headers: Record<string, string> = {};
  if (req.auth === 'b') headers.authorization = `Bearer ${ten.b.apiKey}`;
  else if (req.auth === 'demo') headers.authorization = `Bearer ${ten.demoKey}`;
  else if (req.auth === 'garbage') headers.authorization = 'Bearer svc_ak_' + 'f'.repeat(40);
  if (req.contentType) headers['content-type'] = req.contentType;
  if (STREAMING.has(req.op)) return sendStreaming(base, req, headers, timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const res = await Promise.race([
    t.http.inject({ method: req.method as any, url: req.url, headers, payload: req.body, remoteAddress: '10.1.2.3' }),
    new Promise<'hang'>((resolve) => { timer = setTimeout(() => resolve('hang'), timeoutMs); }),
  ]);
  clearTimeout(timer);
  if (res === 'hang') return 'hang';
  return { status: res.statusCode, text: res.body, contentType: String(res.headers['content-type'] ?? '') };
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** What the OpenAPI declares an operation answers: statuses (or ranges such as 4XX) → media types. */
export type Declared = Map<string, Map<string, string[]>>;

/** The responses each operation's OpenAPI entry declares, by operation id. */
export function declaredResponses(openapi: any): Declared {
  const out: Declared = new Map();
  for (const methods of Object.values<any>(openapi.paths ?? {})) {
    for (const op of Object.values<any>(methods)) {
      out.set(op.operationId, new Map(Object.entries<any>(op.responses ?? {}).map(([st, r]) => [st, Object.keys(r.content ?? {})])));
    }
  }
  return out;
}

/** Schemathesis-style conformance: the status is one the OpenAPI declares (exactly or by range), and
 * the answer's media type is one declared for it. */
function conformance(req: FuzzRequest, res: { status: number; contentType: string }, declared: Declared): Finding | null {
  const d = declared.get(req.op);
  if (!d || res.status === 431) return null; // not published (hidden, admin); 431: Node refuses the URL itself
  const entry = d.get(String(res.status)) ?? d.get(`${String(res.status)[0]}XX`);
  if (!entry) return { kind: 'undeclared', request: req, status: res.status, detail: `status ${res.status} is not declared (declared: ${[...d.keys()].join(', ')})` };
  const media = res.contentType.split(';')[0].trim();
  if (entry.length && media && !entry.includes(media)) return { kind: 'undeclared', request: req, status: res.status, detail: `media type ${media} is not declared for ${res.status} (declared: ${entry.join(', ')})` };
  return null;
}

function check(req: FuzzRequest, res: { status: number; text: string; contentType: string }, ten: Tenants, declared?: Declared): Finding | null {
  if (declared) { const c = conformance(req, res, declared); if (c) return c; }
  if (res.status >= 500 && !(res.status === 503 && res.text.includes('"UPSTREAM_UNAVAILABLE"'))) {
    return { kind: 'server-error', request: req, status: res.status, detail: res.text.slice(0, 300) };
  }
  // (431: Node's HTTP parser refuses an over-long URL before the application sees it)
  if (res.status >= 400 && res.status !== 431 && res.contentType.startsWith('application/json')) {
    let body: any;
    try { body = JSON.parse(res.text); } catch { return { kind: 'bad-error-body', request: req, status: res.status, detail: 'not JSON: ' + res.text.slice(0, 200) }; }
    if (!body || body.ok !== false || typeof body.code !== 'string' || typeof body.error !== 'string') {
      return { kind: 'bad-error-body', request: req, status: res.status, detail: res.text.slice(0, 300) };
    }
  }
  if (!PUBLISHED.has(req.op)) {
    // an error that echoes the id the client sent is no leak: only what B did not send counts
    const sent = req.url + ' ' + safeDecode(req.url) + ' ' + (req.body ?? '');
    const leaked = ten.secrets.find((s) => res.text.includes(s) && !sent.includes(s));
    if (leaked) return { kind: 'cross-tenant', request: req, status: res.status, detail: `answer contains A's ${leaked.slice(0, 40)}: ${res.text.slice(0, 300)}` };
  }
  return null;
}

export interface FuzzOptions {
  seed: number;
  requests: number;
  concurrency?: number;
  timeoutMs?: number;
  /** operations to leave out (ids) */
  exclude?: string[];
  onProgress?: (done: number, stats: FuzzStats) => void;
  /** called for every request slower than slowMs */
  slowMs?: number;
  onSlow?: (req: FuzzRequest, ms: number, status: number) => void;
  /** called before each request is sent (tracing: a synchronous hang blocks every timer) */
  onStart?: (req: FuzzRequest) => void;
}

/** Generates and sends `requests` requests; returns the figures and every finding. */
export async function fuzzNode(t: TestNode, ten: Tenants, opts: FuzzOptions): Promise<FuzzStats> {
  const t0 = Date.now();
  const base = await t.listen();
  const ops = t.app.operations.filter((o) => !(opts.exclude ?? []).includes(o.id));
  const perOp = new Map(ops.map((o) => [o.id, requestArb(o, ten.pools)]));
  const arb = fc.constantFrom(...ops.map((o) => o.id)).chain((id) => perOp.get(id)!);
  const stats: FuzzStats = { requests: 0, byStatus: {}, byMutation: {}, operations: ops.length, opsHit: 0, findings: [], notes: [], seconds: 0 };
  const hit = new Set<string>();
  const declared = declaredResponses((await t.call('GET', '/openapi.json')).body);
  const CHUNK = 100;
  for (let start = 0; start < opts.requests; start += CHUNK) {
    const n = Math.min(CHUNK, opts.requests - start);
    const batch = fc.sample(arb, { seed: opts.seed + start, numRuns: n });
    let next = 0;
    await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, async () => {
      while (next < batch.length) {
        const req = batch[next++];
        const t1 = performance.now();
        opts.onStart?.(req);
        const res = await send(t, base, req, ten, opts.timeoutMs ?? 30_000);
        const ms = performance.now() - t1;
        if (ms > (opts.slowMs ?? Infinity)) opts.onSlow?.(req, ms, res === 'hang' ? 0 : res.status);
        stats.requests++;
        hit.add(req.op);
        stats.byMutation[req.mutation] = (stats.byMutation[req.mutation] ?? 0) + 1;
        if (res === 'hang') {
          stats.byStatus.hang = (stats.byStatus.hang ?? 0) + 1;
          stats.findings.push({ kind: 'hang', request: req, status: 0, detail: `no answer in ${opts.timeoutMs ?? 30_000} ms` });
          continue;
        }
        stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
        const f = check(req, res, ten, declared);
        if (f) (f.kind === 'bad-error-body' ? stats.notes : stats.findings).push(f);
      }
    }));
    stats.opsHit = hit.size;
    stats.seconds = (Date.now() - t0) / 1000;
    opts.onProgress?.(start + n, stats);
  }
  stats.opsHit = hit.size;
  stats.seconds = (Date.now() - t0) / 1000;
  return stats;
}

/** Fuzz node settings: a short solver budget (a timed-out solve is a 422, not a hang) and a large
 * token allowance (so valid calls reach the solvers). */
export const FUZZ_NODE_ENV = { SVC_SOLVER_TIMEOUT_MS: '1500', SVC_TOKENS_PER_DAY: '100000000' };
