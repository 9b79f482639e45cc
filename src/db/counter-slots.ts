import type { Loop } from '../jobs/loops.js';
import { Prisma } from '../generated/sqlite/client.js';
import type { Database } from './client.js';

/** Counter rows a statement folds: each statement stays short. */
export const COMPACT_BATCH = 5_000;
const MINUTE_MS = 60_000;

/**
 * A table of counters that triggers keep (see models.prisma): a counter is the sum of its
 * rows over `slot`, and on PostgreSQL each writing connection adds to its own slot (its
 * backend pid), so concurrent writers never wait on one row.
 */
interface SlottedCounters {
  table: string;
  /** The counter's key, `slot` left out. */
  key: readonly string[];
  /** The columns added up. */
  sums: readonly string[];
}

const LIST_COUNT: SlottedCounters = { table: 'ListCount', key: ['workspaceId', 'list', 'bucket'], sums: ['rows'] };
const REPORT_TOTALS: SlottedCounters[] = [
  { table: 'DealTotal', key: ['workspaceId', 'closeDay', 'closeMonth', 'stageId', 'userId', 'currency'], sums: ['deals', 'value'] },
  { table: 'DealCreatedTotal', key: ['workspaceId', 'createdHour', 'createdDay', 'createdMonth', 'stageId', 'userId', 'currency'], sums: ['deals', 'value'] },
  { table: 'DealCreatedCloseTotal', key: ['workspaceId', 'createdHour', 'createdDay', 'createdMonth', 'closeDay', 'closeMonth', 'stageId', 'userId', 'currency'], sums: ['deals', 'value'] },
  { table: 'PaymentDayTotal', key: ['workspaceId', 'day', 'status', 'currency'], sums: ['payments', 'amount'] },
  { table: 'PaymentLinkTotal', key: ['workspaceId', 'day', 'month', 'paymentLinkId', 'status', 'currency'], sums: ['payments', 'amount'] },
];

const quoted = (names: readonly string[], prefix = '') => Prisma.raw(names.map((name) => `${prefix}"${name}"`).join(', '));

/**
 * Folds a table's slots into slot 0 (PostgreSQL; SQLite writes slot 0 only), `batch` rows
 * a statement, skipping the rows an open transaction holds (they are folded next time); a
 * counter, the sum over its slots, is the same before and after each statement. Slot 0
 * rows are written in key order, as the writers write theirs, so two folds never deadlock.
 * A counter whose sums fold to zero is removed. Returns how many slot rows it folded.
 */
async function foldSlots(database: Database, counters: SlottedCounters, stopping: () => boolean, batch: number): Promise<number> {
  if (database.target.provider !== 'postgresql') return 0;
  const table = Prisma.raw(`"${counters.table}"`);
  const key = quoted(counters.key);
  const keyAndSlot = quoted([...counters.key, 'slot']);
  const added = Prisma.raw(counters.sums.map((sum) => `sum("${sum}")`).join(', '));
  const nonZero = Prisma.raw(counters.sums.map((sum) => `sum("${sum}") <> 0`).join(' OR '));
  const addUp = Prisma.raw(counters.sums.map((sum) => `"${sum}" = "${counters.table}"."${sum}" + EXCLUDED."${sum}"`).join(', '));
  const allZero = (prefix: string) => Prisma.raw(counters.sums.map((sum) => `${prefix}"${sum}" = 0`).join(' AND '));
  let folded = 0;
  while (!stopping()) {
    const [result] = await database.background.$queryRaw<[{ moved: bigint | number; emptied: object[] | null }]>`
      WITH moved AS (
        DELETE FROM ${table} WHERE (${keyAndSlot}) IN (
          SELECT ${keyAndSlot} FROM ${table} WHERE "slot" <> 0 LIMIT ${batch} FOR UPDATE SKIP LOCKED)
        RETURNING *),
      folded AS (
        INSERT INTO ${table} (${key}, "slot", ${quoted(counters.sums)})
        SELECT ${key}, 0, ${added} FROM moved GROUP BY ${key} HAVING ${nonZero} ORDER BY ${key}
        ON CONFLICT (${keyAndSlot}) DO UPDATE SET ${addUp}
        RETURNING *)
      SELECT (SELECT count(*) FROM moved) AS moved,
             (SELECT json_agg(f) FROM folded f WHERE ${allZero('f.')}) AS emptied`;
    if (result.emptied) {
      // Locked in key order too; a counter another fold has since moved off zero stays.
      await database.background.$executeRaw`
        DELETE FROM ${table} t USING (
          SELECT ${key} FROM ${table}
           WHERE "slot" = 0 AND (${key}) IN (
                 SELECT * FROM json_to_recordset(${JSON.stringify(result.emptied)}::json) AS e(${Prisma.raw(counters.key.map((name) => `"${name}" text`).join(', '))}))
           ORDER BY ${key} FOR UPDATE) AS z
        WHERE (${quoted(counters.key, 't.')}) = (${quoted(counters.key, 'z.')}) AND t."slot" = 0 AND ${allZero('t.')}`;
    }
    const moved = Number(result.moved);
    folded += moved;
    if (moved < batch) break;
  }
  return folded;
}

/** Folds ListCount's slots (see `foldSlots`). */
export const compactListCounts = (database: Database, stopping: () => boolean = () => false, batch = COMPACT_BATCH) => foldSlots(database, LIST_COUNT, stopping, batch);

/** Folds the report totals' slots (see `foldSlots`), table by table. */
export async function compactReportTotals(database: Database, stopping: () => boolean = () => false, batch = COMPACT_BATCH): Promise<number> {
  let folded = 0;
  for (const totals of REPORT_TOTALS) folded += await foldSlots(database, totals, stopping, batch);
  return folded;
}

/** The folds, once a minute in every serving process (a no-op on SQLite). */
export function counterCompactionLoop(database: Database): Loop {
  return {
    name: 'counter-compaction',
    async run(stopping) {
      await compactListCounts(database, stopping);
      await compactReportTotals(database, stopping);
      return MINUTE_MS;
    },
  };
}
