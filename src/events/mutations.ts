import { GraphQLError, type GraphQLSchema, defaultFieldResolver } from 'graphql';
import type { Context } from '../graphql/context.js';
import { writeWithEvents } from './outbox.js';
import type { Represent } from './representation.js';

/**
 * A mutation's work that must happen outside any transaction, before its write (a payment
 * provider's check of credentials): declared as the field's `extensions.prepare`. Its
 * result reaches the resolver as `context.prepared.get(fieldName)`.
 */
export type Prepare = (args: Record<string, unknown>, context: Context) => Promise<unknown>;

/** What a preparing run (`context.preparing`) ends with once the preparation succeeded. */
export const PREPARED = 'PREPARED';

/**
 * Every GraphQL mutation, and so every REST write (each runs one), writes through
 * `writeWithEvents`: wrapped here once, over the finished schema, so no resolver can
 * write without recording. The resolver's context keeps its identity (Pothos keys its
 * relation loading on it) and holds the transaction's client while the resolver runs.
 */
export function recordEventsOfEveryMutation(schema: GraphQLSchema, represent: Represent): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    const prepare = field.extensions?.prepare as Prepare | undefined;
    field.resolve = async (root, args, context: Context, info) => {
      if (prepare) {
        context.prepared ??= new Map();
        if (!context.prepared.has(field.name)) {
          // Inside a caller's transaction (an Idempotency-Key's), the REST adapter prepared first: not here, never inside one.
          if (context.afterCommit) throw new Error(`${field.name} must be prepared before any transaction`);
          context.prepared.set(field.name, await prepare(args, context));
        }
        if (context.preparing) throw new GraphQLError('prepared', { extensions: { code: PREPARED } });
      }
      const outside = context.db;
      context.represent = represent;
      const awaited: Promise<unknown>[] = [];
      context.awaitedAfterCommit = awaited;
      try {
        const { result } = await writeWithEvents(context, represent, { actor: context.actor, requestId: context.requestId }, async (db) => {
          context.db = db;
          return resolve(root, args, context, info);
        });
        // What the commit started (a provider call) is part of the answer.
        await Promise.all(awaited);
        return result;
      } finally {
        context.db = outside;
      }
    };
  }
  return schema;
}
