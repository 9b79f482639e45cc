import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, countStatements, newClient, startApp } from './support/app.js';

// A unique value already taken is reported with every other refused field of the same
// request (API.md: "Every violated field is reported, not just the first"); an accepted
// request pays no lookup for it: the write's unique constraint decides.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const invalid = (errors: Record<string, string[]>) => ({ message: 'The given data was invalid.', errors });
const taken = (field: string) => [`The ${field} has already been taken.`];

interface Case {
  path: string;
  /** The record holding the value. */
  first: Record<string, unknown>;
  /** Another record, for updates. */
  second: Record<string, unknown>;
  /** A body reusing the value, with one other field refused. */
  clash: Record<string, unknown>;
  field: string;
  other: [string, string[]];
}

const cases: Case[] = [
  {
    path: '/users',
    first: { name: 'A', email: 'a@example.com' },
    second: { name: 'B', email: 'b@example.com' },
    clash: { name: 'x'.repeat(256), email: 'A@example.com' },
    field: 'email',
    other: ['name', ['The name field must not be greater than 255 characters.']],
  },
  {
    path: '/contacts',
    first: { first_name: 'A', email: 'a@example.com' },
    second: { first_name: 'B', email: 'b@example.com' },
    clash: { first_name: 'x'.repeat(256), email: ' A@Example.com ' },
    field: 'email',
    other: ['first_name', ['The first name field must not be greater than 255 characters.']],
  },
  {
    path: '/products',
    first: { name: 'A', type: 'product', price: 1, currency: 'USD', unit: 'unit', sku: 'SKU-1' },
    second: { name: 'B', type: 'product', price: 1, currency: 'USD', unit: 'unit', sku: 'SKU-2' },
    clash: { name: 'C', type: 'product', price: -1, currency: 'USD', unit: 'unit', sku: 'SKU-1' },
    field: 'sku',
    other: ['price', ['The price field must be at least 0.']],
  },
  {
    path: '/ticket-statuses',
    first: { name: 'Open' },
    second: { name: 'Closed' },
    clash: { name: 'Open', order: 1.5 },
    field: 'name',
    other: ['order', ['The order field must be an integer.']],
  },
];

describe.each(cases)('$path', (c) => {
  it('reports a taken value beside the other refused fields, on create and on update, and writes nothing', async () => {
    const api = await newClient(app);
    expect((await api.post(c.path, c.first)).status).toBe(201);
    const second = (await api.post(c.path, c.second)).body;
    const created = await api.post(c.path, c.clash);
    expect([created.status, created.body]).toEqual([422, invalid({ [c.other[0]]: c.other[1], [c.field]: taken(c.field.replace('_', ' ')) })]);
    const updated = await api.put(`${c.path}/${second.id}`, c.clash);
    expect([updated.status, updated.body]).toEqual([422, invalid({ [c.other[0]]: c.other[1], [c.field]: taken(c.field.replace('_', ' ')) })]);
    // A record keeps its own value: only the other field is refused.
    const own = await api.put(`${c.path}/${second.id}`, { ...c.clash, [c.field]: c.second[c.field] });
    expect([own.status, own.body]).toEqual([422, invalid({ [c.other[0]]: c.other[1] })]);
    expect((await api.get(c.path)).body.total).toBe(2);
    expect((await api.get(`${c.path}/${second.id}`)).body).toEqual(second);
  });
});

it('a coupon code is taken whatever its case, reported beside the other refused fields', async () => {
  const api = await newClient(app);
  const account = (await api.post('/payment-provider-accounts', { name: 'A', provider: 'test' })).body;
  const link = (await api.post('/payment-links', { name: 'L', payment_provider_account_id: account.id, amount: 10 })).body;
  expect((await api.post('/payment-coupons', { code: 'SAVE10', type: 'amount', value: 1, payment_link_id: link.id })).status).toBe(201);
  const res = await api.post('/payment-coupons', { code: 'save10', type: 'percent', value: 101, payment_link_id: link.id });
  expect([res.status, res.body]).toEqual([422, invalid({ value: ['The value field must not be greater than 100 for a percent coupon.'], code: taken('code') })]);
});

it('a property definition key is taken per object, reported beside the other refused fields', async () => {
  const api = await newClient(app);
  expect((await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'string' })).status).toBe(201);
  const res = await api.post('/property-definitions', { object: 'contact', key: 'tier', label: '', type: 'string' });
  expect([res.status, res.body]).toEqual([422, invalid({ label: ['The label field is required.'], key: taken('key') })]);
  const otherObject = await api.post('/property-definitions', { object: 'deal', key: 'tier', label: '', type: 'string' });
  expect([otherObject.status, otherObject.body]).toEqual([422, invalid({ label: ['The label field is required.'] })]);
});

it('an accepted write sends no lookup for its unique value', async () => {
  const api = await newClient(app);
  const statements = await countStatements(app, () => api.post('/users', { name: 'A', email: 'a@example.com' }));
  // One INSERT ... RETURNING, no SELECT for the e-mail first; then the event (its
  // `data.object` is the row the INSERT returned): one INSERT, the workspace's webhook
  // endpoints (for its deliveries), COMMIT. (The key's first lookup, in the same request,
  // is left out of the count: one statement on "ApiKey", its workspace joined.)
  expect(statements).toBe(4);
});
