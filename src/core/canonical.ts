// RFC 8785 JSON Canonicalization Scheme (JCS): object keys sorted by UTF-16 code units,
// numbers in ECMAScript shortest form (which is what JSON.stringify emits for finite numbers),
// strings escaped as JSON.stringify does, no whitespace.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']';
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareUtf16);
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}';
  }
  throw new TypeError(`canonicalJson: unsupported type ${typeof value}`);
}

function compareUtf16(a: string, b: string): number {
  // JS string comparison is by UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
  return a < b ? -1 : a > b ? 1 : 0;
}
