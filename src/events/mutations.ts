import { type GraphQLSchema, defaultFieldResolver } from 'graphql';
import type { Context } from '../graphql/context.js';
import { writeWithEvents } from './outbox.js';
import type { Represent } from './representation.js';

/**
 * Every GraphQL mutation, and so every REST write (each runs one), writes through
 * `writeWithEvents`: wrapped here once, over the finished schema, so no resolver can
 * write without recording. The resolver's context keeps its identity (Pothos keys its
 * relation loading on it) and holds the transaction's client while the resolver runs.
 */
export function recordEventsOfEveryMutation(schema: GraphQLSchema, represent: Represent): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = async (root, args, context: Context, info) => {
      const outside = context.db;
      context.represent = represent;
      try {
        const { result } = await writeWithEvents(context, represent, { actor: context.actor, requestId: context.requestId }, async (db) => {
          context.db = db;
          return resolve(root, args, context, info);
        });
        return result;
      } finally {
        context.db = outside;
      }
    };
  }
  return schema;
}
