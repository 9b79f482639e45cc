// Bundles the service (src/main.ts) and the command line (src/cli.ts) into build/main.js
// and build/cli.js, over tsc's modules of the same names (scripts/build-if-changed.mjs runs
// it after tsc). A process then loads a few files instead of ~1,100 modules: the start's
// imports take 0.4 s instead of 1.05 s (docs/performance.md, "Start-up"). What is loaded
// only on demand stays a chunk of its own (code splitting), so a cluster's primary, a
// process without REDIS_URL or without tracing still loads none of it. Packages that find
// files of their own (native addons, WebAssembly, worker scripts) or that are loaded only
// on demand stay external, loaded from node_modules as before. The chunks sit in build/
// itself: src/project-files.ts finds the project's root one level up.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = join(root, 'build');
for (const name of readdirSync(out)) if (/^chunk-.*\.js(\.map)?$/.test(name)) rmSync(join(out, name));

await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/main.ts', cli: 'src/cli.ts' },
  outdir: out,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  external: [
    'better-sqlite3',
    'better-sqlite3-node-api',
    '@prisma/*',
    'pg',
    'pino',
    'thread-stream',
    'stripe',
    '@redis/client',
    '@opentelemetry/*',
    'swagger-ui-dist',
    '@graphql-yoga/render-graphiql',
    // CommonJS, imported on demand: Node's own import gives its named exports (a bundled copy would not).
    'prom-client',
  ],
  // CommonJS packages inside the bundle call require(), which an ES module does not have.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
});
