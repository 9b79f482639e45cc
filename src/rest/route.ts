/**
 * A REST route only declares: a method and path, a GraphQL document, and a success
 * status. The adapter fills the document's variables by convention:
 * - a path parameter `{id}` fills `$id`;
 * - the JSON body fills `$input` (snake_case keys become the input type's fields);
 * - `page` and `per_page` fill `$page` and `$perPage`; every other query parameter
 *   fills a field of `$filter`.
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
}

export const routes = (...list: RestRoute[]): RestRoute[] => list;
