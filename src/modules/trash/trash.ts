import { Prisma } from '../../generated/sqlite/client.js';
import { getDatamodel } from '../../generated/sqlite/pothos-types.js';
import type { Context } from '../../graphql/context.js';
import { conflict, notFound } from '../../graphql/errors.js';
import { deleteById } from '../../graphql/records.js';
import { delegateNamed, delegateOf } from '../../db/tenancy.js';
import { recordAs, recordedBefore } from '../../events/recorder.js';
import type { EventResource } from '../../events/resources.js';
import { titleOf } from '../../search/documents.js';
import { snakeCase } from '../../validation/messages.js';

/**
 * The trash (API.md section 12). A deleted record leaves its table, in the delete's own
 * transaction, for a row of TrashedRecord holding its columns and its links: no read of
 * the live tables can meet it (lists, relations, counts, search, reports, exports,
 * timelines), and its unique values are free, without a condition in any query. What a
 * record is made of comes from the data model: its scalar columns, its many-to-many
 * links, the rows of other tables that point at it (a contact's payments), the records
 * it points at (a deal's stage), its unique values.
 */
export const TRASH_TYPES = ['contacts', 'companies', 'deals', 'products', 'tasks', 'tickets', 'notes'] as const;
export type TrashType = (typeof TRASH_TYPES)[number];

const MODEL_OF: Record<TrashType, { model: string; resource: EventResource; name: string }> = {
  contacts: { model: 'Contact', resource: 'contact', name: 'Contact' },
  companies: { model: 'Company', resource: 'company', name: 'Company' },
  deals: { model: 'Deal', resource: 'deal', name: 'Deal' },
  products: { model: 'Product', resource: 'product', name: 'Product' },
  tasks: { model: 'Task', resource: 'task', name: 'Task' },
  tickets: { model: 'Ticket', resource: 'ticket', name: 'Ticket' },
  notes: { model: 'Note', resource: 'note', name: 'Note' },
};


interface DataField {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUnique: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

const { models } = getDatamodel().datamodel as unknown as { models: Record<string, { fields: DataField[]; uniqueIndexes: { fields: string[] }[] }> };

/** How a model's record is taken apart and put back. */
interface Shape {
  delegate: string;
  /** Scalar columns and their types. */
  columns: DataField[];
  /** Many-to-many relations: field, and the field that names this record on the other side. */
  links: { field: string; model: string; opposite: string }[];
  /** Rows of other models whose key names this record (a payment's `contactId`). */
  pointedBy: { field: string; model: string; key: string }[];
  /** Records this one names by a key of its own: key, relation, model, and whether it may be null. */
  points: { key: string; relation: string; model: string; optional: boolean }[];
  /** Each set of columns unique in the workspace (one column, or several together). */
  unique: string[][];
}

function shapeOf(model: string): Shape {
  const { fields, uniqueIndexes } = models[model]!;
  const opposite = (field: DataField) => models[field.type]!.fields.find((f) => f.relationName === field.relationName && f !== field)!;
  const relations = fields.filter((f) => f.kind === 'object' && f.type !== 'Workspace');
  return {
    delegate: delegateOf(model),
    columns: fields.filter((f) => f.kind === 'scalar'),
    links: relations.filter((f) => f.isList && opposite(f).isList).map((f) => ({ field: f.name, model: f.type, opposite: opposite(f).name })),
    pointedBy: relations.filter((f) => f.isList && !opposite(f).isList).map((f) => ({ field: f.name, model: f.type, key: opposite(f).relationFromFields![0]! })),
    points: relations.filter((f) => !f.isList && f.relationFromFields?.length).map((f) => ({ key: f.relationFromFields![0]!, relation: f.name, model: f.type, optional: !f.isRequired })),
    unique: [...fields.filter((f) => f.isUnique).map((f) => [f.name]), ...uniqueIndexes.map((u) => u.fields.filter((f) => f !== 'workspaceId'))],
  };
}

const SHAPES = Object.fromEntries(TRASH_TYPES.map((type) => [type, shapeOf(MODEL_OF[type].model)])) as Record<TrashType, Shape>;

type Row = Record<string, unknown>;
type AnyDelegate = {
  findUnique(args: object): Promise<Row | null>;
  findMany(args: object): Promise<Row[]>;
  findFirst(args: object): Promise<Row | null>;
  create(args: object): Promise<Row>;
  updateMany(args: object): Promise<{ count: number }>;
  deleteMany(args: { where: { id: string } }): Promise<{ count: number }>;
};
const delegate = (ctx: Context, name: string) => delegateNamed<AnyDelegate>(ctx.db, name);

/** A column's value as the trash keeps it (JSON), and back. */
const stored = (value: unknown) => (value instanceof Date ? value.toISOString() : Prisma.Decimal.isDecimal(value) ? String(value) : value);
function restoredValue(field: DataField, value: unknown): unknown {
  if (value === null || value === undefined) return field.type === 'Json' ? Prisma.DbNull : null;
  return field.type === 'DateTime' ? new Date(value as string) : value;
}

/**
 * DELETE of a trashable record: its REST object (the event's last state), its links and
 * the rows that point at it are kept, then its row goes (a restricting key still refuses
 * with 422, as before) and its trash row is written, all in the caller's transaction.
 */
export async function moveToTrash(ctx: Context, type: TrashType, id: string, options: { mergedInto?: string } = {}): Promise<string> {
  const shape = SHAPES[type];
  const { name, resource } = MODEL_OF[type];
  const include = Object.fromEntries([...shape.links, ...shape.pointedBy].map((l) => [l.field, { select: { id: true } }]));
  const row = await delegate(ctx, shape.delegate).findUnique({ where: { id }, include });
  if (!row) throw notFound(name);
  await deleteById(delegate(ctx, shape.delegate), id, name);
  // The deletion's event read it just before: its last state, for the trash's title and the purge's event.
  const object = recordedBefore(ctx.db, resource, id);
  const now = new Date();
  await ctx.db.trashedRecord.create({
    data: {
      id,
      workspaceId: ctx.workspace.id,
      type,
      title: titleOf(type, object ?? {}),
      row: Object.fromEntries(shape.columns.map((c) => [c.name, stored(row[c.name])])) as Prisma.InputJsonObject,
      links: Object.fromEntries([...shape.links, ...shape.pointedBy].map((l) => [l.field, (row[l.field] as { id: string }[]).map((r) => r.id)])),
      object: (object ?? {}) as object,
      mergedInto: options.mergedInto ?? null,
      deletedAt: now,
      purgeAt: new Date(now.getTime() + ctx.settings.trashRetentionDays * 86_400_000),
    },
    select: { id: true },
  });
  return id;
}

/**
 * POST /{type}/{id}/restore: the record back as it was, with its links to records that
 * are not in the trash (one merged away meanwhile: the record it was merged into); a link
 * to one that is goes into that one's trash row, so that it comes back with it. 404 when it is not in the trash; 409 when it was merged, when a
 * unique value of it was taken meanwhile, or a record it must name is gone.
 */
export async function restoreFromTrash(ctx: Context, type: TrashType, id: string): Promise<void> {
  const shape = SHAPES[type];
  const trashed = await ctx.db.trashedRecord.findFirst({ where: { id, type } });
  if (!trashed) throw notFound(MODEL_OF[type].name);
  if (trashed.mergedInto) throw conflict('This record cannot be restored: it was merged into another.');
  const row = trashed.row as Row;
  const links = trashed.links as Record<string, string[]>;
  const live = delegate(ctx, shape.delegate);
  for (const columns of shape.unique) {
    // A null in a unique set makes it unique to no one (SQL), so only a full set can be taken.
    if (columns.some((c) => row[c] === null || row[c] === undefined)) continue;
    if (await live.findFirst({ where: Object.fromEntries(columns.map((c) => [c, row[c]])), select: { id: true } })) {
      throw conflict(`This record cannot be restored: its ${columns.map(snakeCase).join(' and ')} is taken.`);
    }
  }
  const data: Row = Object.fromEntries(shape.columns.filter((c) => c.name !== 'workspaceId').map((c) => [c.name, restoredValue(c, row[c.name])]));
  for (const point of shape.points) {
    const target = data[point.key];
    if (typeof target !== 'string' || (await delegate(ctx, delegateOf(point.model)).findUnique({ where: { id: target }, select: { id: true } }))) continue;
    if (!point.optional) throw conflict(`This record cannot be restored: its ${snakeCase(point.relation)} is gone.`);
    data[point.key] = null;
  }
  const connect: Row = {};
  for (const link of shape.links) {
    const ids = links[link.field] ?? [];
    if (ids.length === 0) continue;
    const others = delegate(ctx, delegateOf(link.model));
    const found = new Set((await others.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id as string));
    const missing = ids.filter((other) => !found.has(other));
    // A linked record merged away meanwhile is the record it was merged into now.
    const merged = missing.length ? await ctx.db.trashedRecord.findMany({ where: { id: { in: missing }, mergedInto: { not: null } }, select: { id: true, mergedInto: true } }) : [];
    const into = merged.map((m) => m.mergedInto!);
    const liveInto = new Set(into.length ? (await others.findMany({ where: { id: { in: into } }, select: { id: true } })).map((r) => r.id as string) : []);
    connect[link.field] = { connect: [...new Set([...found, ...liveInto])].map((other) => ({ id: other })) };
    const mergedIds = new Set(merged.map((m) => m.id));
    await keepForLater(ctx, link.opposite, missing.filter((other) => !mergedIds.has(other)), id);
  }
  await ctx.db.trashedRecord.delete({ where: { id } });
  // The scalar keys stay keys: Prisma takes `workspaceId` and the others as the unchecked input.
  await live.create({ data: { ...data, workspaceId: ctx.workspace.id, ...connect }, select: { id: true } });
  for (const pointer of shape.pointedBy) {
    const ids = links[pointer.field] ?? [];
    if (ids.length) await delegate(ctx, delegateOf(pointer.model)).updateMany({ where: { id: { in: ids }, [pointer.key]: null }, data: { [pointer.key]: id } });
  }
  await recordAs(ctx.db, MODEL_OF[type].resource, id, 'restored');
}

/** Links to records that are themselves in the trash: written into their trash rows, to come back with them. */
async function keepForLater(ctx: Context, field: string, trashedIds: string[], id: string) {
  for (const other of trashedIds) {
    const row = await ctx.db.trashedRecord.findUnique({ where: { id: other }, select: { links: true } });
    if (!row) continue;
    const links = row.links as Record<string, string[]>;
    await ctx.db.trashedRecord.update({ where: { id: other }, data: { links: { ...links, [field]: [...new Set([...(links[field] ?? []), id])] } }, select: { id: true } });
  }
}

/** DELETE /trash/{type}/{id}, and the purge of what is past its retention: the trash row goes, with a `purged` event. */
export async function purgeFromTrash(ctx: Context, type: TrashType, id: string): Promise<void> {
  const trashed = await ctx.db.trashedRecord.findFirst({ where: { id, type }, select: { object: true } });
  if (!trashed) throw notFound(MODEL_OF[type].name);
  await ctx.db.trashedRecord.delete({ where: { id } });
  await recordAs(ctx.db, MODEL_OF[type].resource, id, 'purged', { gone: trashed.object as Row });
}
