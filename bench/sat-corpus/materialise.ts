// Materialises the SAT training corpus (bench/sat-corpus/manifest.json) into the git-ignored
// folder bench/sat-corpus/cnf/ from local mirrors of the public repositories that carry the
// instances (the project's `fetch` tool puts them under /work/.mirror/<owner>+<name>/repo;
// SAT_MIRROR overrides the root). Each file is read at the manifest's commit, decompressed if it
// is .xz, and its SHA-256 is checked against the manifest; nothing is downloaded here.
//   node bench/sat-corpus/materialise.ts            # every instance
//   node bench/sat-corpus/materialise.ts --check    # only verify the folder against the manifest
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CorpusEntry {
  name: string;
  family: string;
  /** owner/name of the public repository the bytes come from */
  repo: string;
  commit: string;
  path: string;
  /** SHA-256 of the decompressed DIMACS bytes */
  sha256: string;
  bytes: number;
  vars: number;
  clauses: number;
  /** the verdict MiniSat 2.2 and CaDiCaL 1.5.3 agreed on (60 s each), or UNKNOWN if neither decided it */
  expected: 'SAT' | 'UNSAT' | 'UNKNOWN';
  origin: string;
}

export const corpusDir = new URL('.', import.meta.url).pathname;
export const cnfDir = join(corpusDir, 'cnf');
export const manifest = (): CorpusEntry[] => JSON.parse(readFileSync(join(corpusDir, 'manifest.json'), 'utf8')).instances;
export const fileOf = (e: CorpusEntry) => join(cnfDir, `${e.name}.cnf`);

export function readFromMirror(e: Pick<CorpusEntry, 'repo' | 'commit' | 'path'>, root = process.env.SAT_MIRROR ?? '/work/.mirror'): Buffer {
  const gitDir = join(root, e.repo.replace('/', '+'), 'repo');
  if (!existsSync(gitDir)) throw new Error(`no mirror of ${e.repo} at ${gitDir} (fetch github:${e.repo} first)`);
  const r = spawnSync('git', ['--git-dir', gitDir, 'show', `${e.commit}:${e.path}`], { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git show ${e.commit}:${e.path} in ${e.repo}: ${r.stderr}`);
  if (!e.path.endsWith('.xz')) return r.stdout;
  const x = spawnSync('xz', ['-dc'], { input: r.stdout, maxBuffer: 1 << 30 });
  if (x.status !== 0) throw new Error(`xz -dc ${e.path}: ${x.stderr}`);
  return x.stdout;
}

export function materialise(check = false): { written: number; present: number } {
  mkdirSync(cnfDir, { recursive: true });
  let written = 0, present = 0;
  for (const e of manifest()) {
    const f = fileOf(e);
    if (existsSync(f) && createHash('sha256').update(readFileSync(f)).digest('hex') === e.sha256) { present++; continue; }
    if (check) throw new Error(`${e.name}: missing or different from the manifest`);
    const bytes = readFromMirror(e);
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== e.sha256) throw new Error(`${e.name}: SHA-256 ${sha} differs from the manifest's ${e.sha256}`);
    writeFileSync(f, bytes);
    written++;
  }
  return { written, present };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = materialise(process.argv.includes('--check'));
  console.log(`sat corpus: ${r.present} present, ${r.written} written to ${cnfDir}`);
}
