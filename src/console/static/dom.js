// Small DOM helpers. Everything user- or node-supplied goes in as text (textContent or
// attribute values), never as markup.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'hidden') el.hidden = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export const $ = (id) => document.getElementById(id);

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Fills a <dl> with [term, description] pairs. */
export function facts(dl, pairs) {
  clear(dl);
  for (const [k, v] of pairs) {
    if (v === undefined || v === null || v === '') continue;
    dl.append(h('div', {}, h('dt', {}, k), h('dd', {}, v)));
  }
}

export function status(el, text, kind = '') {
  el.textContent = text;
  el.className = `status ${kind}`.trim();
}

export function fmtNumber(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e6) return String(Number(x.toPrecision(8)));
  return x.toExponential(6);
}

export function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function shortHash(h, n = 12) {
  return typeof h === 'string' ? h.slice(0, n) : '';
}
