import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectFile } from '../project-files.js';
import { type DatabaseTarget, ensureSqliteFolder } from './database-url.js';
import { openSqliteFile } from './sqlite-adapter.js';

/**
 * Applies pending `prisma/<provider>/migrations/<name>/migration.sql` files, each in
 * a transaction with its row in Prisma's own `_prisma_migrations` table, so the same
 * folders also work with `prisma migrate deploy` wherever Prisma's engine binary can
 * be had. (The engine cannot be downloaded here; applying written SQL needs none of
 * its shadow-database machinery.)
 */

const PRISMA_DIR = fileURLToPath(projectFile('prisma/'));
// Prisma's own lock id, so this and `prisma migrate deploy` exclude each other too.
const ADVISORY_LOCK = 72707369;

const TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "checksum" TEXT NOT NULL,
    "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL,
    "logs" TEXT,
    "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
  postgresql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`,
};

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationFiles(provider: DatabaseTarget['provider']): MigrationFile[] {
  const dir = join(PRISMA_DIR, provider, 'migrations');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** What is pending, after refusing a history that was edited or left half-applied. */
function pending(files: MigrationFile[], applied: AppliedRow[]): MigrationFile[] {
  const live = applied.filter((r) => r.rolled_back_at === null);
  const failed = live.find((r) => r.finished_at === null);
  if (failed) throw new Error(`Migration ${failed.migration_name} failed earlier and was not resolved; fix the database, then mark it rolled back.`);
  const done = new Map(live.map((r) => [r.migration_name, r.checksum]));
  for (const file of files) {
    const checksum = done.get(file.name);
    if (checksum && checksum !== file.checksum) throw new Error(`Migration ${file.name} was changed after it was applied; add a new migration instead.`);
  }
  return files.filter((f) => !done.has(f.name));
}

export async function applyMigrations(target: DatabaseTarget, options: { log?: (line: string) => void; until?: string } = {}): Promise<string[]> {
  const log = options.log ?? (() => {});
  // `until`: the last migration to apply (a test of a later migration's data step starts there).
  const files = migrationFiles(target.provider).filter((f) => options.until === undefined || f.name <= options.until);
  const applied: string[] = [];

  if (target.provider === 'sqlite') {
    ensureSqliteFolder(target);
    const db = openSqliteFile(target.file, { timeout: 10_000 });
    try {
      db.pragma('journal_mode = WAL');
      db.exec(TABLE.sqlite);
      // BEGIN IMMEDIATE takes the write lock up front: two processes starting at once apply each file once.
      const run = db.transaction((file: MigrationFile) => {
        const rows = db.prepare('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"').all() as AppliedRow[];
        if (!pending(files, rows).some((f) => f.name === file.name)) return false;
        db.exec(file.sql);
        db.prepare(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)',
        ).run(randomUUID(), file.checksum, Date.now(), file.name, Date.now());
        return true;
      });
      const rows = db.prepare('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"').all() as AppliedRow[];
      for (const file of pending(files, rows)) {
        if (run.immediate(file)) {
          applied.push(file.name);
          log(`Applied migration ${file.name}`);
        }
      }
    } finally {
      db.close();
    }
    return applied;
  }

  // Loaded only for PostgreSQL: a SQLite process never holds the driver.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK]);
    await client.query(TABLE.postgresql);
    const { rows } = await client.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    for (const file of pending(files, rows)) {
      await client.query('BEGIN');
      try {
        await client.query(file.sql);
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)',
          [randomUUID(), file.checksum, file.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${file.name} failed and was rolled back: ${(error as Error).message}`);
      }
      applied.push(file.name);
      log(`Applied migration ${file.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}
