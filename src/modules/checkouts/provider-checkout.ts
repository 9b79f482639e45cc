import type { Context, Settings } from '../../graphql/context.js';
import { logError } from '../../log.js';
import { toMinor } from '../../payments/money.js';
import { type NextAction, adapterOf, isRemote } from '../../payments/providers.js';
import { accountSecrets, providerError } from '../payment-provider-accounts/payment-provider-accounts.schema.js';

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
 * committed and outside any transaction. A second call (a reload, a retry, another
 * process) finds the stored one; one made concurrently is the same object at the
 * provider (Stripe's Idempotency-Key, Asaas's lookup by our id), and the first to store
 * it wins. Throws the contract's errors (502 when the provider cannot be reached).
 */
export function ensureProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined): Promise<NextAction | null> {
  return settings.payments.singleFlight(`checkout:${token}`, () => makeProviderCheckout(prisma, settings, token, origin));
}

async function makeProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined): Promise<NextAction | null> {
  const checkout = await prisma.checkout.findUnique({
    where: { token },
    select: {
      id: true,
      token: true,
      createdAt: true,
      expiresAt: true,
      currency: true,
      total: true,
      installments: true,
      providerObjectId: true,
      nextAction: true,
      paymentLink: { select: { publicToken: true, name: true, isRecurring: true, intervalUnit: true, intervalCount: true, billingCycles: true, providerAccount: { select: { provider: true, sealedCredentials: true } } } },
      transaction: { select: { status: true, metadata: true } },
    },
  });
  if (!checkout) return null;
  if (checkout.nextAction) return checkout.nextAction as unknown as NextAction;
  if (checkout.transaction.status !== 'pending') return null;
  const { payments } = settings;
  const adapter = adapterOf(payments, checkout.paymentLink.providerAccount.provider);
  if (!isRemote(adapter)) return null;
  const base = payments.publicBaseUrl ?? origin;
  if (!base) return null;
  const stored = (checkout.transaction.metadata as unknown as { checkout: { amounts: { schedule: { amount: number }[] }; payer: StoredPayer; contact_id: string; payment_method?: 'pix' | 'boleto' | 'card' } }).checkout;
  const link = checkout.paymentLink;
  const currency = checkout.currency;
  try {
    const made = await adapter.startCheckout(
      accountSecrets({ settings }, link.providerAccount.sealedCredentials),
      {
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
      },
      payments.call,
    );
    // The first to store wins; a concurrent maker's object is the same one at the provider.
    await prisma.checkout.updateMany({ where: { id: checkout.id, providerObjectId: null }, data: { providerObjectId: made.objectId, nextAction: made.nextAction as object } });
    const now = await prisma.checkout.findUnique({ where: { id: checkout.id }, select: { nextAction: true } });
    return (now?.nextAction as unknown as NextAction | null) ?? made.nextAction;
  } catch (error) {
    throw providerError(error);
  }
}

/** ensureProviderCheckout, for after a commit: a failure is logged, and the continue URL tries again when the payer follows it. */
export function startProviderCheckout(prisma: Context['db'], settings: Settings, token: string, origin: string | undefined, requestId: string): Promise<NextAction | null> {
  return ensureProviderCheckout(prisma, settings, token, origin).catch((error) => {
    logError(requestId, error, 'making the provider checkout');
    return null;
  });
}
