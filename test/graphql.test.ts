import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSchema } from '../src/graphql/schema.js';
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
    expect(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema());
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
