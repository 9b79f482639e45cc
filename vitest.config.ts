import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files whose tests do not depend on the database's provider run once, on the embedded
 * default: the HTTP layer (limits, lingering close, CORS, the access log), the OpenAPI
 * document, and the cluster's and Redis's rate-limit counting. Their requests touch the
 * database only for the API key, which every other file exercises on both.
 */
const PROVIDER_INDEPENDENT = [
  'test/access-log.test.ts',
  'test/asaas-fake.test.ts',
  'test/stripe-fake.test.ts',
  'test/cluster.test.ts',
  'test/cors.test.ts',
  'test/gathered-writes.test.ts',
  'test/http.test.ts',
  'test/http-limits.test.ts',
  'test/lingering-close.test.ts',
  'test/money.test.ts',
  'test/pacing.test.ts',
  'test/readme-tour.test.ts',
  'test/openapi.test.ts',
  'test/readme-settings.test.ts',
  'test/v8-flags.test.ts',
];

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
    test: { name, env: { TEST_PROVIDER: name, TEST_ADMIN_URL: adminUrl }, exclude: name === 'postgresql' ? [...configDefaults.exclude, ...PROVIDER_INDEPENDENT] : configDefaults.exclude },
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
      setupFiles: ['test/support/file-database-setup.ts', 'test/support/expect-count-setup.ts'],
      reporters: ['default', './test/support/summary-reporter.ts'],
      // Guards against a hang only: no test depends on it. A file that starts the service and
      // the CLI a dozen times as processes needs over 30 s on a machine busy with other work.
      testTimeout: 120_000,
      hookTimeout: 120_000,
      pool: 'forks',
      // Files run side by side, one more than the cores (vitest's own default is one fewer: a
      // single one here): a file that waits on a child process, a timer or the database server
      // leaves its core to another (measured on 2 cores: 288 s with 2 workers, 242 s with 3).
      // Each file has a database of its own (test/support/file-database.ts), so nothing is
      // shared but the machine.
      maxWorkers: Math.max(2, availableParallelism()) + 1,
      // A worker loads the service's modules (Prisma's clients, the schema) once for all the
      // files it runs, rather than once per file: ~3 s a file. No test patches a module; state
      // that must not leak between files (the file's database) is reset by the setup file.
      isolate: false,
      // A test worker allocates fast (requests, answers, snapshots) and keeps little: a young
      // generation of 64 MB instead of V8's 16 MB is collected a quarter as often. The fuzzer and the
      // tenancy test on SQLite: 104 s -> 94 s of CPU. The service's own processes keep V8's.
      execArgv: ['--max-semi-space-size=64'],
      projects: [project('sqlite'), ...(withPostgres ? [project('postgresql')] : [])],
    },
  };
});
