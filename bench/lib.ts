// Shared helpers for benchmarks: start a process that prints one JSON line when ready, run
// autocannon against a URL, format figures.
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export async function startChild(script: string, env: Record<string, string> = {}, execArgv: string[] = []): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, [...execArgv, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<any>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) { try { resolve(JSON.parse(buf.slice(0, nl))); } catch (e) { reject(e); } }
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info };
}

export interface LoadResult { rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number }

export async function load(opts: { url: string; method?: string; headers?: Record<string, string>; body?: string; connections?: number; duration?: number; overallRate?: number }): Promise<LoadResult> {
  const r: any = await autocannon({
    url: opts.url, method: (opts.method ?? 'GET') as any, headers: opts.headers, body: opts.body,
    connections: opts.connections ?? 32, duration: opts.duration ?? 10, pipelining: 1,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, total: r.requests.total };
}

export const fmt = (x: number, d = 1) => x.toFixed(d);
