import { getDatamodel } from '../generated/sqlite/pothos-types.js';
import type { Db } from '../db/client.js';
import { coalescedReads } from '../db/coalesced-reads.js';
import { joining } from '../db/locks.js';
import { insertRows } from '../db/raw-insert.js';
import { OPERATIONS, type Operation, overDelegates, workspaceOf } from '../db/tenancy.js';
import type { Actor, Context } from '../graphql/context.js';
import type { RestObject, Represent } from './representation.js';
import { type EventKind, type EventResource, TRACKED_MODELS, type TrackedModel, eventType } from './resources.js';

export interface EventRow {
  id: string;
  workspaceId: string;
  type: string;
  resource: EventResource;
  recordId: string;
  actor: string;
  requestId: string | null;
  data: string;
  createdAt: Date;
  /** The record's REST object that `data` holds, for what the write path builds from it beside the event (the search index). */
  object: RestObject;
}

interface Touched {
  resource: EventResource;
  id: string;
  kind: EventKind;
  /** The REST object before this transaction's first write to it (null for a record it created). */
  before: RestObject | null;
  /** The moment the event names instead of its kind (`restored`, `merged`, `purged`), and what its `data` adds. */
  label?: { name: string; data?: Record<string, unknown> };
}

const READS = new Set<Operation>(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy']);

type Delegate = Record<Operation, (args?: Record<string, any>) => Promise<any>>;

/** On a recording client: marks records about to be inserted by `insertRecords` as created. */
const RECORD_CREATED = Symbol('record created');
/** On a recording client: names the moment of a record's event (API.md section 12). */
const RECORD_AS = Symbol('record as');
/** On a recording client: a record's REST object as the transaction first saw it (null: created by it, or not written). */
const RECORDED_BEFORE = Symbol('recorded before');

/** The REST object of a record this transaction updated or deleted, as it was before its first write (no read of its own). */
export function recordedBefore(db: object, resource: EventResource, id: string): RestObject | null {
  const before = (db as { [RECORDED_BEFORE]?: (resource: EventResource, id: string) => RestObject | null })[RECORDED_BEFORE];
  if (!before) throw new Error('recordedBefore: the client does not record events');
  return before(resource, id);
}

type RecordAs = (resource: EventResource, id: string, name: string, options?: { gone?: RestObject; data?: Record<string, unknown> }) => Promise<void>;

/**
 * Names the event of a record written in this transaction after a moment of its story
 * rather than its kind: a record inserted back is `restored`; a merge's target `merged`
 * (even when nothing of it changed), with `data` added; a record whose last trace goes,
 * with no live row left (`gone`: its last REST object), `purged`.
 */
export function recordAs(db: object, ...args: Parameters<RecordAs>): Promise<void> {
  const mark = (db as { [RECORD_AS]?: RecordAs })[RECORD_AS];
  if (!mark) throw new Error('recordAs: the client does not record events');
  return mark(...args);
}

/**
 * What one transaction wrote, record by record, and the events that says. Writes reach
 * it through `client()`, a wrapper of the transaction's client in which every write
 * operation of a model that has events is recorded before it runs: nothing the code
 * writes can skip it. Before a record's first update or delete its REST object is read
 * (for `previous_attributes` and a deletion's last state); `flush` reads the objects
 * after the change and inserts every event in one statement, still in the transaction.
 */
export class EventRecorder {
  readonly #touched = new Map<string, Touched>();
  /**
   * Rows as a model's last write through `client()` returned them (`create`, `update`,
   * `upsert` of one row, with no selection: every scalar field), by model and id: each
   * answers its record's read in `events`. Any write to the model drops the model's rows
   * first, so a row kept is the record as the transaction left it (no trigger writes to
   * a record's own row).
   */
  readonly #returned = new Map<string, Map<string, Record<string, unknown>>>();

  /** `reading`: the transaction's context (scoped client), used to build REST objects. */
  constructor(
    private readonly represent: Represent,
    private readonly reading: Context,
    private readonly origin: { actor: Actor; requestId: string | null },
  ) {}

  /** `tx` with every write on a model that has events recorded, and `$transaction` joining it (with this client). */
  client<T extends object>(tx: T): T {
    const base = tx as unknown as Record<string, Delegate>;
    const recordCreated = async (model: string, ids: string[]) => {
      const tracked = TRACKED_MODELS[model];
      if (!tracked || tracked.parentKey) throw new Error(`events: ${model} rows are not records of their own`);
      await this.touch(tracked.resource, ids, 'created');
    };
    const client: T = overDelegates(
      tx,
      (model, delegate) => {
        const from = base[delegate]!;
        const tracked = TRACKED_MODELS[model];
        if (!tracked) return from;
        const wrapped = Object.create(null) as Delegate;
        for (const operation of OPERATIONS) {
          wrapped[operation] = READS.has(operation) ? (args) => from[operation](args) : (args) => this.write(model, tracked, from, operation, args ?? {});
        }
        return Object.freeze(wrapped);
      },
      { ...joining(() => client), [RECORD_CREATED]: recordCreated, [RECORD_AS]: this.recordAs, [RECORDED_BEFORE]: (resource: EventResource, id: string) => this.#touched.get(`${resource} ${id}`)?.before ?? null },
    );
    return client;
  }

  private async write(model: string, tracked: TrackedModel, from: Delegate, operation: Operation, args: Record<string, any>): Promise<unknown> {
    this.#returned.delete(model);
    const written = await this.recordWrite(tracked, from, operation, args);
    const wholeRow = (operation === 'create' || operation === 'update' || operation === 'upsert') && args.select === undefined && args.include === undefined && args.omit === undefined;
    if (wholeRow && written && typeof (written as { id?: unknown }).id === 'string') {
      const rows = this.#returned.get(model) ?? this.#returned.set(model, new Map()).get(model)!;
      rows.set((written as { id: string }).id, written as Record<string, unknown>);
    }
    return written;
  }

  private async recordWrite(tracked: TrackedModel, from: Delegate, operation: Operation, args: Record<string, any>): Promise<unknown> {
    const { resource, parentKey } = tracked;
    const recordOf = (row: Record<string, any>) => (parentKey ? row[parentKey] : row.id) as unknown;
    const kind: EventKind = parentKey ? 'updated' : operation.startsWith('delete') ? 'deleted' : operation.startsWith('create') ? 'created' : 'updated';
    if (operation.startsWith('create')) {
      const ids = [args.data].flat().map(recordOf);
      if (ids.some((id) => typeof id !== 'string')) throw new Error(`events: a ${resource} row created without its ${parentKey ?? 'id'}`);
      await this.touch(resource, ids as string[], kind);
      return from[operation](args);
    }
    // The rows this write will reach, read first (with their records' ids), so each record's object is read before it changes.
    const byId = typeof args.where?.id === 'string' && !parentKey && operation !== 'upsert';
    const found: Record<string, string>[] = byId ? [{ id: args.where.id }] : await from.findMany({ where: args.where, select: { id: true, ...(parentKey ? { [parentKey]: true } : {}) } });
    if (operation === 'upsert' && found.length === 0) {
      await this.touch(resource, [recordOf(args.create) as string], kind === 'updated' && !parentKey ? 'created' : kind);
      return from[operation](args);
    }
    const touched = await this.touch(resource, [...new Set(found.map((row) => recordOf(row) as string))], kind);
    if (!operation.endsWith('Many')) return from[operation](args); // one row: it is written, or the operation throws
    // Many rows: kept to exactly those read, and a record is written only if one of its rows was (a concurrent
    // writer may have changed or removed some meanwhile).
    const where = { AND: [args.where ?? {}, { id: { in: found.map((row) => row.id) } }] };
    if (found.length === 0) return { count: 0 };
    if (operation === 'updateMany') {
      const rows: Record<string, any>[] = await from.updateManyAndReturn({ where, data: args.data, select: { id: true, ...(parentKey ? { [parentKey]: true } : {}) } });
      this.forget(touched, new Set(rows.map((row) => recordOf(row) as string)));
      return { count: rows.length };
    }
    const result: { count: number } = await from[operation]({ ...args, where });
    if (result.count < found.length) {
      const left = await from.findMany({ where: { id: { in: found.map((row) => row.id) } }, select: { id: true } });
      const gone = new Set(left.map((row: { id: string }) => row.id));
      this.forget(touched, new Set(found.filter((row) => !gone.has(row.id)).map((row) => recordOf(row) as string)));
    }
    return result;
  }

  private recordAs: RecordAs = async (resource, id, name, options = {}) => {
    const key = `${resource} ${id}`;
    if (options.gone) this.#touched.set(key, { resource, id, kind: 'deleted', before: options.gone });
    else if (!this.#touched.has(key)) await this.touch(resource, [id], 'updated');
    this.#touched.get(key)!.label = { name, data: options.data };
  };

  /** Records marked by a write that, in the end, wrote none of their rows: not written after all. */
  private forget(touched: Touched[], written: Set<string>): void {
    for (const t of touched) if (!written.has(t.id)) this.#touched.delete(`${t.resource} ${t.id}`);
  }

  /** Marks records written (reading the REST object of each before its first write); returns those this call marked first. */
  private async touch(resource: EventResource, ids: string[], kind: EventKind): Promise<Touched[]> {
    const first: Touched[] = [];
    await Promise.all(
      ids.map(async (id) => {
        const key = `${resource} ${id}`;
        const seen = this.#touched.get(key);
        if (seen) {
          // Created then updated is a creation (created then deleted leaves nothing for flush to read); updated then deleted a deletion.
          if (kind === 'deleted' && seen.kind === 'updated') seen.kind = 'deleted';
          return;
        }
        const entry: Touched = { resource, id, kind, before: null };
        this.#touched.set(key, entry);
        first.push(entry);
        if (kind !== 'created') entry.before = await this.represent(resource, id, this.reading);
      }),
    );
    return first;
  }

  /** Whether anything was written through the client (a mutation refused before its first write has nothing to record). */
  get wroteAnything(): boolean {
    return this.#touched.size > 0;
  }

  /** The events of everything written so far, each with its record's REST object read now; `saveEvents` gives them their ids. */
  async events(): Promise<Omit<EventRow, 'id'>[]> {
    const written = [...this.#touched.values()].filter((t) => t.kind === 'created' || t.before !== null);
    if (written.length === 0) return [];
    // One context for all: the records' reads are one query per model (a batch's hundred records, one findMany).
    const reading = { ...this.reading, db: coalescedReads(this.reading.db, (model, id) => this.#returned.get(model)?.get(id)) };
    const objects = await Promise.all(written.map((t) => (t.kind === 'deleted' ? t.before : this.represent(t.resource, t.id, reading))));
    const createdAt = new Date();
    const actor = JSON.stringify(this.origin.actor);
    const rows: Omit<EventRow, 'id'>[] = [];
    written.forEach((t, i) => {
      const object = objects[i];
      // A record created and deleted again in one transaction, or an update whose row is gone: nothing remains to tell.
      if (!object) return;
      const previous = t.kind === 'updated' ? changedFields(t.before!, object) : null;
      rows.push({
        workspaceId: this.reading.workspace.id,
        type: t.label ? `${t.resource}.${t.label.name}` : eventType(t.resource, t.kind, t.before as Record<string, unknown> | null, object as Record<string, unknown>),
        resource: t.resource,
        recordId: t.id,
        actor,
        requestId: this.origin.requestId,
        data: JSON.stringify({ object, previous_attributes: previous, ...t.label?.data }),
        createdAt,
        object,
      });
    });
    return rows;
  }
}

/** Each top-level field of `after` whose value differs from `before`, with its old value. */
function changedFields(before: RestObject, after: RestObject): RestObject {
  const changed: RestObject = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key] ?? null;
  }
  return changed;
}

// getDatamodel() parses the whole datamodel's JSON on each call: once per model here.
const { models } = getDatamodel().datamodel;
const scalarFieldsOf = new Map<string, Map<string, (typeof models)[string]['fields'][number]>>();
const scalarFields = (model: string) => {
  let fields = scalarFieldsOf.get(model);
  if (!fields) scalarFieldsOf.set(model, (fields = new Map(models[model]!.fields.filter((f) => f.kind === 'scalar').map((f) => [f.name, f]))));
  return fields;
};

/** The column types `insertRecords` writes as every database stores them (through `insertRows`'s bound values). */
const RAW_TYPES = new Set(['String', 'Int', 'DateTime', 'Json']);

/**
 * New records inserted with raw SQL (`insertRows`, one statement per 500 rows), recorded
 * as created exactly as the client's `createMany` would record them: for batches, since
 * Prisma compiles a query plan for every `createMany` call, about 0.3 ms of CPU per row,
 * several times the INSERT itself. `db` must be a recording client (a mutation's
 * `ctx.db`), so a record is never written without its event; rows are stamped with its
 * workspace as the scoped client stamps them. Each row holds its `id`; a column a row
 * leaves out is null (as `createMany` leaves it), unless it has a default, which rows
 * must then give; `createdAt` and `updatedAt` are set here, Json values serialized. A
 * column of another type (Decimal, Boolean: stored differently by each database) is
 * refused: use `createMany` for such a model.
 */
export async function insertRecords(db: Db, model: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const record = (db as unknown as Record<symbol, ((model: string, ids: string[]) => Promise<void>) | undefined>)[RECORD_CREATED];
  if (!record) throw new Error(`insertRecords(${model}): not a recording client; records are written inside a mutation`);
  const fields = scalarFields(model);
  const now = new Date();
  const stamped: Record<string, unknown> = { workspaceId: workspaceOf(db) };
  for (const [name, field] of fields) if (name === 'createdAt' || field.isUpdatedAt) stamped[name] = now;
  const columns = [...new Set([...rows.flatMap((row) => Object.keys(row)), ...Object.keys(stamped)])];
  for (const column of columns) {
    const type = fields.get(column)?.type;
    if (!type || !RAW_TYPES.has(type)) throw new Error(`insertRecords(${model}): column ${column} (${type ?? 'unknown'}) cannot be inserted raw`);
  }
  const values = rows.map((row) => {
    if (typeof row.id !== 'string') throw new Error(`insertRecords(${model}): a row without its id`);
    const full: Record<string, unknown> = { ...row, ...stamped };
    return columns.map((column) => {
      const value = full[column];
      if (value === undefined && fields.get(column)!.hasDefaultValue) throw new Error(`insertRecords(${model}): a row leaves out ${column}, which has a default`);
      if (value === undefined || value === null) return null;
      return fields.get(column)!.type === 'Json' ? JSON.stringify(value) : value;
    });
  });
  await record(model, rows.map((row) => row.id as string));
  try {
    await insertRows(db, model, columns, values);
  } catch (error) {
    // Prisma reports a raw statement's constraint errors as P2010; they read as createMany's would (a race lost, a value taken).
    const meta = (error as { meta?: Record<string, any> }).meta;
    const code = RAW_ERROR_CODES.get(meta?.driverAdapterError?.cause?.kind);
    if (code) Object.assign(error as object, { code, meta: { ...meta, modelName: model } });
    throw error;
  }
}

/** The Prisma codes of the constraint errors a raw insert can meet (src/db/errors.ts reads them). */
const RAW_ERROR_CODES = new Map([
  ['UniqueConstraintViolation', 'P2002'],
  ['ForeignKeyConstraintViolation', 'P2003'],
]);
