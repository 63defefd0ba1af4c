// The one way the literature adapters reach their APIs. Every request goes through:
//  - the response cache (store-backed, TTL; only 2xx bodies that the adapter parsed are kept),
//  - a per-source politeness limiter (minimum spacing between requests to one source, shared by
//    every search in the process; a 429's Retry-After pushes the source's next slot back),
//  - a User-Agent naming the node and a contact,
//  - retries with exponential backoff on 5xx and network errors, and on 429 after the
//    Retry-After the server asks for (seconds or HTTP-date), provided it is within the cap:
//    a longer wait is not shortened (that would be impolite) but reported as rate-limited,
//  - the caller's deadline (an AbortSignal): waiting for a slot, sleeping between attempts and
//    reading the body all stop when it fires, and the failure is classified as a timeout,
//  - a cap on the body size.
// Upstream failures are UpstreamError values with a kind the search reports per source.
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

export type UpstreamErrorKind = 'timeout' | 'aborted' | 'network' | 'http' | 'rate_limited' | 'malformed';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly status: number | null;
  constructor(kind: UpstreamErrorKind, message: string, status: number | null = null) {
    super(message);
    this.name = 'UpstreamError';
    this.kind = kind;
    this.status = status;
  }
}

export interface PaperCache {
  get(key: string): Promise<string | null>;
  put(key: string, body: string, ttlSeconds: number): Promise<void>;
}

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = async (ms, signal) => {
  if (ms <= 0) { if (signal.aborted) throw signal.reason; return; }
  await delay(ms, undefined, { signal });
};

/** Minimum spacing between requests to one key (a source at one origin). */
export class RateLimiter {
  private readonly next = new Map<string, number>();
  private readonly nowMs: () => number;
  private readonly sleep: Sleep;
  constructor(nowMs: () => number = () => performance.now(), sleep: Sleep = defaultSleep) {
    this.nowMs = nowMs;
    this.sleep = sleep;
  }
  /** Waits for this key's next free slot and books the one after it. */
  async acquire(key: string, intervalMs: number, signal: AbortSignal): Promise<void> {
    const now = this.nowMs();
    const slot = Math.max(now, this.next.get(key) ?? -Infinity);
    if (intervalMs > 0 || slot > now) this.next.set(key, slot + Math.max(0, intervalMs));
    if (slot > now) await this.sleep(slot - now, signal);
  }
  /** No request to this key for the next `ms` milliseconds (a server's Retry-After). */
  blockFor(key: string, ms: number): void {
    this.next.set(key, Math.max(this.next.get(key) ?? -Infinity, this.nowMs() + ms));
  }
}

/** Shared by every search in the process, so concurrent callers are polite together. */
export const sharedLimiter = new RateLimiter();

export interface HttpClientOptions {
  userAgent: string;
  cache?: PaperCache | null;
  limiter?: RateLimiter;
  fetchImpl?: typeof fetch;
  sleep?: Sleep;
  /** attempts per request, first one included */
  maxAttempts?: number;
  /** first backoff delay; doubles on each retry */
  baseDelayMs?: number;
  /** longest Retry-After the client will wait for */
  retryAfterCapMs?: number;
  maxBytes?: number;
  /** multiplies every source's politeness interval (0 switches the limiter off, e.g. in tests) */
  intervalScale?: number;
}

export interface RequestSpec<T> {
  /** source name (limiter key, cache key, messages) */
  source: string;
  /** the URL without secrets: it is the cache key and appears in messages */
  url: string;
  /** query parameters appended to the URL but kept out of the cache key and messages (api_key) */
  secretParams?: Record<string, string>;
  headers?: Record<string, string>;
  signal: AbortSignal;
  minIntervalMs: number;
  /** seconds to keep a successful body; 0 = do not cache */
  ttlSeconds: number;
  /** statuses that mean "no such work": the request answers null */
  notFoundStatuses?: number[];
  /** reads the message out of an error body (JSON {"error": …}, an Atom error entry…) */
  errorMessage?: (body: string, status: number) => string | null;
  /** turns a 2xx body into the result; throwing marks the response malformed */
  parse: (body: string) => T;
}

/** Errors worth a second attempt: a connection that dropped mid-way. A refused connection, a
 * failed DNS lookup or an unreachable network will not heal within one search's deadline. */
const RETRYABLE_NETWORK = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function networkMessage(e: unknown, host: string): { message: string; retry: boolean } {
  const cause: any = (e as any)?.cause ?? e;
  const code: string = cause?.code ?? cause?.errno ?? '';
  const table: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found (DNS)',
    EAI_AGAIN: 'DNS lookup failed',
    ENETUNREACH: 'network unreachable',
    EHOSTUNREACH: 'host unreachable',
    ECONNRESET: 'connection reset',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    UND_ERR_SOCKET: 'connection closed unexpectedly',
    EPROTO: 'TLS/protocol error',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
  };
  const what = table[code] ?? (cause?.message ? String(cause.message).slice(0, 120) : 'network error');
  return { message: `${what} (${host})`, retry: RETRYABLE_NETWORK.has(code) };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(v: string | null, nowEpochMs: number = Date.now()): number | null {
  if (!v) return null;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const t = Date.parse(s);
  return Number.isFinite(t) ? Math.max(0, t - nowEpochMs) : null;
}

function isTimeout(signal: AbortSignal): boolean {
  const r: any = signal.reason;
  return r?.name === 'TimeoutError' || r?.code === 23 || r === 'timeout';
}

export class HttpClient {
  readonly userAgent: string;
  private readonly cache: PaperCache | null;
  private readonly limiter: RateLimiter;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: Sleep;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly retryAfterCapMs: number;
  private readonly maxBytes: number;
  private readonly intervalScale: number;

  constructor(opts: HttpClientOptions) {
    this.userAgent = opts.userAgent;
    this.cache = opts.cache ?? null;
    this.limiter = opts.limiter ?? sharedLimiter;
    this.fetchImpl = opts.fetchImpl ?? fetch;
    this.sleep = opts.sleep ?? defaultSleep;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.baseDelayMs = opts.baseDelayMs ?? 400;
    this.retryAfterCapMs = opts.retryAfterCapMs ?? 5000;
    this.maxBytes = opts.maxBytes ?? 8 * 1024 * 1024;
    this.intervalScale = opts.intervalScale ?? 1;
  }

  static cacheKey(source: string, url: string): string {
    return `${source}:${createHash('sha256').update(url).digest('hex')}`;
  }

  /** GETs the URL and parses the body; null when the status says "not found". */
  async get<T>(spec: RequestSpec<T>): Promise<T | null> {
    const { signal } = spec;
    const cacheKey = HttpClient.cacheKey(spec.source, spec.url);
    if (this.cache && spec.ttlSeconds > 0) {
      let hit: string | null = null;
      try { hit = await this.cache.get(cacheKey); } catch { hit = null; }
      if (hit !== null) {
        try { return spec.parse(hit); } catch { /* a stale or corrupt entry: ask upstream */ }
      }
    }

    let full = spec.url;
    if (spec.secretParams && Object.keys(spec.secretParams).length) {
      const u = new URL(spec.url);
      for (const [k, v] of Object.entries(spec.secretParams)) u.searchParams.set(k, v);
      full = u.toString();
    }
    const u = new URL(full);
    const host = u.host;
    const limiterKey = `${spec.source}@${u.origin}`;
    const interval = spec.minIntervalMs * this.intervalScale;
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: 'application/json, application/atom+xml, application/xml;q=0.9, */*;q=0.5', ...spec.headers };

    let lastError: UpstreamError | null = null;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      let waitMs = this.baseDelayMs * 2 ** (attempt - 1);
      try {
        await this.limiter.acquire(limiterKey, interval, signal);
        const res = await this.fetchImpl(full, { headers, signal, redirect: 'follow' });
        const body = await this.readBody(res, signal, host);
        const status = res.status;
        if (status >= 200 && status < 300) {
          let parsed: T;
          try { parsed = spec.parse(body); } catch (e) {
            throw new UpstreamError('malformed', `malformed response from ${host}: ${(e as Error).message.slice(0, 160)}`, status);
          }
          if (this.cache && spec.ttlSeconds > 0) {
            try { await this.cache.put(cacheKey, body, spec.ttlSeconds); } catch { /* the cache is best effort */ }
          }
          return parsed;
        }
        if (spec.notFoundStatuses?.includes(status)) return null;
        const detail = (() => { try { return spec.errorMessage?.(body, status) ?? null; } catch { return null; } })();
        if (status === 429 || status >= 500) {
          const ra = parseRetryAfter(res.headers.get('retry-after'));
          if (ra !== null) {
            this.limiter.blockFor(limiterKey, ra);
            if (ra > this.retryAfterCapMs) {
              throw new UpstreamError('rate_limited', `HTTP ${status} from ${host}: asked to retry after ${Math.ceil(ra / 1000)} s (longer than the ${Math.ceil(this.retryAfterCapMs / 1000)} s this node waits)`, status);
            }
            waitMs = ra;
          }
          lastError = new UpstreamError(status === 429 ? 'rate_limited' : 'http', `HTTP ${status} from ${host}${detail ? `: ${detail}` : ''}${attempt > 1 ? ` after ${attempt} attempts` : ''}`, status);
        } else {
          throw new UpstreamError('http', `HTTP ${status} from ${host}${detail ? `: ${detail}` : ''}`, status);
        }
      } catch (e) {
        if (signal.aborted) {
          throw isTimeout(signal)
            ? new UpstreamError('timeout', `no answer from ${host} before the deadline`)
            : new UpstreamError('aborted', `request to ${host} was cancelled`);
        }
        if (e instanceof UpstreamError) throw e;
        const nm = networkMessage(e, host);
        lastError = new UpstreamError('network', nm.message);
        if (!nm.retry) throw lastError;
      }
      if (attempt < this.maxAttempts) {
        try { await this.sleep(waitMs, signal); } catch {
          throw isTimeout(signal)
            ? new UpstreamError('timeout', `no answer from ${host} before the deadline (last: ${lastError?.message ?? 'none'})`)
            : new UpstreamError('aborted', `request to ${host} was cancelled`);
        }
      }
    }
    throw lastError ?? new UpstreamError('network', `no answer from ${host}`);
  }

  private async readBody(res: Response, signal: AbortSignal, host: string): Promise<string> {
    if (!res.body) return '';
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > this.maxBytes) {
        await reader.cancel().catch(() => {});
        throw new UpstreamError('malformed', `response from ${host} is larger than ${this.maxBytes} bytes`, res.status);
      }
      chunks.push(value);
      if (signal.aborted) break;
    }
    return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
  }
}

/** Builds 'base + path?query' with the parameters in the given order (stable cache keys). */
export function buildUrl(base: string, path: string, params: Record<string, string | number | null | undefined> = {}): string {
  const qs: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '') continue;
    qs.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return `${base.replace(/\/+$/, '')}${path}${qs.length ? `?${qs.join('&')}` : ''}`;
}

/** A DOI as a path segment: each part encoded, the '/' kept (the form the APIs document). */
export function doiPath(doi: string): string {
  return doi.split('/').map(encodeURIComponent).join('/');
}

/** The message of a JSON error body ({"error": "..."} or {"message": ...}). */
export function jsonErrorMessage(body: string): string | null {
  try {
    const j = JSON.parse(body);
    const m = j?.error ?? j?.message ?? j?.esearchresult?.ERROR;
    if (typeof m === 'string') return m.slice(0, 200);
    if (Array.isArray(m) && m.length) return JSON.stringify(m[0]).slice(0, 200);
    if (m && typeof m === 'object') return JSON.stringify(m).slice(0, 200);
  } catch { /* not JSON */ }
  const t = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, 120) : null;
}
