import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { matching } from '../../db/search.js';
import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { toMinorUnits } from './minor-units.js';
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
      select: { price: true, currency: true },
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

const ProductInputs = createAndUpdateInputs('Product', { create: CreateProductInput, update: UpdateProductInput }, (t) => ({
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

const uniqueSku = uniqueValue('sku', CreateProductInput.shape.sku, (ctx, sku) => (sku === null ? Promise.resolve(null) : ctx.db.product.findFirst({ where: { sku }, select: { id: true } })));

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
      return ctx.db.product
        .create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), search: productSearchText({ name: data.name, sku: data.sku ?? null }) } })
        .catch((e) => Promise.reject(uniqueSku.taken(e)));
    },
  }),
  updateProduct: t.prismaField({
    type: Product,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ProductInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.product.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Product');
      const data = await parseInputReportingAll(UpdateProductInput, input, ctx, () => uniqueSku.probe(ctx, input.sku, id));
      if (data.name === undefined && data.sku === undefined) return ctx.db.product.update({ ...query, where: { id }, data }).catch((e) => Promise.reject(uniqueSku.taken(e)));
      // The search text needs the stored name or SKU: read them after the row is locked, so it never comes from a stale copy.
      return atomically(ctx.db, async (tx) => {
        await lockRow(tx, 'product', id);
        const stored = await tx.product.findUniqueOrThrow({ where: { id }, select: { name: true, sku: true } });
        const search = productSearchText({ name: data.name ?? stored.name, sku: data.sku === undefined ? stored.sku : data.sku });
        return tx.product.update({ ...query, where: { id }, data: { ...data, search } });
      }).catch((e) => Promise.reject(uniqueSku.taken(e)));
    },
  }),
  deleteProduct: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.product, id, 'Product'),
  }),
}));
