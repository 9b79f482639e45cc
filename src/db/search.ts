/**
 * Case-insensitive substring search that behaves the same on SQLite and PostgreSQL.
 *
 * Searched text is kept in a lower-cased copy (`search`-style columns), and Prisma's
 * `contains` becomes `LIKE '%' || term || '%'` with no ESCAPE clause on SQLite, while
 * PostgreSQL treats `\` as LIKE's escape. So neither the stored copy nor the term may
 * hold LIKE's special characters: both map `%`, `_` and `\` to private-use characters,
 * and a term then matches itself literally, on both databases, in one indexed LIKE.
 */
const LIKE_SPECIAL: Record<string, string> = { '%': '\uE000', _: '\uE001', '\\': '\uE002' };
const encode = (text: string) => text.toLowerCase().replace(/[%_\\]/g, (c) => LIKE_SPECIAL[c]!);

/** The stored copy of a record's searchable parts. */
export const searchText = (...parts: (string | null | undefined)[]): string => encode(parts.filter(Boolean).join(' '));

/** The Prisma filter for a `search` parameter on such a column. */
export const matching = (term: string) => ({ contains: encode(term) });
