// Builds the node's object graph (the `App` of src/ops/types.ts): configuration, store, clock,
// seal path, solver pool and the operation registry. HTTP (src/http) and MCP (src/mcp) are faces
// on top of it.
import { hostname } from 'node:os';
import { loadConfig, type Config } from './config.ts';
import { VERSION } from './core/version.ts';
import { openDb, type Db } from './store/db.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { Sealer } from './services/sealer.ts';
import { loadOperations, preloadOperationModules } from './ops/registry.ts';
import type { App } from './ops/types.ts';
import { SolverPool } from './solvers/engine/pool.ts';
import { randomToken } from './core/ids.ts';
import { KeyCache } from './services/key-cache.ts';
import { loadOrCreateSigningKey, loadOrCreateKey, KEYS_ROTATED_CHANNEL, type DeploymentKey } from './services/keys.ts';
import { ensureEmptyCheckpoint, initLog } from './services/tlog.ts';
import { ed25519Raw, logOrigin, vkeyOf, SIG_ED25519 } from './core/tlog.ts';
import { trimWhenIdle } from './core/memory.ts';
import { JobRunner } from './jobs/runner.ts';
import { jobFace } from './ops/jobs.ts';




export interface CreateAppOptions {
  config?: Partial<Config>;
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

export async function createApp(opts: CreateAppOptions = {}): Promise<App> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  // the store's thread starts PostgreSQL while this thread loads the operations' modules (start fast)
  const opening = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema });
  const preloading = preloadOperationModules();
  preloading.catch(() => { /* reported by loadOperations below */ });
  const db = await opening;
  const clock = opts.clock ?? systemClock;
  const sealer = new Sealer({ db, clock, masterSecret: config.sealSecret, tokensPerDay: config.tokensPerDay });
  const pool = new SolverPool({ timeoutMs: config.solverTimeoutMs, threads: config.solverThreads, machineConcurrency: config.machineConcurrency, machineQueue: config.machineQueue, jobMemoryMb: config.jobMemoryMb, memoryLimitMb: config.memoryLimitMb, idleMs: config.workerIdleMs });
  const keyCache = new KeyCache();
  const signingKey = await loadOrCreateSigningKey(db, config.sealSecret);
  // the deployment's log (its origin is fixed by the first node's SVC_BASE_URL) and its keys
  const origin = await initLog(db, logOrigin(config.baseUrl));
  const keys = await loadDeploymentKeys(db, config.sealSecret, origin);
  const unlisten = await keyCache.listen(db);
  let unlistenKeys: (() => Promise<void>) | null = null;
  let runner: JobRunner | null = null;
  const app: App = {
    config,
    db,
    clock,
    sealer,
    pool,
    jobs: null as unknown as App['jobs'],
    keyCache,
    signingKey,
    logOrigin: origin,
    logKey: keys.log,
    attestKey: keys.attest,
    async reloadKeys() {
      app.signingKey = await loadOrCreateSigningKey(db, config.sealSecret);
      const k = await loadDeploymentKeys(db, config.sealSecret, origin);
      app.logKey = k.log;
      app.attestKey = k.attest;
      useKeys(app);
    },
    operations: [],
    parts: {},
    nodeId: `${hostname()}-${process.pid}-${randomToken(4)}`,
    startedAt: new Date().toISOString(),
    version: VERSION,
    bearerResolvers: [],
    onClose: [],
    beforeClose: [],
    async close() {
      // running jobs go back to the queue before anything else stops (another node takes them)
      if (runner) await runner.close();
      for (const fn of app.onClose.slice().reverse()) await fn();
      await unlisten();
      if (unlistenKeys) await unlistenKeys();
      await pool.close();
      await db.close();
    },
  };
  // a draining node finishes every request in flight, solver jobs included: the HTTP server stops
  // taking connections and the drain deadline bounds the wait; the pool refuses jobs once it closes
  sealer.issuer = config.baseUrl;
  sealer.jwksUri = `${config.baseUrl}/.well-known/jwks.json`;
  useKeys(app);
  await ensureEmptyCheckpoint(db, sealer.logSigner!);
  // a rotation on any node of this database switches this node's keys too
  unlistenKeys = await db.listen(KEYS_ROTATED_CHANNEL, () => { app.reloadKeys().catch(() => { /* the next rotation or restart retries */ }); });
  app.operations = await loadOperations(app);
  // jobs: the queue (pg-boss on this store) and this node's workers; they run the operations'
  // own synchronous path (src/ops/jobs.ts), and a draining node hands its running jobs back
  runner = new JobRunner({ db, sealer, config, face: jobFace(app), nodeId: app.nodeId });
  app.jobs = runner;
  await runner.start();
  app.beforeClose.push(() => runner!.drain());
  // start-up garbage (module sources, schemas, the catalog) and bursts of load grow the main
  // thread's heap: give it back once started and whenever the node idles (docs/node.md, "Memory")
  app.onClose.push(trimWhenIdle());
  return app;
}


/** The log's note key (its JWK carries the signed-note vkey) and the attestation key. */
async function loadDeploymentKeys(db: Db, secret: Buffer, origin: string): Promise<{ log: DeploymentKey; attest: DeploymentKey }> {
  const log = await loadOrCreateKey(db, secret, 'log', (pub) => ({ vkey: vkeyOf(origin, SIG_ED25519, ed25519Raw(pub)) }));
  const attest = await loadOrCreateKey(db, secret, 'attest');
  return { log, attest };
}

/** Points the seal path at the app's current keys. */
function useKeys(app: App): void {
  app.sealer.signer = { kid: app.signingKey.kid, privateKey: app.signingKey.privateKey };
  app.sealer.logSigner = { origin: app.logOrigin, privateKey: app.logKey.privateKey, publicKey: ed25519Raw(app.logKey.publicKey) };
}
