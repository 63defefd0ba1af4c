// Operations endpoints of a node (issue 12): Prometheus metrics at GET /metrics, liveness at
// GET /healthz, readiness at GET /readyz, and the x-request-id echo. Registered on the root
// Fastify instance by `registerObservability(fastify, app)` (one line in src/http/server.ts),
// before the operation routes, so its hooks see every request.
//
// What is measured, and where it comes from:
//   requests     raw response 'close' of every request (so hijacked MCP replies and aborted
//                requests count too): rate and latency histogram by operation id and status
//   solver jobs  a wrapper around app.pool.run: queue + run time by solver and outcome
//   pool         app.pool.stats at scrape time: threads, queue depth, utilisation
//   seals        app.sealer.onSealed (every seal this node commits, contract fires included) by solver
//   refusals     error bodies' `code` (QUOTA_EXCEEDED = token refusals), counted on send
//   MCP          sessions opened (a reply that hands out a new Mcp-Session-Id) and requests
//   process      RSS, heap, CPU seconds, event-loop delay, start time
import { readdirSync } from 'node:fs';
import { createHash, timingSafeEqual } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../ops/types.ts';
import { Registry, PROMETHEUS_CONTENT_TYPE, type Counter, type Gauge, type Histogram } from './metrics.ts';
import { SvcError } from '../core/errors.ts';
import { observerSubscribers } from '../ops/observer-stream.ts';

const MIGRATIONS_DIR = new URL('../store/migrations/', import.meta.url);
const READY_TIMEOUT_MS = 2000;

export interface NodeMetrics {
  registry: Registry;
  requests: Counter;
  requestSeconds: Histogram;
  inFlight: Gauge;
  solverSeconds: Histogram;
  solverInFlight: Gauge;
  seals: Counter;
  errors: Counter;
  tokenRefusals: Counter;
  mcpSessions: Counter;
}

const metricsOf = new WeakMap<App, NodeMetrics>();
const draining = new WeakSet<App>();

/** The metrics of an app (created on first use; one set per app, several apps per process in tests). */
export function nodeMetrics(app: App): NodeMetrics {
  let m = metricsOf.get(app);
  if (m) return m;
  const r = new Registry();
  const startedSeconds = Date.parse(app.startedAt) / 1000;
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  app.onClose.push(() => { loopDelay.disable(); });
  r.gauge('svc_node_info', 'This node: id, version and store backend (value 1).', ['node_id', 'version', 'store'], (g) =>
    g.set({ node_id: app.nodeId, version: app.version, store: app.db.backend }, 1));
  m = {
    registry: r,
    requests: r.counter('svc_http_requests_total', 'HTTP requests answered, by operation id, method and status (499: the client went away first).', ['operation', 'method', 'status']),
    requestSeconds: r.histogram('svc_http_request_duration_seconds', 'HTTP request latency from arrival to the last byte, by operation id.', ['operation']),
    inFlight: r.gauge('svc_http_requests_in_flight', 'HTTP requests being handled now.'),
    solverSeconds: r.histogram('svc_solver_job_duration_seconds', 'Solver jobs in the worker pool (queue wait + run), by solver and outcome (ok, refused, timeout, cancelled, error).', ['solver', 'outcome']),
    solverInFlight: r.gauge('svc_solver_jobs_in_flight', 'Solver jobs queued or running in the worker pool.'),
    seals: r.counter('svc_seals_total', 'Results sealed by this node (solver calls, contract fires, every sealed operation), by solver.', ['solver']),
    errors: r.counter('svc_http_errors_total', 'Error responses by stable error code (DESIGN §9).', ['code']),
    tokenRefusals: r.counter('svc_token_refusals_total', 'Calls refused for lack of compute tokens (429 QUOTA_EXCEEDED).'),
    mcpSessions: r.counter('svc_mcp_sessions_opened_total', 'MCP sessions opened on this node (Streamable HTTP, Mcp-Session-Id).'),
  };
  r.gauge('svc_pool_threads', 'Worker threads in the solver pool.', [], (g) => g.set({}, app.pool.stats.threads));
  r.gauge('svc_pool_queue_depth', 'Solver jobs waiting for a worker thread.', [], (g) => g.set({}, app.pool.stats.queueSize));
  r.gauge('svc_pool_utilization', 'Share of the pool capacity used since it started (piscina utilization, 0..1).', [], (g) => g.set({}, app.pool.stats.utilization));
  r.gauge('svc_pool_completed_jobs', 'Solver jobs the pool has completed since it started.', [], (g) => g.set({}, app.pool.stats.completed));
  r.gauge('svc_observer_streams', 'Live observer feed subscribers (GET /api/observer/stream) on this node.', [], (g) => g.set({}, observerSubscribers(app)));
  r.gauge('process_resident_memory_bytes', 'Resident set size in bytes.', [], (g) => g.set({}, process.memoryUsage.rss()));
  r.gauge('nodejs_heap_used_bytes', 'V8 heap in use, bytes.', [], (g) => g.set({}, process.memoryUsage().heapUsed));
  r.gauge('process_cpu_seconds_total', 'User + system CPU time of the process, seconds.', [], (g) => {
    const u = process.cpuUsage();
    g.set({}, (u.user + u.system) / 1e6);
  });
  r.gauge('process_start_time_seconds', 'Start time of the node, unix seconds.', [], (g) => g.set({}, startedSeconds));
  r.gauge('nodejs_eventloop_delay_seconds', 'Event-loop delay since the previous scrape: p50, p99 and max.', ['quantile'], (g) => {
    g.set({ quantile: '0.5' }, loopDelay.percentile(50) / 1e9);
    g.set({ quantile: '0.99' }, loopDelay.percentile(99) / 1e9);
    g.set({ quantile: 'max' }, loopDelay.max / 1e9);
    loopDelay.reset();
  });
  instrumentPool(app, m);
  app.sealer.onSealed.push((_zid, res) => m!.seals.inc({ solver: typeof res.solver === 'string' ? res.solver : 'none' }));
  metricsOf.set(app, m);
  return m;
}

function instrumentPool(app: App, m: NodeMetrics): void {
  const pool = app.pool;
  const run = pool.run.bind(pool);
  pool.run = async (name, input, opts) => {
    const t0 = performance.now();
    m.solverInFlight.inc();
    let outcome = 'ok';
    try {
      return await run(name, input, opts);
    } catch (e: any) {
      const code = e?.code;
      outcome = code === 'TIME_BUDGET_EXCEEDED' ? 'timeout' : opts.signal?.aborted ? 'cancelled' : typeof code === 'string' && e?.name === 'SvcError' ? 'refused' : 'error';
      throw e;
    } finally {
      m.solverInFlight.dec();
      m.solverSeconds.observe({ solver: name, outcome }, (performance.now() - t0) / 1000);
    }
  };
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
  const checks: Readiness['checks'] = { store: 'ok', migrations: 'ok', draining: draining.has(app) };
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

function operationLabeller(app: App): (req: FastifyRequest) => string {
  const byRoute = new Map<string, string>();
  for (const op of app.operations) byRoute.set(`${op.method} ${op.path}`, op.id);
  return (req) => {
    const url = req.routeOptions?.url;
    if (!url) return 'unmatched';
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return byRoute.get(`${method} ${url}`) ?? `route:${url}`;
  };
}

function sameSecret(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

const CODE_RE = /"code"\s*:\s*"([A-Z_]{2,40})"/;

export async function registerObservability(fastify: FastifyInstance, app: App): Promise<void> {
  const m = nodeMetrics(app);
  const labelOf = operationLabeller(app);
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
        if (busy === 0 && draining.has(app)) socket.end();
      }
      const operation = labelOf(req);
      const status = reply.raw.writableEnded ? reply.raw.statusCode : 499;
      m.requests.inc({ operation, method: req.method, status: String(status) });
      m.requestSeconds.observe({ operation }, (performance.now() - t0) / 1000);
      if (mcpNew && reply.raw.getHeader('mcp-session-id')) m.mcpSessions.inc();
    });
    // the request id (the client's x-request-id when sent, else a ULID) goes back to the client;
    // set here so hijacked replies (MCP) carry it too
    reply.raw.setHeader('x-request-id', String(req.id));
  });

  fastify.addHook('onSend', async (_req, reply, payload) => {
    if (draining.has(app)) reply.header('connection', 'close');
    if (reply.statusCode >= 400 && typeof payload === 'string' && payload.length < 65536) {
      const code = CODE_RE.exec(payload)?.[1];
      if (code) {
        m.errors.inc({ code });
        if (code === 'QUOTA_EXCEEDED') m.tokenRefusals.inc();
      }
    }
    return payload;
  });

  fastify.addHook('preClose', async () => {
    // stop advertising readiness (SSE streams are ended by app.beforeClose, run by the HTTP
    // layer's own preClose hook); the listening socket closes right after the hooks. A
    // keep-alive connection would hold the close for the whole keep-alive timeout: the idle ones
    // end now, the busy ones as soon as their last request is answered (see onRequest), and
    // replies sent while draining say `Connection: close`.
    draining.add(app);
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
    return reply.header('cache-control', 'no-store').type(PROMETHEUS_CONTENT_TYPE).send(m.registry.render());
  });
}

/** Marks an app as draining (readyz answers 503) without closing anything; used by shutdown paths
 * that do not go through Fastify's close. */
export function markDraining(app: App): void {
  draining.add(app);
}
