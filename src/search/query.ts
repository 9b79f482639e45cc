import { type Db, providerOf } from '../db/client.js';
import { workspaceOf } from '../db/tenancy.js';
import { Prisma } from '../generated/sqlite/client.js';
import { type Cursor, decodeCursor, encodeCursor } from '../graphql/cursors.js';
import type { OrderKey } from '../graphql/sorting.js';
import { indexWord, workspaceWord, type SearchType } from './documents.js';

/** A match: its entry, and its rank's tier (0: a field is the query, 1: a field starts with it, 2: words inside a field). */
export interface SearchHit {
  id: string;
  type: SearchType;
  title: string;
  subtitle: string | null;
  /** The REST object as JSON text. */
  record: string;
  tier: number;
  createdAt: Date;
}

/** The rank: tier, then newer first, then id; a cursor carries these three. */
const KEYS: OrderKey[] = [
  { name: 'tier', field: 'tier', type: 'Int', nullable: false, desc: false, nullsFirst: false },
  { name: 'created_at', field: 'createdAt', type: 'DateTime', nullable: false, desc: true, nullsFirst: false },
  { name: 'id', field: 'id', type: 'String', nullable: false, desc: true, nullsFirst: false },
];

export interface SearchRequest {
  /** The query's words (`queryWords`), each matched as a prefix of a record's word; all must match. */
  words: string[];
  types: readonly SearchType[];
  perPage: number;
  /** '' or absent: the first page. */
  cursor?: string;
}

export interface SearchPage {
  data: SearchHit[];
  perPage: number;
  nextCursor: string | null;
  prevCursor: string | null;
}

/** A cursor belongs to one query: its words and types (in the order asked). */
const cursorScope = (request: SearchRequest) => `${request.words.join(' ')}|${request.types.join(',')}`;

/** The cursor, if it was made for this query; `null` when it is not one (a 422 for the caller). */
export function readCursor(request: SearchRequest): Cursor | null | undefined {
  if (!request.cursor) return undefined;
  return decodeCursor(request.cursor, 'search', KEYS, cursorScope(request)) ?? null;
}

/**
 * One page of matches in rank order, walked by cursor forwards or back (Laravel's cursor
 * paginator, API.md section 8): every word a prefix of a word of the record, found
 * through SQLite's FTS5 table or PostgreSQL's text-search index, in the workspace only.
 */
export async function searchPage(db: Db, request: SearchRequest, position: Cursor | undefined): Promise<SearchPage> {
  const phrase = request.words.join(' ');
  const tier = Prisma.sql`(CASE WHEN e."fields" LIKE ${`%\n${phrase}\n%`} THEN 0 WHEN e."fields" LIKE ${`%\n${phrase}%`} THEN 1 ELSE 2 END)`;
  const backwards = position?.forward === false;
  // Walking back: the rows before the position, in reverse, then turned around.
  const [later, earlier] = backwards ? ['<', '>'] : ['>', '<'];
  const order = backwards ? Prisma.sql`ORDER BY "tier" DESC, e."createdAt" ASC, e."id" ASC` : Prisma.sql`ORDER BY "tier", e."createdAt" DESC, e."id" DESC`;
  const conditions = [Prisma.sql`e."workspaceId" = ${workspaceOf(db)}`, Prisma.sql`e."type" IN (${Prisma.join(request.types)})`];
  if (position) {
    const [t, createdAt, id] = position.values as [number, Date, string];
    conditions.push(
      Prisma.sql`(${tier} ${Prisma.raw(later)} ${t} OR (${tier} = ${t} AND (e."createdAt" ${Prisma.raw(earlier)} ${createdAt} OR (e."createdAt" = ${createdAt} AND e."id" ${Prisma.raw(earlier)} ${id}))))`,
    );
  }
  const columns = Prisma.sql`e."id", e."type", e."title", e."subtitle", e."record", e."createdAt", ${tier} AS "tier"`;
  const words = [workspaceWord(workspaceOf(db)), ...request.words.map(indexWord)];
  const rows =
    providerOf(db) === 'sqlite'
      ? await db.$queryRaw<SearchHit[]>`
          SELECT ${columns} FROM "SearchEntry_fts" f JOIN "SearchEntry" e ON e."rowid" = f."rowid"
           WHERE "SearchEntry_fts" MATCH ${words.map((w, i) => (i === 0 ? `"${w}"` : `"${w}"*`)).join(' ')} AND ${Prisma.join(conditions, ' AND ')}
           ${order} LIMIT ${request.perPage + 1}`
      : await db.$queryRaw<SearchHit[]>`
          SELECT ${columns} FROM "SearchEntry" e
           WHERE to_tsvector('simple', e."words") @@ to_tsquery('simple', ${words.map((w, i) => (i === 0 ? w : `${w}:*`)).join(' & ')}) AND ${Prisma.join(conditions, ' AND ')}
           ${order} LIMIT ${request.perPage + 1}`;
  const more = rows.length > request.perPage;
  const data = rows.slice(0, request.perPage).map((r) => ({ ...r, tier: Number(r.tier), createdAt: new Date(r.createdAt) }));
  if (backwards) data.reverse();
  const scope = cursorScope(request);
  const cursorAt = (hit: SearchHit | undefined, forward: boolean) => (hit ? encodeCursor('search', scope, forward, KEYS, hit as unknown as Record<string, unknown>) : null);
  return {
    data,
    perPage: request.perPage,
    nextCursor: backwards || more ? cursorAt(data.at(-1), true) : null,
    prevCursor: position !== undefined && (!backwards || more) ? cursorAt(data[0], false) : null,
  };
}
