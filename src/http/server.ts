// The HTTP face: one Fastify route per operation, derived from its declaration (DESIGN §4),
// plus /openapi.json, the API reference page and the MCP endpoint. Errors become the DESIGN §9
// body here and nowhere else.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import compress from '@fastify/compress';
import { createHash } from 'node:crypto';
import { constants as zlibConstants, brotliCompress, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { parse as parseQs } from 'node:querystring';
import { pipeline, Readable, Transform } from 'node:stream';
import type { App } from '../ops/types.ts';
import type { EventFrame, EventStreamReply, Operation, RawReply } from '../ops/types.ts';
import { SvcError, type ErrorCode } from '../core/errors.ts';
import { parseJsonBody, jsonDepth, MAX_JSON_DEPTH } from '../core/json.ts';
import { parseStrictJsonBody } from '../core/ijson.ts';
import { asSvcError, authorize, bearerOf, invoke, resolveCallerFor, type InvokeBase } from '../ops/invoke.ts';
import { accepted, jobCapable, prefersAsync } from '../ops/jobs.ts';
import { jsonSchemaOf } from '../ops/schema.ts';
import { buildOpenApi } from './openapi.ts';
import { registerDocs } from './docs.ts';
import { ulid } from '../core/ids.ts';
import { registerMcp } from '../mcp/server.ts';
import { bearerChallenge } from '../hosting/oauth.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface HttpOptions {
  /** false (no logs), true (JSON at LOG_LEVEL or info), or pino options (src/serve.ts) */
  logger?: boolean | Record<string, unknown>;
}

/** The DESIGN §9 answer to an error: a SvcError's own status and body (with `Retry-After` when it
 * says how long to wait), or the mapping of an error Fastify raised before the operation ran
 * (body too large, malformed JSON, …). Error answers are never cached. */
function toErrorResponse(e: unknown): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const err = frameworkError(e) ?? asSvcError(e);
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(err.retryAfterSeconds);
  return { status: err.status, body: err.toBody(), headers };
}

/** Errors Fastify raises while reading a request, as SvcErrors (null for anything else). */
function frameworkError(err: any): SvcError | null {
  const code: string | undefined = err?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new SvcError('PAYLOAD_TOO_LARGE', 'request body too large');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new SvcError('UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type: send application/json');
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new SvcError('INVALID_INPUT', `malformed request body: ${err.message}`);
  }
  const sc = Number(err?.statusCode);
  if (sc >= 400 && sc < 500) {
    const map: Record<number, ErrorCode> = { 400: 'INVALID_INPUT', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'RATE_LIMITED' };
    return new SvcError(map[sc] ?? 'INVALID_INPUT', String(err.message || 'bad request'));
  }
  return null;
}

export function sendError(reply: FastifyReply, err: unknown, log?: (e: unknown) => void, app?: App): FastifyReply {
  const r = toErrorResponse(err);
  reply.request.svcErrorCode = String(r.body.code); // counted by src/observability (svc_http_errors_total)
  if (r.status >= 500 && log) log(err instanceof Error && err.cause ? err.cause : err);
  // every 401 says where to sign in (RFC 9728 §5.1), a 403 for a missing scope which scope
  const challenge = app && bearerChallenge(app, r.status, r.body, { credentialSent: reply.request.headers.authorization !== undefined });
  if (challenge) r.headers['www-authenticate'] = challenge;
  reply.headers(r.headers);
  return reply.code(r.status).type('application/json; charset=utf-8').send(r.body);
}

/** A Fastify route path as a regular expression over request paths (`:param` is one segment, `*` the rest). */
function routePattern(url: string): RegExp {
  const esc = url.split(/(:[A-Za-z0-9_]+|\*)/).map((p) => (p === '*' ? '.*' : p.startsWith(':') ? '[^/]+' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${esc}/?$`);
}

/** A numeric query parameter is plain decimal (issue 33): digits, no leading zeros, a fraction only
 * where the schema takes non-integers, a minus sign only where it takes negative values; never an
 * exponent, a plus sign, hex or blanks. `old=0x1`, `1e0` and `00001` are not 1. */
function plainDecimal(name: string, v: string, type: 'number' | 'integer', prop: Record<string, any>): number {
  const negative = typeof prop?.minimum === 'number' && prop.minimum < 0;
  const re = type === 'integer' ? (negative ? /^-?(0|[1-9][0-9]*)$/ : /^(0|[1-9][0-9]*)$/) : (negative ? /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/ : /^(0|[1-9][0-9]*)(\.[0-9]+)?$/);
  if (!re.test(v) || v === '-0') {
    throw new SvcError('INVALID_INPUT', `${name}: '${v.slice(0, 40)}' is not a plain decimal ${type === 'integer' ? 'integer' : 'number'} (digits only${negative ? ', an optional leading minus' : ''}: no plus sign, exponent, leading zeros or hex)`, {
      issues: [{ path: name, message: 'must be plain decimal' }],
    });
  }
  return Number(v);
}

/** Query strings are strings: coerce them to the types the operation's JSON Schema declares. */
function coerceQuery(query: Record<string, unknown>, schema: Record<string, any>): Record<string, unknown> {
  const props: Record<string, any> = schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    const type = props[k]?.type;
    if (typeof v !== 'string') { out[k] = v; continue; }
    if (type === 'number' || type === 'integer') out[k] = plainDecimal(k, v, type, props[k]);
    else if (type === 'boolean' && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else if (type === 'array') out[k] = v.split(',').filter(Boolean);
    else out[k] = v;
  }
  return out;
}

/** What an HTTP request tells an operation about itself (its signal aborts when the client goes away). */
function requestBase(req: FastifyRequest, reply: FastifyReply, caller: InvokeBase['caller'], bearer: string | null): InvokeBase {
  const ac = new AbortController();
  reply.raw.on('close', () => { if (!reply.raw.writableFinished) ac.abort(); });
  return {
    caller, bearer, signal: ac.signal, requestId: String(req.id), ip: req.ip, via: 'http', headers: req.headers,
    rawQuery: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '',
    progress: () => {},
    method: req.method,
  };
}

function isReadable(x: unknown): x is Readable {
  return !!x && typeof (x as Readable).pipe === 'function' && typeof (x as Readable).on === 'function';
}

function isRaw(x: unknown): x is RawReply {
  return !!x && typeof x === 'object' && (x as any).raw === true && 'body' in (x as any);
}

function isEventStream(x: unknown): x is EventStreamReply {
  return !!x && typeof x === 'object' && (x as any).raw === true && 'events' in (x as any);
}

/** The response headers of every Server-Sent-Events answer: not cached, not transformed, not
 * buffered by a reverse proxy (nginx reads x-accel-buffering). */
const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };

/** One event in the text/event-stream wire format (WHATWG HTML §9.2.6). */
export function encodeEventFrame(f: EventFrame): string {
  let s = '';
  if (f.comment !== undefined) for (const line of f.comment.split('\n')) s += `: ${line}\n`;
  if (f.retry !== undefined) s += `retry: ${f.retry}\n`;
  if (f.id !== undefined) s += `id: ${f.id}\n`;
  if (f.event !== undefined) s += `event: ${f.event}\n`;
  if (f.data !== undefined) for (const line of f.data.split('\n')) s += `data: ${line}\n`;
  return s + '\n';
}

/** Answers with an event stream: its frames are encoded as they come; when the client goes away
 * the stream is destroyed, which tells its producer (src/live/sse.ts). */
function sendEventStream(reply: FastifyReply, events: Readable): FastifyReply {
  const body = new Transform({
    writableObjectMode: true,
    transform(frame: EventFrame, _enc, cb) { cb(null, encodeEventFrame(frame)); },
  });
  pipeline(events, body, () => { /* ended, or cut short by the client: the producer knows */ });
  reply.raw.once('close', () => { if (!events.destroyed) events.destroy(); });
  reply.headers(EVENT_STREAM_HEADERS);
  return reply.code(200).send(body);
}

/** What is compressed when the client asks (br, gzip; issue 28): text, JSON, scripts, SVG; never
 * event streams (each event must reach the client when it is written) nor octet streams. */
const COMPRESSIBLE = /^(?:text\/(?:html|css|plain|javascript)|application\/(?:json|javascript|schema\+json|problem\+json|x-ndjson)|image\/svg\+xml)(?:;|$)/;

/** Static assets (console modules, the docs' scripts) carry a strong ETag, the SHA-256 of their
 * bytes, and a conditional request that matches it is answered 304 without the body. */
const STATIC_PATH = /^\/(?:console\/(?:static|vendor)\/|docs\/assets\/|console\/?$|docs\/?$|openapi\.json$)/;
const etags = new WeakMap<Buffer, string>();
function etagOf(body: Buffer | string): string {
  if (typeof body === 'string') return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  let e = etags.get(body);
  if (!e) { e = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`; etags.set(body, e); }
  return e;
}

/** Large static assets (the Redoc bundle, the OpenAPI document) are compressed once, harder than a
 * response on the fly, and kept by their ETag. Measured (brotli): the 547 KB OpenAPI document goes to
 * 108 KB at quality 5 (8 ms), 93 KB at 11 (0.57 s); the 1.1 MB Redoc bundle to 303 KB at 5 (37 ms),
 * 297 KB at 9 (76 ms), 273 KB at 11 (1.7 s). Quality 11 up to 640 KB, 9 above: the cold /docs load
 * stays under 400 KB without a first visitor waiting seconds for the bundle. */
const brotliQuality = (bytes: number) => (bytes <= 640 * 1024 ? 11 : 9);
const PRECOMPRESS_FROM_BYTES = 64 * 1024;
const precompressed = new Map<string, Promise<{ br: Buffer; gzip: Buffer }>>();
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
function precompress(tag: string, body: Buffer | string): Promise<{ br: Buffer; gzip: Buffer }> {
  let p = precompressed.get(tag);
  if (!p) {
    if (precompressed.size > 32) precompressed.clear();
    const bytes = Buffer.byteLength(body);
    p = Promise.all([brotliAsync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: brotliQuality(bytes), [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes } }), gzipAsync(body, { level: 9 })]).then(([br, gz]) => ({ br, gzip: gz }));
    precompressed.set(tag, p);
  }
  return p;
}
function acceptedEncoding(header: string | undefined): 'br' | 'gzip' | null {
  const asked = (header ?? '').toLowerCase().split(',').map((x) => x.trim().split(';'));
  const ok = (name: string) => asked.some(([n, ...params]) => n === name && !params.some((q) => /^\s*q=0(\.0*)?\s*$/.test(q)));
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null;
}

export async function buildHttp(app: App, opts: HttpOptions = {}): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: opts.logger === undefined || opts.logger === false ? false : opts.logger === true ? { level: process.env.LOG_LEVEL || 'info' } : opts.logger,
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
  // Receipts' fields are read as I-JSON where they are checked (RFC 7493; docs/verify.md)
  const strictBodyRoutes = new Set(['/api/svc/verify']);
  const parseStrictBody = (text: string) => {
    if (jsonDepth(text) > MAX_JSON_DEPTH) return parseJsonBody(text);
    return parseStrictJsonBody(text, ['svcond', 'zeqond']);
  };
  // JSON with a nesting-depth limit (src/core/json.ts); an empty body is no body
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text === '') { const e: any = new Error('Body cannot be empty when content-type is set to \'application/json\''); e.code = 'FST_ERR_CTP_EMPTY_JSON_BODY'; e.statusCode = 400; return done(e, undefined); }
    try { done(null, strictBodyRoutes.has((_req.url ?? '').split('?')[0]) ? parseStrictBody(text) : parseJsonBody(text)); } catch (e) { done(e as Error, undefined); }
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try { done(null, parseQs(body as string)); } catch (e) { done(e as Error, undefined); }
  });

  fastify.setErrorHandler((err, req, reply) => {
    sendError(reply, err, (e) => req.log.error({ err: e }, 'unhandled error'), app);
  });
  // A known path asked with a method it does not take is 405 with Allow (RFC 9110 §15.5.6), not
  // 404: the router answers only for the methods registered, so the paths are kept here too.
  const routes: { method: string; re: RegExp }[] = [];
  fastify.addHook('onRoute', (r) => {
    for (const m of ([] as string[]).concat(r.method as string | string[])) routes.push({ method: m.toUpperCase(), re: routePattern(r.url ?? r.path) });
  });
  // before the body is read: a method Fastify reads bodies for (QUERY) would be refused for its
  // missing Content-Type first
  fastify.addHook('onRequest', async (req, reply) => {
    if (!req.is404) return;
    const path = req.url.split('?')[0];
    const allow = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))].sort();
    if (!allow.length) return;
    reply.header('allow', allow.join(', '));
    return sendError(reply, new SvcError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`));
  });
  fastify.setNotFoundHandler((req, reply) => {
    sendError(reply, new SvcError('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));
  });
  await (await import('../observability/index.ts')).registerObservability(fastify, app); // metrics, healthz, readyz, x-request-id (issue 12)
  // static assets: an ETag before the body is compressed (the tag names the bytes, not an encoding)
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return payload;
    if (reply.statusCode !== 200 || !STATIC_PATH.test(req.url.split('?')[0])) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const tag = etagOf(payload);
    reply.header('etag', tag);
    const asked = req.headers['if-none-match'];
    if (asked && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === tag)) {
      reply.code(304);
      return '';
    }
    const enc = Buffer.byteLength(payload) >= PRECOMPRESS_FROM_BYTES ? acceptedEncoding(req.headers['accept-encoding']) : null;
    if (enc) {
      const variants = await precompress(tag, payload);
      reply.header('content-encoding', enc).header('vary', 'accept-encoding').removeHeader('content-length');
      return variants[enc];
    }
    return payload;
  });
  // responses compressed where the client asks (issue 28): brotli at a quality that keeps the
  // first load of a large asset fast (4: 1.1 MB of script in ~15 ms), gzip otherwise
  await fastify.register(compress, {
    // responses only: request bodies are read as sent (POST /api/blobs inflates gzip itself, streaming)
    global: true, globalDecompression: false, threshold: 1024, encodings: ['br', 'gzip'], customTypes: COMPRESSIBLE,
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
  });

  for (const op of app.operations) if (!op.streamBody) registerOperation(fastify, app, op);
  // uploads: in a scope of their own, every body (any Content-Type, or none) is handed over
  // unread as a stream, so Fastify neither buffers it nor applies its body limit
  const streaming = app.operations.filter((op) => op.streamBody);
  if (streaming.length) {
    await fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
      for (const op of streaming) registerOperation(scope, app, op);
    });
  }

  const openapi = () => buildOpenApi(app);
  let cachedSpec: object | null = null;
  let cachedSpecText: string | null = null;
  fastify.get('/openapi.json', async (_req, reply) => {
    cachedSpecText ??= JSON.stringify(cachedSpec ??= openapi());
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(cachedSpecText);
  });
  // the document's compressed forms are made when /docs is first asked for, while the browser
  // fetches the page's script, so that its fetch of the document finds them ready (not on a timer:
  // a node that never serves /docs never builds them)
  let specWarmed = false;
  fastify.addHook('onRequest', async (req) => {
    if (specWarmed || !/^\/docs\/?(\?|$)/.test(req.url)) return;
    specWarmed = true;
    setImmediate(() => {
      try {
        cachedSpecText ??= JSON.stringify(cachedSpec ??= openapi());
        void precompress(etagOf(cachedSpecText), cachedSpecText).catch(() => {});
      } catch { /* made on the first request of the document instead */ }
    });
  });
  registerDocs(fastify, app); // /docs (Redoc), /docs/plain
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
  const res = await fastify.inject({ method: r.method as any, url: r.url, headers: r.headers, payload: r.payload as any, payloadAsStream: true, ...(r.remoteAddress ? { remoteAddress: r.remoteAddress } : {}) });
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
  fastify.route({
    method: op.method,
    url: op.path,
    config: { operation: op.id }, // the metrics' operation label (src/observability)
    bodyLimit: op.bodyLimit ?? DEFAULT_BODY_LIMIT,
    handler: async (req, reply) => {
      const bearer = bearerOf(req.headers.authorization);
      const caller = await resolveCallerFor(app, op, bearer, req.ip);
      const params = (req.params ?? {}) as Record<string, unknown>;
      let raw: Record<string, unknown>;
      if (op.streamBody) {
        // the body stays unread for the handler (ctx.body); a request without one gets an empty stream
        raw = { ...coerceQuery((req.query ?? {}) as Record<string, unknown>, jsonSchemaOf(op)), ...params };
        const body = isReadable(req.body) ? req.body : Readable.from([]);
        const out = await invoke(app, op, raw, { ...requestBase(req, reply, caller, bearer), body });
        if (isRaw(out)) { if (out.headers) reply.headers(out.headers); return reply.code(out.status ?? 200).send(out.body); }
        return reply.type('application/json; charset=utf-8').send(out);
      }
      if (op.method === 'GET' || op.method === 'DELETE') {
        raw = op.ignoreQuery ? { ...params } : { ...coerceQuery((req.query ?? {}) as Record<string, unknown>, jsonSchemaOf(op)), ...params };
      } else {
        const body = req.body;
        // an operation that reads its body as text (the witness's add-checkpoint) gets it as `body`
        if (op.textBody) {
          if (typeof body !== 'string') throw new SvcError('UNSUPPORTED_MEDIA_TYPE', 'send the body as text/plain');
          raw = { body, ...params };
          const out = await invoke(app, op, raw, requestBase(req, reply, caller, bearer));
          if (isRaw(out)) { if (out.headers) reply.headers(out.headers); return reply.code(out.status ?? 200).send(out.body); }
          return reply.type('application/json; charset=utf-8').send(out);
        }
        // no body at all is an empty object; a body that is JSON but not an object (null, an
        // array, a string, a number) is refused
        if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
          throw new SvcError('INVALID_INPUT', 'the request body must be a JSON object');
        }
        raw = { ...((body as Record<string, unknown>) ?? {}), ...params };
        // RFC 7240: a sealed computation asked to answer asynchronously becomes a job (202)
        if (prefersAsync(req.headers.prefer) && jobCapable(op) && app.jobs) {
          authorize(op, caller);
          const job = accepted(await app.jobs.submit(caller!, { tool: op.tool!, arguments: raw, via: 'rest' }), true);
          return reply.code(202).headers(job.headers).send(job.body);
        }
      }
      const out = await invoke(app, op, raw, requestBase(req, reply, caller, bearer));
      if (isEventStream(out)) return sendEventStream(reply, out.events);
      if (isRaw(out)) {
        if (out.headers) reply.headers(out.headers);
        return reply.code(out.status ?? 200).send(out.body);
      }
      return reply.type('application/json; charset=utf-8').send(out);
    },
  });
}
