// The HTTP face: one Fastify route per operation, derived from its declaration (DESIGN §4),
// plus /openapi.json, the API reference page and the MCP endpoint. Errors become the DESIGN §9
// body here and nowhere else.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { parse as parseQs } from 'node:querystring';
import type { App } from '../ops/types.ts';
import type { Operation, OpContext, RawReply } from '../ops/types.ts';
import { SvcError, isSvcError } from '../core/errors.ts';
import { parseInput } from '../ops/validate.ts';
import { authorize, bearerOf, resolveCaller } from './auth.ts';
import { buildOpenApi, renderReferencePage, jsonSchemaOf } from './openapi.ts';
import { ulid } from '../core/ids.ts';
import { registerMcp } from '../mcp/server.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface HttpOptions {
  logger?: boolean;
}

function toErrorResponse(err: any): { status: number; body: Record<string, unknown>; headers?: Record<string, string> } {
  if (isSvcError(err)) return { status: err.status, body: err.toBody(), headers: err.headers };
  const code: string | undefined = err?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, body: { ok: false, error: 'request body too large', code: 'PAYLOAD_TOO_LARGE' } };
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return { status: 415, body: { ok: false, error: 'unsupported Content-Type: send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' } };
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return { status: 400, body: { ok: false, error: `malformed request body: ${err.message}`, code: 'INVALID_INPUT' } };
  }
  // PostgreSQL data exceptions (SQLSTATE class 22: a NUL byte in text, an invalid byte sequence, a
  // value out of range for its column) are bad input that reached the store: 400, not 500
  if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) {
    return { status: 400, body: { ok: false, error: 'invalid input: a value cannot be stored as given (control characters such as NUL are not allowed)', code: 'INVALID_INPUT' } };
  }
  const sc = Number(err?.statusCode);
  if (sc >= 400 && sc < 500) {
    const map: Record<number, string> = { 400: 'INVALID_INPUT', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'RATE_LIMITED' };
    return { status: sc, body: { ok: false, error: String(err.message || 'bad request'), code: map[sc] ?? 'INVALID_INPUT' } };
  }
  return { status: 500, body: { ok: false, error: 'internal error', code: 'INTERNAL' } };
}

export function sendError(reply: FastifyReply, err: unknown, log?: (e: unknown) => void): FastifyReply {
  const r = toErrorResponse(err);
  reply.request.svcErrorCode = String(r.body.code); // counted by src/observability (svc_http_errors_total)
  if (r.status >= 500 && log) log(err);
  if (r.headers) reply.headers(r.headers);
  return reply.code(r.status).type('application/json; charset=utf-8').send(r.body);
}

/** Query strings are strings: coerce them to the types the operation's JSON Schema declares. */
function coerceQuery(query: Record<string, unknown>, schema: Record<string, any>): Record<string, unknown> {
  const props: Record<string, any> = schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    const type = props[k]?.type;
    if (typeof v !== 'string') { out[k] = v; continue; }
    if ((type === 'number' || type === 'integer') && v.trim() !== '' && !Number.isNaN(Number(v))) out[k] = Number(v);
    else if (type === 'boolean' && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else if (type === 'array') out[k] = v.split(',').filter(Boolean);
    else out[k] = v;
  }
  return out;
}

export function opContext(app: App, req: FastifyRequest, reply: FastifyReply, caller: OpContext['caller'], bearer: string | null): OpContext {
  const ac = new AbortController();
  reply.raw.on('close', () => { if (!reply.raw.writableFinished) ac.abort(); });
  return {
    app, caller, bearer, signal: ac.signal, requestId: String(req.id), ip: req.ip, via: 'http', headers: req.headers,
    rawQuery: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '',
    progress: () => {},
  };
}

function isRaw(x: unknown): x is RawReply {
  return !!x && typeof x === 'object' && (x as any).raw === true && 'body' in (x as any);
}

export async function buildHttp(app: App, opts: HttpOptions = {}): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: opts.logger ? { level: process.env.LOG_LEVEL || 'info' } : false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: () => ulid(),
    requestIdHeader: 'x-request-id',
    trustProxy: process.env.SVC_TRUST_PROXY === '1',
    routerOptions: { maxParamLength: 500 },
    // errors Fastify raises before routing (a malformed percent-encoding in the URL, …) get the
    // DESIGN §9 body too
    frameworkErrors: (err, _req, reply) => { sendError(reply, err); },
  });

  // RFC 6749 token endpoints post forms; everything else is JSON.
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try { done(null, parseQs(body as string)); } catch (e) { done(e as Error, undefined); }
  });

  fastify.setErrorHandler((err, req, reply) => {
    sendError(reply, err, (e) => req.log.error({ err: e }, 'unhandled error'));
  });
  fastify.setNotFoundHandler((req, reply) => {
    sendError(reply, new SvcError('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));
  });
  await (await import('../observability/index.ts')).registerObservability(fastify, app); // metrics, healthz, readyz, x-request-id (issue 12)

  for (const op of app.operations) registerOperation(fastify, app, op);

  const openapi = () => buildOpenApi(app);
  let cachedSpec: object | null = null;
  fastify.get('/openapi.json', async () => (cachedSpec ??= openapi()));
  fastify.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(renderReferencePage(app)));
  fastify.get('/', async () => ({ ok: true, service: 'svc', version: app.version, openapi: '/openapi.json', docs: '/docs', mcp: '/api/mcp' }));

  await registerMcp(fastify, app);
  // long-lived responses (SSE) end before the server drains in-flight requests
  fastify.addHook('preClose', async () => { for (const fn of app.beforeClose) await fn(); });

  app.inject = (r) => injectBounded(fastify, r);
  return fastify;
}

/** Longest a streamed (Server-Sent Events) answer is read by in-process dispatch, and most bytes
 * any answer is read: svc_http returns what came by then, marked truncated, and closes the stream
 * (its handler sees the client go away, as over a socket). */
export const INJECT_STREAM_WINDOW_MS = 1000;
export const INJECT_MAX_BYTES = 16 * 1024 * 1024;

async function injectBounded(fastify: FastifyInstance, r: Parameters<NonNullable<App['inject']>>[0]): ReturnType<NonNullable<App['inject']>> {
  const res = await fastify.inject({ method: r.method as any, url: r.url, headers: r.headers, payload: r.payload as any, payloadAsStream: true });
  const headers = res.headers as Record<string, unknown>;
  const streaming = String(headers['content-type'] ?? '').startsWith('text/event-stream');
  const stream = res.stream();
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = (cut: boolean) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      if (cut) {
        truncated = true;
        stream.removeAllListeners('data');
        (res.raw.res as unknown as { destroy(): void }).destroy();
      }
      resolve();
    };
    const timer = streaming ? setTimeout(() => finish(true), INJECT_STREAM_WINDOW_MS) : null;
    stream.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size >= INJECT_MAX_BYTES) finish(true);
    });
    stream.on('end', () => finish(false));
    stream.on('error', () => finish(false));
  });
  stream.on('error', () => { /* a stream cut short reports a reset: expected */ });
  let body = Buffer.concat(chunks);
  if (body.length > INJECT_MAX_BYTES) body = body.subarray(0, INJECT_MAX_BYTES);
  return { statusCode: res.statusCode, body: body.toString('utf8'), headers, ...(truncated ? { truncated: true } : {}) };
}

function registerOperation(fastify: FastifyInstance, app: App, op: Operation): void {
  const schema = jsonSchemaOf(op);
  fastify.route({
    method: op.method,
    url: op.path,
    config: { operation: op.id }, // the metrics' operation label (src/observability)
    bodyLimit: op.bodyLimit ?? DEFAULT_BODY_LIMIT,
    handler: async (req, reply) => {
      const bearer = bearerOf(req.headers.authorization);
      const caller = await resolveCaller(app, bearer);
      authorize(op, caller);
      const params = (req.params ?? {}) as Record<string, unknown>;
      let raw: Record<string, unknown>;
      if (op.method === 'GET' || op.method === 'DELETE') {
        raw = op.ignoreQuery ? { ...params } : { ...coerceQuery((req.query ?? {}) as Record<string, unknown>, schema), ...params };
      } else {
        const body = req.body;
        // no body at all is an empty object; a body that is JSON but not an object (null, an
        // array, a string, a number) is refused
        if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
          throw new SvcError('INVALID_INPUT', 'the request body must be a JSON object');
        }
        raw = { ...((body as Record<string, unknown>) ?? {}), ...params };
      }
      const input = parseInput(op.input, raw);
      const ctx = opContext(app, req, reply, caller, bearer);
      const out = await op.handler(input, ctx);
      if (isRaw(out)) {
        if (out.headers) reply.headers(out.headers);
        return reply.code(out.status ?? 200).send(out.body);
      }
      return reply.type('application/json; charset=utf-8').send(out);
    },
  });
}
