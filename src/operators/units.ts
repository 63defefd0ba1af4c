// The catalog's units: one mathjs instance (trusted: it evaluates only the catalog's own
// equations, never a caller's expression; callers' expressions go through sandbox.ts) with the SI
// units mathjs ships plus the few the catalog needs that it lacks. Angles follow the SI
// convention that the radian is dimensionless (BIPM SI Brochure, 9th ed., §2.3.3): a quantity in
// rad/s is accepted where 1/s is declared, and the reverse.
import type { MathJsInstance, Unit } from 'mathjs';
import { mathjs } from '../core/mathjs.ts';

let instance: MathJsInstance | null = null;
let BASE: string[] = [];
let ANGLE_INDEX = -1;

/** The catalog's mathjs instance, created on first use (creating one costs a few hundred ms). */
export function umath(): MathJsInstance {
  if (instance) return instance;
  const { create, all } = mathjs();
  const m = create(all, { number: 'number', precision: 64 });
  setupUnits(m);
  BASE = (m as any).Unit.BASE_DIMENSIONS as string[];
  ANGLE_INDEX = BASE.indexOf('ANGLE');
  instance = m;
  return m;
}

// Units mathjs does not ship. Definitions: BIPM SI Brochure (9th ed.), IAU 2012 B2 (au),
// IAU 2015 B2 (pc), CODATA 2018 (Da). USD is a base dimension of its own (currency).
const EXTRA_UNITS: [string, string | null, string?][] = [
  ['USD', null],
  ['M', '1 mol/L', 'short'],
  ['Da', '1.66053906660e-27 kg', 'short'],
  ['au', '149597870700 m'],
  ['ly', '9460730472580800 m'],
  ['pc', '3.0856775814913673e16 m', 'short'],
  ['Bq', '1 s^-1', 'short'],
  ['Ci', '3.7e10 s^-1', 'short'],
  ['Gy', '1 J/kg', 'short'],
  ['Sv', '1 J/kg', 'short'],
  ['kat', '1 mol/s', 'short'],
  ['cal', '4.184 J', 'short'],
  ['knot', '0.5144444444444445 m/s'],
  ['ha', '10000 m^2'],
  ['barn', '1e-28 m^2'],
  ['lm', '1 cd'],
  ['lx', '1 cd/m^2'],
  ['P', '0.1 Pa s', 'short'],
];
function setupUnits(m: MathJsInstance): void {
  // mathjs defines the electronvolt with the pre-2019 elementary charge; use the exact SI value so
  // that eV agrees with mathjs's own elementaryCharge constant.
  m.createUnit('eV', { definition: '1.602176634e-19 J', prefixes: 'short' } as any, { override: true });
  for (const [name, definition, prefixes] of EXTRA_UNITS) {
    const opts: Record<string, unknown> = {};
    if (definition) opts.definition = definition;
    if (prefixes) opts.prefixes = prefixes;
    m.createUnit(name, opts as any, { override: false });
  }
}

/** Is the declared unit string the dimensionless "1"? */
export const isDimensionless = (u: string): boolean => u.trim() === '1' || u.trim() === '';

const unitCache = new Map<string, Unit>();

/** The declared unit as a mathjs Unit of value 1 (cached). Throws on an unknown unit. */
export function declaredUnit(u: string): Unit {
  let x = unitCache.get(u);
  if (!x) {
    x = umath().unit(1, u) as Unit;
    unitCache.set(u, x);
  }
  return x;
}

/** Multiply a number in unit `u` by this to get SI (not for offset units such as degC). */
export function siFactor(u: string): number {
  if (isDimensionless(u)) return 1;
  return (declaredUnit(u) as any).value as number;
}

export function dimensionsOf(u: Unit | string): number[] {
  if (typeof u === 'string') return isDimensionless(u) ? new Array(umathBase().length).fill(0) : (declaredUnit(u) as any).dimensions;
  return (u as any).dimensions as number[];
}

function umathBase(): string[] {
  umath();
  return BASE;
}

/** Same physical dimension, the radian counted as 1. */
export function sameDimension(a: number[], b: number[]): boolean {
  umath();
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (i === ANGLE_INDEX) continue;
    if (Math.abs((a[i] ?? 0) - (b[i] ?? 0)) > 1e-12) return false;
  }
  return true;
}

/** A readable dimension such as "LENGTH TIME^-1" (for error messages). */
export function describeDimension(d: number[]): string {
  umath();
  const parts: string[] = [];
  d.forEach((p, i) => { if (p && i !== ANGLE_INDEX) parts.push(p === 1 ? BASE[i] : `${BASE[i]}^${p}`); });
  return parts.length ? parts.join(' ') : 'dimensionless';
}

/** rad, deg, ...: dimensionless in SI; the catalog passes such inputs as plain numbers in radians. */
export function isPureAngle(u: string): boolean {
  return !isDimensionless(u) && sameDimension(dimensionsOf(u), []);
}

export const isUnit = (x: unknown): x is Unit => !!x && typeof x === 'object' && (x as any).type === 'Unit';

/**
 * Converts a mathjs value (number or Unit) to a number in the declared unit `u`, or returns
 * null when its dimension does not match. Units that agree exactly go through mathjs's own
 * conversion (which handles offsets such as degC); units that differ only by radians go through SI.
 */
export function toDeclared(x: unknown, u: string): number | null {
  if (typeof x === 'number') {
    if (isDimensionless(u)) return x;
    // a bare number where an angle is declared is in radians (SI)
    return isPureAngle(u) ? x / siFactor(u) : null;
  }
  if (!isUnit(x)) return null;
  const have = dimensionsOf(x);
  const want = dimensionsOf(u);
  if (!sameDimension(have, want)) return null;
  if (isDimensionless(u)) return (x as any).value as number;
  try {
    if ((x as any).equalBase(declaredUnit(u))) return x.toNumber(u);
  } catch { /* fall through to SI */ }
  return ((x as any).value as number) / siFactor(u);
}

// ---------------------------------------------------------------------------------------------
// The unit of a product of values (svc_unified's algebraic product)
//
// A composed value is the product of numbers each in its operator's declared unit, so its unit is
// the product of those declared units, symbol by symbol: equal symbols (same prefix and unit) add
// their powers and cancel at zero; different symbols are kept, so the unit is always in the scale
// the value is in ("kN*m", never "J" for a value in kN m). A unit name is never chosen from the
// dimension alone (mathjs's simplify() does that and picks whatever unit was defined last for the
// dimension: knot for m/s, P for Pa s, Sv for J/kg, lx for cd/m^2). The one exception: when the
// product is SI-coherent (its factor to SI is exactly 1) and its dimension is that of one of the
// special names below, it is written with that name (N x m = J, V x A = W). Each of these is the
// only special name of its dimension (SI Brochure, 9th ed., Table 4); left out on purpose are the
// names that share a dimension with another quantity: Hz and Bq (1/s), Gy and Sv (J/kg), lm and
// lx (cd sr and cd sr/m^2, the steradian being 1), kat (mol/s), Pa (also J/m^3).
const NAMED_COHERENT = ['N', 'J', 'W', 'C', 'V', 'F', 'ohm', 'S', 'Wb', 'T', 'H'];

const REL = 1e-12;
const sameArray = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= REL);
const formatPower = (name: string, p: number) => (p === 1 ? name : `${name}^${p}`);

/** A product of symbols with powers as a mathjs-parseable string: "kg*m/s^2", "J/(kg*K)", "1/s". */
export function formatUnitProduct(tokens: [string, number][]): string {
  const num = tokens.filter(([, p]) => p > 0).map(([n, p]) => formatPower(n, p));
  const den = tokens.filter(([, p]) => p < 0).map(([n, p]) => formatPower(n, -p));
  const top = num.length ? num.join('*') : '1';
  if (!den.length) return top;
  return `${top}/${den.length === 1 ? den[0] : `(${den.join('*')})`}`;
}

/** SI factor and dimension of a unit string (the factor is 1 for an SI-coherent unit). */
function unitSignature(u: string): { factor: number; dims: number[] } {
  if (isDimensionless(u)) return { factor: 1, dims: dimensionsOf(u) };
  const x = umath().unit(1, u) as any;
  return { factor: x.value as number, dims: x.dimensions as number[] };
}

/**
 * The unit of a product of values given in the declared units `units` (see above). One unit (the
 * others dimensionless) is returned as written; "1" when every unit is dimensionless or all
 * symbols cancel.
 */
export function productOfUnits(units: string[]): string {
  const real = units.map((u) => u.trim()).filter((u) => !isDimensionless(u));
  if (real.length === 0) return '1';
  if (real.length === 1) return real[0];
  const powers = new Map<string, number>();
  let factor = 1;
  let dims: number[] = new Array(umathBase().length).fill(0);
  for (const u of real) {
    const x = umath().unit(1, u) as any;
    for (const part of x.units) {
      const name = `${part.prefix?.name ?? ''}${part.unit.name}`;
      powers.set(name, (powers.get(name) ?? 0) + part.power);
    }
    factor *= x.value as number;
    dims = dims.map((d, i) => d + (x.dimensions[i] ?? 0));
  }
  const tokens = [...powers].filter(([, p]) => Math.abs(p) > REL).map(([n, p]) => [n, Math.round(p * 1e9) / 1e9] as [string, number]);
  if (!tokens.length) return '1';
  let out = formatUnitProduct(tokens);
  if (Math.abs(factor - 1) <= REL && !(tokens.length === 1 && tokens[0][1] === 1)) {
    const named = NAMED_COHERENT.find((n) => sameArray(unitSignature(n).dims, dims));
    if (named) out = named;
  }
  // the written unit must denote exactly the product: same dimension, same factor to SI
  const back = unitSignature(out);
  if (!sameArray(back.dims, dims) || Math.abs(back.factor - factor) > REL * Math.abs(factor)) {
    return real.map((u) => `(${u})`).join('*');
  }
  return out;
}
