// File-like solver inputs given as blobs (issue 27 item 6; docs/jobs.md "Blobs"): every input that
// is a file in its field's standard format (a DIMACS CNF, a MATPOWER case, an XYZ or LAMMPS data
// file) or a long array (a measurement or case series, an initial field) may be given inline, as
// before, or as `{"blob": "sha256:…"}`, a blob of the calling machine (POST /api/blobs).
//
// After validation and before the run the blob is read from the store (the caller's own: another
// machine's digest is 404) and handed to the solver: a text input as its bytes (a Uint8Array, which
// the solver's reader decodes with textOf, src/solvers/lib/text.ts), an array input as the JSON it
// holds, validated by the field's own schema. The receipt seals `{blob, bytes}`, never the bytes;
// the seed a solver derives from its input is the one the same input given inline derives.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SvcError } from '../core/errors.ts';
import { canonicalJson } from '../core/canonical.ts';
import { DIGEST_RE } from '../jobs/blobs.ts';
import { shapeOf } from './schema.ts';

/** how a blob field's bytes reach the solver: text (the bytes, decoded by its reader) or JSON */
export type FileKind = 'text' | 'json';

/** The file-like inputs of each solver (found by reading every descriptor's text and array
 * fields; small arrays of a few numbers, expressions and option lists are not files). */
export const FILE_INPUTS: Record<string, Record<string, FileKind>> = {
  sat: { cnf: 'text', clauses: 'json' },
  grid: { case: 'text', network: 'json' },
  evolve: { xyz: 'text', lammpsData: 'text' },
  kalman: { measurements: 'json', controls: 'json' },
  epi: { cases: 'json' },
  heat: { initial: 'json' },
  wave: { initial: 'json', initialVelocity: 'json' },
};

/** Text inputs whose solver reads only strings: decoded here, before the run. None now: sat's
 * DIMACS reader takes the bytes (a string of a large CNF would pass its 8 MiB inline limit). */
const DECODE_BEFORE_RUN: Record<string, string[]> = {};

export const BLOB_REF = z.strictObject({
  blob: z.string().regex(DIGEST_RE, 'a blob is named sha256: followed by 64 lower-case hex characters').describe('a blob of this machine (POST /api/blobs answers its name)'),
}).describe('the input as a blob: {"blob": "sha256:…"}');

export interface BlobRef { blob: string }

export const isBlobRef = (v: unknown): v is BlobRef =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as BlobRef).blob === 'string';

/** what a receipt seals for an input given as a blob */
export interface SealedBlob { blob: string; bytes: number }

function unwrapOptional(s: z.ZodType): { inner: z.ZodType; optional: boolean } {
  const def: any = (s as any)._zod?.def;
  if (def?.type === 'optional') return { inner: def.innerType, optional: true };
  return { inner: s, optional: false };
}

const blobNote = (kind: FileKind) => kind === 'text'
  ? ' Or {"blob": "sha256:…"}: the same text uploaded with POST /api/blobs (any size up to the blob limit; the receipt seals the digest).'
  : ' Or {"blob": "sha256:…"}: the same JSON uploaded with POST /api/blobs (the receipt seals the digest).';

/** `own` with each of the solver's file fields replaced by `either(its own schema)`, optional as
 * before, its description noting the blob form. */
function extendFileFields(solver: string, own: z.ZodType, either: (inner: z.ZodType) => z.ZodType): z.ZodType {
  const fields = FILE_INPUTS[solver];
  if (!fields) return own;
  const shape = shapeOf(own);
  const ext: Record<string, z.ZodType> = {};
  for (const [field, kind] of Object.entries(fields)) {
    const orig = shape[field];
    if (!orig) throw new Error(`FILE_INPUTS: ${solver} has no input ${field}`);
    const { inner, optional } = unwrapOptional(orig);
    const e = either(inner);
    ext[field] = (optional ? e.optional() : e).describe(`${orig.description ?? ''}${blobNote(kind)}`);
  }
  return (own as any).safeExtend(ext);
}

/** A solver's own input schema with its file fields taking the blob form too, for validation:
 * an inline value is checked by the field's own schema (with its own messages); a blob reference
 * by BLOB_REF (its content is checked after it is read, `resolveBlobInputs`). */
export function withBlobInputs(solver: string, own: z.ZodType): z.ZodType {
  return extendFileFields(solver, own, (inner) => z.any().transform((v, ctx) => {
    const r = (isBlobRef(v) || (v && typeof v === 'object' && !Array.isArray(v) && 'blob' in v) ? BLOB_REF : inner).safeParse(v);
    if (r.success) return r.data;
    for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as (string | number)[] });
    return z.NEVER;
  }));
}

/** The same, for the JSON Schema of the operation (OpenAPI, MCP): each file field `anyOf` its own
 * schema and the blob form. */
export function withBlobInputsForSchema(solver: string, own: z.ZodType): z.ZodType {
  return extendFileFields(solver, own, (inner) => z.union([inner, BLOB_REF]));
}

/** Reads a blob of the caller (NOT_FOUND when the caller holds none of that name). */
export type BlobReader = (digest: string) => Promise<Uint8Array>;

/** A validated input with its blob references replaced by what they hold: text fields by their
 * bytes, JSON fields by the parsed value checked against the field's own schema (400 naming the
 * field). `blobs` records what the receipt seals for each. */
export async function resolveBlobInputs(solver: string, ownSchema: z.ZodType, input: Record<string, any>, read: BlobReader): Promise<{ input: Record<string, any>; blobs: Record<string, SealedBlob> }> {
  const fields = FILE_INPUTS[solver];
  const blobs: Record<string, SealedBlob> = {};
  if (!fields) return { input, blobs };
  let out = input;
  const shape = shapeOf(ownSchema);
  for (const [field, kind] of Object.entries(fields)) {
    const v = input[field];
    if (!isBlobRef(v)) continue;
    if (out === input) out = { ...input };
    const bytes = await read(v.blob);
    blobs[field] = { blob: v.blob, bytes: bytes.byteLength };
    if (kind === 'text') { out[field] = bytes; continue; }
    let parsed: unknown;
    try { parsed = JSON.parse(textOfBytes(bytes)); } catch (e: any) {
      throw new SvcError('INVALID_INPUT', `${field}: the blob ${v.blob} is not JSON: ${e?.message ?? e}`, { issues: [{ path: field, message: 'the blob is not JSON' }] });
    }
    const { inner } = unwrapOptional(shape[field]);
    const r = inner.safeParse(parsed);
    if (!r.success) {
      const issues = r.error.issues.slice(0, 50).map((i) => ({ path: [field, ...i.path.map(String)].join('.'), message: `${i.message} (in blob ${v.blob})` }));
      throw new SvcError('INVALID_INPUT', `invalid input: ${issues[0].path}: ${issues[0].message}`, { issues });
    }
    out[field] = r.data;
  }
  return { input: out, blobs };
}

/** The input as the solver run receives it: text fields its reader does not yet take as bytes are
 * decoded (DECODE_BEFORE_RUN). */
export function forRun(solver: string, own: Record<string, any>): Record<string, any> {
  const fields = DECODE_BEFORE_RUN[solver];
  if (!fields?.some((f) => own[f] instanceof Uint8Array)) return own;
  const out = { ...own };
  for (const f of fields) if (out[f] instanceof Uint8Array) out[f] = textOfBytes(out[f]);
  return out;
}

/** UTF-8 text of bytes, a byte-order mark kept (so a blob's text is the text it was made from). */
export function textOfBytes(b: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);
}

/** The seed derived from an input (the first 32 bits of the SHA-256 of its RFC 8785 JSON, as
 * `derivedSeed` in src/ops/solvers.ts), where text fields may be bytes: their text is hashed as
 * the JSON string it would be inline, decoded and escaped a piece at a time, so a blob input
 * derives the seed of the same input given inline without building a string of its size. */
export function derivedSeedOf(own: Record<string, any>): number {
  const texts = Object.entries(own).filter(([, v]) => v instanceof Uint8Array) as [string, Uint8Array][];
  const h = createHash('sha256');
  if (!texts.length) h.update(canonicalJson(own));
  else {
    const marks = new Map<string, Uint8Array>();
    const stand = { ...own };
    for (const [k, v] of texts) {
      const mark = `\u0000blob-${k}-${Math.random().toString(36).slice(2)}`;
      marks.set(JSON.stringify(mark), v);
      stand[k] = mark;
    }
    let rest = canonicalJson(stand);
    while (rest.length) {
      let next = -1, which = '';
      for (const m of marks.keys()) { const i = rest.indexOf(m); if (i !== -1 && (next === -1 || i < next)) { next = i; which = m; } }
      if (next === -1) { h.update(rest); break; }
      h.update(rest.slice(0, next));
      h.update('"');
      const bytes = marks.get(which)!;
      const dec = new TextDecoder('utf-8', { ignoreBOM: true });
      const STEP = 1 << 20;
      for (let at = 0; at < bytes.length; at += STEP) {
        const piece = dec.decode(bytes.subarray(at, Math.min(bytes.length, at + STEP)), { stream: at + STEP < bytes.length });
        if (piece) h.update(JSON.stringify(piece).slice(1, -1));
      }
      const tail = dec.decode();
      if (tail) h.update(JSON.stringify(tail).slice(1, -1));
      h.update('"');
      rest = rest.slice(next + which.length);
    }
  }
  return parseInt(h.digest('hex').slice(0, 8), 16) >>> 0;
}

/** a result field at most this large (RFC 8785 JSON) stays inline when the rest goes to a blob */
export const SMALL_RESULT_FIELD_BYTES = 1024;

/** What a sealed body too large to send inline becomes (docs/jobs.md "Blobs"): its headline
 * figures stay (value, precision and the rest of the body, and every result field that is a
 * scalar or a small object); the large result fields and the series go to one blob, the RFC 8785
 * JSON `{result: {…moved fields}, series?}`, named in the sealed result as
 * `result.blob = {blob, bytes, holds: ['result.frames', 'series', …]}`. Null when the body's
 * result and series together take at most `limitBytes`. */
export function splitLargeResult(body: Record<string, any>, limitBytes: number): { content: string; holds: string[]; keep: Record<string, unknown> } | null {
  const size = Buffer.byteLength(canonicalJson({ result: body.result ?? {}, series: body.series ?? null }));
  if (size <= limitBytes) return null;
  const keep: Record<string, unknown> = {};
  const moved: Record<string, unknown> = {};
  for (const [k, v] of Object.entries<unknown>(body.result ?? {})) {
    if (v === null || typeof v !== 'object' || Buffer.byteLength(canonicalJson(v)) <= SMALL_RESULT_FIELD_BYTES) keep[k] = v;
    else moved[k] = v;
  }
  const holds = [...Object.keys(moved).map((k) => `result.${k}`), ...(body.series ? ['series'] : [])];
  if (!holds.length) return null;
  return { content: canonicalJson({ result: moved, ...(body.series ? { series: body.series } : {}) }), holds, keep };
}

/** The full result and series of a sealed body whose large part is in a blob (`content`: the
 * blob's text), as the solver produced them; the verifier's replay compares these. */
export function joinLargeResult(result: Record<string, any>, content: string): { result: Record<string, unknown>; series?: unknown } {
  const { blob: _ref, ...keep } = result;
  const held = JSON.parse(content) as { result?: Record<string, unknown>; series?: unknown };
  return { result: { ...keep, ...(held.result ?? {}) }, ...(held.series !== undefined ? { series: held.series } : {}) };
}
