import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * An empty database of a provider, and a way to drop it: a temp SQLite file, or a new
 * PostgreSQL database made through an admin connection. No vitest import (scripts use it).
 */
export async function scratchDatabase(provider: 'sqlite' | 'postgresql', adminUrl: string, label = 'scratch'): Promise<{ url: string; drop(): Promise<void> }> {
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `salesgraph-${label}-`));
    return { url: `file:${join(dir, `${label}.db`)}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
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
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
