import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type ArgType,
  type ColumnType,
  ColumnTypeEnum,
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Prisma's driver adapter for the embedded SQLite database, in place of
 * `@prisma/adapter-better-sqlite3`, for two reasons:
 * - better-sqlite3 12 wraps its objects in Node's raw `ObjectWrap`, which under
 *   Node 24 aborts the process when a statement is garbage-collected outside a
 *   JavaScript context (at exit, or on an idle GC). Release 13 is built on Node-API and
 *   is fine, but needs Node 22 or later; Prisma's adapter imports whichever one
 *   `better-sqlite3` resolves to. So Node 20 loads 12, and later lines load 13.
 * - Prisma's adapter prepares every statement anew; this one keeps the prepared
 *   statements of the service's fixed set of queries.
 * The value conversions are the ones Prisma's SQLite adapters use, so what is stored is
 * the same either way.
 */

const requireModule = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

export function openSqliteFile(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  return new (sqliteModule())(file, options);
}

let loaded: typeof BetterSqlite3 | undefined;
function sqliteModule(): typeof BetterSqlite3 {
  return (loaded ??= requireModule(sqliteModulePath()));
}

/** Where the driver this Node loads is (a worker thread loads it by this path). */
function sqliteModulePath(): string {
  if (NODE_MAJOR >= 22) return requireModule.resolve('better-sqlite3-node-api');
  try {
    return requireModule.resolve('better-sqlite3');
  } catch {
    // An optional dependency (npm goes on if its native build fails): only Node 20 needs it.
    throw new Error('better-sqlite3 12 is not installed or did not build for this Node; run `npm rebuild better-sqlite3`, or use Node 22+');
  }
}

/** More distinct statements than the service's queries ever produce; a bound on what raw SQL could add. */
const STATEMENT_CACHE_SIZE = 500;

interface PreparedQuery {
  statement: BetterSqlite3.Statement;
  columnNames: string[];
  declaredTypes: (string | null)[];
}

class StatementCache {
  readonly #statements = new Map<string, PreparedQuery>();
  constructor(private readonly db: BetterSqlite3.Database) {}

  get(sql: string): PreparedQuery {
    let prepared = this.#statements.get(sql);
    if (prepared) {
      // Most recently used last, so eviction takes the oldest.
      this.#statements.delete(sql);
    } else {
      const statement = this.db.prepare(sql);
      const columns = statement.reader ? statement.columns() : [];
      if (statement.reader) statement.raw(true);
      prepared = { statement, columnNames: columns.map((c) => c.name), declaredTypes: columns.map((c) => c.type) };
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  clear(): void {
    this.#statements.clear();
  }
}

const ADAPTER_NAME = 'salesgraph-sqlite';

class SqliteQueryable {
  readonly provider = 'sqlite' as const;
  readonly adapterName = ADAPTER_NAME;
  constructor(protected readonly statements: StatementCache) {}

  async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.run(() => {
      const { statement, columnNames, declaredTypes } = this.statements.get(query.sql);
      if (!statement.reader) {
        statement.run(sqliteArgs(query));
        return { columnNames: [], columnTypes: [], rows: [] };
      }
      return resultSetOf(columnNames, declaredTypes, statement.all(sqliteArgs(query)) as unknown[][]);
    });
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    return this.run(() => {
      const { statement } = this.statements.get(query.sql);
      // A statement with RETURNING is a reader; run it to the end all the same.
      const args = sqliteArgs(query);
      return statement.reader ? (statement.all(args), 0) : statement.run(args).changes;
    });
  }

  protected run<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw asDriverError(error);
    }
  }
}

class SqliteTransaction extends SqliteQueryable implements Transaction {
  // Prisma sends BEGIN/COMMIT/ROLLBACK itself; the adapter only releases the lock.
  readonly options = { usePhantomQuery: false };
  constructor(
    statements: StatementCache,
    private readonly release: () => void,
  ) {
    super(statements);
  }
  async commit(): Promise<void> {
    this.release();
  }
  async rollback(): Promise<void> {
    this.release();
  }
  async createSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `SAVEPOINT ${name}`, args: [], argTypes: [] });
  }
  async rollbackToSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `ROLLBACK TO ${name}`, args: [], argTypes: [] });
  }
  async releaseSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `RELEASE SAVEPOINT ${name}`, args: [], argTypes: [] });
  }
}

/**
 * The writer connection's turns: one transaction (or lone write) at a time, in the order
 * asked, except that a priority turn (the background loops' client: `priorityLane`)
 * goes before every waiting ordinary one. Under a queue of request writes, the delivery
 * worker's short claims and outcomes would otherwise wait behind all of them, and the
 * deliveries of writes already committed with them.
 */
class WriterTurns {
  #held = false;
  readonly #priority: (() => void)[] = [];
  readonly #ordinary: (() => void)[] = [];

  /** Resolves once this turn has the writer; returns its release. */
  async take(priority: boolean): Promise<() => void> {
    if (this.#held) await new Promise<void>((resolve) => (priority ? this.#priority : this.#ordinary).push(resolve));
    this.#held = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#priority.shift() ?? this.#ordinary.shift();
      if (next) next();
      else this.#held = false;
    };
  }
}

/**
 * Which connection an adapter's reads (outside a transaction) use: the reader connection
 * (`ordinary` requests, and the background loops' `priority` client, whose writer turns go
 * first), or a worker thread's connection (`long-reads`: exports' pages, searches,
 * reports, a stream's replay), where a long statement holds neither the event loop nor
 * the reader that short requests use.
 */
type Lane = 'ordinary' | 'priority' | 'long-reads';

/**
 * A connection of its own on a worker thread, for reads only (`query_only`). A read is
 * sent as its SQL and bound values; its rows come back as a message, a turn of the event
 * loop later, as a PostgreSQL answer does. The thread runs this script (plain JavaScript:
 * it loads under tsx, vitest and the compiled build alike) and is let go while idle.
 */
const READ_WORKER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.defaultSafeIntegers(true);
db.pragma('query_only = ON');
db.pragma('temp_store = MEMORY');
const statements = new Map();
parentPort.on('message', ({ id, sql, args }) => {
  try {
    let prepared = statements.get(sql);
    if (!prepared) {
      const statement = db.prepare(sql);
      const columns = statement.columns();
      statement.raw(true);
      prepared = { statement, columnNames: columns.map((c) => c.name), declaredTypes: columns.map((c) => c.type) };
      if (statements.size >= ${STATEMENT_CACHE_SIZE}) statements.delete(statements.keys().next().value);
      statements.set(sql, prepared);
    }
    const values = args.map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
    parentPort.postMessage({ id, columnNames: prepared.columnNames, declaredTypes: prepared.declaredTypes, rows: prepared.statement.all(values) });
  } catch (error) {
    parentPort.postMessage({ id, error: { code: typeof error?.code === 'string' ? error.code : 'SQLITE_ERROR', message: String(error?.message ?? error) } });
  }
});
`;

interface WorkerRows {
  columnNames: string[];
  declaredTypes: (string | null)[];
  rows: unknown[][];
}

class WorkerReader {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (rows: WorkerRows) => void; reject: (error: unknown) => void }>();
  #next = 0;

  constructor(file: string, busyTimeoutMs: number) {
    this.#worker = new Worker(READ_WORKER_SCRIPT, { eval: true, workerData: { file, busyTimeoutMs, modulePath: sqliteModulePath() } });
    this.#worker.unref();
    this.#worker.on('message', (message: WorkerRows & { id: number; error?: SqliteError }) => {
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (message.error) waiting?.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiting?.resolve(message);
    });
    this.#worker.on('error', (error) => this.#failAll(error));
    this.#worker.on('exit', () => this.#failAll(new Error('the read worker stopped')));
  }

  read(sql: string, args: unknown[]): Promise<WorkerRows> {
    const id = this.#next++;
    if (this.#waiting.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id, sql, args });
    });
  }

  close(): void {
    void this.#worker.terminate();
  }

  #failAll(error: unknown): void {
    for (const { reject } of this.#waiting.values()) reject(error);
    this.#waiting.clear();
  }
}

/** A worker's rows as Prisma takes them (blobs come back as Uint8Array: Buffers again). */
async function resultSet(pending: Promise<WorkerRows>): Promise<SqlResultSet> {
  let answer: WorkerRows;
  try {
    answer = await pending;
  } catch (error) {
    throw asDriverError(error);
  }
  const rows = answer.rows.map((row) => row.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v)));
  return resultSetOf(answer.columnNames, answer.declaredTypes, rows);
}

/**
 * The write lock of the file, which other processes (cluster workers, the command line's
 * import, a second service) take too. The writer connection never waits for it inside
 * SQLite (busy timeout 0: that wait would hold the event loop); a write that finds it
 * taken is tried again after a pause that grows from 1 to 50 ms, until `timeoutMs`.
 * Only the statement that takes the lock comes here (BEGIN IMMEDIATE, or a lone write,
 * which SQLite rolls back whole when it is busy), so trying again is safe.
 */
class FileWriteLock {
  constructor(private readonly timeoutMs: number) {}

  async when<T>(attempt: () => T | Promise<T>): Promise<T> {
    const deadline = performance.now() + this.timeoutMs;
    for (let pause = 1; ; pause = Math.min(50, pause * 2)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (performance.now() + pause > deadline) throw databaseBusy(this.timeoutMs);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The file's connections and the writer's turns, shared by the adapters of one factory and its lanes. */
interface SqliteFile {
  writer: { db: BetterSqlite3.Database; statements: StatementCache };
  reader?: { db: BetterSqlite3.Database; queryable: SqliteQueryable; statements: StatementCache };
  /** The long reads' worker thread, started by the first long read. */
  longReader(): WorkerReader;
  turns: WriterTurns;
  writeLock: FileWriteLock;
  close(): void;
}

/**
 * One writer connection, whose transactions take turns, and one reader connection.
 * better-sqlite3 is synchronous but a Prisma transaction spans awaits: a statement sent
 * outside it while it is open would run inside it on the same connection (reading its
 * uncommitted rows, or writing rows its rollback then undoes). So a statement outside a
 * transaction either reads through the reader (WAL: the last committed state, never
 * blocked by the writer) or writes on the writer in its own turn, after the open
 * transaction ends.
 */
class SqliteAdapter extends SqliteQueryable implements SqlDriverAdapter {
  private readonly reader: SqliteFile['reader'];
  constructor(
    private readonly file: SqliteFile,
    private readonly lane: Lane,
  ) {
    super(file.writer.statements);
    this.reader = file.reader;
  }

  override async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    if (this.readsOnly(query)) {
      if (this.lane !== 'long-reads') return this.reader!.queryable.queryRaw(query);
      return resultSet(this.file.longReader().read(query.sql, sqliteArgs(query)));
    }
    return this.inTurn(() => super.queryRaw(query));
  }

  override async executeRaw(query: SqlQuery): Promise<number> {
    return this.inTurn(() => super.executeRaw(query));
  }

  async executeScript(script: string): Promise<void> {
    await this.inTurn(async () => this.run(() => this.file.writer.db.exec(script)));
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    if (isolationLevel && isolationLevel !== 'SERIALIZABLE') throw new DriverAdapterError({ kind: 'InvalidIsolationLevel', level: isolationLevel });
    const release = await this.file.turns.take(this.lane === 'priority');
    try {
      // IMMEDIATE: the file's write lock is taken here, before the transaction reads. A
      // deferred BEGIN would read a snapshot first, and its first write would then fail
      // (SQLITE_BUSY_SNAPSHOT) whenever another process had committed since: no wait helps.
      await this.file.writeLock.when(() => this.run(() => this.statements.get('BEGIN IMMEDIATE').statement.run()));
    } catch (error) {
      release();
      throw error;
    }
    return new SqliteTransaction(this.statements, release);
  }

  #disposed = false;
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.file.close();
  }

  private readsOnly(query: SqlQuery): boolean {
    if (!this.reader) return false;
    try {
      return this.reader.statements.get(query.sql).statement.readonly;
    } catch {
      return false; // the writer reports the error
    }
  }

  /** A write outside a transaction: in the writer's turn, once the file's write lock is free. */
  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.file.turns.take(this.lane === 'priority');
    try {
      return await this.file.writeLock.when(work);
    } finally {
      release();
    }
  }
}

/**
 * The schema engine's throwaway database, with two of the engine's habits met:
 * - it applies each migration file as one `executeRaw` without arguments, which a
 *   prepared statement (one statement) refuses: such a call runs as a script;
 * - it looks up a partial index's SQL with the index name in double quotes, a string
 *   literal only where SQLite's "double-quoted strings" misfeature is on (better-sqlite3
 *   builds it off): that one lookup gets single quotes.
 */
class ShadowSqliteAdapter extends SqliteAdapter {
  override async executeRaw(query: SqlQuery): Promise<number> {
    if (query.args.length > 0) return super.executeRaw(query);
    await this.executeScript(query.sql);
    return 0;
  }

  override async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    const sql = query.sql.replace(/^(SELECT sql FROM sqlite_master WHERE type = 'index' AND name = )"([^"']*)";$/, "$1'$2';");
    return super.queryRaw({ ...query, sql });
  }
}

export class SqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'sqlite' as const;
  readonly adapterName = ADAPTER_NAME;
  /** The open file and how many adapters (of this factory and its priority lane) use it. */
  #open?: { file: SqliteFile; users: number };

  /** `lane`: the factory whose connections this one's adapters share, and how they use them (see Lane). */
  constructor(
    private readonly config: { file: string; busyTimeoutMs?: number },
    private readonly lane?: { of: SqliteAdapterFactory; kind: Exclude<Lane, 'ordinary'> },
  ) {}

  /**
   * A factory for a second client on the same connections, whose writer turns go before
   * the waiting ones of this factory's adapters (see WriterTurns): the background loops'.
   */
  priorityLane(): SqliteAdapterFactory {
    return new SqliteAdapterFactory(this.config, { of: this, kind: 'priority' });
  }

  /** A factory for a client whose reads run on the worker thread's connection (see Lane); its writes share the writer. */
  longReadsLane(): SqliteAdapterFactory {
    return new SqliteAdapterFactory(this.config, { of: this, kind: 'long-reads' });
  }

  async connect(): Promise<SqlDriverAdapter> {
    return this.lane ? new SqliteAdapter(this.lane.of.acquire(), this.lane.kind) : new SqliteAdapter(this.acquire(), 'ordinary');
  }

  /** Prisma's schema engine diffs the migrations folder against a throwaway database (scripts/schema-engine.ts). */
  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    return new ShadowSqliteAdapter(openFile(':memory:', this.config.busyTimeoutMs), 'ordinary');
  }

  /** The file's connections, opened for the first adapter; each adapter's `close` lets go of them, and the last closes them. */
  private acquire(): SqliteFile {
    const open = (this.#open ??= { file: openFile(this.config.file, this.config.busyTimeoutMs), users: 0 });
    open.users += 1;
    return {
      ...open.file,
      close: () => {
        open.users -= 1;
        if (open.users > 0) return;
        if (this.#open === open) this.#open = undefined;
        open.file.close();
      },
    };
  }
}

function openFile(file: string, busyTimeoutMs = 10_000): SqliteFile {
  const connect = (timeout: number) => {
    const db = openSqliteFile(file, { timeout });
    // Integers come back as bigint and are narrowed per value below, so none is rounded.
    db.defaultSafeIntegers(true);
    // A statement that fires triggers (the list counts', the event outbox's) keeps a statement
    // journal to undo itself; in a temp file, as by default, it cost a write about 100 µs.
    db.pragma('temp_store = MEMORY');
    return { db, statements: new StatementCache(db) };
  };
  // The writer waits for the file's write lock in FileWriteLock, never inside SQLite.
  const writer = connect(0);
  // An in-memory database is private to its connection: it has no second one. The reader
  // is never refused in WAL mode but for a moment's recovery of the log, short enough to wait for.
  const reader = file === ':memory:' ? undefined : connect(busyTimeoutMs);
  let longReader: WorkerReader | undefined;
  return {
    writer,
    reader: reader && { ...reader, queryable: new SqliteQueryable(reader.statements) },
    longReader: () => (longReader ??= new WorkerReader(file, busyTimeoutMs)),
    turns: new WriterTurns(),
    writeLock: new FileWriteLock(busyTimeoutMs),
    close() {
      writer.statements.clear();
      writer.db.close();
      reader?.statements.clear();
      reader?.db.close();
      longReader?.close();
    },
  };
}

// --- Values in and out ---

const sqliteArgs = (query: SqlQuery) => query.args.map((arg, i) => toSqliteValue(arg, query.argTypes[i]));

function toSqliteValue(arg: unknown, argType: ArgType | undefined): unknown {
  if (arg === null) return null;
  if (typeof arg === 'boolean') return arg ? 1 : 0;
  if (typeof arg === 'string') {
    switch (argType?.scalarType) {
      case 'int':
        return Number.parseInt(arg, 10);
      case 'float':
      case 'decimal':
        return Number.parseFloat(arg);
      case 'bigint':
        return BigInt(arg);
      case 'bytes':
        return Buffer.from(arg, 'base64');
      case 'datetime':
        return sqliteTimestamp(new Date(arg));
    }
  }
  if (arg instanceof Date) return sqliteTimestamp(arg);
  return arg;
}

/** The text form Prisma's SQLite adapters store, so rows compare as before. */
function sqliteTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/** A statement's rows as Prisma takes them, from whichever connection read them. */
function resultSetOf(columnNames: string[], declaredTypes: (string | null)[], rows: unknown[][]): SqlResultSet {
  const columnTypes = columnTypesOf(declaredTypes, rows);
  return { columnNames, columnTypes, rows: rows.map((row) => fromSqliteRow(row, columnTypes)) };
}

function fromSqliteRow(row: unknown[], columnTypes: ColumnType[]): unknown[] {
  return row.map((value, i) => {
    const type = columnTypes[i];
    if (typeof value === 'number' && (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) && !Number.isInteger(value)) return Math.trunc(value);
    if ((typeof value === 'number' || typeof value === 'bigint') && type === ColumnTypeEnum.DateTime) return new Date(Number(value)).toISOString();
    if (typeof value === 'bigint') {
      const asNumber = Number(value);
      return Number.isSafeInteger(asNumber) ? asNumber : value.toString();
    }
    return value;
  });
}

const DECLARED_TYPES: Record<string, ColumnType> = {
  DECIMAL: ColumnTypeEnum.Numeric,
  FLOAT: ColumnTypeEnum.Float,
  DOUBLE: ColumnTypeEnum.Double,
  'DOUBLE PRECISION': ColumnTypeEnum.Double,
  NUMERIC: ColumnTypeEnum.Double,
  REAL: ColumnTypeEnum.Double,
  TINYINT: ColumnTypeEnum.Int32,
  SMALLINT: ColumnTypeEnum.Int32,
  MEDIUMINT: ColumnTypeEnum.Int32,
  INT: ColumnTypeEnum.Int32,
  INTEGER: ColumnTypeEnum.Int32,
  SERIAL: ColumnTypeEnum.Int32,
  INT2: ColumnTypeEnum.Int32,
  BIGINT: ColumnTypeEnum.Int64,
  'UNSIGNED BIG INT': ColumnTypeEnum.Int64,
  INT8: ColumnTypeEnum.Int64,
  DATETIME: ColumnTypeEnum.DateTime,
  TIMESTAMP: ColumnTypeEnum.DateTime,
  TIME: ColumnTypeEnum.Time,
  DATE: ColumnTypeEnum.Date,
  TEXT: ColumnTypeEnum.Text,
  CLOB: ColumnTypeEnum.Text,
  CHARACTER: ColumnTypeEnum.Text,
  VARCHAR: ColumnTypeEnum.Text,
  'VARYING CHARACTER': ColumnTypeEnum.Text,
  NCHAR: ColumnTypeEnum.Text,
  'NATIVE CHARACTER': ColumnTypeEnum.Text,
  NVARCHAR: ColumnTypeEnum.Text,
  BLOB: ColumnTypeEnum.Bytes,
  BOOLEAN: ColumnTypeEnum.Boolean,
  JSONB: ColumnTypeEnum.Json,
};

/** Declared column types where SQLite knows them; for expressions, the first non-null value's type. */
function columnTypesOf(declaredTypes: (string | null)[], rows: unknown[][]): ColumnType[] {
  return declaredTypes.map((declared, column) => {
    const known = declared === null ? undefined : DECLARED_TYPES[declared.toUpperCase()];
    if (known !== undefined) return known;
    const sample = rows.find((row) => row[column] !== null)?.[column];
    return sample === undefined ? ColumnTypeEnum.Int32 : inferredType(sample);
  });
}

function inferredType(value: unknown): ColumnType {
  switch (typeof value) {
    case 'string':
      return ColumnTypeEnum.Text;
    case 'bigint':
      return ColumnTypeEnum.Int64;
    case 'boolean':
      return ColumnTypeEnum.Boolean;
    case 'number':
      return ColumnTypeEnum.UnknownNumber;
    default:
      if (value instanceof Uint8Array || value instanceof ArrayBuffer) return ColumnTypeEnum.Bytes;
      throw new Error(`unexpected SQLite value of type ${typeof value}`);
  }
}

// --- Errors, as Prisma's known kinds (unique, not-null and foreign-key violations, busy) ---

/** An error of SQLite's as Prisma's driver error; anything else as it is. */
function asDriverError(error: unknown): unknown {
  return isSqliteError(error) && !(error instanceof DriverAdapterError) ? new DriverAdapterError({ originalCode: error.code, originalMessage: error.message, ...driverErrorOf(error) }) : error;
}

interface SqliteError {
  code: string;
  message: string;
}

function isSqliteError(error: unknown): error is SqliteError {
  return typeof (error as SqliteError | null)?.code === 'string' && typeof (error as SqliteError).message === 'string';
}

const SQLITE_BUSY = 5;

/** A statement refused because another connection holds the file's lock (thrown by `run`, as Prisma's error). */
const isBusy = (error: unknown) => error instanceof DriverAdapterError && error.cause.kind === 'SocketTimeout';

/** The lock was still taken when the wait ran out: Prisma's P1008 (src/db/errors.ts: `isDatabaseBusy`). */
const databaseBusy = (timeoutMs: number) =>
  new DriverAdapterError({ kind: 'SocketTimeout', originalCode: 'SQLITE_BUSY', originalMessage: `the database file stayed locked by another writer for ${timeoutMs / 1000} s` });
const UNKNOWN_CODE_PREFIX = 'UNKNOWN_SQLITE_ERROR_';

function constraintFields(message: string): string[] | undefined {
  return message
    .split('constraint failed: ')
    .at(1)
    ?.split(', ')
    .map((column) => column.split('.').pop()!);
}

function driverErrorOf(error: SqliteError): ConstructorParameters<typeof DriverAdapterError>[0] {
  const { code, message } = error;
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY': {
      const fields = constraintFields(message);
      const table = message.split('constraint failed: ').at(1)?.split(', ').at(0)?.split('.').slice(0, -1).join('.') || undefined;
      return { kind: 'UniqueConstraintViolation', constraint: fields ? { fields } : undefined, table };
    }
    case 'SQLITE_CONSTRAINT_NOTNULL': {
      const fields = constraintFields(message);
      return { kind: 'NullConstraintViolation', constraint: fields ? { fields } : undefined };
    }
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
    case 'SQLITE_CONSTRAINT_TRIGGER':
      return { kind: 'ForeignKeyConstraintViolation', constraint: { foreignKey: {} } };
  }
  const extendedCode = code.startsWith(UNKNOWN_CODE_PREFIX) ? Number(code.slice(UNKNOWN_CODE_PREFIX.length)) : undefined;
  if (code.startsWith('SQLITE_BUSY') || (Number.isInteger(extendedCode) && (extendedCode! & 0xff) === SQLITE_BUSY)) return { kind: 'SocketTimeout' };
  if (message.startsWith('no such table')) return { kind: 'TableDoesNotExist', table: message.split(': ').at(1) };
  if (message.startsWith('no such column')) return { kind: 'ColumnNotFound', column: message.split(': ').at(1) };
  if (message.includes('has no column named ')) return { kind: 'ColumnNotFound', column: message.split('has no column named ').at(1) };
  return { kind: 'sqlite', extendedCode: Number.isInteger(extendedCode) ? extendedCode! : 1, message };
}
