import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCheckouts } from '../src/modules/checkouts/expiry.js';
import { reconcileCheckouts } from '../src/modules/checkouts/reconcile.js';
import { retryRefunds } from '../src/modules/refunds/refund-retries.js';
import type { Settings } from '../src/graphql/context.js';
import { type Client, type TestApp, countStatements, newClient, send, startApp } from './support/app.js';
import { type AsaasFake, SAMPLE_CPF, startAsaasFake } from './support/fakes/asaas.js';
import { type StripeFake, startStripeFake, stripeSignatureHeader } from './support/fakes/stripe.js';
import { represent } from './support/schema.js';

// API.md section 11's flows end to end: the payer at the provider's fake, its signed
// webhooks to the service (twice, out of order, lost), reconciliation, expiry, refunds and
// disputes, on both databases.
let app: TestApp;
let stripe: StripeFake;
let asaas: AsaasFake;
let settings: Settings;
const RECONCILE_SECONDS = 300;
beforeAll(async () => {
  [stripe, asaas] = await Promise.all([startStripeFake(), startAsaasFake()]);
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never, payments: { STRIPE_API_BASE: stripe.url, ASAAS_API_BASE: asaas.url, PROVIDER_TIMEOUT_SECONDS: 2, PROVIDER_RECONCILE_SECONDS: RECONCILE_SECONDS } });
  settings = { allowPrivateNetworks: true, checkoutExpiryMinutes: 30, streamBufferEvents: 1000, payments: app.service.payments, trashRetentionDays: 30 };
});
afterAll(async () => {
  await app.close();
  await Promise.all([stripe.close(), asaas.close()]);
});

/** The statements of one Stripe delivery (a checkout paid), pinned: SQLite loads each relation by a statement of its own. */
const SENT_SQLITE = 23;
const SENT_PG = 16;
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

interface Shop {
  api: Client;
  account: { id: string; webhook_url: string };
  token: string;
  secret: string;
}

/** A workspace with a Stripe account whose webhooks the fake signs and sends to the service, and an active link. */
async function stripeShop(link: Record<string, unknown> = {}): Promise<Shop> {
  const api = await newClient(app);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const account = await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey, webhook_signing_secret: secret } });
  expect(account.status).toBe(201);
  stripe.addEndpoint(account.body.webhook_url, secret);
  const created = await api.post('/payment-links', { name: 'Plan', amount: 100, currency: 'USD', max_installments: 3, payment_provider_account_id: account.body.id, ...link });
  expect((await api.post(`/payment-links/${created.body.id}/activate`)).status).toBe(200);
  return { api, account: account.body, token: created.body.public_token, secret };
}

async function checkout(shop: Shop, body: Record<string, unknown> = {}) {
  const res = await send(`${app.url}/api/v1/public/payment-links/${shop.token}/checkouts`, 'POST', { body: { payer: { name: 'Ada Lovelace', email: 'ada@example.com' }, ...body } });
  expect(res.status).toBe(201);
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.checkout_id);
  const transactions = await shop.api.get(`/payment-transactions?checkout_id=${res.body.checkout_id}`);
  return { checkoutId: res.body.checkout_id as string, session: session!, transactionId: transactions.body.data[0].id as string };
}

/** Runs `work` with the fake's webhooks in `mode` (held, lost, doubled), then back to delivering. */
async function withWebhooks(mode: StripeFake['webhooks']['mode'], work: () => Promise<unknown>) {
  stripe.webhooks.mode = mode;
  try {
    await work();
  } finally {
    stripe.webhooks.mode = 'deliver';
  }
}

const transaction = async (shop: Shop, id: string) => (await shop.api.get(`/payment-transactions/${id}`)).body;

describe('Stripe: payments reported by webhook', () => {
  it('records checkout.session.completed once, however often it is delivered', async () => {
    const shop = await stripeShop();
    const { session, transactionId } = await checkout(shop);
    await withWebhooks('duplicate', () => stripe.pay(session.id));
    const paid = await transaction(shop, transactionId);
    expect(paid.status).toBe('paid');
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(['payment.paid']);
    expect(stripe.deliveries.filter((d) => d.url === shop.account.webhook_url).map((d) => d.status)).toEqual([200, 200]);
  });

  it('records a delivery in a fixed number of statements', async () => {
    const shop = await stripeShop();
    const { session } = await checkout(shop);
    await withWebhooks('hold', () => stripe.pay(session.id));
    const event = stripe.events.at(-1)!;
    const body = JSON.stringify(event);
    const sent = await countStatements(app, async () => {
      const res = await send(shop.account.webhook_url, 'POST', { raw: body, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripeSignatureHeader(shop.secret, body) } });
      expect(res.status).toBe(200);
    });
    // The account and its workspace; in the transaction: the receipt, the checkout, the latest event, the charge's
    // reference, the event's dedupe, the lock, the transaction's REST object before and after, the event, its
    // status, the checkout's settling (expiry and reconciliation at once), the turn, the log's INSERT, COMMIT.
    expect(sent).toBe(app.provider === 'postgresql' ? SENT_PG : SENT_SQLITE);
  });

  it('takes an async method on its way as processing, then paid; and the same events in reverse order end the same', async () => {
    const shop = await stripeShop();
    const { session, transactionId } = await checkout(shop);
    await stripe.pay(session.id, { async: true });
    expect((await transaction(shop, transactionId)).status).toBe('processing');
    await stripe.asyncSucceeded(session.id);
    expect((await transaction(shop, transactionId)).status).toBe('paid');

    const reversed = await checkout(shop);
    await withWebhooks('hold', async () => {
      await stripe.pay(reversed.session.id, { async: true });
      await stripe.asyncSucceeded(reversed.session.id);
    });
    await stripe.deliverHeld({ reverse: true });
    expect((await transaction(shop, reversed.transactionId)).status).toBe('paid');
  });

  it('refuses a wrong or stale signature with 401 and records nothing', async () => {
    const shop = await stripeShop();
    const { session, transactionId } = await checkout(shop);
    await withWebhooks('hold', () => stripe.pay(session.id));
    const event = stripe.events.at(-1)!;
    const body = JSON.stringify(event);
    const post = (signature: string) => send(shop.account.webhook_url, 'POST', { raw: body, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } });
    const wrongSecret = await post(stripeSignatureHeader("whsec_someoneelse123456", body));
    expect(wrongSecret.status, JSON.stringify(wrongSecret.body)).toBe(401);
    expect((await post(stripeSignatureHeader(shop.secret, body, Math.floor(Date.now() / 1000) - 400))).status).toBe(401);
    expect((await post(stripeSignatureHeader(shop.secret, `${body} `))).status).toBe(401);
    expect((await transaction(shop, transactionId)).status).toBe('pending');
    const good = await post(stripeSignatureHeader(shop.secret, body));
    expect([good.status, good.body.received]).toEqual([200, true]);
    expect((await transaction(shop, transactionId)).status).toBe('paid');
  });

  it('answers 200 to event types it does not use', async () => {
    const shop = await stripeShop();
    const body = JSON.stringify({ id: `evt_${randomBytes(8).toString('hex')}`, object: 'event', type: 'customer.created', created: Math.floor(Date.now() / 1000), data: { object: { id: 'cus_1' } } });
    const res = await send(shop.account.webhook_url, 'POST', { raw: body, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripeSignatureHeader(shop.secret, body) } });
    expect(res.status).toBe(200);
  });

  it('charges installments exactly n times: the checkout is charge 1, each later invoice a transaction of its own', async () => {
    const shop = await stripeShop();
    const { session, checkoutId, transactionId } = await checkout(shop, { installments: 3 });
    await stripe.pay(session.id);
    expect((await transaction(shop, transactionId)).status).toBe('paid');
    const subscription = stripe.subscriptions.get(stripe.sessions.get(session.id)!.subscription)!;
    expect(subscription.cancel_at).toEqual(expect.any(Number));
    // Two later charges, then the plan ends at Stripe instead of a fourth: three in all.
    for (let k = 0; k < 3; k += 1) await stripe.chargeNextInvoice(subscription.id);
    expect(stripe.subscriptions.get(subscription.id)!.status).toBe('canceled');
    expect(stripe.invoicesFor(subscription.id)).toHaveLength(3);
    const charges = (await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}&sort=created_at`)).body.data;
    expect(charges.map((c: { status: string; amount: number }) => [c.status, c.amount])).toEqual([['paid', 100], ['paid', 33.33], ['paid', 33.33]]);
    expect(charges.map((c: { metadata: { checkout: { charge?: number } } }) => c.metadata.checkout.charge ?? 1)).toEqual([1, 2, 3]);
  });

  it('charges a recurring link billing_cycles times at its interval, then Stripe ends the plan', async () => {
    const shop = await stripeShop({ amount: 20, max_installments: 1, is_recurring: true, interval_unit: 'week', interval_count: 2, billing_cycles: 2 });
    const { session, checkoutId } = await checkout(shop);
    expect(stripe.params.get(session.id)!.line_items[0].price_data).toMatchObject({ unit_amount: '2000', recurring: { interval: 'week', interval_count: '2' } });
    await stripe.pay(session.id);
    const subscription = stripe.subscriptions.get(stripe.sessions.get(session.id)!.subscription)!;
    for (let k = 0; k < 2; k += 1) await stripe.chargeNextInvoice(subscription.id);
    expect(stripe.subscriptions.get(subscription.id)!.status).toBe('canceled');
    const charges = (await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}&sort=created_at`)).body.data;
    expect(charges.map((c: { status: string; amount: number }) => [c.status, c.amount])).toEqual([['paid', 20], ['paid', 20]]);
  });
});

describe('Stripe: nothing waits on a lost webhook', () => {
  it('looks a silent checkout up after PROVIDER_RECONCILE_SECONDS and records what Stripe says, once', async () => {
    const shop = await stripeShop();
    const { session, transactionId } = await checkout(shop);
    await withWebhooks('lose', () => stripe.pay(session.id));
    expect((await transaction(shop, transactionId)).status).toBe('pending');
    await reconcileCheckouts(app.database.prisma, represent, settings, { now: later(RECONCILE_SECONDS - 10) });
    expect((await transaction(shop, transactionId)).status).toBe('pending');
    await reconcileCheckouts(app.database.prisma, represent, settings, { now: later(RECONCILE_SECONDS + 1) });
    await reconcileCheckouts(app.database.prisma, represent, settings, { now: later(3 * RECONCILE_SECONDS) });
    const paid = await transaction(shop, transactionId);
    expect(paid.status).toBe('paid');
    expect(paid.events).toHaveLength(1);
  });

  it("reconciles a plan's lost first payment with the charge it took: the checkout's transaction refunds that charge", async () => {
    const shop = await stripeShop();
    const { session, transactionId } = await checkout(shop, { installments: 3 });
    await withWebhooks('lose', () => stripe.pay(session.id));
    await reconcileCheckouts(app.database.prisma, represent, settings, { now: later(RECONCILE_SECONDS + 1) });
    expect((await transaction(shop, transactionId)).status).toBe('paid');
    const whole = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, {});
    expect([whole.status, whole.body.amount, whole.body.status]).toEqual([201, 33.34, 'succeeded']);
  });

  it('expires at Stripe first: an unpaid session is expired and the checkout canceled; one paid as it expired is recorded paid', async () => {
    const shop = await stripeShop();
    const unpaid = await checkout(shop);
    const paidLate = await checkout(shop);
    await withWebhooks('lose', () => stripe.pay(paidLate.session.id));
    await expireCheckouts(app.database.prisma, represent, settings, { now: later(31 * 60) });
    expect(stripe.sessions.get(unpaid.session.id)!.status).toBe('expired');
    expect((await transaction(shop, unpaid.transactionId)).status).toBe('canceled');
    expect((await transaction(shop, paidLate.transactionId)).status).toBe('paid');
  });
});

describe('Stripe: refunds', () => {
  async function paid(shop: Shop) {
    const made = await checkout(shop);
    await stripe.pay(made.session.id);
    return { ...made, paymentIntent: stripe.sessions.get(made.session.id)!.payment_intent as string };
  }

  it('refunds in part, then the rest; the transaction becomes refunded; nothing more can be refunded', async () => {
    const shop = await stripeShop();
    const { transactionId, paymentIntent } = await paid(shop);
    const first = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount: 30, reason: 'duplicate' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      payment_transaction_id: transactionId,
      amount: 30,
      currency: 'USD',
      reason: 'duplicate',
      status: 'succeeded',
      failure_reason: null,
      provider_reference: expect.stringMatching(/^re_/),
      metadata: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await transaction(shop, transactionId)).toMatchObject({ status: 'paid', amount_refunded: 30 });
    const rest = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, {});
    expect([rest.status, rest.body.amount]).toEqual([201, 70]);
    expect(await transaction(shop, transactionId)).toMatchObject({ status: 'refunded', amount_refunded: 100 });
    const more = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount: 1 });
    expect([more.status, more.body]).toEqual([422, { message: 'This payment cannot be refunded.' }]);
    // At Stripe: two refunds of the payment intent, 30 and 70 (its minor units).
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent).map((r) => r.amount)).toEqual([3000, 7000]);
    const types = (await shop.api.get(`/events?per_page=100`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['refund.created', 'refund.succeeded', 'payment.refunded']));
    const listed = await shop.api.get(`/refunds?payment_transaction_id=${transactionId}`);
    expect(listed.body.total).toBe(2);
  });

  it('refuses amounts over what remains, not exact in cents, or of an unpaid payment; writes nothing', async () => {
    const shop = await stripeShop();
    const { transactionId } = await paid(shop);
    for (const [body, field] of [[{ amount: 100.01 }, 'amount'], [{ amount: 0.001 }, 'amount'], [{ amount: 0 }, 'amount'], [{ reason: 'whim' }, 'reason']] as const) {
      const res = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const pending = await checkout(shop);
    expect((await shop.api.post(`/payment-transactions/${pending.transactionId}/refunds`, {})).status).toBe(422);
    expect((await shop.api.get('/refunds')).body.total).toBe(0);
  });

  it('keeps a refund pending while Stripe is down and sends it once when it is back', async () => {
    const shop = await stripeShop();
    const { transactionId, paymentIntent } = await paid(shop);
    stripe.failNext({ method: 'POST', path: '/v1/refunds' }, { status: 500 }, 3);
    const res = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount: 40 });
    expect([res.status, res.body.status]).toEqual([201, 'pending']);
    expect(await transaction(shop, transactionId)).toMatchObject({ amount_refunded: 40 });
    // Still down at the first retry; back at the next.
    await retryRefunds(app.database.prisma, represent, settings, { now: later(RECONCILE_SECONDS + 1) });
    await retryRefunds(app.database.prisma, represent, settings, { now: later(2 * RECONCILE_SECONDS + 2) });
    await retryRefunds(app.database.prisma, represent, settings, { now: later(3 * RECONCILE_SECONDS + 3) });
    expect((await shop.api.get(`/refunds/${res.body.id}`)).body.status).toBe('succeeded');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent)).toHaveLength(1);
  });

  it('lists a refund made in the dashboard once, and counts it', async () => {
    const shop = await stripeShop();
    const { transactionId, paymentIntent } = await paid(shop);
    await withWebhooks('duplicate', async () => {
      await stripe.refundFromDashboard(paymentIntent, 2500);
      await stripe.flush();
    });
    const listed = (await shop.api.get(`/refunds?payment_transaction_id=${transactionId}`)).body;
    expect(listed.total).toBe(1);
    expect(listed.data[0]).toMatchObject({ amount: 25, status: 'succeeded', provider_reference: expect.stringMatching(/^re_/) });
    expect(await transaction(shop, transactionId)).toMatchObject({ status: 'paid', amount_refunded: 25 });
  });

  it("refunds an installment plan's charges each on its own: the checkout's transaction gives back what its first charge took", async () => {
    const shop = await stripeShop();
    const { session, checkoutId, transactionId } = await checkout(shop, { installments: 3 });
    await stripe.pay(session.id);
    const subscription = stripe.sessions.get(session.id)!.subscription as string;
    await stripe.chargeNextInvoice(subscription);
    const over = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount: 33.35 });
    expect([over.status, over.body.errors]).toEqual([422, { amount: ['The amount field must not be greater than 33.34.'] }]);
    const whole = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, {});
    expect([whole.status, whole.body.amount, whole.body.status]).toEqual([201, 33.34, 'succeeded']);
    expect(await transaction(shop, transactionId)).toMatchObject({ status: 'refunded', amount: 100, amount_refunded: 33.34 });
    const second = (await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}&sort=created_at`)).body.data[1];
    const secondRefund = await shop.api.post(`/payment-transactions/${second.id}/refunds`, {});
    expect([secondRefund.status, secondRefund.body.amount, secondRefund.body.status]).toEqual([201, 33.33, 'succeeded']);
    // At Stripe: each refund names its own charge's payment intent (the invoices'), for what that charge took.
    const made = [whole.body.id, secondRefund.body.id].map((id) => [...stripe.refunds.values()].find((r) => r.metadata.refund_id === id)!);
    expect(made.map((r) => r.amount)).toEqual([3334, 3333]);
    expect(made.map((r) => stripe.paymentIntents.get(r.payment_intent)?.amount)).toEqual([3334, 3333]);
  });

  /**
   * A paid 3-installment plan whose second invoice's delivery finds Stripe answering `status` to the
   * service's lookup of that invoice: the delivery's event, and the statuses our endpoint answered it with.
   */
  async function secondInvoiceUnread(status: number) {
    const shop = await stripeShop();
    const { session, checkoutId } = await checkout(shop, { installments: 3 });
    await stripe.pay(session.id);
    const subscription = stripe.sessions.get(session.id)!.subscription as string;
    await withWebhooks('hold', () => stripe.chargeNextInvoice(subscription));
    const held = stripe.events.filter((e) => e.type === 'invoice.paid').at(-1)!;
    // Every account of this file's fake hears every event: Stripe answers `status` to each of them.
    const first = stripe.events.find((e) => e.type === 'invoice.paid' && e.data.object.parent.subscription_details.subscription === subscription)!;
    stripe.failNext({ method: 'GET', path: `/v1/invoices/${held.data.object.id}` }, { status }, stripe.deliveries.filter((d) => d.eventId === first.id).length);
    await stripe.deliverHeld();
    const answers = () => stripe.deliveries.filter((d) => d.eventId === held.id && d.url === shop.account.webhook_url).map((d) => d.status);
    return { shop, checkoutId, held, answers };
  }

  it("asks Stripe for an invoice's payment, answering 503 while it cannot (nothing recorded) and taking the next delivery whole; a dashboard refund of a later charge is its own", async () => {
    const { shop, checkoutId, held, answers } = await secondInvoiceUnread(500);
    expect(answers()).toEqual([503]);
    expect((await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}`)).body.total).toBe(1);
    await stripe.resend(held.id);
    expect(answers()).toEqual([503, 200]);
    const second = (await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}&sort=created_at`)).body.data[1];
    expect([second.status, second.amount]).toEqual(['paid', 33.33]);
    const invoice = await (await fetch(`${stripe.url}/v1/invoices/${held.data.object.id}?expand[]=payments`, { headers: { Authorization: `Bearer ${stripe.secretKey}` } })).json();
    await stripe.refundFromDashboard(invoice.payments.data[0].payment.payment_intent, 1000);
    await stripe.flush();
    expect((await shop.api.get(`/refunds?payment_transaction_id=${second.id}`)).body.data.map((r: { amount: number }) => r.amount)).toEqual([10]);
    expect(await transaction(shop, second.id)).toMatchObject({ status: 'paid', amount_refunded: 10 });
  });

  it('records a paid invoice whose payment Stripe declines to show (404) with 200: asking again would not help', async () => {
    const { shop, checkoutId, answers } = await secondInvoiceUnread(404);
    expect(answers()).toEqual([200]);
    const second = (await shop.api.get(`/payment-transactions?checkout_id=${checkoutId}&sort=created_at`)).body.data[1];
    expect([second.status, second.amount]).toEqual(['paid', 33.33]);
  });

  it('never refunds more than was paid under concurrent requests', async () => {
    const shop = await stripeShop();
    const { transactionId } = await paid(shop);
    const results = await Promise.all([60, 60].map((amount) => shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(await transaction(shop, transactionId)).toMatchObject({ amount_refunded: 60 });
  });
});

describe('Stripe: disputes', () => {
  it('opens and closes a dispute; a lost one counts as refunded money', async () => {
    for (const outcome of ['won', 'lost'] as const) {
      const shop = await stripeShop();
      const made = await checkout(shop);
      await stripe.pay(made.session.id);
      const paymentIntent = stripe.sessions.get(made.session.id)!.payment_intent as string;
      await stripe.openDispute(paymentIntent, 10000, 'fraudulent');
      expect((await transaction(shop, made.transactionId)).dispute).toMatchObject({ status: 'open', amount: 100, reason: 'fraudulent', closed_at: null });
      const dispute = [...stripe.disputes.values()].find((d) => d.payment_intent === paymentIntent)!;
      await stripe.closeDispute(dispute.id, outcome);
      const closed = await transaction(shop, made.transactionId);
      expect(closed.dispute).toMatchObject({ status: outcome, closed_at: expect.any(String) });
      expect(closed.amount_refunded).toBe(outcome === 'lost' ? 100 : 0);
      const types = (await shop.api.get('/events?per_page=100')).body.data.map((e: { type: string }) => e.type);
      expect(types).toEqual(expect.arrayContaining(['payment.dispute_opened', 'payment.dispute_closed']));
    }
  });
});

describe('Asaas: payments, refunds and chargebacks by webhook', () => {
  async function asaasShop(linkFields: Record<string, unknown> = {}) {
    const api = await newClient(app);
    const account = await api.post('/payment-provider-accounts', { name: 'Asaas', provider: 'asaas', credentials: { api_key: asaas.apiKey } });
    expect(account.status).toBe(201);
    asaas.addWebhook(account.body.webhook_url, account.body.webhook_token);
    const link = await api.post('/payment-links', { name: 'Plano', amount: 150, currency: 'BRL', payment_provider_account_id: account.body.id, ...linkFields });
    await api.post(`/payment-links/${link.body.id}/activate`);
    return { api, account: account.body, token: link.body.public_token as string };
  }

  it('records PAYMENT_RECEIVED by its token, refuses a wrong one, and refunds in part and from the dashboard', async () => {
    const shop = await asaasShop();
    const res = await send(`${app.url}/api/v1/public/payment-links/${shop.token}/checkouts`, 'POST', { body: { payment_method: 'pix', payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } } });
    expect(res.status).toBe(201);
    const payment = [...asaas.payments.values()].find((p) => p.externalReference === res.body.checkout_id)!;
    const wrong = await send(shop.account.webhook_url, 'POST', { body: { id: 'evt_x', event: 'PAYMENT_RECEIVED', dateCreated: '2026-11-29 10:00:00', payment }, headers: { 'asaas-access-token': 'not-the-token-not-the-token-not-the-token' } });
    expect(wrong.status).toBe(401);
    await asaas.receive(payment.id);
    const transactionId = (await shop.api.get(`/payment-transactions?checkout_id=${res.body.checkout_id}`)).body.data[0].id;
    expect((await shop.api.get(`/payment-transactions/${transactionId}`)).body.status).toBe('paid');
    const refund = await shop.api.post(`/payment-transactions/${transactionId}/refunds`, { amount: 50 });
    expect(refund.status).toBe(201);
    await asaas.flush();
    await asaas.refundFromDashboard(payment.id, 20);
    const refunds = (await shop.api.get(`/refunds?payment_transaction_id=${transactionId}`)).body.data;
    expect(refunds.map((r: { amount: number }) => r.amount).sort()).toEqual([20, 50]);
    expect((await shop.api.get(`/payment-transactions/${transactionId}`)).body.amount_refunded).toBe(70);
    await asaas.chargeback(payment.id, 'requested');
    expect((await shop.api.get(`/payment-transactions/${transactionId}`)).body.dispute).toMatchObject({ status: 'open' });
    await asaas.chargeback(payment.id, 'lost');
    const lost = (await shop.api.get(`/payment-transactions/${transactionId}`)).body;
    expect(lost.dispute).toMatchObject({ status: 'lost', closed_at: expect.any(String) });
    expect(lost.amount_refunded).toBe(220);
  });

  it('makes a recurring link an Asaas subscription of maxPayments charges, and a boleto payment a redirect to its invoice', async () => {
    const shop = await asaasShop({ is_recurring: true, interval_unit: 'month', interval_count: 3, billing_cycles: 4 });
    const res = await send(`${app.url}/api/v1/public/payment-links/${shop.token}/checkouts`, 'POST', { body: { payment_method: 'boleto', payer: { name: 'Ana', email: 'ana@example.com', tax_id: '11.222.333/0001-81' } } });
    expect(res.status).toBe(201);
    const subscription = [...asaas.subscriptions.values()].find((s) => s.externalReference === res.body.checkout_id)!;
    expect(subscription).toMatchObject({ cycle: 'QUARTERLY', maxPayments: 4, billingType: 'BOLETO', value: 150 });
    const first = [...asaas.payments.values()].find((p) => p.subscription === subscription.id)!;
    expect(res.body.next_action).toEqual({ type: 'redirect', url: first.invoiceUrl });
    // Asaas makes a subscription's next payment once the one before is settled.
    expect(await asaas.chargeNext(subscription.id)).toBe(first.id);
    expect(await asaas.chargeNext(subscription.id)).not.toBe(first.id);
    const charges = (await shop.api.get(`/payment-transactions?checkout_id=${res.body.checkout_id}&sort=created_at`)).body.data;
    expect(charges.map((t: { status: string }) => t.status)).toEqual(['paid', 'paid']);
  });

  it('charges card installments as Asaas reports them: the first is the checkout, each later one a transaction of its own', async () => {
    const shop = await asaasShop({ max_installments: 3 });
    const res = await send(`${app.url}/api/v1/public/payment-links/${shop.token}/checkouts`, 'POST', { body: { installments: 3, payment_method: 'card', payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } } });
    expect(res.status).toBe(201);
    const first = [...asaas.payments.values()].find((p) => p.externalReference === res.body.checkout_id && p.installmentNumber === 1)!;
    await asaas.confirm(first.id);
    await asaas.chargeNext(first.installment!);
    await asaas.chargeNext(first.installment!);
    const charges = (await shop.api.get(`/payment-transactions?checkout_id=${res.body.checkout_id}&sort=created_at`)).body.data;
    expect(charges.map((t: { status: string; amount: number }) => [t.status, t.amount])).toEqual([['paid', 150], ['paid', 50], ['paid', 50]]);
    // The checkout's transaction gives back what its own payment (the first installment) took, at Asaas too.
    const whole = await shop.api.post(`/payment-transactions/${charges[0].id}/refunds`, {});
    expect([whole.status, whole.body.amount, whole.body.status]).toEqual([201, 50, 'succeeded']);
    expect((await shop.api.get(`/payment-transactions/${charges[0].id}`)).body).toMatchObject({ status: 'refunded', amount_refunded: 50 });
    expect(asaas.payments.get(first.id)!.refunds?.map((r) => r.value)).toEqual([50]);
  });
});
