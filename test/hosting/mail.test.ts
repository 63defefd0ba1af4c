import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { testNode, type TestNode } from '../helpers.ts';
import { quotedPrintable, encodeWords, unstructuredHeader, rfc5322Date } from '../../src/hosting/mime.ts';

const DOMAIN = 'mail.test.example';
let t: TestNode;
let a: Awaited<ReturnType<TestNode['machine']>>;
let b: Awaited<ReturnType<TestNode['machine']>>;
before(async () => {
  t = await testNode({ env: { SVC_MAIL_DOMAIN: DOMAIN } });
  a = await t.machine('mail owner');
  b = await t.machine('mail neighbour');
});
after(async () => { await t.close(); });

const GOOD = `<table role="presentation" width="600" style="width:600px;max-width:600px;border-collapse:collapse">
<tr><td style="padding:16px;font-family:Arial,sans-serif;color:#333333">
<h1 style="font-size:20px;margin:0 0 8px 0">Weekly report</h1>
<p style="margin:0">All solvers converged. <a href="https://example.org/report" style="color:#0066cc">Open the report</a>.</p>
<img src="https://example.org/chart.png" width="560" alt="chart" style="display:block">
</td></tr></table>`;

async function send(key: string, body: Record<string, unknown>) {
  return t.call('POST', '/api/mail', body, key);
}

test("svc_mail_html delivers to the caller's own mailbox <zid>@<SVC_MAIL_DOMAIN> and nowhere else", async () => {
  const r = await t.tool('svc_mail_html', { subject: 'Report', html: GOOD, from: 'Solver Bot' }, a.apiKey);
  assert.equal(r.isError, false, JSON.stringify(r.body));
  assert.equal(r.body.mailbox, `${a.zid.toLowerCase()}@${DOMAIN}`);
  assert.deepEqual(r.body.warnings, []);
  assert.deepEqual(r.body.removed, { tags: [], attributes: [], urls: [], styles: [] });
  const list = await t.call('GET', '/api/mail', undefined, a.apiKey);
  assert.equal(list.status, 200);
  assert.equal(list.body.mailbox, r.body.mailbox);
  assert.equal(list.body.messages[0].id, r.body.id);
  // there is no recipient field: a "to" is an unknown field
  const to = await send(a.apiKey, { subject: 'x', html: '<p>x</p>', to: `${b.zid.toLowerCase()}@${DOMAIN}` });
  assert.equal(to.status, 400);
  assert.equal((await t.call('GET', '/api/mail', undefined, b.apiKey)).body.messages.length, 0);
});

test("one machine cannot read another's mail (404), nor its raw form; no key is 401", async () => {
  const sent = await send(a.apiKey, { subject: 'private', html: '<p>secret</p>' });
  assert.equal(sent.status, 200);
  for (const path of [`/api/mail/${sent.body.id}`, `/api/mail/${sent.body.id}/raw`]) {
    const r = await t.call('GET', path, undefined, b.apiKey);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.code, 'NOT_FOUND');
    assert.ok(!r.text.includes('secret'));
    assert.equal((await t.call('GET', path)).status, 401);
  }
  assert.ok(!(await t.call('GET', '/api/mail?limit=100', undefined, b.apiKey)).body.messages.some((m: any) => m.id === sent.body.id));
  assert.equal((await t.call('GET', '/api/mail/m_00000000000000000000000000', undefined, a.apiKey)).status, 404);
  assert.equal((await t.call('GET', '/api/mail/not-an-id', undefined, a.apiKey)).status, 404);
});

test('each breach of the email rules is reported in warnings', async () => {
  const html = `<style>p{color:red}</style><link rel="stylesheet" href="https://x.example/a.css">
<div style="display:flex"><p>no tables here</p>
<a href="http://plain.example/">http link</a> <a href="/relative">relative</a> <a href="#top">fragment</a>
<a href="mailto:me@example.org">mail is fine</a> <a href="https://ok.example/">https is fine</a>
<img src="http://plain.example/i.png"> <div style="width: 700px">wide</div> <div style="max-width:640px">wide</div>
<div width="900">wide attr</div> <div style="width:100%">percent is fine</div> <div style="float:left">float</div></div>`;
  const r = await send(a.apiKey, { subject: 'rules', html });
  assert.equal(r.status, 200);
  const by = (rule: string) => r.body.warnings.filter((w: any) => w.rule === rule);
  assert.equal(by('inline-css').length, 2);
  assert.equal(by('https-links').length, 4); // http link, relative, fragment, http image
  assert.equal(by('max-width').length, 3);
  assert.ok(by('table-layout').length >= 3); // no table, display:flex, float
  assert.ok(by('https-links').every((w: any) => !/mailto|ok\.example/.test(w.message)));
  // a message that follows the rules has none
  const good = await send(a.apiKey, { subject: 'good', html: GOOD });
  assert.deepEqual(good.body.warnings, []);
});

test('text is generated from the html when omitted; a given text is kept', async () => {
  const gen = await send(a.apiKey, { subject: 'gen', html: GOOD });
  const m = await t.call('GET', `/api/mail/${gen.body.id}`, undefined, a.apiKey);
  assert.equal(m.body.text.includes('Weekly report') && m.body.text.includes('All solvers converged.'), true, m.body.text);
  assert.ok(!/<[a-z]/i.test(m.body.text));
  assert.ok(m.body.text.includes('https://example.org/report'));
  assert.equal(gen.body.textGenerated, true);
  const own = await send(a.apiKey, { subject: 'own', html: '<p>x</p>', text: 'my own\ntext' });
  assert.equal(own.body.textGenerated, false);
  assert.equal((await t.call('GET', `/api/mail/${own.body.id}`, undefined, a.apiKey)).body.text, 'my own\ntext');
});

test('subject and from are single lines: CR/LF (header injection) is refused', async () => {
  for (const body of [
    { subject: 'hi\r\nBcc: victim@example.org', html: '<p>x</p>' },
    { subject: 'hi', html: '<p>x</p>', from: 'Bot\r\nX-Evil: 1' },
    { subject: '', html: '<p>x</p>' },
    { subject: 'x', html: '' },
    { html: '<p>x</p>' },
  ]) {
    const r = await send(a.apiKey, body);
    assert.equal(r.status, 400, JSON.stringify(body));
  }
});

test('mail html up to 512 KB; larger is 413', async () => {
  const limit = 512 * 1024;
  const big = '<p>' + 'a'.repeat(limit - 7) + '</p>';
  assert.equal((await send(a.apiKey, { subject: 'big', html: big })).status, 200);
  const over = await send(a.apiKey, { subject: 'big', html: big + 'x' });
  assert.equal(over.status, 413);
  assert.equal(over.body.code, 'PAYLOAD_TOO_LARGE');
  assert.equal((await send(a.apiKey, { subject: 'big', html: '<p>x</p>', text: 'y'.repeat(limit + 1) })).status, 413);
});

/** Structural RFC 5322 / RFC 2045 checks a strict reader would make. */
function checkMessageShape(raw: string) {
  assert.ok(!/\r(?!\n)|(?<!\r)\n/.test(raw), 'every line ends in CRLF');
  assert.ok(raw.endsWith('\r\n'));
  const lines = raw.split('\r\n');
  for (const l of lines) {
    assert.ok(l.length <= 998, `line of ${l.length}`);
    assert.ok(/^[\x20-\x7e\t]*$/.test(l), `8-bit or control data in: ${JSON.stringify(l.slice(0, 60))}`);
  }
  const headEnd = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, headEnd);
  const unfolded = head.replace(/\r\n[ \t]/g, ' ');
  const fields = new Map<string, string>();
  for (const f of unfolded.split('\r\n')) {
    const m = /^([\x21-\x39\x3b-\x7e]+):\s?(.*)$/.exec(f);
    assert.ok(m, `header field: ${f}`);
    assert.ok(!fields.has(m[1].toLowerCase()), `duplicate ${m[1]}`);
    fields.set(m[1].toLowerCase(), m[2]);
  }
  for (const h of ['date', 'from', 'to', 'subject', 'message-id', 'mime-version', 'content-type']) assert.ok(fields.has(h), `missing ${h}`);
  for (const l of head.split('\r\n')) assert.ok(l.length <= 78, `header line over 78: ${l}`);
  assert.match(fields.get('date')!, /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
  assert.match(fields.get('message-id')!, /^<[^<>@\s]+@[^<>@\s]+>$/);
  assert.equal(fields.get('mime-version'), '1.0');
  const ct = /^multipart\/alternative; boundary="([^"]+)"$/.exec(fields.get('content-type')!);
  assert.ok(ct, fields.get('content-type'));
  const boundary = ct[1];
  assert.ok(boundary.length <= 70);
  const delims = lines.filter((l) => l === `--${boundary}`);
  assert.equal(delims.length, 2);
  assert.equal(lines.filter((l) => l === `--${boundary}--`).length, 1);
  assert.ok(raw.indexOf('Content-Type: text/plain; charset=utf-8') < raw.indexOf('Content-Type: text/html; charset=utf-8'));
  assert.equal((raw.match(/Content-Transfer-Encoding: quoted-printable/g) ?? []).length, 2);
  return fields;
}

test('GET /api/mail/:id/raw is a standards-conformant RFC 5322 multipart/alternative message that a real parser reads back', async () => {
  const subject = 'Résumé of the run: Δt = 0.01 s, all ✓ ' + 'long subject words '.repeat(8) + '— done 🚀';
  const text = 'Line one\nLine two with trailing spaces   \nmath: a = b\n' + 'x'.repeat(2000) + '\nünïcödé ✓\n.leading dot\nFrom the start';
  const sent = await send(a.apiKey, { subject, html: GOOD + '<p>Ünïcødé — ✓ = “quotes”</p>', text, from: 'Zoë “Solver” Bot' });
  assert.equal(sent.status, 200);
  const r = await t.call('GET', `/api/mail/${sent.body.id}/raw`, undefined, a.apiKey);
  assert.equal(r.status, 200);
  assert.match(r.headers['content-type'], /^text\/plain; charset=utf-8/);
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  const raw = r.text;
  const fields = checkMessageShape(raw);
  assert.match(fields.get('subject')!, /^(=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?= ?)+$/);
  for (const w of fields.get('subject')!.split(' ')) assert.ok(w.length <= 75);
  assert.equal(fields.get('to'), `<${a.zid.toLowerCase()}@${DOMAIN}>`);

  const stored = (await t.call('GET', `/api/mail/${sent.body.id}`, undefined, a.apiKey)).body;
  const parsed = await PostalMime.parse(raw);
  assert.equal(parsed.subject, subject);
  assert.equal(parsed.from?.name, 'Zoë “Solver” Bot');
  assert.equal(parsed.from?.address, `${a.zid.toLowerCase()}@${DOMAIN}`);
  assert.equal(parsed.to?.[0].address, `${a.zid.toLowerCase()}@${DOMAIN}`);
  assert.equal(parsed.messageId, stored.messageId);
  assert.equal(new Date(parsed.date!).toISOString(), stored.date);
  assert.equal(parsed.text?.replace(/\r\n/g, '\n').replace(/\n$/, ''), text);
  assert.equal(parsed.html?.replace(/\r\n/g, '\n').replace(/\n$/, ''), stored.html);
  assert.equal(parsed.attachments.length, 0);
});

test('a plain ASCII message and a display name needing quotes also round-trip', async () => {
  const sent = await send(a.apiKey, { subject: 'Plain subject', html: '<p>a=b</p>', from: 'Bot, Solver (v2)' });
  const raw = (await t.call('GET', `/api/mail/${sent.body.id}/raw`, undefined, a.apiKey)).text;
  const fields = checkMessageShape(raw);
  assert.equal(fields.get('subject'), 'Plain subject');
  assert.equal(fields.get('from'), `"Bot, Solver (v2)" <${a.zid.toLowerCase()}@${DOMAIN}>`);
  const parsed = await PostalMime.parse(raw);
  assert.equal(parsed.from?.name, 'Bot, Solver (v2)');
  assert.equal(parsed.html?.trim(), '<p>a=b</p>');
});

test('quoted-printable and encoded-word encoders follow RFC 2045 §6.7 and RFC 2047', () => {
  const qp = quotedPrintable('a=b \nend\t\n' + 'é'.repeat(100) + '\n' + 'z'.repeat(300));
  for (const l of qp.split('\r\n')) assert.ok(l.length <= 76, l);
  assert.ok(qp.startsWith('a=3Db=20\r\nend=09\r\n=C3=A9'));
  assert.ok(!/=(?![0-9A-F]{2}|$)/m.test(qp.replace(/\r\n/g, '\n')));
  // soft breaks never split an =XX escape
  assert.ok(qp.split('\r\n').every((l) => !/=[0-9A-F]?$/.test(l.replace(/=$/, '')) || /=[0-9A-F]{2}$/.test(l)));
  for (const w of encodeWords('日本語のテキスト'.repeat(20))) {
    assert.ok(w.length <= 75);
    const inner = Buffer.from(w.slice(10, -2), 'base64').toString('utf8');
    assert.ok(!inner.includes('\ufffd'), 'a character was split across encoded-words');
  }
  const folded = unstructuredHeader('Subject', 'word '.repeat(40).trim());
  for (const l of folded.split('\r\n')) assert.ok(l.length <= 78);
  assert.equal(folded.replace(/\r\n /g, ' '), 'Subject: ' + 'word '.repeat(40).trim());
  assert.equal(rfc5322Date(new Date('2025-03-04T09:05:07Z')), 'Tue, 04 Mar 2025 09:05:07 +0000');
});

test('every delivery is anchored on the machine chain', async () => {
  const m = await t.machine('mail chain');
  const sent = await send(m.apiKey, { subject: 'c', html: '<p>c</p>' });
  const obs = await t.call('GET', '/api/observer?limit=5', undefined, m.apiKey);
  const e = obs.body.entries.find((x: any) => x.kind === 'mail.delivered');
  assert.ok(e);
  assert.equal(e.ref, sent.body.id);
  assert.equal(e.seq, sent.body.chain.seq);
  assert.equal((await t.call('GET', '/api/chain/verify', undefined, m.apiKey)).body.valid, true);
});
