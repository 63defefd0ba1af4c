// A solver's answer validates against its declared 200 schema (issue 29 item 5): the `result` of a
// 1-D svc_heat run (ny, dy, ky null) and of every solver's recorded example request, run again in
// process, against the result component of the operation's declared schema (solverOutputJsonSchema).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { runUnsealed } from '../../src/ops/solvers.ts';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';
import { solverOutputJsonSchema, solverExample, resultSchemaName } from '../../src/ops/solver-examples.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });

function resultValidator(d: { name: string; domain: string; unit: string }) {
  const s = solverOutputJsonSchema(d) as { $defs: Record<string, unknown> };
  return ajv.compile({ $ref: `#/$defs/${resultSchemaName(d.name)}`, $defs: s.$defs });
}

test('a 1-D svc_heat answer validates against its declared result schema', async () => {
  const heat = (await loadSolvers()).find((s) => s.descriptor.name === 'heat')!.descriptor;
  const v = resultValidator(heat);
  const r = await runUnsealed('heat', { dim: 1, mode: 3, alpha: 0.2 }) as any;
  assert.equal(r.result.ny, null);
  assert.ok(v(r.result), JSON.stringify(v.errors));
});

test('every solver\'s example answer validates against its declared result schema', async () => {
  let n = 0;
  for (const ls of await loadSolvers()) {
    const ex = solverExample(ls.descriptor.name);
    if (!ex) continue;
    const v = resultValidator(ls.descriptor);
    const r = await runUnsealed(ls.descriptor.name, ex.request) as any;
    assert.ok(v(r.result), `${ls.descriptor.name}: ${JSON.stringify(v.errors?.slice(0, 3))}`);
    n++;
  }
  console.log(`# ${n} solvers' example answers validate`);
});
