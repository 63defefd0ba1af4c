// svc_find_operator latency over the full catalog (target: p99 < 5 ms), plus svc_domain_match
// and the unsealed svc_compute protocol for scale. Queries are drawn from every operator's id,
// name and description (and misspelled variants), so each search is different; wall time and
// per-query CPU time are both reported because wall time on a shared machine includes waiting
// for a core (the load average is printed).
import { loadavg } from 'node:os';
import { loadCatalog } from '../src/operators/catalog.ts';
import { findOperators, warmSearch } from '../src/operators/search.ts';
import { matchDomains } from '../src/operators/match.ts';
import { runComputeProtocol } from '../src/operators/compute.ts';
import { createRng } from '../src/solvers/lib/rng.ts';

const rng = createRng(42);
const cat = loadCatalog();
const t0 = performance.now();
warmSearch();
console.log(`catalog: ${cat.operators.length} operators, ${cat.domains.length} domains; search index built in ${(performance.now() - t0).toFixed(1)} ms`);

function typo(w: string): string {
  if (w.length < 5) return w;
  const i = 1 + Math.floor(rng.next() * (w.length - 2));
  return w.slice(0, i) + w.slice(i + 1);
}
const queries: string[] = [];
for (const o of cat.operators) {
  const words = o.description.split(/\W+/).filter((w) => w.length > 3);
  queries.push(o.name.toLowerCase());
  queries.push(o.id);
  if (words.length) queries.push(words[Math.floor(rng.next() * words.length)]);
  queries.push(o.name.split(/\s+/).map(typo).join(' '));
}
for (let i = queries.length - 1; i > 0; i--) { const j = Math.floor(rng.next() * (i + 1)); [queries[i], queries[j]] = [queries[j], queries[i]]; }

function measure(label: string, n: number, fn: (i: number) => void) {
  for (let i = 0; i < Math.min(500, n); i++) fn(i); // warm-up
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    fn(i);
    wall.push(performance.now() - w0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const q = (a: number[], p: number) => { const s = a.slice().sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
  const f = (x: number) => x.toFixed(3).padStart(8);
  console.log(`${label.padEnd(34)} n=${String(n).padStart(5)}  wall ms p50 ${f(q(wall, 0.5))} p90 ${f(q(wall, 0.9))} p99 ${f(q(wall, 0.99))} max ${f(q(wall, 1))}  | cpu ms p50 ${f(q(cpu, 0.5))} p99 ${f(q(cpu, 0.99))}`);
  return q(wall, 0.99);
}

console.log(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
let hits = 0;
const p99 = measure('svc_find_operator (limit 12)', queries.length, (i) => { hits += findOperators(queries[i]).length; });
measure('svc_find_operator (limit 40)', 2000, (i) => { findOperators(queries[i], 40); });
console.log(`  mean hits per query: ${(hits / queries.length).toFixed(2)}; p99 target 5 ms: ${p99 < 5 ? 'met' : 'NOT met'} (${p99.toFixed(3)} ms)`);
const texts = cat.operators.map((o) => `${o.description} ${o.name}`);
measure('svc_domain_match (text)', 3000, (i) => { matchDomains(texts[i % texts.length]); });
const sample = cat.operators.filter((o) => o.id !== 'KO42');
measure('svc_compute protocol (unsealed)', 2000, (i) => {
  const o = sample[i % sample.length];
  runComputeProtocol({ domain: o.domain, operators: [o.id], inputs: o.example }, 1_790_000_000 + i);
});
console.log(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
