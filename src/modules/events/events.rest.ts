import { listDocument, routes } from '../../rest/route.js';
import { EVENT_LIST } from './events.input.js';

const EVENT = 'fragment EventFields on Event { id type resource recordId actor requestId data createdAt }';

export const eventRoutes = routes(
  {
    method: 'GET',
    path: '/events',
    document: `${listDocument(EVENT_LIST, 'events', 'EventFilter', '...EventFields')} ${EVENT}`,
  },
  { method: 'GET', path: '/events/{id}', document: `query ($id: ID!) { event(id: $id) { ...EventFields } } ${EVENT}` },
);
