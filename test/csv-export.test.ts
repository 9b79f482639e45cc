import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

// API.md section 8: GET /{resource}/export for contacts, companies, deals, products and payment transactions.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function exportOf(api: Client, path: string) {
  const res = await send(`${app.url}/api/v1${path}`, 'GET', { headers: { 'X-Api-Key': api.key } });
  return { ...res, rows: res.status === 200 ? (parse(res.text, { relax_column_count: false }) as string[][]) : [] };
}

describe('CSV export', () => {
  it('answers RFC 4180 CSV with a header of the REST names, properties per active definition and company_ids', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] });
    await api.post('/property-definitions', { object: 'contact', key: 'vip', label: 'VIP', type: 'boolean' });
    await api.post('/property-definitions', { object: 'contact', key: 'score', label: 'Score', type: 'number' });
    const acme = (await api.post('/companies', { name: 'Acme' })).body;
    const globex = (await api.post('/companies', { name: 'Globex' })).body;
    const ada = (await api.post('/contacts', { first_name: 'Ada', last_name: 'Lovelace, "Countess"', email: 'ada@x.io', notes: 'line 1\nline 2', company_ids: [globex.id, acme.id], properties: { tier: 'gold', vip: true, score: 1.5 } })).body;
    const evil = (await api.post('/contacts', { first_name: '=HYPERLINK("http://evil")', last_name: '+1', email: 'evil@x.io', notes: '@SUM(A1)', properties: { score: -3 } })).body;

    const res = await exportOf(api, '/contacts/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="contacts.csv"');
    expect(res.text.split('\r\n')[0]).toBe('id,first_name,last_name,email,notes,properties.tier,properties.vip,properties.score,created_at,updated_at,company_ids');
    expect(res.text.endsWith('\r\n')).toBe(true);
    expect(res.rows.slice(1)).toEqual([
      [ada.id, 'Ada', 'Lovelace, "Countess"', 'ada@x.io', 'line 1\nline 2', 'gold', 'true', '1.5', ada.created_at, ada.updated_at, [acme.id, globex.id].sort().join(';')],
      [evil.id, "'=HYPERLINK(\"http://evil\")", "'+1", 'evil@x.io', "'@SUM(A1)", '', '', "'-3", evil.created_at, evil.updated_at, ''],
    ]);
  });

  it("takes the list's filters and sort, and refuses what a list refuses, as JSON", async () => {
    const api = await newClient(app);
    for (const name of ['b', 'a', 'c']) await api.post('/contacts', { first_name: name, email: `${name}@x.io` });
    await api.post('/contacts', { first_name: 'other', email: 'other@y.io' });
    const res = await exportOf(api, '/contacts/export?search=x.io&sort=-first_name');
    expect(res.rows.slice(1).map((r) => r[1])).toEqual(['c', 'b', 'a']);
    for (const [path, field] of [
      ['/contacts/export?sort=notes', 'sort'],
      ['/contacts/export?page=2', 'page'],
      ['/contacts/export?cursor=', 'cursor'],
      ['/contacts/export?per_page=5', 'per_page'],
      ['/contacts/export?updated_since=soon', 'updated_since'],
      ['/contacts/export?colour=red', 'colour'],
    ]) {
      const bad = await api.get(path!);
      expect({ path, status: bad.status, fields: Object.keys(bad.body.errors ?? {}) }).toEqual({ path, status: 422, fields: [field] });
    }
  });

  it('streams a list longer than one read, every row once, in order', async () => {
    const api = await newClient(app);
    const ids: string[] = [];
    const rows = Array.from({ length: 2_345 }, (_, i) => {
      const id = newId();
      ids.push(id);
      return { id, workspaceId: api.workspaceId, firstName: `F${i}`, email: `f${i}@x.io`, properties: {}, search: `f${i}`, updatedAt: new Date() };
    });
    // Bulk rows straight into the database: 2,345 POSTs would only slow the suite down.
    await (app.database.prisma as any).contact.createMany({ data: rows });
    const res = await exportOf(api, '/contacts/export');
    expect(res.rows.length).toBe(2_346);
    expect(res.rows.slice(1).map((r) => r[0])).toEqual(ids);
  });

  it('exports deals with nested objects flattened, their properties and their id arrays', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'deal', key: 'size', label: 'Size', type: 'number' });
    const user = (await api.post('/users', { name: 'Owner', email: 'o@x.io' })).body;
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'Lead' }] })).body;
    const contact = (await api.post('/contacts', { first_name: 'C', email: 'c@x.io' })).body;
    const product = (await api.post('/products', { name: 'Seat', type: 'product', price: 9.5, currency: 'USD', unit: 'unit' })).body;
    const deal = (await api.post('/deals', { name: 'Big', estimated_value: 1200.5, deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id, contact_ids: [contact.id], product_ids: [product.id], properties: { size: 3 } })).body;
    const res = await exportOf(api, '/deals/export');
    const [header, row] = res.rows as [string[], string[]];
    const cells = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    expect(header).toEqual([
      'id', 'name', 'estimated_value', 'currency', 'expected_close_date',
      'stage.id', 'stage.external_id', 'stage.name', 'stage.pipeline_id', 'stage.order', 'stage.color', 'stage.probability',
      'user.id', 'user.name', 'created_at', 'updated_at', 'properties.size', 'contact_ids', 'product_ids',
    ]);
    expect(cells).toMatchObject({ id: deal.id, estimated_value: '1200.5', expected_close_date: '', 'stage.name': 'Lead', 'user.id': user.id, 'properties.size': '3', contact_ids: contact.id, product_ids: product.id });
  });

  it('exports companies, products and payment transactions (newest first), and keeps workspaces apart', async () => {
    const api = await newClient(app);
    const contact = (await api.post('/contacts', { first_name: 'C', email: 'c@x.io' })).body;
    await api.post('/companies', { name: 'Acme', domain: 'acme.io', contact_ids: [contact.id] });
    await api.post('/products', { name: 'Seat', sku: 'S-1', type: 'product', price: 9.5, currency: 'USD', unit: 'unit' });
    const companies = await exportOf(api, '/companies/export');
    expect(companies.rows[0]).toEqual(['id', 'name', 'domain', 'notes', 'created_at', 'updated_at', 'contact_ids']);
    expect(companies.rows[1]!.slice(1, 4)).toEqual(['Acme', 'acme.io', '']);
    expect(companies.rows[1]![6]).toBe(contact.id);
    const products = await exportOf(api, '/products/export');
    expect(products.rows[0]).toContain('sku');
    expect(products.rows.length).toBe(2);

    const account = (await api.post('/payment-provider-accounts', { name: 'S', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'L', payment_provider_account_id: account.id })).body;
    const t1 = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'r1', amount: 3, currency: 'USD' })).body;
    const t2 = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'r2', amount: 4, currency: 'USD' })).body;
    const transactions = await exportOf(api, '/payment-transactions/export');
    expect(transactions.rows.slice(1).map((r) => r[0])).toEqual([t2.id, t1.id]);

    const other = await newClient(app);
    expect((await exportOf(other, '/companies/export')).rows).toEqual([['id', 'name', 'domain', 'notes', 'created_at', 'updated_at', 'contact_ids']]);
    expect((await send(`${app.url}/api/v1/contacts/export`, 'GET')).status).toBe(401);
  });
});
