import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { resolveDatabase } from '../../src/db/database-url.js';

/**
 * Each test file's own migrated database, copied from the run's template by the setup
 * file (test/support/file-database-setup.ts) before the file's tests and dropped after
 * them. Kept on globalThis: with `isolate: false` a worker keeps one copy of this module
 * across files, while the setup file runs afresh for each.
 */
const state = globalThis as { salesgraphFileDatabase?: { url: string; drop(): Promise<void> } };

const adminUrl = () => process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export async function copyOfTemplate(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = resolveDatabase(inject('templateUrl'));
  if (template.provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-file-'));
    const file = join(dir, 'test.db');
    copyFileSync(template.file, file);
    return { url: `file:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const templateName = new URL(template.url).pathname.slice(1);
  const name = `${templateName}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
  const url = new URL(template.url);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

export function setFileDatabase(database: { url: string; drop(): Promise<void> } | undefined): void {
  state.salesgraphFileDatabase = database;
}

/** This test file's own migrated database (the setup file's copy). */
export function databaseUrl(): string {
  const current = state.salesgraphFileDatabase;
  if (!current) throw new Error('databaseUrl(): no database yet (call it in a hook or a test, not at import)');
  return current.url;
}

export const fileDatabase = () => state.salesgraphFileDatabase;
