import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactListCounts } from '../src/db/counter-slots.js';
import { databaseUrl } from './support/file-database.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

// A page's `total` for contacts, deals and payment transactions comes from counters the
// database keeps (ListCount, triggers). Each check compares it with the rows themselves.
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

/** `total` of a list, after checking it against the rows the list returns (all on one page). */
async function total(api: Client, path: string): Promise<number> {
  const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100`);
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(res.body.data.length);
  return res.body.total;
}

describe('stored list totals', () => {
  it('follow deals through creates, stage moves across pipelines and deletes', async () => {
    const api = await newClient(app);
    const sales = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }, { name: 'Won' }] })).body;
    const other = (await api.post('/pipelines', { name: 'Other', stages: [{ name: 'Only' }] })).body;
    const user = (await api.post('/users', { name: 'Olive', email: 'olive@example.com' })).body;
    const [lead, won] = sales.stages.map((s: { external_id: string }) => s.external_id);
    const only = other.stages[0].external_id;
    const deal = async (stage: string) => (await api.post('/deals', { name: 'D', deal_stage_external_id: stage, user_id: user.id })).body;
    const leads = await Promise.all([1, 2, 3, 4].map(() => deal(lead)));
    await deal(won);
    await deal(only);
    const totals = async () => ({
      all: await total(api, '/deals'),
      sales: await total(api, `/deals?pipeline_id=${sales.id}`),
      other: await total(api, `/deals?pipeline_id=${other.id}`),
      lead: await total(api, `/deals?deal_stage_external_id=${lead}`),
      won: await total(api, `/deals?deal_stage_external_id=${won}`),
      only: await total(api, `/deals?deal_stage_external_id=${only}`),
    });
    expect(await totals()).toEqual({ all: 6, sales: 5, other: 1, lead: 4, won: 1, only: 1 });

    expect((await api.put(`/deals/${leads[0].id}`, { deal_stage_external_id: won })).status).toBe(200);
    expect((await api.put(`/deals/${leads[1].id}`, { deal_stage_external_id: only })).status).toBe(200);
    expect((await api.put(`/deals/${leads[2].id}`, { name: 'Renamed', deal_stage_external_id: lead })).status).toBe(200);
    expect((await api.delete(`/deals/${leads[3].id}`)).status).toBe(204);
    expect(await totals()).toEqual({ all: 5, sales: 3, other: 2, lead: 1, won: 2, only: 2 });
    // Both filters at once are counted from the rows.
    expect(await total(api, `/deals?pipeline_id=${sales.id}&deal_stage_external_id=${only}`)).toBe(0);
  });

  it('follow payment transactions and their status, changed by events', async () => {
    const api = await newClient(app);
    const account = (await api.post('/payment-provider-accounts', { name: 'Main', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id })).body;
    const txs = await Promise.all(
      [1, 2, 3].map(async (i) => (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${i}`, amount: 10, currency: 'USD' })).body),
    );
    const event = { type: 'payment.paid', status: 'paid', provider_reference: 'evt_1', occurred_at: '2026-11-20T10:00:00Z' };
    expect((await api.post(`/payment-transactions/${txs[0].id}/events`, event)).status).toBe(201);
    // The same delivery again changes nothing.
    expect((await api.post(`/payment-transactions/${txs[0].id}/events`, event)).status).toBeLessThan(300);
    expect((await api.post(`/payment-transactions/${txs[1].id}/events`, { ...event, status: 'failed' })).status).toBe(201);
    expect({
      all: await total(api, '/payment-transactions'),
      pending: await total(api, '/payment-transactions?status=pending'),
      paid: await total(api, '/payment-transactions?status=paid'),
      failed: await total(api, '/payment-transactions?status=failed'),
      refunded: await total(api, '/payment-transactions?status=refunded'),
    }).toEqual({ all: 3, pending: 1, paid: 1, failed: 1, refunded: 0 });
  });

  it("count a transaction search from its links' counters plus the reference matches on other links, each match once", async () => {
    const api = await newClient(app);
    const account = (await api.post('/payment-provider-accounts', { name: 'Main', provider: 'test' })).body;
    const link = async (name: string) => (await api.post('/payment-links', { name, payment_provider_account_id: account.id })).body;
    const [gold, silver, goldExtra] = [await link('Gold plan'), await link('Silver'), await link('Gold extra')];
    const tx = async (on: { id: string }, reference: string) =>
      (await api.post('/payment-transactions', { payment_link_id: on.id, provider_reference: reference, amount: 10, currency: 'USD' })).body;
    // The link's name and the reference both match pi_gold_a3: it counts once.
    const [a1] = [await tx(gold, 'pi_a1'), await tx(gold, 'pi_a2'), await tx(gold, 'pi_gold_a3')];
    const [b1] = [await tx(silver, 'pi_gold_b1'), await tx(silver, 'pi_b2')];
    await tx(goldExtra, 'pi_c1');
    const paid = { type: 'payment.paid', status: 'paid', provider_reference: 'evt_1', occurred_at: '2026-11-20T10:00:00Z' };
    for (const t of [a1, b1]) expect((await api.post(`/payment-transactions/${t.id}/events`, paid)).status).toBe(201);

    /** A full first page (so its total is not told by the page) and the statements it sent. */
    const searched = async (query: string, perPage: number) => {
      const sent: string[] = [];
      app.database.onStatement((sql) => sent.push(sql));
      let body: any;
      try {
        body = (await api.get(`/payment-transactions?${query}&per_page=${perPage}`)).body;
      } finally {
        app.database.onStatement(undefined);
      }
      expect(body.data).toHaveLength(perPage);
      return { total: body.total, counter: sent.some((sql) => sql.includes('ListCount')) };
    };
    expect(await searched('search=gold', 2)).toEqual({ total: 5, counter: true });
    expect(await total(api, '/payment-transactions?search=gold')).toBe(5);
    expect(await searched('search=gold&status=paid', 1)).toEqual({ total: 2, counter: true });
    expect(await total(api, '/payment-transactions?search=gold&status=paid')).toBe(2);
    expect(await searched('search=gold&status=pending', 1)).toEqual({ total: 3, counter: true });
    expect(await total(api, '/payment-transactions?search=gold&status=pending')).toBe(3);
    // No link's name matches: the reference matches alone, counted.
    expect(await searched('search=pi_a', 1)).toEqual({ total: 2, counter: false });
  });

  it('are read from the counters, never counted over the rows, unless a search or both deal filters are given', async () => {
    const api = await newClient(app);
    const sqlOf = async (path: string) => {
      const sent: string[] = [];
      app.database.onStatement((sql) => sent.push(sql));
      try {
        expect((await api.get(path)).status).toBe(200);
      } finally {
        app.database.onStatement(undefined);
      }
      return { counter: sent.some((sql) => sql.includes('ListCount')), rowCount: sent.some((sql) => /COUNT\(/i.test(sql)) };
    };
    for (const path of ['/contacts', '/deals?pipeline_id=p', '/deals?deal_stage_external_id=s', '/payment-transactions?status=paid&page=2']) {
      expect([path, await sqlOf(path)]).toEqual([path, { counter: true, rowCount: false }]);
    }
    // Uncounted lists read no counter; these pages are empty, so they end the list and need no count either.
    for (const path of ['/contacts?search=a', '/contacts?email=a@example.com', '/deals?pipeline_id=p&deal_stage_external_id=s', '/payment-transactions?search=x']) {
      expect([path, await sqlOf(path)]).toEqual([path, { counter: false, rowCount: false }]);
    }
    // A search's total: counted for a full page or a page past the end, told by a page that ends the list.
    await Promise.all(Array.from({ length: 16 }, (_, i) => api.post('/contacts', { first_name: 'Findme', email: `f${i}@example.com` })));
    const page = async (n: number) => {
      const sql = await sqlOf(`/contacts?search=findme&per_page=15&page=${n}`);
      const body = (await api.get(`/contacts?search=findme&per_page=15&page=${n}`)).body;
      return { rows: body.data.length, total: body.total, last_page: body.last_page, counted: sql.rowCount };
    };
    expect(await page(1)).toEqual({ rows: 15, total: 16, last_page: 2, counted: true });
    expect(await page(2)).toEqual({ rows: 1, total: 16, last_page: 2, counted: false });
    expect(await page(3)).toEqual({ rows: 0, total: 16, last_page: 2, counted: true });
  });

  it('stay exact under concurrent creates, upserts and deletes, including two deletes of one contact', async () => {
    const api = await newClient(app);
    const created = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => (await api.post('/contacts', { first_name: 'C', email: `c${i}@example.com` })).body),
    );
    const doomed = created.slice(0, 8);
    const statuses = await Promise.all([
      ...doomed.map((c) => api.delete(`/contacts/${c.id}`)),
      ...doomed.map((c) => api.delete(`/contacts/${c.id}`)),
      ...Array.from({ length: 10 }, (_, i) => api.post('/contacts', { first_name: 'New', email: `new${i}@example.com` })),
      ...Array.from({ length: 6 }, () => api.put('/contacts/upsert', { first_name: 'Same', email: 'same@example.com' })),
      ...created.slice(8, 12).map((c) => api.put('/contacts/upsert', { first_name: 'Again', email: c.email })),
    ]).then((replies) => replies.map((r) => r.status));
    expect(statuses.slice(0, 16).sort()).toEqual([...Array(8).fill(204), ...Array(8).fill(404)]);
    expect(await total(api, '/contacts')).toBe(20 - 8 + 10 + 1);
    // Another workspace's list is its own.
    expect(await total(await newClient(app), '/contacts')).toBe(0);
  });
  // Without slots, every writer to a workspace waited on one counter row until the first
  // one committed: PostgreSQL served about 200 writes/s in one workspace (docs/performance.md).
  describe.runIf(process.env.TEST_PROVIDER === 'postgresql')('on PostgreSQL, in a slot per connection', () => {
    const connect = async () => {
      const client = new pg.Client({ connectionString: databaseUrl() });
      await client.connect();
      return client;
    };
    const insertContact = (c: pg.Client, workspaceId: string, email: string) =>
      c.query(`INSERT INTO "Contact" ("id", "workspaceId", "firstName", "email", "properties", "search", "updatedAt") VALUES ($1, $2, 'Slot', $3, '{}', 'slot', now())`, [
        `slot-${email}-${Date.now()}`,
        workspaceId,
        email,
      ]);
    const slots = async (workspaceId: string) =>
      (await app.database.prisma.$queryRaw<{ slot: number; rows: number }[]>`SELECT "slot", "rows" FROM "ListCount" WHERE "workspaceId" = ${workspaceId} AND "list" = 'Contact' AND "bucket" = '' ORDER BY "slot"`).map(
        (r) => ({ slot: Number(r.slot), rows: Number(r.rows) }),
      );

    it('let two open transactions add contacts to one workspace without waiting for each other', async () => {
      const api = await newClient(app);
      const [first, second] = [await connect(), await connect()];
      try {
        await first.query('BEGIN');
        await insertContact(first, api.workspaceId, 'one@example.com');
        // Waiting for the first transaction's lock would fail at once instead of hanging.
        await second.query("BEGIN; SET LOCAL lock_timeout = '1ms'");
        await insertContact(second, api.workspaceId, 'two@example.com');
        await second.query('COMMIT');
        await first.query('COMMIT');
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
      expect(await total(api, '/contacts')).toBe(2);
    });

    it('are folded into slot 0, leaving a slot an open transaction holds for the next fold', async () => {
      const api = await newClient(app);
      await Promise.all(Array.from({ length: 20 }, (_, i) => api.post('/contacts', { first_name: 'C', email: `c${i}@example.com` })));
      expect((await slots(api.workspaceId)).every((s) => s.slot !== 0)).toBe(true);
      const holder = await connect();
      try {
        const pid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        await insertContact(holder, api.workspaceId, 'committed@example.com');
        // The holder's slot row, locked by the open transaction's second contact.
        await holder.query('BEGIN');
        await insertContact(holder, api.workspaceId, 'held@example.com');
        expect(await compactListCounts(app.database)).toBeGreaterThan(0);
        expect(await slots(api.workspaceId)).toEqual([
          { slot: 0, rows: 20 },
          { slot: pid, rows: 1 },
        ]);
        expect(await total(api, '/contacts')).toBe(21);
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      expect(await total(api, '/contacts')).toBe(22);
      await compactListCounts(app.database);
      expect(await slots(api.workspaceId)).toEqual([{ slot: 0, rows: 22 }]);
      // Statements of at most `batch` rows, until every slot of every workspace is folded.
      await Promise.all(Array.from({ length: 5 }, (_, i) => api.post('/contacts', { first_name: 'D', email: `d${i}@example.com` })));
      const [{ left }] = await app.database.prisma.$queryRaw<[{ left: bigint }]>`SELECT count(*) AS "left" FROM "ListCount" WHERE "slot" <> 0`;
      expect(Number(left)).toBeGreaterThan(0);
      expect(await compactListCounts(app.database, () => false, 1)).toBe(Number(left));
      expect(await slots(api.workspaceId)).toEqual([{ slot: 0, rows: 27 }]);
      expect(await total(api, '/contacts')).toBe(27);
    });
  });
});
