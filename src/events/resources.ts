import { allows } from '../auth/scopes.js';

/**
 * The records that have events (API.md section 6): each event resource, the model that
 * holds its rows, and the REST route whose GET gives its `data.object`. Rows of a child
 * model are part of their parent's record: a stage write is a change of its pipeline,
 * a provider event appended to a transaction a change of that transaction.
 */
export const EVENT_RESOURCES = {
  user: { model: 'User', path: '/users/{id}' },
  property_definition: { model: 'PropertyDefinition', path: '/property-definitions/{id}' },
  product: { model: 'Product', path: '/products/{id}' },
  contact: { model: 'Contact', path: '/contacts/{id}' },
  company: { model: 'Company', path: '/companies/{id}' },
  pipeline: { model: 'Pipeline', path: '/pipelines/{id}' },
  deal: { model: 'Deal', path: '/deals/{id}' },
  task: { model: 'Task', path: '/tasks/{id}' },
  ticket_status: { model: 'TicketStatus', path: '/ticket-statuses/{id}' },
  ticket: { model: 'Ticket', path: '/tickets/{id}' },
  note: { model: 'Note', path: '/notes/{id}' },
  payment_provider_account: { model: 'PaymentProviderAccount', path: '/payment-provider-accounts/{id}' },
  payment_link: { model: 'PaymentLink', path: '/payment-links/{id}' },
  payment_coupon: { model: 'PaymentCoupon', path: '/payment-coupons/{id}' },
  payment_transaction: { model: 'PaymentTransaction', path: '/payment-transactions/{id}' },
  refund: { model: 'PaymentRefund', path: '/refunds/{id}' },
  webhook_endpoint: { model: 'WebhookEndpoint', path: '/webhook-endpoints/{id}' },
} as const;

export type EventResource = keyof typeof EVENT_RESOURCES;

/** The REST name of an event resource's records, as scopes name it (`deal` -> `deals`). */
export const scopeResourceOf = (resource: EventResource): string => EVENT_RESOURCES[resource].path.split('/')[1]!;
export const EVENT_RESOURCE_NAMES = Object.keys(EVENT_RESOURCES) as EventResource[];

export type EventKind = 'created' | 'updated' | 'deleted';

type Shown = Record<string, unknown> | null;
const disputeStatus = (object: Shown) => (object?.dispute as { status?: string } | null | undefined)?.status;

/**
 * An event's type: `<resource>.<kind>`, but for the moments API.md section 11 names: a
 * refund that succeeded or failed, a transaction that became refunded, a dispute opened or closed.
 */
export function eventType(resource: EventResource, kind: EventKind, before: Shown, after: Shown): string {
  if (kind === 'updated' && resource === 'refund' && before?.status !== after?.status && (after?.status === 'succeeded' || after?.status === 'failed')) return `refund.${after.status}`;
  if (kind === 'updated' && resource === 'payment_transaction') {
    if (before?.status !== 'refunded' && after?.status === 'refunded') return 'payment.refunded';
    const was = disputeStatus(before);
    const now = disputeStatus(after);
    if (was !== now && now === 'open') return 'payment.dispute_opened';
    if (was !== now && (now === 'won' || now === 'lost')) return 'payment.dispute_closed';
  }
  return `${resource}.${kind}`;
}

/** How a write on a model's rows reaches a record: the row is the record, or its `key` column names the parent record. */
export interface TrackedModel {
  resource: EventResource;
  /** Absent: the row's own id is the record id. */
  parentKey?: string;
}

export const TRACKED_MODELS: Record<string, TrackedModel> = Object.assign(
  Object.create(null),
  Object.fromEntries(Object.entries(EVENT_RESOURCES).map(([resource, { model }]) => [model, { resource: resource as EventResource }])),
  {
    DealStage: { resource: 'pipeline', parentKey: 'pipelineId' },
    PaymentTransactionEvent: { resource: 'payment_transaction', parentKey: 'transactionId' },
  },
);

/**
 * The event resources a key may see in the log, the stream and the subscription (API.md
 * section 10): all with `read`, `write` or an `events` scope (undefined); with scopes of
 * some resources only, the events of the resources it can read.
 */
export function visibleResources(scopes: readonly string[] | undefined): EventResource[] | undefined {
  if (!scopes || allows(scopes, { resource: 'events', access: 'read' })) return undefined;
  return EVENT_RESOURCE_NAMES.filter((resource) => allows(scopes, { resource: scopeResourceOf(resource), access: 'read' }));
}

/** `contact.*`, `*` or an exact type: whether an event type matches it. */
export const typeMatches = (pattern: string, type: string) =>
  pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));
