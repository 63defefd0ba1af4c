// An example request for every public operation that takes input (issue 29 item 5), by operation
// id. `request` is the operation's whole input: its path parameters, its query parameters and its
// JSON body fields together (OpenAPI shows the path and query values as each parameter's
// `example` and the rest as the request body's example); for a text or byte body, `body` is the
// body itself. The solvers' examples are recorded runs (solver-examples.json) and one request per
// kind of user input (solver-input-examples.ts); POST /api/jobs declares its own.
//
// Ids in these examples (rcpt_…, ct_…, ch_…) have their real form but name things of the node the
// examples were written on: test/api/openapi-examples.test.ts validates every example against its
// operation's input schema and calls it on a test node, with those ids replaced by ones it has just
// created (a receipt, a contract, a channel, …).

export interface OperationExample { summary: string; request: Record<string, unknown> }

const RECEIPT = 'rcpt_01M89XZAKJKGBQVEW2F6N8T0S5';
const CHANNEL = 'ch_01M8A0B1C2D3E4F5G6H7J8K9M0';
const REACTOR = 'rx_01M8A0B1C2D3E4F5G6H7J8K9M0';
const CONTRACT = 'ct_01M8A0B1C2D3E4F5G6H7J8K9M0';
const MAIL = 'm_01M8A0B1C2D3E4F5G6H7J8K9M0';
const JOB = 'job_01M8A0B1C2D3E4F5G6H7J8K9M0';
/** the SHA-256 of the CNF text `p cnf 3 2\n1 -3 0\n2 3 -1 0\n` (the blob upload example) */
const BLOB = 'sha256:490fe3dbeb657986df363893092390ff8755942e7dbc74d116e95bce0e532d0c';
const PROOF = '465d6d9cbf1b0246ffb1bdae47b88bbf4ef95afee96ab301f14a5e5795eedd77';

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  // solvers: compositions of catalog operators and plain-English dispatch
  'operators.compute': { summary: 'kinetic energy of a 2 kg body at 10.8 km/h, inputs as quantities with units', request: { domain: 'Classical Mechanics', operators: ['KO42', 'KINETIC_ENERGY'], inputs: { m: '2000 g', v: '10.8 km/h' } } },
  'operators.lattice': { summary: 'two domains computed side by side and sealed together', request: { nodes: [{ domain: 'Classical Mechanics', inputs: { m: 2, v: 3 } }, { domain: 'Quantum Mechanics', inputs: { w: 1e14, n: 0 } }] } },
  'operators.unified': { summary: 'a catalog operator times your own: kinetic energy per unit mass (J/kg)', request: { operators: ['KINETIC_ENERGY', { id: 'perKg', equation: '1/m', unit: '1/kg' }], inputs: { m: 2, v: 3 } } },
  'solver.auto': { summary: 'a question in plain English, with an input the question does not name', request: { query: 'price a european call with strike 105', inputs: { S0: 110, paths: 20000 } } },
  // seal
  'seal.verify': { summary: 'check the proof of a receipt (the svcProof and svcState of a sealed answer)', request: { proof: PROOF, operatorIds: ['KO42', 'WM1'], R_t: 0.9988662885407381, svcond: 2310977805, keyPrefix: 'svc_ak_ADtQ-JVi', value: 85.74994490399995, unit: 'Hz' } },
  'pulse.shift': { summary: 'project the pulse state 16 steps forward, sealed', request: { steps: 16, domain: 'Quantum Mechanics' } },
  // keys and machines
  'demo-key.mint': { summary: 'no body: a free demo key', request: {} },
  'machines.spin-up': { summary: 'a machine named for where it runs', request: { displayName: 'lab workstation' } },
  'machines.recover': { summary: 'a new key from the recovery equation and salt shown at spin-up', request: { zid: 'Z01M8H7QADNYH3D087RZZ97T0AE', equation: '950*x + 3578 = 794550328 | x = 836365 | ZfFzGEE5VA7e', salt: 'f667c89e32cc4b870ad5474109323015' } },
  // folders and receipts
  'folders.receipts': { summary: 'the 20 newest receipts of the folder default', request: { name: 'default', limit: 20 } },
  'receipts.get': { summary: 'one receipt', request: { id: RECEIPT } },
  'receipts.drat': { summary: 'the DRAT proof of an unsatisfiable sat receipt', request: { id: RECEIPT } },
  'receipts.proof': { summary: "a receipt's inclusion proof in the transparency log", request: { id: RECEIPT } },
  'receipts.attestation': { summary: "a receipt's Sigstore attestation", request: { id: RECEIPT } },
  // chain and observer
  'chain.observer': { summary: 'the 20 newest chain appends', request: { limit: 20 } },
  'chain.observer-stream': { summary: "this machine's appends, live, resuming after event 41", request: { scope: 'machine', lastEventId: 41 } },
  // operator catalog
  'operators.list': { summary: 'the operators of one domain', request: { domain: 'Classical Mechanics' } },
  'operators.search': { summary: 'operators whose name or equation mentions kinetic', request: { term: 'kinetic', limit: 5 } },
  'operators.get': { summary: 'one operator with its equation and units', request: { id: 'KINETIC_ENERGY' } },
  'domains.match': { summary: 'the domains a description belongs to', request: { text: 'heat flowing along a copper bar whose ends are held at fixed temperatures', limit: 3 } },
  // streams and reactor
  'streams.open': { summary: 'a channel of 3 sealed ticks of an operator whose speed grows each tick', request: { operator: 'KINETIC_ENERGY', inputs: { m: 2, v: 3 }, vary: { v: '3 + tick' }, ticks: 3 } },
  'streams.list': { summary: 'the open channels', request: { state: 'open', limit: 20 } },
  'streams.get': { summary: 'one channel', request: { id: CHANNEL } },
  'streams.events': { summary: "a channel's ticks as Server-Sent Events, from the first", request: { id: CHANNEL, lastEventId: -1 } },
  'streams.close': { summary: 'close a channel', request: { id: CHANNEL } },
  'reactor.run': { summary: 'the logistic map x ← r·x·(1 − x), 8 sealed steps under one Merkle root', request: { expr: { x: 'r*x*(1-x)' }, inputs: { x: 0.2 }, params: { r: 3.2 }, maxDepth: 8 } },
  'reactor.get': { summary: 'one reactor run', request: { id: REACTOR } },
  'reactor.verify': { summary: "check a run's Merkle root against its step proofs", request: { root: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90', leaves: [PROOF] } },
  // contracts
  'contracts.generate': { summary: 'a contract definition from a description of the workflow', request: { query: 'an invoice is sent, reminded after 14 days, and escalated to collections after 30 days unpaid' } },
  'contracts.deploy': { summary: 'a contract from a built-in template', request: { templateId: 'invoice-dunning', name: 'March invoices' } },
  'contracts.fire': { summary: 'record the payment and fire the first transition whose guard passes', request: { id: CONTRACT, variables: { paid: true }, folder: 'contracts' } },
  'contracts.list': { summary: 'the 20 newest contracts', request: { limit: 20 } },
  'contracts.get': { summary: 'one contract with its state and history', request: { id: CONTRACT } },
  'contracts.template': { summary: 'one template', request: { id: 'invoice-dunning' } },
  // discovery
  'discovery.catalog': { summary: 'operations about heat', request: { q: 'heat', limit: 5 } },
  'discovery.http': { summary: 'call a public route in-process', request: { method: 'GET', path: '/api/operators/search', query: { term: 'kinetic', limit: 3 } } },
  // literature
  'papers.search': { summary: 'papers on the Kalman filter from two sources', request: { q: 'kalman filter', sources: ['preprint', 'doi-registry'], limit: 5 } },
  'papers.fetch': { summary: 'one paper by its canonical id', request: { id: 'arxiv:1707.08567' } },
  // pages and mail
  'pages.publish': { summary: 'publish a small page', request: { title: 'Heat flow results', html: '<h1>Heat flow</h1><p>The sealed value is 0.3728 T.</p>', pageSlug: 'heat' } },
  'pages.get': { summary: 'one page', request: { slug: 'heat' } },
  'pages.delete': { summary: 'delete a page', request: { slug: 'heat' } },
  'mail.send': { summary: 'mail yourself a note', request: { subject: 'Heat run sealed', html: '<p>The heat run is sealed: 0.3728 T.</p>', text: 'The heat run is sealed: 0.3728 T.' } },
  'mail.list': { summary: 'the 20 newest messages', request: { limit: 20 } },
  'mail.get': { summary: 'one message', request: { id: MAIL } },
  'mail.raw': { summary: 'one message as raw MIME text', request: { id: MAIL } },
  // oauth
  'oauth.register': { summary: 'register a public client (dynamic client registration, RFC 7591)', request: { redirect_uris: ['https://app.example.com/callback'], client_name: 'Example app', scope: 'compute', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' } },
  'oauth.authorize': { summary: 'ask for an authorization code with PKCE (S256: the challenge is the base64url SHA-256 of the verifier the token example sends)', request: { client_id: 'svc_oc_pJ-FL3-ABP_J4trMbfIZzw', redirect_uri: 'https://app.example.com/callback', response_type: 'code', code_challenge: 'CwlnK4emg8q53y1lXXbfVf3-bJ888i8O5pFHelyYnkU', code_challenge_method: 'S256', state: 'af0ifjsldkj', scope: 'compute' } },
  'oauth.approve': { summary: 'the machine owner approves a pending request (machine key as bearer)', request: { requestId: 'oar_01M8H7QAMC2QT4B65VWE89TVK6', approve: true } },
  'oauth.token': { summary: 'exchange the code for tokens (PKCE verifier)', request: { grant_type: 'authorization_code', code: 'svc_oac_Xq3vJ0pL7nR2sT8wY5zA1bC4dE6fG9hK0mN3pQ7rS2u', redirect_uri: 'https://app.example.com/callback', code_verifier: 'dBjftJeZ4CVP-mJ92K9s1w2_mGhP1Uu0pBcAmZ7oXiQ', client_id: 'svc_oc_pJ-FL3-ABP_J4trMbfIZzw' } },
  'oauth.refresh': { summary: 'a new access token from a refresh token', request: { grant_type: 'refresh_token', refresh_token: 'svc_ort_Vb8nM2kL5jH9gF3dS6aP1oI4uY7tR0eW2qZ5xC8vB1n', client_id: 'svc_oc_pJ-FL3-ABP_J4trMbfIZzw' } },
  'oauth.revoke': { summary: 'revoke a refresh token (RFC 7009)', request: { token: 'svc_ort_Vb8nM2kL5jH9gF3dS6aP1oI4uY7tR0eW2qZ5xC8vB1n', token_type_hint: 'refresh_token', client_id: 'svc_oc_pJ-FL3-ABP_J4trMbfIZzw' } },
  'oauth.grants.revoke': { summary: "revoke a client's grant", request: { id: 'grant_01M8A0B1C2D3E4F5G6H7J8K9M0' } },
  // transparency log
  'log.checkpoint-at': { summary: 'the checkpoint the log signed at tree size 2', request: { size: '2' } },
  'log.consistency': { summary: 'a consistency proof from tree size 1 to 2', request: { old: 1, new: 2 } },
  'log.tile': { summary: 'the first tile of level 0 (C2SP tlog-tiles path)', request: { '*': '0/000' } },
  'witness.add-checkpoint': { summary: 'a checkpoint to cosign, with the size last cosigned and no consistency lines (old 0)', request: { body: 'old 0\n\n127.0.0.1:8787/log\n2\nHh40iMvojV31c0AoJg76s1oe98GaNJBOp+ekwW1sVjU=\n\n— 127.0.0.1:8787/log PEYCT6tVpqsVzZWDbUWWa0wuzub2YfZX4Tc7e21nlft2FUbcikXx/NKtXFWK0XLbqt8LYnr2wl86mYHZ6vT4W3+3xQ0=\n' } },
  // blobs
  'blob.upload': { summary: 'upload a CNF file (answers its name, sha256:…)', request: { body: 'p cnf 3 2\n1 -3 0\n2 3 -1 0\n' } },
  'blob.get': { summary: 'read a blob back', request: { digest: BLOB } },
  'blob.delete': { summary: 'delete a blob', request: { digest: BLOB } },
  // jobs
  'jobs.list': { summary: 'the jobs that succeeded, 20 a page', request: { status: 'succeeded', limit: 20 } },
  'jobs.get': { summary: 'one job, waiting up to 10 s for it to end', request: { id: JOB, wait: 10 } },
  'jobs.events': { summary: "a job's progress as Server-Sent Events", request: { id: JOB } },
  'jobs.cancel': { summary: 'cancel a job', request: { id: JOB } },
};
