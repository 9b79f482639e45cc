import type { PrismaClient as SqliteClient } from '../generated/sqlite/client.js';
import { type DatabaseTarget, ensureSqliteFolder } from './database-url.js';
import { serialTransactions } from './serial-transactions.js';
import { timedStatements } from './timed-statements.js';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { SqliteAdapterFactory } from './sqlite-adapter.js';

/**
 * Both generated clients have the same model API (one source of models), so the
 * rest of the code is typed against one of them.
 */
export type Db = SqliteClient;

/** Which database a client talks to, for the few statements written per dialect (raw SQL). */
export const providerOf = (db: Db): 'sqlite' | 'postgresql' => (db as unknown as { _activeProvider: 'sqlite' | 'postgresql' })._activeProvider;

/** `random_page_cost` of the service's PostgreSQL sessions (see openDatabase). */
export const RANDOM_PAGE_COST = 1.1;

/** The settings every PostgreSQL session of the service starts with (node-postgres `options`). */
export const POSTGRES_SESSION_OPTIONS = `-c random_page_cost=${RANDOM_PAGE_COST}`;

/** PostgreSQL connections of the requests' pool, in each process. */
export const REQUEST_POOL_SIZE = 10;

/** PostgreSQL connections of the background loops' own pool (see Database.background), in each process. */
export const BACKGROUND_POOL_SIZE = 3;

/** PostgreSQL connections of the long reads' own pool (see Database.longReads), in each process. */
export const LONG_READS_POOL_SIZE = 4;

export interface Database {
  prisma: Db;
  /**
   * The client of the loops beside the requests (the delivery worker, the purges), made
   * on first use: on PostgreSQL with a pool of its own, on SQLite on the same connections
   * with writer turns that go first. Either way their statements never queue behind a
   * backlog of requests, so under a burst of writes the deliveries of those already
   * committed still go out at once (and the loops never take a request's connection).
   */
  readonly background: Db;
  /**
   * The client of the reads that can run long (an export's pages, searches, reports, a
   * stream's replay), made on first use: on SQLite its reads run on a worker thread's
   * connection, on PostgreSQL on a pool of their own. A long statement then holds neither
   * the event loop nor a connection that short requests wait for (API.md section 5).
   * Its writes, if any, are the requests' (one writer on SQLite).
   */
  readonly longReads: Db;
  target: DatabaseTarget;
  /** Called with every SQL statement the client sends and its parameters (JSON), when opened with `statements`. */
  onStatement(listener: ((sql: string, params: string) => void) | undefined): void;
  /** The requests' PostgreSQL pool: connections open, idle, and requests waiting for one (undefined on SQLite, which has no pool). */
  poolConnections(): { total: number; idle: number; waiting: number } | undefined;
  /** Told each statement's duration in milliseconds (the metrics), when opened with `timings`; false otherwise. */
  timeStatements(timer: (milliseconds: number) => void): boolean;
  close(): Promise<void>;
}

/**
 * `statements`: emit every SQL statement to `onStatement` (tests count them, the scale
 * benchmark explains them); off in the service, where nobody listens. `timings`: time
 * each statement for `timeStatements` (the metrics, when they are kept).
 */
export async function openDatabase(target: DatabaseTarget, options: { statements?: boolean; timings?: boolean } = {}): Promise<Database> {
  let listener: ((sql: string, params: string) => void) | undefined;
  let timer: ((milliseconds: number) => void) | undefined;
  // The requests' statements timed at the driver (GET /metrics), only when asked for at open: otherwise no wrapper at all.
  const timing = <F extends SqlDriverAdapterFactory>(factory: F): F => (options.timings ? timedStatements(factory, () => timer) : factory);
  // `minimal`: Prisma would otherwise capture a stack trace at every call (~5% of a GET's
  // CPU) to point its error messages at the caller; those messages never leave the
  // process, and the log names errors by name and code only.
  const settings = { errorFormat: 'minimal', ...(options.statements ? { log: [{ emit: 'event', level: 'query' }] } : {}) } as const;
  let prisma: Db;
  let makeBackground: () => Db;
  let makeLongReads: () => Db;
  let poolConnections: Database['poolConnections'] = () => undefined;
  // Only the target's generated client and driver are loaded: a process never holds the other's.
  if (target.provider === 'sqlite') {
    ensureSqliteFolder(target);
    const { PrismaClient } = await import('../generated/sqlite/client.js');
    const adapter = new SqliteAdapterFactory({ file: target.file, busyTimeoutMs: 10_000 });
    prisma = new PrismaClient({ adapter: timing(adapter), ...settings } as never) as unknown as Db;
    makeBackground = () => new PrismaClient({ adapter: adapter.priorityLane(), errorFormat: settings.errorFormat } as never) as unknown as Db;
    makeLongReads = () => new PrismaClient({ adapter: timing(adapter.longReadsLane()), ...settings } as never) as unknown as Db;
  } else {
    const [{ PrismaClient }, { PrismaPg }] = await Promise.all([import('../generated/postgresql/client.js'), import('@prisma/adapter-pg')]);
    // The planner's random-page cost for SSDs (PostgreSQL's default, 4, models spinning
    // disks): with 4, a GraphQL page of 100 deals with their contacts scanned a small
    // workspace's whole Contact table once per deal (115 ms); with 1.1 it reads the two
    // contacts by key (4.5 ms). Set for the service's own sessions only.
    // The pools are ours, handed to the adapter (which ends them at disconnect), so that their connections can be counted (GET /metrics).
    const { default: pg } = await import('pg');
    const pool = (max: number) => new pg.Pool({ connectionString: target.url, max, options: POSTGRES_SESSION_OPTIONS });
    const adapterOf = (of: InstanceType<typeof pg.Pool>) => serialTransactions(new PrismaPg(of, { disposeExternalPool: true }));
    const requestPool = pool(REQUEST_POOL_SIZE);
    poolConnections = () => ({ total: requestPool.totalCount, idle: requestPool.idleCount, waiting: requestPool.waitingCount });
    prisma = new PrismaClient({ adapter: timing(adapterOf(requestPool)), ...settings } as never) as unknown as Db;
    makeBackground = () => new PrismaClient({ adapter: adapterOf(pool(BACKGROUND_POOL_SIZE)), errorFormat: settings.errorFormat } as never) as unknown as Db;
    makeLongReads = () => new PrismaClient({ adapter: timing(adapterOf(pool(LONG_READS_POOL_SIZE))), ...settings } as never) as unknown as Db;
  }
  let background: Db | undefined;
  let longReads: Db | undefined;
  // A request's statements are its own whichever client sends them (tests count them).
  const observe = (client: Db) => {
    if (options.statements) (client as unknown as { $on(e: 'query', cb: (e: { query: string; params: string }) => void): void }).$on('query', (e) => listener?.(e.query, e.params));
    return client;
  };
  if (target.provider === 'sqlite') {
    // WAL lets readers run while a write commits; the API serves both at once.
    await prisma.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  }
  observe(prisma);
  return {
    prisma,
    get background() {
      return (background ??= makeBackground());
    },
    get longReads() {
      return (longReads ??= observe(makeLongReads()));
    },
    target,
    poolConnections: () => poolConnections(),
    timeStatements(next) {
      if (!options.timings) return false;
      timer = next;
      return true;
    },
    onStatement(next) {
      if (next && !options.statements) throw new Error('open the database with { statements: true } to observe its statements');
      listener = next;
    },
    close: async () => {
      await Promise.all([prisma.$disconnect(), background?.$disconnect(), longReads?.$disconnect()]);
    },
  };
}
