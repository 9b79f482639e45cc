import { ANY_RESOURCE } from '../../auth/scopes.js';
import { listDocument, routes } from '../../rest/route.js';
import { TRASH_LIST } from './trash.input.js';

const ITEM = 'fragment TrashItemFields on TrashItem { type id title deletedAt purgeAt mergedInto }';

export const trashRoutes = routes(
  // Any key that reads something; each type for those that can read it (the resolver decides).
  { method: 'GET', path: '/trash', resource: ANY_RESOURCE, document: `${listDocument(TRASH_LIST, 'trash', 'TrashFilter', '...TrashItemFields')} ${ITEM}` },
  // The type's write scope, checked by the resolver.
  { method: 'DELETE', path: '/trash/{type}/{id}', resource: ANY_RESOURCE, document: 'mutation ($type: String!, $id: ID!) { purgeTrashed(type: $type, id: $id) }' },
);
