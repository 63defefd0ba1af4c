// openapi-typescript (https://openapi-ts.dev) on this project: it prints its types through the
// TypeScript 5 compiler API, which TypeScript 7 (the project's native `tsc`) no longer has, so
// its `import 'typescript'` is pointed at the TypeScript 5 installed as `typescript5`.
//   node scripts/openapi-typescript.ts http://127.0.0.1:8787/openapi.json -o svc-api.d.ts
// Arguments are openapi-typescript's own (npx openapi-typescript --help).
import { registerHooks } from 'node:module';
import { createRequire } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/openapi-typescript/')) return next('typescript5', context);
    return next(specifier, context);
  },
});
const cli = createRequire(import.meta.url).resolve('openapi-typescript/package.json').replace(/package\.json$/, 'bin/cli.js');
await import(cli);
