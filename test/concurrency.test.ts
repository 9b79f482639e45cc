import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type Reply, type TestApp, newClient, startApp } from './support/app.js';

// Read-modify-write updates under concurrency: no write is lost, derived copies match
// the stored row, positions are unique, and no race is a 5xx. The races show on
// PostgreSQL; SQLite serializes write transactions, so there these check the plain path.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const statuses = (replies: Reply[]) => replies.map((r) => r.status);
const sorted = (ids: string[]) => [...ids].sort();

async function created(reply: Promise<Reply>) {
  const res = await reply;
  expect(res.status).toBe(201);
  return res.body;
}

/** String property definitions `<prefix>0..<prefix>n-1` for one object. */
async function definitions(api: Client, object: 'contact' | 'deal', prefix: string, n: number) {
  for (const i of range(n)) await created(api.post('/property-definitions', { object, key: `${prefix}${i}`, label: `${prefix} ${i}`, type: 'string' }));
}

const propertyMap = (prefix: string, n: number) => Object.fromEntries(range(n).map((i) => [`${prefix}${i}`, `value ${i}`]));

async function deal(api: Client, extra: Record<string, unknown> = {}) {
  const user = await created(api.post('/users', { name: 'Owner', email: `owner-${Math.random()}@example.com` }));
  const pipeline = await created(api.post('/pipelines', { name: 'P', stages: [{ name: 'A' }] }));
  return created(api.post('/deals', { name: 'D', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id, ...extra }));
}

const dealProperties = async (api: Client, id: string) => (await api.graphql('query($id: ID!) { deal(id: $id) { properties } }', { id })).body.data.deal.properties;

/** Different sets over the same ids: each a pair of neighbours (rotating), so every reply sends its own set. */
const rotatingSets = (ids: string[], n: number) => range(n).map((i) => [ids[i % ids.length]!, ids[(i + 1) % ids.length]!]);

describe('merged properties', () => {
  it('keeps every key of 50 concurrent PUTs to one contact', async () => {
    const api = await newClient(app);
    await definitions(api, 'contact', 'k', 50);
    const contact = await created(api.post('/contacts', { first_name: 'Many', email: 'many@example.com' }));
    const replies = await Promise.all(range(50).map((i) => api.put(`/contacts/${contact.id}`, { properties: { [`k${i}`]: `value ${i}` } })));
    expect(statuses(replies)).toEqual(range(50).map(() => 200));
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual(propertyMap('k', 50));
  });

  it('keeps every key of 20 concurrent PUTs to one deal', async () => {
    const api = await newClient(app);
    await definitions(api, 'deal', 'd', 20);
    const row = await deal(api);
    const replies = await Promise.all(range(20).map((i) => api.put(`/deals/${row.id}`, { properties: { [`d${i}`]: `value ${i}` } })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    expect(await dealProperties(api, row.id)).toEqual(propertyMap('d', 20));
  });

  it('keeps every key of concurrent upserts of one existing e-mail', async () => {
    const api = await newClient(app);
    await definitions(api, 'contact', 'u', 20);
    const contact = await created(api.post('/contacts', { first_name: 'Up', email: 'up@example.com' }));
    const replies = await Promise.all(range(20).map((i) => api.put('/contacts/upsert', { first_name: 'Up', email: 'UP@example.com', properties: { [`u${i}`]: `value ${i}` } })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    expect(new Set(replies.map((r) => r.body.id))).toEqual(new Set([contact.id]));
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual(propertyMap('u', 20));
  });

  it('creates one contact for concurrent upserts of a new e-mail, keeping every key', async () => {
    const api = await newClient(app);
    await definitions(api, 'contact', 'n', 10);
    const replies = await Promise.all(range(10).map((i) => api.put('/contacts/upsert', { first_name: 'New', email: 'new@example.com', properties: { [`n${i}`]: `value ${i}` } })));
    expect(sorted(statuses(replies).map(String))).toEqual([...range(9).map(() => '200'), '201']);
    const list = (await api.get('/contacts')).body;
    expect(list.total).toBe(1);
    expect(list.data[0].properties).toEqual(propertyMap('n', 10));
  });
});

describe('search copies', () => {
  it('match the stored names after 20 concurrent PUTs to one contact', async () => {
    const api = await newClient(app);
    const contact = await created(api.post('/contacts', { first_name: 'fnstartz', last_name: 'lnstartz', email: 'racer@example.com' }));
    // Even requests change the first name, odd ones the last name: each write needs the other from the stored row.
    const sent = range(20).map((i) => (i % 2 === 0 ? { first_name: `fn${i}z` } : { last_name: `ln${i}z` }));
    const replies = await Promise.all(sent.map((body) => api.put(`/contacts/${contact.id}`, body)));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = (await api.get(`/contacts/${contact.id}`)).body;
    const found = async (term: string) => (await api.get(`/contacts?search=${term}`)).body.data.map((c: { id: string }) => c.id);
    expect(await found(stored.first_name)).toEqual([contact.id]);
    expect(await found(stored.last_name)).toEqual([contact.id]);
    expect(await found(`${stored.first_name} ${stored.last_name}`)).toEqual([contact.id]);
    expect(await found('racer@example.com')).toEqual([contact.id]);
    const overwritten = ['fnstartz', 'lnstartz', ...sent.map((b) => b.first_name ?? b.last_name!)].filter((n) => n !== stored.first_name && n !== stored.last_name);
    expect(overwritten).toHaveLength(20);
    for (const name of overwritten) expect(await found(name)).toEqual([]);
  });

  it('match the stored name and SKU after 20 concurrent PUTs to one product', async () => {
    const api = await newClient(app);
    const product = await created(api.post('/products', { name: 'pnstartz', sku: 'skustartz', type: 'product', price: 1, currency: 'USD', unit: 'unit' }));
    const sent = range(20).map((i) => (i % 2 === 0 ? { name: `pn${i}z` } : { sku: `sku${i}z` }));
    const replies = await Promise.all(sent.map((body) => api.put(`/products/${product.id}`, body)));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = (await api.get(`/products/${product.id}`)).body;
    const found = async (term: string) => (await api.get(`/products?search=${term}`)).body.data.map((p: { id: string }) => p.id);
    expect(await found(stored.name)).toEqual([product.id]);
    expect(await found(stored.sku)).toEqual([product.id]);
    const overwritten = ['pnstartz', 'skustartz', ...sent.map((b) => b.name ?? b.sku!)].filter((n) => n !== stored.name && n !== stored.sku);
    expect(overwritten).toHaveLength(20);
    for (const name of overwritten) expect(await found(name)).toEqual([]);
  });
});

describe('positions', () => {
  it('gives 20 concurrent task creates the positions 1..20', async () => {
    const api = await newClient(app);
    const replies = await Promise.all(range(20).map((i) => api.post('/tasks', { title: `T${i}` })));
    expect(statuses(replies)).toEqual(range(20).map(() => 201));
    expect(replies.map((r) => r.body.position).sort((a, b) => a - b)).toEqual(range(20).map((i) => i + 1));
  });

  it('gives 20 concurrent ticket creates in one status unique positions', async () => {
    const api = await newClient(app);
    const status = await created(api.post('/ticket-statuses', { name: 'Open' }));
    const replies = await Promise.all(range(20).map((i) => api.post('/tickets', { title: `T${i}`, ticket_status_id: status.id })));
    expect(statuses(replies)).toEqual(range(20).map(() => 201));
    expect(replies.map((r) => r.body.position).sort((a, b) => a - b)).toEqual(range(20).map((i) => i + 1));
  });

  it('gives concurrent moves and creates into one status unique positions', async () => {
    const api = await newClient(app);
    const from = await created(api.post('/ticket-statuses', { name: 'From' }));
    const into = await created(api.post('/ticket-statuses', { name: 'Into' }));
    const moving = [];
    for (const i of range(10)) moving.push(await created(api.post('/tickets', { title: `M${i}`, ticket_status_id: from.id })));
    for (const i of range(3)) await created(api.post('/tickets', { title: `S${i}`, ticket_status_id: into.id }));
    const replies = await Promise.all([
      ...moving.map((t) => api.put(`/tickets/${t.id}`, { ticket_status_id: into.id })),
      ...range(10).map((i) => api.post('/tickets', { title: `C${i}`, ticket_status_id: into.id })),
    ]);
    expect(statuses(replies)).toEqual([...range(10).map(() => 200), ...range(10).map(() => 201)]);
    const list = (await api.get(`/tickets?ticket_status_id=${into.id}&per_page=100`)).body;
    expect(list.data.map((t: { position: number }) => t.position)).toEqual(range(23).map((i) => i + 1));
    expect((await api.get(`/tickets?ticket_status_id=${from.id}`)).body.total).toBe(0);
  });

  it('answers a move into a status deleted meanwhile like an unknown status', async () => {
    const api = await newClient(app);
    const from = await created(api.post('/ticket-statuses', { name: 'From' }));
    const tickets = [];
    for (const i of range(10)) tickets.push(await created(api.post('/tickets', { title: `T${i}`, ticket_status_id: from.id })));
    const targets = await Promise.all(range(10).map((i) => created(api.post('/ticket-statuses', { name: `Gone ${i}` }))));
    const replies = await Promise.all(tickets.flatMap((t, i) => [api.put(`/tickets/${t.id}`, { ticket_status_id: targets[i].id }), api.delete(`/ticket-statuses/${targets[i].id}`)]));
    for (const [i, reply] of replies.entries()) {
      if (i % 2 === 1) {
        expect([204, 422]).toContain(reply.status);
        continue;
      }
      expect([200, 422]).toContain(reply.status);
      if (reply.status === 422) expect(reply.body).toEqual({ message: 'The given data was invalid.', errors: { ticket_status_id: ['The selected ticket status id is invalid.'] } });
    }
  });
});

describe('id sets', () => {
  it('replaces the companies of a contact concurrently: every reply 200, the final set one of those sent', async () => {
    const api = await newClient(app);
    const companies = await Promise.all(range(5).map((i) => created(api.post('/companies', { name: `C${i}` }))));
    const contact = await created(api.post('/contacts', { first_name: 'Set', email: 'set@example.com' }));
    const sets = rotatingSets(companies.map((c) => c.id), 20);
    const replies = await Promise.all(sets.map((ids) => api.put(`/contacts/${contact.id}`, { company_ids: ids })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = await app.database.prisma.contact.findUniqueOrThrow({ where: { id: contact.id }, select: { companies: { select: { id: true } } } });
    expect(sets.map(sorted)).toContainEqual(sorted(stored.companies.map((c) => c.id)));
  });

  it('replaces the owners of a task concurrently: every reply 200, the final set one of those sent', async () => {
    const api = await newClient(app);
    const users = await Promise.all(range(5).map((i) => created(api.post('/users', { name: `U${i}`, email: `u${i}@example.com` }))));
    const task = await created(api.post('/tasks', { title: 'Owned' }));
    const sets = rotatingSets(users.map((u) => u.id), 20);
    const replies = await Promise.all(sets.map((ids, i) => api.put(`/tasks/${task.id}`, { owner_ids: ids, assignee_ids: sets[(i + 2) % sets.length] })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = await app.database.prisma.task.findUniqueOrThrow({ where: { id: task.id }, select: { owners: { select: { id: true } }, assignees: { select: { id: true } } } });
    const winner = sets.map(sorted).findIndex((s) => s.join() === sorted(stored.owners.map((u) => u.id)).join());
    expect(winner).toBeGreaterThanOrEqual(0);
    // Owners and assignees come from the same request.
    const owners = sorted(stored.owners.map((u) => u.id));
    const pairs = sets.map((ids, i) => [sorted(ids).join(), sorted(sets[(i + 2) % sets.length]!).join()]);
    expect(pairs).toContainEqual([owners.join(), sorted(stored.assignees.map((u) => u.id)).join()]);
  });

  it('replaces the contacts and products of a deal concurrently: every reply 200, the final sets from one request', async () => {
    const api = await newClient(app);
    const contacts = await Promise.all(range(5).map((i) => created(api.post('/contacts', { first_name: `C${i}`, email: `c${i}@example.com` }))));
    const products = await Promise.all(range(5).map((i) => created(api.post('/products', { name: `P${i}`, type: 'product', price: 1, currency: 'USD', unit: 'unit' }))));
    const row = await deal(api);
    const contactSets = rotatingSets(contacts.map((c) => c.id), 20);
    const productSets = rotatingSets(products.map((p) => p.id), 20);
    const replies = await Promise.all(range(20).map((i) => api.put(`/deals/${row.id}`, { contact_ids: contactSets[i], product_ids: productSets[i] })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = await app.database.prisma.deal.findUniqueOrThrow({ where: { id: row.id }, select: { contacts: { select: { id: true } }, products: { select: { id: true } } } });
    const pairs = range(20).map((i) => [sorted(contactSets[i]!).join(), sorted(productSets[i]!).join()]);
    expect(pairs).toContainEqual([sorted(stored.contacts.map((c) => c.id)).join(), sorted(stored.products.map((p) => p.id)).join()]);
  });

  it('replaces the products of a payment link concurrently: every reply 200, the final set one of those sent', async () => {
    const api = await newClient(app);
    const account = await created(api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' }));
    const products = await Promise.all(range(5).map((i) => created(api.post('/products', { name: `P${i}`, type: 'product', price: 1, currency: 'USD', unit: 'unit' }))));
    const link = await created(api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id, currency: 'USD' }));
    const sets = rotatingSets(products.map((p) => p.id), 20);
    const replies = await Promise.all(sets.map((ids) => api.put(`/payment-links/${link.id}`, { product_ids: ids })));
    expect(statuses(replies)).toEqual(range(20).map(() => 200));
    const stored = await app.database.prisma.paymentLink.findUniqueOrThrow({ where: { id: link.id }, select: { products: { select: { id: true } } } });
    expect(sets.map(sorted)).toContainEqual(sorted(stored.products.map((p) => p.id)));
  });

  it('replaces both sides of contacts and companies at once without a 5xx', async () => {
    const api = await newClient(app);
    const companies = await Promise.all(range(4).map((i) => created(api.post('/companies', { name: `C${i}` }))));
    const contacts = await Promise.all(range(4).map((i) => created(api.post('/contacts', { first_name: `P${i}`, email: `p${i}@example.com` }))));
    const companyIds = companies.map((c) => c.id);
    const contactIds = contacts.map((c) => c.id);
    const replies = await Promise.all(
      range(24).map((i) =>
        i % 2 === 0
          ? api.put(`/contacts/${contactIds[(i / 2) % 4]}`, { company_ids: companyIds })
          : api.put(`/companies/${companyIds[((i - 1) / 2) % 4]}`, { contact_ids: [...contactIds].reverse() }),
      ),
    );
    expect(statuses(replies)).toEqual(range(24).map(() => 200));
    const links = await app.database.prisma.contact.findMany({ where: { id: { in: contactIds } }, select: { companies: { select: { id: true } } } });
    for (const contact of links) expect(sorted(contact.companies.map((c) => c.id))).toEqual(sorted(companyIds));
  });
});

describe('lost to a concurrent DELETE', () => {
  const each = async (api: Client, rows: { id: string }[], path: string, body: Record<string, unknown>, resource: string) => {
    const replies = await Promise.all(rows.flatMap((row) => [api.put(`${path}/${row.id}`, body), api.delete(`${path}/${row.id}`)]));
    for (const [i, reply] of replies.entries()) {
      if (i % 2 === 1) expect(reply.status).toBe(204);
      else if (reply.status !== 200) expect([reply.status, reply.body]).toEqual([404, { message: `${resource} not found.` }]);
    }
    expect((await api.get(path)).body.total).toBe(0);
  };

  it('is 404 for a contact PUT with properties and company ids', async () => {
    const api = await newClient(app);
    await definitions(api, 'contact', 'k', 1);
    const company = await created(api.post('/companies', { name: 'C' }));
    const contacts = await Promise.all(range(15).map((i) => created(api.post('/contacts', { first_name: `D${i}`, email: `d${i}@example.com` }))));
    await each(api, contacts, '/contacts', { first_name: 'Renamed', properties: { k0: 'v' }, company_ids: [company.id] }, 'Contact');
  });

  it('is 404 for a deal PUT with properties and id sets', async () => {
    const api = await newClient(app);
    await definitions(api, 'deal', 'd', 1);
    const contact = await created(api.post('/contacts', { first_name: 'C', email: 'c@example.com' }));
    const deals = [];
    for (const _ of range(15)) deals.push(await deal(api));
    await each(api, deals, '/deals', { properties: { d0: 'v' }, contact_ids: [contact.id] }, 'Deal');
  });

  it('is 404 for a task PUT with owner ids, and for a product PUT renaming it', async () => {
    const api = await newClient(app);
    const user = await created(api.post('/users', { name: 'U', email: 'u@example.com' }));
    const tasks = await Promise.all(range(15).map((i) => created(api.post('/tasks', { title: `T${i}` }))));
    await each(api, tasks, '/tasks', { owner_ids: [user.id], assignee_ids: [user.id] }, 'Task');
    const products = await Promise.all(range(15).map((i) => created(api.post('/products', { name: `P${i}`, type: 'product', price: 1, currency: 'USD', unit: 'unit' }))));
    await each(api, products, '/products', { name: 'Renamed' }, 'Product');
  });
});
