import { providerOf } from '../db/client.js';
import { newId } from '../db/ids.js';
import { workspaceOf } from '../db/tenancy.js';
import type { Context, DeliveriesQueued } from '../graphql/context.js';
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
 * The workspace's active endpoints and their patterns, with the caller's client (its
 * transaction): raw SQL, as it runs for every write (see insertRows), so the workspace is
 * spelled out. On PostgreSQL the same statement first takes the workspace's turn (a
 * transaction-scoped advisory lock, held to the commit) and says when it got it, by the
 * database's clock: see `saveEvents`. SQLite's one writer already holds its turn.
 */
export async function takeTurnAndEndpoints(db: Context['db']): Promise<{ at: number; endpoints: { id: string; events: string }[] }> {
  const workspaceId = workspaceOf(db);
  if (providerOf(db) === 'sqlite') {
    const endpoints = await db.$queryRaw<{ id: string; events: string }[]>`SELECT "id", "events" FROM "WebhookEndpoint" WHERE "workspaceId" = ${workspaceId} AND "isActive" = ${true}`;
    return { at: Date.now(), endpoints };
  }
  // The lock in a CTE of its own: volatile, so it runs first and once.
  const rows = await db.$queryRaw<{ at: bigint | number; id: string | null; events: string | null }[]>`
    WITH turn AS (SELECT pg_advisory_xact_lock(hashtextextended(${`salesgraph events ${workspaceId}`}, 0)), floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS "at")
    SELECT turn."at", e."id", e."events" FROM turn LEFT JOIN "WebhookEndpoint" e ON e."workspaceId" = ${workspaceId} AND e."isActive" = ${true}`;
  return { at: Number(rows[0]!.at), endpoints: rows.filter((r) => r.id !== null) as { id: string; events: string }[] };
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

/**
 * A serving process's word that a commit queued deliveries: its delivery worker listens,
 * and so attempts them at once instead of at its next poll. One per service (made by the
 * composition root, src/service.ts), carried by the contexts its writes run in.
 */
export class DeliverySignal implements DeliveriesQueued {
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` on each `queued`, until the returned function is called. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly queued = (): void => {
    for (const listener of this.#listeners) listener();
  };
}
