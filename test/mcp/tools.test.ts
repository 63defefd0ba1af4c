// Tools an agent can use well (issue 21 item 2): every tool has a title, the four annotations and
// an output schema; every result validates against its outputSchema; tools/list stays under
// 40 KB; a default svc_heat result is a short text (< 2 KB) plus a link to its receipt.
import { EXAMPLE_MPS } from '../../src/solvers/lp.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { testNode, type TestNode } from '../helpers.ts';
import { toolOutputSchemaOf } from '../../src/ops/schema.ts';
import { papersEnv, world, P1_DOI, type World } from '../papers/world.ts';
import { connect } from './client.ts';

let t: TestNode;
let base: string;
let w: World;
let key: string;
before(async () => {
  w = await world();
  t = await testNode({ env: papersEnv(w.urls) });
  base = await t.listen();
  key = (await t.machine('mcp tools')).apiKey;
});
after(async () => {
  await t?.close();
  await w?.close();
});

const READ_ONLY = ['svc_api_catalog', 'svc_contract_generate', 'svc_contract_templates', 'svc_contract_list', 'svc_contract_get', 'svc_observer',
  'svc_list_operators', 'svc_paper_search', 'svc_paper_fetch', 'svc_domain_match', 'svc_science_domains', 'svc_find_operator', 'svc_pulse',
  'svc_verify', 'svc_field_status'];
const OPEN_WORLD = ['svc_paper_search', 'svc_paper_fetch'];

test('every tool has a title, all four annotations and an output schema; read-only, open-world and solver hints as declared', async () => {
  const c = await connect(base, 'modern');
  try {
    const { tools } = await c.listTools();
    assert.ok(tools.length >= 57, `${tools.length} tools`);
    for (const op of t.app.operations.filter((o) => o.tool && o.access !== 'admin')) {
      assert.ok(op.title && op.hints && (op.toolOutput ?? op.output), `${op.tool}: its declaration gives title, hints and output`);
    }
    for (const tool of tools) {
      assert.ok(tool.title && tool.title.length <= 40, `${tool.name}: title`);
      assert.ok(tool.description && tool.description.length <= 160, `${tool.name}: description of ${tool.description?.length} characters`);
      assert.doesNotMatch(tool.description!, /KO42|master field|tensioned/i, `${tool.name}: project jargon in the description`);
      const a = tool.annotations!;
      for (const h of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) assert.equal(typeof a[h], 'boolean', `${tool.name}.${h}`);
      assert.equal(a.readOnlyHint, READ_ONLY.includes(tool.name), `${tool.name}: readOnlyHint`);
      assert.equal(a.openWorldHint, OPEN_WORLD.includes(tool.name), `${tool.name}: openWorldHint`);
      if (a.readOnlyHint) assert.equal(a.idempotentHint, true, `${tool.name}: a look-up is idempotent`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name}: outputSchema`);
    }
    const solvers = tools.filter((x) => t.app.operations.find((o) => o.tool === x.name)!.id.startsWith('solver.'));
    assert.ok(solvers.length >= 30);
    for (const s of solvers) {
      assert.deepEqual(s.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }, s.name);
      assert.deepEqual(s.outputSchema!.required, ['value', 'unit', 'result', 'precision', 'receipt'], s.name);
      assert.deepEqual(s.inputSchema.properties!.series, { type: 'boolean' }, s.name);
    }
  } finally { await c.close(); }
});

test('tools/list is under 40 KB on the wire, in both eras', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const c = await connect(base, era);
    try {
      const list = await c.listTools();
      const bytes = Buffer.byteLength(JSON.stringify(list.tools));
      console.log(`# tools/list (${era}): ${list.tools.length} tools, ${bytes} bytes (${(bytes / list.tools.length).toFixed(0)} per tool)`);
      assert.ok(bytes < 40 * 1024, `${era}: tools/list is ${bytes} bytes`);
    } finally { await c.close(); }
  }
});

test('a default svc_heat result is a short text with value, error, reference and receipt, plus a link to the receipt', async () => {
  const c = await connect(base, 'modern', key);
  try {
    const r: any = await c.callTool({ name: 'svc_heat', arguments: {} });
    const text: string = r.content[0].text;
    const bytes = Buffer.byteLength(text);
    console.log(`# svc_heat default: content text ${bytes} bytes, structuredContent ${Buffer.byteLength(JSON.stringify(r.structuredContent))} bytes`);
    assert.ok(bytes < 2048, `content text is ${bytes} bytes`);
    const s = r.structuredContent;
    // the error is named, never a bare ± (issue 29): heat's is the distance to exp(-alpha*pi^2*k^2*t)
    assert.match(text, new RegExp(`${String(Number(s.value.toPrecision(6))).replace('.', '\\.')} ${s.unit} \\(distance to the reference `));
    assert.ok(!text.includes(' ± '));
    assert.ok(text.includes(s.precision.reference), 'names the reference');
    assert.ok(text.includes(s.receipt.id) && text.includes('svc_verify'), 'names the receipt and how to verify it');
    assert.equal(r.content.length, 2);
    assert.equal(r.content[1].type, 'resource_link');
    // the text is not the JSON a second time
    assert.ok(!text.includes('"svcProof"'));
  } finally { await c.close(); }
});

test('every tool\'s result validates against its outputSchema (the compact one listed and the full declaration)', async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const c = await connect(base, 'modern', key);
  const demo = await t.demoKey();
  const spin = await connect(base, 'modern', demo);
  try {
    const { tools } = await c.listTools();
    const listed = new Map(tools.map((x) => [x.name, x.outputSchema!]));
    // what the other calls need: a receipt to verify, a contract to read and fire
    const protect: any = (await c.callTool({ name: 'svc_protect', arguments: {} })).structuredContent;
    const templates: any = (await c.callTool({ name: 'svc_contract_templates', arguments: {} })).structuredContent;
    const deployed: any = (await c.callTool({ name: 'svc_contract_deploy', arguments: { templateId: templates.templates[0].id } })).structuredContent;
    const contractId = deployed.contract?.id ?? deployed.id;
    const args: Record<string, Record<string, unknown>> = {
      svc_api_catalog: { q: 'heat' },
      svc_http: { method: 'GET', path: '/api/svc/pulse' },
      svc_spin_up: { displayName: 'schema check' },
      svc_contract_generate: { query: 'pay the supplier when the delivery is confirmed' },
      svc_contract_deploy: { templateId: templates.templates[1].id },
      svc_contract_get: { id: contractId },
      svc_contract_fire: { id: contractId },
      svc_publish_page: { title: 't', html: '<p>x</p>' },
      svc_mail_html: { subject: 's', html: '<p>x</p>' },
      svc_compute: { domain: 'classical mechanics', inputs: { m: 2, v: 3 } },
      svc_paper_search: { q: 'heat equation', limit: 3 },
      svc_paper_fetch: { id: `doi:${P1_DOI}` },
      svc_domain_match: { text: 'heat diffusion in a metal bar' },
      svc_find_operator: { term: 'energy' },
      svc_lattice: { nodes: [{}, {}] },
      svc_verify: { proof: protect.svcProof, operatorIds: protect.svcState.operators, R_t: protect.svcState.masterSum, zeqond: protect.svcState.svcond, value: protect.value, unit: protect.unit },
      svc_unified: { operators: ['KO42'] },
      svc_stream: { operator: 'KINETIC_ENERGY', inputs: { m: 1, v: 1 }, ticks: 1, follow: false },
      svc_reactor: { expr: { x: 'x + 1' }, inputs: { x: 0 }, maxDepth: 2 },
      svc_auto: { query: 'price a european call option' },
      svc_solve: { prompt: 'a 2 kg ball falls from 10 m' },
      svc_multibody: { prompt: 'two coupled oscillators', bodies: [{ mass: 1 }, { mass: 2 }] },
      svc_shift: { steps: 2 },
      svc_lp: { mps: EXAMPLE_MPS },
    };
    const failures: string[] = [];
    for (const tool of tools) {
      const op = t.app.operations.find((o) => o.tool === tool.name)!;
      const client = tool.name === 'svc_spin_up' ? spin : c;
      // the SDK client checks structuredContent against the listed outputSchema itself and
      // throws on a mismatch; the checks below say which field is wrong
      let r: any;
      try { r = await client.callTool({ name: tool.name, arguments: args[tool.name] ?? {} }, { timeout: 60_000 }); } catch (e) { failures.push(`${tool.name}: ${(e as Error).message}`); continue; }
      if (r.isError) { failures.push(`${tool.name}: refused: ${r.content[0].text.slice(0, 300)}`); continue; }
      for (const [which, schema] of [['listed', listed.get(tool.name)!], ['declared', toolOutputSchemaOf(op)!]] as const) {
        const validate = ajv.compile(schema);
        if (!validate(r.structuredContent)) failures.push(`${tool.name} (${which}): ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    await c.close();
    await spin.close();
  }
});
