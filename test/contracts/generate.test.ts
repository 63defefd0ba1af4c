// svc_contract_generate, purely: the request table gives valid definitions whose happy path
// reaches a terminal state; the output is deterministic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateDefinition, matchTemplates } from '../../src/contracts/generate.ts';
import { checkDefinition } from '../../src/contracts/definition.ts';
import { fireOnce, initialSnapshot, isTerminal } from '../../src/contracts/machine.ts';
import { GENERATE_CASES } from './generate-queries.ts';
import { MEANING_ROWS } from './meaning-table.ts';
import { parseCondition, VarRegistry } from '../../src/contracts/conditions.ts';

test('the request table has at least 40 plain-English requests', () => {
  assert.ok(GENERATE_CASES.length >= 40);
});

for (const [i, c] of GENERATE_CASES.entries()) {
  test(`generate #${i + 1}: ${c.query.slice(0, 70)}`, () => {
    const g = generateDefinition(c.query);
    assert.deepEqual(checkDefinition(g.definition).issues, [], 'deploys as is');
    assert.ok(g.assumptions.length > 0);
    assert.ok(g.basedOn.length > 0, 'starts from matching templates');
    // fire along the happy path: variables with the first fire, waits honoured
    let snap = initialSnapshot(g.definition, 0);
    let t = 0;
    const path: string[] = [];
    g.happyPath.transitions.forEach((name, k) => {
      t += g.happyPath.waitSeconds[k];
      const vars = g.happyPath.fireVariables[k];
      const out = fireOnce(g.definition, snap, { t, phase: 0, svcond: 0, variables: Object.keys(vars).length ? vars : undefined });
      assert.ok(out.fired, `step ${k} (${name}) blocked: ${!out.fired && out.reason}`);
      if (!out.fired) return;
      assert.equal(out.transition.name, name);
      path.push(name);
      snap = out.next;
    });
    assert.ok(isTerminal(g.definition, snap.state), `ends in terminal state, not ${snap.state}`);
    assert.ok(path.length >= c.minSteps, `at least ${c.minSteps} steps, got ${path.join(' > ')}`);
    const states = g.definition.states.map((s) => s.name);
    for (const e of c.expect ?? []) assert.ok(states.some((s) => s.includes(e)), `a state mentioning '${e}' in ${states.join(', ')}`);
    if (c.conditions !== undefined) assert.ok(g.recognised.conditions.length >= c.conditions, `conditions: ${JSON.stringify(g.recognised.conditions)}`);
    if (c.deadlines !== undefined) assert.ok(g.recognised.deadlines.length >= c.deadlines, `deadlines: ${JSON.stringify(g.recognised.deadlines)}`);
  });
}

test('generation is deterministic and always lists its assumptions', () => {
  for (const c of GENERATE_CASES) {
    const one = generateDefinition(c.query);
    assert.deepEqual(generateDefinition(c.query), one);
    assert.ok(one.assumptions.length > 0 && one.assumptions.every((x) => typeof x === 'string' && x.length > 0));
  }
  // the same request in a different process state (after other requests) gives the same draft
  const q = GENERATE_CASES[0].query;
  const before = JSON.stringify(generateDefinition(q));
  for (const c of GENERATE_CASES.slice(1, 6)) generateDefinition(c.query);
  assert.equal(JSON.stringify(generateDefinition(q)), before);
});

test('the drafts follow the requests: only the vague ones fall back to a template as is', () => {
  const asIs = GENERATE_CASES.filter((c) => generateDefinition(c.query).assumptions.some((x) => /returning template|as they are/.test(x)));
  // the three one-line requests that name at most one step
  assert.ok(asIs.length <= 3, asIs.map((c) => c.query).join(' | '));
  assert.ok(asIs.every((c) => c.minSteps <= 1));
});

test('a condition blocks its step until the caller fires with the variable set', () => {
  const g = generateDefinition('Ship the goods, then release the payment only when the buyer confirms delivery.');
  const cond = g.recognised.conditions[0];
  assert.ok(cond);
  assert.equal(g.definition.variables![cond.variable], false);
  let snap = initialSnapshot(g.definition, 0);
  const env = { t: 0, phase: 0, svcond: 0 };
  while (!isTerminal(g.definition, snap.state)) {
    const out = fireOnce(g.definition, snap, env);
    if (!out.fired) {
      assert.match(out.reason, new RegExp(cond.variable));
      const retry = fireOnce(g.definition, snap, { ...env, variables: { [cond.variable]: true } });
      assert.ok(retry.fired);
      if (retry.fired) snap = retry.next;
      continue;
    }
    snap = out.next;
  }
  assert.match(snap.state, /released|paid/);
});

test('a deadline adds an expiry branch that fires once the time has passed', () => {
  const g = generateDefinition('Submit the claim, then approve it within 2 days and pay the claimant.');
  assert.equal(g.recognised.deadlines[0]?.seconds, 172800);
  let snap = initialSnapshot(g.definition, 0);
  const first = fireOnce(g.definition, snap, { t: 10, phase: 0, svcond: 0 });
  assert.ok(first.fired);
  if (!first.fired) return;
  snap = first.next;
  const late = fireOnce(g.definition, snap, { t: 10 + 172801, phase: 0, svcond: 0 });
  assert.ok(late.fired);
  if (late.fired) assert.equal(late.to, 'expired');
});

test('a negative condition becomes a branch to a failure state, tried first', () => {
  const g = generateDefinition('Review the pull request; if the tests fail, reject the change; otherwise merge the branch.');
  const branch = g.recognised.conditions.find((c) => c.branch);
  assert.ok(branch, 'branch recognised');
  const snap0 = initialSnapshot(g.definition, 0);
  const r1 = fireOnce(g.definition, snap0, { t: 0, phase: 0, svcond: 0 });
  assert.ok(r1.fired);
  if (!r1.fired) return;
  const bad = fireOnce(g.definition, r1.next, { t: 0, phase: 0, svcond: 0, variables: { [branch!.variable]: true } });
  assert.ok(bad.fired);
  if (bad.fired) assert.match(bad.to, /reject/);
});

test('template matching is term overlap: an escrow request picks the escrow template', () => {
  const m = matchTemplates('escrow: the buyer deposits funds and the seller ships the goods');
  assert.equal(m[0].t.id, 'escrow-goods');
  const n = matchTemplates('clinical trial patient screening and randomisation');
  assert.match(n[0].t.id, /patient|clinical|trial/);
});

test('an unrecognisable request still returns a deployable definition', () => {
  const g = generateDefinition('zzzz qqqq xxxx');
  assert.deepEqual(checkDefinition(g.definition).issues, []);
  assert.ok(g.assumptions.some((a) => /template/.test(a)));
});

test('the drafts of the meaning table validate and run their happy path to a terminal state', () => {
  for (const q of new Set(MEANING_ROWS.map((r) => r.q))) {
    const g = generateDefinition(q);
    assert.deepEqual(checkDefinition(g.definition).issues, [], q);
    assert.ok(!g.assumptions.some((a) => /returning template|as they are/.test(a)), `${q}: ${g.assumptions.join(' | ')}`);
    assert.equal(g.happyPath.fireVariables.length, g.happyPath.transitions.length);
    let snap = initialSnapshot(g.definition, 0);
    let t = 0;
    g.happyPath.transitions.forEach((name, k) => {
      t += g.happyPath.waitSeconds[k];
      const out = fireOnce(g.definition, snap, { t, phase: 0, svcond: 0, variables: g.happyPath.fireVariables[k] });
      assert.ok(out.fired && out.transition.name === name, `${q}: step ${k} (${name}): ${!out.fired && out.reason}`);
      if (out.fired) snap = out.next;
    });
    assert.ok(isTerminal(g.definition, snap.state), `${q}: ends in ${snap.state}`);
  }
});

test('two steps for two parties: the happy path sends each fire its own actor', () => {
  const g = generateDefinition('Only the seller may ship the goods, then only the buyer may confirm delivery');
  assert.deepEqual(g.happyPath.fireVariables.map((v) => v.actor), ['seller', 'buyer']);
  assert.deepEqual(g.recognised.conditions.map((c) => c.roles), [['seller'], ['buyer']]);
});

test('conditions: negations compose, comparisons invert instead of negating, facts are shared', () => {
  const reg = new VarRegistry(new Set());
  const cases: [string, boolean, string][] = [
    ['the goods are not delivered', false, 'not goodsDelivered'],
    ['the goods are not delivered', true, 'goodsDelivered'],
    ['the tenant fails to pay rent', false, 'not tenantPaysRent'],
    ["the seller doesn't ship within 5 days", false, 'not sellerShips and elapsed > 432000'],
    ['the seller ships within 5 days', false, 'sellerShips and elapsed <= 432000'],
    ['the invoice is unpaid after 14 days', false, 'not invoicePaid and elapsed >= 1209600'],
    ['no claim is filed', false, 'not claimFiled'],
    ['the amount is not more than 500', false, 'amount <= 500'],
    ['the amount exceeds 5,000', true, 'amount <= 5000'],
    ['the amount does not exceed 1k', false, 'amount <= 1000'],
    ['fewer than five bids arrive within 10 days', false, 'bidsArrive < 5 and elapsed > 864000'],
    ['3 or more reviewers approve', false, 'reviewersApprove >= 3'],
    ['the humidity is between 30 and 60 percent', false, 'humidityPercent >= 30 and humidityPercent <= 60'],
    ['the humidity is between 30 and 60 percent', true, 'humidityPercent < 30 or humidityPercent > 60'],
    ['neither the landlord nor the agent objects', false, 'not landlordObjects and not agentObjects'],
    ['the landlord or the agent objects', false, 'landlordObjects or agentObjects'],
    ['signed by the buyer and the seller', false, 'buyerSigned and sellerSigned'],
    ['the driver is at least 21 years old', false, 'driverAge >= 21'],
    ['30 days pass without a complaint', false, 'not complaint and elapsed >= 2592000'],
  ];
  for (const [text, unless, guard] of cases) assert.equal(parseCondition(text, unless, reg).guard, guard, `${unless ? 'unless' : 'if'} ${text}`);
  // one fact, one variable: "not delivered" is the fact "the buyer confirms delivery"
  const r2 = new VarRegistry(new Set());
  const a = parseCondition('the buyer confirms delivery', false, r2);
  const b = parseCondition('not delivered within 7 days', false, r2);
  assert.deepEqual(b.variables, a.variables);
  // but not another party's fact
  const c = parseCondition('the seller confirms delivery', false, r2);
  assert.notDeepEqual(c.variables, a.variables);
  // the values on either side of a guard
  const d = parseCondition('the score is at least 80 and the budget is under 5000', false, r2);
  assert.deepEqual(d.pass, { score: 80, budget: 4999 });
  assert.equal(d.fail.score, 79);
});
