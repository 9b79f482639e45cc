import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyUnkeyedRecords } from '../src/modules/duplicates/backfill.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

// API.md section 12's duplicates: groups of records that are likely one, each rule, by cursor.
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const sorted = (ids: string[]) => [...ids].sort();
const groups = async (api: Client, path: string) => (await api.get(`${path}?per_page=100`)).body.data as { reason: string; ids: string[] }[];

describe('duplicates', () => {
  it('groups contacts by phone (the same digits, or one without its country or area code) and by name with a company or a domain in common', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'contact', key: 'mobile', label: 'Mobile', type: 'phone' });
    const contact = async (first: string, last: string | null, email: string, extra: Record<string, unknown> = {}) => (await api.post('/contacts', { first_name: first, last_name: last, email, ...extra })).body.id as string;
    const full = await contact('A', 'One', 'a@one.example', { properties: { mobile: '+55 (11) 98765-4321' } });
    const local = await contact('B', 'Two', 'b@two.example', { properties: { mobile: '98765-4321' } });
    const formatted = await contact('C', 'Three', 'c@three.example', { properties: { mobile: '5511987654321' } });
    await contact('D', 'Four', 'd@four.example', { properties: { mobile: '7654321' } }); // 7 digits: no suffix match
    await contact('E', 'Five', 'e@five.example', { properties: { mobile: '+44 11 98765 4329' } });
    const acme = (await api.post('/companies', { name: 'Acme' })).body.id;
    const jose = await contact('José', 'Álvarez', 'jose@acme.example');
    const joseAgain = await contact('jose', 'alvarez', 'j.alvarez@acme.example');
    const sameCompany = await contact('JOSE', 'ALVAREZ', 'ja@elsewhere.example', { company_ids: [acme] });
    const sameCompanyToo = await contact('José', 'Alvarez', 'ja@another.example', { company_ids: [acme] });
    await contact('José', 'Álvarez', 'jose@unrelated.example'); // same name, nothing in common
    await contact('Maria', 'Silva', 'maria@acme.example'); // same domain, another name

    const found = await groups(api, '/contacts/duplicates');
    expect(found).toEqual(
      expect.arrayContaining([
        { reason: 'phone', ids: sorted([full, local, formatted]) },
        { reason: 'name', ids: sorted([jose, joseAgain]) },
        { reason: 'name', ids: sorted([sameCompany, sameCompanyToo]) },
      ]),
    );
    expect(found).toHaveLength(3);
  });

  it('groups companies by domain and by name without case, accents or a legal form', async () => {
    const api = await newClient(app);
    const company = async (name: string, domain: string | null = null) => (await api.post('/companies', { name, domain })).body.id as string;
    const a = await company('Acme', 'acme.example');
    const b = await company('Different name', 'ACME.example');
    const c = await company('Café Ltda');
    const d = await company('cafe');
    const e = await company('CAFÉ, LTDA.');
    const f = await company('Globex Inc.');
    const g = await company('globex LLC');
    await company('Initech', 'initech.example');
    await company('Initrode');
    const found = await groups(api, '/companies/duplicates');
    expect(found).toEqual(expect.arrayContaining([{ reason: 'domain', ids: sorted([a, b]) }, { reason: 'name', ids: sorted([c, d, e]) }, { reason: 'name', ids: sorted([f, g]) }]));
    expect(found).toHaveLength(3);
  });

  it('follows every write of a name or a domain: an update joins a group and leaves it', async () => {
    const api = await newClient(app);
    const first = (await api.post('/contacts', { first_name: 'Ana', last_name: 'Costa', email: 'ana@costa.example' })).body.id;
    const second = (await api.post('/contacts', { first_name: 'Bia', last_name: 'Lima', email: 'bia@costa.example' })).body.id;
    expect(await groups(api, '/contacts/duplicates')).toEqual([]);
    await api.put(`/contacts/${second}`, { first_name: 'ANA', last_name: 'Côsta' });
    expect(await groups(api, '/contacts/duplicates')).toEqual([{ reason: 'name', ids: sorted([first, second]) }]);
    await api.put(`/contacts/${first}`, { last_name: 'Souza' });
    expect(await groups(api, '/contacts/duplicates')).toEqual([]);

    const one = (await api.post('/companies', { name: 'Uno', domain: 'uno.example' })).body.id;
    const two = (await api.post('/companies', { name: 'Dos' })).body.id;
    await api.put(`/companies/${two}`, { domain: 'WWW.Uno.example' });
    expect(await groups(api, '/companies/duplicates')).toEqual([{ reason: 'domain', ids: sorted([one, two]) }]);
    await api.put(`/companies/${two}`, { domain: null });
    expect(await groups(api, '/companies/duplicates')).toEqual([]);
  });

  it('keys the records written before the keys existed in the background, then groups them', async () => {
    const api = await newClient(app);
    const ids = [];
    for (const email of ['z1@zeta.example', 'z2@zeta.example']) ids.push((await api.post('/contacts', { first_name: 'Zé', last_name: 'Zeta', email })).body.id);
    const companies = [];
    for (const name of ['Zeta Ltda', 'zeta']) companies.push((await api.post('/companies', { name })).body.id);
    // As an upgrade leaves them: the rows without their keys.
    await app.database.prisma.$executeRawUnsafe(`UPDATE "Contact" SET "nameKey" = NULL WHERE "workspaceId" = '${api.workspaceId}'`);
    await app.database.prisma.$executeRawUnsafe(`UPDATE "Company" SET "nameKey" = NULL, "domainKey" = NULL WHERE "workspaceId" = '${api.workspaceId}'`);
    expect(await groups(api, '/contacts/duplicates')).toEqual([]);
    expect(await keyUnkeyedRecords(app.database.prisma, () => false, 1)).toBeGreaterThanOrEqual(6);
    expect(await groups(api, '/contacts/duplicates')).toEqual([{ reason: 'name', ids: sorted(ids) }]);
    expect(await groups(api, '/companies/duplicates')).toEqual([{ reason: 'name', ids: sorted(companies) }]);
    expect(await keyUnkeyedRecords(app.database.prisma)).toBe(0);
  });

  it('walks the groups by cursor, both ways, and finds none among unrelated records', async () => {
    const api = await newClient(app);
    for (let i = 0; i < 5; i += 1) {
      await api.post('/companies', { name: `Twin ${i}` });
      await api.post('/companies', { name: `twin ${i} Inc` });
    }
    const all = await groups(api, '/companies/duplicates');
    expect(all).toHaveLength(5);
    const first = (await api.get('/companies/duplicates?per_page=2')).body;
    expect(Object.keys(first)).toEqual(['data', 'path', 'per_page', 'next_cursor', 'next_page_url', 'prev_cursor', 'prev_page_url']);
    expect(first.data).toEqual(all.slice(0, 2));
    expect(first.prev_cursor).toBeNull();
    const second = (await api.get(`/companies/duplicates?per_page=2&cursor=${first.next_cursor}`)).body;
    expect(second.data).toEqual(all.slice(2, 4));
    const back = (await api.get(`/companies/duplicates?per_page=2&cursor=${second.prev_cursor}`)).body;
    expect(back.data).toEqual(all.slice(0, 2));
    const third = (await api.get(`/companies/duplicates?per_page=2&cursor=${second.next_cursor}`)).body;
    expect([third.data, third.next_cursor]).toEqual([all.slice(4), null]);
    expect((await api.get('/companies/duplicates?cursor=nope')).status).toBe(422);
    expect((await api.get('/companies/duplicates?per_page=101')).status).toBe(422);

    const other = await newClient(app);
    for (const name of ['Alpha', 'Beta', 'Gamma']) await other.post('/companies', { name, domain: `${name.toLowerCase()}.example` });
    await other.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' });
    await other.post('/contacts', { first_name: 'Bo', email: 'bo@example.com' });
    expect(await groups(other, '/companies/duplicates')).toEqual([]);
    expect(await groups(other, '/contacts/duplicates')).toEqual([]);
    // GraphQL too.
    const res = await api.graphql('{ companyDuplicates(first: 1) { perPage nextCursor data { reason ids } } }');
    expect(res.body.data.companyDuplicates).toEqual({ perPage: 1, nextCursor: expect.any(String), data: [all[0]] });
  });
});
