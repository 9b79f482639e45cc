// Every resource, registered once: importing a module's schema file adds its types,
// queries and mutations to the builder; its routes join the REST table.
import './users/users.schema.js';
import './property-definitions/property-definitions.schema.js';
import './products/products.schema.js';
import './companies/companies.schema.js';
import './contacts/contacts.schema.js';
import './pipelines/pipelines.schema.js';
import './deals/deals.schema.js';
import './tasks/tasks.schema.js';
import './tickets/tickets.schema.js';
import './notes/notes.schema.js';
import './payment-provider-accounts/payment-provider-accounts.schema.js';
import './payment-links/payment-links.schema.js';
import './payment-coupons/payment-coupons.schema.js';
import './payment-transactions/payment-transactions.schema.js';
import './refunds/refunds.schema.js';
import './workspaces/workspaces.schema.js';
import './webhook-endpoints/webhook-endpoints.schema.js';
import './checkouts/checkouts.schema.js';
import './reports/reports.schema.js';
import './search/search.schema.js';
import './timeline/timeline.schema.js';
import './trash/trash.schema.js';
import './merge/merge.schema.js';
import './duplicates/duplicates.schema.js';
// Last: it adds `history` to every record type above.
import './events/events.schema.js';
import { companyRoutes } from './companies/companies.rest.js';
import { contactRoutes } from './contacts/contacts.rest.js';
import { eventRoutes } from './events/events.rest.js';
import { webhookEndpointRoutes } from './webhook-endpoints/webhook-endpoints.rest.js';
import { dealRoutes } from './deals/deals.rest.js';
import { paymentCouponRoutes } from './payment-coupons/payment-coupons.rest.js';
import { paymentLinkRoutes } from './payment-links/payment-links.rest.js';
import { paymentProviderAccountRoutes } from './payment-provider-accounts/payment-provider-accounts.rest.js';
import { paymentTransactionRoutes, providerWebhookRoutes } from './payment-transactions/payment-transactions.rest.js';
import { checkoutRoutes } from './checkouts/checkouts.rest.js';
import { refundRoutes } from './refunds/refunds.rest.js';
import { pipelineRoutes } from './pipelines/pipelines.rest.js';
import { productRoutes } from './products/products.rest.js';
import { reportRoutes } from './reports/reports.rest.js';
import { searchRoutes } from './search/search.rest.js';
import { propertyDefinitionRoutes } from './property-definitions/property-definitions.rest.js';
import { taskRoutes } from './tasks/tasks.rest.js';
import { timelineRoutes } from './timeline/timeline.rest.js';
import { trashRoutes } from './trash/trash.rest.js';
import { duplicateRoutes } from './duplicates/duplicates.rest.js';
import { noteRoutes } from './notes/notes.rest.js';
import { ticketRoutes, ticketStatusRoutes } from './tickets/tickets.rest.js';
import { userRoutes } from './users/users.rest.js';
import { workspaceRoutes } from './workspaces/workspaces.rest.js';

export const restRoutes = [
  ...workspaceRoutes,
  ...userRoutes,
  ...propertyDefinitionRoutes,
  ...productRoutes,
  ...companyRoutes,
  ...contactRoutes,
  ...pipelineRoutes,
  ...dealRoutes,
  ...taskRoutes,
  ...ticketStatusRoutes,
  ...ticketRoutes,
  ...noteRoutes,
  ...timelineRoutes,
  ...trashRoutes,
  ...duplicateRoutes,
  ...paymentProviderAccountRoutes,
  ...paymentLinkRoutes,
  ...paymentCouponRoutes,
  ...paymentTransactionRoutes,
  ...refundRoutes,
  ...eventRoutes,
  ...webhookEndpointRoutes,
  ...reportRoutes,
  ...searchRoutes,
];

/** The routes that take no key (API.md section 7): the payer's, and the providers' signed webhooks. */
export const publicRoutes = [...checkoutRoutes, ...providerWebhookRoutes];
