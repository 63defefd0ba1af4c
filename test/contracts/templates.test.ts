// The 321 built-in templates, tested purely (no store): each valid, each distinct, each with a
// happy path that repeated fires follow to a terminal state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { listTemplates, getTemplate, parseFlow } from '../../src/contracts/templates.ts';
import { checkDefinition, type ContractDefinition } from '../../src/contracts/definition.ts';
import { initialSnapshot, runToEnd } from '../../src/contracts/machine.ts';
import { operatorEvaluatorAt, operatorInputs } from '../../src/contracts/operators.ts';

const templates = listTemplates();

test('there are exactly 321 templates with unique ids and names', () => {
  assert.equal(templates.length, 321);
  assert.equal(new Set(templates.map((t) => t.id)).size, 321);
  assert.equal(new Set(templates.map((t) => t.name)).size, 321);
  for (const t of templates) assert.match(t.id, /^[a-z0-9][a-z0-9-]{2,80}$/);
});

test('templates are data: JSON files expanded at load', () => {
  const dir = new URL('../../src/contracts/templates/', import.meta.url);
  const files = readdirSync(dir);
  assert.ok(files.length > 10);
  assert.ok(files.every((f) => f.endsWith('.json')));
});

test('every template is a valid definition with version, name and a terminal state', () => {
  for (const t of templates) {
    const { issues } = checkDefinition(t.definition, { operatorInputs });
    assert.deepEqual(issues, [], t.id);
    assert.ok(t.definition.version);
    assert.ok(t.definition.states.some((s) => s.terminal), t.id);
  }
});

test('every template reaches a terminal state by repeated fires with its sample variables', () => {
  const lengths: number[] = [];
  for (const t of templates) {
    const r = runToEnd(t.definition, initialSnapshot(t.definition, 1_790_000_000), (k) => ({ t: 1_790_000_000 + k, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(1_790_000_000 + k) }));
    assert.ok(r.terminal, `${t.id} stopped in ${r.final.state}: ${r.blocked}`);
    assert.ok(r.path.length >= 2, `${t.id} happy path too short`);
    lengths.push(r.path.length);
  }
  // real workflows of different lengths, not one shape repeated
  assert.ok(new Set(lengths).size >= 6);
});

test('templates are distinct workflows, not renamed copies', () => {
  const stateSets = new Map<string, string>();
  const shapes = new Map<string, number>();
  for (const t of templates) {
    const key = t.definition.states.map((s) => s.name).sort().join(',');
    assert.ok(!stateSets.has(key), `${t.id} has the same states as ${stateSets.get(key)}`);
    stateSets.set(key, t.id);
    const sig = t.definition.transitions.map((x) => `${x.from}>${x.to}`).sort().join(';');
    shapes.set(sig, (shapes.get(sig) ?? 0) + 1);
  }
  assert.equal([...shapes.values()].filter((n) => n > 1).length, 0, 'no two templates share their transition graph');
  // no pair shares most of its vocabulary
  const sets = templates.map((t) => new Set(t.definition.states.map((s) => s.name)));
  let worst = 0;
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      let inter = 0;
      for (const s of sets[i]) if (sets[j].has(s)) inter++;
      worst = Math.max(worst, inter / (sets[i].size + sets[j].size - inter));
    }
  }
  assert.ok(worst < 0.6, `two templates share ${worst} of their states`);
});

// The structure of a definition with every label removed: states numbered in breadth-first order
// from the initial state (transitions in definition order), terminal marks, and each transition's
// guard, assignments and operators with the variable names replaced by their position. Two
// templates with the same fingerprint are one workflow with renamed labels.
function anonymousFingerprint(d: ContractDefinition, withValues: boolean): string {
  const idx = new Map<string, number>([[d.initial, 0]]);
  const order = [d.initial];
  for (let i = 0; i < order.length; i++) {
    for (const t of d.transitions) if (t.from === order[i] && !idx.has(t.to)) { idx.set(t.to, order.length); order.push(t.to); }
  }
  const vars = Object.keys(d.variables ?? {});
  const anon = (e: string) => e.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (w) => (vars.includes(w) ? `v${vars.indexOf(w)}` : w));
  const edges = d.transitions.map((t) => `${idx.get(t.from)}>${idx.get(t.to)}[${t.guard ? anon(t.guard) : ''}]{${Object.entries(t.set ?? {}).map(([k, v]) => `${anon(k)}=${anon(v)}`).join(';')}}@${(t.operators ?? []).join('+')}`);
  const marks = order.map((s) => (d.states.find((x) => x.name === s)!.terminal ? 'T' : 'n')).join('');
  return `${marks}|${edges.join(',')}${withValues ? '|' + vars.map((v) => JSON.stringify(d.variables![v])).join(',') : ''}`;
}

test('no template is another with its labels renamed: structures, vocabularies and names all differ', () => {
  // 1. with every state, transition and variable name removed, no two templates coincide
  for (const withValues of [false, true]) {
    const seen = new Map<string, string>();
    for (const t of templates) {
      const fp = anonymousFingerprint(t.definition, withValues);
      assert.ok(!seen.has(fp), `${t.id} is ${seen.get(fp)} with renamed labels: ${fp}`);
      seen.set(fp, t.id);
    }
  }
  // 2. even the bare graphs (no guards, no assignments, no labels) are mostly different
  const bare = new Map<string, number>();
  for (const t of templates) {
    const fp = anonymousFingerprint(t.definition, false).replace(/\[[^\]]*\]|\{[^}]*\}|@[^,]*/g, '');
    bare.set(fp, (bare.get(fp) ?? 0) + 1);
  }
  assert.ok(bare.size >= 240, `only ${bare.size} distinct bare graphs among 321`);
  assert.ok(Math.max(...bare.values()) <= 8, 'no bare graph shared by more than 8 templates');
  // 3. no pair shares half its transition names, or half its state names
  const jaccard = (a: Set<string>, b: Set<string>) => {
    let inter = 0;
    for (const x of a) if (b.has(x)) inter++;
    return inter / (a.size + b.size - inter);
  };
  const tn = templates.map((t) => new Set(t.definition.transitions.map((x) => x.name)));
  const sn = templates.map((t) => new Set(t.definition.states.map((x) => x.name)));
  const words = templates.map((t) => new Set(t.name.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2)));
  for (let i = 0; i < templates.length; i++) {
    for (let j = i + 1; j < templates.length; j++) {
      const pair = `${templates[i].id} / ${templates[j].id}`;
      assert.ok(jaccard(tn[i], tn[j]) < 0.5, `${pair} share transition names`);
      assert.ok(jaccard(sn[i], sn[j]) < 0.5, `${pair} share state names`);
      // 4. names are different workflows, not variants of one title
      assert.ok(jaccard(words[i], words[j]) < 0.75, `${pair} have near-identical names`);
    }
  }
});

test('each template\'s happy path is its designed flow: plain fires follow it (and its counters) to its last state', () => {
  for (const t of templates) {
    const flow = parseFlow(t.record.flow);
    const end = flow.states[flow.states.length - 1];
    assert.ok(end.terminal, `${t.id}: the flow ends in a terminal state`);
    const onFlow = new Set(flow.edges.map((e) => `${e.from}:${e.name}`));
    const r = runToEnd(t.definition, initialSnapshot(t.definition, 1_790_000_000), (k) => ({ t: 1_790_000_000 + k, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(1_790_000_000 + k) }));
    assert.equal(r.final.state, end.name, `${t.id} ends in ${r.final.state}, not at the end of its flow`);
    let cur = t.definition.initial;
    for (const name of r.path) {
      const tr = t.definition.transitions.find((x) => x.from === cur && x.name === name)!;
      assert.ok(onFlow.has(`${cur}:${name}`) || tr.to === tr.from, `${t.id}: '${name}' from '${cur}' is off the flow`);
      cur = tr.to;
    }
    // every flow edge is taken
    const taken = new Set<string>();
    cur = t.definition.initial;
    for (const name of r.path) { taken.add(`${cur}:${name}`); cur = t.definition.transitions.find((x) => x.from === cur && x.name === name)!.to; }
    for (const e of onFlow) assert.ok(taken.has(e), `${t.id}: flow edge ${e} not taken`);
  }
});

test('templates cover the workflow families the issue names', () => {
  const text = templates.map((t) => `${t.id} ${t.name} ${t.category}`.toLowerCase()).join('\n');
  for (const family of ['approval', 'escrow', 'release', 'experiment', 'maintenance', 'subscription', 'incident', 'custody', 'clinical', 'hiring', 'procurement', 'insurance']) {
    assert.ok(text.includes(family), family);
  }
  // guards, counters and deadlines appear in many of them
  const guarded = templates.filter((t) => t.definition.transitions.some((x) => x.guard)).length;
  const counters = templates.filter((t) => t.definition.transitions.some((x) => x.set)).length;
  assert.ok(guarded > 250, `guarded ${guarded}`);
  assert.ok(counters > 40, `counters ${counters}`);
});

test('some templates evaluate catalogued operators on their transitions', () => {
  const withOps = templates.filter((t) => t.definition.transitions.some((x) => x.operators?.length));
  assert.ok(withOps.length >= 3);
  const cal = getTemplate('instrument-calibration')!;
  const r = runToEnd(cal.definition, initialSnapshot(cal.definition, 0), () => ({ t: 1, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(1) }));
  assert.ok(r.terminal);
  assert.ok(r.path.includes('pass_tolerance'));
  // out of tolerance: V = I*R = 0.002 A * 6000 ohm = 12 V against a 10 V reference, the guard blocks and the fallback adjusts R
  const drift = runToEnd(cal.definition, initialSnapshot(cal.definition, 0, { R: 6000 }), () => ({ t: 1, phase: 0, svcond: 0, evaluateOperators: operatorEvaluatorAt(1) }));
  assert.ok(drift.path.includes('adjust'));
  assert.equal(drift.final.variables.R, 5000);
});

test('getTemplate returns the definition by id', () => {
  const t = getTemplate('escrow-goods');
  assert.ok(t);
  assert.equal(t!.definition.initial, 'open');
  assert.equal(getTemplate('no-such-template'), undefined);
});

test('the flow notation parses guards, assignments and operators', () => {
  const f = parseFlow('a -go[x > 1 and y]{x = x + 1; y = false}@KO42,CHE17-> b! -never-> c');
  assert.deepEqual(f.states, [{ name: 'a', terminal: false }, { name: 'b', terminal: true }, { name: 'c', terminal: false }]);
  assert.deepEqual(f.edges[0], { from: 'a', to: 'b', name: 'go', guard: 'x > 1 and y', set: { x: 'x + 1', y: 'false' }, operators: ['KO42', 'CHE17'] });
  assert.throws(() => parseFlow('a -go b'));
});
