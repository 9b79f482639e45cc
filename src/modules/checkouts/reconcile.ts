import type { Db } from '../../db/client.js';
import type { Represent } from '../../events/representation.js';
import { type CommitNotices, type Settings, systemContext } from '../../graphql/context.js';
import type { Loop } from '../../jobs/loops.js';
import { logError } from '../../log.js';
import { type ProviderReport, remoteAccount } from '../../payments/providers.js';
import { recordProviderReports } from '../payment-transactions/provider-reports.js';
import { ensureProviderCheckout } from './provider-checkout.js';

const BATCH = 50;
const ROUND_MS = 15_000;

/** What a loop needs of a checkout to ask its provider about it (the reconciliation, the expiry). */
export const PROVIDER_CHECKOUT_SELECT = {
  id: true,
  token: true,
  providerObjectId: true,
  transactionId: true,
  workspace: { select: { id: true, defaultCurrency: true } },
  paymentLink: { select: { providerAccount: { select: { id: true, provider: true, sealedCredentials: true } } } },
} as const;

/**
 * Nothing waits on a lost webhook (API.md section 11): a checkout at a real provider with
 * no word from it PROVIDER_RECONCILE_SECONDS after it began is looked up there, and again
 * as often while it stays pending; what the provider says is recorded as a delivery would
 * be, once. Reads only the checkouts due (`reconcileAt`, an index that settled ones leave).
 * Returns how many it looked up.
 */
export async function reconcileCheckouts(prisma: Db, represent: Represent, settings: Settings, { now = new Date(), stopping = () => false, commits }: { now?: Date; stopping?: () => boolean; commits?: CommitNotices } = {}): Promise<number> {
  const due = await prisma.checkout.findMany({ where: { reconcileAt: { lte: now } }, orderBy: { reconcileAt: 'asc' }, take: BATCH, select: PROVIDER_CHECKOUT_SELECT });
  for (const checkout of due) {
    if (stopping()) break;
    const context = systemContext(prisma, checkout.workspace, settings, commits);
    const account = checkout.paymentLink.providerAccount;
    try {
      if (!checkout.providerObjectId) await ensureProviderCheckout(context.db, settings, checkout.token, undefined);
      else {
        const reports = await lookup(settings, account, checkout.providerObjectId, checkout.token, 'lookup');
        await recordProviderReports(context, represent, account.id, reports);
      }
    } catch (error) {
      logError('', error, `reconciling checkout ${checkout.id}`);
    }
    await nextLookup(context.db, checkout.id, checkout.transactionId, new Date(Date.now() + settings.payments.reconcileMs));
  }
  return due.length;
}

/** What the provider says of a checkout's object: a lookup, or (at expiry) its end there. */
export async function lookup(settings: Settings, account: { provider: string; sealedCredentials: string | null }, objectId: string, token: string, how: 'lookup' | 'expire'): Promise<ProviderReport[]> {
  const remote = remoteAccount(settings.payments, account);
  if (!remote) return [];
  const secrets = remote.credentials();
  return how === 'lookup' ? remote.adapter.lookup(secrets, objectId, token, settings.payments.call) : remote.adapter.expire(secrets, objectId, token, settings.payments.call);
}

/** Pending still: looked up again at `at`; settled: never again. */
async function nextLookup(db: ReturnType<typeof systemContext>['db'], checkoutId: string, transactionId: string, at: Date) {
  const transaction = await db.paymentTransaction.findUnique({ where: { id: transactionId }, select: { status: true } });
  const open = transaction?.status === 'pending' || transaction?.status === 'processing';
  await db.checkout.update({ where: { id: checkoutId }, data: { reconcileAt: open ? at : null }, select: { id: true } });
}

/** The reconciliation, every 15 seconds (sooner while a round finds a full batch) in every serving process. */
export function reconcileLoop(prisma: Db, represent: Represent, commits: CommitNotices, settings: Settings): Loop {
  return {
    name: 'checkout-reconciliation',
    async run(stopping) {
      return (await reconcileCheckouts(prisma, represent, settings, { stopping, commits })) === BATCH ? 0 : ROUND_MS;
    },
  };
}
