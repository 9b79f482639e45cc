import type { z } from 'zod';
import { isUniqueViolation } from '../../db/errors.js';
import { atomically, lockRow } from '../../db/locks.js';
import { matching } from '../../db/search.js';
import { newRow } from '../../db/tenancy.js';
import { insertRecords } from '../../events/recorder.js';
import { Batch, type NewRow, inOrder, insertInRuns } from '../../graphql/batch.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import { batchInputs } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import type { Context } from '../../graphql/context.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { linkIds, preload, unknownIds, writeReferencing } from '../../validation/ids.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { mergeProperties, propertyErrors, visibleProperties } from '../property-definitions/properties.js';
import { CONTACT_LIST, ContactListArgs, CreateContactInput, UpdateContactInput, UpsertContactInput, contactDerivedColumns } from './contacts.input.js';

export const Contact = builder.prismaObject('Contact', {
  fields: (t) => ({
    id: t.exposeID('id'),
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email'),
    notes: t.exposeString('notes', { nullable: true }),
    properties: t.field({ type: 'JSON', resolve: (c, _args, ctx) => visibleProperties(ctx, 'contact', c.properties) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    companies: t.relation('companies', { ...pagedRelation(t, { id: 'asc' }) }),
    companyIds: t.field({
      type: ['ID'],
      description: 'Every companie id, as `companyIds` sets them (the CSV export column `company_ids`).',
      select: { companies: { select: { id: true }, orderBy: { id: 'asc' } } },
      resolve: (r) => r.companies.map((x) => x.id),
    }),
    deals: t.relation('deals', { ...pagedRelation(t, { id: 'asc' }) }),
  }),
});

const ContactPage = pageType('Contact', Contact);

const ContactInputs = batchInputs('Contact', 'Contacts', { create: CreateContactInput, update: UpdateContactInput }, (t) => ({
  firstName: t.string(),
  lastName: t.string(),
  email: t.string(),
  notes: t.string(),
  companyIds: t.idList({ description: 'Replaces the whole set of companies when present.' }),
  properties: t.field({ type: 'JSON', description: 'Merged into the stored map; a key sent as null is removed.' }),
}));

const ContactFilter = builder.inputType('ContactFilter', {
  fields: (t) => ({
    email: t.string({ description: 'Exact e-mail address (case-insensitive).' }),
    search: t.string({ description: 'Case-insensitive substring of the names or the e-mail address.' }),
  }),
});

const UpsertContactPayload = builder.objectRef<{ created: boolean; contact: typeof Contact.$inferType }>('UpsertContactPayload').implement({
  fields: (t) => ({
    created: t.exposeBoolean('created', { description: 'true when no contact had the e-mail and one was created.' }),
    contact: t.field({ type: Contact, resolve: (p) => p.contact }),
  }),
});

const uniqueEmail = uniqueValue(
  'email',
  CreateContactInput.shape.email,
  (ctx, email) => ctx.db.contact.findFirst({ where: { email }, select: { id: true } }),
  async (ctx, emails) => (await ctx.db.contact.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } })).map((c) => ({ id: c.id, value: c.email })),
);

type ContactInputShape = typeof ContactInputs.update.$inferInput;

/**
 * Parses a contact input against its rules and the database (company ids, property keys
 * and values). `self` is the contact being updated (undefined for a create), or null
 * where the e-mail is not checked here: an upsert's finds its contact, and a batch checks
 * all its items' at once.
 */
async function validContact<S extends z.ZodType>(ctx: Context, input: ContactInputShape, schema: S, self: string | undefined | null): Promise<z.output<S>> {
  const checked = await Promise.all([companyCheck(ctx, input), propertyErrors(ctx, 'contact', input.properties)]);
  const taken = async () => (self === null ? {} : uniqueEmail.probe(ctx, input.email, self));
  return parseInputReportingAll(schema, input, ctx, taken, ...checked);
}

const companyCheck = (ctx: Context, input: ContactInputShape) => unknownIds(ctx.db.company, input.companyIds, 'company_ids');

/** A contact write, after `validContact`: a company deleted meanwhile is 422 on `company_ids`. */
const writeContact = <T>(ctx: Context, input: ContactInputShape, write: () => Promise<T>) => writeReferencing(() => companyCheck(ctx, input), write);

/** A new contact's row, and the companies it links (none: undefined). */
function newContact(ctx: Context, valid: z.output<typeof CreateContactInput>) {
  const { companyIds, properties, ...data } = valid;
  const lastName = data.lastName ?? null;
  const row = { ...data, ...newRow(ctx.workspace.id), lastName, properties: mergeProperties({}, properties), ...contactDerivedColumns({ ...data, lastName }) };
  return { row, links: companyIds?.length ? companyIds : undefined } satisfies NewRow<typeof row, string[]>;
}

function insertContact(ctx: Context, valid: z.output<typeof CreateContactInput>, query: object = {}) {
  const { row, links } = newContact(ctx, valid);
  return ctx.db.contact.create({ ...query, data: { ...row, companies: linkIds(links, 'connect') } });
}

/** New contacts, in as few statements as their links allow (src/graphql/batch.ts; raw inserts, recorded); their ids in input order. */
function insertContacts(ctx: Context, valid: z.output<typeof CreateContactInput>[]) {
  return insertInRuns(
    valid.map((v) => newContact(ctx, v)),
    {
      createMany: (rows) => insertRecords(ctx.db, 'Contact', rows),
      create: (row, links) => ctx.db.contact.create({ data: { ...row, companies: linkIds(links, 'connect') }, select: { id: true } }),
    },
  );
}

/** A batch's contacts: the companies every item names, read at once; each item checked as a single contact (its e-mail by the batch, below). */
async function validContacts<I extends ContactInputShape, S extends z.ZodType>(ctx: Context, batch: Batch<I>, schema: S) {
  await preload(ctx.db.company, batch.inputs.flatMap((input) => input.companyIds ?? []));
  const values = await batch.validate(ctx, (item, input) => validContact(item, input, schema, null));
  const emails = await uniqueEmail.holders(ctx, batch.inputs.map((input) => input.email));
  return { values, emails };
}

/**
 * A partial update: only sent fields change; properties merge; company ids replace the set.
 * What the write derives from the stored row (the merged map, the search text) is read
 * after the row is locked, so concurrent updates never work from a stale copy.
 */
function applyToContact(ctx: Context, id: string, valid: z.output<typeof UpdateContactInput>, query: object = {}) {
  const { companyIds, properties, ...data } = valid;
  const companies = linkIds(companyIds, 'set');
  if (properties === undefined && companies === undefined && data.firstName === undefined && data.lastName === undefined && data.email === undefined) {
    return ctx.db.contact.update({ ...query, where: { id }, data });
  }
  return atomically(ctx.db, async (tx) => {
    await lockRow(tx, 'contact', id);
    const stored = await tx.contact.findUniqueOrThrow({ where: { id }, select: { firstName: true, lastName: true, email: true, properties: true } });
    return tx.contact.update({
      ...query,
      where: { id },
      data: {
        ...data,
        properties: properties === undefined ? undefined : mergeProperties(stored.properties, properties),
        ...contactDerivedColumns({ ...stored, ...data }),
        companies,
      },
    });
  });
}

const byEmail = (ctx: Context, email: string) => ctx.db.contact.findUnique({ where: { workspaceId_email: { workspaceId: ctx.workspace.id, email } }, select: { id: true } });

builder.queryFields((t) => ({
  contact: t.prismaField({
    type: Contact,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.contact.findUnique({ ...query, where: { id } }), 'Contact'),
  }),
  contacts: t.field({
    type: ContactPage,
    args: { ...listArgs(t, CONTACT_LIST), filter: t.arg({ type: ContactFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { email, search, ...listing } = parseInput(ContactListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = { email: email?.trim().toLowerCase(), ...(search ? { search: matching(search) } : {}) };
      const counted = email === undefined && !search ? ({ list: 'Contact', bucket: '' } as const) : undefined;
      return paginate(ctx.db.contact, CONTACT_LIST, { ...listing, where, counted }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createContact: t.prismaField({
    type: Contact,
    args: { input: t.arg({ type: ContactInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const valid = await validContact(ctx, input, CreateContactInput, undefined);
      return writeContact(ctx, input, () => insertContact(ctx, valid, query)).catch((e) => Promise.reject(uniqueEmail.taken(e)));
    },
  }),
  updateContact: t.prismaField({
    type: Contact,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ContactInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      await orNotFound(ctx.db.contact.findUnique({ where: { id }, select: { id: true } }), 'Contact');
      const valid = await validContact(ctx, input, UpdateContactInput, id);
      return writeContact(ctx, input, () => applyToContact(ctx, id, valid, query)).catch((e) => Promise.reject(uniqueEmail.taken(e)));
    },
  }),
  upsertContact: t.field({
    type: UpsertContactPayload,
    description: 'Finds the contact by e-mail (case-insensitive): updates it, or creates it. Safe under concurrency: one e-mail, one contact.',
    args: { input: t.arg({ type: ContactInputs.create, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const valid = await validContact(ctx, input, UpsertContactInput, null);
      return writeContact(ctx, input, async () => {
        const found = await byEmail(ctx, valid.email);
        if (found) return { created: false, contact: await applyToContact(ctx, found.id, valid) };
        try {
          return { created: true, contact: await insertContact(ctx, valid) };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          // Another request created it between our read and our write: update that one.
          const winner = await byEmail(ctx, valid.email);
          if (!winner) throw error;
          return { created: false, contact: await applyToContact(ctx, winner.id, valid) };
        }
      });
    },
  }),
  deleteContact: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'contacts', id),
  }),
}));

// Batch writes (API.md section 8): all or nothing, in the mutation's one transaction; a race lost to a
// concurrent write (an e-mail taken, a company deleted meanwhile) runs the whole batch again, whose checks then say why.
builder.mutationFields((t) => ({
  createContacts: t.prismaField({
    type: [Contact],
    description: 'Creates 1 to 100 contacts, all or none: any refused item refuses the batch, with every problem of every item as `inputs.<i>.<field>`.',
    args: { inputs: t.arg({ type: [ContactInputs.create], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const { values, emails } = await validContacts(ctx, batch, CreateContactInput);
      batch.unique(emails);
      const ids = await insertContacts(ctx, batch.accepted(values));
      return inOrder(ctx.db.contact.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  updateContacts: t.prismaField({
    type: [Contact],
    description: 'Updates 1 to 100 contacts (each item names its `id`), all or none.',
    args: { inputs: t.arg({ type: [ContactInputs.updateItem], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const ids = inputs.map((input) => input.id);
      batch.knownIds(ids, new Set((await ctx.db.contact.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((c) => c.id)));
      const { values, emails } = await validContacts(ctx, batch, UpdateContactInput);
      batch.unique(emails, (index, holder) => holder === ids[index]);
      const valid = batch.accepted(values);
      for (const [index, id] of ids.entries()) await applyToContact(ctx, id, valid[index]!);
      return inOrder(ctx.db.contact.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  upsertContacts: t.field({
    type: [UpsertContactPayload],
    description: 'Upserts 1 to 100 contacts by e-mail, all or none; two items naming one e-mail are refused.',
    args: { inputs: t.arg({ type: [ContactInputs.create], required: true }) },
    resolve: async (_root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const { values, emails } = await validContacts(ctx, batch, UpsertContactInput);
      // The stored holder of an e-mail is the contact its item updates: only a repeat within the batch is refused.
      batch.unique(emails, () => true);
      const valid = batch.accepted(values);
      const found = valid.map((v) => emails.holderOf.get(v.email));
      const fresh = valid.filter((_v, index) => found[index] === undefined);
      const created = await insertContacts(ctx, fresh);
      for (const [index, id] of found.entries()) if (id !== undefined) await applyToContact(ctx, id, valid[index]!);
      const ids = found.map((id) => id ?? created.shift()!);
      const contacts = await inOrder(ctx.db.contact.findMany({ where: { id: { in: ids } } }), ids);
      return contacts.map((contact, index) => ({ created: found[index] === undefined, contact }));
    },
  }),
}));

/**
 * The checkout's payer as a contact (API.md section 7): the workspace's contact with the
 * e-mail, left unchanged, or a new one with the payer's name. Runs in the checkout's
 * transaction: a concurrent checkout creating the same e-mail makes it run again.
 */
export async function contactForPayer(ctx: Context, payer: { firstName: string; lastName: string | null; email: string }): Promise<string> {
  const found = await byEmail(ctx, payer.email);
  return found ? found.id : (await insertContact(ctx, payer, { select: { id: true } })).id;
}
