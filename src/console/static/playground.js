// The solver playground: pick a solver, fill a form generated from its JSON Schema, run it
// (POST /api/svc/<name>, one compute token), and see the value, the precision against the
// solver's reference, a uPlot plot of its series and the sealed receipt.
import { api, ApiError } from './api.js';
import { h, $, clear, facts, status, fmtNumber, fmtTime, shortHash } from './dom.js';
import { fieldsOf, renderFields, readRaw, collectBody, fieldId } from './form.js';
import { drawChart, drawPhase, destroyPlots } from './plot.js';
import { guarded, go, setJsonDownload } from './shell.js';
import { verifyResponse } from './verifier.js';
import { valueLine, headlineOf, chartsOf, phasesOf, FORM_PRESETS } from './present.js';

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
  for (const [name, value] of Object.entries(FORM_PRESETS[s.name] ?? {})) {
    const input = $(fieldId('pg-f', name));
    if (input && input.value === '') input.value = String(value);
  }
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
  // the figures that carry the answer first, each with what it means
  const head = clear($('pg-headline'));
  const v = valueLine(r);
  const rows = [...headlineOf(r)];
  // the sealed value, with what it is and what its unit means (unless a headline row is it)
  if (!rows.some((x) => /sealed value/.test(x.label))) rows.push({ label: v.label, text: v.text, note: v.note });
  for (const row of rows) {
    head.append(h('div', {}, h('dt', {}, row.label), h('dd', {}, h('span', { class: 'figure' }, row.text), row.note ? h('small', {}, row.note) : null)));
  }
  facts($('pg-facts'), [
    ['Solver', `${r.solver} · ${r.domain}`],
    ['Method', r.method],
    ['Stability', r.stability ? `${r.stability.name ?? 'number'} = ${fmtNumber(r.stability.number)} (limit ${fmtNumber(r.stability.limit)}) · ${r.stability.stable ? 'stable' : 'unstable'}` : ''],
    ['Seed', r.seed],
    ['Clamped', r.clamped ? Object.entries(r.clamped).map(([k, c]) => `${k}: ${c.given} → ${c.used}`).join(', ') : ''],
  ]);
  const p = r.precision;
  const prec = clear($('pg-precision'));
  if (p) {
    prec.append(
      h('h3', {}, 'Precision'),
      h('p', { class: p.withinBound ? 'badge good' : 'badge bad' }, p.withinBound ? 'within bound' : 'outside bound'),
      // what the error is (issue 29; docs/glossary.md "error and bound"): a distance to an independent
      // reference, or the method's own estimate; a Monte Carlo standard error is given apart
      h('p', {}, errorIsEstimate(p)
        ? `The method's own error estimate: ${fmtNumber(p.errorPct)} % (bound ${fmtNumber(p.boundPct)} %).`
        : `Distance to the reference: ${fmtNumber(p.errorPct)} % (bound ${fmtNumber(p.boundPct)} %).`),
      ...(typeof r.result?.stdErr === 'number' ? [h('p', {}, `Monte Carlo standard error: ${fmtNumber(r.result.stdErr)}${r.unit ? ` ${r.unit}` : ''}${r.value ? ` (${fmtNumber((100 * r.result.stdErr) / Math.abs(r.value))} % of the value)` : ''} (given apart: it is not the error above).`)] : []),
      h('p', { class: 'muted' }, `Reference: ${p.reference}${typeof p.referenceValue === 'number' ? ` = ${fmtNumber(p.referenceValue)}` : ''}`));
  }
  await drawPlots(r);
  const rc = r.receipt ?? {};
  facts($('pg-receipt'), [
    ['Receipt', rc.id],
    ['Version', rc.version !== undefined ? `v${rc.version}${r.signature ? ' + Ed25519 signature' : ''}` : ''],
    ['Issued', fmtTime(rc.issuedAt)],
    ['Folder', rc.folder],
    ['Chain', rc.chain ? `#${rc.chain.seq} · ${shortHash(rc.chain.hash, 16)}` : ''],
    ['Log', rc.log ? `entry ${rc.log.index} of ${rc.log.treeSize}` : ''],
    ['Proof', shortHash(r.svcProof, 24) + '…'],
    ['Signer', r.keyPrefix],
    ['Tokens', r.tokens ? `cost ${r.tokens.cost}, ${r.tokens.remaining} left` : ''],
  ]);
  setJsonDownload($('pg-download'), r, `${rc.id ?? 'receipt'}.json`);
  $('pg-json').textContent = JSON.stringify(r, null, 2);
}

/** The first chart in #pg-plot (its caption in #pg-plot-caption), the others and the phase
 * portraits below it, each in a figure with its caption. */
async function drawPlots(r) {
  destroyPlots();
  const more = clear($('pg-more-plots'));
  const charts = chartsOf(r);
  const fig = $('pg-plot-fig');
  fig.hidden = !charts.length; // visible first, so the plot takes the figure's width
  let caption = null;
  if (charts.length) caption = await drawChart($('pg-plot'), r.series, { ...charts[0], title: charts[0].title || `${r.solver}: ${r.method}` });
  fig.hidden = !caption;
  $('pg-plot-caption').textContent = caption ?? '';
  $('pg-plot').setAttribute('aria-label', caption ? `Plot of ${caption}` : '');
  const extra = [...charts.slice(1).map((c) => ({ kind: 'chart', c })), ...phasesOf(r).map((c) => ({ kind: 'phase', c }))];
  for (const [i, { kind, c }] of extra.entries()) {
    const plot = h('div', { id: `pg-plot-${i + 2}`, class: kind === 'phase' ? 'phase-plot' : 'chart-plot', role: 'img' });
    const cap = h('figcaption', {});
    const f = h('figure', { class: 'plot', 'data-kind': kind }, plot, cap);
    more.append(f);
    const text = kind === 'phase' ? drawPhase(plot, r.series, c) : await drawChart(plot, r.series, c);
    cap.textContent = text ?? '';
    plot.setAttribute('aria-label', text ? `Plot of ${text}` : '');
    if (!text) f.remove();
  }
}
let wired = false;
export async function showPlayground() {
  if (!wired) {
    wired = true;
    $('pg-solver').addEventListener('change', renderForm);
    $('pg-form').addEventListener('submit', run);
    $('pg-form').addEventListener('reset', (ev) => { ev.preventDefault(); renderForm(); });
    // verifies it: the verifier opens with the receipt and its verdict
    $('pg-verify').addEventListener('click', async () => {
      if (!lastResponse) return;
      go('verify');
      await verifyResponse(lastResponse);
    });
  }
  await loadSolvers();
}

/** Whether precision.errorPct is the method's own estimate (a re-solve, a Richardson twin, a
 * certificate) rather than a distance to an independent reference (as src/mcp/tools.ts errorKind). */
function errorIsEstimate(p) {
  if (p.certificate) return true;
  return /estimat|richardson|twin|re-?run|re-?solve|halved|doubled|certificate|residual/i.test(p.reference ?? '');
}
