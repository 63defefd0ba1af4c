// The API reference at /docs: Redoc (https://github.com/Redocly/redoc, the `redoc` package's
// standalone bundle, served from node_modules by this node) renders /openapi.json with a table of
// contents, search and the recorded examples. Nothing comes from anywhere else: no CDN, no web
// fonts (the page uses the system's), and the Content-Security-Policy lets the page connect to
// the node only. Redoc 2 rather than 3: Redoc 3 sends usage telemetry to redocly.com unless told
// not to, and needs a router; Redoc 2's bundle is one self-contained file.
// /docs/plain is the same reference as plain HTML, for a browser without JavaScript.
import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { App } from '../ops/types.ts';
import { renderReferencePage } from './openapi.ts';

/** Scripts and styles from the node only. Redoc styles itself with inline <style> elements
 * (styled-components) and runs its search index in a worker made from a blob: URL. */
export const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
  + "worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const HEADERS = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Redoc's options (https://redocly.com/docs/redoc/config): the 200 answers open, examples
 * expanded three levels, tags in the document's order. */
const INIT_JS = `// starts Redoc on the node's own OpenAPI document (served by the node: no outside request)
Redoc.init('/openapi.json', {
  expandResponses: '200',
  jsonSampleExpandLevel: 3,
  requiredPropsFirst: true,
  sortTagsAlphabetically: false,
  pathInMiddlePanel: true,
  hideDownloadButton: false,
  expandSingleSchemaField: true,
  menuToggle: true,
  theme: { typography: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' }, code: { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace' } } },
}, document.getElementById('redoc'));
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="icon" href="/console/static/icon.svg">
<style>body { margin: 0; padding: 0; } noscript p { font: 16px/1.5 system-ui, sans-serif; margin: 2rem; }</style>
</head>
<body>
<noscript><p>This reference needs JavaScript. Without it: <a href="/docs/plain">the plain reference</a>, or the machine-readable <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<div id="redoc"></div>
<script src="/docs/assets/redoc.standalone.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/** The one outside address the bundle loads by itself: the logo beside "API docs by Redocly" at
 * the foot of the menu. It is served as a blank image instead (the attribution stays). */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

let bundle: Promise<Buffer> | null = null;
function redocBundle(): Promise<Buffer> {
  bundle ??= readFile(join(dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js'), 'utf8')
    .then((js) => Buffer.from(js.split(REDOC_LOGO).join(BLANK_SVG)));
  return bundle;
}

export function registerDocs(fastify: FastifyInstance, app: App): void {
  fastify.get('/docs', async (_req, reply) => reply.headers({ ...HEADERS, 'cache-control': 'no-cache' }).type('text/html; charset=utf-8').send(PAGE));
  fastify.get('/docs/plain', async (_req, reply) => reply.headers(HEADERS).type('text/html; charset=utf-8').send(renderReferencePage(app)));
  fastify.get('/docs/assets/init.js', async (_req, reply) => reply.headers({ ...HEADERS, 'cache-control': 'no-cache' }).type('text/javascript; charset=utf-8').send(INIT_JS));
  fastify.get('/docs/assets/redoc.standalone.js', async (_req, reply) => reply
    .headers({ ...HEADERS, 'cache-control': 'public, max-age=86400' })
    .type('text/javascript; charset=utf-8')
    .send(await redocBundle()));
}
