import type { Db } from '../db/client.js';
import { insertRows } from '../db/raw-insert.js';
import { Prisma } from '../generated/sqlite/client.js';
import { searchRow, searchTypeOf } from './documents.js';

/** An event as the write path records it: enough to keep its record's entry current. */
export interface RecordedEvent {
  workspaceId: string;
  type: string;
  resource: string;
  recordId: string;
  /** The record's REST object after the write (for a deletion, its last state). */
  object: Record<string, unknown>;
}

const COLUMNS = ['id', 'workspaceId', 'type', 'title', 'subtitle', 'words', 'fields', 'record', 'createdAt'] as const;
const UPSERT = `ON CONFLICT ("id") DO UPDATE SET ${COLUMNS.filter((c) => c !== 'id' && c !== 'workspaceId').map((c) => `"${c}" = excluded."${c}"`).join(', ')}`;
/** The backfill's: an entry a write made meanwhile is newer than what the backfill read. */
const ONLY_MISSING = 'ON CONFLICT ("id") DO NOTHING';

/**
 * Keeps the search index as the write left the records, with the transaction's client
 * (read-your-writes: the next request finds what this one wrote): each searched record's
 * last event of the transaction rewrites its entry, or removes it when deleted.
 */
export async function indexForSearch(db: Pick<Db, '$executeRaw'>, events: readonly RecordedEvent[], { onlyMissing = false } = {}): Promise<void> {
  const last = new Map<string, RecordedEvent>();
  for (const event of events) if (searchTypeOf(event.resource)) last.set(event.recordId, event);
  if (last.size === 0) return;
  const gone: string[] = [];
  const rows: unknown[][] = [];
  for (const event of last.values()) {
    if (event.type.endsWith('.deleted')) {
      gone.push(event.recordId);
      continue;
    }
    const type = searchTypeOf(event.resource)!;
    const { object } = event;
    const row = searchRow(type, event.workspaceId, object);
    rows.push([event.recordId, event.workspaceId, type, row.title, row.subtitle, row.words, row.fields, JSON.stringify(object), new Date(String(object.created_at))]);
  }
  if (gone.length > 0) await db.$executeRaw`DELETE FROM "SearchEntry" WHERE "id" IN (${Prisma.join(gone)})`;
  if (rows.length > 0) await insertRows(db, 'SearchEntry', COLUMNS, rows, onlyMissing ? ONLY_MISSING : UPSERT);
}
