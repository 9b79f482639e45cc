import type { GraphQLSchema } from 'graphql';
import type { Context } from '../graphql/context.js';
import { runOperation } from '../graphql/operations.js';
import { type CompiledDocument, compileDocument } from '../rest/documents.js';
import type { RestRoute } from '../rest/route.js';
import { EVENT_RESOURCES, EVENT_RESOURCE_NAMES, type EventResource } from './resources.js';

export type RestObject = Record<string, unknown>;

/**
 * A record exactly as its REST GET answers it: the GET route's own document runs with
 * the caller's context (so, inside a write, with the write's transaction), so an
 * event's `data.object` and the GET can never drift apart.
 */
export function createRepresentation(schema: GraphQLSchema, routes: RestRoute[]) {
  // Each document is compiled on its resource's first event, as the REST adapter compiles on a route's first request.
  const documents = new Map<EventResource, { route: RestRoute; compiled?: CompiledDocument }>();
  for (const resource of EVENT_RESOURCE_NAMES) {
    const route = routes.find((r) => r.method === 'GET' && r.path === EVENT_RESOURCES[resource].path);
    if (!route) throw new Error(`events: no GET ${EVENT_RESOURCES[resource].path} route gives the ${resource} representation`);
    documents.set(resource, { route });
  }

  /** The record's REST body, or null when it does not exist (in the context's workspace). */
  return async function represent(resource: EventResource, id: string, context: Context): Promise<RestObject | null> {
    const document = documents.get(resource)!;
    const { route } = document;
    const compiled = (document.compiled ??= compileDocument(schema, route.document, `GET ${route.path}`));
    const result = await runOperation(schema, compiled.document, { id }, context);
    if (!result.ok) {
      if (result.status === 404) return null;
      throw result.thrown;
    }
    return (route.unwrap ? route.unwrap(result.data) : Object.values(result.data)[0]) as RestObject;
  };
}

export type Represent = ReturnType<typeof createRepresentation>;
