import { Response } from '@whatwg-node/fetch';
import { BREAK, type DocumentNode, type GraphQLSchema, Kind, OperationTypeNode, getOperationAST, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { BoundedCache } from '../http/bounded-cache.js';
import type { Metrics } from '../http/metrics.js';
import { headersOf } from '../http/responses.js';
import { traceOperation } from '../tracing/tracing.js';
import { jsonValueErrors } from '../validation/json-values.js';
import type { Context } from './context.js';
import { compiledQuery } from './operations.js';

/**
 * The Accept headers answered here, each with the media type Yoga answers it with (the
 * first type of the list it can serve); any other header is Yoga's to read.
 * test/repeated-queries.test.ts checks each against Yoga's own answer.
 */
const MEDIA_TYPE_BY_ACCEPT = new Map<string, string>([
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/json, */*', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
  ['application/graphql-response+json, application/json', 'application/graphql-response+json'],
  // Apollo Client's and urql's.
  ['application/graphql-response+json,application/json;q=0.9', 'application/graphql-response+json'],
  ['application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed', 'application/graphql-response+json'],
]);

/** The parameters a GraphQL request may have (GraphQL over HTTP); any other is Yoga's to refuse. */
type Params = { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown };
const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions']);

/** Whether a document asks for the schema itself (`__schema`, `__type`): GraphiQL's, once a page; Yoga runs those. */
function readsSchema(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.FIELD](node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Front ends send the same few queries again and again, and Yoga's pipeline (its request
 * and parameter handling, envelop's hooks, graphql-tools' executor, its result processing)
 * cost more than the query's own work (docs/performance.md). A JSON POST of a query whose
 * document Yoga has already parsed, validated and run (the same entry of its parse cache)
 * is answered here instead: compiled by graphql-jit once per document and operation, run
 * on the same schema and context, its result written as Yoga writes a result without errors.
 *
 * Only what Yoga would answer 200 with the same bytes is answered here. Everything else is
 * Yoga's, as before: a batch, an Accept header not in the table, a mutation or a
 * subscription, a document not yet run by Yoga or asking for the schema, an unexpected
 * parameter, variables the limits refuse, and a result with errors. A query changes
 * nothing, so one whose compiled run gave errors runs again in Yoga, which answers with its
 * own errors, masked and logged as every other. The compiled documents are bounded by the
 * parse cache: an entry goes when its document leaves the cache.
 */
export function repeatedQueries(schema: GraphQLSchema, documents: BoundedCache<DocumentNode>, metrics?: Pick<Metrics, 'graphqlOperation'>) {
  const ranByYoga = new WeakSet<DocumentNode>();
  const schemaReaders = new WeakMap<DocumentNode, boolean>();
  let answered = 0;

  /** Yoga's hook: a document it validated and is about to run. */
  const plugin: Plugin = {
    onExecute({ args }) {
      ranByYoga.add(args.document);
    },
  };

  /** The answer to a JSON POST's parsed body, or undefined: Yoga's to answer. */
  async function answer(request: Request, body: object, context: Context, headers: Record<string, string>): Promise<Response | undefined> {
    const mediaType = MEDIA_TYPE_BY_ACCEPT.get(request.headers.get('accept') ?? '*/*');
    if (mediaType === undefined || Array.isArray(body) || !Object.keys(body).every((name) => PARAMETERS.has(name))) return undefined;
    const { query, variables, operationName, extensions } = body as Params;
    if (typeof query !== 'string' || extensions != null) return undefined;
    if (operationName != null && typeof operationName !== 'string') return undefined;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
    const document = documents.get(query);
    if (document === undefined || !ranByYoga.has(document)) return undefined;
    const operation = getOperationAST(document, operationName ?? undefined);
    if (operation?.operation !== OperationTypeNode.QUERY) return undefined;
    let readerOfSchema = schemaReaders.get(document);
    if (readerOfSchema === undefined) schemaReaders.set(document, (readerOfSchema = readsSchema(document)));
    if (readerOfSchema) return undefined;
    const values = (variables ?? {}) as Record<string, unknown>;
    // The limits Yoga's onParams applies (src/graphql/yoga.ts): a refusal is its to word.
    if (Object.keys(jsonValueErrors(values)).length > 0) return undefined;
    const compiled = compiledQuery(schema, document, operationName ?? undefined);
    if (!compiled) return undefined;
    let result;
    try {
      result = await traceOperation(document, operationName as string | undefined, () => compiled.query(undefined, context, values));
    } catch {
      return undefined; // whatever it was, Yoga's run states it
    }
    if (result.errors?.length) return undefined;
    answered += 1;
    metrics?.graphqlOperation(operation.name?.value, 'ok');
    return new Response(JSON.stringify(result), { status: 200, headers: headersOf({ 'Content-Type': `${mediaType}; charset=utf-8`, ...headers }) });
  }

  return {
    plugin,
    answer,
    /** How many requests were answered here (the tests' way to tell the two paths apart). */
    get answered() {
      return answered;
    },
  };
}
