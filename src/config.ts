// Configuration from the environment, DESIGN §3. `loadConfig()` is the only reader of process.env
// for node settings; tests build a Config directly with overrides.
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

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
  paperSourceUrls: Record<string, string>;
  env: Record<string, string | undefined>;
}

function int(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
  return n;
}

function loadSecret(env: Record<string, string | undefined>, dataDir: string): { secret: Buffer; source: Config['sealSecretSource'] } {
  const fromEnv = env.SVC_SEAL_SECRET;
  if (fromEnv) {
    if (!/^[0-9a-fA-F]{64,}$/.test(fromEnv) || fromEnv.length % 2) throw new Error('SVC_SEAL_SECRET must be 64+ hex characters');
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
    adminKey: env.SVC_ADMIN_KEY || null,
    tokensPerDay: int(env.SVC_TOKENS_PER_DAY, 10000, 'SVC_TOKENS_PER_DAY'),
    demoTokens: int(env.SVC_DEMO_TOKENS, 100, 'SVC_DEMO_TOKENS'),
    mailDomain: env.SVC_MAIL_DOMAIN || 'mail.localhost',
    solverTimeoutMs: int(env.SVC_SOLVER_TIMEOUT_MS, 20000, 'SVC_SOLVER_TIMEOUT_MS'),
    paperSourceUrls,
    env,
    ...overrides,
  };
}
