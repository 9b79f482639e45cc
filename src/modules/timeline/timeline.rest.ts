import { routes } from '../../rest/route.js';

const PAGE = '{ perPage nextCursor prevCursor data { kind id occurredAt summary record changes } }';

/** `GET /<records>/{id}/timeline` (API.md section 12): the record's, in the cursor envelope of section 8; an unknown record is 404. */
const timelineRoute = (path: 'contacts' | 'companies' | 'deals', field: 'contact' | 'company' | 'deal') => ({
  method: 'GET' as const,
  path: `/${path}/{id}/timeline` as const,
  parameters: { kinds: 'kinds' },
  operationId: `list${field[0]!.toUpperCase()}${field.slice(1)}Timeline`,
  // Items are {kind, id, occurred_at, summary, record} (API.md section 12); an update's item adds its `changes`.
  omitWhenNull: ['data.changes'],
  document: `query ($id: ID!, $perPage: Int, $cursor: String, $kinds: [String!]) { ${field}(id: $id) { timeline(first: $perPage, after: $cursor, kinds: $kinds) ${PAGE} } }`,
  unwrap: (data: Record<string, { timeline: unknown }>) => data[field]!.timeline,
});

export const timelineRoutes = routes(timelineRoute('contacts', 'contact'), timelineRoute('companies', 'company'), timelineRoute('deals', 'deal'));
