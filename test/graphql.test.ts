import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { ErrorCode } from '../src/graphql/errors.js';
import { printedSchema } from '../src/schema.js';
import { schema } from './support/schema.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

describe('GraphQL', () => {
  it('keeps schema.graphql current (npm run schema:print rewrites it)', () => {
    expect(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema(schema));
  });

  it('requires a key: 401 with UNAUTHENTICATED', async () => {
    const res = await send(`${app.url}/graphql`, 'POST', { body: { query: '{ products { total } }' } });
    expect(res.status).toBe(401);
    expect(res.body.errors[0]).toMatchObject({ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('serves GraphiQL to a browser without a key', async () => {
    const res = await fetch(`${app.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });

  it('answers GET queries', async () => {
    const res = await api.request('GET', `/graphql?query=${encodeURIComponent('{ products { total } }')}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { products: { total: 0 } } });
  });

  it('caps depth and aliases', async () => {
    const deep = await api.graphql('{ deals { data { stage { pipeline { stages { deals { stage { pipeline { stages { deals { id } } } } } } } } } } }');
    expect(deep.body.errors[0].message).toMatch(/too deep/);
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: products { total }`).join(' ');
    expect((await api.graphql(`{ ${aliases} }`)).body.errors[0].message).toMatch(/aliases/);
    // Fragments are counted where they are spread: they hide neither depth nor cost.
    const hidden = await api.graphql(
      'query { deals { data { ...A } } } fragment A on Deal { stage { pipeline { stages { deals { ...B } } } } } fragment B on Deal { stage { pipeline { stages { deals { id } } } } }',
    );
    expect(hidden.body.errors[0].message).toMatch(/too deep/);
    const wide = Array.from({ length: 30 }, (_, i) => `f${i}: products { ...P }`).join(' ');
    const fields = Array.from({ length: 40 }, () => 'id').join(' ');
    const costly = await api.graphql(`{ ${wide} } fragment P on ProductPage { data { ${fields} name sku price cost currency unit } }`);
    expect(costly.body.errors[0].message).toMatch(/too costly/);
  });

  it('caps batches at 10 operations and bodies at 1 MiB', async () => {
    const batch = (n: number) => api.request('POST', '/graphql', { body: Array.from({ length: n }, () => ({ query: '{ products { total } }' })) });
    const ten = await batch(10);
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    expect((await batch(11)).status).toBeGreaterThanOrEqual(400);
    const huge = await api.request('POST', '/graphql', { body: { query: `{ products { total } } # ${'x'.repeat(1024 * 1024)}` } });
    expect(huge.status).toBe(413);
  });

  it('reports per-page limits as BAD_USER_INPUT with the field map', async () => {
    const res = await api.graphql('{ products(perPage: 500) { total } }');
    expect(res.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { per_page: ['The per page field must not be greater than 100.'] } });
  });
});

describe('GraphQL over the CRM core', () => {
  it('creates and upserts contacts with the same rules and field map as REST', async () => {
    const gql = await newClient(app);
    const bad = await gql.graphql('mutation { createContact(input: { firstName: "A", email: "nope", properties: { ghost: 1 } }) { id } }');
    expect(bad.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: { email: ['The email field must be a valid email address.'], 'properties.ghost': ['The properties.ghost field is not an active contact property.'] },
    });
    const upsert = 'mutation($i: CreateContactInput!) { upsertContact(input: $i) { created contact { id firstName email } } }';
    const first = await gql.graphql(upsert, { i: { firstName: 'Ann', email: 'ANN@example.com' } });
    expect(first.body.data.upsertContact).toMatchObject({ created: true, contact: { firstName: 'Ann', email: 'ann@example.com' } });
    const second = await gql.graphql(upsert, { i: { firstName: 'Anna', email: 'ann@example.com' } });
    expect(second.body.data.upsertContact).toEqual({ created: false, contact: { ...first.body.data.upsertContact.contact, firstName: 'Anna' } });
  });

  it('types creates and updates apart: a create marks its required fields non-null, an update none', async () => {
    const gql = await newClient(app);
    const fields = async (type: string) => {
      const res = await gql.graphql('query($t: String!) { __type(name: $t) { inputFields { name type { kind } } } }', { t: type });
      return Object.fromEntries(res.body.data.__type.inputFields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind === 'NON_NULL']));
    };
    expect(await fields('CreateContactInput')).toEqual({ firstName: true, lastName: false, email: true, notes: false, companyIds: false, properties: false });
    expect(Object.values(await fields('UpdateContactInput')).some(Boolean)).toBe(false);
    // An update type has only the fields an update may change.
    expect(Object.keys(await fields('UpdatePropertyDefinitionInput')).sort()).toEqual(['isActive', 'label', 'options', 'type']);

    const missing = await gql.graphql('mutation { createContact(input: { email: "m@example.com" }) { id } }');
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ message: 'Field "CreateContactInput.firstName" of required type "String!" was not provided.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
    // REST runs the same mutation, yet still reports a missing field together with every other problem.
    const rest = await gql.post('/contacts', { email: 'nope', last_name: 7 });
    expect([rest.status, rest.body.errors]).toEqual([
      422,
      { first_name: ['The first name field is required.'], last_name: ['The last name field must be a string.'], email: ['The email field must be a valid email address.'] },
    ]);
    expect((await gql.get('/contacts')).body.total).toBe(0);
  });

  it('codes every error from the one documented list, and leaks no internal detail', async () => {
    const gql = await newClient(app);
    const post = (body: unknown) => gql.request('POST', '/graphql', { body });
    const { key: reader } = await createKey(app.database.prisma, `ws-reader-${Date.now()}`, 'reader', { scopes: ['contacts:read'] });
    const cases: [string, Promise<{ status: number; body: any }>, string][] = [
      ['no key', send(`${app.url}/graphql`, 'POST', { body: { query: '{ workspace { id } }' } }), 'UNAUTHENTICATED'],
      ['out of scope', send(`${app.url}/graphql`, 'POST', { body: { query: '{ users { total } }' }, headers: { 'X-Api-Key': reader } }), 'FORBIDDEN'],
      ['not JSON', gql.request('POST', '/graphql', { raw: '{', headers: { 'Content-Type': 'application/json' } }), 'BAD_REQUEST'],
      ['no query', post({}), 'BAD_REQUEST'],
      ['variables not an object', post({ query: '{ workspace { id } }', variables: 5 }), 'BAD_REQUEST'],
      ['mutation over GET', gql.request('GET', `/graphql?query=${encodeURIComponent('mutation { deleteUser(id: "x") }')}`), 'BAD_REQUEST'],
      ['PUT', gql.request('PUT', '/graphql', { body: { query: '{ workspace { id } }' } }), 'BAD_REQUEST'],
      ['syntax', post({ query: '{ contacts ' }), 'GRAPHQL_PARSE_FAILED'],
      ['unknown field', post({ query: '{ nope }' }), 'GRAPHQL_VALIDATION_FAILED'],
      ['unknown operation', post({ query: 'query A { workspace { id } }', operationName: 'B' }), 'OPERATION_RESOLUTION_FAILURE'],
      ['wrong variable type', post({ query: 'query($p: Int) { contacts(page: $p) { total } }', variables: { p: 'x' } }), 'BAD_USER_INPUT'],
      ['invalid input', post({ query: 'mutation { createUser(input: { name: "", email: "x" }) { id } }' }), 'BAD_USER_INPUT'],
      ['unknown subscription', post({ query: 'subscription { x }' }), 'GRAPHQL_VALIDATION_FAILED'],
      ['unknown id', post({ query: '{ user(id: "01JUNKJUNKJUNKJUNKJUNKJUNK") { id } }' }), 'NOT_FOUND'],
      ['too deep', post({ query: `{ contacts { data { ${'companies { contacts { '.repeat(5)} id ${'} } '.repeat(5)} } } }` }), 'QUERY_LIMIT_EXCEEDED'],
    ];
    const documented = readFileSync('docs/api.md', 'utf8');
    for (const code of Object.values(ErrorCode)) expect([code, documented.includes(`| \`${code}\` |`)]).toEqual([code, true]);
    for (const [label, pending, code] of cases) {
      const { body } = await pending;
      expect([label, body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)]).toEqual([label, [code]]);
      expect(Object.values(ErrorCode)).toContain(code);
      // The message graphql-js or JSON.parse wrote underneath stays in the server.
      expect([label, Object.keys(body.errors[0].extensions).filter((k) => !['code', 'errors'].includes(k))]).toEqual([label, []]);
    }
  });

  it('navigates pipelines, stages and deals both ways and keeps workspaces apart', async () => {
    const gql = await newClient(app);
    const stranger = await newClient(app);
    const pipeline = await gql.graphql('mutation { createPipeline(input: { name: "P", stages: [{ name: "A" }, { name: "B", probability: 50 }] }) { id isDefault stages { externalId name probability } } }');
    const p = pipeline.body.data.createPipeline;
    expect(p).toMatchObject({ isDefault: true, stages: [{ name: 'A', probability: 0 }, { name: 'B', probability: 50 }] });
    const user = (await gql.graphql('mutation { createUser(input: { name: "O", email: "o@example.com" }) { id } }')).body.data.createUser;
    const deal = await gql.graphql('mutation($i: CreateDealInput!) { createDeal(input: $i) { id currency stage { name pipeline { id } deals { name } } user { deals { name } } } }', {
      i: { name: 'D', dealStageExternalId: p.stages[1].externalId, userId: user.id, estimatedValue: 10.5 },
    });
    expect(deal.body.data.createDeal).toMatchObject({ currency: 'USD', stage: { name: 'B', pipeline: { id: p.id }, deals: [{ name: 'D' }] }, user: { deals: [{ name: 'D' }] } });
    const foreign = await stranger.graphql('query($id: ID!) { deal(id: $id) { id } }', { id: deal.body.data.createDeal.id });
    expect(foreign.body.errors[0]).toMatchObject({ message: 'Deal not found.', extensions: { code: 'NOT_FOUND' } });
    expect((await stranger.graphql('{ deals { total } pipelines { total } }')).body.data).toEqual({ deals: { total: 0 }, pipelines: { total: 0 } });
    const blocked = await gql.graphql('mutation($id: ID!) { updatePipeline(id: $id, input: { stages: [{ name: "A" }] }) { id } }', { id: p.id });
    expect(blocked.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { stages: ['The stage "B" holds deals and cannot be removed.'] } });
  });
});
