// Units and number words for svc_auto's reading of a request (src/ops/dispatch-read.ts).
//
// Every unit is an exact multiple of a base unit of its dimension, chosen so that the factors are
// integers (length in nm, time in ms, mass in mg, …): a quantity is converted to a field's unit as
// (value·f_unit)/f_field, which for integer factors below 2^53 is one correctly rounded division —
// "60 cm" for a field in metres gives exactly the double nearest to 0.6, the same bits as the
// literal 0.6, and "6 months" for a field in years exactly 0.5. A year is 365 days (the ACT/365
// convention of option maturities) and a month a twelfth of it.

export type Dimension =
  | 'length' | 'time' | 'mass' | 'pressure' | 'force' | 'voltage' | 'temperature' | 'speed' | 'acceleration'
  | 'density' | 'diffusivity' | 'rate' | 'areaMoment' | 'stiffness' | 'angle' | 'fraction';

export interface Unit { dim: Dimension; f: number; offset?: number }

const U = (dim: Dimension, f: number, offset?: number): Unit => (offset === undefined ? { dim, f } : { dim, f, offset });

const YEAR_MS = 365 * 86_400_000;

/** Unit spellings matched case-sensitively (SI symbols: m ≠ M, K ≠ k, s). */
const SYMBOLS: Record<string, Unit> = {
  nm: U('length', 1), um: U('length', 1e3), mm: U('length', 1e6), cm: U('length', 1e7), m: U('length', 1e9), km: U('length', 1e12),
  ms: U('time', 1), s: U('time', 1000), sec: U('time', 1000), min: U('time', 60_000), h: U('time', 3_600_000), hr: U('time', 3_600_000),
  yr: U('time', YEAR_MS),
  mg: U('mass', 1), g: U('mass', 1e3), kg: U('mass', 1e6),
  Pa: U('pressure', 1), kPa: U('pressure', 1e3), MPa: U('pressure', 1e6), GPa: U('pressure', 1e9), bar: U('pressure', 1e5),
  N: U('force', 1), kN: U('force', 1e3), MN: U('force', 1e6),
  mV: U('voltage', 1), V: U('voltage', 1e3), kV: U('voltage', 1e6),
  K: U('temperature', 1), degC: U('temperature', 1, 273.15),
  'm/s': U('speed', 3600), 'km/h': U('speed', 1000), 'km/s': U('speed', 3_600_000),
  'm/s^2': U('acceleration', 1),
  'm^-3': U('density', 1), 'm-3': U('density', 1), 'cm-3': U('density', 1e6), '/m^3': U('density', 1), 'cm^-3': U('density', 1e6), '/cm^3': U('density', 1e6),
  'm^2/s': U('diffusivity', 1e6), 'cm^2/s': U('diffusivity', 100), 'mm^2/s': U('diffusivity', 1),
  '1/s': U('rate', YEAR_MS / 1000), '/s': U('rate', YEAR_MS / 1000), 's^-1': U('rate', YEAR_MS / 1000),
  '1/day': U('rate', 365), '/day': U('rate', 365), '1/d': U('rate', 365), '/d': U('rate', 365), '1/year': U('rate', 1), '/year': U('rate', 1),
  'm^4': U('areaMoment', 1e12), 'cm^4': U('areaMoment', 1e4), 'mm^4': U('areaMoment', 1),
  'N m^2': U('stiffness', 1), 'N·m^2': U('stiffness', 1), 'Nm^2': U('stiffness', 1), 'N*m^2': U('stiffness', 1),
  rad: U('angle', 1),
  '%': U('fraction', 0.01),
};

/** Unit words, matched case-insensitively, with their plurals. */
const WORDS: Record<string, Unit> = {
  nanometre: SYMBOLS.nm, nanometer: SYMBOLS.nm, micron: SYMBOLS.um, micrometre: SYMBOLS.um, micrometer: SYMBOLS.um,
  millimetre: SYMBOLS.mm, millimeter: SYMBOLS.mm, centimetre: SYMBOLS.cm, centimeter: SYMBOLS.cm,
  metre: SYMBOLS.m, meter: SYMBOLS.m, kilometre: SYMBOLS.km, kilometer: SYMBOLS.km,
  millisecond: SYMBOLS.ms, second: SYMBOLS.s, secs: SYMBOLS.s, minute: SYMBOLS.min, mins: SYMBOLS.min, hour: SYMBOLS.h, hrs: SYMBOLS.h,
  day: U('time', 86_400_000), week: U('time', 7 * 86_400_000), month: U('time', YEAR_MS / 12), year: SYMBOLS.yr, yrs: SYMBOLS.yr,
  milligram: SYMBOLS.mg, gram: SYMBOLS.g, kilogram: SYMBOLS.kg, kilo: SYMBOLS.kg, tonne: U('mass', 1e9),
  pascal: SYMBOLS.Pa, newton: SYMBOLS.N, volt: SYMBOLS.V, kelvin: SYMBOLS.K,
  radian: SYMBOLS.rad,
  percent: SYMBOLS['%'], 'per cent': SYMBOLS['%'], pct: SYMBOLS['%'],
  'per day': SYMBOLS['/day'], 'a day': SYMBOLS['/day'], 'per year': SYMBOLS['/year'], 'a year': SYMBOLS['/year'], 'per second': SYMBOLS['/s'],
  'per cubic metre': SYMBOLS['m^-3'], 'per cubic meter': SYMBOLS['m^-3'], 'per cubic centimetre': SYMBOLS['cm^-3'], 'per cubic centimeter': SYMBOLS['cm^-3'],
  'per m^3': SYMBOLS['m^-3'], 'per cm^3': SYMBOLS['cm^-3'],
};

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const plural = (w: string) => (w.includes(' ') || /s$/.test(w) ? [w] : [w, w + 's']);

// longest spellings first, so "m/s^2" wins over "m/s" and "m"
// a symbol followed by "=" is a name ("S=100 K=95"), not a unit
const SYMBOL_RE = new RegExp(`^(?:\\s?-?\\s?)(${Object.keys(SYMBOLS).sort((a, b) => b.length - a.length).map(esc).join('|')})(?![A-Za-z0-9^/])(?!\\s*=)`);
const WORD_LIST = Object.keys(WORDS).flatMap((w) => plural(w).map((p) => [p, w] as const)).sort((a, b) => b[0].length - a[0].length);
const WORD_RE = new RegExp(`^(?:\\s?-?\\s?)(${WORD_LIST.map(([p]) => esc(p)).join('|')})(?![A-Za-z0-9])(?!\\s*=)`, 'i');
const WORD_OF = new Map(WORD_LIST.map(([p, w]) => [p.toLowerCase(), w]));

/** The unit written at the start of `text` (right after a number), with the characters it takes. */
export function unitAt(text: string): { unit: Unit; name: string; length: number } | null {
  const w = WORD_RE.exec(text);
  const s = SYMBOL_RE.exec(text);
  // a word unit wins when it is at least as long ("min" the symbol vs "minutes" the word)
  if (w && (!s || w[0].length >= s[0].length)) {
    const name = WORD_OF.get(w[1].toLowerCase())!;
    return { unit: WORDS[name], name, length: w[0].length };
  }
  if (s) return { unit: SYMBOLS[s[1]], name: s[1], length: s[0].length };
  return null;
}

/** A unit by its symbol or word (for the lexicon's field units). */
export function unitNamed(name: string): Unit {
  const u = SYMBOLS[name] ?? WORDS[name.toLowerCase()];
  if (!u) throw new Error(`unknown unit '${name}'`);
  return u;
}

/** `value` in unit `from` expressed in unit `to` (same dimension). */
export function convert(value: number, from: Unit, to: Unit): number {
  if (from === to || (from.f === to.f && !from.offset && !to.offset)) return value;
  const base = from.offset ? value + from.offset : value * from.f;
  return to.offset ? base - to.offset : base / to.f;
}

// ---- number words -----------------------------------------------------------------------------

export const SMALL_NUMBERS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
export const MULTIPLIERS: Record<string, number> = { hundred: 100, thousand: 1000, million: 1e6, billion: 1e9 };

export const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
};
