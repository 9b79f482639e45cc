import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { databaseUrl } from './support/file-database.js';
import { type ServiceProcess, startProcess } from './support/process.js';

// An answer sent before the request's body is read (401 without a key, 413 by the
// declared size) reaches the client whole, however much body it is still sending: the
// service half-closes after the answer and reads (and drops) what still comes, for a
// bounded time and byte count, before it closes. Closing at once made the kernel reset
// the connection, and the client lost the answer. The machine is kept busy meanwhile
// (a CPU-bound process): a reset shows most under load. At the lowest priority, the busy
// process takes only a core nobody else wants: in the whole suite, where every core is
// taken, it costs the other files nothing.

const MB = 1024 * 1024;
const body1 = new Uint8Array(1 * MB).fill(0x20);
const body5 = new Uint8Array(5 * MB).fill(0x20);

let service: ServiceProcess;
let busy: ChildProcess;
let key: string;

beforeAll(async () => {
  const database = await openDatabase(resolveDatabase(databaseUrl()));
  key = (await createKey(database.prisma, 'lingering', 'test')).key;
  await database.close();
  service = await startProcess({ DATABASE_URL: databaseUrl(), MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
  busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  setPriority(busy.pid!, 19);
});
afterAll(async () => {
  busy?.kill('SIGKILL');
  await service?.stop();
});

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))![1]) / 1024;

/** A POST whose answer must be read whole: its status and parsed body (a reset fails the test with its error). */
async function post(path: string, body: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}${path}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
  return { status: res.status, body: await res.json() };
}

const unauthenticated = (path: string) => (path === '/graphql' ? { errors: [expect.objectContaining({ message: 'Unauthenticated.', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) })] } : { message: 'Unauthenticated.' });

describe('an answer sent before the body is read', { timeout: 240_000 }, () => {
  it('reaches the client for 100 sequential and 20 concurrent 1 MB and 5 MB bodies, and memory does not grow with them', async () => {
    const paths = ['/graphql', '/api/v1/contacts'];
    await post('/api/v1/contacts', body1); // warm up before memory is read
    const before = rssMb();
    for (let i = 0; i < 100; i += 1) {
      const path = paths[i % 2]!;
      const reply = await post(path, i % 4 < 2 ? body1 : body5);
      expect([i, reply.status, reply.body]).toEqual([i, 401, unauthenticated(path)]);
    }
    const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => post(paths[i % 2]!, i < 10 ? body1 : body5)));
    expect(concurrent).toEqual(Array.from({ length: 20 }, (_, i) => ({ status: 401, body: unauthenticated(paths[i % 2]!) })));
    // 300 MB and 60 MB were sent; the bodies were dropped as they came, never held.
    expect(rssMb() - before).toBeLessThan(60);
  });

  it('reaches the client when the declared size is refused with 413 (with a key), on both faces', async () => {
    for (const path of ['/api/v1/contacts', '/graphql']) {
      for (const body of [body5, body5]) {
        const reply = await post(path, body, { 'X-Api-Key': key });
        expect([path, reply.status]).toEqual([path, 413]);
        expect(typeof reply.body.message === 'string' || Array.isArray(reply.body.errors)).toBe(true);
      }
    }
  });

  it('reaches a keep-alive client, which then goes on over a new connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i += 1) {
        const answer = await new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
          const req = request(`${service.url}/api/v1/contacts`, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': String(body5.length) } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
          });
          req.on('error', reject);
          req.end(body5);
        });
        expect(answer).toEqual({ status: 401, body: JSON.stringify({ message: 'Unauthenticated.' }), connection: 'close' });
      }
    } finally {
      agent.destroy();
    }
  });
});
