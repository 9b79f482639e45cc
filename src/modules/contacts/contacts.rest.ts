import { activePropertyKeys } from '../property-definitions/properties.js';
import { exportRoute, listDocument, routes } from '../../rest/route.js';
import { CONTACT_LIST } from './contacts.input.js';

const CONTACT = 'fragment ContactFields on Contact { id firstName lastName email notes properties createdAt updatedAt }';

export const contactRoutes = routes(
  {
    method: 'GET',
    path: '/contacts',
    document: `${listDocument(CONTACT_LIST, 'contacts', 'ContactFilter', '...ContactFields')} ${CONTACT}`,
  },
  // Declared before /contacts/{id}, and literal segments win anyway.
  {
    method: 'PUT',
    path: '/contacts/upsert',
    document: `mutation ($input: CreateContactInput!) { upsertContact(input: $input) { created contact { ...ContactFields } } } ${CONTACT}`,
    status: (data: { upsertContact: { created: boolean } }) => (data.upsertContact.created ? 201 : 200),
    unwrap: (data: { upsertContact: { contact: unknown } }) => data.upsertContact.contact,
  },
  // Declared before /contacts/{id}, and literal segments win anyway.
  exportRoute(CONTACT_LIST, 'contacts', 'ContactFilter', '...ContactFields companyIds', CONTACT, { propertyKeys: (ctx) => activePropertyKeys(ctx, 'contact') }),
  { method: 'GET', path: '/contacts/{id}', document: `query ($id: ID!) { contact(id: $id) { ...ContactFields } } ${CONTACT}` },
  { method: 'POST', path: '/contacts', document: `mutation ($input: CreateContactInput!) { createContact(input: $input) { ...ContactFields } } ${CONTACT}` },
  { method: 'PUT', path: '/contacts/{id}', document: `mutation ($id: ID!, $input: UpdateContactInput!) { updateContact(id: $id, input: $input) { ...ContactFields } } ${CONTACT}` },
  { method: 'DELETE', path: '/contacts/{id}', document: 'mutation ($id: ID!) { deleteContact(id: $id) }' },
);
