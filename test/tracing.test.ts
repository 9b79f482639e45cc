import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tracing } from '../src/tracing/interface.js';
import { startTracing } from '../src/tracing/tracing.js';
import { loadConfig } from '../src/config.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver.js';
import { startProcess } from './support/process.js';
import { type Receiver, startReceiver } from './support/receiver.js';

// Issue 33, tracing: OpenTelemetry over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set,
// nothing loaded and nothing sent otherwise. A local collector receives the JSON exports.

const SERVER = 2;
const CLIENT = 3;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The spans of one trace, once the one `found` picks has arrived (the exporter batches: flushed first). */
async function spansOf(collector: OtlpReceiver, tracing: Tracing, found: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> {
  let match: ReceivedSpan | undefined;
  await expect
    .poll(async () => {
      await tracing.flush();
      return (match = collector.spans.find(found)) !== undefined;
    }, { timeout: 15_000, interval: 20 })
    .toBe(true);
  return collector.spans.filter((s) => s.traceId === match!.traceId);
}

/** Whether `span` lies under `ancestor` in `trace`. */
function under(trace: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  for (let at: ReceivedSpan | undefined = span; at; at = trace.find((s) => s.spanId === at!.parentSpanId)) {
    if (at.parentSpanId === ancestor.spanId) return true;
  }
  return false;
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT (in process)', () => {
  let collector: OtlpReceiver;
  let tracing: Tracing;
  let app: TestApp;
  let api: Client;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    // Started before the app is built, as main.ts does.
    tracing = (await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'salesgraph-test' }))!;
    app = await startApp({ server: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }, background: { WEBHOOK_RETRY_SCHEDULE: [], webhookPollMs: 50 } });
    api = await newClient(app);
  });
  afterAll(async () => {
    await app?.close();
    await tracing?.shutdown();
    await Promise.all([collector?.close(), ...receivers.map((r) => r.close())]);
  });

  it('a REST write: the server span continues the client\'s traceparent, the operation under it, its SQL statements under that', async () => {
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const requestId = `trace-${hex(4)}`;
    const email = `traced-${hex(4)}@example.com`;
    const created = await api.request('POST', '/contacts', { body: { first_name: 'Traced', email }, headers: { traceparent: `00-${traceId}-${clientSpanId}-01`, 'X-Request-Id': requestId } });
    expect(created.status).toBe(201);

    const trace = await spansOf(collector, tracing, (s) => s.kind === SERVER && s.attributes['salesgraph.request_id'] === requestId);
    const server = trace.find((s) => s.kind === SERVER)!;
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(clientSpanId);
    expect(server.name).toBe('POST /api/v1/contacts');
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/v1/contacts', 'http.response.status_code': 201, 'url.path': '/api/v1/contacts', 'salesgraph.request_id': requestId });
    expect(server.resource['service.name']).toBe('salesgraph-test');

    const operation = trace.find((s) => s.parentSpanId === server.spanId && s.attributes['graphql.operation.type'] === 'mutation')!;
    expect(operation.name).toBe('mutation createContact');
    const statements = trace.filter((s) => s.name === 'prisma:client:db_query');
    const writes = statements.filter((s) => under(trace, s, operation) && /^INSERT INTO ([`"]\w+[`"]\.)?[`"]Contact[`"]/.test(String(s.attributes['db.query.text'])));
    expect(writes.length).toBeGreaterThanOrEqual(1);
    for (const statement of statements) expect(statement.attributes['db.system.name']).toBe(app.provider === 'sqlite' ? 'sqlite' : 'postgresql');
    // Every span of the trace is the request's: nothing else joined it, nothing of it started a trace apart.
    for (const span of trace) if (span !== server) expect(under(trace, span, server)).toBe(true);
    // Statements carry their text with placeholders, never the values sent.
    expect(JSON.stringify(trace)).not.toContain(email);
    expect(JSON.stringify(collector.spans)).not.toContain(email);
  });

  it('a request without traceparent starts a trace of its own, named by its route template', async () => {
    const contact = (await api.post('/contacts', { first_name: 'Read', email: `read-${hex(4)}@example.com` })).body;
    const requestId = `trace-${hex(4)}`;
    expect((await api.request('GET', `/contacts/${contact.id}`, { headers: { 'X-Request-Id': requestId } })).status).toBe(200);
    const trace = await spansOf(collector, tracing, (s) => s.kind === SERVER && s.attributes['salesgraph.request_id'] === requestId);
    const server = trace.find((s) => s.kind === SERVER)!;
    expect([server.name, server.parentSpanId, server.attributes['http.route'], server.attributes['url.path']]).toEqual(['GET /api/v1/contacts/{id}', undefined, '/api/v1/contacts/{id}', `/api/v1/contacts/${contact.id}`]);
    expect(trace.some((s) => s.name === 'query contact' && s.parentSpanId === server.spanId)).toBe(true);
  });

  it('GraphQL at /graphql: the operation span is named by its type and name', async () => {
    const requestId = `trace-${hex(4)}`;
    expect((await api.request('POST', '/graphql', { body: { query: 'query CountContacts { contacts { total } }' }, headers: { 'X-Request-Id': requestId } })).status).toBe(200);
    const trace = await spansOf(collector, tracing, (s) => s.kind === SERVER && s.attributes['salesgraph.request_id'] === requestId);
    const server = trace.find((s) => s.kind === SERVER)!;
    expect([server.name, server.attributes['http.route']]).toEqual(['POST /graphql', '/graphql']);
    const operation = trace.find((s) => s.name === 'query CountContacts')!;
    expect([operation.parentSpanId, operation.attributes['graphql.operation.name']]).toEqual([server.spanId, 'CountContacts']);
    expect(trace.some((s) => s.name === 'prisma:client:db_query' && under(trace, s, operation))).toBe(true);
  });

  it('a webhook delivery attempt is a trace of its own, with its event, the endpoint\'s host and the outcome', async () => {
    const ok = await startReceiver(() => ({ status: 200 }));
    const failing = await startReceiver(() => ({ status: 503 }));
    receivers.push(ok, failing);
    for (const receiver of [ok, failing]) expect((await api.post('/webhook-endpoints', { url: receiver.url, events: ['company.created'] })).status).toBe(201);
    const requestId = `trace-${hex(4)}`;
    expect((await api.request('POST', '/companies', { body: { name: 'Hooked' }, headers: { 'X-Request-Id': requestId } })).status).toBe(201);
    await expect.poll(() => ok.received.length + failing.received.length, { timeout: 15_000, interval: 20 }).toBe(2);
    const eventId = ok.ids()[0]!;
    expect(failing.ids()).toEqual([eventId]);

    const attempts = async () => {
      await tracing.flush();
      return collector.spans.filter((s) => s.name === 'webhook delivery attempt' && s.attributes['salesgraph.event_id'] === eventId);
    };
    await expect.poll(async () => (await attempts()).length, { timeout: 15_000, interval: 20 }).toBe(2);
    const byOutcome = Object.fromEntries((await attempts()).map((s) => [s.attributes['salesgraph.webhook.outcome'], s]));
    for (const [outcome, status] of [['succeeded', 200], ['failed', 503]] as const) {
      const span = byOutcome[outcome]!;
      expect(span).toBeDefined();
      expect([span.kind, span.parentSpanId]).toEqual([CLIENT, undefined]);
      expect(span.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'http.request.method': 'POST', 'http.response.status_code': status, 'salesgraph.webhook.attempt': 1 });
    }
    expect(byOutcome.succeeded!.attributes['server.port']).toBe(Number(new URL(ok.url).port));
    // Apart from the request that recorded the event (its trace ended with its answer).
    const request = collector.spans.find((s) => s.attributes['salesgraph.request_id'] === requestId)!;
    expect(request.traceId).not.toBe(byOutcome.succeeded!.traceId);
    expect(byOutcome.succeeded!.traceId).not.toBe(byOutcome.failed!.traceId);
    // The worker's own statements (claims, outcomes) start no trace: no Prisma span without a parent.
    expect(collector.spans.filter((s) => s.name.startsWith('prisma:') && !s.parentSpanId)).toEqual([]);
  });
});

/**
 * Prints, at exit, the tracing packages the process loaded, from Node's CommonJS cache:
 * OpenTelemetry's packages are CommonJS (Prisma's instrumentation is ESM, seen through
 * @opentelemetry/instrumentation, which it alone loads).
 */
const LOADED_MODULES = fileURLToPath(new URL('./support/loaded-tracing-modules.cjs', import.meta.url));
const loadedTracingModules = (stderr: string) => JSON.parse(/tracing modules loaded: (.*)/.exec(stderr)?.[1] ?? 'null') as string[] | null;

// The sampler, the SDK's loading and the export at SIGTERM are the process's own, whatever its
// database: once, on the embedded default (the spans of SQL statements run on both, above).
describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('the service process', () => {
  /** The server spans' trace ids a process sent for /readyz requests with these traceparent flags (undefined: no traceparent). */
  async function sampledTraces(env: Record<string, string>, flags: (string | undefined)[]): Promise<{ sent: string[]; kept: string[] }> {
    const collector = await startOtlpReceiver();
    try {
      const service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...env });
      const sent: string[] = [];
      for (const flag of flags) {
        const traceId = hex(16);
        sent.push(traceId);
        const headers: Record<string, string> = flag === undefined ? { 'X-Request-Id': traceId } : { traceparent: `00-${traceId}-${hex(8)}-${flag}`, 'X-Request-Id': traceId };
        expect((await send(`${service.url}/readyz`, 'GET', { headers })).status).toBe(200);
      }
      expect(await service.stop()).toBe(0);
      const kept = collector.spans.filter((s) => s.kind === SERVER).map((s) => (flags[sent.indexOf(s.traceId)] === undefined ? String(s.attributes['salesgraph.request_id']) : s.traceId));
      return { sent, kept };
    } finally {
      await collector.close();
    }
  }

  it('keeps the traces OTEL_TRACES_SAMPLER picks: parentbased_traceidratio at 0 follows a parent and starts none of its own', async () => {
    const { sent, kept } = await sampledTraces({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, ['01', '00', undefined]);
    expect(kept).toEqual([sent[0]]);
  });

  it('traceidratio at 1 keeps every trace, a parent that did not sample its own too; always_off keeps none', async () => {
    const all = await sampledTraces({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }, ['01', '00', undefined]);
    expect(all.kept.sort()).toEqual([...all.sent].sort());
    const none = await sampledTraces({ OTEL_TRACES_SAMPLER: 'always_off' }, ['01', undefined]);
    expect(none.kept).toEqual([]);
  });

  it('refuses a sampler it cannot run and a ratio outside 0 to 1, and defaults to parentbased_always_on', () => {
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'xray' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: 'half' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    const { OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG } = loadConfig({ OTEL_TRACES_SAMPLER: '', OTEL_TRACES_SAMPLER_ARG: '' });
    expect([OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG]).toEqual(['parentbased_always_on', 1]);
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT loads no tracing SDK and sends nothing', async () => {
    const collector = await startOtlpReceiver();
    try {
      const service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url }, { execArgv: ['--require', LOADED_MODULES] });
      expect((await send(`${service.url}/readyz`, 'GET', { headers: { traceparent: `00-${hex(16)}-${hex(8)}-01` } })).status).toBe(200);
      expect(await service.stop()).toBe(0);
      expect(loadedTracingModules(service.stderr())).toEqual([]);
      expect(collector.requests).toBe(0);
    } finally {
      await collector.close();
    }
  });

  it('with it, sends the spans of the requests it answered when SIGTERM stops it', async () => {
    const collector = await startOtlpReceiver();
    try {
      // A batch delay longer than the test: only the flush at shutdown can send the span.
      const service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '600000' }, { execArgv: ['--require', LOADED_MODULES] });
      const traceId = hex(16);
      expect((await send(`${service.url}/readyz`, 'GET', { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } })).status).toBe(200);
      expect(collector.spans).toEqual([]);
      expect(await service.stop()).toBe(0);
      expect(loadedTracingModules(service.stderr())).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/instrumentation']));
      const span = collector.spans.find((s) => s.traceId === traceId && s.kind === SERVER)!;
      expect([span.name, span.attributes['http.response.status_code'], span.resource['service.name']]).toEqual(['GET /readyz', 200, 'salesgraph']);
    } finally {
      await collector.close();
    }
  });
});
