import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { type Client, type Reply, type TestApp, newClient, send, startApp } from './support/app.js';

const LISTED = 'http://localhost:5173';
const ALSO_LISTED = 'https://app.example.com';
const UNLISTED = 'http://evil.example';

const EXPOSED = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Idempotent-Replayed';
/** What an actual response to a listed origin carries. */
const allowed = (origin: string) => ({
  'access-control-allow-credentials': 'true',
  'access-control-allow-origin': origin,
  'access-control-expose-headers': EXPOSED,
  vary: 'Origin',
});

/** The CORS-related headers of a response (names lower case). */
const corsOf = (res: Reply) => Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

const preflight = (url: string, origin: string, method = 'POST', requestHeaders = 'x-api-key,content-type') =>
  send(url, 'OPTIONS', { headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': requestHeaders } });

let app: TestApp;
let plain: TestApp;
let api: Client;
beforeAll(async () => {
  [app, plain] = await Promise.all([startApp({ corsOrigins: [LISTED, ALSO_LISTED] }), startApp()]);
  api = await newClient(app);
});
afterAll(() => Promise.all([app.close(), plain.close()]));

describe('CORS preflights', () => {
  it('answers a listed origin with 204 and the allow headers, on REST and /graphql, without a key', async () => {
    for (const path of ['/api/v1/contacts', '/api/v1/contacts/01HZZZZZZZZZZZZZZZZZZZZZZZ', '/graphql', '/healthz', '/api/v1/no-such-route']) {
      const res = await preflight(`${app.url}${path}`, LISTED);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(corsOf(res)).toEqual({
        'access-control-allow-credentials': 'true',
        'access-control-allow-headers': 'X-Api-Key, Content-Type, Idempotency-Key, X-Request-Id',
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
        'access-control-allow-origin': LISTED,
        'access-control-max-age': '600',
        vary: 'Origin',
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    expect(corsOf(await preflight(`${app.url}/api/v1/deals`, ALSO_LISTED, 'DELETE'))).toMatchObject({ 'access-control-allow-origin': ALSO_LISTED });
  });

  it('answers an unlisted origin with 204 and no allow headers (the browser refuses)', async () => {
    for (const origin of [UNLISTED, 'null', `${LISTED}/`, 'http://LOCALHOST:5173', 'http://localhost:5174']) {
      const res = await preflight(`${app.url}/api/v1/contacts`, origin);
      expect(res.status).toBe(204);
      expect(corsOf(res)).toEqual({ vary: 'Origin' });
    }
  });

  it('leaves an OPTIONS that is not a preflight to the routes: 405 with Allow on REST', async () => {
    const res = await send(`${app.url}/api/v1/contacts`, 'OPTIONS', { headers: { Origin: LISTED } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body).toEqual({ message: 'Method not allowed.' });
    expect(corsOf(res)).toEqual(allowed(LISTED));
    // /graphql needs the key for anything but a preflight and the GraphiQL page.
    expect((await send(`${app.url}/graphql`, 'OPTIONS')).status).toBe(401);
    const graphql = await api.request('OPTIONS', '/graphql');
    expect(graphql.status).toBe(405);
    expect(graphql.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('CORS on actual responses', () => {
  it('gives a listed origin Allow-Origin, credentials and the exposed headers, on successes and errors alike', async () => {
    const headers = { Origin: LISTED, 'X-Api-Key': api.key };
    const ok = await send(`${app.url}/api/v1/contacts`, 'GET', { headers });
    const created = await send(`${app.url}/api/v1/contacts`, 'POST', { headers, body: { first_name: 'Ada', email: `ada-${Date.now()}@example.com` } });
    const invalid = await send(`${app.url}/api/v1/contacts`, 'POST', { headers, body: { email: 'nope' } });
    const missing = await send(`${app.url}/api/v1/contacts/01HZZZZZZZZZZZZZZZZZZZZZZZ`, 'GET', { headers });
    const tooLarge = await send(`${app.url}/api/v1/contacts`, 'POST', { headers: { ...headers, 'Content-Type': 'application/json' }, raw: JSON.stringify({ notes: 'x'.repeat(1024 * 1024 + 10) }) });
    const unauthenticated = await send(`${app.url}/api/v1/contacts`, 'GET', { headers: { Origin: LISTED } });
    const notFound = await send(`${app.url}/nowhere`, 'GET', { headers: { Origin: LISTED } });
    const graphql = await send(`${app.url}/graphql`, 'POST', { headers, body: { query: '{ contacts { total } }' } });
    const graphqlUnauthenticated = await send(`${app.url}/graphql`, 'POST', { headers: { Origin: LISTED }, body: { query: '{ contacts { total } }' } });
    const health = await send(`${app.url}/healthz`, 'GET', { headers: { Origin: LISTED } });
    const statuses = [ok, created, invalid, missing, tooLarge, unauthenticated, notFound, graphql, graphqlUnauthenticated, health].map((r) => r.status);
    expect(statuses).toEqual([200, 201, 422, 404, 413, 401, 404, 200, 401, 200]);
    for (const res of [ok, created, invalid, missing, tooLarge, unauthenticated, notFound, graphql, graphqlUnauthenticated, health]) {
      expect(corsOf(res)).toEqual(allowed(LISTED));
    }
    expect(ok.headers.get('x-ratelimit-remaining')).toBeTruthy();
  });

  it('gives a 429 the same headers, with Retry-After among the exposed ones', async () => {
    const limited = await startApp({ rateLimitPerMinute: 1, corsOrigins: [LISTED] });
    try {
      const client = await newClient(limited);
      const headers = { Origin: LISTED, 'X-Api-Key': client.key };
      expect((await send(`${limited.url}/api/v1/contacts`, 'GET', { headers })).status).toBe(200);
      const over = await send(`${limited.url}/api/v1/contacts`, 'GET', { headers });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(corsOf(over)).toEqual(allowed(LISTED));
      const graphql = await send(`${limited.url}/graphql`, 'POST', { headers, body: { query: '{ __typename }' } });
      expect(graphql.status).toBe(429);
      expect(corsOf(graphql)).toEqual(allowed(LISTED));
    } finally {
      await limited.close();
    }
  });

  it('gives an unlisted origin, or a request without Origin, only Vary: Origin', async () => {
    for (const headers of [{ Origin: UNLISTED, 'X-Api-Key': api.key }, { 'X-Api-Key': api.key }] as Record<string, string>[]) {
      const rest = await send(`${app.url}/api/v1/contacts`, 'GET', { headers });
      expect(rest.status).toBe(200);
      expect(corsOf(rest)).toEqual({ vary: 'Origin' });
      const graphql = await send(`${app.url}/graphql`, 'POST', { headers, body: { query: '{ __typename }' } });
      expect(graphql.status).toBe(200);
      expect(corsOf(graphql)).toEqual({ vary: 'Origin' });
    }
  });

  it('sends no CORS header at all without CORS_ORIGINS', async () => {
    const client = await newClient(plain);
    const replies = [
      await preflight(`${plain.url}/api/v1/contacts`, LISTED),
      await preflight(`${plain.url}/graphql`, LISTED),
      await send(`${plain.url}/api/v1/contacts`, 'GET', { headers: { Origin: LISTED, 'X-Api-Key': client.key } }),
      await send(`${plain.url}/api/v1/contacts`, 'GET', { headers: { Origin: LISTED } }),
      await send(`${plain.url}/graphql`, 'POST', { headers: { Origin: LISTED, 'X-Api-Key': client.key }, body: { query: '{ __typename }' } }),
      await send(`${plain.url}/healthz`, 'GET', { headers: { Origin: LISTED } }),
    ];
    expect(replies.map((r) => r.status)).toEqual([204, 204, 200, 401, 200, 200]);
    for (const res of replies) expect(corsOf(res)).toEqual({});
  });
});

describe('HEAD', () => {
  /** The headers a HEAD must share with its GET (those that change per request left out). */
  const stable = (res: Reply) => Object.fromEntries([...res.headers].filter(([name]) => !['date', 'x-request-id', 'x-ratelimit-remaining', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)));

  it("answers a REST GET route with the GET's status and headers and no body", async () => {
    await api.post('/contacts', { first_name: 'Head', email: `head-${Date.now()}@example.com` });
    const get = await api.request('GET', '/contacts');
    const head = await api.request('HEAD', '/contacts', { headers: { Origin: LISTED } });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(Number(head.headers.get('x-ratelimit-remaining'))).toBe(Number(get.headers.get('x-ratelimit-remaining')) - 1);
    expect(head.headers.get('x-request-id')).toBeTruthy();
    expect(stable(head)).toEqual({ ...stable(get), ...allowed(LISTED) });
    // Content-Length, when the GET's answer has none (chunked), the HEAD has none either: never a wrong one.
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));

    const one = await api.request('HEAD', `/contacts/${get.body.data[0].id}`);
    expect(one.status).toBe(200);
    expect(one.text).toBe('');
    expect((await api.request('HEAD', '/contacts/01HZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  });

  it('needs the key like GET', async () => {
    const res = await send(`${app.url}/api/v1/contacts`, 'HEAD');
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('never runs anything but the GET route', async () => {
    const before = await api.get('/products');
    // /products has GET and POST: HEAD is the list, never a creation.
    expect((await api.request('HEAD', '/products')).status).toBe(200);
    expect((await api.get('/products')).body.total).toBe(before.body.total);
    // /contacts/upsert has only PUT: HEAD reaches GET /contacts/{id} with the id "upsert".
    expect((await api.request('HEAD', '/contacts/upsert')).status).toBe(404);
    // A mutation in a GraphQL GET (which is what HEAD is) is refused.
    const mutation = await api.request('HEAD', `/graphql?query=${encodeURIComponent('mutation { __typename }')}`);
    expect(mutation.status).toBe(405);
  });

  it('answers /healthz, the GraphiQL page and GraphQL GETs', async () => {
    const health = await send(`${app.url}/healthz`, 'HEAD');
    expect(health.status).toBe(200);
    expect(health.text).toBe('');
    expect(health.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const page = { Accept: 'text/html' };
    const [getPage, headPage] = [await send(`${app.url}/graphql`, 'GET', { headers: page }), await send(`${app.url}/graphql`, 'HEAD', { headers: page })];
    expect(headPage.status).toBe(200);
    expect(headPage.text).toBe('');
    expect(headPage.headers.get('content-type')).toContain('text/html');
    expect(headPage.headers.get('content-length')).toBe(getPage.headers.get('content-length'));
    expect(Number(headPage.headers.get('content-length'))).toBe(Buffer.byteLength(getPage.text));

    const query = await api.request('HEAD', `/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(query.status).toBe(200);
    expect(query.text).toBe('');
    expect(query.headers.get('content-length')).toBe(String(Buffer.byteLength('{"data":{"__typename":"Query"}}')));
  });

  it('is listed in Allow wherever GET is', async () => {
    const products = await api.request('PATCH', '/products');
    expect(products.status).toBe(405);
    expect(products.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await api.request('POST', '/contacts/01HZZZZZZZZZZZZZZZZZZZZZZZ')).headers.get('allow')).toBe('GET, HEAD, PUT, DELETE');
    expect((await api.request('PATCH', '/contacts/upsert')).headers.get('allow')).toBe('PUT, GET, HEAD, DELETE');
    const health = await send(`${app.url}/healthz`, 'POST');
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('CORS_ORIGINS', () => {
  it('parses a comma-separated list of exact origins; none by default', () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '' }).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: ` ${LISTED} ,${ALSO_LISTED},,https://[::1]:8443,${LISTED}` }).CORS_ORIGINS).toEqual([LISTED, ALSO_LISTED, 'https://[::1]:8443']);
  });

  it('refuses at start-up anything that is not an origin, saying which entry and why', () => {
    for (const bad of ['*', 'null', 'localhost:5173', `${LISTED}/`, 'http://localhost:5173/app', 'HTTP://LOCALHOST:5173', 'http://localhost:80', 'https://*.example.com', 'ftp://files.example.com', 'http://user@localhost:5173']) {
      expect(() => loadConfig({ CORS_ORIGINS: `${ALSO_LISTED},${bad}` }), bad).toThrow(`Invalid configuration: CORS_ORIGINS: "${bad}" is not an origin: write scheme://host[:port]`);
    }
    expect(() => loadConfig({ CORS_ORIGINS: 'http://localhost:5173/' })).toThrow('e.g. http://localhost:5173');
  });
});
