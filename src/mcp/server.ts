// MCP over Streamable HTTP (DESIGN §11) at POST/GET/DELETE /api/mcp, through the official SDK v2
// (@modelcontextprotocol/server, mounted on Fastify with @modelcontextprotocol/node). Two eras
// share one endpoint and one server factory:
//   - 2026-07-28 (modern): stateless, one server instance per request (`createMcpHandler`), a
//     `server/discover` probe instead of `initialize`; progress on the request's own SSE stream;
//     closing that stream cancels the call.
//   - 2025-era (legacy, up to 2025-11-25): an `initialize` handshake opens a session
//     (Mcp-Session-Id) served by a Streamable HTTP transport kept in this process, with a GET
//     stream, DELETE, logging/setLevel and notifications/cancelled.
// `isLegacyRequest` (the SDK's own classification) decides per request. Tools are generated from
// the operation declarations (src/mcp/tools.ts) and run through the one invocation path
// (src/ops/invoke.ts); this file knows nothing of solvers.
//
// Before the SDK sees a request, the entry checks here run in order: Host and Origin against DNS
// rebinding (403), the JSON body (parse error -32700, depth limit -32600), the registered entry
// checks (`McpEntryCheck`, e.g. a cap on JSON-RPC batches), then the credential: a bearer that is
// unknown, expired or revoked, or a call that needs a key and has none, is an HTTP 401 whose
// WWW-Authenticate names the protected resource metadata, so that an MCP client starts signing
// in; an OAuth token without the scope a tool needs is a 403 insufficient_scope.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createMcpHandler, isLegacyRequest, Server, ProtocolError, ProtocolErrorCode, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import type { App, Operation } from '../ops/types.ts';
import type { Caller } from '../core/caller.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { MAX_JSON_DEPTH, parseJsonBody } from '../core/json.ts';
import { authorize, bearerOf, invoke, resolveCaller, type InvokeBase } from '../ops/invoke.ts';
import { jsonSchemaOf, portableSchema } from '../ops/schema.ts';
import { bearerChallenge } from '../hosting/oauth.ts';
import {
  toolOperations, toolDefinitions, instructions, renderResult, renderError,
  RECEIPT_URI_TEMPLATE, SCHEMA_URI_TEMPLATE, toolSchemaResource,
} from './tools.ts';
import { registerTasks, taskCall, taskListen, tasksCapabilities, withTaskSupport, TaskAwareServer, type Era } from './task-server.ts';

export { toolOperations };

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** the protocol version negotiated at initialize */
  protocolVersion?: string;
}

/** JSON-RPC batches (issue 19): at most this many messages in one POST; a larger batch is refused
 * whole (HTTP 400, JSON-RPC -32600) before any of it runs. Each call of an accepted batch goes
 * through `invoke` on its own, so it counts against every limit as a single call would. */
export const MAX_BATCH = 10;
/** the only protocol version with JSON-RPC batches (added in 2025-03-26, removed in 2025-06-18);
 * it is also what a request without an MCP-Protocol-Version header or session is taken to speak */
const BATCH_VERSION = '2025-03-26';

/** Why a POST body that is a batch is refused, or null when it may pass. */
function batchRefusal(body: unknown[], version: string): string | null {
  if (!body.length) return 'Invalid Request: an empty batch';
  if (body.length > MAX_BATCH) return `Invalid Request: a batch carries at most ${MAX_BATCH} messages (this one has ${body.length}); none of them was run`;
  if (version !== BATCH_VERSION) return `Invalid Request: protocol version ${version} has no JSON-RPC batches (only ${BATCH_VERSION} has); send one message per request. None was run`;
  return null;
}

/** the longest string JSON-RPC id answered; a longer one is -32600 before anything runs */
export const MAX_ID_LENGTH = 256;

const SESSION_IDLE_MS = 30 * 60 * 1000;
/** a tools/call may carry a user's file (an 8 MiB CNF or MATPOWER case) plus its JSON escaping */
const MCP_BODY_LIMIT = 12 * 1024 * 1024;
const MAX_SESSIONS = 1000;

/** What the face knows about the HTTP request that carried an MCP message. */
interface RequestAuth { caller: Caller | null; bearer: string | null; ip: string; headers: Record<string, string | string[] | undefined> }

/** A check of a POST body before any MCP processing: null to let it through, or the refusal (HTTP
 * status and JSON-RPC error). The body is the parsed JSON: one message or a batch (an array). */
export type McpEntryCheck = (body: unknown, req: FastifyRequest) => { status: number; code: number; message: string } | null;

/** The entry checks every /api/mcp POST passes, in order, after the Host/Origin and JSON checks
 * and before the credential is resolved. */
export const mcpEntryChecks: McpEntryCheck[] = [];

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

/** Runs a tool through the one invocation path (src/ops/invoke.ts): a refusal is `isError` with
 * the DESIGN §9 error body; a bug is an `INTERNAL` error body (logged). */
export async function callTool(app: App, op: Operation, args: unknown, base: InvokeBase): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  try {
    return { isError: false, body: await invoke(app, op, args ?? {}, base) as Record<string, unknown> };
  } catch (e) {
    const err = e as SvcError;
    if (err.code === 'INTERNAL') console.error('svc: tool %s failed:', op.tool, err.cause ?? err);
    return { isError: true, body: err.toBody() };
  }
}

/** Series are opt-in over MCP: `series: true` (or `sample`) asks for them; `series` itself is an
 * MCP argument, never passed to the operation. */
function splitSeries(op: Operation, args: Record<string, unknown>): { args: Record<string, unknown>; series: boolean } {
  if (!op.seriesOptIn || !('series' in args)) return { args, series: op.seriesOptIn ? args.sample !== undefined : true };
  const { series, ...rest } = args;
  if (typeof series !== 'boolean') throw new SvcError('INVALID_INPUT', 'series: expected true or false', { issues: [{ path: 'series', message: 'expected a boolean' }] });
  if (!series && rest.sample !== undefined) throw new SvcError('INVALID_INPUT', 'sample: has no effect with series: false', { issues: [{ path: 'sample', message: 'has no effect with series: false' }] });
  return { args: rest, series };
}

function authOf(info: AuthInfo | undefined): RequestAuth {
  return (info?.extra as unknown as RequestAuth | undefined) ?? { caller: null, bearer: null, ip: '', headers: {} };
}

/** One MCP server instance (per request in the modern era, per session in the legacy one, which
 * knows the revision its initialize negotiated). */
function buildServer(app: App, era: Era): Server {
  const server = new TaskAwareServer({ name: 'svc', version: app.version }, {
    capabilities: { tools: {}, resources: {}, logging: {}, ...tasksCapabilities(app, era) },
    instructions: instructions(app),
  });
  const tools = toolOperations(app);
  const byName = new Map(tools.map((o) => [o.tool!, o]));
  server.setRequestHandler('tools/list', async () => ({ tools: withTaskSupport(app, era, toolDefinitions(app)) as any }));
  server.setRequestHandler('tools/call', async (request, ctx): Promise<any> => {
    const op = byName.get(request.params.name);
    if (!op) return renderError({ ok: false, error: `unknown tool '${request.params.name}'`, code: 'NOT_FOUND' });
    const auth = authOf(ctx.http?.authInfo);
    const progressToken = ctx.mcpReq._meta?.progressToken;
    let split: ReturnType<typeof splitSeries>;
    try { split = splitSeries(op, (request.params.arguments ?? {}) as Record<string, unknown>); } catch (e) { return renderError((e as SvcError).toBody()); }
    // a long call runs as a task (a job) when the client and the call ask for it (task-server.ts)
    const task = await taskCall(app, era, server, op, request.params as Record<string, unknown>, split.args, ctx, auth.caller);
    if (task) return task;
    const result = await callTool(app, op, split.args, {
      caller: auth.caller,
      bearer: auth.bearer,
      signal: ctx.mcpReq.signal,
      requestId: String(ctx.mcpReq.id),
      ip: auth.ip,
      via: 'mcp',
      headers: auth.headers,
      mcpSessionId: ctx.sessionId,
      progressWanted: progressToken !== undefined,
      progress: (progress, total, message) => {
        if (progressToken === undefined) return;
        void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } }).catch(() => {});
      },
      notify: async (method, params) => { await ctx.mcpReq.notify({ method, params } as any); },
    });
    if (result.isError) return renderError(result.body);
    // series are opt-in over MCP: left out unless asked for (the receipt keeps them)
    const { series, ...rest } = result.body;
    return renderResult(op, split.series && series !== undefined ? result.body : rest);
  });
  server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [
      { uriTemplate: RECEIPT_URI_TEMPLATE, name: 'receipt', title: 'Sealed receipt', description: 'One of your sealed receipts, whole (the result links to it); needs your key or a token with machine:read.', mimeType: 'application/json' },
      { uriTemplate: SCHEMA_URI_TEMPLATE, name: 'tool-schema', title: 'Tool input schema', description: 'The complete JSON Schema of a tool\'s arguments, every field described.', mimeType: 'application/schema+json' },
    ],
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const receipt = /^svc:\/\/receipts\/([^/?#]+)$/.exec(uri);
    if (receipt) {
      const op = app.operations.find((o) => o.id === 'receipts.get');
      const auth = authOf(ctx.http?.authInfo);
      let id: string;
      try { id = decodeURIComponent(receipt[1]); } catch { throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri }); }
      const r = op && await callTool(app, op, { id }, {
        caller: auth.caller, bearer: auth.bearer, signal: ctx.mcpReq.signal, requestId: String(ctx.mcpReq.id), ip: auth.ip, via: 'mcp', headers: auth.headers, progress: () => {},
      });
      if (!r || r.isError) {
        const body = r?.body ?? { code: 'NOT_FOUND', error: 'receipt not found' };
        if (body.code === 'NOT_FOUND' || body.code === 'INVALID_INPUT') throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, String(body.error), body);
      }
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(r.body) }] };
    }
    const schema = /^svc:\/\/tools\/([A-Za-z0-9_]+)\/schema$/.exec(uri);
    const op = schema && byName.get(schema[1]);
    if (op) return { contents: [{ uri, mimeType: 'application/schema+json', text: JSON.stringify(toolSchemaResource(op)) }] };
    throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
  });
  registerTasks(app, era, server, (ctx) => authOf(ctx.http?.authInfo).caller);
  return server;
}

/** The request as the SDK's era classification reads it: method and headers, the body being
 * passed parsed (no second serialisation of a body of up to 12 MiB). */
function headersOnly(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    try { headers.set(k, Array.isArray(v) ? v.join(', ') : String(v)); } catch { /* a value fetch cannot hold: not an MCP header */ }
  }
  return new Request(`http://localhost${req.url}`, { method: req.method, headers });
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The operations the messages of a POST body would run, with the scope each needs: tools/call
 * of a tool, resources/read of a receipt. */
function operationsCalled(app: App, body: unknown): Operation[] {
  const messages = Array.isArray(body) ? body : [body];
  const out: Operation[] = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const { method, params } = m as { method?: unknown; params?: any };
    if (method === 'tools/call' && typeof params?.name === 'string') {
      const op = app.operations.find((o) => o.tool === params.name && o.access !== 'admin');
      if (op) out.push(op);
    } else if (method === 'resources/read' && typeof params?.uri === 'string' && params.uri.startsWith('svc://receipts/')) {
      const op = app.operations.find((o) => o.id === 'receipts.get');
      if (op) out.push(op);
    }
  }
  return out;
}

/** The credential gate of the entry (see the head of this file): a reply was sent when it
 * returns true. */
function refuseCredential(app: App, reply: FastifyReply, caller: Caller | null, body: unknown): boolean {
  if (!caller && (Array.isArray(body) ? body : [body]).some((m) => typeof (m as { method?: unknown } | null)?.method === 'string' && (m as { method: string }).method.startsWith('tasks/'))) {
    const err = new SvcError('UNAUTHORIZED', 'tasks are a machine\'s jobs: Authorization: Bearer <API key or OAuth access token>');
    reply.request.svcErrorCode = err.code;
    reply.code(401).header('www-authenticate', bearerChallenge(app, 401, err.toBody())!).send(err.toBody());
    return true;
  }
  for (const op of operationsCalled(app, body)) {
    if (op.access === 'public') continue;
    if (!caller) {
      const err = new SvcError('UNAUTHORIZED', `${op.tool ?? 'this resource'} needs a key: Authorization: Bearer <API key or OAuth access token>`);
      reply.request.svcErrorCode = err.code;
      reply.code(401).header('www-authenticate', bearerChallenge(app, 401, err.toBody())!).send(err.toBody());
      return true;
    }
    if (caller.kind === 'oauth') {
      try { authorize(op, caller); } catch (e) {
        const body = (e as SvcError).toBody();
        const challenge = bearerChallenge(app, 403, body);
        if (!challenge) continue; // a key-only operation: the tool answers FORBIDDEN itself
        reply.request.svcErrorCode = 'FORBIDDEN';
        reply.code(403).header('www-authenticate', challenge).send(body);
        return true;
      }
    }
  }
  return false;
}

export async function registerMcp(fastify: FastifyInstance, app: App): Promise<void> {
  const sessions = new Map<string, Session>();
  const hosts = allowedHostnames(app);
  const modern = createMcpHandler(() => buildServer(app, { modern: true }), {
    legacy: 'reject',
    maxRequestBodySize: MCP_BODY_LIMIT,
    onerror: (e) => { if (!/aborted|closed/i.test(e.message)) console.error('svc: mcp:', e.message); },
  });
  const serveModern = toNodeHandler(modern, { maxRequestBodySize: MCP_BODY_LIMIT });

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.lastSeen > SESSION_IDLE_MS) { sessions.delete(id); void s.transport.close(); }
  }, 60_000);
  sweep.unref();
  app.onClose.push(async () => {
    clearInterval(sweep);
    await modern.close().catch(() => {});
    for (const s of sessions.values()) await s.transport.close().catch(() => {});
    sessions.clear();
  });

  const hostRefusal = (req: FastifyRequest, reply: FastifyReply): boolean => {
    // DNS rebinding protection: Host and (when sent) Origin must name this node.
    const host = hostnameOf(String(req.headers.host ?? ''), false);
    if (!host || !hosts.has(host)) { rpcError(reply, 403, -32000, `Invalid Host header: ${req.headers.host ?? '(none)'}`); return true; }
    const origin = req.headers.origin;
    if (origin === 'null') { rpcError(reply, 403, -32000, 'Invalid Origin header: null'); return true; }
    if (origin !== undefined) {
      const oh = hostnameOf(String(origin), true);
      if (!oh || !hosts.has(oh)) { rpcError(reply, 403, -32000, `Invalid Origin header: ${origin}`); return true; }
    }
    return false;
  };

  /** The legacy (2025-era) leg: sessions opened by initialize. */
  const serveLegacy = async (req: FastifyRequest, reply: FastifyReply, body: unknown) => {
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return rpcError(reply, 404, -32001, 'Session not found');
    if (!session) {
      const opening = req.method === 'POST' && body && typeof body === 'object' && !Array.isArray(body) && (body as any).method === 'initialize';
      if (!opening) return rpcError(reply, 400, -32000, 'Bad Request: no valid session ID provided; send initialize first');
      if (sessions.size >= MAX_SESSIONS) return rpcError(reply, 429, -32000, 'too many MCP sessions on this node');
      // the version the SDK answers initialize with: the client's, when supported, else the latest
      const requested = (body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
      const protocolVersion = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      const server = buildServer(app, { modern: false, version: protocolVersion });
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { sessions.set(id, { transport, server, lastSeen: Date.now(), protocolVersion }); },
        onsessionclosed: (id) => { sessions.delete(id); },
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await server.connect(transport);
      session = { transport, server, lastSeen: Date.now() };
    }
    session.lastSeen = Date.now();
    reply.hijack();
    try {
      await session.transport.handleRequest(req.raw as any, reply.raw, body);
    } catch (e) {
      req.log.error({ err: e }, 'mcp transport error');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  };

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    if (hostRefusal(req, reply)) return;
    const body = req.body;
    if (body === PARSE_ERROR) return rpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
    if (body === TOO_DEEP) return rpcError(reply, 400, -32600, `Invalid Request: the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (req.method === 'POST') {
      // batches are checked here, at the HTTP entry, before anything of them runs
      if (Array.isArray(body)) {
        const sid = req.headers['mcp-session-id'];
        const known = sessions.get(String(Array.isArray(sid) ? sid[0] : sid ?? ''));
        const header = req.headers['mcp-protocol-version'];
        const refusal = batchRefusal(body, (Array.isArray(header) ? header[0] : header) ?? known?.protocolVersion ?? BATCH_VERSION);
        if (refusal) return rpcError(reply, 400, -32600, refusal);
      }
      // a JSON-RPC id is a short token to match a reply to its request, not a payload (issue 33)
      const longId = (Array.isArray(body) ? body : [body]).find((m) => m && typeof m === 'object' && typeof (m as any).id === 'string' && (m as any).id.length > MAX_ID_LENGTH);
      if (longId) return rpcError(reply, 400, -32600, `Invalid Request: a JSON-RPC id is at most ${MAX_ID_LENGTH} characters (this one has ${(longId as any).id.length})`);
      for (const check of mcpEntryChecks) {
        const refusal = check(body, req);
        if (refusal) return rpcError(reply, refusal.status, refusal.code, refusal.message);
      }
    }

    let caller: Caller | null;
    let bearer: string | null;
    try {
      bearer = bearerOf(req.headers.authorization);
      caller = await resolveCaller(app, bearer, req.ip);
    } catch (e) {
      const err = isSvcError(e) ? e : new SvcError('UNAUTHORIZED', 'invalid credential');
      req.svcErrorCode = err.code; // counted by src/observability (svc_http_errors_total)
      const challenge = bearerChallenge(app, err.status, err.toBody(), { credentialSent: true });
      return reply.code(err.status).headers(challenge ? { 'www-authenticate': challenge } : {}).send(err.toBody());
    }
    if (req.method === 'POST' && refuseCredential(app, reply, caller, body)) return;
    const auth: RequestAuth = { caller, bearer, ip: req.ip, headers: req.headers };
    const authInfo: AuthInfo = { token: bearer ?? '', clientId: caller?.zid ?? 'anonymous', scopes: caller?.scopes ?? [], extra: auth as unknown as Record<string, unknown> };
    (req.raw as any).auth = authInfo;

    const legacy = req.method !== 'POST' || body === undefined || await isLegacyRequest(headersOnly(req), body);
    if (legacy) return serveLegacy(req, reply, body);
    // subscriptions/listen for task ids: notifications/tasks on this request's stream (task-server.ts)
    if (await taskListen(app, req, reply, body, caller)) return;
    reply.hijack();
    await serveModern(req.raw as any, reply.raw as any, body);
  };

  // The MCP routes parse their own JSON: a body that is not JSON is a JSON-RPC parse error
  // (-32700, DESIGN §9 "malformed JSON-RPC gets JSON-RPC errors"), not the REST error body.
  await fastify.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
      if (text === '') return done(null, undefined);
      try { done(null, parseJsonBody(text as string)); } catch (e) { done(null, isSvcError(e) ? TOO_DEEP : PARSE_ERROR); }
    });
    scope.post('/api/mcp', { bodyLimit: MCP_BODY_LIMIT }, handle);
    scope.get('/api/mcp', handle);
    scope.delete('/api/mcp', handle);
  });
}

/** marks a request body that was not valid JSON */
const PARSE_ERROR: unique symbol = Symbol('svc.mcp.parse-error');
/** marks a request body nested past the JSON depth limit */
const TOO_DEEP: unique symbol = Symbol('svc.mcp.too-deep');
