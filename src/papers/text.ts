// Text helpers shared by the adapters: markup stripping (Crossref abstracts are JATS or HTML
// fragments), white-space cleanup, abstract snippets, the title key used for deduplication,
// and dates in the several shapes the sources print.
import { decodeEntities } from './xml.ts';

const HTML_ENTITIES: Record<string, string> = {
  nbsp: ' ', ndash: '–', mdash: '—', hellip: '…', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
  times: '×', minus: '−', deg: '°', plusmn: '±', micro: 'µ', alpha: 'α', beta: 'β', gamma: 'γ',
  delta: 'δ', kappa: 'κ', lambda: 'λ', mu: 'μ', sigma: 'σ', copy: '©', reg: '®', trade: '™',
};

export function collapse(s: string | null | undefined): string | null {
  if (s === null || s === undefined) return null;
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}

/** Plain text of an HTML or JATS fragment: tags removed (block ends become spaces), a leading
 * "Abstract" heading dropped, entities decoded, white space collapsed. */
export function stripMarkup(s: string | null | undefined): string | null {
  if (!s) return null;
  let t = String(s);
  // a heading that only says "Abstract" is a label, not content
  t = t.replace(/<(jats:)?title>\s*abstract\s*<\/(jats:)?title>/gi, ' ');
  t = t.replace(/<\/?(?:jats:)?(?:p|sec|title|br|div|li|list)\b[^>]*>/gi, ' ');
  t = t.replace(/<[^>]*>/g, '');
  t = decodeEntities(t).replace(/&([a-z]+);/gi, (m, n: string) => HTML_ENTITIES[n.toLowerCase()] ?? m);
  return collapse(t);
}

/** Drops a leading bare "Abstract" word that some sources keep as the first token. */
export function dropAbstractLabel(s: string | null): string | null {
  if (!s) return s;
  const m = /^abstract[\s.:]+(?=\S)/i.exec(s);
  return m ? s.slice(m[0].length) : s;
}

export const SNIPPET_CHARS = 300;

/** At most SNIPPET_CHARS characters, cut at a word boundary, with an ellipsis when cut. */
export function snippet(s: string | null, max = SNIPPET_CHARS): string | null {
  if (!s) return null;
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return (sp > max * 0.6 ? cut.slice(0, sp) : cut).replace(/[\s,;:.\-–—]+$/, '') + '…';
}

/** Key for "same title": letters and digits only, accents folded, lower case. */
export function titleKey(title: string | null | undefined): string {
  if (!title) return '';
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/<[^>]*>/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Query terms (letters/digits, 2+ characters, lower case, deduplicated). */
export function queryTerms(q: string): string[] {
  const out: string[] = [];
  for (const w of titleKey(q).split(' ')) if (w.length >= 2 && !out.includes(w)) out.push(w);
  return out;
}

// ---- dates --------------------------------------------------------------------------------

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};

const pad = (n: number) => String(n).padStart(2, '0');

function validYmd(y: number, m?: number | null, d?: number | null): boolean {
  if (!Number.isInteger(y) || y < 1000 || y > 2999) return false;
  if (m === undefined || m === null) return true;
  if (!Number.isInteger(m) || m < 1 || m > 12) return false;
  if (d === undefined || d === null) return true;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Number.isInteger(d) && d >= 1 && d <= days;
}

/** Date from parts, as precise as the parts allow; null when the year is missing or invalid. */
export function dateFromParts(y: unknown, m?: unknown, d?: unknown): string | null {
  const yy = Number(y);
  if (y === null || y === undefined || !validYmd(yy)) return null;
  const mm = m === null || m === undefined || m === '' ? null : Number(m);
  if (mm === null || !validYmd(yy, mm)) return String(yy);
  const dd = d === null || d === undefined || d === '' ? null : Number(d);
  if (dd === null || !validYmd(yy, mm, dd)) return `${yy}-${pad(mm)}`;
  return `${yy}-${pad(mm)}-${pad(dd)}`;
}

export function monthNumber(s: string | null | undefined): number | null {
  if (!s) return null;
  const t = s.trim().toLowerCase();
  if (/^\d{1,2}$/.test(t)) return Number(t);
  return MONTHS[t.slice(0, 3)] ?? null;
}

/** ISO-ish strings: '2011-11-08T18:48:36Z', '2016-12-28', '2019/05/01 00:00', '2012-03'. The date
 * part is taken as written (arXiv stamps are UTC; no time-zone shift is applied). */
export function isoDate(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /^(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?/.exec(s.trim());
  return m ? dateFromParts(m[1], m[2], m[3]) : null;
}

/** PubMed free-form dates: '1965 Aug', '2001 Jun 15', '2019 May 3', '1998 Dec-1999 Jan', '2020 Spring'. */
export function pubmedDate(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /^(\d{4})(?:\s+([A-Za-z]{3,9}|\d{1,2})(?:\s+(\d{1,2}))?)?/.exec(s.trim());
  if (!m) return null;
  const mon = m[2] ? monthNumber(m[2]) : null;
  // "1998 Dec-1999 Jan" → the start month; "2020 Spring" → year only
  return dateFromParts(m[1], mon, mon ? m[3] : null);
}

export function yearOf(date: string | null): number | null {
  if (!date) return null;
  const y = Number(date.slice(0, 4));
  return Number.isInteger(y) ? y : null;
}

/** 'YYYY-MM-DD' of a unix time (UTC). */
export function ymdOf(unixSeconds: number): string {
  const d = new Date(Math.floor(unixSeconds) * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
