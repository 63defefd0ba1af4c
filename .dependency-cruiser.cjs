// The layers of DESIGN §12 as checked rules (docs/architecture.md draws them). `npm test` runs
// `depcruise` through test/architecture.test.ts: a forbidden import fails the suite.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'solvers-know-only-numbers',
      comment: 'src/solvers imports only src/solvers and src/core',
      severity: 'error',
      from: { path: '^src/solvers/' },
      to: { path: '^src/', pathNot: '^src/(solvers|core)/' },
    },
    {
      name: 'store-below-seals',
      comment: 'src/store imports only src/store, src/core and src/config.ts',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store/|core/|config\\.ts$)' },
    },
    {
      name: 'services-below-operations',
      comment: 'src/services never imports src/ops, src/http or src/mcp',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(ops|http|mcp)/' },
    },
    {
      name: 'jobs-below-operations',
      comment: 'src/jobs (queue, runner, blobs, sweeps) never imports src/ops, src/http or src/mcp: the operation it runs is handed to it',
      severity: 'error',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(ops|http|mcp)/' },
    },
    {
      name: 'http-never-runs-solvers',
      comment: 'src/http never imports src/solvers',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/solvers/' },
    },
    {
      name: 'mcp-is-not-http',
      comment: 'src/mcp never imports src/http',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'src/core is the bottom layer',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'no-circular',
      comment: 'no circular imports anywhere in src/',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/console/static/' },
    tsPreCompilationDeps: true,
    // TypeScript 7 (the native compiler) has no JS API yet: dependency-cruiser parses with swc
    parser: 'swc',
    moduleSystems: ['es6', 'cjs'],
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
