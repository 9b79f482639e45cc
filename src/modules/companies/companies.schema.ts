import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import type { Context } from '../../graphql/context.js';
import { linkIds, unknownIds, writeReferencing } from '../../validation/ids.js';
import { parseInput } from '../../validation/parse.js';
import { COMPANY_LIST, CompanyListArgs, CreateCompanyInput, UpdateCompanyInput } from './companies.input.js';

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

const CompanyInputs = createAndUpdateInputs('Company', { create: CreateCompanyInput, update: UpdateCompanyInput }, (t) => ({
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
const contactCheck = (ctx: Context, input: { contactIds?: readonly string[] | null }) => unknownIds(ctx.db.contact, input.contactIds, 'contact_ids');

builder.mutationFields((t) => ({
  createCompany: t.prismaField({
    type: Company,
    args: { input: t.arg({ type: CompanyInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { contactIds, ...data } = parseInput(CreateCompanyInput, input, ctx, await contactCheck(ctx, input));
      return writeReferencing(
        () => contactCheck(ctx, input),
        () => ctx.db.company.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), contacts: linkIds(contactIds, 'connect') } }),
      );
    },
  }),
  updateCompany: t.prismaField({
    type: Company,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CompanyInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.company.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Company');
      const { contactIds, ...data } = parseInput(UpdateCompanyInput, input, ctx, await contactCheck(ctx, input));
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
    },
  }),
  deleteCompany: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.company, id, 'Company'),
  }),
}));
