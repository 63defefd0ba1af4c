// The solver playground: pick a solver, fill a form generated from its JSON Schema, run it
// (POST /api/svc/<name>, one compute token), and see the value, the precision against the
// solver's reference, a uPlot plot of its series and the sealed receipt.
import { api, ApiError } from './api.js';
import { h, $, clear, facts, status, fmtNumber, fmtTime, shortHash } from './dom.js';
import { fieldsOf, renderFields, readRaw, collectBody, fieldId } from './form.js';
import { drawSeries, destroyPlot } from './plot.js';
import { guarded, go, setJsonDownload } from './shell.js';
import { loadIntoVerifier } from './verifier.js';

let solvers = null;
let currentFields = [];
let lastResponse = null;

async function loadSolvers() {
  if (solvers) return solvers;
  const out = await api('GET', '/console/solvers.json', undefined, { key: null });
  solvers = out.solvers;
  const sel = $('pg-solver');
  clear(sel);
  for (const s of solvers) sel.append(h('option', { value: s.name }, s.name));
  const wanted = new URLSearchParams(location.search).get('solver');
  sel.value = solvers.some((s) => s.name === wanted) ? wanted : solvers.some((s) => s.name === 'heat') ? 'heat' : solvers[0]?.name ?? '';
  renderForm();
  return solvers;
}

function renderForm() {
  const s = solvers.find((x) => x.name === $('pg-solver').value);
  const own = $('pg-fields');
  const common = $('pg-common');
  clear(own);
  clear(common);
  if (!s) return;
  $('pg-summary').textContent = s.summary;
  currentFields = fieldsOf(s.schema);
  renderFields(own, currentFields.filter((f) => !f.common), 'pg-f', h);
  renderFields(common, currentFields.filter((f) => f.common), 'pg-f', h);
  status($('pg-status'), '');
}

function showFieldErrors(errors) {
  for (const el of $('pg-form').querySelectorAll('.field-error')) el.textContent = '';
  for (const el of $('pg-form').querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  let first = null;
  for (const { name, message } of errors) {
    const id = fieldId('pg-f', String(name).split('.')[0]);
    const input = $(id);
    const err = $(`${id}-error`);
    if (err) err.textContent = message;
    if (input) { input.setAttribute('aria-invalid', 'true'); first ??= input; }
  }
  if (first?.closest('details')) first.closest('details').open = true;
  first?.focus();
}

async function run(ev) {
  ev.preventDefault();
  const s = solvers?.find((x) => x.name === $('pg-solver').value);
  if (!s) return;
  const raw = { ...readRaw($('pg-fields')), ...readRaw($('pg-common')) };
  const { body, errors } = collectBody(currentFields, raw);
  showFieldErrors(errors);
  if (errors.length) { status($('pg-status'), `Fix ${errors.length} field(s) first.`, 'bad'); return; }
  const btn = $('pg-run');
  btn.disabled = true;
  status($('pg-status'), `Running ${s.name}…`);
  try {
    const out = await api('POST', s.path, body);
    status($('pg-status'), `Sealed: receipt ${out.receipt?.id ?? ''}`, 'good');
    await showResult(out);
  } catch (e) {
    if (e instanceof ApiError && Array.isArray(e.body?.issues)) showFieldErrors(e.body.issues.map((i) => ({ name: i.path || '', message: i.message })));
    await guarded(() => { throw e; }, $('pg-status'));
  } finally {
    btn.disabled = false;
  }
}

async function showResult(r) {
  lastResponse = r;
  $('pg-result').hidden = false;
  facts($('pg-facts'), [
    ['Solver', `${r.solver} · ${r.domain}`],
    ['Method', r.method],
    ['Value', r.value === null || r.value === undefined ? '—' : `${fmtNumber(r.value)} ${r.unit ?? ''}`.trim()],
    ['Stability', r.stability ? `${r.stability.name ?? 'number'} = ${fmtNumber(r.stability.number)} (limit ${fmtNumber(r.stability.limit)}) · ${r.stability.stable ? 'stable' : 'unstable'}` : ''],
    ['Seed', r.seed],
    ['Clamped', r.clamped ? Object.entries(r.clamped).map(([k, v]) => `${k}: ${v.given} → ${v.used}`).join(', ') : ''],
  ]);
  const p = r.precision;
  const prec = clear($('pg-precision'));
  if (p) {
    prec.append(
      h('h3', {}, 'Precision'),
      h('p', { class: p.withinBound ? 'badge good' : 'badge bad' }, p.withinBound ? 'within bound' : 'outside bound'),
      h('p', {}, `Error ${fmtNumber(p.errorPct)} % against the reference (bound ${fmtNumber(p.boundPct)} %).`),
      h('p', { class: 'muted' }, `Reference: ${p.reference}${typeof p.referenceValue === 'number' ? ` = ${fmtNumber(p.referenceValue)}` : ''}`));
  }
  const fig = $('pg-plot-fig');
  fig.hidden = false; // visible first, so the plot takes the figure's width
  const caption = await drawSeries($('pg-plot'), r.series, `${r.solver}: ${r.method}`);
  fig.hidden = !caption;
  $('pg-plot-caption').textContent = caption ?? '';
  $('pg-plot').setAttribute('aria-label', caption ? `Plot of ${caption}` : '');
  if (!caption) destroyPlot();
  const rc = r.receipt ?? {};
  facts($('pg-receipt'), [
    ['Receipt', rc.id],
    ['Version', rc.version !== undefined ? `v${rc.version}${r.signature ? ' + Ed25519 signature' : ''}` : ''],
    ['Issued', fmtTime(rc.issuedAt)],
    ['Folder', rc.folder],
    ['Chain', rc.chain ? `#${rc.chain.seq} · ${shortHash(rc.chain.hash, 16)}` : ''],
    ['Proof', shortHash(r.svcProof, 24) + '…'],
    ['Signer', r.keyPrefix],
    ['Tokens', r.tokens ? `cost ${r.tokens.cost}, ${r.tokens.remaining} left` : ''],
  ]);
  setJsonDownload($('pg-download'), r, `${rc.id ?? 'receipt'}.json`);
  $('pg-json').textContent = JSON.stringify(r, null, 2);
}

let wired = false;
export async function showPlayground() {
  if (!wired) {
    wired = true;
    $('pg-solver').addEventListener('change', renderForm);
    $('pg-form').addEventListener('submit', run);
    $('pg-form').addEventListener('reset', (ev) => { ev.preventDefault(); renderForm(); });
    $('pg-verify').addEventListener('click', () => {
      if (!lastResponse) return;
      loadIntoVerifier(lastResponse);
      go('verify');
    });
  }
  await loadSolvers();
}
