// Discovers the solvers: every module in src/solvers/ that exports `descriptor` and `run`
// (DESIGN §10). The operations derived from them live in src/ops/solvers.ts.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SolverDescriptor, SolverRun } from '../types.ts';
import { MODULE_EXT, isModuleFile } from '../../core/modules.ts';

const SOLVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const NOT_SOLVERS = new Set(['types' + MODULE_EXT]);

export interface LoadedSolver {
  descriptor: SolverDescriptor;
  /** the solver's body has its own `operators`/`inputs` (closedform, protect): no common fields */
  noCommonFields: boolean;
  file: string;
}

/** The solver module files, sorted. */
export const SOLVER_FILES = () => readdirSync(SOLVERS_DIR).filter((f) => isModuleFile(f) && !NOT_SOLVERS.has(f)).sort();

let loaded: Promise<LoadedSolver[]> | null = null;

/** Every module in src/solvers/ exporting `descriptor` and `run`. */
export function loadSolvers(): Promise<LoadedSolver[]> {
  loaded ??= (async () => {
    const out: LoadedSolver[] = [];
    for (const f of SOLVER_FILES()) {
      let mod: any;
      try {
        mod = await import(pathToFileURL(join(SOLVERS_DIR, f)).href);
      } catch (e) {
        // A module that does not load is reported and left out; test/node/engine.test.ts fails on it.
        process.emitWarning(`solver module ${f} failed to load: ${(e as Error).message}`);
        continue;
      }
      if (mod.descriptor && typeof mod.run === 'function') {
        if (mod.descriptor.name + MODULE_EXT !== f) throw new Error(`solver ${f} declares name ${mod.descriptor.name}`);
        out.push({ descriptor: mod.descriptor, noCommonFields: !!mod.noCommonFields, file: f });
      }
    }
    return out;
  })();
  return loaded;
}

/** A solver's pure `run`, in this thread (the CLI's `svc solve`; the pool runs it in a worker). */
export async function solverRun(ls: LoadedSolver): Promise<SolverRun> {
  return (await import(pathToFileURL(join(SOLVERS_DIR, ls.file)).href)).run;
}
