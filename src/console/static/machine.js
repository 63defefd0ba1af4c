// The machine's own things: folders of receipts, contracts (with a fire button), published
// pages (with the public launcher) and the mailbox (sanitised mail in a sandboxed frame).
import { api } from './api.js';
import { h, $, clear, status, fmtNumber, fmtTime } from './dom.js';
import { guarded, go, session, setJsonDownload } from './shell.js';
import { verifyResponse } from './verifier.js';

// ── folders ──────────────────────────────────────────────────────────────────────────────────

export async function showFolders() {
  const out = await api('GET', '/api/folders');
  const list = clear($('fd-list'));
  if (!out.folders.length) list.append(h('li', { class: 'muted' }, 'No receipts yet: run a solver in the playground.'));
  for (const f of out.folders) {
    list.append(h('li', {}, h('button', { type: 'button', class: 'chip', 'data-folder': f.name, onclick: () => guarded(() => showFolder(f.name)) },
      `${f.name} `, h('span', { class: 'count' }, `${f.count}`))));
  }
  if (out.folders.length && !$('fd-receipts').dataset.folder) await showFolder(out.folders[0].name);
  else if ($('fd-receipts').dataset.folder) await showFolder($('fd-receipts').dataset.folder);
}

async function showFolder(name) {
  const out = await api('GET', `/api/folders/${encodeURIComponent(name)}/receipts`, { limit: 50 });
  const box = clear($('fd-receipts'));
  box.dataset.folder = name;
  for (const b of $('fd-list').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.folder === name));
  box.append(h('h2', {}, `Folder ${name}`));
  const ul = h('ul', { class: 'list receipts' });
  for (const r of out.receipts) {
    const save = h('a', { class: 'button secondary small', href: '#' }, 'Save');
    setJsonDownload(save, r, `${r.receipt?.id ?? 'receipt'}.json`);
    ul.append(h('li', { class: 'card receipt' },
      h('div', { class: 'line' }, h('strong', {}, r.solver ?? 'seal'), ' ',
        typeof r.value === 'number' ? `${fmtNumber(r.value)} ${r.unit ?? ''}` : ''),
      h('div', { class: 'muted' }, h('code', {}, r.receipt?.id ?? ''), ` · ${fmtTime(r.receipt?.issuedAt)} · chain #${r.receipt?.chain?.seq ?? '?'}`),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'small', onclick: () => { go('verify'); void verifyResponse(r); } }, 'Verify'),
        save)));
  }
  if (!out.receipts.length) ul.append(h('li', { class: 'muted' }, 'Empty.'));
  box.append(ul);
}

// ── contracts ────────────────────────────────────────────────────────────────────────────────

let templatesLoaded = false;

export async function showContracts() {
  if (!templatesLoaded) {
    const t = await api('GET', '/api/contracts/templates');
    const sel = clear($('ct-template'));
    for (const x of t.templates) sel.append(h('option', { value: x.id }, `${x.name} (${x.id})`));
    templatesLoaded = true;
  }
  const out = await api('GET', '/api/contracts', { limit: 100 });
  const box = clear($('ct-list'));
  if (!out.contracts.length) { box.append(h('p', { class: 'muted' }, 'No contracts yet.')); return; }
  const ul = h('ul', { class: 'list contracts' });
  for (const c of out.contracts) {
    const msg = h('p', { class: 'status', role: 'status', id: `ct-msg-${c.id}` });
    ul.append(h('li', { class: 'card contract', 'data-contract': c.id },
      h('div', { class: 'line' }, h('strong', {}, c.name), ' ',
        h('span', { class: `badge ${c.terminal ? 'muted-badge' : 'good'}`, 'data-state': c.state }, c.state)),
      h('div', { class: 'muted' }, h('code', {}, c.id), ` · fired ${c.fireCount}× · ${c.terminal ? 'terminal' : 'active'}`),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'small', disabled: c.terminal, 'aria-label': `Fire ${c.name}`, onclick: () => fire(c, msg) }, 'Fire')),
      msg));
  }
  box.append(ul);
}

async function fire(c, msg) {
  status(msg, 'Firing…');
  const out = await guarded(() => api('POST', `/api/contracts/${encodeURIComponent(c.id)}/fire`, {}), msg);
  if (!out) return;
  await guarded(() => showContracts());
  const again = $(`ct-msg-${c.id}`);
  if (out.fired === false) status(again, `Not fired: ${out.reason}`, 'bad');
  else status(again, `Fired ${out.transition?.name}: ${out.transition?.from} → ${out.transition?.to} · receipt ${out.receipt?.id}`, 'good');
}

// ── pages ────────────────────────────────────────────────────────────────────────────────────

const launcherPath = () => `/s/${encodeURIComponent(session.me.slug)}/`;

export async function showPages() {
  $('pages-launcher').href = launcherPath();
  const out = await api('GET', '/api/pages');
  const ul = clear($('pages-list'));
  if (!out.pages.length) ul.append(h('li', { class: 'muted' }, 'No pages published yet.'));
  for (const p of out.pages) {
    ul.append(h('li', {},
      h('a', { href: `${launcherPath()}p/${encodeURIComponent(p.pageSlug)}/`, target: '_blank', rel: 'noopener noreferrer' }, p.title),
      ' ', h('small', { class: 'muted' }, `/${p.pageSlug}/ · ${p.bytes} bytes · ${fmtTime(p.updatedAt)}`)));
  }
}

// ── mail ─────────────────────────────────────────────────────────────────────────────────────

export async function showMail() {
  $('mail-address').textContent = session.me.mailbox ?? '';
  const out = await api('GET', '/api/mail', { limit: 50 });
  const ul = clear($('mail-list'));
  if (!out.messages.length) ul.append(h('li', { class: 'muted' }, 'No mail yet.'));
  for (const m of out.messages) {
    ul.append(h('li', {}, h('button', { type: 'button', class: 'link', 'data-mail': m.id, onclick: () => guarded(() => openMail(m.id)) },
      h('strong', {}, m.subject)),
      ' ', h('small', { class: 'muted' }, `${m.from ?? ''} · ${fmtTime(m.date)}${m.warnings ? ` · ${m.warnings} warning(s)` : ''}`)));
  }
}

async function openMail(id) {
  const [m, view] = await Promise.all([
    api('GET', `/api/mail/${encodeURIComponent(id)}`),
    api('POST', '/console/mail-view', { id }),
  ]);
  $('mail-reader').hidden = false;
  $('mail-subject').textContent = m.subject;
  $('mail-meta').textContent = `From ${m.from ?? '(no name)'} · ${fmtTime(m.date)} · ${m.messageId ?? ''}`;
  const w = clear($('mail-warnings'));
  for (const x of m.warnings ?? []) w.append(h('li', {}, typeof x === 'string' ? x : x.message ?? JSON.stringify(x)));
  $('mail-text').textContent = m.text ?? '';
  // a fresh frame per mail: the sandboxed document from the ticket URL (see src/ops/console.ts)
  const old = $('mail-frame');
  const frame = old.cloneNode(false);
  frame.src = view.url;
  old.replaceWith(frame);
  $('mail-subject').setAttribute('tabindex', '-1');
  $('mail-subject').focus();
}

// ── forms ────────────────────────────────────────────────────────────────────────────────────

export function initMachineForms() {
  $('ct-deploy').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const st = $('ct-status');
    const out = await guarded(() => api('POST', '/api/contracts', { templateId: $('ct-template').value }), st);
    if (!out) return;
    status(st, `Deployed ${out.name} (${out.id}) in state ${out.state}.`, 'good');
    await guarded(() => showContracts());
  });
  $('pages-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const st = $('pages-status');
    const out = await guarded(() => api('POST', '/api/pages', {
      title: $('pages-title').value, pageSlug: $('pages-slug').value.trim(), html: $('pages-html').value,
    }), st);
    if (!out) return;
    status(st, `Published /${out.pageSlug}/${out.replaced ? ' (replaced)' : ''}.`, 'good');
    await guarded(() => showPages());
  });
  $('mail-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const st = $('mail-status');
    const out = await guarded(() => api('POST', '/api/mail', { subject: $('mail-subject-in').value, html: $('mail-html-in').value }), st);
    if (!out) return;
    status(st, `Delivered${out.warnings?.length ? ` with ${out.warnings.length} warning(s)` : ''}.`, 'good');
    await guarded(() => showMail());
  });
  $('mail-refresh').addEventListener('click', () => guarded(() => showMail()));
}
