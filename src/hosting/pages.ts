// Published pages: a machine's own HTML, hosted at /s/<machine slug>/p/<pageSlug>/ and listed by
// the machine launcher at /s/<machine slug>/.
//
// User HTML is served from the node's own origin, so it is served in a way that cannot act as
// the service: the Content-Security-Policy `sandbox` directive (without allow-same-origin) gives
// the document an opaque origin, so it reads no cookies and no storage of the node's origin and
// any fetch it makes to /api/* is a cross-origin request from "null" that the node never allows
// (no CORS headers). The node itself never sets cookies (credentials are bearer keys), the
// response carries nosniff and no-referrer, and nothing of the owner's credentials is in it.
import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { appendToChain } from '../services/chain.ts';
import { SvcError } from '../core/errors.ts';
import { isZid } from '../core/ids.ts';

export const MAX_PAGE_BYTES = 512 * 1024;
export const PAGE_SLUG_RE = /^[a-z0-9-]{1,64}$/;
export const MAX_PAGES_PER_MACHINE = 200;

/** Headers of a hosted user page. Scripts may run; same-origin never. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), usb=(), payment=(), clipboard-read=()',
  'cache-control': 'no-cache',
};

/** Headers of the launcher (the node's own HTML): no script at all. */
export const LAUNCHER_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox allow-popups allow-top-navigation-by-user-activation",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));
}

export interface PageRow {
  pageSlug: string;
  title: string;
  bytes: number;
  sha256: string;
  createdAt: string;
  updatedAt: string;
}

export function pageUrls(baseUrl: string, machineSlug: string, pageSlug: string) {
  return { url: `${baseUrl}/s/${machineSlug}/p/${pageSlug}/`, launcherUrl: `${baseUrl}/s/${machineSlug}/` };
}

function rowOut(r: any): PageRow {
  return {
    pageSlug: r.page_slug, title: r.title, bytes: Number(r.bytes), sha256: r.sha256,
    createdAt: new Date(r.created_at).toISOString(), updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** Publishes (or replaces) a page and anchors it on the machine's chain. */
export async function publishPage(q: Queryable, zid: string, input: { title: string; html: string; pageSlug: string }) {
  const bytes = Buffer.byteLength(input.html, 'utf8');
  if (bytes > MAX_PAGE_BYTES) throw new SvcError('PAYLOAD_TOO_LARGE', `html is ${bytes} bytes; a page holds at most ${MAX_PAGE_BYTES} bytes (512 KB)`);
  const sha256 = createHash('sha256').update(input.html).digest('hex');
  // the chain append locks the machine row first, which also serialises publishes of one machine
  const [entry] = await appendToChain(q, zid, [{ kind: 'page.published', ref: input.pageSlug, payload: { pageSlug: input.pageSlug, title: input.title, sha256, bytes } }]);
  const existing = await q.query('SELECT 1 FROM pages WHERE zid = $1 AND page_slug = $2', [zid, input.pageSlug]);
  if (!existing.length) {
    const [{ n }] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM pages WHERE zid = $1', [zid]);
    if (Number(n) >= MAX_PAGES_PER_MACHINE) throw new SvcError('RATE_LIMITED', `a machine hosts at most ${MAX_PAGES_PER_MACHINE} pages; delete one first`);
  }
  const rows = await q.query<any>(
    `INSERT INTO pages (zid, page_slug, title, html, sha256, bytes) VALUES ($1,$2,$3,$4,$5,$6)
     ON CONFLICT (zid, page_slug) DO UPDATE SET title = EXCLUDED.title, html = EXCLUDED.html, sha256 = EXCLUDED.sha256,
       bytes = EXCLUDED.bytes, updated_at = now()
     RETURNING page_slug, title, sha256, bytes, created_at, updated_at`,
    [zid, input.pageSlug, input.title, input.html, sha256, bytes]);
  return { page: rowOut(rows[0]), replaced: existing.length > 0, chain: { seq: entry.seq, hash: entry.hash } };
}

export async function deletePage(q: Queryable, zid: string, pageSlug: string) {
  if (!PAGE_SLUG_RE.test(pageSlug)) throw new SvcError('NOT_FOUND', 'page not found');
  const rows = await q.query<any>('DELETE FROM pages WHERE zid = $1 AND page_slug = $2 RETURNING sha256', [zid, pageSlug]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'page not found');
  const [entry] = await appendToChain(q, zid, [{ kind: 'page.deleted', ref: pageSlug, payload: { pageSlug, sha256: rows[0].sha256 } }]);
  return { chain: { seq: entry.seq, hash: entry.hash } };
}

export async function listPages(q: Queryable, zid: string): Promise<PageRow[]> {
  const rows = await q.query<any>('SELECT page_slug, title, sha256, bytes, created_at, updated_at FROM pages WHERE zid = $1 ORDER BY page_slug', [zid]);
  return rows.map(rowOut);
}

export async function getOwnPage(q: Queryable, zid: string, pageSlug: string): Promise<PageRow & { html: string }> {
  if (!PAGE_SLUG_RE.test(pageSlug)) throw new SvcError('NOT_FOUND', 'page not found');
  const rows = await q.query<any>('SELECT page_slug, title, html, sha256, bytes, created_at, updated_at FROM pages WHERE zid = $1 AND page_slug = $2', [zid, pageSlug]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'page not found');
  return { ...rowOut(rows[0]), html: rows[0].html };
}

/** The machine a public /s/<machine>/ URL names: its slug (or its ZID). */
export async function machineBySlug(q: Queryable, machine: string): Promise<{ zid: string; slug: string; displayName: string } | null> {
  const lower = machine.toLowerCase();
  let rows: any[] = [];
  if (/^[a-z0-9-]{1,80}$/.test(machine)) rows = await q.query('SELECT zid, slug, display_name FROM machines WHERE slug = $1 AND state = \'active\'', [machine]);
  if (!rows.length && isZid(machine.toUpperCase()) && lower === machine) rows = await q.query('SELECT zid, slug, display_name FROM machines WHERE zid = $1 AND state = \'active\'', [machine.toUpperCase()]);
  if (!rows.length) return null;
  return { zid: rows[0].zid, slug: rows[0].slug, displayName: rows[0].display_name };
}

export async function publicPageHtml(q: Queryable, machine: string, pageSlug: string): Promise<string> {
  const m = await machineBySlug(q, machine);
  if (!m || !PAGE_SLUG_RE.test(pageSlug)) throw new SvcError('NOT_FOUND', 'page not found');
  const rows = await q.query<{ html: string }>('SELECT html FROM pages WHERE zid = $1 AND page_slug = $2', [m.zid, pageSlug]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'page not found');
  return rows[0].html;
}

export async function launcherHtml(q: Queryable, machine: string): Promise<string> {
  const m = await machineBySlug(q, machine);
  if (!m) throw new SvcError('NOT_FOUND', 'machine not found');
  const pages = await listPages(q, m.zid);
  const items = pages.map((p) => `<li><a href="p/${escapeHtml(p.pageSlug)}/">${escapeHtml(p.title)}</a> <small>/${escapeHtml(p.pageSlug)}/ · ${escapeHtml(p.updatedAt.slice(0, 10))}</small></li>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(m.displayName)} · pages</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}small{color:#777}li{margin:.4rem 0}</style>
</head><body>
<h1>${escapeHtml(m.displayName)}</h1>
<p><small>machine ${escapeHtml(m.slug)}</small></p>
${pages.length ? `<ul>\n${items}\n</ul>` : '<p>No pages published yet.</p>'}
</body></html>
`;
}
