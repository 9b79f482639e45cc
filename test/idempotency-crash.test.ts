import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../src/http/crash-points.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { startProcess } from './support/process.js';

// API.md section 2: a write with an Idempotency-Key is safe across crashes. The key's
// record, the write, its events and the stored answer commit in one transaction, so a
// process killed (SIGKILL) at any point of the request's life leaves all or nothing: the
// client's retry gets the first answer (it committed) or runs once (it did not). Never a
// second record, never a 422 about the first attempt's own write.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const POINTS: { point: CrashPoint; committed: boolean }[] = [
  { point: 'idempotency:before-transaction', committed: false },
  // The contact and its event are written and the answer stored, in the open transaction.
  { point: 'idempotency:written', committed: false },
  { point: 'idempotency:committed', committed: true },
  { point: 'response:ready', committed: true },
];

/** A create with a unique field (a contact's e-mail) and one with none (a task). */
const WRITES = [
  { path: '/contacts', resource: 'contact', body: (tag: string) => ({ first_name: 'Crash', email: `${tag}@x.io` }) },
  { path: '/tasks', resource: 'task', body: (tag: string) => ({ title: `Crash ${tag}` }) },
] as const;

async function writeKilledAt(api: Client, point: CrashPoint, write: { path: string }, key: string, body: unknown) {
  const service = await startProcess({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', CRASH_AT: point }, { execArgv: ['--import', './test/support/crash-at.mjs'] });
  const exited = once(service.child, 'exit');
  const sent = await fetch(`${service.url}/api/v1${write.path}`, {
    method: 'POST',
    headers: { 'X-Api-Key': api.key, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify(body),
  }).then(
    (res) => `answered ${res.status}`,
    (error: { cause?: { code?: string } }) => error.cause?.code ?? 'failed',
  );
  const [code, signal] = await exited;
  return { sent, code, signal };
}

/**
 * Each point once for a contact; a task (no unique field) where it tells more: after the
 * commit, where a retry that ran again would make a second task with no error to show it.
 * Before the commit both kinds leave nothing, and the contact's unique e-mail shows it best.
 */
const CASES = POINTS.flatMap(({ point, committed }) => WRITES.filter((write) => committed || write.resource === 'contact').map((write) => [`${write.resource}, at ${point}`, point, committed, write] as const));

describe('a write with an Idempotency-Key killed with SIGKILL', () => {
  it.each(CASES)(
    '%s: the retry gets the first answer or creates it exactly once',
    async (_label, point, committed, write) => {
      const api = await newClient(app);
      const tag = `${write.resource}-${point.replace(/\W/g, '-')}`;
      const body = write.body(tag);
      const killed = await writeKilledAt(api, point, write, tag, body);
      // The client never heard back: the connection died with the process.
      expect(killed).toEqual({ sent: 'UND_ERR_SOCKET', code: null, signal: 'SIGKILL' });

      // What the crash left: all of it, or none.
      const rows = (model: 'contact' | 'task') => (app.database.prisma[model] as { count(a: object): Promise<number> }).count({ where: { workspaceId: api.workspaceId } });
      const keys = () => app.database.prisma.idempotencyRecord.count({ where: { workspaceId: api.workspaceId } });
      const events = async () => (await api.get(`/events?type=${write.resource}.created`)).body.total;
      // The search index is written in the same transaction (contacts and tasks are both searched).
      const entries = () => app.database.prisma.searchEntry.count({ where: { workspaceId: api.workspaceId } });
      expect([await rows(write.resource), await keys(), await events(), await entries()]).toEqual(committed ? [1, 1, 1, 1] : [0, 0, 0, 0]);

      // A careful client's retry, to a process that is alive: the first answer, or the write made once.
      const retry = await api.request('POST', write.path, { body, headers: { 'Idempotency-Key': tag } });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe(committed ? 'true' : null);
      expect([await rows(write.resource), await keys(), await events(), await entries()]).toEqual([1, 1, 1, 1]);
      const [record] = (await api.get(`${write.path}?per_page=100`)).body.data;
      expect(retry.body).toEqual(record);
      // And again: the same answer, nothing more.
      const again = await api.request('POST', write.path, { body, headers: { 'Idempotency-Key': tag } });
      expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([201, record, 'true']);
      expect([await rows(write.resource), await events()]).toEqual([1, 1]);
    },
  );
});

// API.md section 12: a merge moves links, fills values, trashes its sources and records its events in one transaction.
describe('a merge with an Idempotency-Key killed with SIGKILL', () => {
  it.each(POINTS.filter(({ point }) => point === 'idempotency:written' || point === 'idempotency:committed').map(({ point, committed }) => [point, committed] as const))(
    'at %s: all of it or none, and the retry gets the first answer or merges once',
    async (point, committed) => {
      const api = await newClient(app);
      const company = (await api.post('/companies', { name: 'Acme' })).body;
      const target = (await api.post('/contacts', { first_name: 'Keep', email: 'keep@x.io' })).body;
      const source = (await api.post('/contacts', { first_name: 'Fold', last_name: 'Twin', email: 'fold@x.io', company_ids: [company.id] })).body;
      const path = `/contacts/${target.id}/merge`;
      const body = { source_ids: [source.id] };
      const tag = `merge-${point.replace(/\W/g, '-')}`;
      expect(await writeKilledAt(api, point, { path }, tag, body)).toEqual({ sent: 'UND_ERR_SOCKET', code: null, signal: 'SIGKILL' });

      const state = async () => [
        (await api.get(`/contacts/${source.id}`)).status,
        (await api.get('/trash')).body.total,
        (await api.graphql('query($id: ID!) { contact(id: $id) { lastName companyIds } }', { id: target.id })).body.data.contact,
        (await api.get('/events?type=contact.merged')).body.total,
        await app.database.prisma.idempotencyRecord.count({ where: { workspaceId: api.workspaceId } }),
      ];
      const merged = [404, 1, { lastName: 'Twin', companyIds: [company.id] }, 1, 1];
      expect(await state()).toEqual(committed ? merged : [200, 0, { lastName: null, companyIds: [] }, 0, 0]);

      const retry = await api.request('POST', path, { body, headers: { 'Idempotency-Key': tag } });
      expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, committed ? 'true' : null]);
      expect(retry.body).toEqual((await api.get(`/contacts/${target.id}`)).body);
      expect(await state()).toEqual(merged);
    },
  );
});

