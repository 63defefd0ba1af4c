// The mailbox: every machine has exactly one, <zid lowercased>@<SVC_MAIL_DOMAIN>, and mail is
// delivered only there (a machine mails itself; nothing leaves the node). HTML is sanitised on
// arrival (src/hosting/sanitize.ts), checked against the email rules, stored with a plain-text
// alternative, and anchored on the machine's chain.
import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { appendToChain } from '../services/chain.ts';
import { SvcError } from '../core/errors.ts';
import { ulid } from '../core/ids.ts';
import { sanitizeMailHtml, textFromHtml, type MailWarning } from './sanitize.ts';
import { buildRfc5322 } from './mime.ts';

export const MAX_MAIL_HTML_BYTES = 512 * 1024;
export const MAIL_ID_RE = /^m_[0-9A-HJKMNP-TV-Z]{26}$/;

export const mailboxOf = (zid: string, domain: string) => `${zid.toLowerCase()}@${domain}`;

export interface DeliveredMail {
  id: string;
  mailbox: string;
  subject: string;
  from: string | null;
  warnings: MailWarning[];
  removed: ReturnType<typeof sanitizeMailHtml>['removed'];
  textGenerated: boolean;
  bytes: number;
  date: string;
  messageId: string;
  chain: { seq: number; hash: string };
}

const messageIdOf = (id: string, domain: string) => `<${id.toLowerCase()}@${domain}>`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Normalises caller-supplied plain text: LF line ends, no control characters but tab. */
function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

export async function deliverMail(q: Queryable, zid: string, domain: string, nowSeconds: number,
  input: { subject: string; html: string; text?: string; from?: string }): Promise<DeliveredMail> {
  const bytes = Buffer.byteLength(input.html, 'utf8');
  if (bytes > MAX_MAIL_HTML_BYTES) throw new SvcError('PAYLOAD_TOO_LARGE', `html is ${bytes} bytes; a message holds at most ${MAX_MAIL_HTML_BYTES} bytes (512 KB)`);
  if (input.text !== undefined && Buffer.byteLength(input.text, 'utf8') > MAX_MAIL_HTML_BYTES) {
    throw new SvcError('PAYLOAD_TOO_LARGE', `text holds at most ${MAX_MAIL_HTML_BYTES} bytes (512 KB)`);
  }
  // NUL is a parse error in HTML (and cannot be stored in PostgreSQL text): dropped before parsing
  const s = sanitizeMailHtml(input.html.replace(/\u0000/g, ''));
  const textGenerated = input.text === undefined;
  const text = textGenerated ? textFromHtml(s.html) : cleanText(input.text!);
  const id = 'm_' + ulid(Math.floor(nowSeconds * 1000));
  const sentAt = new Date(Math.floor(nowSeconds) * 1000);
  const mailbox = mailboxOf(zid, domain);
  const from = input.from?.trim() || null;
  const [entry] = await appendToChain(q, zid, [{
    kind: 'mail.delivered', ref: id,
    payload: { id, mailbox, subject: input.subject, htmlSha256: sha(s.html), textSha256: sha(text), warnings: s.warnings.length },
  }]);
  await q.query(
    `INSERT INTO mail_messages (id, zid, from_name, subject, html, text_body, warnings, removed, sent_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
    [id, zid, from, input.subject, s.html, text, JSON.stringify(s.warnings), JSON.stringify(s.removed), sentAt.toISOString()]);
  return {
    id, mailbox, subject: input.subject, from, warnings: s.warnings, removed: s.removed, textGenerated,
    bytes: Buffer.byteLength(s.html, 'utf8'), date: sentAt.toISOString(), messageId: messageIdOf(id, domain),
    chain: { seq: entry.seq, hash: entry.hash },
  };
}

export async function listMail(q: Queryable, zid: string, domain: string, limit: number, before?: string) {
  const params: unknown[] = [zid, limit];
  let where = 'zid = $1';
  if (before) { params.push(before); where += ' AND id < $3'; }
  const rows = await q.query<any>(
    `SELECT id, from_name, subject, sent_at, warnings, length(html) AS html_chars FROM mail_messages WHERE ${where} ORDER BY id DESC LIMIT $2`, params);
  return rows.map((r) => ({
    id: r.id, subject: r.subject, from: r.from_name, date: new Date(r.sent_at).toISOString(),
    warnings: JSON.parse(r.warnings).length, messageId: messageIdOf(r.id, domain),
  }));
}

async function ownMessage(q: Queryable, zid: string, id: string): Promise<any> {
  if (!MAIL_ID_RE.test(id)) throw new SvcError('NOT_FOUND', 'message not found');
  const rows = await q.query<any>('SELECT * FROM mail_messages WHERE id = $1 AND zid = $2', [id, zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'message not found');
  return rows[0];
}

export async function getMail(q: Queryable, zid: string, domain: string, id: string) {
  const r = await ownMessage(q, zid, id);
  return {
    id: r.id, mailbox: mailboxOf(zid, domain), from: r.from_name, subject: r.subject, date: new Date(r.sent_at).toISOString(),
    messageId: messageIdOf(r.id, domain), html: r.html, text: r.text_body, warnings: JSON.parse(r.warnings), removed: JSON.parse(r.removed),
  };
}

export async function rawMail(q: Queryable, zid: string, domain: string, id: string): Promise<string> {
  const r = await ownMessage(q, zid, id);
  return buildRfc5322({
    id: r.id, mailbox: mailboxOf(zid, domain), fromName: r.from_name, subject: r.subject,
    html: r.html, text: r.text_body, date: new Date(r.sent_at), messageId: messageIdOf(r.id, domain),
  });
}
