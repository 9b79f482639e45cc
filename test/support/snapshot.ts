import pg from 'pg';
import type { Database } from '../../src/db/client.js';

// The whole of a workspace's rows, read in one statement: the fuzzer and test/tenancy.test.ts
// compare it before and after requests that must change nothing.

interface ModelField {
  name: string;
  kind: string;
  type: string;
  relationName?: string;
}

/**
 * One SQL statement that reads every row a workspace owns, in every model, plus
 * the rows of the many-to-many link tables (a contact's companies, a task's owners),
 * each row as JSON text. Derived from Prisma's data model, so a new model is covered
 * without a change here. API keys are left out: authenticating writes their
 * `last_used_at`, whatever the answer. (Raw SQL: Prisma's own queries would cost
 * 20 ms a snapshot, and the fuzzer takes hundreds.) `workspace` is the id's placeholder:
 * PostgreSQL's one numbered parameter, or SQLite's `?` once per use.
 */
function snapshotSql(database: Database, workspace: '$1' | '?'): string {
  const models = (database.prisma as unknown as { _runtimeDataModel?: { models: Record<string, { fields: ModelField[] }> } })._runtimeDataModel?.models;
  if (!models) throw new Error('snapshot: this Prisma client exposes no data model (_runtimeDataModel); update snapshotSql');
  const postgres = database.target.provider === 'postgresql';
  const asJson = (columns: string[]) => (postgres ? 'row_to_json(x)::text' : `json_object(${columns.map((c) => `'${c}', x."${c}"`).join(', ')})`);
  const owned = (name: string) => `SELECT "id" FROM "${name}" WHERE "workspaceId" = ${workspace}`;
  const parts: string[] = [];
  const links = new Set<string>();
  for (const [name, model] of Object.entries(models)) {
    if (name === 'Workspace' || name === 'ApiKey' || !model.fields.some((f) => f.name === 'workspaceId')) continue;
    const columns = model.fields.filter((f) => f.kind === 'scalar').map((f) => f.name);
    parts.push(`SELECT '${name}' AS t, ${asJson(columns)} AS r FROM "${name}" x WHERE x."workspaceId" = ${workspace}`);
    const hasKey = (model: string, relation: string) => models[model]!.fields.some((f) => f.kind === 'scalar' && f.name === `${relation}Id`);
    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationName || field.type === 'Workspace' || hasKey(name, field.name)) continue;
      const other = models[field.type]!.fields.find((f) => f.relationName === field.relationName && f !== field);
      // Many-to-many (neither side holds a key): Prisma's implicit table `_<relation>`, "A" pointing at the model first in alphabetical order.
      if (!other || hasKey(field.type, other.name) || links.has(field.relationName)) continue;
      links.add(field.relationName);
      const first = [name, field.type].sort()[0]!;
      parts.push(`SELECT '_${field.relationName}' AS t, ${asJson(['A', 'B'])} AS r FROM "_${field.relationName}" x WHERE x."A" IN (${owned(first)})`);
    }
  }
  return `${parts.join(' UNION ALL ')} ORDER BY 1, 2`;
}

/** The snapshot's SQL per database. */
const statements = new WeakMap<Database, string>();

/**
 * PostgreSQL plans the snapshot's UNION of every table afresh for each unnamed statement
 * (~1.2 ms of its ~1.7 ms), and the fuzzer and test/tenancy.test.ts take thousands: a
 * connection of the test's own runs it as a named statement, prepared once. Closed, with
 * the file's database, by `closeSnapshotConnections`.
 */
const snapshotConnections = new Map<string, Promise<pg.Client>>();

function snapshotConnection(url: string): Promise<pg.Client> {
  let connection = snapshotConnections.get(url);
  if (!connection) {
    const client = new pg.Client({ connectionString: url });
    // The file's database is dropped WITH (FORCE), which ends this connection from the server's side.
    client.on('error', () => snapshotConnections.delete(url));
    snapshotConnections.set(url, (connection = client.connect().then(() => client)));
  }
  return connection;
}

export async function closeSnapshotConnections(): Promise<void> {
  const open = [...snapshotConnections.values()];
  snapshotConnections.clear();
  await Promise.all(open.map(async (connection) => (await connection).end().catch(() => {})));
}

/** Every row the workspace owns, by model (and link table), as JSON. */
export async function snapshotWorkspace(database: Database, workspaceId: string): Promise<Record<string, unknown[]>> {
  const target = database.target;
  let sql = statements.get(database);
  if (!sql) statements.set(database, (sql = snapshotSql(database, target.provider === 'postgresql' ? '$1' : '?')));
  const rows =
    target.provider === 'postgresql'
      ? (await (await snapshotConnection(target.url)).query<{ t: string; r: string }>({ name: 'workspace_snapshot', text: sql, values: [workspaceId] })).rows
      : await database.prisma.$queryRawUnsafe<{ t: string; r: string }[]>(sql, ...sql.split('?').slice(1).map(() => workspaceId));
  const out: Record<string, unknown[]> = {};
  for (const { t, r } of rows) (out[t] ??= []).push(JSON.parse(r));
  return out;
}
