import { readFileSync } from 'node:fs';
import { buildClientSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
});
afterAll(() => app.close());

describe('introspection', () => {
  it('answers the standard introspection query with a key, and tools rebuild schema.graphql from it', async () => {
    const res = await api.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const rebuilt = `${printSchema(lexicographicSortSchema(buildClientSchema(res.body.data)))}\n`;
    expect(rebuilt).toBe(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
  });

  it('has its own bound: lists may nest 3 deep inside __schema or __type, so fields { type { fields ... } } cannot multiply without end', async () => {
    const hostile = await api.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
    expect(hostile.body.errors[0]).toMatchObject({ message: 'Introspection nests too many lists: at most 3.', extensions: { code: 'QUERY_LIMIT_EXCEEDED' } });
    const ok = await api.graphql('{ __type(name: "Contact") { fields { name type { name ofType { name } } } } }');
    expect(ok.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain('companies');
    const hidden = await api.graphql('query { __schema { ...T } } fragment T on __Schema { types { fields { type { fields { type { interfaces { name } } } } } } }');
    expect(hidden.body.errors[0].extensions.code).toBe('QUERY_LIMIT_EXCEEDED');
  });

  it('is 401 without a key, like everything else', async () => {
    const res = await send(`${app.url}/graphql`, 'POST', { body: { query: getIntrospectionQuery() } });
    expect([res.status, res.body.errors[0].extensions.code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
