// The mailbox (issue 8): svc_mail_html delivers to the caller's own mailbox only; the html is
// sanitised on arrival and checked against the email rules (src/hosting/sanitize.ts).
import { z } from 'zod';
import { defineOp, type Operation, type RawReply } from './types.ts';
import { assertMachineCaller, rateLimit } from '../services/identity.ts';
import { SvcError } from '../core/errors.ts';
import { MAX_MAIL_HTML_BYTES, deliverMail, listMail, getMail, rawMail, mailboxOf, MAIL_ID_RE } from '../hosting/mail.ts';
import { CREATES } from './tool-hints.ts';
import { okWith, ChainLink } from './outputs.ts';

const mailWarning = z.object({ rule: z.enum(['table-layout', 'inline-css', 'https-links', 'max-width']), message: z.string() });
const removed = z.object({ tags: z.array(z.string()), attributes: z.array(z.string()), urls: z.array(z.string()), styles: z.array(z.string()) })
  .describe('what the sanitiser removed');

/** html and text together, JSON-escaped, stay under this; each is checked against 512 KB (413). */
export const MAIL_BODY_LIMIT = 3 * MAX_MAIL_HTML_BYTES;
export const MAIL_PER_HOUR = 300;

const noControl = /^[^\u0000-\u001f\u007f]*$/;
const idParam = z.string().max(200);

export const operations: Operation[] = [
  defineOp({
    id: 'mail.send',
    tool: 'svc_mail_html',
    title: 'Mail an HTML message to yourself',
    brief: 'Deliver an HTML email to your own mailbox; active content is stripped and email rules are checked.',
    hints: CREATES,
    toolOutput: z.object({ delivered: z.boolean(), id: z.string(), mailbox: z.string(), warnings: z.array(z.object({ rule: z.string(), message: z.string() })) }),
    method: 'POST',
    path: '/api/mail',
    access: 'user',
    scope: 'mail:write',
    tag: 'mail',
    bodyLimit: MAIL_BODY_LIMIT,
    summary: "Deliver an HTML email to the caller's own mailbox (<zid>@<mail domain>); scripts, forms, iframes and other active content are stripped on arrival.",
    description: 'subject, html (at most 512 KB), text (generated from the html when omitted), from (a display name only). The email rules (table layout, inline CSS, absolute https links, at most 600 px wide) are checked and each breach is reported in warnings; what the sanitizer removed is listed in removed. Each delivery is anchored on the machine\'s chain.',
    input: z.strictObject({
      subject: z.string().trim().min(1).max(300).regex(noControl, 'no control characters (a subject is one line)'),
      html: z.string().min(1),
      text: z.string().optional(),
      from: z.string().trim().max(80).regex(noControl, 'no control characters').optional(),
    }),
    output: okWith({
      delivered: z.literal(true),
      id: z.string().describe('m_…'), mailbox: z.string(), subject: z.string(), from: z.string().nullable(),
      warnings: z.array(mailWarning).describe('breaches of the email rules'), removed,
      textGenerated: z.boolean(), bytes: z.number().int(), date: z.string(), messageId: z.string(), chain: ChainLink,
      links: z.object({ self: z.string(), raw: z.string() }),
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      for (const [field, v] of [['html', input.html], ['text', input.text]] as const) {
        const bytes = v === undefined ? 0 : Buffer.byteLength(v, 'utf8');
        if (bytes > MAX_MAIL_HTML_BYTES) throw new SvcError('PAYLOAD_TOO_LARGE', `${field} is ${bytes} bytes; at most ${MAX_MAIL_HTML_BYTES} bytes (512 KB)`);
      }
      const out = await ctx.app.db.tx(async (q) => {
        await rateLimit(q, `mail:${zid}`, MAIL_PER_HOUR, 3600);
        return deliverMail(q, zid, ctx.app.config.mailDomain, ctx.app.clock.now(), input);
      });
      return { ok: true, delivered: true, ...out, links: { self: `/api/mail/${out.id}`, raw: `/api/mail/${out.id}/raw` } };
    },
  }),
  defineOp({
    id: 'mail.list',
    method: 'GET',
    path: '/api/mail',
    access: 'user',
    scope: 'mail:read',
    tag: 'mail',
    summary: "The caller's mailbox, newest first.",
    input: z.strictObject({
      limit: z.number().int().min(1).max(100).default(20),
      before: z.string().regex(MAIL_ID_RE, 'a message id (m_…)').optional(),
    }),
    output: okWith({
      mailbox: z.string(),
      messages: z.array(z.object({ id: z.string(), subject: z.string(), from: z.string().nullable(), date: z.string(), warnings: z.number().int(), messageId: z.string() })),
      next: z.string().nullable().describe('the `before` of the next page (null: no more)'),
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const messages = await listMail(ctx.app.db, zid, ctx.app.config.mailDomain, input.limit, input.before);
      return { ok: true, mailbox: mailboxOf(zid, ctx.app.config.mailDomain), messages, next: messages.length === input.limit ? messages.at(-1)!.id : null };
    },
  }),
  defineOp({
    id: 'mail.get',
    method: 'GET',
    path: '/api/mail/:id',
    access: 'user',
    scope: 'mail:read',
    tag: 'mail',
    summary: 'One message of the caller\'s mailbox: sanitised html, text, warnings. Another machine\'s message is 404.',
    input: z.strictObject({ id: idParam }),
    output: okWith({
      id: z.string(), mailbox: z.string(), from: z.string().nullable(), subject: z.string(), date: z.string(), messageId: z.string(),
      html: z.string().describe('the sanitised html'), text: z.string(), warnings: z.array(mailWarning), removed,
    }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      return { ok: true, ...(await getMail(ctx.app.db, zid, ctx.app.config.mailDomain, input.id)) };
    },
  }),
  defineOp({
    id: 'mail.raw',
    produces: ['text/plain'],
    method: 'GET',
    path: '/api/mail/:id/raw',
    access: 'user',
    scope: 'mail:read',
    tag: 'mail',
    summary: 'One message as an RFC 5322 Internet message (multipart/alternative, quoted-printable, CRLF), served as text/plain.',
    input: z.strictObject({ id: idParam }),
    async handler(input, ctx): Promise<RawReply> {
      const { zid } = assertMachineCaller(ctx.caller);
      const raw = await rawMail(ctx.app.db, zid, ctx.app.config.mailDomain, input.id);
      return {
        raw: true,
        status: 200,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'content-disposition': `inline; filename="${input.id}.eml"`,
          'x-content-type-options': 'nosniff',
          'content-security-policy': "sandbox; default-src 'none'",
          'cache-control': 'private, no-store',
        },
        body: raw,
      };
    },
  }),
];
