import { GraphQLError } from 'graphql';

/** Field name (snake_case, dotted for nested) to the reasons it was refused. */
export type FieldErrors = Record<string, string[]>;

/**
 * The error codes of API.md section 4. Only the gate's errors (401, 429) set an HTTP
 * status for /graphql; the rest answer 200 with `errors`, as GraphQL clients expect.
 * The REST adapter maps codes to statuses; nothing ever parses an error's message.
 */
export const ErrorCode = {
  Unauthenticated: 'UNAUTHENTICATED',
  NotFound: 'NOT_FOUND',
  BadUserInput: 'BAD_USER_INPUT',
  RateLimited: 'RATE_LIMITED',
  Internal: 'INTERNAL_SERVER_ERROR',
} as const;

export function notFound(resource: string): GraphQLError {
  return new GraphQLError(`${resource} not found.`, { extensions: { code: ErrorCode.NotFound } });
}

export function invalid(errors: FieldErrors): GraphQLError {
  return new GraphQLError('The given data was invalid.', {
    extensions: { code: ErrorCode.BadUserInput, errors },
  });
}

/** One field's error, for rules checked against the database (unknown ids, conflicts). */
export function invalidField(field: string, reason: string): GraphQLError {
  return invalid({ [field]: [reason] });
}

export function unauthenticated(): GraphQLError {
  return new GraphQLError('Unauthenticated.', {
    extensions: { code: ErrorCode.Unauthenticated, http: { status: 401 } },
  });
}

export function rateLimited(retryAfterSeconds: number): GraphQLError {
  return new GraphQLError('Too Many Attempts.', {
    extensions: { code: ErrorCode.RateLimited, http: { status: 429, headers: { 'Retry-After': String(retryAfterSeconds) } } },
  });
}

export function codeOf(error: { extensions?: Record<string, unknown> }): string | undefined {
  const code = error.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}
