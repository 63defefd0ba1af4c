import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testNode, type TestNode } from '../helpers.ts';

let t: TestNode;
let a: Awaited<ReturnType<TestNode['machine']>>;
let b: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  t = await testNode();
  a = await t.machine('Page Owner');
  b = await t.machine('Other Machine');
});
after(async () => { await t.close(); });

test('svc_publish_page hosts the page at /s/<machine>/p/<pageSlug>/ (default slug app) and the launcher lists it', async () => {
  const r = await t.tool('svc_publish_page', { title: 'My <App>', html: '<!doctype html><h1 id="x">Hello page</h1>' }, a.apiKey);
  assert.equal(r.isError, false, JSON.stringify(r.body));
  assert.equal(r.body.pageSlug, 'app');
  assert.equal(r.body.replaced, false);
  assert.ok(r.body.url.endsWith(`/s/${a.slug}/p/app/`));
  const page = await t.call('GET', `/s/${a.slug}/p/app/`);
  assert.equal(page.status, 200);
  assert.equal(page.text, '<!doctype html><h1 id="x">Hello page</h1>');
  const launcher = await t.call('GET', `/s/${a.slug}/`);
  assert.equal(launcher.status, 200);
  assert.match(launcher.headers['content-type'], /^text\/html/);
  assert.ok(launcher.text.includes('href="p/app/"'));
  // titles are escaped in the launcher: the owner's HTML never runs there
  assert.ok(launcher.text.includes('My &lt;App&gt;') && !launcher.text.includes('<App>'));
  assert.match(launcher.headers['content-security-policy'], /default-src 'none'/);
  assert.ok(!/script-src/.test(launcher.headers['content-security-policy']));
});

test('a hosted page is served sandboxed: CSP sandbox with scripts but never same-origin, nosniff, no-referrer, no cookies', async () => {
  await t.call('POST', '/api/pages', { title: 'S', html: '<script>document.title="x"</script>', pageSlug: 'sandboxed' }, a.apiKey);
  const r = await t.call('GET', `/s/${a.slug}/p/sandboxed/`);
  assert.equal(r.status, 200);
  const csp: string = r.headers['content-security-policy'];
  assert.match(csp, /(^|;)\s*sandbox\b[^;]*\ballow-scripts\b/);
  assert.ok(!/allow-same-origin/.test(csp));
  assert.ok(!/allow-top-navigation/.test(csp));
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.equal(r.headers['referrer-policy'], 'no-referrer');
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(r.headers['set-cookie'], undefined);
  assert.equal(r.headers['access-control-allow-origin'], undefined);
  assert.equal(r.headers['access-control-allow-credentials'], undefined);
  // the owner's key never appears in what is served
  assert.ok(!r.text.includes(a.apiKey));
});

test('republishing a slug replaces the page; the list shows one entry with the new title', async () => {
  const first = await t.call('POST', '/api/pages', { title: 'v1', html: '<p>one</p>', pageSlug: 'notes' }, a.apiKey);
  assert.equal(first.status, 200);
  const second = await t.call('POST', '/api/pages', { title: 'v2', html: '<p>two</p>', pageSlug: 'notes' }, a.apiKey);
  assert.equal(second.status, 200);
  assert.equal(second.body.replaced, true);
  assert.equal(second.body.sha256, createHash('sha256').update('<p>two</p>').digest('hex'));
  assert.equal((await t.call('GET', `/s/${a.slug}/p/notes/`)).text, '<p>two</p>');
  const list = await t.call('GET', '/api/pages', undefined, a.apiKey);
  assert.equal(list.status, 200);
  const notes = list.body.pages.filter((p: any) => p.pageSlug === 'notes');
  assert.equal(notes.length, 1);
  assert.equal(notes[0].title, 'v2');
  const one = await t.call('GET', '/api/pages/notes', undefined, a.apiKey);
  assert.equal(one.body.html, '<p>two</p>');
});

test('DELETE /api/pages/:slug unpublishes; the public URL is then 404', async () => {
  await t.call('POST', '/api/pages', { title: 'gone', html: '<p>bye</p>', pageSlug: 'temp-1' }, a.apiKey);
  const d = await t.call('DELETE', '/api/pages/temp-1', undefined, a.apiKey);
  assert.equal(d.status, 200);
  assert.equal(d.body.deleted, true);
  assert.equal((await t.call('GET', `/s/${a.slug}/p/temp-1/`)).status, 404);
  assert.equal((await t.call('DELETE', '/api/pages/temp-1', undefined, a.apiKey)).status, 404);
});

test("one machine cannot read or delete another machine's pages through the management routes (404)", async () => {
  await t.call('POST', '/api/pages', { title: 'private', html: '<p>mine</p>', pageSlug: 'mine' }, a.apiKey);
  const get = await t.call('GET', '/api/pages/mine', undefined, b.apiKey);
  assert.equal(get.status, 404);
  assert.equal(get.body.code, 'NOT_FOUND');
  const del = await t.call('DELETE', '/api/pages/mine', undefined, b.apiKey);
  assert.equal(del.status, 404);
  const list = await t.call('GET', '/api/pages', undefined, b.apiKey);
  assert.deepEqual(list.body.pages, []);
  // b publishing the same slug creates b's own page, a's is untouched
  await t.call('POST', '/api/pages', { title: 'b', html: '<p>b</p>', pageSlug: 'mine' }, b.apiKey);
  assert.equal((await t.call('GET', `/s/${a.slug}/p/mine/`)).text, '<p>mine</p>');
  assert.equal((await t.call('GET', `/s/${b.slug}/p/mine/`)).text, '<p>b</p>');
  // and no key at all is 401
  assert.equal((await t.call('GET', '/api/pages')).status, 401);
});

test('pageSlug allows only a-z, 0-9 and "-" (1 to 64); bad slugs are 400', async () => {
  for (const bad of ['Upper', 'a_b', 'a/b', '../x', '', 'x'.repeat(65), 'é', 'a b']) {
    const r = await t.call('POST', '/api/pages', { title: 't', html: '<p>x</p>', pageSlug: bad }, a.apiKey);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.code, 'INVALID_INPUT');
  }
  const ok = await t.call('POST', '/api/pages', { title: 't', html: '<p>x</p>', pageSlug: 'a-0-z' }, a.apiKey);
  assert.equal(ok.status, 200);
  const missing = await t.call('POST', '/api/pages', { html: '<p>x</p>' }, a.apiKey);
  assert.equal(missing.status, 400);
});

test('a page up to 512 KB is accepted; larger is 413', async () => {
  const limit = 512 * 1024;
  const fits = '<p>' + 'a'.repeat(limit - 7) + '</p>';
  assert.equal(Buffer.byteLength(fits), limit);
  const ok = await t.call('POST', '/api/pages', { title: 'big', html: fits, pageSlug: 'big' }, a.apiKey);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.bytes, limit);
  const over = await t.call('POST', '/api/pages', { title: 'big', html: fits + 'x', pageSlug: 'big' }, a.apiKey);
  assert.equal(over.status, 413);
  assert.equal(over.body.code, 'PAYLOAD_TOO_LARGE');
  // multi-byte characters count as bytes: 200 000 three-byte characters is 600 000 bytes
  const wide = await t.call('POST', '/api/pages', { title: 'wide', html: '€'.repeat(200_000), pageSlug: 'wide' }, a.apiKey);
  assert.equal(wide.status, 413);
  // far larger bodies are stopped by the body limit, also 413
  const huge = await t.call('POST', '/api/pages', { title: 'huge', html: 'x'.repeat(3 * limit) }, a.apiKey);
  assert.equal(huge.status, 413);
  assert.equal((await t.call('GET', `/s/${a.slug}/p/big/`)).text.length, limit);
});

test('every publication and deletion is anchored on the machine chain and the chain still verifies', async () => {
  const m = await t.machine('chained');
  const p = await t.call('POST', '/api/pages', { title: 'c', html: '<p>c</p>', pageSlug: 'c' }, m.apiKey);
  await t.call('DELETE', '/api/pages/c', undefined, m.apiKey);
  const obs = await t.call('GET', '/api/observer?limit=10', undefined, m.apiKey);
  const kinds = obs.body.entries.map((e: any) => e.kind);
  assert.ok(kinds.includes('page.published') && kinds.includes('page.deleted'), kinds.join());
  assert.equal(obs.body.entries.find((e: any) => e.kind === 'page.published').seq, p.body.chain.seq);
  assert.equal((await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.valid, true);
});

test('unknown machines and pages are 404 error bodies; URLs without the trailing slash redirect', async () => {
  for (const path of ['/s/nobody-here/', '/s/nobody-here/p/app/', `/s/${a.slug}/p/never/`, `/s/${a.slug}/p/UPPER/`, '/s/%2e%2e/p/app/']) {
    const r = await t.call('GET', path);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.code, 'NOT_FOUND');
  }
  const r1 = await t.call('GET', `/s/${a.slug}`);
  assert.equal(r1.status, 308);
  assert.equal(r1.headers.location, `/s/${a.slug}/`);
  const r2 = await t.call('GET', `/s/${a.slug}/p/app`);
  assert.equal(r2.status, 308);
  assert.equal(r2.headers.location, `/s/${a.slug}/p/app/`);
});

test('the public hosting routes are not part of the API surface; the management routes are', async () => {
  const spec = (await t.call('GET', '/openapi.json')).body;
  assert.ok(!Object.keys(spec.paths).some((p) => p.startsWith('/s/')));
  assert.ok(spec.paths['/api/pages'].post);
  assert.ok(spec.paths['/api/pages/{slug}'].delete);
});

test('a query string on a hosted page or the launcher is ignored, not refused; redirects keep a plain one', async () => {
  await t.call('POST', '/api/pages', { title: 'Q', html: '<p id="q">query app</p>', pageSlug: 'q-app' }, a.apiKey);
  const page = await t.call('GET', `/s/${a.slug}/p/q-app/?utm_source=mail&q=${encodeURIComponent('a b')}`);
  assert.equal(page.status, 200, page.text);
  assert.equal(page.text, '<p id="q">query app</p>');
  assert.match(page.headers['content-security-policy'], /sandbox/);
  const launcher = await t.call('GET', `/s/${a.slug}/?ref=x`);
  assert.equal(launcher.status, 200);
  assert.ok(launcher.text.includes('href="p/q-app/"'));
  // the redirect to the trailing slash carries the query along, and only a plain one
  const red = await t.call('GET', `/s/${a.slug}/p/q-app?x=1&y=%20`);
  assert.equal(red.status, 308);
  assert.equal(red.headers.location, `/s/${a.slug}/p/q-app/?x=1&y=%20`);
  const red2 = await t.call('GET', `/s/${a.slug}?ref=launcher`);
  assert.equal(red2.headers.location, `/s/${a.slug}/?ref=launcher`);
  const odd = await t.call('GET', `/s/${a.slug}/p/q-app?${'a'.repeat(3000)}`);
  assert.equal(odd.status, 308);
  assert.equal(odd.headers.location, `/s/${a.slug}/p/q-app/`);
  // a query never reveals or reaches anything else: an unknown page is still a 404 body
  const missing = await t.call('GET', `/s/${a.slug}/p/nope/?q=1`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'NOT_FOUND');
});
