// Which tree runs: the sources (src/, TypeScript, tests) or the build (dist/, plain JavaScript:
// `npm start`, scripts/build.mjs). Code that names a module file at run time (a worker's entry, a
// directory of modules to discover) goes through here, so it works in both.

/** The extension of this tree's modules: '.ts' when the sources run, '.js' in the build. */
export const MODULE_EXT: '.ts' | '.js' = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** A module's URL written as in the sources (`'./worker.ts'`), relative to `base`, in the tree that runs. */
export function moduleUrl(rel: string, base: string): URL {
  return new URL(MODULE_EXT === '.js' ? rel.replace(/\.ts$/, '.js') : rel, base);
}

/** Whether a directory entry is a module of this tree (not a declaration file). */
export function isModuleFile(name: string): boolean {
  return name.endsWith(MODULE_EXT) && !name.endsWith('.d.ts');
}
