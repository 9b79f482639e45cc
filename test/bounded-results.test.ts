import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/graphql/limits.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
let company: { id: string };
let contactIds: string[];
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
  contactIds = [];
  for (let i = 0; i < 30; i += 1) contactIds.push((await api.post('/contacts', { first_name: `C${i}`, email: `c${i}@example.com` })).body.id);
  company = (await api.post('/companies', { name: 'Big', contact_ids: contactIds })).body;
});
afterAll(() => app.close());

const contactsOf = (args: string) => api.graphql(`query($id: ID!) { company(id: $id) { contacts${args} { id } } }`, { id: company.id });

describe('relation lists are paginated', () => {
  it('return 25 by default, in order, and any page of up to 100', async () => {
    expect((await contactsOf('')).body.data.company.contacts.map((c: any) => c.id)).toEqual(contactIds.slice(0, 25));
    expect((await contactsOf('(perPage: 10, page: 3)')).body.data.company.contacts.map((c: any) => c.id)).toEqual(contactIds.slice(20, 30));
    expect((await contactsOf('(perPage: 100, page: 2)')).body.data.company.contacts).toEqual([]);
    const back = await api.graphql('query($id: ID!) { contact(id: $id) { companies(perPage: 1) { name } } }', { id: contactIds[0] });
    expect(back.body.data.contact.companies).toEqual([{ name: 'Big' }]);
  });

  it('refuse bad page arguments with the same field map as top-level lists', async () => {
    const res = await contactsOf('(perPage: 101, page: 0)');
    expect(res.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: { page: ['The page field must be at least 1.'], per_page: ['The per page field must not be greater than 100.'] },
    });
  });
});

describe('the cost limit counts the objects a query can return', () => {
  it('refuses, before running, a query whose nested lists multiply past the limit', async () => {
    const res = await api.graphql('{ companies(perPage: 100) { data { contacts(perPage: 100) { deals(perPage: 100) { id } } } } }');
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'QUERY_LIMIT_EXCEEDED' } });
    expect(res.body.errors[0].message).toMatch(new RegExp(`too many objects: at most ${LIMITS.objects}`));
  });

  it('counts a page size given by a variable at its maximum, and through fragments', async () => {
    const query = 'query($n: Int) { companies(perPage: $n) { data { ...C } } } fragment C on Company { contacts(perPage: $n) { companies { id } } }';
    const res = await api.graphql(query, { n: 1 });
    expect(res.body.errors[0].extensions.code).toBe('QUERY_LIMIT_EXCEEDED');
  });

  it('accepts what fits: 100 companies, 25 contacts each, 2 companies each of those (7,600 objects)', async () => {
    const res = await api.graphql('{ companies(perPage: 100) { total data { contacts { companies(perPage: 2) { id } } } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.companies.data[0].contacts).toHaveLength(25);
  });
});
