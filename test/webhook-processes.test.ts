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

    const second = await service({ WEBHOOK_TIMEOUT_SECONDS: '1' });
    await expect.poll(async () => (await deliveriesOf(endpointId))[0]!.status, { timeout: 30_000, interval: 50 }).toBe('succeeded');
    expect(hook.ids()).toEqual([pending!.eventId, pending!.eventId]);
    expect(await second.stop()).toBe(0);
  });

  it('SIGTERM lets an attempt in flight finish before the process exits', async () => {
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

  it('with WEB_CONCURRENCY=2 each delivery reaches the receiver once', async () => {
    // Answers take a moment, so the two workers' claims overlap.
    const hook = await receiver(() => ({ status: 200 }));
    const proc = await service({ WEB_CONCURRENCY: '2' });
    const { call, endpointId } = await workspace(hook.url, proc.url);
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => call('POST', '/contacts', { first_name: `W${i}`, email: `w${i}@example.com` })));
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(201));
    await expect.poll(async () => (await deliveriesOf(endpointId)).filter((d) => d.status === 'succeeded').length, { timeout: 30_000, interval: 50 }).toBe(40);
    expect([...counts(hook).values()]).toEqual(Array(40).fill(1));
    expect((await proc.stop())).toBe(0);
  });

  it.runIf(process.env.TEST_PROVIDER === 'postgresql')('two servers on one PostgreSQL database: each delivery reaches the receiver once', async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const [a, b] = await Promise.all([service(), service()]);
    const { key, call, endpointId } = await workspace(hook.url, a!.url);
    const viaB = (path: string, body: unknown) => send(`${b!.url}/api/v1${path}`, 'POST', { headers: { 'X-Api-Key': key }, body });
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? call('POST', '/contacts', { first_name: `P${i}`, email: `p${i}@example.com` }) : viaB('/contacts', { first_name: `P${i}`, email: `p${i}@example.com` }))),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(201));
    await expect.poll(async () => (await deliveriesOf(endpointId)).filter((d) => d.status === 'succeeded').length, { timeout: 30_000, interval: 50 }).toBe(40);
    expect([...counts(hook).values()]).toEqual(Array(40).fill(1));
    expect(await Promise.all([a!.stop(), b!.stop()])).toEqual([0, 0]);
  });

  it('WEBHOOKS_DELIVER=false: the process serves and leaves delivery to others', async () => {
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
