// Every tool's schema resource (resources/read svc://tools/<name>/schema) describes the same
// arguments as its tools/list input schema (issue 29 item 5): the same fields, the same required
// set and, field by field, the same JSON types; the resource adds the descriptions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testNode, type TestNode } from '../helpers.ts';
import { connect } from './client.ts';

let t: TestNode;
let base: string;
before(async () => { t = await testNode(); base = await t.listen(); });
after(async () => { await t?.close(); });

const typeOf = (s: any): unknown => s?.type ?? (s?.anyOf ?? s?.oneOf ? 'union' : s?.enum ? 'enum' : s?.const !== undefined ? 'const' : 'any');

test('resources/read svc://tools/<name>/schema equals tools/list\'s input schema for every tool', async () => {
  const c = await connect(base, 'modern');
  try {
    const { tools } = await c.listTools();
    assert.ok(tools.length > 40);
    for (const tool of tools) {
      const r: any = await c.readResource({ uri: `svc://tools/${tool.name}/schema` });
      const res = JSON.parse(r.contents[0].text);
      const listed: any = tool.inputSchema;
      assert.deepEqual(Object.keys(res.properties ?? {}).sort(), Object.keys(listed.properties ?? {}).sort(), `${tool.name}: fields differ`);
      assert.deepEqual([...(res.required ?? [])].sort(), [...(listed.required ?? [])].sort(), `${tool.name}: required differs`);
      for (const k of Object.keys(listed.properties ?? {})) {
        const a = typeOf(listed.properties[k]), b = typeOf(res.properties[k]);
        if (typeof a === 'string' && typeof b === 'string' && !['any', 'union', 'enum', 'const'].includes(a) && !['any', 'union', 'enum', 'const'].includes(b)) assert.deepEqual(b, a, `${tool.name}.${k}: type ${JSON.stringify(b)} vs ${JSON.stringify(a)}`);
      }
    }
    console.log(`# ${tools.length} tools: schema resource and tools/list agree`);
  } finally { await c.close(); }
});
