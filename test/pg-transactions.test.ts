import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { serialTransactions } from '../src/db/serial-transactions.js';
import { type TestApp, newClient, startApp } from './support/app.js';
import { testAdminUrl } from './support/scratch-database.js';

// PostgreSQL transactions send one statement at a time (src/db/serial-transactions.ts):
// node-postgres's own queue for statements sent while one runs is deprecated, and pg 9
// removes it. Every statement a client sends is watched here for one already running or
// waiting on the same connection.

describe.runIf(process.env.TEST_PROVIDER === 'postgresql')('PostgreSQL transactions', () => {
  let app: TestApp;
  const overlaps: string[] = [];
  const query = pg.Client.prototype.query;

  beforeAll(async () => {
    // Installed before the pools exist; `_activeQuery` and `_queryQueue` are what pg checks itself.
    pg.Client.prototype.query = function (this: pg.Client & { _activeQuery: unknown; _queryQueue: unknown[] }, ...args: unknown[]) {
      if (this._activeQuery || this._queryQueue.length > 0) overlaps.push(String((args[0] as { text?: string })?.text ?? args[0]).slice(0, 80));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    app = await startApp();
  });

  afterAll(async () => {
    await app?.close();
    pg.Client.prototype.query = query;
  });

  /** Two statements sent at once on one transaction of `factory`'s adapter, as Prisma passes them on; what they return, in the order sent. */
  async function twoAtOnce(factory: SqlDriverAdapterFactory): Promise<unknown[]> {
    const adapter = await factory.connect();
    try {
      const tx = await adapter.startTransaction();
      const sql = (text: string) => ({ sql: text, args: [], argTypes: [] });
      await tx.executeRaw(sql('BEGIN'));
      const results = await Promise.all([tx.queryRaw(sql('SELECT 1 AS n FROM pg_sleep(0.02)')), tx.queryRaw(sql('SELECT 2 AS n'))]);
      await tx.executeRaw(sql('COMMIT'));
      await tx.commit();
      return results.map((r) => r.rows[0]![0]);
    } finally {
      await adapter.dispose();
    }
  }

  it('send their statements one at a time, in the order sent', async () => {
    const pool = () => new PrismaPg({ connectionString: testAdminUrl() });
    overlaps.length = 0;
    expect(await twoAtOnce(pool())).toEqual([1, 2]);
    expect(overlaps).toEqual(['SELECT 2 AS n']); // unqueued here, the second is sent while the first runs (the watch works)
    overlaps.length = 0;
    expect(await twoAtOnce(serialTransactions(pool()))).toEqual([1, 2]);
    expect(overlaps).toEqual([]);
  });

  it('a write through both faces, with its events, subscribers and REST objects, never overlaps statements', async () => {
    overlaps.length = 0;
    const client = await newClient(app);
    expect((await client.post('/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['*'] })).status).toBe(201);
    const contact = await client.post('/contacts', { first_name: 'Serial', email: `serial-${Date.now()}@example.com` });
    expect(contact.status).toBe(201);
    expect((await client.put(`/contacts/${contact.body.id}`, { first_name: 'Serial 2' })).status).toBe(200);
    const batch = await client.post('/contacts/batch', { inputs: [1, 2, 3].map((n) => ({ first_name: `S${n}`, email: `serial-${n}-${Date.now()}@example.com` })) });
    expect(batch.status).toBe(201);
    const reply = await client.graphql('mutation ($id: ID!) { updateContact(id: $id, input: { lastName: "Queue" }) { id lastName history { total } } }', { id: contact.body.id });
    expect(reply.body.errors).toBeUndefined();
    expect(overlaps).toEqual([]);
  });
});
