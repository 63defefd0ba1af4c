// State-contract operations (issue 7): templates, generation, deploy, list, get, fire, the
// published definition schema and the foundation state machine. The runtime lives in
// src/contracts/; these declarations only validate, authorise and delegate.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { DEFINITION_JSON_SCHEMA, MAX_DEFINITION_BYTES, VAR_NAME_RE } from '../contracts/definition.ts';
import { listTemplates, getTemplate } from '../contracts/templates.ts';
import { folderField } from './schema.ts';
import { deployContract, listContracts, getContract, fireContract, FIRE_COST } from '../contracts/runtime.ts';
import { generateDefinition } from '../contracts/generate.ts';
import { FOUNDATION, foundationStatus } from '../contracts/foundation.ts';
import { CREATES, LOOKUP, SEALING } from './tool-hints.ts';
import { okWith, anyObject, ChainLink, SealedReceipt } from './outputs.ts';

const definition = anyObject().describe('a contract definition (JSON Schema: GET /api/contracts/schema)');
const variables = z.record(z.string(), z.union([z.number(), z.boolean(), z.string()]));
const nextTransitions = z.array(z.object({ name: z.string(), to: z.string(), guard: z.string().optional(), operators: z.array(z.string()).optional() }))
  .describe('the transitions that leave the current state, in definition order');
const contractSummary = {
  id: z.string(), name: z.string(), templateId: z.string().nullable(), state: z.string(), fireCount: z.number().int(), terminal: z.boolean(),
  createdAt: z.string(), updatedAt: z.string(),
};

const varValue = z.union([z.number().finite(), z.boolean(), z.string().max(256)]);
const variablesField = z.record(z.string().regex(VAR_NAME_RE, 'a variable name matches ' + VAR_NAME_RE.source), varValue);
const contractId = z.string().min(1).max(100).describe('contract id (ct_…)');

export const operations: Operation[] = [
  defineOp({
    id: 'contracts.generate',
    tool: 'svc_contract_generate',
    title: 'Draft a contract',
    brief: 'Draft a contract definition from a plain-English description (deterministic; nothing is stored).',
    hints: LOOKUP,
    toolOutput: z.object({ definition: z.object({ name: z.string() }), assumptions: z.array(z.string()) }),
    method: 'POST',
    path: '/api/contracts/generate',
    access: 'key',
    tag: 'contracts',
    summary: 'Draft a contract definition from plain English (deterministic: no network, no model). Returns a definition that svc_contract_deploy accepts as is, the templates it started from and the assumptions it made.',
    input: z.strictObject({ query: z.string().min(8).max(600).describe('the workflow in plain English, 8 to 600 characters') }),
    output: okWith({
      definition,
      assumptions: z.array(z.string()).describe('what the generator assumed'),
      basedOn: z.unknown().describe('the templates it started from'),
      recognised: z.unknown().describe('what it recognised in the text'),
      happyPath: z.object({ variables, fireVariables: z.array(variables).describe('the variables sent with each fire'), transitions: z.array(z.string()), terminal: z.string(), waitSeconds: z.array(z.number()) })
        .describe('a simulated run from the initial state to a terminal one'),
    }),
    async handler(input, ctx) {
      assertMachineCaller(ctx.caller);
      return { ok: true, ...generateDefinition(input.query) };
    },
  }),
  defineOp({
    id: 'contracts.templates',
    tool: 'svc_contract_templates',
    title: 'Contract templates',
    brief: 'The built-in contract templates: id and name.',
    hints: LOOKUP,
    toolOutput: z.object({ count: z.number(), templates: z.array(z.object({ id: z.string(), name: z.string() })) }),
    method: 'GET',
    path: '/api/contracts/templates',
    access: 'key',
    tag: 'contracts',
    summary: 'The 321 built-in contract templates (id and name); GET /api/contracts/templates/{id} gives one definition.',
    input: z.strictObject({}),
    output: okWith({
      count: z.number().int(),
      templates: z.array(z.object({ id: z.string(), name: z.string(), category: z.string() })),
    }),
    async handler(_i, ctx) {
      assertMachineCaller(ctx.caller);
      const list = listTemplates();
      return { ok: true, count: list.length, templates: list.map((t) => ({ id: t.id, name: t.name, category: t.category })) };
    },
  }),
  defineOp({
    id: 'contracts.template',
    method: 'GET',
    path: '/api/contracts/templates/:id',
    access: 'key',
    tag: 'contracts',
    summary: 'One built-in template: its definition, ready for svc_contract_deploy.',
    input: z.strictObject({ id: z.string().min(1).max(100) }),
    output: okWith({ id: z.string(), name: z.string(), category: z.string(), definition }),
    async handler(input, ctx) {
      assertMachineCaller(ctx.caller);
      const t = getTemplate(input.id);
      if (!t) throw new SvcError('NOT_FOUND', `no contract template '${input.id}'`);
      return { ok: true, id: t.id, name: t.name, category: t.category, definition: t.definition };
    },
  }),
  defineOp({
    id: 'contracts.schema',
    produces: ['application/schema+json'],
    method: 'GET',
    path: '/api/contracts/schema',
    access: 'public',
    tag: 'contracts',
    title: 'Contract definition JSON Schema',
    summary: 'The JSON Schema (draft 2020-12) of a contract definition.',
    input: z.strictObject({}),
    output: anyObject().describe('a JSON Schema (draft 2020-12)'),
    async handler() {
      return {
        raw: true,
        headers: { 'content-type': 'application/schema+json; charset=utf-8' },
        body: JSON.stringify(DEFINITION_JSON_SCHEMA),
      };
    },
  }),
  defineOp({
    id: 'contracts.deploy',
    tool: 'svc_contract_deploy',
    title: 'Deploy a contract',
    brief: 'Deploy a contract from a template id or a definition; anchored on your chain.',
    hints: CREATES,
    toolOutput: z.object({ id: z.string(), state: z.string(), fireCount: z.number(), terminal: z.boolean() }),
    method: 'POST',
    path: '/api/contracts',
    access: 'key',
    tag: 'contracts',
    bodyLimit: MAX_DEFINITION_BYTES + 16 * 1024,
    summary: 'Deploy a contract from a built-in template (templateId) or a definition (which must include version); exactly one. The definition is validated completely (400 with the path of every problem; 413 above 256 KiB). The deploy is anchored on the machine\'s chain, and so is every transition.',
    input: z.strictObject({
      templateId: z.string().min(1).max(100).optional().describe('one of the 321 built-in templates'),
      definition: z.record(z.string(), z.unknown()).optional().describe('a definition per GET /api/contracts/schema; must include version'),
      variables: variablesField.optional().describe('initial values overriding the definition\'s variables (declared names, same types)'),
      name: z.string().min(1).max(120).optional().describe('a name for this contract (default: the definition\'s)'),
    }),
    output: okWith({
      id: z.string().describe('ct_…'), name: z.string(), templateId: z.string().nullable(), version: z.string(), state: z.string(),
      fireCount: z.number().int(), terminal: z.boolean(), variables, definitionHash: z.string(),
      chain: ChainLink.describe('the deploy entry on the machine\'s chain'),
      next: nextTransitions,
    }),
    async handler(input, ctx) {
      const who = assertMachineCaller(ctx.caller);
      return deployContract(ctx.app, who, input);
    },
  }),
  defineOp({
    id: 'contracts.list',
    tool: 'svc_contract_list',
    title: 'List contracts',
    brief: 'Your contracts, newest first: id, name, state, fire count.',
    hints: LOOKUP,
    toolOutput: z.object({ total: z.number(), contracts: z.array(z.object({ id: z.string(), state: z.string() })) }),
    method: 'GET',
    path: '/api/contracts',
    access: 'key',
    tag: 'contracts',
    summary: 'The caller\'s contracts, newest first: id, name, current state, fire count.',
    input: z.strictObject({
      limit: z.number().int().min(1).max(500).default(100),
      before: z.string().min(1).max(100).optional().describe('cursor: the `next` of the previous page'),
    }),
    output: okWith({
      total: z.number().int(),
      contracts: z.array(z.object(contractSummary)),
      next: z.string().nullable().describe('the `before` of the next page (null: no more)'),
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      return listContracts(ctx.app, zid, input);
    },
  }),
  defineOp({
    id: 'contracts.get',
    tool: 'svc_contract_get',
    title: 'Get a contract',
    brief: 'One of your contracts: state, definition, the transitions available now and its history.',
    hints: LOOKUP,
    toolOutput: z.object({ id: z.string(), state: z.string(), fireCount: z.number(), terminal: z.boolean() }),
    method: 'GET',
    path: '/api/contracts/:id',
    access: 'key',
    tag: 'contracts',
    summary: 'Full state and definition of one of the caller\'s contracts, with the transitions available now and its fire history.',
    input: z.strictObject({ id: contractId }),
    output: okWith({
      ...contractSummary,
      version: z.string(), variables, enteredAt: z.number(), deployedAt: z.number(), definitionHash: z.string(), deployChainSeq: z.number().int(),
      next: nextTransitions,
      history: z.array(z.object({ seq: z.number().int(), transition: z.string(), from: z.string(), to: z.string(), receiptId: z.string(), chainSeq: z.number().int(), t: z.number() })),
      definition,
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      return getContract(ctx.app, zid, input.id);
    },
  }),
  defineOp({
    id: 'contracts.fire',
    tool: 'svc_contract_fire',
    title: 'Fire a contract transition',
    brief: "Fire a contract's next transition whose guard passes: sealed, or fired: false with the reason.",
    hints: SEALING,
    toolOutput: z.object({ fired: z.boolean() }).describe('fired true: the transition, the new state and a sealed receipt; fired false: reason, guard and values'),
    method: 'POST',
    path: '/api/contracts/:id/fire',
    access: 'key',
    cost: FIRE_COST,
    precheckTokens: false,
    tag: 'contracts',
    summary: 'Fire the contract\'s next transition: the first transition leaving the current state (in definition order) whose guard passes. Returns a v1 seal receipt anchored on the chain. A blocked guard fires nothing and answers 200 {ok: true, fired: false, reason, guard, values}.',
    input: z.strictObject({
      id: contractId,
      transition: z.string().min(1).max(64).optional().describe('fire only this transition (it must leave the current state; its guard still applies)'),
      variables: variablesField.optional().describe('variable updates applied before the guards; kept only if a transition fires'),
      folder: folderField.describe('folder the fire\'s receipt is filed in (default "contracts")'),
    }),
    output: z.union([
      SealedReceipt.extend({
        fired: z.literal(true),
        contract: z.looseObject({ id: z.string(), state: z.string(), previousState: z.string(), fireCount: z.number().int(), terminal: z.boolean(), variables }),
        transition: z.object({ name: z.string(), from: z.string(), to: z.string(), index: z.number().int() }),
        guard: z.object({ expression: z.string(), values: anyObject() }).nullable(),
        operatorOutputs: anyObject().optional(),
        next: nextTransitions,
      }).describe('a transition fired: its v1 seal receipt'),
      okWith({
        fired: z.literal(false),
        reason: z.string(), guard: z.unknown(), values: z.unknown(), blocked: z.unknown(),
        contract: z.object({ id: z.string(), name: z.string(), state: z.string(), fireCount: z.number().int(), terminal: z.boolean() }),
        next: nextTransitions,
      }).describe('no guard passed: nothing fired, nothing charged'),
    ]),
    async handler(input, ctx) {
      const who = assertMachineCaller(ctx.caller);
      return fireContract(ctx.app, who, input.id, { transition: input.transition, variables: input.variables, folder: input.folder });
    },
  }),
  defineOp({
    id: 'contracts.foundation',
    method: 'GET',
    path: '/api/chain/state-machines/foundation',
    access: 'public',
    tag: 'chain',
    summary: 'The foundation state machine every machine runs (its lifecycle), as a contract definition; with a key, also the caller\'s current lifecycle state and chain anchor.',
    input: z.strictObject({}),
    output: okWith({
      definition,
      machine: z.object({
        zid: z.string(), slug: z.string(), state: z.string(),
        lastLifecycleEvent: z.object({ kind: z.string(), seq: z.number().int(), at: z.string() }).nullable(),
        chain: z.object({ length: z.number().int(), head: z.string(), genesis: z.object({ seq: z.number().int(), hash: z.string(), at: z.string() }).nullable() }),
        since: z.string(),
      }).optional().describe("with a key: the caller's lifecycle state"),
    }),
    async handler(_i, ctx) {
      const zid = ctx.caller?.zid ?? null;
      const machine = zid ? await foundationStatus(ctx.app.db, zid) : null;
      return { ok: true, definition: FOUNDATION, ...(machine ? { machine } : {}) };
    },
  }),
];
