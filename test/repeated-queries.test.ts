import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../src/auth/gate.js';
import { createGraphQL } from '../src/graphql/yoga.js';
import { schema } from './support/schema.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

// A query Yoga has validated and run once is answered again without Yoga's pipeline
// (src/graphql/repeated-queries.ts): byte for byte what Yoga answers, or Yoga answers it.

let app: TestApp;
let api: Client;
let productId: string;
let contactId: string;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
  const product = await api.post('/products', { name: 'Widget', sku: 'W-1', price: 12.5, cost: 3.25, tax_rate: 7, currency: 'USD', unit: 'each', type: 'product' });
  expect(product.status).toBe(201);
  productId = product.body.id;
  const company = await api.post('/companies', { name: 'Acme' });
  expect(company.status).toBe(201);
  const contact = await api.post('/contacts', { first_name: 'Ada', email: `ada-${Date.now()}@example.com`, company_ids: [company.body.id], properties: {} });
  expect(contact.status).toBe(201);
  contactId = contact.body.id;
});
afterAll(() => app.close());

const PRODUCT = 'query ($id: ID!) { product(id: $id) { id name sku type description price priceMinor cost currency unit taxRate isActive createdAt updatedAt __typename } }';
const QUERIES: { name: string; body: () => Record<string, unknown> }[] = [
  { name: 'a record with every scalar kind', body: () => ({ query: PRODUCT, variables: { id: productId } }) },
  {
    name: 'a list with a filter, fragments, aliases and a relation',
    body: () => ({
      query: 'fragment C on Contact { id email companies { name } } query People($f: ContactFilter) { first: contacts(perPage: 5, filter: $f) { total data { ...C } } again: contact(id: "' + contactId + '") { ...C firstName lastName } }',
      variables: { f: { search: 'ada' } },
    }),
  },
  {
    name: 'one operation of several, by name, with skip and include',
    body: () => ({ query: 'query A { products { total } } query B($all: Boolean!) { products { total data { id sku @include(if: $all) name @skip(if: $all) } } }', operationName: 'B', variables: { all: true } }),
  },
  { name: 'no variables at all, null parameters', body: () => ({ query: '{ products(perPage: 1) { total perPage } }', variables: null, operationName: null }) },
];

const headersOf = (reply: { status: number; headers: Headers; text: string }) => ({
  status: reply.status,
  type: reply.headers.get('content-type'),
  limit: reply.headers.get('x-ratelimit-limit'),
  text: reply.text,
});

describe('a repeated query', () => {
  for (const { name, body } of QUERIES) {
    it(`answers ${name} the same, byte for byte, the first time and the next ones`, async () => {
      const first = await api.request('POST', '/graphql', { body: body() });
      expect(first.status).toBe(200);
      expect(first.body.errors).toBeUndefined();
      for (let i = 0; i < 2; i += 1) expect(headersOf(await api.request('POST', '/graphql', { body: body() }))).toEqual(headersOf(first));
    });
  }

  for (const accept of [
    '*/*',
    'application/json',
    'application/json, */*',
    'application/graphql-response+json',
    'application/graphql-response+json, application/json',
    'application/graphql-response+json,application/json;q=0.9',
    'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
    'application/json, application/graphql-response+json',
    'text/event-stream',
  ]) {
    it(`answers Accept: ${accept} with Yoga's media type`, async () => {
      const request = () => api.request('POST', '/graphql', { body: { query: PRODUCT, variables: { id: productId } }, headers: { Accept: accept } });
      const first = await request();
      expect(first.status).toBe(200);
      expect(headersOf(await request())).toEqual(headersOf(first));
    });
  }

  it("answers with Yoga's own errors when a repeated document fails: unknown record, wrong or missing variable, NUL, bad parameters", async () => {
    expect((await api.request('POST', '/graphql', { body: { query: PRODUCT, variables: { id: productId } } })).status).toBe(200);
    const cases: Record<string, unknown>[] = [
      { variables: { id: 'nope' } },
      { variables: { id: { not: 'an id' } } },
      { variables: { id: 'a\u0000b' } },
      { variables: {} },
      { variables: { id: productId }, extra: 1 },
      { variables: [productId] },
      { variables: { id: productId }, operationName: 'Missing' },
    ];
    const replies = [];
    for (const [i, fields] of cases.entries()) {
      const repeated = headersOf(await api.request('POST', '/graphql', { body: { query: PRODUCT, ...fields } }));
      // The same document under a text Yoga has never seen (trailing spaces): Yoga's own answer.
      const fresh = headersOf(await api.request('POST', '/graphql', { body: { query: PRODUCT + ' '.repeat(i + 1), ...fields } }));
      expect(repeated).toEqual(fresh);
      replies.push([repeated.status, JSON.parse(repeated.text).errors?.[0]?.extensions?.code]);
    }
    expect(replies).toEqual([
      [200, 'NOT_FOUND'],
      [400, 'BAD_USER_INPUT'],
      [200, 'BAD_USER_INPUT'],
      [400, 'BAD_USER_INPUT'],
      [400, 'BAD_REQUEST'],
      [400, 'BAD_REQUEST'],
      [400, 'OPERATION_RESOLUTION_FAILURE'],
    ]);
  });
});

describe('which requests skip Yoga', () => {
  it('only a JSON POST of a query Yoga has run, with no errors, an Accept header it knows and no other parameter', async () => {
    const graphql = createGraphQL(schema, createGate(app.database, 0));
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await graphql.handle(
        new Request('http://localhost/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Api-Key': api.key, ...headers }, body: JSON.stringify(body) }),
        { requestId: 'test' },
      );
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    };
    const skipped = async (body: unknown, headers?: Record<string, string>) => {
      const before = graphql.repeated.answered;
      const reply = await post(body, headers);
      return { reply, skipped: graphql.repeated.answered - before };
    };
    const query = { query: PRODUCT, variables: { id: productId } };

    const byYoga = await skipped(query);
    expect(byYoga.skipped).toBe(0);
    const again = await skipped(query);
    expect(again).toEqual({ reply: byYoga.reply, skipped: 1 });
    // Another id, the same document: still compiled, still answered the same way Yoga would.
    expect((await skipped({ query: PRODUCT, variables: { id: productId } })).skipped).toBe(1);

    // Errors, and everything else, are Yoga's.
    expect((await skipped({ query: PRODUCT, variables: { id: 'nope' } })).skipped).toBe(0);
    expect((await skipped(query, { Accept: 'application/json, application/graphql-response+json' })).skipped).toBe(0);
    expect((await skipped(query, { Accept: 'text/event-stream' })).skipped).toBe(0);
    expect((await skipped({ ...query, extensions: { persistedQuery: {} } })).skipped).toBe(0);
    expect((await skipped([query])).skipped).toBe(0);
    const mutation = { query: 'mutation ($id: ID!) { updateProduct(id: $id, input: { name: "Widget" }) { id } }', variables: { id: productId } };
    for (let i = 0; i < 2; i += 1) expect((await skipped(mutation)).skipped).toBe(0);
    const introspection = { query: '{ __schema { queryType { name } } }' };
    for (let i = 0; i < 2; i += 1) expect((await skipped(introspection)).skipped).toBe(0);
    // A document Yoga has not run yet (another text) goes to Yoga first.
    const other = { query: `${PRODUCT} `, variables: { id: productId } };
    expect((await skipped(other)).skipped).toBe(0);
    expect((await skipped(other)).skipped).toBe(1);
  });

  it('keeps the key check first: a request without a key never reaches either path', async () => {
    const body = { query: PRODUCT, variables: { id: productId } };
    await api.request('POST', '/graphql', { body });
    const res = await send(`${app.url}/graphql`, 'POST', { body });
    expect([res.status, res.body]).toEqual([401, { errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] }]);
  });
});
