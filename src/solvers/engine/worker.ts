// Piscina worker: runs one solver's pure `run` function. Refusals cross the thread boundary as
// data; anything else is a bug and surfaces as an error.
import type { MessagePort } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import { moduleUrl } from '../../core/modules.ts';
import { collectGarbage } from '../../core/memory.ts';

/** A worker that has had no job for this long gives its heap back (a last-resort collection, which
 * also shrinks the young generation): a busy worker never waits that long between jobs, an idle one
 * keeps only what its loaded solvers need until SVC_WORKER_IDLE_MS stops it (issue 28). */
const TRIM_AFTER_IDLE_MS = 1000;
let trim: ReturnType<typeof setTimeout> | null = null;

/** A run that left more than this much heap in use is followed by a full garbage collection, so the
 * thread gives its memory back before it idles (issue 33: the node returns to within 64 MiB of its
 * idle memory after any run). V8 exposes `gc` to new contexts once the flag is set. */
const COLLECT_ABOVE_BYTES = 48 * 2 ** 20;
let fullGc: (() => void) | null = null;
function collectIfLarge(): void {
  if (v8.getHeapStatistics().used_heap_size < COLLECT_ABOVE_BYTES) return;
  if (!fullGc) {
    v8.setFlagsFromString('--expose-gc');
    fullGc = vm.runInNewContext('gc') as () => void;
  }
  fullGc();
}

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
  if (trim) { clearTimeout(trim); trim = null; }
  let mod = modules.get(task.name);
  if (!mod) {
    mod = await import(moduleUrl(`../${task.name}.ts`, import.meta.url).href);
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
    // after the answer is on its way: the pool learns the result first, then this thread collects
    setImmediate(collectIfLarge);
    trim = setTimeout(() => { trim = null; collectGarbage(); }, TRIM_AFTER_IDLE_MS);
    trim.unref();
  }
}
