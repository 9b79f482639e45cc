import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { type Database, openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { connectRedisStore } from '../src/http/rate-limit-redis.js';
import { type ServiceProcess, startProcess } from './support/process.js';
import { databaseUrl } from './support/file-database.js';
import { valueOf } from './support/prometheus.js';
import { REDIS_URL, SECRET, closedPort, redisRelay, withRedis as redisFor } from './support/redis.js';

const LIMIT = 5;
const withRedis = await redisFor('the Redis rate-limit tests');

const uniquePrefix = () => `salesgraph:test:${randomUUID()}:`;

let database: Database;
beforeAll(async () => {
  database = await openDatabase(resolveDatabase(databaseUrl()));
});
afterAll(() => database.close());

const newKey = async () => (await createKey(database.prisma, `cluster-${randomUUID()}`, 'test')).key;

/**
 * One GET over a connection of its own (no keep-alive): the cluster primary hands each
 * new connection to the next worker, so consecutive requests alternate between them.
 */
function getAlone(url: string, key: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/products?per_page=1`, { agent: false, headers: { 'X-Api-Key': key } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The service with two workers, sharing connections round-robin (Linux's default, said here so no environment changes it). */
const startCluster = (env: Record<string, string> = {}) =>
  startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', WEB_CONCURRENCY: '2', RATE_LIMIT_PER_MINUTE: String(LIMIT), NODE_CLUSTER_SCHED_POLICY: 'rr', ...env });

/**
 * Drives a running two-worker service: the limit holds across workers for consecutive
 * requests and for a burst, another key is unaffected; then it stops the service and
 * reads each worker's last line, which says how many requests it served.
 */
async function expectOneLimitAcrossWorkers(service: ServiceProcess): Promise<void> {
  const [steady, burst, other] = [await newKey(), await newKey(), await newKey()];
  const count = 2 * LIMIT + 2;
  const answers = [];
  for (let i = 0; i < count; i += 1) answers.push(await getAlone(service.url, steady));
  expect(answers.map((a) => a.status)).toEqual([...Array(LIMIT).fill(200), ...Array(count - LIMIT).fill(429)]);
  expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual([...Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)), ...Array(count - LIMIT).fill('0')]);
  for (const refused of answers.slice(LIMIT)) {
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  }

  // All at once: the count is one atomic step wherever it is kept.
  const together = await Promise.all(Array.from({ length: count }, () => getAlone(service.url, burst)));
  expect(together.filter((a) => a.status === 200)).toHaveLength(LIMIT);
  expect(together.filter((a) => a.status === 429 && a.headers['retry-after'])).toHaveLength(count - LIMIT);

  const unaffected = await getAlone(service.url, other);
  expect([unaffected.status, unaffected.headers['x-ratelimit-remaining']]).toEqual([200, String(LIMIT - 1)]);

  expect(await service.stop()).toBe(0);
  const workers = [...service.stdout().matchAll(/worker (\d+) stopped after serving (\d+) requests/g)];
  expect(new Set(workers.map((w) => w[1])).size).toBe(2);
  const served = workers.map((w) => Number(w[2]));
  expect(served.every((n) => n > 0)).toBe(true);
  expect(served.reduce((a, b) => a + b, 0)).toBe(2 * count + 1);
}

/**
 * A POST that sends its headers with `Expect: 100-continue` and its body only once the
 * server has answered "100 Continue" (the request is then in flight in a worker) and
 * `beforeBody` has run.
 */
function postInTwoSteps(url: string, key: string, body: unknown, beforeBody: () => Promise<void>): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = { 'X-Api-Key': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), Expect: '100-continue' };
    const req = request(`${url}/api/v1/contacts`, { method: 'POST', agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('continue', () => void beforeBody().then(() => req.end(payload), reject));
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('WEB_CONCURRENCY=2: two workers on one port, one rate limit', () => {
  it('counts in the cluster primary with no other set-up', { timeout: 90_000 }, async () => {
    const service = await startCluster();
    try {
      expect(service.stdout()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \((sqlite|postgresql), 2 processes\)/);
      await expectOneLimitAcrossWorkers(service);
      expect(service.stdout()).toMatch(/SIGTERM: stopping 2 workers/);
      expect(service.stderr()).not.toMatch(/"level":"error"|Salesgraph worker/);
    } finally {
      await service.stop();
    }
  });

  it('stops on SIGTERM with each worker finishing the request it has in flight', { timeout: 90_000 }, async () => {
    const service = await startCluster({ LOG_LEVEL: 'warn' });
    const key = await newKey();
    try {
      const answer = await postInTwoSteps(service.url, key, { first_name: 'Late', email: `late-${randomUUID()}@example.com` }, async () => {
        service.child.kill('SIGTERM');
        // The idle worker has stopped: the stop is under way while this request still waits for its body.
        await service.printed(/worker \d+ stopped after serving 0 requests/);
      });
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body).first_name).toBe('Late');
      expect(await service.stop()).toBe(0);
      expect(service.stdout()).toMatch(/worker \d+ stopped after serving 1 requests/);
    } finally {
      await service.stop();
    }
  });

  it('counts the public routes\' limit per client address in the primary too, apart from the keys\'', { timeout: 90_000 }, async () => {
    const service = await startCluster({ PUBLIC_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const publicGet = () =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${service.url}/api/v1/public/payment-links/unknown`, { agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          });
          req.on('error', reject);
          req.end();
        });
      const statuses: number[] = [];
      // Each on a new connection: the primary hands them to the two workers in turn.
      for (let i = 0; i < 6; i += 1) statuses.push(await publicGet());
      expect(statuses).toEqual([404, 404, 404, 429, 429, 429]);
      // The keyed limit is its own.
      expect((await getAlone(service.url, await newKey())).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('answers /metrics with the sum of both workers\' figures, whichever worker gets the scrape', { timeout: 90_000 }, async () => {
    const token = 'cluster-metrics-token-0123456789';
    const service = await startCluster({ METRICS_TOKEN: token });
    /** A GET on a connection of its own: consecutive ones go to the two workers in turn. */
    const getAlone = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${service.url}${path}`, { agent: false, headers }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      for (let i = 0; i < 6; i += 1) expect((await getAlone('/healthz')).status).toBe(200);
      const scrapes = [await getAlone('/metrics', { Authorization: `Bearer ${token}` }), await getAlone('/metrics', { Authorization: `Bearer ${token}` })];
      expect(scrapes.map((s) => s.status)).toEqual([200, 200]);
      // Each worker served three: either scrape shows all six.
      for (const { body } of scrapes) expect(valueOf(body, 'salesgraph_http_request_duration_seconds_count', { route: 'GET /healthz', status: '200' })).toBe(6);
      // The second scrape sees the first, answered by the other worker.
      expect(valueOf(scrapes[1]!.body, 'salesgraph_http_request_duration_seconds_count', { route: 'GET /metrics', status: '200' })).toBe(1);
      expect((await getAlone('/metrics', { Authorization: 'Bearer wrong' })).status).toBe(404);
      expect(await service.stop()).toBe(0);
      const served = [...service.stdout().matchAll(/worker \d+ stopped after serving (\d+) requests/g)].map((w) => Number(w[1]));
      expect(served.sort()).toEqual([4, 5]);
    } finally {
      await service.stop();
    }
  });

  it.skipIf(!withRedis)('counts in Redis under RATE_LIMIT_REDIS_PREFIX when REDIS_URL is set', { timeout: 90_000 }, async () => {
    const prefix = uniquePrefix();
    const service = await startCluster({ REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix });
    const redis = await createClient({ url: REDIS_URL }).connect();
    try {
      await expectOneLimitAcrossWorkers(service);
      // Redis holds the counts (one key per API key, each with its window's expiry), not the primary.
      const keys = await redis.keys(`${prefix}*`);
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(await redis.pTTL(key)).toBeGreaterThan(0);
      expect((await Promise.all(keys.map((k) => redis.get(k)))).map(Number).sort((a, b) => a - b)).toEqual([1, 2 * LIMIT + 2, 2 * LIMIT + 2]);
      expect(service.stderr()).not.toMatch(/"level":"error"|Salesgraph worker/);
    } finally {
      await service.stop();
      await redis.close();
    }
  });
});

describe.skipIf(!withRedis)('the Redis store', () => {
  it('counts per key in a fixed window that starts at the first hit; Retry-After follows the TTL; the window ends with the key', async () => {
    const prefix = uniquePrefix();
    const store = await connectRedisStore({ url: REDIS_URL, prefix, limit: 2 });
    const redis = await createClient({ url: REDIS_URL }).connect();
    try {
      expect(await store.hit('a')).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 60 });
      expect((await store.hit('a')).remaining).toBe(0);
      expect(await store.hit('a')).toMatchObject({ allowed: false, remaining: 0 });
      expect(await store.hit('b')).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 60 });

      // Less than 3 s left in a's window: Retry-After says 3 (rounded up, never 0).
      await redis.pExpire(`${prefix}a`, 2900);
      expect(await store.hit('a')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 3 });
      // The window ends when the key expires: a counts afresh, b keeps its count.
      await redis.pExpire(`${prefix}a`, 0);
      expect(await store.hit('a')).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 60 });
      expect(await store.hit('b')).toMatchObject({ allowed: true, remaining: 0 });

      // A count somehow left without an expiry gets one, so it cannot block a key forever.
      await redis.set(`${prefix}c`, '7');
      expect(await store.hit('c')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 60 });
      expect(await redis.pTTL(`${prefix}c`)).toBeGreaterThan(0);
      expect((await redis.keys(`${prefix}*`)).sort()).toEqual([`${prefix}a`, `${prefix}b`, `${prefix}c`]);
    } finally {
      await store.close?.();
      await redis.close();
    }
  });

  it('refuses to start when REDIS_URL does not answer, without printing its password', async () => {
    const port = await closedPort();
    const url = `redis://default:${SECRET}@127.0.0.1:${port}`;
    const failure = connectRedisStore({ url, prefix: uniquePrefix(), limit: 5 });
    await expect(failure).rejects.toThrow(`REDIS_URL redis://default:***@127.0.0.1:${port} does not answer: connect ECONNREFUSED 127.0.0.1:${port}`);
    await expect(failure).rejects.not.toThrow(SECRET);
  });

  it('fails a hit at once when the connection has dropped, and counts again once Redis is back', { timeout: 30_000 }, async () => {
    const relay = await redisRelay();
    const store = await connectRedisStore({ url: relay.url, prefix: uniquePrefix(), limit: 5 });
    try {
      expect((await store.hit('k')).remaining).toBe(4);
      relay.cut();
      await expect(store.hit('k')).rejects.toThrow();
      await relay.restore();
      // It reconnects in the background (backing off up to 2 s). Polled, not slept, yielding to
      // the event loop between tries (a failed hit rejects at once); 10 s only guards against a hang.
      const deadline = Date.now() + 10_000;
      let remaining: number | undefined;
      while (remaining === undefined && Date.now() < deadline) {
        await new Promise(setImmediate);
        remaining = await store.hit('k').then((hit) => hit.remaining, () => undefined);
      }
      expect(remaining).toBe(3);
    } finally {
      await store.close?.();
      relay.cut();
    }
  });

  it('fails a hit that Redis leaves unanswered, after its timeout (1 s)', async () => {
    const relay = await redisRelay();
    const store = await connectRedisStore({ url: relay.url, prefix: uniquePrefix(), limit: 5 });
    try {
      expect((await store.hit('k')).remaining).toBe(4);
      relay.stall();
      await expect(store.hit('k')).rejects.toThrow('Redis did not answer within 1000 ms.');
    } finally {
      await store.close?.();
      relay.cut();
    }
  });
});

describe.skipIf(!withRedis)('the service with REDIS_URL', () => {
  it('does not start when REDIS_URL does not answer, and says why without the password', { timeout: 60_000 }, async () => {
    const port = await closedPort();
    const started = startCluster({ REDIS_URL: `redis://default:${SECRET}@127.0.0.1:${port}` });
    await expect(started).rejects.toThrow(/^exited 1: Salesgraph cannot start: REDIS_URL redis:\/\/default:\*\*\*@127\.0\.0\.1:\d+ does not answer: connect ECONNREFUSED/);
    await expect(started).rejects.not.toThrow(SECRET);
  });

  it('lets requests through without rate-limit headers while Redis is unreachable, logging one error line', { timeout: 60_000 }, async () => {
    const relay = await redisRelay();
    const service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_URL: relay.url, RATE_LIMIT_REDIS_PREFIX: uniquePrefix() });
    const key = await newKey();
    try {
      expect((await getAlone(service.url, key)).headers['x-ratelimit-remaining']).toBe('4');
      relay.cut();
      const during = [];
      for (let i = 0; i < LIMIT + 2; i += 1) during.push(await getAlone(service.url, key));
      expect(during.map((a) => [a.status, a.headers['x-ratelimit-limit']])).toEqual(Array(LIMIT + 2).fill([200, undefined]));
      const errors = service.stderr().trim().split('\n');
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0]!)).toMatchObject({ level: 'error', where: expect.stringContaining('rate limit') });
      expect(service.output()).not.toContain(SECRET);
      expect(service.output()).not.toContain(key);
    } finally {
      relay.cut();
      expect(await service.stop()).toBe(0);
    }
  });
});
