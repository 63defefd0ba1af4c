// The svc command line:
//   svc serve                          start the node (same as npm start)
//   svc verify <receipt.json>          check a saved sealed response against a running node
//   svc call <tool> '<json>'           call a tool on a node over MCP
//   svc solve <name> '<json>'          run a solver locally, unsealed (prints the result shape)
// Options: --url (default $SVC_URL or http://127.0.0.1:8787), --key (default $SVC_API_KEY).
import { readFileSync } from 'node:fs';

function parseArgs(argv: string[]) {
  const pos: string[] = [];
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2);
      opts[k] = v ?? argv[++i] ?? '';
    } else pos.push(a);
  }
  return { pos, opts };
}

const USAGE = `usage:
  svc serve
  svc verify <receipt.json> [--jwks keys.json] [--url URL] [--key KEY]
  svc call <tool> '<json arguments>' [--url URL] [--key KEY]
  svc solve <solver> '<json input>'`;

function die(msg: string, code = 2): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

function parseJson(text: string, what: string): any {
  try { return JSON.parse(text); } catch (e) { die(`${what} is not valid JSON: ${(e as Error).message}`); }
}

export async function mcpCall(url: string, key: string | undefined, tool: string, args: unknown): Promise<any> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', url), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  const client = new Client({ name: 'svc-cli', version: '1' });
  await client.connect(transport);
  try {
    return await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
  } finally {
    await client.close();
  }
}

async function main() {
  const { pos, opts } = parseArgs(process.argv.slice(2));
  const url = opts.url || process.env.SVC_URL || 'http://127.0.0.1:8787';
  const key = opts.key || process.env.SVC_API_KEY;
  const cmd = pos[0];
  if (cmd === 'serve') {
    const { serve } = await import('./serve.ts');
    await serve();
    return;
  }
  if (cmd === 'verify') {
    // svc verify <receipt.json> [--jwks keys.json] [--url U] [--key K]
    //   the Ed25519 signature (v3) is checked offline against --jwks, or against the node's
    //   /.well-known/jwks.json; the HMAC proof is checked by the node (POST /api/svc/verify) unless
    //   --jwks is given without --url/--key (fully offline).
    if (!pos[1]) die(USAGE);
    const receipt = parseJson(readFileSync(pos[1], 'utf8'), pos[1]);
    if (!receipt || typeof receipt.svcProof !== 'string' || !receipt.svcState) die('not a sealed response: svcProof or svcState missing');
    const offline = !!opts.jwks && !opts.url && !opts.key;
    let signature: boolean | null = null;
    let reason: string | undefined;
    if (receipt.signature) {
      const { verifyReceiptSignature } = await import('./services/receipt.ts');
      const jwks = opts.jwks ? parseJson(readFileSync(opts.jwks, 'utf8'), opts.jwks) : await fetch(new URL('/.well-known/jwks.json', url)).then((r) => r.json());
      const v = verifyReceiptSignature(receipt, jwks);
      signature = v.valid;
      reason = v.reason;
    }
    let hmac: boolean | null = null;
    if (!offline) {
      const version = receipt.receipt?.version ?? (typeof receipt.value === 'number' ? 2 : 1);
      const args: Record<string, unknown> = {
        proof: receipt.svcProof, operatorIds: receipt.svcState.operators, R_t: receipt.svcState.masterSum,
        svcond: receipt.svcState.svcond, keyPrefix: receipt.keyPrefix,
      };
      if (version >= 2) { args.value = receipt.value; args.unit = receipt.unit ?? ''; }
      const res = await fetch(new URL('/api/svc/verify', url), {
        method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(args),
      });
      const body: any = await res.json().catch(() => ({}));
      if (!res.ok) die(`verify failed: HTTP ${res.status} ${body.code ?? ''} ${body.error ?? ''}`, 1);
      hmac = body.valid === true;
      if (!hmac) reason ??= 'the HMAC proof does not match the signed fields';
    }
    // The node signs every receipt (DESIGN §7): the Ed25519 signature is what covers every field
    // (result, input, precision, …); the HMAC proof covers only the operators, pulse, key prefix,
    // value and unit. A receipt without a signature is therefore not verified as a whole.
    if (signature === null) { signature = false; reason ??= 'the receipt has no signature: this node signs every receipt, so a missing signature means it was removed'; }
    const valid = (hmac ?? true) && signature;
    const checked = [
      'signature: the Ed25519 signature over the RFC 8785 canonical JSON of every field but the signature',
      ...(hmac !== null ? ['hmac: the svcProof over operators, R_t, svcond, keyPrefix, value and unit (checked by the node)'] : []),
    ];
    process.stdout.write(JSON.stringify({ valid, hmac, signature, checked, receipt: receipt.receipt?.id ?? null, ...(valid ? {} : { reason }) }) + '\n');
    process.exit(valid ? 0 : 1);
  }
  if (cmd === 'call') {
    if (!pos[1]) die(USAGE);
    const args = pos[2] ? parseJson(pos[2], 'arguments') : {};
    const res = await mcpCall(url, key, pos[1], args);
    process.stdout.write(JSON.stringify(res.structuredContent ?? res, null, 2) + '\n');
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
  die(USAGE);
}

/** One clear line for a node that cannot be reached (no stack trace), the exit code 2. */
function unreachable(e: any): string | null {
  const cause = e?.cause ?? e;
  const code = cause?.code ?? cause?.errno;
  if (e instanceof TypeError && /fetch failed/.test(e.message)) return code ? String(code) : 'fetch failed';
  if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|ETIMEDOUT|EAI_AGAIN)$/.test(code)) return code;
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
