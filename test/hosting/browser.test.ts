// A published page in a real headless Chromium: its scripts run and it renders, but it cannot
// read the node's cookies or storage, or call /api/* with credentials. Needs /usr/bin/chromium
// (CI installs it: apt-get update && apt-get install -y chromium); without it the tests are
// skipped with a loud message, and fail under CI=true (test/system-tools.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { needsChromium, launchChromium } from '../system-tools.ts';

const SKIP = needsChromium('the hosted-page browser tests');

let t: TestNode;
let base: string;
let browser: any;
before(async () => {
  if (SKIP) return;
  t = await testNode();
  base = await t.listen();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

// Everything a hostile page would try, with each outcome written into the page.
const HOSTILE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>probe</title></head>
<body>
<h1 id="hello">Hello from a published page</h1>
<pre id="out">pending</pre>
<script>
(async () => {
  const r = { origin: self.origin };
  const attempt = (name, fn) => { try { r[name] = { ok: true, value: String(fn()) }; } catch (e) { r[name] = { ok: false, error: e.name }; } };
  attempt('cookie', () => document.cookie);
  attempt('localStorage', () => localStorage.getItem('svc_secret'));
  attempt('sessionStorage', () => sessionStorage.getItem('svc_secret'));
  attempt('writeCookie', () => { document.cookie = 'planted=1; path=/'; return document.cookie; });
  attempt('indexedDB', () => indexedDB.open('svc'));
  attempt('parentCookie', () => window.parent.document.cookie);
  for (const [name, path] of [['fetchMe', '/api/machines/me'], ['fetchMail', '/api/mail'], ['fetchPages', '/api/pages']]) {
    try {
      const res = await fetch(path, { credentials: 'include' });
      r[name] = { ok: true, status: res.status, body: (await res.text()).slice(0, 200) };
    } catch (e) { r[name] = { ok: false, error: e.name }; }
  }
  try {
    const res = await fetch('/api/machines/me', { credentials: 'include', mode: 'no-cors' });
    r.noCors = { ok: true, type: res.type, status: res.status, body: await res.text() };
  } catch (e) { r.noCors = { ok: false, error: e.name }; }
  document.getElementById('out').textContent = JSON.stringify(r);
})();
</script>
</body></html>`;

test('a published page renders and runs its scripts, but cannot read cookies, storage or call /api/* with credentials', { skip: SKIP }, async () => {
  const m = await t.machine('browser owner');
  const pub = await t.call('POST', '/api/pages', { title: 'probe', html: HOSTILE_PAGE, pageSlug: 'probe' }, m.apiKey);
  assert.equal(pub.status, 200);

  const context = await browser.newContext();
  try {
    // the node's origin holds a cookie and storage values a hostile page would want
    await context.addCookies([{ name: 'svc_session', value: 'cookie-secret-123', url: base }]);
    const setup = await context.newPage();
    await setup.goto(`${base}/api/svc/pulse`);
    await setup.evaluate(() => {
      localStorage.setItem('svc_secret', 'local-secret-456');
      sessionStorage.setItem('svc_secret', 'session-secret-789');
    });
    assert.equal(await setup.evaluate(() => document.cookie), 'svc_session=cookie-secret-123');

    const page = await context.newPage();
    const seen: string[] = [];
    page.on('request', (req: any) => { seen.push(req.url()); });
    const res = await page.goto(`${base}/s/${m.slug}/p/probe/`);
    assert.equal(res.status(), 200);
    const csp = res.headers()['content-security-policy'];
    assert.match(csp, /sandbox/);
    assert.ok(!/allow-same-origin/.test(csp));

    await page.waitForFunction(() => document.getElementById('out')?.textContent !== 'pending', undefined, { timeout: 15000 });
    // the page itself renders
    assert.equal(await page.textContent('#hello'), 'Hello from a published page');
    const r = JSON.parse((await page.textContent('#out'))!);

    // an opaque origin, not the node's
    assert.equal(r.origin, 'null');
    // no cookie, no storage of the node's origin
    assert.equal(r.cookie.ok, false, JSON.stringify(r.cookie));
    assert.equal(r.cookie.error, 'SecurityError');
    assert.equal(r.localStorage.ok, false, JSON.stringify(r.localStorage));
    assert.equal(r.sessionStorage.ok, false, JSON.stringify(r.sessionStorage));
    assert.equal(r.writeCookie.ok, false);
    assert.equal(r.indexedDB.ok, false);
    // credentialed calls to /api/* fail (no CORS grant to the opaque origin); nothing readable comes back
    for (const k of ['fetchMe', 'fetchMail', 'fetchPages']) assert.equal(r[k].ok, false, `${k}: ${JSON.stringify(r[k])}`);
    assert.ok(r.noCors.ok === false || (r.noCors.type === 'opaque' && r.noCors.body === '' && r.noCors.status === 0), JSON.stringify(r.noCors));
    const dump = JSON.stringify(r);
    for (const secret of ['cookie-secret-123', 'local-secret-456', 'session-secret-789', m.apiKey, m.zid]) assert.ok(!dump.includes(secret), secret);
    assert.ok(seen.some((u) => u.endsWith('/s/' + m.slug + '/p/probe/')));

    // the node's own origin still has its cookie: the page planted nothing
    const after = await context.cookies(base);
    assert.deepEqual(after.map((c: any) => c.name), ['svc_session']);
  } finally {
    await context.close();
  }
});

test('the launcher runs no script at all', { skip: SKIP }, async () => {
  const m = await t.machine('launcher owner');
  await t.call('POST', '/api/pages', { title: '<img src=x onerror="document.title=\'pwned\'">', html: '<p>x</p>', pageSlug: 'x' }, m.apiKey);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const res = await page.goto(`${base}/s/${m.slug}/`);
    assert.equal(res.status(), 200);
    assert.notEqual(await page.title(), 'pwned');
    assert.equal(await page.locator('a[href="p/x/"]').count(), 1);
    assert.match(await page.textContent('body'), /<img src=x onerror=/);
  } finally {
    await context.close();
  }
});
