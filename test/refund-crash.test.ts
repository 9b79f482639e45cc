import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../src/http/crash-points.js';
import type { Settings } from '../src/graphql/context.js';
import { retryRefunds } from '../src/modules/refunds/refund-retries.js';
import { type TestApp, TEST_SECRETS_KEY, newClient, send, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { type StripeFake, startStripeFake } from './support/fakes/stripe.js';
import { startProcess } from './support/process.js';
import { represent } from './support/schema.js';

// API.md section 11: a refund is committed pending before the provider is asked, and
// reaches the provider exactly once. The serving process is killed (SIGKILL) between the
// refund's commit and the provider's answer, and after the answer before it was recorded;
// the retry (the restarted service's loop) completes it, and Stripe saw one refund.

const RECONCILE_SECONDS = 60;
let app: TestApp;
let stripe: StripeFake;
let settings: Settings;
beforeAll(async () => {
  stripe = await startStripeFake();
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never, payments: { STRIPE_API_BASE: stripe.url, PROVIDER_RECONCILE_SECONDS: RECONCILE_SECONDS } });
  settings = { allowPrivateNetworks: true, checkoutExpiryMinutes: 30, streamBufferEvents: 1000, payments: app.service.payments, trashRetentionDays: 30 };
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

/** A transaction paid through the Stripe fake, its webhook delivered to the test's own service. */
async function paidTransaction() {
  const api = await newClient(app);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey, webhook_signing_secret: secret } })).body;
  stripe.addEndpoint(account.webhook_url, secret);
  const link = (await api.post('/payment-links', { name: 'Plan', amount: 50, currency: 'USD', payment_provider_account_id: account.id })).body;
  await api.post(`/payment-links/${link.id}/activate`);
  const checkout = (await send(`${app.url}/api/v1/public/payment-links/${link.public_token}/checkouts`, 'POST', { body: { payer: { name: 'Ada', email: 'ada@example.com' } } })).body;
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === checkout.checkout_id)!;
  await stripe.pay(session.id);
  const transaction = (await api.get(`/payment-transactions?checkout_id=${checkout.checkout_id}`)).body.data[0];
  expect(transaction.status).toBe('paid');
  return { api, transactionId: transaction.id as string, paymentIntent: stripe.sessions.get(session.id)!.payment_intent as string };
}

describe('a refund whose process is killed', () => {
  it.each(['refund:before-provider', 'refund:provider-answered'] as CrashPoint[])('at %s: the restarted service sends it, and the provider sees one refund', async (point) => {
    const { api, transactionId, paymentIntent } = await paidTransaction();
    const service = await startProcess(
      { DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', CRASH_AT: point, SECRETS_KEY: TEST_SECRETS_KEY, STRIPE_API_BASE: stripe.url, WEBHOOKS_DELIVER: 'false', PROVIDER_RECONCILE_SECONDS: String(RECONCILE_SECONDS) },
      { execArgv: ['--import', './test/support/crash-at.mjs'] },
    );
    const exited = once(service.child, 'exit');
    const sent = await fetch(`${service.url}/api/v1/payment-transactions/${transactionId}/refunds`, {
      method: 'POST',
      headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: 20 }),
    }).then(
      (res) => `answered ${res.status}`,
      (error: { cause?: { code?: string } }) => error.cause?.code ?? 'failed',
    );
    expect([sent, (await exited)[1]]).toEqual(['UND_ERR_SOCKET', 'SIGKILL']);
    const atProvider = () => [...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent).length;
    const [refund] = (await api.get(`/refunds?payment_transaction_id=${transactionId}`)).body.data;
    if (point === 'refund:before-provider') {
      // Committed before the call: pending, its amount taken; Stripe has heard nothing.
      expect(atProvider()).toBe(0);
      expect(refund).toMatchObject({ status: 'pending', amount: 20 });
      // Not before its lease runs out.
      await retryRefunds(app.database.prisma, represent, settings, { now: new Date(Date.now() + 1000) });
      expect((await api.get(`/refunds/${refund.id}`)).body.status).toBe('pending');
    } else {
      // Stripe made it; its own webhook (refund.created, carrying our id) tells the service, as it would after a crash.
      expect(atProvider()).toBe(1);
      await stripe.flush();
    }
    await retryRefunds(app.database.prisma, represent, settings, { now: new Date(Date.now() + (RECONCILE_SECONDS + 5) * 1000) });
    await retryRefunds(app.database.prisma, represent, settings, { now: new Date(Date.now() + (2 * RECONCILE_SECONDS + 10) * 1000) });
    expect((await api.get(`/refunds/${refund.id}`)).body).toMatchObject({ status: 'succeeded', provider_reference: expect.stringMatching(/^re_/) });
    expect(atProvider()).toBe(1);
    expect((await api.get(`/payment-transactions/${transactionId}`)).body.amount_refunded).toBe(20);
  });
});
