import type { Db } from '../db/client.js';
import type { Loop } from '../jobs/loops.js';

const DAY_MS = 86_400_000;
/** Rows per DELETE: each statement stays short, so writers never queue behind the purge. */
export const PURGE_BATCH = 500;
const HOUR_MS = 3_600_000;

/**
 * Deletes events older than `before`, in batches of `batch` rows (one read of their ids,
 * one DELETE each), never in one long statement; stops between batches when asked.
 * Returns how many it deleted.
 */
export async function purgeEvents(prisma: Db, before: Date, stopping: () => boolean = () => false, batch = PURGE_BATCH): Promise<number> {
  let deleted = 0;
  while (!stopping()) {
    const rows = await prisma.event.findMany({ where: { createdAt: { lt: before } }, select: { id: true }, orderBy: { createdAt: 'asc' }, take: batch });
    if (rows.length === 0) break;
    deleted += (await prisma.event.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } })).count;
    if (rows.length < batch) break;
  }
  return deleted;
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
