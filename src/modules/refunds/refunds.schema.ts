import { GraphQLError } from 'graphql';
import { lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { writeWithEvents } from '../../events/outbox.js';
import type { Represent } from '../../events/representation.js';
import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { ErrorCode, invalidField } from '../../graphql/errors.js';
import { inputTypeFrom } from '../../graphql/inputs.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { orNotFound } from '../../graphql/records.js';
import { logError } from '../../log.js';
import { reached } from '../../http/crash-points.js';
import { type DecimalInput, exactDecimal, toMinor } from '../../payments/money.js';
import { type ProviderReport, type RefundReason, ProviderDeclined, remoteAccount } from '../../payments/providers.js';
import { parseInput } from '../../validation/parse.js';
import { ingestEvent } from '../payment-transactions/payment-transactions.schema.js';
import { REFUND_LIST, REFUND_REASONS, REFUND_STATUSES, RefundListArgs, RefundPaymentInput } from './refunds.input.js';

/**
 * Refunds (API.md section 11): committed `pending` with the transaction's refundable
 * amount taken in the same transaction (the row lock decides between concurrent
 * requests), then sent to the provider outside it; its answer, its later events and, for
 * an unreachable provider, the retry loop move the refund. `failed` and `canceled` give
 * the amount back; succeeded refunds that add up to the amount make the transaction `refunded`.
 */

const RESOURCE = 'Refund';
const cannotRefund = () => new GraphQLError('This payment cannot be refunded.', { extensions: { code: ErrorCode.BadUserInput } });
/** What a transaction's charge took, in minor units: a plan's later charges are transactions (and refunds) of their own. */
const chargedMinor = (transaction: { amount: DecimalInput; chargedAmount: DecimalInput | null; currency: string }) =>
  toMinor(transaction.chargedAmount ?? transaction.amount, transaction.currency);

export const RefundStatusEnum = builder.enumType('RefundStatus', { values: REFUND_STATUSES });
export const RefundReasonEnum = builder.enumType('RefundReason', { values: REFUND_REASONS });

export const PaymentRefund = builder.prismaObject('PaymentRefund', {
  name: 'Refund',
  fields: (t) => ({
    id: t.exposeID('id'),
    paymentTransactionId: t.exposeID('transactionId'),
    amount: t.expose('amount', { type: 'Decimal' }),
    currency: t.exposeString('currency'),
    reason: t.field({ type: RefundReasonEnum, resolve: (r) => r.reason as RefundReason }),
    status: t.field({ type: RefundStatusEnum, resolve: (r) => r.status as (typeof REFUND_STATUSES)[number] }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    providerReference: t.exposeString('providerReference', { nullable: true, description: "The provider's id of the refund, once known." }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    paymentTransaction: t.relation('transaction'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const RefundPage = pageType('Refund', PaymentRefund);

const RefundFilter = builder.inputType('RefundFilter', {
  fields: (t) => ({ paymentTransactionId: t.id(), status: t.field({ type: RefundStatusEnum }) }),
});

const RefundPaymentInputType = inputTypeFrom('RefundPaymentInput', RefundPaymentInput, (t) => ({
  amount: t.field({ type: 'Decimal', description: 'Default: all that remains to be refunded.' }),
  reason: t.field({ type: RefundReasonEnum, description: 'Default: requested_by_customer.' }),
  metadata: t.field({ type: 'JSON', description: 'An object; default {}.' }),
}));

/** The refund a request made, read once the provider has answered (or at once inside an Idempotency-Key's transaction, still pending). */
const RefundPaymentPayload = builder.objectRef<{ id: string }>('RefundPaymentPayload').implement({
  fields: (t) => ({
    refund: t.prismaField({
      type: PaymentRefund,
      resolve: (query, payload, _args, ctx) => ctx.db.paymentRefund.findUniqueOrThrow({ ...query, where: { id: payload.id } }),
    }),
  }),
});

builder.queryFields((t) => ({
  refund: t.prismaField({
    type: PaymentRefund,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.paymentRefund.findUnique({ ...query, where: { id } }), RESOURCE),
  }),
  refunds: t.field({
    type: RefundPage,
    description: 'Refunds of every payment transaction; filter by transaction or status.',
    args: { ...listArgs(t, REFUND_LIST), filter: t.arg({ type: RefundFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { paymentTransactionId, status, ...listing } = parseInput(RefundListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.paymentRefund, REFUND_LIST, { ...listing, where: { transactionId: paymentTransactionId, status } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  refundPayment: t.field({
    type: RefundPaymentPayload,
    description: "Refunds a paid transaction, in full (the default) or in part, never more than what remains under any concurrency; committed pending before the provider is asked.",
    args: { transactionId: t.arg.id({ required: true }), input: t.arg({ type: RefundPaymentInputType, required: true }) },
    resolve: async (_root, { transactionId, input }, ctx) => {
      const data = parseInput(RefundPaymentInput, input, ctx);
      await orNotFound(ctx.db.paymentTransaction.findUnique({ where: { id: transactionId }, select: { id: true } }), 'Payment transaction');
      // The transaction's row first: concurrent refunds take turns, each seeing what the others took.
      await lockRow(ctx.db as never, 'paymentTransaction', transactionId);
      const transaction = await ctx.db.paymentTransaction.findUniqueOrThrow({ where: { id: transactionId }, select: { status: true, amount: true, chargedAmount: true, amountRefunded: true, currency: true } });
      const { currency } = transaction;
      const remaining = chargedMinor(transaction) - toMinor(transaction.amountRefunded, currency);
      if (transaction.status !== 'paid' || remaining <= 0n) throw cannotRefund();
      const requested = data.amount === undefined ? remaining : toMinor(data.amount, currency);
      if (data.amount !== undefined && !exactDecimal(requested, currency).equals(data.amount)) throw invalidField('amount', `The amount field must be a whole number of ${currency}'s minor unit.`);
      if (requested <= 0n || requested > remaining) throw invalidField('amount', `The amount field must not be greater than ${exactDecimal(remaining, currency).toString()}.`);
      const amount = exactDecimal(requested, currency);
      const refund = await ctx.db.paymentRefund.create({
        // Sent at once after the commit; the retry loop takes it only if that never finished.
        data: { ...newRow(ctx.workspace.id), transactionId, amount, currency, reason: data.reason, status: 'pending', metadata: data.metadata, attemptAt: new Date(Date.now() + ctx.settings.payments.reconcileMs) },
        select: { id: true },
      });
      await ctx.db.paymentTransaction.update({ where: { id: transactionId }, data: { amountRefunded: { increment: amount } }, select: { id: true } });
      // The provider is asked once this has committed; the answer waits for it.
      const awaited = ctx.awaitedAfterCommit;
      const after = { ...ctx, db: ctx.dbAfterCommit, afterCommit: undefined, awaitedAfterCommit: undefined };
      const represent = ctx.represent as unknown as Represent;
      ctx.afterCommit!(() => awaited?.push(sendRefund(after, represent, refund.id).catch((error) => logError(after.requestId, error, `sending refund ${refund.id}`))));
      return { id: refund.id };
    },
  }),
}));

/**
 * Asks the provider for a pending refund, outside any transaction, and records its
 * answer. Unreachable, the refund stays pending and is tried again after
 * PROVIDER_RECONCILE_SECONDS (its key or, for Asaas, a lookup first makes the retry the
 * same refund). Never throws: the refund's row says what happened.
 */
export async function sendRefund(ctx: Context, represent: Represent, refundId: string): Promise<void> {
  const refund = await ctx.db.paymentRefund.findUnique({
    where: { id: refundId },
    select: { status: true, attemptAt: true, amount: true, currency: true, reason: true, transaction: { select: { chargeReference: true, providerAccount: { select: { provider: true, sealedCredentials: true } } } } },
  });
  if (!refund || refund.status !== 'pending' || !refund.attemptAt) return;
  const { payments } = ctx.settings;
  // A lease: of the request that made it and the retry loop (of any process), one asks the provider at a time.
  const claimed = await ctx.db.paymentRefund.updateMany({ where: { id: refundId, status: 'pending', attemptAt: refund.attemptAt }, data: { attemptAt: new Date(Date.now() + payments.reconcileMs) } });
  if (claimed.count === 0) return;
  reached('refund:before-provider');
  const remote = remoteAccount(payments, refund.transaction.providerAccount);
  let outcome: { status: 'pending' | 'succeeded' | 'failed' | 'canceled'; providerReference: string | null; failureReason?: string } | 'retry';
  if (!remote) outcome = { status: 'succeeded', providerReference: null };
  else if (!refund.transaction.chargeReference) outcome = { status: 'failed', providerReference: null, failureReason: 'The provider did not report the payment this refund is of.' };
  else {
    try {
      outcome = await remote.adapter.refund(
        remote.credentials(),
        { refundId, chargeReference: refund.transaction.chargeReference, currency: refund.currency, amount: toMinor(refund.amount, refund.currency), reason: refund.reason as RefundReason },
        payments.call,
      );
    } catch (error) {
      if (error instanceof ProviderDeclined) outcome = { status: 'failed', providerReference: null, failureReason: error.message };
      else {
        logError(ctx.requestId, error, `sending refund ${refundId}`);
        outcome = 'retry';
      }
    }
  }
  if (outcome !== 'retry') reached('refund:provider-answered');
  await writeWithEvents(ctx, represent, { actor: ctx.actor, requestId: ctx.requestId || null }, async (db) => {
    if (outcome === 'retry') {
      await db.paymentRefund.updateMany({ where: { id: refundId, status: 'pending' }, data: { attemptAt: new Date(Date.now() + payments.reconcileMs), attempts: { increment: 1 } } });
      return;
    }
    await moveRefund({ ...ctx, db }, refundId, outcome.status, { providerReference: outcome.providerReference, failureReason: outcome.failureReason ?? null, answered: true });
  });
}

/**
 * Moves a refund to `status` (once: a refund that already ended stays as it is), with the
 * money it holds: a failed or canceled one gives its amount back to what can be refunded,
 * and succeeded refunds that add up to the amount make the transaction refunded.
 */
async function moveRefund(ctx: Context, refundId: string, status: string, found: { providerReference?: string | null; failureReason?: string | null; answered?: boolean }) {
  const refund = await ctx.db.paymentRefund.findUniqueOrThrow({ where: { id: refundId }, select: { transactionId: true, status: true, amount: true, providerReference: true } });
  await lockRow(ctx.db as never, 'paymentTransaction', refund.transactionId);
  const ended = refund.status !== 'pending';
  const data: Record<string, unknown> = {};
  if (found.providerReference && !refund.providerReference) data.providerReference = found.providerReference;
  if (!ended && status !== 'pending') Object.assign(data, { status, failureReason: found.failureReason ?? null, attemptAt: null });
  if (!ended && status === 'pending' && found.answered) data.attemptAt = null;
  if (Object.keys(data).length > 0) await ctx.db.paymentRefund.update({ where: { id: refundId }, data, select: { id: true } });
  if (!ended && (status === 'failed' || status === 'canceled')) {
    await ctx.db.paymentTransaction.update({ where: { id: refund.transactionId }, data: { amountRefunded: { decrement: refund.amount } }, select: { id: true } });
  }
  if (!ended && status === 'succeeded') await markRefundedWhenWhole(ctx, refund.transactionId);
}

/** The transaction becomes `refunded` (a `payment.refunded` event through ingestion) once its succeeded refunds cover what its charge took. */
async function markRefundedWhenWhole(ctx: Context, transactionId: string) {
  const transaction = await ctx.db.paymentTransaction.findUniqueOrThrow({ where: { id: transactionId }, select: { amount: true, chargedAmount: true, currency: true, status: true } });
  const succeeded = await ctx.db.paymentRefund.findMany({ where: { transactionId, status: 'succeeded' }, select: { amount: true } });
  const total = succeeded.reduce((sum, r) => sum + toMinor(r.amount, transaction.currency), 0n);
  if (transaction.status === 'refunded' || total < chargedMinor(transaction)) return;
  await ingestEvent(ctx, transactionId, { type: 'payment.refunded', status: 'refunded', providerReference: `refunded:${transactionId}`, payload: {}, occurredAt: new Date() });
}

/**
 * A refund the provider reports (its answer's later events, or one made in its
 * dashboard): ours is found by our id or its reference and moved; one we never asked for
 * is listed like the others, once (its reference is unique per transaction).
 */
export async function applyRefundReport(ctx: Context, accountId: string, report: Extract<ProviderReport, { kind: 'refund' }>): Promise<boolean> {
  const transaction = await ctx.db.paymentTransaction.findFirst({ where: { providerAccountId: accountId, chargeReference: report.chargeReference }, select: { id: true, currency: true } });
  if (!transaction) return false;
  const ours =
    (report.refundId && (await ctx.db.paymentRefund.findFirst({ where: { id: report.refundId, transactionId: transaction.id }, select: { id: true } }))) ||
    (report.refundReference && (await ctx.db.paymentRefund.findFirst({ where: { transactionId: transaction.id, providerReference: report.refundReference }, select: { id: true } })));
  if (ours) {
    await moveRefund(ctx, ours.id, report.status, { providerReference: report.refundReference ?? null, failureReason: report.failureReason ?? null });
    return true;
  }
  await lockRow(ctx.db as never, 'paymentTransaction', transaction.id);
  const made = await ctx.db.paymentRefund.create({
    data: {
      ...newRow(ctx.workspace.id),
      transactionId: transaction.id,
      amount: report.amount,
      currency: transaction.currency,
      reason: 'other',
      status: 'pending',
      providerReference: report.refundReference ?? null,
      metadata: { source: 'provider' },
    },
    select: { id: true },
  });
  await ctx.db.paymentTransaction.update({ where: { id: transaction.id }, data: { amountRefunded: { increment: report.amount } }, select: { id: true } });
  if (report.status !== 'pending') await moveRefund(ctx, made.id, report.status, { failureReason: report.failureReason ?? null });
  return true;
}

/** A dispute's news: opened, then won or lost; a lost one counts as refunded money (never a refund to cancel). */
export async function applyDispute(ctx: Context, accountId: string, report: Extract<ProviderReport, { kind: 'dispute' }>): Promise<boolean> {
  const transaction = await ctx.db.paymentTransaction.findFirst({
    where: { providerAccountId: accountId, chargeReference: report.chargeReference },
    select: { id: true, disputeStatus: true, disputeOpenedAt: true },
  });
  if (!transaction) return false;
  await lockRow(ctx.db as never, 'paymentTransaction', transaction.id);
  const current = await ctx.db.paymentTransaction.findUniqueOrThrow({ where: { id: transaction.id }, select: { disputeStatus: true } });
  // A closed dispute stays closed: a late "opened" (out of order) changes nothing.
  if (current.disputeStatus === 'won' || current.disputeStatus === 'lost') return true;
  const closing = report.status !== 'open';
  await ctx.db.paymentTransaction.update({
    where: { id: transaction.id },
    data: {
      disputeStatus: report.status,
      disputeReference: report.disputeReference,
      disputeAmount: report.amount,
      disputeReason: report.reason,
      disputeOpenedAt: transaction.disputeOpenedAt ?? report.occurredAt,
      disputeClosedAt: closing ? report.occurredAt : null,
      ...(report.status === 'lost' ? { amountRefunded: { increment: report.amount } } : {}),
    },
    select: { id: true },
  });
  return true;
}

