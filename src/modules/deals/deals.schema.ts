import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import type { Context } from '../../graphql/context.js';
import type { FieldErrors } from '../../graphql/errors.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate, type CountedList } from '../../graphql/pagination.js';
import { linkIds, unknownId, unknownIds, writeReferencing } from '../../validation/ids.js';
import { Messages } from '../../validation/messages.js';
import { parseInput } from '../../validation/parse.js';
import { mergeProperties, propertyErrors, visibleProperties } from '../property-definitions/properties.js';
import { DEAL_LIST, CreateDealInput, DealListArgs, UpdateDealInput } from './deals.input.js';

export const Deal = builder.prismaObject('Deal', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    estimatedValue: t.expose('estimatedValue', { type: 'Decimal' }),
    currency: t.string({ description: "The workspace's default currency.", resolve: (_deal, _args, ctx) => ctx.workspace.defaultCurrency }),
    expectedCloseDate: t.expose('expectedCloseDate', { type: 'Date', nullable: true }),
    properties: t.field({ type: 'JSON', select: { properties: true }, resolve: (d, _args, ctx) => visibleProperties(ctx, 'deal', d.properties) }),
    stageId: t.exposeID('stageId'),
    userId: t.exposeID('userId'),
    stage: t.relation('stage'),
    user: t.relation('user'),
    contacts: t.relation('contacts', { ...pagedRelation(t, { id: 'asc' }) }),
    products: t.relation('products', { ...pagedRelation(t, { id: 'asc' }) }),
    contactIds: t.field({
      type: ['ID'],
      description: 'Every contact id, as `contactIds` sets them (the CSV export column `contact_ids`).',
      select: { contacts: { select: { id: true }, orderBy: { id: 'asc' } } },
      resolve: (r) => r.contacts.map((x) => x.id),
    }),
    productIds: t.field({
      type: ['ID'],
      description: 'Every product id, as `productIds` sets them (the CSV export column `product_ids`).',
      select: { products: { select: { id: true }, orderBy: { id: 'asc' } } },
      resolve: (r) => r.products.map((x) => x.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DealPage = pageType('Deal', Deal);

const DealInputs = createAndUpdateInputs('Deal', { create: CreateDealInput, update: UpdateDealInput }, (t) => ({
  name: t.string(),
  estimatedValue: t.field({ type: 'Decimal' }),
  expectedCloseDate: t.field({ type: 'Date' }),
  dealStageExternalId: t.id({ description: "The stage's external id." }),
  userId: t.id({ description: 'The owner.' }),
  contactIds: t.idList({ description: 'Replaces the whole set when present.' }),
  productIds: t.idList({ description: 'Replaces the whole set when present.' }),
  properties: t.field({ type: 'JSON', description: 'Merged into the stored map; a key sent as null is removed.' }),
}));

const DealFilter = builder.inputType('DealFilter', {
  fields: (t) => ({ pipelineId: t.id(), dealStageExternalId: t.id() }),
});

type DealInputShape = typeof DealInputs.update.$inferInput;

/** Database checks for a deal input; the stage id they find is what gets stored. */
async function checks(ctx: Context, input: DealInputShape): Promise<{ errors: FieldErrors[]; stageId?: string }> {
  const stage =
    typeof input.dealStageExternalId === 'string'
      ? await ctx.db.dealStage.findUnique({ where: { externalId: input.dealStageExternalId }, select: { id: true } })
      : undefined;
  const stageErrors: FieldErrors = stage === null ? { deal_stage_external_id: [Messages.unknownId('deal_stage_external_id')] } : {};
  const errors = await Promise.all([
    unknownId(ctx.db.user, input.userId, 'user_id'),
    unknownIds(ctx.db.contact, input.contactIds, 'contact_ids'),
    unknownIds(ctx.db.product, input.productIds, 'product_ids'),
    propertyErrors(ctx, 'deal', input.properties),
  ]);
  return { errors: [stageErrors, ...errors], stageId: stage?.id };
}


/** The stored count for the deals filter, when one answers it (not both filters at once). */
function dealBucket(pipelineId: string | undefined, stageExternalId: string | undefined): CountedList | undefined {
  if (pipelineId && stageExternalId) return undefined;
  return { list: 'Deal', bucket: pipelineId ? `pipeline:${pipelineId}` : stageExternalId ? `stage:${stageExternalId}` : '' };
}

builder.queryFields((t) => ({
  deal: t.prismaField({
    type: Deal,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.deal.findUnique({ ...query, where: { id } }), 'Deal'),
  }),
  deals: t.field({
    type: DealPage,
    args: { ...listArgs(t, DEAL_LIST), filter: t.arg({ type: DealFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { pipelineId, dealStageExternalId, ...listing } = parseInput(DealListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = pipelineId || dealStageExternalId ? { stage: { pipelineId, externalId: dealStageExternalId } } : {};
      return paginate(ctx.db.deal, DEAL_LIST, { ...listing, where, counted: dealBucket(pipelineId, dealStageExternalId) }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createDeal: t.prismaField({
    type: Deal,
    args: { input: t.arg({ type: DealInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const found = await checks(ctx, input);
      const { dealStageExternalId: _stage, contactIds, productIds, properties, ...data } = parseInput(CreateDealInput, input, ctx, ...found.errors);
      return writeReferencing(
        async () => (await checks(ctx, input)).errors,
        () =>
          ctx.db.deal.create({
            ...query,
            data: {
              ...data,
              ...newRow(ctx.workspace.id),
              estimatedValue: data.estimatedValue ?? 0,
              stageId: found.stageId!,
              properties: mergeProperties({}, properties),
              contacts: linkIds(contactIds, 'connect'),
              products: linkIds(productIds, 'connect'),
            },
          }),
      );
    },
  }),
  updateDeal: t.prismaField({
    type: Deal,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: DealInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.deal.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Deal');
      const found = await checks(ctx, input);
      const { dealStageExternalId: _stage, contactIds, productIds, properties, ...data } = parseInput(UpdateDealInput, input, ctx, ...found.errors);
      const contacts = linkIds(contactIds, 'set');
      const products = linkIds(productIds, 'set');
      return writeReferencing(
        async () => (await checks(ctx, input)).errors,
        async () => {
          if (properties === undefined && contacts === undefined && products === undefined) {
            return ctx.db.deal.update({ ...query, where: { id }, data: { ...data, stageId: found.stageId } });
          }
          // The stored map is read after the row is locked, so concurrent merges each see the last one's.
          return atomically(ctx.db, async (tx) => {
            await lockRow(tx, 'deal', id);
            const stored = properties === undefined ? undefined : await tx.deal.findUniqueOrThrow({ where: { id }, select: { properties: true } });
            return tx.deal.update({
              ...query,
              where: { id },
              data: { ...data, stageId: found.stageId, properties: stored && mergeProperties(stored.properties, properties), contacts, products },
            });
          });
        },
      );
    },
  }),
  deleteDeal: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.deal, id, 'Deal'),
  }),
}));
