// The svc command line:
//   svc serve                          start the node (same as npm start)
//   svc verify <receipt.json>          check a saved sealed response: offline (log inclusion, checkpoint
//                                      signature, digest), --url (consistency with the node's log),
//                                      --key (the HMAC proof, by the node), --replay (the solver again)
//   svc call <tool> '<json>'           call a tool on a node over MCP
//   svc solve <name> '<json>'          run a solver locally, unsealed (prints the result shape)
//   svc submit | jobs | wait | cancel  jobs on a node (src/cli-jobs.ts)
// Options: --url (default $SVC_URL or http://127.0.0.1:8787), --key (default $SVC_API_KEY).
import { readFileSync } from 'node:fs';
import { JOBS_USAGE, jobsCommand } from './cli-jobs.ts';

const FLAGS = new Set(['replay', 'allow-unsigned', 'help', 'gzip']);

function parseArgs(argv: string[]) {
  const pos: string[] = [];
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const k = eq < 0 ? a.slice(2) : a.slice(2, eq);
      // flags take no value; options take the rest after '=' (a vkey's base64 may hold '='), or the next argument
      opts[k] = eq >= 0 ? a.slice(eq + 1) : FLAGS.has(k) ? 'true' : argv[++i] ?? '';
    } else pos.push(a);
  }
  return { pos, opts };
}

const USAGE = `usage:
  svc serve
  svc verify <receipt.json> [--vkey VKEY|file] [--jwks keys.json] [--url URL] [--key KEY] [--allow-unsigned] [--replay]
  svc call <tool> '<json arguments>' [--url URL] [--key KEY]
  svc solve <solver> '<json input>'
${JOBS_USAGE}
  svc --help
options: --url (default $SVC_URL or http://127.0.0.1:8787), --key (default $SVC_API_KEY)
exit codes: 0 done (verify: valid), 1 refused (verify: a check failed), 2 usage error or the node could not be reached (its URL is named)`;

function die(msg: string, code = 2): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

function parseJson(text: string, what: string): any {
  try { return JSON.parse(text); } catch (e) { die(`${what} is not valid JSON: ${(e as Error).message}`); }
}

/** One tool call over MCP with the SDK v2 client: it speaks 2026-07-28 to a node that offers it
 * (server/discover) and falls back to the 2025 handshake. A refused call comes back as its
 * DESIGN §9 error body (the result's text). */
export async function mcpCall(url: string, key: string | undefined, tool: string, args: unknown): Promise<{ isError: boolean; body: unknown }> {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', url), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  const client = new Client({ name: 'svc-cli', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  try {
    const res: any = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
    if (res.isError) {
      const text = res.content?.find((c: any) => c.type === 'text')?.text ?? '';
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* a plain message */ }
      return { isError: true, body };
    }
    return { isError: false, body: res.structuredContent ?? res.content };
  } finally {
    await client.close();
  }
}

async function main() {
  const { pos, opts } = parseArgs(process.argv.slice(2));
  const url = opts.url || process.env.SVC_URL || 'http://127.0.0.1:8787';
  const key = opts.key || process.env.SVC_API_KEY;
  const cmd = pos[0];
  if (cmd === 'help' || opts.help !== undefined || process.argv.slice(2).includes('-h')) {
    process.stdout.write(USAGE + '\n');
    process.exit(0);
  }
  if (cmd === 'serve') {
    const { serveOrExit } = await import('./serve.ts');
    await serveOrExit();
    return;
  }
  if (cmd === 'verify') {
    // svc verify <receipt.json> [--vkey V|file] [--jwks keys.json] [--url U] [--key K] [--replay]
    //   offline: digest, inclusion proof, checkpoint signature (log key from --vkey, --jwks, the
    //   node's JWKS at --url, else the receipt's jwks_uri), the v3 signature when present;
    //   --url: the node's current checkpoint is consistent with the receipt's;
    //   --key: the HMAC proof, checked by the node (it needs the node's secret);
    //   --replay: the solver runs again here and must give a bit-identical value and result.
    if (!pos[1]) die(USAGE);
    const { verifyCommand } = await import('./verify-cli.ts');
    await verifyCommand(pos[1], opts, url, key);
    return;
  }
  if (cmd === 'call') {
    if (!pos[1]) die(USAGE);
    const args = pos[2] ? parseJson(pos[2], 'arguments') : {};
    const res = await mcpCall(url, key, pos[1], args);
    process.stdout.write(JSON.stringify(res.body, null, 2) + '\n');
    process.exit(res.isError ? 1 : 0);
  }
  if (cmd === 'solve') {
    if (!pos[1]) die(USAGE);
    const input = pos[2] ? parseJson(pos[2], 'input') : {};
    const { runUnsealed } = await import('./ops/solvers.ts');
    try {
      const out = await runUnsealed(pos[1], input);
      process.stdout.write(JSON.stringify({ sealed: false, note: 'unsealed local run', solver: pos[1], ...out }, null, 2) + '\n');
    } catch (e: any) {
      die(`${e.code ?? 'ERROR'}: ${e.message}`, 1);
    }
    return;
  }
  if (await jobsCommand(cmd, pos, opts, url, key)) return;
  die(USAGE);
}

/** One clear line for a node that cannot be reached (no stack trace), the exit code 2. */
function unreachable(e: any): string | null {
  // the error itself, or one of its causes (the MCP SDK wraps fetch's TypeError in an SdkError)
  for (let x = e, depth = 0; x && depth < 8; x = x.cause, depth++) {
    const code = x?.code ?? x?.errno;
    if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ECONNRESET|ETIMEDOUT|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET)$/.test(code)) return code;
    if (x instanceof TypeError && /fetch failed/.test(x.message)) {
      const inner = (x.cause as any)?.code ?? (x.cause as any)?.errno;
      return inner ? String(inner) : 'fetch failed';
    }
  }
  return null;
}

try {
  await main();
} catch (e: any) {
  const why = unreachable(e);
  const args = parseArgs(process.argv.slice(2));
  const url = args.opts.url || process.env.SVC_URL || 'http://127.0.0.1:8787';
  if (why) die(`svc: cannot reach the node at ${url} (${why}); start it with \`npm start\` or pass --url / set SVC_URL`, 2);
  die(`svc: ${e?.message ?? String(e)}`, 1);
}
