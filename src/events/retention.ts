import type { Db } from '../db/client.js';
import { firstIdAt } from '../db/ids.js';
import type { Loop } from '../jobs/loops.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rows per DELETE: each statement stays short, so writers never queue behind the purge. */
export const PURGE_BATCH = 500;

interface Purgeable {
  findMany(args: { where: object; select: { id: true }; orderBy: { createdAt: 'asc' } | { id: 'asc' }; take: number }): Promise<{ id: string }[]>;
  deleteMany(args: { where: { id: { in: string[] } } }): Promise<{ count: number }>;
}

/** Deletes the rows `where` selects, `batch` at a time (one read of their ids, oldest first, one DELETE each), stopping between batches when asked. */
async function purgeInBatches(delegate: Purgeable, where: object, orderBy: { createdAt: 'asc' } | { id: 'asc' }, stopping: () => boolean, batch: number): Promise<number> {
  let deleted = 0;
  while (!stopping()) {
    const rows = await delegate.findMany({ where, select: { id: true }, orderBy, take: batch });
    if (rows.length === 0) break;
    deleted += (await delegate.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } })).count;
    if (rows.length < batch) break;
  }
  return deleted;
}

/**
 * Deletes events older than `before`, and finished webhook deliveries as old (a pending
 * one keeps its own copy of its event and is kept until it ends), never in one long
 * statement. A delivery's age is its id's (a ULID: the table keeps no index on
 * createdAt, one page fewer for every queued delivery to write). Returns how many
 * events it deleted.
 */
export async function purgeEvents(prisma: Db, before: Date, stopping: () => boolean = () => false, batch = PURGE_BATCH): Promise<number> {
  const events = await purgeInBatches(prisma.event as unknown as Purgeable, { createdAt: { lt: before } }, { createdAt: 'asc' }, stopping, batch);
  await purgeInBatches(prisma.webhookDelivery as unknown as Purgeable, { id: { lt: firstIdAt(before) }, status: { not: 'pending' } }, { id: 'asc' }, stopping, batch);
  return events;
}

/** EVENT_RETENTION_DAYS: the purge, once an hour (and at start). */
export function eventRetentionLoop(prisma: Db, retentionDays: number): Loop {
  return {
    name: 'event-retention',
    async run(stopping) {
      await purgeEvents(prisma, new Date(Date.now() - retentionDays * DAY_MS), stopping);
      return HOUR_MS;
    },
  };
}
