import { atomically } from '../db/locks.js';
import { insertRows } from '../db/raw-insert.js';
import type { Context } from '../graphql/context.js';
import type { Actor } from '../graphql/context.js';
import { EventRecorder, type EventRow } from './recorder.js';
import type { Represent } from './representation.js';
import { idsAfter, newId } from '../db/ids.js';
import { deliveriesOf, eventPayload, takeTurn } from './deliveries.js';
import { ENTRY_COLUMNS, entryColumns } from '../search/index-writer.js';

/**
 * The one way anything writes records: `work` runs in one transaction on a client that
 * records every record it writes, and the events are inserted in that transaction
 * before it commits (no change without its event, no event without its change). A
 * write that lost a race runs again. The events are queued for the workspace's
 * subscribed webhook endpoints in the same transaction, the search index is brought up
 * to date in it too, and once it commits the context's commit signal (`commits`) is given
 * the events (published to every process's live tail with REDIS_URL) and wakes the
 * delivery worker. Every path that records events writes here: REST, GraphQL, the CSV
 * import, the checkout expiry, the providers' webhooks, the worker's auto-disable.
 */
export async function writeWithEvents<T>(
  context: Context,
  represent: Represent,
  origin: { actor: Actor; requestId: string | null },
  work: (db: Context['db']) => Promise<T>,
): Promise<{ result: T; events: EventRow[] }> {
  // The request's memo (property definitions) serves the event's REST objects too.
  context.cache ??= new Map();
  // Inside a transaction of the caller's (an Idempotency-Key's), what follows the commit waits for that one.
  const outer = context.afterCommit;
  let committed: (() => void)[] = [];
  const written = await atomically(context.db, async (tx) => {
    // A run that lost a race and runs again starts with nothing to do after the commit.
    committed = [];
    context.afterCommit = outer ?? ((fn) => committed.push(fn));
    // A transaction's client has the model API of the client (only the `$` connection methods are gone).
    const db = tx as unknown as Context['db'];
    // The events' objects are read as the service, not under the caller's scopes: scopes decide
    // which operations a key may call, never what an allowed one does (API.md section 9).
    const recorder = new EventRecorder(represent, { ...context, db, scopes: undefined }, origin);
    const result = await work(recorder.client(db));
    const { events, deliveries } = await saveEvents(db, recorder);
    // Once committed, and only then: every process's live tail hears of the events (Redis), and
    // this service's delivery worker of the deliveries queued.
    const commits = context.commits;
    if (commits && events.length > 0) context.afterCommit!(() => commits.eventsRecorded(context.workspace.id, events.map((e) => e.id)));
    if (commits && deliveries > 0) context.afterCommit!(commits.deliveriesQueued);
    return { result, events };
  }).finally(() => {
    context.afterCommit = outer;
  });
  for (const fn of committed) fn();
  return written;
}

const EVENT_COLUMNS = ['id', 'workspaceId', 'type', 'resource', 'recordId', 'actor', 'requestId', 'data', 'createdAt'] as const satisfies readonly (keyof EventRow)[];
/**
 * The columns of the view EventOutbox (see its migrations): an event's row, its
 * deliveries' payload and its deliveries, and its record's search entry (ENTRY_COLUMNS,
 * prefixed: `searchType`, `searchTitle`, ...).
 */
const OUTBOX_COLUMNS = [...EVENT_COLUMNS, 'payload', 'deliveries', ...ENTRY_COLUMNS.map((c) => `search${c[0]!.toUpperCase()}${c.slice(1)}`)];

/**
 * Inserts what `recorder` recorded with the transaction's client `db`, in one INSERT:
 * into Event, or, when some endpoint subscribes or a record is searched, into the view
 * EventOutbox, whose trigger writes each event, its deliveries to the workspace's
 * subscribed endpoints, and its record's search entry (read-your-writes: the next
 * request finds what this one wrote). Whatever records events (a write, the demo) keeps the index with them.
 */
export async function saveEvents(db: Context['db'], recorder: EventRecorder): Promise<{ events: EventRow[]; deliveries: number }> {
  if (!recorder.wroteAnything) return { events: [], deliveries: 0 };
  // One after the other: a transaction's statements go one at a time anyway, and Prisma sends the calls of one
  // turn of the event loop as a batch, whose query plan it compiles anew each time (~0.35 ms of CPU a write).
  // The turn comes last, so the workspace's writers wait for each other over as few round trips as can be.
  const drafts = await recorder.events();
  const { newest, endpoints } = await takeTurn(db);
  // A workspace's event ids rise in the order its writes commit, so that a stream resumed
  // after the last id it got misses nothing (API.md section 10): from its turn to its
  // commit a write is the workspace's only writer, and its ids are above every id before.
  const nextId = idsAfter(newest);
  const events: EventRow[] = drafts.map((draft) => ({ id: nextId(), ...draft }));
  const deliveries = deliveriesOf(events, endpoints);
  const entries = events.map(entryColumns);
  if (deliveries.size === 0 && entries.every((entry) => entry[0] === null)) {
    await insertRows(db, 'Event', EVENT_COLUMNS, events.map((e) => EVENT_COLUMNS.map((c) => e[c])));
    return { events, deliveries: 0 };
  }
  const rows = events.map((e, i) => {
    const to = deliveries.get(e);
    return [
      ...EVENT_COLUMNS.map((c) => e[c]),
      to ? eventPayload(e) : null,
      to ? JSON.stringify(to.map((endpointId) => [newId(), endpointId])) : null,
      ...entries[i]!,
    ];
  });
  await insertRows(db, 'EventOutbox', OUTBOX_COLUMNS, rows);
  return { events, deliveries: [...deliveries.values()].reduce((n, to) => n + to.length, 0) };
}
