import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { insertRecords } from '../../events/recorder.js';
import { Batch, type NewRow, inOrder, insertInRuns } from '../../graphql/batch.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import { batchInputs } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import type { Context } from '../../graphql/context.js';
import { linkIds, preload, unknownIds, writeReferencing } from '../../validation/ids.js';
import type { z } from 'zod';
import { parseInput } from '../../validation/parse.js';
import { COMPANY_LIST, CompanyListArgs, CreateCompanyInput, UpdateCompanyInput } from './companies.input.js';
import { companyKeys } from '../duplicates/keys.js';

export const Company = builder.prismaObject('Company', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    domain: t.exposeString('domain', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    contacts: t.relation('contacts', { ...pagedRelation(t, { id: 'asc' }) }),
    contactIds: t.field({
      type: ['ID'],
      description: 'Every contact id, as `contactIds` sets them (the CSV export column `contact_ids`).',
      select: { contacts: { select: { id: true }, orderBy: { id: 'asc' } } },
      resolve: (r) => r.contacts.map((x) => x.id),
    }),
  }),
});

const CompanyPage = pageType('Company', Company);

const CompanyInputs = batchInputs('Company', 'Companies', { create: CreateCompanyInput, update: UpdateCompanyInput }, (t) => ({
  name: t.string(),
  domain: t.string(),
  notes: t.string(),
  contactIds: t.idList({ description: 'Replaces the whole set of contacts when present.' }),
}));

const CompanyFilter = builder.inputType('CompanyFilter', {
  fields: (t) => ({ domain: t.string({ description: 'Exact domain.' }) }),
});

builder.queryFields((t) => ({
  company: t.prismaField({
    type: Company,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.company.findUnique({ ...query, where: { id } }), 'Company'),
  }),
  companies: t.field({
    type: CompanyPage,
    args: { ...listArgs(t, COMPANY_LIST), filter: t.arg({ type: CompanyFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { domain, ...listing } = parseInput(CompanyListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.company, COMPANY_LIST, { ...listing, where: { domain: domain?.toLowerCase() } }, ctx, info);
    },
  }),
}));

/** Every contact id must be a contact of the workspace. */
type CompanyInputShape = typeof CompanyInputs.update.$inferInput;

const contactCheck = (ctx: Context, input: { contactIds?: readonly string[] | null }) => unknownIds(ctx.db.contact, input.contactIds, 'contact_ids');

/** Parses a company input against its rules and the database (contact ids). */
async function validCompany<S extends z.ZodType>(ctx: Context, input: CompanyInputShape, schema: S): Promise<z.output<S>> {
  return parseInput(schema, input, ctx, await contactCheck(ctx, input));
}

/** A new company's row, and the contacts it links (none: undefined). */
function newCompany(ctx: Context, valid: z.output<typeof CreateCompanyInput>) {
  const { contactIds, ...data } = valid;
  const row = { ...data, ...newRow(ctx.workspace.id), ...companyKeys(data) };
  return { row, links: contactIds?.length ? contactIds : undefined } satisfies NewRow<typeof row, string[]>;
}

const insertCompany = (ctx: Context, row: ReturnType<typeof newCompany>['row'], links: string[] | undefined, query: object = {}) =>
  ctx.db.company.create({ ...query, data: { ...row, contacts: linkIds(links, 'connect') } });

/** A partial update, after `validCompany`; contact ids replace the set. */
function applyToCompany(ctx: Context, id: string, input: CompanyInputShape, valid: z.output<typeof UpdateCompanyInput>, query: object = {}) {
  const { contactIds, ...fields } = valid;
  const data = { ...fields, ...companyKeys(fields) };
  if (contactIds === undefined) return ctx.db.company.update({ ...query, where: { id }, data });
  // Replacing the set locks the company first: concurrent replacements take turns.
  return writeReferencing(
    () => contactCheck(ctx, input),
    () =>
      atomically(ctx.db, async (tx) => {
        await lockRow(tx, 'company', id);
        return tx.company.update({ ...query, where: { id }, data: { ...data, contacts: linkIds(contactIds, 'set') } });
      }),
  );
}

builder.mutationFields((t) => ({
  createCompany: t.prismaField({
    type: Company,
    args: { input: t.arg({ type: CompanyInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { row, links } = newCompany(ctx, await validCompany(ctx, input, CreateCompanyInput));
      return writeReferencing(() => contactCheck(ctx, input), () => insertCompany(ctx, row, links, query));
    },
  }),
  updateCompany: t.prismaField({
    type: Company,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CompanyInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.company.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Company');
      return applyToCompany(ctx, id, input, await validCompany(ctx, input, UpdateCompanyInput), query);
    },
  }),
  // Batches (API.md section 8): all or nothing in the mutation's transaction (src/graphql/batch.ts).
  createCompanies: t.prismaField({
    type: [Company],
    description: 'Creates 1 to 100 companies, all or none: any refused item refuses the batch, with every problem of every item as `inputs.<i>.<field>`.',
    args: { inputs: t.arg({ type: [CompanyInputs.create], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      await preload(ctx.db.contact, inputs.flatMap((input) => input.contactIds ?? []));
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validCompany(item, input, CreateCompanyInput)));
      const ids = await insertInRuns(
        valid.map((v) => newCompany(ctx, v)),
        { createMany: (rows) => insertRecords(ctx.db, 'Company', rows), create: (row, links) => insertCompany(ctx, row, links, { select: { id: true } }) },
      );
      return inOrder(ctx.db.company.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  updateCompanies: t.prismaField({
    type: [Company],
    description: 'Updates 1 to 100 companies (each item names its `id`), all or none.',
    args: { inputs: t.arg({ type: [CompanyInputs.updateItem], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const ids = inputs.map((input) => input.id);
      batch.knownIds(ids, new Set((await ctx.db.company.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((c) => c.id)));
      await preload(ctx.db.contact, inputs.flatMap((input) => input.contactIds ?? []));
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validCompany(item, input, UpdateCompanyInput)));
      for (const [index, input] of inputs.entries()) await applyToCompany(ctx, input.id, input, valid[index]!);
      return inOrder(ctx.db.company.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  deleteCompany: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'companies', id),
  }),
}));
