import { lexicographicSortSchema, printSchema } from 'graphql';
import { enforceScopes, routeScope } from './auth/scopes.js';
import { recordEventsOfEveryMutation } from './events/mutations.js';
import { createRepresentation } from './events/representation.js';
import { builder } from './graphql/builder.js';
// Importing the modules registers every resource's types, queries and mutations.
import { restRoutes } from './modules/index.js';

const built = builder.toSchema();

/** A record as its REST GET answers it (an event's `data.object`). */
export const represent = createRepresentation(built, restRoutes);

/** The resource (as scopes name it) of each root field no keyed REST route runs. */
const GRAPHQL_ONLY_RESOURCES: Record<string, string> = {
  publicPaymentLink: 'payment-links',
  checkoutQuote: 'payment-links',
  checkout: 'payment-links',
  createCheckout: 'payment-links',
  deletePaymentLink: 'payment-links',
  updatePaymentProviderAccount: 'payment-provider-accounts',
  deletePaymentProviderAccount: 'payment-provider-accounts',
  recordProviderEvent: 'payment-transactions',
};

/** Each root field's resource: the path of the REST routes that run it, else the list above. */
function resourceOfRootField(): (field: string) => string | undefined {
  const resources = new Map<string, string>();
  for (const route of restRoutes) {
    const field = /\{\s*(\w+)/.exec(route.document.slice(route.document.indexOf('{')))![1]!;
    const { resource } = routeScope(route);
    if (resources.has(field) && resources.get(field) !== resource) throw new Error(`${field} runs routes of two resources`);
    resources.set(field, resource);
  }
  return (field) => resources.get(field) ?? GRAPHQL_ONLY_RESOURCES[field];
}

export const schema = enforceScopes(recordEventsOfEveryMutation(built, represent), resourceOfRootField());

/** The schema as `schema.graphql` holds it (sorted, so diffs are stable). */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
