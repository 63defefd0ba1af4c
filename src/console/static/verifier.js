// The receipt verifier: paste, drop or choose a saved sealed response; the node checks its proof
// (POST /api/svc/verify) and the browser checks its Ed25519 signature against the node's JWKS.
import { api, ApiError } from './api.js';
import { h, $, clear, fmtNumber, fmtTime } from './dom.js';
import { parseSealed, proofRequestOf, checkSignature, verdictOf } from './verify.js';

let jwksCache = null;
async function jwks() {
  jwksCache ??= api('GET', '/.well-known/jwks.json', undefined, { key: null }).catch((e) => { jwksCache = null; throw e; });
  return jwksCache;
}

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
  el.className = `verdict ${verdict.valid ? 'good' : 'bad'}`;
  el.append(
    h('p', { class: 'verdict-word', id: 'vf-verdict' }, verdict.valid ? '✓ Valid' : '✗ Invalid'),
    h('p', { id: 'vf-reason' }, verdict.reason));
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

async function verifyText(text) {
  const parsed = parseSealed(text);
  if (parsed.error) { show({ valid: false, reason: parsed.error }); return; }
  const receipt = parsed.receipt;
  const req = proofRequestOf(receipt);
  if (req.error) { show({ valid: false, reason: req.error }, receipt); return; }
  $('vf-check').disabled = true;
  try {
    let proof;
    try {
      const out = await api('POST', '/api/svc/verify', req.request);
      proof = { valid: out.valid === true, version: out.version };
    } catch (e) {
      proof = { error: e instanceof ApiError ? `the node could not check it: ${e.message}` : `could not reach the node: ${e.message}` };
    }
    let sig;
    try { sig = await checkSignature(receipt, await jwks()); } catch (e) { sig = { status: 'unsupported', reason: `the node's keys could not be loaded: ${e.message}` }; }
    show(verdictOf(proof, sig), receipt);
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
