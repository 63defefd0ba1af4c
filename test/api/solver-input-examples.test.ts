// Every solver has an example using each kind of user input it accepts (issue 29 item 5), and each
// such example is sealed on a test node within its bound.
//
// The kinds are derived from each solver's own input schema: a field carries user data when it
// takes text (a file, an expression, a label), a list of numbers (a series, a vector), a table
// (rows of numbers: a matrix, node values, points), records (a list of objects: bodies, events,
// couplings) or an object (named values, conditions, JSON tables); an enum, a number or a boolean
// is a setting, not user data. Each (field, form) must be used by the solver's recorded default
// request (src/ops/solver-examples.json) or by one of its input examples
// (src/ops/solver-input-examples.ts), with a value that shows it (not empty). A field's blob form
// ({"blob": "sha256:…"}) is the same content uploaded first: test/jobs/blob-inputs.test.ts runs it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';
import { toJsonSchema } from '../../src/ops/schema.ts';
import { solverExample } from '../../src/ops/solver-examples.ts';
import { SOLVER_INPUT_EXAMPLES } from '../../src/ops/solver-input-examples.ts';

type Form = 'text' | 'list' | 'table' | 'records' | 'object';

/** (solver field form) left without an example, and why. None today: a new kind of input needs an
 * example (or a reason here). */
const EXEMPT: Record<string, string> = {};

/** The forms of user data a field's JSON Schema accepts. */
function formsOf(s: any): Form[] {
  if (!s || typeof s !== 'object') return [];
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return [...new Set<Form>(branches.flatMap(formsOf))];
  if (s.enum || s.const !== undefined) return [];
  const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
  const out: Form[] = [];
  if (types.includes('string')) out.push('text');
  if (types.includes('object')) out.push('object');
  if (types.includes('array')) {
    const items = s.items ?? {};
    const itemForms = formsOf(items);
    const itemTypes: string[] = (items.anyOf ?? items.oneOf ?? [items]).flatMap((b: any) => (Array.isArray(b.type) ? b.type : [b.type]));
    if (itemTypes.includes('array')) out.push('table');
    else if (itemTypes.includes('object') || itemForms.includes('object')) out.push('records');
    else out.push('list');
  }
  return out;
}

/** The form a value shows, or null when it shows none (a number, an empty list or object). */
function formOfValue(v: unknown): Form | null {
  if (typeof v === 'string') return v.length ? 'text' : null;
  if (Array.isArray(v)) {
    if (!v.length) return null;
    if (Array.isArray(v[0])) return 'table';
    if (v[0] && typeof v[0] === 'object') return 'records';
    return 'list';
  }
  if (v && typeof v === 'object') return Object.keys(v).length ? 'object' : null;
  return null;
}

let t: TestNode;
let key: string;
before(async () => { t = await testNode(); key = (await t.machine('input examples')).apiKey; });
after(async () => { await t?.close(); });

test("every kind of user input of every solver has an example (derived from the solver's input schema)", async () => {
  const solvers = await loadSolvers();
  const missing: string[] = [];
  const kinds: string[] = [];
  for (const ls of solvers) {
    const name = ls.descriptor.name;
    const schema: any = toJsonSchema(ls.descriptor.input);
    const requests = [solverExample(name)?.request ?? {}, ...(SOLVER_INPUT_EXAMPLES[name] ?? []).map((e) => e.request)];
    for (const [field, s] of Object.entries<any>(schema.properties ?? {})) {
      for (const form of formsOf(s)) {
        const kind = `${name} ${field} ${form}`;
        kinds.push(kind);
        if (requests.some((r) => formOfValue(r[field]) === form)) continue;
        if (!EXEMPT[kind]) missing.push(kind);
      }
    }
  }
  console.log(`# ${kinds.length} kinds of user input over ${solvers.length} solvers; ${Object.values(SOLVER_INPUT_EXAMPLES).flat().length} input examples beside the recorded defaults`);
  assert.deepEqual(missing, [], 'a kind of user input without an example: add one to src/ops/solver-input-examples.ts');
  assert.deepEqual(Object.keys(EXEMPT).filter((k) => !kinds.includes(k)), [], 'EXEMPT names a kind that no longer exists');
  // the examples' names are OpenAPI example keys: unique per solver, and not the recorded one's
  for (const [name, list] of Object.entries(SOLVER_INPUT_EXAMPLES)) {
    const names = list.map((e) => e.name);
    assert.equal(new Set(names).size, names.length, `${name}: two examples share a name`);
    for (const n of names) assert.match(n, /^[a-z0-9-]+$/, `${name}: example name ${n}`);
  }
});

test('every input example is sealed on a test node within its bound', async () => {
  const t0 = Date.now();
  const refused: string[] = [];
  let n = 0;
  for (const [name, list] of Object.entries(SOLVER_INPUT_EXAMPLES)) {
    for (const ex of list) {
      n++;
      const r = await t.call('POST', `/api/svc/${name}`, ex.request, key);
      if (r.status !== 200) { refused.push(`${name} ${ex.name}: ${r.status} ${r.text.slice(0, 300)}`); continue; }
      assert.equal(r.body.solver, name);
      assert.match(r.body.receipt?.id ?? '', /^rcpt_/, `${name} ${ex.name}: no receipt`);
      assert.equal(r.body.precision?.withinBound, true, `${name} ${ex.name}: sealed outside its bound`);
    }
  }
  console.log(`# ${n} input examples sealed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  assert.deepEqual(refused, []);
});
