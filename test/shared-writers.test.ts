import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { newId } from '../src/db/ids.js';
import { TEST_SECRETS_KEY } from './support/app.js';
import { cli } from './support/cli.js';
import { startStripeFake } from './support/fakes/stripe.js';
import { databaseUrl } from './support/file-database.js';
import { send } from './support/http.js';
import { type ServiceProcess, startProcess } from './support/process.js';

// API.md sections 5 and 8: processes that share the database take turns writing and never
// fail for each other: the command line's import beside the service's writes, and two
// cluster workers (WEB_CONCURRENCY=2), on the embedded database as on PostgreSQL.

let database: Database;
beforeAll(async () => {
  database = await openDatabase(resolveDatabase(databaseUrl()));
});
afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const dir = mkdtempSync(join(tmpdir(), 'sg-shared-writers-'));

/** A new workspace and a key for it. */
async function workspace(): Promise<{ name: string; key: string; id: string }> {
  const name = `ws-${newId()}`;
  const { key, workspaceId } = await createKey(database.prisma, name, 'test');
  return { name, key, id: workspaceId };
}

/** One client's writes, one after the other until `until()`: every status, and the contacts each made. */
async function writer(url: string, key: string, kind: 'single' | 'batch' | 'keyed' | 'upsert', tag: string, until: () => boolean) {
  const statuses: number[] = [];
  let made = 0;
  const headers = { 'X-Api-Key': key };
  for (let i = 0; !until() || i === 0; i += 1) {
    const email = (n: number) => `${tag}-${kind}-${i}-${n}@w.io`;
    let res;
    if (kind === 'single') res = await send(`${url}/api/v1/contacts`, 'POST', { headers, body: { first_name: 'S', email: email(0) } });
    else if (kind === 'batch') res = await send(`${url}/api/v1/contacts/batch`, 'POST', { headers, body: { inputs: [0, 1, 2].map((n) => ({ first_name: 'B', email: email(n) })) } });
    else if (kind === 'keyed') {
      const keyed = { headers: { ...headers, 'Idempotency-Key': `${tag}-${i}` }, body: { first_name: 'K', email: email(0) } };
      res = await send(`${url}/api/v1/contacts`, 'POST', keyed);
      // The same key again replays the answer: one contact.
      const again = await send(`${url}/api/v1/contacts`, 'POST', keyed);
      statuses.push(again.status);
      expect(again.body.id).toBe(res.body.id);
    } else res = await send(`${url}/api/v1/contacts/batch/upsert`, 'PUT', { headers, body: { inputs: [0, 1].map((n) => ({ first_name: 'U', email: email(n) })) } });
    statuses.push(res.status);
    if (res.status < 300) made += kind === 'batch' ? 3 : kind === 'upsert' ? 2 : 1;
  }
  return { statuses, made };
}

const contactsOf = (workspaceId: string) => (database.prisma as any).contact.count({ where: { workspaceId } }) as Promise<number>;

describe('processes sharing the database', () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.stop());

  it('imports a file with the command line while the service takes writes into the same workspace: every row, every write', { timeout: 120_000 }, async () => {
    service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
    const ws = await workspace();
    const ROWS = 1_500;
    const file = join(dir, 'contacts.csv');
    writeFileSync(file, `first_name,email\r\n${Array.from({ length: ROWS }, (_, i) => `Imported ${i},imported-${i}@i.io\r\n`).join('')}`);
    let importing = true;
    const imported = cli(['import', 'contacts', file, '--workspace', ws.name, '--json'], { DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn' }).finally(() => (importing = false));
    // Three clients write throughout the import, each at least once.
    const writers = await Promise.all((['single', 'batch', 'upsert'] as const).map((kind) => writer(service!.url, ws.key, kind, 'beside', () => !importing)));
    const result = await imported;
    expect({ code: result.code, error: /error|locked/i.test(result.stderr) }).toEqual({ code: 0, error: false });
    expect(JSON.parse(result.stdout)).toEqual({ created: ROWS, updated: 0, rejected: 0, skipped: 0 });
    const statuses = writers.flatMap((w) => w.statuses);
    expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);
    expect(await contactsOf(ws.id)).toBe(ROWS + writers.reduce((sum, w) => sum + w.made, 0));
    await service.stop();
    service = undefined;
  });

  it('takes payments through Stripe and refunds them in two workers while the command line imports: every answer 2xx, one refund at Stripe each', { timeout: 120_000 }, async () => {
    const stripe = await startStripeFake();
    try {
      service = await startProcess({
        DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', WEB_CONCURRENCY: '2', NODE_CLUSTER_SCHED_POLICY: 'rr', RATE_LIMIT_PER_MINUTE: '0',
        PUBLIC_RATE_LIMIT_PER_MINUTE: '0', STRIPE_API_BASE: stripe.url, SECRETS_KEY: TEST_SECRETS_KEY, LOG_LEVEL: 'warn',
      });
      const ws = await workspace();
      const api = (method: string, path: string, body?: unknown) => send(`${service!.url}/api/v1${path}`, method, { headers: { 'X-Api-Key': ws.key }, body });
      const secret = `whsec_${randomBytes(24).toString('base64url')}`;
      const account = await api('POST', '/payment-provider-accounts', { name: 'Stripe', provider: 'stripe', credentials: { secret_key: stripe.secretKey, webhook_signing_secret: secret } });
      expect(account.status).toBe(201);
      stripe.addEndpoint(account.body.webhook_url, secret);
      const link = await api('POST', '/payment-links', { name: 'Plan', amount: 100, currency: 'USD', payment_provider_account_id: account.body.id });
      expect((await api('POST', `/payment-links/${link.body.id}/activate`)).status).toBe(200);

      const ROWS = 1_500;
      const file = join(dir, 'beside-payments.csv');
      writeFileSync(file, `first_name,email\r\n${Array.from({ length: ROWS }, (_, i) => `Imported ${i},paying-${i}@i.io\r\n`).join('')}`);
      let importing = true;
      const imported = cli(['import', 'contacts', file, '--workspace', ws.name, '--json'], { DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn' }).finally(() => (importing = false));
      // Two payers at once, each paying (Stripe's webhook) and being refunded in two parts, until the import ends.
      const payer = async (n: number) => {
        const statuses: number[] = [];
        const transactions: string[] = [];
        for (let i = 0; importing || i === 0; i += 1) {
          const made = await send(`${service!.url}/api/v1/public/payment-links/${link.body.public_token}/checkouts`, 'POST', { body: { payer: { name: 'Ada', email: `ada-${n}-${i}@example.com` } } });
          statuses.push(made.status);
          const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === made.body.checkout_id)!;
          await stripe.pay(session.id);
          const transaction = (await api('GET', `/payment-transactions?checkout_id=${made.body.checkout_id}`)).body.data[0];
          for (const body of [{ amount: 30 }, {}]) statuses.push((await api('POST', `/payment-transactions/${transaction.id}/refunds`, body)).status);
          transactions.push(transaction.id);
        }
        return { statuses, transactions };
      };
      const payers = await Promise.all([0, 1].map(payer));
      const result = await imported;
      expect({ code: result.code, error: /error|locked/i.test(result.stderr) }).toEqual({ code: 0, error: false });
      expect(JSON.parse(result.stdout)).toEqual({ created: ROWS, updated: 0, rejected: 0, skipped: 0 });
      expect(payers.flatMap((p) => p.statuses).filter((s) => s !== 201)).toEqual([]);
      expect(stripe.deliveries.filter((d) => d.url === account.body.webhook_url && d.status !== 200)).toEqual([]);
      for (const id of payers.flatMap((p) => p.transactions)) {
        expect((await api('GET', `/payment-transactions/${id}`)).body).toMatchObject({ status: 'refunded', amount_refunded: 100 });
      }
      // At Stripe: two refunds of each payment, 30 and 70, none twice.
      const refunds = [...stripe.refunds.values()];
      expect(refunds.map((r) => r.amount).sort()).toEqual(payers.flatMap((p) => p.transactions).flatMap(() => [3000, 7000]).sort());
      expect(new Set(refunds.map((r) => r.metadata.refund_id)).size).toBe(refunds.length);
      expect(service.stderr()).toBe('');
      await service.stop();
      service = undefined;
    } finally {
      await stripe.close();
    }
  });

  it('serves single, batch, keyed and upsert writes from two workers (WEB_CONCURRENCY=2) with every answer 2xx and the counts exact', { timeout: 120_000 }, async () => {
    service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', WEB_CONCURRENCY: '2', NODE_CLUSTER_SCHED_POLICY: 'rr', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
    const ws = await workspace();
    const WRITES = 25;
    const counters = new Map<string, number>();
    const upTo = (name: string) => () => {
      const n = (counters.get(name) ?? 0) + 1;
      counters.set(name, n);
      return n > WRITES;
    };
    // Two clients of each kind at once: eight connections, spread over both workers.
    const kinds = ['single', 'batch', 'keyed', 'upsert'] as const;
    const writers = await Promise.all(kinds.flatMap((kind) => [0, 1].map((n) => writer(service!.url, ws.key, kind, `c${n}`, upTo(`${kind}${n}`)))));
    const statuses = writers.flatMap((w) => w.statuses);
    expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);
    expect(statuses.length).toBe(2 * WRITES * 5); // keyed: a write and its replay
    expect(await contactsOf(ws.id)).toBe(writers.reduce((sum, w) => sum + w.made, 0));
    expect(service.stderr()).toBe('');
    await service.stop();
    service = undefined;
  });
});
