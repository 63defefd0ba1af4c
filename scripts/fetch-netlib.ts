// Materialises the Netlib LP set (plain MPS) into bench/data/netlib/ (git-ignored) for
// `npm run bench lp`: from NETLIB_SRC (a folder of .mps or .mps.gz files), else from the
// uncompressed-and-gzipped copy in the public repository coin-or-tools/Data-Netlib on GitHub.
// The published optimal objectives are committed in test/fixtures/lp/netlib-objectives.json.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../bench/data/netlib/', import.meta.url));
const ref = JSON.parse(readFileSync(new URL('../test/fixtures/lp/netlib-objectives.json', import.meta.url), 'utf8')).problems as Record<string, { rows: number }>;
const fileName = (name: string) => (name === 'vtp.base' ? 'vtpbase' : name);
mkdirSync(OUT, { recursive: true });
const src = process.env.NETLIB_SRC;
for (const name of Object.keys(ref)) {
  const target = `${OUT}${fileName(name)}.mps`;
  if (existsSync(target)) continue;
  let data: Buffer | null = null;
  if (src) {
    const files = readdirSync(src);
    const f = files.find((x) => x === `${fileName(name)}.mps` || x === `${fileName(name)}.mps.gz`);
    if (f) data = readFileSync(`${src}/${f}`);
  } else {
    const res = await fetch(`https://raw.githubusercontent.com/coin-or-tools/Data-Netlib/master/${fileName(name)}.mps.gz`).catch(() => null);
    if (res?.ok) data = Buffer.from(await res.arrayBuffer());
  }
  if (!data) { console.log(`${name}: not found`); continue; }
  if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
  writeFileSync(target, data);
  console.log(`${name}: ${data.length} bytes`);
}
