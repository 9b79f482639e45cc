import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

// API.md section 8: sort, updated_since / created_since and cursors on every list.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

type Row = Record<string, any>;

/** Code-point order, as the contract says both databases compare text. */
const byCodePoint = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/** The order the contract asks for: `field` with nulls last in both directions, ties by id in the same direction. */
function expectedOrder(rows: Row[], field: string, desc: boolean): string[] {
  const compare = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a - b : byCodePoint(String(a), String(b)));
  return [...rows]
    .sort((a, b) => {
      const [x, y] = [a[field], b[field]];
      if (x === null || y === null) return x === y ? (desc ? -1 : 1) * byCodePoint(a.id, b.id) : x === null ? 1 : -1;
      return (desc ? -1 : 1) * (compare(x, y) || byCodePoint(a.id, b.id));
    })
    .map((r) => r.id);
}

async function all(api: Client, path: string): Promise<Row[]> {
  const res = await api.get(path);
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('sort', () => {
  it('sorts contacts by each sortable field both ways, nulls last, ties by id, text by code point', async () => {
    const api = await newClient(app);
    const people = [
      { first_name: 'bob', last_name: null, email: 'b@x.io' },
      { first_name: 'Bob', last_name: 'Zed', email: 'c@x.io' },
      { first_name: 'Émile', last_name: 'adams', email: 'a@x.io' },
      { first_name: 'bob', last_name: 'Adams', email: 'Z@x.io' },
      { first_name: 'Zoë', last_name: null, email: 'e@x.io' },
      { first_name: 'ann', last_name: 'Zed', email: 'd@x.io' },
    ];
    const created: Row[] = [];
    for (const p of people) created.push((await api.post('/contacts', p)).body);
    for (const field of ['first_name', 'last_name', 'email', 'id', 'created_at', 'updated_at']) {
      for (const desc of [false, true]) {
        const got = await all(api, `/contacts?sort=${desc ? '-' : ''}${field}`);
        expect({ field, desc, ids: got.map((r) => r.id) }).toEqual({ field, desc, ids: expectedOrder(created, field, desc) });
      }
    }
    // Two keys: last_name descending (nulls still last), then first_name ascending.
    const two = await all(api, '/contacts?sort=-last_name,first_name');
    expect(two.map((r) => [r.last_name, r.first_name])).toEqual([
      ['adams', 'Émile'],
      ['Zed', 'Bob'],
      ['Zed', 'ann'],
      ['Adams', 'bob'],
      [null, 'Zoë'],
      [null, 'bob'],
    ]);
  });

  it('sorts money, dates and integers as numbers and dates, on deals, products, tasks and transactions', async () => {
    const api = await newClient(app);
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'S' }] })).body;
    const user = (await api.post('/users', { name: 'Owner', email: 'owner@x.io' })).body;
    const deals: Row[] = [];
    for (const [value, date] of [
      [100, '2026-03-01'],
      [9.5, null],
      [100, '2025-12-31'],
      [1000, null],
      [0, '2026-03-01'],
    ] as const) {
      const res = await api.post('/deals', { name: `D${value}`, estimated_value: value, expected_close_date: date, deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id });
      expect(res.status).toBe(201);
      deals.push(res.body);
    }
    for (const field of ['estimated_value', 'expected_close_date', 'name']) {
      for (const desc of [false, true]) {
        expect((await all(api, `/deals?sort=${desc ? '-' : ''}${field}`)).map((r) => r.id)).toEqual(expectedOrder(deals, field, desc));
      }
    }

    const products: Row[] = [];
    for (const [price, sku] of [
      [10, 'b'],
      [2.5, null],
      [10, 'A'],
      [100, null],
    ] as const) {
      products.push((await api.post('/products', { name: `P${price}`, type: 'product', unit: 'unit', price, sku, currency: 'USD' })).body);
    }
    for (const field of ['price', 'sku', 'name']) {
      for (const desc of [false, true]) {
        expect((await all(api, `/products?sort=${desc ? '-' : ''}${field}`)).map((r) => r.id)).toEqual(expectedOrder(products, field, desc));
      }
    }

    const tasks: Row[] = [];
    for (const [due, priority] of [
      ['2026-05-01', 'high'],
      [null, 'low'],
      ['2026-01-01', 'urgent'],
      [null, 'high'],
    ] as const) {
      tasks.push((await api.post('/tasks', { title: `T${due}`, due_date: due, priority })).body);
    }
    for (const field of ['due_date', 'priority', 'position']) {
      for (const desc of [false, true]) {
        expect((await all(api, `/tasks?sort=${desc ? '-' : ''}${field}`)).map((r) => r.id)).toEqual(expectedOrder(tasks, field, desc));
      }
    }
  });

  it('sorts companies, payment links and tickets by their own fields, and GraphQL as REST', async () => {
    const api = await newClient(app);
    const companies: Row[] = [];
    for (const [name, domain] of [['beta', 'b.io'], ['Alpha', null], ['beta', null], ['Ünïcode', 'a.io']] as const) {
      companies.push((await api.post('/companies', { name, domain })).body);
    }
    for (const field of ['name', 'domain']) {
      for (const desc of [false, true]) {
        expect((await all(api, `/companies?sort=${desc ? '-' : ''}${field}`)).map((r) => r.id)).toEqual(expectedOrder(companies, field, desc));
        const gql = await api.graphql(`{ companies(sort: "${desc ? '-' : ''}${field}") { data { id } } }`);
        expect(gql.body.data.companies.data.map((r: Row) => r.id)).toEqual(expectedOrder(companies, field, desc));
      }
    }
    const account = (await api.post('/payment-provider-accounts', { name: 'S', provider: 'test' })).body;
    const links: Row[] = [];
    for (const name of ['b', 'B', 'a', 'b']) links.push((await api.post('/payment-links', { name, payment_provider_account_id: account.id })).body);
    for (const desc of [false, true]) expect((await all(api, `/payment-links?sort=${desc ? '-' : ''}name`)).map((r) => r.id)).toEqual(expectedOrder(links, 'name', desc));
    const status = (await api.post('/ticket-statuses', { name: 'Open' })).body;
    const tickets: Row[] = [];
    for (const title of ['x', 'y', 'z']) tickets.push((await api.post('/tickets', { title, ticket_status_id: status.id })).body);
    for (const desc of [false, true]) expect((await all(api, `/tickets?sort=${desc ? '-' : ''}position`)).map((r) => r.id)).toEqual(expectedOrder(tickets, 'position', desc));
  });

  it('refuses an unknown, repeated or empty sort field with 422 on sort, on REST and GraphQL', async () => {
    const api = await newClient(app);
    for (const sort of ['notes', 'first_name,-first_name', '', '-', 'first_name,,id', 'properties.tier']) {
      const res = await api.get(`/contacts?sort=${encodeURIComponent(sort)}`);
      expect({ sort, status: res.status }).toEqual({ sort, status: 422 });
      expect(Object.keys(res.body.errors)).toEqual(['sort']);
    }
    // A field of another list is not one of this list's.
    expect((await api.get('/companies?sort=email')).status).toBe(422);
    const gql = await api.graphql('{ contacts(sort: "notes") { data { id } } }');
    expect(gql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.body.errors[0].extensions.errors).toHaveProperty('sort');
  });

  it('keeps each list default order without sort: oldest first, transactions newest first, tasks by position', async () => {
    const api = await newClient(app);
    const a = (await api.post('/contacts', { first_name: 'Z', email: 'z@x.io' })).body;
    const b = (await api.post('/contacts', { first_name: 'A', email: 'a@x.io' })).body;
    expect((await all(api, '/contacts')).map((r) => r.id)).toEqual([a.id, b.id]);
    const account = (await api.post('/payment-provider-accounts', { name: 'S', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'L', payment_provider_account_id: account.id })).body;
    const t1 = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'r1', amount: 3, currency: 'USD' })).body;
    const t2 = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'r2', amount: 1, currency: 'USD' })).body;
    expect((await all(api, '/payment-transactions')).map((r) => r.id)).toEqual([t2.id, t1.id]);
    expect((await all(api, '/payment-transactions?sort=amount')).map((r) => r.id)).toEqual([t2.id, t1.id]);
    expect((await all(api, '/payment-transactions?sort=-amount')).map((r) => r.id)).toEqual([t1.id, t2.id]);
  });
});

describe('updated_since and created_since', () => {
  it('filter inclusively by the record times, on REST and GraphQL', async () => {
    const api = await newClient(app);
    const first = (await api.post('/companies', { name: 'First' })).body;
    const second = (await api.post('/companies', { name: 'Second' })).body;
    const created = await all(api, `/companies?created_since=${encodeURIComponent(second.created_at)}`);
    expect(created.map((r) => r.id)).toEqual([second.id]);
    const touched = (await api.put(`/companies/${first.id}`, { notes: 'later' })).body;
    const updated = await all(api, `/companies?updated_since=${encodeURIComponent(touched.updated_at)}&sort=updated_at`);
    expect(updated.map((r) => r.id)).toEqual([first.id]);
    const res = await api.get(`/companies?updated_since=${encodeURIComponent(touched.updated_at)}`);
    expect(res.body.total).toBe(1);
    const gql = await api.graphql('query ($t: DateTime) { companies(createdSince: $t) { total data { id } } }', { t: second.created_at });
    expect(gql.body.data.companies).toEqual({ total: 1, data: [{ id: second.id }] });
  });

  it('gives the true total of a stored-count list when filtered by time', async () => {
    const api = await newClient(app);
    await api.post('/contacts', { first_name: 'A', email: 'a@x.io' });
    const b = (await api.post('/contacts', { first_name: 'B', email: 'b@x.io' })).body;
    const res = await api.get(`/contacts?created_since=${encodeURIComponent(b.created_at)}&per_page=1`);
    expect(res.body).toMatchObject({ total: 1, last_page: 1, current_page: 1 });
  });

  it('refuses a value that is not a date-time, and a time filter on a list without that time', async () => {
    const api = await newClient(app);
    for (const value of ['yesterday', '2026-13-01T00:00:00Z', '']) {
      const res = await api.get(`/contacts?updated_since=${value}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['updated_since']);
    }
    expect((await api.get('/events?updated_since=2026-01-01T00:00:00Z')).status).toBe(422);
  });
});

describe('cursors', () => {
  async function contacts(api: Client, n: number, prefix = 'c') {
    const rows: Row[] = [];
    for (let i = 0; i < n; i++) rows.push((await api.post('/contacts', { first_name: `${prefix}${i}`, email: `${prefix}${i}@x.io` })).body);
    return rows;
  }

  it("answers Laravel's cursor paginator, whose URLs keep the other parameters", async () => {
    const api = await newClient(app);
    const rows = await contacts(api, 3);
    const first = await api.get('/contacts?cursor=&per_page=2&search=x.io');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['data', 'path', 'per_page', 'next_cursor', 'next_page_url', 'prev_cursor', 'prev_page_url']);
    expect(first.body).toMatchObject({ path: `${app.url}/api/v1/contacts`, per_page: 2, prev_cursor: null, prev_page_url: null });
    expect(first.body.data.map((r: Row) => r.id)).toEqual([rows[0]!.id, rows[1]!.id]);
    const next = new URL(first.body.next_page_url);
    expect(next.searchParams.get('cursor')).toBe(first.body.next_cursor);
    expect(next.searchParams.get('search')).toBe('x.io');
    expect(next.searchParams.get('per_page')).toBe('2');
    const second = await api.get(`${next.pathname.replace('/api/v1', '')}${next.search}`);
    expect(second.body.data.map((r: Row) => r.id)).toEqual([rows[2]!.id]);
    expect(second.body).toMatchObject({ next_cursor: null, next_page_url: null });
    expect(typeof second.body.prev_cursor).toBe('string');
    // Page mode keeps its own envelope, without the cursor fields.
    expect(Object.keys((await api.get('/contacts')).body)).toEqual(['current_page', 'per_page', 'total', 'last_page', 'data']);
  });

  it('walks back with prev_cursor to the same pages', async () => {
    const api = await newClient(app);
    const rows = await contacts(api, 7);
    const p1 = (await api.get('/contacts?cursor=&per_page=3&sort=-first_name')).body;
    const p2 = (await api.get(`/contacts?per_page=3&sort=-first_name&cursor=${p1.next_cursor}`)).body;
    const p3 = (await api.get(`/contacts?per_page=3&sort=-first_name&cursor=${p2.next_cursor}`)).body;
    expect([...p1.data, ...p2.data, ...p3.data].map((r: Row) => r.first_name)).toEqual(rows.map((r) => r.first_name).reverse());
    expect(p3.next_cursor).toBeNull();
    const back2 = (await api.get(`/contacts?per_page=3&sort=-first_name&cursor=${p3.prev_cursor}`)).body;
    expect(back2.data).toEqual(p2.data);
    const back1 = (await api.get(`/contacts?per_page=3&sort=-first_name&cursor=${back2.prev_cursor}`)).body;
    expect(back1.data).toEqual(p1.data);
    expect(back1.prev_cursor).toBeNull();
    expect(back1.next_cursor).not.toBeNull();
  });

  it('never skips or repeats a record while others are inserted and deleted during the walk', async () => {
    const api = await newClient(app);
    const rows = await contacts(api, 20);
    for (const sort of ['id', '-updated_at', 'first_name', '-last_name']) {
      const seen: string[] = [];
      const deleted = new Set<string>();
      let cursor = '';
      let step = 0;
      do {
        const page = (await api.get(`/contacts?per_page=4&sort=${sort}&cursor=${cursor}`)).body;
        seen.push(...page.data.map((r: Row) => r.id));
        cursor = page.next_cursor;
        // Between pages: one record inserted, and one not yet seen deleted.
        await api.post('/contacts', { first_name: `new${sort}${step}`, email: `new${step}-${sort.replace(/\W/g, '')}@x.io` });
        const victim = rows.find((r) => !seen.includes(r.id) && !deleted.has(r.id));
        if (victim && step % 2 === 0) {
          expect((await api.delete(`/contacts/${victim.id}`)).status).toBe(204);
          deleted.add(victim.id);
        }
        step += 1;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      // Every record that existed for the whole walk was seen.
      for (const r of rows) if (!deleted.has(r.id) && !seen.includes(r.id)) throw new Error(`${sort}: ${r.id} skipped`);
      for (const id of deleted) rows.splice(rows.findIndex((r) => r.id === id), 1);
    }
  });

  it('refuses a tampered, malformed or foreign cursor, and page with cursor, with 422 on cursor', async () => {
    const api = await newClient(app);
    await contacts(api, 3);
    await api.post('/companies', { name: 'Acme' });
    await api.post('/companies', { name: 'Beta' });
    const c = (await api.get('/contacts?cursor=&per_page=1')).body.next_cursor as string;
    const company = (await api.get('/companies?cursor=&per_page=1')).body.next_cursor as string;
    const [body, tag] = c.split('.');
    const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString());
    decoded[4][0] = '00000000000000000000000000';
    const edited = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${tag}`;
    const flipped = c.slice(0, 5) + (c[5] === 'A' ? 'B' : 'A') + c.slice(6);
    for (const [why, path] of [
      ['another list', `/contacts?cursor=${company}`],
      ['another sort', `/contacts?cursor=${c}&sort=-id`],
      ['edited values', `/contacts?cursor=${edited}`],
      ['a flipped character', `/contacts?cursor=${flipped}`],
      ['garbage', '/contacts?cursor=%E2%9C%93not-a-cursor'],
      ['no digest', `/contacts?cursor=${body}`],
      ['page and cursor', `/contacts?cursor=&page=1`],
    ]) {
      const res = await api.get(path!);
      expect({ why, status: res.status, fields: Object.keys(res.body.errors ?? {}) }).toEqual({ why, status: 422, fields: ['cursor'] });
    }
    // The same cursor in another workspace is a position only: it reveals nothing of this one.
    const other = await newClient(app);
    const res = await other.get(`/contacts?cursor=${c}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('walks every list by cursor, with its default order', async () => {
    const api = await newClient(app);
    await contacts(api, 2);
    for (const path of [
      '/contacts', '/companies', '/deals', '/products', '/tasks', '/tickets', '/ticket-statuses', '/users', '/pipelines', '/property-definitions',
      '/payment-links', '/payment-coupons', '/payment-transactions', '/payment-provider-accounts', '/events', '/webhook-endpoints',
    ]) {
      const res = await api.get(`${path}?cursor=&sort=-created_at`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body).toHaveProperty('next_cursor');
    }
    const events = await all(api, '/events?cursor=&per_page=100');
    expect(events.length).toBe(2);
    expect(events[0]!.id > events[1]!.id).toBe(true);
  });

  it('gives GraphQL the same arguments and a nextCursor beside the page fields', async () => {
    const api = await newClient(app);
    const rows = await contacts(api, 3);
    const query = 'query ($c: String) { contacts(cursor: $c, perPage: 2, sort: "-email") { total currentPage nextCursor prevCursor data { id } } }';
    const first = (await api.graphql(query, { c: '' })).body.data.contacts;
    expect(first).toMatchObject({ total: null, currentPage: null, prevCursor: null, data: [{ id: rows[2]!.id }, { id: rows[1]!.id }] });
    const second = (await api.graphql(query, { c: first.nextCursor })).body.data.contacts;
    expect(second).toMatchObject({ nextCursor: null, data: [{ id: rows[0]!.id }] });
    const paged = (await api.graphql('{ contacts(page: 1) { total nextCursor } }')).body.data.contacts;
    expect(paged).toEqual({ total: 3, nextCursor: null });
  });
});
