// Every resource, registered once: importing a module's schema file adds its types,
// queries and mutations to the builder; its routes join the REST table.
import './users/users.schema.js';
import './property-definitions/property-definitions.schema.js';
import './products/products.schema.js';
import './companies/companies.schema.js';
import './contacts/contacts.schema.js';
import './pipelines/pipelines.schema.js';
import './deals/deals.schema.js';
import { companyRoutes } from './companies/companies.rest.js';
import { contactRoutes } from './contacts/contacts.rest.js';
import { dealRoutes } from './deals/deals.rest.js';
import { pipelineRoutes } from './pipelines/pipelines.rest.js';
import { productRoutes } from './products/products.rest.js';
import { propertyDefinitionRoutes } from './property-definitions/property-definitions.rest.js';
import { userRoutes } from './users/users.rest.js';

export const restRoutes = [
  ...userRoutes,
  ...propertyDefinitionRoutes,
  ...productRoutes,
  ...companyRoutes,
  ...contactRoutes,
  ...pipelineRoutes,
  ...dealRoutes,
];
