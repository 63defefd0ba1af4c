// `svc verify <receipt.json>` (docs/verify.md): the checks of src/verify-strict.ts, and --replay.
// Prints one JSON line naming each check; exits 0 valid, 1 a check failed, 2 a check could not run
// (the URL it could not reach is named) or a usage error.
//   --vkey V|file    the log's note key(s): log checks only (no key set for the response signature)
//   --jwks file      a saved key set: log keys and signing keys, nothing fetched
//   --url URL        the node: its key set (when none is given) and the consistency of its log
//   --key KEY        the node checks the HMAC proof (at --url, else $SVC_URL or 127.0.0.1:8787, which
//                    is then the node, as if given with --url)
//   --allow-unsigned check a response whose signature is absent (said in the output)
//   --replay         the solver again here, bit for bit (--input name=path for inputs sealed by digest)
import { readFileSync } from 'node:fs';
import { verifySaved, vkeysFromText } from './verify-strict.ts';
import { parseIJson } from './core/ijson.ts';

function fail(msg: string, code: number): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

export async function verifyCommand(path: string, opts: Record<string, string>, defaultUrl: string, key: string | undefined, argv = process.argv.slice(2)): Promise<never> {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { fail(`svc verify: cannot read ${path}: ${(e as Error).message}`, 2); }
  let jwks: any;
  if (opts.jwks) {
    try { jwks = parseIJson(readFileSync(opts.jwks, 'utf8')).value; } catch (e) { fail(`svc verify: --jwks ${opts.jwks}: ${(e as Error).message}`, 2); }
  }
  let vkeys;
  if (opts.vkey) {
    const t = /^[^\s+]+\+[0-9a-f]{8}\+/.test(opts.vkey) ? opts.vkey : readFileSync(opts.vkey, 'utf8');
    vkeys = vkeysFromText(t);
    if (!vkeys.length) fail('svc verify: --vkey: no valid signed-note verifier key', 2);
  }
  const allowUnsigned = opts['allow-unsigned'] !== undefined;
  // the node: --url, else (with a key, whose proof the node checks) $SVC_URL or the default
  const nodeUrl = opts.url || (key ? defaultUrl : undefined);
  const rep = await verifySaved(text, { jwks, vkeys, url: nodeUrl, key, hmacUrl: defaultUrl, allowUnsigned });

  let replay: boolean | null = null;
  const reasons = rep.reason ? [rep.reason] : [];
  if (opts.replay !== undefined && rep.checks.strict) {
    const inputs: Record<string, string> = {};
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i].startsWith('--input=') ? argv[i].slice(8) : argv[i] === '--input' ? argv[++i] ?? '' : null;
      if (a === null) continue;
      const eq = a.indexOf('=');
      if (eq < 1) fail(`--input takes name=path, got ${JSON.stringify(a)}`, 2);
      inputs[a.slice(0, eq)] = readFileSync(a.slice(eq + 1), 'utf8');
    }
    const { replayReceipt } = await import('./verify.ts');
    // inputs and results kept in blobs are fetched from the node (--url, with the key)
    const r = await replayReceipt(rep.parsed, { inputs, ...(nodeUrl ? { url: nodeUrl } : {}), ...(key ? { key } : {}) });
    replay = r.ok;
    if (!r.ok) reasons.push(`replay: ${r.reason}`);
  }
  const failed = replay === false ? [...rep.failed, 'replay'] : rep.failed;
  const exit = failed.length ? 1 : rep.exit;
  const c = rep.checks;
  const checked = [
    ...(c.strict ? ['strict: I-JSON (RFC 7493: no duplicate member names, no lone surrogates); signature and receipt.log have exactly their members; log positions are integers'] : []),
    'log: SHA-256 of the RFC 8785 canonical sealed body (without receipt.log, receipt.digest, tokens, signature) is the leaf at receipt.log.index, proved against a checkpoint signed by the log key',
    ...(c.signature !== null ? ['signature: the Ed25519 signature over the RFC 8785 canonical JSON of every field but the signature'] : []),
    ...(c.consistency !== null ? ['consistency: the node\'s current checkpoint extends the receipt\'s (RFC 6962 consistency proof)'] : []),
    ...(c.hmac !== null ? ['hmac: the svcProof over operators, R_t, svcond, keyPrefix, value and unit (checked by the node)'] : []),
    ...(replay !== null ? ['replay: the solver ran again here from the receipt\'s input and seed; value and result bit-identical'] : []),
  ];
  process.stdout.write(JSON.stringify({
    valid: exit === 0, exit, receipt: rep.receipt,
    log: { digest: !!c.digest, inclusion: !!c.inclusion, checkpoint: !!c.checkpoint, index: rep.index, treeSize: rep.treeSize, origin: rep.origin, keySource: opts.jwks || rep.keySource },
    signature: c.signature, key: c.key, consistency: c.consistency, ...(rep.currentSize !== null ? { currentSize: rep.currentSize } : {}), hmac: c.hmac, replay,
    checks: { ...c, replay }, failed, couldNotRun: rep.couldNotRun, unreachable: rep.unreachable,
    ...(rep.unsigned ? { unsigned: rep.unsigned } : {}),
    checked,
    ...(exit === 0 ? {} : { reason: reasons.join('; ') }),
  }) + '\n');
  if (exit === 2 && rep.unreachable) {
    const node = nodeUrl && rep.unreachable.startsWith(new URL(nodeUrl).origin) ? nodeUrl : null;
    process.stderr.write(`svc verify: cannot reach ${node ? `the node at ${node}` : rep.unreachable}: ${rep.couldNotRun.join(', ')} could not be checked\n`);
  }
  process.exit(exit);
}
