// Configuration from the environment, DESIGN §3. `loadConfig()` is the only reader of process.env
// for node settings; tests build a Config directly with overrides.
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  /** null: embedded PGlite in dataDir (or in memory when dataDir is ':memory:') */
  databaseUrl: string | null;
  /** a PostgreSQL schema to use instead of public (tests isolate themselves this way) */
  databaseSchema: string | null;
  sealSecret: Buffer;
  sealSecretSource: 'env' | 'data-dir' | 'ephemeral';
  adminKey: string | null;
  tokensPerDay: number;
  demoTokens: number;
  mailDomain: string;
  solverTimeoutMs: number;
  /** fair scheduling (DESIGN §10, docs/node.md "Fair under abuse"): solver jobs one machine may
   * run at once on this node, jobs it may have waiting, and the pool's worker threads (at least 2) */
  machineConcurrency: number;
  machineQueue: number;
  solverThreads: number;
  /** memory (MiB) one solver run may use (its worker's V8 heap limit; issue 33), and the node's
   * total, which bounds how many workers run at once (each may reach its budget) */
  jobMemoryMb: number;
  memoryLimitMb: number;
  /** how long a solver worker thread may idle before it stops (ms); workers start on first use */
  workerIdleMs: number;
  /** jobs (docs/jobs.md): default and largest budget of one job, seconds of worker time */
  jobSeconds: number;
  jobMaxSeconds: number;
  /** jobs of one machine running at once, cluster-wide */
  jobsPerMachine: number;
  /** jobs of one machine waiting, cluster-wide; past it 429 RATE_LIMITED */
  jobsQueuedPerMachine: number;
  /** runs of one machine's sweeps running at once, cluster-wide */
  sweepConcurrency: number;
  /** how many jobs this node takes at once (default: solver threads - 1, so synchronous calls keep one) */
  jobWorkers: number;
  /** seconds without a heartbeat after which a running job is taken again (at least 10) */
  jobHeartbeatSeconds: number;
  /** identities: machines one demo key may create; spin-ups per client address per hour;
   * failed recoveries per (machine, address) and failed admin attempts per address per 15 min */
  machinesPerDemoKey: number;
  spinUpsPerAddress: number;
  recoveryFailures: number;
  adminFailures: number;
  /** long-lived resources: stream channels per machine, per demo-key family and per opening
   * client address (each never more than half the node's) and per node; observer streams per node and per client address (keyless
   * ones together at most half the node's) */
  streamsPerMachine: number;
  streamsPerFamily: number;
  streamsPerAddress: number;
  streamsPerNode: number;
  observerStreams: number;
  observerStreamsPerAddress: number;
  /** blobs (docs/jobs.md "Blobs"): largest blob (after decompression), bytes of blobs one machine
   * may hold, seconds an unreferenced blob outlives its last use, and the size of a sealed result
   * above which its series and arrays go to a blob */
  blobMaxBytes: number;
  blobQuotaBytes: number;
  blobTtlSeconds: number;
  inlineResultBytes: number;
  paperSourceUrls: Record<string, string>;
  env: Record<string, string | undefined>;
}

/** A setting the node refuses to start with: `svc serve` / `npm start` print its message (which
 * names the variable) on one line and exit 1. */
export class ConfigError extends Error {
  constructor(message: string) { super(message); this.name = 'ConfigError'; }
}

function int(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got ${v}`);
  return n;
}

function positive(v: string | undefined, dflt: number, name: string, min = 1): number {
  const n = int(v, dflt, name);
  if (n < min) throw new ConfigError(`${name} must be at least ${min}, got ${v}`);
  return n;
}

/** The admin bearer must be long enough that guessing it is hopeless (issue 19): a shorter one
 * stops start-up rather than run an admin surface that can be brute-forced. */
export const MIN_ADMIN_KEY_LENGTH = 32;

function adminKeyOf(env: Record<string, string | undefined>): string | null {
  const key = env.SVC_ADMIN_KEY || null;
  if (key !== null && key.length < MIN_ADMIN_KEY_LENGTH) {
    throw new ConfigError(`SVC_ADMIN_KEY is ${key.length} characters long; it must be at least ${MIN_ADMIN_KEY_LENGTH} (generate one with: openssl rand -hex 32), or leave it unset to turn admin routes off`);
  }
  if (key !== null && key.startsWith('svc_')) {
    throw new ConfigError('SVC_ADMIN_KEY must not start with "svc_": that prefix is for the credentials the node issues (API keys, OAuth tokens)');
  }
  return key;
}

function loadSecret(env: Record<string, string | undefined>, dataDir: string): { secret: Buffer; source: Config['sealSecretSource'] } {
  const fromEnv = env.SVC_SEAL_SECRET;
  if (fromEnv) {
    if (!/^[0-9a-fA-F]{64,}$/.test(fromEnv) || fromEnv.length % 2) throw new ConfigError('SVC_SEAL_SECRET must be 64+ hex characters');
    return { secret: Buffer.from(fromEnv, 'hex'), source: 'env' };
  }
  if (dataDir === ':memory:') return { secret: randomBytes(32), source: 'ephemeral' };
  const file = join(dataDir, 'seal-secret.hex');
  if (existsSync(file)) return { secret: Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'), source: 'data-dir' };
  mkdirSync(dataDir, { recursive: true });
  const hex = randomBytes(32).toString('hex');
  writeFileSync(file, hex + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { secret: Buffer.from(hex, 'hex'), source: 'data-dir' };
}

export const PAPER_SOURCES = ['preprint', 'open-catalogue', 'doi-registry', 'biomedical-index', 'semantic-index', 'bio-preprint'] as const;

export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env.PORT, 8787, 'PORT');
  const host = env.HOST || '127.0.0.1';
  const dataDir = env.SVC_DATA_DIR === ':memory:' ? ':memory:' : resolve(env.SVC_DATA_DIR || './data');
  const { secret, source } = loadSecret(env, dataDir);
  const paperSourceUrls: Record<string, string> = {};
  for (const s of PAPER_SOURCES) {
    const v = env[`SVC_PAPERS_${s.toUpperCase().replace(/-/g, '_')}_URL`];
    if (v) paperSourceUrls[s] = v.replace(/\/+$/, '');
  }
  return {
    port,
    host,
    baseUrl: (env.SVC_BASE_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    databaseSchema: env.SVC_DATABASE_SCHEMA || null,
    sealSecret: secret,
    sealSecretSource: source,
    adminKey: adminKeyOf(env),
    tokensPerDay: int(env.SVC_TOKENS_PER_DAY, 10000, 'SVC_TOKENS_PER_DAY'),
    demoTokens: int(env.SVC_DEMO_TOKENS, 100, 'SVC_DEMO_TOKENS'),
    mailDomain: env.SVC_MAIL_DOMAIN || 'mail.localhost',
    solverTimeoutMs: int(env.SVC_SOLVER_TIMEOUT_MS, 20000, 'SVC_SOLVER_TIMEOUT_MS'),
    machineConcurrency: positive(env.SVC_MACHINE_CONCURRENCY, 1, 'SVC_MACHINE_CONCURRENCY'),
    machineQueue: int(env.SVC_MACHINE_QUEUE, 16, 'SVC_MACHINE_QUEUE'),
    solverThreads: positive(env.SVC_SOLVER_THREADS, Math.max(2, availableParallelism()), 'SVC_SOLVER_THREADS', 2),
    jobMemoryMb: positive(env.SVC_JOB_MEMORY_MB, 512, 'SVC_JOB_MEMORY_MB', 32),
    memoryLimitMb: positive(env.SVC_MEMORY_LIMIT_MB, 2048, 'SVC_MEMORY_LIMIT_MB', 256),
    workerIdleMs: positive(env.SVC_WORKER_IDLE_MS, 60_000, 'SVC_WORKER_IDLE_MS'),
    jobSeconds: positive(env.SVC_JOB_SECONDS, 600, 'SVC_JOB_SECONDS'),
    jobMaxSeconds: positive(env.SVC_JOB_MAX_SECONDS, 3600, 'SVC_JOB_MAX_SECONDS'),
    jobsPerMachine: positive(env.SVC_JOBS_PER_MACHINE, 1, 'SVC_JOBS_PER_MACHINE'),
    jobsQueuedPerMachine: positive(env.SVC_JOBS_QUEUED_PER_MACHINE, 100, 'SVC_JOBS_QUEUED_PER_MACHINE'),
    sweepConcurrency: positive(env.SVC_SWEEP_CONCURRENCY, 8, 'SVC_SWEEP_CONCURRENCY'),
    jobWorkers: positive(env.SVC_JOB_WORKERS, Math.max(1, (env.SVC_SOLVER_THREADS ? Number(env.SVC_SOLVER_THREADS) : Math.max(2, availableParallelism())) - 1), 'SVC_JOB_WORKERS'),
    jobHeartbeatSeconds: positive(env.SVC_JOB_HEARTBEAT_SECONDS, 10, 'SVC_JOB_HEARTBEAT_SECONDS', 10),
    machinesPerDemoKey: int(env.SVC_MACHINES_PER_DEMO_KEY, 3, 'SVC_MACHINES_PER_DEMO_KEY'),
    spinUpsPerAddress: int(env.SVC_SPIN_UPS_PER_ADDRESS, 10, 'SVC_SPIN_UPS_PER_ADDRESS'),
    recoveryFailures: positive(env.SVC_RECOVERY_FAILURES, 5, 'SVC_RECOVERY_FAILURES'),
    adminFailures: positive(env.SVC_ADMIN_FAILURES, 10, 'SVC_ADMIN_FAILURES'),
    streamsPerMachine: positive(env.SVC_STREAMS_PER_MACHINE, 5, 'SVC_STREAMS_PER_MACHINE'),
    streamsPerFamily: positive(env.SVC_STREAMS_PER_FAMILY, 10, 'SVC_STREAMS_PER_FAMILY'),
    streamsPerAddress: positive(env.SVC_STREAMS_PER_ADDRESS, 20, 'SVC_STREAMS_PER_ADDRESS'),
    streamsPerNode: positive(env.SVC_STREAMS_PER_NODE, 200, 'SVC_STREAMS_PER_NODE'),
    observerStreams: positive(env.SVC_OBSERVER_STREAMS, 1000, 'SVC_OBSERVER_STREAMS'),
    observerStreamsPerAddress: positive(env.SVC_OBSERVER_STREAMS_PER_ADDRESS, 20, 'SVC_OBSERVER_STREAMS_PER_ADDRESS'),
    blobMaxBytes: positive(env.SVC_BLOB_MAX_BYTES, 1024 ** 3, 'SVC_BLOB_MAX_BYTES'),
    blobQuotaBytes: positive(env.SVC_BLOB_QUOTA_BYTES, 2 * 1024 ** 3, 'SVC_BLOB_QUOTA_BYTES'),
    blobTtlSeconds: positive(env.SVC_BLOB_TTL_SECONDS, 86400, 'SVC_BLOB_TTL_SECONDS'),
    inlineResultBytes: positive(env.SVC_INLINE_RESULT_BYTES, 1024 * 1024, 'SVC_INLINE_RESULT_BYTES'),
    paperSourceUrls,
    env,
    ...overrides,
  };
}
