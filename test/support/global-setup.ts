import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { buildOnce } from './build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated database each test file gets a copy of (test/support/file-database.ts). */
    templateUrl: string;
  }
}

/**
 * One migrated template database per run and provider. Each test file works on a copy
 * of its own (a file copy, or `CREATE DATABASE ... TEMPLATE`), so files run in parallel
 * without sharing SQLite's one writer, and nothing is migrated twice.
 */
export default async function setup(project: TestProject) {
  const provider = project.name;
  const built = buildOnce();
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-test-'));
    const url = `file:${join(dir, 'template.db')}`;
    await applyMigrations(resolveDatabase(url));
    await built;
    project.provide('templateUrl', url);
    return () => rmSync(dir, { recursive: true, force: true });
  }
  const adminUrl = process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `salesgraph_template_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await applyMigrations(resolveDatabase(url.toString()));
  await built;
  project.provide('templateUrl', url.toString());
  return async () => {
    const again = new pg.Client({ connectionString: adminUrl });
    await again.connect();
    await again.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await again.end();
  };
}
