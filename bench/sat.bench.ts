// `npm run bench sat` (issue 32): the node's CDCL against MiniSat 2.2 and CaDiCaL (Debian
// `minisat`, `cadical`) on the public training corpus of bench/sat-corpus/manifest.json (SATLIB,
// SAT-Race 2015, SAT Competition 2021 instances; materialised from the fetched mirrors into the
// git-ignored bench/sat-corpus/cnf/), instance by instance, the three back to back in one run.
//
// Figures, per family and in aggregate:
//   - PAR-2 (penalised average runtime: the time when solved within the limit, twice the limit
//     when not; SAT_LIMIT seconds, default 60) of the node's `stats.solveMs` (CPU time of the
//     search on this thread, stopped at the limit), of MiniSat's own "CPU time" (-cpu-lim) and of
//     CaDiCaL's CPU time (bash `times`, ulimit -t);
//   - the whole request against MiniSat plus drat-trim: the node reads the DIMACS bytes, searches,
//     checks the model against the ORIGINAL formula or writes the DRAT proof (text and SHA-256) and
//     checks it with its own checker (src/solvers/lib/drat-check.ts), then seals (canonical JSON of
//     the result, SHA-256, an Ed25519 signature; the store's insert is not counted); the reference
//     is MiniSat's CPU time plus, for UNSAT, drat-trim's CPU time checking the node's proof (the
//     same proof; MiniSat 2.2 writes none). drat-trim is built from its public sources
//     (github:marijnheule/drat-trim, fetched to /work/.mirror) into /tmp when it is not on the PATH;
//   - the node's checker against drat-trim on the same proof (target: at most 2×);
//   - parse speed of a generated 100 MB CNF (bytes, as from a blob) and the process's RSS.
// Every verdict must agree with MiniSat's and CaDiCaL's (and the manifest's); every model is
// checked against the original clauses; every UNSAT proof must pass both checkers.
// Env: SAT_LIMIT (s), SAT_ONLY (a regular expression on name or family), SAT_SKIP_PARSE=1,
// SAT_ORDER=interleave (families in turn, for a run that may be cut short), SAT_AB (below).
// The machine is shared (2 cores, other sessions' jobs): CPU times are the meaningful figures;
// each tool's time is its own CPU time, measured back to back instance by instance.
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDimacs } from '../src/solvers/lib/dimacs.ts';
import { solveSat } from '../src/solvers/lib/sat/solve.ts';
import { dratText } from '../src/solvers/lib/drat-text.ts';
import { checkDrat } from '../src/solvers/lib/drat-check.ts';
import { falsifiedByModel } from '../src/solvers/sat.ts';
import { canonicalJson } from '../src/core/canonical.ts';
import { manifest, materialise, fileOf, type CorpusEntry } from './sat-corpus/materialise.ts';

// written straight to fd 1: the runs are long synchronous loops, and a piped stdout would only
// flush between them
const say = (...a: unknown[]) => { writeSync(1, a.join(' ') + '\n'); };
const LIMIT = Number(process.env.SAT_LIMIT ?? 60);
const ONLY = process.env.SAT_ONLY ? new RegExp(process.env.SAT_ONLY) : null;
const tmp = mkdtempSync(join(tmpdir(), 'satbench-'));
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const threadMs = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };

function dratTrimPath(): string | null {
  if (has('drat-trim')) return 'drat-trim';
  const built = '/tmp/sat-drat-trim/drat-trim';
  if (existsSync(built)) return built;
  const mirror = '/work/.mirror/marijnheule+drat-trim/repo';
  if (!existsSync(mirror) || !has('gcc')) return null;
  mkdirSync('/tmp/sat-drat-trim', { recursive: true });
  const src = spawnSync('git', ['--git-dir', mirror, 'show', 'HEAD:drat-trim.c'], { maxBuffer: 1 << 26 });
  if (src.status !== 0) return null;
  writeFileSync('/tmp/sat-drat-trim/drat-trim.c', src.stdout);
  const cc = spawnSync('gcc', ['-O2', '-o', built, '/tmp/sat-drat-trim/drat-trim.c'], { encoding: 'utf8' });
  return cc.status === 0 ? built : null;
}

/** runs `cmd` under a CPU-time limit; returns its exit code and its CPU time (bash `times`) */
function timed(cmd: string, args: string[], limit: number): { rc: number; s: number; out: string } {
  const r = spawnSync('bash', ['-c', `ulimit -t ${limit + 1}; "$@" > ${tmp}/out.txt 2>&1; rc=$?; times; exit $rc`, 'x', cmd, ...args], { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n');
  const m = /(\d+)m([0-9.]+)s\s+(\d+)m([0-9.]+)s/.exec(lines[lines.length - 1] ?? '');
  const s = m ? 60 * Number(m[1]) + Number(m[2]) + 60 * Number(m[3]) + Number(m[4]) : NaN;
  return { rc: r.status ?? -1, s, out: existsSync(`${tmp}/out.txt`) ? readFileSync(`${tmp}/out.txt`, 'utf8').slice(-4000) : '' };
}
const verdictOf = (rc: number) => (rc === 10 ? 'SAT' : rc === 20 ? 'UNSAT' : '?');

function minisat(file: string) {
  const r = timed('minisat', ['-verb=1', `-cpu-lim=${LIMIT}`, file], LIMIT);
  const t = /CPU time\s*:\s*([0-9.eE+-]+)/.exec(r.out);
  return { verdict: verdictOf(r.rc), s: t ? Number(t[1]) : r.s };
}
function cadical(file: string) {
  const r = timed('cadical', ['-q', file], LIMIT);
  return { verdict: verdictOf(r.rc), s: r.s };
}

const seal = (() => {
  const { privateKey } = generateKeyPairSync('ed25519');
  return (result: unknown) => sign(null, Buffer.from(createHash('sha256').update(canonicalJson(result)).digest('hex')), privateKey);
})();

interface Row {
  e: CorpusEntry; verdict: string; solveS: number; wholeS: number; parseS: number; proofS: number; checkS: number;
  conflicts: number; proofBytes: number; checkOk: boolean | null; modelOk: boolean | null;
  ms: { verdict: string; s: number }; cad: { verdict: string; s: number };
  dratTrim: { ok: boolean; s: number } | null;
}

function ours(e: CorpusEntry, dratTrim: string | null): Omit<Row, 'ms' | 'cad'> {
  const bytes = readFileSync(fileOf(e));
  const p0 = threadMs();
  const cnf = parseDimacs(bytes);
  const parseS = (threadMs() - p0) / 1e3;
  const seed = parseInt(createHash('sha256').update(bytes).digest('hex').slice(0, 8), 16) >>> 0;
  const s0 = threadMs();
  const r = solveSat(cnf.vars, cnf.lits, { seed, elim: process.env.SAT_ELIM !== '0', stop: () => threadMs() - s0 > LIMIT * 1e3 });
  const solveS = (threadMs() - s0) / 1e3;
  let proofS = 0, checkS = 0, checkOk: boolean | null = null, modelOk: boolean | null = null, proofBytes = 0, dt: Row['dratTrim'] = null;
  let result: unknown = { status: r.status };
  if (r.status === 'SAT') {
    const k0 = threadMs();
    modelOk = falsifiedByModel(cnf, r.model!) === 0;
    checkS = (threadMs() - k0) / 1e3;
    result = { status: 'SAT', model: Array.from(r.model!, (b, v) => (b ? v + 1 : -(v + 1))) };
  } else if (r.status === 'UNSAT') {
    const w0 = threadMs();
    const text = dratText(r.proof!);
    const sha256 = createHash('sha256').update(text).digest('hex');
    proofS = (threadMs() - w0) / 1e3;
    proofBytes = text.length;
    const k0 = threadMs();
    checkOk = checkDrat(cnf.vars, cnf.lits, text).ok;
    checkS = (threadMs() - k0) / 1e3;
    result = { status: 'UNSAT', proof: { sha256, bytes: text.length } };
    if (dratTrim) {
      writeFileSync(join(tmp, 'proof.drat'), text);
      const d = timed(dratTrim, [referenceFile(e), join(tmp, 'proof.drat'), '-t', String(10 * LIMIT)], 10 * LIMIT);
      dt = { ok: /s VERIFIED/.test(d.out), s: d.s };
    }
  }
  const z0 = threadMs();
  if (r.status !== 'UNKNOWN') seal({ result, stats: r.stats });
  const sealS = (threadMs() - z0) / 1e3;
  const wholeS = parseS + solveS + proofS + checkS + sealS;
  return { e, verdict: r.status, solveS, wholeS, parseS, proofS, checkS, conflicts: r.stats.conflicts, proofBytes, checkOk, modelOk, dratTrim: dt };
}

function parseSpeed() {
  // a generated 100 MB random 3-CNF over 1,000,000 variables, as bytes (the way a blob arrives)
  const n = 1_000_000;
  let s = 12345;
  const rnd = () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s; };
  const chunks: Buffer[] = [];
  let size = 0, m = 0, buf = '';
  while (size + buf.length < 100e6) {
    buf += `${(rnd() % n) + 1} -${(rnd() % n) + 1} ${(rnd() % n) + 1} 0\n`; m++;
    if (buf.length > 1 << 20) { chunks.push(Buffer.from(buf)); size += buf.length; buf = ''; }
  }
  chunks.push(Buffer.from(buf));
  const bytes = Buffer.concat([Buffer.from(`c generated\np cnf ${n} ${m}\n`), ...chunks]);
  const rss0 = process.memoryUsage().rss;
  const runs: { wall: number; cpu: number }[] = [];
  for (let k = 0; k < 3; k++) {
    const c0 = threadMs(), t0 = performance.now();
    const cnf = parseDimacs(bytes);
    runs.push({ wall: performance.now() - t0, cpu: threadMs() - c0 });
    if (cnf.clauses !== m) throw new Error('parse: wrong clause count');
  }
  const best = runs.reduce((a, b) => (b.cpu < a.cpu ? b : a));
  say(`parse: ${(bytes.length / 1e6).toFixed(1)} MB, ${m.toLocaleString('en')} clauses, best of 3: ${(bytes.length / 1e6 / (best.cpu / 1e3)).toFixed(0)} MB/s CPU ` +
    `(${best.cpu.toFixed(0)} ms), ${(bytes.length / 1e6 / (best.wall / 1e3)).toFixed(0)} MB/s wall (${best.wall.toFixed(0)} ms); RSS ${(rss0 / 1e6).toFixed(0)} MB with the text held, ` +
    `peak ${(process.resourceUsage().maxRSS / 1e3).toFixed(0)} MB (target ≥ 50 MB/s)`);
}

// the parse figure comes from a fresh child process (its RSS is the parse's own), run last
if (process.argv[2] === '--parse') { parseSpeed(); process.exit(0); }
// SAT_AB='{"label": {solver options}, …}': an A/B of search configurations instead (the node only,
// no references, no proof check): CPU seconds of the search per instance and seed (SAT_SEEDS,
// default 1,2,3), PAR-2 sums per configuration at SAT_LIMIT; how docs/sat.md chose the defaults
if (process.env.SAT_AB) {
  materialise();
  const cfgs: Record<string, Record<string, unknown>> = JSON.parse(process.env.SAT_AB);
  const seeds = (process.env.SAT_SEEDS ?? '1,2,3').split(',').map(Number);
  const sums: Record<string, number> = {};
  for (const e of manifest().filter((x) => !ONLY || ONLY.test(x.name) || ONLY.test(x.family))) {
    const cnf = parseDimacs(readFileSync(fileOf(e)));
    const cells: string[] = [e.name.padEnd(20)];
    for (const [label, o] of Object.entries(cfgs)) {
      const ts: string[] = [];
      for (const seed of seeds) {
        const s0 = threadMs();
        const r = solveSat(cnf.vars, cnf.lits, { seed, ...o, stop: () => threadMs() - s0 > LIMIT * 1e3 });
        const s = (threadMs() - s0) / 1e3;
        const solvedHere = r.status !== 'UNKNOWN' && s <= LIMIT;
        sums[label] = (sums[label] ?? 0) + (solvedHere ? s : 2 * LIMIT);
        ts.push(solvedHere ? s.toFixed(2) : '-');
      }
      cells.push(`${label}: ${ts.join(' ')}`);
    }
    say(cells.join(' | '));
  }
  say(`PAR-2 sums (s, ${LIMIT} s limit, ${seeds.length} seeds): ${Object.entries(sums).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  process.exit(0);
}
const haveMinisat = has('minisat'), haveCadical = has('cadical');
const dratTrim = dratTrimPath();
materialise();
const listed = manifest().filter((e) => !ONLY || ONLY.test(e.name) || ONLY.test(e.family));
// SAT_ORDER=interleave: one instance of each family in turn (manifest order within a family), so
// that a run cut short still covers every family
const entries = process.env.SAT_ORDER !== 'interleave' ? listed : (() => {
  const fams = [...new Set(listed.map((e) => e.family))].map((f) => listed.filter((e) => e.family === f));
  const out: CorpusEntry[] = [];
  for (let k = 0; out.length < listed.length; k++) for (const g of fams) if (k < g.length) out.push(g[k]);
  return out;
})();
say(`sat corpus: ${entries.length} instances, limit ${LIMIT} s; MiniSat ${haveMinisat ? 'yes' : 'NOT INSTALLED'}, CaDiCaL ${haveCadical ? 'yes' : 'NOT INSTALLED'}, drat-trim ${dratTrim ?? 'NOT AVAILABLE'}`);
// warm-up: the node's solver runs in a long-lived worker whose hot loops V8 has already tiered up
{ const w = manifest().find((e) => e.name === 'hole7'); if (w) for (let k = 0; k < 3; k++) ours(w, null); }

const rows: Row[] = [];
const f = (s: number) => (Number.isFinite(s) ? (s < 1 ? `${(s * 1e3).toFixed(0)}ms` : `${s.toFixed(2)}s`) : '-');
const solved = (verdict: string, s: number) => verdict !== '?' && verdict !== 'UNKNOWN' && s <= LIMIT;
const par2 = (verdict: string, s: number) => (solved(verdict, s) ? s : 2 * LIMIT);
say(['instance', 'family', 'ours', 'solveMs', 'whole', 'MiniSat', 'CaDiCaL', 'MiniSat+drat-trim', 'check/drat-trim', 'proof', 'agree'].join('\t'));
/** the file the reference tools read: SATLIB's uniform-random files end with a `%` line, which
 * MiniSat and CaDiCaL refuse (the node's reader stops there); they get a copy cut at that line */
function referenceFile(e: CorpusEntry): string {
  const text = readFileSync(fileOf(e), 'latin1');
  const cut = /^%/m.exec(text);
  if (!cut) return fileOf(e);
  const f = join(tmp, `${e.name}.ref.cnf`);
  writeFileSync(f, text.slice(0, cut.index), 'latin1');
  return f;
}
for (const e of entries) {
  const ref = referenceFile(e);
  const ms = haveMinisat ? minisat(ref) : { verdict: '?', s: NaN };
  const cad = haveCadical ? cadical(ref) : { verdict: '?', s: NaN };
  const o = ours(e, dratTrim);
  const row: Row = { ...o, ms, cad };
  rows.push(row);
  const decided = [o.verdict, ms.verdict, cad.verdict, e.expected].filter((v) => v === 'SAT' || v === 'UNSAT');
  const agree = decided.every((v) => v === decided[0]) && o.modelOk !== false && o.checkOk !== false && (!o.dratTrim || o.dratTrim.ok);
  say([e.name, e.family, o.verdict, f(o.solveS), f(o.wholeS), `${ms.verdict} ${f(ms.s)}`, `${cad.verdict} ${f(cad.s)}`,
    f(ms.s + (o.dratTrim?.s ?? 0)),
    o.verdict === 'UNSAT' ? `${o.checkOk ? 'ok' : 'REJECTED'} ${f(o.checkS)} / ${o.dratTrim ? `${o.dratTrim.ok ? 'VERIFIED' : 'NOT VERIFIED'} ${f(o.dratTrim.s)}` : '-'}` : o.modelOk === null ? '-' : o.modelOk ? 'model ok' : 'MODEL FALSIFIES',
    o.proofBytes ? `${(o.proofBytes / 2 ** 20).toFixed(1)}MiB` : '-', agree ? 'yes' : 'NO <--'].join('\t'));
}
rmSync(tmp, { recursive: true, force: true });

// ---- summary ----
const families = [...new Set(rows.map((r) => r.e.family))];
const summary = (g: Row[]) => {
  const mean = (k: (r: Row) => number) => g.reduce((a, r) => a + k(r), 0) / g.length;
  const oursP = mean((r) => par2(r.verdict, r.solveS));
  const wholeP = mean((r) => par2(r.verdict, r.wholeS));
  const msP = mean((r) => par2(r.ms.verdict, r.ms.s));
  const msDtP = mean((r) => par2(r.ms.verdict, r.ms.s + (r.verdict === 'UNSAT' && r.dratTrim ? r.dratTrim.s : 0)));
  const cadP = mean((r) => par2(r.cad.verdict, r.cad.s));
  return { n: g.length, oursP, wholeP, msP, msDtP, cadP, unsolved: g.filter((r) => !solved(r.verdict, r.solveS)).length, msUnsolved: g.filter((r) => !solved(r.ms.verdict, r.ms.s)).length };
};
say(`\nPAR-2 (mean seconds; unsolved = ${2 * LIMIT} s) per family: ours solveMs | MiniSat | CaDiCaL | ratio ours/MiniSat | whole request | MiniSat+drat-trim | ratio`);
for (const fam of [...families, 'ALL']) {
  const s = summary(fam === 'ALL' ? rows : rows.filter((r) => r.e.family === fam));
  say(`${fam.padEnd(14)} n=${String(s.n).padStart(3)}  ${f(s.oursP).padStart(8)} | ${f(s.msP).padStart(8)} | ${f(s.cadP).padStart(8)} | ${(s.oursP / s.msP).toFixed(2).padStart(6)} | ${f(s.wholeP).padStart(8)} | ${f(s.msDtP).padStart(8)} | ${(s.wholeP / s.msDtP).toFixed(2).padStart(6)}  unsolved ours ${s.unsolved}, MiniSat ${s.msUnsolved}`);
}
const all = summary(rows);
const missed = rows.filter((r) => solved(r.ms.verdict, r.ms.s) && r.ms.s <= 10 && !solved(r.verdict, r.solveS));
const unsat = rows.filter((r) => r.verdict === 'UNSAT' && r.dratTrim && r.dratTrim.s > 0.3);
const checkRatio = unsat.reduce((a, r) => a + r.checkS, 0) / unsat.reduce((a, r) => a + r.dratTrim!.s, 0);
say(`\naggregate PAR-2 ours/MiniSat ${(all.oursP / all.msP).toFixed(2)} (target ≤ 2); whole request / (MiniSat + drat-trim) ${(all.wholeP / all.msDtP).toFixed(2)} (target ≤ 2)`);
say(`instances MiniSat solves within 10 s that we leave unsolved in ${LIMIT} s: ${missed.length ? missed.map((r) => r.e.name).join(', ') : 'none'}`);
say(`the node's DRAT check / drat-trim on the same proofs (the ${unsat.length} where drat-trim takes > 0.3 s; below that its start-up dominates): ${checkRatio.toFixed(2)} in aggregate (target ≤ 2); per proof ${unsat.map((r) => `${r.e.name} ${(r.checkS / r.dratTrim!.s).toFixed(2)}`).join(', ')}`);
const bad = rows.filter((r) => r.modelOk === false || r.checkOk === false || (r.dratTrim && !r.dratTrim.ok) ||
  [r.verdict, r.ms.verdict, r.cad.verdict, r.e.expected].filter((v) => v === 'SAT' || v === 'UNSAT').some((v, _, a) => v !== a[0]));
const out = new URL('./out/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'sat.json'), JSON.stringify({ limit: LIMIT, rows: rows.map((r) => ({ name: r.e.name, family: r.e.family, verdict: r.verdict, solveS: r.solveS, wholeS: r.wholeS, parseS: r.parseS, proofS: r.proofS, checkS: r.checkS, conflicts: r.conflicts, proofBytes: r.proofBytes, minisat: r.ms, cadical: r.cad, dratTrim: r.dratTrim })) }, null, 1));
if (!process.env.SAT_SKIP_PARSE) spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--parse'], { stdio: 'inherit' });
if (bad.length) { say('DISAGREEMENT, falsified model or rejected proof on:', bad.map((r) => r.e.name).join(', ')); process.exit(1); }
say('every verdict agrees; every model satisfies its original CNF; every UNSAT proof passed the node\'s checker' + (dratTrim ? ' and drat-trim' : ''));
