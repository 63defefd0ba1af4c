import { testNode } from './helpers.ts';
const t = await testNode(); const base = await t.listen();
const m = await t.machine('x');
console.log(base); console.log(m.apiKey);
await new Promise((r) => setTimeout(r, 400000));
await t.close();
