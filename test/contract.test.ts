import { describe, expect, it } from 'vitest';
import { schema } from './support/schema.js';
import { restRoutes } from '../src/modules/index.js';
import { compileDocument } from '../src/rest/documents.js';

// Checks that hold for every route of the table, so a new resource gets them for free.
// The rest of every route's contract is derived from the same table elsewhere: hostile
// bodies, paths, queries and headers in test/fuzz.test.ts (never a 5xx, a refusal changes
// nothing), another workspace's ids in test/tenancy.test.ts, the OpenAPI document and its
// examples in test/openapi.test.ts, the scopes in test/scopes.test.ts.

describe('every route', () => {
  // The adapter compiles a route's document on its first request: a broken one is caught here, not at start.
  it('has a GraphQL document that is valid against the schema, with exactly one operation', () => {
    const broken = restRoutes.flatMap((r) => {
      try {
        compileDocument(schema, r.document, `${r.method} ${r.path}`);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });
    expect(broken).toEqual([]);
  });
});
