import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, createSourceEventStream, execute } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { traceOperation } from '../tracing/tracing.js';
import type { Context } from './context.js';
import { ErrorCode, type ErrorCodeValue, codeOf, contractError } from './errors.js';

/**
 * The HTTP status of every error code. An in-process document is ours and checked at
 * start, so a request or document error running one is our bug: a 500.
 */
export const STATUS_BY_CODE: Record<ErrorCodeValue, number> = {
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.BadUserInput]: 422,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Internal]: 500,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.ProviderUnreachable]: 502,
  [ErrorCode.BadRequest]: 500,
  [ErrorCode.LimitExceeded]: 500,
  [ErrorCode.ParseFailed]: 500,
  [ErrorCode.ValidationFailed]: 500,
  [ErrorCode.OperationResolutionFailure]: 500,
};

/**
 * What an operation run in-process gave: its data, or its first error as the contract
 * states it (Prisma's known errors mapped once, by `contractError`) with its HTTP status;
 * `error` is undefined and `status` 500 for anything unexpected. `thrown` is what was
 * thrown, for a caller that retries a lost race or rethrows.
 */
export type OperationResult =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; status: number; error: GraphQLError | undefined; thrown: unknown };

/**
 * Each document compiled once per schema and operation by graphql-jit: a compiled one runs
 * a REST read in about 10% less CPU than graphql-js's `execute`, which interprets the
 * document anew on every request (docs/performance.md). Only documents already known to
 * be valid come here: the service's own (a route's, a page's, an event representation's,
 * an import's, few and fixed) and those Yoga has validated and run for a client (at most
 * its parse cache's, src/graphql/repeated-queries.ts); an entry goes with its document.
 * null: graphql-jit cannot compile it (none of ours), and graphql-js runs it.
 */
const compiledQueries = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, CompiledQuery | null>>>();

export function compiledQuery(schema: GraphQLSchema, document: DocumentNode, operationName?: string): CompiledQuery | null {
  let bySchema = compiledQueries.get(schema);
  if (!bySchema) compiledQueries.set(schema, (bySchema = new WeakMap()));
  let byOperation = bySchema.get(document);
  if (!byOperation) bySchema.set(document, (byOperation = new Map()));
  let compiled = byOperation.get(operationName ?? '');
  if (compiled === undefined) {
    const result = compileQuery(schema, document, operationName);
    compiled = isCompiledQuery(result) ? result : null;
    byOperation.set(operationName ?? '', compiled);
  }
  return compiled;
}

/**
 * `value` without its objects' undefined properties, as graphql-js reads variables (an
 * undefined field is absent) and graphql-jit does not (a present field must hold a value).
 * Only the service's own callers pass undefined (JSON has none): the same object when none.
 */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withoutUndefined);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  // Plain objects only: a Date or a Decimal is a value, not a map of fields.
  const proto = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  // The copy starts at the first field dropped or changed; with none (the usual case, a REST route's `{ id }`) nothing is copied.
  let kept: [string, unknown][] | undefined;
  keys.forEach((key, i) => {
    const field = object[key];
    const next = field === undefined ? undefined : withoutUndefined(field);
    if (!kept && (field === undefined || next !== field)) kept = keys.slice(0, i).map((before) => [before, object[before]]);
    if (kept && next !== undefined) kept.push([key, next]);
  });
  if (!kept) return value;
  // fromEntries defines each key (a `__proto__` key stays a key), and the copy keeps the original's
  // prototype: a map of a client's keys has none.
  return Object.setPrototypeOf(Object.fromEntries(kept), proto);
}

/**
 * The one way the service runs a GraphQL operation in-process (the REST adapter, the pay
 * pages, the CSV import, an event's representation): the same schema, rules and errors as
 * a request to /graphql. `document` is kept by the caller and given again (it is compiled once).
 */
export async function runOperation(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, context: Context): Promise<OperationResult> {
  let result;
  try {
    const compiled = compiledQuery(schema, document);
    result = await traceOperation(document, undefined, () =>
      compiled
        ? compiled.query(undefined, context, withoutUndefined(variables) as Record<string, unknown>)
        : execute({ schema, document, variableValues: variables, contextValue: context }),
    );
  } catch (thrown) {
    return { ok: false, status: 500, error: undefined, thrown };
  }
  const raised = result.errors?.[0];
  if (!raised) return { ok: true, data: result.data as Record<string, unknown> };
  return failed(raised);
}

/**
 * A subscription run in-process (the REST event stream): the events its subscribe resolver
 * yields, as they are, without running the document for each (the caller writes them), or
 * the error that stopped it before the first, as `runOperation` states errors.
 */
export async function runSubscription(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: Context,
): Promise<{ ok: true; results: AsyncGenerator<unknown> } | Extract<OperationResult, { ok: false }>> {
  let result;
  try {
    result = await createSourceEventStream({ schema, document, variableValues: variables, contextValue: context });
  } catch (thrown) {
    return { ok: false, status: 500, error: undefined, thrown };
  }
  if (Symbol.asyncIterator in result) return { ok: true, results: result as AsyncGenerator<unknown> };
  return failed((result as ExecutionResult).errors?.[0] ?? new GraphQLError('A subscription gave no stream.'));
}

/** An operation's first error as the contract states it, with its HTTP status. */
function failed(raised: GraphQLError): Extract<OperationResult, { ok: false }> {
  const error = contractError(raised);
  const code = error && codeOf(error);
  const status = code ? (STATUS_BY_CODE[code as ErrorCodeValue] ?? 500) : 500;
  return { ok: false, status, error: status < 500 || status === 502 || status === 503 ? error : undefined, thrown: raised.originalError ?? raised };
}
