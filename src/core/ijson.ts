// A strict JSON reader: RFC 8259 grammar, and the I-JSON profile (RFC 7493 §2): no duplicate
// member names in any object at any depth (§2.3), no string holding a lone surrogate, escaped or
// not (§2.1: "MUST NOT include ... code points that identify Surrogates"), no NaN or Infinity
// (not JSON at all). JSON.parse silently keeps the last of two equal names, so a reader who takes
// the first sees another document: receipts are read with this instead (docs/verify.md).
// It also reports where a number was written with a fraction or an exponent (`1804.0`, `1e3`), so
// that members which must be integers can be refused when they are not written as integers: a
// JSON value has no other way to tell 1804 from 1804.0 once parsed.
// The console's verifier (src/console/static/ijson.js) and the Python verifier
// (clients/python/svc_client/ijson.py) apply the same rules; they share no code with this file.
import { SvcError } from './errors.ts';

export class IJsonError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) { super(`${message} at offset ${offset}`); this.name = 'IJsonError'; this.offset = offset; }
}

export interface IJsonResult {
  value: unknown;
  /** the paths (as 'a.b.0.c') of the numbers written with a fraction or an exponent */
  nonIntegerLiterals: Set<string>;
}

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/** Parses `text` as I-JSON; throws IJsonError naming the first violation and where it is. */
export function parseIJson(text: string): IJsonResult {
  let i = 0;
  const nonIntegerLiterals = new Set<string>();
  const ws = () => { while (i < text.length) { const c = text.charCodeAt(i); if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++; else break; } };
  const fail = (msg: string, at = i): never => { throw new IJsonError(msg, at); };

  const str = (): string => {
    const start = i;
    i++; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) { i++; break; }
      if (c < 0x20) fail('a control character inside a string');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('a malformed \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          const m: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          if (e === undefined || !(e in m)) fail('a malformed escape');
          out += m[e!];
          i += 2;
        }
      } else { out += text[i]; i++; }
    }
    // every high surrogate followed by a low one, every low one preceded by a high one
    for (let k = 0; k < out.length; k++) {
      const u = out.charCodeAt(k);
      if (u >= 0xd800 && u <= 0xdbff) {
        const n = out.charCodeAt(k + 1);
        if (n >= 0xdc00 && n <= 0xdfff) { k++; continue; }
        fail(`a lone surrogate U+${u.toString(16).toUpperCase()} in a string (RFC 7493 §2.1)`, start);
      } else if (u >= 0xdc00 && u <= 0xdfff) fail(`a lone surrogate U+${u.toString(16).toUpperCase()} in a string (RFC 7493 §2.1)`, start);
    }
    return out;
  };

  const value = (path: string, depth: number): unknown => {
    ws();
    if (i >= text.length) fail('unexpected end of input');
    const c = text[i];
    if (c === '{') {
      if (depth >= MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
      i++;
      const obj: Record<string, unknown> = Object.create(null);
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') { i++; return Object.assign({}, obj); }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a member name');
        const at = i;
        const k = str();
        if (seen.has(k)) fail(`duplicate member name ${JSON.stringify(k)}${path ? ` in ${path}` : ''} (RFC 7493 §2.3)`, at);
        seen.add(k);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        obj[k] = value(path ? `${path}.${k}` : k, depth + 1);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; break; }
        fail('expected "," or "}"');
      }
      // a plain object (own "__proto__" kept as data, as JSON.parse does)
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(obj)) Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
      return out;
    }
    if (c === '[') {
      if (depth >= MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value(path ? `${path}.${arr.length}` : String(arr.length), depth + 1));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; break; }
        fail('expected "," or "]"');
      }
      return arr;
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail('unexpected character');
    i += m![0].length;
    const n = Number(m![0]);
    if (!Number.isFinite(n)) fail('a number beyond the range of a double (RFC 7493 §2.2)', i - m![0].length);
    if (m![1] !== undefined || m![2] !== undefined) nonIntegerLiterals.add(path);
    return n;
  };

  if (text.charCodeAt(0) === 0xfeff) fail('a byte order mark (RFC 8259 §8.1)', 0);
  const v = value('', 0);
  ws();
  if (i < text.length) fail('text after the JSON value');
  return { value: v, nonIntegerLiterals };
}

/** A request body read as I-JSON (POST /api/svc/verify): a SvcError INVALID_INPUT naming the
 * violation, and the members that must be integers refused when written with a fraction or an
 * exponent (`"svcond": 1804.0`). */
export function parseStrictJsonBody(text: string, integerMembers: readonly string[] = []): unknown {
  let r: IJsonResult;
  try { r = parseIJson(text); } catch (e) {
    if (e instanceof IJsonError) throw new SvcError('INVALID_INPUT', `${/RFC 7493/.test(e.message) ? 'the body is not I-JSON' : 'malformed request body'}: ${e.message}`);
    throw e;
  }
  for (const m of integerMembers) if (r.nonIntegerLiterals.has(m)) throw new SvcError('INVALID_INPUT', `${m} is an integer: write it without a fraction or an exponent`, { issues: [{ path: m, message: 'not written as an integer' }] });
  return r.value;
}
