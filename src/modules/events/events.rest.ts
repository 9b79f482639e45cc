import { ANY_RESOURCE } from '../../auth/scopes.js';
import { eventPayload } from '../../events/deliveries.js';
import type { LoggedEvent } from '../../graphql/context.js';
import { listDocument, routes } from '../../rest/route.js';
import { EVENT_LIST } from './events.input.js';

const EVENT = 'fragment EventFields on Event { id type resource recordId actor requestId data createdAt }';

export const eventRoutes = routes(
  // Any key reads the log; each sees the events of the resources it can read (API.md section 10).
  {
    method: 'GET',
    path: '/events',
    resource: ANY_RESOURCE,
    document: `${listDocument(EVENT_LIST, 'events', 'EventFilter', '...EventFields')} ${EVENT}`,
  },
  // Server-Sent Events: each event as its GET answers it; `Last-Event-ID` resumes as `since` does. Before /events/{id}.
  // Each message is the event's payload as a webhook delivery sends it (the GET's text, test/webhooks.test.ts),
  // written once per event for every stream rather than by running the document for each.
  {
    method: 'GET',
    path: '/events/stream',
    resource: ANY_RESOURCE,
    parameters: { type: 'types', since: 'since' },
    stream: { message: (e: LoggedEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${eventPayload(e)}\n\n` },
    document: `subscription ($types: [String!], $since: ID) { events(types: $types, since: $since) { ...EventFields } } ${EVENT}`,
  },
  { method: 'GET', path: '/events/{id}', resource: ANY_RESOURCE, document: `query ($id: ID!) { event(id: $id) { ...EventFields } } ${EVENT}` },
);
