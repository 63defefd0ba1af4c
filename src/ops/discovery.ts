// Discovery: svc_api_catalog searches the public operations; svc_http calls any public /api/*
// endpoint in-process (never over the network), forwarding the caller's bearer.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { publicOperations } from './registry.ts';
import { okWith } from './outputs.ts';
import type { App } from './types.ts';
import { LOOKUP } from './tool-hints.ts';

function matchRoute(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return false;
  return a.every((seg, i) => seg.startsWith(':') ? b[i].length > 0 : seg === b[i]);
}

function findOperation(app: App, method: string, path: string) {
  return app.operations.find((o) => o.method === method && matchRoute(o.path, path))
    ?? app.operations.find((o) => matchRoute(o.path, path));
}

/** Refuses anything but a plain /api/ path: traversal, encoded separators, doubled slashes,
 * absolute URLs, control characters, the MCP endpoint itself, svc_http itself and admin routes. */
export function checkHttpPath(app: App, method: string, path: string): void {
  const bad = (why: string) => new SvcError('INVALID_INPUT', `path refused: ${why}`, { issues: [{ path: 'path', message: why }] });
  if (!path.startsWith('/api/')) throw bad('must start with /api/');
  if (/[\u0000-\u001f\u007f\\]/.test(path)) throw bad('control characters and backslashes are not allowed');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) throw bad('absolute URLs are not allowed');
  if (path.includes('//')) throw bad("'//' is not allowed");
  if (/%(2e|2f|5c|00|25)/i.test(path)) throw bad('encoded separators and dots are not allowed');
  if (path.split('/').some((s) => s === '..' || s === '.')) throw bad("'.' and '..' segments are not allowed");
  if (path.includes('?') || path.includes('#')) throw bad('put query parameters in `query`, not in the path');
  // The router percent-decodes the path before it matches a route, so '/api/%61dmin/machines'
  // reaches '/api/admin/machines': every check below runs on the decoded path, the one the router sees.
  let decoded: string;
  try { decoded = decodeURIComponent(path); } catch { throw bad('malformed percent-encoding'); }
  if (decoded !== path) {
    if (/[\u0000-\u001f\u007f\\?#]/.test(decoded) || decoded.includes('//') || decoded.split('/').some((s) => s === '..' || s === '.')) {
      throw bad('encoded separators, dots and control characters are not allowed');
    }
  }
  if (decoded === '/api/mcp' || decoded.startsWith('/api/mcp/')) throw new SvcError('FORBIDDEN', 'svc_http cannot call /api/mcp');
  if (decoded === '/api/http') throw new SvcError('FORBIDDEN', 'svc_http cannot call itself');
  const op = findOperation(app, method, decoded);
  if (decoded.startsWith('/api/admin') || op?.access === 'admin') throw new SvcError('ADMIN_REQUIRED', 'admin routes are not reachable through svc_http');
}

const flatValue = z.union([z.string().max(2000), z.number().finite(), z.boolean()]);

export const operations: Operation[] = [
  defineOp({
    id: 'discovery.catalog',
    tool: 'svc_api_catalog',
    title: 'Search the API',
    brief: "Search this node's HTTP API: endpoints by text, method and access class.",
    hints: LOOKUP,
    toolOutput: z.object({ total: z.number(), endpoints: z.array(z.object({ method: z.string(), path: z.string() })) }),
    method: 'GET',
    path: '/api/catalog',
    access: 'public',
    tag: 'discovery',
    summary: 'Search the public API surface: substring across path and description; filter by method and access class.',
    input: z.strictObject({
      q: z.string().max(200).optional(),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
      auth: z.enum(['public', 'user', 'key', 'admin']).optional(),
      limit: z.number().int().min(1).max(200).default(40),
    }),
    output: okWith({
      total: z.number().int().describe('matching operations (all pages)'),
      endpoints: z.array(z.object({
        method: z.string(), path: z.string(), auth: z.enum(['public', 'user', 'key', 'admin']), summary: z.string(),
        tool: z.string().optional().describe('the MCP tool of the same operation'),
        cost: z.union([z.number(), z.string()]).optional().describe('compute tokens per call'),
      })),
    }),
    async handler(input, ctx) {
      const q = input.q?.toLowerCase();
      const all = publicOperations(ctx.app).filter((o) =>
        (!input.method || o.method === input.method) &&
        (!input.auth || o.access === input.auth) &&
        (!q || `${o.path} ${o.summary} ${o.description ?? ''} ${o.tool ?? ''}`.toLowerCase().includes(q)));
      return {
        ok: true,
        total: all.length,
        endpoints: all.slice(0, input.limit).map((o) => ({
          method: o.method, path: o.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), auth: o.access, summary: o.summary,
          ...(o.tool ? { tool: o.tool } : {}), ...(o.cost ? { cost: o.cost } : {}),
        })),
      };
    },
  }),
  defineOp({
    id: 'discovery.http',
    upstream: true,
    tool: 'svc_http',
    title: 'Call an API endpoint',
    brief: 'Call any public /api/* endpoint of this node with your key; returns its status and body.',
    hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    toolOutput: z.object({ status: z.number(), contentType: z.string() }).describe('the answer: status, contentType, body (JSON or text), truncated when a stream was cut'),
    method: 'POST',
    path: '/api/http',
    access: 'public',
    tag: 'discovery',
    summary: 'Call any public /api/* endpoint. QUERY is a safe, idempotent GET-with-body: its JSON body is merged into the query parameters. The caller\'s bearer key is forwarded.',
    description: 'Admin routes and /api/mcp are blocked. Dispatched in-process. A streamed (Server-Sent Events) answer is read for one second and returned with truncated: true.',
    input: z.strictObject({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY']),
      path: z.string().min(1).max(2000),
      query: z.record(z.string().max(200), flatValue).optional(),
      body: z.record(z.string(), z.unknown()).optional(),
    }),
    output: z.object({
      ok: z.boolean().describe('the inner status is below 400'),
      status: z.number().int().describe("the inner answer's HTTP status"),
      contentType: z.string(),
      body: z.unknown().describe('the inner answer: parsed JSON, or text'),
      truncated: z.literal(true).optional().describe('a streamed answer read for one second, or an answer cut at 16 MiB'),
    }),
    async handler(input, ctx) {
      const method = input.method === 'QUERY' ? 'GET' : input.method;
      checkHttpPath(ctx.app, method, input.path);
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries(input.query ?? {})) query[k] = String(v);
      if (input.method === 'QUERY' && input.body) {
        for (const [k, v] of Object.entries(input.body)) {
          if (v === null || typeof v === 'object') throw new SvcError('INVALID_INPUT', `QUERY body values must be flat (string, number, boolean): '${k}'`);
          query[k] = String(v);
        }
      }
      const qs = new URLSearchParams(query).toString();
      const headers: Record<string, string> = { 'x-svc-via': 'svc_http' };
      if (ctx.bearer) headers.authorization = `Bearer ${ctx.bearer}`;
      const sendBody = method !== 'GET' && method !== 'DELETE' && input.body !== undefined;
      if (sendBody) headers['content-type'] = 'application/json';
      if (!ctx.app.inject) throw new SvcError('UPSTREAM_UNAVAILABLE', 'in-process dispatch is not available');
      const res = await ctx.app.inject({ method, url: input.path + (qs ? `?${qs}` : ''), headers, payload: sendBody ? JSON.stringify(input.body) : undefined, ...(ctx.ip ? { remoteAddress: ctx.ip } : {}) });
      let body: unknown = res.body;
      const ct = String(res.headers['content-type'] ?? '');
      if (ct.includes('json')) { try { body = JSON.parse(res.body); } catch { /* keep text */ } }
      return { ok: res.statusCode < 400, status: res.statusCode, contentType: ct, body, ...(res.truncated ? { truncated: true } : {}) };
    },
  }),
];
