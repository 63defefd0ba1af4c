// MCP over Streamable HTTP (DESIGN §11) at POST/GET/DELETE /api/mcp, through the official SDK.
// Tools are generated from the operation declarations; this file knows nothing of solvers.
// Sessions (Mcp-Session-Id) live in this process; the bearer of each HTTP request is the caller
// of the tools in it. Host and Origin are checked against DNS rebinding.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App, Operation } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { MAX_JSON_DEPTH, parseJsonBody } from '../core/json.ts';
import { bearerOf, invoke, resolveCaller, type InvokeBase } from '../ops/invoke.ts';
import { jsonSchemaOf } from '../ops/schema.ts';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

const SESSION_IDLE_MS = 30 * 60 * 1000;
/** a tools/call may carry a user's file (an 8 MiB CNF or MATPOWER case) plus its JSON escaping */
const MCP_BODY_LIMIT = 12 * 1024 * 1024;
/** tools/call with its params unparsed (see buildServer) */
const TOOLS_CALL = z.object({ method: z.literal('tools/call'), params: z.unknown() });
const MAX_SESSIONS = 1000;

export function toolOperations(app: App): Operation[] {
  return app.operations.filter((o) => o.tool && o.access !== 'admin');
}

function allowedHostnames(app: App): Set<string> {
  const hosts = new Set(['localhost', '127.0.0.1', '[::1]']);
  try { hosts.add(new URL(app.config.baseUrl).hostname); } catch { /* ignore */ }
  if (app.config.host && app.config.host !== '0.0.0.0' && app.config.host !== '::') hosts.add(app.config.host);
  for (const h of (app.config.env.SVC_ALLOWED_HOSTS ?? '').split(',')) if (h.trim()) hosts.add(h.trim().toLowerCase());
  return hosts;
}

function hostnameOf(value: string, withScheme: boolean): string | null {
  try { return new URL(withScheme ? value : `http://${value}`).hostname.toLowerCase(); } catch { return null; }
}

/** Runs a tool through the one invocation path (src/ops/invoke.ts): a refusal is a result with
 * `isError` whose body is the DESIGN §9 error body; a bug is an `INTERNAL` error body (logged). */
export async function callTool(app: App, op: Operation, args: unknown, base: InvokeBase): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  try {
    return { isError: false, body: await invoke(app, op, args ?? {}, base) as Record<string, unknown> };
  } catch (e) {
    const err = e as SvcError;
    if (err.code === 'INTERNAL') console.error('svc: tool %s failed:', op.tool, err.cause ?? err);
    return { isError: true, body: err.toBody() };
  }
}

function buildServer(app: App): Server {
  const server = new Server({ name: 'svc', version: app.version }, { capabilities: { tools: {}, logging: {} } });
  const tools = toolOperations(app);
  const byName = new Map(tools.map((o) => [o.tool!, o]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((o) => ({
      name: o.tool!,
      description: [o.summary, o.description].filter(Boolean).join(' '),
      inputSchema: { type: 'object', ...jsonSchemaOf(o) } as any,
    })),
  }));
  // The SDK's tools/call wrapper validates params and answers -32602 Invalid params; registering
  // the strict schema would have them parsed first and refused as -32603.
  server.setRequestHandler(TOOLS_CALL, async (request, extra) => {
    const req = request as unknown as z.infer<typeof CallToolRequestSchema>;
    const op = byName.get(req.params.name);
    if (!op) {
      const body = { ok: false, error: `unknown tool '${req.params.name}'`, code: 'NOT_FOUND' };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    }
    const auth = (extra.authInfo?.extra ?? {}) as { caller?: Caller | null; bearer?: string | null; ip?: string; headers?: Record<string, string | string[] | undefined> };
    const progressToken = req.params._meta?.progressToken;
    const result = await callTool(app, op, req.params.arguments ?? {}, {
      caller: auth.caller ?? null,
      bearer: auth.bearer ?? null,
      signal: extra.signal,
      requestId: String(extra.requestId),
      ip: auth.ip ?? '',
      via: 'mcp',
      headers: auth.headers ?? {},
      mcpSessionId: extra.sessionId,
      progressWanted: progressToken !== undefined,
      progress: (progress, total, message) => {
        if (progressToken === undefined) return;
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } } as any).catch(() => {});
      },
      notify: async (method, params) => { await extra.sendNotification({ method, params } as any); },
    });
    return {
      ...(result.isError ? { isError: true } : {}),
      content: [{ type: 'text', text: JSON.stringify(result.body) }],
      structuredContent: result.body,
    };
  });
  return server;
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export async function registerMcp(fastify: FastifyInstance, app: App): Promise<void> {
  const sessions = new Map<string, Session>();
  const hosts = allowedHostnames(app);

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.lastSeen > SESSION_IDLE_MS) { sessions.delete(id); void s.transport.close(); }
  }, 60_000);
  sweep.unref();
  app.onClose.push(async () => {
    clearInterval(sweep);
    for (const s of sessions.values()) await s.transport.close().catch(() => {});
    sessions.clear();
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    // DNS rebinding protection: Host and (when sent) Origin must name this node.
    const host = hostnameOf(String(req.headers.host ?? ''), false);
    if (!host || !hosts.has(host)) return rpcError(reply, 403, -32000, `Invalid Host header: ${req.headers.host ?? '(none)'}`);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      const oh = hostnameOf(String(origin), true);
      if (!oh || !hosts.has(oh)) return rpcError(reply, 403, -32000, `Invalid Origin header: ${origin}`);
    } else if (origin === 'null') return rpcError(reply, 403, -32000, 'Invalid Origin header: null');

    let caller: Caller | null;
    let bearer: string | null;
    try {
      bearer = bearerOf(req.headers.authorization);
      caller = await resolveCaller(app, bearer);
    } catch (e) {
      const err = isSvcError(e) ? e : new SvcError('UNAUTHORIZED', 'invalid credential');
      req.svcErrorCode = err.code; // counted by src/observability (svc_http_errors_total)
      return reply.code(err.status).header('WWW-Authenticate', 'Bearer').send(err.toBody());
    }
    const authInfo = { token: bearer ?? '', clientId: caller?.zid ?? 'anonymous', scopes: caller?.scopes ?? [], extra: { caller, bearer, ip: req.ip, headers: req.headers } };
    (req.raw as any).auth = authInfo;

    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return rpcError(reply, 404, -32001, 'Session not found');
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return rpcError(reply, 400, -32000, 'Bad Request: no valid session ID provided; send initialize first');
      }
      if (sessions.size >= MAX_SESSIONS) return rpcError(reply, 429, -32000, 'too many MCP sessions on this node');
      const server = buildServer(app);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { sessions.set(id, { transport, server, lastSeen: Date.now() }); },
        onsessionclosed: (id) => { sessions.delete(id); },
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await server.connect(transport);
      session = { transport, server, lastSeen: Date.now() };
    }
    session.lastSeen = Date.now();
    reply.hijack();
    try {
      await session.transport.handleRequest(req.raw as any, reply.raw, req.body);
    } catch (e) {
      req.log.error({ err: e }, 'mcp transport error');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  };

  // The MCP routes parse their own JSON: a body that is not JSON is a JSON-RPC parse error
  // (-32700, DESIGN §9 "malformed JSON-RPC gets JSON-RPC errors"), not the REST error body.
  await fastify.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
      if (text === '') return done(null, undefined);
      try { done(null, parseJsonBody(text as string)); } catch (e) { done(null, isSvcError(e) ? TOO_DEEP : PARSE_ERROR); }
    });
    const guarded = async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.body === PARSE_ERROR || req.body === TOO_DEEP) {
        // the Host/Origin check comes first, as for every MCP request
        const host = hostnameOf(String(req.headers.host ?? ''), false);
        if (!host || !hosts.has(host)) return rpcError(reply, 403, -32000, `Invalid Host header: ${req.headers.host ?? '(none)'}`);
        return req.body === TOO_DEEP
          ? rpcError(reply, 400, -32600, `Invalid Request: the body is nested deeper than ${MAX_JSON_DEPTH} levels`)
          : rpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
      }
      return handle(req, reply);
    };
    scope.post('/api/mcp', { bodyLimit: MCP_BODY_LIMIT }, guarded);
    scope.get('/api/mcp', guarded);
    scope.delete('/api/mcp', guarded);
  });
}

/** marks a request body that was not valid JSON */
const PARSE_ERROR: unique symbol = Symbol('svc.mcp.parse-error');
/** marks a request body nested past the JSON depth limit */
const TOO_DEEP: unique symbol = Symbol('svc.mcp.too-deep');
