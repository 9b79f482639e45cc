// The layers of src/, bottom to top (docs/architecture.md): a module imports from its own
// layer or below, never above (types included: a type two layers share lives in the lower
// one), and nothing imports in a circle. `npm run deps:check` (CI runs it) fails on either.
const LAYERS = [
  // The loop runner is generic machinery (a Loop is a type every background job implements).
  { name: 'base', path: '^src/(log|config|redis|v8-flags|project-files)\\.ts$|^src/(http|payments|tracing)/|^src/jobs/loops\\.ts$|^src/generated/' },
  { name: 'db', path: '^src/db/' },
  // Input rules and their messages travel as GraphQL errors: one floor.
  { name: 'graphql', path: '^src/(graphql|validation)/' },
  { name: 'auth', path: '^src/auth/' },
  { name: 'write path and REST', path: '^src/(events|rest|search)/' },
  { name: 'webhooks', path: '^src/webhooks/' },
  { name: 'resources', path: '^src/modules/' },
  { name: 'composition', path: '^src/(import|demo|openapi)/|^src/jobs/background\\.ts$|^src/(schema|service|server|serve|main|cli|command-line|cluster)\\.ts$' },
];

const upward = LAYERS.flatMap((layer, i) =>
  LAYERS.slice(i + 1).map((higher) => ({
    name: `${layer.name} imports ${higher.name}`,
    comment: `A module of the ${layer.name} layer imports from the ${higher.name} layer, above it: move what both need down, or pass it in.`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: higher.path },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'Modules that import each other, directly or through others.', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    { name: 'unlayered', comment: 'Every module of src/ belongs to a layer (LAYERS above).', severity: 'error', from: { path: '^src/', pathNot: LAYERS.map((l) => l.path).join('|') }, to: {} },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
