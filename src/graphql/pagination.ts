import type { ObjectRef } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { GRAPHQL_MAX_INT, type GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { fieldErrorsFrom } from '../validation/messages.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { invalid } from './errors.js';

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

export interface Page<T> {
  currentPage: number;
  perPage: number;
  total: number;
  lastPage: number;
  data: T[];
}

/** `ThingPage { currentPage perPage total lastPage data }`, Laravel's paginator in GraphQL. */
export function pageType(name: string, item: ObjectRef<any, any>) {
  return builder.objectRef<Page<unknown>>(`${name}Page`).implement({
    fields: (t) => ({
      currentPage: t.exposeInt('currentPage'),
      perPage: t.exposeInt('perPage'),
      total: t.exposeInt('total'),
      lastPage: t.exposeInt('lastPage'),
      data: t.field({ type: [item], resolve: (p) => p.data as never }),
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

/**
 * One page of a model: its total (the stored count for a `counted` list; else the
 * page itself when it ends the list, or `count`, by default a count of the rows that
 * match `where`) and one findMany whose include/select
 * is folded from the `data` selection, so relations load in a bounded number of queries.
 *
 * Past page 1 the page's ids are found first, from the list's index alone, and only
 * those rows are read with their relations: PostgreSQL's relation joins would otherwise
 * be computed for every row the OFFSET skips.
 */
export async function paginate<T = any>(
  delegate: Delegate,
  args: { page: number; perPage: number; where: unknown; orderBy: unknown; typeName: string; counted?: CountedList; count?: () => Promise<number> },
  ctx: Context,
  info: GraphQLResolveInfo,
): Promise<Page<T>> {
  const query = queryFromInfo({ context: ctx, info, typeName: args.typeName, path: ['data'] });
  const skip = (args.page - 1) * args.perPage;
  const rows = async () => {
    if (skip === 0) return delegate.findMany({ ...query, where: args.where, orderBy: args.orderBy, take: args.perPage });
    const ids = (await delegate.findMany({ select: { id: true }, where: args.where, orderBy: args.orderBy, skip, take: args.perPage })) as { id: string }[];
    if (ids.length === 0) return [];
    return delegate.findMany({ ...query, where: { id: { in: ids.map((r) => r.id) } }, orderBy: args.orderBy });
  };
  let total: number;
  let data: unknown[];
  if (args.counted) {
    [total, data] = await Promise.all([storedCounts(ctx, args.counted.list, [args.counted.bucket]), rows()]);
  } else {
    // A page that ends the list tells the total itself: count the rows only when it
    // does not (a full page, or past the end). Searches mostly find fewer than a page.
    data = await rows();
    const endsList = data.length < args.perPage && (data.length > 0 || skip === 0);
    total = endsList ? skip + data.length : args.count ? await args.count() : ((await delegate.count({ where: args.where })) as number);
  }
  return {
    currentPage: args.page,
    perPage: args.perPage,
    total,
    lastPage: Math.max(1, Math.ceil(total / args.perPage)),
    data: data as T[],
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
