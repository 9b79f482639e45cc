/** A list route's result: both paginators' fields, as the list document selects them. */
export interface ListResult {
  /** Absent in a list that pages only by cursor. */
  current_page?: number | null;
  per_page: number;
  total?: number | null;
  last_page?: number | null;
  next_cursor: string | null;
  prev_cursor: string | null;
  data: unknown[];
}

/**
 * A list's REST answer: Laravel's length-aware paginator when walked by page, its
 * cursor paginator when the request has `cursor` (API.md section 8), whose page URLs
 * are the request's with only `cursor` changed.
 */
export function listEnvelope(result: ListResult, url: URL) {
  // A list that pages only by cursor (search) answers as the cursor paginator, from its first page.
  if (!url.searchParams.has('cursor') && result.current_page !== undefined) {
    const { current_page, per_page, total, last_page, data } = result;
    return { current_page, per_page, total, last_page, data };
  }
  const path = `${url.origin}${url.pathname}`;
  const pageUrl = (cursor: string | null) => {
    if (cursor === null) return null;
    const query = new URLSearchParams(url.searchParams);
    query.set('cursor', cursor);
    return `${path}?${query}`;
  };
  return {
    data: result.data,
    path,
    per_page: result.per_page,
    next_cursor: result.next_cursor,
    next_page_url: pageUrl(result.next_cursor),
    prev_cursor: result.prev_cursor,
    prev_page_url: pageUrl(result.prev_cursor),
  };
}
