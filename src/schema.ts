import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { enforceScopes, routeScope } from './auth/scopes.js';
import { recordEventsOfEveryMutation } from './events/mutations.js';
import { type Represent, createRepresentation } from './events/representation.js';
import { builder } from './graphql/builder.js';
// Importing the modules registers every resource's types, queries and mutations (nothing is built until buildSchema).
import { restRoutes } from './modules/index.js';

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

/** The service's schema, and its representation of a record as its REST GET answers it (an event's `data.object`). */
export interface ServiceSchema {
  schema: GraphQLSchema;
  represent: Represent;
}

/**
 * Builds the schema from every module's types (about 0.2 s): the write path wraps each
 * mutation, the key's scopes each root field. Called by the composition root
 * (src/service.ts), once per process, never at import.
 */
export function buildSchema(): ServiceSchema {
  const built = builder.toSchema();
  const represent = createRepresentation(built, restRoutes);
  return { schema: enforceScopes(recordEventsOfEveryMutation(built, represent), resourceOfRootField()), represent };
}

/** The schema as `schema.graphql` holds it (sorted, so diffs are stable). */
export const printedSchema = (schema: GraphQLSchema) => `${printSchema(lexicographicSortSchema(schema))}\n`;
