import { routes } from '../../rest/route.js';

const EVENT = 'fragment EventFields on Event { id type resource recordId actor requestId data createdAt }';

export const eventRoutes = routes(
  {
    method: 'GET',
    path: '/events',
    document: `query ($page: Int, $perPage: Int, $filter: EventFilter) {
      events(page: $page, perPage: $perPage, filter: $filter) { currentPage perPage total lastPage data { ...EventFields } }
    } ${EVENT}`,
  },
  { method: 'GET', path: '/events/{id}', document: `query ($id: ID!) { event(id: $id) { ...EventFields } } ${EVENT}` },
);
