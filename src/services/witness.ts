// Witnesses (issue 20; c2sp.org/tlog-witness, c2sp.org/tlog-cosignature; docs/verify.md).
//
// Witness side: a node started with SVC_WITNESS_OF=<log URL> witnesses that log. On first use it
// fetches and pins the log's note key (<log URL>/log/key), then answers `add-checkpoint` requests
// as the spec orders its checks: 400 malformed / old > size, 404 unknown origin, 403 no valid
// signature by the pinned key, 409 (body: our size, text/x.tlog.size) when `old` is not the size
// it last cosigned, 422 for an empty tree with a wrong root, a non-empty proof from 0, a proof that
// does not verify or the same size with another root. The check and the update of its state are
// one transaction (the row is locked). A refusal that proves misbehaviour (a signed checkpoint
// inconsistent with one cosigned before: a split view) is kept as evidence.
//
// Log side: a node with SVC_WITNESSES=<url,…> submits each new checkpoint to each witness with a
// consistency proof from the size the witness last cosigned (learnt from a 409 when unknown), and
// keeps the cosignatures; /log/checkpoint serves them with the checkpoint.
import type { Db, Queryable } from '../store/db.ts';
import {
  cosignLine, EMPTY_ROOT, parseCheckpointText, parseNote, parseVkey, verifyConsistency, verifyNote, HASH_SIZE, type NoteVerifier,
} from '../core/tlog.ts';
import type { DeploymentKey } from './keys.ts';
import { consistencyProof, logState } from './tlog.ts';
import { ed25519Raw } from '../core/tlog.ts';

export interface WitnessReply { status: number; body: string; contentType: string }
const reply = (status: number, body: string, contentType = 'text/plain; charset=utf-8'): WitnessReply => ({ status, body: body.endsWith('\n') ? body : body + '\n', contentType });

/** Parses an add-checkpoint body: `old N`, up to 63 proof lines, a blank line, the checkpoint. */
export function parseAddCheckpoint(body: string): { old: number; proof: Buffer[]; note: string } | null {
  const cut = body.indexOf('\n\n');
  if (cut < 0) return null;
  const lines = body.slice(0, cut).split('\n');
  const m = /^old (0|[1-9][0-9]*)$/.exec(lines.shift() ?? '');
  if (!m || lines.length > 63) return null;
  const proof: Buffer[] = [];
  for (const l of lines) {
    const h = Buffer.from(l, 'base64');
    if (h.length !== HASH_SIZE || h.toString('base64') !== l) return null;
    proof.push(h);
  }
  const old = Number(m[1]);
  if (!Number.isSafeInteger(old)) return null;
  return { old, proof, note: body.slice(cut + 2) };
}

export interface WitnessIdentity { name: string; key: DeploymentKey }

/** Pins the witnessed log's keys on first use: fetches <logUrl>/log/key once. */
export async function pinnedLog(db: Db, logUrl: string, fetchFn: typeof fetch = fetch): Promise<{ origin: string; vkeys: NoteVerifier[] }> {
  const rows = await db.query<{ origin: string; vkeys: string }>('SELECT origin, vkeys FROM witness_logs WHERE source = $1', [logUrl]);
  if (rows.length) return { origin: rows[0].origin, vkeys: rows[0].vkeys.split('\n').map((v) => parseVkey(v)).filter((v): v is NoteVerifier => !!v) };
  const res = await fetchFn(new URL('/log/key', logUrl), { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`the witnessed log's key: GET ${logUrl}/log/key answered ${res.status}`);
  const v = parseVkey((await res.text()).trim());
  if (!v) throw new Error(`the witnessed log's key at ${logUrl}/log/key is not a signed-note vkey`);
  await db.query(`INSERT INTO witness_logs (origin, vkeys, source, size, root, checkpoint) VALUES ($1, $2, $3, 0, $4, '') ON CONFLICT (origin) DO NOTHING`, [v.name, v.vkey, logUrl, EMPTY_ROOT]);
  return pinnedLog(db, logUrl, fetchFn);
}

/** The witness's answer to POST /add-checkpoint. */
export async function addCheckpoint(db: Db, me: WitnessIdentity, log: { origin: string; vkeys: NoteVerifier[] }, body: string, nowSeconds: number): Promise<WitnessReply> {
  const req = parseAddCheckpoint(body);
  if (!req) return reply(400, 'malformed add-checkpoint request: "old <size>", up to 63 base64 hashes, a blank line, a checkpoint');
  const note = parseNote(req.note);
  const cp = note ? parseCheckpointText(note.text) : null;
  if (!note || !cp) return reply(400, 'malformed checkpoint');
  // one signature per key (c2sp.org/signed-note): a second line of the same key name and id is a
  // malformed note, whether it repeats the first or differs from it
  const keys = new Set<string>();
  for (const sg of note.signatures) {
    const k = `${sg.name} ${sg.id}`;
    if (keys.has(k)) return reply(400, `malformed checkpoint: two signature lines by ${sg.name}+${sg.id.toString(16).padStart(8, '0')}`);
    keys.add(k);
  }
  if (cp.origin !== log.origin) return reply(404, `unknown log origin ${cp.origin}`);
  const v = verifyNote(req.note, log.vkeys);
  if (!v.ok) return reply(403, `checkpoint signature: ${v.reason}`);
  if (req.old > cp.size) return reply(400, `old size ${req.old} is larger than the checkpoint's ${cp.size}`);
  return db.tx(async (q) => {
    const [st] = await q.query<{ size: number | string; root: Uint8Array }>('SELECT size, root FROM witness_logs WHERE origin = $1 FOR UPDATE', [cp.origin]);
    const size = Number(st.size);
    const root = Buffer.from(st.root);
    if (req.old !== size) return reply(409, `${size}\n`, 'text/x.tlog.size');
    if (cp.size === 0 && !cp.root.equals(EMPTY_ROOT)) return reply(422, 'a checkpoint of size 0 must have the empty tree\'s root');
    if (req.old === 0 && req.proof.length) return reply(422, 'the proof from an empty tree must be empty');
    let consistent = true;
    if (req.old === cp.size) consistent = cp.root.equals(root);
    else if (req.old > 0) consistent = verifyConsistency(req.old, cp.size, req.proof, root, cp.root);
    if (!consistent) {
      // a checkpoint signed by the log that does not extend the one cosigned: evidence of a split view
      const kind = req.old === cp.size ? 'fork' : 'inconsistent';
      await q.query('INSERT INTO witness_evidence (origin, kind, detail, body) VALUES ($1, $2, $3, $4)',
        [cp.origin, kind, `cosigned size ${size} root ${root.toString('base64')}; submitted size ${cp.size} root ${cp.root.toString('base64')}`, body.slice(0, 64 * 1024)]);
      return reply(422, req.old === cp.size ? 'same size, another root: split view' : 'the consistency proof does not verify: split view');
    }
    await q.query('UPDATE witness_logs SET size = $2, root = $3, checkpoint = $4, updated_at = now() WHERE origin = $1', [cp.origin, cp.size, cp.root, req.note]);
    return reply(200, cosignLine(note.text, me.name, me.key.privateKey, ed25519Raw(me.key.publicKey), Math.floor(nowSeconds)));
  });
}

// ---------------------------------------------------------------------------------------------
// Log side

/** Submits the log's latest checkpoint to one witness; stores its cosignature. Returns a note of
 * what happened (for the status table). */
export async function submitToWitness(db: Db, witnessUrl: string, fetchFn: typeof fetch = fetch): Promise<{ ok: boolean; size: number; error?: string }> {
  const st = await logState(db);
  let [known] = await db.query<{ size: number | string }>('SELECT size FROM log_witness_state WHERE witness = $1', [witnessUrl]);
  let old = known ? Number(known.size) : 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (old > st.size) return record(db, witnessUrl, old, `split view: the witness cosigned size ${old}, larger than this log's ${st.size}`);
    const proof = old > 0 && old < st.size ? await consistencyProof(db, old, st.size) : [];
    const body = `old ${old}\n${proof.map((h) => h.toString('base64') + '\n').join('')}\n${st.checkpoint}`;
    let res: Response;
    try {
      res = await fetchFn(new URL('add-checkpoint', witnessUrl.endsWith('/') ? witnessUrl : witnessUrl + '/'), { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body, signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      return record(db, witnessUrl, old, `unreachable: ${(e as Error).message}`);
    }
    const text = await res.text();
    if (res.status === 409 && /^(0|[1-9][0-9]*)\n$/.test(text)) { old = Number(text); continue; }
    if (res.status !== 200) return record(db, witnessUrl, old, `HTTP ${res.status}: ${text.trim().slice(0, 300)}`);
    // keep only well-formed signature lines
    const lines = text.split('\n').filter((l) => l.startsWith('\u2014 ')).map((l) => l + '\n').join('');
    if (!lines) return record(db, witnessUrl, old, 'the witness answered no signature line');
    await db.query(`INSERT INTO log_cosignatures (size, witness, lines) VALUES ($1, $2, $3) ON CONFLICT (size, witness) DO UPDATE SET lines = EXCLUDED.lines`, [st.size, witnessUrl, lines]);
    await record(db, witnessUrl, st.size, null);
    return { ok: true, size: st.size };
  }
  return record(db, witnessUrl, old, 'the witness kept answering 409');
}

async function record(q: Queryable, witness: string, size: number, error: string | null): Promise<{ ok: boolean; size: number; error?: string }> {
  await q.query(`INSERT INTO log_witness_state (witness, size, error, updated_at) VALUES ($1, $2, $3, now())
    ON CONFLICT (witness) DO UPDATE SET size = GREATEST(log_witness_state.size, EXCLUDED.size), error = EXCLUDED.error, updated_at = now()`, [witness, size, error]);
  return error ? { ok: false, size, error } : { ok: true, size };
}

/** Runs submissions in the background: one in flight per witness; a checkpoint that arrives while
 * one is in flight is submitted after it (only the newest matters). */
export class WitnessSubmitter {
  private busy = new Set<string>();
  private again = new Set<string>();
  private closed = false;
  private readonly db: Db;
  private readonly witnesses: string[];
  private readonly fetchFn: typeof fetch;
  constructor(db: Db, witnesses: string[], fetchFn: typeof fetch = fetch) {
    this.db = db;
    this.witnesses = witnesses;
    this.fetchFn = fetchFn;
  }
  kick(): void {
    for (const w of this.witnesses) void this.run(w);
  }
  private async run(w: string): Promise<void> {
    if (this.closed) return;
    if (this.busy.has(w)) { this.again.add(w); return; }
    this.busy.add(w);
    try {
      do {
        this.again.delete(w);
        await submitToWitness(this.db, w, this.fetchFn).catch(() => { /* recorded when possible; retried on the next checkpoint */ });
      } while (this.again.has(w) && !this.closed);
    } finally { this.busy.delete(w); }
  }
  close(): void { this.closed = true; }
}
