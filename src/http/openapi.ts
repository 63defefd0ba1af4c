// OpenAPI 3.1 and the human-readable reference page, both derived from the operations.
import { glossaryMarkdown } from './glossary.ts';
import type { App } from '../ops/types.ts';
import type { Operation } from '../ops/types.ts';
import { API_VERSION } from '../core/version.ts';
import { jsonSchemaOf, outputSchemaOf, toOutputJsonSchema } from '../ops/schema.ts';
import { JobViewSchema, jobCapable } from '../ops/jobs.ts';
import { publicOperations } from '../ops/registry.ts';


function openApiPath(p: string): string {
  return p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const ERROR_SCHEMA = {
  type: 'object',
  description: 'The error body of every 4xx and 5xx answer (DESIGN §9).',
  required: ['ok', 'error', 'code'],
  properties: {
    ok: { const: false },
    error: { type: 'string', description: 'what went wrong, in words' },
    code: { type: 'string', description: 'stable machine-readable code: INVALID_INPUT, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, QUOTA_EXCEEDED, RATE_LIMITED, PRECISION_REFUSED, UNSTABLE, DIMENSIONAL_GATE, UPSTREAM_UNAVAILABLE, …' },
    issues: { type: 'array', description: 'one entry per invalid field', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const ERROR_RESPONSE = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** The tags, in the order /docs lists them, with what each groups. */
export const TAGS: { name: string; 'x-displayName': string; description: string }[] = [
  { name: 'solvers', 'x-displayName': 'Solvers', description: 'Sealed numerical solvers. `POST /api/svc/<solver>` runs one (heat flow, waves, fluids, epidemics, option pricing, lattice gauge theory, FEM, SAT, …), checks its answer against an independent reference (`precision.errorPct` against `precision.boundPct`) and seals it in a receipt. One compute token per call. Each solver\'s body and answer are shown with a recorded example.' },
  { name: 'seal', 'x-displayName': 'Seal and verify', description: 'The pulse clock and the seal: verify a receipt\'s proof (`POST /api/svc/verify`), read the pulse state, project it forward (sealed).' },
  { name: 'machines', 'x-displayName': 'Keys and machines', description: 'Keys and machines. A demo key is free; it provisions a machine: a ZID, its own hash chain, a compute key (`svc_ak_…`, shown once) and a recovery equation (shown once) that gets a new key if the old one is lost.' },
  { name: 'folders', 'x-displayName': 'Folders and receipts', description: 'Every sealed answer is filed in a folder (`folder` in the request, default `default`): list them and read receipts back.' },
  { name: 'chain', 'x-displayName': 'Chain and observer', description: 'Each machine\'s append-only hash chain: verify it end to end, watch appends live (observer feed), read its lifecycle state machine.' },
  { name: 'operators', 'x-displayName': 'Operator catalog', description: 'The operator catalog: 67 science domains and their operators (equations with units), searchable; sealed compositions of operators are under solvers (compute, unified, lattice).' },
  { name: 'live', 'x-displayName': 'Streams and reactor', description: 'Computations over time: hosted ticking channels (`svc_stream`, one sealed tick per 0.777 s, Server-Sent Events) and recursive sealed loops with a Merkle root (`svc_reactor`).' },
  { name: 'contracts', 'x-displayName': 'State contracts', description: 'State contracts: 321 templates or your own definition; each guarded transition is sealed and anchored on the chain.' },
  { name: 'discovery', 'x-displayName': 'Discovery', description: 'Find operations (`svc_api_catalog`) and call any public `/api/*` route in-process (`svc_http`).' },
  { name: 'papers', 'x-displayName': 'Literature', description: 'Literature search and fetch across six sources, deduplicated and ranked.' },
  { name: 'pages', 'x-displayName': 'Pages', description: 'Publish sandboxed HTML pages under `/s/<machine>/p/<slug>/`.' },
  { name: 'mail', 'x-displayName': 'Mail', description: 'A mailbox per machine: deliver sanitised HTML email to yourself.' },
  { name: 'oauth', 'x-displayName': 'OAuth and OpenID', description: 'OAuth 2.1 and OpenID Connect for machines: a client asks, the machine owner approves with the machine key, the client gets tokens. JWKS for receipt signatures.' },
  { name: 'log', 'x-displayName': 'Transparency log', description: 'The deployment\'s transparency log of receipts (C2SP tlog-tiles): checkpoints, tiles, consistency and inclusion proofs, Sigstore attestations of receipts, witnesses (docs/verify.md).' },
  { name: 'blobs', 'x-displayName': 'Blobs', description: 'Big inputs and outputs: upload a file (a CNF, a MATPOWER case, a configuration, a long series; up to 1 GiB, gzip accepted) once, name it by its digest (`{"blob": "sha256:…"}`) in any file-like solver input; results too large to send inline keep their series and arrays in a blob. A machine\'s blobs are its own and count against its quota.' },
  { name: 'jobs', 'x-displayName': 'Jobs', description: 'Sealed computations that outlive a request (docs/jobs.md): `POST /api/jobs` (or `Prefer: respond-async` on any sealed solver call) queues one for any node of the cluster; follow it with `GET /api/jobs/{id}` or its events, cancel it with `DELETE`. Its answer is exactly the synchronous call\'s, sealed once. Sweeps run a tool over a grid of argument values and seal the Merkle root of the runs\' receipts.' },
  { name: 'mesh', 'x-displayName': 'Mesh', description: 'The nodes that share this node\'s database.' },
];

const INTRO = `Deterministic numerical solvers whose results are sealed in signed, verifiable receipts. Every
operation here is an HTTP route and, where it names a tool, an MCP tool at \`POST /api/mcp\` (same
arguments, same answer).

## First calls

1. \`POST /api/demo-key/mint\` gives a free demo key (\`svc_ak_demo_…\`).
2. \`POST /api/machines\` with the demo key as bearer gives a machine: its compute key
   (\`apiKey\`, \`svc_ak_…\`) and its recovery equation, both shown once.
3. \`POST /api/svc/heat\` (any solver) with \`Authorization: Bearer <apiKey>\` returns a sealed result:
   \`value\` and \`unit\`, \`precision\` (the distance to an independent reference, \`errorPct\`, against
   the method's bound, \`boundPct\`), the full \`result\` and \`series\`, and the seal
   (\`svcProof\`, \`receipt\`, \`signature\`).
4. \`POST /api/svc/verify\` checks the proof; \`/.well-known/jwks.json\` verifies the signature offline.

## Errors

Every error answer is \`{ok: false, error, code, issues?}\` with a stable \`code\`. A solver result
outside its own bound is refused with 422 \`PRECISION_REFUSED\` and nothing is charged, unless the
request sends \`acceptOutOfBound: true\`.

A browser console for a machine is at [/console](/console); this reference without JavaScript at
[/docs/plain](/docs/plain).`;

/** $refs into a schema's own `$defs` become references to components.schemas. */
function toComponentRefs<T>(x: T): T {
  if (Array.isArray(x)) return x.map(toComponentRefs) as T;
  if (x && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${v.slice(8)}` : toComponentRefs(v);
    }
    return out as T;
  }
  return x;
}

/** An operation's answer schema with its `$defs` moved into `components` (one schema per name:
 * two different schemas under one name are a bug, refused here). */
function hoistDefs(schema: Record<string, any>, components: Record<string, unknown>): Record<string, unknown> {
  const { $defs, ...rest } = schema;
  for (const [name, def] of Object.entries<Record<string, unknown>>($defs ?? {})) {
    const converted = toComponentRefs(def);
    const have = components[name];
    if (have !== undefined && JSON.stringify(have) !== JSON.stringify(converted)) throw new Error(`OpenAPI: two different schemas are named ${name}`);
    components[name] = converted;
  }
  return toComponentRefs(rest);
}

/** What an operation answers: its success status(es) and media type(s) with the answer's schema
 * and example, the DESIGN §9 error body for every 4xx, and 503 where it depends on an upstream.
 * Nothing else: a 5xx other than 503 is a bug. */
function responsesOf(op: Operation, components: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const media = op.produces ?? ['application/json'];
  const declared = outputSchemaOf(op);
  const jsonSchema = declared ? hoistDefs(declared, components) : { type: 'object' };
  const example = op.example?.response;
  for (const status of op.successStatus ?? [200]) {
    out[String(status)] = {
      description: status === 308 ? 'permanent redirect (Location header)' : op.tag === 'solvers' && declared ? 'the sealed result' : 'success',
      content: Object.fromEntries(media.map((m) => {
        const json = m === 'application/json' || m.endsWith('+json');
        return [m, {
          schema: json ? (m === 'application/json' ? jsonSchema : { type: 'object' }) : { type: 'string' },
          ...(json && example !== undefined && status === 200 ? { examples: { [exampleName(op)]: { summary: op.example?.summary ?? 'example', value: example } } } : {}),
        }];
      })),
    };
  }
  // RFC 7240: a sealed solver call sent with `Prefer: respond-async` answers 202 with the job
  if (jobCapable(op)) {
    out['202'] = {
      description: 'with `Prefer: respond-async`: the job that runs it (`Location: /api/jobs/{id}`, `Preference-Applied: respond-async`); its `response` is this operation\'s answer once it has ended',
      content: { 'application/json': { schema: hoistDefs(toOutputJsonSchema(JobViewSchema), components) } },
    };
  }
  out['4XX'] = { description: 'error body (DESIGN §9): 400 invalid input, 401 no or bad credential, 403 forbidden, 404 not found, 405 method not allowed, 413 body too large, 415 unsupported media type, 416 range not satisfiable (blobs), 422 refused result, 429 quota or rate limit', ...ERROR_RESPONSE };
  if (op.upstream) out['503'] = { description: 'UPSTREAM_UNAVAILABLE: an upstream did not answer (error body with per-source statuses where it applies); retry after Retry-After seconds', ...ERROR_RESPONSE };
  return out;
}

/** Solvers by name ('0heat'), then the compositions and auto-dispatch ('1compute'). */
const solverRank = (o: Operation) => (o.id.startsWith('solver.') && o.id !== 'solver.auto' ? `0${o.id}` : `1${o.id}`);

/** The operation's short title: its own, else the first clause of its summary (at most 64 characters). */
export function titleOf(op: Operation): string {
  if (op.title) return op.title;
  const clause = (op.summary.match(/^(.*?)(?:: | \(|; |\. |, )/)?.[1] ?? op.summary).replace(/\.$/, '');
  return clause.length <= 64 ? clause : `${clause.slice(0, 64).replace(/\s+\S*$/, '')}…`;
}

const exampleName = (op: Operation) => (op.tool ?? op.id).replace(/[^A-Za-z0-9_.-]/g, '_');

/** `info.license` and `info.contact`: the node operator's, from SVC_API_LICENSE (an SPDX
 * identifier or a licence name), SVC_API_LICENSE_URL, SVC_CONTACT_NAME, SVC_CONTACT_EMAIL and
 * SVC_CONTACT_URL. The project declares no licence of its own, so the default says so. */
function licenseAndContact(app: App): { license: Record<string, string>; contact: Record<string, string> } {
  const env = app.config.env;
  const lic = env.SVC_API_LICENSE?.trim();
  const license: Record<string, string> = lic
    ? { name: lic, ...(env.SVC_API_LICENSE_URL ? { url: env.SVC_API_LICENSE_URL } : /^[A-Za-z0-9.+-]+$/.test(lic) ? { identifier: lic } : {}) }
    : { name: 'UNLICENSED', url: `${app.config.baseUrl}/docs#section/Licence` };
  const contact: Record<string, string> = { name: env.SVC_CONTACT_NAME?.trim() || 'the operator of this node', url: env.SVC_CONTACT_URL?.trim() || app.config.baseUrl };
  if (env.SVC_CONTACT_EMAIL?.trim()) contact.email = env.SVC_CONTACT_EMAIL.trim();
  return { license, contact };
}

export function buildOpenApi(app: App): Record<string, unknown> {
  const paths: Record<string, any> = {};
  const components: Record<string, unknown> = { Error: ERROR_SCHEMA };
  // in the order /docs lists them: by tag, the solvers by name before the compositions
  const tagIndex = (o: Operation) => { const i = TAGS.findIndex((t) => t.name === o.tag); return i === -1 ? TAGS.length : i; };
  const ops = publicOperations(app).map((o, i) => ({ o, i })).sort((a, b) => tagIndex(a.o) - tagIndex(b.o)
    || (a.o.tag === 'solvers' ? solverRank(a.o).localeCompare(solverRank(b.o)) : 0) || a.i - b.i).map((x) => x.o);
  for (const op of ops) {
    const schema = jsonSchemaOf(op);
    const path = openApiPath(op.path);
    const pathParams = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    // the example request: path, query and body values together (src/ops/operation-examples.ts)
    const request = op.example?.request;
    const exampleOf = (name: string) => (request && Object.hasOwn(request, name) ? { example: request[name] } : {});
    const parameters: any[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: schema.properties?.[name] ?? { type: 'string' }, ...exampleOf(name) }));
    const entry: any = {
      operationId: op.id,
      summary: titleOf(op),
      description: [op.summary, op.description, op.tool ? `MCP tool: \`${op.tool}\`.` : '', `Access: ${ACCESS[op.access]}${op.allowDemo ? ' (a demo key too)' : ''}.`, op.cost ? `Cost: ${op.cost} compute token(s).` : ''].filter(Boolean).join(' '),
      tags: [op.tag],
      security: op.access === 'public' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      responses: responsesOf(op, components),
    };
    if (op.tool) entry['x-mcp-tool'] = op.tool;
    if (op.method === 'GET' || op.method === 'DELETE') {
      for (const [name, s] of Object.entries<any>(schema.properties ?? {})) {
        if (pathParams.includes(name)) continue;
        parameters.push({ name, in: 'query', required: (schema.required ?? []).includes(name), schema: s, ...(s.description ? { description: s.description } : {}), ...exampleOf(name) });
      }
    } else {
      const body: Record<string, any> = { ...schema, properties: Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !pathParams.includes(k))) };
      if (Array.isArray(body.required)) body.required = body.required.filter((k: string) => !pathParams.includes(k));
      const summary = op.example?.summary ?? 'example';
      // a text or byte body's example is the body itself
      const rawExample = typeof request?.body === 'string' ? { examples: { [exampleName(op)]: { summary, value: request.body } } } : {};
      if (op.streamBody) entry.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the bytes, as they are or gzipped (Content-Encoding: gzip)' }, ...rawExample } } };
      else if (op.textBody) entry.requestBody = { required: true, content: { 'text/plain': { schema: { type: 'string' }, ...rawExample } } };
      else {
        // the body example is the request without its path parameters; then one per kind of input
        const examples: Record<string, { summary: string; value: unknown }> = {};
        if (request) examples[exampleName(op)] = { summary, value: Object.fromEntries(Object.entries(request).filter(([k]) => !pathParams.includes(k))) };
        for (const e of op.requestExamples ?? []) examples[e.name] = { summary: e.summary, value: e.request };
        entry.requestBody = { required: false, content: { 'application/json': { schema: body, ...(Object.keys(examples).length ? { examples } : {}) } } };
      }
    }
    if (parameters.length) entry.parameters = parameters;
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = entry;
  }
  const used = new Set(ops.map((o) => o.tag));
  const { license, contact } = licenseAndContact(app);
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc sealed-computation node',
      version: API_VERSION,
      summary: 'Numerical solvers with sealed, verifiable results, over REST and MCP.',
      description: INTRO + '\n\n' + glossaryMarkdown() + (license.url?.endsWith('#section/Licence') ? `\n\n## Licence\n\nThe operator of this node has not declared a licence for its API: none is granted (UNLICENSED). An operator declares one with \`SVC_API_LICENSE\` (an SPDX identifier such as \`Apache-2.0\`, or a licence name with \`SVC_API_LICENSE_URL\`), and a contact with \`SVC_CONTACT_NAME\`, \`SVC_CONTACT_EMAIL\` and \`SVC_CONTACT_URL\`.` : ''),
      license,
      contact,
    },
    servers: [{ url: app.config.baseUrl, description: 'this node' }],
    tags: [...TAGS.filter((t) => used.has(t.name)), ...[...used].filter((n) => !TAGS.some((t) => t.name === n)).map((name) => ({ name, 'x-displayName': name, description: name }))],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a machine key (svc_ak_…), a demo key (svc_ak_demo_…) where the operation allows it, or an OAuth access token' } },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => (a === 'Error' ? -1 : b === 'Error' ? 1 : a.localeCompare(b)))),
    },
  };
}

const ACCESS: Record<string, string> = {
  public: 'public (no key needed; a key adds the caller\'s own view where it applies)',
  user: 'a machine key or an OAuth access token with the scope it needs',
  key: 'a machine key',
  admin: 'the admin key',
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderReferencePage(app: App): string {
  const rows = publicOperations(app).map((op) => {
    const schema = jsonSchemaOf(op);
    const fields = Object.entries<any>(schema.properties ?? {}).map(([k, v]) => {
      const req = (schema.required ?? []).includes(k) ? ' <b>required</b>' : '';
      const bounds = [v.type, v.minimum !== undefined ? `≥ ${v.minimum}` : '', v.maximum !== undefined ? `≤ ${v.maximum}` : '', v.enum ? `one of ${v.enum.join(', ')}` : '', v.default !== undefined ? `default ${JSON.stringify(v.default)}` : ''].filter(Boolean).join(', ');
      return `<li><code>${esc(k)}</code>${req} <span>${esc(bounds)}</span>${v.description ? ` — ${esc(v.description)}` : ''}</li>`;
    }).join('');
    return `<section id="${esc(op.id)}"><h3><code>${op.method} ${esc(op.path)}</code>${op.tool ? ` · tool <code>${esc(op.tool)}</code>` : ''}</h3>
<p>${esc(op.summary)}</p>${op.description ? `<p class="d">${esc(op.description)}</p>` : ''}<p class="m">access: ${op.access}${op.cost ? ` · cost: ${esc(String(op.cost))} token(s)` : ''}</p>${fields ? `<ul>${fields}</ul>` : ''}</section>`;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title><style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111}
code{background:#f2f2f2;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5rem 0}.m,.d{color:#444}h3{font-size:1rem}</style></head>
<body><h1>svc API reference <small>${esc(API_VERSION)}</small></h1>
<p>Every operation below is an HTTP route and, where named, an MCP tool at <code>POST /api/mcp</code>. Send <code>Authorization: Bearer &lt;API_KEY&gt;</code>.
Machine-readable: <a href="/openapi.json">/openapi.json</a>.</p>${rows}</body></html>`;
}
