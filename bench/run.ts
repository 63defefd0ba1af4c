// `npm run bench`: runs every bench/*.bench.ts in turn (or the ones named on the command line).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const here = new URL('.', import.meta.url).pathname;
const wanted = process.argv.slice(2);
const files = readdirSync(here).filter((f) => f.endsWith('.bench.ts')).filter((f) => !wanted.length || wanted.some((w) => f.includes(w))).sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f}`);
  const r = spawnSync(process.execPath, [here + f], { stdio: 'inherit' });
  if (r.status !== 0) { failed++; console.log(`(${f} exited with ${r.status})`); }
}
process.exit(failed ? 1 : 0);
