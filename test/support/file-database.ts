import { inject } from 'vitest';
import { resolveDatabase } from '../../src/db/database-url.js';
import { scratchDatabase, testAdminUrl } from './scratch-database.js';

/**
 * Each test file's own migrated database, copied from the run's template by the setup
 * file (test/support/file-database-setup.ts) before the file's tests and dropped after
 * them. Kept on globalThis: with `isolate: false` a worker keeps one copy of this module
 * across files, while the setup file runs afresh for each.
 */
const state = globalThis as { salesgraphFileDatabase?: { url: string; drop(): Promise<void> } };

export function copyOfTemplate(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = resolveDatabase(inject('templateUrl'));
  return scratchDatabase(template.provider, testAdminUrl(), 'file', template);
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
