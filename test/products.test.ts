import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, countStatements, newClient, startApp } from './support/app.js';

const PRODUCT_FIELDS = ['id', 'name', 'sku', 'type', 'description', 'price', 'cost', 'currency', 'unit', 'tax_rate', 'is_active', 'created_at', 'updated_at'].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

const valid = { name: 'Consulting hour', type: 'service', price: 120.5, currency: 'USD', unit: 'hour' };

describe('products', () => {
  it('reads a later page of columns alone in one statement beside its count, in list order', async () => {
    const own = await newClient(app);
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await own.post('/products', { ...valid, name: `P${i}` })).body.id);
    let page: any;
    // The key is known, so no lookup: the page's rows, and the count (a full page does not tell the total).
    expect(await countStatements(app, async () => (page = await own.get('/products?page=2&per_page=5')))).toBe(2);
    expect(page.body).toMatchObject({ current_page: 2, per_page: 5, total: 12, last_page: 3 });
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual(made.slice(5, 10));
  });

  it('creates with defaults and returns exactly the specified fields', async () => {
    const res = await api.post('/products', { ...valid, sku: 'CONS-1' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PRODUCT_FIELDS);
    expect(res.body).toMatchObject({ name: 'Consulting hour', sku: 'CONS-1', type: 'service', description: null, price: 120.5, cost: null, currency: 'USD', unit: 'hour', tax_rate: null, is_active: true });
    expect(res.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.created_at).toMatch(ISO);
    const again = await api.get(`/products/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('keeps money exact', async () => {
    const res = await api.post('/products', { ...valid, price: 0.1, cost: 1234567.8912, tax_rate: 12.5 });
    expect(res.status).toBe(201);
    const got = await api.get(`/products/${res.body.id}`);
    expect(got.body).toMatchObject({ price: 0.1, cost: 1234567.8912, tax_rate: 12.5 });
    const largest = await api.post('/products', { ...valid, price: 99999999999.9999 });
    expect((await api.get(`/products/${largest.body.id}`)).body.price).toBe(99999999999.9999);
    expect((await api.post('/products', { ...valid, price: 1.23456 })).body.errors).toEqual({ price: ['The price field must have at most 4 decimal places.'] });
    expect((await api.post('/products', { ...valid, price: 1e12 })).body.errors).toEqual({ price: ['The price field must not be greater than 99999999999.9999.'] });
  });

  it('reports every invalid field, wrong JSON types included, and creates nothing', async () => {
    const before = await api.get('/products?per_page=100');
    const res = await api.post('/products', { name: 5, type: 'gadget', price: -1, currency: 'usd', unit: '', tax_rate: 101, is_active: 'yes' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        name: ['The name field must be a string.'],
        type: ['The selected type is invalid.'],
        price: ['The price field must be at least 0.'],
        currency: ['The currency field must be an ISO 4217 currency code in upper case.'],
        unit: ['The unit field is required.'],
        tax_rate: ['The tax rate field must not be greater than 100.'],
        is_active: ['The is active field must be true or false.'],
      },
    });
    const after = await api.get('/products?per_page=100');
    expect(after.body.total).toBe(before.body.total);
  });

  it('accepts only real ISO 4217 currency codes', async () => {
    expect((await api.post('/products', { ...valid, currency: 'XYZ' })).body.errors).toEqual({ currency: ['The currency field must be an ISO 4217 currency code in upper case.'] });
    expect((await api.post('/products', { ...valid, currency: 'JPY' })).status).toBe(201);
    // ISO codes Node 20's ICU does not list: a fund (4 decimals), a metal and the testing code (none).
    const prices = [];
    for (const currency of ['CLF', 'XAU', 'XTS']) {
      const res = await api.post('/products', { ...valid, price: 1.5, currency });
      expect([currency, res.status]).toEqual([currency, 201]);
      prices.push((await api.graphql('query($id: ID!) { product(id: $id) { priceMinor } }', { id: res.body.id })).body.data.product.priceMinor);
    }
    expect(prices).toEqual([15000, 2, 2]);
  });

  it('requires the create fields', async () => {
    const res = await api.post('/products', {});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['currency', 'name', 'price', 'type', 'unit']);
    expect(res.body.errors.name).toEqual(['The name field is required.']);
  });

  it('updates partially, clears nullable fields with null, ignores unknown and response-only fields', async () => {
    const created = (await api.post('/products', { ...valid, description: 'Senior', cost: 50 })).body;
    const res = await api.put(`/products/${created.id}`, { ...created, price: 99, description: null, id: 'other', created_at: 'x', whatever: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: valid.name, price: 99, description: null, cost: 50, created_at: created.created_at });
    const partial = await api.put(`/products/${created.id}`, { name: 'Renamed' });
    expect(partial.body).toMatchObject({ name: 'Renamed', price: 99, cost: 50 });
  });

  it('refuses null for a required field on update and changes nothing', async () => {
    const created = (await api.post('/products', valid)).body;
    const res = await api.put(`/products/${created.id}`, { name: null, price: 'free' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ name: ['The name field is required.'], price: ['The price field must be a number.'] });
    expect((await api.get(`/products/${created.id}`)).body).toEqual(created);
  });

  it('keeps skus unique per workspace', async () => {
    const sku = `SKU-${Date.now()}`;
    expect((await api.post('/products', { ...valid, sku })).status).toBe(201);
    const dup = await api.post('/products', { ...valid, sku });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ sku: ['The sku has already been taken.'] });
    const other = await newClient(app);
    expect((await other.post('/products', { ...valid, sku })).status).toBe(201);
  });

  it('lists with pagination, filters and search', async () => {
    const own = await newClient(app);
    for (let i = 0; i < 3; i++) await own.post('/products', { ...valid, name: `Widget ${i}`, type: 'product', sku: `W-${i}` });
    await own.post('/products', { ...valid, name: 'Gizmo', is_active: false });
    const page = await own.get('/products?page=2&per_page=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ current_page: 2, per_page: 2, total: 4, last_page: 2 });
    expect(page.body.data.map((p: any) => p.name)).toEqual(['Widget 2', 'Gizmo']);
    expect((await own.get('/products?page=9')).body).toMatchObject({ current_page: 9, total: 4, last_page: 1, data: [] });
    expect((await own.get('/products?page=2000000000')).body).toMatchObject({ current_page: 2000000000, total: 4, data: [] });
    expect((await own.get('/products?is_active=false')).body.data.map((p: any) => p.name)).toEqual(['Gizmo']);
    expect((await own.get('/products?type=product')).body.total).toBe(3);
    expect((await own.get('/products?search=wIdGeT%201')).body.data.map((p: any) => p.name)).toEqual(['Widget 1']);
    expect((await own.get('/products?search=w-2')).body.data.map((p: any) => p.name)).toEqual(['Widget 2']);
  });

  it('refuses bad pagination and unknown filters with 422', async () => {
    expect((await api.get('/products?page=0')).body).toEqual({ message: 'The given data was invalid.', errors: { page: ['The page field must be at least 1.'] } });
    expect((await api.get('/products?per_page=101')).body.errors).toEqual({ per_page: ['The per page field must not be greater than 100.'] });
    expect((await api.get('/products?page=abc&per_page=500')).body.errors).toEqual({
      page: ['The page field must be an integer.'],
      per_page: ['The per page field must not be greater than 100.'],
    });
    expect((await api.get('/products?type=gadget')).body.errors).toEqual({ type: ['The selected type is invalid.'] });
    expect((await api.get('/products?colour=red')).body.errors).toEqual({ colour: ['The colour parameter is not supported.'] });
  });

  it('answers 404 for unknown ids and for other workspaces', async () => {
    const created = (await api.post('/products', valid)).body;
    const other = await newClient(app);
    for (const res of [await other.get(`/products/${created.id}`), await other.put(`/products/${created.id}`, { name: 'x' }), await other.delete(`/products/${created.id}`), await api.get('/products/01ARZ3NDEKTSV4RRFFQ69G5FAV')]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Product not found.' });
    }
    expect((await api.get(`/products/${created.id}`)).body.name).toBe(valid.name);
  });

  it('deletes with 204', async () => {
    const created = (await api.post('/products', valid)).body;
    const res = await api.delete(`/products/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api.get(`/products/${created.id}`)).status).toBe(404);
  });

  it('serves the same rules over GraphQL', async () => {
    const bad = await api.graphql('mutation { createProduct(input: { name: "", type: product, price: -2, currency: "USD", unit: "u" }) { id } }');
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { name: ['The name field is required.'], price: ['The price field must be at least 0.'] } });
    const ok = await api.graphql('mutation($i: CreateProductInput!) { createProduct(input: $i) { id name price taxRate isActive } }', { i: { ...valid, type: 'service', taxRate: 7 } });
    expect(ok.body.data.createProduct).toMatchObject({ name: valid.name, price: 120.5, taxRate: 7, isActive: true });
    const missing = await api.graphql('query { product(id: "nope") { id } }');
    expect(missing.body.errors[0]).toMatchObject({ message: 'Product not found.', extensions: { code: 'NOT_FOUND' } });
  });
});
