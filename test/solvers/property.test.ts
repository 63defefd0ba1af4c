// A seal means the right answer (issue 18): a property test per solver. For every solver, 200
// random inputs inside its schema are sent to the node; every 200 answer has a finite value and
// precision.withinBound true (no caller asked for acceptOutOfBound here), and every other answer is
// a 4xx DESIGN §9 error body with a code. Integer fields are drawn mostly near their lower bound
// (sizes and step counts: the lowest 1 % of the range, at least 8 values), so that the runs stay
// short; a run past the 3 s budget is a 422 TIME_BUDGET_EXCEEDED, which is an allowed answer. Prints the refusal rate per
// solver (the figures of the note).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testNode } from '../helpers.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';
import { valueArb } from '../scale/fuzz-lib.ts';
import { COMMON_KEYS } from '../../src/ops/solvers.ts';

// 200 per solver on the embedded store; on PostgreSQL the numerics are the same and only the seal
// path differs, so a smaller sample checks it there
const RUNS = Number(process.env.PROPERTY_RUNS ?? (process.env.DATABASE_URL ? 40 : 200));
const SEED = Number(process.env.PROPERTY_SEED ?? 18);

type Schema = Record<string, any>;

/** In-schema values, integers biased to the low end of their range. */
function fieldArb(s: Schema, root: Schema): fc.Arbitrary<unknown> {
  if (s && (s.type === 'integer') && Number.isFinite(s.minimum) && Number.isFinite(s.maximum) && s.maximum - s.minimum > 16) {
    const lo = s.minimum, hi = s.maximum;
    return fc.integer({ min: lo, max: Math.min(hi, lo + Math.max(8, Math.round((hi - lo) / 100))) });
  }
  return valueArb(s, root);
}

/** The required fields plus at most three optional ones, drawn at random: sparse bodies keep
 * reaching the success paths of solvers whose fields exclude each other (DESIGN §9). */
function bodyArb(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const own = Object.entries(props).filter(([k]) => !COMMON_KEYS.includes(k) || k === 'sample');
  const required = new Set<string>(schema.required ?? []);
  const optional = own.map(([k]) => k).filter((k) => !required.has(k));
  return fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((chosen) => {
    const keys = own.filter(([k]) => required.has(k) || chosen.includes(k));
    return fc.record(Object.fromEntries(keys.map(([k, v]) => [k, fieldArb(v, schema)]))) as fc.Arbitrary<Record<string, unknown>>;
  });
}

test(`every solver: ${RUNS} random in-schema inputs give a sealed finite within-bound value or a 4xx error body`, { timeout: 1_200_000 }, async () => {
  const t = await testNode({ env: { SVC_SOLVER_TIMEOUT_MS: '3000', SVC_TOKENS_PER_DAY: '100000000' } });
  try {
    const m = await t.machine('property');
    const report: string[] = [];
    const failures: string[] = [];
    for (const op of t.app.operations.filter((o) => o.tag === 'solvers' && o.path.startsWith('/api/svc/') && o.id.startsWith('solver.'))) {
      const schema = jsonSchemaOf(op);
      const bodies = fc.sample(bodyArb(schema), { seed: SEED, numRuns: RUNS });
      const counts: Record<string, number> = {};
      for (const body of bodies) {
        const r = await t.call('POST', op.path, body, m.apiKey);
        const key = r.status === 200 ? '200' : `${r.status} ${r.body?.code ?? '?'}`;
        counts[key] = (counts[key] ?? 0) + 1;
        if (r.status === 200) {
          if (!Number.isFinite(r.body.value) || r.body.precision?.withinBound !== true) failures.push(`${op.path} sealed ${JSON.stringify({ value: r.body.value, precision: r.body.precision })} for ${JSON.stringify(body).slice(0, 300)}`);
        } else if (!(r.status >= 400 && r.status < 500) || r.body?.ok !== false || typeof r.body.code !== 'string' || typeof r.body.error !== 'string') {
          failures.push(`${op.path} answered ${r.status} ${r.text.slice(0, 200)} for ${JSON.stringify(body).slice(0, 300)}`);
        }
      }
      const refused = RUNS - (counts['200'] ?? 0);
      report.push(`${op.tool}: ${counts['200'] ?? 0} sealed, ${refused} refused (${(100 * refused / RUNS).toFixed(0)} %) ${JSON.stringify(counts)}`);
    }
    console.log('refusal rate per solver:\n' + report.join('\n'));
    assert.deepEqual(failures.slice(0, 10), []);
  } finally { await t.close(); }
});
