import { randomBytes, randomUUID } from 'node:crypto';
import { type ClientRequest, type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout } from 'node:timers/promises';

/*
 * A local, stateful fake of the Asaas API v3 for tests: the service talks to it with `fetch`
 * exactly as it would to https://api.asaas.com/v3, and the test plays the payer and Asaas's
 * back office through the control methods (receive, refundFromDashboard, chargeback...).
 *
 * The wire shapes (field names and enums) come from Asaas's published SDK models
 * (github.com/asaasdev/asaas-api-sdk-java, documentation/models/*.md: PaymentGetResponseDto,
 * PaymentSaveRequestDto, CustomerSaveRequestDto, SubscriptionSaveRequestDto, PaymentRefundGetResponseDto,
 * PaymentPixQrCodeResponseDto, WebhookConfig*Dto, PaymentChargebackResponseDto) and the behaviours from
 * docs.asaas.com (cited next to each). Where Asaas documents nothing, the choice is marked "Not documented".
 */

export type BillingType = 'UNDEFINED' | 'BOLETO' | 'CREDIT_CARD' | 'PIX';
export type PaymentStatus =
  | 'PENDING' | 'RECEIVED' | 'CONFIRMED' | 'OVERDUE' | 'REFUNDED' | 'RECEIVED_IN_CASH' | 'REFUND_REQUESTED'
  | 'REFUND_IN_PROGRESS' | 'CHARGEBACK_REQUESTED' | 'CHARGEBACK_DISPUTE' | 'AWAITING_CHARGEBACK_REVERSAL'
  | 'DUNNING_REQUESTED' | 'DUNNING_RECEIVED' | 'AWAITING_RISK_ANALYSIS';
export type Cycle = 'WEEKLY' | 'BIWEEKLY' | 'MONTHLY' | 'BIMONTHLY' | 'QUARTERLY' | 'SEMIANNUALLY' | 'YEARLY';

/** PaymentRefundGetResponseDto: it has no id, so a refund is found again by its value, description and date. */
export interface AsaasRefund {
  dateCreated: string; // 'YYYY-MM-DD HH:mm:ss' (docs.asaas.com/docs/refunds)
  status: 'PENDING' | 'AWAITING_CRITICAL_ACTION_AUTHORIZATION' | 'AWAITING_CUSTOMER_EXTERNAL_AUTHORIZATION' | 'CANCELLED' | 'DONE';
  value: number; description: string | null; transactionReceiptUrl: string | null;
  endToEndIdentifier: string | null; effectiveDate: string | null; refundedSplits: null;
}

/** PaymentChargebackResponseDto. */
export interface AsaasChargeback {
  id: string; payment: string; installment: string | null; customerAccount: string;
  status: 'REQUESTED' | 'IN_DISPUTE' | 'DISPUTE_LOST' | 'REVERSED' | 'DONE';
  disputeStatus: 'REQUESTED' | 'ACCEPTED' | 'REJECTED' | null;
  reason: string; disputeStartDate: string | null; value: number; paymentDate: string | null; creditCard: null;
  deadlineToSendDisputeDocuments: string | null;
}

/** PaymentGetResponseDto (split and creditCard left out). Amounts are BRL decimals, dates YYYY-MM-DD. */
export interface AsaasPayment {
  object: 'payment'; id: string; dateCreated: string; customer: string;
  subscription: string | null; installment: string | null; installmentNumber: number | null;
  checkoutSession: string | null; paymentLink: string | null;
  value: number; netValue: number; originalValue: number | null; interestValue: number | null;
  description: string | null; externalReference: string | null; billingType: BillingType; status: PaymentStatus;
  canBePaidAfterDueDate: boolean; pixTransaction: string | null; pixQrCodeId: string | null;
  dueDate: string; originalDueDate: string; paymentDate: string | null; clientPaymentDate: string | null;
  creditDate: string | null; estimatedCreditDate: string | null;
  invoiceUrl: string; invoiceNumber: string; bankSlipUrl: string | null; nossoNumero: string | null; transactionReceiptUrl: string | null;
  deleted: boolean; anticipated: boolean; anticipable: boolean; postalService: boolean;
  discount: { value: number; limitDate: string | null; dueDateLimitDays: number; type: 'FIXED' | 'PERCENTAGE' };
  fine: { value: number; type: 'FIXED' | 'PERCENTAGE' };
  interest: { value: number; type: 'PERCENTAGE' };
  daysAfterDueDateToRegistrationCancellation: number | null;
  chargeback?: AsaasChargeback; escrow: null; refunds: AsaasRefund[] | null;
}

/** CustomerGetResponseDto (address fields left out: nothing here reads them). */
export interface AsaasCustomer {
  object: 'customer'; id: string; dateCreated: string; name: string; email: string | null;
  phone: string | null; mobilePhone: string | null; cpfCnpj: string | null; personType: 'FISICA' | 'JURIDICA';
  deleted: boolean; additionalEmails: string | null; externalReference: string | null;
  notificationDisabled: boolean; observations: string | null; foreignCustomer: boolean;
}

/** SubscriptionGetResponseDto. */
export interface AsaasSubscription {
  object: 'subscription'; id: string; dateCreated: string; customer: string; paymentLink: string | null;
  billingType: BillingType; cycle: Cycle; value: number; nextDueDate: string; endDate: string | null;
  description: string | null; status: 'ACTIVE' | 'EXPIRED' | 'INACTIVE'; deleted: boolean;
  maxPayments: number | null; externalReference: string | null; checkoutSession: string | null;
}

/** The body Asaas POSTs to a webhook (docs.asaas.com/docs/receive-asaas-events-at-your-webhook-endpoint). */
export interface AsaasEvent {
  id: string; // 'evt_<hex>&<n>', as in Asaas's example
  event: string;
  dateCreated: string; // 'YYYY-MM-DD HH:mm:ss'
  payment: AsaasPayment;
}

/** A webhook configuration (WebhookConfigSaveRequestDto) with its delivery queue. */
interface Hook {
  id: string; name: string | null; url: string; email: string | null; enabled: boolean; interrupted: boolean;
  authToken: string | null; sendType: 'SEQUENTIALLY' | 'NON_SEQUENTIALLY';
  events: string[]; // empty: every event (addWebhook)
  queue: AsaasEvent[]; failures: number;
}

/** A refusal; no answer ever; the work done and the answer lost; or a slow provider (the work done, and answered, `slowMs` late). */
export type FailHow = { status: number; body?: unknown } | 'timeout' | 'after' | { slowMs: number };
export type ChargebackStage = 'requested' | 'dispute' | 'awaiting_reversal' | 'won' | 'lost';

export interface AsaasFake {
  /** http://127.0.0.1:PORT/v3, the ASAAS_API_BASE. */
  url: string;
  /** Where invoiceUrl and bankSlipUrl point (http://127.0.0.1:PORT). */
  origin: string;
  apiKey: string;
  addKey(key: string): void;
  /** Every API request, failed ones included. `path` is without the /v3 prefix. */
  requests: { method: string; path: string; query: Record<string, string>; body: unknown; at: number }[];
  calls(method: string, pathPrefix: string): number;
  customers: Map<string, AsaasCustomer>;
  payments: Map<string, AsaasPayment>;
  subscriptions: Map<string, AsaasSubscription>;
  /** The account's available balance: refunds debit it and are refused beyond it (starts at 10,000.00). */
  balance: number;
  failNext(match: { method?: string; path?: string }, how: FailHow, times?: number): void;
  confirm(paymentId: string): Promise<void>;
  receive(paymentId: string): Promise<void>;
  overdue(paymentId: string): Promise<void>;
  riskAnalysis(paymentId: string, outcome: 'awaiting' | 'approved' | 'reproved'): Promise<void>;
  chargeNext(subscriptionOrInstallmentId: string): Promise<string>;
  refundFromDashboard(paymentId: string, value?: number): Promise<void>;
  chargeback(paymentId: string, stage: ChargebackStage): Promise<void>;
  addWebhook(url: string, authToken: string, events?: string[]): void;
  webhooks: { mode: 'deliver' | 'hold' | 'lose' | 'duplicate' };
  webhookQueue: { readonly interrupted: boolean; readonly pending: number; readonly consecutiveFailures: number; retry(): Promise<void>; resume(): Promise<void> };
  deliverHeld(options?: { reverse?: boolean }): Promise<void>;
  /** Waits for the events the API itself caused (PAYMENT_CREATED, PAYMENT_DELETED, refunds) to be delivered. */
  flush(): Promise<void>;
  events: AsaasEvent[];
  deliveries: { eventId: string; event: string; url: string; status: number }[];
  close(): Promise<void>;
}

// ---- pure helpers --------------------------------------------------------------------------------

/** CPF (11 digits) or CNPJ (14 digits) with valid check digits; punctuation (. - /) is accepted, as Asaas does. */
export function validCpfCnpj(digits: string): boolean {
  const d = digits.replace(/[.\-/\s]/g, '');
  if (!/^(\d{11}|\d{14})$/.test(d) || /^(\d)\1+$/.test(d)) return false;
  const n = [...d].map(Number);
  if (n.length === 11) {
    for (const len of [9, 10]) {
      let sum = 0;
      for (let i = 0; i < len; i++) sum += n[i]! * (len + 1 - i);
      if (((sum * 10) % 11) % 10 !== n[len]) return false;
    }
    return true;
  }
  for (const len of [12, 13]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += n[i]! * [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2][i + 13 - len]!;
    const check = sum % 11 < 2 ? 0 : 11 - (sum % 11);
    if (check !== n[len]) return false;
  }
  return true;
}
export const SAMPLE_CPF = '52998224725';
export const SAMPLE_CNPJ = '11222333000181';

/** Asaas's dates are Brazil's: "today" is today in São Paulo (a due date before it is refused). */
function saoPaulo(date = new Date()): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  });
  return Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
}
export function todayInSaoPaulo(): string {
  const p = saoPaulo();
  return `${p.year}-${p.month}-${p.day}`;
}
function stamp(): string {
  const p = saoPaulo();
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
/** Adds months (clamping the day: Jan 31 + 1 month is Feb 28/29), then days. */
export function shiftDate(date: string, days: number, months = 0): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const lastDay = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, lastDay) + days)).toISOString().slice(0, 10);
}
function isDate(s: unknown): s is string {
  return typeof s === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s) && shiftDate(s, 0) === s;
}
const round2 = (x: number) => Math.round(x * 100) / 100;
const CYCLE_MONTHS: Record<Cycle, [number, number]> = {
  WEEKLY: [7, 0], BIWEEKLY: [14, 0], MONTHLY: [0, 1], BIMONTHLY: [0, 2], QUARTERLY: [0, 3], SEMIANNUALLY: [0, 6], YEARLY: [0, 12],
};
const BILLING_TYPES: BillingType[] = ['UNDEFINED', 'BOLETO', 'CREDIT_CARD', 'PIX'];
const alnum = (n: number) => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

/** A 1x1 transparent PNG: the QR image only has to be a valid PNG. */
const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The Pix "copia e cola" is an EMV BR Code: TLV fields closed by a CRC16-CCITT (field 63). */
function pixPayload(paymentId: string, value: number): string {
  const tlv = (id: string, v: string) => `${id}${String(v.length).padStart(2, '0')}${v}`;
  const body =
    tlv('00', '01') + tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', `pix.asaas-fake.local/qr/${paymentId}`)) +
    tlv('52', '0000') + tlv('53', '986') + tlv('54', value.toFixed(2)) + tlv('58', 'BR') +
    tlv('59', 'ASAAS FAKE') + tlv('60', 'SAO PAULO') + tlv('62', tlv('05', '***')) + '6304';
  let crc = 0xffff;
  for (const byte of Buffer.from(body, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return body + crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Asaas's fees are not the point: a plausible fee makes netValue differ from value, as it does. */
function netValue(value: number, billingType: BillingType): number {
  return round2(billingType === 'CREDIT_CARD' ? value - (value * 0.0299 + 0.49) : value - 1.99);
}

/** An answer in Asaas's error shape: {"errors":[{"code","description"}]} (docs.asaas.com/docs/http-response-codes). */
class AsaasError extends Error {
  constructor(readonly status: number, readonly code: string, description: string) {
    super(description);
  }
}
function refuse(code: string, description: string): never {
  throw new AsaasError(400, code, description);
}
function notFound(what: string): never {
  throw new AsaasError(404, 'not_found', `${what} não encontrado.`); // Not documented: Asaas's 404 body
}

// ---- the fake ------------------------------------------------------------------------------------

export async function startAsaasFake(options: { webhookTimeoutMs?: number } = {}): Promise<AsaasFake> {
  // Asaas waits 10 s for a webhook's answer (docs.asaas.com/docs/error-408-read-timed-out).
  const webhookTimeoutMs = options.webhookTimeoutMs ?? 10_000;
  const keys = new Set<string>();
  const customers = new Map<string, AsaasCustomer>();
  const payments = new Map<string, AsaasPayment>();
  const subscriptions = new Map<string, AsaasSubscription>();
  const hooks: Hook[] = [];
  const held: AsaasEvent[] = [];
  const events: AsaasEvent[] = [];
  const deliveries: AsaasFake['deliveries'] = [];
  const requests: AsaasFake['requests'] = [];
  const rules: { method?: string; path?: string; how: FailHow; times: number }[] = [];
  const heldResponses = new Set<ServerResponse>();
  const inFlight = new Set<ClientRequest>();
  const scheduled = new Set<Promise<void>>();
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  let counter = 0;
  let origin = '';

  // -- webhooks ---------------------------------------------------------------------------------

  /** One POST of one event; resolves to the HTTP status, 0 when there was no answer. */
  function post(hook: Hook, event: AsaasEvent): Promise<number> {
    return new Promise((resolve) => {
      const payload = JSON.stringify(event);
      const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), 'User-Agent': 'Asaas-Fake' };
      // The authentication token travels in the asaas-access-token header (docs.asaas.com/docs/webhooks-3).
      if (hook.authToken) headers['asaas-access-token'] = hook.authToken;
      const req = httpRequest(hook.url, { method: 'POST', headers, agent: false, timeout: webhookTimeoutMs }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      });
      inFlight.add(req);
      req.on('close', () => inFlight.delete(req));
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end(payload);
    });
  }

  /**
   * Delivers a webhook's queue in order. Only HTTP 200 counts as delivered (docs.asaas.com/docs/webhooks-faq);
   * a failed event stays at the head and is retried on the next pump (retry(), the next event), so nothing
   * overtakes it (sequential mode, docs.asaas.com/docs/penalização-de-filas). After 15 consecutive failures
   * the queue is interrupted: events still queue up but nothing is sent until it is resumed
   * (docs.asaas.com/docs/how-to-reactivate-an-interrupted-queue).
   */
  async function pump(hook: Hook): Promise<void> {
    while (!closed && hook.enabled && !hook.interrupted && hook.queue.length > 0) {
      const event = hook.queue[0]!;
      const status = await post(hook, event);
      if (closed) return;
      deliveries.push({ eventId: event.id, event: event.event, url: hook.url, status });
      if (status === 200) {
        hook.queue.shift();
        hook.failures = 0;
        continue;
      }
      hook.failures += 1;
      if (hook.failures >= 15) hook.interrupted = true;
      return;
    }
  }
  /** All deliveries run one after the other, so the order of events is the order they reach the receiver. */
  function pumpAll(): Promise<void> {
    chain = chain.then(async () => {
      for (const hook of hooks) await pump(hook);
    });
    return chain;
  }
  function enqueue(event: AsaasEvent): void {
    for (const hook of hooks) if (hook.events.length === 0 || hook.events.includes(event.event)) hook.queue.push(event);
  }

  const webhooks: AsaasFake['webhooks'] = { mode: 'deliver' };
  /** Records an event with a snapshot of the payment, and queues it as the delivery mode says. */
  function record(name: string, payment: AsaasPayment): void {
    const event: AsaasEvent = { id: `evt_${randomBytes(16).toString('hex')}&${++counter}`, event: name, dateCreated: stamp(), payment: structuredClone(payment) };
    events.push(event);
    if (webhooks.mode === 'lose') return; // generated, never sent: the service must reconcile
    if (webhooks.mode === 'hold') return void held.push(event);
    enqueue(event);
    // The same event id twice: Asaas may deliver an event more than once (docs.asaas.com/docs/webhooks-faq).
    if (webhooks.mode === 'duplicate') enqueue(event);
  }
  /** The payer's and back office's side: resolves once the event is delivered (in 'deliver' mode). */
  function emit(name: string, payment: AsaasPayment): Promise<void> {
    record(name, payment);
    return pumpAll();
  }
  function schedule(): void {
    const p = pumpAll().finally(() => scheduled.delete(p));
    scheduled.add(p);
  }

  // -- payments ---------------------------------------------------------------------------------

  function newPayment(f: { customer: string; billingType: BillingType; value: number; dueDate: string; description?: unknown; externalReference?: unknown; subscription?: string; installment?: string; installmentNumber?: number }): AsaasPayment {
    const id = `pay_${alnum(16)}`;
    const boleto = f.billingType === 'BOLETO' || f.billingType === 'UNDEFINED';
    const payment: AsaasPayment = {
      object: 'payment', id, dateCreated: todayInSaoPaulo(), customer: f.customer, subscription: f.subscription ?? null,
      installment: f.installment ?? null, checkoutSession: null, paymentLink: null, value: f.value, netValue: netValue(f.value, f.billingType),
      originalValue: null, interestValue: null, description: typeof f.description === 'string' ? f.description : null,
      billingType: f.billingType, canBePaidAfterDueDate: true, pixTransaction: null, pixQrCodeId: null, status: 'PENDING',
      dueDate: f.dueDate, originalDueDate: f.dueDate, paymentDate: null, clientPaymentDate: null,
      installmentNumber: f.installmentNumber ?? null, invoiceUrl: `${origin}/i/${id}`, invoiceNumber: String(10_000_000 + ++counter),
      externalReference: typeof f.externalReference === 'string' ? f.externalReference : null, deleted: false,
      anticipated: false, anticipable: false, creditDate: null, estimatedCreditDate: null, transactionReceiptUrl: null,
      nossoNumero: boleto ? String(counter).padStart(8, '0') : null, bankSlipUrl: boleto ? `${origin}/b/${id}` : null,
      discount: { value: 0, limitDate: null, dueDateLimitDays: 0, type: 'FIXED' }, fine: { value: 0, type: 'FIXED' },
      interest: { value: 0, type: 'PERCENTAGE' }, postalService: false, daysAfterDueDateToRegistrationCancellation: null,
      escrow: null, refunds: null,
    };
    payments.set(id, payment);
    return payment;
  }
  function payment(id: string): AsaasPayment {
    const p = payments.get(id);
    return p && !p.deleted ? p : notFound('Cobrança');
  }
  function customerFor(id: unknown): AsaasCustomer {
    if (typeof id !== 'string' || id === '') refuse('invalid_customer', 'O campo customer deve ser informado.');
    const c = customers.get(id as string);
    if (!c || c.deleted) return refuse('invalid_customer', 'Cliente inexistente.');
    // The real message for a customer without a document (seen in an integration's logs, github.com/ArnasDon/wacrm/pull/552).
    if (!c.cpfCnpj || !validCpfCnpj(c.cpfCnpj)) refuse('invalid_cpfCnpj', 'Para criar esta cobrança é necessário preencher o CPF ou CNPJ do cliente.');
    return c;
  }
  function billingTypeOf(v: unknown): BillingType {
    return BILLING_TYPES.includes(v as BillingType) ? (v as BillingType) : refuse('invalid_billingType', 'Forma de pagamento inválida.');
  }
  function dueDateOf(v: unknown, field: string): string {
    if (!isDate(v)) refuse(`invalid_${field}`, `O campo ${field} deve ser informado no formato YYYY-MM-DD.`);
    // The example of an HTTP 400 in docs.asaas.com/docs/http-response-codes.
    if ((v as string) < todayInSaoPaulo()) refuse(`invalid_${field}`, 'A data de vencimento não pode ser inferior à hoje.');
    return v as string;
  }
  function amountOf(v: unknown, field: string): number {
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? round2(v) : refuse(`invalid_${field}`, `O campo ${field} deve ser informado.`);
  }

  /** Installments: installmentCount payments sharing one `installment` id, a month apart; the answer is the first. */
  function createPayments(b: Record<string, unknown>): AsaasPayment[] {
    const customer = customerFor(b.customer);
    const billingType = billingTypeOf(b.billingType);
    const dueDate = dueDateOf(b.dueDate, 'dueDate');
    const count = b.installmentCount == null ? 1 : Number(b.installmentCount);
    if (!Number.isInteger(count) || count < 1) refuse('invalid_installmentCount', 'Número de parcelas inválido.');
    const common = { customer: customer.id, billingType, description: b.description, externalReference: b.externalReference };
    if (count === 1) return [newPayment({ ...common, value: amountOf(b.value, 'value'), dueDate })];
    // totalValue is split by Asaas; installmentValue is each one's value (PaymentSaveRequestDto). Without
    // either, value is the total. Not documented: where the rounding cent goes (here: the first installment).
    let values: number[];
    if (b.installmentValue != null) values = Array(count).fill(amountOf(b.installmentValue, 'installmentValue'));
    else {
      const total = amountOf(b.totalValue ?? b.value, b.totalValue != null ? 'totalValue' : 'value');
      const each = Math.floor((total * 100) / count) / 100;
      values = Array.from({ length: count }, (_, i) => (i === 0 ? round2(total - each * (count - 1)) : each));
    }
    const installment = randomUUID();
    return values.map((value, i) => newPayment({ ...common, value, dueDate: shiftDate(dueDate, 0, i), installment, installmentNumber: i + 1 }));
  }

  /** Money arrives: CONFIRMED for a card (paid, not yet available), RECEIVED otherwise (PaymentGetResponsePaymentStatus). */
  const PAYABLE: PaymentStatus[] = ['PENDING', 'OVERDUE', 'AWAITING_RISK_ANALYSIS'];
  function mustBe(p: AsaasPayment, allowed: PaymentStatus[], action: string): void {
    if (!allowed.includes(p.status)) throw new Error(`asaas fake: cannot ${action} ${p.id}, whose status is ${p.status}`);
  }
  function paid(p: AsaasPayment, status: 'CONFIRMED' | 'RECEIVED'): void {
    const today = todayInSaoPaulo();
    if (p.billingType === 'UNDEFINED') p.billingType = 'PIX'; // the payer chose on the invoice
    p.status = status;
    p.clientPaymentDate ??= today;
    p.transactionReceiptUrl ??= `${origin}/comprovantes/${randomBytes(8).toString('hex')}`;
    if (status === 'RECEIVED') {
      p.paymentDate = today;
      p.creditDate = today;
      p.estimatedCreditDate = today;
      fake.balance = round2(fake.balance + p.netValue);
    } else p.estimatedCreditDate = shiftDate(today, 30);
  }
  async function confirm(id: string): Promise<void> {
    const p = payment(id);
    mustBe(p, PAYABLE, 'confirm');
    paid(p, 'CONFIRMED');
    await emit('PAYMENT_CONFIRMED', p);
  }
  async function receive(id: string): Promise<void> {
    const p = payment(id);
    mustBe(p, [...PAYABLE, 'CONFIRMED'], 'receive');
    paid(p, 'RECEIVED');
    await emit('PAYMENT_RECEIVED', p);
  }
  /** Card payments of a plan are confirmed, the others received. */
  const settle = (p: AsaasPayment) => (p.billingType === 'CREDIT_CARD' ? confirm(p.id) : receive(p.id));

  /**
   * A refund, from the API or the dashboard. Only paid (RECEIVED/CONFIRMED) payments; several partial refunds may
   * not add up to more than the value; no value means all that remains (docs.asaas.com/reference/refund-payment).
   * A received payment's refund is debited from the balance, and refused with 400 beyond it, as Asaas documents
   * for a Pix just received (its fees are not refunded).
   */
  function refund(p: AsaasPayment, value: unknown, description: unknown): 'PAYMENT_REFUNDED' | 'PAYMENT_PARTIALLY_REFUNDED' {
    if (!['RECEIVED', 'CONFIRMED'].includes(p.status)) refuse('invalid_action', `Não é possível estornar uma cobrança com situação ${p.status}.`);
    const done = (p.refunds ?? []).filter((r) => r.status !== 'CANCELLED').reduce((sum, r) => sum + r.value, 0);
    const remaining = round2(p.value - done);
    const amount = value == null ? remaining : amountOf(value, 'value');
    if (amount > remaining) refuse('invalid_value', `O valor do estorno excede o valor disponível para estorno (R$ ${remaining.toFixed(2)}).`);
    if (p.status === 'RECEIVED') {
      // Received money is in the balance: it goes back out of it, and cannot when it is not there.
      if (amount > fake.balance) refuse('invalid_action', 'Saldo insuficiente para realizar o estorno.');
      fake.balance = round2(fake.balance - amount);
    }
    const receipt = `${origin}/comprovantes/${randomBytes(8).toString('hex')}`;
    const entry: AsaasRefund = {
      dateCreated: stamp(), status: 'DONE', value: amount, endToEndIdentifier: p.billingType === 'PIX' ? `E${randomBytes(15).toString('hex').slice(0, 31)}` : null,
      description: typeof description === 'string' ? description : null, effectiveDate: stamp(), transactionReceiptUrl: receipt, refundedSplits: null,
    };
    p.refunds = [...(p.refunds ?? []), entry];
    if (amount < remaining) return 'PAYMENT_PARTIALLY_REFUNDED';
    p.status = 'REFUNDED';
    return 'PAYMENT_REFUNDED';
  }

  /** A subscription's next payment exists ahead of its due date; generation stops at maxPayments. */
  function generate(sub: AsaasSubscription): AsaasPayment | undefined {
    const made = [...payments.values()].filter((p) => p.subscription === sub.id).length;
    if (sub.deleted || sub.status !== 'ACTIVE' || (sub.maxPayments != null && made >= sub.maxPayments)) return undefined;
    const p = newPayment({ customer: sub.customer, billingType: sub.billingType, value: sub.value, dueDate: sub.nextDueDate, description: sub.description, externalReference: sub.externalReference, subscription: sub.id });
    const [days, months] = CYCLE_MONTHS[sub.cycle];
    sub.nextDueDate = shiftDate(sub.nextDueDate, days, months);
    return p;
  }

  // -- the HTTP API -----------------------------------------------------------------------------

  type Answer = { status: number; body: unknown };
  function list<T>(items: T[], q: Record<string, string>): Answer {
    const limit = Math.min(100, Math.max(1, Number(q.limit) || 10)); // Asaas's default page is 10, at most 100
    const offset = Math.max(0, Number(q.offset) || 0);
    const data = items.slice(offset, offset + limit);
    return { status: 200, body: { object: 'list', hasMore: offset + data.length < items.length, totalCount: items.length, limit, offset, data } };
  }
  const matches = (item: Record<string, unknown>, q: Record<string, string>, fields: string[]) =>
    fields.every((f) => q[f] === undefined || String(item[f]) === q[f]);
  const hookView = (h: Hook) => ({
    id: h.id, name: h.name, url: h.url, email: h.email, enabled: h.enabled, interrupted: h.interrupted, apiVersion: 3,
    hasAuthToken: Boolean(h.authToken), sendType: h.sendType, events: h.events,
  });

  /** The events a request causes are recorded (and ordered) at once, and delivered after the answer (see handle). */
  function route(method: string, seg: string[], q: Record<string, string>, raw: unknown): Answer {
    const b = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const ok = (body: unknown): Answer => ({ status: 200, body });
    const [resource, id, sub] = seg;
    const key = `${method} ${resource}${id === undefined ? '' : '/:id'}${sub === undefined ? '' : `/${sub}`}`;
    if (method === 'GET' && seg.join('/') === 'finance/balance') return ok({ balance: fake.balance });
    switch (key) {
      case 'POST webhooks': {
        if (typeof b.url !== 'string' || !/^https?:\/\//.test(b.url)) refuse('invalid_url', 'Informe uma URL válida.');
        const hook: Hook = {
          id: randomUUID(), name: typeof b.name === 'string' ? b.name : null, url: b.url as string, email: typeof b.email === 'string' ? b.email : null,
          enabled: b.enabled !== false, interrupted: b.interrupted === true, authToken: typeof b.authToken === 'string' ? b.authToken : null,
          sendType: b.sendType === 'NON_SEQUENTIALLY' ? 'NON_SEQUENTIALLY' : 'SEQUENTIALLY',
          events: Array.isArray(b.events) ? b.events.filter((e): e is string => typeof e === 'string') : [], queue: [], failures: 0,
        };
        hooks.push(hook);
        return ok(hookView(hook));
      }
      case 'GET webhooks':
        return list(hooks.map(hookView), q);
      case 'PUT webhooks/:id': {
        // Reactivating an interrupted queue through the API: PUT with "interrupted": false (docs.asaas.com/docs/how-to-reactivate-interrupted-queue).
        const hook = hooks.find((h) => h.id === id) ?? notFound('Webhook');
        if (typeof b.enabled === 'boolean') hook.enabled = b.enabled;
        if (typeof b.url === 'string') hook.url = b.url;
        if (typeof b.authToken === 'string') hook.authToken = b.authToken;
        if (Array.isArray(b.events)) hook.events = b.events.filter((e): e is string => typeof e === 'string');
        if (b.interrupted === false) Object.assign(hook, { interrupted: false, failures: 0 });
        return ok(hookView(hook));
      }
      case 'DELETE webhooks/:id': {
        const at = hooks.findIndex((h) => h.id === id);
        if (at < 0) notFound('Webhook');
        hooks.splice(at, 1);
        return ok({ deleted: true, id });
      }
      case 'GET customers':
        return list([...customers.values()].filter((c) => !c.deleted && matches({ ...c }, q, ['externalReference', 'cpfCnpj', 'email', 'name'])), q);
      case 'GET customers/:id':
        return ok(customers.get(id!) ?? notFound('Cliente'));
      case 'POST customers': {
        if (typeof b.name !== 'string' || b.name.trim() === '') refuse('invalid_name', 'O campo nome deve ser informado.');
        // Since 2024-08-05 Asaas accepts only valid CPFs/CNPJs, punctuation allowed (docs.asaas.com/changelog/bloquei-de-envio-de-cpfcnpj-invalidos).
        if (typeof b.cpfCnpj !== 'string' || b.cpfCnpj === '') refuse('invalid_cpfCnpj', 'O campo CPF/CNPJ deve ser informado.');
        if (!validCpfCnpj(b.cpfCnpj as string)) refuse('invalid_cpfCnpj', 'O CPF/CNPJ informado é inválido.');
        const digits = (b.cpfCnpj as string).replace(/\D/g, '');
        const str = (v: unknown) => (typeof v === 'string' ? v : null);
        // Asaas does not make externalReference unique: creating twice makes two customers.
        const c: AsaasCustomer = {
          object: 'customer', id: `cus_${String(++counter).padStart(12, '0')}`, dateCreated: todayInSaoPaulo(), name: b.name as string,
          email: str(b.email), phone: str(b.phone), mobilePhone: str(b.mobilePhone), cpfCnpj: digits, personType: digits.length === 11 ? 'FISICA' : 'JURIDICA',
          deleted: false, additionalEmails: str(b.additionalEmails), externalReference: str(b.externalReference),
          notificationDisabled: b.notificationDisabled === true, observations: str(b.observations), foreignCustomer: b.foreignCustomer === true,
        };
        customers.set(c.id, c);
        return ok(c);
      }
      case 'POST payments': {
        const created = createPayments(b);
        for (const p of created) record('PAYMENT_CREATED', p);
        return ok(created[0]);
      }
      case 'GET payments': {
        const all = [...payments.values()].filter((p) => !p.deleted);
        return list(all.filter((p) => matches({ ...p }, q, ['externalReference', 'installment', 'subscription', 'customer', 'status', 'billingType'])), q);
      }
      case 'GET payments/:id': {
        // A removed payment is still returned, with deleted: true (the `deleted` field of PaymentGetResponseDto).
        return ok(payments.get(id!) ?? notFound('Cobrança'));
      }
      case 'DELETE payments/:id': {
        const p = payment(id!);
        // Not documented in the SDK: Asaas refuses to remove a payment that has been paid.
        if (!['PENDING', 'OVERDUE'].includes(p.status)) refuse('invalid_action', `Não é possível remover uma cobrança com situação ${p.status}.`);
        p.deleted = true;
        record('PAYMENT_DELETED', p);
        return ok({ deleted: true, id: p.id });
      }
      case 'GET payments/:id/pixQrCode': {
        const p = payment(id!);
        if (p.billingType === 'CREDIT_CARD') refuse('invalid_billingType', 'Esta cobrança não pode ser paga via Pix.');
        if (!['PENDING', 'OVERDUE'].includes(p.status)) refuse('invalid_action', 'Esta cobrança não está aguardando pagamento.');
        return ok({ encodedImage: TINY_PNG, payload: pixPayload(p.id, p.value), expirationDate: `${p.dueDate} 23:59:59` });
      }
      case 'POST payments/:id/refund': {
        const p = payment(id!);
        const name = refund(p, b.value, b.description);
        record(name, p);
        return ok(p);
      }
      case 'GET payments/:id/refunds':
        return list(payment(id!).refunds ?? [], q);
      case 'POST subscriptions': {
        const customer = customerFor(b.customer);
        const billingType = billingTypeOf(b.billingType);
        const value = amountOf(b.value, 'value');
        const nextDueDate = dueDateOf(b.nextDueDate, 'nextDueDate');
        if (!(typeof b.cycle === 'string' && b.cycle in CYCLE_MONTHS)) refuse('invalid_cycle', 'Periodicidade inválida.');
        const max = b.maxPayments == null ? null : Number(b.maxPayments);
        if (max !== null && !(Number.isInteger(max) && max >= 1)) refuse('invalid_maxPayments', 'Número máximo de cobranças inválido.');
        const s: AsaasSubscription = {
          object: 'subscription', id: `sub_${alnum(16)}`, dateCreated: todayInSaoPaulo(), customer: customer.id, paymentLink: null, billingType,
          cycle: b.cycle as Cycle, value, nextDueDate, endDate: isDate(b.endDate) ? b.endDate : null, description: typeof b.description === 'string' ? b.description : null,
          status: 'ACTIVE', deleted: false, maxPayments: max, externalReference: typeof b.externalReference === 'string' ? b.externalReference : null, checkoutSession: null,
        };
        subscriptions.set(s.id, s);
        // The first payment is generated with the subscription (GET /payments?subscription=). Not documented: that
        // a subscription's payments carry its externalReference.
        const first = generate(s)!;
        record('PAYMENT_CREATED', first);
        return ok(s);
      }
      case 'GET subscriptions': {
        const all = [...subscriptions.values()].filter((s) => q.includeDeleted === 'true' || !s.deleted);
        return list(all.filter((s) => matches({ ...s }, q, ['externalReference', 'customer', 'status', 'billingType'])), q);
      }
      case 'GET subscriptions/:id':
        return ok(subscriptions.get(id!) ?? notFound('Assinatura'));
      case 'GET subscriptions/:id/payments':
        return list([...payments.values()].filter((p) => p.subscription === id && !p.deleted), q);
      case 'DELETE subscriptions/:id': {
        const s = subscriptions.get(id!);
        if (!s || s.deleted) return notFound('Assinatura');
        Object.assign(s, { deleted: true, status: 'INACTIVE' });
        // Removing a subscription removes its pending payments, each with a PAYMENT_DELETED (docs.asaas.com/docs/webhooks-3).
        for (const p of payments.values()) {
          if (p.subscription !== s.id || p.deleted || !['PENDING', 'OVERDUE'].includes(p.status)) continue;
          p.deleted = true;
          record('PAYMENT_DELETED', p);
        }
        return ok({ deleted: true, id: s.id });
      }
      default:
        throw new AsaasError(404, 'not_found', `${method} /v3/${seg.join('/')} não existe neste fake.`);
    }
  }

  const normalize = (path: string) => (path.startsWith('/v3/') || path === '/v3' ? path.slice(3) : path);
  function takeRule(method: string, path: string): FailHow | undefined {
    const at = rules.findIndex((r) => (!r.method || r.method.toUpperCase() === method) && (!r.path || path.startsWith(normalize(r.path))));
    if (at < 0) return undefined;
    const rule = rules[at]!;
    if (--rule.times <= 0) rules.splice(at, 1);
    return rule.how;
  }
  function send(res: ServerResponse, status: number, body: unknown): void {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', origin);
    const method = (req.method ?? 'GET').toUpperCase();
    // The invoice page the payer would open (invoiceUrl): enough for a test to follow the link.
    if (method === 'GET' && /^\/[ib]\//.test(url.pathname)) {
      const p = payments.get(url.pathname.slice(3));
      res.writeHead(p ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(p ? `<!doctype html><title>Fatura ${p.id}</title><p>${p.status} R$ ${p.value.toFixed(2)}</p>` : 'not found');
      return;
    }
    const path = normalize(url.pathname);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    let badJson = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
    }
    requests.push({ method, path, query: Object.fromEntries(url.searchParams), body, at: Date.now() });
    const how = takeRule(method, path);
    if (how === 'timeout') {
      heldResponses.add(res); // answered never: close() drops it
      return;
    }
    if (how && how !== 'after' && 'status' in how) return send(res, how.status, how.body);
    if (how && how !== 'after') await setTimeout(how.slowMs);
    // The API key travels in the access_token header; missing or unknown: 401 (docs.asaas.com/docs/authentication-2).
    // Not documented here: the exact codes of the 401 body (Asaas details them since 2025-07-16).
    const token = req.headers.access_token;
    if (typeof token !== 'string' || !keys.has(token)) {
      const code = typeof token === 'string' ? 'invalid_access_token' : 'access_token_not_found';
      return send(res, 401, { errors: [{ code, description: 'A chave de API fornecida é inválida.' }] });
    }
    const before = events.length;
    let answer: Answer;
    try {
      if (badJson) refuse('invalid_request', 'JSON inválido.');
      answer = route(method, path.split('/').filter(Boolean), Object.fromEntries(url.searchParams), body);
    } catch (error) {
      if (!(error instanceof AsaasError)) throw error;
      answer = { status: error.status, body: { errors: [{ code: error.code, description: error.message }] } };
    }
    // Webhooks leave after the answer (or after the connection drops, for 'after'), as Asaas sends them
    // asynchronously: so the service normally knows the payment before its PAYMENT_CREATED arrives.
    if (events.length > before || method === 'PUT') res.on('close', schedule);
    if (how === 'after') {
      req.socket.destroy(); // the work is done, the answer is lost
      return;
    }
    send(res, answer.status, answer.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { errors: [{ code: 'internal_error', description: String(error) }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiKey = `$aact_hmlg_${randomBytes(24).toString('hex')}`; // a Sandbox key's prefix (docs.asaas.com/docs/authentication)
  keys.add(apiKey);

  function planPayments(id: string): AsaasPayment[] {
    const all = [...payments.values()].filter((p) => !p.deleted && (p.subscription === id || p.installment === id));
    return all.sort((a, b) => (a.installmentNumber ?? 0) - (b.installmentNumber ?? 0) || a.dueDate.localeCompare(b.dueDate));
  }

  const fake: AsaasFake = {
    url: `${origin}/v3`,
    origin,
    apiKey,
    addKey: (key) => void keys.add(key),
    requests,
    calls: (method, prefix) => requests.filter((r) => r.method === method.toUpperCase() && r.path.startsWith(normalize(prefix))).length,
    customers,
    payments,
    subscriptions,
    balance: 10_000,
    failNext(match, how, times = 1) {
      rules.push({ ...match, how, times });
    },
    confirm,
    receive,
    async overdue(id) {
      const p = payment(id);
      mustBe(p, ['PENDING'], 'make overdue');
      p.status = 'OVERDUE';
      await emit('PAYMENT_OVERDUE', p);
    },
    /** Manual risk analysis of a card payment (docs.asaas.com/docs/payment-events). */
    async riskAnalysis(id, outcome) {
      const p = payment(id);
      if (outcome === 'awaiting') {
        mustBe(p, ['PENDING', 'OVERDUE'], 'hold for risk analysis');
        p.status = 'AWAITING_RISK_ANALYSIS';
        return emit('PAYMENT_AWAITING_RISK_ANALYSIS', p);
      }
      mustBe(p, ['AWAITING_RISK_ANALYSIS'], `${outcome === 'approved' ? 'approve' : 'reprove'} after risk analysis`);
      if (outcome === 'approved') {
        await emit('PAYMENT_APPROVED_BY_RISK_ANALYSIS', p);
        return confirm(id);
      }
      // Not documented: the status after a reproval. Here the payment is back to PENDING (the payer may try again).
      p.status = 'PENDING';
      await emit('PAYMENT_REPROVED_BY_RISK_ANALYSIS', p);
    },
    /**
     * The next payment of a subscription or an installment plan is paid (card: CONFIRMED, else RECEIVED).
     * A subscription then generates its following payment (PAYMENT_CREATED) until maxPayments: so exactly
     * maxPayments / installmentCount calls succeed, and the next one throws.
     */
    async chargeNext(planId) {
      const next = planPayments(planId).find((p) => ['PENDING', 'OVERDUE'].includes(p.status));
      if (!next) throw new Error(`asaas fake: ${planId} has no payment left to charge`);
      await settle(next);
      const sub = subscriptions.get(planId);
      if (sub) {
        const following = generate(sub);
        if (following) await emit('PAYMENT_CREATED', following);
        else if (!sub.deleted) sub.status = 'EXPIRED';
      }
      return next.id;
    },
    async refundFromDashboard(id, value) {
      const p = payment(id);
      await emit(refund(p, value, 'Estorno pelo painel'), p);
    },
    /**
     * A card chargeback's stages, with the events of docs.asaas.com/docs/payment-events and the chargeback
     * statuses of docs.asaas.com/docs/chargeback (the balance is left alone). Not documented by Asaas: what a
     * won or lost dispute emits and leaves in the payment's `status` (its enum has no "lost" status). Chosen: won -> RECEIVED with PAYMENT_RECEIVED (chargeback REVERSED); lost -> CHARGEBACK_REQUESTED with
     * PAYMENT_CHARGEBACK_REQUESTED again (chargeback DISPUTE_LOST, or DONE if it was never disputed).
     */
    async chargeback(id, stage) {
      const p = payment(id);
      const cb = p.chargeback;
      if (stage === 'requested') {
        mustBe(p, ['RECEIVED', 'CONFIRMED'], 'charge back');
        p.chargeback = {
          id: `cbk_${alnum(12)}`, payment: p.id, installment: p.installment, customerAccount: p.customer, status: 'REQUESTED', reason: 'ABSENT_CARD_FRAUD',
          disputeStartDate: null, value: p.value, paymentDate: p.paymentDate, creditCard: null, disputeStatus: null, deadlineToSendDisputeDocuments: shiftDate(todayInSaoPaulo(), 10),
        };
        p.status = 'CHARGEBACK_REQUESTED';
        return emit('PAYMENT_CHARGEBACK_REQUESTED', p);
      }
      if (!cb) throw new Error(`asaas fake: ${id} has no chargeback`);
      if (stage === 'dispute') {
        Object.assign(cb, { status: 'IN_DISPUTE', disputeStatus: 'REQUESTED', disputeStartDate: todayInSaoPaulo() });
        p.status = 'CHARGEBACK_DISPUTE';
        return emit('PAYMENT_CHARGEBACK_DISPUTE', p);
      }
      if (stage === 'awaiting_reversal') {
        cb.disputeStatus = 'ACCEPTED';
        p.status = 'AWAITING_CHARGEBACK_REVERSAL';
        return emit('PAYMENT_AWAITING_CHARGEBACK_REVERSAL', p);
      }
      if (stage === 'won') {
        cb.status = 'REVERSED';
        p.status = 'RECEIVED';
        return emit('PAYMENT_RECEIVED', p);
      }
      Object.assign(cb, cb.disputeStatus ? { status: 'DISPUTE_LOST', disputeStatus: 'REJECTED' } : { status: 'DONE' });
      p.status = 'CHARGEBACK_REQUESTED';
      return emit('PAYMENT_CHARGEBACK_REQUESTED', p);
    },
    addWebhook(url, authToken, only = []) {
      hooks.push({ id: randomUUID(), name: null, url, email: null, enabled: true, interrupted: false, authToken, sendType: 'SEQUENTIALLY', events: only, queue: [], failures: 0 });
    },
    webhooks,
    webhookQueue: {
      get interrupted() {
        return hooks.some((h) => h.interrupted);
      },
      get pending() {
        return hooks.reduce((n, h) => n + h.queue.length, 0) + held.length;
      },
      get consecutiveFailures() {
        return Math.max(0, ...hooks.map((h) => h.failures));
      },
      /** Time passes: Asaas tries the failed event at the head of each queue once more. */
      retry: () => pumpAll(),
      /** The queue is reactivated (dashboard, or PUT /webhooks/:id with interrupted: false): what accumulated is sent in order. */
      resume() {
        for (const h of hooks) Object.assign(h, { interrupted: false, failures: 0 });
        return pumpAll();
      },
    },
    /** Releases what 'hold' kept, in order or reversed (to test out-of-order arrival). */
    deliverHeld(opts = {}) {
      const batch = held.splice(0);
      if (opts.reverse) batch.reverse();
      for (const event of batch) enqueue(event);
      return pumpAll();
    },
    async flush() {
      while (scheduled.size > 0) await Promise.all([...scheduled]);
      await pumpAll();
    },
    events,
    deliveries,
    async close() {
      closed = true;
      for (const res of heldResponses) res.destroy();
      for (const req of inFlight) req.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await chain;
    },
  };
  return fake;
}
