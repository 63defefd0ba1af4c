// Mail HTML on arrival: sanitised with sanitize-html against an email allowlist, then checked
// against the spec's email rules (table layout, inline CSS, absolute https links, at most
// 600 px wide). Sanitisation decides what is delivered; the rule check only reports.
//
// Allowlist, not blocklist: only the tags, attributes, URL schemes and CSS properties listed here
// survive. Everything else (script, style blocks, iframe/frame, object/embed/applet, form
// controls, base, meta, link, svg, math, template, event-handler attributes, srcdoc, formaction,
// xlink:href, class/id) is dropped; raw-text containers are dropped with their content.
// URLs are checked after the HTML parser has decoded entities, and again here with every
// control, whitespace and invisible character removed (browsers ignore them inside a scheme),
// so `&#x6A;avascript:`, `java&#9;script:`, `JaVaScRiPt:` and ` \n javascript:` all fail.
// CSS: only listed properties whose value matches a conservative pattern (no `url(`,
// `expression(`, backslash escapes, comments, `@import`, `behavior`, `-moz-binding`).
import sanitizeHtml from 'sanitize-html';
import { convert as htmlToText } from 'html-to-text';

export const MAX_EMAIL_WIDTH_PX = 600;

export interface MailWarning {
  rule: 'table-layout' | 'inline-css' | 'https-links' | 'max-width';
  message: string;
}

export interface SanitizedMail {
  html: string;
  /** what the sanitizer stripped: tag names, attribute names (as "tag@attr"), refused URLs */
  removed: { tags: string[]; attributes: string[]; urls: string[]; styles: string[] };
  warnings: MailWarning[];
}

const ALLOWED_TAGS = [
  'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'caption', 'colgroup', 'col',
  'p', 'div', 'span', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'img',
  'b', 'i', 'u', 's', 'strong', 'em', 'small', 'big', 'sub', 'sup', 'mark', 'abbr', 'del', 'ins',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'blockquote', 'pre', 'code', 'center', 'font', 'address', 'q', 'cite',
];

const COMMON_ATTRS = ['style', 'align', 'valign', 'width', 'height', 'bgcolor', 'dir', 'lang', 'title', 'role'];
const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  '*': COMMON_ATTRS,
  a: ['href', 'name', 'target', 'rel'],
  img: ['src', 'alt', 'border'],
  table: ['border', 'cellpadding', 'cellspacing', 'summary'],
  td: ['colspan', 'rowspan', 'nowrap'],
  th: ['colspan', 'rowspan', 'nowrap', 'scope'],
  col: ['span'],
  colgroup: ['span'],
  font: ['color', 'face', 'size'],
  ol: ['start', 'type'],
  ul: ['type'],
  li: ['value'],
  blockquote: ['cite'],
  q: ['cite'],
  del: ['cite', 'datetime'],
  ins: ['cite', 'datetime'],
};

export const ALLOWED_SCHEMES = ['https', 'http', 'mailto', 'tel'];
const URL_ATTRS = new Set(['href', 'src', 'cite']);

/** Tags whose content is not text worth keeping (or is a raw-text container): dropped whole. */
const NON_TEXT_TAGS = ['script', 'style', 'textarea', 'option', 'select', 'xmp', 'noscript', 'noembed', 'noframes', 'plaintext',
  'title', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'svg', 'math', 'template', 'head', 'canvas', 'audio', 'video', 'button', 'datalist'];

// A CSS value: words, numbers, colours, commas, quotes, parentheses for rgb()/calc(), and !important;
// never a URL, an expression, an escape, a comment or an at-rule.
const SAFE_CSS_VALUE = /^(?!.*(?:expression|javascript|vbscript|url\s*\(|image-set|@import|behavio(?:u)?r|binding|\\|\/\*|\*\/))[-#%.,'"\w\s()/!+]{0,200}$/i;
const CSS_PROPERTIES = [
  'color', 'background-color', 'background', 'font', 'font-family', 'font-size', 'font-weight', 'font-style', 'font-variant',
  'line-height', 'letter-spacing', 'word-spacing', 'text-align', 'text-decoration', 'text-transform', 'text-indent',
  'vertical-align', 'white-space', 'word-break', 'word-wrap', 'overflow-wrap', 'direction',
  'width', 'min-width', 'max-width', 'height', 'min-height', 'max-height',
  'margin', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'padding', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border', 'border-top', 'border-right', 'border-bottom', 'border-left', 'border-color', 'border-style', 'border-width',
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-radius', 'border-collapse', 'border-spacing', 'table-layout', 'list-style', 'list-style-type', 'list-style-position',
];
const ALLOWED_STYLES: Record<string, Record<string, RegExp[]>> = {
  '*': {
    ...Object.fromEntries(CSS_PROPERTIES.map((p) => [p, [SAFE_CSS_VALUE]])),
    display: [/^(?:block|inline|inline-block|none|table|table-row|table-cell|table-row-group|table-header-group|table-footer-group|list-item)$/i],
  },
};

/** Removes what browsers ignore inside a URL scheme: C0 controls, space, DEL, C1 controls and
 * invisible formatting characters. */
export function cleanUrl(value: string): string {
  return value.replace(/[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g, '');
}

/** The URL's scheme (lower case) or null for a relative URL. */
export function urlScheme(value: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(cleanUrl(value));
  return m ? m[1].toLowerCase() : null;
}

export function isAllowedUrl(value: string): boolean {
  const cleaned = cleanUrl(value);
  if (/^[/\\]{2}/.test(cleaned)) return false; // protocol-relative
  if (/&(?:#|colon|tab|newline)/i.test(cleaned)) return false; // an entity left after decoding: a double-encoding attempt
  const scheme = urlScheme(cleaned);
  if (scheme === null) return !/^[^/?#]*:/.test(cleaned); // anything with a colon before the path is a scheme to us
  return ALLOWED_SCHEMES.includes(scheme);
}

const lc = (s: string) => s.toLowerCase();

export function sanitizeMailHtml(input: string): SanitizedMail {
  const removedTags = new Set<string>();
  const removedAttrs = new Set<string>();
  const removedUrls: string[] = [];
  const removedStyles = new Set<string>();
  const raw: { name: string; attribs: Record<string, string> }[] = [];

  const html = sanitizeHtml(input, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedSchemes: ALLOWED_SCHEMES,
    allowedSchemesByTag: { img: ['https', 'http'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    allowedStyles: ALLOWED_STYLES,
    parseStyleAttributes: true,
    disallowedTagsMode: 'discard',
    nonTextTags: NON_TEXT_TAGS,
    allowVulnerableTags: false,
    enforceHtmlBoundary: false,
    parser: { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
    onOpenTag(name: string, attribs: Record<string, string>) {
      raw.push({ name: lc(name), attribs: { ...attribs } });
      const tag = lc(name);
      if (!ALLOWED_TAGS.includes(tag)) { removedTags.add(tag); return; }
      for (const a of Object.keys(attribs)) {
        const an = lc(a);
        if (!COMMON_ATTRS.includes(an) && !(ALLOWED_ATTRIBUTES[tag] ?? []).includes(an)) removedAttrs.add(`${tag}@${an}`);
      }
    },
    transformTags: {
      '*': (tagName: string, attribs: Record<string, string>) => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(attribs)) {
          if (URL_ATTRS.has(lc(k))) {
            const value = String(v ?? '');
            const okScheme = lc(tagName) === 'img' ? ['https', 'http'].includes(urlScheme(value) ?? 'https') : true;
            if (!isAllowedUrl(value) || !okScheme) { removedUrls.push(value.slice(0, 120)); continue; }
            out[k] = value.trim();
            continue;
          }
          if (lc(k) === 'style') {
            for (const decl of String(v ?? '').split(';')) {
              const i = decl.indexOf(':');
              if (i < 0) continue;
              const prop = lc(decl.slice(0, i).trim());
              const value = decl.slice(i + 1).trim();
              const rules = ALLOWED_STYLES['*'][prop];
              if (!rules || !rules.some((r) => r.test(value))) removedStyles.add(prop || '(invalid)');
            }
          }
          out[k] = v;
        }
        if (lc(tagName) === 'a' && out.href) {
          out.target = '_blank';
          out.rel = 'noopener noreferrer';
        }
        return { tagName, attribs: out };
      },
    },
  } as sanitizeHtml.IOptions & { onOpenTag: (name: string, attribs: Record<string, string>) => void });

  return {
    html,
    removed: { tags: [...removedTags].sort(), attributes: [...removedAttrs].sort(), urls: removedUrls.slice(0, 50), styles: [...removedStyles].sort() },
    warnings: checkEmailRules(raw),
  };
}

/** Parses html without changing it and returns every opening tag with its (decoded) attributes. */
export function openTags(html: string): { name: string; attribs: Record<string, string> }[] {
  const tags: { name: string; attribs: Record<string, string> }[] = [];
  sanitizeHtml(html, {
    allowedTags: false,
    allowedAttributes: false,
    parseStyleAttributes: false,
    allowVulnerableTags: true,
    parser: { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
    onOpenTag(name: string, attribs: Record<string, string>) { tags.push({ name: lc(name), attribs: { ...attribs } }); },
  } as sanitizeHtml.IOptions & { onOpenTag: (name: string, attribs: Record<string, string>) => void });
  return tags;
}

function pxOf(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*(?:!important)?\s*$/i.exec(value);
  return m ? Number(m[1]) : null;
}

function styleDecls(style: string): [string, string][] {
  return style.split(';').map((d) => {
    const i = d.indexOf(':');
    return i < 0 ? null : [lc(d.slice(0, i).trim()), d.slice(i + 1).trim()] as [string, string];
  }).filter((x): x is [string, string] => !!x && !!x[0]);
}

const MAX_WARNINGS = 100;
const short = (s: string) => (s.length > 80 ? s.slice(0, 77) + '...' : s);

/** The spec's email rules, checked on what the author wrote: each breach is one warning. */
export function checkEmailRules(tags: { name: string; attribs: Record<string, string> }[]): MailWarning[] {
  const w: MailWarning[] = [];
  const add = (rule: MailWarning['rule'], message: string) => { if (w.length < MAX_WARNINGS) w.push({ rule, message }); };
  const hasTable = tags.some((t) => t.name === 'table');
  const blocks = tags.filter((t) => ['div', 'p', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'ul', 'ol', 'h1', 'h2', 'h3', 'img'].includes(t.name)).length;
  if (!hasTable && blocks > 0) add('table-layout', 'layout does not use tables: email clients need <table> layout');
  for (const t of tags) {
    if (t.name === 'style') add('inline-css', '<style> block: email CSS must be inline style attributes (the block was removed)');
    if (t.name === 'link' && /stylesheet/i.test(t.attribs.rel ?? '')) add('inline-css', `external stylesheet ${short(t.attribs.href ?? '')}: email CSS must be inline (removed)`);
    if (t.name === 'a' && t.attribs.href !== undefined) {
      const href = t.attribs.href;
      const scheme = urlScheme(href);
      if (scheme !== 'https' && scheme !== 'mailto' && scheme !== 'tel') add('https-links', `link "${short(href)}" is not an absolute https URL`);
    }
    if (t.name === 'img' && t.attribs.src !== undefined && urlScheme(t.attribs.src) !== 'https') {
      add('https-links', `image "${short(t.attribs.src)}" is not an absolute https URL`);
    }
    const widthAttr = t.attribs.width;
    if (widthAttr !== undefined) {
      const px = pxOf(widthAttr);
      if (px !== null && px > MAX_EMAIL_WIDTH_PX) add('max-width', `<${t.name} width="${short(widthAttr)}"> is wider than ${MAX_EMAIL_WIDTH_PX} px`);
    }
    if (t.attribs.style) {
      for (const [prop, value] of styleDecls(t.attribs.style)) {
        if (prop === 'width' || prop === 'min-width' || prop === 'max-width') {
          const px = pxOf(value);
          if (px !== null && px > MAX_EMAIL_WIDTH_PX) add('max-width', `<${t.name} style="${prop}: ${short(value)}"> is wider than ${MAX_EMAIL_WIDTH_PX} px`);
        }
        if (prop === 'display' && /\b(?:flex|grid|inline-flex|inline-grid)\b/i.test(value)) add('table-layout', `<${t.name}> uses display: ${short(value)}; email layout must use tables (removed)`);
        if (prop === 'float' || prop === 'position') add('table-layout', `<${t.name}> uses ${prop}: ${short(value)}; email layout must use tables (removed)`);
      }
    }
  }
  return w;
}

/** Plain-text alternative generated from the (sanitised) html. */
export function textFromHtml(html: string): string {
  return htmlToText(html, {
    wordwrap: 78,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => ({ selector: h, options: { uppercase: false } })),
      // email tables are layout: each cell reads as a block of its own
      ...['table', 'tr', 'td', 'th'].map((sel) => ({ selector: sel, format: 'block' })),
    ],
  }).trim();
}
