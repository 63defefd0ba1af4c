// The svc command line's jobs (issue 27, docs/jobs.md), over the node's REST jobs API:
//   svc submit <tool> '<json>' [--budget SECONDS]   queue a job (POST /api/jobs); prints the job
//   svc jobs [--status S] [--limit N]               this machine's jobs, newest first, one a line
//   svc wait <job id> [--timeout SECONDS]           a progress bar (stderr) until it ends, then the
//                                                   synchronous call's answer (stdout); exit 0 when
//                                                   it succeeded, 1 when it failed or was cancelled
//   svc cancel <job id>                             cancel it (a running job stops within 1 s)
//   svc upload <file> [--gzip]                      stream a file into the blob store (POST
//                                                   /api/blobs); prints {digest, bytes}: give
//                                                   {"blob": digest} to any file-like input
// The key is --key or $SVC_API_KEY (a job is its machine's); the node is --url or $SVC_URL.
export const JOBS_USAGE = `  svc submit <tool> '<json arguments>' [--budget SECONDS] [--url URL] [--key KEY]
  svc jobs [--status queued|running|succeeded|failed|cancelled] [--limit N] [--url URL] [--key KEY]
  svc wait <job id> [--timeout SECONDS] [--url URL] [--key KEY]
  svc cancel <job id> [--url URL] [--key KEY]
  svc upload <file> [--gzip] [--url URL] [--key KEY]`;

interface JobBody {
  id: string; tool: string; status: string; progress: { fraction: number; message?: string } | null;
  createdAt: string; attempts: number; tokens: { reserved: number; charged: number | null };
  response?: { status: number; body: Record<string, unknown> };
}

const TERMINAL = ['succeeded', 'failed', 'cancelled'];

class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) { super(message); this.exitCode = exitCode; }
}

async function api(url: string, key: string | undefined, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!res.ok) throw new CliError(`${res.status} ${json?.code ?? ''}: ${json?.error ?? text.slice(0, 300)}`, 1);
  return json;
}

/** `job_… svc_heat [#########---------]  50% running: heat 50%` (the Python client draws the same). */
export function progressBar(job: Pick<JobBody, 'id' | 'tool' | 'status' | 'progress'>, width = 30): string {
  const f = Math.min(1, Math.max(0, job.progress?.fraction ?? (job.status === 'succeeded' ? 1 : 0)));
  const done = Math.round(f * width);
  const msg = job.status === 'running' && job.progress?.message ? `: ${job.progress.message}` : '';
  return `${job.id} ${job.tool} [${'#'.repeat(done)}${'-'.repeat(width - done)}] ${String(Math.floor(f * 100)).padStart(3)}% ${job.status}${msg}`;
}

function jobLine(j: JobBody): string {
  const pct = j.progress ? `${Math.floor(j.progress.fraction * 100)}%` : '';
  return [j.id, j.tool, j.status, pct, j.createdAt, `tokens ${j.tokens.charged ?? '-'}/${j.tokens.reserved}`].join('\t');
}

/** Streams a file to `POST /api/blobs` (never whole in memory) and returns the node's answer. */
export async function uploadFile(url: string, key: string | undefined, file: string, gzip: boolean): Promise<{ digest: string; bytes: number; created: boolean }> {
  const { createReadStream, statSync } = await import('node:fs');
  const { Readable } = await import('node:stream');
  let size: number;
  try { size = statSync(file).size; } catch (e) { throw new CliError(`${file}: ${(e as Error).message}`, 2); }
  const res = await fetch(new URL('/api/blobs', url), {
    method: 'POST',
    headers: {
      'content-type': 'application/octet-stream', 'content-length': String(size), accept: 'application/json',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: Readable.toWeb(createReadStream(file)) as any,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!res.ok) throw new CliError(`${res.status} ${json?.code ?? ''}: ${json?.error ?? text.slice(0, 300)}`, 1);
  return { digest: json.digest, bytes: json.bytes, created: json.created };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `svc submit|jobs|wait|cancel`; false for any other command. Exits like the rest of the
 * CLI: 0 success, 1 a refusal or a job that did not succeed, 2 bad usage. */
export async function jobsCommand(cmd: string | undefined, pos: string[], opts: Record<string, string>, url: string, key: string | undefined): Promise<boolean> {
  if (!cmd || !['submit', 'jobs', 'wait', 'cancel', 'upload'].includes(cmd)) return false;
  const out = (s: string) => process.stdout.write(s + '\n');
  try {
    if (cmd === 'submit') {
      if (!pos[1]) throw new CliError(`usage:\n${JOBS_USAGE}`, 2);
      const tool = pos[1].startsWith('svc_') ? pos[1] : `svc_${pos[1]}`;
      let args: unknown = {};
      if (pos[2]) { try { args = JSON.parse(pos[2]); } catch (e) { throw new CliError(`arguments is not valid JSON: ${(e as Error).message}`, 2); } }
      const budget = opts.budget !== undefined ? Number(opts.budget) : undefined;
      if (budget !== undefined && !(Number.isInteger(budget) && budget > 0)) throw new CliError('--budget: a whole number of seconds', 2);
      const job = await api(url, key, 'POST', '/api/jobs', { tool, arguments: args, ...(budget !== undefined ? { budget: { seconds: budget } } : {}) });
      out(JSON.stringify(job, null, 2));
      process.stderr.write(`queued ${job.id}: svc wait ${job.id}\n`);
      return true;
    }
    if (cmd === 'jobs') {
      const q = new URLSearchParams();
      if (opts.status) q.set('status', opts.status);
      const limit = Math.min(1000, Math.max(1, Number(opts.limit ?? 50) || 50));
      let cursor: string | null = null;
      let n = 0;
      do {
        const page = new URLSearchParams(q);
        page.set('limit', String(Math.min(200, limit - n)));
        if (cursor) page.set('cursor', cursor);
        const body = await api(url, key, 'GET', `/api/jobs?${page}`);
        for (const j of body.jobs as JobBody[]) { out(jobLine(j)); n++; }
        cursor = body.nextCursor;
      } while (cursor && n < limit);
      if (!n) process.stderr.write('no jobs\n');
      return true;
    }
    if (!pos[1]) throw new CliError(`usage:\n${JOBS_USAGE}`, 2);
    if (cmd === 'upload') {
      out(JSON.stringify(await uploadFile(url, key, pos[1], opts.gzip === 'true'), null, 2));
      return true;
    }
    const path = `/api/jobs/${encodeURIComponent(pos[1])}`;
    if (cmd === 'cancel') {
      out(JSON.stringify(await api(url, key, 'DELETE', path), null, 2));
      return true;
    }
    // wait: a bar redrawn in place on a terminal; a line per change otherwise (a log, a pipe)
    const timeoutS = opts.timeout !== undefined ? Number(opts.timeout) : Infinity;
    if (Number.isNaN(timeoutS) || timeoutS < 0) throw new CliError('--timeout: seconds', 2);
    const deadline = Date.now() + timeoutS * 1000;
    const tty = process.stderr.isTTY === true;
    let last = '';
    let job: JobBody = await api(url, key, 'GET', path);
    for (;;) {
      const bar = progressBar(job);
      if (bar !== last) { process.stderr.write(tty ? `\r${bar.padEnd(last.length)}` : `${bar}\n`); last = bar; }
      if (TERMINAL.includes(job.status) || Date.now() >= deadline) break;
      // a long poll when no bar moves; once a second while it runs, for the bar
      if (job.status === 'running') { await sleep(Math.min(1000, Math.max(0, deadline - Date.now()))); job = await api(url, key, 'GET', path); }
      else job = await api(url, key, 'GET', `${path}?wait=${Math.max(1, Math.min(5, Math.ceil((deadline - Date.now()) / 1000)))}`);
    }
    if (tty) process.stderr.write('\n');
    if (!TERMINAL.includes(job.status)) throw new CliError(`${job.id} is still ${job.status} after ${timeoutS} s`, 1);
    out(JSON.stringify(job.response?.body ?? job, null, 2));
    process.exitCode = job.status === 'succeeded' ? 0 : 1;
    return true;
  } catch (e) {
    if (e instanceof CliError) { process.stderr.write(e.message + '\n'); process.exit(e.exitCode); }
    throw e;
  }
}
