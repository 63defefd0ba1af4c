// Piscina worker: runs one solver's pure `run` function. Refusals cross the thread boundary as
// data; anything else is a bug and surfaces as an error.
import type { MessagePort } from 'node:worker_threads';

const modules = new Map<string, any>();

export interface WorkerTask {
  name: string;
  input: unknown;
  seed: number;
  now: number;
  /** raised (set to 1) when the job starts: shared with the pool, never transferred */
  started?: Int32Array;
  /** progress fractions, only when the caller listens for them */
  port?: MessagePort;
}

export default async function runTask(task: WorkerTask) {
  let mod = modules.get(task.name);
  if (!mod) {
    mod = await import(new URL(`../${task.name}.ts`, import.meta.url).href);
    modules.set(task.name, mod);
  }
  // tells the pool the job is running (see SolverPool.run); progress fractions follow on the port
  if (task.started) { Atomics.store(task.started, 0, 1); Atomics.notify(task.started, 0); }
  let last = 0;
  const progress = (fraction: number) => {
    if (!task.port) return;
    const now = performance.now();
    if (now - last < 100 && fraction < 1) return;
    last = now;
    task.port.postMessage(Math.max(0, Math.min(1, fraction)));
  };
  try {
    const output = mod.run(task.input, { seed: task.seed, now: task.now, progress });
    return { ok: true, output };
  } catch (e: any) {
    if (e && e.name === 'SvcError') return { ok: false, refusal: { code: e.code, message: e.message, details: e.details } };
    // Any other exception means the method could not compute this input (an overflow deep in a
    // special function, a degenerate configuration): like a run that blows up, it is refused with
    // 422 UNSTABLE and nothing is sealed (DESIGN §10). Direct calls of `run` in tests still see
    // the raw exception, so a solver's own tests catch it.
    return { ok: false, refusal: { code: 'UNSTABLE', message: `the ${task.name} solver could not compute this input: ${e?.message ?? String(e)}`, details: { value: null, failure: e?.name ?? 'Error' } } };
  } finally {
    task.port?.close();
  }
}
