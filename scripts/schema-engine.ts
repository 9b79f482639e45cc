// Prisma's schema engine, run as WebAssembly (@prisma/schema-engine-wasm) with no binary,
// for one job: the SQL that takes the database the migrations folder builds to the one
// prisma/models.prisma declares. `migration:create` writes it as the next migration; the
// drift test (test/migration-drift.test.ts) requires it to be empty.
//
// The engine replays the migrations on a throwaway "shadow" database of the driver
// adapter's making: SQLite's in memory (src/db/sqlite-adapter.ts), PostgreSQL's a scratch
// database (below). See ../shared/PRISMA-OFFLINE.md for why this is done by hand.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory, bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';
import { SqliteAdapterFactory } from '../src/db/sqlite-adapter.js';
import { schemaText } from './prisma-generate.mjs';

export type Provider = 'sqlite' | 'postgresql';

const DEFAULT_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const root = new URL('..', import.meta.url).pathname;

/** The provider's migrations folder. */
export const migrationsDir = (provider: Provider) => join(root, 'prisma', provider, 'migrations');

interface Engine {
  diff(params: unknown): Promise<{ exitCode: number; stdout?: string }>;
  free?(): void;
}
type EngineClass = { new: (options: unknown, log: (message: string) => void, adapter: unknown) => Promise<Engine> };

let engineClass: EngineClass | undefined;

/** Loads the engine by hand: its default ESM entry imports a .wasm file, which Node 20 cannot. */
async function loadEngine(): Promise<EngineClass> {
  if (engineClass) return engineClass;
  const require = createRequire(import.meta.url);
  const wasmPath = join(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/schema_engine_bg\.js$/, ''), 'schema_engine_bg.wasm');
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), { './schema_engine_bg.js': glue });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as unknown as { __wbindgen_start(): void }).__wbindgen_start();
  return (engineClass = glue.SchemaEngine as unknown as EngineClass);
}

/**
 * PostgreSQL through Prisma's pg adapter, with a shadow database that works. Prisma's own
 * `connectToShadowDb` keeps the connection string (so its "shadow" is the main database),
 * runs a script split at every `;` (which cuts `$$` function bodies), cannot read the
 * catalog's `"char"` columns, and drops the
 * database while its pool still holds connections. Here the scratch database gets its own
 * pool, a script goes to the server whole (the simple protocol takes several statements),
 * and the database is dropped after the pool ends.
 */
const CHAR_OID = 18;
const TEXT_OID = 25;

class PostgresShadowFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  constructor(private readonly adminUrl: string) {}

  connect(): Promise<SqlDriverAdapter> {
    return new PrismaPg({ connectionString: this.adminUrl }).connect();
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `salesgraph_shadow_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client({ connectionString: this.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    // The catalog's one-byte `"char"` columns (relkind, contype...) are text to the engine;
    // the adapter knows no such type and fails the whole introspection on them.
    const query = pool.query.bind(pool) as (config: unknown) => Promise<pg.QueryResult>;
    pool.query = (async (config: unknown) => {
      const result = await query(config);
      for (const field of result.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
      return result;
    }) as typeof pool.query;
    const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
    return Object.assign(adapter, {
      executeScript: async (script: string) => {
        await pool.query(script);
      },
      dispose: async () => {
        await pool.end();
        await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
        await admin.end();
      },
    });
  }
}

function adapterFactory(provider: Provider, adminUrl: string) {
  const factory = provider === 'sqlite' ? new SqliteAdapterFactory({ file: ':memory:' }) : new PostgresShadowFactory(adminUrl);
  return bindMigrationAwareSqlAdapterFactory(factory as never);
}

/** The migrations folder as the engine takes it. */
function migrationList(provider: Provider) {
  const dir = migrationsDir(provider);
  const lock = join(dir, 'migration_lock.toml');
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lock) ? readFileSync(lock, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: (existsSync(dir) ? readdirSync(dir) : [])
      .filter((entry) => existsSync(join(dir, entry, 'migration.sql')))
      .sort()
      .map((entry) => ({ path: entry, migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: readFileSync(join(dir, entry, 'migration.sql'), 'utf8') } } })),
  };
}

/**
 * What models.prisma cannot declare, since it serves both providers, written into
 * migrations by hand and named by convention: PostgreSQL's trigram and text-search
 * indexes (`*_trgm_idx`, `*_fts_idx`), its indexes no SQLite table needs (`*_pg_idx`) and SQLite's FTS5 tables (`*_fts`, with the shadow
 * tables FTS5 makes, `*_fts_data` and so on). The engine, not knowing them, would drop them.
 */
const HAND_WRITTEN_DROP = [/^-- DropIndex\nDROP INDEX "\w+_(trgm|fts|pg)_idx";$/, /^-- DropTable\nPRAGMA foreign_keys=off;\nDROP TABLE "\w+_fts(_\w+)?";\nPRAGMA foreign_keys=on;$/];

/**
 * The SQL from the database the provider's migrations build to the one models.prisma
 * declares (or `current`, a whole schema: the drift test's altered copy); empty when they agree. `adminUrl`: a PostgreSQL connection allowed to create
 * and drop databases (the scratch database lives only for the call; default: the local `postgres` user).
 */
export async function pendingMigrationSql(provider: Provider, adminUrl?: string, current = schemaText(provider)): Promise<string> {
  const SchemaEngine = await loadEngine();
  const engine = await SchemaEngine.new({ datamodels: [['schema.prisma', current]] }, () => {}, adapterFactory(provider, adminUrl ?? DEFAULT_ADMIN_URL));
  try {
    const result = await engine.diff({
      from: { tag: 'migrations', ...migrationList(provider) },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: current }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const steps = String(result.stdout ?? '')
      .split(/\n{2,}/)
      .map((step) => step.trim())
      .filter((step) => step && !/^-- This is an empty migration/.test(step) && !HAND_WRITTEN_DROP.some((drop) => drop.test(step)));
    return steps.join('\n\n');
  } finally {
    engine.free?.();
  }
}
