import { type Db, providerOf } from '../db/client.js';
import { workspaceOf } from '../db/tenancy.js';
import { Prisma } from '../generated/sqlite/client.js';
import { type Cursor, decodeCursor, encodeCursor } from '../graphql/cursors.js';
import type { OrderKey } from '../graphql/sorting.js';
import { type SearchType, headWord, indexWord, wholeWord, workspaceWord } from './documents.js';

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
  /** SQLite: the entry's rowid, the order of the index (see `KEYS`). */
  rank?: number;
}

type Provider = 'sqlite' | 'postgresql';
type Tier = 0 | 1 | 2;
const TIERS: readonly Tier[] = [0, 1, 2];

const key = (name: string, field: string, type: OrderKey['type']): OrderKey => ({ name, field, type, nullable: false, desc: true, nullsFirst: false });
/**
 * The rank: tier, then newer first. Within a tier each database walks its index newest
 * first and stops at the page's end, never ranking every match: SQLite's full-text table
 * in rowid order (the order entries were written: a record's entry is written with it),
 * PostgreSQL's entries by creation time and id. A cursor carries the tier and that key.
 */
const KEYS: Record<Provider, OrderKey[]> = {
  sqlite: [key('tier', 'tier', 'Int'), key('rank', 'rank', 'Int')],
  postgresql: [key('tier', 'tier', 'Int'), key('created_at', 'createdAt', 'DateTime'), key('id', 'id', 'String')],
};

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
export function readCursor(request: SearchRequest, provider: Provider): Cursor | null | undefined {
  if (!request.cursor) return undefined;
  return decodeCursor(request.cursor, 'search', KEYS[provider], cursorScope(request)) ?? null;
}

/** A word of a full-text query: a token of the index, whole or as a prefix, required or excluded. */
interface Term {
  token: string;
  prefix?: boolean;
  not?: boolean;
}

/** The terms every match has: the workspace's token, and each word as a prefix. */
const baseTerms = (words: string[], workspaceId: string): Term[] => [{ token: workspaceWord(workspaceId) }, ...words.map((w) => ({ token: indexWord(w), prefix: true }))];

/** Whether one of an entry's fields (a line of `e."fields"`) is the query's words (tier 0), or starts with them (tier 1). */
function fieldTests(words: string[]): { exact: Prisma.Sql; start: Prisma.Sql } {
  const phrase = words.join(' ');
  return { exact: Prisma.sql`e."fields" LIKE ${`%\n${phrase}\n%`}`, start: Prisma.sql`e."fields" LIKE ${`%\n${phrase}%`}` };
}

/**
 * One tier's matches: full-text terms (the tokens of documents.ts name a field's first
 * word and a one-word field, so a one-word query's tiers are the index's own), and for a
 * query of several words the field test that tells its tiers apart among the matches.
 */
function tierQuery(words: string[], workspaceId: string, tier: Tier): { terms: Term[]; fields?: Prisma.Sql } {
  const base = baseTerms(words, workspaceId);
  const [first] = words as [string];
  if (words.length === 1) {
    if (tier === 0) return { terms: [...base, { token: wholeWord(first) }] };
    if (tier === 1) return { terms: [...base, { token: headWord(first), prefix: true }, { token: wholeWord(first), not: true }] };
    return { terms: [...base, { token: headWord(first), prefix: true, not: true }] };
  }
  const { exact, start } = fieldTests(words);
  // A field starting with the phrase starts with its first word, whole.
  const head = { token: headWord(first) };
  if (tier === 0) return { terms: [...base, head], fields: exact };
  if (tier === 1) return { terms: [...base, head], fields: Prisma.sql`${start} AND NOT ${exact}` };
  return { terms: base, fields: Prisma.sql`NOT ${start}` };
}

/** The terms as FTS5 writes them (an exclusion last: `a b NOT c`) and as PostgreSQL's `to_tsquery` does. */
const fts5 = (terms: Term[]) =>
  [...terms.filter((t) => !t.not), ...terms.filter((t) => t.not)].map((t) => `${t.not ? 'NOT ' : ''}"${t.token}"${t.prefix ? '*' : ''}`).join(' ');
const tsquery = (terms: Term[]) => terms.map((t) => `${t.not ? '!' : ''}${t.token}${t.prefix ? ':*' : ''}`).join(' & ');

/**
 * One page of matches in rank order, walked by cursor forwards or back (Laravel's cursor
 * paginator, API.md section 8): every word a prefix of a word of the record, found
 * through SQLite's FTS5 table or PostgreSQL's text-search index, in the workspace only.
 * The tiers are read one after the other, each from the cursor's position on, until the
 * page is full, each stopping at the page's end (on PostgreSQL two statements a tier at most).
 */
export async function searchPage(db: Db, request: SearchRequest, position: Cursor | undefined): Promise<SearchPage> {
  const provider = providerOf(db);
  const workspaceId = workspaceOf(db);
  const backwards = position?.forward === false;
  const wanted = request.perPage + 1;
  const startTier = (position?.values[0] as Tier | undefined) ?? (backwards ? 2 : 0);
  const tiers = backwards ? TIERS.filter((t) => t <= startTier).reverse() : TIERS.filter((t) => t >= startTier);
  const rows: SearchHit[] = [];
  // PostgreSQL, a query with a word its statistics do not find common: its matches are few,
  // so they are gathered once and ranked in one statement.
  const few = provider === 'postgresql' ? await fewMatches(db, workspaceId, request) : undefined;
  if (few) rows.push(...(await readRanked(db, workspaceId, request, few, wanted, position)));
  else {
    for (const tier of tiers) {
      const after = position && tier === startTier ? position.values.slice(1) : undefined;
      const found = await readTier(db, provider, workspaceId, request, tier, wanted - rows.length, backwards, after);
      rows.push(...found.map((r) => ({ ...r, tier, createdAt: new Date(r.createdAt), ...(r.rank !== undefined && { rank: Number(r.rank) }) })));
      if (rows.length >= wanted) break;
    }
  }
  const more = rows.length > request.perPage;
  const data = rows.slice(0, request.perPage);
  if (backwards) data.reverse();
  const scope = cursorScope(request);
  const cursorAt = (hit: SearchHit | undefined, forward: boolean) => (hit ? encodeCursor('search', scope, forward, KEYS[provider], hit as unknown as Record<string, unknown>) : null);
  return {
    data,
    perPage: request.perPage,
    nextCursor: backwards || more ? cursorAt(data.at(-1), true) : null,
    prevCursor: position !== undefined && (!backwards || more) ? cursorAt(data[0], false) : null,
  };
}

/** Up to `limit` matches of one tier, newest first (oldest first walking back), past `after` (the cursor's key within the tier). */
async function readTier(db: Db, provider: Provider, workspaceId: string, request: SearchRequest, tier: Tier, limit: number, backwards: boolean, after: unknown[] | undefined) {
  const { terms, fields } = tierQuery(request.words, workspaceId, tier);
  const direction = backwards ? Prisma.raw('ASC') : Prisma.raw('DESC');
  const conditions = [Prisma.sql`e."workspaceId" = ${workspaceId}`, Prisma.sql`e."type" IN (${Prisma.join(request.types)})`];
  if (fields) conditions.push(fields);
  const columns = Prisma.sql`e."id", e."type", e."title", e."subtitle", e."record", e."createdAt"`;
  if (provider === 'sqlite') {
    if (after) conditions.push(Prisma.sql`f."rowid" ${backwards ? Prisma.raw('>') : Prisma.raw('<')} ${after[0] as number}`);
    return db.$queryRaw<(Omit<SearchHit, 'tier'> & { rank: number | bigint })[]>`
      SELECT ${columns}, f."rowid" AS "rank" FROM "SearchEntry_fts" f JOIN "SearchEntry" e ON e."rowid" = f."rowid"
       WHERE "SearchEntry_fts" MATCH ${fts5(terms)} AND ${Prisma.join(conditions, ' AND ')}
       ORDER BY f."rowid" ${direction} LIMIT ${limit}`;
  }
  const order = Prisma.sql`ORDER BY e."createdAt" ${direction}, e."id" ${direction}`;
  const pastOp = backwards ? Prisma.raw('>') : Prisma.raw('<');
  const past = (at: unknown[]) => Prisma.sql`(e."createdAt", e."id") ${pastOp} (${at[0] as Date}, ${at[1] as string})`;
  const { indexed, rare } = indexedTerms(terms, await commonLexemes(db));
  // A tier's matches through the text-search index, past `from`: the index is asked for the
  // workspace and the rare terms only, every other term checked on the rows it gives
  // (`ts_match_vq`, the same test that no index serves), since a prefix's matches are
  // gathered whole before any other term narrows them (`example` and `com` read a million
  // for one e-mail). The matches are gathered first, by that index alone, and then filtered
  // and ordered: beside it in one statement, the btrees on the workspace, its types or its
  // newest entries could be chosen too (a million entries a deal search read from
  // (workspace, type)), or, with ORDER BY and LIMIT, a walk through the newest testing each.
  const gathered = (from: unknown[] | undefined, n: number) => db.$queryRaw<Omit<SearchHit, 'tier'>[]>`
    WITH m AS MATERIALIZED (
      SELECT * FROM "SearchEntry" e
       WHERE to_tsvector('simple', e."words") @@ to_tsquery('simple', ${tsquery(indexed)})
         ${indexed.length < terms.length ? Prisma.sql`AND ts_match_vq(to_tsvector('simple', e."words"), to_tsquery('simple', ${tsquery(terms)}))` : Prisma.empty})
    SELECT ${columns} FROM m e WHERE ${Prisma.join(conditions, ' AND ')} ${from ? Prisma.sql`AND ${past(from)}` : Prisma.empty} ${order} LIMIT ${n}`;
  if (rare) return gathered(after, limit);
  // Every term common: the tier's matches are likely dense among the newest entries, so the
  // newest WINDOW entries past the position come from the btree and are tested one by one,
  // and only a page still short asks the index, past the window's last entry.
  const match = Prisma.sql`to_tsvector('simple', e."words") @@ to_tsquery('simple', ${tsquery(terms)})`;
  const windowed = await db.$queryRaw<(Omit<SearchHit, 'tier'> & { edge: boolean })[]>`
    WITH w AS MATERIALIZED (SELECT * FROM "SearchEntry" e WHERE e."workspaceId" = ${workspaceId} ${after ? Prisma.sql`AND ${past(after)}` : Prisma.empty} ${order} LIMIT ${WINDOW})
    (SELECT ${columns}, false AS "edge" FROM w e WHERE ${match} AND ${Prisma.join(conditions, ' AND ')} ${order} LIMIT ${limit})
    UNION ALL
    (SELECT ${columns}, true FROM w e ${order} LIMIT 1 OFFSET ${WINDOW - 1})`;
  const found = windowed.filter((r) => !r.edge);
  const edge = windowed.find((r) => r.edge);
  if (found.length >= limit || !edge) return found;
  return [...found, ...(await gathered([new Date(edge.createdAt), edge.id], limit - found.length))];
}

/** The query's terms as PostgreSQL's index is to be asked for them, when one of them is rare; else undefined. */
async function fewMatches(db: Db, workspaceId: string, request: SearchRequest): Promise<Term[] | undefined> {
  const { indexed, rare } = indexedTerms(baseTerms(request.words, workspaceId), await commonLexemes(db));
  return rare ? indexed : undefined;
}

/**
 * PostgreSQL: a page of matches gathered through the index's rare terms (`indexed`), every
 * word checked on the rows, each ranked by its fields (the tiers of documents.ts, by the
 * field text), past the cursor's position, in rank order (reversed walking back).
 */
async function readRanked(db: Db, workspaceId: string, request: SearchRequest, indexed: Term[], limit: number, position: Cursor | undefined): Promise<SearchHit[]> {
  const all = baseTerms(request.words, workspaceId);
  const { exact, start } = fieldTests(request.words);
  const tier = Prisma.sql`(CASE WHEN ${exact} THEN 0 WHEN ${start} THEN 1 ELSE 2 END)`;
  const backwards = position?.forward === false;
  const [up, down] = backwards ? [Prisma.raw('DESC'), Prisma.raw('ASC')] : [Prisma.raw('ASC'), Prisma.raw('DESC')];
  let past = Prisma.empty;
  if (position) {
    const [t, createdAt, id] = position.values as [number, Date, string];
    const [later, earlier] = backwards ? [Prisma.raw('<'), Prisma.raw('>')] : [Prisma.raw('>'), Prisma.raw('<')];
    past = Prisma.sql`AND (r."tier" ${later} ${t} OR (r."tier" = ${t} AND (r."createdAt", r."id") ${earlier} (${createdAt}, ${id})))`;
  }
  const rows = await db.$queryRaw<(Omit<SearchHit, 'tier'> & { tier: number | bigint })[]>`
    WITH m AS MATERIALIZED (
      SELECT * FROM "SearchEntry" e
       WHERE to_tsvector('simple', e."words") @@ to_tsquery('simple', ${tsquery(indexed)})
         AND ts_match_vq(to_tsvector('simple', e."words"), to_tsquery('simple', ${tsquery(all)})))
    SELECT r.* FROM (
      SELECT e."id", e."type", e."title", e."subtitle", e."record", e."createdAt", ${tier} AS "tier" FROM m e
       WHERE e."workspaceId" = ${workspaceId} AND e."type" IN (${Prisma.join(request.types)})) r
     WHERE TRUE ${past}
     ORDER BY r."tier" ${up}, r."createdAt" ${down}, r."id" ${down} LIMIT ${limit}`;
  return rows.map((r) => ({ ...r, tier: Number(r.tier), createdAt: new Date(r.createdAt) }));
}

/** A term is common when PostgreSQL's statistics give it (a prefix: the lexemes it starts) at least this share of the entries. */
const COMMON = 0.02;

/**
 * The terms PostgreSQL's index is asked for: the workspace's token, and the terms that are
 * not common (`rare`); when every term is common, all of them (the index then intersects them).
 */
function indexedTerms(terms: Term[], common: ReadonlyMap<string, number>): { indexed: Term[]; rare: boolean } {
  const share = (t: Term) => (t.prefix ? [...common].reduce((sum, [lexeme, f]) => sum + (lexeme.startsWith(t.token) ? f : 0), 0) : (common.get(t.token) ?? 0));
  const [workspace, ...positive] = terms.filter((t) => !t.not);
  const rare = positive.filter((t) => share(t) < COMMON);
  return { indexed: [workspace!, ...(rare.length > 0 ? rare : positive)], rare: rare.length > 0 };
}

/** How long the statistics read by `commonLexemes` are kept. */
const STATISTICS_MS = 60_000;
/** By database client: the workspace's client is a view over it (src/db/tenancy.ts). */
const statistics = new WeakMap<object, { read: number; lexemes: Promise<Map<string, number>> }>();

/**
 * The index's most common lexemes and the share of entries holding each, as ANALYZE last
 * counted them (pg_stats of the text-search index's expression), read at most once a
 * minute; none before the first ANALYZE. Only the choice of plan depends on them.
 */
function commonLexemes(db: Db): Promise<Map<string, number>> {
  const client = (Object.getPrototypeOf(db) as object | null) ?? db;
  let known = statistics.get(client);
  if (!known || Date.now() - known.read > STATISTICS_MS) {
    const lexemes = db.$queryRaw<{ elems: string[] | null; freqs: number[] | null }[]>`
      SELECT most_common_elems::text::text[] AS "elems", most_common_elem_freqs AS "freqs" FROM pg_stats WHERE tablename = 'SearchEntry_words_fts_idx'`.then(
      ([row]) => new Map((row?.elems ?? []).map((lexeme, i) => [lexeme, Number(row!.freqs![i])])),
    );
    statistics.set(client, (known = { read: Date.now(), lexemes }));
    lexemes.catch(() => statistics.delete(client));
  }
  return known.lexemes;
}

/** PostgreSQL: the newest entries a tier reads from the btree before it asks the text-search index. */
const WINDOW = 400;
