import { settleCheckout } from '../checkouts/redemptions.js';
import { isUniqueViolation } from '../../db/errors.js';
import { atomically, lockRow } from '../../db/locks.js';
import { matching, searchText } from '../../db/search.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { inputTypeFrom } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { listArgs, listInput, MAX_PER_PAGE, pagedRelation, pageType, paginate, storedCounts } from '../../graphql/pagination.js';
import { orNotFound } from '../../graphql/records.js';
import { unknownId, writeReferencing } from '../../validation/ids.js';
import { parseInput } from '../../validation/parse.js';
import { PAYMENT_TRANSACTION_LIST, AppendPaymentTransactionEventInput, PAYMENT_STATUSES, PaymentTransactionListArgs, ProviderEventInput, RecordPaymentTransactionInput } from './payment-transactions.input.js';

const RESOURCE = 'Payment transaction';

type Status = (typeof PAYMENT_STATUSES)[number];
export const PaymentStatusEnum = builder.enumType('PaymentStatus', { values: PAYMENT_STATUSES });

/** Events oldest first; events at the same instant in arrival order. */
const EVENT_ORDER = [{ occurredAt: 'asc' as const }, { id: 'asc' as const }];
const LATEST_EVENT_FIRST = [{ occurredAt: 'desc' as const }, { id: 'desc' as const }];

export const PaymentTransactionEvent = builder.prismaObject('PaymentTransactionEvent', {
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type', { description: 'e.g. `payment.created`, `payment.paid`.' }),
    status: t.field({ type: PaymentStatusEnum, resolve: (e) => e.status as Status }),
    providerReference: t.exposeString('providerReference', { description: "The provider's event id; unique per transaction." }),
    payload: t.expose('payload', { type: 'JSON' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    transactionId: t.exposeID('transactionId'),
    transaction: t.relation('transaction'),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was received.' }),
  }),
});

const PaymentDispute = builder
  .objectRef<{ status: string; amount: unknown; reason: string | null; openedAt: Date | null; closedAt: Date | null }>('PaymentDispute')
  .implement({
    fields: (t) => ({
      status: t.exposeString('status', { description: '`open`, `won` or `lost`.' }),
      amount: t.field({ type: 'Decimal', nullable: true, resolve: (d) => d.amount as never }),
      reason: t.exposeString('reason', { nullable: true }),
      openedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.openedAt }),
      closedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.closedAt }),
    }),
  });

export const PaymentTransaction = builder.prismaObject('PaymentTransaction', {
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.field({ type: PaymentStatusEnum, description: 'The status of the latest event by occurredAt.', resolve: (p) => p.status as Status }),
    providerReference: t.exposeString('providerReference', { description: "The provider's id; unique per provider account." }),
    amount: t.expose('amount', { type: 'Decimal' }),
    currency: t.exposeString('currency'),
    metadata: t.expose('metadata', { type: 'JSON' }),
    paymentLinkId: t.exposeID('paymentLinkId'),
    paymentProviderAccountId: t.exposeID('providerAccountId'),
    paymentLink: t.relation('paymentLink'),
    providerAccount: t.relation('providerAccount'),
    events: t.relation('events', { ...pagedRelation(t, EVENT_ORDER), description: 'Oldest first.' }),
    latestEvents: t.field({
      type: [PaymentTransactionEvent],
      description: `Its latest ${MAX_PER_PAGE} events by occurredAt, oldest first: the event its status comes from is always among them (what REST embeds).`,
      select: (_args, _ctx, nestedSelection) => ({ events: nestedSelection({ orderBy: LATEST_EVENT_FIRST, take: MAX_PER_PAGE }) }),
      resolve: (transaction) => [...transaction.events].reverse(),
    }),
    amountRefunded: t.expose('amountRefunded', { type: 'Decimal', description: 'Succeeded and pending refunds, and a lost dispute.' }),
    dispute: t.field({
      type: PaymentDispute,
      nullable: true,
      description: 'The payer\'s dispute of the charge (a chargeback), if any.',
      resolve: (p) =>
        p.disputeStatus
          ? { status: p.disputeStatus, amount: p.disputeAmount, reason: p.disputeReason, openedAt: p.disputeOpenedAt, closedAt: p.disputeClosedAt }
          : null,
    }),
    refunds: t.relation('refunds', { ...pagedRelation(t, { id: 'asc' }), description: 'Oldest first.' }),
    checkoutId: t.string({ nullable: true, description: 'The checkout this is a charge of (its first, or a later one of its plan).', select: { planCheckout: { select: { token: true } } }, resolve: (p) => p.planCheckout?.token ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PaymentTransactionPage = pageType('PaymentTransaction', PaymentTransaction);

const PaymentTransactionFilter = builder.inputType('PaymentTransactionFilter', {
  fields: (t) => ({
    status: t.field({ type: PaymentStatusEnum }),
    search: t.string({ description: "Case-insensitive substring of the provider reference or of the payment link's name." }),
    checkoutId: t.string({ description: "A checkout's id: its charges (its own and its plan's later ones)." }),
  }),
});

const RecordPaymentTransactionInputType = inputTypeFrom('RecordPaymentTransactionInput', RecordPaymentTransactionInput, (t) => ({
  paymentLinkId: t.id(),
  paymentProviderAccountId: t.id({ description: "Default: the payment link's account." }),
  providerReference: t.string(),
  amount: t.field({ type: 'Decimal' }),
  currency: t.string(),
  status: t.field({ type: PaymentStatusEnum, description: 'Default: pending.' }),
  metadata: t.field({ type: 'JSON', description: 'An object; default {}.' }),
}));

const AppendPaymentTransactionEventInputType = inputTypeFrom('AppendPaymentTransactionEventInput', AppendPaymentTransactionEventInput, (t) => ({
  type: t.string(),
  status: t.field({ type: PaymentStatusEnum }),
  providerReference: t.string(),
  payload: t.field({ type: 'JSON', description: 'An object; default {}.' }),
  occurredAt: t.field({ type: 'DateTime' }),
}));

const ProviderEventInputType = inputTypeFrom('ProviderEventInput', ProviderEventInput, (t) => ({
  type: t.string(),
  status: t.field({ type: PaymentStatusEnum }),
  providerReference: t.string({ description: "The event's own reference at the provider (a re-delivery repeats it)." }),
  transactionProviderReference: t.string({ description: "The transaction's reference at the provider." }),
  payload: t.field({ type: 'JSON', description: 'An object; default {}.' }),
  occurredAt: t.field({ type: 'DateTime' }),
}));

/** Ingestion answers: `created` is false when the provider reference was already known (nothing changed). */
const RecordPaymentTransactionPayload = builder.objectRef<{ created: boolean; transaction: typeof PaymentTransaction.$inferType }>('RecordPaymentTransactionPayload').implement({
  fields: (t) => ({
    created: t.exposeBoolean('created'),
    transaction: t.field({ type: PaymentTransaction, resolve: (p) => p.transaction }),
  }),
});

const AppendPaymentTransactionEventPayload = builder
  .objectRef<{ created: boolean; event: typeof PaymentTransactionEvent.$inferType }>('AppendPaymentTransactionEventPayload')
  .implement({
    fields: (t) => ({
      created: t.exposeBoolean('created'),
      event: t.field({ type: PaymentTransactionEvent, resolve: (p) => p.event }),
    }),
  });

/**
 * Stores a delivery once: a known key answers with the stored row. The unique
 * constraint decides between concurrent deliveries: the loser of the insert race
 * reads the winner's row, so duplicates never fail and never make a second row.
 */
async function once<T>(find: () => Promise<T | null>, insert: () => Promise<T>): Promise<{ created: boolean; row: T }> {
  const known = await find();
  if (known) return { created: false, row: known };
  try {
    return { created: true, row: await insert() };
  } catch (error) {
    const winner = isUniqueViolation(error) ? await find() : null;
    if (!winner) throw error;
    return { created: false, row: winner };
  }
}

/** Beyond this many matching links, the search joins links instead of listing their ids. */
const LINK_IDS_IN_SEARCH = 100;

/**
 * A search's filter and, when it can, its total without counting the matches:
 * "the reference or the link's name contains the term" becomes "the reference matches,
 * or the link is one of these few", so the database combines two indexes (trigram on
 * the reference, the link id) instead of joining every transaction to its link. The
 * total is then the stored counts of those links (per status when filtered) plus a
 * count of the reference matches on other links, which the trigram index finds.
 */
async function searchFilter(ctx: Context, search: string, status: string | undefined) {
  const term = matching(search);
  const reference = { referenceSearch: term };
  const links = await ctx.db.paymentLink.findMany({ where: { nameSearch: term }, select: { id: true }, take: LINK_IDS_IN_SEARCH + 1 });
  if (links.length > LINK_IDS_IN_SEARCH) return { where: { status, OR: [reference, { paymentLink: { nameSearch: term } }] } };
  const ids = links.map((l) => l.id);
  const buckets = ids.map((id) => (status ? `link:${id}|status:${status}` : `link:${id}`));
  const count = async () => {
    const [onLinks, otherwise] = await Promise.all([
      storedCounts(ctx, 'PaymentTransaction', buckets),
      ctx.db.paymentTransaction.count({ where: { status, ...reference, paymentLinkId: { notIn: ids } } }),
    ]);
    return onLinks + otherwise;
  };
  return { where: { status, OR: [reference, { paymentLinkId: { in: ids } }] }, count };
}

builder.queryFields((t) => ({
  paymentTransaction: t.prismaField({
    type: PaymentTransaction,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.paymentTransaction.findUnique({ ...query, where: { id } }), RESOURCE),
  }),
  paymentTransactions: t.field({
    type: PaymentTransactionPage,
    description: 'Newest first.',
    args: { ...listArgs(t, PAYMENT_TRANSACTION_LIST), filter: t.arg({ type: PaymentTransactionFilter }) },
    resolve: async (_root, args, ctx, info) => {
      const { status, search, checkoutId, ...listing } = parseInput(PaymentTransactionListArgs, { ...args.filter, ...listInput(args) }, ctx);
      if (checkoutId !== undefined) return paginate(ctx.db.paymentTransaction, PAYMENT_TRANSACTION_LIST, { ...listing, where: { status, planCheckout: { token: checkoutId } } }, ctx, info);
      if (search) return paginate(ctx.db.paymentTransaction, PAYMENT_TRANSACTION_LIST, { ...listing, ...(await searchFilter(ctx, search, status)) }, ctx, info);
      const counted = { list: 'PaymentTransaction', bucket: status ? `status:${status}` : '' } as const;
      return paginate(ctx.db.paymentTransaction, PAYMENT_TRANSACTION_LIST, { ...listing, where: { status }, counted }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  recordPaymentTransaction: t.field({
    type: RecordPaymentTransactionPayload,
    description: 'Ingests a transaction from the payment provider; a provider reference already known for the account returns the stored one unchanged.',
    args: { input: t.arg({ type: RecordPaymentTransactionInputType, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const link = typeof input.paymentLinkId === 'string' ? await ctx.db.paymentLink.findUnique({ where: { id: input.paymentLinkId }, select: { providerAccountId: true } }) : undefined;
      const checks = await Promise.all([
        unknownId(ctx.db.paymentLink, link === null ? input.paymentLinkId : undefined, 'payment_link_id'),
        unknownId(ctx.db.paymentProviderAccount, input.paymentProviderAccountId, 'payment_provider_account_id'),
      ]);
      const { paymentProviderAccountId, ...data } = parseInput(RecordPaymentTransactionInput, input, ctx, ...checks);
      const providerAccountId = paymentProviderAccountId ?? link!.providerAccountId;
      const key = { providerAccountId, providerReference: data.providerReference };
      const { created, row } = await writeReferencing(
        () => unknownId(ctx.db.paymentLink, input.paymentLinkId, 'payment_link_id'),
        () =>
          once(
            () => ctx.db.paymentTransaction.findUnique({ where: { providerAccountId_providerReference: key } }),
            () => ctx.db.paymentTransaction.create({ data: { ...data, ...key, ...newRow(ctx.workspace.id), referenceSearch: searchText(data.providerReference) } }),
          ),
      );
      return { created, transaction: row };
    },
  }),
  recordProviderEvent: t.field({
    type: AppendPaymentTransactionEventPayload,
    description: "A provider's report on one of its account's transactions, ingested as POST /payment-transactions/{id}/events ingests (the REST route checks the provider's signature).",
    args: { accountId: t.arg.id({ required: true }), input: t.arg({ type: ProviderEventInputType, required: true }) },
    resolve: async (_root, { accountId, input }, ctx) => {
      await orNotFound(ctx.db.paymentProviderAccount.findUnique({ where: { id: accountId }, select: { id: true } }), 'Payment provider account');
      const { transactionProviderReference, ...data } = parseInput(ProviderEventInput, input, ctx);
      const transaction = await orNotFound(
        ctx.db.paymentTransaction.findUnique({
          where: { providerAccountId_providerReference: { providerAccountId: accountId, providerReference: transactionProviderReference } },
          select: { id: true },
        }),
        RESOURCE,
      );
      return ingestEvent(ctx, transaction.id, data);
    },
  }),
  appendPaymentTransactionEvent: t.field({
    type: AppendPaymentTransactionEventPayload,
    description:
      "Ingests an event; a provider reference already known for the transaction returns the stored one unchanged. The transaction's status becomes its latest event's, by occurredAt, whatever order events arrive in.",
    args: { transactionId: t.arg.id({ required: true }), input: t.arg({ type: AppendPaymentTransactionEventInputType, required: true }) },
    resolve: async (_root, { transactionId, input }, ctx) => {
      await orNotFound(ctx.db.paymentTransaction.findUnique({ where: { id: transactionId }, select: { id: true } }), RESOURCE);
      const data = parseInput(AppendPaymentTransactionEventInput, input, ctx);
      return ingestEvent(ctx, transactionId, data);
    },
  }),
}));

export type PaymentEventData = ReturnType<typeof AppendPaymentTransactionEventInput.parse>;

/**
 * Ingestion, for every source (the API, provider webhooks, the test provider, checkout
 * expiry): the event once per provider reference, and the status from the latest event.
 */
export async function ingestEvent(ctx: Context, transactionId: string, data: PaymentEventData) {
  const { created, row } = await once(
    () => ctx.db.paymentTransactionEvent.findUnique({ where: { transactionId_providerReference: { transactionId, providerReference: data.providerReference } } }),
    () => appendEvent(ctx, transactionId, data),
  );
  return { created, event: row };
}

/**
 * Inserts the event and sets the transaction's status from its latest event, in one
 * database transaction that first locks the transaction's row: concurrent events for
 * one transaction take turns, so each sees every event committed before it and the
 * last to commit sets the right status.
 */
function appendEvent(ctx: Context, transactionId: string, data: PaymentEventData) {
  return atomically(ctx.db, async (tx) => {
    await lockRow(tx, 'paymentTransaction', transactionId);
    const event = await tx.paymentTransactionEvent.create({ data: { ...data, ...newRow(ctx.workspace.id), transactionId } });
    const latest = await tx.paymentTransactionEvent.findFirstOrThrow({ where: { transactionId }, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], select: { status: true } });
    await tx.paymentTransaction.update({ where: { id: transactionId }, data: { status: latest.status }, select: { id: true } });
    await settleCheckout(tx, transactionId, latest.status);
    return event;
  });
}
