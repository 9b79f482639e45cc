import { GraphQLError, type GraphQLSchema } from 'graphql';
import { type Plugin, createYoga } from 'graphql-yoga';
import type { Gate } from '../http/gate.js';
import { logError } from '../http/responses.js';
import type { Context } from './context.js';
import { ErrorCode, contractError, rateLimited, unauthenticated } from './errors.js';
import { limitsRule } from './limits.js';

interface ServerContext {
  requestId: string;
}

/** The GraphQL face: Yoga at /graphql with GraphiQL, behind the same gate as REST. */
export function createGraphQL(schema: GraphQLSchema, gate: Gate) {
  const gateHeaders = new WeakMap<Request, Record<string, string>>();

  const headersPlugin: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(limitsRule);
    },
    onResponse({ request, response }) {
      for (const [name, value] of Object.entries(gateHeaders.get(request) ?? {})) response.headers.set(name, value);
    },
  };

  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Salesgraph GraphQL' },
    batching: { limit: 10 },
    plugins: [headersPlugin],
    async context({ request, requestId }) {
      let admission: Awaited<ReturnType<Gate>>;
      try {
        admission = await gate(request, requestId);
      } catch (error) {
        // Nothing ran: the request as a whole failed, so HTTP says 500 too.
        logError(requestId, error, 'graphql context');
        throw new GraphQLError('Server error.', { extensions: { code: ErrorCode.Internal, http: { status: 500 } } });
      }
      gateHeaders.set(request, admission.headers);
      if (admission.ok) return admission.context;
      if (admission.status === 429) throw rateLimited(Number(admission.headers['Retry-After'] ?? 60));
      throw unauthenticated();
    },
    maskedErrors: {
      maskError(error, _message) {
        const raised = error instanceof GraphQLError ? error : new GraphQLError('Server error.', { originalError: error as Error });
        const known = contractError(raised);
        if (known) return known;
        logError('graphql', raised.originalError ?? raised, raised.path?.join('.') ?? 'graphql');
        return new GraphQLError('Server error.', { path: raised.path, extensions: { code: ErrorCode.Internal } });
      },
    },
  });
}
