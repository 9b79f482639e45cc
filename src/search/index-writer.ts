import type { Db } from '../db/client.js';
import { insertRows } from '../db/raw-insert.js';
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

/** The columns of a record's entry beside its id and workspace, in the order `entryColumns` gives them. */
export const ENTRY_COLUMNS = ['type', 'title', 'subtitle', 'words', 'fields', 'record', 'createdAt'] as const;

/**
 * What `event` does to its record's search entry, as the values of ENTRY_COLUMNS: the
 * entry as the record now is; for a deletion, the type alone (the entry goes); nothing
 * (all null) for a record that is not searched.
 */
export function entryColumns(event: RecordedEvent): unknown[] {
  const type = searchTypeOf(event.resource);
  if (!type) return ENTRY_COLUMNS.map(() => null);
  if (event.type.endsWith('.deleted') || event.type.endsWith('.purged')) return [type, ...ENTRY_COLUMNS.slice(1).map(() => null)];
  const { object } = event;
  const row = searchRow(type, event.workspaceId, object);
  return [type, row.title, row.subtitle, row.words, row.fields, JSON.stringify(object), new Date(String(object.created_at))];
}

/**
 * Writes the entries of records written without events (the backfill: records from
 * before the index), only where an entry is missing (a write made meanwhile wrote a newer
 * one). A write keeps the index with its events, in the same statement (src/events/outbox.ts).
 */
export async function indexMissing(db: Pick<Db, '$executeRaw'>, events: readonly RecordedEvent[]): Promise<void> {
  // An entry to write has its title (a record not searched has none, nor has a deletion).
  const rows = events.flatMap((event) => {
    const entry = entryColumns(event);
    return entry[ENTRY_COLUMNS.indexOf('title')] === null ? [] : [[event.recordId, event.workspaceId, ...entry]];
  });
  if (rows.length > 0) await insertRows(db, 'SearchEntry', ['id', 'workspaceId', ...ENTRY_COLUMNS], rows, 'ON CONFLICT ("id") DO NOTHING');
}
