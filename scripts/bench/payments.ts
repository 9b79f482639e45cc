// npm run bench:payments [-- --database <sqlite | postgresql admin URL>] [--checkouts <n>] [--workers <n>]
//
// --workers n: the compiled service as its own process (WEB_CONCURRENCY=n, as `npm start`
// serves) instead of in this one; the provider's share of a checkout is then not measured.
//
// What real providers cost (issue 44), in one process beside the Stripe fake
// (test/support/fakes/stripe.ts), on a fresh database:
// - a checkout through Stripe: its latency, and the share of it that is the provider's
//   round trip (the provider calls' own time, measured by the service's call observer);
// - webhook ingestion: each checkout's signed `checkout.session.completed`, 8 at a time from a
//   worker thread, per second;
// - the reconciliation loop's round with nothing due, with few and with many settled checkouts
//   (it reads only the due ones, by index: the cost should not grow with the settled ones).
// Never part of npm test.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createKey } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { setLogLevel } from '../../src/log.js';
import { reconcileCheckouts } from '../../src/modules/checkouts/reconcile.js';
import { createPayments } from '../../src/payments/payments.js';
import { listen } from '../../src/serve.js';
import { composeService } from '../../src/service.js';
import { startStripeFake, stripeSignatureHeader } from '../../test/support/fakes/stripe.js';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { percentile } from './load.js';
import { buildService, startServer } from './processes.js';

const { values } = parseArgs({ options: { database: { type: 'string', default: 'sqlite' }, checkouts: { type: 'string', default: '1000' }, workers: { type: 'string', default: '0' } } });
const CHECKOUTS = Number(values.checkouts);
const WORKERS = Number(values.workers);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);

setLogLevel('warn');
const scratch = await scratchDatabase(values.database === 'sqlite' ? 'sqlite' : 'postgresql', values.database!, 'payments_bench');
const stripe = await startStripeFake();
const target = resolveDatabase(scratch.url);
await applyMigrations(target);
const database = await openDatabase(target);
const SECRETS_KEY = randomBytes(32).toString('base64');
const payments = createPayments({ ...loadConfig({}), SECRETS_KEY, STRIPE_API_BASE: stripe.url });
let providerSeconds = 0;
payments.observeCalls((_provider, _operation, _outcome, seconds) => {
  providerSeconds += seconds;
});
const service = composeService(database, undefined, undefined, payments);
const server = WORKERS > 0
  ? await startServer('service', buildService(), {
      DATABASE_URL: scratch.url, MIGRATE_ON_START: 'false', WEB_CONCURRENCY: String(WORKERS), RATE_LIMIT_PER_MINUTE: '0', PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn', STRIPE_API_BASE: stripe.url, SECRETS_KEY,
    })
  : await listen(service, { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: 0, PUBLIC_RATE_LIMIT_PER_MINUTE: 0, LOG_LEVEL: 'warn' });
const { key } = await createKey(database.prisma, 'payments-bench');
const api = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}/api/v1${path}`, { method, headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));

const secret = `whsec_${randomBytes(24).toString('base64url')}`;
const account = (await api('POST', '/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey, webhook_signing_secret: secret } })).body;
const link = (await api('POST', '/payment-links', { name: 'Plan', amount: 49, currency: 'USD', payment_provider_account_id: account.id })).body;
await api('POST', `/payment-links/${link.id}/activate`);

// A plain write beside them, for scale: POST /contacts one after the other.
const plain: number[] = [];
for (let i = 0; i < 200; i += 1) {
  const started = performance.now();
  const res = await api('POST', '/contacts', { first_name: 'Bench', email: `bench-${i}@example.com` });
  if (res.status !== 201) throw new Error(`contact answered ${res.status}`);
  plain.push(performance.now() - started);
}

const settings = { allowPrivateNetworks: false, checkoutExpiryMinutes: 30, streamBufferEvents: 1000, payments, trashRetentionDays: 30 };
/** The reconciliation's round with nothing due (the mean of 200): its statements read only due rows, by index. */
const round = async () => {
  const started = performance.now();
  for (let i = 0; i < 200; i += 1) await reconcileCheckouts(database.prisma, service.represent, settings, { now: new Date() });
  return (performance.now() - started) / 200;
};
const roundEmptyMs = await round();

// 1. Checkouts, one after the other: the whole answer, and the provider calls' own time within it.
const totals: number[] = [];
const providerShares: number[] = [];
const checkoutIds: string[] = [];
for (let i = 0; i < CHECKOUTS; i += 1) {
  const before = providerSeconds;
  const started = performance.now();
  const res = await fetch(`${server.url}/api/v1/public/payment-links/${link.public_token}/checkouts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ payer: { name: 'Ada', email: `ada-${i}@example.com` } }) });
  const body = (await res.json()) as { checkout_id: string };
  totals.push(performance.now() - started);
  providerShares.push((providerSeconds - before) * 1000);
  if (res.status !== 201) throw new Error(`checkout answered ${res.status}`);
  checkoutIds.push(body.checkout_id);
}
const own = totals.map((t, i) => t - providerShares[i]!);

// 2. Webhook ingestion: each checkout's session completed, signed as Stripe signs (signed before the
// clock starts), 8 in flight from a worker thread: the client's own work is off the server's event loop.
const sessions = [...stripe.sessions.values()].filter((s) => checkoutIds.includes(s.client_reference_id));
const deliveries = sessions.map((session, i) => {
  const body = JSON.stringify({ id: `evt_bench_${i}`, object: 'event', type: 'checkout.session.completed', created: Math.floor(Date.now() / 1000), data: { object: { ...session, status: 'complete', payment_status: 'paid', payment_intent: `pi_bench_${i}` } } });
  return { body, signature: stripeSignatureHeader(secret, body) };
});
const EVENTS = deliveries.length;
const load = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads');
  (async () => {
    const { url, deliveries, inFlight } = workerData;
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < deliveries.length) {
        const { body, signature } = deliveries[next++];
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error('webhook answered ' + res.status);
      }
    }));
    parentPort.postMessage(performance.now() - started);
  })().catch((error) => { throw error; });`,
  { eval: true, workerData: { url: `${server.url}/api/v1/provider-webhooks/${account.id}`, deliveries, inFlight: IN_FLIGHT } },
);
const ingestMs = await new Promise<number>((resolve, reject) => {
  load.once('message', resolve);
  load.once('error', reject);
});
await load.terminate();
const ingestSeconds = ingestMs / 1000;

// 3. The same round beside the settled checkouts above.
const settled = await database.prisma.checkout.count();
const roundMs = await round();

const ms = (values: number[], p: number) => percentile([...values].sort((a, b) => a - b), p).toFixed(1);
const where = WORKERS > 0 ? `the compiled service in its own process (WEB_CONCURRENCY=${WORKERS})` : 'one process beside the Stripe fake';
console.log(`database: ${target.provider}; ${CHECKOUTS} checkouts, then their ${EVENTS} webhook deliveries (${IN_FLIGHT} in flight), ${where}\n`);
console.log('| figure | p50 | p95 |');
console.log('| --- | ---: | ---: |');
console.log(`| checkout through Stripe, whole answer (ms) | ${ms(totals, 50)} | ${ms(totals, 95)} |`);
if (WORKERS === 0) {
  console.log(`| of it, the provider round trip (ms) | ${ms(providerShares, 50)} | ${ms(providerShares, 95)} |`);
  console.log(`| of it, the service's own share (ms) | ${ms(own, 50)} | ${ms(own, 95)} |`);
}
console.log(`| for scale: POST /contacts in the same process (ms) | ${ms(plain, 50)} | ${ms(plain, 95)} |`);
console.log(`\nwebhook ingestion: ${(EVENTS / ingestSeconds).toFixed(0)} deliveries/s (each verified, recorded with its receipt, its transaction made paid)`);
console.log(`reconciliation round with nothing due: ${roundEmptyMs.toFixed(2)} ms with no checkout, ${roundMs.toFixed(2)} ms beside ${settled} settled ones`);

await ('stop' in server ? server.stop() : server.close());
await database.close();
await stripe.close();
await scratch.drop();
