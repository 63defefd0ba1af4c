import { createApp } from './app.ts';
import { buildHttp } from './http/server.ts';
import { ConfigError } from './config.ts';

/** Starts the node as `npm start` and `svc serve` do: a setting the node refuses (ConfigError) is
 * one line on stderr naming it, and exit code 1, not a stack trace. */
export async function serveOrExit(env: Record<string, string | undefined> = process.env) {
  try {
    return await serve(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`svc: cannot start: ${e.message}\n`);
    process.exit(1);
  }
}

/** How long a stopping node waits for in-flight requests before it exits anyway: long enough for
 * a solver job that has just started to run out its whole budget and be sealed (or refused), plus
 * the seal and the reply; never less than 15 s. */
export function drainDeadlineMs(solverTimeoutMs: number): number {
  return Math.max(15_000, solverTimeoutMs + 5_000);
}

/** The node's logger (issue 28: talk like a server). Request logs are off by default: the level is
 * SVC_LOG_LEVEL (default `warn`: warnings and errors only; `info` logs every request). On a terminal
 * the lines are short text (time, level, message, request); otherwise JSON lines, one per event.
 * The older SVC_LOG=0 (no logs at all) and SVC_LOG=1 with LOG_LEVEL still work. */
export function loggerOptions(env: Record<string, string | undefined>, tty: boolean): false | Record<string, unknown> {
  if (env.SVC_LOG === '0') return false;
  const level = env.SVC_LOG_LEVEL || (env.SVC_LOG === '1' ? env.LOG_LEVEL || 'info' : 'warn');
  if (!tty) return { level };
  return { level, stream: prettyStream() };
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** pino's JSON lines as one short line each, for a person at a terminal. */
function prettyStream(): { write(line: string): void } {
  return {
    write(line: string) {
      let o: any;
      try { o = JSON.parse(line); } catch { process.stdout.write(line); return; }
      const time = new Date(o.time ?? Date.now()).toISOString().slice(11, 23);
      const req = o.req ? ` ${o.req.method} ${o.req.url}` : o.res ? ` ${o.res.statusCode}${o.responseTime !== undefined ? ` ${Math.round(o.responseTime)} ms` : ''}` : '';
      const err = o.err?.message ? ` (${o.err.message})` : '';
      process.stdout.write(`${time} ${(LEVELS[o.level] ?? String(o.level)).padEnd(5)} ${o.msg ?? ''}${req}${err}${o.reqId ? ` [${o.reqId}]` : ''}\n`);
    },
  };
}

/** Starts the node and listens; SIGTERM/SIGINT drain in-flight requests, then close. */
export async function serve(env: Record<string, string | undefined> = process.env) {
  const app = await createApp({ env });
  const http = await buildHttp(app, { logger: loggerOptions(env, !!process.stdout.isTTY) });
  await http.listen({ port: app.config.port, host: app.config.host });
  // one line that says where everything is (and, at level info, Fastify's own listening lines)
  const addr = http.server.address();
  const url = addr && typeof addr === 'object'
    ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
    : app.config.baseUrl;
  const store = app.db.backend === 'pglite' ? `embedded (${app.config.dataDir})` : 'PostgreSQL (DATABASE_URL)';
  if (env.SVC_QUIET !== '1') process.stdout.write(`svc ${app.version} listening at ${url} · console ${url}/console · API docs ${url}/docs · store: ${store}\n`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    http.log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => process.exit(1), drainDeadlineMs(app.config.solverTimeoutMs));
    force.unref();
    try {
      await http.close();
      await app.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return { app, http };
}
