import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: GraphiQL, CORS and the payment page in a real headless Chromium (from the npm
 * registry: @sparticuz/chromium, driven by playwright-core), once, on SQLite. Its files
 * end in `.browser.ts`, so the main run (vitest.config.ts, `*.test.ts`) leaves them out.
 */
export default defineConfig({
  // The same single graphql copy as vitest.config.ts (see there why).
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    name: 'browser',
    include: ['test/browser/**/*.browser.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['test/support/expect-count-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
