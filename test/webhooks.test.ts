import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { type Answer, type Receiver, startReceiver } from './support/receiver.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { applyMigrations } from '../src/db/migrate.js';
import { scratchDatabase, testAdminUrl } from './support/scratch-database.js';
import type { BackgroundConfig } from '../src/jobs/background.js';
import { claimStatement } from '../src/webhooks/worker.js';
import { sqltag } from '@prisma/client/runtime/client';

// API.md section 6, "Webhook endpoints" and "Deliveries", through the real server with its
// delivery worker running (as every serving process runs it) and local receivers. Retries
// use a short schedule (50 ms, twice): three attempts in all.

let app: TestApp;
let strict: TestApp;
let api: Client;
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await startApp({
    server: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true },
    background: { WEBHOOK_RETRY_SCHEDULE: [0.05, 0.05], WEBHOOK_DISABLE_AFTER_FAILURES: 5, WEBHOOK_TIMEOUT_SECONDS: 2, webhookPollMs: 50 },
  });
  // As in production: endpoints must be public addresses.
  strict = await startApp({ databaseUrl: undefined });
  api = await newClient(app);
});


afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await app?.close();
  await strict?.close();
});

/** The server and its worker on a database of their own: no other worker (the file's app runs one) takes their deliveries. */
async function isolatedApp(label: string, background: Partial<BackgroundConfig>): Promise<TestApp> {
  const scratch = await scratchDatabase(process.env.TEST_PROVIDER === 'postgresql' ? 'postgresql' : 'sqlite', testAdminUrl(), label);
  await applyMigrations(resolveDatabase(scratch.url));
  const isolated = await startApp({ databaseUrl: scratch.url, server: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }, background });
  return {
    ...isolated,
    async close() {
      await isolated.close();
      await scratch.drop();
    },
  };
}

async function receiver(answer?: Answer): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** An endpoint for the records the tests write (not `*`: an endpoint's own creation is an event it would get). */
async function endpoint(client: Client, url: string, events: string[] = ['user.*', 'company.*', 'contact.*']): Promise<{ id: string; secret: string }> {
  const reply = await client.post('/webhook-endpoints', { url, events });
  expect([reply.status, reply.body.message]).toEqual([201, undefined]);
  return reply.body;
}

const deliveries = async (client: Client, endpointId: string, query = '') => (await client.get(`/webhook-endpoints/${endpointId}/deliveries?per_page=100${query}`)).body;

/** The deliveries of an endpoint once none is pending any more; if they never settle, what they and their endpoint look like. */
async function settled(client: Client, endpointId: string, count: number) {
  try {
    await expect
      .poll(async () => (await deliveries(client, endpointId)).data.filter((d: { status: string }) => d.status !== 'pending').length, { timeout: 15_000, interval: 20 })
      .toBe(count);
  } catch (error) {
    const { is_active, disabled_reason } = (await client.get(`/webhook-endpoints/${endpointId}`)).body;
    const states: Record<string, number> = {};
    for (const d of (await deliveries(client, endpointId)).data) {
      const state = `${d.status} attempts=${d.attempts} error=${d.error} response=${d.response_status}`;
      states[state] = (states[state] ?? 0) + 1;
    }
    throw new Error(`${(error as Error).message}\nendpoint: ${JSON.stringify({ is_active, disabled_reason })}\ndeliveries: ${JSON.stringify(states)}`);
  }
  return (await deliveries(client, endpointId)).data;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const ULID = expect.stringMatching(/^[0-9A-Z]{26}$/);

describe('endpoints', () => {
  it('creates with a secret shown once, reads, lists, updates and deletes, each recorded as an event', async () => {
    const client = await newClient(app);
    const created = await client.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', description: 'CRM sync', events: ['contact.*', 'deal.updated', 'contact.*'] });
    expect([created.status, created.body]).toEqual([
      201,
      {
        id: ULID,
        url: 'http://127.0.0.1:9/hook',
        description: 'CRM sync',
        events: ['contact.*', 'deal.updated'],
        is_active: true,
        disabled_reason: null,
        created_at: ISO,
        updated_at: ISO,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
    ]);
    const { secret, ...shown } = created.body;
    expect(Buffer.from(secret.slice(6), 'base64').length).toBe(32);
    const read = await client.get(`/webhook-endpoints/${shown.id}`);
    expect([read.status, read.body]).toEqual([200, shown]);
    expect((await client.get('/webhook-endpoints')).body).toEqual({ current_page: 1, per_page: 15, total: 1, last_page: 1, data: [shown] });
    const updated = await client.put(`/webhook-endpoints/${shown.id}`, { events: ['*'], description: null, is_active: false });
    expect([updated.status, updated.body.events, updated.body.description, updated.body.is_active]).toEqual([200, ['*'], null, false]);
    expect((await client.delete(`/webhook-endpoints/${shown.id}`)).status).toBe(204);
    expect((await client.get(`/webhook-endpoints/${shown.id}`)).body).toEqual({ message: 'Webhook endpoint not found.' });
    const events = (await client.get('/events?type=webhook_endpoint.*')).body.data;
    expect(events.map((e: any) => e.type)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.created']);
    expect(events[2].data.object).toEqual(shown);
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('refuses bad input with every problem at once, and changes nothing', async () => {
    const client = await newClient(app);
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { url: ['The url field is required.'], events: ['The events field is required.'] }],
      [{ url: 'ftp://example.com/x', events: [] }, { url: ['The url must be an absolute http or https URL.'], events: ['The events field must have at least 1 items.'] }],
      [{ url: 'http://user:pw@127.0.0.1/', events: ['contact.moved', 'nothing.*', 'contact', '**'] }, {
        url: ['The url must not contain user information.'],
        'events.0': ['The events.0 field must be an event type, <resource>.* or *.'],
        'events.1': ['The events.1 field must be an event type, <resource>.* or *.'],
        'events.2': ['The events.2 field must be an event type, <resource>.* or *.'],
        'events.3': ['The events.3 field must be an event type, <resource>.* or *.'],
      }],
      [{ url: `http://127.0.0.1/${'a'.repeat(2040)}`, events: Array.from({ length: 51 }, () => '*') }, { url: ['The url field must not be greater than 2048 characters.'], events: ['The events field must not have more than 50 items.'] }],
    ];
    for (const [body, errors] of cases) {
      const reply = await client.post('/webhook-endpoints', body);
      expect([body, reply.status, reply.body]).toEqual([body, 422, { message: 'The given data was invalid.', errors }]);
    }
    expect((await client.get('/webhook-endpoints')).body.total).toBe(0);
    expect((await client.get('/events')).body.total).toBe(0);
  });

  it('refuses loopback, private, link-local, unique-local, multicast and unspecified targets in every spelling', async () => {
    const client = await newClient(strict);
    const blocked = [
      'http://127.0.0.1/',
      'http://localhost:8080/hook',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://10.0.0.8/',
      'http://172.16.5.4/',
      'http://192.168.0.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://224.0.0.1/',
      'http://0.0.0.0/',
      'http://[::]/',
    ];
    for (const url of blocked) {
      const reply = await client.post('/webhook-endpoints', { url, events: ['*'] });
      expect([url, reply.status, reply.body.errors?.url]).toEqual([url, 422, [expect.stringMatching(/must not point to a private|could not be resolved/)]]);
    }
    // The same rule on update.
    const allowed = await endpoint(api, 'http://127.0.0.1:9/');
    const strictClient = await newClient(strict);
    const own = await strictClient.graphql('mutation { createWebhookEndpoint(input: { url: "https://93.184.216.34/hook", events: ["*"] }) { id } }');
    const moved = await strictClient.put(`/webhook-endpoints/${own.body.data.createWebhookEndpoint.id}`, { url: 'http://[::1]:8080/' });
    expect([moved.status, moved.body.errors]).toEqual([422, { url: ['The url must not point to a private, loopback, link-local or reserved address.'] }]);
    expect(allowed.id).toEqual(ULID);
  });

  it('another workspace\'s endpoints and deliveries are unknown ids', async () => {
    const owner = await newClient(app);
    const stranger = await newClient(app);
    const hook = await receiver();
    const own = await endpoint(owner, hook.url);
    expect((await owner.post('/companies', { name: 'Mine' })).status).toBe(201);
    const [delivery] = await settled(owner, own.id, 1);
    const notFound = { message: 'Webhook endpoint not found.' };
    for (const [method, path, body] of [
      ['GET', `/webhook-endpoints/${own.id}`],
      ['PUT', `/webhook-endpoints/${own.id}`, { is_active: false }],
      ['DELETE', `/webhook-endpoints/${own.id}`],
      ['POST', `/webhook-endpoints/${own.id}/rotate-secret`],
      ['POST', `/webhook-endpoints/${own.id}/test`],
      ['GET', `/webhook-endpoints/${own.id}/deliveries`],
      ['POST', `/webhook-endpoints/${own.id}/replay`, { since: '2020-01-01T00:00:00.000Z' }],
    ] as const) {
      const reply = await stranger.request(method, path, body === undefined ? {} : { body });
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 404, notFound]);
    }
    const retry = await stranger.post(`/webhook-deliveries/${delivery.id}/retry`);
    expect([retry.status, retry.body]).toEqual([404, { message: 'Webhook delivery not found.' }]);
    expect((await stranger.get('/webhook-endpoints')).body.total).toBe(0);
    // The stranger's writes never reach the owner's endpoint.
    expect((await stranger.post('/companies', { name: 'Theirs' })).status).toBe(201);
    expect((await owner.get(`/webhook-endpoints/${own.id}`)).body.is_active).toBe(true);
    expect((await deliveries(owner, own.id)).total).toBe(1);
    expect(hook.received.length).toBe(1);
  });
});

describe('deliveries', () => {
  it('sends each matching event, signed by the Standard Webhooks scheme, with the body GET /events/{id} answers', async () => {
    const client = await newClient(app);
    const hook = await receiver();
    const { id, secret } = await endpoint(client, hook.url, ['contact.*']);
    const contact = (await client.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' })).body;
    expect((await client.post('/companies', { name: 'Not subscribed' })).status).toBe(201);
    const [delivery] = await settled(client, id, 1);
    const event = (await client.get(`/events?type=contact.created`)).body.data[0];
    expect(delivery).toEqual({
      id: ULID,
      endpoint_id: id,
      event_id: event.id,
      event_type: 'contact.created',
      status: 'succeeded',
      attempts: 1,
      last_attempt_at: ISO,
      next_attempt_at: null,
      response_status: 200,
      response_body: 'ok',
      error: null,
      created_at: ISO,
    });
    expect(hook.received.length).toBe(1);
    const [request] = hook.received;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(Number(request!.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
    // The receiver's own check, with the reference library.
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toEqual(event);
    const get = await client.request('GET', `/events/${event.id}`);
    expect(request!.body).toBe(JSON.stringify(get.body));
    expect(event.data.object).toEqual(contact);
  });

  it('retries a failed attempt on the schedule, with the same webhook-id, until it succeeds', async () => {
    const client = await newClient(app);
    const hook = await receiver((n) => (n < 2 ? { status: 500, body: 'down' } : { status: 204 }));
    const { id } = await endpoint(client, hook.url);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    const [delivery] = await settled(client, id, 1);
    expect([delivery.status, delivery.attempts, delivery.response_status, delivery.response_body, delivery.error]).toEqual(['succeeded', 3, 204, '', null]);
    expect(new Set(hook.ids()).size).toBe(1);
    expect(hook.received.length).toBe(3);
  });

  it('gives up when the schedule is spent: failed, with the last answer kept (at most 1,024 characters)', async () => {
    const client = await newClient(app);
    const hook = await receiver(() => ({ status: 503, body: 'x'.repeat(5000) }));
    const { id } = await endpoint(client, hook.url);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    const [delivery] = await settled(client, id, 1);
    expect([delivery.status, delivery.attempts, delivery.next_attempt_at, delivery.response_status, delivery.response_body]).toEqual(['failed', 3, null, 503, 'x'.repeat(1024)]);
    expect(hook.received.length).toBe(3);
  });

  // DNS rebinding: a name that resolved to a public address at create time may point at a
  // private one later. Here the server lets a loopback endpoint be made and the worker does
  // not: only the check against the address actually connected to can refuse it.
  it('refuses, at the attempt, an address the endpoint was allowed when made: blocked_address, nothing sent', async () => {
    const guarded = await isolatedApp('guard', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: false, WEBHOOK_RETRY_SCHEDULE: [], webhookPollMs: 50 });
    try {
      const client = await newClient(guarded);
      const hook = await receiver();
      const { id } = await endpoint(client, hook.url);
      expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
      const [delivery] = await settled(client, id, 1);
      expect([delivery.status, delivery.attempts, delivery.error, delivery.response_status]).toEqual(['failed', 1, 'blocked_address', null]);
      expect(hook.received).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('waits a Retry-After longer than the schedule\'s delay', async () => {
    const client = await newClient(app);
    const hook = await receiver((n) => (n === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : { status: 200 }));
    const { id } = await endpoint(client, hook.url);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    const [delivery] = await settled(client, id, 1);
    expect([delivery.status, delivery.attempts]).toEqual(['succeeded', 2]);
    // The schedule says 50 ms; the receiver asked for a second.
    expect(hook.received[1]!.at - hook.received[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('a redirect is a failed attempt, never followed', async () => {
    const client = await newClient(app);
    const elsewhere = await receiver();
    const hook = await receiver(() => ({ status: 302, headers: { Location: elsewhere.url } }));
    const { id } = await endpoint(client, hook.url);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    const [delivery] = await settled(client, id, 1);
    expect([delivery.status, delivery.response_status, delivery.error]).toEqual(['failed', 302, 'redirect']);
    expect(elsewhere.received.length).toBe(0);
  });

  it('disables an endpoint whose last attempts all failed, records it, and resumes its deliveries when activated', async () => {
    const client = await newClient(app);
    let healthy = false;
    const hook = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const { id } = await endpoint(client, hook.url);
    // Two deliveries of three attempts each: the fifth failure disables the endpoint.
    expect((await client.post('/users', { name: 'A', email: 'a@example.com' })).status).toBe(201);
    expect((await client.post('/users', { name: 'B', email: 'b@example.com' })).status).toBe(201);
    await expect.poll(async () => (await client.get(`/webhook-endpoints/${id}`)).body.disabled_reason, { timeout: 15_000, interval: 20 }).toBe('failing');
    const disabled = (await client.get(`/webhook-endpoints/${id}`)).body;
    expect(disabled.is_active).toBe(false);
    const [event] = (await client.get(`/events?type=webhook_endpoint.updated&record_id=${id}`)).body.data;
    expect([event.actor, event.data.previous_attributes]).toEqual([{ type: 'system' }, { is_active: true, disabled_reason: null, updated_at: expect.any(String) }]);
    // No new deliveries while disabled; pending ones wait.
    const before = (await deliveries(client, id)).total;
    expect((await client.post('/users', { name: 'C', email: 'c@example.com' })).status).toBe(201);
    expect((await deliveries(client, id)).total).toBe(before);
    const pending = (await deliveries(client, id, '&status=pending')).data;
    healthy = true;
    const activated = await client.put(`/webhook-endpoints/${id}`, { is_active: true });
    expect([activated.body.is_active, activated.body.disabled_reason]).toEqual([true, null]);
    for (const d of pending) {
      await expect.poll(async () => (await deliveries(client, id)).data.find((x: { id: string }) => x.id === d.id).status, { timeout: 15_000, interval: 20 }).toBe('succeeded');
    }
  });

  it("a service's own commits wake its delivery worker: a write's delivery and a retry are attempted with no poll between", async () => {
    // The worker looks for due deliveries at its start, then only when woken: a commit of this service that queued some.
    const quiet = await isolatedApp('wake', { WEBHOOK_RETRY_SCHEDULE: [], webhookPollMs: 3_600_000 });
    try {
      const client = await newClient(quiet);
      let healthy = false;
      const hook = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
      const { id } = await endpoint(client, hook.url);
      expect((await client.post('/contacts', { first_name: 'W', email: 'w@example.com' })).status).toBe(201);
      await expect.poll(() => hook.received.length, { timeout: 30_000, interval: 20 }).toBe(1);
      const [failed] = await settled(client, id, 1);
      expect(failed.status).toBe('failed');
      healthy = true;
      expect((await client.post(`/webhook-deliveries/${failed.id}/retry`)).status).toBe(200);
      await expect.poll(() => hook.received.length, { timeout: 30_000, interval: 20 }).toBe(2);
    } finally {
      await quiet.close();
    }
  });

  it('retry attempts a delivery again at once; a failed one becomes pending', async () => {
    const client = await newClient(app);
    let healthy = false;
    const hook = await receiver(() => (healthy ? { status: 200, body: 'fine' } : { status: 500 }));
    const { id } = await endpoint(client, hook.url);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    const [failed] = await settled(client, id, 1);
    expect(failed.status).toBe('failed');
    healthy = true;
    const retried = await client.post(`/webhook-deliveries/${failed.id}/retry`);
    expect([retried.status, retried.body.id, retried.body.status]).toEqual([200, failed.id, 'pending']);
    const [after] = await settled(client, id, 1);
    expect([after.status, after.attempts, after.response_body]).toEqual(['succeeded', 4, 'fine']);
    expect(new Set(hook.ids()).size).toBe(1);
    expect((await client.post('/webhook-deliveries/01ARZ3NDEKTSV4RRFFQ69G5FAV/retry')).status).toBe(404);
  });

  it('replay queues every kept event since a time that matches the endpoint again', async () => {
    const client = await newClient(app);
    const first = (await client.post('/companies', { name: 'Old' })).body;
    const since = (await client.get(`/events?record_id=${first.id}`)).body.data[0].created_at;
    expect((await client.post('/contacts', { first_name: 'C', email: 'c@example.com' })).status).toBe(201);
    expect((await client.put(`/companies/${first.id}`, { name: 'Renamed' })).status).toBe(200);
    const hook = await receiver();
    const { id } = await endpoint(client, hook.url, ['company.*']);
    const replay = await client.post(`/webhook-endpoints/${id}/replay`, { since });
    expect([replay.status, replay.body]).toEqual([200, { queued: 2 }]);
    await settled(client, id, 2);
    const companyEvents = (await client.get('/events?type=company.*')).body.data.map((e: { id: string }) => e.id).sort();
    expect([...hook.ids()].sort()).toEqual(companyEvents);
    expect((await client.post(`/webhook-endpoints/${id}/replay`, { since: 'last week' })).status).toBe(422);
    expect((await client.post(`/webhook-endpoints/${id}/replay`, {})).body.errors).toEqual({ since: ['The since field is required.'] });
  });

  it('rotation: for 24 hours each delivery carries a signature from each secret', async () => {
    const client = await newClient(app);
    const hook = await receiver();
    const { id, secret: old } = await endpoint(client, hook.url);
    const rotated = await client.post(`/webhook-endpoints/${id}/rotate-secret`);
    expect([rotated.status, rotated.body.id, rotated.body.secret]).toEqual([200, id, expect.stringMatching(/^whsec_/)]);
    expect(rotated.body.secret).not.toBe(old);
    expect((await client.post('/users', { name: 'U', email: 'u@example.com' })).status).toBe(201);
    await settled(client, id, 1);
    const [request] = hook.received;
    expect(String(request!.headers['webhook-signature']).split(' ').map((s) => s.slice(0, 3))).toEqual(['v1,', 'v1,']);
    for (const secret of [old, rotated.body.secret]) expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({ type: 'user.created' });
    const [event] = (await client.get(`/events?type=webhook_endpoint.updated&record_id=${id}`)).body.data;
    expect(JSON.stringify(event)).not.toContain(rotated.body.secret.slice(6));
  });

  it('test sends a webhook_endpoint.test event to that endpoint alone, and keeps it out of the log', async () => {
    const client = await newClient(app);
    const hook = await receiver();
    const other = await receiver();
    const { id, secret } = await endpoint(client, hook.url, ['deal.created']);
    await endpoint(client, other.url);
    const sent = await client.post(`/webhook-endpoints/${id}/test`);
    expect([sent.status, sent.body.event_type, sent.body.endpoint_id, sent.body.status]).toEqual([201, 'webhook_endpoint.test', id, 'pending']);
    await settled(client, id, 1);
    const body = new Webhook(secret).verify(hook.received[0]!.body, hook.received[0]!.headers as Record<string, string>) as any;
    expect([body.type, body.resource, body.record_id, body.data.object.id, body.data.object.secret]).toEqual(['webhook_endpoint.test', 'webhook_endpoint', id, id, undefined]);
    expect(other.received.length).toBe(0);
    expect((await client.get(`/events/${body.id}`)).status).toBe(404);
  });

  it('50 concurrent writes: 50 events, each delivered once; no 5xx', async () => {
    const client = await newClient(app);
    const hook = await receiver();
    const { id } = await endpoint(client, hook.url, ['contact.created']);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => client.post('/contacts', { first_name: `C${i}`, email: `c${i}@example.com` })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    await settled(client, id, 50);
    const events = (await client.get('/events?type=contact.created&per_page=100')).body;
    expect(events.total).toBe(50);
    expect([...hook.ids()].sort()).toEqual(events.data.map((e: { id: string }) => e.id).sort());
  });

  it('GraphQL has the same operations', async () => {
    const client = await newClient(app);
    const hook = await receiver();
    const created = await client.graphql('mutation ($url: String!) { createWebhookEndpoint(input: { url: $url, events: ["user.*"] }) { id secret isActive events } }', { url: hook.url });
    const { id, secret } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect((await client.graphql('mutation ($id: ID!) { testWebhookEndpoint(id: $id) { eventType } }', { id })).body.data.testWebhookEndpoint.eventType).toBe('webhook_endpoint.test');
    await settled(client, id, 1);
    const read = await client.graphql('query ($id: ID!) { webhookEndpoint(id: $id) { url history { total } } webhookDeliveries(endpointId: $id) { total data { status } } }', { id });
    expect(read.body.data).toEqual({ webhookEndpoint: { url: hook.url, history: { total: 1 } }, webhookDeliveries: { total: 1, data: [{ status: 'succeeded' }] } });
    expect((await client.graphql('query { webhookEndpoint(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV") { id } }')).body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('plans (SQLite: it has no statistics, so the plan is the code\'s)', () => {
  // The list of an endpoint's deliveries was read through (workspaceId, id): every delivery of the workspace, in id order, for one endpoint's page.
  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')("an endpoint's deliveries are read through its own index", async () => {
    const client = await newClient(app);
    const { id } = await endpoint(client, 'http://127.0.0.1:9/hook', ['contact.created']);
    const statements: [string, string][] = [];
    app.database.onStatement((sql, params) => statements.push([sql, params]));
    try {
      expect((await client.get(`/webhook-endpoints/${id}/deliveries`)).status).toBe(200);
    } finally {
      app.database.onStatement(undefined);
    }
    const page = statements.filter(([sql]) => /FROM `main`.`WebhookDelivery`/.test(sql) && /ORDER BY/.test(sql));
    expect(page).toHaveLength(1);
    const [sql, params] = page[0]!;
    const plan = await app.database.prisma.$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, ...(JSON.parse(params) as unknown[]));
    expect(plan.map((step) => step.detail)).toEqual(['SEARCH main.WebhookDelivery USING INDEX WebhookDelivery_endpointId_id_idx (endpointId=?)']);
  });

  // The claim read every pending delivery of an endpoint to count its
  // leases (through the status index), 3 ms a round with 6,000 pending; PostgreSQL's plans follow its statistics.
  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')('the claim counts leases by their index and leases each chosen delivery by its key', async () => {
    const now = new Date();
    const claim = claimStatement({ now, until: new Date(now.getTime() + 60_000), owner: 'plan', perEndpoint: 32, limit: 128 });
    const plan = (await app.database.prisma.$queryRaw<{ detail: string }[]>(sqltag`EXPLAIN QUERY PLAN ${claim}`)).map((row) => row.detail);
    expect(plan).toContain('SEARCH l USING COVERING INDEX WebhookDelivery_endpointId_leaseUntil_idx (endpointId=? AND leaseUntil>?)');
    expect(plan).toContain('SEARCH WebhookDelivery USING INDEX sqlite_autoindex_WebhookDelivery_1 (id=?)');
    expect(plan).toContain('SEARCH d USING INDEX WebhookDelivery_status_nextAttemptAt_idx (status=? AND nextAttemptAt<?)'); // the pending ones' partial index
    expect(plan.filter((step) => /^(SCAN|SEARCH) (WebhookDelivery|l)\b/.test(step) && /status/.test(step))).toEqual([]);
  });
});

describe('the claim', () => {
  it("finds another endpoint's due delivery behind a full endpoint's backlog of more than a round's candidates", async () => {
    const client = await newClient(app);
    const stalled = await endpoint(client, 'http://127.0.0.1:9/stalled', ['contact.created']);
    const quick = await endpoint(client, 'http://127.0.0.1:9/quick', ['contact.created']);
    const { id: eventId } = (await app.database.prisma.event.findFirst({ where: { workspaceId: client.workspaceId }, select: { id: true } }))!;
    // An hour ahead: the file's own worker (it claims at the real time) leaves these rows alone.
    const now = new Date(Date.now() + 3_600_000);
    const row = (endpointId: string, id: string, at: number, leaseUntil: Date | null = null) => ({
      id, workspaceId: client.workspaceId, endpointId, eventId, eventType: 'contact.created', payload: '{}', status: 'pending',
      nextAttemptAt: new Date(now.getTime() - at), createdAt: now, leaseUntil, leaseOwner: leaseUntil ? 'another process' : null,
    });
    // The stalled endpoint: its two slots in flight (leased), and 300 older due deliveries waiting behind them.
    const pad = (n: number) => String(n).padStart(4, '0');
    await app.database.prisma.webhookDelivery.createMany({
      data: [
        ...Array.from({ length: 2 }, (_, i) => row(stalled.id, `${stalled.id}L${pad(i)}`, 600_000, new Date(now.getTime() + 60_000))),
        ...Array.from({ length: 300 }, (_, i) => row(stalled.id, `${stalled.id}D${pad(i)}`, 500_000 - i)),
        row(quick.id, `${quick.id}D0000`, 1_000),
      ],
    });
    const claimed = await app.database.prisma.$queryRaw<{ id: string }[]>(claimStatement({ now, until: new Date(now.getTime() + 60_000), owner: 'this process', perEndpoint: 2, limit: 10 }));
    expect(claimed.map((c) => c.id)).toEqual([`${quick.id}D0000`]);
  });
});

describe('attempts in flight', () => {
  it('a receiver that holds its requests gets at most the per-endpoint cap at once; another endpoint’s deliveries go on meanwhile', async () => {
    // Small caps, so the case is about them: 6 attempts per process, 2 per endpoint; attempts never time out here.
    const capped = await isolatedApp('capped', { WEBHOOK_TIMEOUT_SECONDS: 60, webhookConcurrency: 6, webhookPerEndpoint: 2, webhookPollMs: 50 });
    const slow = await startReceiver(() => 'hold');
    const fast = await receiver();
    try {
      const client = await newClient(capped);
      await endpoint(client, slow.url, ['contact.created']);
      const quick = await endpoint(client, fast.url, ['contact.created']);
      // One commit queues seven deliveries to each: the first round claims two of each.
      const inputs = Array.from({ length: 7 }, (_, i) => ({ first_name: `Held ${i}`, email: `held-${i}@example.com` }));
      expect((await client.post('/contacts/batch', { inputs })).status).toBe(201);
      // The quick endpoint's pairs are recorded as they end, and the next pair claimed: the held ones keep only their own two slots.
      expect((await settled(client, quick.id, 7)).map((d: { status: string }) => d.status)).toEqual(Array(7).fill('succeeded'));
      expect(fast.received).toHaveLength(7);
      expect(slow.received).toHaveLength(2);
    } finally {
      await slow.close(); // the held attempts fail at once, so the worker stops without waiting for them
      await capped.close();
    }
  });
});
