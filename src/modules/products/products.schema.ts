import type { z } from 'zod';
import { Batch, inOrder, insertInRuns } from '../../graphql/batch.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import type { Context } from '../../graphql/context.js';
import { batchInputs } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { matching } from '../../db/search.js';
import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { toMinorUnits } from '../../payments/currencies.js';
import { PRODUCT_LIST, CreateProductInput, PRODUCT_TYPES, ProductListArgs, UpdateProductInput, productSearchText } from './products.input.js';

export const ProductTypeEnum = builder.enumType('ProductType', { values: PRODUCT_TYPES });

export const Product = builder.prismaObject('Product', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    sku: t.exposeString('sku', { nullable: true }),
    type: t.field({ type: ProductTypeEnum, resolve: (p) => p.type as (typeof PRODUCT_TYPES)[number] }),
    description: t.exposeString('description', { nullable: true }),
    price: t.expose('price', { type: 'Decimal' }),
    priceMinor: t.field({
      type: 'SafeInt',
      description: "The price in the currency's minor unit (ISO 4217 exponent: USD 2, JPY 0, BHD 3), rounded half away from zero.",
      resolve: (p) => toMinorUnits(p.price, p.currency),
    }),
    cost: t.expose('cost', { type: 'Decimal', nullable: true }),
    currency: t.exposeString('currency'),
    unit: t.exposeString('unit'),
    taxRate: t.expose('taxRate', { type: 'Decimal', nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deals: t.relation('deals', { ...pagedRelation(t, { id: 'asc' }) }),
    paymentLinks: t.relation('paymentLinks', { ...pagedRelation(t, { id: 'asc' }) }),
  }),
});

const ProductPage = pageType('Product', Product);

const ProductInputs = batchInputs('Product', 'Products', { create: CreateProductInput, update: UpdateProductInput }, (t) => ({
    name: t.string(),
    sku: t.string(),
    type: t.field({ type: ProductTypeEnum }),
    description: t.string(),
    price: t.field({ type: 'Decimal' }),
    cost: t.field({ type: 'Decimal' }),
    currency: t.string(),
    unit: t.string(),
    taxRate: t.field({ type: 'Decimal' }),
    isActive: t.boolean(),
}));

const ProductFilter = builder.inputType('ProductFilter', {
  fields: (t) => ({
    isActive: t.boolean(),
    type: t.field({ type: ProductTypeEnum }),
    search: t.string({ description: 'Case-insensitive substring of the name or the SKU.' }),
  }),
});

const uniqueSku = uniqueValue(
  'sku',
  CreateProductInput.shape.sku,
  (ctx, sku) => (sku === null ? Promise.resolve(null) : ctx.db.product.findFirst({ where: { sku }, select: { id: true } })),
  async (ctx, skus) =>
    (await ctx.db.product.findMany({ where: { sku: { in: skus.filter((sku): sku is string => sku !== null) } }, select: { id: true, sku: true } })).map((p) => ({ id: p.id, value: p.sku })),
);

/** A new product's row. */
const newProduct = (ctx: Context, data: z.output<typeof CreateProductInput>) => ({ ...data, ...newRow(ctx.workspace.id), search: productSearchText({ name: data.name, sku: data.sku ?? null }) });

/** A partial update, after validation; a taken SKU is the caller's to word (`uniqueSku.taken`, or the batch's check). */
function applyToProduct(ctx: Context, id: string, data: z.output<typeof UpdateProductInput>, query: object = {}) {
  if (data.name === undefined && data.sku === undefined) return ctx.db.product.update({ ...query, where: { id }, data });
  // The search text needs the stored name or SKU: read them after the row is locked, so it never comes from a stale copy.
  return atomically(ctx.db, async (tx) => {
    await lockRow(tx, 'product', id);
    const stored = await tx.product.findUniqueOrThrow({ where: { id }, select: { name: true, sku: true } });
    const search = productSearchText({ name: data.name ?? stored.name, sku: data.sku === undefined ? stored.sku : data.sku });
    return tx.product.update({ ...query, where: { id }, data: { ...data, search } });
  });
}

builder.queryFields((t) => ({
  product: t.prismaField({
    type: Product,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.product.findUnique({ ...query, where: { id } }), 'Product'),
  }),
  products: t.field({
    type: ProductPage,
    args: { ...listArgs(t, PRODUCT_LIST), filter: t.arg({ type: ProductFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { isActive, type, search, ...listing } = parseInput(ProductListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = { isActive, type, ...(search ? { search: matching(search) } : {}) };
      return paginate(ctx.db.product, PRODUCT_LIST, { ...listing, where }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createProduct: t.prismaField({
    type: Product,
    args: { input: t.arg({ type: ProductInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = await parseInputReportingAll(CreateProductInput, input, ctx, () => uniqueSku.probe(ctx, input.sku));
      return ctx.db.product.create({ ...query, data: newProduct(ctx, data) }).catch((e) => Promise.reject(uniqueSku.taken(e)));
    },
  }),
  updateProduct: t.prismaField({
    type: Product,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ProductInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.product.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Product');
      const data = await parseInputReportingAll(UpdateProductInput, input, ctx, () => uniqueSku.probe(ctx, input.sku, id));
      return applyToProduct(ctx, id, data, query).catch((e) => Promise.reject(uniqueSku.taken(e)));
    },
  }),
  // Batches (API.md section 8): all or nothing in the mutation's transaction (src/graphql/batch.ts); a SKU
  // taken by a concurrent write meanwhile runs the batch again, whose check then names the item.
  createProducts: t.prismaField({
    type: [Product],
    description: 'Creates 1 to 100 products, all or none: any refused item refuses the batch, with every problem of every item as `inputs.<i>.<field>`.',
    args: { inputs: t.arg({ type: [ProductInputs.create], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const values = await batch.validate(ctx, async (item, input) => parseInput(CreateProductInput, input, item));
      batch.unique(await uniqueSku.holders(ctx, inputs.map((input) => input.sku)));
      const ids = await insertInRuns(
        batch.accepted(values).map((data) => ({ row: newProduct(ctx, data) })),
        { createMany: (data) => ctx.db.product.createMany({ data }), create: (data) => ctx.db.product.create({ data, select: { id: true } }) },
      );
      return inOrder(ctx.db.product.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  updateProducts: t.prismaField({
    type: [Product],
    description: 'Updates 1 to 100 products (each item names its `id`), all or none.',
    args: { inputs: t.arg({ type: [ProductInputs.updateItem], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const ids = inputs.map((input) => input.id);
      batch.knownIds(ids, new Set((await ctx.db.product.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((p) => p.id)));
      const values = await batch.validate(ctx, async (item, input) => parseInput(UpdateProductInput, input, item));
      batch.unique(await uniqueSku.holders(ctx, inputs.map((input) => input.sku)), (index, holder) => holder === ids[index]);
      const valid = batch.accepted(values);
      for (const [index, id] of ids.entries()) await applyToProduct(ctx, id, valid[index]!);
      return inOrder(ctx.db.product.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  deleteProduct: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'products', id),
  }),
}));
