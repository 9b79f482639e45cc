import { STATUS_CODES } from 'node:http';
import { Request, Response } from '@whatwg-node/fetch';
import { GraphQLError, type GraphQLSchema, Kind, getOperationAST } from 'graphql';
import { type Plugin, createYoga } from 'graphql-yoga';
import { BoundedCache } from '../http/bounded-cache.js';
import type { Metrics } from '../http/metrics.js';
import type { RequestFacts } from '../http/request-facts.js';
import { headersOf, readBody } from '../http/responses.js';
import { logError } from '../log.js';
import { traceOperation, tracingStarted } from '../tracing/tracing.js';
import type { Admission, Admit, Context } from './context.js';
import { parseWithinLimits } from './document-limits.js';
import { jsonValueErrors } from '../validation/json-values.js';
import { Messages } from '../validation/messages.js';
import { type FieldErrors, noFieldErrors } from '../validation/messages.js';
import { ErrorCode, contractError, invalid } from './errors.js';
import { withKeyBar } from './graphiql-key.js';
import { limitsRule } from './limits.js';
import { readGraphQLRequest } from './read-request.js';
import { repeatedQueries } from './repeated-queries.js';

interface ServerContext {
  /** The caller, admitted by the gate before Yoga saw the request. */
  admitted: Context;
  /** A JSON POST's body, parsed by readGraphQLRequest: Yoga takes it as its request's params. */
  json?: object;
}

/** Parsed documents (and parse errors) kept for reuse: at most 1,000, and 4 MB of document text. */
export const PARSE_CACHE_LIMITS = { entries: 1_000, chars: 4_000_000 };

/** A GraphQL error response that Yoga never sees (the gate's 401 and 429, the body limit's 413). */
function refusal(status: number, message: string, code: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: headersOf({ 'Content-Type': 'application/json; charset=utf-8', ...headers }),
  });
}

/**
 * A server error is logged when its result is ready, with the id of the request it
 * answers (`logServerErrors`); until then its cause is kept here, beside the masked error
 * a client sees. Yoga logs every error it masks too: those are known here and skipped.
 */
const causes = new WeakMap<GraphQLError, unknown>();
const masked = new WeakSet<object>();

/** Yoga's own log lines, as ours (one JSON line, no stack trace), for what no result carries. */
function yogaLog(...args: unknown[]): void {
  const error = args.find((a) => a instanceof Error) ?? new Error(String(args[0]));
  if (!(error instanceof GraphQLError) && !masked.has(error)) logError('none', error, 'graphql (yoga)');
}

/**
 * The field map of a variable graphql-js refused (wrong type, missing): keyed by the
 * variable's name, as the other variable errors are, with graphql-js's own reason (which
 * names the path inside the value). API.md: BAD_USER_INPUT carries the map for these too.
 */
function variableErrors(error: GraphQLError): FieldErrors | undefined {
  const node = error.nodes?.[0];
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return undefined;
  const errors = noFieldErrors();
  errors[node.variable.name.value] = [error.message];
  return errors;
}

/** GraphiQL's tabs on a first visit, each named by its operation (the key comes from the page's key bar: src/graphql/graphiql-key.ts). */
export const GRAPHIQL_TABS = [
  { query: '# Enter your API key in the bar above, then run:\nquery FirstContacts {\n  contacts(perPage: 5) {\n    total\n    data { id email }\n  }\n}\n' },
  {
    query: '# Live updates: run this, then create a contact in the next tab; its event arrives here.\nsubscription ContactEvents {\n  events(types: ["contact.*"]) {\n    id\n    type\n    recordId\n    createdAt\n    data\n  }\n}\n',
  },
  {
    query: '# Creates a contact: the subscription in the previous tab shows its contact.created event.\nmutation CreateAda {\n  createContact(input: { firstName: "Ada", email: "ada@example.com" }) {\n    id\n    email\n  }\n}\n',
  },
];

/** A browser asking for the page itself: GraphiQL, served without a key (it runs nothing). */
const wantsGraphiQL = (request: Request) => request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');

/**
 * The GraphQL face: Yoga at /graphql with GraphiQL. The key is checked before Yoga
 * parses, validates or caches anything, so a caller without a key costs one hash
 * lookup and learns nothing about the schema; the body limit holds while streaming.
 */
/**
 * Each operation counted by name and outcome (a batch's one by one), when metrics are
 * kept. The name is the executed operation's, from the parsed document; an operation that
 * never ran (unparsable, invalid) is counted under the `operationName` it was sent with.
 * The hooks meet on Yoga's context, one object per operation.
 */
function countOperations(metrics: Metrics): Plugin {
  const names = new WeakMap<object, string | undefined>();
  return {
    onParams({ params, context }) {
      names.set(context, params.operationName ?? undefined);
    },
    onExecute({ args }) {
      names.set(args.contextValue as object, getOperationAST(args.document, args.operationName)?.name?.value);
    },
    onExecutionResult({ result, context }) {
      const failed = result !== undefined && 'errors' in result && (result.errors?.length ?? 0) > 0;
      metrics.graphqlOperation(names.get(context), failed ? 'error' : 'ok');
    },
  };
}

/** Each executed operation (a batch's one by one) in a span of its own, when the process traces. */
const traceOperations: Plugin = {
  onExecute({ executeFn, setExecuteFn }) {
    setExecuteFn((args) => traceOperation(args.document, args.operationName, () => executeFn(args)));
  },
};

export function createGraphQL(schema: GraphQLSchema, gate: Admit, metrics?: Metrics) {
  const documentCache = new BoundedCache<any>(PARSE_CACHE_LIMITS.entries, PARSE_CACHE_LIMITS.chars);
  const repeated = repeatedQueries(schema, documentCache, metrics);
  const errorCache = new BoundedCache<unknown>(PARSE_CACHE_LIMITS.entries, PARSE_CACHE_LIMITS.chars);

  // Yoga's request parsers run first and pick one by the content type; for JSON, this one hands over the body handle() parsed.
  const parsedBody: Plugin<{}, ServerContext> = {
    onRequestParse({ serverContext, setRequestParser }) {
      const json = serverContext?.json;
      if (json) setRequestParser(() => json as never);
    },
  };

  const limits: Plugin = {
    // NUL characters and over-deep JSON are refused before anything reads the request:
    // in variables here (PostgreSQL can store no NUL; deep values would overflow
    // recursive code), in the document's literals by the lexer limits and just below.
    onParams({ params, setResult }) {
      const errors = jsonValueErrors(params.variables ?? {});
      if (/\\u0000|\u0000/.test(params.query ?? '')) errors.query = [Messages.nul('query')];
      if (Object.keys(errors).length > 0) setResult({ errors: [invalid(errors)] });
    },
    onParse({ setParseFn }) {
      setParseFn(parseWithinLimits);
    },
    onValidate({ addValidationRule }) {
      addValidationRule(limitsRule);
    },
  };

  // Every result, a batch's too, passes here with the request it answers: one error line per server error.
  const logServerErrors: Plugin<{}, ServerContext> = {
    onResultProcess({ result, serverContext }) {
      const requestId = serverContext.admitted?.requestId ?? 'none';
      for (const single of Array.isArray(result) ? result : [result]) {
        for (const error of ('errors' in single ? single.errors : undefined) ?? []) {
          if (causes.has(error)) logError(requestId, causes.get(error), error.path?.join('.') ?? 'graphql');
        }
      }
    },
  };

  const yoga = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // CORS is ours (src/http/cors.ts, one rule for both faces); Yoga's would let any origin in with credentials.
    cors: false,
    // GraphiQL from our own dependency (no CDN: it works offline). Loaded on the page's first visit:
    // the bundle it embeds is ~35 MB of heap that a process serving only the API never needs.
    // The page asks for the key once, in a bar above GraphiQL, for every tab (graphiql-key.ts).
    renderGraphiQL: async (options) => withKeyBar((await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options)),
    graphiql: {
      title: 'Salesgraph GraphQL',
      defaultQuery: GRAPHIQL_TABS[0]!.query,
      // A newcomer's first steps: read, follow the live events, write (and see the event arrive in the second tab).
      defaultTabs: GRAPHIQL_TABS,
    },
    batching: { limit: 10 },
    // The body is read within MAX_BODY_BYTES before Yoga sees it (handle, below); Yoga's
    // own limit would pipe every body through a second stream to count it again.
    maxRequestBodySize: false,
    parserAndValidationCache: { documentCache, errorCache },
    plugins: [parsedBody, limits, logServerErrors, repeated.plugin, ...(metrics ? [countOperations(metrics)] : []), ...(tracingStarted() ? [traceOperations] : [])],
    context: ({ admitted }) => admitted,
    // Yoga's own log lines go out as ours (one JSON line, no stack trace); a client's
    // mistake (a GraphQLError, answered with its code) is not a server problem to log.
    logging: { debug: () => {}, info: () => {}, warn: yogaLog, error: yogaLog },
    maskedErrors: {
      // Never the original error's details in a response, whatever NODE_ENV says.
      isDev: false,
      maskError(error, _message) {
        const raised = error instanceof GraphQLError ? error : new GraphQLError('Server error.', { originalError: error as Error });
        const known = contractError(raised);
        if (known) {
          // A client sees the code, the field map and nothing else (Yoga puts JSON.parse's own message in `originalError`);
          // `http` is Yoga's status instruction, never sent. graphql-js's errors without a code are about the variables.
          const { code = ErrorCode.BadUserInput, errors = variableErrors(known), http } = known.extensions as { code?: string; errors?: unknown; http?: unknown };
          return new GraphQLError(known.message, { nodes: known.nodes, path: known.path, extensions: { code, ...(errors ? { errors } : {}), ...(http ? { http } : {}) } });
        }
        if (typeof error === 'object' && error !== null) masked.add(error);
        const serverError = new GraphQLError('Server error.', { path: raised.path, extensions: { code: ErrorCode.Internal } });
        causes.set(serverError, raised.originalError ?? raised);
        return serverError;
      },
    },
  });

  async function handle(request: Request, facts: RequestFacts): Promise<Response> {
    const { requestId } = facts;
    if (wantsGraphiQL(request)) return yoga.handleRequest(request, {} as ServerContext);
    let admission: Admission;
    try {
      admission = await gate(request, facts, {});
    } catch (error) {
      // Nothing ran: the request as a whole failed, so HTTP says 500 too.
      logError(requestId, error, 'graphql gate');
      return refusal(500, 'Server error.', ErrorCode.Internal, {});
    }
    if (!admission.ok) {
      const code = admission.status === 429 ? ErrorCode.RateLimited : ErrorCode.Unauthenticated;
      return refusal(admission.status, admission.message, code, admission.headers);
    }
    let forYoga = request;
    let bytes: Buffer | undefined;
    if (request.method === 'POST') {
      const body = await readBody(request);
      if (!body.ok) return refusal(413, body.message, ErrorCode.LimitExceeded, admission.headers);
      bytes = body.bytes;
    }
    const reading = readGraphQLRequest(request, bytes);
    if (!reading.ok) return refusal(400, reading.message, ErrorCode.BadRequest, admission.headers);
    if (reading.json) {
      const answered = await repeated.answer(request, reading.json, admission.context, admission.headers);
      if (answered) return answered;
    }
    // A JSON body goes to Yoga parsed (the plugin above); any other body Yoga reads itself, from the bytes read here.
    if (bytes && !reading.json) forYoga = new Request(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(bytes) });
    let response = await yoga.handleRequest(forYoga, { admitted: admission.context, json: reading.json });
    // Yoga answers some malformed requests (a body that is not JSON: 415) with no body at all.
    if (response.status >= 400 && (await response.clone().text()) === '') {
      const message = response.status === 415 ? 'Unsupported media type: send Content-Type: application/json.' : `${STATUS_CODES[response.status] ?? 'Bad request'}.`;
      const allow = response.headers.get('allow');
      response = refusal(response.status, message, ErrorCode.BadRequest, allow ? { Allow: allow } : {});
    }
    for (const [name, value] of Object.entries(admission.headers)) response.headers.set(name, value);
    return response;
  }
  return { handle, documentCache, repeated };
}
