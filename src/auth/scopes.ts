import { type GraphQLSchema, defaultFieldResolver, isNonNullType } from 'graphql';
import type { Context } from '../graphql/context.js';
import { ErrorCode } from '../graphql/errors.js';
import { GraphQLError } from 'graphql';

/**
 * API key scopes (API.md section 9): `read` (every GET and GraphQL query), `write`
 * (everything; a key's default), or per resource `<resource>:read` / `<resource>:write`
 * with the resources named as the REST paths name them; `write` includes `read`.
 */
export type Access = 'read' | 'write';
export interface Scope {
  resource: string;
  access: Access;
}

/** The resources a scope can name: the first segment of every keyed REST path. */
export const SCOPE_RESOURCES = [
  'workspace', 'users', 'property-definitions', 'products', 'companies', 'contacts', 'pipelines', 'deals', 'tasks',
  'ticket-statuses', 'tickets', 'notes', 'payment-provider-accounts', 'payment-links', 'payment-coupons', 'payment-transactions', 'refunds',
  'events', 'webhook-endpoints', 'webhook-deliveries',
] as const;

export const FORBIDDEN_MESSAGE = 'This action is unauthorized.';

/** A key's scopes, parsed; `undefined` for an unknown scope (its text is in `invalid`). */
export function parseScopes(text: string): { scopes: string[]; invalid: string[] } {
  const scopes = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
  const valid = (s: string) => s === 'read' || s === 'write' || /^([a-z-]+):(read|write)$/.test(s) && (SCOPE_RESOURCES as readonly string[]).includes(s.split(':')[0]!);
  return { scopes, invalid: scopes.filter((s) => !valid(s)) };
}

/** The resource of what any key may read (search: the resolver leaves out what the key cannot read). */
export const ANY_RESOURCE = '*';

/** Whether a key holding `scopes` may do `needed`. */
export function allows(scopes: readonly string[], needed: Scope): boolean {
  // Every scope reads something ("write" included); a route of any resource that writes (the trash's purge) needs a scope that writes something, and checks the resource itself.
  if (needed.resource === ANY_RESOURCE) return needed.access === 'read' ? scopes.length > 0 : scopes.some((s) => s === 'write' || s.endsWith(':write'));
  return scopes.some(
    (s) =>
      s === 'write' ||
      (s === 'read' && needed.access === 'read') ||
      s === `${needed.resource}:write` ||
      (s === `${needed.resource}:read` && needed.access === 'read'),
  );
}

/** A REST route's scope: its resource (by default its path's first segment); GET reads, anything else writes. */
export const routeScope = (route: { method: string; path: string; resource?: string }): Scope => ({
  resource: route.resource ?? route.path.split('/')[1]!,
  access: route.method === 'GET' ? 'read' : 'write',
});

export const forbidden = () => new GraphQLError(FORBIDDEN_MESSAGE, { extensions: { code: ErrorCode.Forbidden } });

/**
 * Every root field of the schema checks its scope before it resolves: one FORBIDDEN
 * error per field out of the key's scopes, the others resolve. `scopeOf` names each
 * field's resource (src/graphql/schema.ts derives it from the REST routes); a field it
 * cannot name stops the start, so nothing is unscoped.
 */
export function enforceScopes(schema: GraphQLSchema, resourceOf: (field: string) => string | undefined): GraphQLSchema {
  for (const [type, access] of [[schema.getQueryType(), 'read'], [schema.getMutationType(), 'write'], [schema.getSubscriptionType(), 'read']] as const) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const resource = resourceOf(field.name);
      if (!resource) throw new Error(`GraphQL root field ${field.name} has no scope: name its resource in src/graphql/schema.ts`);
      const needed: Scope = { resource, access };
      const resolve = field.resolve ?? defaultFieldResolver;
      field.extensions = { ...field.extensions, scope: needed };
      // Nullable, so one field's error (FORBIDDEN, NOT_FOUND) leaves the others' data in the answer.
      if (isNonNullType(field.type)) field.type = field.type.ofType;
      field.resolve = (root, args, context: Context, info) => {
        if (context.scopes && !allows(context.scopes, needed)) throw forbidden();
        return resolve(root, args, context, info);
      };
      // A subscription's stream opens in `subscribe`: checked there, before anything is read.
      const subscribe = field.subscribe;
      if (subscribe) {
        field.subscribe = (root, args, context: Context, info) => {
          if (context.scopes && !allows(context.scopes, needed)) throw forbidden();
          return subscribe(root, args, context, info);
        };
      }
    }
  }
  return schema;
}
