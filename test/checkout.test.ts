import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCheckouts } from '../src/modules/checkouts/expiry.js';
import { DEFAULT_SETTINGS } from '../src/graphql/context.js';
import { represent } from './support/schema.js';
import { type TestApp, newClient, send, startApp } from './support/app.js';

// API.md section 7 through the real server: the public API, checkouts, coupon
// redemptions, the test provider, signed provider webhooks and expiry.
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never });
});
afterAll(() => app.close());

const pub = (path: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) => send(`${app.url}/api/v1/public${path}`, method, { body, headers });

/** A workspace with a `test` provider account and an active link; `link` overrides its fields. */
async function shop(link: Record<string, unknown> = {}, provider = 'test') {
  const api = await newClient(app);
  const account = (await api.post('/payment-provider-accounts', { name: 'Test', provider })).body;
  const created = (await api.post('/payment-links', { name: 'Plan', amount: 1000, currency: 'USD', max_installments: 12, interest_rate: 2, payment_provider_account_id: account.id, ...link })).body;
  expect((await api.post(`/payment-links/${created.id}/activate`)).status).toBe(200);
  return { api, account, link: created, token: created.public_token as string };
}

const payer = { name: 'Ada Lovelace', email: 'ada@example.com' };

describe('the public payment link', () => {
  it('shows an active link with its installment options, and no internal id', async () => {
    const { api, link, token, account } = await shop({ description: 'Monthly plan' });
    const res = await pub(`/payment-links/${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      public_token: token,
      name: 'Plan',
      description: 'Monthly plan',
      currency: 'USD',
      subtotal: 1000,
      products: [],
      is_recurring: false,
      interval_unit: 'month',
      interval_count: 1,
      billing_cycles: null,
      max_installments: 12,
      interest_rate: 2,
      installment_options: expect.any(Array),
      payer_fields: ['name', 'email'],
      payment_methods: [],
    });
    expect(res.body.installment_options).toHaveLength(12);
    expect(res.body.installment_options[0]).toEqual({ installments: 1, installment_amount: 1000, total: 1000, interest: 0 });
    // 1000 * 0.02 / (1 - 1.02^-12) = 94.5596 -> 94.56
    expect(res.body.installment_options[11]).toEqual({ installments: 12, installment_amount: 94.56, total: 1134.72, interest: 134.72 });
    for (const id of [link.id, account.id, api.workspaceId]) expect(res.text).not.toContain(id);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the same 404 for an unknown and an inactive link, and 422 for a link that cannot be paid', async () => {
    const { api, account } = await shop();
    const inactive = (await api.post('/payment-links', { name: 'Off', amount: 5, currency: 'USD', payment_provider_account_id: account.id })).body;
    for (const token of ['nope', inactive.public_token]) {
      const res = await pub(`/payment-links/${token}`);
      expect([res.status, res.body]).toEqual([404, { message: 'Payment link not found.' }]);
    }
    const free = await shop({ amount: 0 });
    for (const [method, path, body] of [
      ['GET', `/payment-links/${free.token}`],
      ['POST', `/payment-links/${free.token}/quote`, {}],
      ['POST', `/payment-links/${free.token}/checkouts`, { payer }],
    ] as const) {
      const res = await pub(path, method, body);
      expect([path, res.status, res.body]).toEqual([path, 422, { message: 'This payment link cannot be paid.' }]);
    }
  });

  it('quotes installments and coupons, and refuses a bad coupon the same way for every cause', async () => {
    const { api, link, token } = await shop();
    await api.post('/payment-coupons', { code: 'TENOFF', type: 'percent', value: 10, payment_link_id: link.id });
    await api.post('/payment-coupons', { code: 'OFF', type: 'amount', value: 5, payment_link_id: link.id, is_active: false });
    await api.post('/payment-coupons', { code: 'OLD', type: 'amount', value: 5, payment_link_id: link.id, expires_at: '2020-01-01T00:00:00Z' });
    const res = await pub(`/payment-links/${token}/quote`, 'POST', { installments: 2, coupon_code: 'tenoff' });
    expect(res.status).toBe(200);
    // 900 at 2% over 2 months: 900 * 0.02 / (1 - 1.02^-2) = 463.5446 -> 463.54
    expect(res.body).toMatchObject({ currency: 'USD', subtotal: 1000, discount: 100, total: 927.08, interest: 27.08, installments: 2, installment_amount: 463.54, coupon: { code: 'TENOFF', type: 'percent', value: 10 } });
    expect(res.body.schedule.map((s: { number: number; amount: number }) => [s.number, s.amount])).toEqual([[1, 463.54], [2, 463.54]]);
    for (const code of ['NOPE', 'OFF', 'OLD']) {
      const bad = await pub(`/payment-links/${token}/quote`, 'POST', { coupon_code: code });
      expect([code, bad.status, bad.body.errors]).toEqual([code, 422, { coupon_code: ['The coupon is not valid.'] }]);
    }
    const tooMany = await pub(`/payment-links/${token}/quote`, 'POST', { installments: 13 });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(['installments']);
  });
});

describe('checkouts', () => {
  it('create a pending transaction, the payer as a contact and one redemption, in one transaction', async () => {
    const { api, link, token } = await shop();
    const coupon = (await api.post('/payment-coupons', { code: 'FIVE', type: 'amount', value: 5, payment_link_id: link.id })).body;
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { installments: 1, coupon_code: 'five', payer });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', subtotal: 1000, discount: 5, total: 995, installments: 1, next_action: { type: 'redirect' } });
    expect(res.body.checkout_id).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    // Exactly `type` and `url` (section 7): a Pix code's `pix` key is only there for Pix.
    expect(res.body.next_action).toEqual({ type: 'redirect', url: `${app.url}/pay/checkouts/${res.body.checkout_id}/test-provider` });
    const transactions = (await api.get('/payment-transactions')).body.data;
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ status: 'pending', amount: 995, currency: 'USD' });
    expect(transactions[0].metadata.checkout.payer).toEqual(payer);
    const contacts = (await api.get('/contacts?email=ada@example.com')).body.data;
    expect(contacts.map((c: { first_name: string; last_name: string }) => [c.first_name, c.last_name])).toEqual([['Ada', 'Lovelace']]);
    expect(transactions[0].metadata.checkout.contact_id).toBe(contacts[0].id);
    // Metadata the service writes is snake_case like every answer (API.md section 2).
    const { amounts } = transactions[0].metadata.checkout;
    expect(Object.keys(amounts).sort()).toEqual(['coupon', 'currency', 'discount', 'installment_amount', 'installments', 'interest', 'schedule', 'subtotal', 'total']);
    expect(amounts).toMatchObject({ installment_amount: 995, schedule: [{ number: 1, amount: 995, due_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) }] });
    expect(Object.keys(amounts.schedule[0]).sort()).toEqual(['amount', 'due_date', 'number']);
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    // The events of section 6: the transaction, the contact, the coupon's redemption, actor checkout.
    const events = (await api.get('/events')).body.data.filter((e: { actor: { type: string } }) => e.actor.type === 'checkout');
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual(['contact.created', 'payment_coupon.updated', 'payment_transaction.created']);
    // An existing contact is not changed by a later checkout.
    await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Someone Else', email: 'ADA@example.com' } });
    expect((await api.get('/contacts?email=ada@example.com')).body.data.map((c: { first_name: string }) => c.first_name)).toEqual(['Ada']);
    // The public view of the checkout.
    const shown = await pub(`/checkouts/${res.body.checkout_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ checkout_id: res.body.checkout_id, status: 'pending', total: 995, payment_link: { name: 'Plan', public_token: token } });
    expect((await pub('/checkouts/unknown')).status).toBe(404);
  });

  it('keep their amounts exactly, in decimal columns of their own, and show them from there', async () => {
    const { api, link, token } = await shop({ amount: 120, max_installments: 6, interest_rate: 1.5 });
    await api.post('/payment-coupons', { code: 'TENOFF', type: 'percent', value: 10, payment_link_id: link.id });
    const made = (await pub(`/payment-links/${token}/checkouts`, 'POST', { installments: 6, coupon_code: 'TENOFF', payer })).body;
    const stored = await app.database.prisma.checkout.findUniqueOrThrow({
      where: { token: made.checkout_id },
      select: { currency: true, subtotal: true, discount: true, interest: true, total: true, installments: true, installmentAmount: true, transaction: { select: { amount: true } } },
    });
    // 108 over 6 at 1.5%: 18.96 each, 113.76 in all.
    const exact = Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, typeof v === 'object' && v !== null && 'toFixed' in v ? (v as { toFixed(d: number): string }).toFixed(4) : v]));
    expect({ ...exact, transaction: stored.transaction.amount.toFixed(4) }).toEqual({
      currency: 'USD', subtotal: '120.0000', discount: '12.0000', interest: '5.7600', total: '113.7600', installments: 6, installmentAmount: '18.9600', transaction: '113.7600',
    });
    // What the payer is shown comes from those columns.
    await app.database.prisma.checkout.update({ where: { token: made.checkout_id }, data: { total: '113.77' } });
    expect((await pub(`/checkouts/${made.checkout_id}`)).body).toMatchObject({ subtotal: 120, discount: 12, interest: 5.76, total: 113.77, installments: 6, installment_amount: 18.96 });
  });

  it('refuse bad payers and a provider without an adapter, writing nothing', async () => {
    const { api, token } = await shop();
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: '', email: 'not-an-email' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['payer.email', 'payer.name']);
    // An account an earlier version stored with a provider this one has no adapter for.
    const stripe = await shop();
    await app.database.prisma.paymentProviderAccount.update({ where: { id: stripe.account.id }, data: { provider: 'mercadopago' } });
    const online = await pub(`/payment-links/${stripe.token}/checkouts`, 'POST', { payer });
    expect([online.status, online.body]).toEqual([422, { message: 'This payment link cannot be paid online.' }]);
    for (const a of [api, stripe.api]) {
      expect((await a.get('/payment-transactions')).body.total).toBe(0);
      expect((await a.get('/contacts')).body.total).toBe(0);
    }
  });

  it('honour Idempotency-Key: the same checkout again, nothing new written', async () => {
    const { api, token } = await shop();
    const headers = { 'Idempotency-Key': 'pay-once' };
    const first = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer }, headers);
    const again = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer }, headers);
    expect(first.status).toBe(201);
    expect([again.status, again.body.checkout_id, again.headers.get('idempotent-replayed')]).toEqual([201, first.body.checkout_id, 'true']);
    expect((await api.get('/payment-transactions')).body.total).toBe(1);
  });

  it('never pass max_redemptions under concurrent checkouts', async () => {
    const { api, link, token } = await shop();
    const coupon = (await api.post('/payment-coupons', { code: 'TEN', type: 'amount', value: 1, max_redemptions: 10, payment_link_id: link.id })).body;
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => pub(`/payment-links/${token}/checkouts`, 'POST', { coupon_code: 'TEN', payer: { name: `P ${i}`, email: `p${i}@example.com` } })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(40);
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(10);
    expect((await api.get('/payment-transactions')).body.total).toBe(10);
  });
});

describe('the test provider and the result page', () => {
  it('approve: the transaction is paid, through ingestion, and the result page says so', async () => {
    const { api, token } = await shop();
    const checkout = (await pub(`/payment-links/${token}/checkouts`, 'POST', { payer })).body;
    const page = await send(checkout.next_action.url, 'GET');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Approve');
    const approved = await fetch(checkout.next_action.url, { method: 'POST', body: 'decision=approve', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect([approved.status, approved.headers.get('location')]).toEqual([303, `/pay/checkouts/${checkout.checkout_id}`]);
    expect((await pub(`/checkouts/${checkout.checkout_id}`)).body).toMatchObject({ status: 'paid', next_action: null });
    const result = await send(`${app.url}/pay/checkouts/${checkout.checkout_id}`, 'GET');
    expect(result.text).toContain('data-status="paid"');
    const [transaction] = (await api.get('/payment-transactions')).body.data;
    expect(transaction.events.map((e: { type: string; status: string }) => [e.type, e.status])).toEqual([['payment.paid', 'paid']]);
    const updated = (await api.get(`/events?type=payment_transaction.updated&record_id=${transaction.id}`)).body.data;
    expect(updated.map((e: { actor: unknown }) => e.actor)).toEqual([{ type: 'provider', id: transaction.provider_account.id }]);
  });

  it('decline: the transaction fails and the coupon redemption is given back exactly once', async () => {
    const { api, link, token } = await shop();
    const coupon = (await api.post('/payment-coupons', { code: 'ONE', type: 'amount', value: 1, max_redemptions: 1, payment_link_id: link.id })).body;
    const checkout = (await pub(`/payment-links/${token}/checkouts`, 'POST', { coupon_code: 'ONE', payer })).body;
    expect((await pub(`/payment-links/${token}/quote`, 'POST', { coupon_code: 'ONE' })).status).toBe(422);
    await fetch(checkout.next_action.url, { method: 'POST', body: 'decision=decline', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect((await pub(`/checkouts/${checkout.checkout_id}`)).body.status).toBe('failed');
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(0);
    // A canceled event after the failure gives nothing back a second time.
    const [transaction] = (await api.get('/payment-transactions')).body.data;
    await api.post(`/payment-transactions/${transaction.id}/events`, { type: 'payment.canceled', status: 'canceled', provider_reference: 'evt_c', occurred_at: new Date().toISOString() });
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(0);
    expect((await pub(`/payment-links/${token}/quote`, 'POST', { coupon_code: 'ONE' })).status).toBe(200);
  });
});

describe('the payment page', () => {
  const form = (token: string, fields: Record<string, string>) =>
    send(`${app.url}/pay/${token}`, 'POST', { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  /** Each installment option's text on a page, by its number of installments. */
  const optionsOf = (html: string) =>
    Object.fromEntries([...html.matchAll(/<input type="radio" name="installments" value="(\d+)"[^>]*> <span>([^<]*)<\/span>/g)].map((m) => [Number(m[1]), m[2]]));
  const money = (n: number) => `$${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

  it('prices every installment option after the coupon applied (and before, once it is removed), as the quotes do', async () => {
    const { api, link, token } = await shop({ amount: 120, max_installments: 6, interest_rate: 1.5 });
    await api.post('/payment-coupons', { code: 'TENOFF', type: 'percent', value: 10, payment_link_id: link.id });
    // 120 at 1.5% a month over 6: 120 * 0.015 / (1 - 1.015^-6) = 21.063 -> 21.06, total 126.36.
    const plain = optionsOf((await send(`${app.url}/pay/${token}`, 'GET')).text);
    expect(plain[6]).toBe('6 × $21.06 (total $126.36, interest $6.36)');

    const applied = await form(token, { action: 'quote', installments: '6', coupon_code: 'tenoff' });
    expect(applied.status).toBe(200);
    const options = optionsOf(applied.text);
    // 108 (120 less 10%) over 6: 108 * 0.015 / (1 - 1.015^-6) = 18.957 -> 18.96, total 113.76.
    expect(options[1]).toBe('Pay in full: $108.00');
    expect(options[6]).toBe('6 × $18.96 (total $113.76, interest $5.76)');
    expect(applied.text).toContain('<dd data-amount="total">$113.76</dd>');
    // Every option reads what the quote of that choice, with the coupon, charges.
    for (let n = 1; n <= 6; n++) {
      const q = (await pub(`/payment-links/${token}/quote`, 'POST', { installments: n, coupon_code: 'TENOFF' })).body;
      expect([n, options[n]]).toEqual([n, n === 1 ? `Pay in full: ${money(q.total)}` : `${n} × ${money(q.installment_amount)} (total ${money(q.total)}, interest ${money(q.interest)})`]);
    }
    // The coupon removed: the undiscounted prices again.
    const removed = await form(token, { action: 'quote', installments: '6', coupon_code: '' });
    expect(removed.status).toBe(200);
    expect(optionsOf(removed.text)).toEqual(plain);
    expect(removed.text).toContain('<dd data-amount="total">$126.36</dd>');
    // The quote's REST answer keeps exactly its fields; the options are GraphQL's (and the page's).
    expect(Object.keys((await pub(`/payment-links/${token}/quote`, 'POST', { installments: 6, coupon_code: 'TENOFF' })).body).sort()).toEqual(
      ['coupon', 'currency', 'discount', 'installment_amount', 'installments', 'interest', 'schedule', 'subtotal', 'total'],
    );
  });

  it('shows a receipt once paid: what was bought, the amounts, each installment with its date, the date, and a reference the merchant can find', async () => {
    const { api, account } = await shop();
    const product = (await api.post('/products', { name: 'Seat <A&B>', sku: `S-${Date.now()}`, type: 'service', price: 300, currency: 'USD', unit: 'seat' })).body;
    const link = (await api.post('/payment-links', { name: 'Seats', currency: 'USD', max_installments: 3, interest_rate: 2, payment_provider_account_id: account.id, product_ids: [product.id] })).body;
    await api.post(`/payment-links/${link.id}/activate`);
    await api.post('/payment-coupons', { code: 'FIFTY', type: 'amount', value: 50, payment_link_id: link.id });
    const checkout = (await pub(`/payment-links/${link.public_token}/checkouts`, 'POST', { installments: 3, coupon_code: 'FIFTY', payer })).body;
    await fetch(checkout.next_action.url, { method: 'POST', body: 'decision=approve', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });

    const receipt = (await send(`${app.url}/pay/checkouts/${checkout.checkout_id}`, 'GET')).text;
    expect(receipt).toContain('data-status="paid"');
    expect(receipt).toContain('<li><span>Seat &#60;A&#38;B&#62;</span> <span>$300.00</span></li>');
    // 250 at 2% over 3: 250 * 0.02 / (1 - 1.02^-3) = 86.688 -> 86.69, total 260.07.
    expect(checkout).toMatchObject({ subtotal: 300, discount: 50, total: 260.07, interest: 10.07, installment_amount: 86.69 });
    for (const [name, shown] of [['subtotal', '$300.00'], ['discount', '$50.00'], ['interest', '$10.07'], ['total', '$260.07']]) {
      expect(receipt).toContain(`<dd data-amount="${name}">${shown}</dd>`);
    }
    expect(receipt).toContain('<dt>Discount (FIFTY)</dt>');
    expect(receipt).toContain('<caption>3 installments</caption>');
    const rows = [...receipt.matchAll(/<tr><td>(\d+)<\/td><td><time datetime="([\d-]+)">[\d-]+<\/time><\/td><td data-installment="\d+">([^<]+)<\/td><\/tr>/g)].map((m) => [Number(m[1]), m[2], m[3]]);
    expect(rows).toEqual(checkout.schedule.map((s: { number: number; due_date: string; amount: number }) => [s.number, s.due_date, money(s.amount)]));
    expect(rows).toHaveLength(3);
    const stored = await app.database.prisma.checkout.findUniqueOrThrow({ where: { token: checkout.checkout_id }, select: { createdAt: true } });
    expect(receipt).toContain(`<time datetime="${stored.createdAt.toISOString()}">`);
    // The reference is the start of the checkout id: the merchant's search of transactions finds the payment by it.
    const reference = /<dd data-receipt="reference">([^<]+)<\/dd>/.exec(receipt)![1]!;
    expect(reference).toBe(checkout.checkout_id.slice(0, 12));
    const found = (await api.get(`/payment-transactions?search=${encodeURIComponent(reference)}`)).body;
    expect(found.data.map((t: { status: string; amount: number }) => [t.status, t.amount])).toEqual([['paid', 260.07]]);
  });
});

describe('signed provider webhooks', () => {
  const sign = (secret: string, body: string, at = new Date(), id = `msg_${Math.random()}`) => {
    const signature = new Webhook(secret).sign(id, at, body);
    return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, 'Content-Type': 'application/json' };
  };

  it('are ingested when signed with the account secret; 401 on a missing, wrong or stale signature; re-deliveries are idempotent', async () => {
    const { api, account, token } = await shop();
    expect(account.webhook_secret).toMatch(/^whsec_/);
    expect((await api.get(`/payment-provider-accounts/${account.id}`)).body.webhook_secret).toBeUndefined();
    const checkout = (await pub(`/payment-links/${token}/checkouts`, 'POST', { payer })).body;
    const url = `${app.url}/api/v1/provider-webhooks/${account.id}`;
    const body = JSON.stringify({ type: 'payment.paid', status: 'paid', provider_reference: 'evt_1', transaction_provider_reference: `checkout_${checkout.checkout_id}`, occurred_at: '2026-11-20T10:00:00Z' });
    expect((await send(url, 'POST', { raw: body, headers: { 'Content-Type': 'application/json' } })).status).toBe(401);
    expect((await send(url, 'POST', { raw: body, headers: sign('whsec_' + Buffer.from('x'.repeat(32)).toString('base64'), body) })).status).toBe(401);
    expect((await send(url, 'POST', { raw: body, headers: sign(account.webhook_secret, body, new Date(Date.now() - 6 * 60_000)) })).status).toBe(401);
    expect((await send(url, 'POST', { raw: body.replace('paid', 'failed'), headers: sign(account.webhook_secret, body) })).status).toBe(401);
    const ok = await send(url, 'POST', { raw: body, headers: sign(account.webhook_secret, body) });
    expect([ok.status, ok.body.status, ok.body.provider_reference]).toEqual([201, 'paid', 'evt_1']);
    const again = await send(url, 'POST', { raw: body, headers: sign(account.webhook_secret, body) });
    expect([again.status, again.body.id]).toEqual([200, ok.body.id]);
    expect((await pub(`/checkouts/${checkout.checkout_id}`)).body.status).toBe('paid');
    // Another account's secret does not sign for this one.
    const other = await shop();
    expect((await send(url, 'POST', { raw: body, headers: sign(other.account.webhook_secret, body) })).status).toBe(401);
  });
});

describe('expiry', () => {
  it('runs in the background work of a serving process: a checkout past its expiry is canceled without a request', async () => {
    const { token } = await shop();
    const checkout = (await pub(`/payment-links/${token}/checkouts`, 'POST', { payer })).body;
    await app.database.prisma.checkout.update({ where: { token: checkout.checkout_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    // Another process on the same database, running its background loops as main.ts does (the first round at start).
    const serving = await startApp({ background: { WEBHOOKS_DELIVER: false } });
    try {
      await expect.poll(async () => (await pub(`/checkouts/${checkout.checkout_id}`)).body.status, { timeout: 15_000, interval: 50 }).toBe('canceled');
    } finally {
      await serving.close();
    }
  });

  it('cancels a checkout still pending after its expiry, gives its redemption back, and leaves paid ones', async () => {
    const { api, link, token } = await shop();
    const coupon = (await api.post('/payment-coupons', { code: 'EXP', type: 'amount', value: 1, payment_link_id: link.id })).body;
    const pending = (await pub(`/payment-links/${token}/checkouts`, 'POST', { coupon_code: 'EXP', payer })).body;
    const paid = (await pub(`/payment-links/${token}/checkouts`, 'POST', { coupon_code: 'EXP', payer })).body;
    await fetch(paid.next_action.url, { method: 'POST', body: 'decision=approve', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(2);
    const later = new Date(Date.now() + (DEFAULT_SETTINGS.checkoutExpiryMinutes + 1) * 60_000);
    expect(await expireCheckouts(app.database.prisma, represent, DEFAULT_SETTINGS, { now: new Date(Date.now() + 60_000) })).toBe(0);
    expect(await expireCheckouts(app.database.prisma, represent, DEFAULT_SETTINGS, { now: later })).toBeGreaterThanOrEqual(1);
    expect((await pub(`/checkouts/${pending.checkout_id}`)).body.status).toBe('canceled');
    expect((await pub(`/checkouts/${paid.checkout_id}`)).body.status).toBe('paid');
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    // Once is all: a second run finds nothing of this workspace to cancel.
    await expireCheckouts(app.database.prisma, represent, DEFAULT_SETTINGS, { now: later });
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
  });
});

describe('what the public sees', () => {
  it('never holds an internal id: every public answer of a whole flow is scanned for the ids it created', async () => {
    const { api, account } = await shop();
    const product = (await api.post('/products', { name: 'Seat', sku: `SEAT-${Date.now()}`, type: 'service', price: 250, currency: 'USD', unit: 'seat' })).body;
    const link = (await api.post('/payment-links', { name: 'Seats', currency: 'USD', max_installments: 3, payment_provider_account_id: account.id, product_ids: [product.id] })).body;
    await api.post(`/payment-links/${link.id}/activate`);
    const coupon = (await api.post('/payment-coupons', { code: 'SEATS5', type: 'percent', value: 5, payment_link_id: link.id })).body;
    const token = link.public_token;
    const answers: string[] = [];
    const seen = async (reply: Promise<{ text: string; status: number }>) => {
      const r = await reply;
      answers.push(r.text);
      return r;
    };
    const shown = await seen(pub(`/payment-links/${token}`));
    expect((shown as unknown as { body: { subtotal: number; products: unknown[] } }).body).toMatchObject({ subtotal: 250, products: [{ name: 'Seat', price: 250, currency: 'USD' }] });
    await seen(pub(`/payment-links/${token}/quote`, 'POST', { installments: 3, coupon_code: 'SEATS5' }));
    await seen(pub(`/payment-links/${token}/quote`, 'POST', { coupon_code: 'WRONG' }));
    await seen(pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: '', email: 'x' } }));
    const checkout = (await seen(pub(`/payment-links/${token}/checkouts`, 'POST', { installments: 3, coupon_code: 'SEATS5', payer }))) as unknown as { text: string; body: { checkout_id: string; next_action: { url: string } } };
    await seen(pub(`/checkouts/${checkout.body.checkout_id}`));
    await seen(send(`${app.url}/pay/${token}`, 'GET'));
    await seen(send(checkout.body.next_action.url, 'GET'));
    await seen(send(`${app.url}/pay/checkouts/${checkout.body.checkout_id}`, 'GET'));
    const [transaction] = (await api.get('/payment-transactions')).body.data;
    const contact = (await api.get('/contacts')).body.data[0];
    const internal = await app.database.prisma.checkout.findUniqueOrThrow({ where: { token: checkout.body.checkout_id }, select: { id: true } });
    const ids = { workspace: api.workspaceId, account: account.id, link: link.id, product: product.id, coupon: coupon.id, transaction: transaction.id, contact: contact.id, checkout: internal.id };
    for (const [name, id] of Object.entries(ids)) {
      expect([name, answers.filter((text) => text.includes(id)).length]).toEqual([name, 0]);
    }
  });

  it('a token shows only its own link: through /graphql a key sees its own workspace\'s links and checkouts, never another\'s', async () => {
    const mine = await shop();
    const theirs = await shop();
    const theirCheckout = (await pub(`/payment-links/${theirs.token}/checkouts`, 'POST', { payer })).body;
    const query = 'query ($t: String!) { publicPaymentLink(publicToken: $t) { name } }';
    expect((await mine.api.graphql(query, { t: mine.token })).body.data.publicPaymentLink).toEqual({ name: 'Plan' });
    const foreign = await mine.api.graphql(query, { t: theirs.token });
    expect(foreign.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['NOT_FOUND']);
    const checkout = await mine.api.graphql('query ($c: String!) { checkout(checkoutId: $c) { status } }', { c: theirCheckout.checkout_id });
    expect(checkout.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['NOT_FOUND']);
    const create = await mine.api.graphql('mutation ($t: String!) { createCheckout(publicToken: $t, input: { payer: { name: "X", email: "x@example.com" } }) { status } }', { t: theirs.token });
    expect(create.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['NOT_FOUND']);
    expect((await theirs.api.get('/payment-transactions')).body.total).toBe(1);
    expect((await mine.api.get('/payment-transactions')).body.total).toBe(0);
  });
});

describe('hostile public input (found by the fuzzing)', () => {
  it('a path credential the service never makes is answered without a lookup: 404 or 401, never a 500', async () => {
    for (const bad of ['%00', 'a%00b', '%F0%9F%99%82', '%ED%A0%80', 'constructor', 'x'.repeat(300)]) {
      expect([bad, (await pub(`/payment-links/${bad}`)).status]).toEqual([bad, 404]);
      expect([bad, (await pub(`/payment-links/${bad}/quote`, 'POST', {})).status]).toEqual([bad, 404]);
      expect([bad, (await pub(`/checkouts/${bad}`)).status]).toEqual([bad, 404]);
      expect([bad, (await send(`${app.url}/pay/${bad}`, 'GET')).status]).toEqual([bad, 404]);
      expect([bad, (await send(`${app.url}/pay/checkouts/${bad}/test-provider`, 'POST', { raw: 'decision=approve', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status]).toEqual([bad, 404]);
      const signed = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA', 'Content-Type': 'application/json' };
      // A path that does not decode (a lone surrogate's bytes) matches no route at all: 404.
      const expected = bad === '%ED%A0%80' ? 404 : 401;
      expect([bad, (await send(`${app.url}/api/v1/provider-webhooks/${bad}`, 'POST', { raw: '{}', headers: signed })).status]).toEqual([bad, expected]);
    }
  });

  it('the page refuses a form with a NUL or a number it cannot read with 422, writing nothing', async () => {
    const { api, token } = await shop();
    const form = (body: string) => send(`${app.url}/pay/${token}`, 'POST', { raw: body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    for (const body of ['installments=2%00&action=quote', 'installments=1e999&action=quote', 'installments=99999999999&action=pay&name=A&email=a%40example.com', 'name=A%00&email=a%40example.com&action=pay', 'coupon_code=%00&action=quote']) {
      const reply = await form(body);
      expect([body, reply.status, reply.headers.get('content-type')]).toEqual([body, 422, 'text/html; charset=utf-8']);
    }
    expect((await api.get('/payment-transactions')).body.total).toBe(0);
    expect((await api.get('/contacts')).body.total).toBe(0);
  });
});

describe('the public rate limit', () => {
  it('counts public requests per client address, apart from the key limit', async () => {
    const limited = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 3 } as never });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await send(`${limited.url}/api/v1/public/payment-links/none`, 'GET')).status);
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      // A keyed request is not counted against it.
      const api = await newClient(limited);
      expect((await api.get('/contacts')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers no browser of another origin, even one CORS_ORIGINS lists for the keyed API', async () => {
    const origin = 'https://shop.example';
    const open = await startApp({ corsOrigins: [origin] });
    try {
      const keyed = await send(`${open.url}/api/v1/contacts`, 'GET', { headers: { Origin: origin } });
      expect(keyed.headers.get('access-control-allow-origin')).toBe(origin);
      for (const path of ['/api/v1/public/payment-links/x', '/api/v1/provider-webhooks/x', '/pay/x']) {
        const reply = await send(`${open.url}${path}`, 'GET', { headers: { Origin: origin } });
        const preflight = await send(`${open.url}${path}`, 'OPTIONS', { headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
        expect([path, reply.headers.get('access-control-allow-origin'), preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([path, null, 204, null]);
      }
    } finally {
      await open.close();
    }
  });
});

