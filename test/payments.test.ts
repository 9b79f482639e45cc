import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, countStatements, newClient, startApp } from './support/app.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ACCOUNT_FIELDS = ['created_at', 'credentials_hint', 'id', 'mode', 'name', 'provider', 'webhook_url'].sort();
const LINK_FIELDS = [
  'id', 'public_token', 'name', 'description', 'amount', 'currency', 'is_active', 'max_installments', 'interest_rate', 'is_recurring',
  'interval_unit', 'interval_count', 'billing_cycles', 'payment_provider_account_id', 'provider_account', 'products', 'created_at',
].sort();
const COUPON_FIELDS = ['id', 'code', 'type', 'value', 'max_redemptions', 'is_active', 'expires_at', 'times_redeemed', 'created_at', 'payment_link_id', 'payment_link'].sort();
const TRANSACTION_FIELDS = ['id', 'status', 'provider_reference', 'provider_account', 'payment_link', 'amount', 'amount_refunded', 'currency', 'metadata', 'created_at', 'dispute', 'events'].sort();
const EVENT_FIELDS = ['id', 'type', 'status', 'provider_reference', 'payload', 'occurred_at'].sort();

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function account(api: Client, name = 'Stripe main') {
  const res = await api.post('/payment-provider-accounts', { name, provider: 'test' });
  expect(res.status).toBe(201);
  return res.body;
}

async function product(api: Client, price: number, currency: string, name = `P ${currency}`) {
  const res = await api.post('/products', { name, type: 'product', price, currency, unit: 'unit' });
  expect(res.status).toBe(201);
  return res.body;
}

async function link(api: Client, body: Record<string, unknown> = {}) {
  const acc = body.payment_provider_account_id ? undefined : await account(api);
  const res = await api.post('/payment-links', { name: 'Annual plan', payment_provider_account_id: acc?.id, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

async function transaction(api: Client, paymentLink: { id: string }, body: Record<string, unknown> = {}) {
  return api.post('/payment-transactions', { payment_link_id: paymentLink.id, provider_reference: `pi_${Math.random().toString(36).slice(2)}`, amount: 10, currency: 'USD', ...body });
}

describe('payment provider accounts', () => {
  it('creates and lists with exactly the specified fields', async () => {
    const api = await newClient(app);
    const { webhook_secret: secret, webhook_token: token, ...created } = await account(api);
    expect(token).toBeUndefined();
    expect(Object.keys(created).sort()).toEqual(ACCOUNT_FIELDS);
    expect(created).toMatchObject({ name: 'Stripe main', provider: 'test' });
    expect(created.created_at).toMatch(ISO);
    // The provider webhooks' secret (API.md section 7): `whsec_` + base64 of 32 bytes, in the create answer only.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await api.get('/payment-provider-accounts');
    expect(list.body).toEqual({ current_page: 1, per_page: 15, total: 1, last_page: 1, data: [created] });
  });

  it('requires name and provider', async () => {
    const api = await newClient(app);
    const res = await api.post('/payment-provider-accounts', { provider: 'Not Valid!' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      name: ['The name field is required.'],
      provider: ['The selected provider is invalid.'],
    });
    expect((await api.get('/payment-provider-accounts')).body.total).toBe(0);
  });
});

describe('payment links', () => {
  it('creates an inactive link with defaults, a URL-safe token, its account and products', async () => {
    const api = await newClient(app);
    const acc = await account(api);
    const usd = await product(api, 19.99, 'USD');
    const res = await api.post('/payment-links', { name: 'Annual plan', payment_provider_account_id: acc.id, product_ids: [usd.id, usd.id] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(LINK_FIELDS);
    expect(res.body).toMatchObject({
      name: 'Annual plan',
      description: null,
      amount: null,
      currency: 'USD',
      is_active: false,
      max_installments: 1,
      interest_rate: 0,
      is_recurring: false,
      interval_unit: 'month',
      interval_count: 1,
      billing_cycles: null,
      payment_provider_account_id: acc.id,
      provider_account: { id: acc.id, name: 'Stripe main' },
      products: [{ id: usd.id, name: usd.name, price: 19.99, price_minor: 1999, currency: 'USD' }],
    });
    expect(res.body.public_token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect((await api.get(`/payment-links/${res.body.id}`)).body).toEqual(res.body);
  });

  it('gives every link its own token', async () => {
    const api = await newClient(app);
    const acc = await account(api);
    const tokens = await Promise.all(Array.from({ length: 20 }, async () => (await link(api, { payment_provider_account_id: acc.id })).public_token));
    expect(new Set(tokens).size).toBe(20);
  });

  it('computes price_minor from the ISO 4217 exponent of each product currency', async () => {
    const api = await newClient(app);
    const jpy = await product(api, 1500, 'JPY');
    const usd = await product(api, 12.345, 'USD');
    const bhd = await product(api, 1.2345, 'BHD');
    const created = await link(api, { product_ids: [jpy.id, usd.id, bhd.id] });
    expect(created.products.map((p: any) => [p.currency, p.price, p.price_minor])).toEqual([
      ['JPY', 1500, 1500],
      ['USD', 12.345, 1235],
      ['BHD', 1.2345, 1235],
    ]);
  });

  it('activates and deactivates; activating an active link is a no-op 200', async () => {
    const api = await newClient(app);
    const created = await link(api);
    const on = await api.post(`/payment-links/${created.id}/activate`);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ ...created, is_active: true });
    const updatedAt = async () => (await api.graphql('query($id: ID!) { paymentLink(id: $id) { updatedAt } }', { id: created.id })).body.data.paymentLink.updatedAt;
    const before = await updatedAt();
    const again = await api.request('POST', `/payment-links/${created.id}/activate`);
    expect([again.status, again.body.is_active]).toEqual([200, true]);
    expect(await updatedAt()).toBe(before);
    const off = await api.post(`/payment-links/${created.id}/deactivate`);
    expect([off.status, off.body.is_active]).toEqual([200, false]);
    expect((await api.post('/payment-links/01JUNKJUNKJUNKJUNKJUNKJUNK/activate')).body).toEqual({ message: 'Payment link not found.' });
  });

  it('checks every numeric rule and reference, and creates nothing when refused', async () => {
    const api = await newClient(app);
    const res = await api.post('/payment-links', {
      name: '',
      amount: -1,
      currency: 'usd',
      max_installments: 49,
      interest_rate: -0.5,
      interval_unit: 'fortnight',
      interval_count: 0,
      billing_cycles: 0,
      payment_provider_account_id: 'nope',
      product_ids: ['nope'],
      is_recurring: 'yes',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      name: ['The name field is required.'],
      amount: ['The amount field must be at least 0.'],
      currency: ['The currency field must be an ISO 4217 currency code in upper case.'],
      max_installments: ['The max installments field must not be greater than 48.'],
      interest_rate: ['The interest rate field must be at least 0.'],
      interval_unit: ['The selected interval unit is invalid.'],
      interval_count: ['The interval count field must be at least 1.'],
      billing_cycles: ['The billing cycles field must be at least 1.'],
      payment_provider_account_id: ['The selected payment provider account id is invalid.'],
      product_ids: ['The selected product ids is invalid.'],
      is_recurring: ['The is recurring field must be true or false.'],
    });
    expect((await api.post('/payment-links', { name: 'x', max_installments: 0, interval_count: 1.5 })).body.errors).toEqual({
      max_installments: ['The max installments field must be at least 1.'],
      interval_count: ['The interval count field must be an integer.'],
      payment_provider_account_id: ['The payment provider account id field is required.'],
    });
    expect((await api.get('/payment-links')).body.total).toBe(0);
  });

  it('updates partially, replaces products, clears nullable fields, never changes the token', async () => {
    const api = await newClient(app);
    const [a, b] = [await product(api, 1, 'USD', 'A'), await product(api, 2, 'USD', 'B')];
    const other = await account(api, 'Other');
    const created = await link(api, { product_ids: [a.id], amount: 50, description: 'Yearly' });
    const res = await api.put(`/payment-links/${created.id}`, {
      ...created,
      public_token: 'mine',
      description: null,
      is_recurring: true,
      interval_unit: 'year',
      billing_cycles: 3,
      payment_provider_account_id: other.id,
      product_ids: [b.id],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      public_token: created.public_token,
      description: null,
      amount: 50,
      is_recurring: true,
      interval_unit: 'year',
      billing_cycles: 3,
      provider_account: { id: other.id, name: 'Other' },
      products: [{ id: b.id }],
    });
    const partial = await api.put(`/payment-links/${created.id}`, { name: 'Renamed' });
    expect(partial.body).toMatchObject({ name: 'Renamed', amount: 50, billing_cycles: 3, products: [{ id: b.id }] });
    expect((await api.put(`/payment-links/${created.id}`, { max_installments: 100 })).status).toBe(422);
    expect((await api.get(`/payment-links/${created.id}`)).body.max_installments).toBe(1);
  });

  it('navigates coupons, products, transactions and the account in GraphQL', async () => {
    const api = await newClient(app);
    const p = await product(api, 5, 'USD');
    const created = await link(api, { product_ids: [p.id] });
    const coupon = (await api.post('/payment-coupons', { code: 'HELLO', type: 'amount', value: 1, payment_link_id: created.id })).body;
    const tx = (await transaction(api, created)).body;
    const res = await api.graphql(
      `query($id: ID!) { paymentLink(id: $id) {
        coupons { id paymentLink { id } } products { id paymentLinks { id } } transactions { id paymentLink { id } }
        providerAccount { paymentLinks { id } transactions { id } }
      } }`,
      { id: created.id },
    );
    expect(res.body.data.paymentLink).toEqual({
      coupons: [{ id: coupon.id, paymentLink: { id: created.id } }],
      products: [{ id: p.id, paymentLinks: [{ id: created.id }] }],
      transactions: [{ id: tx.id, paymentLink: { id: created.id } }],
      providerAccount: { paymentLinks: [{ id: created.id }], transactions: [{ id: tx.id }] },
    });
  });
});

describe('payment coupons', () => {
  it('creates with defaults and exactly the specified fields', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const res = await api.post('/payment-coupons', { code: 'WELCOME_10', type: 'percent', value: 10, payment_link_id: l.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(COUPON_FIELDS);
    expect(res.body).toMatchObject({
      code: 'WELCOME_10',
      type: 'percent',
      value: 10,
      max_redemptions: null,
      is_active: true,
      expires_at: null,
      times_redeemed: 0,
      payment_link_id: l.id,
      payment_link: { id: l.id, name: l.name },
    });
    expect((await api.get(`/payment-coupons/${res.body.id}`)).body).toEqual(res.body);
  });

  it('refuses bad codes, values and references, reporting every field', async () => {
    const api = await newClient(app);
    const res = await api.post('/payment-coupons', { code: 'no spaces!', type: 'percent', value: 101, max_redemptions: 0, expires_at: 'soon', payment_link_id: 'nope' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      code: ['The code field may only contain letters, digits, dashes and underscores.'],
      value: ['The value field must not be greater than 100 for a percent coupon.'],
      max_redemptions: ['The max redemptions field must be at least 1.'],
      expires_at: ['The expires at field must be a valid date.'],
      payment_link_id: ['The selected payment link id is invalid.'],
    });
    expect((await api.post('/payment-coupons', { type: 'amount', value: 0 })).body.errors).toEqual({
      code: ['The code field is required.'],
      value: ['The value field must be greater than 0.'],
      payment_link_id: ['The payment link id field is required.'],
    });
    expect((await api.post('/payment-coupons', { code: 'x'.repeat(65), type: 'coupon', value: 1 })).body.errors).toMatchObject({
      code: ['The code field must not be greater than 64 characters.'],
      type: ['The selected type is invalid.'],
    });
    expect((await api.get('/payment-coupons')).body.total).toBe(0);
  });

  it('keeps codes unique per workspace, ignoring case', async () => {
    const api = await newClient(app);
    const l = await link(api);
    expect((await api.post('/payment-coupons', { code: 'Spring', type: 'amount', value: 5, payment_link_id: l.id })).status).toBe(201);
    const dup = await api.post('/payment-coupons', { code: 'SPRING', type: 'amount', value: 5, payment_link_id: l.id });
    expect([dup.status, dup.body.errors]).toEqual([422, { code: ['The code has already been taken.'] }]);
    const elsewhere = await newClient(app);
    const theirs = await link(elsewhere);
    expect((await elsewhere.post('/payment-coupons', { code: 'spring', type: 'amount', value: 5, payment_link_id: theirs.id })).status).toBe(201);
  });

  it('PUT requires code, type and value, moves the coupon to another link, and clears nullable fields', async () => {
    const api = await newClient(app);
    const [first, second] = [await link(api), await link(api, { name: 'Second' })];
    const coupon = (await api.post('/payment-coupons', { code: 'A1', type: 'amount', value: 5, max_redemptions: 3, expires_at: '2027-01-01T00:00:00Z', payment_link_id: first.id })).body;
    expect(coupon.expires_at).toBe('2027-01-01T00:00:00.000Z');
    const missing = await api.put(`/payment-coupons/${coupon.id}`, { value: 6 });
    expect(missing.body.errors).toEqual({ code: ['The code field is required.'], type: ['The type field is required.'] });
    const moved = await api.put(`/payment-coupons/${coupon.id}`, { ...coupon, type: 'percent', value: 15, expires_at: null, payment_link_id: second.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ type: 'percent', value: 15, expires_at: null, max_redemptions: 3, payment_link_id: second.id, payment_link: { id: second.id, name: 'Second' } });
    expect((await api.put(`/payment-coupons/${coupon.id}`, { code: 'A1', type: 'percent', value: 100.5 })).status).toBe(422);
    expect((await api.put(`/payment-coupons/${coupon.id}`, { code: 'A1', type: 'amount', value: 1, payment_link_id: 'gone' })).body.errors).toEqual({
      payment_link_id: ['The selected payment link id is invalid.'],
    });
  });

  it('never sets max_redemptions below times_redeemed', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const coupon = (await api.post('/payment-coupons', { code: 'LIMITED', type: 'amount', value: 5, max_redemptions: 10, payment_link_id: l.id })).body;
    await app.database.prisma.paymentCoupon.update({ where: { id: coupon.id }, data: { timesRedeemed: 4 } });
    const below = await api.put(`/payment-coupons/${coupon.id}`, { code: 'LIMITED', type: 'amount', value: 5, max_redemptions: 3 });
    expect([below.status, below.body.errors]).toEqual([422, { max_redemptions: ['The max redemptions field must be at least 4, the times already redeemed.'] }]);
    expect((await api.get(`/payment-coupons/${coupon.id}`)).body).toMatchObject({ max_redemptions: 10, times_redeemed: 4 });
    const withOthers = await api.put(`/payment-coupons/${coupon.id}`, { code: 'LIMITED', type: 'amount', value: 0, max_redemptions: 3 });
    expect([withOthers.status, withOthers.body.errors]).toEqual([
      422,
      { value: ['The value field must be greater than 0.'], max_redemptions: ['The max redemptions field must be at least 4, the times already redeemed.'] },
    ]);
    const equal = await api.put(`/payment-coupons/${coupon.id}`, { code: 'LIMITED', type: 'amount', value: 5, max_redemptions: 4 });
    expect([equal.status, equal.body.max_redemptions]).toEqual([200, 4]);
  });

  it('deletes, then answers 404', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const coupon = (await api.post('/payment-coupons', { code: 'BYE', type: 'amount', value: 5, payment_link_id: l.id })).body;
    const res = await api.delete(`/payment-coupons/${coupon.id}`);
    expect([res.status, res.body]).toEqual([204, null]);
    expect((await api.delete(`/payment-coupons/${coupon.id}`)).body).toEqual({ message: 'Payment coupon not found.' });
  });
});

describe('payment transactions', () => {
  it('records a transaction with defaults; a known provider reference returns it unchanged with 200', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const res = await api.post('/payment-transactions', { payment_link_id: l.id, provider_reference: 'pi_123', amount: 99.9, currency: 'USD' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TRANSACTION_FIELDS);
    expect(res.body).toMatchObject({
      status: 'pending',
      provider_reference: 'pi_123',
      provider_account: l.provider_account,
      payment_link: { id: l.id, public_token: l.public_token, name: l.name },
      amount: 99.9,
      currency: 'USD',
      metadata: {},
      events: [],
    });
    const again = await api.post('/payment-transactions', { payment_link_id: l.id, provider_reference: 'pi_123', amount: 1, currency: 'EUR', status: 'paid', metadata: { x: 1 } });
    expect([again.status, again.body]).toEqual([200, res.body]);
    expect((await api.get('/payment-transactions')).body.total).toBe(1);
  });

  it('keeps provider references unique per provider account, not per workspace', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const other = await account(api, 'Second account');
    const first = await transaction(api, l, { provider_reference: 'pi_same' });
    const second = await transaction(api, l, { provider_reference: 'pi_same', payment_provider_account_id: other.id });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.provider_account).toEqual({ id: other.id, name: 'Second account' });
  });

  // PostgreSQL's jsonb refuses a lone surrogate (it was a 500) and SQLite stored replacement characters: both refuse it.
  it('refuses lone UTF-16 surrogates in text, metadata and payloads with 422, and stores nothing', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const unicode = (field: string) => [`The ${field} field must be valid Unicode text.`];
    const value = await transaction(api, l, { metadata: { a: 'x\ud800' } });
    expect([value.status, value.body.errors]).toEqual([422, { 'metadata.a': unicode('metadata.a') }]);
    const key = await transaction(api, l, { metadata: { '\udc00': 1 }, provider_reference: 'pi_\udfff' });
    expect([key.status, key.body.errors]).toEqual([422, { metadata: unicode('metadata'), provider_reference: unicode('provider reference') }]);
    const name = await api.post('/payment-links', { name: 'x\ud83d', amount: 1 });
    expect([name.status, name.body.errors.name]).toEqual([422, unicode('name')]);
    // A pair is one character, and fine.
    const paired = await transaction(api, l, { metadata: { emoji: '\ud83d\ude00' } });
    expect([paired.status, paired.body.metadata]).toEqual([201, { emoji: '😀' }]);
    const ok = (await transaction(api, l)).body;
    const event = await api.post(`/payment-transactions/${ok.id}/events`, { provider_reference: 'evt_1', status: 'paid', occurred_at: '2026-01-01T00:00:00.000Z', payload: { a: '\udfff' } });
    expect([event.status, event.body.errors]).toEqual([422, { 'payload.a': unicode('payload.a') }]);
    const graphql = await api.graphql('mutation($input: RecordPaymentTransactionInput!) { recordPaymentTransaction(input: $input) { created } }', {
      input: { paymentLinkId: l.id, providerReference: 'pi_g', amount: 1, currency: 'USD', metadata: { k: '\ud83d' } },
    });
    expect(graphql.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { 'input.metadata.k': unicode('input.metadata.k') } });
    expect((await api.get('/payment-transactions')).body.total).toBe(2);
  });

  it('takes at most 100 product ids for a link, the most its answer lists', async () => {
    const api = await newClient(app);
    const p = await product(api, 1, 'USD');
    const many = Array.from({ length: 101 }, (_, i) => `${p.id}-${i}`);
    const res = await api.post('/payment-links', { name: 'Many', payment_provider_account_id: (await account(api)).id, product_ids: many });
    expect([res.status, res.body.errors]).toEqual([422, { product_ids: ['The product ids field must not have more than 100 items.'] }]);
    const hundred = await api.post('/payment-links', { name: 'Hundred', payment_provider_account_id: (await account(api)).id, product_ids: Array(100).fill(p.id) });
    expect([hundred.status, hundred.body.products.map((x: { id: string }) => x.id)]).toEqual([201, [p.id]]);
  });

  it('validates ingestion input', async () => {
    const api = await newClient(app);
    const res = await api.post('/payment-transactions', { payment_link_id: 'nope', payment_provider_account_id: 'nope', amount: -5, currency: 'US', status: 'done', metadata: [1] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      payment_link_id: ['The selected payment link id is invalid.'],
      payment_provider_account_id: ['The selected payment provider account id is invalid.'],
      provider_reference: ['The provider reference field is required.'],
      amount: ['The amount field must be at least 0.'],
      currency: ['The currency field must be an ISO 4217 currency code in upper case.'],
      status: ['The selected status is invalid.'],
      metadata: ['The metadata field must be an object.'],
    });
    const nul = await api.post('/payment-transactions', { payment_link_id: 'nope', provider_reference: 'pi_\u0000', amount: 1, currency: 'USD' });
    expect(nul.body.errors.provider_reference).toEqual(['The provider reference field must not contain NUL characters.']);
  });

  it('stores one transaction when duplicate deliveries arrive at the same time', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const body = { payment_link_id: l.id, provider_reference: 'pi_race', amount: 10, currency: 'USD' };
    const replies = await Promise.all(Array.from({ length: 10 }, () => api.post('/payment-transactions', body)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect((await api.get('/payment-transactions')).body.total).toBe(1);
  });

  it('embeds a transaction\'s latest 100 events, oldest first, so the one its status comes from is always shown', async () => {
    const api = await newClient(app);
    const tx = (await transaction(api, await link(api))).body;
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    // Arrival order is not occurrence order: the latest event (e104) arrives first.
    for (const i of [104, ...Array.from({ length: 104 }, (_, i) => i)]) {
      const res = await api.post(`/payment-transactions/${tx.id}/events`, { type: 'payment.update', status: i === 104 ? 'failed' : 'paid', provider_reference: `e${i}`, occurred_at: at(i) });
      expect(res.status).toBe(201);
    }
    const expected = Array.from({ length: 100 }, (_, i) => `e${i + 5}`);
    const read = (await api.get(`/payment-transactions/${tx.id}`)).body;
    expect([read.status, read.events.map((e: { provider_reference: string }) => e.provider_reference)]).toEqual(['failed', expected]);
    const listed = (await api.get('/payment-transactions')).body.data[0];
    expect(listed.events.map((e: { provider_reference: string }) => e.provider_reference)).toEqual(expected);
    // GraphQL pages through all of them, oldest first.
    const page = await api.graphql('query($id: ID!) { paymentTransaction(id: $id) { events(page: 2, perPage: 100) { providerReference } } }', { id: tx.id });
    expect(page.body.data.paymentTransaction.events.map((e: { providerReference: string }) => e.providerReference)).toEqual(['e100', 'e101', 'e102', 'e103', 'e104']);
  });

  it('appends events oldest first; status follows the latest by occurred_at whatever the arrival order', async () => {
    const api = await newClient(app);
    const tx = (await transaction(api, await link(api))).body;
    const event = (ref: string, status: string, at: string) => api.post(`/payment-transactions/${tx.id}/events`, { type: `payment.${status}`, status, provider_reference: ref, occurred_at: at, payload: { ref } });
    const paid = await event('evt_3', 'paid', '2026-11-20T10:02:00Z');
    expect(paid.status).toBe(201);
    expect(Object.keys(paid.body).sort()).toEqual(EVENT_FIELDS);
    expect(paid.body).toMatchObject({ type: 'payment.paid', status: 'paid', provider_reference: 'evt_3', payload: { ref: 'evt_3' }, occurred_at: '2026-11-20T10:02:00.000Z' });
    await event('evt_1', 'pending', '2026-11-20T10:00:00Z');
    await event('evt_2', 'processing', '2026-11-20T10:01:00+00:00');
    const read = (await api.get(`/payment-transactions/${tx.id}`)).body;
    expect(read.status).toBe('paid');
    expect(read.events.map((e: any) => e.provider_reference)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    const refund = await event('evt_4', 'refunded', '2026-11-21T09:00:00Z');
    expect(refund.status).toBe(201);
    expect((await api.get(`/payment-transactions/${tx.id}`)).body.status).toBe('refunded');
    const redelivered = await event('evt_1', 'failed', '2030-01-01T00:00:00Z');
    expect([redelivered.status, redelivered.body.status, redelivered.body.occurred_at]).toEqual([200, 'pending', '2026-11-20T10:00:00.000Z']);
    expect((await api.get(`/payment-transactions/${tx.id}`)).body.status).toBe('refunded');
  });

  it('keeps the right status when events for one transaction arrive concurrently, duplicates included', async () => {
    const api = await newClient(app);
    const tx = (await transaction(api, await link(api))).body;
    const statuses = ['pending', 'processing', 'failed', 'processing', 'paid', 'refunded', 'canceled', 'pending'];
    const bodies = statuses.map((status, i) => ({ type: `payment.${status}`, status, provider_reference: `evt_${i}`, occurred_at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString() }));
    // Latest last in time, but sent in a shuffled order, each twice.
    const order = [5, 2, 7, 0, 3, 6, 1, 4];
    const replies = await Promise.all([...order, ...order].map((i) => api.post(`/payment-transactions/${tx.id}/events`, bodies[i])));
    expect(replies.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(8);
    const read = (await api.get(`/payment-transactions/${tx.id}`)).body;
    expect(read.events.map((e: any) => e.provider_reference)).toEqual(bodies.map((b) => b.provider_reference));
    expect(read.status).toBe('pending');
  });

  it('validates events and answers 404 for an unknown transaction', async () => {
    const api = await newClient(app);
    const tx = (await transaction(api, await link(api))).body;
    const res = await api.post(`/payment-transactions/${tx.id}/events`, { status: 'late', occurred_at: '2026-13-01T00:00:00Z', payload: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      type: ['The type field is required.'],
      status: ['The selected status is invalid.'],
      provider_reference: ['The provider reference field is required.'],
      payload: ['The payload field must be an object.'],
      occurred_at: ['The occurred at field must be a valid date.'],
    });
    const body = { type: 't', status: 'paid', provider_reference: 'e', occurred_at: '2026-11-20T10:00:00Z' };
    expect((await api.post('/payment-transactions/01JUNKJUNKJUNKJUNKJUNKJUNK/events', body)).body).toEqual({ message: 'Payment transaction not found.' });
    const stranger = await newClient(app);
    expect((await stranger.post(`/payment-transactions/${tx.id}/events`, body)).status).toBe(404);
    expect((await stranger.post(`/payment-links/${tx.payment_link.id}/activate`)).status).toBe(404);
    expect((await api.get(`/payment-transactions/${tx.id}`)).body.events).toEqual([]);
  });

  it('lists newest first, filters by status, and searches the reference or the link name literally', async () => {
    const api = await newClient(app);
    const plain = await link(api, { name: 'Gold plan' });
    const odd = await link(api, { name: '100% off_sale \\ promo' });
    const a = (await transaction(api, plain, { provider_reference: 'PI_Alpha' })).body;
    const b = (await transaction(api, odd, { provider_reference: 'pi_beta', status: 'paid' })).body;
    const c = (await transaction(api, plain, { provider_reference: 'pi_gam%ma', status: 'paid' })).body;
    const ids = async (query: string) => (await api.get(`/payment-transactions${query}`)).body.data.map((t: any) => t.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?status=paid')).toEqual([c.id, b.id]);
    expect(await ids('?search=alpha')).toEqual([a.id]);
    expect(await ids('?search=GOLD')).toEqual([c.id, a.id]);
    expect(await ids(`?search=${encodeURIComponent('%')}`)).toEqual([c.id, b.id]);
    expect(await ids('?search=_')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?search=off_')).toEqual([b.id]);
    expect(await ids(`?search=${encodeURIComponent('\\')}`)).toEqual([b.id]);
    expect(await ids(`?search=${encodeURIComponent('0% o')}`)).toEqual([b.id]);
    expect(await ids('?search=pi_')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?search=p_')).toEqual([]);
    expect(await ids('?status=paid&search=beta')).toEqual([b.id]);
    // Many matching link names (over the 100 the search lists by id) take the join path: same answers.
    const acc = await account(api, 'Bulk');
    const bulk: { id: string }[] = [];
    for (let batch = 0; batch < 101; batch += 50) {
      const names = Array.from({ length: Math.min(50, 101 - batch) }, (_, i) => `Bulk gold ${batch + i}`);
      bulk.push(...(await Promise.all(names.map((name) => link(api, { name, payment_provider_account_id: acc.id })))));
    }
    const d = (await transaction(api, bulk[100]!, { provider_reference: 'pi_delta' })).body;
    expect(await ids('?search=GOLD')).toEqual([d.id, c.id, a.id]);
    expect(await ids('?search=bulk%20gold%20100')).toEqual([d.id]);
    const bad = await api.get('/payment-transactions?status=done&per_page=0');
    expect([bad.status, bad.body.errors]).toEqual([422, { status: ['The selected status is invalid.'], per_page: ['The per page field must be at least 1.'] }]);
  });

  it('loads a page of transactions with their events, account and link in a fixed number of statements', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const page = async () => {
      const res = await api.get('/payment-transactions?per_page=100');
      expect(res.status).toBe(200);
      return res.body.data.length;
    };
    const addTransactions = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        const tx = (await transaction(api, l)).body;
        await api.post(`/payment-transactions/${tx.id}/events`, { type: 'payment.paid', status: 'paid', provider_reference: 'e1', occurred_at: '2026-11-20T10:00:00Z' });
      }
    };
    await addTransactions(3);
    let rows = 0;
    const few = await countStatements(app, async () => (rows = await page()));
    expect(rows).toBe(3);
    await addTransactions(27);
    const many = await countStatements(app, async () => (rows = await page()));
    expect(rows).toBe(30);
    expect(many).toBe(few);
    // The same for 3 rows as for 30: on PostgreSQL the count and one joined query; on SQLite
    // (no join strategy in Prisma) one query per relation, never one per row.
    expect(many).toBe(app.provider === 'postgresql' ? 2 : 5);
  });
});

describe('payments in GraphQL', () => {
  it('records, appends, activates and reports the same field errors as REST', async () => {
    const api = await newClient(app);
    const l = await link(api);
    const record = `mutation($input: RecordPaymentTransactionInput!) { recordPaymentTransaction(input: $input) { created transaction { id status events { id } } } }`;
    const input = { paymentLinkId: l.id, providerReference: 'pi_gql', amount: 5, currency: 'USD' };
    const first = await api.graphql(record, { input });
    expect(first.body.data.recordPaymentTransaction).toMatchObject({ created: true, transaction: { status: 'pending', events: [] } });
    const again = await api.graphql(record, { input });
    expect(again.body.data.recordPaymentTransaction).toEqual({ ...first.body.data.recordPaymentTransaction, created: false });
    const id = first.body.data.recordPaymentTransaction.transaction.id;

    const append = `mutation($id: ID!, $input: AppendPaymentTransactionEventInput!) { appendPaymentTransactionEvent(transactionId: $id, input: $input) { created event { status transaction { status } } } }`;
    const appended = await api.graphql(append, { id, input: { type: 'payment.paid', status: 'paid', providerReference: 'evt', occurredAt: '2026-11-20T10:00:00Z' } });
    expect(appended.body.data.appendPaymentTransactionEvent).toEqual({ created: true, event: { status: 'paid', transaction: { status: 'paid' } } });

    // The schema marks the required fields: GraphQL's own type check refuses a missing one before any resolver runs.
    const untyped = await api.graphql(append, { id, input: { status: 'paid' } });
    expect(untyped.body.errors).toHaveLength(3);
    expect(untyped.body.errors.map((e: { message: string; extensions: object }) => [e.extensions, e.message])).toEqual(
      untyped.body.errors.map((e: { message: string }) => [{ code: 'BAD_USER_INPUT', errors: { input: [e.message] } }, e.message]),
    );
    expect(untyped.body.errors[0].message).toMatch(/Field "occurredAt" of required type "DateTime!" was not provided/);
    const bad = await api.graphql(append, { id, input: { type: ' ', status: 'paid', providerReference: '', occurredAt: '2026-11-20T10:00:00Z' } });
    expect(bad.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: { type: ['The type field is required.'], provider_reference: ['The provider reference field is required.'] },
    });
    const missing = await api.graphql(append, { id: '01JUNKJUNKJUNKJUNKJUNKJUNK', input: { type: 't', status: 'paid', providerReference: 'evt', occurredAt: '2026-11-20T10:00:00Z' } });
    expect([missing.body.errors[0].message, missing.body.errors[0].extensions.code]).toEqual(['Payment transaction not found.', 'NOT_FOUND']);

    const activated = await api.graphql('mutation($id: ID!) { activatePaymentLink(id: $id) { isActive transactions { id events { status } } } }', { id: l.id });
    expect(activated.body.data.activatePaymentLink).toEqual({ isActive: true, transactions: [{ id, events: [{ status: 'paid' }] }] });
    const deleted = await api.graphql('mutation($id: ID!) { deletePaymentLink(id: $id) }', { id: l.id });
    expect(deleted.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { id: ['The payment link has transactions: deactivate it instead.'] } });
  });
});
