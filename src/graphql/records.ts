import { isForeignKeyViolation } from '../db/errors.js';
import { invalid, notFound } from './errors.js';

/** A single-record read: the record, or NOT_FOUND (another workspace's id reads as unknown). */
export async function orNotFound<T>(record: PromiseLike<T | null>, resource: string): Promise<T> {
  const found = await record;
  if (found === null) throw notFound(resource);
  return found;
}

/**
 * `deleteThing(id)`: one scoped statement; no row deleted means NOT_FOUND, and a row
 * that other rows still refer to (a restricting foreign key) is BAD_USER_INPUT on `id`,
 * decided by the database in that same statement, so no check can race the delete.
 */
export async function deleteById(
  delegate: { deleteMany(args: { where: { id: string } }): PromiseLike<{ count: number }> },
  id: string,
  resource: string,
  inUse = `The ${resource.toLowerCase()} is in use by other records and cannot be deleted.`,
): Promise<string> {
  let count: number;
  try {
    ({ count } = await delegate.deleteMany({ where: { id } }));
  } catch (error) {
    if (isForeignKeyViolation(error)) throw invalid({ id: [inUse] });
    throw error;
  }
  if (count === 0) throw notFound(resource);
  return id;
}
