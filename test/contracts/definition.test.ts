// Contract definitions: complete validation on deploy, each problem reported with its path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDefinition, validateDefinition, DEFINITION_JSON_SCHEMA, MAX_DEFINITION_BYTES, type ContractDefinition } from '../../src/contracts/definition.ts';
import { FOUNDATION } from '../../src/contracts/foundation.ts';
import { SvcError } from '../../src/core/errors.ts';
import { listTemplates } from '../../src/contracts/templates.ts';
import { generateDefinition } from '../../src/contracts/generate.ts';
import { applyVariableUpdates } from '../../src/contracts/machine.ts';
import Ajv2020Module from 'ajv/dist/2020.js';

const base = (): ContractDefinition => ({
  version: '1.0.0',
  name: 'Approval',
  initial: 'draft',
  states: [{ name: 'draft' }, { name: 'review' }, { name: 'approved', terminal: true }, { name: 'rejected', terminal: true }],
  transitions: [
    { from: 'draft', to: 'review', name: 'submit' },
    { from: 'review', to: 'approved', name: 'approve', guard: 'amount <= limit' },
    { from: 'review', to: 'rejected', name: 'reject' },
  ],
  variables: { amount: 100, limit: 500 },
});

function issuesOf(def: unknown, prefix?: string) {
  return checkDefinition(def, { pathPrefix: prefix }).issues;
}

function expectIssue(def: unknown, path: string, fragment: RegExp) {
  const issues = issuesOf(def, 'definition');
  assert.ok(issues.some((i) => i.path === path && fragment.test(i.message)), `expected ${path} ~ ${fragment}, got ${JSON.stringify(issues)}`);
}

test('a well-formed definition validates and comes back normalised', () => {
  const d = validateDefinition(base());
  assert.equal(d.initial, 'draft');
  assert.equal(d.transitions.length, 3);
  assert.deepEqual(d.variables, { amount: 100, limit: 500 });
});

test('a missing version is refused at path version', () => {
  const d: any = base();
  delete d.version;
  expectIssue(d, 'definition.version', /required/);
});

test('bad version values are refused', () => {
  for (const v of [0, 1.5, -1, '', 'has space', true, null, {}]) {
    const d: any = { ...base(), version: v };
    expectIssue(d, 'definition.version', /version/);
  }
  assert.equal(issuesOf({ ...base(), version: 3 }).length, 0);
});

test('unknown states in transitions and initial are reported with their paths', () => {
  const d = base();
  d.transitions[1].to = 'nowhere';
  expectIssue(d, 'definition.transitions.1.to', /unknown state 'nowhere'/);
  const e = base();
  e.initial = 'ghost';
  expectIssue(e, 'definition.initial', /unknown state 'ghost'/);
});

test('an unreachable state is reported', () => {
  const d = base();
  d.states.push({ name: 'orphan' });
  d.transitions.push({ from: 'orphan', to: 'approved', name: 'go' });
  expectIssue(d, 'definition.states.4', /unreachable/);
});

test('a transition out of a terminal state is reported', () => {
  const d = base();
  d.transitions.push({ from: 'approved', to: 'review', name: 'reopen' });
  expectIssue(d, 'definition.transitions.3.from', /leaves terminal state 'approved'/);
});

test('a state with no path to a terminal state is reported (a trap)', () => {
  const d = base();
  d.states.push({ name: 'limbo' });
  d.transitions.push({ from: 'review', to: 'limbo', name: 'park' }, { from: 'limbo', to: 'limbo', name: 'wait' });
  expectIssue(d, 'definition.states.4', /no path from state 'limbo' to a terminal state/);
});

test('a definition without any terminal state is refused', () => {
  const d = base();
  d.states = d.states.map((s) => ({ name: s.name }));
  d.transitions = [{ from: 'draft', to: 'review', name: 'a' }, { from: 'review', to: 'draft', name: 'b' }, { from: 'review', to: 'approved', name: 'c' }, { from: 'review', to: 'rejected', name: 'd' }];
  expectIssue(d, 'definition.states', /at least one state must be terminal/);
});

test('bad guard syntax is refused at the guard path', () => {
  const d = base();
  d.transitions[1].guard = 'amount <= (limit';
  expectIssue(d, 'definition.transitions.1.guard', /refused expression/);
});

test('a guard over an unknown symbol is refused', () => {
  const d = base();
  d.transitions[1].guard = 'amount <= budget';
  expectIssue(d, 'definition.transitions.1.guard', /unknown symbol 'budget'/);
});

test('builtin symbols are accepted in guards', () => {
  const d = base();
  d.transitions[1].guard = 'fireCount >= 1 and elapsed < 86400 and contractAge >= 0 and t > 0 and phase >= 0 and svcond > 0 and enteredAt >= createdAt';
  assert.deepEqual(issuesOf(d), []);
});

test('hostile guard expressions are refused as INVALID_INPUT, never thrown raw', () => {
  const hostile = [
    'constructor.constructor("return process")()',
    'import("fs")',
    'f(x) = x; f(1)',
    'amount = 5',
    'evaluate("1+1")',
    'parse("1")',
    '[1,2,3][1]',
    'amount.__proto__',
    'this',
    'process.exit(1)',
    'require("child_process")',
    '"a".constructor',
    'createUnit("foo")',
    'x => x',
    '}{',
    '9'.repeat(5000),
  ];
  for (const guard of hostile) {
    const d = base();
    d.transitions[1].guard = guard;
    let err: unknown;
    try { validateDefinition(d, { pathPrefix: 'definition' }); } catch (e) { err = e; }
    assert.ok(err instanceof SvcError, `guard ${guard.slice(0, 40)} must give a SvcError, got ${err}`);
    assert.equal((err as SvcError).status, 400, guard.slice(0, 40));
    assert.ok((err as SvcError).issues?.some((i) => i.path === 'definition.transitions.1.guard'), guard.slice(0, 40));
  }
});

test('set assignments must target declared variables and compile', () => {
  const d = base();
  d.transitions[0].set = { counter: 'amount + 1' };
  expectIssue(d, 'definition.transitions.0.set.counter', /not a declared variable/);
  const e = base();
  e.transitions[0].set = { amount: 'amount +' };
  expectIssue(e, 'definition.transitions.0.set.amount', /refused expression/);
});

test('duplicate state names and duplicate transition names per source are refused', () => {
  const d = base();
  d.states.push({ name: 'review' });
  expectIssue(d, 'definition.states.4.name', /duplicate state 'review'/);
  const e = base();
  e.transitions.push({ from: 'review', to: 'rejected', name: 'approve' });
  expectIssue(e, 'definition.transitions.3.name', /two transitions named 'approve' leave state 'review'/);
});

test('unknown fields, wrong types and reserved variable names are refused', () => {
  expectIssue({ ...base(), extra: 1 }, 'definition.extra', /unknown field/);
  expectIssue({ ...base(), states: 'a,b' }, 'definition.states', /array/);
  expectIssue({ ...base(), variables: { t: 1 } }, 'definition.variables.t', /reserved/);
  expectIssue({ ...base(), variables: { x: [1] } }, 'definition.variables.x', /number, a boolean or a string/);
  expectIssue({ ...base(), variables: { x: null } }, 'definition.variables.x', /number, a boolean or a string/);
  expectIssue('not an object', 'definition', /JSON object/);
  expectIssue(null, 'definition', /JSON object/);
  const d: any = base();
  d.transitions[0] = { from: 'draft', to: 'review' };
  expectIssue(d, 'definition.transitions.0.name', /transition name/);
});

test('operators must be known and fed by numeric variables', () => {
  const d = base();
  d.transitions[1].operators = ['NOPE_1'];
  const issues = checkDefinition(d, { pathPrefix: 'definition', operatorInputs: (id) => (id === 'HEAT' ? ['alpha'] : undefined) }).issues;
  assert.ok(issues.some((i) => i.path === 'definition.transitions.1.operators.0' && /unknown operator/.test(i.message)));
  d.transitions[1].operators = ['HEAT'];
  const again = checkDefinition(d, { operatorInputs: (id) => (id === 'HEAT' ? ['alpha'] : undefined) }).issues;
  assert.ok(again.some((i) => /declare 'alpha'/.test(i.message)));
  d.variables!.alpha = 0.1;
  d.transitions[1].guard = 'HEAT > 0 and amount <= limit';
  assert.deepEqual(checkDefinition(d, { operatorInputs: (id) => (id === 'HEAT' ? ['alpha'] : undefined) }).issues, []);
});

test('every problem is reported at once', () => {
  const d: any = base();
  delete d.version;
  d.name = '';
  d.transitions[1].guard = '(((';
  const issues = issuesOf(d, 'definition');
  const paths = issues.map((i) => i.path);
  assert.ok(paths.includes('definition.version'));
  assert.ok(paths.includes('definition.name'));
  assert.ok(paths.includes('definition.transitions.1.guard'));
});

test('a definition over 256 KiB is refused with 413 PAYLOAD_TOO_LARGE', () => {
  const d = base();
  d.description = 'x'.repeat(1000);
  (d as any).metadata = { blob: 'y'.repeat(MAX_DEFINITION_BYTES) };
  assert.throws(() => validateDefinition(d), (e: unknown) => e instanceof SvcError && e.status === 413 && e.code === 'PAYLOAD_TOO_LARGE');
});

test('the published JSON Schema names the required fields and the limits', () => {
  assert.deepEqual([...DEFINITION_JSON_SCHEMA.required].sort(), ['initial', 'name', 'states', 'transitions', 'version']);
  assert.equal(DEFINITION_JSON_SCHEMA.additionalProperties, false);
  assert.ok(DEFINITION_JSON_SCHEMA.properties.transitions.items.properties.guard);
  assert.ok(DEFINITION_JSON_SCHEMA.properties.transitions.items.properties.operators);
  // the schema itself is plain JSON
  assert.deepEqual(JSON.parse(JSON.stringify(DEFINITION_JSON_SCHEMA)), DEFINITION_JSON_SCHEMA);
});

test('the foundation state machine is a valid definition in the same format', () => {
  const d = validateDefinition(FOUNDATION);
  const names = d.states.map((s) => s.name);
  for (const s of ['provisioned', 'active', 'suspended', 'recovered', 'retired']) assert.ok(names.includes(s), s);
  assert.equal(d.initial, 'provisioned');
});

// ajv is a dependency of the MCP SDK; it is used here only as an independent JSON Schema validator
const Ajv2020: any = (Ajv2020Module as any).default ?? Ajv2020Module;

test('the published schema is a valid draft 2020-12 JSON Schema that accepts every template and the foundation', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  assert.equal(ajv.validateSchema(DEFINITION_JSON_SCHEMA), true, JSON.stringify(ajv.errors));
  const validate = ajv.compile(DEFINITION_JSON_SCHEMA);
  for (const t of listTemplates()) assert.ok(validate(JSON.parse(JSON.stringify(t.definition))), `${t.id}: ${JSON.stringify(validate.errors)}`);
  assert.ok(validate(JSON.parse(JSON.stringify(FOUNDATION))), JSON.stringify(validate.errors));
  for (const q of ['Draft the contract, legal reviews it, both parties sign it, then archive the signed copy.', 'Charging session for an electric vehicle.']) {
    assert.ok(validate(JSON.parse(JSON.stringify(generateDefinition(q).definition))), JSON.stringify(validate.errors));
  }
  assert.ok(validate(base()));
  // faults the schema can express are refused by it too, at the same place
  const noVersion: any = base();
  delete noVersion.version;
  assert.equal(validate(noVersion), false);
  assert.ok(validate.errors!.some((e: any) => e.keyword === 'required' && e.params.missingProperty === 'version'));
  assert.equal(validate({ ...base(), extra: 1 }), false);
  assert.equal(validate({ ...base(), states: [{ name: '1bad' }, { name: 'ok', terminal: true }] }), false);
  assert.ok(validate.errors!.some((e: any) => e.instancePath === '/states/0/name'));
  assert.equal(validate({ ...base(), version: 0 }), false);
  assert.equal(validate({ ...base(), transitions: [{ from: 'draft', to: 'review' }] }), false);
  assert.equal(validate({ ...base(), variables: { x: [1] } }), false);
});

test('reserved and prototype member names cannot be variables; set cannot target an inherited name', () => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__x', 'fireCount', 'elapsed', 'pi']) {
    const d: any = base();
    d.variables = { ...d.variables, [name]: 1 };
    expectIssue(d, `definition.variables.${name}`, /reserved/);
  }
  // an own "__proto__" key, as JSON.parse makes it (the MCP face does not strip it)
  const proto = JSON.parse('{"__proto__": 1, "amount": 100, "limit": 500}');
  expectIssue({ ...base(), variables: proto }, 'definition.variables.__proto__', /reserved/);
  for (const name of ['toString', 'constructor', 'hasOwnProperty']) {
    const d = base();
    d.transitions[0].set = { [name]: '1' };
    expectIssue(d, `definition.transitions.0.set.${name}`, /not a declared variable/);
  }
  // a fire's variable updates: an inherited name is undeclared, not "a function"
  const def = validateDefinition(base());
  for (const name of ['toString', 'constructor']) {
    assert.throws(() => applyVariableUpdates(def, { amount: 100, limit: 500 }, { [name]: 1 }), (e: unknown) =>
      e instanceof SvcError && e.status === 400 && /not a variable of this contract/.test(e.message));
  }
});
