// sat on public instances (issue 32): the small SATLIB instances committed in test/fixtures/sat/
// (byte for byte those of bench/sat-corpus/manifest.json) are decided through the solver's entry
// point, given as DIMACS text and as bytes (the way a blob hands them over). Every verdict agrees
// with the manifest's (MiniSat's and CaDiCaL's) and with MiniSat run here; every model satisfies
// the ORIGINAL clauses, checked by a reader written here; every UNSAT answer carries a DRAT proof
// that the node's checker accepted, and that a second, naive forward RUP checker written here
// accepts too. The large corpus runs in bench/sat.bench.ts (with drat-trim).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descriptor, run } from '../../src/solvers/sat.ts';
import { parseDimacs } from '../../src/solvers/lib/dimacs.ts';
import { needsSystemTool } from '../system-tools.ts';

const dir = new URL('../fixtures/sat/', import.meta.url).pathname;
const manifest: any[] = JSON.parse(readFileSync(new URL('../../bench/sat-corpus/manifest.json', import.meta.url), 'utf8')).instances;
const files = readdirSync(dir).filter((f) => f.endsWith('.cnf')).sort();
const MINISAT_SKIP = needsSystemTool('/usr/bin/minisat', 'the MiniSat verdict comparisons', 'apt-get update && apt-get install -y minisat');

/** clauses of a DIMACS text, read independently of lib/dimacs.ts (split on whitespace) */
function clausesOf(text: string): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('c') || t.startsWith('p')) continue;
    if (t.startsWith('%')) break;
    for (const tok of t.split(/\s+/)) { const x = Number(tok); if (x === 0) { out.push(cur); cur = []; } else cur.push(x); }
  }
  return out;
}

/** a naive forward RUP checker: every lemma must yield a conflict by unit propagation over the
 *  formula plus the earlier lemmas (deletions applied); the proof must derive the empty clause.
 *  (Solver proofs here are RUP throughout.) Quadratic, for small instances only. */
function forwardRup(clauses: number[][], proof: string): boolean {
  const db = new Map<string, number[]>();
  let id = 0;
  const live: (number[] | null)[] = [];
  for (const c of clauses) { live.push(c); db.set(`${id}`, c); id++; }
  const key = (c: number[]) => [...c].sort((a, b) => a - b).join(' ');
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < live.length; i++) { const k = key(live[i]!); (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(i); }
  const rup = (lemma: number[]): boolean => {
    const val = new Map<number, boolean>();
    for (const l of lemma) val.set(Math.abs(l), l < 0);
    for (;;) {
      let changed = false;
      for (const c of live) {
        if (!c) continue;
        let unassigned = 0, last = 0, sat = false;
        for (const l of c) {
          const v = val.get(Math.abs(l));
          if (v === undefined) { unassigned++; last = l; } else if (v === l > 0) { sat = true; break; }
        }
        if (sat) continue;
        if (unassigned === 0) return true;
        if (unassigned === 1) { val.set(Math.abs(last), last > 0); changed = true; }
      }
      if (!changed) return false;
    }
  };
  let empty = false;
  for (const line of proof.split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('c')) continue;
    const del = t.startsWith('d ');
    const lits = (del ? t.slice(2) : t).trim().split(/\s+/).map(Number).filter((x) => x !== 0);
    if (del) { const ids = byKey.get(key(lits)); const i = ids?.pop(); if (i !== undefined) live[i] = null; continue; }
    if (!rup(lits)) return false;
    live.push(lits); const k = key(lits); (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(live.length - 1);
    if (lits.length === 0) { empty = true; break; }
  }
  return empty || rup([]);
}

test('the committed instances are the manifest’s, byte for byte', () => {
  assert.ok(files.length >= 10);
  for (const f of files) {
    const e = manifest.find((m) => `${m.name}.cnf` === f);
    assert.ok(e, `${f} is in the manifest`);
    assert.equal(createHash('sha256').update(readFileSync(join(dir, f))).digest('hex'), e.sha256, f);
  }
});

test('SATLIB instances as text and as bytes: verdicts agree with MiniSat and CaDiCaL; models satisfy the original CNF; proofs pass two checkers', () => {
  let sat = 0, unsat = 0;
  for (const f of files) {
    const e = manifest.find((m) => `${m.name}.cnf` === f)!;
    const bytes = readFileSync(join(dir, f));
    const text = bytes.toString('utf8');
    const viaText = run(descriptor.input.parse({ cnf: text }), { seed: 1, progress() {} });
    // bytes (a Uint8Array, as from a blob) go through the same reader into the same clauses
    const viaBytes = run({ cnf: new Uint8Array(bytes) }, { seed: 1, progress() {} });
    assert.deepEqual(parseDimacs(new Uint8Array(bytes)), parseDimacs(text), f);
    const strip = (o: any) => ({ ...o.result, stats: { ...o.result.stats, solveMs: 0, wallMs: 0, parseMs: 0, proofMs: 0, checkMs: 0 } });
    assert.deepEqual(strip(viaBytes), strip(viaText), `${f}: bytes and text give the same result`);
    const r = viaText.result as any;
    assert.equal(r.status, e.expected, `${f}: the references say ${e.expected}`);
    assert.equal(viaText.precision.withinBound, true, f);
    const clauses = clausesOf(text);
    assert.equal(clauses.length, e.clauses, f);
    if (r.status === 'SAT') {
      sat++;
      const truth = new Map<number, boolean>(r.model.map((l: number) => [Math.abs(l), l > 0]));
      assert.ok(clauses.every((c) => c.some((l) => truth.get(Math.abs(l)) === l > 0)), `${f}: the model satisfies every original clause`);
    } else {
      unsat++;
      assert.equal(r.check.ok, true, `${f}: the node's checker accepted the proof`);
      const proof = viaText.attachments!.drat;
      assert.equal(createHash('sha256').update(proof).digest('hex'), r.proof.sha256);
      assert.ok(forwardRup(clauses, proof), `${f}: a forward RUP check of the proof`);
    }
  }
  assert.ok(sat >= 5 && unsat >= 5);
});

test('MiniSat run here gives the same verdicts', { skip: MINISAT_SKIP }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'satfix-'));
  for (const f of files) {
    const e = manifest.find((m) => `${m.name}.cnf` === f)!;
    const file = join(tmp, f);
    writeFileSync(file, readFileSync(join(dir, f)));
    const rc = spawnSync('minisat', ['-verb=0', file]).status;
    assert.equal(rc === 10 ? 'SAT' : rc === 20 ? 'UNSAT' : '?', e.expected, f);
  }
});
