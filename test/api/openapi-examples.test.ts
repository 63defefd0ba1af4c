// Every operation of /openapi.json has an example request (issue 29 item 5), the example is valid
// input of its operation, and it works: called on a test node it is answered 2xx. An example's
// request is what the document shows: its path and query parameters' `example` values and its
// request body's examples (JSON, text or bytes). Ids in the examples name things of another node;
// the calls replace them with ones created here from the other operations' own examples (a
// receipt, a contract, a channel, a reactor run, a message, a job, an OAuth client and its
// tokens), in the order a user would make them. The solvers' examples are run by
// test/api/solver-input-examples.test.ts (one per kind of user input) and
// test/solvers/defaults-succeed.test.ts (the recorded default request); here they are validated
// (svc_auto's is called). Operations without input are called too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testNode, type TestNode } from '../helpers.ts';
import { parseInput } from '../../src/ops/validate.ts';
import { OPERATION_EXAMPLES } from '../../src/ops/operation-examples.ts';
import { SOLVER_INPUT_EXAMPLES } from '../../src/ops/solver-input-examples.ts';
import type { Operation } from '../../src/ops/types.ts';

let t: TestNode;
let doc: any;
before(async () => {
  t = await testNode();
  const r = await t.call('GET', '/openapi.json');
  assert.equal(r.status, 200);
  doc = r.body;
});
after(async () => { await t?.close(); });

interface DocOp { key: string; id: string; method: string; path: string; entry: any }

function docOps(): DocOp[] {
  const out: DocOp[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, entry] of Object.entries<any>(item)) out.push({ key: `${method.toUpperCase()} ${path}`, id: entry.operationId, method: method.toUpperCase(), path, entry });
  }
  return out;
}

/** The example requests the document shows for an operation: one per request-body example (or
 * one without a body), each with the parameters' example values. */
interface ExampleRequest { name: string; params: Record<string, unknown>; body?: unknown; media?: string }

function exampleRequests(o: DocOp): ExampleRequest[] {
  const params: Record<string, unknown> = {};
  for (const p of o.entry.parameters ?? []) if (p.example !== undefined) params[p.name] = p.example;
  const content = o.entry.requestBody?.content;
  if (!content) return Object.keys(params).length ? [{ name: 'parameters', params }] : [];
  const out: ExampleRequest[] = [];
  for (const [media, c] of Object.entries<any>(content)) {
    for (const [name, ex] of Object.entries<any>(c.examples ?? {})) out.push({ name, params, body: ex.value, media });
  }
  return out;
}

const pathParamsOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The operation's input as its handler sees it: path and query values, and the body's fields (a
 * text body as `body`; a byte body is not part of the input). */
function inputOf(op: Operation, ex: { params: Record<string, unknown>; body?: unknown }): Record<string, unknown> {
  if (op.textBody) return { ...ex.params, body: ex.body };
  if (op.streamBody || ex.body === undefined) return { ...ex.params };
  return { ...(ex.body as Record<string, unknown>), ...ex.params };
}

const appOp = (id: string) => {
  const op = t.app.operations.find((o) => o.id === id);
  assert.ok(op, `${id}: in /openapi.json but not an operation of the app`);
  return op;
};

test('every operation of /openapi.json that takes input has an example request', () => {
  const missing: string[] = [];
  const noInput: string[] = [];
  let withInput = 0;
  for (const o of docOps()) {
    const params: any[] = o.entry.parameters ?? [];
    const content = o.entry.requestBody?.content;
    if (!params.length && !content) { noInput.push(o.key); continue; }
    withInput++;
    const why: string[] = [];
    for (const p of params) if (p.required && p.example === undefined) why.push(`parameter ${p.name} (required) has no example`);
    if (content) {
      for (const [media, c] of Object.entries<any>(content)) if (!c.examples || !Object.keys(c.examples).length) why.push(`body ${media} has no example`);
    } else if (!params.some((p) => p.example !== undefined)) why.push('no parameter has an example');
    if (why.length) missing.push(`${o.key}: ${why.join('; ')}`);
  }
  console.log(`# ${withInput} operations take input, ${missing.length} without an example request; ${noInput.length} take none (${noInput.join(', ')})`);
  assert.deepEqual(missing, []);
  // no example for an operation that does not exist (a renamed or removed one)
  const ids = new Set(t.app.operations.map((o) => o.id));
  assert.deepEqual(Object.keys(OPERATION_EXAMPLES).filter((id) => !ids.has(id)), []);
  assert.deepEqual(Object.keys(SOLVER_INPUT_EXAMPLES).filter((s) => !ids.has(`solver.${s}`)), []);
});

test("every example request is valid input of its operation (the operation's own schema)", () => {
  let n = 0;
  const refused: string[] = [];
  for (const o of docOps()) {
    const op = appOp(o.id);
    for (const ex of exampleRequests(o)) {
      n++;
      try { parseInput(op.input, inputOf(op, ex)); } catch (e: any) { refused.push(`${o.key} (${ex.name}): ${e.message}`); }
    }
    // the path parameters of a JSON body's example are parameters, not body fields
    for (const ex of exampleRequests(o)) {
      if (ex.media === 'application/json') for (const p of pathParamsOf(o.path)) assert.ok(!(p in (ex.body as object)), `${o.key}: path parameter ${p} in the body example`);
    }
  }
  console.log(`# ${n} example requests validated`);
  assert.deepEqual(refused, []);
});

/** Operations whose example is answered 503 on a test node: the literature sources are on the
 * internet, which tests never reach (every source URL points at a closed local port). */
const UPSTREAM_ONLY = new Set(['papers.search', 'papers.fetch']);

/** The order of the calls: what makes a thing before what reads it, what deletes it last. */
const FIRST = ['blob.upload', 'contracts.deploy', 'reactor.run', 'streams.open', 'pages.publish', 'mail.send', 'jobs.submit', 'oauth.register', 'oauth.authorize', 'oauth.approve', 'oauth.token', 'oauth.refresh'];
const LAST = ['oauth.revoke', 'oauth.grants.revoke', 'pages.delete', 'streams.close', 'jobs.cancel', 'blob.delete', 'machines.recover'];

test('every example request works: called on a test node it is answered 2xx', async () => {
  // a Server-Sent Events answer stays open: those are fetched over a socket and read up to their headers
  const base = await t.listen();
  // the witness routes are a witness's: a second node witnesses this node's log
  const wit = await testNode({ env: { SVC_WITNESS_OF: base } });
  const m = await t.machine('examples');
  const spare = await t.machine('recovered');
  // a sealed receipt with a DRAT proof: the sat example of an unsatisfiable CNF
  const sat = await t.call('POST', '/api/svc/sat', SOLVER_INPUT_EXAMPLES.sat.find((e) => e.name === 'dimacs-cnf')!.request, m.apiKey);
  assert.equal(sat.status, 200, sat.text);
  const live: Record<string, any> = { receipt: sat.body.receipt.id };
  const answers: Record<string, any> = {};
  /** the example's ids replaced by the ones made here */
  const SUBST: Record<string, () => Record<string, unknown>> = {
    'receipts.get': () => ({ id: live.receipt }),
    'receipts.drat': () => ({ id: live.receipt }),
    'receipts.proof': () => ({ id: live.receipt }),
    'receipts.attestation': () => ({ id: live.receipt }),
    'contracts.get': () => ({ id: answers['contracts.deploy'].id }),
    'contracts.fire': () => ({ id: answers['contracts.deploy'].id }),
    'reactor.get': () => ({ id: answers['reactor.run'].run }),
    'reactor.verify': () => ({ root: answers['reactor.run'].merkle.root, leaves: answers['reactor.run'].trajectory.map((s: any) => s.receipt.svcProof) }),
    'streams.get': () => ({ id: answers['streams.open'].channel.id }),
    'streams.close': () => ({ id: answers['streams.open'].channel.id }),
    'streams.events': () => ({ id: answers['streams.open'].channel.id }),
    'mail.get': () => ({ id: answers['mail.send'].id }),
    'mail.raw': () => ({ id: answers['mail.send'].id }),
    'jobs.get': () => ({ id: answers['jobs.submit'].id }),
    'jobs.cancel': () => ({ id: answers['jobs.submit'].id }),
    'jobs.events': () => ({ id: answers['jobs.submit'].id }),
    'oauth.authorize': () => ({ client_id: answers['oauth.register'].client_id }),
    'oauth.approve': () => ({ requestId: answers['oauth.authorize'].requestId }),
    'oauth.token': () => ({ client_id: answers['oauth.register'].client_id, code: answers['oauth.approve'].code }),
    'oauth.refresh': () => ({ client_id: answers['oauth.register'].client_id, refresh_token: answers['oauth.token'].refresh_token }),
    'oauth.revoke': () => ({ client_id: answers['oauth.register'].client_id, token: answers['oauth.refresh'].refresh_token }),
    'oauth.grants.revoke': () => ({ id: live.grant }),
    'machines.recover': () => ({ zid: spare.zid, equation: spare.recovery.equation, salt: spare.recovery.salt }),
    'log.checkpoint-at': () => ({ size: String(live.treeSize) }),
    // a checkpoint of the witnessed log (this node's), never cosigned before: old 0, no proof lines
    'witness.add-checkpoint': () => ({ body: `old 0\n\n${live.checkpoint}` }),
    // a log of a few entries has no full tile yet: the partial tile of its width (C2SP tlog-tiles)
    'log.tile': () => ({ '*': `0/000.p/${live.treeSize}` }),
  };
  const rank = (id: string) => (FIRST.includes(id) ? FIRST.indexOf(id) - 100 : LAST.includes(id) ? LAST.indexOf(id) + 100 : 0);
  const ops = docOps().filter((o) => o.id === 'solver.auto' || !o.id.startsWith('solver.')).sort((a, b) => rank(a.id) - rank(b.id));
  const failed: string[] = [];
  let called = 0;
  let sse = 0;
  for (const o of ops) {
    if (o.id === 'witness.add-checkpoint') live.checkpoint = (await t.call('GET', '/log/checkpoint')).text;
    const op = appOp(o.id);
    if (o.id === 'oauth.grants.revoke') live.grant = (await t.call('GET', '/api/oauth/grants', undefined, m.apiKey)).body.grants?.[0]?.id;
    if (o.id === 'log.tile' || o.id === 'log.checkpoint-at') live.treeSize = Number((await t.call('GET', '/log/checkpoint')).text.split('\n')[1]);
    const examples = exampleRequests(o);
    for (const ex of examples.length ? examples : [{ name: 'no input', params: {} as Record<string, unknown> }]) {
      let sub: Record<string, unknown>;
      try { sub = SUBST[o.id]?.() ?? {}; } catch (e: any) { failed.push(`${o.key} (${ex.name}): the call it follows failed (${e.message})`); continue; }
      const params = { ...ex.params };
      let body: any = 'body' in ex ? ex.body : undefined;
      const pathParams = pathParamsOf(o.path);
      for (const [k, v] of Object.entries(sub)) {
        if (k === 'body' && typeof v === 'string') body = v;
        else if (pathParams.includes(k) || (o.entry.parameters ?? []).some((p: any) => p.name === k)) params[k] = v;
        else body = { ...body, [k]: v };
      }
      let url = o.path;
      for (const p of pathParams) { url = url.replace(`{${p}}`, encodeURIComponent(String(params[p]))); delete params[p]; }
      if (o.path === '/log/tile/*') { url = `/log/tile/${params['*']}`; delete params['*']; }
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)])).toString();
      if (query) url += `?${query}`;
      const headers: Record<string, string> = { 'x-test-ip': `10.9.0.${called % 250}` };
      if (op.textBody) headers['content-type'] = 'text/plain';
      if (op.streamBody) headers['content-type'] = 'application/octet-stream';
      // a machine is made with a demo key; everything else of a machine with its key
      // (the observer's scope=machine is a public route's view of the caller's own machine)
      const key = o.id === 'machines.spin-up' ? await t.demoKey() : op.access === 'public' && o.id !== 'chain.observer-stream' ? undefined : m.apiKey;
      let r: { status: number; body: any; text: string };
      if (o.entry.responses?.['200']?.content?.['text/event-stream']) {
        const res = await fetch(`${base}${url}`, { headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) } });
        const type = res.headers.get('content-type') ?? '';
        const text = type.startsWith('text/event-stream') ? '' : await res.text();
        await res.body?.cancel().catch(() => {});
        r = { status: type.startsWith('text/event-stream') ? res.status : 500, body: null, text: `${res.status} ${type} ${text}` };
        sse++;
      } else {
        r = await (o.id.startsWith('witness.') ? wit : t).call(o.method, url, body, key, headers);
      }
      called++;
      const ok = (r.status >= 200 && r.status < 300) || (UPSTREAM_ONLY.has(o.id) && r.status === 503);
      if (!ok) failed.push(`${o.key} (${ex.name}): ${r.status} ${r.text.slice(0, 300)}`);
      else if (r.body && typeof r.body === 'object') answers[o.id] = r.body;
    }
  }
  await wit.close();
  console.log(`# ${called} example requests called (${sse} Server-Sent Events streams read up to their headers; the witness routes on a node witnessing this one)`);
  assert.deepEqual(failed, []);
});

test('the OAuth examples are one ceremony: the challenge is the S256 of the verifier, the redirect the registered one', () => {
  const a = OPERATION_EXAMPLES['oauth.authorize'].request, tok = OPERATION_EXAMPLES['oauth.token'].request, reg = OPERATION_EXAMPLES['oauth.register'].request;
  assert.equal(createHash('sha256').update(String(tok.code_verifier)).digest('base64url'), a.code_challenge);
  assert.equal(a.redirect_uri, tok.redirect_uri);
  assert.ok((reg.redirect_uris as string[]).includes(String(a.redirect_uri)));
});

test("each solver's examples in OpenAPI: its recorded default request and one per kind of user input", () => {
  for (const o of docOps().filter((x) => x.id.startsWith('solver.') && x.id !== 'solver.auto')) {
    const examples = o.entry.requestBody.content['application/json'].examples;
    const name = o.id.slice(7);
    const want = [`svc_${name}`, ...(SOLVER_INPUT_EXAMPLES[name] ?? []).map((e) => e.name)];
    assert.deepEqual(Object.keys(examples), want, `${o.key}`);
  }
});
