import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse, validate } from 'graphql';
import { createKey } from '../src/auth/api-keys.js';
import { GRAPHIQL_TABS } from '../src/graphql/yoga.js';
import { schema } from './support/schema.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { startProcess } from './support/process.js';
import { openStream } from './support/event-stream.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ server: { STREAMS_PER_KEY: 3 } });
});
afterAll(() => app.close());

const streamUrl = (query = '') => `${app.url}/api/v1/events/stream${query}`;

async function contact(api: Client, name: string) {
  const res = await api.post('/contacts', { first_name: name, email: `${name.toLowerCase()}-${Math.random()}@live.example` });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe('GET /api/v1/events/stream', () => {
  it('sends each event of a REST write as its GET answers it, with its id and type, headers at once', async () => {
    const api = await newClient(app);
    const raw = await fetch(streamUrl(), { headers: { 'X-Api-Key': api.key } });
    expect([raw.status, raw.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    await raw.body!.cancel();

    const stream = openStream(streamUrl(), api.key);
    await stream.opened;
    const created = await contact(api, 'Live');
    await stream.received(1);
    const [message] = stream.messages;
    const event = (await api.get(`/events?record_id=${created.id}`)).body.data[0];
    expect(message).toEqual({ id: event.id, event: 'contact.created', data: event });
    stream.close();
  });

  it('sends a workspace\'s events in id order under concurrent writes, so that resuming after the last id received misses nothing', async () => {
    const api = await newClient(app);
    const stream = openStream(streamUrl(), api.key);
    await stream.opened;
    // 200 writes, 20 at a time: transactions that overlap commit in an order of their own.
    const names = Array.from({ length: 200 }, (_, i) => `Order${i}`);
    for (let i = 0; i < names.length; i += 20) await Promise.all(names.slice(i, i + 20).map((name) => contact(api, name)));
    await stream.received(200);
    stream.close();
    const ids = stream.messages.map((m) => m.id);
    expect(ids.filter((id, i) => i > 0 && id <= ids[i - 1]!)).toEqual([]);
    // Cut anywhere: a client resuming after the last id it got gets exactly the rest.
    const resumed = openStream(streamUrl(), api.key, { 'Last-Event-ID': ids[99]! });
    await resumed.received(100);
    resumed.close();
    expect(resumed.messages.map((m) => m.id)).toEqual(ids.slice(100));
  });

  it('resumes after Last-Event-ID (or `since`) with every later event, then goes live, with no gap and no duplicate over 500 writes', async () => {
    const api = await newClient(app);
    const first = await contact(api, 'Before');
    const since = (await api.get(`/events?record_id=${first.id}`)).body.data[0].id;
    const batch = (n: number) => api.post('/contacts/batch', { inputs: Array.from({ length: 50 }, (_, i) => ({ first_name: `B${n}x${i}`, email: `b${n}-${i}-${Math.random()}@seam.example` })) });
    // 250 events in the log before the stream opens, 250 while it replays and after.
    for (let n = 0; n < 5; n++) expect((await batch(n)).status).toBe(201);
    const stream = openStream(streamUrl(), api.key, { 'Last-Event-ID': since });
    const writing = (async () => {
      for (let n = 5; n < 10; n++) expect((await batch(n)).status).toBe(201);
    })();
    await writing;
    await stream.received(500);
    const log: string[] = [];
    for (let page = 1; page <= 34; page++) log.push(...(await api.get(`/events?per_page=15&page=${page}`)).body.data.map((e: { id: string }) => e.id));
    const expected = log.filter((id) => id > since).sort();
    const ids = stream.messages.map((m) => m.id);
    expect([ids.length, new Set(ids).size]).toEqual([500, 500]);
    expect([...ids].sort()).toEqual(expected);
    // The replayed part comes in id order.
    expect(ids.slice(0, 250)).toEqual([...ids.slice(0, 250)].sort());
    stream.close();

    // `since` in the query does the same; `type` filters.
    const typed = openStream(streamUrl(`?since=${since}&type=company.*`), api.key);
    await typed.opened;
    const company = (await api.post('/companies', { name: 'After' })).body;
    await typed.received(1);
    expect(typed.messages.map((m) => [m.event, m.data.record_id])).toEqual([['company.created', company.id]]);
    typed.close();
  });

  it('refuses a `since` that is not an event of the log with 422, and needs a key', async () => {
    const api = await newClient(app);
    const unknown = await fetch(streamUrl('?since=01ARZ3NDEKTSV4RRFFQ69G5FAV'), { headers: { 'X-Api-Key': api.key } });
    expect([unknown.status, (await unknown.json()).errors]).toEqual([422, { since: ['The selected since is invalid: it is not an event of the log (unknown, or older than the retention).'] }]);
    expect((await fetch(streamUrl())).status).toBe(401);
  });

  it('a key scoped to deals:read sees the deals and no contact', async () => {
    const workspace = `live-scopes-${Math.random()}`;
    const api = await newClient(app, workspace);
    const scoped = (await createKey(app.database.prisma, workspace, 'deals only', { scopes: ['deals:read'] })).key;
    const stream = openStream(streamUrl(), scoped);
    await stream.opened;
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'S' }] })).body;
    const user = (await api.post('/users', { name: 'U', email: `u-${Math.random()}@x.io` })).body;
    await contact(api, 'Hidden');
    const deal = (await api.post('/deals', { name: 'Seen', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id })).body;
    await stream.received(1);
    expect(stream.messages.map((m) => [m.event, m.data.record_id])).toEqual([['deal.created', deal.id]]);
    // The log too: the deal's events only.
    const res = await fetch(`${app.url}/api/v1/events`, { headers: { 'X-Api-Key': scoped } });
    expect([res.status, (await res.json()).data.map((e: { resource: string }) => e.resource)]).toEqual([200, ['deal']]);
    stream.close();
  });

  it('holds at most STREAMS_PER_KEY streams per key, REST and GraphQL together: the next is 429', async () => {
    const api = await newClient(app);
    const restStatus = async () => {
      const res = await fetch(streamUrl(), { headers: { 'X-Api-Key': api.key } });
      await res.body?.cancel();
      return res.status;
    };
    const streams = [openStream(streamUrl(), api.key), openStream(streamUrl(), api.key)];
    await Promise.all(streams.map((s) => s.opened));
    // The third is a subscription, open once it delivers an event.
    const client = createClient({ url: `${app.url}/graphql`, headers: { 'X-Api-Key': api.key }, retryAttempts: 0 });
    let delivered!: () => void;
    const third = new Promise<void>((resolve) => (delivered = resolve));
    const finished = new Promise<void>((resolve, reject) => {
      client.subscribe({ query: 'subscription { events { id } }' }, { next: () => delivered(), error: reject, complete: resolve });
    }).catch((error: Error) => error);
    for (let i = 0; i < 250; i++) {
      await contact(api, `Third${i}`);
      if (await Promise.race([third.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))])) break;
    }
    await third;
    expect(await restStatus()).toBe(429);
    streams[0]!.close();
    // One closed: one more fits (the server sees the close a moment later).
    await expect.poll(restStatus, { interval: 20, timeout: 10_000 }).toBe(200);
    // A subscription over the bound is refused too (429): another key, its three streams REST.
    const full = await newClient(app);
    const rest = [openStream(streamUrl(), full.key), openStream(streamUrl(), full.key), openStream(streamUrl(), full.key)];
    await Promise.all(rest.map((s) => s.opened));
    const refused = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'X-Api-Key': full.key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { events { id } }' }),
    });
    expect(refused.status).toBe(429);
    await refused.body?.cancel();
    for (const s of [...streams, ...rest]) s.close();
    client.dispose();
    await finished;
  });
});

describe('GraphQL subscription `events` over SSE', () => {
  it('a subscription whose client goes away frees its place at once: the key opens as many again', async () => {
    // Yoga pings a subscription every 300 ms under NODE_ENV=test (vitest's), every 12 s otherwise; its ping
    // also ends a subscription whose client has gone. It must end at the close, not the ping.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    onTestFinished(() => void (process.env.NODE_ENV = nodeEnv));
    const api = await newClient(app);
    /** A graphql-sse client's subscription: resolves once it has delivered an event, or with the error that ended it. */
    const subscribe = () => {
      const client = createClient({ url: `${app.url}/graphql`, headers: { 'X-Api-Key': api.key }, retryAttempts: 0 });
      const delivered = new Promise<Error | undefined>((resolve) => {
        client.subscribe({ query: 'subscription { events { id } }' }, { next: () => resolve(undefined), error: (error) => resolve(error as Error), complete: () => resolve(undefined) });
      });
      return { client, delivered };
    };
    for (let round = 0; round < 3; round++) {
      // STREAMS_PER_KEY of them, each open once a write's event reaches it (the server sees a client go
      // away a moment after it: a subscription refused meanwhile is tried again, as expect.poll would).
      const open: ReturnType<typeof subscribe>[] = [];
      const deadline = Date.now() + 5_000;
      while (open.length < 3) {
        const next = subscribe();
        let settled: Error | undefined | 'waiting' = 'waiting';
        for (let i = 0; i < 100 && settled === 'waiting'; i++) {
          await contact(api, `Away${round}x${open.length}x${i}`);
          settled = await Promise.race([next.delivered, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 20))]);
        }
        if (settled === undefined) open.push(next);
        else {
          next.client.dispose();
          expect([Date.now() < deadline, String(settled)]).toEqual([true, 'NetworkError: Server responded with 429: Too Many Requests']);
        }
      }
      // Then they go away, as a front end's page does; with no event since, their places are free again.
      for (const { client } of open) client.dispose();
      const freedBy = Date.now() + 5_000;
      const held: Response[] = [];
      while (held.length < 3) {
        const res = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
          body: JSON.stringify({ query: 'subscription { events { id } }' }),
        });
        if (res.status === 200) held.push(res);
        else {
          await res.body?.cancel();
          expect([Date.now() < freedBy, res.status]).toEqual([true, 429]);
          await new Promise((resolve) => setTimeout(resolve, 20)); // polled, as expect.poll does
        }
      }
      await Promise.all(held.map((res) => res.body!.cancel()));
    }
  });

  it('a subscriber that never reads is dropped once STREAM_BUFFER_EVENTS events wait for it', async () => {
    const small = await startApp({ server: { STREAM_BUFFER_EVENTS: 20 } });
    try {
      const api = await newClient(small);
      const res = await fetch(`${small.url}/graphql`, {
        method: 'POST',
        headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { events { id data } }' }),
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      const count = () => text.split('event: next').length - 1;
      // Read while it keeps up: an event arrives (the subscription is open once one does).
      let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
      for (let i = 0; i < 100 && count() === 0; i++) {
        await contact(api, `Kept${i}`);
        reading ??= reader.read();
        const chunk = await Promise.race([reading, new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))]);
        if (chunk) {
          reading = undefined;
          text += new TextDecoder().decode(chunk.value);
        }
      }
      expect(count()).toBeGreaterThan(0);
      // Then about 10 MB of events, far more than the connection's buffers hold, while nobody reads.
      const notes = 'n'.repeat(10_000);
      for (let n = 0; n < 10; n++) {
        const inputs = Array.from({ length: 100 }, (_, i) => ({ first_name: `Slow${n}x${i}`, email: `slow-${n}-${i}-${Math.random()}@x.io`, notes }));
        expect((await api.post('/contacts/batch', { inputs })).status).toBe(201);
      }
      // The subscription has ended (cut off: completed, or the connection closed) well before the 1,000 events.
      for (;;) {
        const chunk = await (reading ?? reader.read()).catch(() => ({ done: true as const, value: undefined }));
        reading = undefined;
        if (chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
        if (text.endsWith('event: complete\ndata:\n\n')) break;
      }
      expect(count() < 1000).toBe(true);
      await reader.cancel().catch(() => {});
    } finally {
      await small.close();
    }
  });

  it('a graphql-sse client sees the event of a REST write, camelCase, with data as the REST event', async () => {
    const api = await newClient(app);
    const client = createClient({ url: `${app.url}/graphql`, headers: { 'X-Api-Key': api.key }, retryAttempts: 0 });
    const got: Record<string, unknown>[] = [];
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: 'subscription { events(types: ["contact.*"]) { id type resource recordId data } }' },
        { next: (result) => (got.push(result.data!.events as Record<string, unknown>), arrived()), error: reject, complete: resolve },
      );
    });
    // The subscription is open once an event reaches it: write until one does (a busy machine takes longer).
    let created: { id: string } | undefined;
    for (let i = 0; i < 250 && got.length === 0; i++) {
      created = await contact(api, `Sub${i}`);
      await Promise.race([first, new Promise((r) => setTimeout(r, 20))]);
    }
    await first;
    const event = (await api.get(`/events?record_id=${got[0]!.recordId}`)).body.data[0];
    expect(got[0]).toEqual({ id: event.id, type: 'contact.created', resource: 'contact', recordId: event.record_id, data: event.data });
    expect(created).toBeDefined();
    client.dispose();
    await done.catch(() => {});
  });

  it('hands one event to many subscriptions without reading it again for each (no statement per subscriber)', async () => {
    const workspace = `live-fanout-${Math.random()}`;
    const api = await newClient(app, workspace);
    const clients: ReturnType<typeof createClient>[] = [];
    const got: string[][] = [];
    const waiters: (() => void)[] = [];
    const done: Promise<unknown>[] = [];
    // Six subscriptions (two keys of three, the bound here), each selecting `data` and `actor`.
    for (let k = 0; k < 2; k++) {
      const key = (await createKey(app.database.prisma, workspace, `fan-out ${k}`)).key;
      for (let i = 0; i < 3; i++) {
        const mine: string[] = [];
        got.push(mine);
        const client = createClient({ url: `${app.url}/graphql`, headers: { 'X-Api-Key': key }, retryAttempts: 0 });
        clients.push(client);
        done.push(
          new Promise<void>((resolve, reject) =>
            client.subscribe<{ events: { recordId: string } }>(
              { query: 'subscription { events { id recordId actor data } }' },
              { next: (r) => (mine.push(r.data!.events.recordId), waiters.splice(0).forEach((w) => w())), error: reject, complete: resolve },
            ),
          ).catch(() => {}),
        );
      }
    }
    const everyone = (id: string) => got.every((mine) => mine.includes(id));
    const arrived = async (id: string) => {
      while (!everyone(id)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    // Open once each has had an event.
    for (let i = 0; i < 250; i++) {
      const c = await contact(api, `Fan${i}`);
      if (await Promise.race([arrived(c.id).then(() => true), new Promise((r) => setTimeout(() => r(false), 50))])) break;
    }
    // From the write to the six deliveries: the write's statements and the live tail's reads of the log (by time
    // or by the notified ids), no read of the event by its id for a subscription (its row is handed to each as read).
    const reads: string[] = [];
    app.database.onStatement((sql) => void (/^\s*SELECT/i.test(sql) && /["`]Event["`]/.test(sql) && reads.push(sql)));
    let created!: { id: string };
    try {
      created = await contact(api, 'FanOut');
      await arrived(created.id);
    } finally {
      app.database.onStatement(undefined);
    }
    expect(got.map((mine) => mine.filter((id) => id === created.id).length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(reads.filter((sql) => /["`]id["`] = (\?|\$\d)/.test(sql))).toEqual([]);
    for (const c of clients) c.dispose();
    await Promise.all(done);
  });

  it("GraphiQL's default tabs are a query, a subscription to contact events and a contact's creation, each named and valid", async () => {
    const operation = (query: string) => parse(query).definitions[0] as { kind: string; operation: string; name?: { value: string } };
    expect(GRAPHIQL_TABS.map((tab) => [operation(tab.query).operation, operation(tab.query).name?.value, validate(schema, parse(tab.query))])).toEqual([
      ['query', 'FirstContacts', []],
      ['subscription', 'ContactEvents', []],
      ['mutation', 'CreateAda', []],
    ]);
    const page = await (await fetch(`${app.url}/graphql`, { headers: { Accept: 'text/html' } })).text();
    expect(page).toContain('subscription ContactEvents {\\n  events(types: [\\"contact.*\\"])');
    // The key bar's script comes before GraphiQL's bundle; no header editor holds a placeholder key.
    expect(page.indexOf('salesgraph.apiKey')).toBeGreaterThan(-1);
    expect(page.indexOf('salesgraph.apiKey')).toBeLessThan(page.indexOf('<div id="root">'));
    expect(page).not.toContain('paste your sg_');
  });

  it("a second server process on the same database makes the write; the first one's subscriber sees it", async () => {
    const other = await startProcess({ DATABASE_URL: databaseUrl(), RATE_LIMIT_PER_MINUTE: '0', MIGRATE_ON_START: 'false' });
    try {
      const api = await newClient(app);
      const stream = openStream(streamUrl(), api.key);
      await stream.opened;
      const viaOther = await fetch(`${other.url}/api/v1/contacts`, {
        method: 'POST',
        headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ first_name: 'Elsewhere', email: `e-${Math.random()}@x.io` }),
      });
      expect(viaOther.status).toBe(201);
      const created = await viaOther.json();
      await stream.received(1);
      expect(stream.messages.map((m) => [m.event, m.data.record_id])).toEqual([['contact.created', created.id]]);
      stream.close();
    } finally {
      expect(await other.stop()).toBe(0);
    }
  });
});

// How a stream ends at SIGTERM and drops a reader that never reads is the HTTP layer's, whatever
// the database: once, on the embedded default.
describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('streams and the process', () => {
  it('SIGTERM ends every stream cleanly (the body ends, no error), a subscription with its complete message', async () => {
    const service = await startProcess({ DATABASE_URL: databaseUrl(), RATE_LIMIT_PER_MINUTE: '0' });
    const key = (await createKey(app.database.prisma, `live-term-${Math.random()}`, 'k')).key;
    const res = await fetch(`${service.url}/api/v1/events/stream`, { headers: { 'X-Api-Key': key } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const opening = new TextDecoder().decode((await reader.read()).value);
    expect(opening).toBe(': stream open\n\n');
    // A subscription too, whose connection gathers its writes (corked): it completes, and the end is sent.
    const subscription = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { events { id } }' }),
    });
    expect(subscription.status).toBe(200);
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(await subscription.text()).toMatch(/event: complete\ndata:\n\n$/);
    expect(await exited).toBe(0);
  });

  it('a reader that never reads is dropped once STREAM_BUFFER_EVENTS events wait for it', async () => {
    const small = await startApp({ server: { STREAM_BUFFER_EVENTS: 20 } });
    try {
      const api = await newClient(small);
      const res = await fetch(`${small.url}/api/v1/events/stream`, { headers: { 'X-Api-Key': api.key } });
      const reader = res.body!.getReader();
      let text = new TextDecoder().decode((await reader.read()).value);
      const count = () => text.split('\nevent: contact.created\n').length - 1;
      // Read while it keeps up: 3 events arrive.
      for (let i = 0; i < 3; i++) await contact(api, `Kept${i}`);
      while (count() < 3) {
        const chunk = await reader.read();
        expect(chunk.done).toBe(false);
        text += new TextDecoder().decode(chunk.value);
      }
      // Then about 10 MB of events, far more than the connection's buffers hold, while nobody reads.
      const notes = 'n'.repeat(10_000);
      for (let n = 0; n < 10; n++) {
        const inputs = Array.from({ length: 100 }, (_, i) => ({ first_name: `Slow${n}x${i}`, email: `slow-${n}-${i}-${Math.random()}@x.io`, notes }));
        expect((await api.post('/contacts/batch', { inputs })).status).toBe(201);
      }
      // The stream has ended (cut off) well before the 1,003 events.
      let ended = false;
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) {
          ended = true;
          break;
        }
        text += new TextDecoder().decode(chunk.value);
      }
      expect([ended, count() >= 3, count() < 1003]).toEqual([true, true, true]);
      await reader.cancel();
    } finally {
      await small.close();
    }
  });
});
