import { ColumnTypeEnum, DriverAdapterError, type SqlDriverAdapter, type SqlQuery } from '@prisma/driver-adapter-utils';
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

  describe('two processes on one file (two factories: their own connections, as two processes have)', () => {
    let dir: string;
    const opened: SqlDriverAdapter[] = [];
    afterEach(async () => {
      for (const a of opened.splice(0)) await a.dispose();
      rmSync(dir, { recursive: true, force: true });
    });
    async function twoProcesses(busyTimeoutMs = 10_000) {
      dir = mkdtempSync(join(tmpdir(), 'salesgraph-adapter-'));
      const file = join(dir, 'shared.db');
      const [a, b] = await Promise.all([new SqliteAdapterFactory({ file, busyTimeoutMs }).connect(), new SqliteAdapterFactory({ file, busyTimeoutMs }).connect()]);
      opened.push(a, b);
      await a.executeScript('PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
      return { a, b };
    }
    const insert = (name: string) => ({ sql: 'INSERT INTO t (name) VALUES (?)', args: [name], argTypes: [{ scalarType: 'string', arity: 'scalar' } as const] });
    const count = async (db: SqlDriverAdapter) => (await db.queryRaw({ sql: 'SELECT count(*) AS n FROM t', args: [], argTypes: [] })).rows[0]![0];
    /** Turns of the event loop until `settled` is true, counted (at most `limit`). */
    async function turnsUntil(settled: () => boolean, limit = 100_000): Promise<number> {
      let turns = 0;
      while (!settled() && turns < limit) {
        await new Promise((resolve) => setImmediate(resolve));
        turns += 1;
      }
      return turns;
    }

    it("waits for the other's write transaction, with the event loop free meanwhile, then writes after it", async () => {
      const { a, b } = await twoProcesses();
      const held = await a.startTransaction();
      // b read before a committed: a deferred transaction would now fail (SQLITE_BUSY_SNAPSHOT) however long it waited.
      expect(await count(b)).toBe(0);
      await held.executeRaw(insert('first'));
      let bDone = false;
      const bWrites = (async () => {
        const tx = await b.startTransaction();
        await tx.executeRaw({ sql: 'INSERT INTO t (name) SELECT ? || count(*) FROM t', args: ['after:'], argTypes: [{ scalarType: 'string', arity: 'scalar' }] });
        await tx.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
        await tx.commit();
        bDone = true;
      })();
      const lone = b.executeRaw(insert('lone'));
      // b waits without holding the loop: turns go by, and it has not written.
      expect(await turnsUntil(() => bDone, 20)).toBe(20);
      expect(bDone).toBe(false);
      await held.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
      await held.commit();
      await Promise.all([bWrites, lone]);
      const names = (await a.queryRaw({ sql: 'SELECT name FROM t ORDER BY id', args: [], argTypes: [] })).rows.map((r) => r[0]);
      // b's transaction counted a's row: it began after a's commit.
      expect(names).toEqual(['first', 'after:1', 'lone']);
    });

    it("answers Prisma's P1008 kind once the wait runs out, having written nothing", async () => {
      const { a, b } = await twoProcesses(200);
      const held = await a.startTransaction();
      await held.executeRaw(insert('held'));
      const [transaction, lone] = await Promise.all([b.startTransaction().catch((e: unknown) => e), b.executeRaw(insert('lone')).catch((e: unknown) => e)]);
      for (const error of [transaction, lone]) {
        expect(error).toBeInstanceOf(DriverAdapterError);
        expect((error as DriverAdapterError).cause).toMatchObject({ kind: 'SocketTimeout', originalMessage: 'the database file stayed locked by another writer for 0.2 s' });
      }
      await held.executeRaw({ sql: 'ROLLBACK', args: [], argTypes: [] });
      await held.rollback();
      expect(await count(b)).toBe(0);
      // Free again: b writes at once.
      await b.executeRaw(insert('now'));
      expect(await count(a)).toBe(1);
    });
  });

  it("reads on the long reads' worker thread as on the reader: the same rows, types and errors, and the last commit", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-adapter-'));
    const factory = new SqliteAdapterFactory({ file: join(dir, 'lanes.db') });
    const [ordinary, long] = await Promise.all([factory.connect(), factory.longReadsLane().connect()]);
    try {
      await ordinary.executeScript('PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, big BIGINT, at DATETIME, price DECIMAL, raw BLOB)');
      const write: SqlQuery = { sql: 'INSERT INTO t (name, big, at, price, raw) VALUES (?, ?, ?, ?, ?)', args: ['a', '9007199254740993', '2026-11-23T10:00:00.000Z', '12.50', Buffer.from('hi').toString('base64')], argTypes: [
        { scalarType: 'string', arity: 'scalar' },
        { scalarType: 'bigint', arity: 'scalar' },
        { scalarType: 'datetime', arity: 'scalar' },
        { scalarType: 'decimal', arity: 'scalar' },
        { scalarType: 'bytes', arity: 'scalar' },
      ] };
      // Written through the long lane (its writes are the writer's), read at once through both.
      await long.executeRaw(write);
      const select: SqlQuery = { sql: 'SELECT id, name, big, at, price, raw, NULL AS empty, 1 + 1 AS two FROM t WHERE raw = ?', args: [Buffer.from('hi').toString('base64')], argTypes: [{ scalarType: 'bytes', arity: 'scalar' }] };
      const [fromReader, fromWorker] = await Promise.all([ordinary.queryRaw(select), long.queryRaw(select)]);
      expect(fromWorker).toEqual(fromReader);
      expect(fromWorker.rows).toEqual([[1, 'a', '9007199254740993', '2026-11-23T10:00:00.000+00:00', 12.5, Buffer.from('hi'), null, 2]]);
      const error = await long.queryRaw({ sql: 'SELECT nope FROM t', args: [], argTypes: [] }).catch((e: unknown) => e);
      expect((error as DriverAdapterError).cause).toMatchObject({ kind: 'ColumnNotFound', column: 'nope' });
    } finally {
      await Promise.all([ordinary.dispose(), long.dispose()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
