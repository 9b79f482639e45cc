import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, countStatements, newClient, send, startApp } from './support/app.js';

// API.md section 12's timeline: notes, the record's own changes and a contact's payments, one list newest first.
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } as never });
});
afterAll(() => app.close());

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
type Item = { kind: string; id: string; occurred_at: string; summary: string; record: Record<string, unknown>; changes?: unknown };

async function timeline(api: Client, path: string): Promise<{ status: number; body: any }> {
  return api.get(path);
}

/** Every item of a timeline, walked by cursor with `per_page`, and the pages' prev cursors walked back. */
async function walk(api: Client, base: string, perPage: number) {
  const pages: Item[][] = [];
  let url = `${base}${base.includes('?') ? '&' : '?'}per_page=${perPage}&cursor=`;
  const prevs: (string | null)[] = [];
  for (;;) {
    const res = await api.get(url.replace(/^.*\/api\/v1/, ''));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data', 'path', 'per_page', 'next_cursor', 'next_page_url', 'prev_cursor', 'prev_page_url']);
    pages.push(res.body.data);
    prevs.push(res.body.prev_cursor);
    if (!res.body.next_page_url) break;
    url = res.body.next_page_url;
  }
  return { pages, prevs };
}

/** A workspace with a `test` provider link, and a contact who paid through it. */
async function payer(api: Client, email: string) {
  const account = (await api.post('/payment-provider-accounts', { name: 'Test', provider: 'test' })).body;
  const link = (await api.post('/payment-links', { name: 'Plan', amount: 49, currency: 'USD', payment_provider_account_id: account.id })).body;
  expect((await api.post(`/payment-links/${link.id}/activate`)).status).toBe(200);
  const checkout = await send(`${app.url}/api/v1/public/payment-links/${link.public_token}/checkouts`, 'POST', { body: { payer: { name: 'Ada Lovelace', email } } });
  expect(checkout.status).toBe(201);
  const transaction = (await api.get(`/payment-transactions?search=${checkout.body.checkout_id}`)).body.data[0] ?? (await api.get('/payment-transactions')).body.data[0];
  return { transaction };
}

describe('a record\'s timeline', () => {
  it("merges a contact's notes, changes and payments, newest first, each as its REST answer shows it", async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).body;
    const renamed = await api.put(`/contacts/${contact.id}`, { first_name: 'Augusta', notes: 'Met in London' });
    expect(renamed.status).toBe(200);
    const note = (await api.post('/notes', { body: 'Called her\nabout engines', contact_ids: [contact.id] })).body;
    const { transaction } = await payer(api, 'ada@example.com');
    const paid = await api.post(`/payment-transactions/${transaction.id}/events`, { type: 'payment.paid', status: 'paid', provider_reference: 'evt_paid_1', occurred_at: new Date().toISOString() });
    expect(paid.status).toBe(201);

    const res = await timeline(api, `/contacts/${contact.id}/timeline`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.any(Array), path: `${app.url}/api/v1/contacts/${contact.id}/timeline`, per_page: 25, next_cursor: null, next_page_url: null, prev_cursor: null, prev_page_url: null });
    const items: Item[] = res.body.data;
    // Newest first: the payment's event, the note, the update, the creation.
    expect(items.map((i) => [i.kind, i.summary])).toEqual([
      ['payment', 'Payment paid: 49.00 USD'],
      ['note', 'Called her'],
      ['change', 'First name: Ada -> Augusta, Notes: (empty) -> Met in London'],
      ['change', 'Created'],
    ]);
    // Exactly {kind, id, occurred_at, summary, record}; an update's item adds its changes.
    for (const item of items) expect(Object.keys(item)).toEqual(['kind', 'id', 'occurred_at', 'summary', 'record', ...(item.summary.includes(' -> ') ? ['changes'] : [])]);
    const [paidItem, noteItem, updated, created] = items as [Item, Item, Item, Item];
    expect(noteItem).toEqual({ kind: 'note', id: note.id, occurred_at: note.created_at, summary: 'Called her', record: (await api.get(`/notes/${note.id}`)).body });
    expect(updated.changes).toEqual({ first_name: { from: 'Ada', to: 'Augusta' }, notes: { from: null, to: 'Met in London' } });
    expect(updated.record).toEqual((await api.get(`/events/${updated.id}`)).body);
    expect(created).toEqual({ kind: 'change', id: expect.any(String), summary: 'Created', occurred_at: ISO, record: expect.objectContaining({ type: 'contact.created' }) });
    expect(paidItem.record).toEqual((await api.get(`/payment-transactions/${transaction.id}`)).body.events.find((e: { id: string }) => e.id === paidItem.id));
    expect(paidItem.record).toMatchObject({ type: 'payment.paid', status: 'paid', provider_reference: 'evt_paid_1' });

    // Each kind alone, and two together.
    const kinds = async (query: string) => (await api.get(`/contacts/${contact.id}/timeline?kinds=${query}`)).body.data.map((i: Item) => i.kind);
    expect(await kinds('note')).toEqual(['note']);
    expect(await kinds('change')).toEqual(['change', 'change']);
    expect(await kinds('payment')).toEqual(['payment']);
    expect(await kinds('note,change')).toEqual(['note', 'change', 'change']);
  });

  it("shows a deal's stage change by the stages' names, and a company's notes", async () => {
    const api = await newClient(app);
    const user = (await api.post('/users', { name: 'Ann', email: 'ann@example.com' })).body;
    const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Proposal' }, { name: 'Won' }] })).body;
    const deal = (await api.post('/deals', { name: 'Order', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id })).body;
    expect((await api.put(`/deals/${deal.id}`, { deal_stage_external_id: pipeline.stages[1].external_id })).status).toBe(200);
    const items: Item[] = (await api.get(`/deals/${deal.id}/timeline`)).body.data;
    expect(items.map((i) => i.summary)).toEqual(['Stage: Proposal -> Won', 'Created']);
    expect(items[0]!.changes).toEqual({ stage: { from: 'Proposal', to: 'Won' } });
    const company = (await api.post('/companies', { name: 'Acme' })).body;
    const note = (await api.post('/notes', { body: 'Visited', company_ids: [company.id], deal_ids: [deal.id] })).body;
    expect((await api.get(`/companies/${company.id}/timeline?kinds=note`)).body.data.map((i: Item) => i.id)).toEqual([note.id]);
    expect((await api.get(`/deals/${deal.id}/timeline?kinds=note,payment`)).body.data.map((i: Item) => i.id)).toEqual([note.id]);
  });

  it('walks more than 100 items by cursor with no repeat or gap, forward and back, at the same cost per page', async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Busy', email: 'busy@example.com' })).body;
    const small = (await api.post('/contacts', { first_name: 'Quiet', email: 'quiet@example.com' })).body;
    await api.post('/notes', { body: 'one', contact_ids: [small.id] });
    // 110 notes, 22 to a request (a document has at most 30 aliases).
    for (let first = 0; first < 110; first += 22) {
      const notes = Array.from({ length: 22 }, (_, i) => `n${i}: createNote(input: { body: "note ${first + i}", contactIds: ["${contact.id}"] }) { id }`);
      expect((await api.graphql(`mutation { ${notes.join(' ')} }`)).body.errors).toBeUndefined();
    }
    const all: Item[] = (await api.get(`/contacts/${contact.id}/timeline?per_page=100`)).body.data;
    const rest: Item[] = (await api.get(`/contacts/${contact.id}/timeline?per_page=100&cursor=${(await api.get(`/contacts/${contact.id}/timeline?per_page=100&cursor=`)).body.next_cursor}`)).body.data;
    const everything = [...all, ...rest];
    expect(everything).toHaveLength(111); // 110 notes and the creation
    expect(everything.map((i) => i.id)).toEqual([...everything.map((i) => i.id)].sort().reverse());

    const { pages, prevs } = await walk(api, `/contacts/${contact.id}/timeline`, 7);
    expect(pages.flat().map((i) => i.id)).toEqual(everything.map((i) => i.id));
    expect(pages).toHaveLength(16);
    expect(prevs[0]).toBeNull();
    // Back from the last page by prev cursors: the same pages, in reverse.
    let back: Item[][] = [pages.at(-1)!];
    let prev = prevs.at(-1);
    while (prev) {
      const res = await api.get(`/contacts/${contact.id}/timeline?per_page=7&cursor=${prev}`);
      back = [res.body.data, ...back];
      prev = res.body.prev_cursor;
    }
    expect(back.flat().map((i) => i.id)).toEqual(everything.map((i) => i.id).slice(everything.length - back.flat().length));
    expect(back.flat().map((i) => i.id)).toEqual(everything.map((i) => i.id));

    // A page's statements do not grow with the history: a contact with 2 items and one with 111.
    const cost = async (id: string) => countStatements(app, () => api.get(`/contacts/${id}/timeline?per_page=5`));
    expect(await cost(contact.id)).toBe(await cost(small.id));
  });

  it('refuses what it cannot read: an unknown record (404), bad kinds, per_page or cursor (422)', async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).body;
    const other = (await api.post('/contacts', { first_name: 'Bo', email: 'bo@example.com' })).body;
    expect(await api.get(`/contacts/${'0'.repeat(26)}/timeline`)).toMatchObject({ status: 404, body: { message: 'Contact not found.' } });
    expect((await api.get(`/deals/${contact.id}/timeline`)).status).toBe(404);
    const refused = async (query: string) => (await api.get(`/contacts/${contact.id}/timeline?${query}`)).body.errors;
    expect(await refused('kinds=calls')).toEqual({ kinds: ['The selected kinds is invalid.'] });
    expect(await refused('per_page=101')).toEqual({ per_page: ['The per page field must not be greater than 100.'] });
    expect(await refused('per_page=0')).toEqual({ per_page: ['The per page field must be at least 1.'] });
    expect(await refused('cursor=abc')).toEqual({ cursor: ['The cursor is invalid: it was not given by this timeline.'] });
    // Another record's cursor, or another kinds filter's, is not this one's.
    await api.post('/notes', { body: 'a', contact_ids: [other.id] });
    await api.post('/notes', { body: 'b', contact_ids: [other.id] });
    const theirs = (await api.get(`/contacts/${other.id}/timeline?per_page=1`)).body.next_cursor;
    expect(await refused(`cursor=${theirs}`)).toEqual({ cursor: ['The cursor is invalid: it was not given by this timeline.'] });
    expect((await api.get(`/contacts/${other.id}/timeline?per_page=1&kinds=note&cursor=${theirs}`)).status).toBe(422);
  });

  it('runs through GraphQL on Contact, Company and Deal', async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).body;
    const note = (await api.post('/notes', { body: 'Hello', contact_ids: [contact.id] })).body;
    const res = await api.graphql('query($id: ID!) { contact(id: $id) { timeline(first: 1, kinds: ["note", "change"]) { perPage nextCursor data { kind id summary changes } } } }', { id: contact.id });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.contact.timeline;
    expect(page.data).toEqual([{ kind: 'note', id: note.id, summary: 'Hello', changes: null }]);
    const next = await api.graphql('query($id: ID!, $after: String) { contact(id: $id) { timeline(first: 1, kinds: ["note", "change"], after: $after) { nextCursor prevCursor data { kind summary } } } }', { id: contact.id, after: page.nextCursor });
    expect(next.body.data.contact.timeline).toEqual({ nextCursor: null, prevCursor: expect.any(String), data: [{ kind: 'change', summary: 'Created' }] });
  });
});
