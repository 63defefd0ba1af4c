// Users bring their own problems (issues 22-24) through the node, on the store the suite runs on:
// each answer is a sealed receipt whose precision names the certificate that was checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let key: string;
before(async () => { t = await testNode(); key = (await t.machine('user-problems')).apiKey; });
after(async () => { await t.close(); });

test('ode: Van der Pol μ = 1000 by auto (stiffness detected), sealed with its re-solve error estimate', async () => {
  const r = await t.call('POST', '/api/svc/ode', { equations: { x: 'y', y: 'mu*(1 - x^2)*y - x' }, y0: { x: 2, y: 0 }, params: { mu: 1000 }, tSpan: [0, 1000], method: 'auto', sample: 5 }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.precision.certificate, 'error-estimate');
  assert.equal(r.body.precision.withinBound, true);
  assert.ok(r.body.result.switches.length >= 1, 'auto switched to a stiff method');
  assert.ok(Number.isFinite(r.body.result.errorEstimate.x));
  assert.ok(typeof r.body.receipt.id === 'string');
});

test('ode: a blow-up is 422 UNSTABLE with tFail; a bad expression is a 400 naming the field', async () => {
  const blow = await t.call('POST', '/api/svc/ode', { equations: { y: 'y^2' }, y0: { y: 1 }, tSpan: [0, 2] }, key);
  assert.equal(blow.status, 422, blow.text);
  assert.equal(blow.body.code, 'UNSTABLE');
  assert.ok(blow.body.tFail > 0.9 && blow.body.tFail <= 1.0001, `tFail ${blow.body.tFail}`);
  const bad = await t.call('POST', '/api/svc/ode', { equations: { y: 'y + w' }, y0: { y: 1 } }, key);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /equations/);
});

test('grid: MATPOWER case14 by AC Newton-Raphson, sealed with the mismatch certificate', async () => {
  const text = readFileSync(new URL('../fixtures/matpower/case14.m', import.meta.url), 'utf8');
  const ref = JSON.parse(readFileSync(new URL('../fixtures/matpower/case14.solution.json', import.meta.url), 'utf8'));
  const r = await t.call('POST', '/api/svc/grid', { case: text }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.precision.certificate, 'mismatch');
  assert.ok(r.body.result.mismatch.P < 1e-8 && r.body.result.mismatch.Q < 1e-8);
  assert.equal(r.body.result.buses.length, 14);
  assert.ok(JSON.stringify(ref).length > 0);
  const noSlack = await t.call('POST', '/api/svc/grid', { case: text.replace(/^(\s*1\s+)3(\s)/m, '$12$2') }, key);
  assert.equal(noSlack.status, 400, noSlack.text);
});

test('opt: a user objective with bounds, sealed with its KKT certificate', async () => {
  const r = await t.call('POST', '/api/svc/opt', { objective: '(x - 3)^2 + (y + 1)^2', x0: { x: 0, y: 0 }, bounds: { x: [null, 2] }, method: 'l-bfgs-b' }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.precision.certificate, 'kkt');
  assert.ok(Math.abs(r.body.result.x.x - 2) < 1e-8 && Math.abs(r.body.result.x.y + 1) < 1e-6);
  assert.ok(r.body.result.certificate.kktResidual <= 1e-8);
});

test('kalman on measurements and epi on case counts are sealed with their checks', async () => {
  const z = [0.9, 2.1, 2.8, 4.2, 5.1, 5.8, 7.2, 7.9, 9.1, 10.2];
  const k = await t.call('POST', '/api/svc/kalman', { measurements: z, F: [[1, 1], [0, 1]], H: [[1, 0]], Q: [[0.01, 0], [0, 0.01]], R: [[0.25]], x0: [0, 1], P0: [[1, 0], [0, 1]], smooth: true, acceptOutOfBound: true }, key);
  assert.equal(k.status, 200, k.text);
  assert.equal(k.body.precision.certificate, 'nis');
  assert.equal(k.body.result.smoothed.length, z.length);
  const e = await t.call('POST', '/api/svc/epi', { cases: [3, 4, 6, 9, 12, 17, 25, 34, 47, 63, 80, 98, 112, 118, 114, 101, 83, 64, 47, 33, 23, 15, 10, 7], population: 10000, model: 'sir', fit: 'poisson', acceptOutOfBound: true }, key);
  assert.equal(e.status, 200, e.text);
  assert.ok(e.body.result.fit.beta > 0 && e.body.result.fit.ci95.beta.length === 2);
});

test('evolve: an argon crystal given as extended XYZ is run as given and sealed', async () => {
  const a = 1.5496, n = 3;
  const basis = [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let l = 0; l < n; l++) for (const b of basis) lines.push(`Ar ${(i + b[0]) * a} ${(j + b[1]) * a} ${(l + b[2]) * a}`);
  const L = n * a;
  const xyz = `${lines.length}\nLattice="${L} 0 0 0 ${L} 0 0 0 ${L}" Properties=species:S:1:pos:R:3 pbc="T T T"\n${lines.join('\n')}\n`;
  const r = await t.call('POST', '/api/svc/evolve', { xyz, species: { Ar: { mass: 1, eps: 1, sig: 1 } }, steps: 10, rc: 2.2 }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.result.energy[0].step, 0);
  assert.ok(r.body.result.energy[0].potential < -6, `lattice energy per atom ${r.body.result.energy[0].potential}`);
});

test('sat: an UNSAT CNF is sealed with the DRAT proof digest; its owner reads the proof text; nobody else does', async () => {
  // pigeonhole 3 into 2: UNSAT
  const holes = 2, pigeons = 3, v = (p: number, h: number) => p * holes + h + 1;
  const clauses: number[][] = [];
  for (let p = 0; p < pigeons; p++) clauses.push(Array.from({ length: holes }, (_, h) => v(p, h)));
  for (let h = 0; h < holes; h++) for (let a = 0; a < pigeons; a++) for (let b = a + 1; b < pigeons; b++) clauses.push([-v(a, h), -v(b, h)]);
  const cnf = `c pigeonhole 3 into 2\np cnf ${pigeons * holes} ${clauses.length}\n${clauses.map((c) => c.join(' ') + ' 0').join('\n')}\n`;
  const r = await t.call('POST', '/api/svc/sat', { cnf }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.result.status, 'UNSAT');
  assert.equal(r.body.precision.certificate, 'drat');
  const proof = await t.call('GET', `/api/receipts/${r.body.receipt.id}/drat`, undefined, key);
  assert.equal(proof.status, 200);
  assert.match(String(proof.headers['content-type']), /^text\/plain/);
  const { createHash } = await import('node:crypto');
  assert.equal(createHash('sha256').update(proof.text).digest('hex'), r.body.result.proof.sha256);
  assert.equal(Buffer.byteLength(proof.text), r.body.result.proof.bytes);
  const other = (await t.machine('other')).apiKey;
  assert.equal((await t.call('GET', `/api/receipts/${r.body.receipt.id}/drat`, undefined, other)).status, 404);
  const sat = await t.call('POST', '/api/svc/sat', { clauses: [[1, 2], [-1, 2]] }, key);
  assert.equal(sat.body.result.status, 'SAT');
  assert.equal(sat.body.precision.certificate, 'model');
  assert.equal((await t.call('GET', `/api/receipts/${sat.body.receipt.id}/drat`, undefined, key)).status, 404);
});

test('a large input is sealed by its digest, not repeated in the receipt', async () => {
  const n = 3000;
  const clauses = Array.from({ length: n }, (_, i) => [i + 1, -(((i + 1) % n) + 1)]);
  const cnf = `p cnf ${n} ${n}\n${clauses.map((c) => c.join(' ') + ' 0').join('\n')}\n`;
  assert.ok(cnf.length > 64 * 1024 / 2);
  const big = cnf + 'c ' + 'x'.repeat(70_000) + '\n';
  const r = await t.call('POST', '/api/svc/sat', { cnf: big }, key);
  assert.equal(r.status, 200, r.text);
  const { createHash } = await import('node:crypto');
  assert.deepEqual(r.body.input.cnf, { sha256: createHash('sha256').update(big).digest('hex'), bytes: Buffer.byteLength(big), sealedBy: 'sha256 of the text' });
});
