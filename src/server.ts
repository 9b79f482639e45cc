import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Request, Response } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import { type Config, loadConfig } from './config.js';
import type { Database } from './db/client.js';
import { DEFAULT_SETTINGS, type Settings } from './graphql/context.js';
import type { Service } from './service.js';
import { publicRoutes, restRoutes } from './modules/index.js';
import { createPublicGate, createPublicRateLimit } from './modules/checkouts/public-gate.js';
import { createPayPages } from './modules/checkouts/pages.js';
import { createGraphQL } from './graphql/yoga.js';
import { createCors, isPreflight } from './http/cors.js';
import { createGate } from './auth/gate.js';
import { createClientAddress } from './http/client-address.js';
import type { Metrics } from './http/metrics.js';
import { createMetricsPage } from './http/metrics-page.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { RequestFacts } from './http/request-facts.js';
import { SERVICE_UNAVAILABLE, bodyDrained, bodyFrom, errorBody, json, sentBody } from './http/responses.js';
import { LongReadPacing } from './http/pacing.js';
import { Shutdown } from './http/shutdown.js';
import { LiveEvents } from './events/live.js';
import { logError, logRequest } from './log.js';
import { traceRequest } from './tracing/tracing.js';
import { createRestAdapter } from './rest/adapter.js';
import { createIdempotency } from './rest/idempotency.js';
import { openApiDocument } from './openapi/index.js';
import { DOCS_PATH, OPENAPI_PATH, createApiDocs } from './openapi/serve.js';
import { createProviderWebhooks } from './modules/payment-transactions/provider-webhooks.js';

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

const DEFAULTS = loadConfig({});

/** How long `/readyz` waits for each dependency before it calls it down. */
const READY_TIMEOUT_MS = 2_000;

/** `ok` if `check` settles well within the timeout, else `down`. */
async function probe(check: () => Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'down'>((resolve) => (timer = setTimeout(() => resolve('down'), READY_TIMEOUT_MS)));
  try {
    return await Promise.race([check().then(() => 'ok' as const, () => 'down' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness (API.md section 5): the database, and Redis when the service uses it (the
 * rate limit's counts, the live events' channel), each with a short timeout; 503 while
 * either is down or the process drains for a shutdown.
 */
async function readiness(database: Database, redisPings: (() => Promise<unknown>)[], shutdown: Shutdown): Promise<Response> {
  const redisUp = redisPings.length > 0 ? probe(() => Promise.all(redisPings.map((ping) => ping()))) : undefined;
  const [db, redis] = await Promise.all([probe(() => database.prisma.$queryRawUnsafe('SELECT 1')), redisUp]);
  const checks: Record<string, string> = { database: db, ...(redis && { redis }), ...(shutdown.draining && { shutdown: 'draining' }) };
  const ready = db === 'ok' && (redis ?? 'ok') === 'ok' && !shutdown.draining;
  return ready ? json(200, { status: 'ok', checks }) : json(503, { ...errorBody(SERVICE_UNAVAILABLE), checks });
}

/** HEAD is GET without the body: the GET's status and headers (a Content-Length too, when the GET's answer has one). */
function withoutBody(response: Response): Response {
  response.body?.cancel().catch(() => {});
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export type AppConfig = Pick<Config, 'RATE_LIMIT_PER_MINUTE'> &
  Partial<Pick<Config, 'CORS_ORIGINS' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS' | 'PUBLIC_RATE_LIMIT_PER_MINUTE' | 'CHECKOUT_EXPIRY_MINUTES' | 'STREAMS_PER_KEY' | 'STREAM_BUFFER_EVENTS' | 'EVENTS_REDIS_SAFETY_READ_SECONDS' | 'TRUST_PROXY' | 'METRICS_TOKEN' | 'TRASH_RETENTION_DAYS'>> & {
    /** How long a known key is trusted before it is read again (KEY_RECHECK_MS); tests that count statements set it long. */
    keyRecheckMs?: number;
  };

/** `GET /`: the service's parts, each a path on this origin. */
const SERVICE_INDEX = {
  name: 'Salesgraph',
  rest: '/api/v1',
  docs: '/docs',
  openapi: OPENAPI_PATH,
  graphql: '/graphql',
  health: '/healthz',
  authentication: 'Send your API key in the X-Api-Key header (npm run --silent cli -- keys create --workspace <name> --json makes one).',
};

/** The status a request gets when its client went away before it was read (nginx's; never sent to anyone). */
const CLIENT_CLOSED_REQUEST = 499;

/** The paths that take no key: the checkout's public API, the providers' webhooks and the payment pages. */
const PROVIDER_WEBHOOKS = '/api/v1/provider-webhooks/';
const isPublicPath = (path: string) => path.startsWith('/api/v1/public/') || path.startsWith('/api/v1/provider-webhooks/') || path.startsWith('/pay/');

/**
 * One handler for everything: /healthz, /readyz, /graphql, /api/v1 and the payment pages.
 * `shutdown`: the process's drain and stop (SIGTERM), which readiness, connections and
 * waiting requests follow. `metrics`: given when METRICS_TOKEN is set; every answer is
 * then measured, and /metrics shows the figures to the token's holder.
 */
export function createApp(service: Service, config: AppConfig, rateLimitStore?: RateLimitStore, shutdown = new Shutdown(), metrics?: Metrics) {
  const { database, schema, commits, eventChannel } = service;
  const redisPings = [rateLimitStore?.ping && (() => rateLimitStore.ping!()), eventChannel && (() => eventChannel.ping())].filter((ping) => ping !== undefined);
  const settings: Settings = {
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? DEFAULT_SETTINGS.allowPrivateNetworks,
    checkoutExpiryMinutes: config.CHECKOUT_EXPIRY_MINUTES ?? DEFAULT_SETTINGS.checkoutExpiryMinutes,
    streamBufferEvents: config.STREAM_BUFFER_EVENTS ?? DEFAULT_SETTINGS.streamBufferEvents,
    payments: service.payments,
    trashRetentionDays: config.TRASH_RETENTION_DAYS ?? DEFAULT_SETTINGS.trashRetentionDays,
  };
  // The live tail of the event log (fed by Redis when the service publishes there); every stream ends when the server stops accepting.
  const live = new LiveEvents(
    database.background,
    database.target,
    { streamsPerKey: config.STREAMS_PER_KEY ?? DEFAULTS.STREAMS_PER_KEY, bufferEvents: settings.streamBufferEvents },
    eventChannel && { channel: eventChannel, safetyReadMs: (config.EVENTS_REDIS_SAFETY_READ_SECONDS ?? DEFAULTS.EVENTS_REDIS_SAFETY_READ_SECONDS) * 1000 },
  );
  shutdown.stopping.addEventListener('abort', () => void live.close());
  metrics?.countStreams(() => live.open);
  // Long reads (exports, replays) page by page, each page after the short requests in flight.
  const pacing = new LongReadPacing();
  const gate = createGate(database, config.RATE_LIMIT_PER_MINUTE, { store: rateLimitStore, keyRecheckMs: config.keyRecheckMs, settings, live, commits, pacing });
  const idempotency = createIdempotency(database, shutdown.stopping);
  const rest = createRestAdapter(schema, restRoutes, gate, idempotency, { metrics });
  const publicLimit = createPublicRateLimit(config.PUBLIC_RATE_LIMIT_PER_MINUTE ?? 60, rateLimitStore);
  const publicGate = createPublicGate(database, publicLimit, settings, commits);
  const publicRest = createRestAdapter(schema, publicRoutes, publicGate, idempotency);
  const pay = createPayPages(schema, publicGate);
  // Stripe's and Asaas's webhooks, verified by their own schemes; the test provider's go through publicRest.
  const providerWebhooks = createProviderWebhooks(database, service.represent, settings, commits);
  const graphql = createGraphQL(schema, gate, metrics);
  const cors = createCors(config.CORS_ORIGINS ?? []);
  // The public routes answer no browser of another origin, whatever CORS_ORIGINS lists.
  const closed = createCors([]);
  const apiDocs = createApiDocs(() => openApiDocument(schema));
  const metricsPage = createMetricsPage(metrics, config.METRICS_TOKEN);

  const clientAddressOf = createClientAddress(config.TRUST_PROXY ?? []);

  // On node:http the adapter's server context carries the Node request: the peer's address, and the body's bytes.
  return createServerAdapter((request: Request, server: object) => {
    const { req } = server as { req?: IncomingMessage };
    if (req) bodyFrom(request, req);
    return traceRequest(request, { requestId: requestIdOf(request), clientAddress: clientAddressOf(request, req?.socket?.remoteAddress) }, serve);
  });

  async function serve(request: Request, facts: RequestFacts): Promise<Response> {
    pacing.started();
    try {
      return await answer(request, facts);
    } finally {
      pacing.finished();
    }
  }

  async function answer(request: Request, facts: RequestFacts): Promise<Response> {
    const started = performance.now();
    const { requestId } = facts;
    let response: Response;
    const head = request.method === 'HEAD';
    const preflight = isPreflight(request);
    const url = new URL(request.url);
    const path = url.pathname;
    const isPublic = isPublicPath(path);
    const origins = isPublic ? closed : cors;
    let publicRefused = false;
    try {
      // Preflights carry no key: answered here, whatever the path, before any route or key check.
      if (preflight) {
        facts.route = 'CORS preflight';
        response = origins.preflight(request);
      } else if (path === '/healthz' || path === '/readyz') {
        // Liveness touches nothing: a database outage must not get a process restarted.
        if (request.method !== 'GET' && !head) response = json(405, errorBody('Method not allowed.'), { Allow: 'GET, HEAD' });
        else response = path === '/healthz' ? json(200, { status: 'ok' }) : await readiness(database, redisPings, shutdown);
      } else if (path === '/') {
        // The front door: where everything is (a 404 here told a newcomer nothing).
        facts.route = `${request.method} /`;
        response = request.method === 'GET' || head ? json(200, SERVICE_INDEX) : json(405, errorBody('Method not allowed.'), { Allow: 'GET, HEAD' });
      } else if (path === '/graphql') {
        // Yoga knows no HEAD: it gets the same request as a GET (a GET never runs a mutation in Yoga).
        response = await graphql.handle(head ? new Request(request.url, { method: 'GET', headers: request.headers }) : request, facts);
      } else if (path === '/metrics') response = await metricsPage(request, facts);
      else if (path === OPENAPI_PATH) response = apiDocs.openapi(request, facts);
      else if (path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`)) response = apiDocs.docs(request, path, facts);
      else if (isPublic) {
        // Counted before any route is matched: every public request counts, 404s included (API.md section 5).
        publicRefused = (await publicLimit(facts)).refused !== undefined;
        const webhookOf = path.startsWith(PROVIDER_WEBHOOKS) ? path.slice(PROVIDER_WEBHOOKS.length) : undefined;
        response = path.startsWith('/pay/')
          ? await pay(request, facts, url)
          : ((webhookOf !== undefined ? await providerWebhooks(request, facts, webhookOf) : undefined) ?? (await publicRest(request, facts, url)));
      }
      else if (path === '/api/v1' || path.startsWith('/api/v1/')) response = await rest(request, facts, url);
      else response = json(404, errorBody('Not found.'));
    } catch (error) {
      if (request.signal.aborted || (error as { code?: unknown }).code === 'ECONNRESET') {
        // The client went away (or a timeout cut it off) mid-body: nobody reads this answer, and the server did not
        // fail. The access log and the metrics say so with nginx's 499 ("client closed request"), not a 500.
        response = json(CLIENT_CLOSED_REQUEST, errorBody('Client closed request.'));
      } else {
        logError(requestId, error, 'server');
        response = json(500, errorBody('Server error.'));
      }
    }
    response.headers.set('X-Request-Id', requestId);
    // Wherever GET is allowed, so is HEAD (Yoga's own 405 lists only GET and POST).
    const allow = response.status === 405 ? response.headers.get('allow') : null;
    if (allow && /\bGET\b/.test(allow) && !/\bHEAD\b/.test(allow)) {
      // Deleted first: Yoga's headers object would otherwise send its own `Allow` beside ours.
      response.headers.delete('Allow');
      response.headers.set('Allow', allow.replace(/\bGET\b/, 'GET, HEAD'));
    }
    if (!preflight) origins.decorate(request, response);
    if (head) response = withoutBody(response);
    // A body left unread (a 401 comes before any body is read) would be taken for the next
    // request on a kept-alive connection: close it instead.
    // While the process drains, each answer ends its connection: the client's next request
    // opens a new one, which the load balancer (seeing /readyz 503) sends elsewhere.
    if ((sentBody(request) && !bodyDrained(request)) || shutdown.draining) response.headers.set('Connection', 'close');
    // Kept in the facts: the request's span (traceRequest) is named by it too.
    const route = (facts.route ??= path === '/healthz' || path === '/readyz' || path === '/graphql' ? `${request.method} ${path}` : 'unmatched');
    const durationMs = performance.now() - started;
    logRequest({ requestId, method: request.method, route, status: response.status, durationMs, workspaceId: facts.workspaceId, clientAddress: facts.clientAddress });
    // Outside the public paths, only the key gate answers 429.
    metrics?.request(route, response.status, durationMs / 1000, publicRefused ? 'public' : !isPublic && response.status === 429 ? 'keyed' : undefined);
    return response;
  }
}
