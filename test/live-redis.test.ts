import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { type Database, openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { openStream } from './support/event-stream.js';
import { databaseUrl } from './support/file-database.js';
import { type ServiceProcess, runCli, startProcess } from './support/process.js';
import { REDIS_URL, SECRET, closedPort, redisRelay, withRedis } from './support/redis.js';

/**
 * Live updates through Redis pub/sub (REDIS_URL): separate service processes on this
 * file's database, each test with a channel of its own (EVENTS_REDIS_CHANNEL), so that
 * files running side by side do not hear each other.
 */
const redis = await withRedis("the live tail's Redis tests");

let database: Database;
beforeAll(async () => {
  database = await openDatabase(resolveDatabase(databaseUrl()));
  // A workspace before any process starts: on an empty database each would make the first one
  // (main.ts), and two starting at once race for it (on SQLite one can time out waiting).
  await createKey(database.prisma, `live-redis-${randomUUID()}`, 'first');
});
afterAll(() => database.close());

const newChannel = () => `salesgraph:test:events:${randomUUID()}`;

/** A service process with REDIS_URL, following `channel`; no rate limit, so that Redis carries only the live tail. */
const serve = (channel: string, env: Record<string, string> = {}) =>
  startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', REDIS_URL, EVENTS_REDIS_CHANNEL: channel, ...env });

/** What is published on `channel` from now on, as a subscriber of the test's own hears it. */
async function hear(channel: string) {
  const client = createClient({ url: REDIS_URL });
  const heard: string[] = [];
  await client.connect();
  await client.subscribe(channel, (message) => void heard.push(message));
  return { heard, close: () => client.close() };
}

async function newWorkspace() {
  const name = `live-redis-${randomUUID()}`;
  const { key, workspaceId } = await createKey(database.prisma, name, 'test');
  return { name, key, workspaceId };
}

async function createContact(service: ServiceProcess, key: string, name: string): Promise<string> {
  const res = await fetch(`${service.url}/api/v1/contacts`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ first_name: name, email: `${name.toLowerCase()}-${randomUUID()}@redis.example` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The workspace's event ids in the log, in id order. */
const logIds = async (workspaceId: string) => (await database.prisma.event.findMany({ where: { workspaceId }, orderBy: { id: 'asc' }, select: { id: true } })).map((e) => e.id);

/** The event a record's creation recorded, as `GET /events/{id}` answers it. */
async function eventOf(service: ServiceProcess, key: string, recordId: string): Promise<Record<string, unknown> & { id: string }> {
  const res = await fetch(`${service.url}/api/v1/events?record_id=${recordId}`, { headers: { 'X-Api-Key': key } });
  return ((await res.json()) as { data: (Record<string, unknown> & { id: string })[] }).data[0]!;
}

/** Connections of this database's that LISTEN (on PostgreSQL): the process's session for NOTIFY shows its last statement. */
const listeningSessions = async () =>
  Number((await database.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT count(*) AS "n" FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`))[0]!.n);

const stopAll = async (services: ServiceProcess[]) => expect(await Promise.all(services.map((s) => s.stop()))).toEqual(services.map(() => 0));

type Stream = ReturnType<typeof openStream>;

/**
 * Starts `starting` (each a service process), opens a REST stream of a new workspace on
 * the first, runs `test` and stops every process (those `test` adds to `services` too).
 */
async function withStream(
  starting: Promise<ServiceProcess>[],
  test: (run: { services: ServiceProcess[]; key: string; workspaceId: string; stream: Stream }) => Promise<void>,
): Promise<void> {
  const services = await Promise.all(starting);
  try {
    const { key, workspaceId } = await newWorkspace();
    const stream = openStream(`${services[0]!.url}/api/v1/events/stream`, key);
    await stream.opened;
    try {
      await test({ services, key, workspaceId, stream });
    } finally {
      stream.close();
    }
  } finally {
    await stopAll(services);
  }
}

// What differs per database is the log's reads and the LISTEN that Redis replaces: the first
// test (no LISTEN session on PostgreSQL) and the 200 writes (ids in commit order across
// processes) run on both. The rest (lost publishes, an outage, the start, the command line)
// is the channel's own logic over the same reads, and runs once, on the embedded default.
const onEmbeddedOnly = process.env.TEST_PROVIDER === 'postgresql' ? it.skip : it;

describe.skipIf(!redis)('live updates through Redis pub/sub (REDIS_URL)', () => {
  it("a stream on one process gets a write made through another process's REST API, published on the channel; no LISTEN session", async () => {
    const channel = newChannel();
    const listening = await hear(channel);
    // The safety read an hour away: past the stream's start, only a publish brings an event.
    const slow = { EVENTS_REDIS_SAFETY_READ_SECONDS: '3600' };
    try {
      await withStream([serve(channel, slow), serve(channel, slow)], async ({ services, key, workspaceId, stream }) => {
        const second = services[1]!;
        const created = [await createContact(second, key, 'Pushed')];
        await stream.received(1);
        created.push(await createContact(second, key, 'Again'));
        await stream.received(2);
        const events = [await eventOf(second, key, created[0]!), await eventOf(second, key, created[1]!)];
        expect(stream.messages).toEqual(events.map((event) => ({ id: event.id, event: 'contact.created', data: event })));
        expect(listening.heard).toEqual(events.map((event) => `${workspaceId} ${event.id}`));
        if (database.target.provider !== 'postgresql') return;
        expect(await listeningSessions()).toBe(0);
        // Without REDIS_URL a process LISTENs once a stream opens: the count above would have seen it.
        const plain = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
        services.push(plain);
        const control = openStream(`${plain.url}/api/v1/events/stream`, key);
        await control.opened;
        expect(await listeningSessions()).toBe(1);
        control.close();
      });
    } finally {
      await listening.close();
    }
  });

  onEmbeddedOnly("a publish lost is made good by the workspace's next publish, in id order", async () => {
    await withStream([serve(newChannel(), { EVENTS_REDIS_SAFETY_READ_SECONDS: '3600' }), serve(newChannel())], async ({ services, key, workspaceId, stream }) => {
      const [follower, unheard] = services as [ServiceProcess, ServiceProcess];
      // Published where nobody listens, then on the channel: the second's publish reads the log after the last id handed on.
      await createContact(unheard, key, 'Lost');
      await createContact(follower, key, 'Heard');
      await stream.received(2);
      expect(stream.messages.map((m) => m.id)).toEqual(await logIds(workspaceId));
    });
  });

  onEmbeddedOnly('a publish lost is delivered by the safety read, exactly once and in order', async () => {
    const channel = newChannel();
    const listening = await hear(channel);
    try {
      await withStream([serve(channel, { EVENTS_REDIS_SAFETY_READ_SECONDS: '0.3' }), serve(newChannel())], async ({ services, key, workspaceId, stream }) => {
        const [follower, unheard] = services as [ServiceProcess, ServiceProcess];
        await createContact(unheard, key, 'LostOne');
        await stream.received(1);
        await createContact(follower, key, 'Published');
        await stream.received(2);
        // The safety reads that brought the last one ran after the first two were handed on: neither again.
        await createContact(unheard, key, 'LostTwo');
        await stream.received(3);
        const ids = await logIds(workspaceId);
        expect(stream.messages.map((m) => m.id)).toEqual(ids);
        // Only the second was published on the follower's channel: the safety read brought the others.
        expect(listening.heard).toEqual([`${workspaceId} ${ids[1]}`]);
      });
    } finally {
      await listening.close();
    }
  });

  it('200 writes through two processes, one publishing where nobody listens, with a safety read every 20 ms: each event once, in id order', async () => {
    const channel = newChannel();
    await withStream([serve(channel, { EVENTS_REDIS_SAFETY_READ_SECONDS: '0.02' }), serve(channel), serve(newChannel())], async ({ services, key, workspaceId, stream }) => {
      const [, heard, unheard] = services as [ServiceProcess, ServiceProcess, ServiceProcess];
      // 20 at a time, alternating between the processes: transactions that overlap commit in an order of their own.
      for (let i = 0; i < 200; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => createContact((i + j) % 2 ? heard : unheard, key, `Order${i + j}`)));
      await stream.received(200);
      const ids = await logIds(workspaceId);
      expect(ids).toHaveLength(200);
      expect(stream.messages.map((m) => m.id)).toEqual(ids);
    });
  });

  onEmbeddedOnly('while Redis is away writes answer and one line per connection is logged; once it is back the stream gets what committed meanwhile, from the log', async () => {
    const relay = await redisRelay();
    try {
      await withStream([serve(newChannel(), { REDIS_URL: relay.url, EVENTS_REDIS_SAFETY_READ_SECONDS: '3600' })], async ({ services, key, workspaceId, stream }) => {
        const [service] = services as [ServiceProcess];
        await createContact(service, key, 'Before');
        await stream.received(1);
        const readiness = async () => {
          const answer = await fetch(`${service.url}/readyz`);
          return { status: answer.status, body: await answer.json() };
        };
        // No rate limit counts in Redis here: the channel alone makes Redis part of readiness.
        expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
        relay.cut();
        expect(await readiness()).toEqual({ status: 503, body: { message: 'Service unavailable.', checks: { database: 'ok', redis: 'down' } } });
        for (const name of ['During', 'Still', 'Again']) await createContact(service, key, name);
        await relay.restore();
        // Subscribed again (backing off up to 2 s), the process reads the log after the last id handed on.
        await stream.received(4);
        expect(stream.messages.map((m) => m.id)).toEqual(await logIds(workspaceId));
        // The publishing connection reconnects on its own schedule (backing off up to 2 s too).
        await expect.poll(readiness, { interval: 100, timeout: 10_000 }).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
        const errors = service.stderr().trim().split('\n').map((line) => JSON.parse(line) as { where: string });
        expect(errors.map((e) => e.where).sort()).toEqual(['live events (Redis publish)', 'live events (Redis subscriber)']);
        expect(service.output()).not.toContain(SECRET);
      });
    } finally {
      relay.cut();
    }
  });

  onEmbeddedOnly('does not start when REDIS_URL does not answer, rate limit or not, and says why without the password', async () => {
    const port = await closedPort();
    const started = serve(newChannel(), { REDIS_URL: `redis://default:${SECRET}@127.0.0.1:${port}` });
    await expect(started).rejects.toThrow(/^exited 1: Salesgraph cannot start: REDIS_URL redis:\/\/default:\*\*\*@127\.0\.0\.1:\d+ does not answer: connect ECONNREFUSED/);
    await expect(started).rejects.not.toThrow(SECRET);
  });

  onEmbeddedOnly("the command line's import publishes each committed transaction's events", async () => {
    const channel = newChannel();
    const listening = await hear(channel);
    try {
      const { name, workspaceId } = await newWorkspace();
      const dir = mkdtempSync(join(tmpdir(), 'sg-live-redis-'));
      const file = join(dir, 'contacts.csv');
      writeFileSync(file, 'first_name,email\nAda,ada@x.io\nBob,bob@x.io\nCy,cy@x.io\n');
      const result = await runCli(['import', 'contacts', file, '--workspace', name, '--json'], { DATABASE_URL: databaseUrl(), REDIS_URL, EVENTS_REDIS_CHANNEL: channel });
      expect([result.code, JSON.parse(result.stdout)]).toEqual([0, { created: 3, updated: 0, rejected: 0, skipped: 0 }]);
      const ids = await logIds(workspaceId);
      expect(ids).toHaveLength(3);
      await expect.poll(() => listening.heard, { interval: 20 }).toEqual([`${workspaceId} ${ids.join(' ')}`]);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await listening.close();
    }
  });
});
