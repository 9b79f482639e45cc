import type { z } from 'zod';
import type { Context } from '../graphql/context.js';
import { invalid } from '../graphql/errors.js';
import { type FieldErrors, noFieldErrors } from './messages.js';
import { jsonValueErrors } from './json-values.js';
import { fieldErrorsFrom } from './messages.js';

/**
 * Parses a resolver's input with its zod schema, the only place input rules live.
 * Call it before any write: it throws when anything is wrong, so bad input changes nothing.
 * Every problem is reported at once: zod's findings plus any wrong JSON types the
 * REST adapter found before execution (a field with a wrong type reports only that).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, ctx: Context, ...checked: FieldErrors[]): z.output<S> {
  const { data, errors } = inputErrors(schema, input, ctx, checked);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return data;
}

/**
 * parseInput, and when the input is refused anyway, what `alsoWhenRefused` finds joins
 * the answer (a unique value's lookup, `uniqueValue`): every problem at once, at no cost
 * to an accepted request.
 */
export async function parseInputReportingAll<S extends z.ZodType>(
  schema: S,
  input: unknown,
  ctx: Context,
  alsoWhenRefused: () => Promise<FieldErrors>,
  ...checked: FieldErrors[]
): Promise<z.output<S>> {
  const { data, errors } = inputErrors(schema, input, ctx, checked);
  if (Object.keys(errors).length === 0) return data;
  for (const [field, reasons] of Object.entries(await alsoWhenRefused())) errors[field] ??= reasons;
  throw invalid(errors);
}

function inputErrors<S extends z.ZodType>(schema: S, input: unknown, ctx: Context, checked: FieldErrors[]) {
  // reportInput tells a missing or null value ("required") from a wrong one.
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  const errors = result.success ? noFieldErrors() : fieldErrorsFrom(result.error.issues);
  Object.assign(errors, jsonValueErrors(input));
  // Checks against the database (unknown ids, property keys) join the same map.
  for (const more of checked) for (const [field, reasons] of Object.entries(more)) errors[field] ??= reasons;
  Object.assign(errors, ctx.inputTypeErrors);
  return { data: result.data as z.output<S>, errors };
}

