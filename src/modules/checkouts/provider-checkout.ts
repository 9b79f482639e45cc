import { setTimeout } from 'node:timers/promises';
import type { Context, Settings } from '../../graphql/context.js';
import { logError } from '../../log.js';
import { toMinor } from '../../payments/money.js';
import { type NextAction, type RemoteAdapter, remoteAccount } from '../../payments/providers.js';
import { providerError } from '../payment-provider-accounts/payment-provider-accounts.schema.js';

/** What a checkout keeps of its payer and method for its provider (`metadata.checkout`). */
export interface StoredPayer {
  name: string;
  email: string;
  tax_id?: string;
}

/** The result page of a checkout, where providers send the payer back. */
export const resultUrl = (base: string, token: string) => `${base}/pay/checkouts/${encodeURIComponent(token)}`;
/** This service's URL that answers 303 to the provider's page, making the provider's object first if need be. */
export const continueUrl = (base: string, token: string) => `${base}/pay/checkouts/${encodeURIComponent(token)}/continue`;

/**
 * The provider's object of a checkout (a Stripe Checkout Session, an Asaas payment or
 * subscription) and the payer's next step there: made once, after the checkout has
 * committed and outside any transaction. A second call (a reload, a retry) finds the
 * stored one; in this process a concurrent one shares the first's promise; in another
 * process it finds the first's claim on the row and waits for its object. A claim
 * outlives a maker that died only until `claimMs`: then the next caller makes it, and the
 * provider gives back the same object (Stripe's Idempotency-Key, Asaas's lookup by our id).
 * Throws the contract's errors (502 when the provider cannot be reached).
 */
export function ensureProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined): Promise<NextAction | null> {
  return settings.payments.singleFlight(`checkout:${token}`, () => makeProviderCheckout(prisma, settings, token, origin));
}

/** How long a claim lasts: the calls of the longest provider flow (Asaas: two lookups, two creations, the Pix code), each at its timeout, and a margin. */
const claimMs = (settings: Settings) => 5 * settings.payments.call.timeoutMs + 5_000;
/** How often a caller that found another's claim looks again. */
const CLAIM_POLL_MS = 100;

async function makeProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined): Promise<NextAction | null> {
  for (;;) {
    const checkout = await checkoutToMake(prisma, token);
    if (!checkout) return null;
    if (checkout.nextAction) return checkout.nextAction as unknown as NextAction;
    if (checkout.transaction.status !== 'pending') return null;
    const remote = remoteAccount(settings.payments, checkout.paymentLink.providerAccount);
    if (!remote) return null;
    const base = settings.payments.publicBaseUrl ?? origin;
    if (!base) return null;
    const claimedUntil = checkout.providerClaimUntil;
    if (claimedUntil && claimedUntil.getTime() > Date.now()) {
      await setTimeout(Math.min(CLAIM_POLL_MS, claimedUntil.getTime() - Date.now()));
      continue;
    }
    // Compare and set on the claim as read: of two callers, one takes it.
    const claim = await prisma.checkout.updateMany({ where: { id: checkout.id, providerObjectId: null, providerClaimUntil: claimedUntil }, data: { providerClaimUntil: new Date(Date.now() + claimMs(settings)) } });
    if (claim.count === 0) continue;
    let made: { objectId: string; nextAction: NextAction };
    try {
      made = await remote.adapter.startCheckout(remote.credentials(), providerCheckoutOf(checkout, base, settings), settings.payments.call);
    } catch (error) {
      await prisma.checkout.updateMany({ where: { id: checkout.id }, data: { providerClaimUntil: null } });
      throw providerError(error);
    }
    // A maker whose claim ran out may meet another's stored object: the same one at the provider, and the first stored stays.
    await prisma.checkout.updateMany({ where: { id: checkout.id, providerObjectId: null }, data: { providerObjectId: made.objectId, nextAction: made.nextAction as object, providerClaimUntil: null } });
    const stored = await prisma.checkout.findUnique({ where: { id: checkout.id }, select: { nextAction: true } });
    return (stored?.nextAction as unknown as NextAction | null) ?? made.nextAction;
  }
}

function checkoutToMake(prisma: Context['db'], token: string) {
  return prisma.checkout.findUnique({
    where: { token },
    select: {
      id: true,
      token: true,
      createdAt: true,
      expiresAt: true,
      currency: true,
      total: true,
      installments: true,
      providerClaimUntil: true,
      nextAction: true,
      paymentLink: { select: { publicToken: true, name: true, isRecurring: true, intervalUnit: true, intervalCount: true, billingCycles: true, providerAccount: { select: { provider: true, sealedCredentials: true } } } },
      transaction: { select: { status: true, metadata: true } },
    },
  });
}
type ClaimedCheckout = NonNullable<Awaited<ReturnType<typeof checkoutToMake>>>;

/** What the adapter is asked to make, from the checkout as it committed. */
function providerCheckoutOf(checkout: ClaimedCheckout, base: string, settings: Settings): Parameters<RemoteAdapter['startCheckout']>[1] {
  const stored = (checkout.transaction.metadata as unknown as { checkout: { amounts: { schedule: { amount: number }[] }; payer: StoredPayer; contact_id: string; payment_method?: 'pix' | 'boleto' | 'card' } }).checkout;
  const link = checkout.paymentLink;
  const currency = checkout.currency;
  return {
    checkoutId: checkout.token,
    contactId: stored.contact_id,
    linkName: link.name,
    currency,
    total: toMinor(checkout.total, currency),
    installments: checkout.installments,
    amounts: link.isRecurring ? [toMinor(checkout.total, currency)] : stored.amounts.schedule.map((s) => toMinor(s.amount, currency)),
    recurring: link.isRecurring ? { unit: link.intervalUnit, count: link.intervalCount, cycles: link.billingCycles } : null,
    payer: { name: stored.payer.name, email: stored.payer.email, taxId: stored.payer.tax_id },
    paymentMethod: stored.payment_method,
    successUrl: resultUrl(base, checkout.token),
    cancelUrl: `${base}/pay/${encodeURIComponent(link.publicToken)}`,
    createdAt: checkout.createdAt,
    expiresAt: checkout.expiresAt ?? new Date(checkout.createdAt.getTime() + settings.checkoutExpiryMinutes * 60_000),
  };
}

/** ensureProviderCheckout, for after a commit: a failure is logged, and the continue URL tries again when the payer follows it. */
export function startProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined, requestId: string): Promise<NextAction | null> {
  return ensureProviderCheckout(prisma, settings, token, origin).catch((error) => {
    logError(requestId, error, 'making the provider checkout');
    return null;
  });
}
