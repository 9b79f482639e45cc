import type { Loop } from '../jobs/loops.js';
import type { Database } from './client.js';

/** Counter rows a statement folds: each statement stays short. */
export const COMPACT_BATCH = 5_000;
const MINUTE_MS = 60_000;

/**
 * PostgreSQL keeps a list's count in one row per writing connection (the slot is its
 * backend pid, see models.prisma), so connections that come and go leave rows behind.
 * This folds them into slot 0, `batch` rows a statement, skipping the rows an open
 * transaction holds (they are folded next time); a count, the sum over the slots, is the
 * same before and after each statement. Returns how many slot rows it folded.
 */
export async function compactListCounts(database: Database, stopping: () => boolean = () => false, batch = COMPACT_BATCH): Promise<number> {
  if (database.target.provider !== 'postgresql') return 0;
  let folded = 0;
  while (!stopping()) {
    const [result] = await database.background.$queryRaw<[{ moved: bigint | number }]>`
      WITH moved AS (
        DELETE FROM "ListCount" WHERE ("workspaceId", "list", "bucket", "slot") IN (
          SELECT "workspaceId", "list", "bucket", "slot" FROM "ListCount" WHERE "slot" <> 0 LIMIT ${batch} FOR UPDATE SKIP LOCKED)
        RETURNING "workspaceId", "list", "bucket", "rows"),
      folded AS (
        INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "slot", "rows")
        SELECT "workspaceId", "list", "bucket", 0, sum("rows") FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "ListCount"."rows" + EXCLUDED."rows")
      SELECT count(*) AS moved FROM moved`;
    const moved = Number(result.moved);
    folded += moved;
    if (moved < batch) break;
  }
  return folded;
}

/** The fold, once a minute in every serving process (a no-op on SQLite). */
export function listCountCompactionLoop(database: Database): Loop {
  return {
    name: 'list-count-compaction',
    async run(stopping) {
      await compactListCounts(database, stopping);
      return MINUTE_MS;
    },
  };
}
