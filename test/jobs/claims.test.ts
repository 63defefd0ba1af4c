// A machine's jobs never run more at once than SVC_JOBS_PER_MACHINE, however many workers claim at
// the same moment (issue 27, docs/jobs.md "Fairness"). pg-boss claims with one statement that
// counts the group's active jobs; on PostgreSQL two such statements at once each saw the group idle
// and both claimed (CI saw a machine limited to one job run two). src/jobs/queue.ts serialises the
// claims; here eight claims race, round after round, on the store CI gives the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';
import { startQueue, QUEUE, SWEEP_TIER } from '../../src/jobs/queue.ts';

test('eight workers claiming at once take at most the group\'s limit of a machine\'s jobs', { timeout: 120_000 }, async () => {
  const t = await testNode();
  const schema = `claims_${Date.now().toString(36)}`;
  const boss = await startQueue({ db: t.app.db, schema, heartbeatSeconds: 30, expireInSeconds: 600 });
  try {
    await boss.insert(QUEUE, Array.from({ length: 80 }, (_, i) => ({ data: { i }, group: { id: 'machine-A' } })));
    await boss.insert(QUEUE, Array.from({ length: 40 }, (_, i) => ({ data: { i }, group: { id: 'machine-B', tier: SWEEP_TIER } })));
    const options = { batchSize: 1, groupConcurrency: { default: 1, tiers: { [SWEEP_TIER]: 2 } } };
    const seen: string[] = [];
    for (let round = 0; round < 12; round++) {
      const got = (await Promise.all(Array.from({ length: 8 }, () => boss.fetch(QUEUE, options as any)))).flat() as any[];
      const a = got.filter((j) => j.groupId === 'machine-A').length;
      const b = got.filter((j) => j.groupId === 'machine-B').length;
      seen.push(`${a}+${b}`);
      assert.ok(a <= 1, `round ${round}: machine A (limit 1) had ${a} jobs claimed at once (${seen.join(' ')})`);
      assert.ok(b <= 2, `round ${round}: machine B's sweep runs (limit 2) had ${b} claimed at once (${seen.join(' ')})`);
      assert.ok(a + b >= 1, `round ${round}: nothing was claimed`);
      for (const j of got) await boss.complete(QUEUE, j.id);
    }
    console.log(`# claims per round (A+B): ${seen.join(' ')}`);
  } finally {
    await boss.stop({ graceful: false, wait: true } as any).catch(() => {});
    if (t.app.db.backend !== 'pglite') await t.app.db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await t.close();
  }
});
