// Leak checks that do not trust the code under test (test helper, not a test file).
//
// `trackResources()` enables an async_hooks hook: every timer (setTimeout, setInterval,
// AbortSignal.timeout: async resource type 'Timeout', ref'd or not) and every worker thread
// ('WORKER') created from then on is remembered with the stack that created it, and forgotten when
// Node destroys it (a timer cleared or fired, a worker exited). What is still alive at the end was
// left behind. `osThreads()` reads the process's thread count from the kernel (worker threads are
// OS threads), so a worker that outlives its job shows up there too.
import { createHook } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { setImmediate as immediate, setTimeout as sleep } from 'node:timers/promises';

export interface TrackedResource {
  type: string;
  /** the stack that created it (frames of node:internal included) */
  stack: string;
  /** a timer: does it keep the process alive? (null: not a timer, or already collected) */
  hasRef(): boolean | null;
}

export interface ResourceTracker {
  /** resources created since the tracker started and not destroyed yet */
  alive(): TrackedResource[];
  /** waits until Node has run the destroy hooks of what was just released */
  settle(ms?: number): Promise<void>;
  stop(): void;
}

export function trackResources(types: string[] = ['Timeout', 'WORKER']): ResourceTracker {
  const live = new Map<number, { type: string; stack: string; ref: WeakRef<object> | null }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (!types.includes(type)) return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      // the job queue's own pollers (pg-boss) live as long as the node: not what a channel leaves
      if (stack.includes('/node_modules/pg-boss/')) return;
      live.set(id, { type, stack, ref: resource && typeof resource === 'object' ? new WeakRef(resource) : null });
    },
    destroy(id) { live.delete(id); },
  });
  hook.enable();
  return {
    alive: () => [...live.values()].map((r) => ({
      type: r.type,
      stack: r.stack,
      hasRef() {
        const o = r.ref?.deref() as { hasRef?: () => boolean } | undefined;
        return typeof o?.hasRef === 'function' ? o.hasRef() : null;
      },
    })),
    async settle(ms = 200) {
      await sleep(ms);
      // destroy hooks run from a native queue drained between macrotasks
      for (let i = 0; i < 3; i++) await immediate();
    },
    stop: () => { hook.disable(); },
  };
}

/** The number of OS threads of this process (Linux /proc; null elsewhere). */
export function osThreads(): number | null {
  try {
    const m = /^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** A readable summary of resources: type and the first frames outside node:internal. */
export function describe(rs: TrackedResource[]): string {
  return rs.map((r) => `${r.type}${r.hasRef() === false ? ' (unref)' : ''} ${r.stack.split('\n').filter((l) => /^\s+at /.test(l) && !l.includes('node:internal') && !l.includes('resources.ts')).slice(0, 4).map((l) => l.trim()).join(' < ')}`).join('\n');
}

/** CPU time (clock ticks, user + system) of each OS thread of this process (Linux /proc; null
 * elsewhere). */
export function threadCpu(): Map<number, number> | null {
  try {
    const out = new Map<number, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // after the command name: state(0) ppid(1) … utime(11) stime(12)
        out.set(Number(tid), Number(f[11]) + Number(f[12]));
      } catch { /* the thread exited meanwhile */ }
    }
    return out;
  } catch {
    return null;
  }
}
