// The answers' shared parts, as zod 4 schemas read in 'output' mode: a sealed receipt and its
// blocks (precision, receipt, pulse state, tokens, signature), written once and used by every
// operation's `output` (OpenAPI response schemas and /docs; MCP output schemas). Each carries an
// `id` in its metadata, so JSON Schema puts it once under `$defs` (OpenAPI: components.schemas)
// and refers to it. The shapes are those of src/services/seal-batch.ts (the seal) and
// src/solvers/types.ts (a solver's output); test/api/openapi-responses.test.ts checks real answers
// against them.
import { z } from 'zod';
import { toOutputJsonSchema } from './schema.ts';

export const Precision = z.object({
  errorPct: z.number().describe('distance to the independent reference, in percent'),
  boundPct: z.number().describe('the ceiling the method promises, in percent (0.1 unless the method documents another)'),
  reference: z.string().describe('what the reference is, in words (e.g. "Black-Scholes closed form")'),
  withinBound: z.boolean().describe('errorPct <= boundPct (and any second check the solver makes); a result outside its bound is refused with 422 PRECISION_REFUSED unless the request sent acceptOutOfBound: true'),
  referenceValue: z.number().optional().describe('the reference value itself, when it is a number'),
  certificate: z.string().optional().describe('the certificate checked for a user-supplied problem: model, drat, mismatch, kkt or error-estimate'),
}).meta({ id: 'Precision', description: 'How far the value is from an independent reference (DESIGN §10).' });

export const Stability = z.object({
  number: z.number().describe('the stability number of the run'),
  limit: z.number().describe('its limit'),
  stable: z.boolean(),
  name: z.string().optional().describe("what the number is, e.g. 'r = alpha*dt*(1/dx^2+1/dy^2)'"),
}).meta({ id: 'Stability', description: "The scheme's stability number against its limit (explicit schemes)." });

export const ChainLink = z.object({
  seq: z.number().int().describe("position in the machine's chain (1 is the genesis entry)"),
  hash: z.string().describe('SHA-256 of the entry, hex'),
}).meta({ id: 'ChainLink', description: "An entry of the machine's hash chain (DESIGN §8)." });

export const Receipt = z.object({
  id: z.string().describe('rcpt_ followed by a ULID; GET /api/receipts/{id} reads it back'),
  version: z.number().int().describe('seal version: 2 signs value and unit, 1 does not'),
  issuedAt: z.string().describe('ISO 8601 instant of the seal'),
  folder: z.string().describe('the folder it is filed in'),
  chain: ChainLink,
  issuer: z.string().optional().describe("the node's base URL"),
  jwks_uri: z.string().optional().describe('the keys that verify checkpoints, attestations and v3 signatures'),
  digest: z.string().optional().describe("hex SHA-256 of the canonical sealed body: the receipt's entry in the transparency log"),
  log: z.object({
    index: z.number().int().describe('the leaf index'),
    treeSize: z.number().int().describe('the size of the checkpoint the proof leads to'),
    inclusionProof: z.array(z.string()).describe('base64 hashes, RFC 6962 §2.1.1 order'),
    checkpoint: z.string().describe('the signed checkpoint (c2sp.org signed note)'),
  }).optional().describe("the receipt's place in the deployment's transparency log (docs/verify.md)"),
}).meta({ id: 'Receipt', description: 'Where the sealed answer is filed and anchored.' });

export const SvcState = z.object({
  masterSum: z.number().describe('R(t) at the sealed instant (the pulse sum of the operator chain)'),
  operators: z.array(z.string()).describe('the operator chain sealed with the value, KO42 first'),
  svcond: z.number().int().describe('the time-step counter (one step is 0.777 s)'),
}).meta({ id: 'SvcState', description: 'The pulse state the proof binds (DESIGN §6).' });

export const Tokens = z.object({
  cost: z.number().describe('compute tokens this call charged'),
  remaining: z.number().describe('tokens the machine has left today (UTC)'),
}).meta({ id: 'Tokens', description: 'What the call cost the machine.' });

export const ReceiptSignature = z.object({
  v: z.literal(3),
  alg: z.literal('EdDSA'),
  kid: z.string().describe('the signing key in /.well-known/jwks.json'),
  sig: z.string().describe('base64url Ed25519 signature over the RFC 8785 canonical JSON of the response without `signature`'),
}).meta({ id: 'ReceiptSignature', description: 'Ed25519 signature of the whole sealed response; verifies offline against the JWKS.' });

/** The fields the seal adds to every sealed answer (src/services/seal-batch.ts). */
const sealFields = {
  svcState: SvcState,
  phase: z.number().describe('pulse phase at the sealed instant, radians'),
  t: z.number().describe('the sealed instant, unix seconds'),
  svcProof: z.string().describe('HMAC-SHA256 proof over the operator chain, R(t), svcond, key prefix (and, v2, value and unit); 64 hex characters. POST /api/svc/verify checks it'),
  keyPrefix: z.string().describe("the sealing key's public prefix"),
  receipt: Receipt,
  tokens: Tokens,
  signature: ReceiptSignature.optional(),
};

const header = {
  ok: z.literal(true),
  solver: z.string().describe('what computed the value (the solver, or compute, lattice, shift, unified, contract)'),
  domain: z.string().describe('the science domain label'),
  method: z.string().describe('the method actually used'),
};

/** Any sealed answer: a value with its unit, whatever made it, and the seal. Operations that
 * seal something other than a solver result (shift, compute, lattice, unified) extend it. */
export const SealedReceipt = z.looseObject({
  ...header,
  value: z.number().nullable().describe('the sealed value (null for a v1 seal that has none)'),
  unit: z.string().nullable().describe('its unit'),
  result: z.record(z.string(), z.unknown()).optional().describe('the full result'),
  precision: Precision.optional(),
  ...sealFields,
}).meta({ id: 'SealedReceipt', description: 'A sealed answer of any kind: value and unit, the result, and the seal (proof, pulse state, receipt, chain link, tokens, signature).' });

/** A solver's sealed result (POST /api/svc/<solver>): DESIGN §10's one result shape. */
export const SealedResult = z.object({
  ...header,
  value: z.number().describe('the headline value (finite; a non-finite value is never sealed)'),
  unit: z.string().describe("the value's unit"),
  result: z.record(z.string(), z.unknown()).describe("every figure the solver computed (each solver's fields: see its operation)"),
  series: z.record(z.string(), z.array(z.number())).optional().describe('arrays of equal length, abscissa first, downsampled to `sample` points (default 200)'),
  precision: Precision,
  stability: Stability.optional(),
  clamped: z.record(z.string(), z.object({ given: z.number(), used: z.number() })).optional().describe('inputs clamped to their range: what was given and what was used'),
  seed: z.number().int().describe("the random seed used (the input's own seed, else derived from the input)"),
  input: z.record(z.string(), z.unknown()).describe("the solver's own input as used (defaults filled in)"),
  consts: z.record(z.string(), z.number()).optional(),
  query: z.string().optional().describe('the natural-language description sent with the request'),
  acceptOutOfBound: z.literal(true).optional().describe('present when the request asked to seal a result outside its bound'),
  ...sealFields,
}).meta({ id: 'SealedResult', description: "A solver's sealed result: value, unit and precision, the full result and series, the input as used, and the seal." });

/** `{ ok: true }` plus the given fields. */
export const okWith = <T extends z.ZodRawShape>(shape: T) => z.object({ ok: z.literal(true), ...shape });

/** A JSON object whose fields are not fixed (a contract definition, a paper's ids, …). */
export const anyObject = () => z.record(z.string(), z.unknown());

let sealedResultJson: Record<string, any> | null = null;
/** JSON Schema of SealedResult with its `$defs` (for solver outputs, built as JSON). */
export function sealedResultJsonSchema(): Record<string, any> {
  sealedResultJson ??= toOutputJsonSchema(z.object({ x: SealedResult }));
  return sealedResultJson;
}
