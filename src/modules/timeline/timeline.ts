import { eventPayload } from '../../events/deliveries.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { Context } from '../../graphql/context.js';
import { type Cursor, decodeCursor, encodeCursor } from '../../graphql/cursors.js';
import { invalid } from '../../graphql/errors.js';
import type { OrderKey } from '../../graphql/sorting.js';
import { minorToText } from '../../payments/currencies.js';
import { toMinor } from '../../payments/money.js';
import { noteTitle } from '../../search/documents.js';
import { NOTE_RECORD_SELECT, noteRecord } from '../notes/notes.schema.js';
import type { TimelineKind } from './timeline.input.js';
import type { CursorPage } from '../../graphql/pagination.js';

/** The records that have a timeline, by their event resource. */
export type TimelineOwner = 'contact' | 'company' | 'deal';

/** A field's value before and after an update, as a change item shows it. */
type Change = { from: unknown; to: unknown };

export interface TimelineItem {
  kind: TimelineKind;
  id: string;
  occurredAt: Date;
  summary: string;
  /** The note, event or payment event as its REST answer shows it. */
  record: Record<string, unknown>;
  /** A change item's fields that changed (an update's); null for other changes and other kinds. */
  changes: Record<string, Change> | null;
}

export type TimelinePage = CursorPage<TimelineItem>;

/**
 * The timeline is ordered by its items' ids, newest first: every item (a note, an event,
 * a payment event) has a ULID made when the service recorded it, so one key orders the
 * three sources, and each source is read by keyset on an index of its own (a note's link
 * to the record, the event log's record id, the payer's transactions). A page reads at
 * most `perPage + 1` rows of each source, whatever the length of the history.
 */
const KEYS: OrderKey[] = [{ name: 'id', field: 'id', type: 'String', nullable: false, desc: true, nullsFirst: false }];
const LIST = 'timeline';

/** The link table of a record's notes: `A` the record (first in alphabetical order), `B` the note. */
const NOTE_LINKS = { contact: '_NoteContacts', company: '_NoteCompanies', deal: '_NoteDeals' } as const;
/** Fields whose change a person does not read as one: the time of the change itself. */
const UNSHOWN = new Set(['updated_at']);
/** Related records a change names by their names (a deal's stage, its owner). */
const BY_NAME = new Set(['stage', 'user']);

export async function timelinePage(ctx: Context, owner: TimelineOwner, recordId: string, args: { kinds: TimelineKind[]; perPage: number; cursor?: string }): Promise<TimelinePage> {
  const { kinds, perPage } = args;
  const sort = `${owner}:${recordId}:${kinds.join(',')}`;
  let position: Cursor | undefined;
  if (args.cursor) {
    position = decodeCursor(args.cursor, LIST, KEYS, sort);
    if (!position) throw invalid({ cursor: ['The cursor is invalid: it was not given by this timeline.'] });
  }
  const forward = position?.forward ?? true;
  const bound = position?.values[0] as string | undefined;
  const window = { where: bound === undefined ? {} : { id: forward ? { lt: bound } : { gt: bound } }, orderBy: { id: forward ? ('desc' as const) : ('asc' as const) }, take: perPage + 1 };

  const read: Promise<TimelineItem[]>[] = [];
  if (kinds.includes('note')) read.push(notes(ctx, owner, recordId, window, bound === undefined ? undefined : { id: bound, before: forward }));
  if (kinds.includes('change')) read.push(changes(ctx, owner, recordId, window));
  if (kinds.includes('payment') && owner === 'contact') read.push(payments(ctx, recordId, window));
  const merged = (await Promise.all(read)).flat().sort((a, b) => (a.id < b.id ? 1 : -1) * (forward ? 1 : -1));
  const more = merged.length > perPage;
  const data = merged.slice(0, perPage);
  if (!forward) data.reverse();
  const cursorAt = (item: TimelineItem | undefined, towardsOlder: boolean) => (item ? encodeCursor(LIST, sort, towardsOlder, KEYS, item as unknown as Record<string, unknown>) : null);
  return {
    data,
    perPage,
    nextCursor: forward ? (more ? cursorAt(data.at(-1), true) : null) : cursorAt(data.at(-1), true),
    prevCursor: forward ? (position ? cursorAt(data[0], false) : null) : more ? cursorAt(data[0], false) : null,
  };
}

type Window = { where: object; orderBy: { id: 'asc' | 'desc' }; take: number };

async function notes(ctx: Context, owner: TimelineOwner, recordId: string, window: Window, bound: { id: string; before: boolean } | undefined): Promise<TimelineItem[]> {
  // The page's note ids straight from the link table's primary key (record, note): a keyset
  // read whatever the number of notes (a join through Note sorts all of the record's).
  const table = Prisma.raw(`"${NOTE_LINKS[owner]}"`);
  const position = bound ? (bound.before ? Prisma.sql`AND "B" < ${bound.id}` : Prisma.sql`AND "B" > ${bound.id}`) : Prisma.empty;
  const order = Prisma.raw(window.orderBy.id === 'desc' ? 'DESC' : 'ASC');
  const linked = await ctx.db.$queryRaw<{ B: string }[]>`SELECT "B" FROM ${table} WHERE "A" = ${recordId} ${position} ORDER BY "B" ${order} LIMIT ${window.take}`;
  const rows = await ctx.db.note.findMany({ where: { id: { in: linked.map((l) => l.B) } }, select: NOTE_RECORD_SELECT });
  return rows.map((note) => ({ kind: 'note', id: note.id, occurredAt: note.createdAt, summary: noteTitle(note.body), record: noteRecord(note), changes: null }));
}

async function changes(ctx: Context, owner: TimelineOwner, recordId: string, window: Window): Promise<TimelineItem[]> {
  const rows = await ctx.db.event.findMany({ where: { resource: owner, recordId, ...window.where }, orderBy: window.orderBy, take: window.take });
  return rows.map((event) => {
    // The event as its GET answers it, parsed once: its `data` tells the changes.
    const record = JSON.parse(eventPayload(event)) as Record<string, unknown> & { data: { object?: Record<string, unknown>; previous_attributes?: Record<string, unknown> | null } };
    const kind = event.type.slice(event.type.indexOf('.') + 1);
    const changed = kind === 'updated' ? changesOf(record.data.previous_attributes ?? {}, record.data.object ?? {}) : null;
    return { kind: 'change', id: event.id, occurredAt: event.createdAt, summary: changed ? changeSummary(changed) : capitalized(kind), record, changes: changed };
  });
}

async function payments(ctx: Context, contactId: string, window: Window): Promise<TimelineItem[]> {
  const rows = await ctx.db.paymentTransactionEvent.findMany({
    where: { transaction: { contactId }, ...window.where },
    orderBy: window.orderBy,
    take: window.take,
    select: { id: true, type: true, status: true, providerReference: true, payload: true, occurredAt: true, transaction: { select: { amount: true, currency: true } } },
  });
  return rows.map((event) => ({
    kind: 'payment',
    id: event.id,
    occurredAt: event.occurredAt,
    summary: `Payment ${event.status}: ${minorToText(toMinor(event.transaction.amount, event.transaction.currency), event.transaction.currency)} ${event.transaction.currency}`,
    // As the transaction's `events` show it (payment events have no GET of their own).
    record: { id: event.id, type: event.type, status: event.status, provider_reference: event.providerReference, payload: event.payload, occurred_at: event.occurredAt.toISOString() },
    changes: null,
  }));
}

/** Each changed field's old and new value; a related record (a deal's stage) by its name. */
function changesOf(previous: Record<string, unknown>, now: Record<string, unknown>): Record<string, Change> {
  const changed: Record<string, Change> = Object.create(null);
  for (const [field, from] of Object.entries(previous)) {
    if (UNSHOWN.has(field)) continue;
    const named = (value: unknown) => (BY_NAME.has(field) && value && typeof value === 'object' ? ((value as { name?: unknown }).name ?? null) : value);
    changed[field] = { from: named(from), to: named(now[field] ?? null) };
  }
  return changed;
}

/** `Stage: Proposal -> Won, Name: Old -> New`: one line a person reads. */
function changeSummary(changed: Record<string, Change>): string {
  const parts = Object.entries(changed).map(([field, { from, to }]) => `${capitalized(field.replace(/_/g, ' '))}: ${shown(from)} -> ${shown(to)}`);
  return parts.length ? parts.join(', ') : 'Updated';
}

const shown = (value: unknown) => (value === null || value === undefined || value === '' ? '(empty)' : typeof value === 'string' ? value : JSON.stringify(value));
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
