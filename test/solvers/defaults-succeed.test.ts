// Defaults that succeed (issue 29 item 1). Over every solver: its default input, its recorded
// example (src/ops/solver-examples.json), and each single top-level input varied across its
// documented range with the rest left out (numbers: the schema's min, a middle value and max;
// enums: each value; booleans: both) must be sealed within its bound, or refused with a reason
// other than PRECISION_REFUSED (an input that is invalid alone, a stability limit, a budget).
// Runs go to a worker thread one at a time; a run past RUN_LIMIT_MS is stopped and counted as
// skipped (the schema allows work no test should wait for), and the counts are printed. By default
// numbers take their middle value only (about a minute); SVC_DEFAULTS_FULL=1 takes min, middle and max.
// Combinations that still fail and could not be fixed yet are listed in KNOWN with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { loadSolvers } from '../../src/solvers/engine/loader.ts';
import examples from '../../src/ops/solver-examples.json' with { type: 'json' };

const FULL = process.env.SVC_DEFAULTS_FULL === '1';
/** a run past this is stopped and counted as skipped: 3 s in the quick sweep (npm test), 120 s in
 * the whole-range sweep (CI's last step), where every combination then runs to its end */
const RUN_LIMIT_MS = Number(process.env.SVC_DEFAULTS_LIMIT_MS ?? (FULL ? 120_000 : 3000));

/** `solver field=value` → why it is still refused (see docs/defaults.md). Measured 2026-11-28: 51
 * combinations before issue 29's defaults work; 0 on the middle values after it, 1 over the whole
 * range (evolve T0 = 50, whose default step now follows T0: 0 since). A combination not listed that
 * fails, fails the test. */
const KNOWN: Record<string, string> = {};

type Outcome = { ok: boolean; withinBound?: boolean; errorPct?: number; boundPct?: number; code?: string; message?: string; retryWith?: Record<string, unknown>; ms: number } | { skipped: true };

class Runner {
  private w: Worker | null = null;
  private id = 0;
  private start(): Promise<Worker> {
    const w = new Worker(new URL('./defaults-succeed.worker.ts', import.meta.url));
    w.unref();
    this.w = w;
    return new Promise((resolve, reject) => {
      const on = (m: any) => { if (m?.ready) { w.removeListener('message', on); resolve(w); } };
      w.on('message', on);
      w.once('error', reject);
    });
  }
  async run(name: string, body: Record<string, unknown>): Promise<Outcome> {
    const w = this.w ?? await this.start();
    const id = ++this.id;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { w.removeListener('message', on); void w.terminate(); this.w = null; resolve({ skipped: true }); }, RUN_LIMIT_MS);
      const on = (m: any) => { if (m.id !== id) return; clearTimeout(timer); w.removeListener('message', on); resolve(m); };
      w.on('message', on);
      w.postMessage({ id, name, body });
    });
  }
  async close(): Promise<void> { if (this.w) await this.w.terminate(); }
}

/** the values a single field is tried at, from its JSON schema */
function valuesOf(p: any): unknown[] {
  if (!p || typeof p !== 'object') return [];
  if (Array.isArray(p.enum)) return p.enum;
  if (p.type === 'boolean') return [true, false];
  if (p.type === 'number' || p.type === 'integer') {
    const lo = p.minimum ?? (p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + (p.type === 'integer' ? 1 : Math.max(1e-9, Math.abs(p.exclusiveMinimum) * 1e-9)) : undefined);
    const hi = p.maximum ?? (p.exclusiveMaximum !== undefined ? p.exclusiveMaximum - (p.type === 'integer' ? 1 : Math.abs(p.exclusiveMaximum) * 1e-9) : undefined);
    if (lo === undefined || hi === undefined || !(hi >= lo)) return [];
    // a range over decades takes its geometric middle
    let mid = lo > 0 && hi / lo > 100 ? Math.sqrt(lo * hi) : (lo + hi) / 2;
    if (p.type === 'integer') mid = Math.round(mid);
    else mid = Number(mid.toPrecision(3));
    return [...new Set([lo, mid, hi])];
  }
  if (Array.isArray(p.anyOf)) { for (const q of p.anyOf) { const v = valuesOf(q); if (v.length) return v; } }
  return [];
}

test('defaults succeed: every solver, its example, and each single input across its range', { timeout: 900_000 }, async () => {
  const solvers = await loadSolvers();
  const runner = new Runner();
  let ran = 0, skipped = 0, refusedOther = 0, known = 0, retried = 0;
  const failures: string[] = [];
  const skippedList: string[] = [];
  const check = async (name: string, label: string, body: Record<string, unknown>) => {
    const o = await runner.run(name, body);
    if (process.env.SVC_DEFAULTS_TRACE) process.stderr.write(`${name} ${label} ${JSON.stringify(o).slice(0, 200)}\n`);
    if ('skipped' in o) { skipped++; skippedList.push(`${name} ${label}`); return; }
    ran++;
    const key = `${name} ${label}`;
    const bad = o.ok ? o.withinBound !== true : o.code === 'PRECISION_REFUSED' || o.code === 'THROWN' || o.code === 'INTERNAL';
    if (!o.ok && !bad) refusedOther++;
    // a setting of the caller's that cannot meet the bound is a 400 naming it with retryWith
    // (docs/defaults.md): calling again with it must be sealed within the bound
    if (!o.ok && !bad && o.retryWith) {
      const again = await runner.run(name, { ...body, ...o.retryWith });
      if ('skipped' in again) { skipped++; skippedList.push(`${name} ${label} retryWith`); return; }
      retried++;
      if (!(again.ok && again.withinBound === true)) {
        failures.push(`${name} ${label}: calling again with retryWith ${JSON.stringify(o.retryWith)} was not sealed within the bound (${again.ok ? `${again.errorPct} % > ${again.boundPct} %` : `${again.code}: ${again.message}`})`);
      }
      return;
    }
    if (!bad) return;
    if (KNOWN[key]) { known++; return; }
    failures.push(`${key}: ${o.ok ? `sealed outside its bound (${o.errorPct} % > ${o.boundPct} %)` : `${o.code}: ${o.message}`}`);
  };
  for (const ls of solvers) {
    const name = ls.descriptor.name;
    await check(name, 'default', {});
    const ex = (examples as Record<string, any>)[name]?.request;
    if (ex) await check(name, 'example', ex);
    let js: any;
    try { js = z.toJSONSchema(ls.descriptor.input as z.ZodType, { io: 'input', unrepresentable: 'any' }); } catch { js = {}; }
    for (const [field, p] of Object.entries<any>(js.properties ?? {})) {
      if (field === 'seed') continue;
      const vs = valuesOf(p);
      // the quick run (CI, under a minute) takes each number's middle value and every enum value;
      // SVC_DEFAULTS_FULL=1 takes the schema's min and max too (about 700 runs, several minutes)
      const take = FULL || vs.length !== 3 || typeof vs[0] !== 'number' ? vs : [vs[1]];
      for (const v of take) await check(name, `${field}=${JSON.stringify(v)}`, { [field]: v });
    }
  }
  await runner.close();
  console.log(`# defaults-succeed (${FULL ? 'full: min, middle, max' : 'quick: middle values; SVC_DEFAULTS_FULL=1 for min and max'}): ${ran} combinations ran over ${solvers.length} solvers (${refusedOther} refused with a reason other than PRECISION_REFUSED, ${retried} of them called again with their retryWith and sealed), ${skipped} skipped past ${RUN_LIMIT_MS} ms, ${known} KNOWN`);
  if (skippedList.length) console.log(`# skipped: ${skippedList.join('; ')}`);
  assert.deepEqual(failures, [], failures.join('\n'));
});
