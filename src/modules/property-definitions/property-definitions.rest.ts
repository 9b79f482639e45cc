import { listDocument, routes } from '../../rest/route.js';
import { PROPERTY_DEFINITION_LIST } from './property-definitions.input.js';

const DEFINITION = 'fragment PropertyDefinitionFields on PropertyDefinition { id object key label type options isActive createdAt updatedAt }';

export const propertyDefinitionRoutes = routes(
  {
    method: 'GET',
    path: '/property-definitions',
    document: `${listDocument(PROPERTY_DEFINITION_LIST, 'propertyDefinitions', 'PropertyDefinitionFilter', '...PropertyDefinitionFields')} ${DEFINITION}`,
  },
  { method: 'GET', path: '/property-definitions/{id}', document: `query ($id: ID!) { propertyDefinition(id: $id) { ...PropertyDefinitionFields } } ${DEFINITION}` },
  {
    method: 'POST',
    path: '/property-definitions',
    document: `mutation ($input: CreatePropertyDefinitionInput!) { createPropertyDefinition(input: $input) { ...PropertyDefinitionFields } } ${DEFINITION}`,
  },
  {
    method: 'PUT',
    path: '/property-definitions/{id}',
    document: `mutation ($id: ID!, $input: UpdatePropertyDefinitionInput!) { updatePropertyDefinition(id: $id, input: $input) { ...PropertyDefinitionFields } } ${DEFINITION}`,
  },
  { method: 'DELETE', path: '/property-definitions/{id}', document: 'mutation ($id: ID!) { deletePropertyDefinition(id: $id) }' },
);
