import { request as httpRequest } from 'node:http';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../src/auth/gate.js';
import { BoundedCache } from '../src/http/bounded-cache.js';
import { createGraphQL } from '../src/graphql/yoga.js';
import { schema } from './support/schema.js';
import { DOCUMENT_LIMITS } from '../src/graphql/document-limits.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

/** Sends a body in chunks with no Content-Length (Transfer-Encoding: chunked). */
function chunked(url: string, headers: Record<string, string>, chunks: number, chunkBytes: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(chunkBytes, ' ');
    req.write('{"query":"');
    for (let i = 0; i < chunks; i += 1) req.write(chunk);
    req.end('"}');
  });
}

describe('/graphql checks the key first', () => {
  it('answers 401 without schema information, before parsing anything', async () => {
    for (const headers of [{}, { 'X-Api-Key': `sg_${'x'.repeat(40)}` }] as Record<string, string>[]) {
      const res = await send(`${app.url}/graphql`, 'POST', { body: { query: '{ contactz { id } }' }, headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    const malformed = await send(`${app.url}/graphql`, 'POST', { raw: '{not json', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(401);
    const get = await send(`${app.url}/graphql?query=${encodeURIComponent('{ contactz }')}`, 'GET');
    expect([get.status, JSON.stringify(get.body)]).toEqual([401, JSON.stringify({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] })]);
  });

  it('keeps nothing in the parse cache for unauthenticated documents, and bounds it for authenticated ones', async () => {
    const graphql = createGraphQL(schema, createGate(app.database, 0));
    const post = (query: string, key?: string) =>
      graphql.handle(new Request('http://localhost/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json', ...(key ? { 'X-Api-Key': key } : {}) }, body: JSON.stringify({ query }) }), { requestId: 'test' });
    for (let i = 0; i < 50; i += 1) expect((await post(`{ a${i}: products { total } }`)).status).toBe(401);
    expect(graphql.documentCache.size).toBe(0);
    for (let i = 0; i < 5; i += 1) expect((await post(`{ a${i}: products { total } }`, api.key)).status).toBe(200);
    expect(graphql.documentCache.size).toBe(5);
  });

  it('still serves the GraphiQL page without a key: self-contained (no CDN), with the key header ready to fill', async () => {
    const res = await fetch(`${app.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<html/i);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|<script[^>]*\ssrc=["']https?:|<link[^>]*\shref=["']https?:/);
    expect(html).toContain('X-Api-Key');
  });

  it('answers 429 with one Retry-After', async () => {
    const limited = await startApp({ rateLimitPerMinute: 1 });
    try {
      const client = await newClient(limited);
      expect((await client.graphql('{ products { total } }')).status).toBe(200);
      const res = await client.graphql('{ products { total } }');
      expect(res.status).toBe(429);
      expect(res.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

describe('requests GraphQL cannot read', () => {
  /** Runs `fn` and returns the error lines written to stderr meanwhile. */
  async function stderrDuring(fn: () => Promise<void>): Promise<string[]> {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      await fn();
    } finally {
      process.stderr.write = write;
    }
    return lines;
  }

  it('answers a POST with malformed JSON with 400 BAD_REQUEST, whatever the client accepts', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json', '*/*']) {
      const res = await api.request('POST', '/graphql', { raw: '{bad', headers: { 'Content-Type': 'application/json', Accept: accept } });
      expect([accept, res.status, res.body]).toEqual([accept, 400, { errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] }]);
    }
  });

  // Found by `npm run fuzz`: `[null,null,null]` reached Yoga's batching, which read `.variables` of null (a logged 500).
  it('answers a batch with an item that is not an object with 400 BAD_REQUEST, and logs nothing', async () => {
    const logged = await stderrDuring(async () => {
      for (const raw of ['[null,null,null]', '[1]', '[{"query":"{ workspace { id } }"},[]]', '["x"]']) {
        const res = await api.request('POST', '/graphql', { raw, headers: { 'Content-Type': 'application/json' } });
        expect([raw, res.status, res.body]).toEqual([raw, 400, { errors: [{ message: 'Each request of a batch must be a JSON object.', extensions: { code: 'BAD_REQUEST' } }] }]);
      }
    });
    expect(logged).toEqual([]);
    // A well-formed batch still runs.
    const batch = await api.request('POST', '/graphql', { raw: '[{"query":"{ workspace { id } }"},{"query":"{ contacts { total } }"}]', headers: { 'Content-Type': 'application/json' } });
    expect([batch.status, batch.body.length]).toEqual([200, 2]);
  });

  it('answers a GET whose variables or extensions are not JSON with 400 BAD_REQUEST, and logs nothing', async () => {
    const query = encodeURIComponent('{ paymentLinks { total } }');
    const logged = await stderrDuring(async () => {
      for (const name of ['variables', 'extensions']) {
        for (const value of ['{bad', '[1,', 'undefined', '"unterminated']) {
          const res = await api.request('GET', `/graphql?query=${query}&${name}=${encodeURIComponent(value)}`);
          expect([name, value, res.status, res.body]).toEqual([name, value, 400, { errors: [{ message: `Expected "${name}" param to be empty or an object, but given invalid JSON.`, extensions: { code: 'BAD_REQUEST' } }] }]);
        }
        // Already refused by Yoga, with the same wording: a number is JSON but not an object.
        const number = await api.request('GET', `/graphql?query=${query}&${name}=5`);
        expect([number.status, number.body]).toEqual([400, { errors: [{ message: `Expected "${name}" param to be empty or an object, but given number.`, extensions: { code: 'BAD_REQUEST' } }] }]);
      }
      // HEAD is answered as the GET.
      const head = await api.request('HEAD', `/graphql?query=${query}&variables=%7Bbad`);
      expect(head.status).toBe(400);
      // Without a key: 401 before the parameters are looked at.
      const unauthenticated = await send(`${app.url}/graphql?query=${query}&variables=%7Bbad`, 'GET');
      expect([unauthenticated.status, unauthenticated.body]).toEqual([401, { errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] }]);
    });
    expect(logged).toEqual([]);
  });

  it('answers a form POST whose variables or extensions are not JSON the same way', async () => {
    const logged = await stderrDuring(async () => {
      for (const name of ['variables', 'extensions']) {
        const raw = new URLSearchParams({ query: '{ paymentLinks { total } }', [name]: '{bad' }).toString();
        const res = await api.request('POST', '/graphql', { raw, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
        expect([name, res.status, res.body]).toEqual([name, 400, { errors: [{ message: `Expected "${name}" param to be empty or an object, but given invalid JSON.`, extensions: { code: 'BAD_REQUEST' } }] }]);
      }
      const fine = new URLSearchParams({ query: 'query ($perPage: Int) { paymentLinks(perPage: $perPage) { total } }', variables: '{"perPage":5}' }).toString();
      const res = await api.request('POST', '/graphql', { raw: fine, headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' } });
      expect([res.status, res.body]).toEqual([200, { data: { paymentLinks: { total: 0 } } }]);
    });
    expect(logged).toEqual([]);
  });

  it('still runs a GET with JSON variables and extensions, or empty ones', async () => {
    const query = encodeURIComponent('query ($perPage: Int) { paymentLinks(perPage: $perPage) { total } }');
    for (const params of [`variables=${encodeURIComponent('{"perPage":5}')}&extensions=${encodeURIComponent('{}')}`, 'variables=&extensions=', 'variables=null']) {
      const res = await api.request('GET', `/graphql?query=${query}&${params}`);
      expect([params, res.status, res.body]).toEqual([params, 200, { data: { paymentLinks: { total: 0 } } }]);
    }
  });
});

describe('document limits, before parsing', () => {
  it('refuses a 10,000-level document without overflowing the parser', async () => {
    const deep = `{ ${'a { '.repeat(10_000)}b${' }'.repeat(10_000)} }`;
    const res = await api.graphql(deep);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors[0]).toMatchObject({ message: `The document is nested too deeply: at most ${DOCUMENT_LIMITS.nesting} levels.`, extensions: { code: 'QUERY_LIMIT_EXCEEDED' } });
    const list = await api.graphql(`{ products(filter: ${'['.repeat(5000)}${']'.repeat(5000)}) { total } }`);
    expect(list.body.errors[0].extensions.code).toBe('QUERY_LIMIT_EXCEEDED');
  });

  it('refuses too many tokens and too many bytes', async () => {
    const tokens = await api.graphql(`{ products { ${'total '.repeat(DOCUMENT_LIMITS.tokens)} } }`);
    expect(tokens.body.errors[0]).toMatchObject({ message: `The document has too many tokens: at most ${DOCUMENT_LIMITS.tokens}.`, extensions: { code: 'QUERY_LIMIT_EXCEEDED' } });
    const bytes = await api.graphql(`# ${'x'.repeat(DOCUMENT_LIMITS.bytes)}\n{ products { total } }`);
    expect(bytes.body.errors[0]).toMatchObject({ message: `The document is too large: at most ${DOCUMENT_LIMITS.bytes} bytes.`, extensions: { code: 'QUERY_LIMIT_EXCEEDED' } });
  });

  it('still parses the standard introspection-sized documents and reports syntax errors as before', async () => {
    const syntax = await api.graphql('{ products { total }');
    expect(syntax.body.errors[0].message).toMatch(/Syntax Error/);
    expect((await api.graphql('{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }')).body.data.__schema.types.length).toBeGreaterThan(10);
  });
});

describe('the 1 MiB body limit holds for chunked bodies', () => {
  it('on /graphql: 413 with a JSON body, nothing executed', async () => {
    const res = await chunked(`${app.url}/graphql`, { 'X-Api-Key': api.key }, 40, 64 * 1024);
    expect(res).toEqual({ status: 413, body: { errors: [{ message: 'Payload too large.', extensions: { code: 'QUERY_LIMIT_EXCEEDED' } }] } });
  });

  it('on REST: 413 with a JSON body instead of a reset connection', async () => {
    const res = await chunked(`${app.url}/api/v1/products`, { 'X-Api-Key': api.key }, 40, 64 * 1024);
    expect(res).toEqual({ status: 413, body: { message: 'Payload too large.' } });
    const small = await chunked(`${app.url}/graphql`, { 'X-Api-Key': api.key }, 1, 1024);
    expect(small.status).toBe(200);
  });
});

describe('BoundedCache', () => {
  it('keeps at most its entries and key characters, dropping the least recently used', () => {
    const cache = new BoundedCache<number>(3, 100);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.get('a');
    cache.set('d', 4);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([1, undefined, 3, 4]);
    cache.set('x'.repeat(11), 5); // over a tenth of the budget: not kept
    expect(cache.size).toBe(3);
    const small = new BoundedCache<number>(100, 20);
    for (let i = 10; i < 25; i += 1) small.set(String(i), i); // 2 characters each: 10 fit in 20
    expect(small.size).toBe(10);
    expect([small.get('14'), small.get('15')]).toEqual([undefined, 15]);
  });
});

describe('a POST /graphql body that is not UTF-8', () => {
  it('is 400 BAD_REQUEST and runs nothing', async () => {
    const own = await newClient(app);
    const body = Buffer.concat([Buffer.from('{"query":"mutation { createUser(input: { name: \\"a', 'utf8'), Buffer.from([0xff]), Buffer.from('\\", email: \\"u8@example.com\\" }) { id } }"}', 'utf8')]);
    const res = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'X-Api-Key': own.key, 'Content-Type': 'application/json' }, body });
    expect([res.status, await res.json()]).toEqual([400, { errors: [{ message: 'Malformed JSON body: it is not UTF-8.', extensions: { code: 'BAD_REQUEST' } }] }]);
    expect((await own.get('/users')).body.total).toBe(0);
  });
});

describe('errors masked inside Yoga', () => {
  const failing = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        boom: { type: GraphQLString, resolve: () => Promise.reject(new Error('secret internals')) },
        fine: { type: GraphQLString, resolve: () => 'fine' },
      },
    }),
  });

  /** Sends `body` through a Yoga over `failing`; the error lines written meanwhile, parsed. */
  async function sendCapturing(body: unknown, requestId: string) {
    const graphql = createGraphQL(failing, createGate(app.database, 0));
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const request = new Request('http://localhost/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Api-Key': api.key }, body: JSON.stringify(body) });
      const res = await graphql.handle(request, { requestId });
      expect(lines.join('')).not.toMatch(/\n\s+at /);
      return { body: await res.json(), logged: lines.map((line) => JSON.parse(line)) };
    } finally {
      process.stderr.write = write;
    }
  }

  it('are logged with the request id, as one line with no stack trace', async () => {
    const { body, logged } = await sendCapturing({ query: '{ boom }' }, 'req-masked-42');
    expect(body.errors).toEqual([{ message: 'Server error.', path: ['boom'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(logged).toEqual([expect.objectContaining({ level: 'error', request_id: 'req-masked-42', where: 'boom', error: 'Error', message: 'secret internals' })]);
  });

  it('are logged once each in a batch, with the batch request id', async () => {
    const { body, logged } = await sendCapturing([{ query: '{ boom }' }, { query: '{ fine }' }, { query: '{ b: boom }' }], 'req-batch-7');
    expect(body.map((r: any) => r.data)).toEqual([{ boom: null }, { fine: 'fine' }, { b: null }]);
    expect(logged.map((l) => [l.request_id, l.where])).toEqual([
      ['req-batch-7', 'boom'],
      ['req-batch-7', 'b'],
    ]);
  });
});
