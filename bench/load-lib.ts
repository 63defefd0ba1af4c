// Helpers of bench/load.bench.ts: autocannon runs against one or several node processes at a
// fixed or open rate, and RSS sampling of node processes from /proc.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface RunResult { rps: number; p50: number; p90: number; p99: number; max: number; total: number; non2xx: number; errors: number; timeouts: number; seconds: number }

export interface Target { url: string; requests: { method: string; path: string; headers: Record<string, string>; body?: string }[] }

/** Runs one autocannon instance per target at the same time; sums throughput; latency
 * percentiles are the worst target's (a conservative figure without merging histograms). */
export async function drive(targets: Target[], opts: { seconds: number; connections: number; overallRate?: number }): Promise<RunResult> {
  const per = Math.max(1, Math.round(opts.connections / targets.length));
  const runs = await Promise.all(targets.map((t) => autocannon({
    url: t.url,
    connections: per,
    pipelining: 1,
    duration: opts.seconds,
    timeout: 30,
    requests: t.requests.map((r) => ({ method: r.method as any, path: r.path, headers: r.headers, body: r.body })),
    ...(opts.overallRate ? { overallRate: Math.max(1, Math.round(opts.overallRate / targets.length)) } : {}),
  }) as Promise<any>));
  const sum = (f: (r: any) => number) => runs.reduce((a, r) => a + f(r), 0);
  const worst = (f: (r: any) => number) => Math.max(...runs.map(f));
  const total = sum((r) => r.requests.total);
  return {
    rps: total / opts.seconds, total,
    p50: worst((r) => r.latency.p50), p90: worst((r) => r.latency.p90), p99: worst((r) => r.latency.p99), max: worst((r) => r.latency.max),
    non2xx: sum((r) => r.non2xx), errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts), seconds: opts.seconds,
  };
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch { return 0; }
}

/** Samples the RSS of some processes every `everyMs`; `stop()` returns the samples and the peak. */
export function sampleRss(pids: number[], everyMs = 500) {
  const samples: { t: number; rss: number }[] = [];
  let peak = 0;
  const t0 = Date.now();
  const take = () => {
    const rss = pids.reduce((a, p) => a + rssBytes(p), 0);
    samples.push({ t: (Date.now() - t0) / 1000, rss });
    peak = Math.max(peak, ...pids.map(rssBytes));
  };
  take();
  const timer = setInterval(take, everyMs);
  return { samples, stop() { clearInterval(timer); take(); return { samples, peakSingle: peak }; } };
}

export const mb = (b: number) => (b / 2 ** 20).toFixed(0) + ' MiB';

export function line(label: string, r: RunResult): string {
  return `${label.padEnd(46)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(5)} ms  p90 ${String(r.p90).padStart(5)} ms  p99 ${String(r.p99).padStart(5)} ms  (n ${r.total}, non-2xx ${r.non2xx}, errors ${r.errors})`;
}
