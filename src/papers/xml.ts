// A small, strict, non-validating XML parser for the two XML formats the literature adapters
// read: arXiv's Atom feed and NCBI E-utilities (esearch, esummary v1, efetch PubmedArticleSet).
// It builds an element tree, decodes the five predefined entities and character references,
// keeps CDATA as text, and skips the prolog, comments, processing instructions and the DOCTYPE
// (including an internal subset) WITHOUT expanding any declared entity: no external fetches, no
// entity-expansion blow-up. Namespaces are not resolved: an element keeps its qualified name and
// is found by its local name (arXiv declares the same prefixes either on the root or on every
// element, depending on the year; the local names are what both formats share).
// Malformed input (unclosed or mismatched tags, truncated documents, stray markup) throws
// XmlError so that an adapter can report "malformed response" instead of guessing.

export class XmlError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = 'XmlError';
    this.offset = offset;
  }
}

export interface XmlElement {
  /** qualified name as written: 'arxiv:doi' */
  name: string;
  /** name without prefix: 'doi' */
  local: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

const MAX_DEPTH = 256;
const NAME_START = /[A-Za-z_:\u00C0-\uFFFF]/;
const NAME_CHAR = /[A-Za-z0-9_:.\-\u00B7\u00C0-\uFFFF]/;

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the predefined entities and numeric character references. An unknown named entity
 * (which a DTD might declare) is left as written rather than expanded. */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') === -1) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (m, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code < 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return m;
      return String.fromCodePoint(code);
    }
    return PREDEFINED[body] ?? m;
  });
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return i === -1 ? name : name.slice(i + 1);
}

/** Parses a whole document and returns its root element. */
export function parseXml(input: string): XmlElement {
  let src = input;
  if (src.charCodeAt(0) === 0xfeff) src = src.slice(1);
  const n = src.length;
  let i = 0;
  let root: XmlElement | null = null;
  const stack: XmlElement[] = [];

  const fail = (msg: string, at = i): never => { throw new XmlError(msg, at); };

  const readName = (): string => {
    const start = i;
    if (i >= n || !NAME_START.test(src[i])) fail('expected a name');
    i++;
    while (i < n && NAME_CHAR.test(src[i])) i++;
    return src.slice(start, i);
  };
  const skipSpace = () => { while (i < n && (src[i] === ' ' || src[i] === '\n' || src[i] === '\t' || src[i] === '\r')) i++; };
  const skipPast = (token: string, what: string) => {
    const j = src.indexOf(token, i);
    if (j === -1) fail(`unterminated ${what}`);
    i = j + token.length;
  };
  const pushText = (text: string) => {
    const top = stack[stack.length - 1];
    if (!top) {
      if (text.trim() !== '') fail('text outside the root element');
      return;
    }
    const last = top.children[top.children.length - 1];
    if (typeof last === 'string') top.children[top.children.length - 1] = last + text;
    else top.children.push(text);
  };

  while (i < n) {
    const lt = src.indexOf('<', i);
    if (lt === -1) {
      pushText(decodeEntities(src.slice(i)));
      i = n;
      break;
    }
    if (lt > i) pushText(decodeEntities(src.slice(i, lt)));
    i = lt;
    if (src.startsWith('<!--', i)) { i += 4; skipPast('-->', 'comment'); continue; }
    if (src.startsWith('<![CDATA[', i)) {
      if (!stack.length) fail('CDATA outside the root element');
      const j = src.indexOf(']]>', i + 9);
      if (j === -1) fail('unterminated CDATA section');
      pushText(src.slice(i + 9, j));
      i = j + 3;
      continue;
    }
    if (src.startsWith('<?', i)) { i += 2; skipPast('?>', 'processing instruction'); continue; }
    if (src.startsWith('<!DOCTYPE', i)) {
      if (root || stack.length) fail('DOCTYPE after the root element');
      // skip to the closing '>' outside any quoted string or internal subset
      i += 9;
      let depth = 0;
      while (i < n) {
        const c = src[i];
        if (c === '"' || c === "'") { const j = src.indexOf(c, i + 1); if (j === -1) fail('unterminated DOCTYPE'); i = j + 1; continue; }
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
        i++;
      }
      if (i >= n) fail('unterminated DOCTYPE');
      i++;
      continue;
    }
    if (src[i + 1] === '/') {
      i += 2;
      const name = readName();
      skipSpace();
      if (src[i] !== '>') fail(`malformed closing tag </${name}`);
      i++;
      const top = stack.pop();
      if (!top) fail(`unexpected closing tag </${name}>`);
      if (top!.name !== name) fail(`closing tag </${name}> does not match <${top!.name}>`);
      continue;
    }
    // start tag
    i++;
    if (root && !stack.length) fail('content after the root element');
    const name = readName();
    const el: XmlElement = { name, local: localName(name), attrs: {}, children: [] };
    let selfClosing = false;
    for (;;) {
      const before = i;
      skipSpace();
      if (i >= n) fail(`unterminated start tag <${name}`);
      if (src[i] === '>') { i++; break; }
      if (src[i] === '/' && src[i + 1] === '>') { i += 2; selfClosing = true; break; }
      if (i === before) fail(`expected whitespace in <${name}`);
      const an = readName();
      skipSpace();
      if (src[i] !== '=') fail(`attribute ${an} without a value`);
      i++;
      skipSpace();
      const q = src[i];
      if (q !== '"' && q !== "'") fail(`attribute ${an} value is not quoted`);
      const end = src.indexOf(q, i + 1);
      if (end === -1) fail(`unterminated attribute ${an}`);
      const raw = src.slice(i + 1, end);
      if (raw.includes('<')) fail(`'<' in attribute ${an}`);
      el.attrs[an] = decodeEntities(raw);
      i = end + 1;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root = el;
    if (!selfClosing) {
      stack.push(el);
      if (stack.length > MAX_DEPTH) fail('elements nested too deeply');
    }
  }
  if (stack.length) fail(`unclosed element <${stack[stack.length - 1].name}> (document truncated?)`, n);
  if (!root) fail('no root element', 0);
  return root!;
}

// ---- navigation helpers -------------------------------------------------------------------

export function isElement(n: XmlNode | undefined | null): n is XmlElement {
  return typeof n === 'object' && n !== null;
}

/** Direct child elements, optionally with the given local name. */
export function childElements(el: XmlElement | null | undefined, local?: string): XmlElement[] {
  if (!el) return [];
  const out: XmlElement[] = [];
  for (const c of el.children) if (isElement(c) && (local === undefined || c.local === local)) out.push(c);
  return out;
}

/** The first direct child element with that local name. */
export function child(el: XmlElement | null | undefined, local: string): XmlElement | null {
  if (!el) return null;
  for (const c of el.children) if (isElement(c) && c.local === local) return c;
  return null;
}

/** Follows a path of local names through first children: path(el, 'Article', 'Journal', 'Title'). */
export function path(el: XmlElement | null | undefined, ...locals: string[]): XmlElement | null {
  let cur: XmlElement | null = el ?? null;
  for (const l of locals) { cur = child(cur, l); if (!cur) return null; }
  return cur;
}

/** All text below the element, in document order (inline markup such as <i> or <sup> is flattened). */
export function textOf(el: XmlElement | null | undefined): string {
  if (!el) return '';
  let s = '';
  for (const c of el.children) s += typeof c === 'string' ? c : textOf(c);
  return s;
}

/** Text with runs of white space collapsed to one space and trimmed; null when empty. */
export function cleanText(el: XmlElement | null | undefined): string | null {
  const t = textOf(el).replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}
