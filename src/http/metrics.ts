import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { primaryScrape } from './metrics-primary.js';

/** How a webhook delivery's attempt ended: delivered, failed with a retry scheduled, or failed for good. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

export interface MetricsOptions {
  /** Read at each scrape, one cheap query each: deliveries pending, and those of them already due (the backlog). */
  pendingDeliveries(): Promise<number>;
  dueDeliveries(): Promise<number>;
  /** Open connections of this process's server, read at each scrape. */
  openConnections?(): Promise<number>;
  /** The database pool's connections (PostgreSQL), read at each scrape. */
  poolConnections?(): { total: number; idle: number; waiting: number } | undefined;
  /** A cluster worker: a scrape answers the sum of all workers, added up by the primary. */
  clusterWorker?: boolean;
}

/** GraphQL operation names kept as labels; longer names, and names beyond this many distinct ones, count as `other`. */
const OPERATION_NAMES = { maxLength: 100, maxDistinct: 100 };
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The process's metrics (GET /metrics, API.md section 5), in a registry of their own,
 * built when the composition asks (only with METRICS_TOKEN set): nothing is measured
 * otherwise. Labels are bounded: route templates (never a raw path), statuses, a bounded
 * set of GraphQL operation names.
 */
export function createMetrics(options: MetricsOptions) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'salesgraph_http_request_duration_seconds',
    help: 'HTTP requests by route template and status, and the time to answer them.',
    labelNames: ['route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const operations = new Counter({
    name: 'salesgraph_graphql_operations_total',
    help: 'GraphQL operations at /graphql by operation name (anonymous; other beyond the bounded set) and outcome (ok or error).',
    labelNames: ['operation', 'outcome'] as const,
    registers,
  });
  const refusals = new Counter({
    name: 'salesgraph_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit: keyed (per API key) or public (per client address).',
    labelNames: ['limit'] as const,
    registers,
  });
  const providerCalls = new Histogram({
    name: 'salesgraph_provider_call_duration_seconds',
    help: 'Calls to payment providers (Stripe, Asaas) by provider, operation and outcome (ok, declined, refused, unreachable), and their duration.',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers,
  });
  const deliveries = new Counter({
    name: 'salesgraph_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled) or failed (for good).',
    labelNames: ['outcome'] as const,
    registers,
  });
  // The database's figures are the same seen from every worker: a cluster shows one, not their sum.
  new Gauge({
    name: 'salesgraph_webhook_deliveries_pending',
    help: 'Webhook deliveries waiting for an attempt (pending), read at scrape time.',
    aggregator: 'max',
    registers,
    async collect() {
      this.set(await options.pendingDeliveries());
    },
  });
  new Gauge({
    name: 'salesgraph_webhook_deliveries_due',
    help: 'Pending webhook deliveries already due: the outbox backlog the workers have not caught up with, read at scrape time.',
    aggregator: 'max',
    registers,
    async collect() {
      this.set(await options.dueDeliveries());
    },
  });
  new Gauge({
    name: 'salesgraph_open_connections',
    help: 'Open HTTP connections.',
    registers,
    async collect() {
      if (options.openConnections) this.set(await options.openConnections());
    },
  });

  new Gauge({
    name: 'salesgraph_db_pool_connections',
    help: "The requests' PostgreSQL pool: connections by state (total, idle) and requests waiting for one (waiting).",
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = options.poolConnections?.();
      if (!pool) return;
      for (const state of ['total', 'idle', 'waiting'] as const) this.set({ state }, pool[state]);
    },
  });
  // The live tail's count, handed over by the app that keeps it (countStreams).
  let openStreams: (() => number) | undefined;
  new Gauge({
    name: 'salesgraph_event_streams_open',
    help: 'Open event streams: GET /api/v1/events/stream and GraphQL subscriptions.',
    registers,
    collect() {
      if (openStreams) this.set(openStreams());
    },
  });
  const deliveryLag = new Histogram({
    name: 'salesgraph_webhook_delivery_lag_seconds',
    help: "Webhook delivery attempts: the time from when each was due (its event's commit, or its retry's time) to the attempt.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const statements = new Histogram({
    name: 'salesgraph_db_statement_duration_seconds',
    help: 'SQL statements the requests sent, and the time each took, measured at the database driver.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  const exportedRows = new Counter({
    name: 'salesgraph_export_rows_total',
    help: 'Rows written by the CSV exports, by list.',
    labelNames: ['list'] as const,
    registers,
  });

  let fromPrimary: ReturnType<typeof primaryScrape> | undefined;
  if (options.clusterWorker) {
    // prom-client answers the primary's AggregatorRegistry from the registries named here;
    // constructing one in a worker is what starts that listener.
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
    fromPrimary = primaryScrape();
  }

  const operationNames = new Set<string>();
  /** The label of an operation's name: bounded in length and in number. */
  function operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (name.length > OPERATION_NAMES.maxLength || !GRAPHQL_NAME.test(name)) return 'other';
    if (operationNames.has(name)) return name;
    if (operationNames.size >= OPERATION_NAMES.maxDistinct) return 'other';
    operationNames.add(name);
    return name;
  }

  return {
    /** One answered request, and the rate limit that refused it, if one did. */
    request(route: string, status: number, seconds: number, refusedBy?: 'keyed' | 'public'): void {
      requests.observe({ route, status: String(status) }, seconds);
      if (refusedBy) refusals.inc({ limit: refusedBy });
    },
    graphqlOperation(name: string | null | undefined, outcome: 'ok' | 'error'): void {
      operations.inc({ operation: operationLabel(name), outcome });
    },
    webhookDelivery(outcome: DeliveryOutcome, count = 1): void {
      deliveries.inc({ outcome }, count);
    },
    providerCall(provider: string, operation: string, outcome: string, seconds: number): void {
      providerCalls.observe({ provider, operation, outcome }, seconds);
    },
    webhookDeliveryLag(seconds: number): void {
      deliveryLag.observe(Math.max(0, seconds));
    },
    statement(milliseconds: number): void {
      statements.observe(milliseconds / 1000);
    },
    exportRows(list: string, rows: number): void {
      exportedRows.inc({ list }, rows);
    },
    countStreams(count: () => number): void {
      openStreams = count;
    },
    /** The text a scrape answers: this process's figures, or in a cluster the sum of every worker's. */
    async scrape(): Promise<{ text: string; contentType: string }> {
      if (fromPrimary) return fromPrimary();
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
