// Discovers every operation: each module in src/ops/ that exports `operations` (an array, or a
// function of the app returning one), plus the sealed solver operations the engine derives from
// src/solvers/. Tools are ordered as the spec lists them.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { App } from './types.ts';
import type { Operation } from './types.ts';
import { solverOperations } from './solvers.ts';
import { toJsonSchema, lazyJsonSchema } from './schema.ts';
import { OPERATION_EXAMPLES } from './operation-examples.ts';
import { MODULE_EXT, isModuleFile } from '../core/modules.ts';
import { loadSolvers } from '../solvers/engine/loader.ts';

export const SPEC_TOOL_ORDER = [
  'svc_protect', 'svc_api_catalog', 'svc_http', 'svc_spin_up', 'svc_contract_generate', 'svc_contract_templates',
  'svc_contract_deploy', 'svc_contract_list', 'svc_contract_get', 'svc_contract_fire', 'svc_observer', 'svc_publish_page',
  'svc_mail_html', 'svc_compute', 'svc_list_operators', 'svc_paper_search', 'svc_paper_fetch', 'svc_domain_match',
  'svc_science_domains', 'svc_find_operator', 'svc_pulse', 'svc_verify', 'svc_lattice', 'svc_shift', 'svc_field_status',
  'svc_solve', 'svc_multibody', 'svc_evolve', 'svc_action', 'svc_heat', 'svc_lorenz', 'svc_wave', 'svc_flow',
  'svc_fracture', 'svc_react', 'svc_epi', 'svc_quant', 'svc_zeta', 'svc_sat', 'svc_gauge', 'svc_fea', 'svc_grid',
  'svc_device', 'svc_opt', 'svc_climate', 'svc_unified', 'svc_dock', 'svc_buckling', 'svc_acoustic', 'svc_schrodinger',
  'svc_tumor', 'svc_lotka', 'svc_kalman', 'svc_auto', 'svc_stream', 'svc_closedform', 'svc_reactor',
  'svc_ode', 'svc_lp', 'svc_fit', 'svc_linsolve', // issues 30 and 31: the own-problem solvers after svc_ode
];

const SKIP = new Set(['types', 'registry', 'invoke', 'schema', 'solvers', 'dispatch', 'validate', 'operation-examples', 'solver-input-examples'].map((f) => f + MODULE_EXT));

let modules: Promise<any[]> | null = null;

/** Imports every operation module and every solver module (once). The app starts this before it
 * opens the store, so the main thread loads the modules while the store's thread starts PostgreSQL
 * (issue 28, start fast); a module that fails to load fails `loadOperations`, as before. */
export function preloadOperationModules(): Promise<any[]> {
  modules ??= (async () => {
    const dir = dirname(fileURLToPath(import.meta.url));
    const files = readdirSync(dir).filter((f) => isModuleFile(f) && !SKIP.has(f)).sort();
    const mods: any[] = [];
    for (const f of files) mods.push(await import(pathToFileURL(join(dir, f)).href));
    await loadSolvers();
    return mods;
  })();
  return modules;
}

export async function loadOperations(app: App): Promise<Operation[]> {
  const ops: Operation[] = [];
  for (const mod of await preloadOperationModules()) {
    if (!('operations' in mod)) continue;
    const list = typeof mod.operations === 'function' ? await mod.operations(app) : mod.operations;
    ops.push(...list);
  }
  ops.push(...(await solverOperations(app)));
  for (const op of ops) {
    // derived when first asked for (routes, OpenAPI, MCP, the console), then kept
    if (op.jsonSchema === undefined) lazyJsonSchema(op, () => toJsonSchema(op.input));
    // the example request of an operation that does not declare one (operation-examples.ts)
    if (!op.example && Object.hasOwn(OPERATION_EXAMPLES, op.id)) op.example = OPERATION_EXAMPLES[op.id];
  }
  const seenTools = new Set<string>();
  const seenRoutes = new Set<string>();
  for (const op of ops) {
    if (op.tool) {
      if (seenTools.has(op.tool)) throw new Error(`duplicate tool ${op.tool}`);
      seenTools.add(op.tool);
    }
    const route = `${op.method} ${op.path}`;
    if (seenRoutes.has(route)) throw new Error(`duplicate route ${route}`);
    seenRoutes.add(route);
  }
  return ops.sort(compareOps);
}

function compareOps(a: Operation, b: Operation): number {
  const ia = a.tool ? SPEC_TOOL_ORDER.indexOf(a.tool) : -1;
  const ib = b.tool ? SPEC_TOOL_ORDER.indexOf(b.tool) : -1;
  const ka = ia === -1 ? (a.tool ? 1000 : 2000) : ia;
  const kb = ib === -1 ? (b.tool ? 1000 : 2000) : ib;
  if (ka !== kb) return ka - kb;
  return (a.path + a.method).localeCompare(b.path + b.method);
}

/** The operations OpenAPI, the catalog and the reference page show (no admin, no hidden ones). */
export const publicOperations = (app: App) => app.operations.filter((o) => o.access !== 'admin' && !o.hidden);

