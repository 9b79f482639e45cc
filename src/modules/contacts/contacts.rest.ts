import { activePropertyKeys } from '../property-definitions/properties.js';
import { exportRoute, listDocument, routes, mergeRoute, restoreRoute } from '../../rest/route.js';
import { batchData } from '../../graphql/batch.js';
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
  // Batches (API.md section 8): literal segments win over /contacts/{id}.
  {
    method: 'POST',
    path: '/contacts/batch',
    document: `mutation ($inputs: [CreateContactInput!]!) { createContacts(inputs: $inputs) { ...ContactFields } } ${CONTACT}`,
    unwrap: batchData,
  },
  {
    method: 'PUT',
    path: '/contacts/batch',
    document: `mutation ($inputs: [UpdateContactsItem!]!) { updateContacts(inputs: $inputs) { ...ContactFields } } ${CONTACT}`,
    unwrap: batchData,
  },
  {
    method: 'PUT',
    path: '/contacts/batch/upsert',
    document: `mutation ($inputs: [CreateContactInput!]!) { upsertContacts(inputs: $inputs) { contact { ...ContactFields } } } ${CONTACT}`,
    // 200 whatever the mix of created and updated contacts.
    unwrap: (data: { upsertContacts: { contact: unknown }[] }) => ({ data: data.upsertContacts.map((item) => item.contact) }),
  },
  { method: 'GET', path: '/contacts/{id}', document: `query ($id: ID!) { contact(id: $id) { ...ContactFields } } ${CONTACT}` },
  { method: 'POST', path: '/contacts', document: `mutation ($input: CreateContactInput!) { createContact(input: $input) { ...ContactFields } } ${CONTACT}` },
  { method: 'PUT', path: '/contacts/{id}', document: `mutation ($id: ID!, $input: UpdateContactInput!) { updateContact(id: $id, input: $input) { ...ContactFields } } ${CONTACT}` },
  { method: 'DELETE', path: '/contacts/{id}', document: 'mutation ($id: ID!) { deleteContact(id: $id) }' },
  restoreRoute('contacts', 'restoreContact', CONTACT),
  mergeRoute('contacts', 'mergeContacts', CONTACT),
);
