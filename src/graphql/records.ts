import { notFound } from './errors.js';

/** A single-record read: the record, or NOT_FOUND (another workspace's id reads as unknown). */
export async function orNotFound<T>(record: PromiseLike<T | null>, resource: string): Promise<T> {
  const found = await record;
  if (found === null) throw notFound(resource);
  return found;
}

/** `deleteThing(id)`: one scoped statement; no row deleted means NOT_FOUND. */
export async function deleteById(delegate: { deleteMany(args: { where: { id: string } }): PromiseLike<{ count: number }> }, id: string, resource: string): Promise<string> {
  const { count } = await delegate.deleteMany({ where: { id } });
  if (count === 0) throw notFound(resource);
  return id;
}
