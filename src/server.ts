import { randomUUID } from 'node:crypto';
import { Request, Response } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { schema } from './graphql/schema.js';
import { restRoutes } from './modules/index.js';
import { createGraphQL } from './graphql/yoga.js';
import { createCors, isPreflight } from './http/cors.js';
import { createGate } from './http/gate.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { RequestFacts } from './http/request-facts.js';
import { bodyDrained, errorBody, json, sentBody } from './http/responses.js';
import { logError, logRequest } from './log.js';
import { createRestAdapter } from './rest/adapter.js';
import { createIdempotency } from './rest/idempotency.js';
import { openApiDocument } from './openapi/index.js';
import { DOCS_PATH, OPENAPI_PATH, createApiDocs } from './openapi/serve.js';

/**
 * A client's request id is echoed when it is 1..200 characters of printable ASCII
 * (spaces and punctuation included); otherwise (empty, longer, a tab, a byte beyond
 * ASCII) one is made. Node already refuses CR, LF and NUL in a header; the access log
 * is JSON lines, so any such id is quoted safely there.
 */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && /^[\x20-\x7E]{1,200}$/.test(given) ? given : randomUUID();
}

async function health(database: Database): Promise<Response> {
  try {
    await database.prisma.$queryRawUnsafe('SELECT 1');
    return json(200, { status: 'ok' });
  } catch {
    return json(503, { status: 'unavailable', message: 'Database unavailable.' });
  }
}

/** HEAD is GET without the body: the GET's status and headers (a Content-Length too, when the GET's answer has one). */
function withoutBody(response: Response): Response {
  response.body?.cancel().catch(() => {});
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export type AppConfig = Pick<Config, 'RATE_LIMIT_PER_MINUTE'> &
  Partial<Pick<Config, 'CORS_ORIGINS' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'>> & {
    /** How long a known key is trusted before it is read again (KEY_RECHECK_MS); tests that count statements set it long. */
    keyRecheckMs?: number;
  };

/** One handler for everything: /healthz, /graphql and /api/v1. */
export function createApp(database: Database, config: AppConfig, rateLimitStore?: RateLimitStore) {
  const gate = createGate(database, config.RATE_LIMIT_PER_MINUTE, rateLimitStore, config.keyRecheckMs, { allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? false });
  const rest = createRestAdapter(schema, restRoutes, gate, createIdempotency(database.prisma));
  const graphql = createGraphQL(schema, gate);
  const cors = createCors(config.CORS_ORIGINS ?? []);
  const apiDocs = createApiDocs(openApiDocument());

  return createServerAdapter((request: Request) => serve(request, { requestId: requestIdOf(request) }));

  async function serve(request: Request, facts: RequestFacts): Promise<Response> {
    const started = performance.now();
    const { requestId } = facts;
    let response: Response;
    const head = request.method === 'HEAD';
    const preflight = isPreflight(request);
    const url = new URL(request.url);
    const path = url.pathname;
    try {
      // Preflights carry no key: answered here, whatever the path, before any route or key check.
      if (preflight) {
        facts.route = 'CORS preflight';
        response = cors.preflight(request);
      } else if (path === '/healthz') {
        response = request.method === 'GET' || head ? await health(database) : json(405, errorBody('Method not allowed.'), { Allow: 'GET, HEAD' });
      } else if (path === '/graphql') {
        // Yoga knows no HEAD: it gets the same request as a GET (a GET never runs a mutation in Yoga).
        response = await graphql.handle(head ? new Request(request.url, { method: 'GET', headers: request.headers }) : request, facts);
      } else if (path === OPENAPI_PATH) response = apiDocs.openapi(request, facts);
      else if (path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`)) response = apiDocs.docs(request, path, facts);
      else if (path === '/api/v1' || path.startsWith('/api/v1/')) response = await rest(request, facts, url);
      else response = json(404, errorBody('Not found.'));
    } catch (error) {
      // A client that went away (or was cut off by a timeout) mid-body is not a server failure; nobody reads this answer.
      if ((error as { code?: unknown }).code !== 'ECONNRESET') logError(requestId, error, 'server');
      response = json(500, errorBody('Server error.'));
    }
    response.headers.set('X-Request-Id', requestId);
    // Wherever GET is allowed, so is HEAD (Yoga's own 405 lists only GET and POST).
    const allow = response.status === 405 ? response.headers.get('allow') : null;
    if (allow && /\bGET\b/.test(allow) && !/\bHEAD\b/.test(allow)) {
      // Deleted first: Yoga's headers object would otherwise send its own `Allow` beside ours.
      response.headers.delete('Allow');
      response.headers.set('Allow', allow.replace(/\bGET\b/, 'GET, HEAD'));
    }
    if (!preflight) cors.decorate(request, response);
    if (head) response = withoutBody(response);
    // A body left unread (a 401 comes before any body is read) would be taken for the next
    // request on a kept-alive connection: close it instead.
    if (sentBody(request) && !bodyDrained(request)) response.headers.set('Connection', 'close');
    const route = facts.route ?? (path === '/healthz' || path === '/graphql' ? `${request.method} ${path}` : 'unmatched');
    logRequest({ requestId, method: request.method, route, status: response.status, durationMs: performance.now() - started, workspaceId: facts.workspaceId });
    return response;
  }
}
