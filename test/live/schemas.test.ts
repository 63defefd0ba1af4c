// The input schemas of svc_stream and svc_reactor are published: the OpenAPI document and the MCP
// tool list carry them (with their bounds), and docs/live-compute.md lists exactly their fields.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { testNode, type TestNode } from '../helpers.ts';
import { toolOperations } from '../../src/mcp/server.ts';
import { jsonSchemaOf } from '../../src/ops/schema.ts';

let t: TestNode;
before(async () => { t = await testNode(); });
after(async () => { await t.close(); });

const docs = readFileSync(new URL('../../docs/live-compute.md', import.meta.url), 'utf8');

/** The field names in the first column of the table under a heading of the docs. */
function docFields(heading: string): string[] {
  const at = docs.indexOf(heading);
  assert.ok(at >= 0, `docs/live-compute.md has no heading ${heading}`);
  const rest = docs.slice(at + heading.length);
  const table = rest.slice(0, rest.search(/\n\s*\n(?!\|)/) + 1 || undefined).split('\n').filter((l) => l.startsWith('|')).slice(2);
  return table.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]));
}

test('OpenAPI and the MCP tool list publish the svc_stream and svc_reactor input schemas with their bounds', async () => {
  const oa = (await t.call('GET', '/openapi.json')).body;
  const stream = oa.paths['/api/streams'].post;
  assert.equal(stream['x-mcp-tool'], 'svc_stream');
  const ss = stream.requestBody.content['application/json'].schema;
  assert.deepEqual(Object.keys(ss.properties).sort(), ['body', 'closeOnDisconnect', 'folder', 'follow', 'inputs', 'operator', 'solver', 'ticks', 'vary']);
  assert.deepEqual([ss.properties.ticks.minimum, ss.properties.ticks.maximum, ss.properties.ticks.default], [1, 600, 10]);
  assert.equal(ss.additionalProperties, false);
  const events = oa.paths['/api/streams/{id}/events'].get;
  assert.ok(events.parameters.some((p: any) => p.in === 'query' && p.name === 'lastEventId'));
  for (const p of ['/api/streams/{id}']) assert.ok(oa.paths[p].get && oa.paths[p].delete, p);
  assert.ok(oa.paths['/api/streams'].get.parameters.some((p: any) => p.name === 'limit' && p.schema.maximum === 100));

  const reactor = oa.paths['/api/reactor'].post;
  assert.equal(reactor['x-mcp-tool'], 'svc_reactor');
  const rs = reactor.requestBody.content['application/json'].schema;
  assert.deepEqual(Object.keys(rs.properties).sort(), ['body', 'expr', 'folder', 'inputs', 'map', 'maxDepth', 'operator', 'params', 'solver', 'unit', 'until', 'value']);
  assert.deepEqual([rs.properties.maxDepth.minimum, rs.properties.maxDepth.maximum, rs.properties.maxDepth.default], [1, 64, 16]);
  assert.deepEqual(rs.required, ['inputs']);
  assert.ok(oa.paths['/api/reactor/verify'].post && oa.paths['/api/reactor/{id}'].get);

  // MCP tools/list builds each inputSchema from the same JSON Schema (src/mcp/server.ts)
  const tools = Object.fromEntries(toolOperations(t.app).map((o) => [o.tool, { type: 'object', ...jsonSchemaOf(o) }]));
  assert.equal(tools.svc_stream.properties.ticks.maximum, 600);
  assert.equal(tools.svc_reactor.properties.maxDepth.maximum, 64);
});

test('docs/live-compute.md lists exactly the fields of each input schema', async () => {
  const oa = (await t.call('GET', '/openapi.json')).body;
  const streamFields = Object.keys(oa.paths['/api/streams'].post.requestBody.content['application/json'].schema.properties).sort();
  const reactorFields = Object.keys(oa.paths['/api/reactor'].post.requestBody.content['application/json'].schema.properties).sort();
  assert.deepEqual([...new Set(docFields('### Input of `svc_stream`'))].sort(), streamFields);
  assert.deepEqual([...new Set(docFields('### Input of `svc_reactor`'))].sort(), reactorFields);
});
