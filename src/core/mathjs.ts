// mathjs's `create` and its factories, loaded on first use and without the package's default
// instance (issue 28: one expression library instance per thread, nothing loaded at start that the
// first request does not need). `import … from 'mathjs'` builds a full default instance at import,
// eagerly (~23 MiB of heap and ~0.3 s per thread, measured), though the node only uses instances of
// its own (the sandbox's, src/core/sandbox.ts; the catalog's units, src/operators/units.ts), each
// created on first use; and the factories alone are ~8 MiB that a node which evaluates no
// expression never needs. The package's exports map does not offer `create` alone, so its two ES
// modules are loaded by file from the installed package, synchronously (`require` of an ES module).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { create as createType, all as allType } from 'mathjs';

let lib: { create: typeof createType; all: typeof allType } | null = null;

/** mathjs's `create` and `all` (its factories), loaded once per thread on first call. */
export function mathjs(): { create: typeof createType; all: typeof allType } {
  if (lib) return lib;
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('mathjs/package.json')), 'lib', 'esm');
  const core = require(join(dir, 'core', 'create.js'));
  const factories = require(join(dir, 'factoriesAny.js'));
  lib = { create: core.create, all: factories };
  return lib;
}
