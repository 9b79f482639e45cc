import { GraphQLError } from 'graphql';
import { isDatabaseBusy, isForeignKeyViolation, isRecordGone, isUniqueViolation } from '../db/errors.js';
import { type FieldErrors, Messages, snakeCase } from '../validation/messages.js';

/**
 * Every `extensions.code` a GraphQL error can carry (docs/api.md lists them): the codes of API.md section 4 and Yoga's own. Only the gate's errors (401, 429) set an HTTP
 * status for /graphql; the rest answer 200 with `errors`, as GraphQL clients expect.
 * The REST adapter maps codes to statuses; nothing ever parses an error's message.
 */
export const ErrorCode = {
  Unauthenticated: 'UNAUTHENTICATED',
  /** A key without the scope a field or route needs (API.md section 9). */
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  BadUserInput: 'BAD_USER_INPUT',
  /** The record's state refuses the action (a restore whose unique value was taken meanwhile): REST 409. */
  Conflict: 'CONFLICT',
  RateLimited: 'RATE_LIMITED',
  Internal: 'INTERNAL_SERVER_ERROR',
  /** The embedded database's write lock stayed taken by another process for the whole wait: try again (REST 503 with Retry-After). */
  Unavailable: 'SERVICE_UNAVAILABLE',
  /** A payment provider could not be reached, timed out or failed (REST 502). */
  ProviderUnreachable: 'PROVIDER_UNREACHABLE',
  /** A request GraphQL cannot read at all (not JSON, no query). */
  BadRequest: 'BAD_REQUEST',
  /** A document over the size, token, nesting, depth, alias or cost limits: refused before it runs. */
  LimitExceeded: 'QUERY_LIMIT_EXCEEDED',
  /** Yoga's own: the document is not GraphQL. */
  ParseFailed: 'GRAPHQL_PARSE_FAILED',
  /** Yoga's own: the document does not fit the schema (unknown field, missing argument). */
  ValidationFailed: 'GRAPHQL_VALIDATION_FAILED',
  /** Yoga's own: `operationName` names no operation of the document, or several need one. */
  OperationResolutionFailure: 'OPERATION_RESOLUTION_FAILURE',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export function notFound(resource: string): GraphQLError {
  return new GraphQLError(`${resource} not found.`, { extensions: { code: ErrorCode.NotFound } });
}

export function conflict(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.Conflict } });
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

/** `PaymentLink` as a message names it: "Payment link". */
const resourceName = (model: string) => model.replace(/(?<=[a-z])([A-Z])/g, (c) => ` ${c.toLowerCase()}`);

/** The columns of a violated unique constraint, from either driver adapter's report (SQLite lists them, PostgreSQL names the index). */
function uniqueColumns(meta: Record<string, any> | undefined): string[] {
  const constraint = meta?.driverAdapterError?.cause?.constraint;
  if (Array.isArray(constraint?.fields)) return constraint.fields;
  const index = typeof constraint?.index === 'string' ? /^[A-Za-z]+_(.+)_key$/.exec(constraint.index) : null;
  return index ? index[1]!.split('_') : [];
}

/**
 * What a client is told about an error a resolver threw, the one place Prisma's known
 * errors become contract errors: errors raised on purpose (and graphql-js's own) keep
 * their code; a write that lost a race gets the status of the rule it met (record gone:
 * NOT_FOUND; reference gone: BAD_USER_INPUT; unique value taken: BAD_USER_INPUT on that
 * field). Anything else is undefined: the caller masks it as an internal error.
 */
export function contractError(error: GraphQLError): GraphQLError | undefined {
  const original = error.originalError ?? error;
  if (original instanceof GraphQLError) return error;
  const meta = (original as { meta?: Record<string, any> }).meta;
  const located = (mapped: GraphQLError) => new GraphQLError(mapped.message, { path: error.path, nodes: error.nodes, extensions: mapped.extensions });
  if (isRecordGone(original)) return located(notFound(resourceName(String(meta?.modelName ?? 'Record'))));
  if (isForeignKeyViolation(original)) return located(invalidField('input', 'A record this request refers to was deleted meanwhile; nothing was saved.'));
  if (isDatabaseBusy(original)) return located(new GraphQLError('Service unavailable.', { extensions: { code: ErrorCode.Unavailable } }));
  if (isUniqueViolation(original)) {
    const field = snakeCase(uniqueColumns(meta).find((c) => c !== 'workspaceId') ?? 'input');
    return located(invalidField(field, Messages.taken(field)));
  }
  return undefined;
}
