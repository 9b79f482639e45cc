import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { resolveDatabase } from '../../src/db/database-url.js';

/** An empty database of this run's provider, and a way to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const provider = resolveDatabase(inject('databaseUrl')).provider;
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-fresh-'));
    return { url: `file:${join(dir, 'fresh.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `salesgraph_fresh_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
