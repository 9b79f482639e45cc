import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../src/modules/index.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

const PROTOTYPE_KEYS = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__'];

describe('keys a client chooses are ordinary keys', () => {
  it('refuses prototype names as query parameters on every list route with 422, never 500 or silence', async () => {
    // Top-level lists; a nested one (an endpoint's deliveries) answers 404 for the unknown parent first (its own test checks it).
    const lists = restRoutes.filter((r) => r.method === 'GET' && r.document.includes('$page') && !r.path.includes('{'));
    expect(lists.length).toBeGreaterThanOrEqual(14);
    for (const route of lists) {
      for (const key of PROTOTYPE_KEYS) {
        const res = await api.get(`${route.path}?${key}=1`);
        expect([route.path, key, res.status, res.body]).toEqual([
          route.path,
          key,
          422,
          { message: 'The given data was invalid.', errors: { [key]: [`The ${key} parameter is not supported.`] } },
        ]);
      }
    }
  });

  it('refuses prototype names as property keys, and ignores them as unknown body fields', async () => {
    const raw = '{"first_name":"P","email":"proto@example.com","__proto__":{"admin":true},"constructor":"x","properties":{"__proto__":1,"constructor":2}}';
    const res = await api.request('POST', '/contacts', { raw, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'properties.__proto__': ['The properties.__proto__ field is not an active contact property.'],
      'properties.constructor': ['The properties.constructor field is not an active contact property.'],
    });
    const ok = await api.request('POST', '/contacts', { raw: raw.replace(/,"properties":\{[^}]*\}/, ''), headers: { 'Content-Type': 'application/json' } });
    expect([ok.status, ok.body.first_name]).toEqual([201, 'P']);
  });
});

describe('NUL characters', () => {
  it('in a path id are 422 on every {id} route, never 5xx', async () => {
    for (const route of restRoutes.filter((r) => r.path.includes('{id}'))) {
      const res = await api.request(route.method, route.path.replace('{id}', 'a%00b'), route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} });
      // An update whose rules require fields (a coupon's code, type, value) reports those too.
      expect([route.method, route.path, res.status, res.body.errors.id]).toEqual([route.method, route.path, 422, ['The id field must not contain NUL characters.']]);
    }
  });

  it('in GraphQL variables or literals are BAD_USER_INPUT naming the variable', async () => {
    const variable = await api.graphql('query($id: ID!) { contact(id: $id) { id } }', { id: 'a\u0000' });
    expect(variable.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { id: ['The id field must not contain NUL characters.'] } });
    const nested = await api.graphql('mutation($input: CreateContactInput!) { createContact(input: $input) { id } }', { input: { firstName: 'a', email: 'n@example.com', properties: { 'k\u0000': 1 } } });
    expect(nested.body.errors[0].extensions.errors).toEqual({ 'input.properties': ['The input.properties field must not contain NUL characters.'] });
    const literal = await api.graphql('{ contact(id: "a\\u0000") { id } }');
    expect(literal.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { query: ['The query field must not contain NUL characters.'] } });
    expect((await api.get('/contacts')).body.total).toBe(1);
  });
});

describe('deep JSON and unreadable GraphQL requests (found by fuzzing)', () => {
  /** `{"a":{"a":...1...}}` as text: JSON.stringify itself cannot write 10,000 levels. */
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const json = { 'Content-Type': 'application/json' };

  it('refuses JSON nested past 32 levels with 422 on the field that holds it, on both faces', async () => {
    for (const levels of [40, 10_000]) {
      const raw = `{"first_name":"D","email":"deep${levels}@example.com","properties":${deep(levels)}}`;
      const res = await api.request('POST', '/contacts', { raw, headers: json });
      expect([res.status, res.body.errors]).toEqual([422, { properties: ['The properties field is nested too deeply: at most 32 levels.'] }]);
    }
    const withKey = await api.request('POST', '/contacts', { raw: `{"first_name":"D","email":"deep@example.com","properties":${deep(10_000)}}`, headers: { ...json, 'Idempotency-Key': 'deep' } });
    expect(withKey.status).toBe(422);
    const query = 'mutation($p: JSON) { createContact(input: { firstName: "F", email: "deep@example.com", properties: $p }) { id } }';
    const gql = await api.request('POST', '/graphql', { raw: `{"query":${JSON.stringify(query)},"variables":{"p":${deep(10_000)}}}`, headers: json });
    expect(gql.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { p: ['The p field is nested too deeply: at most 32 levels.'] } });
    expect((await api.get('/contacts?search=deep')).body.total).toBe(0);
  });

  it('gives every GraphQL error a code: variables of the wrong type are BAD_USER_INPUT with the field map, keyed by variable', async () => {
    for (const [query, variables, name] of [
      ['query($f: ContactFilter) { contacts(filter: $f) { total } }', { f: { constructor: 'x' } }, 'f'],
      ['query($p: Int) { contacts(page: $p) { total } }', { p: '' }, 'p'],
      ['query($id: ID!) { contact(id: $id) { id } }', {}, 'id'],
      ['mutation($input: CreateContactInput!) { createContact(input: $input) { id } }', { input: { firstName: 5, email: 'v@example.com' } }, 'input'],
    ] as const) {
      const res = await api.graphql(query, variables);
      expect(res.body.errors).toHaveLength(1);
      const { message, extensions } = res.body.errors[0];
      expect(extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { [name]: [message] } });
      expect(message).toMatch(new RegExp(`^Variable "\\$${name}"`));
    }
    expect((await api.get('/contacts?search=v@example')).body.total).toBe(0);
  });

  // The JSON body is parsed once, by the service, and handed to Yoga (src/graphql/read-request.ts): the
  // types Yoga reads as JSON run, any other is left to Yoga, and a body that is JSON but not an object is Yoga's 400.
  it('reads a POST /graphql as Yoga would: JSON and GraphQL-JSON types with parameters, forms, batches; null or a string is 400', async () => {
    const query = JSON.stringify({ query: '{ products { total } }' });
    const total = { data: { products: { total: 0 } } };
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/graphql+json', 'application/json, text/plain']) {
      const res = await api.request('POST', '/graphql', { raw: query, headers: { 'Content-Type': type } });
      expect([type, res.status, res.body]).toEqual([type, 200, total]);
    }
    const form = await api.request('POST', '/graphql', { raw: 'query=%7B+products+%7B+total+%7D+%7D', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect([form.status, form.body]).toEqual([200, total]);
    const batch = await api.request('POST', '/graphql', { raw: `[${query},${query}]`, headers: { 'Content-Type': 'application/json' } });
    expect([batch.status, batch.body]).toEqual([200, [total, total]]);
    const vendor = await api.request('POST', '/graphql', { raw: query, headers: { 'Content-Type': 'application/vnd.example+json' } });
    expect(vendor.status).toBe(415);
    for (const [raw, received] of [['null', 'null'], ['"x"', 'string'], ['12', 'number']]) {
      const res = await api.request('POST', '/graphql', { raw, headers: { 'Content-Type': 'application/json' } });
      expect([raw, res.status, res.body]).toEqual([raw, 400, { errors: [{ message: `POST body is expected to be object but received ${received}`, extensions: { code: 'BAD_REQUEST' } }] }]);
    }
  });

  it('answers a POST /graphql that is not JSON with 415 and a coded JSON body', async () => {
    const res = await api.request('POST', '/graphql', { raw: '{ products { total } }', headers: { 'Content-Type': 'text/plain' } });
    expect([res.status, res.body]).toEqual([415, { errors: [{ message: 'Unsupported media type: send Content-Type: application/json.', extensions: { code: 'BAD_REQUEST' } }] }]);
  });
});
