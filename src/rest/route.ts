import type { Context } from '../graphql/context.js';
import type { ListSpec } from '../graphql/sorting.js';

/**
 * A REST route only declares: a method and path, a GraphQL document, and a success
 * status. The adapter fills the document's variables by convention:
 * - a path parameter `{id}` fills `$id`;
 * - the JSON body fills `$input` (snake_case keys become the input type's fields);
 * - the list parameters (`page`, `per_page`, `sort`, `cursor`, `updated_since`,
 *   `created_since`) and those the route names in `parameters` fill their variables;
 *   every other query parameter fills a field of `$filter`.
 * The response body is the operation's only top-level field, unless `unwrap` says
 * otherwise; field names are the GraphQL ones in snake_case (aliases are added).
 */
export interface RestRoute<Data = any> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: `/${string}`;
  document: string;
  /** Default: 201 for POST, 204 for DELETE, else 200. */
  status?: number | ((data: Data) => number);
  unwrap?: (data: Data) => unknown;
  /**
   * Response keys (dotted from the body: `next_action.pix`) left out when null: a field the
   * contract shows only for some records (a test account's `webhook_secret`, a Pix code).
   */
  omitWhenNull?: readonly string[];
  /** The resource its scope names, when the path's first segment is not one (`/reports/pipeline` reads `deals`); `*`: any key may call it. */
  resource?: string;
  /** Query parameters that fill variables of their own, not `$filter` (`q` fills `$q`). */
  parameters?: Record<string, string>;
  /**
   * Server-Sent Events: the document is a subscription that checks the request and opens
   * the stream; each event its source yields is written by `message` (the whole SSE
   * message, which must say what the document's result would), once per event whatever
   * the number of streams: the live tail hands the same event to every subscriber of the
   * process, and running the document for each one costs far more.
   */
  stream?: { message: (event: any) => string };
  /** A CSV export (API.md section 8): the list document is walked by cursor and streamed as CSV. */
  csv?: CsvExport;
  /** The OpenAPI operationId, when the top-level field's does not name the route (a record's timeline reads `contact`). */
  operationId?: string;
}

export interface CsvExport {
  /** The keys of the custom properties, a `properties.<key>` column each, in order. */
  propertyKeys?: (ctx: Context) => Promise<string[]>;
}

export const routes = (...list: RestRoute[]): RestRoute[] => list;

/** `POST /<records>/{id}/merge` (API.md section 12): `{"source_ids": [...]}` folded into the record, answered as its GET answers it (`fragment`). */
export function mergeRoute(path: string, mutation: string, fragment: string): RestRoute {
  const name = /fragment (\w+)/.exec(fragment)![1]!;
  return { method: 'POST', path: `/${path}/{id}/merge`, document: `mutation ($id: ID!, $input: MergeInput!) { ${mutation}(id: $id, input: $input) { ...${name} } } ${fragment}`, status: 200 };
}

/** `POST /<records>/{id}/restore` (API.md section 12): the record back from the trash, as its GET answers it (`fragment`). */
export function restoreRoute(path: string, mutation: string, fragment: string): RestRoute {
  const name = /fragment (\w+)/.exec(fragment)![1]!;
  return { method: 'POST', path: `/${path}/{id}/restore`, document: `mutation ($id: ID!) { ${mutation}(id: $id) { ...${name} } } ${fragment}`, status: 200 };
}

/**
 * The document of a list route (`GET /contacts`): the list field with every list
 * argument its spec has (API.md sections 2 and 8), the list's `filter` type if any,
 * both paginators' fields, and `selection` for each item (fragments follow it).
 * `params` binds path parameters (`$id: ID!` → `endpointId: $id`).
 */
export function listDocument(spec: ListSpec, field: string, filterType: string | null, selection: string, params: Record<string, string> = {}): string {
  const variables = ['$page: Int', '$perPage: Int', '$sort: String', '$cursor: String'];
  const args = ['page: $page', 'perPage: $perPage', 'sort: $sort', 'cursor: $cursor'];
  if (spec.since.updated) variables.push('$updatedSince: DateTime'), args.push('updatedSince: $updatedSince');
  if (spec.since.created) variables.push('$createdSince: DateTime'), args.push('createdSince: $createdSince');
  if (filterType) variables.push(`$filter: ${filterType}`), args.push('filter: $filter');
  for (const [name, argument] of Object.entries(params)) variables.unshift(`$${name}: ID!`), args.unshift(`${argument}: $${name}`);
  return `query (${variables.join(', ')}) {
    ${field}(${args.join(', ')}) { currentPage perPage total lastPage nextCursor prevCursor data { ${selection} } }
  }`;
}

/**
 * `GET /{list}/export`: the list document (its filters and sort) with `selection`
 * (the list's fields and the id arrays a create accepts), answered as CSV.
 */
export function exportRoute(spec: ListSpec, field: string, filterType: string | null, selection: string, fragments: string, csv: CsvExport = {}): RestRoute {
  return { method: 'GET', path: `/${spec.name}/export`, document: `${listDocument(spec, field, filterType, selection)} ${fragments}`, csv };
}
