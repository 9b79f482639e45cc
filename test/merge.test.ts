import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

// API.md section 12's merge: duplicates folded into one record, in one transaction.
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never });
});
afterAll(() => app.close());

async function paidBy(api: Client, email: string) {
  const account = (await api.post('/payment-provider-accounts', { name: 'Test', provider: 'test' })).body;
  const link = (await api.post('/payment-links', { name: 'Plan', amount: 10, currency: 'USD', payment_provider_account_id: account.id })).body;
  await api.post(`/payment-links/${link.id}/activate`);
  const checkout = await send(`${app.url}/api/v1/public/payment-links/${link.public_token}/checkouts`, 'POST', { body: { payer: { name: 'Payer', email } } });
  expect(checkout.status).toBe(201);
}

describe('merging contacts', () => {
  it('moves every relation to the target, fills only its empty values, trashes the sources, and records the events', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'string' });
    await api.post('/property-definitions', { object: 'contact', key: 'city', label: 'City', type: 'string' });
    const user = (await api.post('/users', { name: 'Ann', email: 'ann@example.com' })).body;
    const [acme, globex] = [(await api.post('/companies', { name: 'Acme' })).body, (await api.post('/companies', { name: 'Globex' })).body];
    const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }] })).body;
    const target = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com', company_ids: [acme.id], properties: { tier: 'gold' } })).body;
    const first = (await api.post('/contacts', { first_name: 'A.', last_name: 'Lovelace', email: 'ada@work.example', notes: 'From the fair', company_ids: [acme.id, globex.id], properties: { tier: 'silver', city: 'London' } })).body;
    const second = (await api.post('/contacts', { first_name: 'Ada L', last_name: 'King', email: 'ada.king@example.com' })).body;
    const deal = (await api.post('/deals', { name: 'Order', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id, contact_ids: [first.id, target.id] })).body;
    const note = (await api.post('/notes', { body: 'Called', contact_ids: [second.id] })).body;
    await paidBy(api, 'ada.king@example.com');

    const merged = await api.post(`/contacts/${target.id}/merge`, { source_ids: [first.id, second.id] });
    expect(merged.status).toBe(200);
    expect(merged.body).toEqual({ ...target, last_name: 'Lovelace', notes: 'From the fair', properties: { tier: 'gold', city: 'London' }, updated_at: expect.any(String) });
    expect((await api.get(`/contacts/${target.id}`)).body).toEqual(merged.body);
    const links = (await api.graphql('query($id: ID!) { contact(id: $id) { companyIds deals { id } } }', { id: target.id })).body.data.contact;
    expect(links).toEqual({ companyIds: [acme.id, globex.id].sort(), deals: [{ id: deal.id }] });
    expect((await api.get(`/notes/${note.id}`)).body.targets).toEqual([{ type: 'contacts', id: target.id, title: 'Ada Lovelace' }]);
    expect((await api.get(`/contacts/${target.id}/timeline?kinds=payment`)).body.data).toHaveLength(0); // a checkout records no event until paid
    const transactions = await app.database.prisma.paymentTransaction.findMany({ where: { workspaceId: api.workspaceId }, select: { contactId: true } });
    expect(transactions).toEqual([{ contactId: target.id }]);
    // The sources: in the trash, merged, and not restorable.
    for (const source of [first, second]) {
      expect((await api.get(`/contacts/${source.id}`)).status).toBe(404);
      expect(await api.post(`/contacts/${source.id}/restore`)).toMatchObject({ status: 409, body: { message: 'This record cannot be restored: it was merged into another.' } });
    }
    expect((await api.get('/trash?type=contacts')).body.data.map((t: { id: string; merged_into: string }) => [t.id, t.merged_into]).sort()).toEqual([[first.id, target.id], [second.id, target.id]].sort());
    // Their e-mails are free.
    expect((await api.post('/contacts', { first_name: 'New', email: 'ada@work.example' })).status).toBe(201);
    // Events: each source's deletion, the target's merge with the sources' ids.
    const events = (await api.get('/events?type=contact.*&per_page=10')).body.data;
    const mergedEvent = events.find((e: { type: string }) => e.type === 'contact.merged');
    expect(mergedEvent).toMatchObject({ record_id: target.id, data: { object: merged.body, source_ids: [first.id, second.id] } });
    expect(events.filter((e: { type: string }) => e.type === 'contact.deleted').map((e: { record_id: string }) => e.record_id).sort()).toEqual([first.id, second.id].sort());
    expect((await api.get(`/contacts/${target.id}/timeline?kinds=change&per_page=1`)).body.data[0].summary).toBe('Merged');
  });

  it('refuses bad source_ids (422) and an unknown target (404), changing nothing; honours Idempotency-Key', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const target = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).body;
    const source = (await api.post('/contacts', { first_name: 'Ada', email: 'ada2@example.com' })).body;
    const stranger = (await other.post('/contacts', { first_name: 'Bo', email: 'bo@example.com' })).body;
    const refused = async (body: unknown) => (await api.post(`/contacts/${target.id}/merge`, body)).body.errors;
    expect(await refused({})).toEqual({ source_ids: ['The source ids field is required.'] });
    expect(await refused({ source_ids: [] })).toEqual({ source_ids: ['The source ids field must have at least 1 items.'] });
    expect(await refused({ source_ids: Array.from({ length: 11 }, (_, i) => `x${i}`) })).toEqual({ source_ids: ['The source ids field must not have more than 10 items.'] });
    expect(await refused({ source_ids: [target.id] })).toEqual({ source_ids: ['The source ids must not include the record merged into.'] });
    expect(await refused({ source_ids: [stranger.id] })).toEqual({ source_ids: ['The selected source ids is invalid.'] });
    expect(await refused({ source_ids: [source.id, 'nope'] })).toEqual({ source_ids: ['The selected source ids is invalid.'] });
    expect(await api.post(`/contacts/${'0'.repeat(26)}/merge`, { source_ids: [source.id] })).toMatchObject({ status: 404, body: { message: 'Contact not found.' } });
    expect((await api.get(`/contacts/${source.id}`)).status).toBe(200);
    expect((await api.get('/trash')).body.total).toBe(0);

    const keyed = () => api.request('POST', `/contacts/${target.id}/merge`, { body: { source_ids: [source.id] }, headers: { 'Idempotency-Key': 'merge-1' } });
    const [a, b] = [await keyed(), await keyed()];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
  });

  it('merges companies: contacts and notes move, the domain fills in', async () => {
    const api = await newClient(app);
    const target = (await api.post('/companies', { name: 'Acme' })).body;
    const source = (await api.post('/companies', { name: 'ACME Inc', domain: 'acme.example' })).body;
    const contact = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com', company_ids: [source.id] })).body;
    const note = (await api.post('/notes', { body: 'Visit', company_ids: [source.id, target.id] })).body;
    const merged = await api.post(`/companies/${target.id}/merge`, { source_ids: [source.id] });
    expect(merged.body).toEqual({ ...target, domain: 'acme.example', updated_at: expect.any(String) });
    expect((await api.graphql('query($id: ID!) { company(id: $id) { contactIds } }', { id: target.id })).body.data.company.contactIds).toEqual([contact.id]);
    expect((await api.get(`/notes/${note.id}`)).body.targets).toEqual([{ type: 'companies', id: target.id, title: 'Acme' }]);
  });

  it('loses no relation when merges of overlapping records run at once', async () => {
    const api = await newClient(app);
    const contacts = [];
    for (let i = 0; i < 4; i += 1) {
      const company = (await api.post('/companies', { name: `C${i}` })).body;
      contacts.push((await api.post('/contacts', { first_name: `P${i}`, email: `p${i}@example.com`, company_ids: [company.id] })).body);
    }
    const [a, b, c, d] = contacts as [{ id: string }, { id: string }, { id: string }, { id: string }];
    // Two merges sharing a source, one into the other's target, at once: one of each pair wins, the other is refused.
    const replies = await Promise.all([
      api.post(`/contacts/${a.id}/merge`, { source_ids: [b.id, c.id] }),
      api.post(`/contacts/${d.id}/merge`, { source_ids: [c.id] }),
      api.post(`/contacts/${b.id}/merge`, { source_ids: [d.id] }),
    ]);
    expect(replies.map((r) => r.status).every((s) => s === 200 || s === 422 || s === 404)).toBe(true);
    expect(replies.some((r) => r.status === 200)).toBe(true);
    // Every company is still linked to exactly one live contact.
    const live = (await api.get('/contacts?per_page=100')).body.data.map((x: { id: string }) => x.id);
    const companies = (await api.graphql('{ companies(perPage: 100) { data { id contactIds } } }')).body.data.companies.data;
    expect(companies).toHaveLength(4);
    for (const company of companies) {
      expect(company.contactIds).toHaveLength(1);
      expect(live).toContain(company.contactIds[0]);
    }
  });

  it('gives a record restored after a merge its links to the merged record', async () => {
    const api = await newClient(app);
    const [target, source] = [(await api.post('/contacts', { first_name: 'Keep', email: 'keep@example.com' })).body, (await api.post('/contacts', { first_name: 'Fold', email: 'fold@example.com' })).body];
    const company = (await api.post('/companies', { name: 'Acme', contact_ids: [source.id] })).body;
    expect((await api.delete(`/companies/${company.id}`)).status).toBe(204);
    expect((await api.post(`/contacts/${target.id}/merge`, { source_ids: [source.id] })).status).toBe(200);
    expect((await api.post(`/companies/${company.id}/restore`)).status).toBe(200);
    expect((await api.graphql('query($id: ID!) { company(id: $id) { contactIds } }', { id: company.id })).body.data.company.contactIds).toEqual([target.id]);
  });
});
