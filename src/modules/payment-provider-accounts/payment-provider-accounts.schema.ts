import { GraphQLError } from 'graphql';
import { newId } from '../../db/ids.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { ErrorCode, invalid, invalidField } from '../../graphql/errors.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { type AccountSecrets, ProviderDeclined, ProviderRefusedCredentials, ProviderUnreachable, adapterOf, isRemote, openCredentials } from '../../payments/providers.js';
import type { Prepare } from '../../events/mutations.js';
import { parseInput } from '../../validation/parse.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { PAYMENT_PROVIDER_ACCOUNT_LIST, CreatePaymentProviderAccountInput, PaymentProviderAccountListArgs, UpdatePaymentProviderAccountInput } from './payment-provider-accounts.input.js';

const RESOURCE = 'Payment provider account';
export const PROVIDER_UNREACHABLE = 'The payment provider could not be reached.';

/** A provider's failure as the contract states it: refused credentials 422, anything else of the provider's 502. */
export function providerError(error: unknown, refusedField?: string): unknown {
  if (refusedField && (error instanceof ProviderRefusedCredentials || error instanceof ProviderDeclined)) return invalidField(refusedField, 'The provider refused these credentials.');
  if (error instanceof ProviderUnreachable || error instanceof ProviderRefusedCredentials || error instanceof ProviderDeclined) {
    return new GraphQLError(PROVIDER_UNREACHABLE, { extensions: { code: ErrorCode.ProviderUnreachable } });
  }
  return error;
}

/** Where the account's provider sends its webhooks: PUBLIC_BASE_URL's, else the origin the caller reached. */
export function webhookUrlOf(ctx: Context, accountId: string): string | null {
  const base = ctx.settings.payments.publicBaseUrl ?? ctx.origin;
  return base ? `${base}/api/v1/provider-webhooks/${accountId}` : null;
}

/** What a create or update worked out with the provider before writing (outside any transaction). */
interface Sealed {
  id: string;
  sealedCredentials?: string | null;
  mode?: string | null;
  credentialsHint?: string | null;
  /** Asaas: the webhook token the service made, shown once. */
  shownToken?: string;
}

/**
 * Checks `credentials` with `provider` (one call), makes or registers the webhook's secret
 * or token, and seals them: the row's columns. `kept`: the account's current secrets, whose
 * webhook secret or token new credentials keep.
 */
async function sealCredentials(ctx: Context, id: string, provider: string, credentials: unknown, kept: AccountSecrets = {}): Promise<Sealed> {
  const { payments } = ctx.settings;
  const adapter = adapterOf(payments, provider);
  if (!isRemote(adapter)) return { id, sealedCredentials: null, mode: null, credentialsHint: null };
  const parsed = adapter.parseCredentials(credentials);
  if (!parsed.ok) throw invalid(parsed.errors);
  try {
    const { mode, hint } = await adapter.check(parsed.credentials, payments.call);
    const webhook = { ...Object.fromEntries(Object.entries(kept).filter(([k]) => k.startsWith('webhook_'))), ...parsed.credentials };
    const registerAt = payments.publicBaseUrl ? webhookUrlOf(ctx, id)! : undefined;
    const { secrets, shownToken } = await adapter.webhookSecret(webhook, registerAt, payments.call);
    return { id, sealedCredentials: payments.secrets.seal(JSON.stringify(secrets)), mode, credentialsHint: hint, shownToken };
  } catch (error) {
    throw providerError(error, 'credentials');
  }
}

const prepareCreate: Prepare = async ({ input }, ctx) => {
  const data = parseInput(CreatePaymentProviderAccountInput, input, ctx);
  return sealCredentials(ctx, newId(), data.provider, data.credentials);
};

const prepareUpdate: Prepare = async ({ id, input }, ctx) => {
  const account = await orNotFound(ctx.db.paymentProviderAccount.findUnique({ where: { id: id as string }, select: { provider: true, sealedCredentials: true } }), RESOURCE);
  const data = parseInput(UpdatePaymentProviderAccountInput, input, ctx);
  const provider = data.provider ?? account.provider;
  if (data.credentials === undefined && provider === account.provider) return { id };
  if (data.credentials === undefined && isRemote(adapterOf(ctx.settings.payments, provider))) throw invalidField('credentials', 'The credentials field is required.');
  let kept: AccountSecrets = {};
  try {
    if (provider === account.provider && account.sealedCredentials) kept = openCredentials(ctx.settings.payments, account.sealedCredentials);
  } catch {
    // Unreadable (the key is gone): the new credentials replace them whole.
  }
  return sealCredentials(ctx, id as string, provider, data.credentials, kept);
};

// The field builder both account types share (the one create answers adds the webhook secret or token).
type AccountFieldBuilder = Parameters<NonNullable<Parameters<typeof builder.prismaObject<'PaymentProviderAccount', any, any, any, any>>[1]['fields']>>[0];
const accountFields = (t: AccountFieldBuilder) => ({
  id: t.exposeID('id'),
  name: t.exposeString('name'),
  provider: t.exposeString('provider', { description: '`test` (the built-in test provider), `stripe` or `asaas`.' }),
  mode: t.exposeString('mode', { nullable: true, description: 'Stripe: `test` or `live` (from the key); Asaas: `sandbox` or `production`; null for `test`.' }),
  credentialsHint: t.exposeString('credentialsHint', { nullable: true, description: "The key's last 4 characters; the credentials themselves are never shown." }),
  webhookUrl: t.string({
    nullable: true,
    description: 'Where the provider sends its webhooks: {base}/api/v1/provider-webhooks/{id}.',
    resolve: (account, _args, ctx) => webhookUrlOf(ctx, account.id),
  }),
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

/** The answer of create: the account and, this once, what authenticates its provider's webhooks. */
const PaymentProviderAccountWithSecret = builder.prismaObject('PaymentProviderAccount', {
  variant: 'PaymentProviderAccountWithSecret',
  fields: (t) => ({
    ...accountFields(t),
    webhookSecret: t.string({
      nullable: true,
      description: "`test` accounts: the Standard Webhooks secret (`whsec_...`) that signs the provider's webhooks to POST /api/v1/provider-webhooks/{id}: shown only now.",
      select: { webhookSecret: true },
      resolve: (account) => account.webhookSecret,
    }),
    webhookToken: t.string({
      nullable: true,
      description: "`asaas` accounts: the token to enter in Asaas's webhook settings (its `asaas-access-token` header): shown only now.",
      resolve: (_account, _args, ctx) => (ctx.prepared?.get('createPaymentProviderAccount') as Sealed | undefined)?.shownToken ?? null,
    }),
  }),
});

const PaymentProviderAccountPage = pageType('PaymentProviderAccount', PaymentProviderAccount);

const PaymentProviderAccountInputs = createAndUpdateInputs(
  'PaymentProviderAccount',
  { create: CreatePaymentProviderAccountInput, update: UpdatePaymentProviderAccountInput },
  (t) => ({
    name: t.string(),
    provider: t.string(),
    credentials: t.field({ type: 'JSON', description: 'stripe: `secret_key`, `webhook_signing_secret`; asaas: `api_key`, `environment`. Checked with the provider, stored encrypted, never shown.' }),
  }),
);

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
    description: "Credentials are checked with the provider first (422 when it refuses them, 502 when it cannot be reached), then stored encrypted.",
    args: { input: t.arg({ type: PaymentProviderAccountInputs.create, required: true }) },
    extensions: { prepare: prepareCreate },
    resolve: (query, _root, { input }, ctx) => {
      const data = parseInput(CreatePaymentProviderAccountInput, input, ctx);
      const { shownToken: _shown, ...sealed } = ctx.prepared!.get('createPaymentProviderAccount') as Sealed;
      const row = { ...newRow(ctx.workspace.id), ...sealed };
      return ctx.db.paymentProviderAccount.create({
        ...query,
        data: { ...row, name: data.name, provider: data.provider, webhookSecret: data.provider === 'test' ? newWebhookSecret() : null },
      });
    },
  }),
  updatePaymentProviderAccount: t.prismaField({
    type: PaymentProviderAccount,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PaymentProviderAccountInputs.update, required: true }) },
    extensions: { prepare: prepareUpdate },
    resolve: async (query, _root, { id, input }, ctx) => {
      await orNotFound(ctx.db.paymentProviderAccount.findUnique({ where: { id }, select: { id: true } }), RESOURCE);
      const { credentials: _given, ...data } = parseInput(UpdatePaymentProviderAccountInput, input, ctx);
      const { id: _id, shownToken: _shown, ...sealed } = ctx.prepared!.get('updatePaymentProviderAccount') as Sealed;
      return ctx.db.paymentProviderAccount.update({ ...query, where: { id }, data: { ...data, ...sealed } });
    },
  }),
  deletePaymentProviderAccount: t.id({
    description: 'Refused (BAD_USER_INPUT on id) while payment links or transactions use the account.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.paymentProviderAccount, id, RESOURCE, 'The payment provider account is used by payment links or transactions.'),
  }),
}));
