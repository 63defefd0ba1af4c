// Worker of defaults-succeed.test.ts: runs one solver call at a time (runUnsealed, in this thread)
// so the test can stop a run that goes past its time limit without stopping the test.
import { parentPort } from 'node:worker_threads';
import { runUnsealed } from '../../src/ops/solvers.ts';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';

parentPort!.on('message', async (m: { id: number; name: string; body: Record<string, unknown> }) => {
  const t0 = performance.now();
  try {
    const r = await runUnsealed(m.name, m.body) as any;
    parentPort!.postMessage({ id: m.id, ok: true, withinBound: r.precision?.withinBound, errorPct: r.precision?.errorPct, boundPct: r.precision?.boundPct, ms: performance.now() - t0 });
  } catch (e: any) {
    parentPort!.postMessage({ id: m.id, ok: false, code: e?.code ?? 'THROWN', message: String(e?.message ?? e).slice(0, 300), retryWith: e?.details?.retryWith?.inputs, ms: performance.now() - t0 });
  }
});

// load every solver before the first timed run, then say so
await loadSolvers();
await runUnsealed('heat', { dim: 1, steps: 10 }).catch(() => {});
parentPort!.postMessage({ ready: true });
