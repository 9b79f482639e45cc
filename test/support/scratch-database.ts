import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/db/database-url.js';

/** The tests' admin connection to PostgreSQL (vitest.config.ts passes it to every worker). */
export const testAdminUrl = () => process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/**
 * A database of a provider, and a way to drop it: a temp SQLite file, or a new
 * PostgreSQL database made through an admin connection. Empty, or a copy of `template`
 * (a file copy; `CREATE DATABASE ... TEMPLATE`, which needs no connection open to it).
 * No vitest import (scripts use it).
 */
export async function scratchDatabase(provider: 'sqlite' | 'postgresql', adminUrl: string, label = 'scratch', template?: DatabaseTarget): Promise<{ url: string; drop(): Promise<void> }> {
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `salesgraph-${label}-`));
    const file = join(dir, `${label}.db`);
    if (template?.provider === 'sqlite') copyFileSync(template.file, file);
    return { url: `file:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `salesgraph_${label}_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const from = template?.provider === 'postgresql' ? ` TEMPLATE "${new URL(template.url).pathname.slice(1)}"` : '';
  await admin(`CREATE DATABASE "${name}"${from}`);
  // A scratch database need not outlive a crash of the database server (the tests kill the
  // service, never PostgreSQL): its commits do not wait for the WAL's flush (half of a
  // small write's time here).
  await admin(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
