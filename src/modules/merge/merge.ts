import { Prisma } from '../../generated/sqlite/client.js';
import { lockRow } from '../../db/locks.js';
import { delegateNamed } from '../../db/tenancy.js';
import { recordAs } from '../../events/recorder.js';
import type { Context } from '../../graphql/context.js';
import { invalidField, notFound } from '../../graphql/errors.js';
import { Messages } from '../../validation/messages.js';
import { contactDerivedColumns } from '../contacts/contacts.input.js';
import { companyKeys } from '../duplicates/keys.js';
import { moveToTrash } from '../trash/trash.js';

/** What a merge folds, per resource (API.md section 12). */
const MERGED = {
  contacts: { model: 'contact', resource: 'contact', name: 'Contact', fill: ['lastName', 'notes'], links: ['companies', 'deals', 'attachedNotes'] },
  companies: { model: 'company', resource: 'company', name: 'Company', fill: ['domain', 'notes'], links: ['contacts', 'attachedNotes'] },
} as const;
export type MergedType = keyof typeof MERGED;

type Row = Record<string, unknown> & { id: string };
type Delegate = {
  findUnique(args: object): Promise<Row | null>;
  findMany(args: object): Promise<Row[]>;
  update(args: object): Promise<Row>;
};

const empty = (value: unknown) => value === null || value === undefined || value === '';

/**
 * Folds `sourceIds` into the record `targetId`, in the caller's transaction: every row is
 * locked first, in id order (two merges of overlapping records take turns, and the second
 * finds what the first left), then the sources' links move to the target (no link twice),
 * the target takes a source's value only where its own is empty (`properties` key by
 * key, the first source that has one winning), a contact's payments become the target's,
 * and the sources go to the trash with `merged_into`. Events: the sources' `deleted`, the
 * target's `merged` with `data.source_ids`.
 */
export async function mergeRecords(ctx: Context, type: MergedType, targetId: string, sourceIds: string[]): Promise<void> {
  const spec = MERGED[type];
  const delegate = delegateNamed<Delegate>(ctx.db, spec.model);
  const sources = [...new Set(sourceIds)];
  if (!(await delegate.findUnique({ where: { id: targetId }, select: { id: true } }))) throw notFound(spec.name);
  const refused = () => invalidField('source_ids', Messages.selected('source_ids'));
  if (sources.includes(targetId)) throw invalidField('source_ids', 'The source ids must not include the record merged into.');
  for (const id of [targetId, ...sources].sort()) {
    try {
      await lockRow(ctx.db as never, spec.model, id);
    } catch (error) {
      if (id === targetId) throw error;
      throw refused();
    }
  }
  const include = Object.fromEntries(spec.links.map((link) => [link, { select: { id: true } }]));
  const target = (await delegate.findUnique({ where: { id: targetId }, include }))!;
  const found = await delegate.findMany({ where: { id: { in: sources } }, include });
  if (found.length !== sources.length) throw refused();
  const ordered = sources.map((id) => found.find((row) => row.id === id)!);

  const data: Record<string, unknown> = {};
  for (const field of spec.fill) {
    if (!empty(target[field])) continue;
    const value = ordered.map((row) => row[field]).find((v) => !empty(v));
    if (value !== undefined) data[field] = value;
  }
  if (type === 'contacts') {
    const properties: Record<string, unknown> = Object.assign(Object.create(null), target.properties);
    for (const row of ordered) {
      for (const [key, value] of Object.entries((row.properties ?? {}) as Record<string, unknown>)) if (empty(properties[key]) && !empty(value)) properties[key] = value;
    }
    data.properties = properties;
    Object.assign(data, contactDerivedColumns({ ...(target as never as { firstName: string; email: string }), lastName: (data.lastName ?? target.lastName) as string | null }));
  } else Object.assign(data, companyKeys(data as { domain?: string | null }));
  for (const link of spec.links) {
    const have = new Set((target[link] as { id: string }[]).map((r) => r.id));
    const moved = [...new Set(ordered.flatMap((row) => (row[link] as { id: string }[]).map((r) => r.id)))].filter((id) => !have.has(id) && id !== targetId);
    if (moved.length) data[link] = { connect: moved.map((id) => ({ id })) };
  }
  await delegate.update({ where: { id: targetId }, data, select: { id: true } });
  if (type === 'contacts') {
    // Raw: the payer is not part of a transaction's REST object, so no event tells of it.
    await ctx.db.$executeRaw`UPDATE "PaymentTransaction" SET "contactId" = ${targetId} WHERE "workspaceId" = ${ctx.workspace.id} AND "contactId" IN (${Prisma.join(sources)})`;
  }
  for (const id of sources) await moveToTrash(ctx, type, id, { mergedInto: targetId });
  await recordAs(ctx.db, spec.resource, targetId, 'merged', { data: { source_ids: sources } });
}
