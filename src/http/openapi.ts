// OpenAPI 3.1 and the human-readable reference page, both derived from the operations.
import type { App } from '../ops/types.ts';
import type { Operation } from '../ops/types.ts';
import { API_VERSION } from '../core/version.ts';
import { jsonSchemaOf } from '../ops/schema.ts';
import { publicOperations } from '../ops/registry.ts';


function openApiPath(p: string): string {
  return p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['ok', 'error', 'code'],
  properties: {
    ok: { const: false }, error: { type: 'string' }, code: { type: 'string' },
    issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const ERROR_RESPONSE = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** What an operation answers: its success status(es) and media type(s), the DESIGN §9 error body
 * for every 4xx, and 503 where it depends on an upstream. Nothing else: a 5xx other than 503 is a bug. */
function responsesOf(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const media = op.produces ?? ['application/json'];
  for (const status of op.successStatus ?? [200]) {
    out[String(status)] = {
      description: status === 308 ? 'permanent redirect (Location header)' : 'success',
      content: Object.fromEntries(media.map((m) => [m, { schema: m === 'application/json' || m.endsWith('+json') ? { type: 'object' } : { type: 'string' } }])),
    };
  }
  out['4XX'] = { description: 'error body (DESIGN §9): 400 invalid input, 401 no or bad credential, 403 forbidden, 404 not found, 405 method not allowed, 413 body too large, 415 unsupported media type, 422 refused result, 429 quota or rate limit', ...ERROR_RESPONSE };
  if (op.upstream) out['503'] = { description: 'UPSTREAM_UNAVAILABLE: an upstream did not answer (error body with per-source statuses where it applies); retry after Retry-After seconds', ...ERROR_RESPONSE };
  return out;
}

export function buildOpenApi(app: App): Record<string, unknown> {
  const paths: Record<string, any> = {};
  for (const op of publicOperations(app)) {
    const schema = jsonSchemaOf(op);
    const path = openApiPath(op.path);
    const pathParams = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    const parameters: any[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: schema.properties?.[name] ?? { type: 'string' } }));
    const entry: any = {
      operationId: op.id,
      summary: op.summary,
      description: [op.description, op.tool ? `MCP tool: \`${op.tool}\`.` : '', `Access: ${op.access}.`, op.cost ? `Cost: ${op.cost} compute token(s).` : ''].filter(Boolean).join(' '),
      tags: [op.tag],
      security: op.access === 'public' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      responses: responsesOf(op),
    };
    if (op.tool) entry['x-mcp-tool'] = op.tool;
    if (op.method === 'GET' || op.method === 'DELETE') {
      for (const [name, s] of Object.entries<any>(schema.properties ?? {})) {
        if (pathParams.includes(name)) continue;
        parameters.push({ name, in: 'query', required: (schema.required ?? []).includes(name), schema: s });
      }
    } else {
      const body: Record<string, any> = { ...schema, properties: Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !pathParams.includes(k))) };
      if (Array.isArray(body.required)) body.required = body.required.filter((k: string) => !pathParams.includes(k));
      entry.requestBody = { required: false, content: { 'application/json': { schema: body } } };
    }
    if (parameters.length) entry.parameters = parameters;
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc sealed-computation node',
      version: API_VERSION,
      description: 'Deterministic numerical solvers whose results are sealed in signed, verifiable receipts. Also reachable over MCP at POST /api/mcp.',
    },
    servers: [{ url: app.config.baseUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_ak_… API key' } },
      schemas: { Error: ERROR_SCHEMA },
    },
  };
}

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
