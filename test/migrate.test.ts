import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDatabase } from '../src/db/database-url.js';
import { applyMigrations, migrationFiles } from '../src/db/migrate.js';
import { openSqliteFile } from '../src/db/sqlite-adapter.js';
import { freshDatabase } from './support/fresh-database.js';

/** Runs SQL on a database of either provider, for looking behind the applier. */
async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const target = resolveDatabase(url);
  if (target.provider === 'sqlite') {
    const db = openSqliteFile(target.file);
    try {
      return /^\s*select/i.test(text) ? (db.prepare(text).all() as Record<string, unknown>[]) : (db.exec(text), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

let drop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await drop?.();
  drop = undefined;
});

describe('migrations', () => {
  it('apply once, keep Prisma-compatible history, and create every model table', async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const target = resolveDatabase(fresh.url);
    const files = migrationFiles(target.provider);
    expect(files.length).toBeGreaterThan(0);
    expect(await applyMigrations(target)).toEqual(files.map((f) => f.name));
    expect(await applyMigrations(target)).toEqual([]);
    const rows = await sql(fresh.url, 'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows.map((r) => [r.migration_name, r.checksum, Number(r.applied_steps_count)])).toEqual(files.map((f) => [f.name, f.checksum, 1]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
    for (const table of ['Workspace', 'ApiKey', 'Contact', 'Deal', 'DealStage', 'Task', 'Ticket', 'TicketStatus', 'PaymentLink', 'PaymentCoupon', 'PaymentTransaction', 'PaymentTransactionEvent', 'IdempotencyRecord']) {
      expect(await sql(fresh.url, `SELECT COUNT(*) AS n FROM "${table}"`)).toHaveLength(1);
    }
  });

  it('refuse a history whose applied migration was changed', async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const target = resolveDatabase(fresh.url);
    await applyMigrations(target);
    await sql(fresh.url, `UPDATE "_prisma_migrations" SET checksum = 'tampered'`);
    await expect(applyMigrations(target)).rejects.toThrow(/was changed after it was applied/);
  });
});
