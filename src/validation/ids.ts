import { isForeignKeyViolation, isRecordGone } from '../db/errors.js';
import { invalid } from '../graphql/errors.js';
import { type FieldErrors, noFieldErrors } from './messages.js';
import { Messages } from './messages.js';

interface IdDelegate {
  findMany(args: { where: { id: { in: string[] } }; select: { id: true } }): PromiseLike<{ id: string }[]>;
}

/** A model delegate read by one column; its own type is Prisma's, far richer (method parameters are bivariant). */
interface LookupDelegate {
  findMany(args: never): PromiseLike<unknown[]>;
}

/** Values a batch looked up at once, by delegate and column: each value's row id, or null when no row has it. */
const preloaded = new WeakMap<object, Map<string, Map<string, string | null>>>();
/** Values per lookup statement: far below either database's bound on parameters. */
const LOOKUP_CHUNK = 1000;

/**
 * A batch write's lookups made once (src/graphql/batch.ts): every value of `column`
 * its items name, read in one query (per 1,000 values), so that each item's checks
 * (`unknownIds`, `preloadedRow`) answer from memory and a batch costs the queries of
 * one record. Kept by the delegate, the mutation's own transaction client's: it never
 * outlives the write (nor a run of it again after a lost race).
 */
export async function preload(delegate: LookupDelegate, values: Iterable<unknown>, column = 'id'): Promise<void> {
  const wanted = [...new Set([...values].filter((v): v is string => typeof v === 'string'))];
  let byColumn = preloaded.get(delegate);
  if (!byColumn) preloaded.set(delegate, (byColumn = new Map()));
  let known = byColumn.get(column);
  if (!known) byColumn.set(column, (known = new Map()));
  const findMany = delegate.findMany.bind(delegate) as (args: object) => PromiseLike<Record<string, string>[]>;
  for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
    const chunk = wanted.slice(start, start + LOOKUP_CHUNK);
    const rows = await findMany({ where: { [column]: { in: chunk } }, select: { id: true, [column]: true } });
    for (const value of chunk) known.set(value, null);
    for (const row of rows) known.set(row[column]!, row.id!);
  }
}

/** What `preload` found for `value` in `column`: its row's id, null for none, undefined when it was not looked up. */
export function preloadedRow(delegate: object, value: string, column = 'id'): string | null | undefined {
  return preloaded.get(delegate)?.get(column)?.get(value);
}

/**
 * Every id in a sent id array must exist in the caller's workspace (the scoped
 * client sees no other). Returns the field's error, or nothing. Ids a batch
 * preloaded are answered from memory.
 */
export async function unknownIds(delegate: IdDelegate, ids: readonly unknown[] | null | undefined, field: string): Promise<FieldErrors> {
  if (!Array.isArray(ids) || ids.length === 0) return {};
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
  const memo = wanted.map((id) => preloadedRow(delegate, id));
  const allFound = memo.includes(undefined)
    ? (await delegate.findMany({ where: { id: { in: wanted } }, select: { id: true } })).length === wanted.length
    : !memo.includes(null);
  return allFound ? {} : { [field]: [Messages.unknownId(field)] };
}

/** One id that must exist (a deal's owner, a ticket's status). */
export async function unknownId(delegate: IdDelegate, id: unknown, field: string): Promise<FieldErrors> {
  return typeof id === 'string' ? unknownIds(delegate, [id], field) : {};
}

/**
 * The Prisma write for a sent id array: link the ids to a new record (`connect`) or
 * make them the whole set (`set`); an absent array leaves the relation alone.
 */
export const linkIds = (ids: string[] | undefined, how: 'connect' | 'set') => (ids ? { [how]: ids.map((id) => ({ id })) } : undefined);

/**
 * Runs a write whose referenced ids `recheck` checked just before it. A referenced row
 * deleted in between fails the write (Prisma's P2025 on a connect or set, P2003 on a
 * foreign key); the same checks, run again, name the field, so the caller gets the 422
 * it would have got a moment later rather than a 404 about the record being written.
 */
export async function writeReferencing<T>(recheck: () => Promise<FieldErrors | FieldErrors[]>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isRecordGone(error) || isForeignKeyViolation(error)) {
      const errors = Object.assign(noFieldErrors(), ...[await recheck()].flat());
      if (Object.keys(errors).length > 0) throw invalid(errors);
    }
    throw error;
  }
}
