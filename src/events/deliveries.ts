import { type Db, providerOf } from '../db/client.js';
import { Prisma } from '../generated/sqlite/client.js';
import { newId } from '../db/ids.js';
import { workspaceOf } from '../db/tenancy.js';
import type { Context } from '../graphql/context.js';
import type { EventRow } from './recorder.js';
import { typeMatches } from './resources.js';

/** An event as stored (a row of Event, or the test event that is never stored). */
export type StoredEvent = Omit<EventRow, 'resource' | 'object'> & { resource: string };

/**
 * An event as `GET /events/{id}` answers it, as the text a delivery sends. `actor` and
 * `data` are stored as JSON text, so the body is assembled without parsing them again;
 * test/webhooks.test.ts compares it with the GET, character for character.
 */
export function eventPayload(row: StoredEvent): string {
  const text = JSON.stringify;
  return `{"id":${text(row.id)},"type":${text(row.type)},"resource":${text(row.resource)},"record_id":${text(row.recordId)},"actor":${row.actor},"request_id":${text(row.requestId)},"data":${row.data},"created_at":${text(row.createdAt.toISOString())}}`;
}

export const endpointPatterns = (events: string): string[] => JSON.parse(events) as string[];

/**
 * The workspace's turn among its writers, its newest event id as of the turn, and its
 * active endpoints with their patterns, in one statement with the caller's client (its
 * transaction): raw SQL, as it runs for every write (see insertRows), so the workspace is
 * spelled out. The turn lasts to the commit: PostgreSQL's is a transaction-scoped advisory
 * lock, taken by `Event_turn` (see its migration), which then reads the newest id with a
 * snapshot of its own, taken after the lock; SQLite's is its one writer, which a write
 * already holds.
 */
export async function takeTurn(db: Context['db']): Promise<{ newest: string | null; endpoints: { id: string; events: string }[] }> {
  const workspaceId = workspaceOf(db);
  const newest =
    providerOf(db as unknown as Db) === 'sqlite'
      ? Prisma.sql`(SELECT max("id") FROM "Event" WHERE "workspaceId" = ${workspaceId})`
      : Prisma.sql`(SELECT "Event_turn"(${workspaceId}))`;
  // The turn in a CTE of its own: it runs once, first, whether or not any endpoint is active.
  const rows = await db.$queryRaw<{ newest: string | null; id: string | null; events: string | null }[]>`
    WITH turn AS MATERIALIZED (SELECT ${newest} AS "newest")
    SELECT turn."newest", e."id", e."events" FROM turn LEFT JOIN "WebhookEndpoint" e ON e."workspaceId" = ${workspaceId} AND e."isActive" = ${true}`;
  return { newest: rows[0]!.newest, endpoints: rows.filter((r) => r.id !== null) as { id: string; events: string }[] };
}

/** The endpoints each event is delivered to: those whose patterns match its type (events delivered nowhere left out). */
export function deliveriesOf(events: EventRow[], endpoints: { id: string; events: string }[]): Map<EventRow, string[]> {
  const to = new Map<EventRow, string[]>();
  for (const endpoint of endpoints) {
    const patterns = endpointPatterns(endpoint.events);
    for (const event of events) {
      if (!patterns.some((p) => typeMatches(p, event.type))) continue;
      const ids = to.get(event);
      if (ids) ids.push(endpoint.id);
      else to.set(event, [endpoint.id]);
    }
  }
  return to;
}

/** A new pending delivery of an event to an endpoint, due now. */
export function deliveryRow(event: StoredEvent, endpointId: string, now: Date) {
  return {
    id: newId(),
    workspaceId: event.workspaceId,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    payload: eventPayload(event),
    nextAttemptAt: now,
    createdAt: now,
  };
}
