import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { type Database, openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { newId } from '../src/db/ids.js';
import { send } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { type ServiceProcess, startProcess } from './support/process.js';
import { type Answer, type Receiver, startReceiver } from './support/receiver.js';

// API.md section 6, "Deliveries", across real service processes: a delivery is attempted
// by one process at a time whatever their number, a process killed during an attempt loses
// nothing, and SIGTERM lets an attempt in flight finish.

let database: Database;
const running: ServiceProcess[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  database = await openDatabase(resolveDatabase(databaseUrl()));
});

afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(receivers.map((r) => r.close()));
  await database?.close();
});

const ENV = { RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' };
/**
 * For the tests that count each delivery's arrivals: an attempt cannot time out within
 * them, however starved the machine. One that outlived its timeout would rightly be made
 * again (API.md section 6), and counted here as a second arrival.
 */
const NO_TIMEOUT = { WEBHOOK_TIMEOUT_SECONDS: '120' };

async function service(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const started = await startProcess({ DATABASE_URL: databaseUrl(), ...ENV, ...env });
  running.push(started);
  return started;
}

async function receiver(answer?: Answer): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** A workspace with a key and an endpoint for contact events at `url`. */
async function workspace(url: string, base: string) {
  const { key } = await createKey(database.prisma, `ws-${newId()}`, 'test');
  const call = (method: string, path: string, body?: unknown) => send(`${base}/api/v1${path}`, method, { headers: { 'X-Api-Key': key }, ...(body === undefined ? {} : { body }) });
  const endpoint = await call('POST', '/webhook-endpoints', { url, events: ['contact.created'] });
  expect(endpoint.status).toBe(201);
  return { key, call, endpointId: endpoint.body.id as string };
}

const deliveriesOf = (endpointId: string) => database.prisma.webhookDelivery.findMany({ where: { endpointId }, orderBy: { id: 'asc' } });

/**
 * Makes recording a success of `endpointId`'s deliveries fail (a trigger of this file's own
 * database raises) until the returned function is called: the database refusing a write
 * for a while, as a failover or a full pool does.
 */
async function refuseSuccesses(endpointId: string): Promise<() => Promise<void>> {
  const run = (sql: string) => database.prisma.$executeRawUnsafe(sql);
  await run('CREATE TABLE IF NOT EXISTS "RefusedEndpoint" ("endpointId" TEXT PRIMARY KEY)');
  if (database.target.provider === 'postgresql') {
    await run(`CREATE OR REPLACE FUNCTION "refuse_success"() RETURNS trigger AS $$ BEGIN
      IF EXISTS (SELECT 1 FROM "RefusedEndpoint" WHERE "endpointId" = NEW."endpointId") THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await run('CREATE OR REPLACE TRIGGER "refuse_success" BEFORE UPDATE ON "WebhookDelivery" FOR EACH ROW WHEN (NEW."status" = \'succeeded\') EXECUTE FUNCTION "refuse_success"()');
  } else {
    await run(`CREATE TRIGGER IF NOT EXISTS "refuse_success" BEFORE UPDATE ON "WebhookDelivery" FOR EACH ROW
      WHEN NEW."status" = 'succeeded' AND EXISTS (SELECT 1 FROM "RefusedEndpoint" WHERE "endpointId" = NEW."endpointId") BEGIN SELECT RAISE(ABORT, 'refused'); END`);
  }
  await database.prisma.$executeRaw`INSERT INTO "RefusedEndpoint" ("endpointId") VALUES (${endpointId})`;
  return async () => {
    await database.prisma.$executeRaw`DELETE FROM "RefusedEndpoint" WHERE "endpointId" = ${endpointId}`;
  };
}

/** Each webhook-id the receiver got, with how many times. */
const counts = (r: Receiver) => r.ids().reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());

describe('webhook deliveries across processes', () => {
  it('a process killed with -9 during an attempt loses nothing: a later process sends it again, with the same webhook-id', async () => {
    let first: ServiceProcess | undefined;
    const hook = await receiver((n) => {
      if (n > 0) return { status: 200 };
      first!.child.kill('SIGKILL');
      return 'hold';
    });
    // A 1 s timeout: the lease (timeout + 5 s) runs out soon after the kill.
    first = await service({ WEBHOOK_TIMEOUT_SECONDS: '1' });
    const { call, endpointId } = await workspace(hook.url, first.url);
    expect((await call('POST', '/contacts', { first_name: 'K', email: 'k@example.com' })).status).toBe(201);
    await once(first.child, 'exit');
    expect(first.child.signalCode).toBe('SIGKILL');
    const [pending] = await deliveriesOf(endpointId);
    expect([pending!.status, pending!.attempts]).toEqual(['pending', 0]);

    // The lease is the first process's (its 1 s timeout + 5 s); the second's own timeout is long, so that
    // a starved machine cannot time out its one attempt and make a third arrival.
    const second = await service(NO_TIMEOUT);
    await expect.poll(async () => (await deliveriesOf(endpointId))[0]!.status, { timeout: 30_000, interval: 50 }).toBe('succeeded');
    expect(hook.ids()).toEqual([pending!.eventId, pending!.eventId]);
    expect(await second.stop()).toBe(0);
  });

  // The shutdown's order and the setting below are the process's own, whatever its database: once, on the embedded default.
  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')('SIGTERM lets an attempt in flight finish before the process exits', async () => {
    let proc: ServiceProcess | undefined;
    const hook = await receiver(() => {
      proc!.child.kill('SIGTERM');
      return { status: 200, body: 'late but fine' };
    });
    proc = await service();
    const { call, endpointId } = await workspace(hook.url, proc.url);
    expect((await call('POST', '/contacts', { first_name: 'T', email: 't@example.com' })).status).toBe(201);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(0);
    const [delivery] = await deliveriesOf(endpointId);
    expect([delivery!.status, delivery!.attempts, delivery!.responseBody]).toEqual(['succeeded', 1, 'late but fine']);
  });

  it('an outcome the database refuses for a moment is recorded once it answers: the delivery is not sent again', async () => {
    const hook = await receiver(() => ({ status: 200 }));
    // A 1 s timeout: a lease of 6 s, after which an unrecorded attempt would be made again.
    const proc = await service({ WEBHOOK_TIMEOUT_SECONDS: '1' });
    const { call, endpointId } = await workspace(hook.url, proc.url);
    const answerAgain = await refuseSuccesses(endpointId);
    expect((await call('POST', '/contacts', { first_name: 'R', email: 'r@example.com' })).status).toBe(201);
    await expect.poll(() => proc.stderr(), { timeout: 10_000, interval: 20 }).toMatch(/"where":"webhook/);
    await answerAgain();
    await expect.poll(async () => (await deliveriesOf(endpointId))[0]!.status, { timeout: 15_000, interval: 50 }).toBe('succeeded');
    const [delivery] = await deliveriesOf(endpointId);
    expect([delivery!.attempts, hook.ids()]).toEqual([1, [delivery!.eventId]]);
    expect(await proc.stop()).toBe(0);
  });

  it('with WEB_CONCURRENCY=2 each delivery reaches the receiver once', async () => {
    // Answers take a moment, so the two workers' claims overlap.
    const hook = await receiver(() => ({ status: 200 }));
    const proc = await service({ WEB_CONCURRENCY: '2', ...NO_TIMEOUT });
    const { call, endpointId } = await workspace(hook.url, proc.url);
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => call('POST', '/contacts', { first_name: `W${i}`, email: `w${i}@example.com` })));
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(201));
    await expect.poll(async () => (await deliveriesOf(endpointId)).filter((d) => d.status === 'succeeded').length, { timeout: 30_000, interval: 50 }).toBe(40);
    expect([...counts(hook).values()]).toEqual(Array(40).fill(1));
    expect((await deliveriesOf(endpointId)).map((d) => d.attempts)).toEqual(Array(40).fill(1));
    expect((await proc.stop())).toBe(0);
  });

  it.runIf(process.env.TEST_PROVIDER === 'postgresql')('two servers on one PostgreSQL database: each delivery reaches the receiver once', async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const [a, b] = await Promise.all([service(NO_TIMEOUT), service(NO_TIMEOUT)]);
    const { key, call, endpointId } = await workspace(hook.url, a!.url);
    const viaB = (path: string, body: unknown) => send(`${b!.url}/api/v1${path}`, 'POST', { headers: { 'X-Api-Key': key }, body });
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? call('POST', '/contacts', { first_name: `P${i}`, email: `p${i}@example.com` }) : viaB('/contacts', { first_name: `P${i}`, email: `p${i}@example.com` }))),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(201));
    await expect.poll(async () => (await deliveriesOf(endpointId)).filter((d) => d.status === 'succeeded').length, { timeout: 30_000, interval: 50 }).toBe(40);
    expect([...counts(hook).values()]).toEqual(Array(40).fill(1));
    expect((await deliveriesOf(endpointId)).map((d) => d.attempts)).toEqual(Array(40).fill(1));
    expect(await Promise.all([a!.stop(), b!.stop()])).toEqual([0, 0]);
  });

  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')('WEBHOOKS_DELIVER=false: the process serves and leaves delivery to others', async () => {
    const hook = await receiver();
    const quiet = await service({ WEBHOOKS_DELIVER: 'false' });
    const { call, endpointId } = await workspace(hook.url, quiet.url);
    expect((await call('POST', '/contacts', { first_name: 'Q', email: 'q@example.com' })).status).toBe(201);
    // Its own commits wake no worker; nothing is sent while it is the only process.
    const [delivery] = await deliveriesOf(endpointId);
    expect(delivery!.status).toBe('pending');
    const worker = await service();
    await expect.poll(async () => (await deliveriesOf(endpointId))[0]!.status, { timeout: 30_000, interval: 50 }).toBe('succeeded');
    expect(hook.received.length).toBe(1);
    expect(await Promise.all([quiet.stop(), worker.stop()])).toEqual([0, 0]);
  });
});
