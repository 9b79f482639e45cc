/**
 * A local, stateful fake of the Stripe API (v1) for tests, spoken to through the official
 * `stripe` package configured with `host`, `port` and `protocol: 'http'`.
 *
 * It speaks Stripe's wire format: form-encoded bodies with bracket keys, `Authorization:
 * Bearer sk_...`, pretty-printed JSON answers with Stripe's object shapes (from
 * /work/shared/reference/stripe-fixtures3.json and the SDK's types, API version
 * 2026-10-28.endive), Stripe's error shape and statuses, `Idempotency-Key` replays, and
 * webhooks signed with `Stripe-Signature`. Tests play the payer's and Stripe's side (pay,
 * Dashboard refunds, disputes, renewals) through methods of the fake.
 */
import { createHmac, randomInt } from 'node:crypto';
import { type ClientRequest, type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Stripe object as plain JSON. */
// biome-ignore lint/suspicious/noExplicitAny: Stripe objects are untyped JSON here.
export type StripeObject = Record<string, any>;
type Params = StripeObject;
type RequestRef = { id: string | null; idempotency_key: string | null };

export interface RecordedRequest {
  method: string;
  path: string;
  params: Params;
  idempotencyKey?: string;
  at: number;
  /** The status answered: undefined while held ('timeout'), 0 when the answer was lost ('after'). */
  status?: number;
  /** Answered from the idempotency store. */
  replayed?: boolean;
}

export type FailHow = { status: number; type?: string; code?: string; message?: string } | 'timeout' | 'after';
export type WebhookMode = 'deliver' | 'hold' | 'lose' | 'duplicate';

/** The version stripe@23.1.0 pins; events carry the Stripe-Version the client last sent, else this. */
const DEFAULT_API_VERSION = '2026-10-28.endive';
// https://docs.stripe.com/currencies: amounts are integers in minor units; these currencies have
// none, or three (whose last digit must be 0). ISK is two-decimal in the API but whole krónur only.
const ZERO_DECIMAL = new Set('bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf'.split(' '));
const THREE_DECIMAL = new Set('bhd jod kwd omr tnd'.split(' '));
/** Minimum charge amounts (minor units) for a few currencies; Checkout refuses a smaller total. */
const MINIMUM: Record<string, number> = { usd: 50, eur: 50, gbp: 30, cad: 50, aud: 50, brl: 50, chf: 50, mxn: 1000, jpy: 50, inr: 50 };
const MAX_AMOUNT = 99_999_999; // Stripe's eight-digit limit
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));
const INTERVAL_MAX: Record<string, number> = { day: 1095, week: 156, month: 36, year: 3 }; // three years at most

// The parameters Stripe accepts (the SDK's *Params types); any other is "Received unknown parameter".
const SESSION_KEYS =
  'adaptive_pricing after_expiration allow_promotion_codes allowed_payment_method_types automatic_tax billing_address_collection branding_settings ' +
  'cancel_url client_reference_id consent_collection currency custom_fields custom_text customer customer_account customer_creation customer_email ' +
  'customer_update discounts excluded_payment_method_types expand expires_at integration_identifier invoice_creation line_items locale ' +
  'managed_payments metadata mode name_collection optional_items origin_context payment_intent_data payment_method_collection ' +
  'payment_method_configuration payment_method_data payment_method_options permissions phone_number_collection redirect_on_completion return_url ' +
  'saved_payment_method_options setup_intent_data shipping_address_collection shipping_options submit_type subscription_data success_url ' +
  'tax_id_collection ui_mode wallet_options';
const PAYMENT_INTENT_DATA_KEYS =
  'application_fee_amount capture_method description metadata on_behalf_of receipt_email setup_future_usage shipping statement_descriptor ' +
  'statement_descriptor_suffix transfer_data transfer_group';
const SUBSCRIPTION_DATA_KEYS =
  'application_fee_percent billing_cycle_anchor billing_cycle_anchor_config billing_mode default_tax_rates description invoice_settings metadata ' +
  'on_behalf_of pending_invoice_item_interval proration_behavior transfer_data trial_end trial_period_days trial_settings';
const SUBSCRIPTION_UPDATE_KEYS =
  'add_invoice_items application_fee_percent automatic_tax billing_cycle_anchor billing_schedules billing_thresholds cancel_at cancel_at_period_end ' +
  'cancellation_details collection_method days_until_due default_payment_method default_source default_tax_rates description discounts expand ' +
  'invoice_settings items metadata off_session on_behalf_of pause_collection payment_behavior payment_settings pending_invoice_item_interval ' +
  'proration_behavior proration_date transfer_data trial_end trial_from_plan trial_settings';
const REFUND_KEYS = 'amount charge currency customer expand instructions_email metadata origin payment_intent reason refund_application_fee reverse_transfer';
const ROUTES = [
  'GET /balance', 'POST /webhook_endpoints', 'POST /checkout/sessions', 'GET /checkout/sessions', 'GET /checkout/sessions/:id',
  'GET /checkout/sessions/:id/line_items', 'POST /checkout/sessions/:id/expire', 'GET /payment_intents/:id', 'GET /charges/:id',
  'GET /subscriptions/:id', 'POST /subscriptions/:id', 'GET /invoices/:id', 'POST /refunds', 'GET /refunds', 'GET /refunds/:id',
  'GET /disputes/:id', 'GET /customers/:id', 'GET /events/:id',
];

const nowSec = () => Math.floor(Date.now() / 1000);
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const rand = (n: number) => Array.from({ length: n }, () => B62[randomInt(62)]).join('');
const newId = (prefix: string, n = 24) => `${prefix}_${rand(n)}`;
const list = (data: StripeObject[], url: string, hasMore = false) => ({ object: 'list', data, has_more: hasMore, url });
/** `{a: null, b: null}` from 'a b': the many fields of Stripe's shapes that the fake never sets. */
const nulls = (keys: string) => Object.fromEntries(keys.split(' ').map((k) => [k, null]));

/** `Stripe-Signature` as Stripe computes it: HMAC-SHA256 of `${t}.${rawBody}` with the endpoint's secret. */
export function stripeSignatureHeader(secret: string, rawBody: string, timestamp = nowSec()): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** Parses Stripe's form encoding: `a[b][0][c]=x` and `e[]=y` become nested objects and arrays. */
export function parseForm(body: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const m = /^([^[]*)((?:\[[^\]]*\])*)$/.exec(key);
    const segs = m ? [m[1] ?? '', ...[...(m[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map((s) => s[1] ?? '')] : [key];
    if (segs.some((s) => s === '__proto__' || s === 'constructor' || s === 'prototype')) continue;
    let node = root;
    segs.forEach((seg, i) => {
      const k = seg === '' ? String(Object.keys(node).length) : seg; // `x[]` appends
      if (i === segs.length - 1) node[k] = value;
      else node = typeof node[k] === 'object' ? node[k] : (node[k] = {});
    });
  }
  // Objects whose keys are all indexes are arrays, except metadata (whose keys are the caller's).
  const arrays = (v: unknown, key: string): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Params;
    for (const k of Object.keys(o)) o[k] = arrays(o[k], k);
    const keys = Object.keys(o);
    if (key === 'metadata' || keys.length === 0 || !keys.every((k) => /^\d+$/.test(k))) return o;
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => o[k]);
  };
  return arrays(root, '') as Params;
}

/** An answer in Stripe's error shape. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: { type: string; message: string; code?: string; param?: string },
  ) {
    super(error.message);
  }
}
const invalid = (message: string, param?: string, code?: string, status = 400) =>
  new ApiError(status, {
    type: 'invalid_request_error',
    message,
    ...(code && { code, doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` }),
    ...(param && { param }),
  });

function allow(p: unknown, keys: string, at?: string): Params {
  if (p === undefined || p === '') return {};
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw invalid('Invalid object', at);
  const known = new Set(keys.split(' '));
  for (const k of Object.keys(p)) {
    const param = at ? `${at}[${k}]` : k;
    if (!known.has(k)) throw invalid(`Received unknown parameter: ${param}`, param, 'parameter_unknown');
  }
  return p as Params;
}
function int(v: unknown, param: string, min = Number.MIN_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw invalid(`Invalid integer: ${typeof v === 'string' ? v : JSON.stringify(v)}`, param, 'parameter_invalid_integer');
  const n = Number(v);
  if (n < min) throw invalid(`This value must be greater than or equal to ${min}.`, param, 'parameter_invalid_integer');
  if (n > MAX_AMOUNT && /amount\]?$/.test(param)) throw invalid(`This value must be less than or equal to ${MAX_AMOUNT}.`, param, 'parameter_invalid_integer');
  return n;
}
function str(v: unknown, param: string, max = 5000): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`Invalid string: ${JSON.stringify(v)}`, param);
  if (v.length > max) throw invalid(`Invalid string: ${v.slice(0, 20)}...; must be at most ${max} characters`, param, 'string_length_exceeded');
  return v;
}
function url(v: unknown, param: string): string | undefined {
  const s = str(v, param);
  if (s === undefined) return s;
  try {
    if (/^https?:$/.test(new URL(s.replace('{CHECKOUT_SESSION_ID}', 'x')).protocol)) return s;
  } catch {}
  throw invalid('Not a valid URL', param, 'url_invalid');
}
/** Metadata within Stripe's limits (50 keys, keys up to 40 characters, values up to 500), merged on `base`; '' unsets. */
function metadata(v: unknown, param = 'metadata', base: Record<string, string> = {}): Record<string, string> {
  if (v === undefined) return { ...base };
  if (v === '') return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid('Invalid object', param);
  const out = { ...base };
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') throw invalid(`Invalid string: ${JSON.stringify(val)}`, `${param}[${k}]`);
    if (k.length > 40) throw invalid('Invalid metadata: metadata keys must be at most 40 characters long.', `${param}[${k}]`);
    if (val.length > 500) throw invalid('Invalid metadata: metadata values must be at most 500 characters long.', `${param}[${k}]`);
    if (val === '') delete out[k];
    else out[k] = val;
  }
  if (Object.keys(out).length > 50) throw invalid('Invalid metadata: metadata can have up to 50 keys.', param);
  return out;
}

/** Minor units as Stripe's messages show them ("$12.34", "¥500"). */
function money(amount: number, currency: string): string {
  const digits = ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2;
  const format = { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits } as const;
  return new Intl.NumberFormat('en-US', format).format(amount / 10 ** digits);
}

/** The k-th period boundary after `anchor`; months are clamped to the month's end (Jan 31, Feb 28, Mar 31), as Stripe bills. */
function boundary(anchor: number, interval: string, count: number, k: number): number {
  if (interval === 'day' || interval === 'week') return anchor + k * count * (interval === 'day' ? 1 : 7) * 86_400;
  const months = k * count * (interval === 'year' ? 12 : 1);
  const d = new Date(anchor * 1000);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime() / 1000;
}

/** The route pattern (`GET /refunds/:id`) a request matches, and the id in its path. */
function matchRoute(method: string, path: string): { route: string; id: string } {
  const segs = path.split('/').slice(2); // after '/v1'
  for (const route of ROUTES) {
    const [m, pattern = ''] = route.split(' ');
    const parts = pattern.split('/').slice(1);
    let id = '';
    const same = (part: string, i: number) => (part === ':id' ? (id = segs[i] ?? '') !== '' : part === segs[i]);
    if (path.startsWith('/v1/') && m === method && parts.length === segs.length && parts.every(same)) return { route, id: decodeURIComponent(id) };
  }
  return { route: '', id: '' };
}

/** An injected failure in Stripe's error shape, with the type and code Stripe gives that status. */
function injected(status: number, type?: string, code?: string, message?: string) {
  const defaults: Record<number, [string, string | undefined, string]> = {
    400: ['invalid_request_error', undefined, 'Invalid request.'],
    401: ['invalid_request_error', undefined, 'Invalid API Key provided: sk_test_****'],
    402: ['card_error', 'card_declined', 'Your card was declined.'],
    404: ['invalid_request_error', 'resource_missing', 'No such object.'],
    409: ['invalid_request_error', 'lock_timeout', 'This object cannot be accessed right now because another API request or Stripe process is currently accessing it.'],
    429: ['invalid_request_error', 'rate_limit', 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.'],
  };
  const [t, c, m] = defaults[status] ?? ['api_error', undefined, "Sorry, something went wrong. We've already been notified of the problem."];
  return { type: type ?? t, ...((code ?? c) && { code: code ?? c }), message: message ?? m };
}

/** The body's parameters in a canonical order: the same parameters compare equal whatever their order. */
const canonical = (body: string) => [...new URLSearchParams(body)].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).sort().join('&');

/** POSTs one webhook (no keep-alive, so nothing lingers); resolves with the status, 0 for no answer. */
function post(target: string, body: string, signature: string, outgoing: Set<ClientRequest>): Promise<number> {
  return new Promise((resolve) => {
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'Cache-Control': 'no-cache',
      'Content-Length': Buffer.byteLength(body),
      'Stripe-Signature': signature,
    };
    const req = httpRequest(target, { method: 'POST', agent: false, timeout: 10_000, headers });
    outgoing.add(req);
    const done = (status: number) => (outgoing.delete(req), resolve(status));
    req.on('response', (res) => (res.resume(), res.on('end', () => done(res.statusCode ?? 0)), res.on('error', () => done(0))));
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(0));
    req.end(body);
  });
}

export class StripeFake {
  url = '';
  secretKey = `sk_test_${rand(32)}`;
  /** Every API call, in order (the payer's /pay pages are not API calls). */
  requests: RecordedRequest[] = [];
  sessions = new Map<string, StripeObject>();
  paymentIntents = new Map<string, StripeObject>();
  charges = new Map<string, StripeObject>();
  refunds = new Map<string, StripeObject>();
  disputes = new Map<string, StripeObject>();
  customers = new Map<string, StripeObject>();
  subscriptions = new Map<string, StripeObject>();
  invoices = new Map<string, StripeObject>();
  /** The parameters each session and refund was created with (incl. payment_intent_data, subscription_data). */
  params = new Map<string, Params>();
  events: StripeObject[] = [];
  deliveries: { eventId: string; type: string; url: string; status: number }[] = [];
  webhooks: { mode: WebhookMode } = { mode: 'deliver' };
  /** The status refunds start in (API and Dashboard); 'pending' ones wait for settleRefund(). */
  refundStatus: 'succeeded' | 'pending' = 'succeeded';

  private readonly keys = new Set([this.secretKey]);
  private readonly endpoints: { url: string; secret: string; enabled_events: string[] }[] = [];
  private readonly rules: { method?: string; path?: string; how: FailHow; times: number }[] = [];
  private readonly idempotency = new Map<string, { endpoint: string; canonical: string; body: string; requestId: string }>();
  private readonly lineItems = new Map<string, StripeObject[]>(); // by session: `line_items` is includable
  private readonly invoicePayments = new Map<string, StripeObject[]>(); // by invoice: `payments` is includable
  private readonly cycles = new Map<string, number>(); // subscription → index of its current period
  private readonly held: StripeObject[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly outgoing = new Set<ClientRequest>();
  private readonly background = new Set<Promise<void>>();
  private apiVersion = DEFAULT_API_VERSION;
  private closed = false;
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(JSON.stringify({ error: { type: 'api_error', message: String(e) } }));
    });
  });

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  addKey(key: string): void {
    this.keys.add(key);
  }

  /** How many non-replayed API calls had this method and a path starting with `pathPrefix`. */
  calls(method: string, pathPrefix: string): number {
    return this.requests.filter((r) => !r.replayed && r.method === method.toUpperCase() && r.path.startsWith(pathPrefix)).length;
  }

  /**
   * The next `times` requests matching answer `how`: an error status in Stripe's shape (nothing is
   * done or stored under the Idempotency-Key), 'timeout' (never answered until close()), or
   * 'after' (done and stored, then the connection is destroyed: a lost answer).
   */
  failNext(match: { method?: string; path?: string }, how: FailHow, times = 1): void {
    this.rules.push({ method: match.method?.toUpperCase(), path: match.path, how, times });
  }

  /** Sends every event (or only `enabledEvents`) to `url`, signed with `secret`. */
  addEndpoint(url: string, secret: string, enabledEvents = ['*']): void {
    this.endpoints.push({ url, secret, enabled_events: enabledEvents });
  }

  /** Sends the held events, oldest first (or newest first), each awaited. */
  async deliverHeld(options: { reverse?: boolean } = {}): Promise<void> {
    const events = this.held.splice(0);
    if (options.reverse) events.reverse();
    for (const e of events) await this.send(e);
  }

  /** Sends an event again, as Stripe retries one that was not answered with a 2xx. */
  async resend(eventId: string): Promise<void> {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`fake: no event ${eventId}`);
    await this.send(event);
  }

  /** Waits for the webhooks of API calls (sent in the background, after the answer). */
  async flush(): Promise<void> {
    while (this.background.size) await Promise.all([...this.background]);
  }

  /** A subscription's invoices, oldest first: one per charge attempt. */
  invoicesFor(subscriptionId: string): StripeObject[] {
    return [...this.invoices.values()].filter((i) => i.parent?.subscription_details?.subscription === subscriptionId);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const res of this.hanging) res.destroy();
    for (const req of this.outgoing) req.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.flush();
  }

  // ---- the payer's and Stripe's side ----------------------------------------------------

  /** The payer pays on Stripe's page. `async`: a bank debit, settled later by asyncSucceeded/asyncFailed. */
  async pay(sessionId: string, options: { async?: boolean } = {}): Promise<void> {
    const s = this.must(this.sessions, sessionId);
    if (s.status !== 'open') throw new Error(`fake: Checkout Session ${sessionId} is ${s.status}, not open`);
    if (options.async && s.mode !== 'payment') throw new Error('fake: async payments are modelled for mode=payment only');
    const p = this.params.get(sessionId) ?? {};
    const email = s.customer_email ?? this.customers.get(s.customer)?.email ?? 'jenny.rosen@example.com';
    s.customer_details = { ...nulls('address business_name individual_name phone'), email, name: 'Jenny Rosen', tax_exempt: 'none', tax_ids: [] };
    s.status = 'complete';
    if (s.mode === 'payment') {
      const pid = p.payment_intent_data ?? {};
      const pi = this.payment(s.amount_total, s.currency, options.async ? 'processing' : 'succeeded', { metadata: pid.metadata, description: pid.description, email, customer: s.customer });
      Object.assign(s, { payment_intent: pi.id, payment_status: options.async ? 'unpaid' : 'paid' });
      return this.dispatch(this.event('checkout.session.completed', s));
    }
    // mode=subscription: a customer, the subscription, and its first invoice paid (the session has no payment_intent).
    const customer = this.customers.get(s.customer) ?? this.customer(email);
    const start = nowSec();
    const items = this.lineItems.get(sessionId) ?? [];
    const { interval, interval_count } = items[0]?.price.recurring ?? {};
    const end = boundary(start, interval, interval_count, 1);
    const sd = p.subscription_data ?? {};
    const sub: StripeObject = {
      id: newId('sub'), object: 'subscription',
      ...nulls('application application_fee_percent billing_cycle_anchor_config billing_thresholds cancel_at canceled_at customer_account days_until_due'),
      ...nulls('default_source ended_at latest_invoice managed_payments next_pending_invoice_item_invoice on_behalf_of pause_collection'),
      ...nulls('pending_invoice_item_interval pending_setup_intent pending_update schedule test_clock transfer_data trial_end trial_start'),
      automatic_tax: { disabled_reason: null, enabled: false, liability: null }, billing_cycle_anchor: start, billing_mode: { type: 'classic' },
      billing_schedules: [], cancel_at_period_end: false, cancellation_details: nulls('comment feedback reason'),
      collection_method: 'charge_automatically', created: start, currency: s.currency, customer: customer.id, default_payment_method: newId('pm'),
      default_tax_rates: [], description: sd.description ?? null, discounts: [], invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
      livemode: false, metadata: { ...sd.metadata }, start_date: start, status: 'active',
      payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
      trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    };
    // Since API 2025-03-31 the current period is on the items, not the subscription.
    // One-time prices ride on the first invoice only (Stripe adds them as invoice items); the subscription holds the recurring ones.
    const subItems = items.filter((li) => li.price.recurring).map((li) => ({
      id: newId('si', 14), object: 'subscription_item', billing_thresholds: null, created: start, current_period_end: end, current_period_start: start,
      discounts: [], metadata: {}, price: li.price, quantity: li.quantity, subscription: sub.id, tax_rates: [],
    }));
    sub.items = list(subItems, `/v1/subscription_items?subscription=${sub.id}`);
    this.subscriptions.set(sub.id, sub);
    this.cycles.set(sub.id, 0);
    // An invoice's own period is the one *before* it (for the first: creation..creation); its line has the service period.
    const invoice = this.invoice(sub, 'subscription_create', { start, end, invoiceStart: start, invoiceEnd: start, fraction: 1, fail: false, oneTime: items.filter((li) => !li.price.recurring) });
    Object.assign(s, { customer: customer.id, subscription: sub.id, invoice: invoice.id, payment_status: 'paid' });
    const completed = this.event('checkout.session.completed', s);
    const paid = this.event('invoice.paid', invoice);
    await this.dispatch(completed);
    await this.dispatch(paid);
  }

  async asyncSucceeded(sessionId: string): Promise<void> {
    const { s, pi, charge } = this.processing(sessionId);
    Object.assign(pi, { status: 'succeeded', amount_received: pi.amount });
    Object.assign(charge, { status: 'succeeded', paid: true, balance_transaction: newId('txn') });
    s.payment_status = 'paid';
    await this.dispatch(this.event('checkout.session.async_payment_succeeded', s));
  }

  async asyncFailed(sessionId: string): Promise<void> {
    const { s, pi, charge } = this.processing(sessionId);
    const message = 'The customer’s account has insufficient funds to cover this payment.';
    Object.assign(charge, { status: 'failed', paid: false, failure_code: 'insufficient_funds', failure_message: message });
    Object.assign(pi, { status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'insufficient_funds', message, charge: charge.id } });
    await this.dispatch(this.event('checkout.session.async_payment_failed', s));
  }

  /** Stripe expires an open session (as when its expires_at passes). */
  async expireNow(sessionId: string): Promise<void> {
    const s = this.must(this.sessions, sessionId);
    if (s.status !== 'open') throw new Error(`fake: Checkout Session ${sessionId} is ${s.status}`);
    s.status = 'expired';
    await this.dispatch(this.event('checkout.session.expired', s));
  }

  /**
   * A renewal: the next period's invoice, paid (invoice.paid) or declined (invoice.payment_failed,
   * subscription past_due). When the next period would start at or after `cancel_at`, the
   * subscription ends instead (customer.subscription.deleted, no invoice); a `cancel_at` inside
   * the next period shortens it and prorates its invoice, as Stripe does.
   */
  async chargeNextInvoice(subscriptionId: string, options: { fail?: boolean } = {}): Promise<void> {
    const sub = this.must(this.subscriptions, subscriptionId);
    if (sub.status === 'canceled') throw new Error(`fake: subscription ${subscriptionId} is canceled`);
    const item = sub.items.data[0];
    const start = item.current_period_end;
    if (sub.cancel_at !== null && start >= sub.cancel_at) {
      Object.assign(sub, { status: 'canceled', ended_at: sub.cancel_at, canceled_at: sub.canceled_at ?? nowSec() });
      sub.cancellation_details.reason = 'cancellation_requested';
      return this.dispatch(this.event('customer.subscription.deleted', sub));
    }
    const k = (this.cycles.get(sub.id) ?? 0) + 1;
    const fullEnd = boundary(sub.billing_cycle_anchor, item.price.recurring.interval, item.price.recurring.interval_count, k + 1);
    const end = sub.cancel_at !== null && sub.cancel_at < fullEnd ? sub.cancel_at : fullEnd;
    const [invoiceStart, invoiceEnd] = [item.current_period_start, item.current_period_end];
    for (const si of sub.items.data) Object.assign(si, { current_period_start: start, current_period_end: end });
    this.cycles.set(sub.id, k);
    const fraction = (end - start) / (fullEnd - start);
    const invoice = this.invoice(sub, 'subscription_cycle', { start, end, invoiceStart, invoiceEnd, fraction, fail: !!options.fail });
    sub.status = options.fail ? 'past_due' : 'active';
    await this.dispatch(this.event(options.fail ? 'invoice.payment_failed' : 'invoice.paid', invoice));
  }

  /** A refund made in the Dashboard (by default all that is left): refund.created, charge.refunded. */
  async refundFromDashboard(paymentIntentId: string, amount?: number): Promise<void> {
    const { events } = this.refund({ payment_intent: paymentIntentId, ...(amount !== undefined && { amount: String(amount) }) }, { id: null, idempotency_key: null });
    for (const e of events) await this.dispatch(e);
  }

  /** A pending refund succeeds (refund.updated), or a refund fails (refund.updated, then refund.failed) and the charge gets its amount back. */
  async settleRefund(refundId: string, status: 'succeeded' | 'failed'): Promise<void> {
    const r = this.must(this.refunds, refundId);
    const previous = { status: r.status };
    if (status === 'succeeded') {
      if (r.status !== 'pending') throw new Error(`fake: refund ${refundId} is ${r.status}`);
      Object.assign(r, { status, balance_transaction: newId('txn') });
      return this.dispatch(this.event('refund.updated', r, undefined, previous));
    }
    if (r.status === 'failed') throw new Error(`fake: refund ${refundId} already failed`);
    Object.assign(r, { status, failure_reason: 'expired_or_canceled_card', failure_balance_transaction: newId('txn') });
    const charge = this.must(this.charges, r.charge);
    charge.amount_refunded -= r.amount;
    charge.refunded = false;
    const updated = this.event('refund.updated', r, undefined, previous);
    const failed = this.event('refund.failed', r);
    await this.dispatch(updated);
    await this.dispatch(failed);
  }

  async openDispute(paymentIntentId: string, amount?: number, reason = 'fraudulent'): Promise<void> {
    const pi = this.must(this.paymentIntents, paymentIntentId);
    const charge = this.must(this.charges, pi.latest_charge ?? '');
    if (charge.status !== 'succeeded' || charge.disputed) throw new Error(`fake: charge ${charge.id} cannot be disputed`);
    const evidence = nulls(
      'access_activity_log billing_address cancellation_policy cancellation_policy_disclosure cancellation_rebuttal customer_communication ' +
        'customer_email_address customer_name customer_purchase_ip customer_signature duplicate_charge_documentation duplicate_charge_explanation ' +
        'duplicate_charge_id product_description receipt refund_policy refund_policy_disclosure refund_refusal_explanation service_date ' +
        'service_documentation shipping_address shipping_carrier shipping_date shipping_documentation shipping_tracking_number uncategorized_file uncategorized_text',
    );
    const d: StripeObject = {
      id: newId('dp'), object: 'dispute', amount: amount ?? charge.amount, balance_transactions: [], charge: charge.id, created: nowSec(),
      currency: charge.currency, enhanced_eligibility_types: [], evidence: { ...evidence, enhanced_evidence: {} },
      evidence_details: { due_by: nowSec() + 7 * 86_400, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0 },
      intended_submission_method: null, is_charge_refundable: false, livemode: false, metadata: {}, payment_intent: pi.id,
      payment_method_details: { card: { brand: 'visa', case_type: 'chargeback', network_reason_code: '10.4' }, type: 'card' }, reason, status: 'needs_response',
    };
    this.disputes.set(d.id, d);
    charge.disputed = true;
    await this.dispatch(this.event('charge.dispute.created', d));
  }

  async closeDispute(disputeId: string, outcome: 'won' | 'lost'): Promise<void> {
    const d = this.must(this.disputes, disputeId);
    d.status = outcome;
    await this.dispatch(this.event('charge.dispute.closed', d));
  }

  // ---- objects ------------------------------------------------------------------------------

  private customer(email: string): StripeObject {
    const c: StripeObject = {
      id: newId('cus', 14), object: 'customer', ...nulls('address currency default_source description discount phone shipping test_clock'),
      balance: 0, created: nowSec(), delinquent: false, email, invoice_prefix: rand(8).toUpperCase(), livemode: false, metadata: {}, name: 'Jenny Rosen',
      invoice_settings: nulls('custom_fields default_payment_method footer rendering_options'), preferred_locales: [], tax_exempt: 'none',
    };
    this.customers.set(c.id, c);
    return c;
  }

  /** A PaymentIntent and its charge, in one state; returns the PaymentIntent. */
  private payment(
    amount: number,
    currency: string,
    state: 'succeeded' | 'processing' | 'failed',
    o: { metadata?: StripeObject; description?: string | null; email?: string; customer?: string | null },
  ): StripeObject {
    const [created, failed] = [nowSec(), state === 'failed'];
    const pi: StripeObject = {
      id: newId('pi'), object: 'payment_intent', amount, amount_capturable: 0, amount_details: { tip: {} }, amount_received: state === 'succeeded' ? amount : 0,
      ...nulls('allowed_payment_method_types application application_fee_amount automatic_payment_methods canceled_at cancellation_reason customer_account'),
      ...nulls('excluded_payment_method_types last_payment_error managed_payments next_action on_behalf_of payment_method_configuration_details'),
      ...nulls('payment_record processing receipt_email review setup_future_usage shipping source statement_descriptor statement_descriptor_suffix'),
      ...nulls('transfer_data transfer_group'),
      capture_method: 'automatic', confirmation_method: 'automatic', created, currency, customer: o.customer ?? null, description: o.description ?? null,
      livemode: false, metadata: { ...o.metadata }, payment_method: newId('pm'), payment_method_options: { card: { request_three_d_secure: 'automatic' } },
      payment_method_types: ['card'], status: failed ? 'requires_payment_method' : state,
    };
    pi.client_secret = `${pi.id}_secret_${rand(25)}`;
    const declined = { network_status: 'declined_by_network', reason: 'generic_decline', risk_level: 'normal', type: 'issuer_declined', seller_message: 'The bank did not return any further details with this decline.' };
    const charge: StripeObject = {
      id: newId('ch'), object: 'charge', amount, amount_captured: failed ? 0 : amount, amount_refunded: 0,
      ...nulls('application application_fee application_fee_amount failure_balance_transaction on_behalf_of receipt_email receipt_number receipt_url'),
      ...nulls('review shipping source source_transfer statement_descriptor statement_descriptor_suffix transfer_data transfer_group'),
      balance_transaction: state === 'succeeded' ? newId('txn') : null, billing_details: { address: null, email: o.email ?? null, name: 'Jenny Rosen', phone: null, tax_id: null },
      calculated_statement_descriptor: 'FAKE STRIPE', captured: !failed, created, currency, customer: o.customer ?? null, description: o.description ?? null,
      disputed: false, failure_code: failed ? 'card_declined' : null, failure_message: failed ? 'Your card was declined.' : null, fraud_details: {},
      livemode: false, metadata: { ...o.metadata }, paid: state === 'succeeded', payment_intent: pi.id, payment_method: pi.payment_method, refunded: false,
      outcome: failed ? declined : { network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
      payment_method_details: { card: { brand: 'visa', country: 'US', exp_month: 8, exp_year: 2030, funding: 'credit', last4: failed ? '0002' : '4242' }, type: 'card' },
      status: failed ? 'failed' : state === 'processing' ? 'pending' : 'succeeded',
    };
    pi.latest_charge = charge.id;
    if (failed) pi.last_payment_error = { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', charge: charge.id };
    this.paymentIntents.set(pi.id, pi);
    this.charges.set(charge.id, charge);
    return pi;
  }

  /** A subscription's invoice for the service period start..end, charged once (paid, or left open by a decline). */
  private invoice(sub: StripeObject, reason: string, o: { start: number; end: number; invoiceStart: number; invoiceEnd: number; fraction: number; fail: boolean; oneTime?: StripeObject[] }): StripeObject {
    const [id, now, customer] = [newId('in'), nowSec(), this.customers.get(sub.customer)];
    const oneTimeLines = (o.oneTime ?? []).map((li) => ({
      id: newId('il'), object: 'line_item', amount: li.price.unit_amount * li.quantity, currency: sub.currency, description: li.description ?? null, discount_amounts: [], discountable: true,
      discounts: [], invoice: id, livemode: false, metadata: {}, parent: { invoice_item_details: { invoice_item: newId('ii'), proration: false, subscription: sub.id }, subscription_item_details: null, type: 'invoice_item_details' },
      period: { end: o.start, start: o.start }, pretax_credit_amounts: [], quantity: li.quantity, quantity_decimal: String(li.quantity), subtotal: li.price.unit_amount * li.quantity, taxes: [],
      pricing: { price_details: { price: li.price.id, product: li.price.product }, type: 'price_details', unit_amount_decimal: String(li.price.unit_amount) },
    }));
    const lines = sub.items.data.map((si: StripeObject) => {
      const amount = Math.round(si.price.unit_amount * si.quantity * o.fraction);
      const description = `${si.quantity} × ${si.price.product} (at ${money(si.price.unit_amount, sub.currency)} / ${si.price.recurring.interval})`;
      const details = { invoice_item: null, proration: o.fraction !== 1, proration_details: { credited_items: null }, subscription: sub.id, subscription_item: si.id };
      return {
        id: newId('il'), object: 'line_item', amount, currency: sub.currency, description, discount_amounts: [], discountable: true, discounts: [], invoice: id,
        livemode: false, metadata: {}, parent: { invoice_item_details: null, subscription_item_details: details, type: 'subscription_item_details' },
        period: { end: o.end, start: o.start }, pretax_credit_amounts: [], quantity: si.quantity, quantity_decimal: String(si.quantity), subtotal: amount, taxes: [],
        pricing: { price_details: { price: si.price.id, product: si.price.product }, type: 'price_details', unit_amount_decimal: String(si.price.unit_amount) },
      };
    });
    lines.push(...oneTimeLines);
    const total: number = lines.reduce((n: number, l: StripeObject) => n + l.amount, 0);
    const description = reason === 'subscription_create' ? 'Subscription creation' : 'Subscription update';
    const pi = this.payment(total, sub.currency, o.fail ? 'failed' : 'succeeded', { description, email: customer?.email, customer: sub.customer });
    const inv: StripeObject = {
      id, object: 'invoice', account_country: 'US', account_name: 'Fake Stripe', amount_due: total, amount_overpaid: 0, amount_paid: o.fail ? 0 : total,
      amount_remaining: o.fail ? total : 0, amount_shipping: 0, attempt_count: 1, attempted: true, auto_advance: o.fail,
      ...nulls('account_tax_ids application automatically_finalizes_at custom_fields customer_account customer_address customer_phone customer_shipping'),
      ...nulls('default_payment_method default_source description due_date footer from_invoice invoice_pdf last_finalization_error latest_revision'),
      ...nulls('on_behalf_of receipt_number rendering shipping_cost shipping_details statement_descriptor test_clock'),
      automatic_tax: { ...nulls('disabled_reason liability provider status'), enabled: false }, billing_reason: reason, collection_method: 'charge_automatically', created: now,
      currency: sub.currency, customer: sub.customer, customer_email: customer?.email ?? null, customer_name: customer?.name ?? null, customer_tax_exempt: 'none',
      customer_tax_ids: [], default_tax_rates: [], discounts: [], effective_at: now, ending_balance: 0, hosted_invoice_url: `${this.url}/invoice/${id}`,
      issuer: { type: 'self' }, lines: list(lines, `/v1/invoices/${id}/lines`), livemode: false, metadata: {}, next_payment_attempt: o.fail ? now + 3 * 86_400 : null,
      number: `FAKE-${String(this.invoices.size + 1).padStart(4, '0')}`, period_end: o.invoiceEnd, period_start: o.invoiceStart,
      parent: { quote_details: null, subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id }, type: 'subscription_details' },
      payment_settings: nulls('default_mandate payment_method_options payment_method_types'), post_payment_credit_notes_amount: 0, pre_payment_credit_notes_amount: 0,
      starting_balance: 0, status: o.fail ? 'open' : 'paid', status_transitions: { finalized_at: now, marked_uncollectible_at: null, paid_at: o.fail ? null : now, voided_at: null },
      subtotal: total, subtotal_excluding_tax: total, total, total_discount_amounts: [], total_excluding_tax: total, total_pretax_credit_amounts: [], total_taxes: [],
      webhooks_delivered_at: now,
    };
    this.invoices.set(id, inv);
    // Since API 2025-03-31 an invoice names its PaymentIntent only in `payments` (includable: expand[]=payments).
    const payment = {
      id: newId('inpay'), object: 'invoice_payment', amount_paid: o.fail ? null : total, amount_requested: total, created: now, currency: sub.currency, invoice: id,
      is_default: true, livemode: false, payment: { payment_intent: pi.id, type: 'payment_intent' }, status: o.fail ? 'open' : 'paid',
      status_transitions: { canceled_at: null, paid_at: o.fail ? null : now },
    };
    this.invoicePayments.set(id, [payment]);
    sub.latest_invoice = id;
    return inv;
  }

  private processing(sessionId: string) {
    const s = this.must(this.sessions, sessionId);
    const pi = this.paymentIntents.get(s.payment_intent ?? '');
    if (pi?.status !== 'processing') throw new Error(`fake: session ${sessionId} has no processing payment (pay it with { async: true })`);
    return { s, pi, charge: this.must(this.charges, pi.latest_charge) };
  }

  private must(map: Map<string, StripeObject>, id: string): StripeObject {
    const o = map.get(id);
    if (!o) throw new Error(`fake: no object ${id}`);
    return o;
  }

  // ---- events and webhooks -----------------------------------------------------------------

  /** Records an event with a snapshot of the object: an event carries the state at its time, not the current one. */
  private event(type: string, object: StripeObject, request: RequestRef = { id: null, idempotency_key: null }, previous?: StripeObject): StripeObject {
    const data = { object: structuredClone(object), ...(previous && { previous_attributes: previous }) };
    const event = { id: newId('evt'), object: 'event', api_version: this.apiVersion, created: nowSec(), data, livemode: false, pending_webhooks: this.endpointsFor(type).length, request, type };
    this.events.push(event);
    return event;
  }

  private endpointsFor(type: string) {
    return this.endpoints.filter((e) => e.enabled_events.includes('*') || e.enabled_events.includes(type));
  }

  private async dispatch(event: StripeObject): Promise<void> {
    const mode = this.webhooks.mode;
    if (mode === 'hold') this.held.push(event);
    else if (mode === 'duplicate') await Promise.all([this.send(event), this.send(event)]);
    else if (mode === 'deliver') await this.send(event);
  }

  /** One delivery to every endpoint that wants the type. The body is pretty-printed, as Stripe's is: verify the raw bytes. */
  private async send(event: StripeObject): Promise<void> {
    const body = JSON.stringify(event, null, 2);
    const deliver = async (ep: { url: string; secret: string }) => {
      if (this.closed) return;
      const status = await post(ep.url, body, stripeSignatureHeader(ep.secret, body), this.outgoing);
      this.deliveries.push({ eventId: event.id, type: event.type, url: ep.url, status });
    };
    await Promise.all(this.endpointsFor(event.type).map(deliver));
  }

  // ---- HTTP --------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const { pathname: path, search } = new URL(req.url ?? '/', this.url);
    if (path.startsWith('/pay/')) return this.page(method, decodeURIComponent(path.slice(5)), res);
    const params = parseForm(method === 'POST' ? body : search.slice(1));
    const idempotencyKey = method === 'POST' ? req.headers['idempotency-key']?.toString() : undefined; // Stripe ignores it on GET
    const entry: RecordedRequest = { method, path, params, ...(idempotencyKey && { idempotencyKey }), at: Date.now() };
    this.requests.push(entry);
    this.apiVersion = req.headers['stripe-version']?.toString() || this.apiVersion;
    const request = { id: newId('req', 14), idempotency_key: idempotencyKey ?? null };
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Request-Id': request.id, 'Stripe-Version': this.apiVersion };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;

    const rule = this.rules.find((r) => r.times > 0 && (!r.method || r.method === method) && (!r.path || path.startsWith(r.path)));
    if (rule) rule.times--;
    if (rule?.how === 'timeout') return void this.hanging.add(res); // close() cuts it
    const events: StripeObject[] = []; // the events this call causes, sent after its answer
    let [status, out] = [200, ''];
    try {
      if (rule && typeof rule.how === 'object') {
        const { status: s, type, code, message } = rule.how;
        throw new ApiError(s, injected(s, type, code, message));
      }
      this.authenticate(req.headers.authorization);
      if (method === 'POST' && /json/.test(req.headers['content-type'] ?? ''))
        throw invalid('Invalid request (check that your POST content type is application/x-www-form-urlencoded). If you have any questions, we can help at https://support.stripe.com/.');
      const replay = idempotencyKey ? this.replay(idempotencyKey, `${method} ${path}`, body) : undefined;
      if (replay) {
        entry.replayed = true;
        Object.assign(headers, { 'Idempotent-Replayed': 'true', 'Original-Request': replay.requestId });
        out = replay.body;
      } else {
        const result = this.route(method, path, params, request, events);
        out = JSON.stringify(Array.isArray(params.expand) ? this.expand(result, params.expand) : result, null, 2);
        // Only successes are stored: Stripe keeps no result for a request refused before it ran, so a corrected retry runs.
        if (idempotencyKey) this.idempotency.set(idempotencyKey, { endpoint: `${method} ${path}`, canonical: canonical(body), body: out, requestId: request.id });
      }
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      [status, out] = [e.status, JSON.stringify({ error: e.error }, null, 2)];
    }
    entry.status = rule?.how === 'after' ? 0 : status;
    if (rule?.how === 'after') res.socket?.destroy(); // done and stored, but the answer is lost on the way
    else res.writeHead(status, headers).end(out);
    // An API call's webhooks go out after its answer, in the background: the caller may be inside a
    // transaction that its own webhook handler would wait for. flush() awaits them.
    if (events.length) {
      const p: Promise<void> = (async () => {
        for (const e of events) await this.dispatch(e);
      })().finally(() => this.background.delete(p));
      this.background.add(p);
    }
  }

  private authenticate(header: string | undefined): void {
    const m = /^(Bearer|Basic) (.+)$/i.exec(header ?? '');
    if (!m?.[2]) throw invalid("You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').", undefined, undefined, 401);
    const key = m[1]?.toLowerCase() === 'basic' ? Buffer.from(m[2], 'base64').toString().replace(/:.*$/, '') : m[2];
    if (!this.keys.has(key)) throw invalid(`Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`, undefined, undefined, 401);
  }

  /** The stored answer for a key; another endpoint or other parameters under the same key are an idempotency_error. */
  private replay(key: string, endpoint: string, body: string) {
    const stored = this.idempotency.get(key);
    if (!stored) return undefined;
    const other = `Try using a key other than '${key}' if you meant to execute a different request.`;
    if (stored.endpoint !== endpoint)
      throw new ApiError(400, { type: 'idempotency_error', message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${stored.endpoint}' vs '${endpoint}'). ${other}` });
    if (stored.canonical !== canonical(body))
      throw new ApiError(400, { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. ${other}` });
    return stored;
  }

  private route(method: string, path: string, p: Params, request: RequestRef, events: StripeObject[]): StripeObject {
    const { route, id } = matchRoute(method, path);
    switch (route) {
      case 'GET /balance':
        return this.balance();
      case 'POST /webhook_endpoints': {
        allow(p, 'api_version connect description enabled_events expand metadata url');
        const target = url(p.url, 'url');
        if (!target) throw invalid('Missing required param: url.', 'url', 'parameter_missing');
        if (!Array.isArray(p.enabled_events) || !p.enabled_events.length) throw invalid('Missing required param: enabled_events.', 'enabled_events', 'parameter_missing');
        const ep = { url: target, secret: `whsec_${rand(32)}`, enabled_events: p.enabled_events as string[] };
        this.endpoints.push(ep);
        const meta = metadata(p.metadata);
        return { id: newId('we'), object: 'webhook_endpoint', api_version: p.api_version ?? null, application: null, created: nowSec(), description: p.description ?? null, livemode: false, metadata: meta, status: 'enabled', ...ep };
      }
      case 'POST /checkout/sessions':
        return this.createSession(p);
      case 'GET /checkout/sessions': {
        const found = [...this.sessions.values()].filter((s) => ['payment_intent', 'subscription', 'customer', 'status'].every((k) => p[k] === undefined || s[k] === p[k]));
        return this.listPage(found, p, '/v1/checkout/sessions');
      }
      case 'GET /checkout/sessions/:id/line_items':
        return this.listPage(this.lineItems.get(this.get(this.sessions, id, 'checkout.session').id) ?? [], p, path, false);
      case 'POST /checkout/sessions/:id/expire': {
        const s = this.get(this.sessions, id, 'checkout.session');
        if (s.status !== 'open') throw invalid('Only Checkout Sessions with a status in ["open"] can be expired.');
        s.status = 'expired';
        events.push(this.event('checkout.session.expired', s, request));
        return s;
      }
      case 'POST /subscriptions/:id':
        return this.updateSubscription(this.get(this.subscriptions, id, 'subscription'), p, request, events);
      case 'POST /refunds': {
        const made = this.refund(p, request);
        events.push(...made.events);
        return made.refund;
      }
      case 'GET /refunds': {
        allow(p, 'charge created ending_before expand limit payment_intent starting_after');
        const found = [...this.refunds.values()].filter((r) => (p.payment_intent === undefined || r.payment_intent === p.payment_intent) && (p.charge === undefined || r.charge === p.charge));
        return this.listPage(found, p, '/v1/refunds');
      }
    }
    const stores: Record<string, [Map<string, StripeObject>, string]> = {
      'GET /checkout/sessions/:id': [this.sessions, 'checkout.session'],
      'GET /payment_intents/:id': [this.paymentIntents, 'payment_intent'],
      'GET /charges/:id': [this.charges, 'charge'],
      'GET /subscriptions/:id': [this.subscriptions, 'subscription'],
      'GET /invoices/:id': [this.invoices, 'invoice'],
      'GET /refunds/:id': [this.refunds, 'refund'],
      'GET /disputes/:id': [this.disputes, 'dispute'],
      'GET /customers/:id': [this.customers, 'customer'],
      'GET /events/:id': [new Map(this.events.map((e) => [e.id, e])), 'event'],
    };
    const store = stores[route];
    if (store) return this.get(store[0], id, store[1]);
    throw invalid(`Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`, undefined, undefined, 404);
  }

  private get(map: Map<string, StripeObject>, id: string, kind: string): StripeObject {
    const o = map.get(id);
    if (!o) throw invalid(`No such ${kind}: '${id}'`, 'id', 'resource_missing', 404);
    return o;
  }

  /** A list page, newest first, with `limit` and `starting_after` as Stripe pages. */
  private listPage(items: StripeObject[], p: Params, path: string, newestFirst = true): StripeObject {
    const all = newestFirst ? [...items].reverse() : items;
    const limit = int(p.limit, 'limit', 1) ?? 10;
    const from = p.starting_after ? all.findIndex((o) => o.id === p.starting_after) + 1 : 0;
    return list(all.slice(from, from + limit), path, all.length > from + limit);
  }

  /** `expand[]=a.b` replaces ids by their objects (`data.x` inside lists); `line_items` and `payments` are includable. */
  private expand(object: StripeObject, paths: string[]): StripeObject {
    const out = structuredClone(object);
    const stores = [this.paymentIntents, this.charges, this.subscriptions, this.invoices, this.customers, this.refunds, this.disputes, this.sessions];
    const walk = (node: StripeObject | null, [head = '', ...rest]: string[], full: string): void => {
      if (node === null || typeof node !== 'object') return;
      if (head === 'data' && node.object === 'list') return node.data.forEach((o: StripeObject) => walk(o, rest, full));
      if (node.object === 'checkout.session' && head === 'line_items') node.line_items = list(structuredClone(this.lineItems.get(node.id) ?? []), `/v1/checkout/sessions/${node.id}/line_items`);
      else if (node.object === 'invoice' && head === 'payments') node.payments = list(structuredClone(this.invoicePayments.get(node.id) ?? []), `/v1/invoice_payments?invoice=${node.id}`);
      else if (typeof node[head] === 'string' && stores.some((m) => m.has(node[head]))) node[head] = structuredClone(stores.find((m) => m.has(node[head]))?.get(node[head]));
      else if (!(head in node) || typeof node[head] === 'string') throw invalid(`This property cannot be expanded (${full}).`, 'expand');
      if (rest.length) walk(node[head], rest, full);
    };
    for (const path of paths) walk(out, String(path).split('.'), String(path));
    return out;
  }

  private balance(): StripeObject {
    const net = new Map<string, number>();
    const add = (currency: string, amount: number) => net.set(currency, (net.get(currency) ?? 0) + amount);
    for (const c of this.charges.values()) if (c.status === 'succeeded') add(c.currency, c.amount - c.amount_refunded);
    for (const d of this.disputes.values()) if (d.status !== 'won') add(d.currency, -d.amount);
    if (!net.size) net.set('usd', 0);
    const by = (amount: (c: string) => number, card = true) => [...net.keys()].map((currency) => ({ amount: amount(currency), currency, ...(card && { source_types: { card: amount(currency) } }) }));
    return { object: 'balance', available: by((c) => net.get(c) ?? 0), connect_reserved: by(() => 0, false), livemode: false, pending: by(() => 0) };
  }

  private createSession(p: Params): StripeObject {
    allow(p, SESSION_KEYS);
    const mode = str(p.mode, 'mode');
    if (!mode) throw invalid('Missing required param: mode.', 'mode', 'parameter_missing');
    if (mode !== 'payment' && mode !== 'subscription') throw invalid(mode === 'setup' ? 'fake: mode=setup is not modelled' : 'Invalid mode: must be one of payment, setup, or subscription', 'mode');
    const now = nowSec();
    const expiresAt = int(p.expires_at, 'expires_at') ?? now + 86_400;
    // 30 min..24 h after creation, with 5 s of grace for the trip here (so a test does not flake on a second boundary).
    if (expiresAt < now + 1800 - 5) throw invalid('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.', 'expires_at');
    if (expiresAt > now + 86_400 + 5) throw invalid('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', 'expires_at');
    if (p.payment_intent_data !== undefined && mode !== 'payment') throw invalid(`You can not pass \`payment_intent_data\` in \`${mode}\` mode.`, 'payment_intent_data');
    if (p.subscription_data !== undefined && mode !== 'subscription') throw invalid(`You can not pass \`subscription_data\` in \`${mode}\` mode.`, 'subscription_data');
    for (const [key, keys] of [['payment_intent_data', PAYMENT_INTENT_DATA_KEYS], ['subscription_data', SUBSCRIPTION_DATA_KEYS]] as const) {
      const sub = allow(p[key], keys, key);
      if (sub.metadata !== undefined) metadata(sub.metadata, `${key}[metadata]`);
    }
    const email = str(p.customer_email, 'customer_email', 800);
    if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw invalid(`Invalid email address: ${email}`, 'customer_email', 'email_invalid');
    if (p.customer !== undefined) this.get(this.customers, String(p.customer), 'customer');
    if (!Array.isArray(p.line_items) || !p.line_items.length) throw invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
    const items: StripeObject[] = p.line_items.map((li: unknown, i: number) => this.lineItem(li, `line_items[${i}]`, now));
    const currency: string = items[0]?.currency;
    if (items.some((li) => li.currency !== currency) || (p.currency !== undefined && String(p.currency).toLowerCase() !== currency)) throw invalid('All line items must have the same currency.', 'line_items');
    const recurring = items.filter((li) => li.price.recurring);
    if (mode === 'payment' && recurring.length) throw invalid('You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.', 'line_items');
    if (mode === 'subscription' && !recurring.length) throw invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items');
    if (new Set(recurring.map((li) => `${li.price.recurring.interval}/${li.price.recurring.interval_count}`)).size > 1) throw invalid('Checkout does not support multiple prices with different billing intervals.', 'line_items');
    const total = items.reduce((n, li) => n + li.amount_total, 0);
    const minimum = MINIMUM[currency] ?? 1;
    if (total > MAX_AMOUNT) throw invalid(`The Checkout Session's total amount due must be no more than ${money(MAX_AMOUNT, currency)} ${currency}.`, 'line_items', 'amount_too_large');
    if (mode === 'payment' && total < minimum) throw invalid(`The Checkout Session's total amount due must add up to at least ${money(minimum, currency)} ${currency}`, 'line_items', 'amount_too_small');
    if (currency === 'isk' && total % 100) throw invalid('Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100.', 'line_items', 'invalid_charge_amount');
    if (THREE_DECIMAL.has(currency) && total % 10) throw invalid(`Invalid amount: ${currency.toUpperCase()} amounts must be rounded to the nearest ten (last digit 0).`, 'line_items', 'invalid_charge_amount');
    const id = `cs_test_${rand(58)}`;
    const s: StripeObject = {
      id, object: 'checkout.session', adaptive_pricing: { enabled: false }, amount_subtotal: total, amount_total: total,
      ...nulls('after_expiration allow_promotion_codes billing_address_collection client_secret collected_information consent consent_collection'),
      ...nulls('currency_conversion customer_account customer_details integration_identifier invoice locale managed_payments origin_context payment_intent'),
      ...nulls('payment_link payment_method_configuration_details permissions recovered_from saved_payment_method_options setup_intent'),
      ...nulls('shipping_address_collection shipping_cost submit_type subscription wallet_options'),
      automatic_tax: { enabled: false, liability: null, provider: null, status: null }, cancel_url: url(p.cancel_url, 'cancel_url') ?? null,
      client_reference_id: str(p.client_reference_id, 'client_reference_id', 200) ?? null, created: now, currency, custom_fields: [],
      custom_text: nulls('after_submit shipping_address submit terms_of_service_acceptance'), customer: p.customer ?? null,
      customer_creation: mode === 'payment' && p.customer === undefined ? 'if_required' : null, customer_email: email ?? null, discounts: [], expires_at: expiresAt,
      invoice_creation: mode === 'payment' ? { enabled: false, invoice_data: { ...nulls('account_tax_ids custom_fields description footer issuer rendering_options'), metadata: {} } } : null,
      livemode: false, metadata: metadata(p.metadata), mode, payment_method_collection: 'if_required', payment_method_options: { card: { request_three_d_secure: 'automatic' } },
      payment_method_types: ['card'], payment_status: 'unpaid', phone_number_collection: { enabled: false }, shipping_options: [], status: 'open',
      success_url: url(p.success_url, 'success_url') ?? null, total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 }, ui_mode: 'hosted',
      url: `${this.url}/pay/${id}`,
    };
    this.sessions.set(id, s);
    this.lineItems.set(id, items);
    this.params.set(id, structuredClone(p));
    return s;
  }

  /** One Checkout line item from `price_data` (the fake keeps no Price objects, so `price` ids are unknown). */
  private lineItem(li: unknown, at: string, now: number): StripeObject {
    const item = allow(li, 'adjustable_quantity metadata price price_data quantity tax_rates', at);
    if (item.price !== undefined) throw invalid(`No such price: '${item.price}'`, `${at}[price]`, 'resource_missing');
    if (item.price_data === undefined) throw invalid(`You must specify either \`price\` or \`price_data\` in ${at}.`, `${at}[price_data]`, 'parameter_missing');
    const pd = allow(item.price_data, 'currency product product_data recurring tax_behavior unit_amount unit_amount_decimal', `${at}[price_data]`);
    const at2 = `${at}[price_data]`;
    const currency = str(pd.currency, `${at2}[currency]`)?.toLowerCase(); // Stripe accepts any case and answers lower case
    if (!currency) throw invalid(`Missing required param: ${at2}[currency].`, `${at2}[currency]`, 'parameter_missing');
    if (!CURRENCIES.has(currency)) throw invalid(`Invalid currency: ${currency}.`, `${at2}[currency]`);
    const unit = int(pd.unit_amount, `${at2}[unit_amount]`, 0) ?? (pd.unit_amount_decimal !== undefined ? Number(pd.unit_amount_decimal) : undefined);
    if (unit === undefined || Number.isNaN(unit)) throw invalid(`Missing required param: ${at2}[unit_amount].`, `${at2}[unit_amount]`, 'parameter_missing');
    const product = allow(pd.product_data, 'description images metadata name tax_code tax_details unit_label', `${at2}[product_data]`);
    if (pd.product === undefined && !product.name) throw invalid(`Missing required param: ${at2}[product_data][name].`, `${at2}[product_data][name]`, 'parameter_missing');
    let recurring: StripeObject | null = null;
    if (pd.recurring !== undefined) {
      const rec = allow(pd.recurring, 'interval interval_count', `${at2}[recurring]`);
      const interval = str(rec.interval, `${at2}[recurring][interval]`) ?? '';
      if (!(interval in INTERVAL_MAX)) throw invalid('Invalid recurring[interval]: must be one of day, month, week, or year', `${at2}[recurring][interval]`);
      const count = int(rec.interval_count, `${at2}[recurring][interval_count]`, 1) ?? 1;
      if (count > (INTERVAL_MAX[interval] ?? 0)) throw invalid('Maximum of three years interval allowed (3 years, 36 months, or 156 weeks).', `${at2}[recurring][interval_count]`);
      recurring = { interval, interval_count: count, meter: null, trial_period_days: null, usage_type: 'licensed' };
    }
    const quantity = int(item.quantity, `${at}[quantity]`, 1);
    if (quantity === undefined) throw invalid(`Quantity is required. Add \`quantity\` to \`${at}\``, `${at}[quantity]`, 'parameter_missing');
    const price = {
      id: newId('price'), object: 'price', active: false, billing_scheme: 'per_unit', created: now, currency, livemode: false, metadata: {},
      ...nulls('custom_unit_amount lookup_key nickname tiers_mode transform_quantity'), product: pd.product ?? newId('prod', 14), recurring,
      tax_behavior: pd.tax_behavior ?? 'unspecified', type: recurring ? 'recurring' : 'one_time', unit_amount: Math.round(unit), unit_amount_decimal: String(pd.unit_amount_decimal ?? unit),
    };
    const amount = Math.round(unit * quantity);
    const meta = item.metadata === undefined ? null : metadata(item.metadata, `${at}[metadata]`);
    return {
      id: newId('li'), object: 'item', adjustable_quantity: null, amount_discount: 0, amount_subtotal: amount, amount_tax: 0, amount_total: amount,
      currency, description: product.name ?? null, metadata: meta, price, quantity,
    };
  }

  private updateSubscription(sub: StripeObject, p: Params, request: RequestRef, events: StripeObject[]): StripeObject {
    allow(p, SUBSCRIPTION_UPDATE_KEYS);
    if (sub.status === 'canceled' && Object.keys(p).some((k) => !['metadata', 'cancellation_details', 'expand'].includes(k)))
      throw invalid('A canceled subscription can only update its cancellation_details and metadata.');
    const previous: StripeObject = {};
    const set = (k: string, v: unknown) => {
      if (JSON.stringify(sub[k]) === JSON.stringify(v)) return;
      previous[k] = sub[k];
      sub[k] = v;
    };
    const periodEnd = sub.items.data[0].current_period_end;
    if (p.cancel_at !== undefined) {
      // '' unsets it; 'min_period_end'/'max_period_end' mean the end of the current period.
      const at = p.cancel_at === '' ? null : /_period_end$/.test(p.cancel_at) ? periodEnd : int(p.cancel_at, 'cancel_at');
      if (typeof at === 'number' && at < nowSec()) throw invalid('Invalid timestamp: must be in the future.', 'cancel_at');
      set('cancel_at', at);
      set('cancel_at_period_end', false);
    }
    if (p.cancel_at_period_end !== undefined) {
      const on = p.cancel_at_period_end === 'true';
      set('cancel_at_period_end', on);
      set('cancel_at', on ? periodEnd : null);
    }
    if (p.metadata !== undefined) set('metadata', metadata(p.metadata, 'metadata', sub.metadata));
    if (Object.keys(previous).length) events.push(this.event('customer.subscription.updated', sub, request, previous));
    return sub;
  }

  /** A refund of a charge (named, or its PaymentIntent's), within what is left of it; returns it and its events. */
  private refund(p: Params, request: RequestRef): { refund: StripeObject; events: StripeObject[] } {
    allow(p, REFUND_KEYS);
    let charge: StripeObject | undefined;
    if (p.charge !== undefined) charge = this.get(this.charges, String(p.charge), 'charge');
    else if (p.payment_intent !== undefined) {
      const pi = this.get(this.paymentIntents, String(p.payment_intent), 'payment_intent');
      charge = this.charges.get(pi.latest_charge ?? '');
      if (charge?.status !== 'succeeded') throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, 'payment_intent');
    } else throw invalid('One of the following params should be provided for this request: payment_intent or charge.', undefined, 'parameter_missing');
    if (charge.status !== 'succeeded') throw invalid(`Charge ${charge.id} has not succeeded and cannot be refunded.`, 'charge');
    if ([...this.disputes.values()].some((d) => d.charge === charge.id && d.status !== 'won'))
      throw invalid(`Charge ${charge.id} has been charged back; cannot issue a refund.`, undefined, 'charge_disputed');
    const remaining = charge.amount - charge.amount_refunded;
    if (remaining <= 0) throw invalid(`Charge ${charge.id} has already been refunded.`, undefined, 'charge_already_refunded');
    const amount = int(p.amount, 'amount', 1) ?? remaining;
    if (amount > remaining)
      throw invalid(`Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(remaining, charge.currency)})`, 'amount', 'amount_too_large');
    if (p.reason !== undefined && !['duplicate', 'fraudulent', 'requested_by_customer'].includes(p.reason))
      throw invalid('Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer', 'reason');
    const status = this.refundStatus;
    const refund: StripeObject = {
      id: newId('re'), object: 'refund', amount, balance_transaction: status === 'succeeded' ? newId('txn') : null, charge: charge.id, created: nowSec(),
      currency: charge.currency, customer: charge.customer, customer_account: null, metadata: metadata(p.metadata), payment_intent: charge.payment_intent,
      destination_details: { card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' }, type: 'card' },
      payment_method: charge.payment_method, reason: p.reason ?? null, ...nulls('receipt_number source_transfer_reversal transfer_reversal'), status,
    };
    this.refunds.set(refund.id, refund);
    this.params.set(refund.id, structuredClone(p));
    // A pending refund already counts in amount_refunded; a failed one gives it back (settleRefund).
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return { refund, events: [this.event('refund.created', refund, request), this.event('charge.refunded', charge, request)] };
  }

  /** Stripe's hosted page, reduced to a Pay button: POST pays, then redirects to success_url. */
  private async page(method: string, id: string, res: ServerResponse): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return void res.writeHead(404, { 'Content-Type': 'text/html' }).end('<p>Something went wrong</p>');
    if (method === 'POST' && s.status === 'open') {
      await this.pay(id);
      return void res.writeHead(303, { Location: String(s.success_url ?? this.url).replace('{CHECKOUT_SESSION_ID}', id) }).end();
    }
    const esc = (v: unknown) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const open = s.status === 'open';
    const cancel = s.cancel_url ? `<a href="${esc(s.cancel_url)}">Cancel</a>` : '';
    const body = open ? `<form method="post"><button>Pay</button></form>${cancel}` : `<p>This Checkout Session is no longer active (${esc(s.status)}).</p>`;
    res.writeHead(open ? 200 : 410, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Fake Stripe Checkout</title><h1>${esc(money(s.amount_total, s.currency))}</h1>${body}`);
  }
}

export async function startStripeFake(): Promise<StripeFake> {
  return new StripeFake().listen();
}
