import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { parseInput } from '../../validation/parse.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { PAYMENT_PROVIDER_ACCOUNT_LIST, CreatePaymentProviderAccountInput, PaymentProviderAccountListArgs, UpdatePaymentProviderAccountInput } from './payment-provider-accounts.input.js';

// The field builder both account types share (the one create answers adds the webhook secret).
type AccountFieldBuilder = Parameters<NonNullable<Parameters<typeof builder.prismaObject<'PaymentProviderAccount', any, any, any, any>>[1]['fields']>>[0];
const accountFields = (t: AccountFieldBuilder) => ({
  id: t.exposeID('id'),
  name: t.exposeString('name'),
  provider: t.exposeString('provider', { description: 'The integration, e.g. `stripe`; `test` is the built-in test provider.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
  updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
});

export const PaymentProviderAccount = builder.prismaObject('PaymentProviderAccount', {
  fields: (t) => ({
    ...accountFields(t),
    paymentLinks: t.relation('paymentLinks', { ...pagedRelation(t, { id: 'asc' }) }),
    transactions: t.relation('transactions', { ...pagedRelation(t, { id: 'desc' }), description: 'Newest first.' }),
  }),
});

/** The answer of create: the account and, this once, the secret its provider signs webhooks with. */
const PaymentProviderAccountWithSecret = builder.prismaObject('PaymentProviderAccount', {
  variant: 'PaymentProviderAccountWithSecret',
  fields: (t) => ({
    ...accountFields(t),
    webhookSecret: t.string({
      description: 'The Standard Webhooks secret (`whsec_...`) that signs the provider\'s webhooks to POST /api/v1/provider-webhooks/{id}: shown only now.',
      select: { webhookSecret: true },
      resolve: (account) => account.webhookSecret!,
    }),
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
    args: listArgs(t, PAYMENT_PROVIDER_ACCOUNT_LIST),
    resolve: (_root, args, ctx, info) => {
      const { ...listing } = parseInput(PaymentProviderAccountListArgs, { ...listInput(args) }, ctx);
      return paginate(ctx.db.paymentProviderAccount, PAYMENT_PROVIDER_ACCOUNT_LIST, { ...listing, where: {} }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPaymentProviderAccount: t.prismaField({
    type: PaymentProviderAccountWithSecret,
    args: { input: t.arg({ type: PaymentProviderAccountInputs.create, required: true }) },
    resolve: (query, _root, { input }, ctx) => {
      const data = parseInput(CreatePaymentProviderAccountInput, input, ctx);
      return ctx.db.paymentProviderAccount.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), webhookSecret: newWebhookSecret() } });
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
