import type { TestProject } from 'vitest/node';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { buildOnce } from './build.js';
import { scratchDatabase, testAdminUrl } from './scratch-database.js';

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
  const template = await scratchDatabase(project.name as 'sqlite' | 'postgresql', testAdminUrl(), 'template');
  await Promise.all([applyMigrations(resolveDatabase(template.url)), buildOnce()]);
  project.provide('templateUrl', template.url);
  return () => template.drop();
}
