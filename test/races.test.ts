import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type Reply, type TestApp, newClient, startApp } from './support/app.js';

// Writes that lose a race get the contract's answer (404 or 422), never a 500.
// Races show on PostgreSQL; SQLite serializes writes, so there these mostly check the plain path.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const statuses = (replies: { status: number }[]) => [...new Set(replies.map((r) => r.status))].sort();

async function dealSetup(api: Client) {
  const user = (await api.post('/users', { name: 'Owner', email: `o${Math.random()}@example.com` })).body;
  const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'A' }, { name: 'B' }] })).body;
  return { user, pipeline };
}

describe('lost races', () => {
  it('PUT against a concurrent DELETE is 200 or 404', async () => {
    const api = await newClient(app);
    const products = await Promise.all(
      Array.from({ length: 15 }, async (_, i) => (await api.post('/products', { name: `P${i}`, type: 'product', price: 1, currency: 'USD', unit: 'unit' })).body),
    );
    const replies = await Promise.all(products.flatMap((p) => [api.put(`/products/${p.id}`, { name: 'renamed' }), api.delete(`/products/${p.id}`)]));
    for (const reply of replies) expect([200, 204, 404]).toContain(reply.status);
    expect((await api.get('/products')).body.total).toBe(0);
  });

  it('deleting a user while deals are given to them is 204 or 422, and no deal loses its owner', async () => {
    const api = await newClient(app);
    const { user, pipeline } = await dealSetup(api);
    const stage = pipeline.stages[0].external_id;
    const replies = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => api.post('/deals', { name: `D${i}`, deal_stage_external_id: stage, user_id: user.id })),
      api.delete(`/users/${user.id}`),
    ]);
    expect(statuses(replies).every((s) => [201, 204, 422].includes(s))).toBe(true);
    const deleted = replies.at(-1)!.status === 204;
    const deals = (await api.get('/deals?per_page=100')).body;
    expect(deals.total).toBe(replies.filter((r) => r.status === 201).length);
    if (deleted) expect(deals.total).toBe(0);
    else expect(replies.at(-1)!.body).toEqual({ message: 'The given data was invalid.', errors: { id: ['The user owns deals: reassign them first.'] } });
  });

  it('deleting a pipeline that holds deals is 422 and changes nothing', async () => {
    const api = await newClient(app);
    const { user, pipeline } = await dealSetup(api);
    await api.post('/deals', { name: 'D', deal_stage_external_id: pipeline.stages[1].external_id, user_id: user.id });
    const res = await api.delete(`/pipelines/${pipeline.id}`);
    expect([res.status, res.body]).toEqual([422, { message: 'The given data was invalid.', errors: { id: ['The pipeline holds deals and cannot be deleted.'] } }]);
    expect((await api.get(`/pipelines/${pipeline.id}`)).body).toEqual(pipeline);
  });

  it('linking records that are being deleted is 2xx, 404 or 422', async () => {
    const api = await newClient(app);
    const companies = await Promise.all(Array.from({ length: 10 }, async (_, i) => (await api.post('/companies', { name: `C${i}` })).body));
    const contact = (await api.post('/contacts', { first_name: 'L', email: 'l@example.com' })).body;
    const replies = await Promise.all(
      companies.flatMap((c) => [api.put(`/contacts/${contact.id}`, { company_ids: [c.id] }), api.delete(`/companies/${c.id}`)]),
    );
    for (const reply of replies) expect([200, 204, 404, 422]).toContain(reply.status);
  });

  // A referenced row deleted between a write's check and the write itself: the write's
  // connect or foreign key fails, and the answer is the 422 on that field it would have
  // got a moment later, never a 404 about the record being written. The write is held on
  // a row lock (PostgreSQL) while the referenced row is deleted, so the race always happens.
  describe.runIf(process.env.TEST_PROVIDER === 'postgresql')('a referenced row deleted while the write waits', () => {
    /**
     * Runs `during` while another connection holds a lock on the row `id` of `table`: the
     * lock `lockRow` takes (no key column written), so rows that merely refer to the locked
     * one (an event's workspace) can still be inserted, as in the service.
     */
    const whileLocked = (table: string, id: string, during: () => Promise<void>) =>
      app.database.prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe(`SELECT 1 FROM "${table}" WHERE id = $1 FOR NO KEY UPDATE`, id);
          await during();
        },
        { timeout: 30_000 },
      );
    const waiting = async () =>
      (await app.database.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0]!.n;

    async function race(lock: [string, string], write: () => Promise<Reply>, remove: () => Promise<Reply>) {
      let reply!: Promise<Reply>;
      await whileLocked(lock[0], lock[1], async () => {
        reply = write();
        await expect.poll(waiting, { timeout: 10_000, interval: 5 }).toBeGreaterThan(0);
        expect((await remove()).status).toBe(204);
      });
      return reply;
    }

    it('POST /tasks with an owner deleted meanwhile is 422 on owner_ids', async () => {
      const api = await newClient(app);
      const user = (await api.post('/users', { name: 'U', email: 'gone@example.com' })).body;
      const reply = await race(['Workspace', api.workspaceId], () => api.post('/tasks', { title: 'T', owner_ids: [user.id] }), () => api.delete(`/users/${user.id}`));
      expect([reply.status, reply.body]).toEqual([422, { message: 'The given data was invalid.', errors: { owner_ids: ['The selected owner ids is invalid.'] } }]);
      expect((await api.get('/tasks')).body.total).toBe(0);
    });

    it('PUT /companies/{id} with a contact deleted meanwhile is 422 on contact_ids', async () => {
      const api = await newClient(app);
      const company = (await api.post('/companies', { name: 'Co' })).body;
      const contact = (await api.post('/contacts', { first_name: 'C', email: 'gone@example.com' })).body;
      const reply = await race(['Company', company.id], () => api.put(`/companies/${company.id}`, { name: 'Renamed', contact_ids: [contact.id] }), () => api.delete(`/contacts/${contact.id}`));
      expect([reply.status, reply.body]).toEqual([422, { message: 'The given data was invalid.', errors: { contact_ids: ['The selected contact ids is invalid.'] } }]);
      expect((await api.get(`/companies/${company.id}`)).body.name).toBe('Co');
    });

    it('POST /tickets with its status deleted meanwhile is 422 on ticket_status_id', async () => {
      const api = await newClient(app);
      const status = (await api.post('/ticket-statuses', { name: 'Open' })).body;
      const reply = await race(['Workspace', api.workspaceId], () => api.post('/tickets', { title: 'T', ticket_status_id: status.id }), () => api.delete(`/ticket-statuses/${status.id}`));
      expect([reply.status, reply.body]).toEqual([422, { message: 'The given data was invalid.', errors: { ticket_status_id: ['The selected ticket status id is invalid.'] } }]);
    });
  });

  it('refuses NUL characters in any string with 422 on both databases', async () => {
    const api = await newClient(app);
    const res = await api.post('/contacts', { first_name: 'A\u0000', email: 'nul@example.com', notes: 'ok' });
    expect([res.status, res.body.errors]).toEqual([422, { first_name: ['The first name field must not contain NUL characters.'] }]);
    const filter = await api.get('/contacts?search=%00');
    expect([filter.status, filter.body.errors]).toEqual([422, { search: ['The search field must not contain NUL characters.'] }]);
    expect((await api.get('/contacts')).body.total).toBe(0);
  });
});
