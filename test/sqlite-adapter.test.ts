import { ColumnTypeEnum, DriverAdapterError, type SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteAdapterFactory, openSqliteFile } from '../src/db/sqlite-adapter.js';

// The SQLite driver adapter under Prisma, on its own: what Prisma's engine sends and gets.
describe('SQLite driver adapter', () => {
  let adapter: SqlDriverAdapter | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await adapter?.dispose();
    adapter = undefined;
  });

  async function open(): Promise<SqlDriverAdapter> {
    adapter = await new SqliteAdapterFactory({ file: ':memory:' }).connect();
    await adapter.executeScript(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, big BIGINT, at DATETIME, price DECIMAL, flag BOOLEAN, raw BLOB)',
    );
    return adapter;
  }
  const text = { scalarType: 'string', arity: 'scalar' } as const;
  const insert = (name: string) => ({ sql: 'INSERT INTO t (name) VALUES (?)', args: [name], argTypes: [text] });

  it('stores and reads back each kind of value as Prisma expects', async () => {
    const db = await open();
    await db.executeRaw({
      sql: 'INSERT INTO t (name, big, at, price, flag, raw) VALUES (?, ?, ?, ?, ?, ?)',
      args: ['a', '9007199254740993', '2026-11-23T10:00:00.000Z', '12.50', true, Buffer.from('hi').toString('base64')],
      argTypes: [
        text,
        { scalarType: 'bigint', arity: 'scalar' },
        { scalarType: 'datetime', arity: 'scalar' },
        { scalarType: 'decimal', arity: 'scalar' },
        { scalarType: 'boolean', arity: 'scalar' },
        { scalarType: 'bytes', arity: 'scalar' },
      ],
    });
    const result = await db.queryRaw({ sql: 'SELECT id, name, big, at, price, flag, raw, 1 + 1 AS two FROM t', args: [], argTypes: [] });
    expect(result.columnNames).toEqual(['id', 'name', 'big', 'at', 'price', 'flag', 'raw', 'two']);
    expect(result.columnTypes).toEqual([
      ColumnTypeEnum.Int32,
      ColumnTypeEnum.Text,
      ColumnTypeEnum.Int64,
      ColumnTypeEnum.DateTime,
      ColumnTypeEnum.Numeric,
      ColumnTypeEnum.Boolean,
      ColumnTypeEnum.Bytes,
      ColumnTypeEnum.Int64,
    ]);
    // Past 2^53 an integer is text, so it is not rounded; timestamps are stored as Prisma's adapters store them.
    expect(result.rows).toEqual([[1, 'a', '9007199254740993', '2026-11-23T10:00:00.000+00:00', 12.5, 1, Buffer.from('hi'), 2]]);
  });

  it('keeps statement journals and temporary tables in memory, on the reading and the writing connection', async () => {
    // A statement that fires triggers journals itself; on disk that cost a write about 100 µs.
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-adapter-'));
    try {
      adapter = await new SqliteAdapterFactory({ file: join(dir, 'a.db') }).connect();
      const pragma = { sql: 'PRAGMA temp_store', args: [], argTypes: [] };
      const read = await adapter.queryRaw(pragma);
      const tx = await adapter.startTransaction();
      const written = await tx.queryRaw(pragma);
      await tx.commit();
      expect([read.rows, written.rows]).toEqual([[[2]], [[2]]]); // 2: MEMORY
    } finally {
      await adapter?.dispose();
      adapter = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prepares a statement once and reuses it', async () => {
    const db = await open();
    const Database = openSqliteFile(':memory:').constructor as { prototype: { prepare(sql: string): unknown } };
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    for (const name of ['a', 'b', 'c']) await db.executeRaw(insert(name));
    for (let i = 0; i < 3; i++) await db.queryRaw({ sql: 'SELECT name FROM t ORDER BY name', args: [], argTypes: [] });
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual(['INSERT INTO t (name) VALUES (?)', 'SELECT name FROM t ORDER BY name']);
    expect((await db.queryRaw({ sql: 'SELECT name FROM t ORDER BY name', args: [], argTypes: [] })).rows).toEqual([['a'], ['b'], ['c']]);
  });

  it("reports a unique violation as Prisma's known kind, with its field", async () => {
    const db = await open();
    await db.executeRaw(insert('a'));
    const error = await db.executeRaw(insert('a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DriverAdapterError);
    expect((error as DriverAdapterError).cause).toMatchObject({ kind: 'UniqueConstraintViolation', constraint: { fields: ['name'] }, table: 't' });
  });

  it('runs one transaction at a time on its one connection', async () => {
    const db = await open();
    const first = await db.startTransaction();
    let secondStarted = false;
    const second = db.startTransaction().then((tx) => {
      secondStarted = true;
      return tx;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondStarted).toBe(false);
    await first.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
    await first.commit();
    const tx = await second;
    expect(secondStarted).toBe(true);
    await tx.executeRaw({ sql: 'ROLLBACK', args: [], argTypes: [] });
    await tx.rollback();
  });

  it('refuses an isolation level SQLite cannot give', async () => {
    const db = await open();
    const error = await db.startTransaction('READ COMMITTED').catch((e: unknown) => e);
    expect((error as DriverAdapterError).cause).toEqual({ kind: 'InvalidIsolationLevel', level: 'READ COMMITTED' });
  });
});
