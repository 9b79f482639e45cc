import type Stripe from 'stripe';
import {
  type AccountSecrets,
  type CheckoutOrder,
  type PaymentStatus,
  type ProviderCallOptions,
  type ProviderReport,
  type RefundStatus,
  type RemoteAdapter,
  ProviderDeclined,
  ProviderRefusedCredentials,
  ProviderUnreachable,
  providerCall,
} from '../../providers.js';
import { fromStripeAmount, toStripeAmount } from './units.js';

/**
 * Stripe through its official SDK (API.md section 11): Checkout Sessions for one payment,
 * installments and recurring links (subscriptions ended after their charges), refunds by
 * payment intent, and its webhooks verified on the raw bytes by the SDK.
 * STRIPE_API_BASE points the SDK at another host (a test double).
 */

const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/;
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/=_-]{8,256}$/;
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Stripe allows a session to live 30 minutes to 24 hours. */
const SESSION_MIN_MS = 31 * 60_000;
const SESSION_MAX_MS = 24 * 60 * 60_000 - 60_000;

/** The events the service uses, registered with the endpoint it makes. */
export const STRIPE_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'invoice.paid',
  'invoice.payment_failed',
  'charge.refunded',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
] as const;

const INTERVALS = new Set(['day', 'week', 'month', 'year']);
/** Stripe bills at most once a year apart. */
const MAX_INTERVAL: Record<string, number> = { day: 365, week: 52, month: 12, year: 1 };

type Sdk = typeof import('stripe').default;
let loaded: Promise<Sdk> | undefined;
/** The SDK, loaded on first use: a process that never talks to Stripe (the command line, most tests) does not pay for it. */
const sdk = () => (loaded ??= import('stripe').then((module) => module.default));

/** Maps the SDK's errors to the three the service knows. */
function translated(Stripe: Sdk, error: unknown): Error {
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) return new ProviderRefusedCredentials(error.message);
  if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError || error instanceof Stripe.errors.StripeRateLimitError) return new ProviderUnreachable(error.message);
  if (error instanceof Stripe.errors.StripeError) {
    return (error.statusCode ?? 500) >= 500 ? new ProviderUnreachable(error.message) : new ProviderDeclined(error.message, error.code);
  }
  return error instanceof Error ? new ProviderUnreachable(error.message) : new ProviderUnreachable(String(error));
}

/**
 * `count` intervals after the Unix time `start`, as Stripe bills from its anchor: months
 * and years keep the anchor's day, or the month's last day when it has none (Jan 31 →
 * Feb 28), and its time of day.
 */
export function periodsAfter(start: number, interval: string, count: number): number {
  const date = new Date(start * 1000);
  if (interval === 'day' || interval === 'week') return start + count * (interval === 'day' ? 86_400 : 604_800);
  const months = interval === 'year' ? 12 * count : count;
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

const idOf = (value: string | { id: string } | null | undefined): string | undefined => (typeof value === 'string' ? value : (value?.id ?? undefined));

export function stripeAdapter(options: { apiBase?: string }): RemoteAdapter {
  const base = new URL(options.apiBase ?? 'https://api.stripe.com');
  const clients = new Map<string, Stripe>();
  /** One SDK client per key (each keeps its own connections); no retries of its own: the service's loops retry. */
  const client = (Stripe: Sdk, credentials: AccountSecrets, call: ProviderCallOptions) => {
    const key = credentials.secret_key!;
    let stripe = clients.get(key);
    if (!stripe) {
      stripe = new Stripe(key, {
        host: base.hostname,
        port: base.port || (base.protocol === 'http:' ? 80 : 443),
        protocol: base.protocol === 'http:' ? 'http' : 'https',
        maxNetworkRetries: 0,
        timeout: call.timeoutMs,
        telemetry: false,
      });
      clients.set(key, stripe);
    }
    return stripe;
  };
  /** One call: the SDK loaded, a client for the account's key, its errors translated. */
  const run = <T>(credentials: AccountSecrets, call: ProviderCallOptions, operation: string, work: (stripe: Stripe) => Promise<T>) =>
    providerCall(call, 'stripe', operation, async () => {
      const Stripe = await sdk();
      try {
        return await work(client(Stripe, credentials, call));
      } catch (error) {
        throw translated(Stripe, error);
      }
    });

  /** The payment an invoice was paid by, when it is expanded (`expand[]=payments`): events carry invoices without it. */
  const invoicePayment = (invoice: Stripe.Invoice | undefined): string | undefined => idOf(invoice?.payments?.data?.[0]?.payment?.payment_intent as never);

  /** An invoice with its payments (`expand[]=payments`); undefined when Stripe declines (no such invoice): asking again would not help. */
  const invoiceWithPayments = async (credentials: AccountSecrets, call: ProviderCallOptions, id: string): Promise<Stripe.Invoice | undefined> => {
    try {
      return await run(credentials, call, 'lookup_invoice', (stripe) => stripe.invoices.retrieve(id, { expand: ['payments'] }));
    } catch (error) {
      if (error instanceof ProviderDeclined) return undefined;
      throw error;
    }
  };

  /** `invoice`: the session's first invoice with its payments, when a lookup asked for it (a plan's session names no payment intent). */
  const sessionReports = (session: Stripe.Checkout.Session, eventId: string, occurredAt: Date, type: string, status: PaymentStatus, invoice?: Stripe.Invoice): ProviderReport[] => [
    {
      kind: 'payment',
      eventId,
      occurredAt,
      payload: session as unknown as Record<string, unknown>,
      checkoutId: session.metadata?.checkout_id ?? session.client_reference_id ?? undefined,
      objectId: session.id,
      type,
      status,
      chargeReference: idOf(session.payment_intent as never) ?? invoicePayment(invoice),
      amount: session.amount_total == null || !session.currency ? undefined : fromStripeAmount(session.amount_total, session.currency),
      planObjectId: idOf(session.subscription as never),
    } as ProviderReport,
  ];

  /** A completed session: paid, or an async method on its way (never a failure). */
  const completedStatus = (session: Stripe.Checkout.Session): PaymentStatus =>
    session.payment_status === 'paid' || session.payment_status === 'no_payment_required' ? 'paid' : 'processing';

  const refundStatus = (status: string | null): RefundStatus =>
    status === 'succeeded' ? 'succeeded' : status === 'failed' ? 'failed' : status === 'canceled' ? 'canceled' : 'pending';

  const refundReport = (refund: Stripe.Refund, eventId: string, occurredAt: Date, chargeReference: string): ProviderReport => ({
    kind: 'refund',
    eventId,
    occurredAt,
    payload: refund as unknown as Record<string, unknown>,
    chargeReference,
    refundReference: refund.id,
    refundId: refund.metadata?.refund_id,
    amount: fromStripeAmount(refund.amount, refund.currency),
    status: refundStatus(refund.status),
    failureReason: refund.failure_reason ?? undefined,
  });

  const invoiceReport = (invoice: Stripe.Invoice, eventId: string, occurredAt: Date, type: string, status: PaymentStatus): ProviderReport[] => {
    const details = invoice.parent?.subscription_details;
    // Events carry the invoice without its payments: completeReports asks for them.
    const chargeReference = invoicePayment(invoice) ?? idOf((invoice as unknown as { payment_intent?: string }).payment_intent);
    // The plan's first invoice is the checkout's own charge, whose payment checkout.session.completed reports
    // (a subscription's session names no payment intent): this names the money it took, for its refunds.
    if (invoice.billing_reason === 'subscription_create') {
      const checkoutId = details?.metadata?.checkout_id;
      if (status !== 'paid' || !checkoutId || !invoice.id) return [];
      return [{ kind: 'first-charge', eventId, occurredAt, payload: invoice as unknown as Record<string, unknown>, checkoutId, chargeId: invoice.id, chargeReference, amount: fromStripeAmount(invoice.amount_paid, invoice.currency) }];
    }
    const subscription = idOf(details?.subscription as never) ?? idOf((invoice as unknown as { subscription?: string }).subscription);
    if (!subscription || !invoice.id) return [];
    return [
      {
        kind: 'charge',
        eventId,
        occurredAt,
        payload: invoice as unknown as Record<string, unknown>,
        checkoutId: details?.metadata?.checkout_id ?? undefined,
        planObjectId: subscription,
        chargeId: invoice.id,
        type,
        status,
        amount: fromStripeAmount(status === 'paid' ? invoice.amount_paid : invoice.amount_due, invoice.currency),
        chargeReference,
      },
    ];
  };

  return {
    provider: 'stripe',
    payerFields: [],
    paymentMethods: [],

    unsupported(link) {
      if (!link.isRecurring) return undefined;
      if (!INTERVALS.has(link.intervalUnit) || link.intervalCount > (MAX_INTERVAL[link.intervalUnit] ?? 0)) return 'This payment link cannot be paid with its provider.';
      return undefined;
    },

    chargeable: (currency, amounts) => amounts.every((amount) => toStripeAmount(amount, currency) !== undefined),

    parseCredentials(input) {
      const given = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
      const errors: Record<string, string[]> = {};
      if (typeof given.secret_key !== 'string' || given.secret_key === '') errors['credentials.secret_key'] = ['The credentials.secret_key field is required.'];
      else if (!SECRET_KEY.test(given.secret_key)) errors['credentials.secret_key'] = ['The credentials.secret_key field must be a Stripe secret key (sk_test_..., sk_live_...) or restricted key (rk_...).'];
      if (given.webhook_signing_secret !== undefined && (typeof given.webhook_signing_secret !== 'string' || !SIGNING_SECRET.test(given.webhook_signing_secret))) {
        errors['credentials.webhook_signing_secret'] = ['The credentials.webhook_signing_secret field must be a Stripe signing secret (whsec_...).'];
      }
      for (const key of Object.keys(given)) if (key !== 'secret_key' && key !== 'webhook_signing_secret') errors[`credentials.${key}`] = [`The credentials.${key} field is not allowed.`];
      if (Object.keys(errors).length > 0) return { ok: false, errors };
      const credentials: AccountSecrets = { secret_key: given.secret_key as string };
      if (typeof given.webhook_signing_secret === 'string') credentials.webhook_signing_secret = given.webhook_signing_secret;
      return { ok: true, credentials };
    },

    async check(credentials, call) {
      await run(credentials, call, 'check_credentials', (stripe) => stripe.balance.retrieve());
      const key = credentials.secret_key!;
      return { mode: key.includes('_live_') ? 'live' : 'test', hint: key.slice(-4) };
    },

    async webhookSecret(credentials, webhookUrl, call) {
      if (credentials.webhook_signing_secret || !webhookUrl) return { secrets: credentials };
      const endpoint = await run(credentials, call, 'register_webhook', (stripe) => stripe.webhookEndpoints.create({ url: webhookUrl, enabled_events: [...STRIPE_EVENTS] as Stripe.WebhookEndpointCreateParams.EnabledEvent[] }),
      );
      return { secrets: { ...credentials, webhook_signing_secret: endpoint.secret! } };
    },

    async startCheckout(credentials, order: CheckoutOrder, call) {
      const currency = order.currency.toLowerCase();
      const units = (minor: bigint) => {
        const amount = toStripeAmount(minor, order.currency);
        if (amount === undefined) throw new ProviderDeclined('This payment link cannot be paid online.', 'amount_not_exact');
        return amount;
      };
      const plan = order.installments > 1 || order.recurring !== null;
      const product = { name: order.linkName };
      const metadata = { checkout_id: order.checkoutId };
      let lineItems: Stripe.Checkout.SessionCreateParams.LineItem[];
      if (!plan) {
        lineItems = [{ quantity: 1, price_data: { currency, unit_amount: units(order.total), product_data: product } }];
      } else {
        // Every charge is the last installment's amount; the first one's remainder (the cents that do not divide) is a one-time item of the first invoice.
        const each = order.amounts[order.amounts.length - 1]!;
        const interval = order.recurring ? { interval: order.recurring.unit as 'month', interval_count: order.recurring.count } : { interval: 'month' as const, interval_count: 1 };
        lineItems = [{ quantity: 1, price_data: { currency, unit_amount: units(each), product_data: product, recurring: interval } }];
        const remainder = order.amounts[0]! - each;
        if (remainder > 0n) lineItems.push({ quantity: 1, price_data: { currency, unit_amount: units(remainder), product_data: { name: `${order.linkName} (first installment's remainder)` } } });
      }
      // From the checkout's own times, not from now: a retry sends the same body, which Stripe's Idempotency-Key requires.
      const expiresAt = Math.floor(Math.min(Math.max(order.expiresAt.getTime(), order.createdAt.getTime() + SESSION_MIN_MS), order.createdAt.getTime() + SESSION_MAX_MS) / 1000);
      const params: Stripe.Checkout.SessionCreateParams = {
        mode: plan ? 'subscription' : 'payment',
        line_items: lineItems,
        client_reference_id: order.checkoutId,
        metadata,
        customer_email: order.payer.email,
        success_url: order.successUrl,
        cancel_url: order.cancelUrl,
        expires_at: expiresAt,
        ...(plan ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
      };
      const session = await run(credentials, call, 'create_checkout', (stripe) => stripe.checkout.sessions.create(params, { idempotencyKey: `checkout-${order.checkoutId}` }));
      return { objectId: session.id, nextAction: { type: 'redirect', url: session.url! } };
    },

    async lookup(credentials, objectId, _checkoutId, call) {
      const session = await run(credentials, call, 'lookup_checkout', (stripe) => stripe.checkout.sessions.retrieve(objectId));
      const at = new Date();
      if (session.status === 'complete') {
        // A plan's charge is its first invoice's payment, which only the invoice names.
        const invoice = session.mode === 'subscription' && typeof session.invoice === 'string' ? await invoiceWithPayments(credentials, call, session.invoice) : undefined;
        return sessionReports(session, `lookup:${session.id}:${session.payment_status}`, at, 'checkout.session.completed', completedStatus(session), invoice);
      }
      if (session.status === 'expired') return sessionReports(session, `lookup:${session.id}:expired`, at, 'checkout.session.expired', 'canceled');
      return [];
    },

    async expire(credentials, objectId, checkoutId, call) {
      try {
        const session = await run(credentials, call, 'expire_checkout', (stripe) => stripe.checkout.sessions.expire(objectId));
        return sessionReports(session, `expire:${session.id}`, new Date(), 'checkout.session.expired', 'canceled');
      } catch (error) {
        // Not open any more (paid as it expired, or expired by Stripe): what it is now decides.
        if (error instanceof ProviderDeclined) return this.lookup(credentials, objectId, checkoutId, call);
        throw error;
      }
    },

    async refund(credentials, order, call) {
      const amount = toStripeAmount(order.amount, order.currency);
      if (amount === undefined) throw new ProviderDeclined('The amount cannot be refunded exactly.', 'amount_not_exact');
      const refund = await run(credentials, call, 'refund', (stripe) => stripe.refunds.create(
          {
            payment_intent: order.chargeReference,
            amount,
            // Stripe knows three reasons; `other` goes without one.
            ...(order.reason === 'other' ? {} : { reason: order.reason }),
            metadata: { refund_id: order.refundId },
          },
          { idempotencyKey: `refund-${order.refundId}` },
        ),
      );
      return { providerReference: refund.id, status: refundStatus(refund.status), failureReason: refund.failure_reason ?? undefined };
    },

    async limitPlan(credentials, planObjectId, charges, call) {
      const subscription = await run(credentials, call, 'lookup_plan', (stripe) => stripe.subscriptions.retrieve(planObjectId));
      const item = subscription.items.data[0];
      const start = subscription.billing_cycle_anchor ?? item?.current_period_start ?? subscription.start_date;
      const recurring = item?.price?.recurring;
      // The plan ends as its (n + 1)-th period would begin: n whole periods are charged, none prorated.
      const cancelAt = periodsAfter(start, recurring?.interval ?? 'month', (recurring?.interval_count ?? 1) * charges);
      await run(credentials, call, 'limit_plan', (stripe) =>
        stripe.subscriptions.update(planObjectId, { cancel_at: cancelAt, proration_behavior: 'none' }, { idempotencyKey: `limit-${planObjectId}-${charges}` }),
      );
    },

    async verifyWebhook(credentials, rawBody, headers, now) {
      const secret = credentials.webhook_signing_secret;
      const header = headers.get('stripe-signature');
      if (!secret || !header) return false;
      const Stripe = await sdk();
      try {
        // receivedAt is in milliseconds (the SDK divides it).
        Stripe.webhooks.constructEvent(rawBody, header, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, now.getTime());
        return true;
      } catch {
        return false;
      }
    },

    async completeReports(credentials, reports, call) {
      const completed: ProviderReport[] = [];
      for (const report of reports) {
        // Only money taken has a payment to name (a failed invoice has none to refund).
        if ((report.kind === 'first-charge' || (report.kind === 'charge' && report.status === 'paid')) && !report.chargeReference) {
          const invoice = await invoiceWithPayments(credentials, call, report.chargeId);
          completed.push({ ...report, chargeReference: invoicePayment(invoice) });
        } else completed.push(report);
      }
      return completed;
    },

    translateWebhook(rawBody) {
      const event = JSON.parse(rawBody.toString('utf8')) as Stripe.Event;
      // Stripe's times are whole seconds: within one, an async payment's outcome comes after the session's completion.
      const occurredAt = new Date(event.created * 1000 + (event.type.startsWith('checkout.session.async_payment_') ? 500 : 0));
      const object = event.data.object as unknown;
      switch (event.type) {
        case 'checkout.session.completed': {
          const session = object as Stripe.Checkout.Session;
          return sessionReports(session, event.id, occurredAt, 'payment.' + (completedStatus(session) === 'paid' ? 'paid' : 'processing'), completedStatus(session));
        }
        case 'checkout.session.async_payment_succeeded':
          return sessionReports(object as Stripe.Checkout.Session, event.id, occurredAt, 'payment.paid', 'paid');
        case 'checkout.session.async_payment_failed':
          return sessionReports(object as Stripe.Checkout.Session, event.id, occurredAt, 'payment.failed', 'failed');
        case 'checkout.session.expired':
          return sessionReports(object as Stripe.Checkout.Session, event.id, occurredAt, 'payment.canceled', 'canceled');
        case 'invoice.paid':
          return invoiceReport(object as Stripe.Invoice, event.id, occurredAt, 'payment.paid', 'paid');
        case 'invoice.payment_failed':
          return invoiceReport(object as Stripe.Invoice, event.id, occurredAt, 'payment.failed', 'failed');
        case 'refund.created':
        case 'refund.updated':
        case 'refund.failed': {
          const refund = object as Stripe.Refund;
          const chargeReference = idOf(refund.payment_intent as never);
          return chargeReference ? [refundReport(refund, event.id, occurredAt, chargeReference)] : [];
        }
        case 'charge.refunded': {
          // The refunds it lists, when it lists them (refund.* events report each one otherwise).
          const charge = object as Stripe.Charge;
          const chargeReference = idOf(charge.payment_intent as never);
          if (!chargeReference) return [];
          return (charge.refunds?.data ?? []).map((refund) => refundReport(refund, `${event.id}:${refund.id}`, occurredAt, chargeReference));
        }
        case 'charge.dispute.created':
        case 'charge.dispute.updated':
        case 'charge.dispute.closed': {
          const dispute = object as Stripe.Dispute;
          const chargeReference = idOf(dispute.payment_intent as never);
          if (!chargeReference) return [];
          const status = dispute.status === 'won' ? 'won' : dispute.status === 'lost' ? 'lost' : 'open';
          return [
            {
              kind: 'dispute',
              eventId: event.id,
              occurredAt,
              payload: dispute as unknown as Record<string, unknown>,
              chargeReference,
              disputeReference: dispute.id,
              status,
              amount: fromStripeAmount(dispute.amount, dispute.currency),
              reason: dispute.reason ?? null,
            },
          ];
        }
        default:
          return [];
      }
    },
  };
}
