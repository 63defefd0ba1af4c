// Published pages (issue 8): svc_publish_page and the page management routes, plus the public
// hosting at /s/<machine>/p/<pageSlug>/ and the machine launcher /s/<machine>/ (raw HTML,
// hidden from the API surface). See src/hosting/pages.ts for how user HTML is contained.
import { z } from 'zod';
import { defineOp, type Operation, type OpContext, type RawReply } from './types.ts';
import { assertMachineCaller, rateLimit } from '../services/identity.ts';
import { SvcError } from '../core/errors.ts';
import {
  MAX_PAGE_BYTES, PAGE_SLUG_RE, PAGE_HEADERS, LAUNCHER_HEADERS, publishPage, deletePage, listPages, getOwnPage,
  publicPageHtml, launcherHtml, pageUrls,
} from '../hosting/pages.ts';
import { okWith, ChainLink } from './outputs.ts';

const pageRow = {
  pageSlug: z.string(), title: z.string(), bytes: z.number().int(), sha256: z.string(), createdAt: z.string(), updatedAt: z.string(),
};
const pageUrlFields = { url: z.string().describe('where the page is served'), launcherUrl: z.string().describe("the machine's launcher page") };

/** JSON escaping can grow html (quotes, newlines, \u escapes); the html itself is checked against
 * MAX_PAGE_BYTES in the handler (413). The body limit stays below 2 MB. */
export const PAGE_BODY_LIMIT = 3 * MAX_PAGE_BYTES;

export const PUBLISH_PER_HOUR = 300;

const pageSlug = z.string().regex(PAGE_SLUG_RE, "pageSlug is 1 to 64 characters of a-z, 0-9 and '-'");
const slugParam = z.string().max(200);
const noControl = /^[^\u0000-\u001f\u007f]*$/;

async function machineSlug(ctx: OpContext, zid: string): Promise<string> {
  const rows = await ctx.app.db.query<{ slug: string }>('SELECT slug FROM machines WHERE zid = $1', [zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'machine not found');
  return rows[0].slug;
}

/** the query of a redirected page URL, kept when it is plain printable ASCII (it goes into a
 * Location header) and at most 2 KiB; anything else is dropped, never echoed */
const withQuery = (q: string | undefined): string => (q && q.length <= 2048 && /^[\x21-\x7e]+$/.test(q) ? `?${q}` : '');
const redirect = (location: string): RawReply => ({ raw: true, status: 308, headers: { location, 'content-type': 'text/plain; charset=utf-8' }, body: `see ${location}\n` });

export const operations: Operation[] = [
  defineOp({
    id: 'pages.publish',
    tool: 'svc_publish_page',
    title: 'Publish a page',
    brief: 'Publish an HTML page at /s/<machine>/p/<slug>/ (served sandboxed); republishing a slug replaces it.',
    hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    toolOutput: z.object({ pageSlug: z.string(), url: z.string(), replaced: z.boolean() }),
    method: 'POST',
    path: '/api/pages',
    access: 'user',
    scope: 'pages:write',
    tag: 'pages',
    bodyLimit: PAGE_BODY_LIMIT,
    summary: "Publish an HTML page at /s/<machine>/p/<pageSlug>/ and add it to the machine launcher; republishing a slug replaces it.",
    description: 'title, html (at most 512 KB; larger is 413) and pageSlug (a-z, 0-9, \'-\'; default \'app\'). The page is served sandboxed: its scripts run, but in an opaque origin that cannot read the node\'s cookies or storage or call /api/* with credentials. Each publication is anchored on the machine\'s chain.',
    input: z.strictObject({
      title: z.string().trim().min(1).max(200).regex(noControl, 'no control characters'),
      html: z.string().min(1), // size: bodyLimit and the byte check below, both 413
      pageSlug: pageSlug.default('app'),
    }),
    output: okWith({ ...pageRow, ...pageUrlFields, replaced: z.boolean().describe('an earlier page with this slug was replaced'), chain: ChainLink }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const bytes = Buffer.byteLength(input.html, 'utf8');
      if (bytes > MAX_PAGE_BYTES) throw new SvcError('PAYLOAD_TOO_LARGE', `html is ${bytes} bytes; a page holds at most ${MAX_PAGE_BYTES} bytes (512 KB)`);
      if (input.html.includes('\u0000')) throw new SvcError('INVALID_INPUT', 'html must not contain NUL characters', { issues: [{ path: 'html', message: 'NUL character' }] });
      const slug = await machineSlug(ctx, zid);
      const out = await ctx.app.db.tx(async (q) => {
        await rateLimit(q, `pages:${zid}`, PUBLISH_PER_HOUR, 3600);
        return publishPage(q, zid, input);
      });
      return { ok: true, ...out.page, ...pageUrls(ctx.app.config.baseUrl, slug, out.page.pageSlug), replaced: out.replaced, chain: out.chain };
    },
  }),
  defineOp({
    id: 'pages.list',
    method: 'GET',
    path: '/api/pages',
    access: 'user',
    scope: 'pages:read',
    tag: 'pages',
    summary: "The caller's published pages (slug, title, size, URLs).",
    input: z.strictObject({}),
    output: okWith({ machine: z.string(), launcherUrl: z.string(), pages: z.array(z.object({ ...pageRow, url: z.string() })) }),
    async handler(_input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const slug = await machineSlug(ctx, zid);
      const pages = await listPages(ctx.app.db, zid);
      return { ok: true, machine: slug, launcherUrl: `${ctx.app.config.baseUrl}/s/${slug}/`, pages: pages.map((p) => ({ ...p, url: pageUrls(ctx.app.config.baseUrl, slug, p.pageSlug).url })) };
    },
  }),
  defineOp({
    id: 'pages.get',
    method: 'GET',
    path: '/api/pages/:slug',
    access: 'user',
    scope: 'pages:read',
    tag: 'pages',
    summary: 'One of the caller\'s pages with its html. Another machine\'s page is 404.',
    input: z.strictObject({ slug: slugParam }),
    output: okWith({ ...pageRow, html: z.string(), ...pageUrlFields }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const page = await getOwnPage(ctx.app.db, zid, input.slug);
      const slug = await machineSlug(ctx, zid);
      return { ok: true, ...page, ...pageUrls(ctx.app.config.baseUrl, slug, page.pageSlug) };
    },
  }),
  defineOp({
    id: 'pages.delete',
    method: 'DELETE',
    path: '/api/pages/:slug',
    access: 'user',
    scope: 'pages:write',
    tag: 'pages',
    summary: 'Unpublish one of the caller\'s pages. Another machine\'s page is 404.',
    input: z.strictObject({ slug: slugParam }),
    output: okWith({ pageSlug: z.string(), deleted: z.literal(true), chain: ChainLink }),
    async handler(input, ctx) {
      const { zid } = assertMachineCaller(ctx.caller);
      const out = await ctx.app.db.tx((q) => deletePage(q, zid, input.slug));
      return { ok: true, pageSlug: input.slug, deleted: true, chain: out.chain };
    },
  }),
  defineOp({
    id: 'pages.serve',
    produces: ['text/html'],
    method: 'GET',
    path: '/s/:machine/p/:pageSlug/',
    access: 'public',
    hidden: true,
    ignoreQuery: true,
    tag: 'pages',
    summary: 'A published page (user HTML, sandboxed by Content-Security-Policy).',
    input: z.strictObject({ machine: slugParam, pageSlug: slugParam }),
    async handler(input, ctx): Promise<RawReply> {
      const html = await publicPageHtml(ctx.app.db, input.machine, input.pageSlug);
      return { raw: true, status: 200, headers: { ...PAGE_HEADERS }, body: html };
    },
  }),
  defineOp({
    id: 'pages.serve-redirect',
    produces: ['text/plain'],
    successStatus: [308],
    method: 'GET',
    path: '/s/:machine/p/:pageSlug',
    access: 'public',
    hidden: true,
    ignoreQuery: true,
    tag: 'pages',
    summary: 'Redirects to the page URL with its trailing slash.',
    input: z.strictObject({ machine: slugParam, pageSlug: slugParam }),
    async handler(input, ctx): Promise<RawReply> {
      await publicPageHtml(ctx.app.db, input.machine, input.pageSlug);
      return redirect(`/s/${encodeURIComponent(input.machine)}/p/${encodeURIComponent(input.pageSlug)}/${withQuery(ctx.rawQuery)}`);
    },
  }),
  defineOp({
    id: 'pages.launcher',
    produces: ['text/html'],
    method: 'GET',
    path: '/s/:machine/',
    access: 'public',
    hidden: true,
    ignoreQuery: true,
    tag: 'pages',
    summary: "The machine launcher: an HTML list of the machine's pages.",
    input: z.strictObject({ machine: slugParam }),
    async handler(input, ctx): Promise<RawReply> {
      return { raw: true, status: 200, headers: { ...LAUNCHER_HEADERS }, body: await launcherHtml(ctx.app.db, input.machine) };
    },
  }),
  defineOp({
    id: 'pages.launcher-redirect',
    produces: ['text/plain'],
    successStatus: [308],
    method: 'GET',
    path: '/s/:machine',
    access: 'public',
    hidden: true,
    ignoreQuery: true,
    tag: 'pages',
    summary: 'Redirects to the launcher URL with its trailing slash.',
    input: z.strictObject({ machine: slugParam }),
    async handler(input, ctx): Promise<RawReply> {
      await launcherHtml(ctx.app.db, input.machine);
      return redirect(`/s/${encodeURIComponent(input.machine)}/${withQuery(ctx.rawQuery)}`);
    },
  }),
];
