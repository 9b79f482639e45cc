/**
 * Payment provider adapters (API.md sections 7 and 11; docs/adding-a-provider.md): an
 * account's `provider` picks one. Each adapter lives in its own folder under
 * payments/providers/ and is the only code that knows its provider's wire format: it
 * checks credentials, makes the provider's checkout object, reads it back, expires it,
 * refunds, and verifies and translates the provider's webhooks into reports that the
 * one ingestion code records. Every call runs outside any database transaction (the
 * callers commit first), with PROVIDER_TIMEOUT_SECONDS, and is safe to repeat: Stripe
 * by an Idempotency-Key derived from our id, Asaas by a lookup of our id first.
 */
import { type SecretBox, SecretsUnreadable } from './secrets.js';

export type PaymentStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'refunded' | 'canceled';
export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';
export type RefundReason = 'requested_by_customer' | 'duplicate' | 'fraudulent' | 'other';

export type NextAction =
  | { type: 'redirect'; url: string }
  | { type: 'pix'; url: string; pix: { payload: string; image: string; expiresAt: string | null } };

/** The provider refused the credentials (401/403): 422 on `credentials`. */
export class ProviderRefusedCredentials extends Error {}
/** The provider could not be reached, timed out or failed (5xx): 502, and the work is retried where it can be. */
export class ProviderUnreachable extends Error {}
/** The provider answered that it will not do it (a 4xx other than credentials): the message is the provider's. */
export class ProviderDeclined extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

/** What every call to a provider gets: its deadline, and who counts it (provider, operation, outcome, seconds). */
export interface ProviderCallOptions {
  timeoutMs: number;
  observe?: (provider: string, operation: string, outcome: 'ok' | 'declined' | 'refused' | 'unreachable', seconds: number) => void;
}

/** Runs one call of `provider`'s `operation`, measured; its errors are the three classes above. */
export async function providerCall<T>(options: ProviderCallOptions, provider: string, operation: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const started = performance.now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  let outcome: 'ok' | 'declined' | 'refused' | 'unreachable' = 'ok';
  try {
    return await call(signal);
  } catch (error) {
    outcome = error instanceof ProviderRefusedCredentials ? 'refused' : error instanceof ProviderDeclined ? 'declined' : 'unreachable';
    if (outcome === 'unreachable' && !(error instanceof ProviderUnreachable)) throw new ProviderUnreachable(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    options.observe?.(provider, operation, outcome, (performance.now() - started) / 1000);
  }
}

/** A checkout as the provider is told of it: amounts in the link currency's ISO minor units. */
export interface CheckoutOrder {
  /** Our checkout id (its public token): the provider's reference of it, and its idempotency key. */
  checkoutId: string;
  contactId: string;
  linkName: string;
  currency: string;
  total: bigint;
  installments: number;
  /** Each charge's amount, in order (installments); one entry for a single payment or a recurring charge. */
  amounts: bigint[];
  recurring: { unit: string; count: number; cycles: number | null } | null;
  payer: { name: string; email: string; taxId?: string };
  paymentMethod?: 'pix' | 'boleto' | 'card';
  successUrl: string;
  cancelUrl: string;
  createdAt: Date;
  expiresAt: Date;
}

/** What the provider made for a checkout. */
export interface ProviderCheckout {
  objectId: string;
  nextAction: NextAction;
}

interface ReportBase {
  /** The provider's event id: a delivery seen before changes nothing. */
  eventId: string;
  occurredAt: Date;
  payload: Record<string, unknown>;
}

/** What a provider said, translated: each kind is recorded by the ingestion of section 3 (src/modules/payment-transactions). */
export type ProviderReport =
  | (ReportBase & {
      kind: 'payment';
      /** Our checkout id, when the provider carries it back; else `objectId` finds the checkout. */
      checkoutId?: string;
      objectId?: string;
      type: string;
      status: PaymentStatus;
      chargeReference?: string;
      /** What the charge took, an exact decimal (a plan's first charge: one installment of the transaction's amount). */
      amount?: string;
      /** The plan the payment started (a subscription), to be ended after its charges. */
      planObjectId?: string;
    })
  | (ReportBase & {
      /** A later charge of a plan (an installment, a recurring cycle): a transaction of its own. */
      kind: 'charge';
      checkoutId?: string;
      planObjectId: string;
      chargeId: string;
      type: string;
      status: PaymentStatus;
      amount: string;
      chargeReference?: string;
    })
  | (ReportBase & {
      /**
       * What a plan's first charge took, reported apart from the payment (Stripe's first invoice):
       * it names what a refund of the checkout's own transaction gives back, with no event of its own.
       */
      kind: 'first-charge';
      checkoutId: string;
      /** Our id for the provider's charge object (Stripe's invoice), when the payment's id must be asked for. */
      chargeId: string;
      chargeReference?: string;
      amount: string;
    })
  | (ReportBase & {
      kind: 'refund';
      chargeReference: string;
      refundReference?: string;
      /** Our refund's id, when the provider carries it back (metadata). */
      refundId?: string;
      amount: string;
      status: RefundStatus;
      failureReason?: string;
    })
  | (ReportBase & {
      kind: 'dispute';
      chargeReference: string;
      disputeReference: string;
      status: 'open' | 'won' | 'lost';
      amount: string;
      reason: string | null;
    });

export interface RefundOrder {
  /** Our refund's id: the idempotency key, and how a lost answer is found again. */
  refundId: string;
  chargeReference: string;
  currency: string;
  amount: bigint;
  reason: RefundReason;
}

export interface RefundResult {
  providerReference: string | null;
  status: RefundStatus;
  failureReason?: string;
}

/** The secrets an account keeps sealed: the credentials as given, and the webhook's secret or token. */
export type AccountSecrets = Record<string, string>;

export interface ProviderAdapter {
  readonly provider: string;
  /** What the payer gives beyond name and e-mail (`tax_id`), and the methods they choose among. */
  readonly payerFields: readonly string[];
  readonly paymentMethods: readonly string[];
  /** The 422 message when the provider cannot take this link (currency, recurrence); undefined when it can. */
  unsupported(link: { currency: string; isRecurring: boolean; intervalUnit: string; intervalCount: number }): string | undefined;
  /** Whether the provider can charge each of these amounts (ISO minor units) exactly; absent: any. */
  chargeable?(currency: string, amounts: readonly bigint[]): boolean;
}

/** A provider reached over the network (everything but `test`). */
export interface RemoteAdapter extends ProviderAdapter {
  /** The credentials' fields and their rules: field errors keyed by name; the secrets to keep. */
  parseCredentials(input: unknown): { ok: true; credentials: AccountSecrets } | { ok: false; errors: Record<string, string[]> };
  /** One call that proves the credentials: `mode` and the hint shown instead of them. */
  check(credentials: AccountSecrets, call: ProviderCallOptions): Promise<{ mode: string; hint: string }>;
  /** The secret (Stripe) or token (Asaas) that authenticates its webhooks to us, made or registered now. */
  webhookSecret(credentials: AccountSecrets, webhookUrl: string | undefined, call: ProviderCallOptions): Promise<{ secrets: AccountSecrets; shownToken?: string }>;
  startCheckout(credentials: AccountSecrets, order: CheckoutOrder, call: ProviderCallOptions): Promise<ProviderCheckout>;
  /** What the provider says of a checkout's object now, as reports (reconciliation). */
  lookup(credentials: AccountSecrets, objectId: string, checkoutId: string, call: ProviderCallOptions): Promise<ProviderReport[]>;
  /** Ends an unpaid checkout at the provider: the reports of what it found (paid, or canceled). */
  expire(credentials: AccountSecrets, objectId: string, checkoutId: string, call: ProviderCallOptions): Promise<ProviderReport[]>;
  /** Refunds once: a repeat with the same refundId finds the first. */
  refund(credentials: AccountSecrets, order: RefundOrder, call: ProviderCallOptions): Promise<RefundResult>;
  /** Makes a plan the provider runs (a subscription) stop after `charges` charges; providers that take the count up front leave it out. */
  limitPlan?(credentials: AccountSecrets, planObjectId: string, charges: number, call: ProviderCallOptions): Promise<void>;
  /** Whether a webhook delivery is the provider's, by its raw bytes and headers. */
  verifyWebhook(credentials: AccountSecrets, rawBody: Buffer, headers: Headers, now: Date): boolean | Promise<boolean>;
  /** A verified delivery's reports (none for event types the service does not use). */
  translateWebhook(rawBody: Buffer): ProviderReport[];
  /**
   * Asks the provider for what a delivery leaves out (Stripe's invoices name their payment only
   * when expanded), outside any transaction; throws when the provider cannot answer.
   */
  completeReports?(credentials: AccountSecrets, reports: ProviderReport[], call: ProviderCallOptions): Promise<ProviderReport[]>;
}

export const isRemote = (adapter: ProviderAdapter | undefined): adapter is RemoteAdapter => adapter !== undefined && 'startCheckout' in adapter;

/** The service's payment machinery, built once by the composition root: sealed secrets, the adapters, and how calls go. */
export interface Payments {
  secrets: SecretBox;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  call: ProviderCallOptions;
  /** PUBLIC_BASE_URL, when set: the origin of the URLs given to providers, and automatic webhook registration. */
  publicBaseUrl?: string;
  /** PROVIDER_RECONCILE_SECONDS, in ms. */
  reconcileMs: number;
  /**
   * Runs `work` once at a time per `key` in this process: a second caller while it runs gets
   * the same promise (the request that made a checkout and the payer following its
   * continue URL at once make one provider object, not two).
   */
  singleFlight<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Measures every provider call from now on (the serving process's metrics, as the database's statements are). */
  observeCalls(observe: NonNullable<ProviderCallOptions['observe']>): void;
}

export const adapterOf = (payments: Payments, provider: string): ProviderAdapter | undefined => payments.adapters.get(provider);

/** An account's credentials, opened: SecretsUnreadable when it has none, or no configured key opens them (a database moved without its key). */
export function openCredentials(payments: Payments, sealed: string | null): AccountSecrets {
  if (!sealed) throw new SecretsUnreadable('the account has none');
  return JSON.parse(payments.secrets.open(sealed)) as AccountSecrets;
}

/**
 * An account whose provider is reached over the network: its adapter, and its credentials
 * opened when a call needs them. Undefined for the `test` provider (and one this process has no adapter for).
 */
export function remoteAccount(payments: Payments, account: { provider: string; sealedCredentials: string | null }): { adapter: RemoteAdapter; credentials(): AccountSecrets } | undefined {
  const adapter = adapterOf(payments, account.provider);
  return isRemote(adapter) ? { adapter, credentials: () => openCredentials(payments, account.sealedCredentials) } : undefined;
}
