// Builds src/ into plain JavaScript in dist/ (issue 28, docs/node.md "Compiled JavaScript"): the
// node and every thread it starts run dist/, so no thread instantiates Node's TypeScript stripper.
// swc (@swc/core) strips the types of each file on its own (no type checking: `npm run typecheck`
// does that), keeps modern syntax as it is (target esnext), keeps every import as written
// (verbatimModuleSyntax: an import the source keeps, the build keeps, as Node's stripping does) and
// rewrites relative `.ts` specifiers to `.js`. Everything in src/ that is not TypeScript (SQL,
// JSON, static files) is copied beside it, so paths relative to a module hold in both trees.
//
// Plain JavaScript on purpose: it runs before there is a build, under any Node.
//   node scripts/build.mjs            build if stale (see `staleReason`)
//   node scripts/build.mjs --force    build anyway
import { createHash } from 'node:crypto';
import { readdirSync, statSync, readFileSync, writeFileSync, mkdirSync, rmSync, renameSync, copyFileSync, existsSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
export const STAMP_FILE = 'BUILD.json';

/** every file under dir, relative, sorted */
function walk(dir, base = dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, base, out);
    else if (e.isFile()) out.push(relative(base, p));
  }
  return out.sort();
}

function swcVersion() {
  try { return createRequire(import.meta.url)('@swc/core/package.json').version; } catch { return 'none'; }
}

/** What a build depends on besides the sources' contents: this script, swc's version, the file
 * list. A build whose stamp differs is rebuilt. */
function stampOf(files) {
  const h = createHash('sha256');
  h.update(readFileSync(fileURLToPath(import.meta.url)));
  h.update(swcVersion());
  h.update(files.join('\n'));
  return h.digest('hex').slice(0, 32);
}

/** Why dist/ must be rebuilt (null: it is current): no build, a different stamp (build script, swc,
 * the set of files), or a source file modified after the build. */
export function staleReason() {
  const stampPath = join(DIST, STAMP_FILE);
  if (!existsSync(stampPath)) return 'no build';
  let stamp;
  try { stamp = JSON.parse(readFileSync(stampPath, 'utf8')); } catch { return 'unreadable build stamp'; }
  const files = walk(SRC);
  if (stamp.stamp !== stampOf(files)) return 'build stamp mismatch';
  const builtMs = statSync(stampPath).mtimeMs;
  for (const f of files) if (statSync(join(SRC, f)).mtimeMs > builtMs) return `src/${f} is newer than the build`;
  return null;
}

export async function build() {
  const swc = createRequire(import.meta.url)('@swc/core');
  const files = walk(SRC);
  const tmp = `${DIST}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const options = {
    jsc: {
      parser: { syntax: 'typescript' },
      target: 'esnext',
      rewriteRelativeImportExtensions: true,
      transform: { verbatimModuleSyntax: true },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: false,
    isModule: true,
    swcrc: false,
    configFile: false,
  };
  const t0 = performance.now();
  await Promise.all(files.map(async (f) => {
    const from = join(SRC, f);
    mkdirSync(dirname(join(tmp, f)), { recursive: true });
    if (f.endsWith('.ts') && !f.endsWith('.d.ts')) {
      const { code } = await swc.transform(readFileSync(from, 'utf8'), { ...options, filename: from });
      writeFileSync(join(tmp, f.slice(0, -3) + '.js'), code);
    } else if (!f.endsWith('.d.ts')) {
      copyFileSync(from, join(tmp, f));
    }
  }));
  writeFileSync(join(tmp, STAMP_FILE), JSON.stringify({ stamp: stampOf(files), files: files.length, swc: swcVersion(), builtAt: new Date().toISOString() }) + '\n');
  rmSync(DIST, { recursive: true, force: true });
  renameSync(tmp, DIST);
  return { files: files.length, ms: Math.round(performance.now() - t0) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const reason = process.argv.includes('--force') ? process.env.SVC_BUILD_REASON || 'forced' : staleReason();
  if (reason) {
    const r = await build();
    process.stderr.write(`svc: built dist/ from src/ (${r.files} files, ${r.ms} ms; ${reason})\n`);
  }
  // the migrated template a new data directory starts from (src/store/db.ts buildTemplate): made
  // once per set of migrations and PGlite version; a node starts without it too, only slower
  if (process.env.SVC_BUILD_TEMPLATE !== '0') {
    const { spawnSync } = await import('node:child_process');
    const code = `import(${JSON.stringify(join(DIST, 'store', 'db.js'))}).then((m) => m.buildTemplate())`;
    const t = spawnSync(process.execPath, ['--no-experimental-strip-types', '--input-type=module', '-e', code], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, SVC_PGLITE_LIFTOFF: '1' } });
    if (t.status !== 0) process.stderr.write('svc: could not make the store template (new data folders will run initdb)\n');
  }
}
