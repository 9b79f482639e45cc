import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { type TestApp, newClient, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { startProcess } from './support/process.js';

// API.md section 5, graceful shutdown: SIGTERM turns /readyz 503 at once, new connections
// are served for DRAIN_DELAY_SECONDS, then the service stops accepting and every request
// in flight gets its answer before the process exits.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

type Outcome = { status: number; connection: string | null } | { error: string };

async function post(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    return { status: res.status, connection: res.headers.get('connection') };
  } catch (error) {
    return { error: String((error as { cause?: { code?: string } }).cause?.code ?? error) };
  }
}

describe('SIGTERM', () => {
  // On PostgreSQL a retry finding its key held by another request's transaction waits outside any transaction;
  // on SQLite there is no such wait in the service (write transactions queue for the database's one writer).
  it.runIf(process.env.TEST_PROVIDER === 'postgresql')('answers a retry waiting for its Idempotency-Key with 503 and Retry-After when the server stops, and writes nothing', async () => {
    const own = await startApp();
    const api = await newClient(own);
    // The key's first request, in another process, holds it: its transaction is still open.
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`idempotency:${api.workspaceId}:held`]);
    try {
      // The retry is waiting once it has found the key held twice.
      let tries = 0;
      const polling = new Promise<void>((resolve) =>
        own.database.onStatement((sql) => {
          if (sql.includes('pg_try_advisory_xact_lock') && (tries += 1) === 2) resolve();
        }),
      );
      const retry = api.request('POST', '/contacts', { body: { first_name: 'Held' }, headers: { 'Idempotency-Key': 'held' } });
      await polling;
      own.database.onStatement(undefined);
      const closed = own.close();
      const answer = await retry;
      expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body }).toEqual({ status: 503, retryAfter: '1', body: { message: 'Service unavailable.' } });
      await closed;
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(await app.database.prisma.contact.count({ where: { workspaceId: api.workspaceId } })).toBe(0);
  });

  // The drain is the HTTP layer's, whatever the database: once, on the embedded default.
  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')('turns /readyz 503 at once, serves every request sent while draining (each closing its connection), then stops accepting', async () => {
    const api = await newClient(app);
    // The drain lasts as long as a kept-alive connection may stay idle, as the defaults have it.
    const service = await startProcess({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', DRAIN_DELAY_SECONDS: '3', KEEP_ALIVE_TIMEOUT_SECONDS: '3' });
    const ready = await fetch(`${service.url}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });

    // Four clients write over kept-alive connections until the load balancer (here: the
    // clients themselves) has seen /readyz answer 503, and a little after.
    let unready: { status: number; body: unknown } | undefined;
    const outcomes: { sentDraining: boolean; outcome: Outcome }[] = [];
    let n = 0;
    const client = async () => {
      for (let afterUnready = 0; afterUnready < 5; ) {
        const sentDraining = unready !== undefined;
        outcomes.push({ sentDraining, outcome: await post(`${service.url}/api/v1/contacts`, api.key, { first_name: 'Drain', email: `d${(n += 1)}@x.io` }) });
        if (unready) afterUnready += 1;
      }
    };
    const clients = Array.from({ length: 4 }, client);
    // Some writes first, then the signal while writes are in flight.
    while (outcomes.length < 20) await new Promise((r) => setImmediate(r));
    const exited = service.stop();
    for (;;) {
      const res = await fetch(`${service.url}/readyz`);
      const body = await res.json();
      if (res.status === 503) {
        unready = { status: res.status, body };
        break;
      }
    }
    await Promise.all(clients);
    expect(unready).toEqual({ status: 503, body: { message: 'Service unavailable.', checks: { database: 'ok', shutdown: 'draining' } } });
    expect(await exited).toBe(0);

    // Every request got its answer, created its contact, and none was cut off.
    expect(outcomes.filter((o) => 'error' in o.outcome)).toEqual([]);
    expect(outcomes.every((o) => 'status' in o.outcome && o.outcome.status === 201)).toBe(true);
    expect(await app.database.prisma.contact.count({ where: { workspaceId: api.workspaceId } })).toBe(outcomes.length);
    // Requests sent once the service was draining were served, on connections closed after each answer.
    const drained = outcomes.filter((o) => o.sentDraining);
    expect(drained.length).toBeGreaterThanOrEqual(16);
    expect(drained.map((o) => ('status' in o.outcome ? o.outcome.connection : o.outcome.error))).toEqual(drained.map(() => 'close'));
    // And after the drain, nothing is accepted.
    expect(await post(`${service.url}/api/v1/contacts`, api.key, {})).toEqual({ error: 'ECONNREFUSED' });
  });
});
