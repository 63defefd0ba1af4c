// A strict JSON reader: RFC 8259 grammar, and the I-JSON profile (RFC 7493 §2): no duplicate
// member names in any object at any depth (§2.3), no string holding a lone surrogate, escaped or
// not (§2.1: "MUST NOT include ... code points that identify Surrogates"), no NaN or Infinity
// (not JSON at all). JSON.parse silently keeps the last of two equal names, so a reader who takes
// the first sees another document: receipts are read with this instead (docs/verify.md).
// It also reports where a number was written with a fraction or an exponent (`1804.0`, `1e3`), so
// that members which must be integers can be refused when they are not written as integers: a
// JSON value has no other way to tell 1804 from 1804.0 once parsed.
// The console's copy of src/core/ijson.ts (a browser module cannot import the node's TypeScript);
// test/log/verify-table.test.ts runs both, and the Python reader, on the same table.

export class IJsonError extends Error {
  constructor(message, offset) { super(`${message} at offset ${offset}`); this.name = 'IJsonError'; this.offset = offset; }
}

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/** Parses `text` as I-JSON; throws IJsonError naming the first violation and where it is. Returns
 * {value, nonIntegerLiterals}: the paths ('a.b.0.c') of numbers written with a fraction or exponent. */
export function parseIJson(text) {
  let i = 0;
  const nonIntegerLiterals = new Set();
  const ws = () => { while (i < text.length) { const c = text.charCodeAt(i); if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++; else break; } };
  const fail = (msg, at = i) => { throw new IJsonError(msg, at); };

  const str = () => {
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
          const m = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          if (e === undefined || !(e in m)) fail('a malformed escape');
          out += m[e];
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

  const value = (path, depth) => {
    ws();
    if (i >= text.length) fail('unexpected end of input');
    const c = text[i];
    if (c === '{') {
      if (depth >= MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
      i++;
      const obj = Object.create(null);
      const seen = new Set();
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
      const out = {};
      for (const k of Object.keys(obj)) Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
      return out;
    }
    if (c === '[') {
      if (depth >= MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
      i++;
      const arr = [];
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
    i += m[0].length;
    const n = Number(m[0]);
    if (!Number.isFinite(n)) fail('a number beyond the range of a double (RFC 7493 §2.2)', i - m[0].length);
    if (m[1] !== undefined || m[2] !== undefined) nonIntegerLiterals.add(path);
    return n;
  };

  if (text.charCodeAt(0) === 0xfeff) fail('a byte order mark (RFC 8259 §8.1)', 0);
  const v = value('', 0);
  ws();
  if (i < text.length) fail('text after the JSON value');
  return { value: v, nonIntegerLiterals };
}
