import { isForeignKeyViolation, isRecordGone } from '../db/errors.js';
import { type FieldErrors, invalid, noFieldErrors } from '../graphql/errors.js';
import { Messages } from './messages.js';

interface IdDelegate {
  findMany(args: { where: { id: { in: string[] } }; select: { id: true } }): PromiseLike<{ id: string }[]>;
}

/**
 * Every id in a sent id array must exist in the caller's workspace (the scoped
 * client sees no other). Returns the field's error, or nothing.
 */
export async function unknownIds(delegate: IdDelegate, ids: readonly unknown[] | null | undefined, field: string): Promise<FieldErrors> {
  if (!Array.isArray(ids) || ids.length === 0) return {};
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
  const found = await delegate.findMany({ where: { id: { in: wanted } }, select: { id: true } });
  return found.length === wanted.length ? {} : { [field]: [Messages.unknownId(field)] };
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
