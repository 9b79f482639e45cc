import type { z } from 'zod';
import type { Context } from '../graphql/context.js';
import { type FieldErrors, invalid, noFieldErrors } from '../graphql/errors.js';
import { Messages, fieldErrorsFrom, fieldPath } from './messages.js';

/**
 * Parses a resolver's input with its zod schema, the only place input rules live.
 * Call it before any write: it throws when anything is wrong, so bad input changes nothing.
 * Every problem is reported at once: zod's findings plus any wrong JSON types the
 * REST adapter found before execution (a field with a wrong type reports only that).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, ctx: Context, ...checked: FieldErrors[]): z.output<S> {
  // reportInput tells a missing or null value ("required") from a wrong one.
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  const errors = result.success ? noFieldErrors() : fieldErrorsFrom(result.error.issues);
  for (const path of nulPaths(input)) errors[fieldPath(path)] = [Messages.nul(fieldPath(path))];
  // Checks against the database (unknown ids, property keys) join the same map.
  for (const more of checked) for (const [field, reasons] of Object.entries(more)) errors[field] ??= reasons;
  Object.assign(errors, ctx.inputTypeErrors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return result.data as z.output<S>;
}

/**
 * Where a value holds a NUL character (in a string or an object key): PostgreSQL cannot
 * store one in text or jsonb, so it is refused on both databases alike.
 */
export function nulPaths(value: unknown, path: PropertyKey[] = [], found: PropertyKey[][] = []): PropertyKey[][] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulPaths(item, [...path, i], found));
  } else if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push(path.length ? path : [key]);
      else nulPaths(item, [...path, key], found);
    }
  }
  return found;
}
