// svc_auto (POST /api/svc/auto): natural-language dispatch. The BM25 classifier of
// src/ops/dispatch.ts picks a solver from `query` (or refuses with the top candidates), the
// given numeric `inputs` plus any `key=value` pairs written in the query are mapped onto the
// chosen solver's fields, and the engine runs and seals the job under that solver's own source
// (its operator chain, unit and method). `result.dispatch` then names the solver with the top
// five scores.
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { loadSolvers } from '../solvers/engine/loader.ts';
import { runSealedSolver } from './solvers.ts';
import { folderField } from './schema.ts';
import { SealedResult } from './outputs.ts';
import { buildIndex, chooseSolver, mapInputs, numbersInQuery, schemaKeys, type DispatchIndex } from './dispatch.ts';
import type { SolverDescriptor } from '../solvers/types.ts';

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
    method: 'POST',
    path: '/api/svc/auto',
    access: 'key',
    cost: 1,
    tag: 'solvers',
    title: 'Auto: a solver chosen from plain English',
    summary: 'Natural-language auto-dispatch: picks the solver that fits a plain-English request, runs it and seals the result under that solver\'s own source; result.dispatch shows the ranking.',
    description: 'A deterministic BM25 classifier over every solver\'s descriptor, examples and vocabulary. A request that matches nothing well (or two solvers equally) is refused with 400 and the top candidates. Numeric inputs (and key=value pairs in the query) are kept only for fields the chosen solver accepts.',
    input: z.strictObject({
      query: z.string().min(1).max(2000).describe('the request in plain English'),
      inputs: z.record(z.string().max(64), z.number().finite()).optional().describe('numeric inputs, mapped onto the chosen solver\'s fields'),
      folder: folderField.describe('folder the receipt is filed in (default "default")'),
    }),
    output: SealedResult.extend({
      result: z.looseObject({
        dispatch: z.object({
          solver: z.string().describe('the solver chosen'),
          scores: z.array(z.object({ solver: z.string(), score: z.number() })).describe('the five best BM25 scores'),
          matchedTerms: z.array(z.string()),
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
      const given = { ...numbersInQuery(input.query), ...(input.inputs ?? {}) };
      const { mapped, dropped } = mapInputs(given, target.descriptor);
      const body: Record<string, unknown> = { ...mapped };
      if (input.folder !== undefined) body.folder = input.folder;
      const keys = schemaKeys(target.descriptor);
      // a required free-text label of the target (svc_solve's `prompt`) is taken from the query
      if (keys.includes('prompt') && body.prompt === undefined) body.prompt = input.query.slice(0, 500);
      if (!target.noCommonFields) body.query = input.query;
      // the dispatch record is sealed with the result (chain payload hash and v3 signature cover it)
      return runSealedSolver(ctx, choice.solver, body, {
        dispatch: {
          solver: choice.solver,
          scores: choice.ranking.slice(0, 5),
          matchedTerms: choice.matchedTerms,
          mappedInputs: mapped,
          ...(dropped.length ? { droppedInputs: dropped } : {}),
        },
      });
    },
  }),
];
