// The svc command line:
//   svc serve                          start the node (same as npm start)
//   svc verify <receipt.json>          check a saved sealed response: offline (log inclusion, checkpoint
//                                      signature, digest), --url (consistency with the node's log),
//                                      --key (the HMAC proof, by the node), --replay (the solver again)
//   svc call <tool> '<json>'           call a tool on a node over MCP
//   svc solve <name> '<json>'          run a solver locally, unsealed (prints the result shape)
// Options: --url (default $SVC_URL or http://127.0.0.1:8787), --key (default $SVC_API_KEY).
import { readFileSync } from 'node:fs';

const FLAGS = new Set(['replay']);

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
  svc verify <receipt.json> [--vkey VKEY|file] [--jwks keys.json] [--url URL] [--key KEY] [--replay]
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
    // svc verify <receipt.json> [--vkey V|file] [--jwks keys.json] [--url U] [--key K] [--replay]
    //   offline: digest, inclusion proof, checkpoint signature (log key from --vkey, --jwks, the
    //   node's JWKS at --url, else the receipt's jwks_uri), the v3 signature when present;
    //   --url: the node's current checkpoint is consistent with the receipt's;
    //   --key: the HMAC proof, checked by the node (it needs the node's secret);
    //   --replay: the solver runs again here and must give a bit-identical value and result.
    if (!pos[1]) die(USAGE);
    const receipt = parseJson(readFileSync(pos[1], 'utf8'), pos[1]);
    if (!receipt || typeof receipt.svcProof !== 'string' || !receipt.svcState) die('not a sealed response: svcProof or svcState missing');
    const v = await import('./verify.ts');
    const nodeUrl = opts.url || (key ? url : '');
    // the keys: a saved vkey or JWKS; else the node's JWKS; else the issuer's (the receipt names it)
    let jwks: any = null;
    let keySource = '';
    let verifiers: import('./core/tlog.ts').NoteVerifier[] = [];
    if (opts.jwks) { jwks = parseJson(readFileSync(opts.jwks, 'utf8'), opts.jwks); keySource = opts.jwks; }
    else {
      const from = nodeUrl ? new URL('/.well-known/jwks.json', nodeUrl).href : typeof receipt.receipt?.jwks_uri === 'string' ? receipt.receipt.jwks_uri : '';
      if (from && !opts.vkey) {
        // the node's own JWKS: an unreachable node is the one-line message below (exit 2)
        if (nodeUrl) jwks = await fetch(from).then((r) => r.json());
        else try { jwks = await fetch(from).then((r) => r.json()); } catch (e) { die(`svc: cannot fetch the key set ${from} the receipt names (${(e as Error).message}); give --vkey or --jwks`, 2); }
        keySource = from;
      }
    }
    if (opts.vkey) {
      const text = /^[^\s+]+\+[0-9a-f]{8}\+/.test(opts.vkey) ? opts.vkey : readFileSync(opts.vkey, 'utf8');
      verifiers = v.vkeysFromText(text);
      if (!verifiers.length) die('--vkey: no valid signed-note verifier key', 2);
      keySource = 'vkey';
    } else if (jwks) verifiers = v.logVerifiersOf(jwks);
    const log = v.verifyReceiptLog(receipt, verifiers);
    const reasons: string[] = log.reason ? [log.reason] : [];
    let signature: boolean | null = null;
    if (receipt.signature && jwks) {
      const { verifyReceiptSignature } = await import('./services/receipt.ts');
      const s = verifyReceiptSignature(receipt, jwks);
      signature = s.valid;
      if (!s.valid) reasons.push(`signature: ${s.reason}`);
    }
    let consistency: boolean | null = null;
    let currentSize: number | null = null;
    if (opts.url) {
      if (!log.parsed) { consistency = false; reasons.push('consistency: the receipt has no verified checkpoint'); }
      else {
        const c = await v.checkConsistencyWithNode(opts.url, log.parsed, verifiers);
        consistency = c.ok;
        currentSize = c.currentSize;
        if (!c.ok) reasons.push(`consistency: ${c.reason}`);
      }
    }
    let hmac: boolean | null = null;
    if (key) {
      const version = receipt.receipt?.version ?? (typeof receipt.value === 'number' ? 2 : 1);
      const args: Record<string, unknown> = {
        proof: receipt.svcProof, operatorIds: receipt.svcState.operators, R_t: receipt.svcState.masterSum,
        svcond: receipt.svcState.svcond, keyPrefix: receipt.keyPrefix,
      };
      if (version >= 2) { args.value = receipt.value; args.unit = receipt.unit ?? ''; }
      const res = await fetch(new URL('/api/svc/verify', nodeUrl), {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(args),
      });
      const body: any = await res.json().catch(() => ({}));
      if (!res.ok) die(`verify failed: HTTP ${res.status} ${body.code ?? ''} ${body.error ?? ''}`, 1);
      hmac = body.valid === true;
      if (!hmac) reasons.push('the HMAC proof does not match the signed fields');
    }
    let replay: boolean | null = null;
    if (opts.replay !== undefined) {
      const r = await v.replayReceipt(receipt);
      replay = r.ok;
      if (!r.ok) reasons.push(`replay: ${r.reason}`);
    }
    // What covers every field (result, input, precision, …): the log (the digest is over the whole
    // canonical body, and the checkpoint is signed) or the v3 Ed25519 signature. The HMAC proof
    // covers only the operators, pulse, key prefix, value and unit. Without a verified log entry, a
    // receipt without a signature is not verified as a whole.
    if (signature === null && !log.ok && receipt.signature === undefined) { signature = false; reasons.push('the receipt has no signature and no verified log entry: a missing signature means it was removed'); }
    const valid = log.ok && signature !== false && consistency !== false && hmac !== false && replay !== false;
    const checked = [
      'log: SHA-256 of the RFC 8785 canonical sealed body (without receipt.log, receipt.digest, tokens, signature) is the leaf at receipt.log.index, proved against a checkpoint signed by the log key',
      ...(signature !== null ? ['signature: the Ed25519 signature over the RFC 8785 canonical JSON of every field but the signature'] : []),
      ...(consistency !== null ? ['consistency: the node\'s current checkpoint extends the receipt\'s (RFC 6962 consistency proof)'] : []),
      ...(hmac !== null ? ['hmac: the svcProof over operators, R_t, svcond, keyPrefix, value and unit (checked by the node)'] : []),
      ...(replay !== null ? ['replay: the solver ran again here from the receipt\'s input and seed; value and result bit-identical'] : []),
    ];
    process.stdout.write(JSON.stringify({
      valid, receipt: receipt.receipt?.id ?? null,
      log: { digest: log.digest, inclusion: log.inclusion, checkpoint: log.checkpoint, index: log.index, treeSize: log.treeSize, origin: log.origin, keySource: keySource || null },
      signature, consistency, ...(currentSize !== null ? { currentSize } : {}), hmac, replay, checked,
      ...(valid ? {} : { reason: reasons.join('; ') }),
    }) + '\n');
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
