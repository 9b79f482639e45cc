// Measures what docs/security.md reports about memory and responsiveness, on a
// scratch SQLite database (figures, not tests: timing belongs in a script).
//   npx tsx scripts/measure-limits.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../src/auth/api-keys.js';
import { openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { applyMigrations } from '../src/db/migrate.js';
import { listen } from '../src/serve.js';
import { composeService } from '../src/service.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-measure-'));
const target = resolveDatabase(`file:${join(dir, 'm.db')}`);
await applyMigrations(target);
const database = await openDatabase(target);
const server = await listen(composeService(database), { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: 0 });
const { key } = await createKey(database.prisma, 'measure');
const heapMb = () => {
  globalThis.gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1e6);
};
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });

try {
  // 1. Unauthenticated flood: 200 distinct documents of about 900 KB each.
  const before = heapMb();
  const started = performance.now();
  for (let i = 0; i < 200; i += 1) {
    const document = `{ products { total } } # ${String(i).padStart(4, '0')}${'x'.repeat(900_000)}`;
    const status = await post(JSON.stringify({ query: document }));
    if (status !== 401) throw new Error(`expected 401, got ${status}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`unauthenticated: 200 distinct 900 KB documents in ${seconds.toFixed(1)} s, heap ${before} MB -> ${heapMb()} MB (gc ${globalThis.gc ? 'forced' : 'not exposed'})`);

  // 2. /healthz while the heaviest accepted queries run: 100 companies sharing 100 contacts,
  //    each query returning 100 companies x 98 contacts (9,901 objects with the page, just under the limit), 8 at once.
  const ws = (await database.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 11) } })).workspaceId;
  const contactIds = Array.from({ length: 100 }, (_, i) => `K${String(i).padStart(3, '0')}${Date.now()}`);
  await database.prisma.contact.createMany({ data: contactIds.map((id, i) => ({ id, workspaceId: ws, firstName: `c${i}`, email: `c${i}@x.example`, properties: {}, search: `c${i}` })) });
  for (let i = 0; i < 100; i += 1) {
    await database.prisma.company.create({ data: { id: `C${String(i).padStart(3, '0')}${Date.now()}`, workspaceId: ws, name: `Co ${i}`, contacts: { connect: contactIds.map((id) => ({ id })) } } });
  }
  const heavy = JSON.stringify({ query: '{ companies(perPage: 100) { data { contacts(perPage: 98) { id firstName email } } } }' });
  const sample = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Api-Key': key }, body: heavy });
  const data = (await sample.json()) as { data?: { companies: { data: { contacts: unknown[] }[] } }; errors?: unknown };
  if (!data.data) throw new Error(`the heavy query was refused: ${JSON.stringify(data.errors)}`);
  const objects = data.data.companies.data.reduce((n, c) => n + 1 + c.contacts.length, 0);
  for (const concurrency of [1, 8]) {
    let running = true;
    const load = Promise.all(
      Array.from({ length: concurrency }, async () => {
        let done = 0;
        while (running) {
          await post(heavy, { 'X-Api-Key': key });
          done += 1;
        }
        return done;
      }),
    );
    const latencies: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const t = performance.now();
      await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
      latencies.push(performance.now() - t);
    }
    running = false;
    const queries = (await load).reduce((a, b) => a + b, 0);
    latencies.sort((a, b) => a - b);
    console.log(
      `/healthz while ${concurrency} quer${concurrency === 1 ? 'y' : 'ies'} of ${objects} objects run (${queries} ran): p50 ${latencies[20]!.toFixed(1)} ms, p95 ${latencies[38]!.toFixed(1)} ms, max ${latencies[39]!.toFixed(1)} ms`,
    );
  }
} finally {
  await server.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
