// Shared body of the all-templates acceptance test, split over three files (a third of the 321
// templates each) so that each file stays fast and two run in parallel.
// Acceptance: every one of the 321 templates deploys through the node and fires along its happy
// path to a terminal state; every fire's v1 receipt verifies and every chain verifies afterwards.
// Several templates share a machine (one chain per machine), so the chains are long.
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';
import { fixedClock } from '../../src/core/clock.ts';
import { verifyProof } from '../../src/core/seal.ts';
import { listTemplates } from '../../src/contracts/templates.ts';
import { pulseAt } from '../../src/core/clock.ts';
import { initialSnapshot, runToEnd } from '../../src/contracts/machine.ts';
import { operatorEvaluatorAt } from '../../src/contracts/operators.ts';

const TEMPLATES_PER_MACHINE = 36;

export async function runTemplates(part: number, parts: number): Promise<void> {
  const all = listTemplates();
  assert.equal(all.length, 321);
  const size = Math.ceil(all.length / parts);
  const templates = all.slice(part * size, (part + 1) * size);
  const T = 1_790_000_000 + part;
  const node = await testNode({ clock: fixedClock(T) });
  const pulse = pulseAt(T);
  try {
    // machines work in parallel (one chain each); each machine runs its templates in order
    const groups: (typeof templates)[] = [];
    for (let i = 0; i < templates.length; i += TEMPLATES_PER_MACHINE) groups.push(templates.slice(i, i + TEMPLATES_PER_MACHINE));
    const machines: { zid: string; apiKey: string }[] = [];
    for (let g = 0; g < groups.length; g++) machines.push(await node.machine(`templates ${part}.${g}`));
    let fires = 0;
    let checkedViaTool = 0;
    const chainBefore: number[] = [];
    for (const m of machines) chainBefore.push((await node.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.length);
    const appended = machines.map(() => 0);
    await Promise.all(groups.map(async (group, g) => {
      const m = machines[g];
      for (const tpl of group) {
        // the path the node must take: the template's happy path, fired purely at the node's pulse
        const expected = runToEnd(tpl.definition, initialSnapshot(tpl.definition, T), () => ({ t: T, phase: pulse.phase, svcond: pulse.svcond, evaluateOperators: operatorEvaluatorAt(T) }));
        assert.ok(expected.terminal, `${tpl.id}: pure happy path ends terminal`);
        const d = await node.call('POST', '/api/contracts', { templateId: tpl.id }, m.apiKey);
        assert.equal(d.status, 200, `${tpl.id}: ${d.text}`);
        appended[g]++;
        const path: string[] = [];
        let lastSeq = d.body.chain.seq;
        let terminal = false;
        for (let k = 0; k < 60 && !terminal; k++) {
          const f = await node.call('POST', `/api/contracts/${d.body.id}/fire`, {}, m.apiKey);
          assert.equal(f.status, 200, `${tpl.id}: ${f.text}`);
          assert.equal(f.body.fired, true, `${tpl.id} blocked in ${f.body.contract?.state}: ${f.body.reason}`);
          assert.equal(f.body.receipt.version, 1);
          // the receipt verifies: v1 message over the sealed fields, with the node's proof key
          const ok = verifyProof(node.app.sealer.proofKey, f.body.svcProof, {
            operatorIds: f.body.svcState.operators, R_t: f.body.svcState.masterSum, svcond: f.body.svcState.svcond, keyPrefix: f.body.keyPrefix,
          });
          assert.ok(ok, `${tpl.id}: receipt ${f.body.receipt.id} verifies`);
          // and through svc_verify for a sample of them
          if (fires++ % 25 === 0) {
            const v = await node.tool('svc_verify', {
              proof: f.body.svcProof, operatorIds: f.body.svcState.operators, R_t: f.body.svcState.masterSum, zeqond: f.body.svcState.svcond,
            }, m.apiKey);
            assert.equal(v.body.valid, true);
            checkedViaTool++;
          }
          // each fire is the next entry of the machine's chain
          assert.equal(f.body.receipt.chain.seq, lastSeq + 1, `${tpl.id}: fire anchored as the next chain entry`);
          assert.match(f.body.receipt.chain.hash, /^[0-9a-f]{64}$/);
          lastSeq = f.body.receipt.chain.seq;
          appended[g]++;
          path.push(f.body.transition.name);
          assert.equal(f.body.contract.fireCount, path.length);
          terminal = f.body.contract.terminal;
        }
        assert.ok(terminal, `${tpl.id} reached a terminal state`);
        assert.deepEqual(path, expected.path, `${tpl.id} followed its happy path`);
        assert.equal(path.length >= 2, true);
      }
    }));
    for (const [g, m] of machines.entries()) {
      const v = await node.call('GET', '/api/chain/verify', undefined, m.apiKey);
      assert.equal(v.status, 200);
      assert.equal(v.body.valid, true, JSON.stringify(v.body));
      assert.equal(v.body.length, chainBefore[g] + appended[g], 'exactly one chain entry per deploy and per fire');
    }
    assert.ok(fires >= templates.length * 2);
    assert.ok(checkedViaTool > 3);
  } finally {
    await node.close();
  }
}
