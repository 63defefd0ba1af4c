// Issue "The node": sealed svc_protect calls per second against a bare Fastify route returning
// the same JSON, in one run on this machine. Prints throughput, p50/p99 latency and the ratio.
// Target (issue 20): sealed throughput at least 15 % of the bare route on the embedded store, with
// every receipt a log leaf (one checkpoint signature per batch), and p99 at most 10 ms at half the
// sealed peak rate. BENCH_INLOOP=1 also measures a node with PGlite on the event loop
// (SVC_PGLITE_THREAD=0, the earlier design).
import { startChild, load, fmt } from './lib.ts';

const DURATION = Number(process.env.BENCH_SECONDS || 10);
const here = new URL('.', import.meta.url).pathname;
const node = await startChild(here + 'node_server.ts', { SVC_LOG: '0' });
const bare = await startChild(here + 'bare_server.ts', { SAMPLE_JSON: JSON.stringify(node.info.sample) });
const body = JSON.stringify({ health: 'up' });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${node.info.key}` };
try {
  await load({ url: bare.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
  await load({ url: node.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: 2 });
  const b = await load({ url: bare.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
  const s = await load({ url: node.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION });
  console.log(`node.bench: bare Fastify route   ${fmt(b.rps, 0)} req/s  p50 ${b.p50} ms  p99 ${b.p99} ms  (non-2xx ${b.non2xx})`);
  console.log(`node.bench: sealed svc_protect   ${fmt(s.rps, 0)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  (non-2xx ${s.non2xx}, errors ${s.errors})`);
  console.log(`node.bench: sealed / bare = ${fmt((100 * s.rps) / b.rps)} %  (target >= 15 %, issue 20)`);
  // latency at half the sealed peak rate (issue 20: p99 at most 10 ms there)
  const half = await load({ url: node.info.url + '/api/svc/protect', method: 'POST', headers, body, duration: DURATION, overallRate: Math.max(1, Math.round(s.rps / 2)) });
  console.log(`node.bench: sealed at half the peak (${Math.round(s.rps / 2)} req/s offered)   ${fmt(half.rps, 0)} req/s  p50 ${half.p50} ms  p99 ${half.p99} ms  (non-2xx ${half.non2xx}; target p99 <= 10 ms)`);
  const v = await fetch(node.info.url + '/api/chain/verify', { headers }).then((r) => r.json()) as any;
  console.log(`node.bench: chain after the run: ${v.length} entries, valid=${v.valid}`);
} finally {
  node.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
}
if (process.env.BENCH_INLOOP === '1') {
const inLoop = await startChild(here + 'node_server.ts', { SVC_LOG: '0', SVC_PGLITE_THREAD: '0' });
try {
  const h = { ...headers, authorization: `Bearer ${inLoop.info.key}` };
  await load({ url: inLoop.info.url + '/api/svc/protect', method: 'POST', headers: h, body, duration: 2 });
  const s = await load({ url: inLoop.info.url + '/api/svc/protect', method: 'POST', headers: h, body, duration: DURATION });
  console.log(`node.bench: sealed, PGlite on the event loop (SVC_PGLITE_THREAD=0)   ${fmt(s.rps, 0)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  (non-2xx ${s.non2xx})`);
} finally {
  inLoop.child.kill('SIGTERM');
}
}
