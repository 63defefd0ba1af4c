// `npm start`: rebuilds dist/ when it is stale (scripts/build.mjs, in a child process so swc never
// stays in the node's memory), then runs the node from dist/ (docs/node.md "Compiled JavaScript").
// package.json starts this file with --no-experimental-strip-types: every thread inherits the
// flag, so a TypeScript file loaded by any of them would fail loudly instead of being stripped.
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import module from 'node:module';
import { staleReason, DIST } from './build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const reason = staleReason();
if (reason) {
  const r = spawnSync(process.execPath, [join(here, 'build.mjs'), '--force'], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, SVC_BUILD_REASON: reason } });
  if (r.status !== 0) {
    process.stderr.write(`svc: cannot start: the build failed (${reason})\n`);
    process.exit(1);
  }
}
// V8's code for each module, kept across starts (keyed by the module's contents), only when asked
// (SVC_COMPILE_CACHE=1): measured, it saved no start-up time here (the main thread's CPU to the first
// answer was the same) and cost ~6 MiB of RSS at rest. The directory reaches workers through the environment.
if (!process.env.NODE_COMPILE_CACHE && process.env.SVC_COMPILE_CACHE === '1') {
  const dir = join(here, '..', 'node_modules', '.cache', 'svc-node-compile');
  process.env.NODE_COMPILE_CACHE = dir;
  module.enableCompileCache?.(dir);
}
await import(pathToFileURL(join(DIST, 'main.js')).href);
