// The machine's jobs (issue 27, docs/jobs.md): every job of this machine, newest first, with its
// status and the solver's progress, refreshed while any is queued or running and the section is
// shown; a running or queued job can be cancelled, a succeeded one verified. The same records are
// MCP tasks (docs/mcp.md).
import { api } from './api.js';
import { h, $, clear, status, fmtNumber, fmtTime } from './dom.js';
import { guarded, go } from './shell.js';
import { verifyResponse } from './verifier.js';

const OPEN = ['queued', 'running'];
const BADGE = { succeeded: 'good', failed: 'bad', cancelled: 'warn' };
/** how often the list is read again while a job is queued or running */
export const JOBS_REFRESH_MS = 1000;
let timer = null;

function percent(j) {
  if (j.status === 'succeeded') return 100;
  return j.progress ? Math.floor(Math.max(0, Math.min(1, j.progress.fraction)) * 100) : 0;
}

function jobItem(j) {
  const pct = percent(j);
  const label = `${j.tool} ${j.status}${j.status === 'running' ? ` ${pct}%` : ''}`;
  const body = j.response?.body;
  const outcome = j.status === 'succeeded' && typeof body?.value === 'number'
    ? `${fmtNumber(body.value)} ${body.unit ?? ''}`
    : (j.status === 'failed' && body?.code ? `${body.code}: ${body.error ?? ''}` : '');
  const actions = h('div', { class: 'row' });
  if (OPEN.includes(j.status)) {
    actions.append(h('button', { type: 'button', class: 'secondary small', 'data-cancel': j.id,
      onclick: () => guarded(async () => { await api('DELETE', `/api/jobs/${encodeURIComponent(j.id)}`); await showJobs(); }, $('jobs-status')) }, 'Cancel'));
  }
  if (j.status === 'succeeded' && body?.receipt) {
    actions.append(h('button', { type: 'button', class: 'small', onclick: () => { go('verify'); void verifyResponse(body); } }, 'Verify'));
  }
  return h('li', { class: 'card job', 'data-job': j.id, 'data-status': j.status },
    h('div', { class: 'line' }, h('strong', {}, j.tool), ' ', h('span', { class: `badge ${BADGE[j.status] ?? ''}` }, j.status), outcome ? ` · ${outcome}` : ''),
    h('div', { class: 'row' },
      h('progress', { max: '100', value: String(pct), 'aria-label': label }),
      h('span', { class: 'pct' }, `${pct}%`),
      j.progress?.message && j.status === 'running' ? h('span', { class: 'muted' }, j.progress.message) : null),
    h('div', { class: 'muted' }, h('code', {}, j.id),
      ` · submitted ${fmtTime(j.createdAt)}`,
      j.finishedAt ? ` · ended ${fmtTime(j.finishedAt)}` : '',
      ` · tokens ${j.tokens.charged ?? '–'} of ${j.tokens.reserved} reserved`,
      j.attempts > 1 ? ` · ${j.attempts} attempts` : ''),
    actions);
}

/** Shows the machine's jobs (GET /api/jobs) and keeps them current while any is open. */
export async function showJobs() {
  clearTimeout(timer);
  const out = await api('GET', '/api/jobs', { limit: 50 });
  const list = clear($('jobs-list'));
  if (!out.jobs.length) list.append(h('li', { class: 'muted' }, 'No jobs yet: submit one with POST /api/jobs, `svc submit` or Client.submit.'));
  for (const j of out.jobs) list.append(jobItem(j));
  const open = out.jobs.filter((j) => OPEN.includes(j.status)).length;
  status($('jobs-status'), open ? `${open} job${open === 1 ? '' : 's'} queued or running; updated ${new Date().toLocaleTimeString()}` : `${out.jobs.length} job${out.jobs.length === 1 ? '' : 's'}`);
  if (open) {
    timer = setTimeout(() => {
      if (!$('view-jobs').hidden) void guarded(showJobs, $('jobs-status'));
    }, JOBS_REFRESH_MS);
  }
}
