import type { ObjectRef } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { GRAPHQL_MAX_INT, type GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { fieldErrorsFrom } from '../validation/messages.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { invalid } from './errors.js';
import { decodeCursor, encodeCursor } from './cursors.js';
import { type ListSpec, type OrderKey, SortError, after, orderByOf, parseSort, reversed, sortText } from './sorting.js';

export const MAX_PER_PAGE = 100;

/**
 * `page` and `per_page` rules, merged into every list's argument schema. A page number
 * goes up to GraphQL Int's maximum (2147483647), the most the `page` argument carries;
 * REST's query coercion words a larger one with these rules (src/rest/coerce.ts).
 */
export const pageRules = {
  page: z.number().int().min(1).max(GRAPHQL_MAX_INT).default(1),
  perPage: z.number().int().min(1).max(MAX_PER_PAGE).default(15),
};

/**
 * The rules of every list's arguments (API.md sections 2 and 8), merged into each
 * list's argument schema. `page` has no default here: a list must know whether it was
 * sent, since `page` and `cursor` exclude each other.
 */
export const listRules = {
  page: pageRules.page.removeDefault().optional(),
  perPage: pageRules.perPage,
  sort: z.string().max(500).optional(),
  cursor: z.string().max(2000).optional(),
  updatedSince: z.date().optional(),
  createdSince: z.date().optional(),
};

export type ListArgs = { page?: number; perPage: number; sort?: string; cursor?: string; updatedSince?: Date; createdSince?: Date };

/** A list field's arguments: `page`, `perPage`, `sort`, `cursor`, and `updatedSince`/`createdSince` where the records have them. */
export function listArgs(t: { arg: { int(o: object): any; string(o: object): any; (o: { type: 'DateTime'; description: string }): any } }, spec: ListSpec) {
  return {
    page: t.arg.int({ description: 'The page, from 1 (not with `cursor`).' }),
    perPage: t.arg.int({ description: `Items per page, 1..${MAX_PER_PAGE} (default 15).` }),
    sort: t.arg.string({ description: `Comma-separated fields, \`-\` for descending: ${[...spec.fields.keys()].join(', ')}. Ties by id; nulls last.` }),
    cursor: t.arg.string({ description: 'Walk by cursor instead of pages: empty to start, then a `nextCursor` or `prevCursor`.' }),
    ...(spec.since.updated ? { updatedSince: t.arg({ type: 'DateTime', description: 'Only records updated at or after this time.' }) } : {}),
    ...(spec.since.created ? { createdSince: t.arg({ type: 'DateTime', description: 'Only records created at or after this time.' }) } : {}),
  };
}

/** A list field's arguments as its rules read them (GraphQL's nulls are "not sent"). */
export const listInput = (args: Record<string, unknown>) => ({
  page: args.page ?? undefined,
  perPage: args.perPage ?? undefined,
  sort: args.sort ?? undefined,
  cursor: args.cursor ?? undefined,
  updatedSince: args.updatedSince ?? undefined,
  createdSince: args.createdSince ?? undefined,
});

/**
 * A page of a list: Laravel's length-aware paginator (`currentPage`, `total`,
 * `lastPage`) when walked by page, its cursor paginator (`nextCursor`, `prevCursor`)
 * when walked by cursor; the other mode's fields are null.
 */
export interface Page<T> {
  currentPage: number | null;
  perPage: number;
  total: number | null;
  lastPage: number | null;
  nextCursor: string | null;
  prevCursor: string | null;
  data: T[];
}

/** `ThingPage { currentPage perPage total lastPage nextCursor prevCursor data }`. */
export function pageType(name: string, item: ObjectRef<any, any>) {
  return builder.objectRef<Page<unknown>>(`${name}Page`).implement({
    fields: (t) => ({
      currentPage: t.exposeInt('currentPage', { nullable: true, description: 'Null when walking by cursor.' }),
      perPage: t.exposeInt('perPage'),
      total: t.exposeInt('total', { nullable: true, description: 'Null when walking by cursor.' }),
      lastPage: t.exposeInt('lastPage', { nullable: true, description: 'Null when walking by cursor.' }),
      nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'The cursor of the next items; null at the end or when walking by page.' }),
      prevCursor: t.exposeString('prevCursor', { nullable: true, description: 'The cursor of the previous items; null at the start or when walking by page.' }),
      data: t.field({ type: [item], resolve: (p) => p.data as never }),
    }),
  });
}

/** A page walked by cursor only (`after`): search, a timeline, duplicates. */
export interface CursorPage<T> {
  data: T[];
  perPage: number;
  nextCursor: string | null;
  prevCursor: string | null;
}

/** `ThingPage { data perPage nextCursor prevCursor }`, for a list walked by cursor only. */
export function cursorPageType<T>(name: string, item: ObjectRef<any, T>) {
  return builder.objectRef<CursorPage<T>>(`${name}Page`).implement({
    fields: (t) => ({
      data: t.field({ type: [item], resolve: (p) => p.data as never }),
      perPage: t.exposeInt('perPage'),
      nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'The cursor of the next items (`after`); null after the last.' }),
      prevCursor: t.exposeString('prevCursor', { nullable: true, description: 'The cursor of the items before (`after` too); null on the first page.' }),
    }),
  });
}

// Any model's delegate on the scoped client; the where/orderBy are the caller's to type.
interface Delegate {
  count(args: any): PromiseLike<unknown>;
  findMany(args: any): PromiseLike<unknown[]>;
}

/**
 * A list whose size the database keeps (the ListCount table, exact through triggers):
 * the whole list is bucket "", a counted filter is its own bucket.
 */
export interface CountedList {
  list: 'Contact' | 'Deal' | 'PaymentTransaction';
  bucket: string;
}

/** The rows of one list's buckets added up (buckets that do not overlap), in one statement. */
export async function storedCounts(ctx: Context, list: CountedList['list'], buckets: string[]): Promise<number> {
  if (buckets.length === 0) return 0;
  const { _sum } = await ctx.db.listCount.aggregate({ where: { list, bucket: { in: buckets } }, _sum: { rows: true } });
  return _sum.rows ?? 0;
}

/** The order `sort` asks for (the list's own without it), or 422 on `sort`. */
function orderOf(spec: ListSpec, sort: string | undefined): OrderKey[] {
  try {
    return parseSort(spec, sort ?? spec.defaultSort);
  } catch (error) {
    if (error instanceof SortError) throw invalid({ sort: [error.message] });
    throw error;
  }
}

/** Whether a folded query reads relations (an `include`, or a `select` of anything but columns). */
const loadsRelations = (query: { include?: unknown; select?: Record<string, unknown> }): boolean =>
  (query.include !== undefined && Object.keys(query.include as object).length > 0) || Object.values(query.select ?? {}).some((v) => v !== true);

/**
 * One page of a list, by page or by cursor. `where` is the list's filters; `counted`
 * and `count` say how to total the unfiltered-by-time list (a stored count, a cheaper
 * count); `updatedSince`/`createdSince` fall back to counting the rows.
 *
 * By page: the total (the stored count for a `counted` list; else the page itself when
 * it ends the list, or a count) and one findMany whose include/select is folded from
 * the `data` selection, so relations load in a bounded number of queries. Past page 1,
 * when the page reads relations, the page's ids are found first, from the list's index
 * alone, and only those rows are read with their relations: PostgreSQL's relation joins
 * would otherwise be computed for every row the OFFSET skips. A page of columns alone is
 * one statement.
 */
export async function paginate<T = any>(
  delegate: Delegate,
  spec: ListSpec,
  args: ListArgs & { where: unknown; counted?: CountedList; count?: () => Promise<number> },
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<Page<T>> {
  const keys = orderOf(spec, args.sort);
  const since = {
    ...(args.updatedSince ? { updatedAt: { gte: args.updatedSince } } : {}),
    ...(args.createdSince ? { createdAt: { gte: args.createdSince } } : {}),
  };
  const timed = Object.keys(since).length > 0;
  const where = timed ? { AND: [args.where, since] } : args.where;
  if (args.cursor !== undefined) {
    if (args.page !== undefined) throw invalid({ cursor: ['The cursor field prohibits page from being present.'] });
    return cursorPage(delegate, spec, keys, { cursor: args.cursor, perPage: ctx.exportPageSize ?? args.perPage, where }, ctx, info);
  }
  const page = args.page ?? 1;
  const { perPage } = args;
  const orderBy = orderByOf(keys);
  const query = queryFromInfo({ context: ctx, info, typeName: spec.objectName, path: ['data'] });
  const skip = (page - 1) * perPage;
  const rows = async () => {
    if (skip === 0 || !loadsRelations(query)) return delegate.findMany({ ...query, where, orderBy, skip, take: perPage });
    const ids = (await delegate.findMany({ select: { id: true }, where, orderBy, skip, take: perPage })) as { id: string }[];
    if (ids.length === 0) return [];
    return delegate.findMany({ ...query, where: { id: { in: ids.map((r) => r.id) } }, orderBy });
  };
  let total: number;
  let data: unknown[];
  if (args.counted && !timed) {
    [total, data] = await Promise.all([storedCounts(ctx, args.counted.list, [args.counted.bucket]), rows()]);
  } else {
    // A page that ends the list tells the total itself: count the rows only when it
    // does not (a full page, or past the end). Searches mostly find fewer than a page.
    data = await rows();
    const endsList = data.length < perPage && (data.length > 0 || skip === 0);
    const count = () => (args.count && !timed ? args.count() : (delegate.count({ where }) as Promise<number>));
    total = endsList ? skip + data.length : await count();
  }
  return { currentPage: page, perPage, total, lastPage: Math.max(1, Math.ceil(total / perPage)), nextCursor: null, prevCursor: null, data: data as T[] };
}

/**
 * One page walked by cursor (keyset pagination): the rows after (or, for a
 * `prevCursor`, before) the cursor's position in the list's order, found from the
 * order's index at any depth. One row more than the page tells whether more follow.
 */
async function cursorPage(
  delegate: Delegate,
  spec: ListSpec,
  keys: OrderKey[],
  args: { cursor: string; perPage: number; where: unknown },
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<Page<never>> {
  const sort = sortText(keys);
  const position = args.cursor === '' ? undefined : decodeCursor(args.cursor, spec.name, keys, sort);
  if (args.cursor !== '' && !position) throw invalid({ cursor: ['The cursor is invalid: it was not given by this list with this sort.'] });
  const backwards = position?.forward === false;
  const walk = backwards ? reversed(keys) : keys;
  const query = queryFromInfo({ context: ctx, info, typeName: spec.objectName, path: ['data'] }) as { select?: Record<string, unknown> };
  // A cursor is made of the keys' values: a narrowed selection must still read them.
  if (query.select) for (const k of keys) query.select[k.field] = true;
  const where = position ? { AND: [args.where, after(walk, position.values)] } : args.where;
  const rows = (await delegate.findMany({ ...query, where, orderBy: orderByOf(walk), take: args.perPage + 1 })) as Record<string, unknown>[];
  const more = rows.length > args.perPage;
  const data = rows.slice(0, args.perPage);
  if (backwards) data.reverse();
  const cursorAt = (row: Record<string, unknown> | undefined, forward: boolean) => (row ? encodeCursor(spec.name, sort, forward, keys, row) : null);
  // Laravel's rules: no next after the last rows going forward, no previous before the first going back or at the start.
  const hasNext = backwards || more;
  const hasPrev = position !== undefined && (!backwards || more);
  return {
    currentPage: null,
    perPage: args.perPage,
    total: null,
    lastPage: null,
    nextCursor: hasNext ? cursorAt(data.at(-1), true) : null,
    prevCursor: hasPrev ? cursorAt(data[0], false) : null,
    data: data as never[],
  };
}

/** Relation lists (`company.contacts`, `transaction.events`...) read at most 100 per page, and 25 unless asked otherwise. */
export const RELATION_PAGE_SIZE = 25;

// The top-level rules, with the relation's own default page size.
const RelationPageArgs = z.object({ ...pageRules, perPage: pageRules.perPage.removeDefault().default(RELATION_PAGE_SIZE) });

/**
 * A list relation's `page`/`perPage` arguments and the Prisma query they make, for
 * `t.relation(name, pagedRelation(t, orderBy))`: the page folds into the parent's
 * query like any include, so a page of parents still loads each relation in one query.
 */
export function pagedRelation<Order>(t: { arg: { int(options: { description: string }): any } }, orderBy: Order) {
  return {
    args: {
      page: t.arg.int({ description: 'The page of this list, from 1.' }),
      perPage: t.arg.int({ description: `Items per page, 1..${MAX_PER_PAGE} (default ${RELATION_PAGE_SIZE}).` }),
    },
    query: (args: { page?: unknown; perPage?: unknown }) => {
      const parsed = RelationPageArgs.safeParse({ page: args.page ?? undefined, perPage: args.perPage ?? undefined }, { reportInput: true });
      if (!parsed.success) throw invalid(fieldErrorsFrom(parsed.error.issues));
      const { page, perPage } = parsed.data;
      return { orderBy, take: perPage, skip: (page - 1) * perPage };
    },
  };
}
