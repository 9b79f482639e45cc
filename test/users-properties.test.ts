import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, newClient, startApp } from './support/app.js';

const USER_FIELDS = ['id', 'name', 'email', 'created_at', 'updated_at'].sort();
const DEFINITION_FIELDS = ['id', 'object', 'key', 'label', 'type', 'options', 'is_active', 'created_at', 'updated_at'].sort();

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

describe('users', () => {
  it('creates, reads, updates, lists and deletes', async () => {
    const api = await newClient(app);
    const created = await api.post('/users', { name: 'Ann', email: 'Ann@Example.com' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(USER_FIELDS);
    expect(created.body).toMatchObject({ name: 'Ann', email: 'ann@example.com' });
    expect((await api.get(`/users/${created.body.id}`)).body).toEqual(created.body);
    const updated = await api.put(`/users/${created.body.id}`, { name: 'Anne' });
    expect(updated.body).toMatchObject({ name: 'Anne', email: 'ann@example.com' });
    expect((await api.get('/users?email=ANN@example.com')).body).toMatchObject({ total: 1, data: [{ id: created.body.id }] });
    expect((await api.delete(`/users/${created.body.id}`)).status).toBe(204);
    expect((await api.get(`/users/${created.body.id}`))).toMatchObject({ status: 404, body: { message: 'User not found.' } });
  });

  it('refuses duplicate emails and bad input', async () => {
    const api = await newClient(app);
    await api.post('/users', { name: 'Bo', email: 'bo@example.com' });
    expect((await api.post('/users', { name: 'Bo 2', email: 'BO@example.com' })).body.errors).toEqual({ email: ['The email has already been taken.'] });
    expect((await api.post('/users', { name: ['x'], email: 'nope' })).body.errors).toEqual({
      name: ['The name field must be a string.'],
      email: ['The email field must be a valid email address.'],
    });
  });

  it('cannot be deleted while owning deals', async () => {
    const api = await newClient(app);
    const user = (await api.post('/users', { name: 'Cy', email: 'cy@example.com' })).body;
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'S' }] })).body;
    await api.post('/deals', { name: 'D', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id });
    const res = await api.delete(`/users/${user.id}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The given data was invalid.', errors: { id: ['The user owns deals: reassign them first.'] } });
    expect((await api.get(`/users/${user.id}`)).status).toBe(200);
  });
});

describe('property definitions', () => {
  it('creates with defaults, lists by object, updates and deletes', async () => {
    const api = await newClient(app);
    const created = await api.post('/property-definitions', { object: 'deal', key: 'region', label: 'Region', type: 'string' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(DEFINITION_FIELDS);
    expect(created.body).toMatchObject({ object: 'deal', key: 'region', type: 'string', options: [], is_active: true });
    await api.post('/property-definitions', { object: 'contact', key: 'region', label: 'Region', type: 'enum', options: ['EU', 'US'] });
    expect((await api.get('/property-definitions?object=deal')).body.data.map((d: any) => d.id)).toEqual([created.body.id]);
    expect((await api.get('/property-definitions')).body.total).toBe(2);
    const updated = await api.put(`/property-definitions/${created.body.id}`, { label: 'Sales region', key: 'ignored' });
    expect(updated.body).toMatchObject({ label: 'Sales region', key: 'region' });
    expect((await api.delete(`/property-definitions/${created.body.id}`)).status).toBe(204);
    expect((await api.get('/property-definitions?object=deal')).body.total).toBe(0);
  });

  it('validates keys, types, options and uniqueness per object', async () => {
    const api = await newClient(app);
    const bad = await api.post('/property-definitions', { object: 'invoice', key: 'Bad Key', label: '', type: 'enum' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      object: ['The selected object is invalid.'],
      key: ['The key field must start with a lower-case letter and hold at most 64 of a-z, 0-9 and _.'],
      label: ['The label field is required.'],
      options: ['The options field is required when type is enum.'],
    });
    expect((await api.post('/property-definitions', { object: 'deal', key: 'x', label: 'X', type: 'enum', options: ['a', 'a'] })).body.errors).toEqual({
      options: ['The options field has a duplicate value.'],
    });
    await api.post('/property-definitions', { object: 'deal', key: 'tier', label: 'Tier', type: 'string' });
    expect((await api.post('/property-definitions', { object: 'deal', key: 'tier', label: 'Tier', type: 'number' })).body.errors).toEqual({
      key: ['The key has already been taken.'],
    });
    expect((await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'number' })).status).toBe(201);
  });

  it('shows only stored values that fit their definition as it is now; a change back shows them again', async () => {
    const api = await newClient(app);
    const seats = (await api.post('/property-definitions', { object: 'contact', key: 'seats', label: 'Seats', type: 'number' })).body;
    const plan = (await api.post('/property-definitions', { object: 'contact', key: 'plan', label: 'Plan', type: 'enum', options: ['free', 'pro'] })).body;
    const contact = (await api.post('/contacts', { first_name: 'P', email: 'p@example.com', properties: { seats: 5, plan: 'pro' } })).body;
    expect(contact.properties).toEqual({ seats: 5, plan: 'pro' });
    expect((await api.put(`/property-definitions/${seats.id}`, { type: 'string' })).status).toBe(200);
    expect((await api.put(`/property-definitions/${plan.id}`, { options: ['free', 'team'] })).status).toBe(200);
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual({});
    expect((await api.get('/contacts')).body.data[0].properties).toEqual({});
    await api.put(`/property-definitions/${seats.id}`, { type: 'number' });
    await api.put(`/property-definitions/${plan.id}`, { options: ['free', 'team', 'pro'] });
    expect((await api.get(`/contacts/${contact.id}`)).body.properties).toEqual({ seats: 5, plan: 'pro' });
  });

  it('types deal properties, merges them, and shows them in GraphQL only', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'deal', key: 'source', label: 'Source', type: 'enum', options: ['web', 'referral'] });
    await api.post('/property-definitions', { object: 'deal', key: 'seats', label: 'Seats', type: 'number' });
    const user = (await api.post('/users', { name: 'Di', email: 'di@example.com' })).body;
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'S' }] })).body;
    const deal = await api.post('/deals', { name: 'D', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id, properties: { source: 'web', seats: 3 } });
    expect(deal.status).toBe(201);
    expect(deal.body).not.toHaveProperty('properties');
    await api.put(`/deals/${deal.body.id}`, { properties: { seats: null } });
    const graph = await api.graphql('query($id: ID!) { deal(id: $id) { properties } }', { id: deal.body.id });
    expect(graph.body.data.deal.properties).toEqual({ source: 'web' });
    const bad = await api.put(`/deals/${deal.body.id}`, { properties: { source: 'tv', tier: 'x' } });
    expect(bad.body.errors).toEqual({
      'properties.source': ['The selected properties.source is invalid.'],
      'properties.tier': ['The properties.tier field is not an active deal property.'],
    });
  });
});
