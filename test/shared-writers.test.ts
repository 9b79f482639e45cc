import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { newId } from '../src/db/ids.js';
import { cli } from './support/cli.js';
import { databaseUrl } from './support/file-database.js';
import { send } from './support/http.js';
import { type ServiceProcess, startProcess } from './support/process.js';

// API.md sections 5 and 8: processes that share the database take turns writing and never
// fail for each other: the command line's import beside the service's writes, and two
// cluster workers (WEB_CONCURRENCY=2), on the embedded database as on PostgreSQL.

let database: Database;
beforeAll(async () => {
  database = await openDatabase(resolveDatabase(databaseUrl()));
});
afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const dir = mkdtempSync(join(tmpdir(), 'sg-shared-writers-'));

/** A new workspace and a key for it. */
async function workspace(): Promise<{ name: string; key: string; id: string }> {
  const name = `ws-${newId()}`;
  const { key, workspaceId } = await createKey(database.prisma, name, 'test');
  return { name, key, id: workspaceId };
}

/** One client's writes, one after the other until `until()`: every status, and the contacts each made. */
async function writer(url: string, key: string, kind: 'single' | 'batch' | 'keyed' | 'upsert', tag: string, until: () => boolean) {
  const statuses: number[] = [];
  let made = 0;
  const headers = { 'X-Api-Key': key };
  for (let i = 0; !until() || i === 0; i += 1) {
    const email = (n: number) => `${tag}-${kind}-${i}-${n}@w.io`;
    let res;
    if (kind === 'single') res = await send(`${url}/api/v1/contacts`, 'POST', { headers, body: { first_name: 'S', email: email(0) } });
    else if (kind === 'batch') res = await send(`${url}/api/v1/contacts/batch`, 'POST', { headers, body: { inputs: [0, 1, 2].map((n) => ({ first_name: 'B', email: email(n) })) } });
    else if (kind === 'keyed') {
      const keyed = { headers: { ...headers, 'Idempotency-Key': `${tag}-${i}` }, body: { first_name: 'K', email: email(0) } };
      res = await send(`${url}/api/v1/contacts`, 'POST', keyed);
      // The same key again replays the answer: one contact.
      const again = await send(`${url}/api/v1/contacts`, 'POST', keyed);
      statuses.push(again.status);
      expect(again.body.id).toBe(res.body.id);
    } else res = await send(`${url}/api/v1/contacts/batch/upsert`, 'PUT', { headers, body: { inputs: [0, 1].map((n) => ({ first_name: 'U', email: email(n) })) } });
    statuses.push(res.status);
    if (res.status < 300) made += kind === 'batch' ? 3 : kind === 'upsert' ? 2 : 1;
  }
  return { statuses, made };
}

const contactsOf = (workspaceId: string) => (database.prisma as any).contact.count({ where: { workspaceId } }) as Promise<number>;

describe('processes sharing the database', () => {
  let service: ServiceProcess | undefined;
  afterAll(() => service?.stop());

  it('imports a file with the command line while the service takes writes into the same workspace: every row, every write', { timeout: 120_000 }, async () => {
    service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
    const ws = await workspace();
    const ROWS = 1_500;
    const file = join(dir, 'contacts.csv');
    writeFileSync(file, `first_name,email\r\n${Array.from({ length: ROWS }, (_, i) => `Imported ${i},imported-${i}@i.io\r\n`).join('')}`);
    let importing = true;
    const imported = cli(['import', 'contacts', file, '--workspace', ws.name, '--json'], { DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn' }).finally(() => (importing = false));
    // Three clients write throughout the import, each at least once.
    const writers = await Promise.all((['single', 'batch', 'upsert'] as const).map((kind) => writer(service!.url, ws.key, kind, 'beside', () => !importing)));
    const result = await imported;
    expect({ code: result.code, error: /error|locked/i.test(result.stderr) }).toEqual({ code: 0, error: false });
    expect(JSON.parse(result.stdout)).toEqual({ created: ROWS, updated: 0, rejected: 0, skipped: 0 });
    const statuses = writers.flatMap((w) => w.statuses);
    expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);
    expect(await contactsOf(ws.id)).toBe(ROWS + writers.reduce((sum, w) => sum + w.made, 0));
    await service.stop();
    service = undefined;
  });

  it('serves single, batch, keyed and upsert writes from two workers (WEB_CONCURRENCY=2) with every answer 2xx and the counts exact', { timeout: 120_000 }, async () => {
    service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', WEB_CONCURRENCY: '2', NODE_CLUSTER_SCHED_POLICY: 'rr', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
    const ws = await workspace();
    const WRITES = 25;
    const counters = new Map<string, number>();
    const upTo = (name: string) => () => {
      const n = (counters.get(name) ?? 0) + 1;
      counters.set(name, n);
      return n > WRITES;
    };
    // Two clients of each kind at once: eight connections, spread over both workers.
    const kinds = ['single', 'batch', 'keyed', 'upsert'] as const;
    const writers = await Promise.all(kinds.flatMap((kind) => [0, 1].map((n) => writer(service!.url, ws.key, kind, `c${n}`, upTo(`${kind}${n}`)))));
    const statuses = writers.flatMap((w) => w.statuses);
    expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);
    expect(statuses.length).toBe(2 * WRITES * 5); // keyed: a write and its replay
    expect(await contactsOf(ws.id)).toBe(writers.reduce((sum, w) => sum + w.made, 0));
    expect(service.stderr()).toBe('');
    await service.stop();
    service = undefined;
  });
});
