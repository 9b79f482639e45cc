import { type Tx, atomically, lockRow } from '../../db/locks.js';
import { searchText } from '../../db/search.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { linkIds, unknownId, unknownIds, writeReferencing } from '../../validation/ids.js';
import { parseInput } from '../../validation/parse.js';
import { INTERVAL_UNITS } from '../../payments/money.js';
import { PAYMENT_LINK_LIST, CreatePaymentLinkInput, PaymentLinkListArgs, UpdatePaymentLinkInput } from './payment-links.input.js';
import { newPublicToken } from './public-token.js';

const RESOURCE = 'Payment link';

export const IntervalUnitEnum = builder.enumType('PaymentIntervalUnit', { values: INTERVAL_UNITS });

export const PaymentLink = builder.prismaObject('PaymentLink', {
  fields: (t) => ({
    id: t.exposeID('id'),
    publicToken: t.exposeString('publicToken', { description: '43 URL-safe random characters; unique, never reused.' }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    amount: t.expose('amount', { type: 'Decimal', nullable: true }),
    currency: t.exposeString('currency'),
    isActive: t.exposeBoolean('isActive', { description: 'false when created; see activatePaymentLink.' }),
    maxInstallments: t.exposeInt('maxInstallments'),
    interestRate: t.expose('interestRate', { type: 'Decimal', description: 'A monthly percentage.' }),
    isRecurring: t.exposeBoolean('isRecurring'),
    intervalUnit: t.field({ type: IntervalUnitEnum, resolve: (l) => l.intervalUnit as (typeof INTERVAL_UNITS)[number] }),
    intervalCount: t.exposeInt('intervalCount'),
    billingCycles: t.exposeInt('billingCycles', { nullable: true }),
    paymentProviderAccountId: t.exposeID('providerAccountId'),
    providerAccount: t.relation('providerAccount'),
    products: t.relation('products', { ...pagedRelation(t, { id: 'asc' }) }),
    coupons: t.relation('coupons', { ...pagedRelation(t, { id: 'asc' }) }),
    transactions: t.relation('transactions', { ...pagedRelation(t, { id: 'desc' }), description: 'Newest first.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PaymentLinkPage = pageType('PaymentLink', PaymentLink);

const PaymentLinkInputs = createAndUpdateInputs('PaymentLink', { create: CreatePaymentLinkInput, update: UpdatePaymentLinkInput }, (t) => ({
  name: t.string(),
  description: t.string(),
  amount: t.field({ type: 'Decimal' }),
  currency: t.string({ description: "Default: the workspace's default currency." }),
  maxInstallments: t.int(),
  interestRate: t.field({ type: 'Decimal', description: 'A monthly percentage.' }),
  isRecurring: t.boolean(),
  intervalUnit: t.field({ type: IntervalUnitEnum }),
  intervalCount: t.int(),
  billingCycles: t.int(),
  paymentProviderAccountId: t.id(),
  productIds: t.idList({ description: 'Replaces the whole set when present.' }),
}));

const PaymentLinkFilter = builder.inputType('PaymentLinkFilter', {
  fields: (t) => ({ isActive: t.boolean(), paymentProviderAccountId: t.id() }),
});

type PaymentLinkInputShape = typeof PaymentLinkInputs.update.$inferInput;

const databaseChecks = (ctx: Context, input: PaymentLinkInputShape) =>
  Promise.all([
    unknownId(ctx.db.paymentProviderAccount, input.paymentProviderAccountId, 'payment_provider_account_id'),
    unknownIds(ctx.db.product, input.productIds, 'product_ids'),
  ]);


/**
 * Sets `isActive` in one conditional statement: a link already in that state is not
 * written (a no-op keeps `updatedAt`), and only an unknown id is NOT_FOUND.
 */
async function setActive(ctx: Context, query: object, id: string, isActive: boolean) {
  await ctx.db.paymentLink.updateMany({ where: { id, isActive: !isActive }, data: { isActive } });
  return orNotFound(ctx.db.paymentLink.findUnique({ ...query, where: { id } }), RESOURCE);
}

builder.queryFields((t) => ({
  paymentLink: t.prismaField({
    type: PaymentLink,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.paymentLink.findUnique({ ...query, where: { id } }), RESOURCE),
  }),
  paymentLinks: t.field({
    type: PaymentLinkPage,
    args: { ...listArgs(t, PAYMENT_LINK_LIST), filter: t.arg({ type: PaymentLinkFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { isActive, paymentProviderAccountId, ...listing } = parseInput(PaymentLinkListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = { isActive, providerAccountId: paymentProviderAccountId };
      return paginate(ctx.db.paymentLink, PAYMENT_LINK_LIST, { ...listing, where }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPaymentLink: t.prismaField({
    type: PaymentLink,
    description: 'Creates an inactive link with a fresh public token.',
    args: { input: t.arg({ type: PaymentLinkInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { paymentProviderAccountId, productIds, ...data } = parseInput(CreatePaymentLinkInput, input, ctx, ...(await databaseChecks(ctx, input)));
      return writeReferencing(
        () => databaseChecks(ctx, input),
        () =>
          ctx.db.paymentLink.create({
            ...query,
            data: {
              ...data,
              ...newRow(ctx.workspace.id),
              currency: data.currency ?? ctx.workspace.defaultCurrency,
              interestRate: data.interestRate ?? 0,
              publicToken: newPublicToken(),
              nameSearch: searchText(data.name),
              providerAccountId: paymentProviderAccountId,
              products: linkIds(productIds, 'connect'),
            },
          }),
      );
    },
  }),
  updatePaymentLink: t.prismaField({
    type: PaymentLink,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PaymentLinkInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      await orNotFound(ctx.db.paymentLink.findUnique({ where: { id }, select: { id: true } }), RESOURCE);
      const { paymentProviderAccountId, productIds, ...data } = parseInput(UpdatePaymentLinkInput, input, ctx, ...(await databaseChecks(ctx, input)));
      const write = (db: Pick<Tx, 'paymentLink'>) =>
        db.paymentLink.update({
          ...query,
          where: { id },
          data: {
            ...data,
            nameSearch: data.name === undefined ? undefined : searchText(data.name),
            providerAccountId: paymentProviderAccountId,
            products: linkIds(productIds, 'set'),
          },
        });
      if (productIds === undefined) return write(ctx.db);
      // Replacing the set locks the link first: concurrent replacements take turns.
      return writeReferencing(
        () => databaseChecks(ctx, input),
        () =>
          atomically(ctx.db, async (tx) => {
            await lockRow(tx, 'paymentLink', id);
            return write(tx);
          }),
      );
    },
  }),
  activatePaymentLink: t.prismaField({
    type: PaymentLink,
    description: 'Makes the link payable; activating an active link changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => setActive(ctx, query, id, true),
  }),
  deactivatePaymentLink: t.prismaField({
    type: PaymentLink,
    description: 'Stops the link taking payments; deactivating an inactive link changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => setActive(ctx, query, id, false),
  }),
  deletePaymentLink: t.id({
    description: 'Deletes the link and its coupons; refused (BAD_USER_INPUT on id) once it has transactions: deactivate it instead.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.paymentLink, id, RESOURCE, 'The payment link has transactions: deactivate it instead.'),
  }),
}));
