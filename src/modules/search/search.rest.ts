import { routes } from '../../rest/route.js';

export const searchRoutes = routes({
  method: 'GET',
  path: '/search',
  // Any key may search; the types it cannot read are left out (the resolver decides).
  resource: '*',
  parameters: { q: 'q', types: 'types' },
  document: `query ($q: String!, $types: [String!], $perPage: Int, $cursor: String) {
    search(query: $q, types: $types, first: $perPage, after: $cursor) { perPage nextCursor prevCursor data { type id title subtitle record } }
  }`,
});
