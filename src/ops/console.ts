// The machine console (issue 11): a browser page at /console, served by the node itself as
// plain ES modules and CSS from src/console/static/ (no build step, no CDN) plus uPlot from
// node_modules. Every console response carries a strict Content-Security-Policy: scripts and
// styles only from the node's own files, no inline code, no framing of the console, and no
// connection anywhere but the node. The machine's key lives only in the tab's sessionStorage
// (src/console/static/api.js); the public launcher /s/<machine>/ stays with the hosting pages.
//
// Mail is shown in a sandboxed frame. A srcdoc, blob: or data: frame inherits the console's CSP,
// which would strip every inline style an email is made of (email rules require inline CSS), so
// the frame's document comes from /console/mail-view/<ticket> instead: the sanitised html with
// its own policy (`sandbox`, no script at all, inline styles only, images from data: only). The
// ticket is stateless, so any node sharing the store's secret serves it: base64url(JSON {z, m, e})
// "." HMAC-SHA256 under a key derived from the proof key, valid MAIL_TICKET_SECONDS.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { defineOp, type Operation, type RawReply } from './types.ts';
import type { App } from './types.ts';
import { SvcError } from '../core/errors.ts';
import { assertMachineCaller } from '../services/identity.ts';
import { getMail, MAIL_ID_RE } from '../hosting/mail.ts';
import { jsonSchemaOf } from './schema.ts';

export const CONSOLE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
  + "frame-src blob: data: 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Headers of every console response (the HTML page and its modules alike). */
export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), usb=(), payment=()',
  'cache-control': 'no-cache',
};

/** The document inside the mail frame: no script, inline styles (email is inline CSS), images
 * from data: only (remote images are tracking pixels), links open outside the frame. Only the
 * console (same origin) may frame it. */
export const MAIL_FRAME_CSP = "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; "
  + "img-src data:; font-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

export const MAIL_TICKET_SECONDS = 120;

const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'console', 'static');
const STATIC_NAME = /^[a-z0-9][a-z0-9-]{0,63}\.(js|css|svg|html)$/;
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  html: 'text/html; charset=utf-8',
};

/** The uPlot files the console loads, served from the installed package (no CDN). */
const VENDOR: Record<string, string> = {
  'uPlot.esm.js': 'dist/uPlot.esm.js',
  'uPlot.min.css': 'dist/uPlot.min.css',
};

let uplotDir: string | null = null;
function vendorPath(file: string): string | null {
  const rel = Object.hasOwn(VENDOR, file) ? VENDOR[file] : undefined;
  if (!rel) return null;
  uplotDir ??= dirname(createRequire(import.meta.url).resolve('uplot/package.json'));
  return join(uplotDir, rel);
}

const fileCache = new Map<string, Buffer>();
async function readCached(path: string): Promise<Buffer | null> {
  const hit = fileCache.get(path);
  if (hit) return hit;
  try {
    const buf = await readFile(path);
    // the repo's files do not change under a running node, except while developing
    if (process.env.SVC_CONSOLE_NO_CACHE !== '1') fileCache.set(path, buf);
    return buf;
  } catch {
    return null;
  }
}

function asset(body: Buffer, name: string): RawReply {
  const ext = name.slice(name.lastIndexOf('.') + 1);
  return { raw: true, status: 200, headers: { ...CONSOLE_HEADERS, 'content-type': TYPES[ext] ?? 'application/octet-stream' }, body };
}

async function consolePage(): Promise<RawReply> {
  const html = await readCached(join(STATIC_DIR, 'index.html'));
  if (!html) throw new SvcError('NOT_FOUND', 'the console is not installed');
  return asset(html, 'index.html');
}

// ── mail tickets ──────────────────────────────────────────────────────────────────────────────

function ticketKey(app: App): Buffer {
  return createHmac('sha256', app.sealer.proofKey).update('svc-console-mail-view/v1').digest();
}

export function mintMailTicket(app: App, zid: string, mailId: string, nowSeconds: number): { ticket: string; expiresAt: number } {
  const e = Math.floor(nowSeconds) + MAIL_TICKET_SECONDS;
  const payload = Buffer.from(JSON.stringify({ z: zid, m: mailId, e })).toString('base64url');
  const mac = createHmac('sha256', ticketKey(app)).update(payload).digest('base64url');
  return { ticket: `${payload}.${mac}`, expiresAt: e };
}

/** The {zid, mailId} a ticket grants, or null when it is forged, malformed or expired. */
export function openMailTicket(app: App, ticket: string, nowSeconds: number): { zid: string; mailId: string } | null {
  const m = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
  if (!m) return null;
  // compare the text, not the decoded bytes: the 43rd base64url character carries two unused bits,
  // so four spellings decode to one MAC and only the canonical one may open the mail
  const want = Buffer.from(createHmac('sha256', ticketKey(app)).update(m[1]).digest('base64url'));
  const got = Buffer.from(m[2]);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  let p: any;
  try { p = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')); } catch { return null; }
  if (!p || typeof p.z !== 'string' || typeof p.m !== 'string' || typeof p.e !== 'number') return null;
  if (p.e < nowSeconds) return null;
  return { zid: p.z, mailId: p.m };
}

function mailFrameDocument(html: string): string {
  // links leave the frame (the console's frame-src would block a navigation inside it anyway)
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><base target="_blank"><meta name="referrer" content="no-referrer"></head><body>${html}</body></html>`;
}

const NOT_FOUND_MAIL = 'this mail link has expired or is not valid; open the mail again from the console';

// ── the solver list for the playground ───────────────────────────────────────────────────────

function solverCatalog(app: App) {
  return app.operations
    .filter((op) => op.tag === 'solvers' && op.method === 'POST' && op.path.startsWith('/api/svc/') && !op.hidden)
    .map((op) => ({
      name: op.path.slice('/api/svc/'.length),
      path: op.path,
      tool: op.tool ?? null,
      summary: op.summary,
      description: op.description ?? '',
      cost: op.cost ?? null,
      schema: jsonSchemaOf(op),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const staticName = z.string().max(80);

export const operations: Operation[] = [
  defineOp({
    id: 'console.page',
    method: 'GET',
    path: '/console',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'The machine console (HTML).',
    input: z.strictObject({}),
    handler: () => consolePage(),
  }),
  defineOp({
    id: 'console.page-slash',
    method: 'GET',
    path: '/console/',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'The machine console (HTML).',
    input: z.strictObject({}),
    handler: () => consolePage(),
  }),
  defineOp({
    id: 'console.static',
    method: 'GET',
    path: '/console/static/:file',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'A console module or stylesheet.',
    input: z.strictObject({ file: staticName }),
    async handler(input): Promise<RawReply> {
      const body = STATIC_NAME.test(input.file) ? await readCached(join(STATIC_DIR, input.file)) : null;
      if (!body) throw new SvcError('NOT_FOUND', `no console file ${input.file}`);
      return asset(body, input.file);
    },
  }),
  defineOp({
    id: 'console.vendor',
    method: 'GET',
    path: '/console/vendor/:file',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'A third-party file the console uses (uPlot), served from the installed package.',
    input: z.strictObject({ file: staticName }),
    async handler(input): Promise<RawReply> {
      const path = vendorPath(input.file);
      const body = path ? await readCached(path) : null;
      if (!body) throw new SvcError('NOT_FOUND', `no vendor file ${input.file}`);
      return asset(body, input.file);
    },
  }),
  defineOp({
    id: 'console.solvers',
    method: 'GET',
    path: '/console/solvers.json',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'The sealed solvers with the JSON Schema of each request body (the same schema as /openapi.json), for the playground.',
    input: z.strictObject({}),
    async handler(_i, ctx) {
      return { ok: true, solvers: solverCatalog(ctx.app) };
    },
  }),
  defineOp({
    id: 'console.mail-view',
    method: 'POST',
    path: '/console/mail-view',
    access: 'user',
    scope: 'mail:read',
    hidden: true,
    tag: 'console',
    summary: 'A short-lived URL of one of the caller\'s mails, rendered for the console\'s sandboxed mail frame.',
    input: z.strictObject({ id: z.string().max(200) }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      await getMail(ctx.app.db, zid, ctx.app.config.mailDomain, input.id); // 404 unless it is the caller's
      const now = ctx.app.clock.now();
      const { ticket, expiresAt } = mintMailTicket(ctx.app, zid, input.id, now);
      return { ok: true, url: `/console/mail-view/${ticket}`, expiresAt: new Date(expiresAt * 1000).toISOString() };
    },
  }),
  defineOp({
    id: 'console.mail-frame',
    method: 'GET',
    path: '/console/mail-view/:ticket',
    access: 'public',
    hidden: true,
    tag: 'console',
    summary: 'A sanitised mail as a script-less sandboxed document (for the console\'s mail frame).',
    input: z.strictObject({ ticket: z.string().max(500) }),
    async handler(input, ctx): Promise<RawReply> {
      const grant = openMailTicket(ctx.app, input.ticket, ctx.app.clock.now());
      if (!grant || !MAIL_ID_RE.test(grant.mailId)) throw new SvcError('NOT_FOUND', NOT_FOUND_MAIL);
      const mail = await getMail(ctx.app.db, grant.zid, ctx.app.config.mailDomain, grant.mailId);
      return {
        raw: true,
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': MAIL_FRAME_CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'SAMEORIGIN',
          'cross-origin-resource-policy': 'same-origin',
          'cache-control': 'private, no-store',
        },
        body: mailFrameDocument(String(mail.html ?? '')),
      };
    },
  }),
];
