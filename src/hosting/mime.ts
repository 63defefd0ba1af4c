// An RFC 5322 Internet message with a MIME (RFC 2045/2046) multipart/alternative body: the plain
// text first, then the HTML, each UTF-8 in quoted-printable (RFC 2045 §6.7). Header fields that
// are not ASCII become RFC 2047 encoded-words ("B" encoding, at most 75 characters each); long
// fields are folded (RFC 5322 §2.2.3). Every line ends in CRLF and no line exceeds 78 characters
// except where a single unbreakable token forces it (never beyond 998).
import { createHash } from 'node:crypto';

const CRLF = '\r\n';

export interface RawMailInput {
  id: string;
  /** addr-spec of the mailbox: "<zid lowercased>@<domain>" */
  mailbox: string;
  fromName: string | null;
  subject: string;
  html: string;
  text: string;
  date: Date;
  messageId: string;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** RFC 5322 §3.3 date-time in UTC: "Tue, 04 Mar 2025 09:05:00 +0000". */
export function rfc5322Date(d: Date): string {
  return `${DAYS[d.getUTCDay()]}, ${p2(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** RFC 2047 "B" encoded-words for text, never splitting a character. Each word is at most
 * 12 + 52 = 64 characters, so even the first line ("Subject: " + word) stays within the 76
 * characters RFC 2047 §2 allows a line that carries encoded-words. */
export function encodeWords(text: string): string[] {
  const words: string[] = [];
  let chunk: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (!chunk.length) return;
    words.push(`=?UTF-8?B?${Buffer.from(chunk.join(''), 'utf8').toString('base64')}?=`);
    chunk = [];
    bytes = 0;
  };
  // 39 bytes encode to 52 base64 characters
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > 39) flush();
    chunk.push(ch);
    bytes += n;
  }
  flush();
  return words;
}

/** Folds "Name: value" made of tokens separated by single spaces into lines of at most 78. */
function foldTokens(name: string, tokens: string[]): string {
  const lines: string[] = [];
  let line = `${name}:`;
  for (const tok of tokens) {
    if (line.length + 1 + tok.length > 78 && line.length > name.length + 1) {
      lines.push(line);
      line = ' ' + tok;
    } else {
      line += ' ' + tok;
    }
  }
  lines.push(line);
  return lines.join(CRLF);
}

/** An unstructured field (Subject): plain when printable ASCII, else encoded-words. */
export function unstructuredHeader(name: string, value: string): string {
  const clean = value.replace(/[\r\n\t]+/g, ' ').trim();
  if (PRINTABLE_ASCII.test(clean) && !/=\?/.test(clean) && !clean.split(' ').some((w) => w.length > 900)) {
    return foldTokens(name, clean.split(/ +/).filter(Boolean));
  }
  return foldTokens(name, encodeWords(clean));
}

/** A display name as an RFC 5322 phrase: atoms, a quoted-string, or encoded-words. */
export function phraseTokens(name: string): string[] {
  const clean = name.replace(/[\r\n\t]+/g, ' ').trim();
  if (/^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]+$/.test(clean) && !/=\?/.test(clean)) return clean.split(/ +/);
  if (PRINTABLE_ASCII.test(clean) && clean.length <= 70 && !/=\?/.test(clean)) return [`"${clean.replace(/(["\\])/g, '\\$1')}"`];
  return encodeWords(clean);
}

/** Quoted-printable (RFC 2045 §6.7) of UTF-8 text: CRLF hard breaks, soft breaks keep lines <= 76. */
export function quotedPrintable(text: string): string {
  const lines = text.replace(/\r\n|\r|\n/g, '\n').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    const bytes = Buffer.from(line, 'utf8');
    const units: string[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      const last = i === bytes.length - 1;
      if ((b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && !last)) units.push(String.fromCharCode(b));
      else units.push('=' + b.toString(16).toUpperCase().padStart(2, '0'));
    }
    let cur = '';
    for (const u of units) {
      if (cur.length + u.length > 75) { // leave room for the soft-break "="
        out.push(cur + '=');
        cur = '';
      }
      cur += u;
    }
    out.push(cur);
  }
  return out.join(CRLF);
}

export function boundaryFor(id: string): string {
  // "=_" cannot occur in quoted-printable text, so the boundary never collides with a body
  return '=_svc_' + createHash('sha256').update(id).digest('hex').slice(0, 24);
}

/** The whole message as a string with CRLF line endings. */
export function buildRfc5322(m: RawMailInput): string {
  const boundary = boundaryFor(m.id);
  const fromTokens = m.fromName ? [...phraseTokens(m.fromName), `<${m.mailbox}>`] : [m.mailbox];
  const headers = [
    `Date: ${rfc5322Date(m.date)}`,
    foldTokens('From', fromTokens),
    `To: <${m.mailbox}>`,
    unstructuredHeader('Subject', m.subject),
    `Message-ID: ${m.messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative;${CRLF} boundary="${boundary}"`,
  ];
  const part = (type: string, body: string) => [
    `--${boundary}`,
    `Content-Type: ${type}; charset=utf-8`,
    'Content-Transfer-Encoding: quoted-printable',
    '',
    quotedPrintable(body),
  ].join(CRLF);
  return [
    headers.join(CRLF),
    '',
    'This is a multi-part message in MIME format.',
    part('text/plain', m.text),
    part('text/html', m.html),
    `--${boundary}--`,
    '',
  ].join(CRLF);
}
