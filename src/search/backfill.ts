import { type Db, providerOf } from '../db/client.js';
import { Prisma } from '../generated/sqlite/client.js';
import { systemContext } from '../graphql/context.js';
import type { Loop } from '../jobs/loops.js';
import type { Represent } from '../events/representation.js';
import { EVENT_RESOURCES } from '../events/resources.js';
import { SEARCH_TYPES, SEARCH_TYPE_NAMES } from './documents.js';
import { type RecordedEvent, indexMissing } from './index-writer.js';

/**
 * Records per transaction: each is read as its REST GET answers it, and on SQLite a
 * transaction holds the event loop and the write lock to its end, so a batch is a page of
 * work (a few milliseconds); the requests waiting go between two batches.
 */
export const BACKFILL_BATCH = 50;

/**
 * Indexes the searched records that have no entry: those written before the index
 * existed (an upgrade) and any a write could not index. Each batch runs in one
 * transaction that first locks its records (PostgreSQL: a write to one of them waits,
 * then brings the entry up to date itself; SQLite has one writer), reads each as its GET
 * answers it, and inserts only the entries still missing. Returns how many it indexed.
 */
export async function indexUnindexedRecords(prisma: Db, represent: Represent, stopping: () => boolean = () => false, batch = BACKFILL_BATCH): Promise<number> {
  let indexed = 0;
  for (const type of SEARCH_TYPE_NAMES) {
    const resource = SEARCH_TYPES[type];
    const table = Prisma.raw(`"${EVENT_RESOURCES[resource].model}"`);
    while (!stopping()) {
      const done = await prisma.$transaction(async (tx) => {
        const missing = await tx.$queryRaw<{ id: string; workspaceId: string; defaultCurrency: string }[]>`
          SELECT r."id", r."workspaceId", w."defaultCurrency" FROM ${table} r JOIN "Workspace" w ON w."id" = r."workspaceId"
           WHERE NOT EXISTS (SELECT 1 FROM "SearchEntry" e WHERE e."id" = r."id")
           ORDER BY r."id" LIMIT ${batch} ${providerOf(prisma) === 'postgresql' ? Prisma.sql`FOR SHARE OF r` : Prisma.empty}`;
        const events: RecordedEvent[] = [];
        for (const row of missing) {
          const context = systemContext(tx as unknown as Db, { id: row.workspaceId, defaultCurrency: row.defaultCurrency });
          const object = await represent(resource, row.id, context);
          if (object) events.push({ workspaceId: row.workspaceId, type: `${resource}.created`, resource, recordId: row.id, object });
        }
        await indexMissing(tx as unknown as Db, events);
        indexed += events.length;
        // A batch that found fewer, or could index none of them, is the last of this type.
        return missing.length < batch || events.length === 0;
      });
      if (done) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return indexed;
}

const DAY_MS = 86_400_000;

/** The backfill when a serving process starts (one statement a type when nothing is missing), then daily. */
export function searchBackfillLoop(prisma: Db, represent: Represent): Loop {
  return {
    name: 'search-backfill',
    async run(stopping) {
      await indexUnindexedRecords(prisma, represent, stopping);
      return DAY_MS;
    },
  };
}
