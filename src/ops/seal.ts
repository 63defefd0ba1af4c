// Clock and seal operations (DESIGN §6, §7): pulse, shift, verify, field status.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { ALPHA, PULSE_HZ, SVCOND_SECONDS, pulseAt } from '../core/clock.ts';
import { verifyProof, PROOF_INFO, PROOF_SALT } from '../core/seal.ts';
import { assertMachineCaller, SCRYPT_PARAMS } from '../services/identity.ts';
import { folderField } from './schema.ts';
import { LOOKUP, SEALING, sealedResult } from './tool-hints.ts';
import { okWith, SealedReceipt } from './outputs.ts';

const finite = z.number().finite();

export const operations: Operation[] = [
  defineOp({
    id: 'pulse.get',
    tool: 'svc_pulse',
    title: 'Pulse state',
    brief: "The node's pulse now: t, svcond (a 0.777 s counter), phase and R_t.",
    hints: LOOKUP,
    toolOutput: z.object({ t: z.number(), svcond: z.number(), phase: z.number(), R_t: z.number() }),
    method: 'GET',
    path: '/api/svc/pulse',
    access: 'public',
    tag: 'seal',
    summary: 'Current pulse state: time-step counter (svcond), phase and R(t).',
    input: z.strictObject({}),
    output: okWith({
      t: z.number().describe('now, unix seconds'),
      svcond: z.number().int().describe('time-step counter: whole 0.777 s steps since the epoch'),
      phase: z.number().describe('phase of the 1.287 Hz pulse, radians'),
      R_t: z.number().describe('R(t), the pulse sum'),
      f: z.number().describe('pulse frequency, Hz'),
      svcondSeconds: z.number().describe('length of one time step, seconds'),
      alpha: z.number().describe('modulation depth'),
    }),
    async handler(_i, ctx) {
      const p = pulseAt(ctx.app.clock.now());
      return { ok: true, t: p.t, svcond: p.svcond, phase: p.phase, R_t: p.R_t, f: PULSE_HZ, svcondSeconds: SVCOND_SECONDS, alpha: ALPHA };
    },
  }),
  defineOp({
    id: 'pulse.shift',
    tool: 'svc_shift',
    title: 'Project the pulse forward',
    brief: 'Sealed forward projection of the pulse R(t), one 0.777 s step per token.',
    hints: SEALING,
    toolOutput: sealedResult({ precision: false }),
    method: 'POST',
    path: '/api/svc/shift',
    access: 'key',
    scope: 'compute',
    cost: 'steps (1 per step)',
    tag: 'seal',
    summary: 'Forward projection of R(t): each step advances 0.777 s and returns t, phase, svcond, R_t and delta (0 at step 0). Sealed; one token per step.',
    input: z.strictObject({
      steps: z.number().int().min(1).max(64).default(16),
      domain: z.string().min(1).max(120).default('Quantum Mechanics'),
      inputs: z.record(z.string().max(64), finite).optional(),
      folder: folderField,
    }),
    output: SealedReceipt.extend({
      value: z.number().describe('R(t) at the last step'),
      unit: z.literal('1'),
      result: z.object({
        steps: z.number().int(),
        projection: z.array(z.object({ step: z.number().int(), t: z.number(), phase: z.number(), svcond: z.number().int(), R_t: z.number(), delta: z.number().describe('R_t minus R_t at step 0') })),
        inputs: z.record(z.string(), z.number()).optional(),
      }),
    }),
    async handler(input, ctx) {
      const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
      const t0 = ctx.app.clock.now();
      const p0 = pulseAt(t0);
      const projection: { step: number; t: number; phase: number; svcond: number; R_t: number; delta: number }[] = [];
      for (let k = 0; k < input.steps; k++) {
        const t = Math.round((t0 + k * SVCOND_SECONDS) * 1000) / 1000;
        const p = pulseAt(t);
        projection.push({ step: k, t, phase: p.phase, svcond: p.svcond, R_t: p.R_t, delta: k === 0 ? 0 : p.R_t - p0.R_t });
      }
      const last = projection[projection.length - 1];
      return ctx.app.sealer.seal({
        zid, keyPrefix, solver: 'shift', domain: input.domain, method: 'pulse-projection',
        operators: ['KO42'], version: 2, value: last.R_t, unit: '1',
        body: { result: { steps: input.steps, projection, ...(input.inputs ? { inputs: input.inputs } : {}) } },
        folder: input.folder, cost: input.steps, t: t0,
      });
    },
  }),
  defineOp({
    id: 'seal.verify',
    tool: 'svc_verify',
    title: 'Verify a seal proof',
    brief: "Check a receipt's svcProof against its signed fields (operators, R_t, svcond, keyPrefix, value, unit).",
    hints: LOOKUP,
    toolOutput: z.object({ valid: z.boolean(), version: z.number() }),
    method: 'POST',
    path: '/api/svc/verify',
    access: 'key',
    scope: 'compute',
    tag: 'seal',
    summary: 'Check a seal proof: valid true or false. Checks integrity, not the physics. With value it checks a v2 proof, else v1.',
    input: z.strictObject({
      proof: z.string().regex(/^[0-9a-f]{64}$/, 'proof: 64 lowercase hex characters (an HMAC-SHA256)').describe('the svcProof of the receipt: 64 lowercase hex characters'),
      operatorIds: z.array(z.string().min(1, 'an operator id is not empty').max(128).regex(/^[^,]*$/, 'an operator id contains no "," (ids are joined by "," in the proof message)'))
        .min(1).max(64).describe('the operator ids of the receipt (svcState.operators), in order; none empty, none containing ","'),
      R_t: finite,
      zeqond: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('the time-step counter (svcond)'),
      svcond: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('alias of zeqond'),
      keyPrefix: z.string().max(64).optional().describe("the signer's key prefix (default: the caller's)"),
      value: finite.optional(),
      unit: z.string().max(64).optional(),
    }).refine((v) => v.zeqond !== undefined || v.svcond !== undefined, { message: 'zeqond (or svcond) is required', path: ['zeqond'] })
      .refine((v) => v.zeqond === undefined || v.svcond === undefined || v.zeqond === v.svcond, { message: 'zeqond and svcond differ', path: ['svcond'] }),
    output: okWith({
      valid: z.boolean().describe('the proof matches these fields under this node\'s seal key'),
      version: z.union([z.literal(1), z.literal(2)]).describe('2 when value was given (value and unit are part of the proof)'),
      keyPrefix: z.string().describe('the key prefix the proof was checked for'),
    }),
    async handler(input, ctx) {
      const keyPrefix = input.keyPrefix ?? ctx.caller!.keyPrefix;
      const svcond = (input.zeqond ?? input.svcond) as number;
      const version = input.value !== undefined ? 2 : 1;
      const valid = verifyProof(ctx.app.sealer.proofKey, input.proof, {
        operatorIds: input.operatorIds, R_t: input.R_t, svcond, keyPrefix,
        ...(version === 2 ? { value: input.value, unit: input.unit ?? '' } : {}),
      });
      return { ok: true, valid, version, keyPrefix };
    },
  }),
  defineOp({
    id: 'seal.field-status',
    tool: 'svc_field_status',
    title: 'Seal settings',
    brief: 'How seals are made: algorithms, key derivation and proof settings (never a secret).',
    hints: LOOKUP,
    toolOutput: z.object({ cipher: z.string(), protocolVersions: z.array(z.string()) }),
    method: 'GET',
    path: '/api/svc/field-status',
    access: 'public',
    tag: 'seal',
    summary: 'Cipher algorithm, key source, protocol versions, key-derivation parameters and proof HMAC settings (never the secret).',
    input: z.strictObject({}),
    output: okWith({
      cipher: z.string(),
      keySource: z.string(),
      protocolVersions: z.array(z.string()),
      keyDerivation: z.object({ algorithm: z.string(), standard: z.string(), salt: z.string(), info: z.string(), length: z.number().int() }),
      proofHmac: z.object({
        algorithm: z.string(), standard: z.string(), encoding: z.string(), length: z.number().int(), comparison: z.string(),
        message: z.object({ v1: z.array(z.string()), v2: z.array(z.string()), separator: z.string() }),
      }),
      recovery: z.looseObject({ algorithm: z.string(), standard: z.string() }).describe('how the recovery equation is stored: scrypt with these parameters'),
      keys: z.object({ storage: z.string(), prefix: z.string() }),
    }),
    async handler(_i, ctx) {
      return {
        ok: true,
        cipher: 'HMAC-SHA256',
        keySource: ctx.app.config.sealSecretSource === 'env' ? 'environment (SVC_SEAL_SECRET)' : ctx.app.config.sealSecretSource === 'data-dir' ? 'generated into the data directory' : 'ephemeral (in memory)',
        protocolVersions: ['svc-proof/v1', 'svc-proof/v2'],
        keyDerivation: { algorithm: 'HKDF-SHA256', standard: 'RFC 5869', salt: PROOF_SALT, info: PROOF_INFO, length: 32 },
        proofHmac: {
          algorithm: 'HMAC-SHA256', standard: 'RFC 2104', encoding: 'hex', length: 64, comparison: 'constant-time',
          message: {
            v1: ['svc-proof/v1', 'operator ids joined by ","', 'String(R_t)', 'svcond', 'keyPrefix'],
            v2: ['svc-proof/v2', 'operator ids joined by ","', 'String(R_t)', 'svcond', 'keyPrefix', 'String(value)', 'unit'],
            separator: '\\n',
          },
        },
        recovery: { algorithm: 'scrypt', standard: 'RFC 7914', ...SCRYPT_PARAMS },
        keys: { storage: 'SHA-256 hash', prefix: 'svc_ak_' },
      };
    },
  }),
];
