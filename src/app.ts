// The node's object graph: configuration, store, clock, seal path, solver pool and the
// operation registry. HTTP (src/http) and MCP (src/mcp) are faces on top of it.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { loadConfig, type Config } from './config.ts';
import { openDb, type Db } from './store/db.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { Sealer } from './services/sealer.ts';
import { loadOperations } from './ops/registry.ts';
import type { Caller, Operation } from './ops/types.ts';
import { SolverPool } from './solvers/engine.ts';
import { randomToken } from './core/ids.ts';
import { KeyCache } from './services/key-cache.ts';
import { getSigningKey } from './services/keys.ts';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
export const API_VERSION = '1.287.0';

export interface App {
  config: Config;
  db: Db;
  clock: Clock;
  sealer: Sealer;
  pool: SolverPool;
  keyCache: KeyCache;
  operations: Operation[];
  nodeId: string;
  startedAt: string;
  version: string;
  /** extra bearer resolvers (OAuth access tokens, …), tried after API keys and the admin key */
  bearerResolvers: ((token: string, app: App) => Promise<Caller | null>)[];
  /** run on close, in reverse order */
  onClose: (() => Promise<void> | void)[];
  /** run when the HTTP server starts closing, before it drains in-flight requests (end SSE streams) */
  beforeClose: (() => Promise<void> | void)[];
  /** in-process dispatch of an HTTP request (svc_http); set by the HTTP layer */
  inject?: (req: { method: string; url: string; headers: Record<string, string>; payload?: unknown }) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown>; truncated?: boolean }>;
  close(): Promise<void>;
}

export interface CreateAppOptions {
  config?: Partial<Config>;
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

export async function createApp(opts: CreateAppOptions = {}): Promise<App> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema });
  const clock = opts.clock ?? systemClock;
  const sealer = new Sealer({ db, clock, masterSecret: config.sealSecret, tokensPerDay: config.tokensPerDay });
  const pool = new SolverPool({ timeoutMs: config.solverTimeoutMs });
  const keyCache = new KeyCache();
  const unlisten = await keyCache.listen(db);
  const app: App = {
    config,
    db,
    clock,
    sealer,
    pool,
    keyCache,
    operations: [],
    nodeId: `${hostname()}-${process.pid}-${randomToken(4)}`,
    startedAt: new Date().toISOString(),
    version: VERSION,
    bearerResolvers: [],
    onClose: [],
    beforeClose: [],
    async close() {
      for (const fn of app.onClose.slice().reverse()) await fn();
      await unlisten();
      await pool.close();
      await db.close();
    },
  };
  const signingKey = await getSigningKey(app);
  sealer.signer = { kid: signingKey.kid, privateKey: signingKey.privateKey };
  app.operations = await loadOperations(app);
  return app;
}
