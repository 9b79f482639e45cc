import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDatamodel } from '../src/generated/sqlite/pothos-types.js';
import { type TestApp, startApp } from './support/app.js';

// The migrations (applied to this file's database, as to every test file's: a copy of
// the run's template, migrated from empty) give exactly what prisma/models.prisma
// declares: every model's table (and each implicit many-to-many relation's), with exactly its scalar fields as columns, each column
// nullable only where the field is optional, of the field's type, and every unique
// field or set of fields under a unique index. A model changed without a migration, or
// a migration that changed a table the models do not know of, fails here on both
// databases. (Plain indexes are the migrations' own business: some are partial, which
// models.prisma cannot say.)

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

interface Column {
  name: string;
  type: string;
  nullable: boolean;
}

/** Each table's columns and the column sets of its unique indexes (the primary key's included), read from the database's catalog. */
async function catalog(): Promise<Map<string, { columns: Column[]; uniques: string[][] }>> {
  const raw = <T>(sql: string) => app.database.prisma.$queryRawUnsafe<T[]>(sql);
  const tables = new Map<string, { columns: Column[]; uniques: string[][] }>();
  if (app.provider === 'sqlite') {
    for (const { name } of await raw<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'")) {
      const info = await raw<{ name: string; type: string; notnull: number | bigint; pk: number | bigint }>(`PRAGMA table_info("${name}")`);
      const uniques: string[][] = [info.filter((c) => Number(c.pk) > 0).map((c) => c.name)];
      for (const index of await raw<{ name: string; unique: number | bigint; partial: number | bigint }>(`PRAGMA index_list("${name}")`)) {
        if (Number(index.unique) !== 1 || Number(index.partial) === 1) continue;
        uniques.push((await raw<{ name: string }>(`PRAGMA index_info("${index.name}")`)).map((c) => c.name));
      }
      tables.set(name, { columns: info.map((c) => ({ name: c.name, type: c.type.toUpperCase(), nullable: Number(c.notnull) === 0 && Number(c.pk) === 0 })), uniques });
    }
    return tables;
  }
  const columns = await raw<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE') AND table_name <> '_prisma_migrations'",
  );
  for (const c of columns) {
    const table = tables.get(c.table_name) ?? tables.set(c.table_name, { columns: [], uniques: [] }).get(c.table_name)!;
    table.columns.push({ name: c.column_name, type: c.data_type.toUpperCase(), nullable: c.is_nullable === 'YES' });
  }
  const indexes = await raw<{ table: string; columns: string[] }>(
    `SELECT t.relname::text AS "table", array_agg(a.attname::text ORDER BY k.n) AS "columns"
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE s.nspname = 'public' AND i.indisunique AND i.indpred IS NULL GROUP BY i.indexrelid, t.relname`,
  );
  for (const index of indexes) tables.get(index.table)?.uniques.push(index.columns);
  return tables;
}

/** The column types a Prisma scalar type is given by each provider's migrations. */
const TYPES: Record<string, Record<'sqlite' | 'postgresql', string[]>> = {
  String: { sqlite: ['TEXT'], postgresql: ['TEXT'] },
  Int: { sqlite: ['INTEGER'], postgresql: ['INTEGER'] },
  Boolean: { sqlite: ['BOOLEAN'], postgresql: ['BOOLEAN'] },
  DateTime: { sqlite: ['DATETIME'], postgresql: ['TIMESTAMP WITHOUT TIME ZONE'] },
  Decimal: { sqlite: ['DECIMAL'], postgresql: ['NUMERIC'] },
  Json: { sqlite: ['JSONB', 'TEXT'], postgresql: ['JSONB'] },
};

describe('the migrations against prisma/models.prisma', () => {
  it('give every model its table, exactly its fields as columns (type and nullability), and its unique indexes', async () => {
    const { models } = getDatamodel().datamodel;
    const tables = await catalog();
    // An implicit many-to-many relation (a list on both sides) is a table `_<relation>` of two ids, A and B.
    const listSides = Object.values(models).flatMap((m) => m.fields.filter((f) => f.kind === 'object' && f.isList).map((f) => f.relationName!));
    const joins = [...new Set(listSides.filter((name, i) => listSides.indexOf(name) !== i))].map((name) => `_${name}`);
    // No table the models do not name (views, such as EventOutbox, are not tables).
    expect([...tables.keys()].sort()).toEqual([...Object.keys(models), ...joins].sort());
    for (const join of joins) {
      const table = tables.get(join)!;
      expect([join, table.columns.map((c) => [c.name, c.type, c.nullable]).sort()]).toEqual([join, [['A', TYPES.String![app.provider][0], false], ['B', TYPES.String![app.provider][0], false]]]);
      expect([join, table.uniques.some((u) => [...u].sort().join() === 'A,B')]).toEqual([join, true]);
    }
    for (const [model, { fields, uniqueIndexes, primaryKey }] of Object.entries(models)) {
      const scalars = fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
      const table = tables.get(model)!;
      const declared = scalars.map((f) => ({ name: f.name, type: TYPES[f.type]?.[app.provider] ?? [`(${f.type})`], nullable: !f.isRequired && !f.isId }));
      const found = new Map(table.columns.map((c) => [c.name, c]));
      expect([model, [...found.keys()].sort()]).toEqual([model, declared.map((d) => d.name).sort()]);
      for (const d of declared) {
        const column = found.get(d.name)!;
        expect([model, d.name, d.type.includes(column.type) ? 'type as declared' : column.type, column.nullable]).toEqual([model, d.name, 'type as declared', d.nullable]);
      }
      const uniques = new Set(table.uniques.map((columns) => [...columns].sort().join(',')));
      const wanted = [
        ...scalars.filter((f) => f.isId || f.isUnique).map((f) => [f.name]),
        ...uniqueIndexes.map((u) => u.fields),
        ...(primaryKey ? [primaryKey.fields] : []),
      ];
      for (const columns of wanted) expect([model, columns, uniques.has([...columns].sort().join(','))]).toEqual([model, columns, true]);
    }
  });
});
