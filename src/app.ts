// Builds the node's object graph (the `App` of src/ops/types.ts): configuration, store, clock,
// seal path, solver pool and the operation registry. HTTP (src/http) and MCP (src/mcp) are faces
// on top of it.
import { hostname } from 'node:os';
import { loadConfig, type Config } from './config.ts';
import { VERSION } from './core/version.ts';
import { openDb, type Db } from './store/db.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { Sealer } from './services/sealer.ts';
import { loadOperations } from './ops/registry.ts';
import type { App } from './ops/types.ts';
import { SolverPool } from './solvers/engine/pool.ts';
import { randomToken } from './core/ids.ts';
import { KeyCache } from './services/key-cache.ts';
import { loadOrCreateSigningKey } from './services/keys.ts';


/** The store procedures the node registers (src/store/db.ts runs them next to the store). */
const STORE_PROCEDURES = { seal: new URL('./services/seal-batch.ts', import.meta.url).href };


export interface CreateAppOptions {
  config?: Partial<Config>;
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

export async function createApp(opts: CreateAppOptions = {}): Promise<App> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema, procedures: STORE_PROCEDURES });
  const clock = opts.clock ?? systemClock;
  const sealer = new Sealer({ db, clock, masterSecret: config.sealSecret, tokensPerDay: config.tokensPerDay });
  const pool = new SolverPool({ timeoutMs: config.solverTimeoutMs });
  const keyCache = new KeyCache();
  const signingKey = await loadOrCreateSigningKey(db, config.sealSecret);
  const unlisten = await keyCache.listen(db);
  const app: App = {
    config,
    db,
    clock,
    sealer,
    pool,
    keyCache,
    signingKey,
    operations: [],
    parts: {},
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
  sealer.signer = { kid: app.signingKey.kid, privateKey: app.signingKey.privateKey };
  app.operations = await loadOperations(app);
  return app;
}

