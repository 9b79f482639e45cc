import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One migrated database per run and provider; tests isolate their data by workspace. */
export default async function setup(project: TestProject) {
  const provider = project.name;
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-test-'));
    const url = `file:${join(dir, 'test.db')}`;
    await applyMigrations(resolveDatabase(url));
    project.provide('databaseUrl', url);
    return () => rmSync(dir, { recursive: true, force: true });
  }
  const adminUrl = process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `salesgraph_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await applyMigrations(resolveDatabase(url.toString()));
  project.provide('databaseUrl', url.toString());
  return async () => {
    const again = new pg.Client({ connectionString: adminUrl });
    await again.connect();
    await again.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await again.end();
  };
}
