// Operations endpoints of a node (issue 12): Prometheus metrics at GET /metrics, liveness at
// GET /healthz, readiness at GET /readyz, and the x-request-id echo. Registered on the root
// Fastify instance by `registerObservability(fastify, app)` (one line in src/http/server.ts),
// before the operation routes, so its hooks see every request.
//
// Metrics are prom-client metrics in one Registry per app (./metrics.ts says why prom-client and
// why not its default metrics); GET /metrics renders that registry, and `promtool check metrics`
// finds nothing to report (test/node/promtool.test.ts). Nothing is monkey-patched and no body is
// parsed: every series is fed by a hook or a listener the measured component offers.
//
// What is measured, and where it comes from:
//   requests     an onRequest hook listens for the raw response's 'close' (so hijacked MCP replies
//                and aborted requests count too): rate and latency histogram by operation id, read
//                from the route's config (`config.operation`, set when src/http registers an
//                operation's route; other routes are `route:<path>`, unrouted ones `unmatched`)
//   errors       an onSend hook counts `request.svcErrorCode`, the DESIGN §9 code src/http's
//                sendError answered with (QUOTA_EXCEEDED = token refusals)
//   solver jobs  the pool's `onJob` listeners (SolverPool): jobs in flight, and queue + run time
//                by solver and outcome
//   pool         app.pool.stats at scrape time: threads, queue depth, utilisation
//   seals        app.sealer.onSealed (every seal this node commits, contract fires included) by solver
//   MCP          sessions opened (a reply that hands out a new Mcp-Session-Id)
//   process      RSS, heap, CPU seconds (a counter), event-loop delay (a histogram), start time
import { readdirSync } from 'node:fs';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../ops/types.ts';
import { createNodeMetrics } from './metrics.ts';
import { SvcError } from '../core/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation id of an operation's route (src/http/server.ts registerOperation). */
    operation?: string;
  }
  interface FastifyRequest {
    /** The DESIGN §9 code of the error this request is answered with (src/http/server.ts sendError). */
    svcErrorCode?: string;
  }
}

const MIGRATIONS_DIR = new URL('../store/migrations/', import.meta.url);
const READY_TIMEOUT_MS = 2000;

declare module '../ops/types.ts' {
  interface AppParts {
    /** set when the node starts shutting down: readyz answers 503 and replies close their connection */
    draining?: boolean;
  }
}

/** Migrations this build ships (file names), to compare with schema_migrations. */
function shippedMigrations(): string[] {
  return readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
}

export interface Readiness {
  ready: boolean;
  checks: { store: 'ok' | string; migrations: 'ok' | string; draining: boolean };
}

/** Store reachable (a query answers within 2 s) and every shipped migration applied; not draining. */
export async function readiness(app: App): Promise<Readiness> {
  const checks: Readiness['checks'] = { store: 'ok', migrations: 'ok', draining: !!app.parts.draining };
  let timer: NodeJS.Timeout | undefined;
  try {
    const applied = await Promise.race([
      app.db.query<{ name: string }>('SELECT name FROM schema_migrations'),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS); }),
    ]);
    const have = new Set(applied.map((r) => r.name));
    const missing = shippedMigrations().filter((f) => !have.has(f));
    if (missing.length) checks.migrations = `not applied: ${missing.join(', ')}`;
  } catch (e: any) {
    checks.store = `unreachable: ${String(e?.message ?? e).slice(0, 200)}`;
    checks.migrations = 'unknown';
  } finally {
    clearTimeout(timer);
  }
  return { ready: checks.store === 'ok' && checks.migrations === 'ok' && !checks.draining, checks };
}

/** The operation id of a request: the route's `config.operation`, else `route:<path>` for the
 * node's other routes (metrics, docs, MCP), else `unmatched` (404s: one series, whatever the URL). */
function operationOf(req: FastifyRequest): string {
  const ro = req.routeOptions;
  if (!ro?.url) return 'unmatched';
  return ro.config?.operation ?? `route:${ro.url}`;
}

function sameSecret(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

export async function registerObservability(fastify: FastifyInstance, app: App): Promise<void> {
  // one registry per app (an app has one HTTP face); its samplers stop with the app
  const m = createNodeMetrics(app);
  const metricsToken = app.config.env.SVC_METRICS_TOKEN || null;

  // requests in flight per connection (sockets of real listeners; inject has none)
  const sockets = new Map<Socket, number>();
  fastify.server.on('connection', (socket: Socket) => {
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });

  fastify.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const t0 = performance.now();
    m.inFlight.inc();
    const socket = req.raw.socket;
    if (sockets.has(socket)) sockets.set(socket, sockets.get(socket)! + 1);
    const mcpNew = req.url.startsWith('/api/mcp') && !req.headers['mcp-session-id'];
    reply.raw.once('close', () => {
      m.inFlight.dec();
      if (sockets.has(socket)) {
        const busy = sockets.get(socket)! - 1;
        sockets.set(socket, busy);
        if (busy === 0 && app.parts.draining) socket.end();
      }
      const operation = operationOf(req);
      const status = reply.raw.writableEnded ? reply.raw.statusCode : 499;
      m.requests.inc({ operation, method: req.method, status: String(status) });
      m.requestSeconds.observe({ operation }, (performance.now() - t0) / 1000);
      if (mcpNew && reply.raw.getHeader('mcp-session-id')) m.mcpSessions.inc();
    });
    // the request id (the client's x-request-id when sent, else a ULID) goes back to the client;
    // set here so hijacked replies (MCP) carry it too
    reply.raw.setHeader('x-request-id', String(req.id));
  });

  fastify.addHook('onSend', async (req, reply, payload) => {
    if (app.parts.draining) reply.header('connection', 'close');
    const code = req.svcErrorCode;
    if (code) {
      m.errors.inc({ code });
      if (code === 'QUOTA_EXCEEDED') m.tokenRefusals.inc();
    }
    return payload;
  });

  fastify.addHook('preClose', async () => {
    // stop advertising readiness (SSE streams are ended by app.beforeClose, run by the HTTP
    // layer's own preClose hook); the listening socket closes right after the hooks. A
    // keep-alive connection would hold the close for the whole keep-alive timeout: the idle ones
    // end now, the busy ones as soon as their last request is answered (see onRequest), and
    // replies sent while draining say `Connection: close`.
    app.parts.draining = true;
    for (const [socket, busy] of sockets) if (busy === 0) socket.end();
  });

  fastify.get('/healthz', async (_req, reply) => reply.header('cache-control', 'no-store').send({
    ok: true, status: 'up', node: app.nodeId, version: app.version, uptimeSeconds: Math.round(process.uptime()),
  }));

  fastify.get('/readyz', async (_req, reply) => {
    const r = await readiness(app);
    return reply.code(r.ready ? 200 : 503).header('cache-control', 'no-store').send({ ok: r.ready, ...r, node: app.nodeId });
  });

  fastify.get('/metrics', async (req, reply) => {
    if (metricsToken && !sameSecret(req.headers.authorization ?? '', `Bearer ${metricsToken}`)) {
      throw new SvcError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <SVC_METRICS_TOKEN>');
    }
    return reply.header('cache-control', 'no-store').type(m.registry.contentType).send(await m.registry.metrics());
  });
}

/** Marks an app as draining (readyz answers 503) without closing anything; used by shutdown paths
 * that do not go through Fastify's close. */
export function markDraining(app: App): void {
  app.parts.draining = true;
}
