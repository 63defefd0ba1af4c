// svc_reactor: recursive sealed environment-driven compute loops (issue 10; schemas and
// semantics in docs/live-compute.md).
//   POST /api/reactor          run a loop (tool svc_reactor)
//   POST /api/reactor/verify   check a run's Merkle root (from its leaves, its receipts, or one inclusion proof)
//   GET  /api/reactor/:id      a stored run
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { verifyProof } from '../core/seal.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { folderField } from './schema.ts';
import { MAX_DEPTH, runReactor, type ReactorInput } from '../live/reactor.ts';
import { HEX64, fromHex, leafHash, rootOfLeafHashes, verifyInclusion } from '../live/merkle.ts';
import { NAME_RE } from '../live/expr.ts';
import { CREATES } from './tool-hints.ts';
import { okWith, SealedReceipt, Tokens } from './outputs.ts';

const reactorRun = okWith({
  run: z.string().describe('rx_…; GET /api/reactor/{id} reads the run back'),
  mode: z.enum(['solver', 'operator', 'expr']),
  source: z.record(z.string(), z.unknown()),
  steps: z.number().int(),
  stopped: z.looseObject({ reason: z.string().describe('until, max-depth, diverged, time-budget or refused'), atStep: z.number().int().optional() }),
  t0: z.number(),
  svcondSeconds: z.number(),
  trajectory: z.array(z.looseObject({
    step: z.number().int(), t: z.number(), svcond: z.number().int(), phase: z.number(), R_t: z.number(),
    inputs: z.record(z.string(), z.number()),
    state: z.record(z.string(), z.number()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    value: z.number(), unit: z.string().nullable(),
    receipt: z.looseObject({ id: z.string(), svcProof: z.string(), operators: z.array(z.string()), R_t: z.number(), svcond: z.number().int(), keyPrefix: z.string() }),
    inclusion: z.array(z.string()).describe('the Merkle inclusion path of this step'),
  })),
  merkle: z.object({ root: z.string(), size: z.number().int(), scheme: z.string(), leaf: z.string(), verify: z.string() }),
  final: SealedReceipt.describe("the last step's sealed receipt"),
  tokens: Tokens.partial(),
  expressions: z.string().describe('the expression compiler used'),
}).meta({ id: 'ReactorRun', description: 'A recursive sealed loop: its trajectory, why it stopped, its Merkle root and last receipt.' });

const expression = z.string().min(1).max(500);
const hex64 = z.string().regex(HEX64, '64 lower-case hex characters');
const finite = z.number().finite();
const name = z.string().regex(NAME_RE, 'a name: a letter or _, then letters, digits or _ (at most 32)');
const atMost = (n: number) => (o: Record<string, unknown> | undefined) => !o || Object.keys(o).length <= n;

const reactorInput = z.strictObject({
  solver: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a solver name such as "epi"').optional()
    .describe('step function: a solver (one of solver, operator, expr)'),
  operator: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'an operator id').optional()
    .describe('step function: a catalog operator (one of solver, operator, expr)'),
  expr: z.record(name, expression).optional()
    .describe('step function: a pure expression map, state name → expression of the previous state, params and the environment (logistic map: {"x": "r*x*(1-x)"})'),
  inputs: z.record(z.string().max(64), finite)
    .describe('the first step\'s inputs: the initial state (expr), the evolving numeric fields of the solver, or the operator\'s inputs'),
  body: z.record(z.string().max(64), z.unknown()).optional().describe('solver only: fixed fields of every step\'s request body'),
  params: z.record(name, finite).optional().describe('constants every expression may read (r of the logistic map)'),
  map: z.record(name, expression).optional()
    .describe('solver/operator: next step\'s inputs, input name → expression of the previous inputs, value, result_<field>, params and the next step\'s environment; unmapped inputs carry over'),
  value: expression.optional().describe('expr only: the sealed value of a step, an expression of the new state (default: the first state variable)'),
  unit: z.string().min(1).max(32).optional().describe('expr only: the unit of the sealed value (default "1")'),
  until: expression.optional().describe('stop condition, evaluated after each step; the run stops after the first step where it holds'),
  maxDepth: z.number().int().min(1).max(MAX_DEPTH).default(16).describe(`maximum number of steps, 1 to ${MAX_DEPTH}`),
  folder: folderField.describe('folder every step receipt is filed in (default "default")'),
}).refine((v) => [v.solver, v.operator, v.expr].filter((x) => x !== undefined).length === 1, { message: 'give exactly one of solver, operator or expr', path: ['expr'] })
  .refine((v) => v.expr === undefined || (Object.keys(v.expr).length >= 1 && Object.keys(v.expr).length <= 16), { message: 'expr has 1 to 16 entries', path: ['expr'] })
  .refine((v) => v.expr === undefined || v.map === undefined, { message: 'map is for a solver or operator; an expr step maps itself', path: ['map'] })
  .refine((v) => v.expr !== undefined || (v.value === undefined && v.unit === undefined), { message: 'value and unit are for an expr step; a solver or operator has its own', path: ['value'] })
  .refine((v) => v.solver !== undefined || v.body === undefined, { message: 'body is for a solver', path: ['body'] })
  .refine((v) => atMost(32)(v.inputs) && atMost(32)(v.params) && atMost(16)(v.map), { message: 'at most 32 inputs, 32 params and 16 map entries', path: ['inputs'] });

const receiptShape = z.object({
  svcProof: hex64,
  svcState: z.object({ masterSum: finite, operators: z.array(z.string().max(128)).min(1).max(64), svcond: z.number().int().min(0) }),
  keyPrefix: z.string().max(64),
  value: finite,
  unit: z.string().max(64).nullable(),
});

const verifyInput = z.strictObject({
  root: hex64.describe('the run\'s merkle.root'),
  leaves: z.array(hex64).min(1).max(MAX_DEPTH).optional().describe('the step receipts\' svcProofs in step order'),
  receipts: z.array(receiptShape).min(1).max(MAX_DEPTH).optional()
    .describe('the step receipts in step order (as returned in final/trajectory, or read back from the folder); each proof is checked too'),
  inclusion: z.strictObject({
    leaf: hex64.describe('one step receipt\'s svcProof'),
    index: z.number().int().min(0).max(MAX_DEPTH - 1),
    size: z.number().int().min(1).max(MAX_DEPTH),
    path: z.array(hex64).max(8),
  }).optional().describe('one step: its svcProof, step index, run size and inclusion path'),
}).refine((v) => [v.leaves, v.receipts, v.inclusion].filter((x) => x !== undefined).length === 1, { message: 'give exactly one of leaves, receipts or inclusion', path: ['leaves'] });

export const operations: Operation[] = [
  defineOp({
    id: 'reactor.run',
    tool: 'svc_reactor',
    title: 'Run a sealed loop',
    brief: 'A sealed loop: a solver, operator or expressions re-run on mapped outputs until a stop condition holds.',
    hints: CREATES,
    toolOutput: z.object({ run: z.string(), steps: z.number(), trajectory: z.array(z.object({ step: z.number() })), merkle: z.object({ root: z.string() }) }),
    method: 'POST',
    path: '/api/reactor',
    access: 'key',
    cost: 'steps (1 per sealed step)',
    tag: 'live',
    summary: 'Run a recursive sealed compute loop: a solver, catalog operator or expression map applied step after step, outputs mapped to the next inputs by sandboxed expressions of the environment (t, phase, svcond, R_t, step), until a stop condition holds or maxDepth (at most 64) steps ran.',
    description: 'Step k uses the fixed instant t0 + k*0.777 s, so the trajectory is a pure function of the request when the expressions do not read the pulse. Every step is sealed (v2, one token); a diverging loop stops at its last finite step and nothing non-finite is sealed. Returns the trajectory, the final receipt and an RFC 6962 Merkle root over the step receipts\' svcProofs, with an inclusion path per step; POST /api/reactor/verify checks it.',
    input: reactorInput,
    output: reactorRun,
    handler: (input, ctx) => runReactor(input as ReactorInput, ctx),
  }),
  defineOp({
    id: 'reactor.verify',
    method: 'POST',
    path: '/api/reactor/verify',
    access: 'key',
    tag: 'live',
    summary: 'Verify a reactor run\'s Merkle root: from all its leaves (svcProofs), from its step receipts (each proof is checked as well), or from one step\'s inclusion path.',
    input: verifyInput,
    output: okWith({
      valid: z.boolean(),
      mode: z.enum(['inclusion', 'leaves', 'receipts']),
      size: z.number().int(),
      index: z.number().int().optional(),
      computedRoot: z.string().optional(),
      rootValid: z.boolean().optional(),
      proofs: z.array(z.boolean()).optional().describe('receipts: each step proof checked'),
    }),
    async handler(input, ctx) {
      const root = fromHex(input.root);
      if (input.inclusion) {
        const { leaf, index, size, path } = input.inclusion;
        const valid = index < size && verifyInclusion(leafHash(fromHex(leaf)), index, size, path.map(fromHex), root);
        return { ok: true, valid, mode: 'inclusion', index, size };
      }
      if (input.leaves) {
        const computed = rootOfLeafHashes(input.leaves.map((l) => leafHash(fromHex(l))));
        return { ok: true, valid: computed.equals(root), mode: 'leaves', size: input.leaves.length, computedRoot: computed.toString('hex') };
      }
      const receipts = input.receipts!;
      const computed = rootOfLeafHashes(receipts.map((r) => leafHash(fromHex(r.svcProof))));
      const proofs = receipts.map((r) => verifyProof(ctx.app.sealer.proofKey, r.svcProof, {
        operatorIds: r.svcState.operators, R_t: r.svcState.masterSum, svcond: r.svcState.svcond, keyPrefix: r.keyPrefix, value: r.value, unit: r.unit ?? '',
      }));
      const rootValid = computed.equals(root);
      return { ok: true, valid: rootValid && proofs.every(Boolean), mode: 'receipts', size: receipts.length, rootValid, proofs, computedRoot: computed.toString('hex') };
    },
  }),
  defineOp({
    id: 'reactor.get',
    method: 'GET',
    path: '/api/reactor/:id',
    access: 'key',
    tag: 'live',
    summary: 'A stored reactor run of the caller: trajectory, stop reason, Merkle root and final receipt.',
    input: z.strictObject({ id: z.string().regex(/^rx_[0-9A-HJKMNP-TV-Z]{26}$/, 'a run id: rx_ followed by 26 Crockford base32 characters') }),
    output: reactorRun,
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const rows = await ctx.app.db.query<{ body: string }>('SELECT body FROM reactor_runs WHERE id = $1 AND zid = $2', [input.id, zid]);
      if (!rows.length) throw new SvcError('NOT_FOUND', `reactor run ${input.id} not found`);
      return JSON.parse(rows[0].body);
    },
  }),
];
