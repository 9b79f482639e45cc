import { routes } from '../../rest/route.js';

const DEFINITION = 'fragment PropertyDefinitionFields on PropertyDefinition { id object key label type options isActive createdAt updatedAt }';

export const propertyDefinitionRoutes = routes(
  {
    method: 'GET',
    path: '/property-definitions',
    document: `query ($page: Int, $perPage: Int, $filter: PropertyDefinitionFilter) {
      propertyDefinitions(page: $page, perPage: $perPage, filter: $filter) { currentPage perPage total lastPage data { ...PropertyDefinitionFields } }
    } ${DEFINITION}`,
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
