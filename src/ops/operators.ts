// The operator catalog's operations: list, search, domains, domain match, and the three sealed
// compositions (compute, unified, lattice). The logic lives in src/operators/; these are thin
// declarations (validate, authorise, call, seal). See docs/operators.md.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { folderField } from './schema.ts';
import { loadCatalog, resolveDomain, domainOperators, getOperator } from '../operators/catalog.ts';
import { findOperators, summarize, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from '../operators/search.ts';
import { matchDomains, textForId, MATCH_DEFAULT_LIMIT, MATCH_MAX_LIMIT } from '../operators/match.ts';
import { runComputeProtocol, MAX_EXTRA_OPERATORS } from '../operators/compute.ts';
import { composeUnified, MAX_UNIFIED_OPERATORS } from '../operators/compose.ts';
import { runLattice, MIN_NODES, MAX_NODES } from '../operators/lattice.ts';
import { LOOKUP, SEALING, sealedResult } from './tool-hints.ts';
import { okWith, Precision, SealedReceipt } from './outputs.ts';

const operatorSummary = z.object({
  id: z.string(), name: z.string(), domain: z.string(), prefix: z.string().describe("the domain's code"), tier: z.number().int(),
  equation: z.string().describe('a mathjs expression over the input keys'),
  inputs: z.record(z.string(), z.string()).describe('input key → its unit'), inputKeys: z.array(z.string()),
  output: z.object({ unit: z.string() }), description: z.string(), source: z.string(),
}).meta({ id: 'OperatorSummary', description: 'A catalogued operator: its equation, the units of its inputs and of its output.' });
const domainRef = z.object({ name: z.string(), slug: z.string(), code: z.string() });
const operatorOutcome = z.object({
  id: z.string(), name: z.string(), domain: z.string(), equation: z.string(),
  inputs: z.record(z.string(), z.object({ value: z.number(), unit: z.string() })),
  value: z.number(), unit: z.string(), verifiedValue: z.number().describe('the independent SI recomputation'), errorPct: z.number(),
});

/** Any JS number, finite or not: non-finite inputs must reach the dimensional gate (422), not zod (400). */
const anyNumber = z.custom<number>((v) => typeof v === 'number', { message: 'expected a number' }).meta({ type: 'number' });
/** A number in the declared unit, or a quantity string with its own unit ("3 km"). */
const inputValue = z.union([anyNumber, z.string().max(64)]);
const inputsRecord = z.record(z.string().min(1).max(64), inputValue);
const operatorId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'operator ids are A-Z a-z 0-9 _ . -');

function domainSummary(name: string) {
  const d = resolveDomain(name)!;
  return { name: d.name, slug: d.slug, code: d.code };
}

/** Turns an unexpected error inside caller-supplied composition into a 400, never a 500. */
function asInputError(e: unknown): never {
  if (e instanceof SvcError) throw e;
  throw new SvcError('INVALID_INPUT', `composition refused: ${(e as Error)?.message ?? String(e)}`);
}

export const operations: Operation[] = [
  defineOp({
    id: 'operators.list',
    tool: 'svc_list_operators',
    title: 'List operators',
    brief: "The operator catalog: every domain with its operator ids, or one domain's operators in full.",
    hints: LOOKUP,
    toolOutput: z.object({ ok: z.boolean() }).describe('all domains with their operator ids, or one domain with its operators'),
    method: 'GET',
    path: '/api/operators',
    access: 'public',
    tag: 'operators',
    summary: 'Lists catalogued operators: those of one domain, or (domain omitted or empty) all 67 domains with their operator ids.',
    description: 'domain may be a domain name, slug, code (the operators\' prefix) or alias. Each operator has id, domain, prefix, tier, equation, accepted input keys with units and output unit.',
    input: z.strictObject({ domain: z.string().max(120).optional() }),
    output: z.union([
      okWith({
        domainCount: z.number().int(), operatorCount: z.number().int(),
        domains: z.array(domainRef.extend({ defaultOperator: z.string(), count: z.number().int(), operators: z.array(z.string()) })),
      }).describe('no domain given: every domain with its operator ids'),
      okWith({ domain: domainRef, defaultOperator: z.string(), count: z.number().int(), operators: z.array(operatorSummary) }).describe('one domain'),
    ]),
    async handler(input) {
      const cat = loadCatalog();
      if (!input.domain || !input.domain.trim()) {
        return {
          ok: true,
          domainCount: cat.domains.length,
          operatorCount: cat.operators.length,
          domains: cat.domains.map((d) => ({
            name: d.name, slug: d.slug, code: d.code, defaultOperator: d.defaultOperator,
            count: domainOperators(d).length, operators: domainOperators(d).map((o) => o.id),
          })),
        };
      }
      const d = resolveDomain(input.domain);
      if (!d) throw new SvcError('NOT_FOUND', `no domain '${input.domain}'; GET /api/domains lists the 67 domains`);
      const ops = domainOperators(d);
      return { ok: true, domain: domainSummary(d.name), defaultOperator: d.defaultOperator, count: ops.length, operators: ops.map(summarize) };
    },
  }),
  defineOp({
    id: 'operators.search',
    tool: 'svc_find_operator',
    title: 'Find an operator',
    brief: 'Full-text search of the operator catalog (id, name, equation, description).',
    hints: LOOKUP,
    toolOutput: z.object({ count: z.number(), operators: z.array(z.object({ id: z.string() })) }),
    method: 'GET',
    path: '/api/operators/search',
    access: 'public',
    tag: 'operators',
    summary: 'Full-text search of the operator catalog over id, name, equation and description.',
    input: z.strictObject({
      term: z.string().min(1).max(200),
      limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT),
    }),
    output: okWith({ term: z.string(), count: z.number().int(), operators: z.array(operatorSummary.extend({ score: z.number().describe('relevance, higher first') })) }),
    async handler(input) {
      const hits = findOperators(input.term, input.limit);
      return { ok: true, term: input.term, count: hits.length, operators: hits };
    },
  }),
  defineOp({
    id: 'operators.get',
    method: 'GET',
    path: '/api/operators/:id',
    access: 'public',
    tag: 'operators',
    summary: 'One catalogued operator with its equation, units, example inputs and source.',
    input: z.strictObject({ id: operatorId }),
    output: okWith({ operator: operatorSummary.extend({ example: z.record(z.string(), z.number()).describe('sample inputs in the declared units') }) }),
    async handler(input) {
      const o = getOperator(input.id);
      if (!o) throw new SvcError('NOT_FOUND', `no operator '${input.id}'`);
      return { ok: true, operator: { ...summarize(o), example: o.example } };
    },
  }),
  defineOp({
    id: 'domains.list',
    tool: 'svc_science_domains',
    title: 'Science domains',
    brief: 'The 67 science domains with their literature sources and operator counts.',
    hints: LOOKUP,
    toolOutput: z.object({ count: z.number(), domains: z.array(z.object({ name: z.string() })) }),
    method: 'GET',
    path: '/api/domains',
    access: 'public',
    tag: 'operators',
    summary: 'The 67 science domains, the literature sources serving each, and their operator counts.',
    input: z.strictObject({}),
    output: okWith({
      count: z.number().int(),
      domains: z.array(domainRef.extend({
        aliases: z.array(z.string()).optional(), description: z.string(), sources: z.array(z.string()).describe('literature sources serving the domain'),
        defaultOperator: z.string(), operatorCount: z.number().int(), vocabulary: z.array(z.string()),
      })),
    }),
    async handler() {
      const cat = loadCatalog();
      return {
        ok: true,
        count: cat.domains.length,
        domains: cat.domains.map((d) => ({
          name: d.name, slug: d.slug, code: d.code, ...(d.aliases ? { aliases: d.aliases } : {}),
          description: d.description, sources: d.sources, defaultOperator: d.defaultOperator,
          operatorCount: domainOperators(d).length, vocabulary: d.vocabulary,
        })),
      };
    },
  }),
  defineOp({
    id: 'domains.match',
    tool: 'svc_domain_match',
    title: 'Match science domains',
    brief: 'Science domains whose vocabulary matches a text or an operator id, with the terms that matched.',
    hints: LOOKUP,
    toolOutput: z.object({ count: z.number(), domains: z.array(z.object({ name: z.string() })) }),
    method: 'POST',
    path: '/api/domains/match',
    access: 'public',
    tag: 'operators',
    summary: 'Domains whose vocabulary overlaps an id or a text, with the terms that fired (deterministic term overlap, not a solvability proof).',
    input: z.strictObject({
      id: z.string().min(1).max(200).optional(),
      text: z.string().min(1).max(5000).optional(),
      limit: z.number().int().min(1).max(MATCH_MAX_LIMIT).default(MATCH_DEFAULT_LIMIT),
    }),
    output: okWith({
      id: z.string().optional(), resolved: z.string().nullable().optional().describe("what the id named: 'operator:<id>', 'domain:<slug>' or null"),
      count: z.number().int(),
      domains: z.array(domainRef.extend({ score: z.number(), terms: z.array(z.string()).describe('the terms that matched'), defaultOperator: z.string() })),
    }),
    async handler(input) {
      if (!input.id && !input.text) throw new SvcError('INVALID_INPUT', 'give id or text', { issues: [{ path: 'text', message: 'id or text is required' }] });
      const fromId = input.id ? textForId(input.id) : null;
      const text = [fromId?.text, input.text].filter(Boolean).join(' ');
      const domains = matchDomains(text, input.limit);
      return { ok: true, ...(input.id ? { id: input.id, resolved: fromId?.resolved ?? null } : {}), count: domains.length, domains };
    },
  }),
  defineOp({
    id: 'operators.compute',
    tool: 'svc_compute',
    title: 'Compute with catalogued operators',
    brief: 'Apply catalogued operators to numeric inputs of a science domain; the value is sealed with its unit.',
    hints: SEALING,
    toolOutput: sealedResult(),
    method: 'POST',
    path: '/api/svc/compute',
    access: 'key',
    scope: 'compute',
    cost: 1,
    tag: 'solvers',
    summary: 'Applies catalogued operators through the 7-step protocol (SELECT, BIND, VALIDATE, COMPUTE, VERIFY, PULSE, RETURN) and seals the primary value (v2).',
    description: 'KO42 is always added; the domain\'s default operator is used when operators is omitted; KO42 plus at most 3 operators. Inputs are numbers in the declared units or quantity strings ("3 km"); unknown keys, wrong dimensions and non-finite numbers are refused by the dimensional gate (422 DIMENSIONAL_GATE, value null).',
    input: z.strictObject({
      domain: z.string().min(1).max(120),
      inputs: inputsRecord,
      operators: z.array(operatorId).max(MAX_EXTRA_OPERATORS + 1).optional(),
      folder: folderField,
      query: z.string().max(2000).optional(),
    }),
    output: SealedReceipt.extend({
      value: z.number().describe("the primary operator's value"),
      unit: z.string(),
      result: z.object({
        primary: z.string().describe('the operator whose value is sealed'),
        protocol: z.array(z.object({ step: z.enum(['SELECT', 'BIND', 'VALIDATE', 'COMPUTE', 'VERIFY', 'PULSE', 'RETURN']), ok: z.boolean(), detail: z.record(z.string(), z.unknown()) })),
        operators: z.array(operatorOutcome),
      }),
      precision: Precision,
      query: z.string().optional(),
    }),
    async handler(input, ctx) {
      const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
      const t = ctx.app.clock.now();
      const out = runComputeProtocol({ domain: input.domain, inputs: input.inputs, operators: input.operators }, t);
      return ctx.app.sealer.seal({
        zid, keyPrefix, solver: 'compute', domain: out.domain.name, method: '7-step-protocol',
        operators: out.chain, S: out.S, version: 2, value: out.primary.value, unit: out.primary.unit,
        body: {
          result: { primary: out.primary.id, protocol: out.protocol, operators: out.operators },
          precision: out.precision,
          ...(input.query ? { query: input.query } : {}),
        },
        folder: input.folder, cost: 1, t,
      });
    },
  }),
  defineOp({
    id: 'operators.unified',
    tool: 'svc_unified',
    title: 'Compose operators',
    brief: 'Compose catalogued or your own operator equations (product, timeline or single); the value is sealed.',
    hints: SEALING,
    toolOutput: sealedResult(),
    method: 'POST',
    path: '/api/svc/unified',
    access: 'key',
    scope: 'compute',
    cost: 1,
    tag: 'solvers',
    summary: 'Composes catalogued and supplied operators under KO42: A algebraic product, B sequential timeline (RK4 for kind "ode"), C single-operator fallback. Sealed (v2).',
    description: 'operators: ids, or objects {id, equation, unit?, kind?} whose equations run in a sandbox (no import, createUnit, evaluate, parse, property access, assignment or loops; bounded size); anything outside it is 400. consts overrides t, alpha, f_H, T_Z (and tMax, steps for the timeline, only with an ode operator); other consts are 400. The timeline starts from the initial state inputs.y0 (or inputs.y). The sealed unit is the unit the value is in: an operator alone keeps its declared unit (as svc_compute); a product multiplies the declared units symbol by symbol (m/s x s = m, Pa x s = Pa*s), never a unit name picked from the dimension alone.',
    input: z.strictObject({
      operators: z.array(z.union([
        operatorId,
        z.strictObject({
          id: operatorId,
          equation: z.string().max(10_000).optional(),
          unit: z.string().max(64).optional(),
          kind: z.enum(['algebraic', 'ode']).optional(),
        }),
      ])).min(1).max(MAX_UNIFIED_OPERATORS),
      inputs: inputsRecord.optional(),
      consts: z.record(z.string().min(1).max(64), anyNumber).optional(),
      domain: z.string().max(120).optional(),
      query: z.string().max(2000).optional(),
      folder: folderField,
    }),
    output: SealedReceipt.extend({
      value: z.number(),
      unit: z.string().describe('the unit the value is in (declared units multiplied symbol by symbol)'),
      result: z.object({
        strategy: z.enum(['A', 'B', 'C']).describe('A algebraic product, B sequential timeline, C single operator'),
        intermediates: z.array(z.object({ id: z.string(), source: z.enum(['catalog', 'custom']), kind: z.enum(['algebraic', 'ode']), equation: z.string(), value: z.number(), unit: z.string() })),
        compiled: z.string().describe('the composed expression'),
        consts: z.record(z.string(), z.number()),
      }),
      precision: Precision,
      query: z.string().optional(),
    }),
    async handler(input, ctx) {
      const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
      if (input.domain !== undefined && resolveDomain(input.domain)?.name !== 'Multi-Domain Composition') {
        throw new SvcError('INVALID_INPUT', `domain '${input.domain}' does not match this solver's domain 'Multi-Domain Composition'`, { issues: [{ path: 'domain', message: "must be 'Multi-Domain Composition'" }] });
      }
      const now = ctx.app.clock.now();
      let out: ReturnType<typeof composeUnified>;
      try {
        out = composeUnified({ operators: input.operators, inputs: input.inputs, consts: input.consts }, now);
      } catch (e) {
        asInputError(e);
      }
      return ctx.app.sealer.seal({
        zid, keyPrefix, solver: 'unified', domain: 'Multi-Domain Composition', method: out.method,
        operators: out.chain, version: 2, value: out.value, unit: out.unit,
        body: {
          result: { strategy: out.strategy, intermediates: out.intermediates, compiled: out.compiled, consts: out.consts },
          precision: out.precision,
          ...(input.query ? { query: input.query } : {}),
        },
        folder: input.folder, cost: 1, t: now,
      });
    },
  }),
  defineOp({
    id: 'operators.lattice',
    tool: 'svc_lattice',
    title: 'Pulse lattice',
    brief: 'Sealed pulse lattice of 2-5 nodes at staggered phases: R_t per node and a coherence score.',
    hints: SEALING,
    toolOutput: sealedResult(),
    method: 'POST',
    path: '/api/svc/lattice',
    access: 'key',
    scope: 'compute',
    cost: 'nodes (1 per node)',
    tag: 'solvers',
    summary: 'A lattice of 2 to 5 nodes at one shared timestamp and staggered phases (node k at phi + 2 pi k/n): per-node R_t, coherenceScore in [0, 1] and the lattice equation. One token per node.',
    input: z.strictObject({
      nodes: z.array(z.strictObject({
        domain: z.string().max(120).optional(),
        inputs: inputsRecord.optional(),
      })).min(MIN_NODES).max(MAX_NODES),
      folder: folderField,
    }),
    output: SealedReceipt.extend({
      value: z.number().describe('the coherence score'),
      unit: z.literal('1'),
      result: z.object({
        nodes: z.array(z.object({
          index: z.number().int(), domain: z.string().nullable(), operator: z.string().nullable(), phase: z.number(), phaseOffset: z.number(),
          R_t: z.number(), S: z.number(), value: z.number().nullable(), unit: z.string().nullable(),
        })),
        coherenceScore: z.number().describe('mean pairwise agreement of the nodes\' modulations, in [0, 1]'),
        latticeSum: z.number(), latticeEquation: z.string(), phase: z.number(), svcond: z.number().int(),
      }),
      precision: Precision,
    }),
    async handler(input, ctx) {
      const { zid, keyPrefix } = assertMachineCaller(ctx.caller);
      const t = ctx.app.clock.now();
      const out = runLattice(input.nodes, t);
      return ctx.app.sealer.seal({
        zid, keyPrefix, solver: 'lattice', domain: 'Master Field', method: 'staggered-phase-lattice',
        operators: out.chain, version: 2, value: out.coherenceScore, unit: '1',
        body: {
          result: {
            nodes: out.nodes, coherenceScore: out.coherenceScore, latticeSum: out.latticeSum,
            latticeEquation: out.latticeEquation, phase: out.phase, svcond: out.svcond,
          },
          precision: out.precision,
        },
        folder: input.folder, cost: input.nodes.length, t,
      });
    },
  }),
];
