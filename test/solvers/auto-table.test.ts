// svc_auto answers the question asked (issue 18 item 4): every request of the table (written for
// this test, see auto-table.rows.ts) reaches its solver, reads exactly the inputs the request gives,
// and seals the same answer as a direct call of that solver with those inputs (same value bits,
// same result, same validated input); requests that name something the solver cannot take are
// refused with a reason. Runs through one node (PGlite, or PostgreSQL with DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ROWS, REFUSALS, type Row } from './auto-table.rows.ts';
import { testNode, type TestNode } from '../helpers.ts';
import { runUnsealed } from '../../src/ops/solvers.ts';
import { loadDescriptors, schemaKeys, terms } from '../../src/ops/dispatch.ts';
import { blackScholes } from '../../src/solvers/quant.ts';

const descriptors = await loadDescriptors();
const byName = new Map(descriptors.map((d) => [d.name, d]));

let node: TestNode;
let key: string;
before(async () => {
  node = await testNode({ env: { SVC_TOKENS_PER_DAY: '100000' } });
  key = (await node.machine('auto-table')).apiKey;
});
after(async () => { await node.close(); });

const plain = (x: unknown) => JSON.parse(JSON.stringify(x));
/** Wall-clock timings a result reports (sat's stats.solveMs, stats.wallMs) differ between any two
 * runs; everything else must be equal bit for bit. */
const untimed = (x: unknown): unknown => (Array.isArray(x) ? x.map(untimed) : x && typeof x === 'object'
  ? Object.fromEntries(Object.entries(x).filter(([k]) => !/Ms$/.test(k)).map(([k, v]) => [k, untimed(v)])) : x);

/** The direct call a person would make with the row's inputs (the query as the prompt where a solver takes one). */
async function direct(row: { solver: string; q: string; inputs: Record<string, unknown> }) {
  const body: Record<string, unknown> = { ...row.inputs };
  if (schemaKeys(byName.get(row.solver)!).includes('prompt')) body.prompt = row.q;
  return plain(await runUnsealed(row.solver, body)) as Record<string, any>;
}

/** Differences between an auto receipt and the direct answer for a row ('' when none). */
async function compare(row: Row, r: { status: number; body: any; text: string }): Promise<string> {
  if (r.status !== 200) return `HTTP ${r.status}: ${r.text.slice(0, 300)}`;
  const b = r.body;
  if (b.solver !== row.solver) return `solver ${b.solver}, want ${row.solver}`;
  const applied = Object.fromEntries(Object.entries(b.result.dispatch.appliedInputs as Record<string, { value: unknown }>).map(([k, a]) => [k, a.value]));
  try { assert.deepStrictEqual(applied, plain(row.inputs)); } catch { return `appliedInputs ${JSON.stringify(applied)}, want ${JSON.stringify(row.inputs)}`; }
  const d = await direct(row);
  const { dispatch: _dispatch, ...result } = b.result;
  if (!Object.is(b.value, d.value)) return `value ${b.value}, direct ${d.value}`;
  for (const [name, got, want] of [['result', untimed(result), untimed(d.result)], ['input', b.input, d.input], ['precision', b.precision, d.precision], ['seed', b.seed, d.seed], ['unit', b.unit, d.unit], ['method', b.method, d.method]] as const) {
    try { assert.deepStrictEqual(got, want); } catch { return `${name} differs from the direct call: ${JSON.stringify(got).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`; }
  }
  return '';
}

test('the table: at least 150 fresh requests over every solver, none a near copy of its solver\'s examples', () => {
  assert.ok(ROWS.length >= 150, `${ROWS.length} rows`);
  const covered = new Set([...ROWS.map((r) => r.solver), ...REFUSALS.map((r) => r.solver)]);
  for (const d of descriptors) assert.ok(covered.has(d.name), `no request for ${d.name}`);
  // multibody needs bodies and lp the program itself, which no sentence carries: they appear only among the refusals
  for (const d of descriptors) if (d.name !== 'multibody' && d.name !== 'lp') assert.ok(ROWS.filter((r) => r.solver === d.name).length >= 4, `fewer than 4 answered requests for ${d.name}`);
  assert.equal(new Set(ROWS.map((r) => r.q)).size, ROWS.length, 'duplicate requests');
  const words = (t: string) => new Set(terms(t).filter((x) => !x.includes('_')));
  for (const row of [...ROWS, ...REFUSALS]) {
    const d = byName.get(row.solver ?? '');
    if (!d) continue;
    const qw = words(row.q);
    for (const ex of d.examples) {
      const ew = words(ex);
      const shared = [...qw].filter((w) => ew.has(w)).length;
      assert.ok(shared / (qw.size + ew.size - shared) < 0.55, `'${row.q}' is a near copy of ${d.name}'s example '${ex}'`);
    }
  }
});

test('every request of the table reaches its solver, reads exactly its inputs, and seals what a direct call gives', async (t) => {
  const wrong: string[] = [];
  for (const row of ROWS) {
    const r = await node.call('POST', '/api/svc/auto', { query: row.q }, key);
    const diff = await compare(row, r);
    if (diff) wrong.push(`${row.solver} <- '${row.q}': ${diff}`);
  }
  t.diagnostic(`auto table: ${ROWS.length - wrong.length}/${ROWS.length} requests answered exactly as the direct call`);
  assert.deepEqual(wrong, [], `${wrong.length}/${ROWS.length} wrong:\n${wrong.join('\n')}`);
});

test('requests that name an option, a quantity or a problem the solver cannot take are refused with a reason', async (t) => {
  const wrong: string[] = [];
  for (const f of REFUSALS) {
    const r = await node.call('POST', '/api/svc/auto', { query: f.q }, key);
    const ok = r.status === 400 && r.body.code === 'INVALID_INPUT' && r.body.reason === f.reason && (!f.solver || r.body.solver === f.solver)
      && Array.isArray(r.body.issues) && r.body.issues[0]?.path === 'query' && typeof r.body.error === 'string';
    if (!ok) wrong.push(`'${f.q}': want 400 ${f.reason} (${f.solver}), got ${r.status} ${r.text.slice(0, 300)}`);
  }
  t.diagnostic(`refusals: ${REFUSALS.length - wrong.length}/${REFUSALS.length}`);
  assert.deepEqual(wrong, []);
});

test('issue 18: "price a European put option, strike 110, spot 100, volatility 0.25" prices that put, not the default call', async () => {
  const q = 'price a European put option, strike 110, spot 100, volatility 0.25';
  const r = await node.call('POST', '/api/svc/auto', { query: q }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.solver, 'quant');
  const d = r.body.result.dispatch;
  assert.deepEqual(d.appliedInputs, {
    type: { value: 'put', from: 'text', words: 'put' },
    K: { value: 110, from: 'text', words: 'strike 110' },
    S0: { value: 100, from: 'text', words: 'spot 100' },
    sigma: { value: 0.25, from: 'text', words: 'volatility 0.25' },
  });
  assert.deepEqual(d.unusedWords, []);
  assert.equal(r.body.input.type, 'put');
  assert.equal(r.body.input.K, 110);
  assert.equal(r.body.input.sigma, 0.25);
  assert.equal(await compare({ q, solver: 'quant', inputs: { type: 'put', K: 110, S0: 100, sigma: 0.25 } }, r), '');
  // checked against the Black-Scholes put with these inputs (12.69), not the default call (10.45)
  const put = blackScholes('put', 100, 110, 0.05, 0.25, 1).price, call = blackScholes('call', 100, 100, 0.05, 0.2, 1).price;
  assert.ok(Math.abs(put - call) > 2);
  assert.equal(r.body.precision.referenceValue, put);
  assert.ok(Math.abs(r.body.value - put) < 0.01 * put, `${r.body.value} vs ${put}`);

  const barrier = await node.call('POST', '/api/svc/auto', { query: 'price a put with barrier 120' }, key);
  assert.equal(barrier.status, 400, barrier.text);
  assert.equal(barrier.body.code, 'INVALID_INPUT');
  assert.equal(barrier.body.reason, 'UNSUPPORTED_OPTION');
  assert.match(barrier.body.error, /barrier/);
});

test('explicit inputs fill fields the text does not name; a different value for a named field is a conflict', async () => {
  const r = await node.call('POST', '/api/svc/auto', { query: 'european call with strike 105', inputs: { paths: 20000, S0: 110 } }, key);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.result.dispatch.appliedInputs, {
    type: { value: 'call', from: 'text', words: 'call' }, K: { value: 105, from: 'text', words: 'strike 105' },
    paths: { value: 20000, from: 'inputs' }, S0: { value: 110, from: 'inputs' },
  });
  assert.equal(r.body.input.K, 105);
  const clash = await node.call('POST', '/api/svc/auto', { query: 'european call with strike 105', inputs: { K: 95 } }, key);
  assert.equal(clash.status, 400, clash.text);
  assert.equal(clash.body.reason, 'CONFLICTING_VALUES');
});
