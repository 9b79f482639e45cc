import { routes } from '../../rest/route.js';

const PAGE = '{ perPage nextCursor prevCursor data { reason ids } }';

/** `GET /contacts/duplicates` and `GET /companies/duplicates` (API.md section 12): literal segments win over `/{id}`. */
export const duplicateRoutes = routes(
  { method: 'GET', path: '/contacts/duplicates', document: `query ($perPage: Int, $cursor: String) { contactDuplicates(first: $perPage, after: $cursor) ${PAGE} }` },
  { method: 'GET', path: '/companies/duplicates', document: `query ($perPage: Int, $cursor: String) { companyDuplicates(first: $perPage, after: $cursor) ${PAGE} }` },
);
