// The receipt verifier: paste, drop or choose a saved sealed response; the browser runs the checks
// of `svc verify` (verify.js verifySaved: strict I-JSON reading, digest, inclusion, the checkpoint's
// and the response's signatures against this node's JWKS, the consistency of its log) and, when a
// machine key is signed in, the node checks the seal proof (POST /api/svc/verify).
import { storedKey } from './api.js';
import { h, $, clear, fmtNumber, fmtTime } from './dom.js';
import { verifySaved, verdictWords } from './verify.js';

export function loadIntoVerifier(response) {
  $('vf-text').value = JSON.stringify(response, null, 2);
  $('vf-result').hidden = true;
}

/** Puts a sealed response in the verifier and checks it (the playground's and folders' "Verify"). */
export async function verifyResponse(response) {
  loadIntoVerifier(response);
  const res = $('vf-result');
  res.hidden = false;
  res.className = 'verdict';
  res.textContent = 'Checking the proof with the node and the signature against its keys…';
  await verifyText($('vf-text').value);
}

function show(verdict, receipt) {
  const el = clear($('vf-result'));
  el.hidden = false;
  const tone = verdict.exit === undefined ? (verdict.valid ? 'good' : 'bad') : verdictWords(verdict).tone;
  el.className = `verdict ${tone}`;
  el.append(
    h('p', { class: 'verdict-word', id: 'vf-verdict' }, tone === 'good' ? '✓ Valid' : tone === 'bad' ? '✗ Invalid' : '? Could not check'),
    h('p', { id: 'vf-reason' }, verdict.reason));
  if (verdict.checks) {
    const word = (k, v) => (v === true ? 'holds' : v === false ? 'FAILED' : verdict.couldNotRun.includes(k) ? 'could not run' : 'not asked');
    el.append(h('dl', { class: 'facts', id: 'vf-checks' }, Object.entries(verdict.checks).map(([k, v]) =>
      h('div', {}, h('dt', {}, k), h('dd', { 'data-check': k }, word(k, v))))));
  }
  if (receipt && typeof receipt === 'object') {
    const rc = receipt.receipt ?? {};
    const rows = [
      ['Receipt', rc.id], ['Solver', receipt.solver],
      ['Value', typeof receipt.value === 'number' ? `${fmtNumber(receipt.value)} ${receipt.unit ?? ''}` : null],
      ['Issued', fmtTime(rc.issuedAt)], ['Signer', receipt.keyPrefix],
    ].filter(([, v]) => v);
    if (rows.length) el.append(h('dl', { class: 'facts' }, rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))));
  }
}

/** The reason line: what held (the words the page has always used), or what failed / could not run. */
function reasonOf(rep) {
  if (rep.exit !== 0) return rep.reason ?? 'invalid';
  const c = rep.checks;
  const version = rep.parsed?.receipt?.version ?? (typeof rep.parsed?.value === 'number' ? 2 : 1);
  const notes = [];
  if (c.hmac) notes.push(`v${version} proof valid`);
  if (c.signature) notes.push(`Ed25519 signature valid (key ${rep.parsed.signature.kid})`);
  notes.push('digest, inclusion proof and checkpoint signature hold');
  if (c.consistency) notes.push(`the node's log (size ${rep.currentSize}) extends the receipt's`);
  if (c.hmac === null) notes.push('sign in with the machine key to have the node check the seal proof');
  if (rep.unsigned) notes.push(rep.unsigned);
  return notes.join('; ');
}

async function verifyText(text) {
  $('vf-check').disabled = true;
  try {
    const rep = await verifySaved(text, { url: location.origin, key: storedKey() ?? undefined });
    show({ ...rep, reason: reasonOf(rep) }, rep.parsed);
  } catch (e) {
    show({ valid: false, reason: `the check stopped: ${e.message}` });
  } finally {
    $('vf-check').disabled = false;
  }
}

async function readFileText(file) {
  if (file.size > 4 * 1024 * 1024) throw new Error('that file is larger than 4 MB: not a sealed response');
  return file.text();
}

export function initVerifier() {
  $('vf-form').addEventListener('submit', (ev) => { ev.preventDefault(); verifyText($('vf-text').value); });
  $('vf-file').addEventListener('change', async () => {
    const f = $('vf-file').files?.[0];
    if (!f) return;
    try { $('vf-text').value = await readFileText(f); await verifyText($('vf-text').value); } catch (e) { show({ valid: false, reason: e.message }); }
  });
  const drop = $('vf-drop');
  drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    const f = ev.dataTransfer?.files?.[0];
    try {
      const text = f ? await readFileText(f) : ev.dataTransfer?.getData('text/plain') ?? '';
      $('vf-text').value = text;
      await verifyText(text);
    } catch (e) { show({ valid: false, reason: e.message }); }
  });
}
