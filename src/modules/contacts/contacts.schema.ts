import { isUniqueViolation } from '../../db/errors.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import type { Context } from '../../graphql/context.js';
import { invalidField, notFound } from '../../graphql/errors.js';
import { pageType, paginate } from '../../graphql/pagination.js';
import { unknownIds } from '../../validation/ids.js';
import { Messages } from '../../validation/messages.js';
import { parseInput } from '../../validation/parse.js';
import { mergeProperties, propertyErrors, visibleProperties } from '../property-definitions/properties.js';
import { ContactListArgs, CreateContactInput, UpdateContactInput, UpsertContactInput, contactSearchText } from './contacts.input.js';

export const Contact = builder.prismaObject('Contact', {
  fields: (t) => ({
    id: t.exposeID('id'),
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email'),
    notes: t.exposeString('notes', { nullable: true }),
    properties: t.field({ type: 'JSON', select: { properties: true }, resolve: (c, _args, ctx) => visibleProperties(ctx, 'contact', c.properties) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    companies: t.relation('companies', { query: { orderBy: { id: 'asc' } } }),
    deals: t.relation('deals', { query: { orderBy: { id: 'asc' } } }),
  }),
});

const ContactPage = pageType('Contact', Contact);

export const ContactInput = builder.inputType('ContactInput', {
  fields: (t) => ({
    firstName: t.string(),
    lastName: t.string(),
    email: t.string(),
    notes: t.string(),
    companyIds: t.idList({ description: 'Replaces the whole set of companies when present.' }),
    properties: t.field({ type: 'JSON', description: 'Merged into the stored map; a key sent as null is removed.' }),
  }),
});

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

const emailTaken = (error: unknown) => (isUniqueViolation(error) ? invalidField('email', Messages.taken('email')) : error);

type ContactInputShape = typeof ContactInput.$inferInput;

/** Database checks for a contact input: company ids and property keys/values. */
const checks = (ctx: Context, input: ContactInputShape) =>
  Promise.all([unknownIds(ctx.db.company, input.companyIds, 'company_ids'), propertyErrors(ctx, 'contact', input.properties)]);

async function createContact(ctx: Context, input: ContactInputShape, query: object = {}) {
  const { companyIds, properties, ...data } = parseInput(CreateContactInput, input, ctx, ...(await checks(ctx, input)));
  return ctx.db.contact.create({
    ...query,
    data: {
      ...data,
      ...newRow(ctx.workspace.id),
      lastName: data.lastName ?? null,
      properties: mergeProperties({}, properties),
      search: contactSearchText({ ...data, lastName: data.lastName ?? null }),
      companies: companyIds ? { connect: companyIds.map((id) => ({ id })) } : undefined,
    },
  });
}

async function updateContact(ctx: Context, id: string, input: ContactInputShape, schema: typeof UpdateContactInput | typeof UpsertContactInput, query: object = {}) {
  const existing = await ctx.db.contact.findUnique({ where: { id } });
  if (!existing) throw notFound('Contact');
  const { companyIds, properties, ...data } = parseInput(schema, input, ctx, ...(await checks(ctx, input)));
  const next = { ...existing, ...data };
  return ctx.db.contact.update({
    ...query,
    where: { id },
    data: {
      ...data,
      properties: properties === undefined ? undefined : mergeProperties(existing.properties, properties),
      search: contactSearchText(next),
      companies: companyIds ? { set: companyIds.map((cid) => ({ id: cid })) } : undefined,
    },
  });
}

builder.queryFields((t) => ({
  contact: t.prismaField({
    type: Contact,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.contact.findUnique({ ...query, where: { id } }), 'Contact'),
  }),
  contacts: t.field({
    type: ContactPage,
    args: { page: t.arg.int(), perPage: t.arg.int(), filter: t.arg({ type: ContactFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { page, perPage, email, search } = parseInput(ContactListArgs, { ...args.filter, page: args.page ?? undefined, perPage: args.perPage ?? undefined }, ctx);
      const where = { email: email?.trim().toLowerCase(), ...(search ? { search: { contains: search.toLowerCase() } } : {}) };
      return paginate(ctx.db.contact, { page, perPage, where, orderBy: { id: 'asc' }, typeName: 'Contact' }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createContact: t.prismaField({
    type: Contact,
    args: { input: t.arg({ type: ContactInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => createContact(ctx, input, query).catch((e) => Promise.reject(emailTaken(e))),
  }),
  updateContact: t.prismaField({
    type: Contact,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ContactInput, required: true }) },
    resolve: (query, _root, { id, input }, ctx) => updateContact(ctx, id, input, UpdateContactInput, query).catch((e) => Promise.reject(emailTaken(e))),
  }),
  upsertContact: t.field({
    type: UpsertContactPayload,
    description: 'Finds the contact by e-mail (case-insensitive): updates it, or creates it. Safe under concurrency: one e-mail, one contact.',
    args: { input: t.arg({ type: ContactInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { email } = parseInput(UpsertContactInput, input, ctx, ...(await checks(ctx, input)));
      const found = await ctx.db.contact.findUnique({ where: { workspaceId_email: { workspaceId: ctx.workspace.id, email } }, select: { id: true } });
      if (found) return { created: false, contact: await updateContact(ctx, found.id, input, UpsertContactInput) };
      try {
        return { created: true, contact: await createContact(ctx, input) };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another request created it between our read and our write: update that one.
        const winner = await ctx.db.contact.findUnique({ where: { workspaceId_email: { workspaceId: ctx.workspace.id, email } }, select: { id: true } });
        if (!winner) throw error;
        return { created: false, contact: await updateContact(ctx, winner.id, input, UpsertContactInput) };
      }
    },
  }),
  deleteContact: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.contact, id, 'Contact'),
  }),
}));
