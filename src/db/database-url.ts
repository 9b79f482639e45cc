import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Where the data lives: the embedded default (a SQLite file) or a PostgreSQL server. */
export type DatabaseTarget =
  | { provider: 'sqlite'; file: string }
  | { provider: 'postgresql'; url: string };

export const DEFAULT_SQLITE_FILE = './data/salesgraph.db';

/**
 * No DATABASE_URL means the embedded default, `./data/salesgraph.db`;
 * `file:<path>` picks another SQLite file; `postgres(ql)://` selects PostgreSQL.
 */
export function resolveDatabase(url: string | undefined): DatabaseTarget {
  if (!url) return { provider: 'sqlite', file: resolve(DEFAULT_SQLITE_FILE) };
  if (/^postgres(ql)?:\/\//i.test(url)) return { provider: 'postgresql', url };
  if (url.startsWith('file:')) return { provider: 'sqlite', file: resolve(url.slice('file:'.length)) };
  throw new Error('DATABASE_URL must be a postgresql:// URL or a file: path');
}

/** The SQLite file's folder exists before anything opens it. */
export function ensureSqliteFolder(target: DatabaseTarget): void {
  if (target.provider === 'sqlite') mkdirSync(dirname(target.file), { recursive: true });
}
