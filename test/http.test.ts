import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

describe('the front door', () => {
  it('answers GET / with where everything is, without a key; HEAD too; other methods 405', async () => {
    const res = await send(`${app.url}/`, 'GET');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    expect(res.body).toEqual({
      name: 'Salesgraph',
      rest: '/api/v1',
      docs: '/docs',
      openapi: '/api/v1/openapi.json',
      graphql: '/graphql',
      health: '/healthz',
      authentication: 'Send your API key in the X-Api-Key header (npm run --silent cli -- keys create --workspace <name> --json makes one).',
    });
    for (const path of [res.body.docs, res.body.openapi, res.body.health]) expect({ path, status: (await send(`${app.url}${path}`, 'GET')).status }).toEqual({ path, status: 200 });
    expect((await send(`${app.url}/`, 'HEAD')).status).toBe(200);
    const post = await send(`${app.url}/`, 'POST', { body: {} });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});

describe('common REST rules', () => {
  it('answers 401 without, with an unknown, or with a revoked key', async () => {
    for (const headers of [{}, { 'X-Api-Key': `sg_${'x'.repeat(40)}` }, { 'X-Api-Key': 'nonsense' }] as Record<string, string>[]) {
      const res = await send(`${app.url}/api/v1/products`, 'GET', { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers.get('www-authenticate')).toBe('ApiKey header="X-Api-Key"');
    }
    // A key sent the way other APIs take it: the same answer, saying where it goes.
    const bearer = await send(`${app.url}/api/v1/products`, 'GET', { headers: { Authorization: `Bearer ${api.key}` } });
    expect([bearer.status, bearer.body, bearer.headers.get('www-authenticate')]).toEqual([401, { message: 'Unauthenticated.' }, 'ApiKey header="X-Api-Key"']);
    const graphql = await send(`${app.url}/graphql`, 'POST', { body: { query: '{ products { total } }' } });
    expect([graphql.status, graphql.headers.get('www-authenticate')]).toEqual([401, 'ApiKey header="X-Api-Key"']);
    const other = await newClient(app);
    await app.database.prisma.apiKey.updateMany({ where: { workspaceId: other.workspaceId }, data: { revokedAt: new Date() } });
    expect((await other.get('/products')).status).toBe(401);
  });

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    expect(await api.get('/nothing-here')).toMatchObject({ status: 404, body: { message: 'Not found.' } });
    expect((await send(`${app.url}/elsewhere`, 'GET')).status).toBe(404);
    const res = await api.request('PATCH', '/products');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body).toHaveProperty('message');
    const del = await api.request('DELETE', '/contacts/upsert');
    // /contacts/{id} also fits: DELETE looks for a contact whose id is "upsert".
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ message: 'Contact not found.' });
  });

  it('refuses a body that is not UTF-8 as malformed, and stores nothing', async () => {
    const api = await newClient(app);
    const bytes = (text: string, bad: number[]) => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(bad), Buffer.from('","email":"bytes@example.com"}', 'utf8')]);
    for (const body of [bytes('{"first_name":"a', [0xff]), bytes('{"first_name":"a', [0xed, 0xa0, 0x80]), bytes('{"first_name":"a', [0xc3])]) {
      const res = await fetch(`${app.url}/api/v1/contacts`, { method: 'POST', headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json' }, body });
      expect([res.status, await res.json()]).toEqual([400, { message: 'Malformed JSON body.' }]);
    }
    // A byte-order mark is not content, and well-formed UTF-8 is fine.
    const ok = await fetch(`${app.url}/api/v1/contacts`, { method: 'POST', headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json' }, body: Buffer.from('\ufeff{"first_name":"Zoë","email":"bytes@example.com"}', 'utf8') });
    expect([ok.status, (await ok.json()).first_name]).toEqual([201, 'Zoë']);
    expect((await api.get('/contacts?email=bytes@example.com')).body.total).toBe(1);
  });

  it('refuses bodies that are not JSON objects', async () => {
    const wrongType = await api.request('POST', '/products', { raw: '{"name":"x"}', headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType).toMatchObject({ status: 415 });
    expect(wrongType.body).toHaveProperty('message');
    const malformed = await api.request('POST', '/products', { raw: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { message: 'Malformed JSON body.' } });
    const array = await api.request('POST', '/products', { raw: '[1,2]', headers: { 'Content-Type': 'application/json' } });
    expect(array.status).toBe(422);
    expect(array.body.errors).toEqual({ body: ['The body must be a JSON object.'] });
    const huge = await api.request('POST', '/products', { raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }), headers: { 'Content-Type': 'application/json' } });
    expect(huge.status).toBe(413);
    expect(huge.body).toHaveProperty('message');
  });

  it('checks a body sent to a route that takes none (activate, deactivate, DELETE), then ignores it', async () => {
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'Body rules', payment_provider_account_id: account.id })).body;
    const coupon = (await api.post('/payment-coupons', { code: 'BODYRULES', type: 'amount', value: 5, payment_link_id: link.id })).body;
    expect([link.is_active, coupon.code]).toEqual([false, 'BODYRULES']);
    const refusals = [
      { raw: 'hello', headers: { 'Content-Type': 'text/plain' }, status: 415, body: { message: 'Unsupported media type: send Content-Type: application/json.' } },
      { raw: '{not json', headers: { 'Content-Type': 'application/json' }, status: 400, body: { message: 'Malformed JSON body.' } },
      { raw: JSON.stringify({ pad: 'x'.repeat(1.1 * 1024 * 1024) }), headers: { 'Content-Type': 'application/json' }, status: 413, body: { message: 'Payload too large.' } },
    ];
    for (const { raw, headers, status, body } of refusals) {
      for (const [method, path] of [['POST', `/payment-links/${link.id}/activate`], ['POST', `/payment-links/${link.id}/deactivate`], ['DELETE', `/payment-coupons/${coupon.id}`]]) {
        const res = await api.request(method!, path!, { raw, headers });
        expect([method, path, res.status, res.body]).toEqual([method, path, status, body]);
      }
    }
    // Nothing ran: the link is still inactive, the coupon still there.
    expect((await api.get(`/payment-links/${link.id}`)).body.is_active).toBe(false);
    expect((await api.get(`/payment-coupons/${coupon.id}`)).status).toBe(200);
    // Without the key, 401 before any body work.
    const unauthenticated = await send(`${app.url}/api/v1/payment-links/${link.id}/activate`, 'POST', { raw: '{not json', headers: { 'Content-Type': 'application/json' } });
    expect([unauthenticated.status, unauthenticated.body]).toEqual([401, { message: 'Unauthenticated.' }]);
    // A JSON body is read and ignored; no body, or an empty one, works as before.
    const on = await api.request('POST', `/payment-links/${link.id}/activate`, { raw: '{"is_active":false,"name":"ignored"}', headers: { 'Content-Type': 'application/json' } });
    expect([on.status, on.body]).toEqual([200, { ...link, is_active: true }]);
    const off = await api.request('POST', `/payment-links/${link.id}/deactivate`);
    expect([off.status, off.body]).toEqual([200, link]);
    const emptyBody = await api.request('POST', `/payment-links/${link.id}/activate`, { raw: '', headers: { 'Content-Type': 'text/plain' } });
    expect([emptyBody.status, emptyBody.body.is_active]).toEqual([200, true]);
    const deleted = await api.request('DELETE', `/payment-coupons/${coupon.id}`, { raw: '{"force":true}', headers: { 'Content-Type': 'application/json' } });
    expect([deleted.status, deleted.body]).toEqual([204, null]);
    expect((await api.get(`/payment-coupons/${coupon.id}`)).status).toBe(404);
    const again = (await api.post('/payment-coupons', { code: 'BODYRULES2', type: 'amount', value: 5, payment_link_id: link.id })).body;
    expect([(await api.delete(`/payment-coupons/${again.id}`)).status, (await api.get(`/payment-coupons/${again.id}`)).status]).toEqual([204, 404]);
  });

  it('turns huge strings and hostile values into 422, never 5xx', async () => {
    const res = await api.post('/products', { name: 'x'.repeat(100_000), type: { $ne: 1 }, price: 1e308, currency: ['USD'], unit: null });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['currency', 'name', 'price', 'type', 'unit']);
  });

  it('echoes a request id or makes one', async () => {
    const echoed = await api.request('GET', '/products', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await api.get('/products');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await send(`${app.url}/nope`, 'GET')).headers.get('x-request-id')).toBeTruthy();
  });

  it('echoes any printable ASCII request id of 1..200 characters, and replaces any other', async () => {
    const idOf = async (id: string) => (await api.request('GET', '/products', { headers: { 'X-Request-Id': id } })).headers.get('x-request-id');
    for (const id of ['trace 42/abc=', 'a', '~!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ x', 'x'.repeat(200)]) expect([id, await idOf(id)]).toEqual([id, id]);
    // Longer, with a tab, or with a byte beyond ASCII: a fresh UUID instead.
    for (const id of ['x'.repeat(201), 'a\tb', 'caf\u00e9']) {
      const made = await idOf(id);
      expect([id, made]).toEqual([id, expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)]);
    }
    // Errors carry the echoed id too.
    const refused = await send(`${app.url}/api/v1/products`, 'GET', { headers: { 'X-Request-Id': 'trace 42/abc=' } });
    expect([refused.status, refused.headers.get('x-request-id')]).toEqual([401, 'trace 42/abc=']);
  });

  it('answers requests Node refuses before any handler (malformed, headers too large, too slow) with JSON, a fresh request id and Connection: close', async () => {
    /** One raw request on its own connection; the server's whole answer, split up. */
    async function raw(request: string, url = app.url) {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      socket.on('error', () => {}); // the server may close before reading all of an oversized request
      await once(socket, 'connect');
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.write(request);
      await once(socket, 'close');
      const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { statusLine, headers, body: JSON.parse(body) };
    }
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const cases = [
      { request: 'NOT HTTP AT ALL\r\n\r\n', statusLine: 'HTTP/1.1 400 Bad Request', message: 'Bad request.' },
      { request: 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\n\r\n', statusLine: 'HTTP/1.1 200 OK', message: undefined },
      { request: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(20_000)}\r\n\r\n`, statusLine: 'HTTP/1.1 431 Request Header Fields Too Large', message: 'Request headers too large.' },
    ];
    const ids = new Set<string>();
    for (const { request, statusLine, message } of cases) {
      const res = await raw(request.replace('HTTP/1.1\r\nHost: x\r\n', 'HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'));
      if (message === undefined) {
        // The control: a well-formed request on the same kind of connection.
        expect([res.statusLine, res.headers['x-request-id'], res.body]).toEqual([statusLine, 'mine', { status: 'ok' }]);
        continue;
      }
      expect([res.statusLine, res.body]).toEqual([statusLine, { message }]);
      expect(res.headers).toMatchObject({ 'x-request-id': expect.stringMatching(uuid), connection: 'close', 'content-type': 'application/json; charset=utf-8' });
      ids.add(res.headers['x-request-id']!);
    }
    // Headers that never end: 408 once the (here 1 s) timeout passes.
    const slow = await startApp({ server: { REQUEST_TIMEOUT_SECONDS: 1, HEADERS_TIMEOUT_SECONDS: 1 } });
    try {
      const res = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\n', slow.url);
      expect([res.statusLine, res.body]).toEqual(['HTTP/1.1 408 Request Timeout', { message: 'Request timeout.' }]);
      expect(res.headers).toMatchObject({ 'x-request-id': expect.stringMatching(uuid), connection: 'close', 'content-type': 'application/json; charset=utf-8' });
      ids.add(res.headers['x-request-id']!);
    } finally {
      await slow.close();
    }
    expect(ids.size).toBe(3);
  });

  it('answers a page or per_page beyond GraphQL Int with the rule it breaks, not "must be an integer"', async () => {
    const api = await newClient(app);
    const errorsOf = async (query: string) => {
      const res = await api.get(`/contacts?${query}`);
      return [query, res.status, res.body];
    };
    const refused = (errors: Record<string, string[]>) => [422, { message: 'The given data was invalid.', errors }];
    const pageMax = { page: ['The page field must not be greater than 2147483647.'] };
    const perPageMax = { per_page: ['The per page field must not be greater than 100.'] };
    const cases: [string, unknown[]][] = [
      ['page=2147483648', refused(pageMax)],
      ['page=99999999999999999999999999999999999999', refused(pageMax)],
      ['page=-2147483649', refused({ page: ['The page field must be at least 1.'] })],
      ['per_page=2147483648', refused(perPageMax)],
      ['per_page=99999999999999999999999999999999999999', refused(perPageMax)],
      ['per_page=101', refused(perPageMax)],
      ['page=2147483648&per_page=2147483648', refused({ ...pageMax, ...perPageMax })],
      ['page=1.5', refused({ page: ['The page field must be an integer.'] })],
      ['page=abc&per_page=', refused({ page: ['The page field must be an integer.'], per_page: ['The per page field must be an integer.'] })],
      ['page=2147483647', [200, { current_page: 2147483647, per_page: 15, total: 0, last_page: 1, data: [] }]],
    ];
    for (const [query, expected] of cases) expect(await errorsOf(query)).toEqual([query, ...expected]);
  });

  it('serves /healthz without a key', async () => {
    const res = await send(`${app.url}/healthz`, 'GET');
    expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});

describe('rate limiting', () => {
  it('counts per key, sets headers, and answers 429 with Retry-After', async () => {
    const limited = await startApp({ rateLimitPerMinute: 3 });
    try {
      const a = await newClient(limited);
      const b = await newClient(limited);
      const first = await a.get('/products');
      expect(first.headers.get('x-ratelimit-limit')).toBe('3');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
      await a.get('/products');
      await a.get('/products');
      const over = await a.get('/products');
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      const gql = await a.graphql('{ products { total } }');
      expect(gql.status).toBe(429);
      expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect((await b.get('/products')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
