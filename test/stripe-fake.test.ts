import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { type StripeFake, parseForm, startStripeFake, stripeSignatureHeader } from './support/fakes/stripe.js';
import { type Receiver, startReceiver } from './support/receiver.js';

// The Stripe fake's self-test, driven through the official SDK as the service drives it.
// No database is involved.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function sdk(fake: StripeFake, key = fake.secretKey, options: Stripe.StripeConfig = {}): Stripe {
  const { hostname, port } = new URL(fake.url);
  return new Stripe(key, { host: hostname, port: Number(port), protocol: 'http', maxNetworkRetries: 0, ...options });
}

async function setup() {
  const fake = await startStripeFake();
  closers.push(() => fake.close());
  return { fake, stripe: sdk(fake) };
}

/** A receiver that verifies each webhook as the service must: on the raw body, with the endpoint's secret. */
async function verifyingReceiver(fake: StripeFake, secret = 'whsec_test_secret'): Promise<Receiver & { verified: Stripe.Event[] }> {
  const verified: Stripe.Event[] = [];
  const receiver = await startReceiver((_n, r) => {
    try {
      verified.push(Stripe.webhooks.constructEvent(r.body, String(r.headers['stripe-signature']), secret));
      return { status: 200 };
    } catch {
      return { status: 400 };
    }
  });
  closers.push(() => receiver.close());
  fake.addEndpoint(receiver.url, secret);
  return Object.assign(receiver, { verified });
}

const oneTime = (amount = 1000, extra: Partial<Stripe.Checkout.SessionCreateParams> = {}): Stripe.Checkout.SessionCreateParams => ({
  mode: 'payment',
  line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: amount, product_data: { name: 'Widget' } } }],
  success_url: 'http://127.0.0.1/pay/checkouts/abc',
  cancel_url: 'http://127.0.0.1/pay/checkouts/abc?canceled=1',
  client_reference_id: 'checkout_abc',
  metadata: { checkout_id: 'abc' },
  payment_intent_data: { metadata: { checkout_id: 'abc' } },
  ...extra,
});

async function paidPaymentIntent(fake: StripeFake, stripe: Stripe, amount = 1000): Promise<string> {
  const session = await stripe.checkout.sessions.create(oneTime(amount));
  await fake.pay(session.id);
  return String(fake.sessions.get(session.id)?.payment_intent);
}

describe('the Stripe fake', () => {
  it('parses bracket keys into objects and arrays', () => {
    expect(parseForm('line_items[0][price_data][currency]=usd&line_items[0][quantity]=2&expand[]=a&expand[]=b&metadata[0]=x')).toEqual({
      line_items: [{ price_data: { currency: 'usd' }, quantity: '2' }],
      expand: ['a', 'b'],
      metadata: { '0': 'x' },
    });
  });

  it('refuses an unknown key with StripeAuthenticationError and accepts added ones', async () => {
    const { fake, stripe } = await setup();
    const error = await sdk(fake, 'sk_test_wrong_key_1234').balance.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect((error as Stripe.errors.StripeError).message).toMatch(/^Invalid API Key provided: sk_test_\**1234$/);
    expect((await stripe.balance.retrieve()).object).toBe('balance');
    fake.addKey('sk_test_other');
    expect((await sdk(fake, 'sk_test_other').balance.retrieve()).available[0]?.currency).toBe('usd');
  });

  it('creates an open, unpaid session with everything it was given, and replays an Idempotency-Key', async () => {
    const { fake, stripe } = await setup();
    const params = oneTime(1999, { customer_email: 'payer@example.com', expires_at: Math.floor(Date.now() / 1000) + 3600 });
    const first = await stripe.checkout.sessions.create(params, { idempotencyKey: 'checkout-abc' });
    expect(first).toMatchObject({ object: 'checkout.session', status: 'open', payment_status: 'unpaid', payment_intent: null, amount_total: 1999, currency: 'usd', client_reference_id: 'checkout_abc', metadata: { checkout_id: 'abc' }, customer_email: 'payer@example.com' });
    expect(first.id).toMatch(/^cs_test_/);
    expect(first.url).toBe(`${fake.url}/pay/${first.id}`);
    expect(fake.params.get(first.id)?.payment_intent_data).toEqual({ metadata: { checkout_id: 'abc' } });

    const again = await stripe.checkout.sessions.create(params, { idempotencyKey: 'checkout-abc' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(fake.sessions.size).toBe(1);
    expect(fake.calls('POST', '/v1/checkout/sessions')).toBe(1);
    expect(fake.requests).toHaveLength(2);

    const changed = await stripe.checkout.sessions.create({ ...params, client_reference_id: 'other' }, { idempotencyKey: 'checkout-abc' }).catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);

    const expanded = await stripe.checkout.sessions.retrieve(first.id, { expand: ['line_items'] });
    expect(expanded.line_items?.data[0]).toMatchObject({ object: 'item', quantity: 1, amount_total: 1999, price: { unit_amount: 1999, currency: 'usd', type: 'one_time' } });
  });

  it('validates what a buggy adapter gets wrong, as Stripe does', async () => {
    const { stripe } = await setup();
    const now = Math.floor(Date.now() / 1000);
    const refused = (params: Stripe.Checkout.SessionCreateParams) => stripe.checkout.sessions.create(params).then(() => undefined, (e: Stripe.errors.StripeError) => e);
    for (const expires_at of [now + 600, now + 25 * 3600]) {
      const e = await refused(oneTime(1000, { expires_at }));
      expect(e).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(e?.param).toBe('expires_at');
    }
    expect((await refused(oneTime(10.5)))?.param).toBe('line_items[0][price_data][unit_amount]');
    expect((await refused({ ...oneTime(), mode: undefined } as unknown as Stripe.Checkout.SessionCreateParams))?.param).toBe('mode');
    expect((await refused(oneTime(20)))?.code).toBe('amount_too_small');
    expect((await refused(oneTime(1000, { subscription_data: { metadata: { a: 'b' } } })))?.param).toBe('subscription_data');
    expect((await refused({ ...oneTime(), payment_intent_datas: { a: 'b' } } as unknown as Stripe.Checkout.SessionCreateParams))?.code).toBe('parameter_unknown');
    const upper = await stripe.checkout.sessions.create({ ...oneTime(), line_items: [{ quantity: 2, price_data: { currency: 'JPY', unit_amount: 500, product_data: { name: 'Tea' } } }] });
    expect(upper).toMatchObject({ currency: 'jpy', amount_total: 1000 });
  });

  it('pay() delivers checkout.session.completed, signed as Stripe signs, before it resolves', async () => {
    const { fake, stripe } = await setup();
    const receiver = await verifyingReceiver(fake);
    const session = await stripe.checkout.sessions.create(oneTime(2500));
    await fake.pay(session.id);

    expect(receiver.verified.map((e) => e.type)).toEqual(['checkout.session.completed']);
    const event = receiver.verified[0] as Stripe.CheckoutSessionCompletedEvent;
    expect(event.data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', client_reference_id: 'checkout_abc' });
    expect(fake.deliveries).toEqual([expect.objectContaining({ eventId: event.id, status: 200 })]);

    const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] });
    const pi = paid.payment_intent as Stripe.PaymentIntent;
    expect(pi).toMatchObject({ object: 'payment_intent', status: 'succeeded', amount: 2500, amount_received: 2500, metadata: { checkout_id: 'abc' } });
    expect(pi.latest_charge).toMatchObject({ object: 'charge', amount: 2500, amount_refunded: 0, refunded: false, payment_intent: pi.id });

    // What a receiver must refuse: another secret, a stale timestamp.
    const body = receiver.received[0]?.body ?? '';
    expect(() => Stripe.webhooks.constructEvent(body, stripeSignatureHeader('whsec_other', body), 'whsec_test_secret')).toThrow(Stripe.errors.StripeSignatureVerificationError);
    const stale = stripeSignatureHeader('whsec_test_secret', body, Math.floor(Date.now() / 1000) - 600);
    expect(() => Stripe.webhooks.constructEvent(body, stale, 'whsec_test_secret')).toThrow(/tolerance/);
  });

  it('caps partial refunds at what is left of the charge', async () => {
    const { fake, stripe } = await setup();
    const receiver = await verifyingReceiver(fake);
    const pi = await paidPaymentIntent(fake, stripe, 1000);
    await stripe.refunds.create({ payment_intent: pi, amount: 300 });
    await stripe.refunds.create({ payment_intent: pi, amount: 500, metadata: { reason: 'partial' } });
    const tooMuch = await stripe.refunds.create({ payment_intent: pi, amount: 300 }).catch((e: Stripe.errors.StripeError) => e);
    expect(tooMuch).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(tooMuch).toMatchObject({ param: 'amount', message: 'Refund amount ($3.00) is greater than unrefunded amount on charge ($2.00)' });
    const rest = await stripe.refunds.create({ payment_intent: pi });
    expect(rest).toMatchObject({ object: 'refund', amount: 200, status: 'succeeded', payment_intent: pi });
    const again = await stripe.refunds.create({ payment_intent: pi }).catch((e: Stripe.errors.StripeError) => e);
    expect(again).toMatchObject({ code: 'charge_already_refunded' });

    const listed = await stripe.refunds.list({ payment_intent: pi });
    expect(listed.data.map((r) => r.amount)).toEqual([200, 500, 300]);
    const charge = await stripe.charges.retrieve(String(fake.paymentIntents.get(pi)?.latest_charge));
    expect(charge).toMatchObject({ amount: 1000, amount_refunded: 1000, refunded: true });
    await fake.flush(); // the API's refunds send their webhooks after answering
    expect(receiver.verified.filter((e) => e.type === 'refund.created')).toHaveLength(3);
    expect(receiver.verified.filter((e) => e.type === 'refund.created')[0]?.request?.id).toMatch(/^req_/);
  });

  it('pending refunds settle or fail, and a failed one gives the amount back', async () => {
    const { fake, stripe } = await setup();
    const pi = await paidPaymentIntent(fake, stripe, 1000);
    fake.refundStatus = 'pending';
    await fake.refundFromDashboard(pi, 400);
    const refund = [...fake.refunds.values()][0];
    expect(refund).toMatchObject({ status: 'pending', amount: 400 });
    await fake.settleRefund(String(refund?.id), 'failed');
    expect((await stripe.charges.retrieve(String(refund?.charge))).amount_refunded).toBe(0);
    expect(fake.events.map((e) => e.type)).toEqual(['checkout.session.completed', 'refund.created', 'charge.refunded', 'refund.updated', 'refund.failed']);
  });

  it('subscription mode: first invoice at payment, renewals until cancel_at, then no more charges', async () => {
    const { fake, stripe } = await setup();
    const receiver = await verifyingReceiver(fake);
    const subscribe = async (interval: 'day' | 'month') => {
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ quantity: 1, price_data: { currency: 'brl', unit_amount: 4990, recurring: { interval, interval_count: 1 }, product_data: { name: 'Plan' } } }],
        success_url: 'http://127.0.0.1/ok',
        subscription_data: { metadata: { checkout_id: 'abc' } },
      });
      await fake.pay(session.id);
      return fake.sessions.get(session.id) ?? {};
    };
    const completed = await subscribe('day');
    expect(receiver.verified.map((e) => e.type)).toEqual(['checkout.session.completed', 'invoice.paid']);
    expect(completed).toMatchObject({ payment_intent: null, payment_status: 'paid', subscription: expect.stringMatching(/^sub_/), invoice: expect.stringMatching(/^in_/) });

    const subId = String(completed.subscription);
    const sub = await stripe.subscriptions.retrieve(subId);
    expect(sub).toMatchObject({ status: 'active', metadata: { checkout_id: 'abc' }, cancel_at: null });
    const first = await stripe.invoices.retrieve(String(completed.invoice), { expand: ['payments'] });
    expect(first).toMatchObject({ billing_reason: 'subscription_create', status: 'paid', amount_paid: 4990, parent: { subscription_details: { subscription: subId } } });
    expect(first.payments?.data[0]?.payment.payment_intent).toMatch(/^pi_/);

    // Three charges in all: cancel when the fourth period would start.
    const cancelAt = sub.billing_cycle_anchor + 3 * 86_400;
    await stripe.subscriptions.update(subId, { cancel_at: cancelAt });
    await fake.chargeNextInvoice(subId);
    await fake.chargeNextInvoice(subId, { fail: true });
    await fake.chargeNextInvoice(subId); // reaches cancel_at: no invoice
    expect(fake.invoicesFor(subId).map((i) => [i.billing_reason, i.status, i.amount_due])).toEqual([
      ['subscription_create', 'paid', 4990],
      ['subscription_cycle', 'paid', 4990],
      ['subscription_cycle', 'open', 4990],
    ]);
    expect(fake.subscriptions.get(subId)).toMatchObject({ status: 'canceled', ended_at: cancelAt });
    await expect(fake.chargeNextInvoice(subId)).rejects.toThrow(/canceled/);
    await fake.flush();
    expect(receiver.verified.map((e) => e.type).slice(2)).toEqual(['customer.subscription.updated', 'invoice.paid', 'invoice.payment_failed', 'customer.subscription.deleted']);

    // A cancel_at inside a period shortens it and prorates its invoice; months end-clamp (Jan 31, Feb 28, Mar 31).
    const monthly = await fake.subscriptions.get(String((await subscribe('month')).subscription));
    const periodEnd = monthly?.items.data[0].current_period_end;
    await stripe.subscriptions.update(String(monthly?.id), { cancel_at: periodEnd + (periodEnd - monthly?.billing_cycle_anchor) / 2 });
    await fake.chargeNextInvoice(String(monthly?.id));
    const prorated = fake.invoicesFor(String(monthly?.id)).at(-1);
    expect(prorated?.amount_due).toBeGreaterThan(2300);
    expect(prorated?.amount_due).toBeLessThan(2700);
    expect(prorated?.lines.data[0].parent.subscription_item_details.proration).toBe(true);
  });

  it('webhook modes: duplicate, hold (in reverse), lose', async () => {
    const { fake, stripe } = await setup();
    const receiver = await verifyingReceiver(fake);
    const a = await stripe.checkout.sessions.create(oneTime());
    const b = await stripe.checkout.sessions.create(oneTime());
    const c = await stripe.checkout.sessions.create(oneTime());

    fake.webhooks.mode = 'duplicate';
    await fake.pay(a.id);
    expect(receiver.verified.map((e) => e.id)).toEqual([fake.events[0]?.id, fake.events[0]?.id]);

    fake.webhooks.mode = 'hold';
    await fake.pay(b.id);
    await fake.expireNow(c.id);
    expect(receiver.verified).toHaveLength(2);
    fake.webhooks.mode = 'deliver';
    await fake.deliverHeld({ reverse: true });
    expect(receiver.verified.slice(2).map((e) => e.type)).toEqual(['checkout.session.expired', 'checkout.session.completed']);

    fake.webhooks.mode = 'lose';
    const d = await stripe.checkout.sessions.create(oneTime());
    await fake.pay(d.id);
    expect(receiver.verified).toHaveLength(4);
    expect(fake.events).toHaveLength(4);
  });

  it('an endpoint made through the API gets a secret and only the events it asked for', async () => {
    const { fake, stripe } = await setup();
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    const endpoint = await stripe.webhookEndpoints.create({ url: receiver.url, enabled_events: ['checkout.session.expired'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const a = await stripe.checkout.sessions.create(oneTime());
    await fake.pay(a.id);
    const b = await stripe.checkout.sessions.create(oneTime());
    await stripe.checkout.sessions.expire(b.id);
    await fake.flush();
    expect(receiver.received).toHaveLength(1);
    const event = Stripe.webhooks.constructEvent(receiver.received[0]?.body ?? '', String(receiver.received[0]?.headers['stripe-signature']), String(endpoint.secret));
    expect(event).toMatchObject({ type: 'checkout.session.expired', data: { object: { id: b.id, status: 'expired' } } });
    const expireAgain = await stripe.checkout.sessions.expire(a.id).catch((e: Stripe.errors.StripeError) => e);
    expect(expireAgain).toMatchObject({ statusCode: 400, message: 'Only Checkout Sessions with a status in ["open"] can be expired.' });
  });

  it('failNext: an error status, a lost answer (the SDK retries it on the same key) and a hang', async () => {
    const { fake, stripe } = await setup();
    fake.failNext({ method: 'POST', path: '/v1/checkout/sessions' }, { status: 500 });
    const failed = await stripe.checkout.sessions.create(oneTime()).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(fake.sessions.size).toBe(0);

    fake.failNext({ path: '/v1/checkout/sessions' }, 'after');
    const session = await stripe.checkout.sessions.create(oneTime(), { idempotencyKey: 'lost-answer' });
    expect(fake.sessions.size).toBe(1);
    expect(fake.requests.slice(-2).map((r) => [r.idempotencyKey, r.status, r.replayed ?? false])).toEqual([
      ['lost-answer', 0, false],
      ['lost-answer', 200, true],
    ]);
    expect(session.id).toBe([...fake.sessions.keys()][0]);
    // Lost twice: the SDK gives up, though Stripe made the session.
    fake.failNext({ path: '/v1/checkout/sessions' }, 'after', 2);
    expect(await stripe.checkout.sessions.create(oneTime()).catch((e: unknown) => e)).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(fake.sessions.size).toBe(2);

    fake.failNext({ method: 'GET' }, 'timeout');
    const hung = await sdk(fake, fake.secretKey, { timeout: 200 }).balance.retrieve().catch((e: unknown) => e);
    expect(hung).toBeInstanceOf(Stripe.errors.StripeConnectionError);

    fake.failNext({}, { status: 429 });
    expect(await stripe.balance.retrieve().catch((e: unknown) => e)).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
  });

  it('async payments, disputes, and the payer page', async () => {
    const { fake, stripe } = await setup();
    const session = await stripe.checkout.sessions.create(oneTime(5000));
    await fake.pay(session.id, { async: true });
    expect(fake.sessions.get(session.id)).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    const pi = String(fake.sessions.get(session.id)?.payment_intent);
    expect((await stripe.paymentIntents.retrieve(pi)).status).toBe('processing');
    await fake.asyncSucceeded(session.id);
    expect(await stripe.paymentIntents.retrieve(pi)).toMatchObject({ status: 'succeeded', amount_received: 5000 });

    await fake.openDispute(pi, undefined, 'fraudulent');
    const dispute = fake.events.at(-1)?.data.object;
    expect(dispute).toMatchObject({ object: 'dispute', amount: 5000, reason: 'fraudulent', status: 'needs_response', payment_intent: pi });
    expect(await stripe.refunds.create({ payment_intent: pi }).catch((e: Stripe.errors.StripeError) => e.code)).toBe('charge_disputed');
    await fake.closeDispute(dispute.id, 'lost');
    expect(fake.events.at(-1)).toMatchObject({ type: 'charge.dispute.closed', data: { object: { status: 'lost' } } });

    const other = await stripe.checkout.sessions.create(oneTime(700, { success_url: 'http://127.0.0.1:9/done?session={CHECKOUT_SESSION_ID}' }));
    expect((await fetch(String(other.url))).status).toBe(200);
    const submitted = await fetch(String(other.url), { method: 'POST', redirect: 'manual' });
    expect(submitted.headers.get('location')).toBe(`http://127.0.0.1:9/done?session=${other.id}`);
    expect(fake.sessions.get(other.id)?.status).toBe('complete');
  });
});
