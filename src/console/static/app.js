// The console's entry module: sign-in (the key goes to sessionStorage only, and is never shown
// after sign-in), the hash router between sections, the overview and the live observer feed.
import { api, storedKey, storeKey, forgetKey, followSse, ApiError } from './api.js';
import { session, flash, guarded } from './shell.js';
import { h, $, clear, facts, status, fmtTime, shortHash } from './dom.js';
import { showPlayground } from './playground.js';
import { initVerifier } from './verifier.js';
import { showFolders, showContracts, showPages, showMail, initMachineForms } from './machine.js';
import { showJobs } from './jobs.js';

const VIEWS = ['overview', 'playground', 'verify', 'observer', 'jobs', 'folders', 'contracts', 'pages', 'mail'];

// ── sign-in ──────────────────────────────────────────────────────────────────────────────────

function showSignIn(message = '') {
  session.me = null;
  $('who').hidden = true;
  $('nav').hidden = true;
  for (const v of VIEWS) $(`view-${v}`).hidden = true;
  $('view-signin').hidden = false;
  status($('signin-status'), message, message ? 'bad' : '');
}

async function signInWith(key) {
  const me = await api('GET', '/api/machines/me', undefined, { key });
  storeKey(key);
  await enterConsole(me);
}

function signOut(message = '') {
  forgetKey();
  session.observer?.abort();
  session.observer = null;
  clear($('obs-list'));
  showSignIn(message);
  if (location.hash) history.replaceState(null, '', location.pathname);
}

function initSignIn() {
  $('signin-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = $('signin-key');
    const key = input.value.trim();
    input.value = ''; // the key never stays in the page
    if (!key) return;
    status($('signin-status'), 'Checking your key…');
    try {
      await signInWith(key);
    } catch (e) {
      status($('signin-status'), e instanceof ApiError ? `The node refused that key: ${e.message}` : `Could not reach the node: ${e.message}`, 'bad');
    }
  });

  let pending = null; // the freshly minted key, held only until "continue"
  $('spinup-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const st = $('spinup-status');
    status(st, 'Spinning up…');
    try {
      const demo = await api('POST', '/api/demo-key/mint', {}, { key: null });
      const m = await api('POST', '/api/machines', { displayName: $('spinup-name').value.trim() || 'my machine' }, { key: demo.apiKey });
      pending = m.apiKey;
      $('spinup-slug').textContent = m.slug;
      $('spinup-key').textContent = m.apiKey;
      $('spinup-recovery').textContent = `equation: ${m.recovery.equation}\nsalt: ${m.recovery.salt}\nZID: ${m.zid}`;
      $('spinup-once').hidden = false;
      $('spinup-form').hidden = true;
      $('signin-form').hidden = true;
      status(st, '');
      $('spinup-once-h').focus();
    } catch (e) {
      status(st, e instanceof ApiError ? `${e.message} (${e.code ?? e.status})` : String(e.message), 'bad');
    }
  });
  $('spinup-copy').addEventListener('click', async () => {
    try { await navigator.clipboard.writeText(pending ?? ''); status($('spinup-status'), 'Key copied.'); } catch { status($('spinup-status'), 'Copy failed: select the key and copy it by hand.', 'bad'); }
  });
  $('spinup-continue').addEventListener('click', async () => {
    const key = pending;
    pending = null;
    // the one-time display is removed from the DOM, not just hidden
    $('spinup-key').textContent = '';
    $('spinup-recovery').textContent = '';
    $('spinup-once').hidden = true;
    $('spinup-form').hidden = false;
    $('signin-form').hidden = false;
    if (!key) return;
    try { await signInWith(key); } catch (e) { showSignIn(`Sign-in failed: ${e.message}`); }
  });
  $('sign-out').addEventListener('click', () => signOut('Signed out. The key was removed from this tab.'));
}

// ── the console ──────────────────────────────────────────────────────────────────────────────

async function enterConsole(me) {
  session.me = me;
  $('view-signin').hidden = true;
  $('who').hidden = false;
  $('who-name').textContent = `${me.displayName} · ${me.slug}`;
  $('nav').hidden = false;
  flash('');
  startObserver();
  await route(false);
}

async function refreshMe() {
  const me = await api('GET', '/api/machines/me');
  session.me = me;
  return me;
}

function showOverview() {
  const me = session.me;
  facts($('overview-facts'), [
    ['Machine', `${me.displayName} (${me.slug})`],
    ['ZID', me.zid],
    ['Signer key prefix', me.keyPrefix],
    ['Tier / state', `${me.tier} · ${me.state}`],
    ['Compute tokens today', `${me.tokens?.remaining} of ${me.tokens?.perDay}`],
    ['Chain', `${me.chain?.seq} entries · head ${shortHash(me.chain?.head, 16)}`],
    ['Mailbox', me.mailbox],
    ['Since', fmtTime(me.createdAt)],
  ]);
  $('overview-launcher').href = `/s/${encodeURIComponent(me.slug)}/`;
  return guarded(async () => {
    const me2 = await refreshMe();
    if (me2.chain?.seq !== me.chain?.seq || me2.tokens?.remaining !== me.tokens?.remaining) showOverview();
  });
}

const SHOW = {
  overview: showOverview,
  playground: showPlayground,
  verify: () => {},
  observer: () => {},
  jobs: showJobs,
  folders: showFolders,
  contracts: showContracts,
  pages: showPages,
  mail: showMail,
};

async function route(focus = true) {
  if (!session.me) return;
  const name = location.hash.slice(1);
  const view = VIEWS.includes(name) ? name : 'overview';
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  for (const a of $('nav').querySelectorAll('a')) {
    if (a.getAttribute('href') === `#${view}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const heading = $(`view-${view}`).querySelector('h1');
  if (focus && heading) { heading.setAttribute('tabindex', '-1'); heading.focus(); }
  flash('');
  const section = $(`view-${view}`);
  delete section.dataset.loaded;
  await guarded(() => SHOW[view]());
  section.dataset.loaded = 'true'; // loaded (or failed visibly); the tests wait for this
}

// ── observer ─────────────────────────────────────────────────────────────────────────────────

const seen = new Set();

function entryItem(e, live) {
  const ref = e.ref ? h('code', {}, e.ref) : null;
  return h('li', { class: live ? 'entry new' : 'entry', 'data-seq': e.seq ?? '' },
    h('span', { class: 'seq' }, e.seq !== undefined ? `#${e.seq}` : ''),
    h('span', { class: 'kind' }, e.kind),
    ref,
    h('time', { datetime: e.at }, fmtTime(e.at)),
    h('span', { class: 'hash', title: e.hash }, shortHash(e.hash)));
}

function addEntries(entries, live) {
  const list = $('obs-list');
  // entries arrive newest-first from GET /api/observer and one at a time from the stream
  const fresh = entries.filter((e) => {
    const id = e.hash ?? `${e.seq}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  fresh.sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
  const items = fresh.map((e) => entryItem(e, live));
  if (live) list.prepend(...items);
  else list.append(...items);
  while (list.children.length > 100) list.lastChild.remove();
}

function setMode(text, kind) {
  const el = $('obs-mode');
  el.textContent = text;
  el.className = `badge ${kind}`;
}

function startObserver() {
  session.observer?.abort();
  const ctl = new AbortController();
  session.observer = ctl;
  seen.clear();
  clear($('obs-list'));
  (async () => {
    await guarded(async () => {
      const first = await api('GET', '/api/observer', { limit: 30 }, { signal: ctl.signal });
      addEntries(first.entries ?? [], false);
    });
    const streamed = await followSse('/api/observer/stream', {
      signal: ctl.signal,
      onState: (s) => setMode(s === 'live' ? 'live (Server-Sent Events)' : s === 'reconnecting' ? 'reconnecting…' : 'stream unavailable', s === 'live' ? 'good' : 'warn'),
      onEvent: (ev) => {
        if (ev.event !== 'entry') return;
        try { addEntries([JSON.parse(ev.data)], true); } catch { /* a malformed event is skipped */ }
      },
    });
    if (streamed || ctl.signal.aborted) return;
    // a node without the stream: poll instead
    setMode('polling every 3 s', 'warn');
    while (!ctl.signal.aborted) {
      await new Promise((r) => setTimeout(r, 3000));
      if (ctl.signal.aborted) break;
      try {
        const page = await api('GET', '/api/observer', { limit: 30 }, { signal: ctl.signal });
        addEntries(page.entries ?? [], true);
      } catch { /* next round */ }
    }
  })();
}

// ── start ────────────────────────────────────────────────────────────────────────────────────

async function main() {
  session.onUnauthorized = signOut;
  initSignIn();
  initVerifier();
  initMachineForms();
  window.addEventListener('hashchange', () => route());
  const key = storedKey();
  if (!key) { showSignIn(); return; }
  try {
    const me = await api('GET', '/api/machines/me');
    await enterConsole(me);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) forgetKey();
    showSignIn(e instanceof ApiError ? `Your saved session ended: ${e.message}` : `Could not reach the node: ${e.message}`);
  }
}

main();
