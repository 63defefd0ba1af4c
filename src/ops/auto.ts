// svc_auto (POST /api/svc/auto): natural-language dispatch. The BM25 classifier of
// src/ops/dispatch.ts picks a solver from `query` (or refuses with the top candidates); the reader
// of src/ops/dispatch-read.ts turns what the query says into that solver's inputs (quantities with
// units and percentages, option words, grid sizes, equations) or refuses what it cannot map; the
// numeric `inputs` fill the fields the text does not name; and the engine runs and seals the job
// under the solver's own source (its operator chain, unit and method). `result.dispatch` names the
// solver with the top five scores, the inputs applied (with the words that gave each) and the
// words left unused.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { loadSolvers } from '../solvers/engine/loader.ts';
import { runSealedSolver } from './solvers.ts';
import { folderField } from './schema.ts';
import { SealedResult } from './outputs.ts';
import { buildIndex, chooseSolver, mapInputs, numbersInQuery, schemaKeys, type DispatchIndex } from './dispatch.ts';
import { checkNamedRival, readQuery, refuseRead } from './dispatch-read.ts';
import type { SolverDescriptor } from '../solvers/types.ts';
import { SEALING, sealedResult } from './tool-hints.ts';

let indexPromise: Promise<{ index: DispatchIndex; byName: Map<string, { descriptor: SolverDescriptor; noCommonFields: boolean }> }> | null = null;

function dispatchIndex() {
  indexPromise ??= loadSolvers().then((solvers) => ({
    index: buildIndex(solvers.map((s) => s.descriptor)),
    byName: new Map(solvers.map((s) => [s.descriptor.name, { descriptor: s.descriptor, noCommonFields: s.noCommonFields }])),
  }));
  return indexPromise;
}

export const operations: Operation[] = [
  defineOp({
    id: 'solver.auto',
    tool: 'svc_auto',
    title: 'Solve a plain-English request',
    brief: 'Describe a problem in plain English: the best-matching solver runs and seals its result.',
    hints: SEALING,
    toolOutput: sealedResult(),
    seriesOptIn: true,
    method: 'POST',
    path: '/api/svc/auto',
    access: 'key',
    scope: 'compute',
    cost: 1,
    tag: 'solvers',
    summary: 'Natural-language auto-dispatch: picks the solver that fits a plain-English request, runs it and seals the result under that solver\'s own source; result.dispatch shows the ranking.',
    description: 'A deterministic BM25 classifier over every solver\'s descriptor, examples and vocabulary picks the solver; a request that matches nothing well (or two solvers equally) is refused with 400 and the top candidates. The quantities, units, percentages and option words of the query become the solver\'s inputs (result.dispatch.appliedInputs, with the words that gave each; result.dispatch.unusedWords lists the words not used); a quantity, option or problem of its own the solver cannot take is refused with 400 INVALID_INPUT and a reason (UNMAPPED_QUANTITY, UNSUPPORTED_OPTION, NEEDS_STRUCTURED_INPUT, CONFLICTING_VALUES, UNIT_MISMATCH). Numeric inputs fill fields the query does not name.',
    input: z.strictObject({
      query: z.string().min(1).max(2000).describe('the request in plain English'),
      inputs: z.record(z.string().max(64), z.number().finite()).optional().describe('numeric inputs for fields the query does not name, mapped onto the chosen solver\'s fields by name; a different value for a field the query names is refused'),
      folder: folderField.describe('folder the receipt is filed in (default "default")'),
    }),
    output: SealedResult.extend({
      result: z.looseObject({
        dispatch: z.object({
          solver: z.string().describe('the solver chosen'),
          scores: z.array(z.object({ solver: z.string(), score: z.number() })).describe('the five best BM25 scores'),
          matchedTerms: z.array(z.string()),
          appliedInputs: z.record(z.string(), z.object({ value: z.unknown(), from: z.enum(['text', 'inputs']), words: z.string().optional().describe('the words of the query that gave it') }))
            .describe("the chosen solver's inputs read from the query or given in inputs"),
          unusedWords: z.array(z.string()).describe('words of the query that were not used'),
          mappedInputs: z.record(z.string(), z.unknown()).describe('inputs (and key=value pairs of the query) given to the chosen solver'),
          droppedInputs: z.array(z.string()).optional().describe('inputs the chosen solver does not take'),
        }),
      }).describe("the chosen solver's result, with how it was chosen"),
    }),
    async handler(input, ctx) {
      const { index, byName } = await dispatchIndex();
      const choice = chooseSolver(index, input.query);
      const target = byName.get(choice.solver);
      if (!target) throw new SvcError('NOT_FOUND', `no solver named '${choice.solver}'`);
      const d = target.descriptor;
      // what the text asks of the chosen solver (a 400 for what it names and cannot be mapped)
      const read = readQuery(input.query, d);
      checkNamedRival(read, choice.solver, choice.ranking);
      // the numeric `inputs` (and key=value pairs, as before) by field name; a different value in
      // the text for the same field is a conflict, not an override
      const legacy = mapInputs({ ...numbersInQuery(input.query), ...(input.inputs ?? {}) }, d);
      const explicit = mapInputs(input.inputs ?? {}, d).mapped;
      const body: Record<string, unknown> = {};
      const appliedInputs: Record<string, { value: unknown; from: 'text' | 'inputs'; words?: string }> = {};
      for (const [k, a] of Object.entries(read.applied)) {
        body[k] = a.value;
        appliedInputs[k] = { value: a.value, from: 'text', words: a.words };
      }
      for (const [k, v] of Object.entries(explicit)) {
        if (k in body && !Object.is(body[k], v)) {
          throw refuseRead('CONFLICTING_VALUES', d.name, `${k} is ${JSON.stringify(body[k])} in the text ('${read.applied[k].words}') and ${v} in inputs`, [read.applied[k].words]);
        }
        if (!(k in body)) appliedInputs[k] = { value: v, from: 'inputs' };
        body[k] = v;
      }
      if (input.folder !== undefined) body.folder = input.folder;
      const keys = schemaKeys(d);
      // a required free-text label of the target (svc_solve's `prompt`) is taken from the query
      if (keys.includes('prompt') && body.prompt === undefined) body.prompt = input.query.slice(0, 500);
      if (!target.noCommonFields) body.query = input.query;
      // the dispatch record is sealed with the result (chain payload hash and v3 signature cover it)
      return runSealedSolver(ctx, choice.solver, body, {
        dispatch: {
          solver: choice.solver,
          scores: choice.ranking.slice(0, 5),
          matchedTerms: choice.matchedTerms,
          appliedInputs,
          unusedWords: read.unusedWords,
          mappedInputs: legacy.mapped,
          ...(legacy.dropped.length ? { droppedInputs: legacy.dropped } : {}),
        },
      });
    },
  }),
];
