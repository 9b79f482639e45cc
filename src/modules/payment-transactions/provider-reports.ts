import { newId } from '../../db/ids.js';
import { lockRow } from '../../db/locks.js';
import { searchText } from '../../db/search.js';
import { newRow } from '../../db/tenancy.js';
import { writeWithEvents } from '../../events/outbox.js';
import type { Represent } from '../../events/representation.js';
import type { Context } from '../../graphql/context.js';
import { logError } from '../../log.js';
import { type ProviderReport, remoteAccount } from '../../payments/providers.js';
import { ingestEvent } from './payment-transactions.schema.js';
import { applyDispute, applyRefundReport } from '../refunds/refunds.schema.js';

type Db = Context['db'];

/** What recording one report found: `duplicate` when its event id was seen before (nothing changed). */
type Recorded = 'recorded' | 'duplicate' | 'unknown';

/**
 * Records what a provider said (a verified webhook's reports, a reconciliation's lookup)
 * through the ingestion of section 3, each report in one transaction with its event id's
 * receipt: a re-delivery, concurrent or later, finds the receipt and changes nothing.
 * Runs outside any transaction; what follows at the provider (ending a plan after its
 * charges) is called once the reports have committed.
 */
export async function recordProviderReports(context: Context, represent: Represent, accountId: string, reports: readonly ProviderReport[]): Promise<Recorded[]> {
  const results: Recorded[] = [];
  const plans: { planObjectId: string; charges: number }[] = [];
  for (const report of reports) {
    const { result } = await writeWithEvents(context, represent, { actor: context.actor, requestId: context.requestId || null }, async (db) => {
      // The receipt first: the loser of two concurrent deliveries waits here, then finds it taken.
      const taken = await db.$executeRaw`INSERT INTO "ProviderWebhookReceipt" ("id", "accountId", "eventId") VALUES (${newId()}, ${accountId}, ${report.eventId}) ON CONFLICT ("accountId", "eventId") DO NOTHING`;
      if (taken === 0) return { recorded: 'duplicate' as const };
      return apply({ ...context, db }, accountId, report);
    });
    results.push(result.recorded);
    if ('plan' in result && result.plan) plans.push(result.plan);
  }
  for (const plan of plans) await limitPlan(context, accountId, plan);
  return results;
}

async function apply(ctx: Context, accountId: string, report: ProviderReport): Promise<{ recorded: Recorded; plan?: { planObjectId: string; charges: number } }> {
  switch (report.kind) {
    case 'payment': {
      const checkout = await findCheckout(ctx.db, report.checkoutId, report.objectId);
      if (!checkout) return { recorded: 'unknown' };
      await recordCharge(ctx, checkout.transactionId, report);
      if (!report.planObjectId || (report.status !== 'paid' && report.status !== 'processing')) return { recorded: 'recorded' };
      // A plan: ended after its installments, or after the link's billing cycles (read only for a plan).
      const charges = checkout.installments > 1 ? checkout.installments : (await ctx.db.paymentLink.findUnique({ where: { id: checkout.paymentLinkId }, select: { billingCycles: true } }))?.billingCycles;
      const plan = charges ? { planObjectId: report.planObjectId, charges } : undefined;
      return { recorded: 'recorded', plan };
    }
    case 'charge': {
      const checkout = await findCheckout(ctx.db, report.checkoutId, undefined);
      if (!checkout) return { recorded: 'unknown' };
      // The plan's first charge is the checkout's own (Asaas's first installment or subscription payment).
      if (report.chargeId === checkout.providerObjectId) {
        await recordCharge(ctx, checkout.transactionId, report);
        return { recorded: 'recorded' };
      }
      const transactionId = await laterCharge(ctx, accountId, checkout, report);
      await recordCharge(ctx, transactionId, report);
      return { recorded: 'recorded' };
    }
    case 'first-charge': {
      const checkout = await findCheckout(ctx.db, report.checkoutId, undefined);
      if (!checkout) return { recorded: 'unknown' };
      await nameCharge(ctx.db, checkout.transactionId, report);
      return { recorded: 'recorded' };
    }
    case 'refund':
      return { recorded: (await applyRefundReport(ctx, accountId, report)) ? 'recorded' : 'unknown' };
    case 'dispute':
      return { recorded: (await applyDispute(ctx, accountId, report)) ? 'recorded' : 'unknown' };
  }
}

const CHECKOUT_SELECT = {
  id: true,
  token: true,
  transactionId: true,
  installments: true,
  providerObjectId: true,
  paymentLinkId: true,
  currency: true,
} as const;

async function findCheckout(db: Db, checkoutId: string | undefined, objectId: string | undefined) {
  if (checkoutId) {
    const found = await db.checkout.findUnique({ where: { token: checkoutId }, select: CHECKOUT_SELECT });
    if (found) return found;
  }
  return objectId ? db.checkout.findFirst({ where: { providerObjectId: objectId }, select: CHECKOUT_SELECT }) : null;
}
type FoundCheckout = NonNullable<Awaited<ReturnType<typeof findCheckout>>>;

/**
 * A charge's event through ingestion. Money taken is never hidden: a payment reported
 * paid after the checkout was canceled (the payer paid as it expired) is recorded as the
 * latest event, whatever its time says.
 */
async function recordCharge(ctx: Context, transactionId: string, report: Extract<ProviderReport, { kind: 'payment' | 'charge' }>) {
  let occurredAt = report.occurredAt;
  if (report.status === 'paid') {
    const latest = await ctx.db.paymentTransactionEvent.findFirst({ where: { transactionId }, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], select: { status: true, occurredAt: true } });
    if (latest?.status === 'canceled' && latest.occurredAt >= occurredAt) occurredAt = new Date(latest.occurredAt.getTime() + 1);
  }
  await nameCharge(ctx.db, transactionId, report);
  await ingestEvent(ctx, transactionId, { type: report.type, status: report.status, providerReference: report.eventId, payload: report.payload as never, occurredAt });
}

/** The provider's id of the money a transaction's charge took, and how much (what its refunds name and give back): the first report that knows them wins. */
async function nameCharge(db: Db, transactionId: string, report: { chargeReference?: string; amount?: string }) {
  if (!report.chargeReference) return;
  await db.paymentTransaction.updateMany({ where: { id: transactionId, chargeReference: null }, data: { chargeReference: report.chargeReference, chargedAmount: report.amount ?? null } });
}

/**
 * A later charge of a checkout's plan: a transaction of its own (found by the provider's
 * charge id, or made), numbered k of n in the order the provider reports them. The
 * checkout's own transaction is locked first, so two charges reported at once are numbered apart.
 */
async function laterCharge(ctx: Context, accountId: string, checkout: FoundCheckout, report: Extract<ProviderReport, { kind: 'charge' }>): Promise<string> {
  const key = { providerAccountId: accountId, providerReference: report.chargeId };
  const known = await ctx.db.paymentTransaction.findUnique({ where: { providerAccountId_providerReference: key }, select: { id: true } });
  if (known) return known.id;
  await lockRow(ctx.db as never, 'paymentTransaction', checkout.transactionId);
  const again = await ctx.db.paymentTransaction.findUnique({ where: { providerAccountId_providerReference: key }, select: { id: true } });
  if (again) return again.id;
  const before = await ctx.db.paymentTransaction.count({ where: { planCheckoutId: checkout.id } });
  // Paid by the checkout's payer, as its first charge was.
  const payer = await ctx.db.paymentTransaction.findUnique({ where: { id: checkout.transactionId }, select: { contactId: true } });
  const charge = before + 1;
  const made = await ctx.db.paymentTransaction.create({
    data: {
      ...newRow(ctx.workspace.id),
      ...key,
      referenceSearch: searchText(report.chargeId),
      paymentLinkId: checkout.paymentLinkId,
      contactId: payer?.contactId ?? null,
      amount: report.amount,
      currency: checkout.currency,
      status: 'pending',
      chargeReference: report.chargeReference ?? null,
      planCheckoutId: checkout.id,
      planCharge: charge,
      metadata: { checkout: { checkout_id: checkout.token, charge } },
    },
    select: { id: true },
  });
  return made.id;
}

/** Makes the provider stop a plan after its charges (Stripe: `cancel_at`); a failure is logged and the next report of the plan tries again. */
async function limitPlan(ctx: Context, accountId: string, plan: { planObjectId: string; charges: number }) {
  const account = await ctx.db.paymentProviderAccount.findUnique({ where: { id: accountId }, select: { provider: true, sealedCredentials: true } });
  const remote = account ? remoteAccount(ctx.settings.payments, account) : undefined;
  if (!remote?.adapter.limitPlan) return;
  try {
    await remote.adapter.limitPlan(remote.credentials(), plan.planObjectId, plan.charges, ctx.settings.payments.call);
  } catch (error) {
    logError(ctx.requestId, error, `ending plan ${plan.planObjectId} after ${plan.charges} charges`);
  }
}
