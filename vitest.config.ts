import { createRequire } from 'node:module';
import pg from 'pg';
import { defineConfig } from 'vitest/config';

/**
 * The suite runs twice: on the embedded default (SQLite) and on PostgreSQL.
 * TEST_DATABASE_URL is an admin connection to a PostgreSQL server where the run
 * creates (and drops) its own database. Without PostgreSQL the run says so loudly
 * and skips those tests, except under CI=true, where that is a failure.
 */
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export default defineConfig(async () => {
  const withPostgres = await postgresAnswers();
  if (!withPostgres) {
    const banner = `\n${'!'.repeat(78)}\n!! PostgreSQL does not answer at ${adminUrl.replace(/\/\/[^@]*@/, '//')}: the PostgreSQL half of the suite is SKIPPED.\n!! Set TEST_DATABASE_URL to an admin connection to run it.\n${'!'.repeat(78)}\n`;
    if (process.env.CI === 'true') throw new Error(`${banner}CI=true: refusing to skip the PostgreSQL run.`);
    console.warn(banner);
  }
  const project = (name: 'sqlite' | 'postgresql') => ({
    extends: true as const,
    test: { name, env: { TEST_PROVIDER: name, TEST_ADMIN_URL: adminUrl } },
  });
  return {
    resolve: {
      // graphql 16 has no "exports": Node's ESM loader (and so every dependency) gets
      // its CommonJS index.js, while Vite would pick index.mjs. One copy avoids
      // "Cannot use GraphQLSchema from another module or realm".
      alias: { graphql: createRequire(import.meta.url).resolve('graphql') },
    },
    test: {
      globalSetup: ['test/support/global-setup.ts'],
      reporters: ['default', './test/support/summary-reporter.ts'],
      testTimeout: 30_000,
      hookTimeout: 120_000,
      pool: 'forks',
      projects: [project('sqlite'), ...(withPostgres ? [project('postgresql')] : [])],
    },
  };
});
