import { testNode } from './helpers.ts';
import { connect } from './mcp/client.ts';
const t = await testNode(); const base = await t.listen(); const key = (await t.machine('x')).apiKey;
const c = await connect(base, 'modern', key);
for (const [n, a] of [['svc_heat', {}], ['svc_lorenz', {}], ['svc_quant', {}], ['svc_epi', {}], ['svc_pulse', {}], ['svc_contract_fire', {id: 'x'}]] as const) {
  const r: any = await c.callTool({ name: n, arguments: a });
  console.log('-----', n); for (const x of r.content) console.log(x.type === 'text' ? x.text : JSON.stringify(x));
}
await c.close(); await t.close();
