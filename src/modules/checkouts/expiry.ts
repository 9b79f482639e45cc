import type { Db } from '../../db/client.js';
import { writeWithEvents } from '../../events/outbox.js';
import type { Represent } from '../../events/representation.js';
import { type CommitNotices, type Settings, systemContext } from '../../graphql/context.js';
import type { Loop } from '../../jobs/loops.js';
import { ingestEvent } from '../payment-transactions/payment-transactions.schema.js';
import { recordProviderReports } from '../payment-transactions/provider-reports.js';
import { logError } from '../../log.js';
import { remoteAccount } from '../../payments/providers.js';
import { PROVIDER_CHECKOUT_SELECT, lookup } from './reconcile.js';

/** Checkouts a round expires: each is its own short transaction. */
export const EXPIRY_BATCH = 100;
const ROUND_MS = 30_000;

/**
 * Cancels the checkouts still pending after CHECKOUT_EXPIRY_MINUTES, oldest first, at
 * most `batch`: each gets a `checkout.expired` event through ingestion (so its
 * transaction becomes canceled and its coupon redemption is given back, as a provider's
 * cancel would), recorded with actor `system`. A checkout another process expired
 * meanwhile, or that was paid, is left as it is. Returns how many it canceled.
 */
export async function expireCheckouts(
  prisma: Db,
  represent: Represent,
  settings: Settings,
  { now = new Date(), batch = EXPIRY_BATCH, stopping = () => false, commits }: { now?: Date; batch?: number; stopping?: () => boolean; commits?: CommitNotices } = {},
): Promise<number> {
  const due = await prisma.checkout.findMany({
    where: { expiresAt: { lte: now } },
    orderBy: { expiresAt: 'asc' },
    take: batch,
    select: PROVIDER_CHECKOUT_SELECT,
  });
  let canceled = 0;
  for (const checkout of due) {
    if (stopping()) break;
    const context = systemContext(prisma, checkout.workspace, settings, commits);
    const account = checkout.paymentLink.providerAccount;
    if (checkout.providerObjectId && remoteAccount(settings.payments, account)) {
      // A real provider is asked first: it ends the payment there, or says it was paid (recorded paid, never canceled).
      try {
        const reports = await lookup(settings, account, checkout.providerObjectId, checkout.token, 'expire');
        await recordProviderReports(context, represent, account.id, reports);
      } catch (error) {
        // Unreachable: nothing is canceled; asked again after PROVIDER_RECONCILE_SECONDS.
        logError('', error, `expiring checkout ${checkout.id} at its provider`);
        await prisma.checkout.update({ where: { id: checkout.id }, data: { expiresAt: new Date(now.getTime() + settings.payments.reconcileMs) }, select: { id: true } });
        continue;
      }
      const after = await prisma.paymentTransaction.findUnique({ where: { id: checkout.transactionId }, select: { status: true } });
      if (after?.status !== 'pending') {
        await prisma.checkout.update({ where: { id: checkout.id }, data: { expiresAt: null }, select: { id: true } });
        if (after?.status === 'canceled') canceled += 1;
        continue;
      }
    }
    const { result } = await writeWithEvents(context, represent, { actor: context.actor, requestId: null }, async (db) => {
      const transaction = await db.paymentTransaction.findUnique({ where: { id: checkout.transactionId }, select: { status: true } });
      if (transaction?.status !== 'pending') {
        await db.checkout.updateMany({ where: { transactionId: checkout.transactionId }, data: { expiresAt: null } });
        return false;
      }
      const { created } = await ingestEvent({ ...context, db }, checkout.transactionId, { type: 'checkout.expired', status: 'canceled', providerReference: 'checkout_expired', payload: {}, occurredAt: now });
      return created;
    });
    if (result) canceled += 1;
  }
  return canceled;
}

/** The expiry, every 30 seconds (sooner while a round finds a full batch) in every serving process. */
export function checkoutExpiryLoop(prisma: Db, represent: Represent, commits: CommitNotices, settings: Settings): Loop {
  return {
    name: 'checkout-expiry',
    async run(stopping) {
      const canceled = await expireCheckouts(prisma, represent, settings, { stopping, commits });
      return canceled === EXPIRY_BATCH ? 0 : ROUND_MS;
    },
  };
}
