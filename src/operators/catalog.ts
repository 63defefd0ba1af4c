// The operator catalog: 67 science domains (domains.json) and their operators (catalog/<slug>.json,
// one file per domain, data not code). Loaded once, on first use. Each operator's equation is a
// mathjs expression over its input keys; it is evaluated two ways:
//   evaluateWithUnits: inputs become mathjs Units in their declared units, the expression is
//     evaluated with unit algebra, and the result is converted to the declared output unit
//     (a dimension mismatch is an error: the catalog's own consistency check);
//   evaluateSI: an independent path: every input, physical constant and unit literal is replaced
//     by its plain SI number, the expression is evaluated in float arithmetic, and the SI result
//     is scaled to the output unit. svc_compute's VERIFY step compares the two.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvalFunction, MathNode } from 'mathjs';
import { SvcError } from '../core/errors.ts';
import { umath, declaredUnit, isDimensionless, isPureAngle, isUnit, siFactor, toDeclared } from './units.ts';
import type { DomainDef, OperatorDef } from './types.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface Catalog {
  domains: DomainDef[];
  operators: OperatorDef[];
  byId: Map<string, OperatorDef>;
  byDomain: Map<string, OperatorDef[]>;
  /** lower-cased name, slug, code and aliases → domain */
  domainKey: Map<string, DomainDef>;
}

let catalog: Catalog | null = null;

/** Loads domains.json and every catalog/<slug>.json (once). Throws on an inconsistent catalog. */
export function loadCatalog(dir = HERE): Catalog {
  if (catalog && dir === HERE) return catalog;
  const domains: DomainDef[] = JSON.parse(readFileSync(join(dir, 'domains.json'), 'utf8'));
  const operators: OperatorDef[] = [];
  const byId = new Map<string, OperatorDef>();
  const byDomain = new Map<string, OperatorDef[]>();
  const domainKey = new Map<string, DomainDef>();
  for (const d of domains) {
    for (const k of [d.name, d.slug, d.code, ...(d.aliases ?? [])]) domainKey.set(k.trim().toLowerCase(), d);
    byDomain.set(d.name, []);
  }
  const files = readdirSync(join(dir, 'catalog')).filter((f) => f.endsWith('.json')).sort();
  for (const f of files) {
    const list: OperatorDef[] = JSON.parse(readFileSync(join(dir, 'catalog', f), 'utf8'));
    for (const op of list) {
      const key = op.id.toUpperCase();
      if (byId.has(key)) throw new Error(`catalog: duplicate operator id ${op.id} (${f})`);
      const dom = byDomain.get(op.domain);
      if (!dom) throw new Error(`catalog: operator ${op.id} names unknown domain '${op.domain}'`);
      byId.set(key, op);
      dom.push(op);
      operators.push(op);
    }
  }
  for (const d of domains) {
    if (!byId.has(d.defaultOperator.toUpperCase())) throw new Error(`catalog: domain ${d.name} default operator ${d.defaultOperator} is missing`);
  }
  const c = { domains, operators, byId, byDomain, domainKey };
  if (dir === HERE) catalog = c;
  return c;
}

export function getOperator(id: string): OperatorDef | undefined {
  return loadCatalog().byId.get(id.trim().toUpperCase());
}

/** A domain by name, slug, code (the operators' prefix) or alias; case-insensitive. */
export function resolveDomain(label: string): DomainDef | undefined {
  return loadCatalog().domainKey.get(label.trim().toLowerCase());
}

export function domainOperators(d: DomainDef): OperatorDef[] {
  return loadCatalog().byDomain.get(d.name) ?? [];
}

// ---------------------------------------------------------------------------------------------
// Compilation and evaluation

export interface CompiledOperator {
  def: OperatorDef;
  /** free symbols of the equation that are not inputs: physical constants and unit literals */
  constants: string[];
  withUnits: EvalFunction;
  si: EvalFunction;
  /** the SI expression (constants substituted), for display */
  siExpression: string;
}

const compiled = new Map<string, CompiledOperator>();

/** SI value of a non-input symbol of a catalog equation: a mathjs constant or a unit literal. */
function constantSI(name: string): number | undefined {
  const v = (umath() as any)[name];
  if (typeof v === 'number') return v;
  if (isUnit(v)) return (v as any).value as number;
  if ((umath() as any).Unit.isValuelessUnit(name)) {
    const u = umath().unit(1, name) as any;
    if (u.units.some((x: any) => x.unit.offset)) return undefined;
    return u.value as number;
  }
  return undefined;
}

export function compileOperator(def: OperatorDef): CompiledOperator {
  const hit = compiled.get(def.id);
  if (hit) return hit;
  const node = umath().parse(def.equation);
  const constants = new Set<string>();
  const si = node.transform((n: MathNode, path: string) => {
    if ((n as any).isSymbolNode && path !== 'fn') {
      const name = (n as any).name as string;
      if (Object.prototype.hasOwnProperty.call(def.inputs, name)) return n;
      const v = constantSI(name);
      if (v === undefined) throw new Error(`catalog: ${def.id}: symbol '${name}' is neither an input nor a known constant or unit`);
      constants.add(name);
      return new (umath() as any).ConstantNode(v);
    }
    return n;
  });
  const c: CompiledOperator = {
    def,
    constants: [...constants],
    withUnits: node.compile(),
    si: si.compile(),
    siExpression: si.toString(),
  };
  compiled.set(def.id, c);
  return c;
}

function catalogError(def: OperatorDef, message: string): SvcError {
  return new SvcError('DIMENSIONAL_GATE', `${def.id}: ${message}`, { details: { value: null, keys: [], operator: def.id } });
}

/** Evaluates with mathjs unit algebra. `inputs` are numbers in the declared units (see gate.ts). */
export function evaluateWithUnits(def: OperatorDef, inputs: Record<string, number>): number {
  const c = compileOperator(def);
  const scope: Record<string, unknown> = {};
  for (const [k, unit] of Object.entries(def.inputs)) {
    const v = inputs[k];
    scope[k] = isDimensionless(unit) ? v : isPureAngle(unit) ? v * siFactor(unit) : umath().unit(v, unit);
  }
  let r: unknown;
  try {
    r = c.withUnits.evaluate(scope);
  } catch (e) {
    throw catalogError(def, `evaluation failed: ${(e as Error).message}`);
  }
  if (typeof r === 'boolean') r = r ? 1 : 0;
  const v = toDeclared(r, def.output.unit);
  if (v === null) throw catalogError(def, `the result ${String(r)} is not in the declared output unit ${def.output.unit}`);
  return v;
}

/** The independent path: plain SI floats, result in the declared output unit. */
export function evaluateSI(def: OperatorDef, inputs: Record<string, number>): number {
  const c = compileOperator(def);
  const scope: Record<string, number> = {};
  for (const [k, unit] of Object.entries(def.inputs)) scope[k] = inputs[k] * siFactor(unit);
  let r: unknown;
  try {
    r = c.si.evaluate(scope);
  } catch (e) {
    throw catalogError(def, `SI evaluation failed: ${(e as Error).message}`);
  }
  if (typeof r === 'boolean') r = r ? 1 : 0;
  if (typeof r !== 'number') throw catalogError(def, `SI evaluation gave a ${typeof r}`);
  return r / siFactor(def.output.unit);
}

/** Relative agreement of the two paths, as a percentage (0 when both are 0). */
export function relativeDiffPct(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  if (scale === 0) return 0;
  return (Math.abs(a - b) / scale) * 100;
}

export function unitLabel(u: string): string {
  return isDimensionless(u) ? '1' : u;
}

/** Check a declared unit string parses (used by the catalog test and the builder). */
export function checkUnit(u: string): boolean {
  if (isDimensionless(u)) return true;
  try {
    const x = declaredUnit(u) as any;
    return !x.units.some((p: any) => p.unit.offset);
  } catch {
    return false;
  }
}
