import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import type { z } from 'zod';
import { Batch, type NewRow, inOrder, insertInRuns } from '../../graphql/batch.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import { batchInputs } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import type { Context } from '../../graphql/context.js';
import type { FieldErrors } from '../../validation/messages.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate, type CountedList } from '../../graphql/pagination.js';
import { linkIds, preload, preloadedRow, unknownId, unknownIds, writeReferencing } from '../../validation/ids.js';
import { Messages } from '../../validation/messages.js';
import { parseInput } from '../../validation/parse.js';
import { mergeProperties, propertyErrors, visibleProperties } from '../property-definitions/properties.js';
import { DEAL_LIST, CreateDealInput, DealListArgs, UpdateDealInput } from './deals.input.js';

export const Deal = builder.prismaObject('Deal', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    estimatedValue: t.expose('estimatedValue', { type: 'Decimal' }),
    currency: t.exposeString('currency', { description: "The workspace's default currency when the deal was created (it does not follow later changes)." }),
    expectedCloseDate: t.expose('expectedCloseDate', { type: 'Date', nullable: true }),
    properties: t.field({ type: 'JSON', resolve: (d, _args, ctx) => visibleProperties(ctx, 'deal', d.properties) }),
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

const DealInputs = batchInputs('Deal', 'Deals', { create: CreateDealInput, update: UpdateDealInput }, (t) => ({
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
  const stage = typeof input.dealStageExternalId === 'string' ? await stageOf(ctx, input.dealStageExternalId) : undefined;
  const stageErrors: FieldErrors = stage === null ? { deal_stage_external_id: [Messages.unknownId('deal_stage_external_id')] } : {};
  const errors = await Promise.all([
    unknownId(ctx.db.user, input.userId, 'user_id'),
    unknownIds(ctx.db.contact, input.contactIds, 'contact_ids'),
    unknownIds(ctx.db.product, input.productIds, 'product_ids'),
    propertyErrors(ctx, 'deal', input.properties),
  ]);
  return { errors: [stageErrors, ...errors], stageId: stage?.id };
}


/** The stage with this external id (a batch's are preloaded: `preloadDeals`). */
async function stageOf(ctx: Context, externalId: string): Promise<{ id: string } | null> {
  const memo = preloadedRow(ctx.db.dealStage, externalId, 'externalId');
  if (memo !== undefined) return memo === null ? null : { id: memo };
  return ctx.db.dealStage.findUnique({ where: { externalId }, select: { id: true } });
}

/** Parses a deal input against its rules and the database; the stage id found is what gets stored. */
async function validDeal<S extends z.ZodType<{ dealStageExternalId?: string }>>(ctx: Context, input: DealInputShape, schema: S) {
  const found = await checks(ctx, input);
  const { dealStageExternalId: _stage, ...data } = parseInput(schema, input, ctx, ...found.errors);
  return { data, stageId: found.stageId };
}

/** A new deal's row, and the contacts and products it links (none: undefined). */
function newDeal(ctx: Context, { data, stageId }: Awaited<ReturnType<typeof validDeal<typeof CreateDealInput>>>) {
  const { contactIds, productIds, properties, ...fields } = data;
  const row = {
    ...fields,
    ...newRow(ctx.workspace.id),
    estimatedValue: fields.estimatedValue ?? 0,
    currency: ctx.workspace.defaultCurrency,
    stageId: stageId!,
    properties: mergeProperties({}, properties),
  };
  const links = contactIds?.length || productIds?.length ? { contactIds, productIds } : undefined;
  return { row, links } satisfies NewRow<typeof row, unknown>;
}

type DealLinks = { contactIds?: string[]; productIds?: string[] };
const insertDeal = (ctx: Context, row: ReturnType<typeof newDeal>['row'], links: DealLinks = {}, query: object = {}) =>
  ctx.db.deal.create({ ...query, data: { ...row, contacts: linkIds(links.contactIds, 'connect'), products: linkIds(links.productIds, 'connect') } });

/** A partial update, after `validDeal`: properties merge; contact and product ids replace their sets. */
function applyToDeal(ctx: Context, id: string, input: DealInputShape, { data: valid, stageId }: Awaited<ReturnType<typeof validDeal<typeof UpdateDealInput>>>, query: object = {}) {
  const { contactIds, productIds, properties, ...data } = valid;
  const contacts = linkIds(contactIds, 'set');
  const products = linkIds(productIds, 'set');
  return writeReferencing(
    async () => (await checks(ctx, input)).errors,
    async () => {
      if (properties === undefined && contacts === undefined && products === undefined) {
        return ctx.db.deal.update({ ...query, where: { id }, data: { ...data, stageId } });
      }
      // The stored map is read after the row is locked, so concurrent merges each see the last one's.
      return atomically(ctx.db, async (tx) => {
        await lockRow(tx, 'deal', id);
        const stored = properties === undefined ? undefined : await tx.deal.findUniqueOrThrow({ where: { id }, select: { properties: true } });
        return tx.deal.update({
          ...query,
          where: { id },
          data: { ...data, stageId, properties: stored && mergeProperties(stored.properties, properties), contacts, products },
        });
      });
    },
  );
}

/** What a batch's deals name, read at once: stages, owners, contacts and products. */
async function preloadDeals(ctx: Context, inputs: readonly DealInputShape[]): Promise<void> {
  await preload(ctx.db.dealStage, inputs.map((input) => input.dealStageExternalId), 'externalId');
  await preload(ctx.db.user, inputs.map((input) => input.userId));
  await preload(ctx.db.contact, inputs.flatMap((input) => input.contactIds ?? []));
  await preload(ctx.db.product, inputs.flatMap((input) => input.productIds ?? []));
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
      const { row, links } = newDeal(ctx, await validDeal(ctx, input, CreateDealInput));
      return writeReferencing(async () => (await checks(ctx, input)).errors, () => insertDeal(ctx, row, links, query));
    },
  }),
  updateDeal: t.prismaField({
    type: Deal,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: DealInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.deal.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Deal');
      return applyToDeal(ctx, id, input, await validDeal(ctx, input, UpdateDealInput), query);
    },
  }),
  // Batches (API.md section 8): all or nothing in the mutation's transaction (src/graphql/batch.ts).
  createDeals: t.prismaField({
    type: [Deal],
    description: 'Creates 1 to 100 deals, all or none: any refused item refuses the batch, with every problem of every item as `inputs.<i>.<field>`.',
    args: { inputs: t.arg({ type: [DealInputs.create], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      await preloadDeals(ctx, inputs);
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validDeal(item, input, CreateDealInput)));
      const ids = await insertInRuns(
        valid.map((v) => newDeal(ctx, v)),
        { createMany: (data) => ctx.db.deal.createMany({ data }), create: (row, links) => insertDeal(ctx, row, links, { select: { id: true } }) },
      );
      return inOrder(ctx.db.deal.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  updateDeals: t.prismaField({
    type: [Deal],
    description: 'Updates 1 to 100 deals (each item names its `id`), all or none.',
    args: { inputs: t.arg({ type: [DealInputs.updateItem], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const ids = inputs.map((input) => input.id);
      batch.knownIds(ids, new Set((await ctx.db.deal.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((d) => d.id)));
      await preloadDeals(ctx, inputs);
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validDeal(item, input, UpdateDealInput)));
      for (const [index, input] of inputs.entries()) await applyToDeal(ctx, input.id, input, valid[index]!);
      return inOrder(ctx.db.deal.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  deleteDeal: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'deals', id),
  }),
}));
