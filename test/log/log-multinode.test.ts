// One log for several nodes (issue 20): three node processes on one PostgreSQL schema seal under
// concurrent load and append to one log; one is killed with SIGKILL mid-load. Every acknowledged
// receipt is a leaf at its index (entry bundles from a surviving node), its inclusion proof
// verifies against its checkpoint, and consistency proofs verify between checkpoints signed by
// different nodes. Runs only when DATABASE_URL is set (CI runs the suite on PostgreSQL too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leafHash, parseNote, parseCheckpointText, parseVkey, verifyConsistency, verifyInclusion, verifyNote } from '../../src/core/tlog.ts';
import { startNode, stopNode, http, newMachine, schemaName, dropSchema, sleep, type NodeProc, type Machine } from '../scale/harness.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const SKIP = DATABASE_URL ? false : 'SKIPPED: the multi-node log test needs PostgreSQL: set DATABASE_URL=postgres://… (CI does)';

test('three nodes on PostgreSQL append to one log under load; kill -9 loses no acknowledged leaf; consistency holds across nodes', { skip: SKIP, timeout: 600_000 }, async () => {
  const schema = schemaName('tlog');
  const env = { SVC_BASE_URL: 'https://log.example.test' };
  const nodes: NodeProc[] = [];
  try {
    for (let i = 0; i < 3; i++) nodes.push(await startNode({ databaseUrl: DATABASE_URL, schema, env, readyTimeoutMs: 120_000 }));
    const keys = await Promise.all(nodes.map((n) => http(n.url, 'GET', '/log/key')));
    assert.ok(keys.every((k) => k.status === 200 && k.text === keys[0].text), 'every node serves the deployment\'s one log key');
    const vkey = parseVkey(keys[0].text)!;
    assert.equal(vkey.name, 'log.example.test/log');
    const machines: Machine[] = [];
    for (let i = 0; i < 4; i++) machines.push(await newMachine(nodes[i % 2].url, `tlog ${i}`));

    const acked: { body: any; node: number }[] = [];
    let alive = [0, 1, 2];
    let stop = false;
    const loops = Array.from({ length: 12 }, async (_, c) => {
      let k = c;
      while (!stop) {
        const ni = alive[k % alive.length];
        const m = machines[k++ % machines.length];
        const r = await http(nodes[ni].url, 'POST', '/api/svc/protect', { key: m.apiKey, body: { health: 'up' }, timeoutMs: 60_000 });
        if (r.status === 200) acked.push({ body: r.body, node: ni });
        else await sleep(r.status === 0 ? 50 : 10);
      }
    });
    await sleep(4000);
    nodes[2].kill('SIGKILL');
    alive = [0, 1];
    await sleep(3000);
    stop = true;
    await Promise.all(loops);
    assert.equal((await nodes[2].exited).signal, 'SIGKILL');
    const fromKilled = acked.filter((a) => a.node === 2).length;
    assert.ok(acked.length > 100 && fromKilled > 10, `acked ${acked.length}, from the killed node ${fromKilled}`);

    // the log as a surviving node serves it
    const cpText = (await http(nodes[1].url, 'GET', '/log/checkpoint')).text;
    const cpNote = verifyNote(cpText, [vkey]);
    assert.ok(cpNote.ok, cpText);
    const cp = parseCheckpointText(parseNote(cpText)!.text)!;
    assert.ok(cp.size >= acked.length);
    const entries: Buffer[] = [];
    for (let n = 0; n * 256 < cp.size; n++) {
      const w = Math.min(256, cp.size - n * 256);
      const r = await fetch(`${nodes[0].url}/log/tile/entries/${String(n).padStart(3, '0')}${w < 256 ? `.p/${w}` : ''}`);
      assert.equal(r.status, 200);
      const b = Buffer.from(await r.arrayBuffer());
      for (let i = 0; i < w; i++) entries.push(b.subarray(34 * i + 2, 34 * i + 34));
    }
    const indices = new Set<number>();
    for (const a of acked) {
      const l = a.body.receipt.log;
      assert.ok(!indices.has(l.index), `index ${l.index} given twice`);
      indices.add(l.index);
      assert.equal(entries[l.index].toString('hex'), a.body.receipt.digest, `acknowledged leaf ${l.index} (node ${a.node}) is in the log`);
      const c = verifyNote(l.checkpoint, [vkey]);
      assert.ok(c.ok);
      const p = parseCheckpointText(c.text)!;
      assert.ok(verifyInclusion(leafHash(Buffer.from(a.body.receipt.digest, 'hex')), l.index, p.size, l.inclusionProof.map((h: string) => Buffer.from(h, 'base64')), p.root));
    }
    // checkpoints signed by different nodes are consistent with each other and with the latest
    const byNode = [0, 1, 2].map((n) => acked.filter((a) => a.node === n).map((a) => parseCheckpointText(parseNote(a.body.receipt.log.checkpoint)!.text)!));
    let pairs = 0;
    for (let i = 0; i < 8; i++) {
      const [x, y] = [byNode[i % 3], byNode[(i + 1) % 3]];
      const a = x[Math.floor((i / 8) * x.length)], b = y[Math.floor(((i + 3) % 8 / 8) * y.length)];
      const [o, nw] = a.size <= b.size ? [a, b] : [b, a];
      for (const [old, nu] of [[o, nw], [o, cp]]) {
        const r = await http(nodes[i % 2].url, 'GET', `/log/consistency?old=${old.size}&new=${nu.size}`);
        assert.equal(r.status, 200, r.text);
        assert.ok(verifyConsistency(old.size, nu.size, r.body.proof.map((h: string) => Buffer.from(h, 'base64')), old.root, nu.root), `${old.size} → ${nu.size}`);
        pairs++;
      }
    }
    assert.equal(pairs, 16);
  } finally {
    for (const n of nodes) await stopNode(n).catch(() => {});
    await dropSchema(DATABASE_URL!, schema).catch(() => {});
  }
});
