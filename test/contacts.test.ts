import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

const CONTACT_FIELDS = ['id', 'first_name', 'last_name', 'email', 'notes', 'properties', 'created_at', 'updated_at'].sort();
const COMPANY_FIELDS = ['id', 'name', 'domain', 'notes', 'created_at', 'updated_at'].sort();

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function withDefinitions(api: Client) {
  for (const def of [
    { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] },
    { object: 'contact', key: 'score', label: 'Score', type: 'number' },
    { object: 'contact', key: 'vip', label: 'VIP', type: 'boolean' },
    { object: 'contact', key: 'since', label: 'Since', type: 'date' },
    { object: 'contact', key: 'nickname', label: 'Nickname', type: 'string' },
  ]) {
    expect((await api.post('/property-definitions', def)).status).toBe(201);
  }
}

describe('contacts', () => {
  it('creates with a lower-cased email and exactly the specified fields', async () => {
    const api = await newClient(app);
    const res = await api.post('/contacts', { first_name: 'Ada', email: 'Ada@Example.COM' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(CONTACT_FIELDS);
    expect(res.body).toMatchObject({ first_name: 'Ada', last_name: null, email: 'ada@example.com', notes: null, properties: {} });
  });

  it('keeps emails unique per workspace, case-insensitively', async () => {
    const api = await newClient(app);
    await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' });
    const dup = await api.post('/contacts', { first_name: 'Other', email: 'ADA@example.com' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ email: ['The email has already been taken.'] });
    expect((await (await newClient(app)).post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).status).toBe(201);
  });

  it('reports bad emails, wrong types and nulls together', async () => {
    const api = await newClient(app);
    const res = await api.post('/contacts', { first_name: null, email: 'not-an-email', last_name: 7, company_ids: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      first_name: ['The first name field is required.'],
      email: ['The email field must be a valid email address.'],
      last_name: ['The last name field must be a string.'],
      company_ids: ['The company ids field must be an array.'],
    });
    expect((await api.get('/contacts')).body.total).toBe(0);
  });

  it('types and merges properties', async () => {
    const api = await newClient(app);
    await withDefinitions(api);
    const created = await api.post('/contacts', { first_name: 'Bo', email: 'bo@example.com', properties: { tier: 'gold', score: 4.5 } });
    expect(created.status).toBe(201);
    expect(created.body.properties).toEqual({ tier: 'gold', score: 4.5 });
    const merged = await api.put(`/contacts/${created.body.id}`, { properties: { vip: true, score: null, since: '2024-02-29' } });
    expect(merged.status).toBe(200);
    expect(merged.body.properties).toEqual({ tier: 'gold', vip: true, since: '2024-02-29' });
    const bad = await api.put(`/contacts/${created.body.id}`, {
      properties: { tier: 'bronze', score: '5', vip: 'yes', since: '2023-02-29', nickname: 3, unknown_key: 1 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      'properties.tier': ['The selected properties.tier is invalid.'],
      'properties.score': ['The properties.score field must be a number.'],
      'properties.vip': ['The properties.vip field must be true or false.'],
      'properties.since': ['The properties.since field must be a valid date.'],
      'properties.nickname': ['The properties.nickname field must be a string.'],
      'properties.unknown_key': ['The properties.unknown_key field is not an active contact property.'],
    });
    expect((await api.get(`/contacts/${created.body.id}`)).body.properties).toEqual({ tier: 'gold', vip: true, since: '2024-02-29' });
    const notObject = await api.put(`/contacts/${created.body.id}`, { properties: ['tier'] });
    expect(notObject.body.errors).toEqual({ properties: ['The properties field must be an object.'] });
  });

  it('hides values of deactivated definitions but keeps them stored', async () => {
    const api = await newClient(app);
    await withDefinitions(api);
    const contact = (await api.post('/contacts', { first_name: 'Cy', email: 'cy@example.com', properties: { tier: 'silver', vip: false } })).body;
    const defs = (await api.get('/property-definitions?object=contact')).body.data;
    const tier = defs.find((d: any) => d.key === 'tier');
    await api.put(`/property-definitions/${tier.id}`, { is_active: false });
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual({ vip: false });
    expect((await api.put(`/contacts/${contact.id}`, { properties: { tier: 'gold' } })).status).toBe(422);
    await api.put(`/property-definitions/${tier.id}`, { is_active: true });
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual({ tier: 'silver', vip: false });
  });

  it('replaces company ids, collapses duplicates, refuses unknown or foreign ones', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const a = (await api.post('/companies', { name: 'A' })).body;
    const b = (await api.post('/companies', { name: 'B' })).body;
    const foreign = (await other.post('/companies', { name: 'F' })).body;
    const contact = (await api.post('/contacts', { first_name: 'Di', email: 'di@example.com', company_ids: [a.id, a.id] })).body;
    const query = `query($id: ID!) { contact(id: $id) { companies { id } } }`;
    expect((await api.graphql(query, { id: contact.id })).body.data.contact.companies).toEqual([{ id: a.id }]);
    await api.put(`/contacts/${contact.id}`, { company_ids: [b.id] });
    expect((await api.graphql(query, { id: contact.id })).body.data.contact.companies).toEqual([{ id: b.id }]);
    const refused = await api.put(`/contacts/${contact.id}`, { company_ids: [a.id, foreign.id] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ company_ids: ['The selected company ids is invalid.'] });
    expect((await api.graphql(query, { id: contact.id })).body.data.contact.companies).toEqual([{ id: b.id }]);
    await api.put(`/contacts/${contact.id}`, { first_name: 'Dee' });
    expect((await api.graphql(query, { id: contact.id })).body.data.contact.companies).toEqual([{ id: b.id }]);
    await api.put(`/contacts/${contact.id}`, { company_ids: [] });
    expect((await api.graphql(query, { id: contact.id })).body.data.contact.companies).toEqual([]);
  });

  it('filters by exact email and searches names and email', async () => {
    const api = await newClient(app);
    await api.post('/contacts', { first_name: 'Erin', last_name: 'Stone', email: 'erin@acme.io' });
    await api.post('/contacts', { first_name: 'Finn', last_name: 'Rivers', email: 'finn@other.io' });
    expect((await api.get('/contacts?email=ERIN@acme.io')).body.data.map((c: any) => c.first_name)).toEqual(['Erin']);
    expect((await api.get('/contacts?search=RIVER')).body.data.map((c: any) => c.first_name)).toEqual(['Finn']);
    expect((await api.get('/contacts?search=.io')).body.total).toBe(2);
  });

  it('matches %, _ and \\ in a search literally, the same on both databases', async () => {
    const api = await newClient(app);
    await api.post('/contacts', { first_name: '100%', last_name: 'Pure', email: 'pure@example.com' });
    await api.post('/contacts', { first_name: 'Under_score', email: 'under@example.com' });
    await api.post('/contacts', { first_name: 'Back\\slash', email: 'back@example.com' });
    await api.post('/contacts', { first_name: 'Plain', email: 'plain@example.com' });
    const names = async (term: string) => (await api.get(`/contacts?search=${encodeURIComponent(term)}`)).body.data.map((c: any) => c.first_name);
    expect(await names('%')).toEqual(['100%']);
    expect(await names('0% p')).toEqual(['100%']);
    expect(await names('_')).toEqual(['Under_score']);
    expect(await names('r_s')).toEqual(['Under_score']);
    expect(await names('\\')).toEqual(['Back\\slash']);
    expect(await names('k\\s')).toEqual(['Back\\slash']);
    expect(await names('p_ain')).toEqual([]);
    expect(await names('%lain')).toEqual([]);
  });

  it('upserts: 201 when created, 200 when found, partial update on found', async () => {
    const api = await newClient(app);
    const created = await api.put('/contacts/upsert', { first_name: 'Gus', email: 'GUS@example.com', notes: 'first' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(CONTACT_FIELDS);
    const found = await api.put('/contacts/upsert', { first_name: 'Gustav', email: 'gus@EXAMPLE.com' });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: created.body.id, first_name: 'Gustav', notes: 'first' });
    const invalid = await api.put('/contacts/upsert', { email: 'gus@example.com' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ first_name: ['The first name field is required.'] });
  });

  it('creates exactly one contact for concurrent upserts of one new email', async () => {
    const api = await newClient(app);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => api.put('/contacts/upsert', { first_name: `Racer ${i}`, email: 'race@example.com' })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect((await api.get('/contacts?email=race@example.com')).body.total).toBe(1);
  });

  it('answers 404 across workspaces', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Hal', email: 'hal@example.com' })).body;
    expect(await other.get(`/contacts/${contact.id}`)).toMatchObject({ status: 404, body: { message: 'Contact not found.' } });
    expect((await other.put(`/contacts/${contact.id}`, { first_name: 'X' })).status).toBe(404);
    expect((await other.delete(`/contacts/${contact.id}`)).status).toBe(404);
    expect((await other.graphql('query($id: ID!) { contact(id: $id) { id } }', { id: contact.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await api.delete(`/contacts/${contact.id}`)).status).toBe(204);
  });
});

describe('companies', () => {
  it('creates, updates with a lower-cased domain and contact ids, and lists', async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'Ivy', email: 'ivy@example.com' })).body;
    const created = await api.post('/companies', { name: 'Acme', domain: 'ACME.example.COM', contact_ids: [contact.id] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(COMPANY_FIELDS);
    expect(created.body).toMatchObject({ name: 'Acme', domain: 'acme.example.com', notes: null });
    const updated = await api.put(`/companies/${created.body.id}`, { notes: 'Key account', domain: null });
    expect(updated.body).toMatchObject({ name: 'Acme', domain: null, notes: 'Key account' });
    const bad = await api.put(`/companies/${created.body.id}`, { domain: 'not a host', name: '' });
    expect(bad.body.errors).toEqual({ domain: ['The domain field must be a valid host name.'], name: ['The name field is required.'] });
    const graph = await api.graphql('query($id: ID!) { company(id: $id) { contacts { id companies { name } } } }', { id: created.body.id });
    expect(graph.body.data.company.contacts).toEqual([{ id: contact.id, companies: [{ name: 'Acme' }] }]);
    expect((await api.get('/companies')).body).toMatchObject({ total: 1, current_page: 1, per_page: 15, last_page: 1 });
  });
});
