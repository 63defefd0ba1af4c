// The console's Jobs section (src/console/static/jobs.js) in a real headless Chromium (Debian
// `chromium` driven by playwright-core): the machine's jobs with their progress, rising while they
// run without a reload; a job cancelled from its button; another machine's jobs are not listed.
// Needs /usr/bin/chromium: skipped loudly without it, a failure under CI=true.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { testNode, type TestNode } from '../helpers.ts';
import { needsChromium, launchChromium } from '../system-tools.ts';

const SKIP = needsChromium('the console jobs browser test');
const SHOTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
// svc_gauge, U(1) on 32×32 links, 12,000 Metropolis sweeps: ~7 s of a worker on a quiet machine,
// long enough for the bar to be seen rising on a fast one
const ARGS = { L: 32, sweeps: 12_000, therm: 0 };

let t: TestNode;
let base: string;
let browser: any;

before(async () => {
  if (SKIP) return;
  mkdirSync(SHOTS, { recursive: true });
  [t, browser] = await Promise.all([testNode(), launchChromium()]);
  base = await t.listen();
}, { timeout: 240_000 });
after(async () => { await browser?.close(); await t?.close(); });

test('the Jobs section lists the machine\'s jobs with rising progress; a job is cancelled from its button; another machine\'s jobs are absent', { timeout: 240_000, skip: SKIP }, async () => {
  const A = await t.machine('console jobs A');
  const B = await t.machine('console jobs B');
  const other = await t.call('POST', '/api/jobs', { tool: 'svc_quant', arguments: {} }, B.apiKey);
  assert.equal(other.status, 202, other.text);
  const first = await t.call('POST', '/api/jobs', { tool: 'svc_gauge', arguments: ARGS, budget: { seconds: 120 } }, A.apiKey);
  const second = await t.call('POST', '/api/jobs', { tool: 'svc_gauge', arguments: { ...ARGS, sweeps: 11_999 } }, A.apiKey);
  assert.equal(first.status, 202, first.text);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${base}/console`);
  await page.fill('#signin-key', A.apiKey);
  await page.click('#signin-submit');
  await page.waitForSelector('#view-overview:not([hidden])');
  await page.click('#nav a[href="#jobs"]');
  await page.waitForSelector('#view-jobs[data-loaded]:not([hidden])');
  await page.evaluate(() => { (window as any).__sameDocument = true; });
  const ids = await page.$$eval('#jobs-list li[data-job]', (els: Element[]) => els.map((e) => e.getAttribute('data-job')));
  assert.deepEqual(ids, [second.body.id, first.body.id], 'newest first, only this machine\'s');
  assert.ok(!ids.includes(other.body.id));
  // the first job's bar rises while the page stays
  const bar = `#jobs-list li[data-job="${first.body.id}"] progress`;
  await page.waitForFunction((sel: string) => Number(document.querySelector(sel)?.getAttribute('value') ?? 0) > 0, bar, { timeout: 120_000 });
  const early = Number(await page.getAttribute(bar, 'value'));
  await page.screenshot({ path: `${SHOTS}jobs-running.png`, fullPage: true });
  // a later reading while it still runs: the label read in the same check as the value
  const later = await page.waitForFunction(([sel, v]: [string, number]) => {
    const el = document.querySelector(sel);
    const x = Number(el?.getAttribute('value') ?? 0);
    return el && x > v && x < 100 ? el.getAttribute('aria-label') : null;
  }, [bar, early] as [string, number], { timeout: 120_000 });
  assert.match(String(await later.jsonValue()), /svc_gauge running \d+%/);
  // it ends succeeded, with its value and a Verify button; the second (queued behind it: one job
  // per machine at a time) is cancelled from its button
  await page.waitForSelector(`#jobs-list li[data-job="${first.body.id}"][data-status="succeeded"]`, { timeout: 120_000 });
  assert.match(await page.textContent(`#jobs-list li[data-job="${first.body.id}"]`), /succeeded · 0\.44\d*/);
  assert.ok(await page.$(`#jobs-list li[data-job="${first.body.id}"] button:has-text("Verify")`));
  await page.click(`#jobs-list li[data-job="${second.body.id}"] button[data-cancel]`);
  await page.waitForSelector(`#jobs-list li[data-job="${second.body.id}"][data-status="cancelled"]`, { timeout: 30_000 });
  assert.equal((await t.call('GET', `/api/jobs/${second.body.id}`, undefined, A.apiKey)).body.status, 'cancelled');
  assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, 'no reload');
  await page.screenshot({ path: `${SHOTS}jobs-ended.png`, fullPage: true });
});
