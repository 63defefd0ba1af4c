#!/usr/bin/env node
// The `svc` command. Runs dist/cli.js (the build) or src/cli.ts on Node 24 (type stripping); the project pins Node 24 through
// its `node` devDependency, so `npx svc …` inside the project uses it.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const { spawnSync } = await import('node:child_process');
  const here = dirname(fileURLToPath(import.meta.url));
  const pinned = join(here, '..', 'node_modules', 'node', 'bin', 'node');
  const r = spawnSync(pinned, [join(here, '..', 'src', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
// the build (dist/, scripts/build.mjs) when it is current, so `svc serve` runs the same plain
// JavaScript as `npm start`; otherwise the sources (Node strips their types)
const { staleReason } = await import('../scripts/build.mjs');
if (staleReason() === null) await import('../dist/cli.js');
else await import('../src/cli.ts');
