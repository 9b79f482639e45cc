import { randomUUID } from 'node:crypto';
import cluster from 'node:cluster';
import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { lingerOnClose } from './http/lingering-close.js';
import { gatherWrites, wantsSubscriptionStream } from './http/gathered-writes.js';
import { Shutdown } from './http/shutdown.js';
import type { Config } from './config.js';
import type { Service } from './service.js';
import { setLogLevel } from './log.js';
import type { Metrics } from './http/metrics.js';
import { countDueDeliveries, countPendingDeliveries } from './webhooks/backlog.js';
import type { RateLimitStore } from './http/rate-limit.js';
import { type AppConfig, createApp } from './server.js';

export interface RunningServer {
  url: string;
  server: Server;
  /** Kept when METRICS_TOKEN is set: the background work counts its webhook deliveries here too. */
  metrics?: Metrics;
  /** The shutdown's first step: /readyz answers 503 and each answer closes its connection; everything is still served. */
  drain(): void;
  /**
   * Stops accepting, ends the waits of requests waiting on others (503), closes idle
   * connections, and resolves once every request in flight has its answer.
   */
  close(): Promise<void>;
}

export type ListenConfig = AppConfig &
  Pick<Config, 'HOST' | 'PORT'> &
  Partial<Pick<Config, 'MAX_CONNECTIONS' | 'HEADERS_TIMEOUT_SECONDS' | 'REQUEST_TIMEOUT_SECONDS' | 'KEEP_ALIVE_TIMEOUT_SECONDS' | 'LOG_LEVEL'>>;

/**
 * Node answers malformed requests, oversized headers (431) and requests that take too
 * long (408) itself, with an empty body; these answer with the API's JSON error body
 * and, like every response, an X-Request-Id: a fresh one, since no header was read.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ message: status === 431 ? 'Request headers too large.' : status === 408 ? 'Request timeout.' : 'Bad request.' });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Serves `service` over HTTP. `rateLimitStore`: where the limit is counted when not in this process's memory (Redis, a cluster's primary). */
export async function listen(service: Service, config: ListenConfig, rateLimitStore?: RateLimitStore): Promise<RunningServer> {
  const { database } = service;
  setLogLevel(config.LOG_LEVEL ?? 'info');
  const shutdown = new Shutdown();
  // Built here, once per serving process, and only when someone may read them (prom-client is loaded only then).
  const metrics = config.METRICS_TOKEN
    ? (await import('./http/metrics.js')).createMetrics({
        pendingDeliveries: () => countPendingDeliveries(database.prisma),
        dueDeliveries: () => countDueDeliveries(database.prisma),
        openConnections: () => new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
        poolConnections: () => database.poolConnections(),
        clusterWorker: cluster.isWorker,
      })
    : undefined;
  // The statements' timings, when the database was opened to report them (main.ts does when metrics are on).
  if (metrics) database.timeStatements((ms) => metrics.statement(ms));
  if (metrics) service.payments.observeCalls((provider, operation, outcome, seconds) => metrics.providerCall(provider, operation, outcome, seconds));
  const server = createServer(
    {
      headersTimeout: (config.HEADERS_TIMEOUT_SECONDS ?? 10) * 1000,
      // The whole request, body included: a stalled body is cut off with 408 after this.
      requestTimeout: (config.REQUEST_TIMEOUT_SECONDS ?? 30) * 1000,
      // How often Node checks those two timeouts (its default, 30 s, would add up to that much).
      connectionsCheckingInterval: 1000,
    },
    createApp(service, config, rateLimitStore, shutdown, metrics),
  );
  server.keepAliveTimeout = (config.KEEP_ALIVE_TIMEOUT_SECONDS ?? 5) * 1000;
  server.maxConnections = config.MAX_CONNECTIONS ?? 1000;
  server.on('clientError', answerClientError);
  lingerOnClose(server);
  // A subscription's writes that come close together go out as one (a REST stream gathers its own chunks).
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (wantsSubscriptionStream(request)) gatherWrites(response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    server,
    metrics,
    drain: () => shutdown.drain(),
    close: () =>
      new Promise<void>((resolve) => {
        shutdown.stop();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
