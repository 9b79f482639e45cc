import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, TEST_SECRETS_KEY, newClient, send, startApp } from './support/app.js';
import { type AsaasFake, SAMPLE_CPF, startAsaasFake } from './support/fakes/asaas.js';
import { type StripeFake, startStripeFake } from './support/fakes/stripe.js';
import { databaseUrl } from './support/file-database.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { cli } from './support/cli.js';

// API.md section 11 through the real server, against local fakes of Stripe and Asaas that
// speak their wire formats: accounts and their credentials, and checkouts through each provider.
let app: TestApp;
let stripe: StripeFake;
let asaas: AsaasFake;
beforeAll(async () => {
  [stripe, asaas] = await Promise.all([startStripeFake(), startAsaasFake()]);
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never, payments: { STRIPE_API_BASE: stripe.url, ASAAS_API_BASE: asaas.url, PROVIDER_TIMEOUT_SECONDS: 2 } });
});
afterAll(async () => {
  await app.close();
  await Promise.all([stripe.close(), asaas.close()]);
});

const pub = (path: string, method = 'GET', body?: unknown) => send(`${app.url}/api/v1/public${path}`, method, { body });

async function stripeAccount(api: Client, credentials: Record<string, unknown> = { secret_key: stripe.secretKey, webhook_signing_secret: 'whsec_testsecret123456' }) {
  return api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials });
}

/** An active link of a new workspace, paid through `account` (made by `make`). */
async function shop(make: (api: Client) => Promise<{ status: number; body: any }>, link: Record<string, unknown> = {}) {
  const api = await newClient(app);
  const account = await make(api);
  expect(account.status).toBe(201);
  const created = await api.post('/payment-links', { name: 'Plan', amount: 100, currency: 'USD', payment_provider_account_id: account.body.id, ...link });
  expect(created.status).toBe(201);
  expect((await api.post(`/payment-links/${created.body.id}/activate`)).status).toBe(200);
  return { api, account: account.body, link: created.body, token: created.body.public_token as string };
}

describe('accounts of real providers', () => {
  it('checks Stripe credentials with the provider, stores them sealed, and shows only the mode, a hint and the webhook URL', async () => {
    const api = await newClient(app);
    const before = stripe.calls('GET', '/v1/balance');
    const res = await stripeAccount(api);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Stripe',
      provider: 'stripe',
      mode: 'test',
      credentials_hint: stripe.secretKey.slice(-4),
      webhook_url: `${app.url}/api/v1/provider-webhooks/${res.body.id}`,
      created_at: expect.any(String),
    });
    expect(stripe.calls('GET', '/v1/balance')).toBe(before + 1);
    const shown = await api.get(`/payment-provider-accounts/${res.body.id}`);
    expect(shown.body).toEqual(res.body);
    expect(shown.text).not.toContain(stripe.secretKey);
    // Sealed at rest: neither the key nor the signing secret is in the row.
    const row = await app.database.prisma.paymentProviderAccount.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.sealedCredentials).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(stripe.secretKey);
    expect(JSON.stringify(row)).not.toContain('whsec_testsecret123456');
  });

  it('refuses credentials the provider refuses (422), and answers 502 when it cannot be reached; nothing is stored', async () => {
    const api = await newClient(app);
    const refused = await stripeAccount(api, { secret_key: 'sk_test_notakeythefakeknows' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: 'The given data was invalid.', errors: { credentials: ['The provider refused these credentials.'] } });
    stripe.failNext({ method: 'GET', path: '/v1/balance' }, { status: 500 });
    const down = await stripeAccount(api);
    expect(down.status).toBe(502);
    expect(down.body).toEqual({ message: 'The payment provider could not be reached.' });
    expect((await api.get('/payment-provider-accounts')).body.total).toBe(0);
  });

  it('validates the provider and its credentials before calling anyone', async () => {
    const api = await newClient(app);
    const calls = stripe.requests.length;
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ name: 'X', provider: 'paypal' }, { provider: ['The selected provider is invalid.'] }],
      [{ name: 'X', provider: 'stripe' }, { credentials: ['The credentials field is required.'] }],
      [{ name: 'X', provider: 'test', credentials: { secret_key: 'sk_test_x' } }, { credentials: ['The credentials field is prohibited for the test provider.'] }],
      [{ name: 'X', provider: 'stripe', credentials: { secret_key: 'pk_test_12345678' } }, { 'credentials.secret_key': ['The credentials.secret_key field must be a Stripe secret key (sk_test_..., sk_live_...) or restricted key (rk_...).'] }],
      [{ name: 'X', provider: 'asaas', credentials: { environment: 'moon' } }, { 'credentials.api_key': ['The credentials.api_key field is required.'], 'credentials.environment': ['The selected credentials.environment is invalid.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await api.post('/payment-provider-accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors).toEqual(errors);
    }
    expect(stripe.requests.length).toBe(calls);
  });

  it("makes an Asaas account's webhook token and shows it once", async () => {
    const api = await newClient(app);
    const res = await api.post('/payment-provider-accounts', { name: 'Asaas', provider: 'asaas', credentials: { api_key: asaas.apiKey } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ provider: 'asaas', mode: 'sandbox', credentials_hint: asaas.apiKey.slice(-4), webhook_token: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/) });
    const shown = await api.get(`/payment-provider-accounts/${res.body.id}`);
    expect(shown.body.webhook_token).toBeUndefined();
    expect(shown.text).not.toContain(res.body.webhook_token);
  });

  it('replaces credentials on PUT after checking them, keeping the webhook secret', async () => {
    const api = await newClient(app);
    const created = (await stripeAccount(api)).body;
    const other = `sk_live_${'9'.repeat(24)}`;
    stripe.addKey(other);
    const res = await api.put(`/payment-provider-accounts/${created.id}`, { credentials: { secret_key: other } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'live', credentials_hint: '9999' });
    const refused = await api.put(`/payment-provider-accounts/${created.id}`, { name: 'Renamed', credentials: { secret_key: 'sk_test_unknownunknown' } });
    expect(refused.status).toBe(422);
    expect((await api.get(`/payment-provider-accounts/${created.id}`)).body).toMatchObject({ name: 'Stripe', mode: 'live' });
  });

  it('prepares outside the Idempotency-Key transaction and replays the answer', async () => {
    const api = await newClient(app);
    const body = { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey } };
    const first = await api.request('POST', '/payment-provider-accounts', { body, headers: { 'Idempotency-Key': 'acct-1' } });
    const again = await api.request('POST', '/payment-provider-accounts', { body, headers: { 'Idempotency-Key': 'acct-1' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.get('/payment-provider-accounts')).body.total).toBe(1);
  });
});

describe('checkouts through Stripe', () => {
  it('makes one Checkout Session in minor units and sends the payer to it', async () => {
    const { token } = await shop((api) => stripeAccount(api), { amount: 12.34 });
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ada Lovelace', email: 'ada@example.com' } });
    expect(res.status).toBe(201);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.checkout_id)!;
    expect(session).toBeDefined();
    expect(res.body.next_action).toEqual({ type: 'redirect', url: session.url });
    const params = stripe.params.get(session.id)!;
    expect(params).toMatchObject({ mode: 'payment', customer_email: 'ada@example.com', metadata: { checkout_id: res.body.checkout_id } });
    expect(params.line_items).toEqual([{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1234', product_data: { name: 'Plan' } } }]);
    // Read back, the checkout shows the same step, and no second session is made.
    const sessions = stripe.calls('POST', '/v1/checkout/sessions');
    expect((await pub(`/checkouts/${res.body.checkout_id}`)).body.next_action).toEqual(res.body.next_action);
    const followed = await fetch(`${app.url}/pay/checkouts/${res.body.checkout_id}/continue`, { redirect: 'manual' });
    expect(followed.status).toBe(303);
    expect(followed.headers.get('location')).toBe(session.url);
    expect(stripe.calls('POST', '/v1/checkout/sessions')).toBe(sessions);
  });

  it('charges zero-decimal currencies as they are, and refuses an amount Stripe cannot charge exactly', async () => {
    const { token } = await shop((api) => stripeAccount(api), { amount: 1200, currency: 'JPY' });
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ada', email: 'ada@example.com' } });
    expect(res.status).toBe(201);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.checkout_id)!;
    expect(stripe.params.get(session.id)!.line_items[0].price_data).toMatchObject({ currency: 'jpy', unit_amount: '1200' });
    const bhd = await shop((api) => stripeAccount(api), { amount: 1.005, currency: 'BHD' });
    const refused = await pub(`/payment-links/${bhd.token}/checkouts`, 'POST', { payer: { name: 'Ada', email: 'ada@example.com' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: 'This payment link cannot be paid online.' });
  });

  it('pays installments by a subscription of the installment amount, the remainder on the first invoice', async () => {
    const { token } = await shop((api) => stripeAccount(api), { amount: 100, max_installments: 3 });
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { installments: 3, payer: { name: 'Ada', email: 'ada@example.com' } });
    expect(res.status).toBe(201);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.checkout_id)!;
    const params = stripe.params.get(session.id)!;
    expect(params.mode).toBe('subscription');
    expect(params.line_items).toEqual([
      { quantity: '1', price_data: { currency: 'usd', unit_amount: '3333', product_data: { name: 'Plan' }, recurring: { interval: 'month', interval_count: '1' } } },
      { quantity: '1', price_data: { currency: 'usd', unit_amount: '1', product_data: { name: "Plan (first installment's remainder)" } } },
    ]);
    expect(params.subscription_data).toEqual({ metadata: { checkout_id: res.body.checkout_id } });
  });

  it('leaves the checkout pending with this service’s continue URL when Stripe is down, and makes the session when the payer follows it', async () => {
    const { token } = await shop((api) => stripeAccount(api));
    stripe.failNext({ method: 'POST', path: '/v1/checkout/sessions' }, { status: 500 });
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ada', email: 'ada@example.com' } });
    expect(res.status).toBe(201);
    expect(res.body.next_action).toEqual({ type: 'redirect', url: `${app.url}/pay/checkouts/${res.body.checkout_id}/continue` });
    const followed = await fetch(res.body.next_action.url, { redirect: 'manual' });
    expect(followed.status).toBe(303);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.checkout_id)!;
    expect(followed.headers.get('location')).toBe(session.url);
  });

  it('answers 422 when the stored credentials cannot be decrypted (a database moved without its key)', async () => {
    const { token, account } = await shop((api) => stripeAccount(api));
    const other = await startApp({ payments: { SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'), STRIPE_API_BASE: stripe.url } });
    try {
      const res = await send(`${other.url}/api/v1/public/payment-links/${token}/checkouts`, 'POST', { body: { payer: { name: 'Ada', email: 'ada@example.com' } } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'This payment link cannot be paid online.' });
      expect(account.id).toBeDefined();
    } finally {
      await other.close();
    }
  });
});

describe('checkouts through Asaas', () => {
  const asaasAccount = (api: Client) => api.post('/payment-provider-accounts', { name: 'Asaas', provider: 'asaas', credentials: { api_key: asaas.apiKey } });

  it('asks for a CPF or CNPJ, makes the customer once and the payment with our id, in BRL', async () => {
    const { token } = await shop(asaasAccount, { amount: 150.5, currency: 'BRL', max_installments: 3 });
    const link = await pub(`/payment-links/${token}`);
    expect(link.status).toBe(200);
    const missing = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ana', email: 'ana@example.com' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ 'payer.tax_id': ['Enter a valid CPF or CNPJ.'] });
    const wrong = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ana', email: 'ana@example.com', tax_id: '529.982.247-24' } });
    expect(wrong.status).toBe(422);
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { installments: 3, payment_method: 'card', payer: { name: 'Ana', email: 'ana@example.com', tax_id: '529.982.247-25' } });
    expect(res.status).toBe(201);
    const payment = [...asaas.payments.values()].find((p) => p.externalReference === res.body.checkout_id && p.installmentNumber === 1)!;
    expect(payment).toMatchObject({ billingType: 'CREDIT_CARD', installmentNumber: 1 });
    const made = asaas.requests.filter((r) => r.method === 'POST' && r.path === '/payments');
    expect(made.at(-1)!.body).toMatchObject({ installmentCount: 3, totalValue: 150.5, externalReference: res.body.checkout_id, billingType: 'CREDIT_CARD' });
    expect(res.body.next_action).toEqual({ type: 'redirect', url: payment.invoiceUrl });
    const customer = asaas.customers.get(payment.customer)!;
    expect(customer).toMatchObject({ cpfCnpj: SAMPLE_CPF, email: 'ana@example.com' });
  });

  it('makes one Asaas payment when the payer follows the continue URL while the checkout is still being made (Idempotency-Key)', async () => {
    const { token } = await shop(asaasAccount, { amount: 20, currency: 'BRL' });
    const res = await send(`${app.url}/api/v1/public/payment-links/${token}/checkouts`, 'POST', {
      body: { payment_method: 'boleto', payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } },
      headers: { 'Idempotency-Key': `pay-${token}` },
    });
    expect(res.status).toBe(201);
    expect(res.body.next_action.url).toBe(`${app.url}/pay/checkouts/${res.body.checkout_id}/continue`);
    const followed = await fetch(res.body.next_action.url, { redirect: 'manual' });
    expect(followed.status).toBe(303);
    const made = [...asaas.payments.values()].filter((p) => p.externalReference === res.body.checkout_id);
    expect(made).toHaveLength(1);
    expect(followed.headers.get('location')).toBe(made[0]!.invoiceUrl);
  });

  it('makes one Asaas payment when two processes follow the continue URL at once while Asaas is slow to create it', async () => {
    // Each app has its own single-flight: only the checkout's claim in the database keeps the second from a lookup that finds nothing, and a second payment.
    const other = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never, payments: { STRIPE_API_BASE: stripe.url, ASAAS_API_BASE: asaas.url, PROVIDER_TIMEOUT_SECONDS: 2 } });
    try {
      const { token } = await shop(asaasAccount, { amount: 20, currency: 'BRL' });
      asaas.failNext({ method: 'POST', path: '/payments' }, { status: 500 });
      const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payment_method: 'boleto', payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } });
      expect(res.status).toBe(201);
      const path = `/pay/checkouts/${res.body.checkout_id}/continue`;
      expect(res.body.next_action).toEqual({ type: 'redirect', url: `${app.url}${path}` });
      asaas.failNext({ method: 'POST', path: '/payments' }, { slowMs: 400 });
      const followed = await Promise.all([app.url, other.url, app.url, other.url].map((url) => fetch(`${url}${path}`, { redirect: 'manual' })));
      const made = [...asaas.payments.values()].filter((p) => p.externalReference === res.body.checkout_id);
      expect(made).toHaveLength(1);
      expect(followed.map((f) => [f.status, f.headers.get('location')])).toEqual(Array(4).fill([303, made[0]!.invoiceUrl]));
      const row = await app.database.prisma.checkout.findUniqueOrThrow({ where: { token: res.body.checkout_id }, select: { providerObjectId: true, providerClaimUntil: true } });
      expect(row).toEqual({ providerObjectId: made[0]!.id, providerClaimUntil: null });
    } finally {
      await other.close();
    }
  });

  it('shows a Pix code itself', async () => {
    const { token } = await shop(asaasAccount, { amount: 20, currency: 'BRL' });
    const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payment_method: 'pix', payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } });
    expect(res.status).toBe(201);
    expect(res.body.next_action).toEqual({ type: 'pix', url: expect.any(String), pix: { payload: expect.any(String), image: expect.stringMatching(/^data:image\/png;base64,/), expires_at: expect.any(String) } });
    const page = await send(`${app.url}/pay/checkouts/${res.body.checkout_id}`, 'GET');
    expect(page.text).toContain('Pix copy-and-paste code');
  });

  it('refuses links Asaas cannot take: another currency, a recurrence it does not have', async () => {
    for (const link of [{ currency: 'USD' }, { currency: 'BRL', is_recurring: true, interval_unit: 'day', interval_count: 1 }]) {
      const { token } = await shop(asaasAccount, { amount: 20, ...link });
      const res = await pub(`/payment-links/${token}/checkouts`, 'POST', { payer: { name: 'Ana', email: 'ana@example.com', tax_id: SAMPLE_CPF } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'This payment link cannot be paid with its provider.' });
    }
  });
});

describe('secrets at rest', () => {
  it('keeps no credential in the embedded database file, nor in a pg_dump of PostgreSQL', async () => {
    const api = await newClient(app);
    const key = `sk_test_${'k'.repeat(30)}`;
    stripe.addKey(key);
    expect((await stripeAccount(api, { secret_key: key, webhook_signing_secret: 'whsec_fileprobe1234567' })).status).toBe(201);
    const target = resolveDatabase(databaseUrl());
    // The whole database as an operator would copy it: the SQLite file, or PostgreSQL's dump (its sealed values included).
    const file = (target as { file?: string }).file!;
    const copy =
      target.provider === 'sqlite'
        ? Buffer.concat([readFileSync(file), ...(existsSync(`${file}-wal`) ? [readFileSync(`${file}-wal`)] : [])])
        : execFileSync('pg_dump', ['--no-owner', databaseUrl()], { maxBuffer: 256 * 1024 * 1024 });
    expect(copy.includes(Buffer.from(api.workspaceId))).toBe(true);
    expect(copy.includes(Buffer.from(key))).toBe(false);
    expect(copy.includes(Buffer.from('whsec_fileprobe1234567'))).toBe(false);
  });
});

describe('secrets rotate', () => {
  it('seals every credential again with the first key; a service with only the new key then opens them', async () => {
    const { token } = await (async () => {
      const api = await newClient(app);
      const account = await stripeAccount(api);
      const link = await api.post('/payment-links', { name: 'Plan', amount: 5, currency: 'USD', payment_provider_account_id: account.body.id });
      await api.post(`/payment-links/${link.body.id}/activate`);
      return { token: link.body.public_token as string };
    })();
    const newKey = Buffer.alloc(32, 3).toString('hex');
    const rotated = await cli(['secrets', 'rotate', '--json'], { DATABASE_URL: databaseUrl(), SECRETS_KEY: `${newKey},${TEST_SECRETS_KEY}` });
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ rotated: expect.any(Number), unreadable: 0 });
    expect(JSON.parse(rotated.stdout).rotated).toBeGreaterThan(0);
    const again = await cli(['secrets', 'rotate', '--json'], { DATABASE_URL: databaseUrl(), SECRETS_KEY: newKey });
    expect(JSON.parse(again.stdout)).toMatchObject({ rotated: 0, unreadable: 0 });
    const other = await startApp({ payments: { SECRETS_KEY: newKey, STRIPE_API_BASE: stripe.url } });
    try {
      const res = await send(`${other.url}/api/v1/public/payment-links/${token}/checkouts`, 'POST', { body: { payer: { name: 'Ada', email: 'ada@example.com' } } });
      expect(res.status).toBe(201);
    } finally {
      await other.close();
    }
  });
});

describe('with PUBLIC_BASE_URL and metrics', () => {
  it("registers the service's own webhook endpoint with each provider, and measures every provider call", async () => {
    const base = 'https://pay.example.com';
    const token = 'metrics-token-0123456789abcdef';
    const other = await startApp({ server: { METRICS_TOKEN: token } as never, payments: { PUBLIC_BASE_URL: base, STRIPE_API_BASE: stripe.url, ASAAS_API_BASE: asaas.url } });
    try {
      const api = await newClient(other);
      const made = await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey } });
      expect(made.status).toBe(201);
      expect(made.body.webhook_url).toBe(`${base}/api/v1/provider-webhooks/${made.body.id}`);
      const registered = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/webhook_endpoints').at(-1)!;
      expect(registered.params).toMatchObject({ url: made.body.webhook_url, enabled_events: expect.arrayContaining(['checkout.session.completed', 'refund.updated', 'charge.dispute.closed']) });
      const asaasMade = await api.post('/payment-provider-accounts', { name: 'Asaas', provider: 'asaas', credentials: { api_key: asaas.apiKey } });
      expect(asaasMade.status).toBe(201);
      const hook = asaas.requests.filter((r) => r.method === 'POST' && r.path === '/webhooks').at(-1)!;
      expect(hook.body).toMatchObject({ url: `${base}/api/v1/provider-webhooks/${asaasMade.body.id}`, authToken: asaasMade.body.webhook_token });
      const scraped = await send(`${other.url}/metrics`, 'GET', { headers: { Authorization: `Bearer ${token}` } });
      expect(scraped.text).toContain('salesgraph_provider_call_duration_seconds_count{provider="stripe",operation="check_credentials",outcome="ok"} 1');
      expect(scraped.text).toContain('salesgraph_provider_call_duration_seconds_count{provider="asaas",operation="register_webhook",outcome="ok"} 1');
    } finally {
      await other.close();
    }
  });
});
