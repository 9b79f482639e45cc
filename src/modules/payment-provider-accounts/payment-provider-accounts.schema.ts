import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { parseInput } from '../../validation/parse.js';
import { CreatePaymentProviderAccountInput, PaymentProviderAccountListArgs, UpdatePaymentProviderAccountInput } from './payment-provider-accounts.input.js';

export const PaymentProviderAccount = builder.prismaObject('PaymentProviderAccount', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    provider: t.exposeString('provider', { description: 'The integration, e.g. `stripe`.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    paymentLinks: t.relation('paymentLinks', { ...pagedRelation(t, { id: 'asc' }) }),
    transactions: t.relation('transactions', { ...pagedRelation(t, { id: 'desc' }), description: 'Newest first.' }),
  }),
});

const PaymentProviderAccountPage = pageType('PaymentProviderAccount', PaymentProviderAccount);

const PaymentProviderAccountInputs = createAndUpdateInputs(
  'PaymentProviderAccount',
  { create: CreatePaymentProviderAccountInput, update: UpdatePaymentProviderAccountInput },
  (t) => ({ name: t.string(), provider: t.string() }),
);

const RESOURCE = 'Payment provider account';

builder.queryFields((t) => ({
  paymentProviderAccount: t.prismaField({
    type: PaymentProviderAccount,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.paymentProviderAccount.findUnique({ ...query, where: { id } }), RESOURCE),
  }),
  paymentProviderAccounts: t.field({
    type: PaymentProviderAccountPage,
    args: { page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, args, ctx, info) => {
      const { page, perPage } = parseInput(PaymentProviderAccountListArgs, { page: args.page ?? undefined, perPage: args.perPage ?? undefined }, ctx);
      return paginate(ctx.db.paymentProviderAccount, { page, perPage, where: {}, orderBy: { id: 'asc' }, typeName: 'PaymentProviderAccount' }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPaymentProviderAccount: t.prismaField({
    type: PaymentProviderAccount,
    args: { input: t.arg({ type: PaymentProviderAccountInputs.create, required: true }) },
    resolve: (query, _root, { input }, ctx) => {
      const data = parseInput(CreatePaymentProviderAccountInput, input, ctx);
      return ctx.db.paymentProviderAccount.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id) } });
    },
  }),
  updatePaymentProviderAccount: t.prismaField({
    type: PaymentProviderAccount,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PaymentProviderAccountInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      await orNotFound(ctx.db.paymentProviderAccount.findUnique({ where: { id }, select: { id: true } }), RESOURCE);
      const data = parseInput(UpdatePaymentProviderAccountInput, input, ctx);
      return ctx.db.paymentProviderAccount.update({ ...query, where: { id }, data });
    },
  }),
  deletePaymentProviderAccount: t.id({
    description: 'Refused (BAD_USER_INPUT on id) while payment links or transactions use the account.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.paymentProviderAccount, id, RESOURCE, 'The payment provider account is used by payment links or transactions.'),
  }),
}));
