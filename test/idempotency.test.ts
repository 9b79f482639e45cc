import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';
import { startProcess } from './support/process.js';
import { databaseUrl } from './support/file-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const post = (api: Client, path: string, body: unknown, key: string) => api.request('POST', path, { body, headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key on POST', () => {
  it('replays the first response for a retry with the same body, and creates nothing more', async () => {
    const api = await newClient(app);
    const body = { name: 'Ada', email: 'ada@example.com' };
    const first = await post(api, '/users', body, 'k-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same JSON, other key order and spacing: the same request.
    const retry = await api.request('POST', '/users', { raw: '{ "email": "ada@example.com",  "name": "Ada" }', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' } });
    expect([retry.status, retry.body]).toEqual([201, first.body]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.get('/users')).body.total).toBe(1);
  });

  it('refuses the same key with another body or on another route, with 422', async () => {
    const api = await newClient(app);
    expect((await post(api, '/users', { name: 'A', email: 'a@example.com' }, 'k-2')).status).toBe(201);
    const other = await post(api, '/users', { name: 'B', email: 'b@example.com' }, 'k-2');
    expect([other.status, other.body]).toEqual([422, { message: 'The given data was invalid.', errors: { idempotency_key: ['The Idempotency-Key was already used with another request.'] } }]);
    expect((await post(api, '/companies', { name: 'A', email: 'a@example.com' }, 'k-2')).status).toBe(422);
    expect((await api.get('/users')).body.total).toBe(1);
    expect((await api.get('/companies')).body.total).toBe(0);
  });

  it('keeps keys per workspace', async () => {
    const [one, two] = [await newClient(app), await newClient(app)];
    const a = await post(one, '/users', { name: 'A', email: 'a@example.com' }, 'shared');
    const b = await post(two, '/users', { name: 'B', email: 'b@example.com' }, 'shared');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('does not keep a refused request: the key can be used again once the body is fixed', async () => {
    const api = await newClient(app);
    const refused = await post(api, '/users', { name: 'A' }, 'k-3');
    expect(refused.status).toBe(422);
    const fixed = await post(api, '/users', { name: 'A', email: 'a@example.com' }, 'k-3');
    expect(fixed.status).toBe(201);
    expect((await post(api, '/users', { name: 'A', email: 'a@example.com' }, 'k-3')).body).toEqual(fixed.body);
  });

  it('replays actions that answer 200, and ignores the header on other methods', async () => {
    const api = await newClient(app);
    const account = (await api.post('/payment-provider-accounts', { name: 'S', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'L', payment_provider_account_id: account.id })).body;
    const on = await post(api, `/payment-links/${link.id}/activate`, undefined, 'act');
    expect([on.status, on.body.is_active]).toEqual([200, true]);
    await api.post(`/payment-links/${link.id}/deactivate`);
    const replay = await post(api, `/payment-links/${link.id}/activate`, undefined, 'act');
    expect([replay.status, replay.body]).toEqual([200, on.body]);
    const put = await api.request('PUT', `/payment-links/${link.id}`, { body: { name: 'M' }, headers: { 'Idempotency-Key': 'act' } });
    expect([put.status, put.body.name]).toEqual([200, 'M']);
  });

  it('refuses an over-long key', async () => {
    const api = await newClient(app);
    const res = await post(api, '/users', { name: 'A', email: 'a@example.com' }, 'x'.repeat(256));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['idempotency_key']);
    expect((await api.get('/users')).body.total).toBe(0);
  });

  it('gives ten concurrent requests with one key one record and one answer', async () => {
    const api = await newClient(app);
    const body = { name: 'Race', type: 'service', price: 1, currency: 'USD', unit: 'hour' };
    const replies = await Promise.all(Array.from({ length: 10 }, () => post(api, '/products', body, 'race')));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await api.get('/products')).body.total).toBe(1);
  });

  it('works across two server processes on one database', async () => {
    const workspace = `ws-idem-${Date.now()}`;
    const { key } = await createKey(app.database.prisma, workspace, 'test');
    const env = { DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0' };
    const servers = await Promise.all([startProcess(env), startProcess(env)]);
    try {
      const body = { name: 'Grace', email: 'grace@example.com' };
      const headers = { 'X-Api-Key': key, 'Idempotency-Key': 'two-processes' };
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => send(`${servers[i % 2]!.url}/api/v1/users`, 'POST', { body, headers })));
      expect(replies.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
      const listed = await send(`${servers[1]!.url}/api/v1/users`, 'GET', { headers: { 'X-Api-Key': key } });
      expect(listed.body.total).toBe(1);
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
    }
  });

  it('purges expired records and then treats the key as new', async () => {
    const api = await newClient(app);
    const first = await post(api, '/users', { name: 'Old', email: 'old@example.com' }, 'k-old');
    await app.database.prisma.idempotencyRecord.updateMany({ where: { workspaceId: api.workspaceId, key: 'k-old' }, data: { createdAt: new Date(Date.now() - 25 * 3600 * 1000) } });
    const again = await post(api, '/users', { name: 'New', email: 'new@example.com' }, 'k-old');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    const records = await app.database.prisma.idempotencyRecord.findMany({ where: { workspaceId: api.workspaceId } });
    expect(records.map((r) => [r.key, r.status])).toEqual([['k-old', 201]]);
  });

  it("purges every workspace's expired records as requests come, with no job", async () => {
    const stale = await newClient(app);
    await post(stale, '/users', { name: 'Old', email: 'old@example.com' }, 'k-stale');
    await app.database.prisma.idempotencyRecord.updateMany({ where: { workspaceId: stale.workspaceId }, data: { createdAt: new Date(Date.now() - 25 * 3600 * 1000) } });
    // A new server process purges with its first idempotent request.
    const fresh = await startApp();
    try {
      const api = await newClient(fresh);
      expect((await post(api, '/users', { name: 'N', email: 'n@example.com' }, 'k-new')).status).toBe(201);
      expect(await app.database.prisma.idempotencyRecord.count({ where: { workspaceId: stale.workspaceId } })).toBe(0);
      expect(await app.database.prisma.idempotencyRecord.count({ where: { workspaceId: api.workspaceId } })).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
