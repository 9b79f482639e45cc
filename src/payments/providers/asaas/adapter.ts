import { randomBytes, timingSafeEqual } from 'node:crypto';
import { minorToText, numberToText } from '../../currencies.js';
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

/**
 * Asaas (Brazil: Pix, boleto, cards in installments) over `fetch`, as it has no
 * maintained Node SDK (API.md section 11). Asaas has no idempotency keys: every object
 * carries our id as `externalReference` and is looked up by it before it is made, so a
 * retry, a reload or a second process finds the first instead of making another.
 */

const ENVIRONMENTS = { sandbox: 'https://api-sandbox.asaas.com/v3', production: 'https://api.asaas.com/v3' } as const;
/** The recurrences Asaas has: `unit x count` → its cycle. */
const CYCLES: Record<string, string> = {
  'week:1': 'WEEKLY',
  'week:2': 'BIWEEKLY',
  'month:1': 'MONTHLY',
  'month:2': 'BIMONTHLY',
  'month:3': 'QUARTERLY',
  'month:6': 'SEMIANNUALLY',
  'year:1': 'YEARLY',
};
const BILLING_TYPES = { pix: 'PIX', boleto: 'BOLETO', card: 'CREDIT_CARD' } as const;

export const ASAAS_EVENTS = [
  'PAYMENT_CONFIRMED',
  'PAYMENT_RECEIVED',
  'PAYMENT_RECEIVED_IN_CASH',
  'PAYMENT_AWAITING_RISK_ANALYSIS',
  'PAYMENT_REPROVED_BY_RISK_ANALYSIS',
  'PAYMENT_CREDIT_CARD_CAPTURE_REFUSED',
  'PAYMENT_OVERDUE',
  'PAYMENT_DELETED',
  'PAYMENT_REFUNDED',
  'PAYMENT_PARTIALLY_REFUNDED',
  'PAYMENT_REFUND_DENIED',
  'PAYMENT_CHARGEBACK_REQUESTED',
  'PAYMENT_CHARGEBACK_DISPUTE',
  'PAYMENT_AWAITING_CHARGEBACK_REVERSAL',
] as const;

const PAYMENT_EVENTS: Record<string, PaymentStatus> = {
  PAYMENT_CONFIRMED: 'paid',
  PAYMENT_RECEIVED: 'paid',
  PAYMENT_RECEIVED_IN_CASH: 'paid',
  PAYMENT_AWAITING_RISK_ANALYSIS: 'processing',
  PAYMENT_REPROVED_BY_RISK_ANALYSIS: 'failed',
  PAYMENT_CREDIT_CARD_CAPTURE_REFUSED: 'failed',
  PAYMENT_OVERDUE: 'canceled',
  PAYMENT_DELETED: 'canceled',
};
const EVENT_TYPES: Record<PaymentStatus, string> = {
  paid: 'payment.paid',
  processing: 'payment.processing',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  pending: 'payment.pending',
  refunded: 'payment.refunded',
};
/** A payment's status as Asaas reads it, for a lookup. */
const PAYMENT_STATUSES: Record<string, PaymentStatus> = {
  CONFIRMED: 'paid',
  RECEIVED: 'paid',
  RECEIVED_IN_CASH: 'paid',
  REFUNDED: 'paid',
  REFUND_REQUESTED: 'paid',
  REFUND_IN_PROGRESS: 'paid',
  CHARGEBACK_REQUESTED: 'paid',
  CHARGEBACK_DISPUTE: 'paid',
  AWAITING_CHARGEBACK_REVERSAL: 'paid',
  AWAITING_RISK_ANALYSIS: 'processing',
  OVERDUE: 'canceled',
};
const CHARGEBACK_EVENTS = new Set(['PAYMENT_CHARGEBACK_REQUESTED', 'PAYMENT_CHARGEBACK_DISPUTE', 'PAYMENT_AWAITING_CHARGEBACK_REVERSAL']);

interface AsaasPayment {
  id: string;
  status: string;
  value: number;
  externalReference?: string | null;
  installment?: string | null;
  installmentNumber?: number | null;
  subscription?: string | null;
  invoiceUrl?: string;
  refunds?: AsaasRefund[] | null;
  chargeback?: { status?: string; reason?: string; value?: number } | null;
}
interface AsaasRefund {
  id?: string;
  dateCreated?: string;
  status?: string;
  value: number;
  description?: string | null;
}
interface AsaasList<T> {
  data: T[];
}

/** Today's date in São Paulo plus `days`, as Asaas reads due dates (a UTC date would be tomorrow there each evening). */
export function saoPauloDate(now: Date, days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const date = new Date(`${today}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The text our refunds carry at Asaas, by which a lost answer's refund is found again. */
const refundDescription = (refundId: string) => `Salesgraph refund ${refundId}`;
const ourRefundId = (description: string | null | undefined) => /^Salesgraph refund (\S+)$/.exec(description ?? '')?.[1];

const refundStatus = (status: string | undefined): RefundStatus => (status === 'DONE' ? 'succeeded' : status === 'CANCELLED' ? 'canceled' : 'pending');

const money = (value: number) => numberToText(value, 'BRL');

export function asaasAdapter(options: { apiBase?: string; dueDays: number }): RemoteAdapter {
  const baseOf = (credentials: AccountSecrets) => options.apiBase ?? ENVIRONMENTS[(credentials.environment as keyof typeof ENVIRONMENTS) ?? 'sandbox'];

  /** One request: JSON in and out; 401/403 refused, 5xx and network failures unreachable, other 4xx declined with Asaas's own words. */
  async function request<T>(credentials: AccountSecrets, call: ProviderCallOptions, operation: string, method: string, path: string, body?: unknown): Promise<T> {
    return providerCall(call, 'asaas', operation, async (signal) => {
      let response: Response;
      try {
        response = await fetch(`${baseOf(credentials)}${path}`, {
          method,
          signal,
          redirect: 'error',
          headers: { access_token: credentials.api_key!, 'Content-Type': 'application/json', 'User-Agent': 'salesgraph' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        throw new ProviderUnreachable(error instanceof Error ? error.message : String(error));
      }
      const text = await response.text();
      if (response.status === 401 || response.status === 403) throw new ProviderRefusedCredentials(`Asaas answered ${response.status}`);
      if (response.status >= 500 || response.status === 429) throw new ProviderUnreachable(`Asaas answered ${response.status}`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        throw new ProviderUnreachable(`Asaas answered ${response.status} with a body that is not JSON`);
      }
      if (!response.ok) {
        const first = (parsed as { errors?: { code?: string; description?: string }[] }).errors?.[0];
        throw new ProviderDeclined(first?.description ?? `Asaas answered ${response.status}`, first?.code);
      }
      return parsed as T;
    });
  }
  const first = async <T>(credentials: AccountSecrets, call: ProviderCallOptions, operation: string, path: string) =>
    (await request<AsaasList<T>>(credentials, call, operation, 'GET', path)).data[0];

  const paymentReport = (payment: AsaasPayment, eventId: string, occurredAt: Date, status: PaymentStatus, payload: Record<string, unknown>): ProviderReport => {
    const plan = payment.installment ?? payment.subscription ?? undefined;
    if (plan) {
      return {
        kind: 'charge',
        eventId,
        occurredAt,
        payload,
        checkoutId: payment.externalReference ?? undefined,
        planObjectId: plan,
        chargeId: payment.id,
        type: EVENT_TYPES[status],
        status,
        amount: money(payment.value),
        chargeReference: payment.id,
      };
    }
    return { kind: 'payment', eventId, occurredAt, payload, checkoutId: payment.externalReference ?? undefined, objectId: payment.id, type: EVENT_TYPES[status], status, chargeReference: payment.id, amount: money(payment.value) };
  };

  const refundReports = (payment: AsaasPayment, eventId: string, occurredAt: Date, denied: boolean): ProviderReport[] =>
    (payment.refunds ?? []).map((refund, k) => {
      const ours = ourRefundId(refund.description);
      return {
        kind: 'refund' as const,
        eventId: `${eventId}:${k}`,
        occurredAt,
        payload: refund as unknown as Record<string, unknown>,
        chargeReference: payment.id,
        // Asaas's refunds carry no id of their own in every version: ours, or the refund's place among the payment's.
        refundReference: refund.id ?? (ours ? `refund:${ours}` : `${payment.id}:refund:${k}`),
        refundId: ours,
        amount: money(refund.value),
        status: denied && refundStatus(refund.status) === 'pending' ? 'failed' : refundStatus(refund.status),
        failureReason: denied ? 'denied' : undefined,
      };
    });

  return {
    provider: 'asaas',
    payerFields: ['tax_id'],
    paymentMethods: ['pix', 'boleto', 'card'],

    unsupported(link) {
      if (link.currency !== 'BRL') return 'This payment link cannot be paid with its provider.';
      if (link.isRecurring && !CYCLES[`${link.intervalUnit}:${link.intervalCount}`]) return 'This payment link cannot be paid with its provider.';
      return undefined;
    },

    parseCredentials(input) {
      const given = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
      const errors: Record<string, string[]> = {};
      if (typeof given.api_key !== 'string' || given.api_key.trim() === '') errors['credentials.api_key'] = ['The credentials.api_key field is required.'];
      else if (given.api_key.length > 512) errors['credentials.api_key'] = ['The credentials.api_key field must not be greater than 512 characters.'];
      if (given.environment !== undefined && given.environment !== 'sandbox' && given.environment !== 'production') {
        errors['credentials.environment'] = ['The selected credentials.environment is invalid.'];
      }
      for (const key of Object.keys(given)) if (key !== 'api_key' && key !== 'environment') errors[`credentials.${key}`] = [`The credentials.${key} field is not allowed.`];
      if (Object.keys(errors).length > 0) return { ok: false, errors };
      return { ok: true, credentials: { api_key: given.api_key as string, environment: (given.environment as string | undefined) ?? 'sandbox' } };
    },

    async check(credentials, call) {
      await request(credentials, call, 'check_credentials', 'GET', '/finance/balance');
      return { mode: credentials.environment ?? 'sandbox', hint: credentials.api_key!.slice(-4) };
    },

    async webhookSecret(credentials, webhookUrl, call) {
      if (credentials.webhook_token) return { secrets: credentials };
      const token = randomBytes(32).toString('base64url');
      if (webhookUrl) {
        await request(credentials, call, 'register_webhook', 'POST', '/webhooks', {
          name: 'Salesgraph',
          url: webhookUrl,
          enabled: true,
          interrupted: false,
          authToken: token,
          sendType: 'SEQUENTIALLY',
          events: ASAAS_EVENTS,
        });
      }
      return { secrets: { ...credentials, webhook_token: token }, shownToken: token };
    },

    async startCheckout(credentials, order: CheckoutOrder, call) {
      if (!order.payer.taxId) throw new ProviderDeclined('Enter a valid CPF or CNPJ.', 'invalid_cpfCnpj');
      const customer =
        (await first<{ id: string }>(credentials, call, 'find_customer', `/customers?externalReference=${encodeURIComponent(order.contactId)}`)) ??
        (await request<{ id: string }>(credentials, call, 'create_customer', 'POST', '/customers', {
          name: order.payer.name,
          email: order.payer.email,
          cpfCnpj: order.payer.taxId,
          externalReference: order.contactId,
        }));
      const billingType = order.paymentMethod ? BILLING_TYPES[order.paymentMethod] : 'UNDEFINED';
      const value = Number(minorToText(order.total, 'BRL'));
      const common = {
        customer: customer.id,
        billingType,
        description: order.linkName,
        externalReference: order.checkoutId,
        callback: { successUrl: order.successUrl, autoRedirect: true },
      };
      const dueDate = saoPauloDate(order.createdAt, options.dueDays);
      let payment: AsaasPayment | undefined;
      if (order.recurring) {
        const subscription =
          (await first<{ id: string }>(credentials, call, 'find_plan', `/subscriptions?externalReference=${encodeURIComponent(order.checkoutId)}`)) ??
          (await request<{ id: string }>(credentials, call, 'create_plan', 'POST', '/subscriptions', {
            ...common,
            value,
            nextDueDate: dueDate,
            cycle: CYCLES[`${order.recurring.unit}:${order.recurring.count}`],
            ...(order.recurring.cycles ? { maxPayments: order.recurring.cycles } : {}),
          }));
        payment = await first<AsaasPayment>(credentials, call, 'find_checkout', `/payments?subscription=${encodeURIComponent(subscription.id)}`);
        if (!payment) throw new ProviderUnreachable('Asaas made the subscription without its first payment');
      } else {
        const known = (await request<AsaasList<AsaasPayment>>(credentials, call, 'find_checkout', 'GET', `/payments?externalReference=${encodeURIComponent(order.checkoutId)}`)).data;
        payment =
          known.find((p) => (p.installmentNumber ?? 1) === 1) ??
          (await request<AsaasPayment>(credentials, call, 'create_checkout', 'POST', '/payments', {
            ...common,
            dueDate,
            ...(order.installments > 1 ? { installmentCount: order.installments, totalValue: value } : { value }),
          }));
      }
      const url = payment.invoiceUrl!;
      if (order.paymentMethod !== 'pix') return { objectId: payment.id, nextAction: { type: 'redirect', url } };
      const pix = await request<{ encodedImage: string; payload: string; expirationDate?: string }>(credentials, call, 'pix_code', 'GET', `/payments/${payment.id}/pixQrCode`);
      return {
        objectId: payment.id,
        nextAction: { type: 'pix', url, pix: { payload: pix.payload, image: `data:image/png;base64,${pix.encodedImage}`, expiresAt: pix.expirationDate ?? null } },
      };
    },

    async lookup(credentials, objectId, _checkoutId, call) {
      const payment = await request<AsaasPayment>(credentials, call, 'lookup_checkout', 'GET', `/payments/${encodeURIComponent(objectId)}`);
      const status = PAYMENT_STATUSES[payment.status];
      if (!status) return [];
      return [paymentReport(payment, `lookup:${payment.id}:${payment.status}`, new Date(), status, payment as unknown as Record<string, unknown>)];
    },

    async expire(credentials, objectId, checkoutId, call) {
      const found = await this.lookup(credentials, objectId, checkoutId, call);
      if (found.some((r) => 'status' in r && r.status === 'paid')) return found;
      try {
        await request(credentials, call, 'expire_checkout', 'DELETE', `/payments/${encodeURIComponent(objectId)}`);
      } catch (error) {
        // Refused: paid meanwhile (Asaas deletes no received payment); what it is now decides.
        if (error instanceof ProviderDeclined) return this.lookup(credentials, objectId, checkoutId, call);
        throw error;
      }
      return [{ kind: 'payment', eventId: `expire:${objectId}`, occurredAt: new Date(), payload: { id: objectId, deleted: true }, checkoutId, objectId, type: 'payment.canceled', status: 'canceled' }];
    },

    async refund(credentials, order, call) {
      const path = `/payments/${encodeURIComponent(order.chargeReference)}`;
      const mine = (refunds: AsaasRefund[] | null | undefined) => (refunds ?? []).find((r) => ourRefundId(r.description) === order.refundId);
      // A refund whose answer was lost is found among the payment's before any new one is asked for.
      const listed = await request<AsaasList<AsaasRefund>>(credentials, call, 'find_refund', 'GET', `${path}/refunds`);
      let refund = mine(listed.data);
      if (!refund) {
        const payment = await request<AsaasPayment>(credentials, call, 'refund', 'POST', `${path}/refund`, {
          value: Number(minorToText(order.amount, 'BRL')),
          description: refundDescription(order.refundId),
        });
        refund = mine(payment.refunds) ?? { value: 0, status: 'PENDING' };
      }
      return { providerReference: refund.id ?? `refund:${order.refundId}`, status: refundStatus(refund.status) };
    },

    verifyWebhook(credentials, _rawBody, headers) {
      const expected = credentials.webhook_token;
      const given = headers.get('asaas-access-token');
      if (!expected || given === null) return false;
      const a = Buffer.from(given);
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },

    translateWebhook(rawBody) {
      const body = JSON.parse(rawBody.toString('utf8')) as { id?: string; event?: string; dateCreated?: string; payment?: AsaasPayment };
      const { payment, event } = body;
      if (!payment?.id || !event || !body.id) return [];
      // Asaas's times are São Paulo's wall clock (UTC-3, no daylight saving since 2019).
      const occurredAt = body.dateCreated ? new Date(`${body.dateCreated.replace(' ', 'T')}-03:00`) : new Date();
      const at = Number.isNaN(occurredAt.getTime()) ? new Date() : occurredAt;
      const payload = body as unknown as Record<string, unknown>;
      const chargebackOf = (state: 'open' | 'won' | 'lost', eventId: string): ProviderReport => ({
        kind: 'dispute',
        eventId,
        occurredAt: at,
        payload,
        chargeReference: payment.id,
        disputeReference: `chargeback:${payment.id}`,
        status: state,
        amount: money(payment.chargeback?.value ?? payment.value),
        reason: payment.chargeback?.reason ?? null,
      });
      const status = PAYMENT_EVENTS[event];
      if (status) {
        const reports = [paymentReport(payment, body.id, at, status, payload)];
        // A chargeback won: Asaas reports the payment received again, its chargeback reversed.
        if (payment.chargeback?.status === 'REVERSED') reports.push(chargebackOf('won', `${body.id}:chargeback`));
        return reports;
      }
      if (event === 'PAYMENT_REFUNDED' || event === 'PAYMENT_PARTIALLY_REFUNDED' || event === 'PAYMENT_REFUND_DENIED') return refundReports(payment, body.id, at, event === 'PAYMENT_REFUND_DENIED');
      if (CHARGEBACK_EVENTS.has(event)) {
        const state = payment.chargeback?.status;
        return [chargebackOf(state === 'DONE' || state === 'DISPUTE_LOST' ? 'lost' : state === 'REVERSED' ? 'won' : 'open', body.id)];
      }
      return [];
    },
  };
}
