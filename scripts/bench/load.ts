import autocannon, { type AutocannonInstance, type AutocannonRequest, type AutocannonResult } from 'autocannon';
import type { ServerProcess } from './processes.js';

/** What one request of a measurement looks like; `path()`/`body()` give each request its id, page or email. */
export interface RequestShape {
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => string;
  /** GraphQL answers 200 with `errors`: such answers count as errors too. */
  graphql?: boolean;
}

export interface Sample {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Milliseconds, over every answer. */
  p50: number;
  p99: number;
  /** CPU milliseconds the server process spent per answered request. */
  cpuMsPerRequest: number;
  errors: number;
  /** Answers that carried `Connection: close` (the server ends the connection after them). */
  closed: number;
  /** Status codes other than 2xx with their counts, socket errors and GraphQL errors, for the report. */
  problems: string[];
}

let running: AutocannonInstance | undefined;

/** Stops the load under way, if any (Ctrl-C). */
export const stopLoad = () => running?.stop();

/** The value at or below which p% of `sorted` (ascending) lies; 0 for no values. */
export const percentile = (sorted: ArrayLike<number>, p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);

/**
 * Drives `server` with autocannon from this process for `seconds`, reading the server's
 * CPU time (/proc) just before and after.
 *
 * Latency is timed here, from building a request to its answer (autocannon calls both
 * hooks with the connection's context, and a connection has one request in flight):
 * autocannon's own latency is wrong once a server closes connections, because it keeps
 * the request lost on the closed socket at the head of its queue and times every later
 * answer against an older request.
 *
 * Each connection's first request is left out of the percentiles: all connections open
 * at once, and a busy Node server accepts them about one per event-loop turn, so the
 * last first answers come after (connections × CPU per request) whatever the handler
 * (a bare node:http server shows the same). That start-up queue would be the p99.
 */
export async function measure(server: ServerProcess, key: string, shape: RequestShape, options: { connections: number; seconds: number }): Promise<Sample> {
  let graphqlErrors = 0;
  let closed = 0;
  let example: string | undefined;
  let latencies = new Float64Array(1 << 14);
  let answered = 0;
  let built = 0;
  const request: AutocannonRequest = {
    method: shape.method,
    setupRequest: (req, context) => {
      // autocannon builds every connection's first request up front, one per connection.
      context.first = built++ < options.connections;
      context.sentAt = performance.now();
      return { ...req, path: shape.path(), ...(shape.body ? { body: shape.body() } : {}) };
    },
    onResponse: (status, body, context, headers) => {
      if (typeof context.sentAt === 'number' && !context.first) {
        if (answered === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[answered++] = performance.now() - context.sentAt;
        context.sentAt = undefined;
      }
      if (/close/i.test(String(headers.connection ?? headers.Connection ?? ''))) closed += 1;
      const failed = status < 200 || status > 299 || (shape.graphql && body.includes('"errors"'));
      if (!failed) return;
      if (status >= 200 && status <= 299) graphqlErrors += 1;
      example ??= `${status} ${body.slice(0, 300)}`;
    },
  };
  const cpuBefore = server.cpuSeconds();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    running = autocannon(
      {
        url: server.url,
        connections: options.connections,
        duration: options.seconds,
        headers: { 'X-Api-Key': key, ...(shape.body ? { 'Content-Type': 'application/json' } : {}) },
        requests: [request],
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
  });
  running = undefined;
  const cpuSeconds = server.cpuSeconds() - cpuBefore;
  const requests = result.requests.total;
  const sorted = latencies.slice(0, answered).sort();
  const problems = Object.entries(result.statusCodeStats)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${count} × HTTP ${code}`);
  if (result.errors > 0) problems.push(`${result.errors} socket errors (${result.timeouts} timeouts)`);
  if (graphqlErrors > 0) problems.push(`${graphqlErrors} GraphQL answers with errors`);
  if (example) problems.push(`first: ${example}`);
  return {
    requests,
    seconds: result.duration,
    perSecond: result.duration > 0 ? requests / result.duration : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuMsPerRequest: requests > 0 ? (cpuSeconds * 1000) / requests : 0,
    errors: result.non2xx + result.errors + graphqlErrors,
    closed,
    problems,
  };
}
