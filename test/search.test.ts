import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { indexUnindexedRecords } from '../src/search/backfill.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

type Hit = { type: string; id: string; title: string; subtitle: string | null; record: Record<string, unknown> };
const search = async (api: Client, query: string) => {
  const res = await api.get(`/search?${query}`);
  expect([query, res.status]).toEqual([query, 200]);
  return res.body as { data: Hit[]; per_page: number; next_cursor: string | null; prev_cursor: string | null; path: string; next_page_url: string | null; prev_page_url: string | null };
};
const ids = (page: { data: Hit[] }) => page.data.map((h) => h.id);

async function contact(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/contacts', body);
  expect(res.status).toBe(201);
  return res.body;
}

describe('GET /search', () => {
  it('finds words by prefix, without case or accents, every word required, with the REST record', async () => {
    const api = await newClient(app);
    const jose = await contact(api, { first_name: 'José', last_name: 'da Silva', email: 'jose.silva@acme.io' });
    await contact(api, { first_name: 'Joseph', last_name: 'Conrad', email: 'jc@sea.example' });
    const page = await search(api, 'q=JOSE%20silv');
    expect(page.data).toEqual([{ type: 'contacts', id: jose.id, title: 'José da Silva', subtitle: 'jose.silva@acme.io', record: jose }]);
    expect(page).toMatchObject({ per_page: 15, next_cursor: null, prev_cursor: null, next_page_url: null, prev_page_url: null });
    expect(page.path).toMatch(/\/api\/v1\/search$/);
    // "jos" is a prefix of both first names; "sé" folds to "se".
    expect((await search(api, 'q=jos')).data).toHaveLength(2);
    expect(ids(await search(api, 'q=Jos%C3%A9'))).toHaveLength(2);
    expect(ids(await search(api, 'q=silva%20conrad'))).toEqual([]);
  });

  it("matches the records' words only, never the index's own marker of the workspace", async () => {
    const api = await newClient(app);
    const ada = await contact(api, { first_name: 'Ada', email: 'ada@analytical.engine' });
    const marker = `w${api.workspaceId.toLowerCase()}`;
    for (const q of ['w', marker.slice(0, 3), marker, `${marker}%20ada`]) expect([q, ids(await search(api, `q=${q}`))]).toEqual([q, []]);
    expect(ids(await search(api, 'q=ada'))).toEqual([ada.id]);
  });

  it('indexes the records that have no entry (written before the index existed): once, in the background of a serving process', async () => {
    const api = await newClient(app);
    const ada = await contact(api, { first_name: 'Backfilled', email: 'old@before.example' });
    const company = (await api.post('/companies', { name: 'Backfilled company' })).body;
    await app.database.prisma.$executeRawUnsafe(`DELETE FROM "SearchEntry" WHERE "id" IN ('${ada.id}', '${company.id}')`);
    expect(ids(await search(api, 'q=backfilled'))).toEqual([]);
    expect(await indexUnindexedRecords(app.database.prisma, app.service.represent)).toBe(2);
    const page = await search(api, 'q=backfilled');
    // The contact's first name is the query (an exact field), the company's name starts with it.
    expect(page.data.map((h) => [h.type, h.id, h.record])).toEqual([['contacts', ada.id, ada], ['companies', company.id, company]]);
    expect(await indexUnindexedRecords(app.database.prisma, app.service.represent)).toBe(0);
    // A serving process does it when it starts.
    await app.database.prisma.$executeRawUnsafe(`DELETE FROM "SearchEntry" WHERE "id" = '${ada.id}'`);
    const serving = await startApp({ background: {} });
    try {
      await expect.poll(async () => ids(await search(api, 'q=old%40before.example')), { timeout: 30_000, interval: 50 }).toEqual([ada.id]);
    } finally {
      await serving.close();
    }
  });

  it('finds an e-mail whole, by its local part and by its domain; a phone property by its digits, however written', async () => {
    const api = await newClient(app);
    expect((await api.post('/property-definitions', { object: 'contact', key: 'mobile', label: 'Mobile', type: 'phone' })).status).toBe(201);
    const ada = await contact(api, { first_name: 'Ada', email: 'ada.lovelace@analytical.engine', properties: { mobile: '+55 (11) 9 8765-4321' } });
    await contact(api, { first_name: 'Other', email: 'other@elsewhere.example' });
    for (const q of ['ada.lovelace@analytical.engine', 'ada.lovelace', 'analytical.engine', 'analytical', '987654321', '%2B55%20(11)%209%208765-4321', '11987654321', '8765-4321']) {
      expect([q, ids(await search(api, `q=${q}`))]).toEqual([q, [ada.id]]);
    }
    expect(ids(await search(api, 'q=12345678'))).toEqual([]);
    // A phone property refuses what is not a phone number.
    const bad = await api.post('/contacts', { first_name: 'B', email: 'b@b.example', properties: { mobile: 'call me' } });
    expect([bad.status, bad.body.errors]).toEqual([422, { 'properties.mobile': ['The properties.mobile field must be a phone number: 3 to 32 digits, spaces and +()-. with at least 3 digits.'] }]);
  });

  it('searches every type, ranks an exact field before a prefix before a word inside, newer first', async () => {
    const api = await newClient(app);
    const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }] })).body;
    const user = (await api.post('/users', { name: 'Owner', email: `o-${Math.random()}@x.io` })).body;
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const status = (await api.post('/ticket-statuses', { name: 'Open' })).body;
    const inside = (await api.post('/deals', { name: 'Big Orion deal', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id })).body;
    const prefixOld = (await api.post('/companies', { name: 'Orion Systems', domain: 'orion.example' })).body;
    const exact = (await api.post('/products', { name: 'Orion', type: 'product', price: 1, currency: 'USD', unit: 'unit', sku: 'ORN-1' })).body;
    const prefixNew = (await api.post('/tasks', { title: 'Orion launch' })).body;
    const ticket = (await api.post('/tickets', { title: 'Orion is down', ticket_status_id: status.id })).body;
    const link = (await api.post('/payment-links', { name: 'Orion plan', payment_provider_account_id: account.id })).body;
    const all = await search(api, 'q=orion');
    expect(all.data.map((h) => [h.type, h.id])).toEqual([
      ['products', exact.id],
      ['payment-links', link.id],
      ['tickets', ticket.id],
      ['tasks', prefixNew.id],
      ['companies', prefixOld.id],
      ['deals', inside.id],
    ]);
    expect(all.data[0]).toEqual({ type: 'products', id: exact.id, title: 'Orion', subtitle: 'ORN-1', record: exact });
    expect(all.data.find((h) => h.type === 'deals')).toMatchObject({ title: 'Big Orion deal', subtitle: 'Lead' });
    // `types` narrows, comma-separated; GraphQL answers the same hits.
    expect((await search(api, 'q=orion&types=deals,companies')).data.map((h) => h.type)).toEqual(['companies', 'deals']);
    const gql = await api.graphql('{ search(query: "orion", types: ["tasks"], first: 5) { data { type id title subtitle record } nextCursor } }');
    expect(gql.body).toEqual({ data: { search: { data: [{ type: 'tasks', id: prefixNew.id, title: 'Orion launch', subtitle: null, record: prefixNew }], nextCursor: null } } });
  });

  it('finds a record in the request right after its write, follows renames and forgets deletions', async () => {
    const api = await newClient(app);
    const created = await contact(api, { first_name: 'Zebulon', email: 'z@z.example' });
    expect(ids(await search(api, 'q=zebul'))).toEqual([created.id]);
    await api.put(`/contacts/${created.id}`, { first_name: 'Xavier' });
    expect(ids(await search(api, 'q=zebul'))).toEqual([]);
    const renamed = await search(api, 'q=xav');
    expect([ids(renamed), renamed.data[0]!.record.first_name]).toEqual([[created.id], 'Xavier']);
    expect((await api.delete(`/contacts/${created.id}`)).status).toBe(204);
    expect(ids(await search(api, 'q=xav'))).toEqual([]);
  });

  it('walks every match by cursor, forwards and back, never skipping or repeating', async () => {
    const api = await newClient(app);
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.post('/contacts/batch', { inputs: Array.from({ length: 25 }, (_, j) => ({ first_name: `Walker${i}${j}`, email: `walker-${i}-${j}@w.example` })) });
      made.push(...res.body.data.map((c: { id: string }) => c.id));
    }
    const seen: string[] = [];
    let page = await search(api, 'q=walker&per_page=30');
    const pages = [page];
    for (;;) {
      seen.push(...ids(page));
      if (!page.next_cursor) break;
      page = await search(api, `q=walker&per_page=30&cursor=${page.next_cursor}`);
      pages.push(page);
    }
    expect([seen.length, new Set(seen).size]).toEqual([100, 100]);
    expect(new Set(seen)).toEqual(new Set(made));
    expect(pages.map((p) => p.data.length)).toEqual([30, 30, 30, 10]);
    // Back from the last page gives the third again.
    const back = await search(api, `q=walker&per_page=30&cursor=${pages[3]!.prev_cursor}`);
    expect(ids(back)).toEqual(ids(pages[2]!));
    // A cursor of another query is refused.
    const other = await api.get(`/search?q=walk&per_page=30&cursor=${pages[1]!.next_cursor}`);
    expect([other.status, other.body.errors]).toEqual([422, { cursor: ['The cursor is invalid: it was not given by this search.'] }]);
  });

  it('walks across the tiers by cursor, forwards and back, for one word and for several', async () => {
    const api = await newClient(app);
    const make = async (body: Record<string, unknown>) => (await contact(api, { email: `${Math.random().toString(36).slice(2)}@t.example`, ...body })).id as string;
    const c1 = await make({ first_name: 'Tier' });
    const c2 = await make({ first_name: 'Tiers', last_name: 'X' });
    const c3 = await make({ first_name: 'Ann', last_name: 'Tier' });
    const c4 = await make({ first_name: 'Bob', last_name: 'Tierney' });
    const c5 = await make({ first_name: 'Zed', email: 'x.tier@y.example' });
    const c6 = await make({ first_name: 'Tier', last_name: 'Two' });
    const c7 = (await api.post('/companies', { name: 'Old tier co' })).body.id as string;
    const c8 = await make({ first_name: 'Cy', email: 'tier@z.example' });
    const c9 = await make({ first_name: 'Tier', last_name: 'Twofold' });
    const c10 = await make({ first_name: 'Two', last_name: 'Tier' });
    const walk = async (q: string, perPage: number) => {
      const pages = [await search(api, `q=${q}&per_page=${perPage}`)];
      while (pages.at(-1)!.next_cursor) pages.push(await search(api, `q=${q}&per_page=${perPage}&cursor=${pages.at(-1)!.next_cursor}`));
      const back = [pages.at(-1)!];
      while (back.at(-1)!.prev_cursor) back.push(await search(api, `q=${q}&per_page=${perPage}&cursor=${back.at(-1)!.prev_cursor}`));
      return { forward: pages.map(ids), back: back.map(ids).reverse() };
    };
    // An exact field (newer first), then a field's start, then a word inside.
    const oneWord = [[c10, c9, c8], [c6, c3, c1], [c4, c2, c7], [c5]];
    expect(await walk('tier', 3)).toEqual({ forward: oneWord, back: oneWord });
    const twoWords = [[c6], [c9], [c10]];
    expect(await walk('tier%20two', 1)).toEqual({ forward: twoWords, back: twoWords });
  });

  it('finds matches older than the newest 400 entries (PostgreSQL reads those first), by every word', async () => {
    const api = await newClient(app);
    const old = await contact(api, { first_name: 'Needle', last_name: 'Haystackson', email: 'needle@old.example' });
    const oldest = await contact(api, { first_name: 'Needlework', email: 'nw@old.example' });
    const targets = (await api.post('/contacts/batch', { inputs: Array.from({ length: 20 }, (_, i) => ({ first_name: 'Target', email: `t${i}@old.example` })) })).body.data.map((c: { id: string }) => c.id);
    for (let n = 0; n < 5; n++) {
      const res = await api.post('/contacts/batch', { inputs: Array.from({ length: 100 }, (_, i) => ({ first_name: `Hay${n}x${i}`, email: `hay-${n}-${i}@new.example` })) });
      expect(res.status).toBe(201);
    }
    expect(ids(await search(api, 'q=needle'))).toEqual([old.id, oldest.id]);
    expect(ids(await search(api, 'q=needle%20hays'))).toEqual([old.id]);
    expect(ids(await search(api, 'q=haystackson%20old.example'))).toEqual([old.id]);
    expect(ids(await search(api, 'q=needle%20new'))).toEqual([]);
    // With statistics, PostgreSQL asks its index for the rare words only (here `needle`, not
    // `new` or `example`, which 500 entries have) and checks the others on the rows.
    if (app.provider === 'postgresql') {
      await app.database.prisma.$executeRawUnsafe('ANALYZE "SearchEntry"');
      const analyzed = await startApp();
      try {
        const again = (q: string) => send(`${analyzed.url}/api/v1/search?q=${q}`, 'GET', { headers: { 'X-Api-Key': api.key } }).then((r) => r.body.data.map((h: Hit) => h.id));
        expect(await again('needle%20example')).toEqual([oldest.id, old.id]);
        expect(await again('haystackson%20old.example')).toEqual([old.id]);
        expect(await again('needle%20new')).toEqual([]);
        // Every word common (`new` and `example`): the newest entries first, then the index
        // past the newest 400, walked by cursor without a repeat or a gap.
        const hay = (await api.get('/contacts?per_page=100&sort=-created_at')).body.data.map((c: { id: string }) => c.id);
        const walked: string[] = [];
        let cursor = '';
        do {
          const page = (await send(`${analyzed.url}/api/v1/search?q=new%20example&per_page=50${cursor ? `&cursor=${cursor}` : ''}`, 'GET', { headers: { 'X-Api-Key': api.key } })).body;
          walked.push(...page.data.map((h: Hit) => h.id));
          cursor = page.next_cursor ?? '';
        } while (cursor);
        expect([walked.length, new Set(walked).size, walked.slice(0, 100)]).toEqual([500, 500, hay]);
        // A common word (20 of 522 entries) none of the newest 400 has: past the window, from the index.
        const found = (await send(`${analyzed.url}/api/v1/search?q=target&per_page=50`, 'GET', { headers: { 'X-Api-Key': api.key } })).body.data.map((h: Hit) => h.id);
        expect(new Set(found)).toEqual(new Set(targets));
      } finally {
        await analyzed.close();
      }
    }
  });

  it('refuses bad parameters with 422', async () => {
    const api = await newClient(app);
    const cases: [string, Record<string, string[]>][] = [
      ['', { q: ['The q field is required.'] }],
      ['q=', { q: ['The q field is required.'] }],
      [`q=${'a'.repeat(201)}`, { q: ['The q field must not be greater than 200 characters.'] }],
      ['q=a%00b', { q: ['The q field must not contain NUL characters.'] }],
      ['q=a&types=contacts,people', { types: ['The selected types is invalid.'] }],
      ['q=a&per_page=51', { per_page: ['The per page field must not be greater than 50.'] }],
      ['q=a&per_page=0', { per_page: ['The per page field must be at least 1.'] }],
      ['q=a&cursor=nope', { cursor: ['The cursor is invalid: it was not given by this search.'] }],
      ['q=a&page=2', { page: ['The page parameter is not supported.'] }],
    ];
    for (const [query, errors] of cases) {
      const res = await api.get(`/search?${query}`);
      expect([query, res.status, res.body.errors]).toEqual([query, 422, errors]);
    }
    // A lone surrogate cannot travel in a URL (its UTF-8 does not exist), but can in GraphQL's JSON.
    const lone = await api.request('POST', '/graphql', { raw: '{"query":"query ($q: String!) { search(query: $q) { data { id } } }","variables":{"q":"a\\ud800"}}', headers: { 'Content-Type': 'application/json' } });
    expect([lone.status, lone.body.errors?.map((e: { extensions: { errors?: unknown } }) => e.extensions.errors)]).toEqual([200, [{ q: ['The q field must be valid Unicode text.'] }]]);
  });

  it('never finds another workspace, and a key finds only the types it can read', async () => {
    const workspace = `search-scopes-${Math.random()}`;
    const api = await newClient(app, workspace);
    const other = await newClient(app);
    await contact(other, { first_name: 'Secretive', email: 's@s.example' });
    expect(ids(await search(api, 'q=secretive'))).toEqual([]);
    const mine = await contact(api, { first_name: 'Scoped', email: 'sc@s.example' });
    const company = (await api.post('/companies', { name: 'Scoped Inc' })).body;
    const keyOf = async (scopes: string[]) => (await createKey(app.database.prisma, workspace, 'scoped', { scopes })).key;
    const get = (key: string, query: string) => send(`${app.url}/api/v1/search?${query}`, 'GET', { headers: { 'X-Api-Key': key } });
    const deals = await keyOf(['deals:read', 'contacts:read']);
    expect((await get(deals, 'q=scoped')).body.data.map((h: Hit) => h.id)).toEqual([mine.id]);
    expect((await get(deals, 'q=scoped&types=companies')).status).toBe(403);
    expect((await get(await keyOf(['read']), 'q=scoped')).body.data.map((h: Hit) => h.id).sort()).toEqual([mine.id, company.id].sort());
  });
});
