import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { applyMigrations } from '../src/db/migrate.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { type BackgroundConfig } from '../src/jobs/background.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';
import { freshDatabase } from './support/fresh-database.js';
import { families, samples, valueOf } from './support/prometheus.js';
import { type Receiver, startReceiver } from './support/receiver.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const NOT_FOUND = { message: 'Not found.' };
const REQUESTS = 'salesgraph_http_request_duration_seconds_count';
const OPERATIONS = 'salesgraph_graphql_operations_total';

const scrape = async (app: TestApp, token = TOKEN) => send(`${app.url}/metrics`, 'GET', { headers: { Authorization: `Bearer ${token}` } });

/**
 * The service on a database of its own (the delivery gauges count the whole database, so
 * no other file's deliveries may be in it), with METRICS_TOKEN set.
 */
async function measuredApp(options: { background?: Partial<BackgroundConfig>; rateLimitPerMinute?: number; publicRateLimitPerMinute?: number } = {}): Promise<TestApp> {
  const database = await freshDatabase();
  await applyMigrations(resolveDatabase(database.url));
  const server = { METRICS_TOKEN: TOKEN, PUBLIC_RATE_LIMIT_PER_MINUTE: options.publicRateLimitPerMinute ?? 60, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true };
  const app = await startApp({ databaseUrl: database.url, rateLimitPerMinute: options.rateLimitPerMinute, server, background: options.background });
  return {
    ...app,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is the plain 404 of a path that does not exist, whatever token is sent', async () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN: use at least 16 characters');
    const app = await startApp();
    try {
      for (const reply of [await send(`${app.url}/metrics`, 'GET'), await scrape(app), await scrape(app, '')]) {
        expect([reply.status, reply.body]).toEqual([404, NOT_FOUND]);
      }
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let app: TestApp;
  let api: Client;
  let receivers: Receiver[] = [];
  beforeAll(async () => {
    app = await measuredApp({ background: { WEBHOOK_RETRY_SCHEDULE: [0.05], webhookPollMs: 50 } });
    api = await newClient(app);
  });
  afterAll(async () => {
    await app.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('answers 404 without the token, with another token, or with another scheme; the token holder gets the text format', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: `Bearer ${TOKEN}x` }, { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }, { Authorization: `Basic ${TOKEN}` }, { Authorization: TOKEN }]) {
      const reply = await send(`${app.url}/metrics`, 'GET', { headers });
      expect([reply.status, reply.body]).toEqual([404, NOT_FOUND]);
    }
    const reply = await scrape(app);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const names = families(reply.text).map((f) => f.name);
    for (const name of ['salesgraph_http_request_duration_seconds', OPERATIONS, 'salesgraph_rate_limit_refusals_total', 'salesgraph_webhook_deliveries_total',
      'salesgraph_webhook_deliveries_pending', 'salesgraph_webhook_deliveries_due', 'salesgraph_open_connections', 'salesgraph_event_streams_open', 'salesgraph_webhook_delivery_lag_seconds',
      'salesgraph_db_statement_duration_seconds', 'salesgraph_export_rows_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(names).toContain(name);
    }
    const post = await send(`${app.url}/metrics`, 'POST', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('counts REST requests by route template and status, never by raw path', async () => {
    const contact = (await api.post('/contacts', { first_name: 'Metered', email: 'metered@example.com' })).body;
    const before = (await scrape(app)).text;
    await api.get(`/contacts/${contact.id}`);
    await api.get(`/contacts/${contact.id}`);
    await api.get('/contacts/01JUNKNOWNUNKNOWNUNKNOWNUN');
    await send(`${app.url}/nowhere/${contact.id}`, 'GET');
    const after = (await scrape(app)).text;
    const delta = (labels: Record<string, string>) => valueOf(after, REQUESTS, labels) - valueOf(before, REQUESTS, labels);
    expect(delta({ route: 'GET /api/v1/contacts/{id}', status: '200' })).toBe(2);
    expect(delta({ route: 'GET /api/v1/contacts/{id}', status: '404' })).toBe(1);
    expect(delta({ route: 'unmatched', status: '404' })).toBe(1);
    // The scrape before is counted too, once answered.
    expect(delta({ route: 'GET /metrics', status: '200' })).toBe(1);
    expect(valueOf(after, 'salesgraph_http_request_duration_seconds_sum', { route: 'GET /api/v1/contacts/{id}', status: '200' })).toBeGreaterThan(0);
    expect(after).not.toContain(contact.id);
    expect(after).not.toContain('UNKNOWN');
    for (const sample of samples(after, REQUESTS)) expect(sample.labels.route).toMatch(/^(unmatched|CORS preflight|[A-Z]+ \/[^?]*)$/);
  });

  it('counts GraphQL operations by name and outcome; anonymous as one label, over-long and excess names as other', async () => {
    const before = (await scrape(app)).text;
    await api.graphql('query ListContacts { contacts { total } }');
    await api.graphql('query ListContacts { contacts { total } }');
    await api.graphql('{ contacts { total } }');
    await api.request('POST', '/graphql', { body: { query: 'query Broken { noSuchField }', operationName: 'Broken' } });
    await api.graphql(`query ${'L'.repeat(101)} { contacts { total } }`);
    // A batch: each operation counted on its own.
    await api.request('POST', '/graphql', { body: [{ query: 'query BatchA { contacts { total } }' }, { query: 'query BatchB { nope }', operationName: 'BatchB' }] });
    const after = (await scrape(app)).text;
    const delta = (operation: string, outcome: string) => valueOf(after, OPERATIONS, { operation, outcome }) - valueOf(before, OPERATIONS, { operation, outcome });
    expect([delta('ListContacts', 'ok'), delta('anonymous', 'ok'), delta('Broken', 'error'), delta('other', 'ok'), delta('BatchA', 'ok'), delta('BatchB', 'error')]).toEqual([2, 1, 1, 1, 1, 1]);
    expect(valueOf(after, REQUESTS, { route: 'POST /graphql', status: '200' }) - valueOf(before, REQUESTS, { route: 'POST /graphql', status: '200' })).toBe(6);

    // The set of names is bounded (100): past it, every new name is `other`.
    for (let i = 0; i < 100; i += 1) await api.graphql(`query Many${i} { contacts { total } }`);
    const bounded = (await scrape(app)).text;
    const names = new Set(samples(bounded, OPERATIONS).map((s) => s.labels.operation));
    expect(names.size).toBeLessThanOrEqual(102);
    expect(names.has('Many99')).toBe(false);
  });

  it('counts rate-limit refusals, keyed and public (a public path that matches no route too)', async () => {
    const limited = await measuredApp({ rateLimitPerMinute: 2, publicRateLimitPerMinute: 1 });
    try {
    const keyed = await newClient(limited);
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await keyed.get('/contacts')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const publicStatuses = [];
    for (const path of ['/api/v1/public/payment-links/nope', '/api/v1/public/payment-links/nope', '/api/v1/public/no-such-route']) publicStatuses.push((await send(`${limited.url}${path}`, 'GET')).status);
    expect(publicStatuses).toEqual([404, 429, 404]);
    const text = (await scrape(limited)).text;
    expect([valueOf(text, 'salesgraph_rate_limit_refusals_total', { limit: 'keyed' }), valueOf(text, 'salesgraph_rate_limit_refusals_total', { limit: 'public' })]).toEqual([1, 2]);
    } finally {
      await limited.close();
    }
  });

  it('counts webhook deliveries by outcome, and reads pending and due deliveries at scrape time', async () => {
    const ok = await startReceiver(() => ({ status: 200 }));
    const failing = await startReceiver(() => ({ status: 500 }));
    receivers = [ok, failing];
    for (const receiver of receivers) expect((await api.post('/webhook-endpoints', { url: receiver.url, events: ['company.created'] })).status).toBe(201);
    expect((await api.post('/companies', { name: 'Delivered' })).status).toBe(201);
    // One attempt succeeds; the other fails, is retried once (schedule: 50 ms) and fails for good.
    await expect
      .poll(async () => {
        const text = (await scrape(app)).text;
        return ['succeeded', 'retrying', 'failed'].map((outcome) => valueOf(text, 'salesgraph_webhook_deliveries_total', { outcome }));
      }, { timeout: 15_000, interval: 50 })
      .toEqual([1, 1, 1]);
    const text = (await scrape(app)).text;
    expect([valueOf(text, 'salesgraph_webhook_deliveries_pending'), valueOf(text, 'salesgraph_webhook_deliveries_due')]).toEqual([0, 0]);
    expect(valueOf(text, 'salesgraph_open_connections')).toBeGreaterThanOrEqual(1);
    // Each of the three attempts' lag, from when it was due.
    expect(valueOf(text, 'salesgraph_webhook_delivery_lag_seconds_count')).toBe(3);
  });

  it('times the database statements, counts the open event streams and the rows the CSV exports write', async () => {
    const before = (await scrape(app)).text;
    const STATEMENTS = 'salesgraph_db_statement_duration_seconds_count';
    const total = (await api.get('/contacts?per_page=1')).body.total as number;
    const csv = await send(`${app.url}/api/v1/contacts/export`, 'GET', { headers: { 'X-Api-Key': api.key } });
    expect(csv.text.trim().split('\n').length).toBe(total + 1);
    const stream = await fetch(`${app.url}/api/v1/events/stream`, { headers: { 'X-Api-Key': api.key } });
    const reader = stream.body!.getReader();
    await reader.read();
    const during = (await scrape(app)).text;
    expect(valueOf(during, STATEMENTS) - valueOf(before, STATEMENTS)).toBeGreaterThanOrEqual(2);
    expect(valueOf(during, 'salesgraph_db_statement_duration_seconds_sum')).toBeGreaterThan(0);
    expect(valueOf(during, 'salesgraph_export_rows_total', { list: 'contacts' }) - valueOf(before, 'salesgraph_export_rows_total', { list: 'contacts' })).toBe(total);
    expect(valueOf(during, 'salesgraph_event_streams_open')).toBe(1);
    // PostgreSQL's pool (SQLite has none: no sample): the requests above opened at least one connection.
    const pool = ['total', 'idle', 'waiting'].map((state) => valueOf(during, 'salesgraph_db_pool_connections', { state }));
    if (app.provider === 'postgresql') expect([pool[0]! >= 1, pool[0]! <= 10, pool[1]! <= pool[0]!, pool[2]]).toEqual([true, true, true, 0]);
    else expect(pool).toEqual([0, 0, 0]);
    await reader.cancel();
    await expect.poll(async () => valueOf((await scrape(app)).text, 'salesgraph_event_streams_open'), { interval: 20, timeout: 10_000 }).toBe(0);
  });

  it('shows the pending and the due deliveries when nothing delivers them', async () => {
    const idle = await measuredApp();
    try {
      const client = await newClient(idle);
      expect((await client.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['company.created'] })).status).toBe(201);
      for (const name of ['One', 'Two']) expect((await client.post('/companies', { name })).status).toBe(201);
      const text = (await scrape(idle)).text;
      expect([valueOf(text, 'salesgraph_webhook_deliveries_pending'), valueOf(text, 'salesgraph_webhook_deliveries_due')]).toEqual([2, 2]);
    } finally {
      await idle.close();
    }
  });
});
