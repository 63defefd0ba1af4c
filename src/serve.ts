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

/** Starts the node and listens; SIGTERM/SIGINT drain in-flight requests, then close. */
export async function serve(env: Record<string, string | undefined> = process.env) {
  const app = await createApp({ env });
  const http = await buildHttp(app, { logger: env.SVC_LOG !== '0' });
  await http.listen({ port: app.config.port, host: app.config.host });
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
