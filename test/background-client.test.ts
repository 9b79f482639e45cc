import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_POOL_SIZE } from '../src/db/client.js';
import { startBackgroundWork } from '../src/jobs/background.js';
import { type TestApp, newClient, startApp } from './support/app.js';
import { type Receiver, startReceiver } from './support/receiver.js';

// The background loops' client (`Database.background`, src/db/client.ts): its statements
// never wait behind the requests' backlog. With every connection the requests' client can
// give busy, and its next write waiting, a write of the background client goes first; and
// the delivery worker, which uses it, still delivers.

let app: TestApp;
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await startApp({ server: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true } });
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await app?.close();
});

/** Lets the statements already sent reach their client's queue (turns of the event loop, no timer). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Holds all the requests' client gives at once (every pooled PostgreSQL connection, SQLite's one writer) until released. */
async function holdRequestClient(): Promise<{ release(): Promise<void> }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const holders = app.provider === 'postgresql' ? REQUEST_POOL_SIZE : 1;
  let started = 0;
  let allStarted!: () => void;
  const ready = new Promise<void>((resolve) => (allStarted = resolve));
  const held = Array.from({ length: holders }, () =>
    app.database.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`UPDATE "Workspace" SET "updatedAt" = "updatedAt" WHERE "id" = 'none'`;
        if ((started += 1) === holders) allStarted();
        await gate;
      },
      { maxWait: 60_000, timeout: 60_000 },
    ),
  );
  await ready;
  return {
    async release() {
      open();
      await Promise.all(held);
    },
  };
}

describe('the background loops’ client', () => {
  it('writes before the requests’ writes that wait for a connection or the writer', async () => {
    const { workspaceId } = await newClient(app);
    await app.database.background.$queryRaw`SELECT 1`; // connected before the clock of the case starts
    const hold = await holdRequestClient();
    const order: string[] = [];
    const request = app.database.prisma.$executeRaw`UPDATE "Workspace" SET "updatedAt" = "updatedAt" WHERE "id" = ${workspaceId}`.then(() => order.push('request'));
    await settle();
    const background = app.database.background.$executeRaw`UPDATE "Workspace" SET "updatedAt" = "updatedAt" WHERE "id" = ${workspaceId}`.then(() => order.push('background'));
    // PostgreSQL: on a connection of its own, at once; SQLite: first when the writer is free.
    if (app.provider === 'postgresql') await background;
    else await settle();
    await hold.release();
    await Promise.all([request, background]);
    expect(order).toEqual(['background', 'request']);
  });

  it.runIf(process.env.TEST_PROVIDER === 'postgresql')('lets the delivery worker deliver while every request connection is taken', async () => {
    let arrived!: () => void;
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    const hook = await startReceiver(() => {
      arrived();
      return { status: 204 };
    });
    receivers.push(hook);
    const api = await newClient(app);
    expect((await api.post('/webhook-endpoints', { url: hook.url, events: ['contact.created'] })).status).toBe(201);
    const contact = await api.post('/contacts', { first_name: 'Queued', email: `queued-${Date.now()}@example.com` });
    expect(contact.status).toBe(201);
    // The delivery waits (no worker runs in this app) until the requests' pool is full, then a worker starts.
    const hold = await holdRequestClient();
    const background = startBackgroundWork(app.service, { EVENT_RETENTION_DAYS: 30, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
    try {
      await delivered;
      expect(hook.received).toHaveLength(1);
      expect(JSON.parse(hook.received[0]!.body)).toMatchObject({ type: 'contact.created', data: { object: { id: contact.body.id } } });
    } finally {
      await background.stop();
      await hold.release();
    }
  });
});
