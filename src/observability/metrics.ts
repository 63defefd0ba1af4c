// The metrics of one node, as prom-client metrics in a registry of the node's own.
//
// prom-client (https://github.com/siimon/prom-client) is the Prometheus client the Node ecosystem
// uses: it owns the exposition format (names, label escaping, histogram buckets, counter and
// summary rules), which `promtool check metrics` then finds nothing to say about. Each app gets
// its own `Registry` (tests start several apps in one process; the global default registry would
// mix them), and nothing is registered in the global one.
//
// `collectDefaultMetrics` is not used: its gauges `nodejs_active_handles_total`,
// `nodejs_active_requests_total` and `nodejs_active_resources_total` fail promtool's lint
// ("non-counter metrics should not have _total suffix"), and each call starts an event-loop
// monitor and a GC observer that are never stopped (one more per app). The few process series the
// node exported before are defined below under their former names, with the right types.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobEvent, JobRunner } from '../jobs/runner.ts';

/** job wait and run times: from 50 ms to an hour (SVC_JOB_MAX_SECONDS) */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
import type { App } from '../ops/types.ts';
import type { SolverJobEvent } from '../solvers/engine/pool.ts';
import { observerSubscribers } from '../ops/observer-stream.ts';

/** Latency buckets in seconds: 1 ms to 30 s (requests and solver jobs). */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Event-loop delay buckets in seconds: 1 ms (an idle loop) to 5 s (a loop blocked for seconds). */
const LOOP_DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The event-loop sampler's period. */
const LOOP_SAMPLE_MS = 20;

export interface NodeMetrics {
  registry: Registry;
  requests: Counter<'operation' | 'method' | 'status'>;
  requestSeconds: Histogram<'operation'>;
  inFlight: Gauge;
  errors: Counter<'code'>;
  tokenRefusals: Counter;
  mcpSessions: Counter;
}

/** Builds the node's registry and its metrics, and subscribes to the solver pool and the sealer.
 * The samplers stop when the app closes. */
export function createNodeMetrics(app: App): NodeMetrics {
  const registry = new Registry();
  const registers = [registry];

  new Gauge({
    name: 'svc_node_info', help: 'This node: id, version and store backend (value 1).',
    labelNames: ['node_id', 'version', 'store'], registers,
  }).set({ node_id: app.nodeId, version: app.version, store: app.db.backend }, 1);

  // HTTP (recorded by the hooks in ./index.ts)
  const requests = new Counter({
    name: 'svc_http_requests_total', help: 'HTTP requests answered, by operation id, method and status (499: the client went away first).',
    labelNames: ['operation', 'method', 'status'] as const, registers,
  });
  const requestSeconds = new Histogram({
    name: 'svc_http_request_duration_seconds', help: 'HTTP request latency from arrival to the last byte, by operation id.',
    labelNames: ['operation'] as const, buckets: DURATION_BUCKETS, registers,
  });
  const inFlight = new Gauge({ name: 'svc_http_requests_in_flight', help: 'HTTP requests being handled now.', registers });
  const errors = new Counter({
    name: 'svc_http_errors_total', help: 'Error responses by stable error code (DESIGN §9).', labelNames: ['code'] as const, registers,
  });
  const tokenRefusals = new Counter({
    name: 'svc_token_refusals_total', help: 'Calls refused for lack of compute tokens (429 QUOTA_EXCEEDED).', registers,
  });
  const mcpSessions = new Counter({
    name: 'svc_mcp_sessions_opened_total', help: 'MCP sessions opened on this node (Streamable HTTP, Mcp-Session-Id).', registers,
  });

  // solver jobs: the pool's instrumentation listeners
  const solverSeconds = new Histogram({
    name: 'svc_solver_job_duration_seconds',
    help: 'Solver jobs in the worker pool (queue wait + run), by solver and outcome (ok, refused, timeout, cancelled, error).',
    labelNames: ['solver', 'outcome'] as const, buckets: DURATION_BUCKETS, registers,
  });
  const solverInFlight = new Gauge({ name: 'svc_solver_jobs_in_flight', help: 'Solver jobs queued or running in the worker pool.', registers });
  app.pool.onJob.push((e: SolverJobEvent) => {
    if (e.phase === 'submitted') { solverInFlight.inc(); return; }
    if (e.phase !== 'settled') return;
    solverInFlight.dec();
    solverSeconds.observe({ solver: e.solver, outcome: e.outcome }, e.seconds);
  });

  // jobs (docs/jobs.md): queued and running in the cluster (read from the store at scrape time),
  // how long this node's jobs waited and ran, and how many attempts it started
  const runner = app.jobs as Partial<JobRunner>;
  if (runner?.onEvent && runner.counts) {
    const counts = () => runner.counts!().catch(() => ({ queued: 0, running: 0 }));
    new Gauge({ name: 'svc_jobs_queued', help: 'Jobs (and sweep runs) waiting in the cluster.', registers, async collect() { this.set((await counts()).queued); } });
    new Gauge({ name: 'svc_jobs_running', help: 'Jobs (and sweep runs) running in the cluster.', registers, async collect() { this.set((await counts()).running); } });
    const jobWait = new Histogram({ name: 'svc_job_wait_seconds', help: 'Jobs started by this node: time from submission to this start.', buckets: JOB_BUCKETS, registers });
    const jobRun = new Histogram({ name: 'svc_job_run_seconds', help: 'Job attempts run by this node, by how they ended (succeeded, failed, cancelled, handed-back).', labelNames: ['status'] as const, buckets: JOB_BUCKETS, registers });
    const attempts = new Counter({ name: 'svc_job_attempts_total', help: 'Job attempts this node started (a job taken again after a node died or handed it back counts again).', labelNames: ['retry'] as const, registers });
    runner.onEvent.push((e: JobEvent) => {
      if (e.phase === 'started') { jobWait.observe(e.waitSeconds); attempts.inc({ retry: e.attempt > 1 ? 'true' : 'false' }); }
      else if (e.phase === 'ended') jobRun.observe({ status: e.status }, e.runSeconds);
    });
  }

  // seals: every seal this node commits (group commit and contract fires)
  const seals = new Counter({
    name: 'svc_seals_total', help: 'Results sealed by this node (solver calls, contract fires, every sealed operation), by solver.',
    labelNames: ['solver'] as const, registers,
  });
  app.sealer.onSealed.push((_zid, res) => seals.inc({ solver: typeof res.solver === 'string' ? res.solver : 'none' }));

  // read at scrape time
  const atScrape = (name: string, help: string, read: () => number) =>
    new Gauge({ name, help, registers, collect() { this.set(read()); } });
  atScrape('svc_pool_threads', 'Worker threads in the solver pool.', () => app.pool.stats.threads);
  atScrape('svc_pool_queue_depth', 'Solver jobs waiting for a worker thread.', () => app.pool.stats.queueSize);
  atScrape('svc_pool_utilization', 'Share of the pool capacity used since it started (piscina utilization, 0..1).', () => app.pool.stats.utilization);
  atScrape('svc_pool_completed_jobs', 'Solver jobs the pool has completed since it started.', () => app.pool.stats.completed);
  atScrape('svc_observer_streams', 'Live observer feed subscribers (GET /api/observer/stream) on this node.', () => observerSubscribers(app));

  // the process
  atScrape('process_resident_memory_bytes', 'Resident set size in bytes.', () => process.memoryUsage.rss());
  atScrape('nodejs_heap_used_bytes', 'V8 heap in use, bytes.', () => process.memoryUsage().heapUsed);
  const startedSeconds = Date.parse(app.startedAt) / 1000;
  atScrape('process_start_time_seconds', 'Start time of the node, unix seconds.', () => startedSeconds);
  // a counter (it only grows): each scrape adds the CPU time used since the previous one, so the
  // value is the process's total since it started
  let cpuReported = 0;
  new Counter({
    name: 'process_cpu_seconds_total', help: 'User + system CPU time of the process, seconds.', registers,
    collect() {
      const u = process.cpuUsage();
      const total = (u.user + u.system) / 1e6;
      if (total > cpuReported) { this.inc(total - cpuReported); cpuReported = total; }
    },
  });
  // The event-loop delay as a histogram (cumulative buckets, _sum, _count: aggregatable across
  // nodes and over any range with histogram_quantile). A timer due every 20 ms records how late it
  // fires: the time the loop was busy with something else. Between scrapes nothing is reset.
  const loopDelay = new Histogram({
    name: 'nodejs_eventloop_delay_seconds', help: 'Event-loop delay: how late a timer due every 20 ms fires, seconds.',
    buckets: LOOP_DELAY_BUCKETS, registers,
  });
  let due = performance.now() + LOOP_SAMPLE_MS;
  let timer: NodeJS.Timeout | null = null;
  const sample = () => {
    const now = performance.now();
    loopDelay.observe(Math.max(0, now - due) / 1000);
    due = now + LOOP_SAMPLE_MS;
    timer = setTimeout(sample, LOOP_SAMPLE_MS);
    timer.unref();
  };
  timer = setTimeout(sample, LOOP_SAMPLE_MS);
  timer.unref();
  app.onClose.push(() => { if (timer) clearTimeout(timer); timer = null; });

  return { registry, requests, requestSeconds, inFlight, errors, tokenRefusals, mcpSessions };
}
