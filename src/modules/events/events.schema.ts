import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { orNotFound } from '../../graphql/records.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { parseInput } from '../../validation/parse.js';
import { type EventResource, visibleResources } from '../../events/resources.js';
import { openEventStream } from '../../events/stream.js';
import { Company } from '../companies/companies.schema.js';
import { Contact } from '../contacts/contacts.schema.js';
import { Deal } from '../deals/deals.schema.js';
import { PaymentCoupon } from '../payment-coupons/payment-coupons.schema.js';
import { PaymentLink } from '../payment-links/payment-links.schema.js';
import { PaymentProviderAccount } from '../payment-provider-accounts/payment-provider-accounts.schema.js';
import { PaymentTransaction } from '../payment-transactions/payment-transactions.schema.js';
import { Pipeline } from '../pipelines/pipelines.schema.js';
import { Product } from '../products/products.schema.js';
import { PropertyDefinition } from '../property-definitions/property-definitions.schema.js';
import { Task } from '../tasks/tasks.schema.js';
import { Ticket, TicketStatus } from '../tickets/tickets.schema.js';
import { Note } from '../notes/notes.schema.js';
import { User } from '../users/users.schema.js';
import { WebhookEndpoint } from '../webhook-endpoints/webhook-endpoints.schema.js';
import { EVENT_LIST, EventListArgs, HISTORY_LIST, HistoryArgs, StreamArgs } from './events.input.js';

/**
 * `actor` and `data` are stored as JSON text: each row's parsed once, however many
 * subscriptions of this process the live tail hands that same row to (the values are
 * only read afterwards, never changed).
 */
const parsedColumns = new WeakMap<object, { actor?: unknown; data?: unknown }>();
function parsed(row: { actor: string; data: string }, column: 'actor' | 'data'): unknown {
  let columns = parsedColumns.get(row);
  if (!columns) parsedColumns.set(row, (columns = {}));
  if (!(column in columns)) columns[column] = JSON.parse(row[column]);
  return columns[column];
}

export const Event = builder.prismaObject('Event', {
  description: 'One change of one record, recorded in the transaction that made it (newest first in every list).',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type', { description: '`<resource>.created`, `.updated` or `.deleted`.' }),
    resource: t.exposeString('resource'),
    recordId: t.exposeID('recordId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    actor: t.field({ type: 'JSON', description: 'Who made the change: an API key, the command line, the checkout or a provider.', resolve: (e) => parsed(e, 'actor') }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The X-Request-Id of the request that made the change.' }),
    data: t.field({
      type: 'JSON',
      description: '`object`: the record as its REST GET returns it after the change (a deletion: its last state); `previous_attributes`: for an update, the changed fields with their old values.',
      resolve: (e) => parsed(e, 'data'),
    }),
  }),
});

const EventPage = pageType('Event', Event);

const EventFilter = builder.inputType('EventFilter', {
  fields: (t) => ({
    type: t.string({ description: 'An exact type (`deal.updated`) or every type of a resource (`deal.*`).' }),
    recordId: t.id(),
    createdSince: t.field({ type: 'DateTime', description: 'Events created at or after this instant.', deprecationReason: 'Use the `createdSince` argument of `events`.' }),
  }),
});

builder.queryFields((t) => ({
  event: t.prismaField({
    type: Event,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => {
      const visible = visibleResources(ctx.scopes);
      return orNotFound(ctx.db.event.findFirst({ ...query, where: { id, ...(visible ? { resource: { in: visible } } : {}) } }), 'Event');
    },
  }),
  events: t.field({
    type: EventPage,
    args: { ...listArgs(t, EVENT_LIST), filter: t.arg({ type: EventFilter }) },
    resolve: (_root, args, ctx, info) => {
      // The filter's createdSince came first; the list argument of section 8 now says the same.
      const { type, recordId, ...listing } = parseInput(EventListArgs, { ...args.filter, ...listInput(args), createdSince: args.createdSince ?? args.filter?.createdSince ?? undefined }, ctx);
      const visible = visibleResources(ctx.scopes);
      const where = { AND: [type?.endsWith('.*') ? { resource: type.slice(0, -2) } : { type }, { recordId }, visible ? { resource: { in: visible } } : {}] };
      return paginate(ctx.db.event, EVENT_LIST, { ...listing, where }, ctx, info);
    },
  }),
}));

builder.subscriptionFields((t) => ({
  events: t.field({
    type: Event,
    description:
      'Every event of the workspace as it commits, whichever process or instance made it; with `since`, every later event of the log first. Only the resources the key can read.',
    args: {
      types: t.arg.stringList({ description: 'Exact types (`deal.updated`) or every type of a resource (`deal.*`); none: all.' }),
      since: t.arg.id({ description: 'An event id: replay every later event of the log, then go live.' }),
    },
    subscribe: async (_root, args, ctx) => {
      const { types, since } = parseInput(StreamArgs, { types: args.types ?? undefined, since: args.since ?? undefined }, ctx);
      return (await openEventStream(ctx, { types, since })).events;
    },
    resolve: (event) => event as never,
  }),
}));

/** `history(page, perPage)` on a record type: the record's events, newest first. */
function history(resource: EventResource, type: Parameters<typeof builder.objectFields>[0]) {
  builder.objectFields(type as typeof Contact, (t) => ({
    history: t.field({
      type: EventPage,
      description: "This record's events, newest first.",
      args: listArgs(t, HISTORY_LIST),
      resolve: (record, args, ctx: Context, info) => {
        const listing = parseInput(HistoryArgs, listInput(args), ctx);
        return paginate(ctx.db.event, HISTORY_LIST, { ...listing, where: { resource, recordId: (record as { id: string }).id } }, ctx, info);
      },
    }),
  }));
}

history('user', User);
history('property_definition', PropertyDefinition);
history('product', Product);
history('contact', Contact);
history('company', Company);
history('pipeline', Pipeline);
history('deal', Deal);
history('task', Task);
history('ticket_status', TicketStatus);
history('ticket', Ticket);
history('note', Note);
history('payment_provider_account', PaymentProviderAccount);
history('payment_link', PaymentLink);
history('payment_coupon', PaymentCoupon);
history('payment_transaction', PaymentTransaction);
history('webhook_endpoint', WebhookEndpoint);
